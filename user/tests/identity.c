/* user/tests/identity.c: who the process is: pid/tid, ids, uname, set_tid_address, prctl, sched_yield. */
#include "ktap.h"

#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

TEST(pid_equals_tid)
{
	pid_t pid = getpid();

	ASSERT_GT(pid, 0);
	ASSERT_EQ(syscall(SYS_gettid), pid);
	ASSERT_EQ(getpid(), pid);
}

/* Every caller has root's rights, as the oracle's /init does. */
TEST(ids_are_root)
{
	ASSERT_EQ(getuid(), 0);
	ASSERT_EQ(geteuid(), 0);
	ASSERT_EQ(getgid(), 0);
	ASSERT_EQ(getegid(), 0);
}

TEST(uname_fields)
{
	struct utsname u;

	ASSERT_EQ(uname(&u), 0);
	ASSERT_STREQ(u.sysname, "Linux");
	ASSERT_STREQ(u.machine, "x86_64");
	ASSERT_NE(u.nodename[0], 0);
	ASSERT_NE(u.release[0], 0);
	ASSERT_NE(u.version[0], 0);
	ktap_print("uname: %s %s %s %s", u.sysname, u.nodename, u.release, u.machine);
}

/* Version-sniffing programs parse "major.minor" from the release; keep it parseable. */
TEST(release_starts_with_version)
{
	struct utsname u;
	unsigned major = 0, minor = 0;

	ASSERT_EQ(uname(&u), 0);
	ASSERT_EQ(sscanf(u.release, "%u.%u", &major, &minor), 2);
	ASSERT_GE(major, 3);
}

TEST(set_tid_address_returns_tid)
{
	static int tid_word;

	ASSERT_EQ(syscall(SYS_set_tid_address, &tid_word), getpid());
}

TEST(sched_yield_returns)
{
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(sched_yield(), 0);
}

TEST(kill_probe_self_and_others)
{
	ASSERT_EQ(kill(getpid(), 0), 0);
	ASSERT_ERRNO(kill(99999, 0), ESRCH);
	ASSERT_ERRNO(kill(getpid(), 65), EINVAL);
}

/* The perf ABI's prctl pair works with no event open: it is a no-op then. */
TEST(prctl_perf_events)
{
	ASSERT_EQ(prctl(PR_TASK_PERF_EVENTS_DISABLE, 0, 0, 0, 0), 0);
	ASSERT_EQ(prctl(PR_TASK_PERF_EVENTS_ENABLE, 0, 0, 0, 0), 0);
}

TEST(prctl_unknown_option)
{
	ASSERT_ERRNO(prctl(0x7fff, 0, 0, 0, 0), EINVAL);
}
