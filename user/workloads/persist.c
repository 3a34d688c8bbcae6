/* user/workloads/persist.c: leaves a persistent event behind (seed 001) and prints its id,
 * for `perf stat -e persistent/p<id>/`: a CPU-wide counter of user-mode instructions that
 * keeps counting after this program has exited. */
#include <linux/perf_event.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <pmuos/perf_ext.h>

int main(void)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_HARDWARE,
				     .config = PERF_COUNT_HW_INSTRUCTIONS, .exclude_kernel = 1 };
	int fd = syscall(SYS_perf_event_open, &a, -1, 0, -1, 0);
	long id = fd < 0 ? -1 : ioctl(fd, PERF_EVENT_IOC_DETACH, 0);

	if (id < 0) {
		perror("persist");
		return 1;
	}
	printf("%ld\n", id);
	return 0;
}
