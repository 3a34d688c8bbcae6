/* user/workloads/hello.c: the smallest C program, for the wall time of
 * `make stat PROG=hello` against perf stat on Linux (make bench). */
#include <stdio.h>

int main(void)
{
	puts("hello");
	return 0;
}
