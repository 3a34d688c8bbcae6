/* user/tests/tasks.c: what tasks share and what bounds their number: signal actions shared by
 * threads and CLONE_SIGHAND children (copied by fork, unshared by exec), PR_SET_PDEATHSIG
 * fired by the exit of the creating thread, and fork and clone failing with EAGAIN at
 * kernel.threads-max and when kernel.pid_max's pids run out, with nothing leaked. */
#include "file.h"
#include "ktap.h"
#include "pmuos.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define STACK_SIZE (64 * 1024)
#define THREADS_MAX "/proc/sys/kernel/threads-max"

static void handler_a(int sig) { (void)sig; }
static void handler_b(int sig) { (void)sig; }

static void *handler_of(int sig)
{
	struct sigaction old;

	if (sigaction(sig, NULL, &old))
		return (void *)-1;
	return (void *)old.sa_handler;
}

static void set_handler(int sig, void (*h)(int))
{
	struct sigaction sa = { .sa_handler = h };

	sigaction(sig, &sa, NULL);
}

static void *set_b(void *arg)
{
	set_handler((int)(long)arg, handler_b);
	return NULL;
}

TEST(threads_share_signal_actions)
{
	pthread_t t;

	set_handler(SIGUSR1, handler_a);
	ASSERT_EQ(pthread_create(&t, NULL, set_b, (void *)(long)SIGUSR1), 0);
	ASSERT_EQ(pthread_join(t, NULL), 0);
	EXPECT_EQ(handler_of(SIGUSR1), (void *)handler_b);
	set_handler(SIGUSR1, SIG_DFL);
}

/* A signal pending for one thread goes when another thread sets its action to SIG_IGN. */
static void *raise_blocked(void *arg)
{
	int *fds = arg;
	sigset_t set, pending;
	char c;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	raise(SIGUSR2);
	sigpending(&pending);
	c = sigismember(&pending, SIGUSR2) ? 'p' : 'n';
	if (write(fds[1], &c, 1) != 1 || read(fds[2], &c, 1) != 1)
		return (void *)-1;
	sigpending(&pending);
	return (void *)(long)sigismember(&pending, SIGUSR2);
}

TEST(ignoring_in_one_thread_discards_anothers_pending)
{
	int p1[2], p2[2], fds[3];
	pthread_t t;
	void *still_pending;
	char c = 0;

	set_handler(SIGUSR2, handler_a);
	ASSERT_EQ(pipe(p1), 0);
	ASSERT_EQ(pipe(p2), 0);
	fds[0] = p1[0], fds[1] = p1[1], fds[2] = p2[0];
	ASSERT_EQ(pthread_create(&t, NULL, raise_blocked, fds), 0);
	ASSERT_EQ(read(p1[0], &c, 1), 1);
	EXPECT_EQ(c, 'p');
	set_handler(SIGUSR2, SIG_IGN);
	ASSERT_EQ(write(p2[1], &c, 1), 1);
	ASSERT_EQ(pthread_join(t, &still_pending), 0);
	EXPECT_EQ((long)still_pending, 0);
	set_handler(SIGUSR2, SIG_DFL);
	close(p1[0]), close(p1[1]), close(p2[0]), close(p2[1]);
}

static int child_sets_b(void *arg)
{
	set_handler((int)(long)arg, handler_b);
	return 0;
}

/* clone(CLONE_VM | CLONE_SIGHAND) without CLONE_THREAD: a process of its own that shares the
 * actions; a fork's are a copy. */
TEST(clone_sighand_shares_fork_copies)
{
	char *stack = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			   -1, 0);
	int status;

	ASSERT_NE(stack, MAP_FAILED);
	set_handler(SIGUSR1, handler_a);
	pid_t pid = clone(child_sets_b, stack + STACK_SIZE, CLONE_VM | CLONE_SIGHAND | SIGCHLD,
			  (void *)(long)SIGUSR1);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(status, 0);
	EXPECT_EQ(handler_of(SIGUSR1), (void *)handler_b);

	pid = fork();
	if (pid == 0) {
		set_handler(SIGUSR1, handler_a);
		_exit(handler_of(SIGUSR1) == (void *)handler_a ? 0 : 1);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(status, 0);
	EXPECT_EQ(handler_of(SIGUSR1), (void *)handler_b);
	set_handler(SIGUSR1, SIG_DFL);
	munmap(stack, STACK_SIZE);
}

static int child_execs(void *arg)
{
	char *argv[] = { arg, "--default", NULL };

	execve(argv[0], argv, (char *[]){ NULL });
	return 99;
}

/* A CLONE_SIGHAND child that execs gets a table of its own with the defaults; the actions of
 * the process it shared them with stay. */
TEST(exec_unshares_signal_actions)
{
	char *stack = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			   -1, 0);
	int status;
	static char self[256];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	ASSERT_GT(n, 0);
	self[n] = '\0';
	ASSERT_NE(stack, MAP_FAILED);
	set_handler(SIGUSR1, handler_a);
	pid_t pid = clone(child_execs, stack + STACK_SIZE,
			  CLONE_VM | CLONE_SIGHAND | CLONE_VFORK | SIGCHLD, self);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);	/* SIG_DFL in the new program */
	EXPECT_EQ(handler_of(SIGUSR1), (void *)handler_a);
	set_handler(SIGUSR1, SIG_DFL);
	munmap(stack, STACK_SIZE);
}

/* PR_SET_PDEATHSIG belongs to the creating thread: a child made by a thread gets its signal
 * when that thread exits, while the process lives on (and then reaps it). */
static void *fork_and_leave(void *arg)
{
	int *ready = arg;
	char c;
	pid_t pid = fork();

	if (pid == 0) {
		alarm(10);		/* a kernel that never sends it fails, not hangs */
		prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
		if (write(ready[1], "x", 1) != 1)
			_exit(2);
		for (;;)
			pause();
	}
	if (read(ready[0], &c, 1) != 1)
		return (void *)-1;
	return (void *)(long)pid;	/* and this thread exits */
}

TEST(pdeathsig_fires_at_the_creating_threads_exit)
{
	int ready[2], status;
	pthread_t t;
	void *pid;

	ASSERT_EQ(pipe(ready), 0);
	ASSERT_EQ(pthread_create(&t, NULL, fork_and_leave, ready), 0);
	ASSERT_EQ(pthread_join(t, &pid), 0);
	ASSERT_GT((long)pid, 0);
	ASSERT_EQ(waitpid((pid_t)(long)pid, &status, 0), (pid_t)(long)pid);
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(WTERMSIG(status), SIGTERM);
	close(ready[0]), close(ready[1]);
}

static long read_long(const char *path, int field)
{
	char text[256], *p = text;

	if (slurp(path, text, sizeof(text)) < 0)
		return -1;
	for (int i = 0; i < field; i++) {
		p = strpbrk(p, " /");
		if (!p)
			return -1;
		p++;
	}
	return strtol(p, NULL, 10);
}

static void *idle_thread(void *arg)
{
	(void)arg;
	return NULL;
}

#define HEADROOM 3

/* A fork bomb under kernel.threads-max: with the limit set HEADROOM tasks above the tasks
 * alive (/proc/loadavg's total), forks succeed until it is reached (on Linux, a kernel thread
 * that comes meanwhile may take a place), then fork and pthread_create fail with EAGAIN;
 * root is not exempt. Out of range values are EINVAL. Afterwards nothing is left over. */
TEST(fork_at_threads_max_is_eagain)
{
	long tasks = pmuos_accounting("tasks"), spaces = pmuos_accounting("address_spaces");
	long objects = pmuos_accounting("heap_objects");
	long old = read_long(THREADS_MAX, 0), alive = read_long("/proc/loadavg", 4);
	pid_t pids[HEADROOM + 8];
	int made = 0, status, fork_errno = 0, gate[2];
	char limit[32];
	pthread_t t;

	ASSERT_GT(old, 0);
	ASSERT_GT(alive, 0);
	EXPECT_EQ(write_text(THREADS_MAX, "0"), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(write_text(THREADS_MAX, "1073741824"), -1);	/* FUTEX_TID_MASK + 1 */
	EXPECT_EQ(errno, EINVAL);
	ASSERT_EQ(pipe(gate), 0);
	snprintf(limit, sizeof(limit), "%ld", alive + HEADROOM);
	ASSERT_EQ(write_text(THREADS_MAX, limit), (long)strlen(limit));
	while (made < HEADROOM + 8) {
		pid_t pid = fork();
		if (pid == 0) {
			char c;
			close(gate[1]);
			_exit(read(gate[0], &c, 1) == 0 ? 0 : 1);	/* until the gate closes */
		}
		if (pid < 0) {
			fork_errno = errno;
			break;
		}
		pids[made++] = pid;
	}
	int thread_err = pthread_create(&t, NULL, idle_thread, NULL);
	if (!thread_err)
		pthread_join(t, NULL);
	snprintf(limit, sizeof(limit), "%ld", old);
	EXPECT_EQ(write_text(THREADS_MAX, limit), (long)strlen(limit));
	close(gate[0]), close(gate[1]);
	for (int i = 0; i < made; i++) {
		EXPECT_EQ(waitpid(pids[i], &status, 0), pids[i]);
		EXPECT_EQ(status, 0);
	}
	EXPECT_EQ(fork_errno, EAGAIN);
	EXPECT_EQ(thread_err, EAGAIN);
	EXPECT_GT(made, 0);
	EXPECT_LE(made, HEADROOM);
	EXPECT_EQ(read_long(THREADS_MAX, 0), old);
	if (tasks < 0)
		SKIP("no /sys/kernel/pmuos/accounting (Linux)");
	EXPECT_EQ(made, HEADROOM);
	EXPECT_EQ(pmuos_accounting("tasks"), tasks);
	EXPECT_EQ(pmuos_accounting("address_spaces"), spaces);
	EXPECT_EQ(pmuos_accounting("heap_objects"), objects);
}

#define PID_MAX "/proc/sys/kernel/pid_max"
#define FEW_PIDS 310		/* pids 300..309 once the pids in use wrap past 300 */
#define MAX_FORKS 400

/* With kernel.pid_max lowered, forks take the free pids below it and then fail with EAGAIN
 * (Linux's alloc_pid turns a full pid space into EAGAIN); nothing is left over. */
TEST(fork_when_pids_run_out_is_eagain)
{
	long tasks = pmuos_accounting("tasks"), objects = pmuos_accounting("heap_objects");
	long old = read_long(PID_MAX, 0);
	static pid_t pids[MAX_FORKS];
	int made = 0, status, fork_errno = 0, gate[2];
	char limit[32];

	ASSERT_GT(old, 0);
	EXPECT_EQ(write_text(PID_MAX, "300"), -1);	/* RESERVED_PIDS + 1 at least */
	EXPECT_EQ(errno, EINVAL);
	ASSERT_EQ(pipe(gate), 0);
	snprintf(limit, sizeof(limit), "%d", FEW_PIDS);
	ASSERT_EQ(write_text(PID_MAX, limit), (long)strlen(limit));
	while (made < MAX_FORKS) {
		pid_t pid = fork();
		if (pid == 0) {
			char c;
			close(gate[1]);
			_exit(read(gate[0], &c, 1) == 0 ? 0 : 1);
		}
		if (pid < 0) {
			fork_errno = errno;
			break;
		}
		pids[made++] = pid;
	}
	snprintf(limit, sizeof(limit), "%ld", old);
	EXPECT_EQ(write_text(PID_MAX, limit), (long)strlen(limit));
	close(gate[0]), close(gate[1]);
	for (int i = 0; i < made; i++) {
		EXPECT_EQ(waitpid(pids[i], &status, 0), pids[i]);
		EXPECT_EQ(status, 0);
		EXPECT_LT(pids[i], FEW_PIDS);
	}
	EXPECT_EQ(fork_errno, EAGAIN);
	EXPECT_LT(made, FEW_PIDS);
	EXPECT_EQ(read_long(PID_MAX, 0), old);
	pid_t pid = fork();		/* and pids come again */
	if (pid == 0)
		_exit(0);
	EXPECT_GT(pid, 0);
	EXPECT_EQ(waitpid(pid, &status, 0), pid);
	if (tasks < 0)
		SKIP("no /sys/kernel/pmuos/accounting (Linux)");
	EXPECT_EQ(pmuos_accounting("tasks"), tasks);
	EXPECT_EQ(pmuos_accounting("heap_objects"), objects);
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "--default"))
		return handler_of(SIGUSR1) == (void *)SIG_DFL ? 0 : 1;
	return ktap_main(argc, argv);
}
