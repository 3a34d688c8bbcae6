/* user/workloads/forks.c: a process, one thread and one forked child, each
 * running its own known loop, for perf stat and perf record with inherit:
 * the counts of all three add up in one event, and each sample names the
 * pid and tid that ran it. It prints who is who, so the test can check. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Two instructions a turn each, written differently so that the compiler
 * keeps three functions (it folds identical ones into one address). */
void __attribute__((noinline)) spin_main(uint64_t n)
{
	__asm__ volatile("1: dec %0; jnz 1b" : "+r"(n));
}

void __attribute__((noinline)) spin_thread(uint64_t n)
{
	__asm__ volatile("1: sub $1, %0; jnz 1b" : "+r"(n));
}

void __attribute__((noinline)) spin_child(uint64_t n)
{
	__asm__ volatile("1: add $-1, %0; jnz 1b" : "+r"(n));
}

static void *thread(void *arg)
{
	printf("forks: thread pid %d tid %ld\n", getpid(), syscall(SYS_gettid));
	fflush(stdout);
	spin_thread(2000000);
	return arg;
}

int main(void)
{
	pthread_t t;
	int status;

	printf("forks: main pid %d tid %ld\n", getpid(), syscall(SYS_gettid));
	fflush(stdout);
	pid_t child = fork();
	if (child == 0) {
		printf("forks: child pid %d tid %ld\n", getpid(), syscall(SYS_gettid));
		fflush(stdout);
		spin_child(3000000);
		_exit(0);
	}
	if (child < 0 || pthread_create(&t, NULL, thread, NULL))
		return 1;
	spin_main(1000000);
	pthread_join(t, NULL);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status))
		return 1;
	return WEXITSTATUS(status);
}
