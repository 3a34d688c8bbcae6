/* user/tests/sched.c: getrusage, times, getcpu, the sched_* policy calls, and process groups
 * and sessions: setpgid's rules (EPERM for a session leader, ESRCH, EACCES after a child's
 * exec), getpgid, getpgrp, setsid, getsid. */
#include "cpu.h"
#include "ktap.h"

#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/times.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int wait_status(pid_t pid)
{
	int status = -1;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void burn(long ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

static long tv_us(struct timeval tv)
{
	return tv.tv_sec * 1000000 + tv.tv_usec;
}

TEST(getrusage_and_times)
{
	struct rusage a, b, c;

	ASSERT_EQ(getrusage(RUSAGE_SELF, &a), 0);
	burn(30);
	ASSERT_EQ(getrusage(RUSAGE_SELF, &b), 0);
	long used = tv_us(b.ru_utime) + tv_us(b.ru_stime) - tv_us(a.ru_utime) - tv_us(a.ru_stime);
	EXPECT_GE(used, 20000);
	EXPECT_LT(used, 2000000);
	EXPECT_EQ(getrusage(RUSAGE_THREAD, &c), 0);
	EXPECT_ERRNO(getrusage(5, &c), EINVAL);
	EXPECT_ERRNO(getrusage(RUSAGE_SELF, (void *)8), EFAULT);
	/* a reaped child's time shows under RUSAGE_CHILDREN */
	ASSERT_EQ(getrusage(RUSAGE_CHILDREN, &a), 0);
	pid_t pid = fork();
	if (pid == 0) {
		burn(30);
		_exit(0);
	}
	EXPECT_EQ(wait_status(pid), 0);
	ASSERT_EQ(getrusage(RUSAGE_CHILDREN, &b), 0);
	used = tv_us(b.ru_utime) + tv_us(b.ru_stime) - tv_us(a.ru_utime) - tv_us(a.ru_stime);
	EXPECT_GE(used, 20000);

	struct tms t0, t1;
	clock_t r0 = times(&t0);
	burn(50);
	clock_t r1 = times(&t1);
	/* Clock ticks of 10 ms: 5, less a tick at each end where Linux's jiffies lag
	 * CLOCK_MONOTONIC (seen without icount on a busy host: 3). */
	EXPECT_GE(r1 - r0, 3);
	EXPECT_LE(r1 - r0, 100);
	EXPECT_GE(t1.tms_utime + t1.tms_stime - t0.tms_utime - t0.tms_stime, 3);
	EXPECT_GE(t1.tms_cutime + t1.tms_cstime, 2);
	EXPECT_GT(syscall(SYS_times, NULL), 0);
	EXPECT_ERRNO(syscall(SYS_times, (void *)8), EFAULT);
}

/* The CPU this thread runs on: pinned to CPU 0, that one (cpus.c tries each CPU). */
TEST(getcpu)
{
	unsigned cpu = 99, node = 99;

	pin(0);
	EXPECT_EQ(syscall(SYS_getcpu, &cpu, &node, NULL), 0);
	EXPECT_EQ(cpu, 0);
	EXPECT_EQ(node, 0);
	EXPECT_EQ(syscall(SYS_getcpu, NULL, NULL, NULL), 0);
	EXPECT_ERRNO(syscall(SYS_getcpu, (void *)8, NULL, NULL), EFAULT);
	EXPECT_EQ(sched_getcpu(), 0);
	pin(-1);
}

TEST(scheduler_policy)
{
	struct sched_param p = { 0 };

	EXPECT_EQ(syscall(SYS_sched_getscheduler, 0), SCHED_OTHER);
	EXPECT_EQ(syscall(SYS_sched_getscheduler, getpid()), SCHED_OTHER);
	EXPECT_ERRNO(syscall(SYS_sched_getscheduler, -1), EINVAL);
	EXPECT_ERRNO(syscall(SYS_sched_getscheduler, 0x3fffffff), ESRCH);
	p.sched_priority = 5;
	EXPECT_EQ(syscall(SYS_sched_getparam, 0, &p), 0);
	EXPECT_EQ(p.sched_priority, 0);
	EXPECT_ERRNO(syscall(SYS_sched_getparam, 0, NULL), EINVAL);
	EXPECT_ERRNO(syscall(SYS_sched_getparam, 0x3fffffff, &p), ESRCH);
	EXPECT_EQ(syscall(SYS_sched_setparam, 0, &p), 0);
	p.sched_priority = 1;
	EXPECT_ERRNO(syscall(SYS_sched_setparam, 0, &p), EINVAL);
	p.sched_priority = 0;
	EXPECT_EQ(syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, &p), 0);
	EXPECT_ERRNO(syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, NULL), EINVAL);
	EXPECT_ERRNO(syscall(SYS_sched_setscheduler, 0, -1, &p), EINVAL);
	EXPECT_ERRNO(syscall(SYS_sched_setscheduler, 0, 77, &p), EINVAL);
	EXPECT_ERRNO(syscall(SYS_sched_setscheduler, 0, SCHED_FIFO, &p), EINVAL);  /* prio 0 */
	p.sched_priority = 100;
	EXPECT_ERRNO(syscall(SYS_sched_setscheduler, 0, SCHED_RR, &p), EINVAL);
	p.sched_priority = 3;
	EXPECT_ERRNO(syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, &p), EINVAL);
	EXPECT_ERRNO(syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, (void *)8), EFAULT);
	EXPECT_EQ(sched_get_priority_max(SCHED_FIFO), 99);
	EXPECT_EQ(sched_get_priority_min(SCHED_FIFO), 1);
	EXPECT_EQ(sched_get_priority_max(SCHED_RR), 99);
	EXPECT_EQ(sched_get_priority_max(SCHED_OTHER), 0);
	EXPECT_EQ(sched_get_priority_min(SCHED_OTHER), 0);
	EXPECT_EQ(sched_get_priority_max(SCHED_BATCH), 0);
	EXPECT_ERRNO(sched_get_priority_max(42), EINVAL);
	EXPECT_ERRNO(sched_get_priority_min(-1), EINVAL);
}

TEST(realtime_policy)
{
	struct sched_param p = { .sched_priority = 10 };

	/* Linux lets root have SCHED_FIFO; pmuos has one policy and says EPERM */
	pid_t pid = fork();
	if (pid == 0) {
		long r = syscall(SYS_sched_setscheduler, 0, SCHED_FIFO, &p);
		if (r == 0)
			_exit(syscall(SYS_sched_getscheduler, 0) == SCHED_FIFO ? 10 : 1);
		_exit(errno == EPERM ? 20 : 2);
	}
	int st = wait_status(pid);
	if (ktap_on_pmuos())
		EXPECT_EQ(st, 20);
	else
		EXPECT_EQ(st, 10);
}

TEST(process_groups)
{
	pid_t me = getpid();

	EXPECT_EQ(getpgrp(), getpgid(0));
	EXPECT_EQ(getpgid(me), getpgid(0));
	EXPECT_EQ(getsid(0), getsid(me));
	EXPECT_ERRNO(getpgid(0x3fffffff), ESRCH);
	EXPECT_ERRNO(getsid(0x3fffffff), ESRCH);
	EXPECT_ERRNO(setpgid(0, -1), EINVAL);
	EXPECT_ERRNO(setpgid(0x3fffffff, 0), ESRCH);

	/* a child: its own group, then a session of its own */
	int p[2];
	ASSERT_EQ(pipe(p), 0);
	pid_t pid = fork();
	if (pid == 0) {
		char c;
		close(p[1]);
		read(p[0], &c, 1);		/* until the parent has looked */
		if (getpgid(0) != getpid())
			_exit(1);
		if (setsid() != -1 || errno != EPERM)	/* a group leader */
			_exit(2);
		pid_t grandchild = fork();
		if (grandchild == 0) {
			pid_t s = setsid();
			if (s != getpid() || getsid(0) != s || getpgrp() != s)
				_exit(3);
			if (setpgid(0, 0) != -1 || errno != EPERM)	/* a session leader */
				_exit(4);
			_exit(0);
		}
		_exit(wait_status(grandchild) == 0 ? 0 : 5);
	}
	close(p[0]);
	EXPECT_EQ(setpgid(pid, pid), 0);
	EXPECT_EQ(getpgid(pid), pid);
	EXPECT_EQ(getsid(pid), getsid(0));
	if (getpgrp()) {	/* (Linux's init and its children have group 0) */
		EXPECT_EQ(setpgid(pid, getpgrp()), 0);	/* back to ours */
		EXPECT_EQ(getpgid(pid), getpgrp());
	}
	EXPECT_ERRNO(setpgid(pid, 0x3fffffff), EPERM);	/* no such group */
	EXPECT_EQ(setpgid(pid, 0), 0);
	write(p[1], "x", 1);
	close(p[1]);
	EXPECT_EQ(wait_status(pid), 0);
	EXPECT_ERRNO(setpgid(1, 1), ESRCH);		/* not a child */
}

TEST(setpgid_after_exec)
{
	int p[2];

	ASSERT_EQ(pipe(p), 0);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[1]);
		dup2(p[0], 0);
		char *argv[] = { "sched", "wait-stdin", NULL };
		execv("/proc/self/exe", argv);
		_exit(99);
	}
	close(p[0]);
	/* until the child has exec'd: its comm stops being ours... simplest, poll */
	int tries = 0;
	while (setpgid(pid, pid) == 0 && tries++ < 1000)
		usleep(1000);
	EXPECT_EQ(errno, EACCES);
	close(p[1]);
	EXPECT_EQ(wait_status(pid), 0);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "wait-stdin")) {
		char c;
		return read(0, &c, 1) == 0 ? 0 : 1;
	}
	return ktap_main(argc, argv);
}
