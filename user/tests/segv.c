/* user/tests/segv.c: dies of SIGSEGV with no handler; the suite expects exit status 139 (128 + SIGSEGV). */
#include <stdint.h>
#include <unistd.h>

int main(void)
{
	static const char msg[] = "# segv: reading address 0 with no handler, expecting status 139\n";
	volatile uintptr_t null = 0; /* opaque, so the compiler emits a load rather than a trap */

	write(1, msg, sizeof(msg) - 1);
	return *(volatile int *)null;
}
