/* user/tests/procs.c: processes and threads: fork, vfork, clone, execve (ELF and #!), exit and
 * exit_group, wait4 and waitid with their status words, orphans, kill, futexes, and threads
 * sharing memory and descriptors. */
#include "ktap.h"
#include "pmuos.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define DIR "/tmp/procs-test"

TEST(fork_returns_twice)
{
	int status = -1;
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid == 0) {
		if (getppid() != parent)
			_exit(2);
		_exit(7);
	}
	ASSERT_GT(pid, 0);
	EXPECT_NE(pid, parent);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 7);
	EXPECT_ERRNO(waitpid(pid, &status, 0), ECHILD);
	EXPECT_ERRNO(waitpid(-1, &status, WNOHANG), ECHILD);
}

/* The new child runs while its parent spins without a syscall: the tick shares the CPU from
 * the fork on (no sleep or syscall of the parent's needed). */
TEST(spinning_parent_lets_its_child_run)
{
	atomic_int *flag = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
				-1, 0);
	int status;

	ASSERT_NE(flag, MAP_FAILED);
	*flag = 0;
	pid_t pid = fork();
	if (pid == 0) {
		*flag = 1;
		_exit(0);
	}
	ASSERT_GT(pid, 0);
	while (!atomic_load(flag))
		;
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(status, 0);
	munmap(flag, 4096);
}

TEST(child_memory_is_a_copy)
{
	static volatile int shared_looking = 1;
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		shared_looking = 2;
		_exit(shared_looking == 2 ? 0 : 1);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(status, 0);
	EXPECT_EQ(shared_looking, 1);
}

TEST(killed_child_status_word)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		for (;;)
			pause();
	}
	ASSERT_GT(pid, 0);
	EXPECT_EQ(waitpid(pid, &status, WNOHANG), 0);
	ASSERT_EQ(kill(pid, SIGTERM), 0);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(WTERMSIG(status), SIGTERM);
	EXPECT_ERRNO(kill(pid, 0), ESRCH);
}

TEST(segv_child_status_word)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		volatile int *volatile nowhere = NULL;
		*nowhere = 1;
		_exit(0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(WTERMSIG(status), SIGSEGV);
}

TEST(waitid_reports_siginfo)
{
	siginfo_t si;
	pid_t pid = fork();

	if (pid == 0)
		_exit(42);
	memset(&si, 0, sizeof(si));
	ASSERT_EQ(waitid(P_PID, pid, &si, WEXITED | WNOWAIT), 0);
	EXPECT_EQ(si.si_pid, pid);
	EXPECT_EQ(si.si_code, CLD_EXITED);
	EXPECT_EQ(si.si_status, 42);
	memset(&si, 0, sizeof(si));
	ASSERT_EQ(waitid(P_ALL, 0, &si, WEXITED), 0);	/* still there: WNOWAIT kept it */
	EXPECT_EQ(si.si_pid, pid);
	EXPECT_ERRNO(waitid(P_ALL, 0, &si, WEXITED), ECHILD);
	EXPECT_ERRNO(waitid(P_ALL, 0, &si, 0), EINVAL);
}

static volatile sig_atomic_t got_chld;

static void on_chld(int sig)
{
	got_chld = sig;
}

TEST(sigchld_at_child_exit)
{
	struct sigaction sa = { .sa_handler = on_chld }, old;
	int status;

	ASSERT_EQ(sigaction(SIGCHLD, &sa, &old), 0);
	got_chld = 0;
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(got_chld, SIGCHLD);
	sigaction(SIGCHLD, &old, NULL);
}

TEST(vfork_parent_waits)
{
	static volatile int order;
	int status;

	order = 0;
	pid_t pid = vfork();
	if (pid == 0) {
		order = 1;	/* the parent runs only after this child exits */
		_exit(3);
	}
	EXPECT_EQ(order, 1);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(WEXITSTATUS(status), 3);
}

/* execve of this program again, told by argv to exit at once with a code. */
TEST(execve_replaces_the_image)
{
	char *argv[] = { ktap_argv[0], "--exit-with", "33", NULL };
	char *envp[] = { "PROCS_TEST=1", NULL };
	int status;
	char self[256];

	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	ASSERT_GT(n, 0);
	self[n] = '\0';
	pid_t pid = fork();
	if (pid == 0) {
		execve(self, argv, envp);
		_exit(127);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(WEXITSTATUS(status), 33);
	EXPECT_ERRNO(execve("/nonexistent", argv, envp), ENOENT);
	EXPECT_ERRNO(execve("/tmp", argv, envp), EACCES);
}

TEST(execve_of_a_script)
{
	char self[256], script[300];
	int status;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	ASSERT_GT(n, 0);
	self[n] = '\0';
	mkdir(DIR, 0755);
	int fd = open(DIR "/script", O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ASSERT_GE(fd, 0);
	/* #!interp one-arg: argv becomes interp, "--exit-with", the script's path, ... */
	int len = snprintf(script, sizeof(script), "#!%s --exit-with\n", self);
	ASSERT_EQ(write(fd, script, len), len);
	close(fd);
	pid_t pid = fork();
	if (pid == 0) {
		char *argv[] = { "script", NULL };
		execve(DIR "/script", argv, (char *[]){ NULL });
		_exit(127);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	/* The interpreter gets "--exit-with" "/tmp/procs-test/script": atoi gives 0. */
	EXPECT_EQ(WEXITSTATUS(status), 0);
	unlink(DIR "/script");
}

TEST(orphans_are_reaped)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (fork() == 0)
			_exit(0);	/* a grandchild: reparented, reaped by init */
		_exit(5);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(WEXITSTATUS(status), 5);
	EXPECT_ERRNO(waitpid(-1, &status, WNOHANG), ECHILD);
}

TEST(descriptors_are_inherited)
{
	int p[2], status;
	char buf[8] = "";

	mkdir(DIR, 0755);
	int fd = open(DIR "/inherit", O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_GE(fd, 0);
	pid_t pid = fork();
	if (pid == 0)
		_exit(write(fd, "child", 5) == 5 ? 0 : 1);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(status, 0);
	/* One open file: the child's write moved the shared position. */
	EXPECT_EQ(lseek(fd, 0, SEEK_CUR), 5);
	EXPECT_EQ(pread(fd, buf, 5, 0), 5);
	EXPECT_STREQ(buf, "child");
	close(fd);
	unlink(DIR "/inherit");
	(void)p;
}

/* ---- threads: clone with CLONE_VM | CLONE_THREAD, futexes ---- */

static atomic_int counter;
static int child_tid_word;

static int futex(int *addr, int op, int val, const struct timespec *ts)
{
	return syscall(SYS_futex, addr, op, val, ts, NULL, 0);
}

static int thread_body(void *arg)
{
	for (int i = 0; i < 1000; i++)
		atomic_fetch_add(&counter, 1);
	*(int *)arg = 1;
	futex(arg, FUTEX_WAKE, 1, NULL);
	return 0;
}

TEST(clone_thread_shares_memory)
{
	static char stack[64 * 1024] __attribute__((aligned(16)));
	static int done;
	int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
		    CLONE_SYSVSEM | CLONE_CHILD_CLEARTID | CLONE_PARENT_SETTID;
	int ptid = 0;

	done = 0;
	atomic_store(&counter, 0);
	child_tid_word = 1;
	int tid = clone(thread_body, stack + sizeof(stack), flags, &done, &ptid, NULL,
			&child_tid_word);
	ASSERT_GT(tid, 0);
	EXPECT_EQ(ptid, tid);
	while (!done)
		futex(&done, FUTEX_WAIT, 0, NULL);
	/* CLONE_CHILD_CLEARTID: the word goes to 0 at the thread's exit, with a wake. */
	while (child_tid_word)
		futex(&child_tid_word, FUTEX_WAIT, child_tid_word, NULL);
	EXPECT_EQ(atomic_load(&counter), 1000);
}

TEST(futex_errors_and_timeout)
{
	int word = 5;
	struct timespec ts = { 0, 1000000 };

	EXPECT_ERRNO(futex(&word, FUTEX_WAIT, 4, NULL), EAGAIN);
	EXPECT_ERRNO(futex(&word, FUTEX_WAIT, 5, &ts), ETIMEDOUT);
	EXPECT_ERRNO(futex((int *)((char *)&word + 1), FUTEX_WAIT, 5, NULL), EINVAL);
	EXPECT_ERRNO(futex((int *)8, FUTEX_WAIT, 0, NULL), EFAULT);
	EXPECT_EQ(futex(&word, FUTEX_WAKE, 1, NULL), 0);
	EXPECT_ERRNO(syscall(SYS_futex, &word, FUTEX_WAIT_BITSET, 5, NULL, NULL, 0), EINVAL);
}

TEST(clone_flag_rules)
{
	EXPECT_ERRNO(syscall(SYS_clone, CLONE_THREAD, NULL, NULL, NULL, 0), EINVAL);
	EXPECT_ERRNO(syscall(SYS_clone, CLONE_SIGHAND, NULL, NULL, NULL, 0), EINVAL);
	/* A TLS base that is no user address: EPERM, as arch_prctl(ARCH_SET_FS) (the
	 * fuzzer's: pmuos took it, and faulted loading it at the switch). */
	EXPECT_ERRNO(syscall(SYS_clone, CLONE_SETTLS | SIGCHLD, NULL, NULL, NULL,
			     0x8000000000000000ul), EPERM);
	EXPECT_ERRNO(syscall(SYS_clone, CLONE_SETTLS | SIGCHLD, NULL, NULL, NULL,
			     0xffffffff80000000ul), EPERM);
}

static void *blocks_for_good(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* A process whose leader has exited alone (SYS_exit) still takes a kill: its SIGKILL goes to
 * the thread it left, and the process dies (the fuzzer's: pmuos sent it to the zombie leader,
 * and wait4 waited for good). */
TEST(kill_reaches_a_process_whose_leader_exited)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		pthread_t t;
		if (pthread_create(&t, NULL, blocks_for_good, NULL))
			_exit(1);
		syscall(SYS_exit, 0);	/* the leader alone */
	}
	ASSERT_GT(pid, 0);
	usleep(20000);			/* the leader is a zombie now, its thread waits */
	ASSERT_EQ(waitpid(pid, &status, WNOHANG), 0);
	ASSERT_EQ(kill(pid, SIGKILL), 0);
	signal(SIGALRM, on_alarm);
	alarm(5);			/* a failure is EINTR, not a hang */
	EXPECT_EQ(waitpid(pid, &status, 0), pid);
	alarm(0);
	EXPECT_EQ(WIFSIGNALED(status), 1);
	EXPECT_EQ(WTERMSIG(status), SIGKILL);
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "--exit-with"))
		return argc > 2 ? atoi(argv[2]) : 0;
	return ktap_main(argc, argv);
}

/* PR_SET_CHILD_SUBREAPER and PR_SET_PDEATHSIG: a grandchild that asked for SIGTERM at its
 * parent's death gets it when the middle process exits, and this process, a subreaper,
 * adopts and reaps it. */
TEST(subreaper_adopts_and_pdeathsig_fires)
{
	int ready[2], flag = -1, status;

	ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	ASSERT_EQ(prctl(PR_GET_CHILD_SUBREAPER, &flag, 0, 0, 0), 0);
	EXPECT_EQ(flag, 1);
	ASSERT_EQ(pipe(ready), 0);
	pid_t middle = fork();
	if (middle == 0) {
		pid_t g = fork();
		if (g == 0) {
			int sig = 0;
			if (prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0) ||
			    prctl(PR_GET_PDEATHSIG, &sig, 0, 0, 0) || sig != SIGTERM)
				_exit(2);
			if (write(ready[1], &g, sizeof(g)) != sizeof(g))
				_exit(3);
			for (;;)
				pause();
		}
		char c;
		_exit(read(ready[0], &c, 1) == 1 ? 0 : 4);	/* once it is set up */
	}
	close(ready[1]);
	ASSERT_EQ(waitpid(middle, &status, 0), middle);
	EXPECT_EQ(status, 0);
	pid_t orphan = wait(&status);
	EXPECT_GT(orphan, 0);
	EXPECT_EQ(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, 1);
	EXPECT_ERRNO(prctl(PR_SET_PDEATHSIG, 65, 0, 0, 0), EINVAL);
	ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0), 0);
	close(ready[0]);
}

/* 64 children at once, killed and reaped: every task and address space they had is gone
 * again (the accounting's tasks, address_spaces and heap objects back at their baseline). */
TEST(many_children_leave_nothing_behind)
{
	long tasks = pmuos_accounting("tasks"), spaces = pmuos_accounting("address_spaces");
	long objects = pmuos_accounting("heap_objects");
	pid_t pids[64];
	int status;

	for (int i = 0; i < 64; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			pause();
			_exit(1);
		}
		ASSERT_GT(pids[i], 0);
	}
	if (tasks >= 0) {
		EXPECT_EQ(pmuos_accounting("tasks"), tasks + 64);
		EXPECT_EQ(pmuos_accounting("address_spaces"), spaces + 64);
	}
	for (int i = 0; i < 64; i++)
		EXPECT_EQ(kill(pids[i], SIGKILL), 0);
	for (int i = 0; i < 64; i++) {
		EXPECT_EQ(waitpid(pids[i], &status, 0), pids[i]);
		EXPECT_EQ(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, 1);
	}
	if (tasks < 0)
		SKIP("no /sys/kernel/pmuos/accounting (Linux)");
	EXPECT_EQ(pmuos_accounting("tasks"), tasks);
	EXPECT_EQ(pmuos_accounting("address_spaces"), spaces);
	EXPECT_EQ(pmuos_accounting("heap_objects"), objects);
}

/* A process-shared robust mutex its holder died with: the kernel's walk of the dead
 * process's robust list marks it FUTEX_OWNER_DIED, and the next lock says EOWNERDEAD. */
TEST(robust_mutex_of_a_dead_process)
{
	pthread_mutex_t *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
				  -1, 0);
	pthread_mutexattr_t attr;
	int status;

	ASSERT_NE(m, MAP_FAILED);
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
	ASSERT_EQ(pthread_mutex_init(m, &attr), 0);
	pid_t pid = fork();
	if (pid == 0)
		_exit(pthread_mutex_lock(m) == 0 ? 0 : 1);	/* and dies holding it */
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(status, 0);
	EXPECT_EQ(pthread_mutex_lock(m), EOWNERDEAD);
	EXPECT_EQ(pthread_mutex_consistent(m), 0);
	EXPECT_EQ(pthread_mutex_unlock(m), 0);
	size_t len = 0;
	void *head = NULL;
	EXPECT_EQ(syscall(SYS_get_robust_list, 0, &head, &len), 0);
	EXPECT_EQ(len, 3 * sizeof(long));
	EXPECT_NE(head, NULL);
	EXPECT_ERRNO(syscall(SYS_get_robust_list, 0, &head, NULL), EFAULT);
	munmap(m, 4096);
}
