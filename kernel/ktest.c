/* The in-kernel self-test runner: every KTEST in link order, KTAP out. */
#include "ktest.h"

struct ktest_state ktest_state;

int ktest_run_all(void)
{
	extern const struct ktest __ktest_start[], __ktest_end[];
	int n = __ktest_end - __ktest_start, failed = 0;

	printk("KTAP version 1\n1..%d\n", n);
	for (int i = 0; i < n; i++) {
		const struct ktest *t = &__ktest_start[i];

		ktest_state = (struct ktest_state){ 0 };
		t->fn();
		if (ktest_state.failed) {
			printk("not ok %d %s\n", i + 1, t->name);
			failed++;
		} else if (ktest_state.skip) {
			printk("ok %d %s # SKIP %s\n", i + 1, t->name, ktest_state.skip);
		} else {
			printk("ok %d %s\n", i + 1, t->name);
		}
	}
	return failed;
}
