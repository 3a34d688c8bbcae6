/* In-kernel self-tests: KTEST(name) registers through the .ktest section;
 * results print as KTAP (Documentation/dev-tools/ktap.rst). */
#pragma once
#include "kernel.h"
#include "printk.h"

struct ktest {
	const char *name;
	void (*fn)(void);
};

struct ktest_state {
	bool failed;
	const char *skip;	/* reason, when the test skipped itself */
};
extern struct ktest_state ktest_state;

#define KTEST(name)							\
	static void ktest_##name(void);					\
	static const struct ktest __ktest_##name			\
		__section(".ktest") __attribute__((used)) = { #name, ktest_##name }; \
	static void ktest_##name(void)

/* Record a failure with its location and carry on. */
#define KEXPECT(cond)							\
	do {								\
		if (!(cond)) {						\
			printk("# %s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
			ktest_state.failed = true;			\
		}							\
	} while (0)

#define KEXPECT_EQ(a, b)						\
	do {								\
		long long __a = (long long)(a), __b = (long long)(b);	\
		if (__a != __b) {					\
			printk("# %s:%d: expected %s == %s, got %lld and %lld\n", \
			       __FILE__, __LINE__, #a, #b, __a, __b);	\
			ktest_state.failed = true;			\
		}							\
	} while (0)

/* Stop the test here if cond fails (cond is evaluated once). */
#define KASSERT(cond)							\
	do {								\
		if (!(cond)) {						\
			printk("# %s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
			ktest_state.failed = true;			\
			return;						\
		}							\
	} while (0)

#define KSKIP(reason)							\
	do {								\
		ktest_state.skip = (reason);				\
		return;							\
	} while (0)

/* Run every registered test; returns the number that failed. */
int ktest_run_all(void);
