/* user/tests/dynamic.c: a dynamically linked program (glibc's loader and libc.so from the host,
 * packed into the initramfs by tests/qemu/initramfs.py): it starts, calls into libc, and sees
 * its loader and libraries in /proc/self/maps. KTAP by hand: the KTAP library is for musl. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failed, n;

static void check(int ok, const char *name)
{
	printf("%sok %d %s\n", ok ? "" : "not ", ++n, name);
	failed += !ok;
}

int main(void)
{
	char line[512];
	int loader = 0, libc = 0;

	printf("KTAP version 1\n1..2\n");
	check(strlen("dynamic") == 7 && getenv("HOME") != NULL, "libc_calls_work");
	FILE *f = fopen("/proc/self/maps", "r");
	while (f && fgets(line, sizeof(line), f)) {
		loader |= !!strstr(line, "ld-linux-x86-64.so.2");
		libc |= !!strstr(line, "libc.so.6");
	}
	if (f)
		fclose(f);
	check(loader && libc, "maps_show_the_loader_and_libc");
	fflush(stdout);
	return failed != 0;
}
