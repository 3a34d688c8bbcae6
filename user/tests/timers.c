/* user/tests/timers.c: alarm, setitimer and getitimer (ITIMER_REAL, ITIMER_VIRTUAL,
 * ITIMER_PROF), POSIX timers (SIGEV_SIGNAL, SIGEV_NONE, SIGEV_THREAD_ID, TIMER_ABSTIME,
 * overruns, the CPU-time clocks of the process and the thread), timerfd (expiration counts, poll, epoll), their errors, what exec keeps and
 * drops, and the accounting back at its baseline. */
#include "ktap.h"
#include "pmuos.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long baseline_timers, baseline_tfds, baseline_pending;
static volatile sig_atomic_t hits;
static volatile int last_code, first_overrun, last_overrun, last_value;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	if (hits++ == 0)
		first_overrun = si->si_overrun;
	last_code = si->si_code;
	last_overrun = si->si_overrun;
	last_value = si->si_value.sival_int;
}

static void catch(int sig)
{
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO };

	sigaction(sig, &sa, NULL);
	hits = 0;
}

static void spin_until_hit(long max_ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while (!hits && (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < max_ms);
}

TEST(accounting_baseline)
{
	baseline_timers = pmuos_accounting("posix_timers");
	baseline_tfds = pmuos_accounting("timerfds");
	baseline_pending = pmuos_accounting("timers_pending");
	if (baseline_timers < 0)
		SKIP("no /sys/kernel/pmuos/accounting (Linux)");
}

TEST(alarm_fires_and_reports)
{
	catch(SIGALRM);
	EXPECT_EQ(alarm(10), 0);
	EXPECT_EQ(alarm(5), 10);	/* rounded to the nearest second */
	struct itimerval v;
	EXPECT_EQ(getitimer(ITIMER_REAL, &v), 0);
	EXPECT_EQ(v.it_value.tv_sec, 4);
	EXPECT_EQ(v.it_interval.tv_sec, 0);
	EXPECT_EQ(alarm(0), 5);
	EXPECT_EQ(alarm(0), 0);
	/* an armed timer fires into a blocking call */
	struct itimerval one = { .it_value = { 0, 20000 } };
	EXPECT_EQ(setitimer(ITIMER_REAL, &one, NULL), 0);
	EXPECT_EQ(pause(), -1);
	EXPECT_EQ(hits, 1);
	EXPECT_EQ(last_code, SI_KERNEL);
	EXPECT_EQ(getitimer(ITIMER_REAL, &v), 0);
	EXPECT_EQ(v.it_value.tv_sec, 0);
	EXPECT_EQ(v.it_value.tv_usec, 0);
}

TEST(itimer_periodic_and_errors)
{
	struct itimerval v = { .it_interval = { 0, 10000 }, .it_value = { 0, 10000 } }, old;

	catch(SIGALRM);
	EXPECT_EQ(setitimer(ITIMER_REAL, &v, NULL), 0);
	while (hits < 3)
		pause();
	EXPECT_EQ(setitimer(ITIMER_REAL, &(struct itimerval){ 0 }, &old), 0);
	EXPECT_EQ(old.it_interval.tv_usec, 10000);
	EXPECT_LE(old.it_value.tv_usec, 10000);
	EXPECT_ERRNO(setitimer(3, &v, NULL), EINVAL);
	EXPECT_ERRNO(getitimer(-1, &v), EINVAL);
	v.it_value.tv_usec = 1000000;
	EXPECT_ERRNO(setitimer(ITIMER_REAL, &v, NULL), EINVAL);
	v.it_value.tv_usec = -1;
	EXPECT_ERRNO(setitimer(ITIMER_REAL, &v, NULL), EINVAL);
	EXPECT_ERRNO(setitimer(ITIMER_REAL, (void *)8, NULL), EFAULT);
	EXPECT_ERRNO(getitimer(ITIMER_REAL, (void *)8), EFAULT);
}

TEST(itimer_cpu_time)
{
	struct itimerval v = { .it_value = { 0, 20000 } }, cur;

	catch(SIGVTALRM);
	EXPECT_EQ(setitimer(ITIMER_VIRTUAL, &v, NULL), 0);
	EXPECT_EQ(getitimer(ITIMER_VIRTUAL, &cur), 0);
	EXPECT_LE(cur.it_value.tv_usec, 24000);	/* Linux adds a tick (4 ms) */
	EXPECT_GT(cur.it_value.tv_usec, 20000);
	EXPECT_GT(cur.it_value.tv_usec, 0);
	spin_until_hit(2000);
	EXPECT_EQ(hits, 1);
	catch(SIGPROF);
	EXPECT_EQ(setitimer(ITIMER_PROF, &v, NULL), 0);
	spin_until_hit(2000);
	EXPECT_EQ(hits, 1);
}

TEST(posix_timer_signal)
{
	timer_t id;
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1,
			       .sigev_value.sival_int = 1234 };
	struct itimerspec its = { .it_value = { 0, 20000000 } }, cur;

	catch(SIGUSR1);
	ASSERT_EQ(timer_create(CLOCK_MONOTONIC, &ev, &id), 0);
	EXPECT_EQ(timer_gettime(id, &cur), 0);
	EXPECT_EQ(cur.it_value.tv_sec, 0);
	EXPECT_EQ(cur.it_value.tv_nsec, 0);
	EXPECT_EQ(timer_settime(id, 0, &its, NULL), 0);
	EXPECT_EQ(timer_gettime(id, &cur), 0);
	EXPECT_GT(cur.it_value.tv_nsec, 0);
	EXPECT_LE(cur.it_value.tv_nsec, 20000000);
	while (!hits)
		pause();
	EXPECT_EQ(last_code, SI_TIMER);
	EXPECT_EQ(last_value, 1234);
	EXPECT_EQ(timer_getoverrun(id), 0);
	EXPECT_EQ(timer_delete(id), 0);
	EXPECT_ERRNO(syscall(SYS_timer_delete, id), EINVAL);
	EXPECT_ERRNO(syscall(SYS_timer_gettime, id, &cur), EINVAL);
}

TEST(posix_timer_overrun)
{
	timer_t id;
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR2 };
	struct itimerspec its = { .it_value = { 0, 1000000 }, .it_interval = { 0, 1000000 } };
	sigset_t set;

	catch(SIGUSR2);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);
	ASSERT_EQ(timer_create(CLOCK_MONOTONIC, &ev, &id), 0);
	EXPECT_EQ(timer_settime(id, 0, &its, NULL), 0);
	usleep(30000);			/* many periods while the signal waits */
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	/* Blocked again at once: the periods from here on wait, and the last overrun stays
	 * the delivered signal's (Linux without icount, on a busy host, took a third signal
	 * before the checks, and one between them). */
	sigprocmask(SIG_BLOCK, &set, NULL);
	/* One signal for them all, its overrun the periods that passed meanwhile; a slow
	 * machine may take the next period's signal too. */
	EXPECT_GE(hits, 1);
	EXPECT_LE(hits, 2);
	EXPECT_GT(first_overrun, 5);
	EXPECT_EQ(timer_getoverrun(id), last_overrun);
	EXPECT_EQ(timer_settime(id, 0, &(struct itimerspec){ 0 }, NULL), 0);
	EXPECT_EQ(timer_getoverrun(id), 0);	/* settime clears it */
	EXPECT_EQ(timer_delete(id), 0);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

TEST(posix_timer_none_abstime_thread)
{
	timer_t id;
	struct sigevent ev = { .sigev_notify = SIGEV_NONE };
	struct itimerspec its = { 0 }, cur;
	struct timespec now;

	ASSERT_EQ(timer_create(CLOCK_REALTIME, &ev, &id), 0);
	clock_gettime(CLOCK_REALTIME, &now);
	its.it_value.tv_sec = now.tv_sec + 100;
	its.it_value.tv_nsec = now.tv_nsec;
	EXPECT_EQ(timer_settime(id, TIMER_ABSTIME, &its, NULL), 0);
	EXPECT_EQ(timer_gettime(id, &cur), 0);
	EXPECT_TRUE(cur.it_value.tv_sec == 99 || cur.it_value.tv_sec == 100);
	its.it_value.tv_nsec = 1000000000;
	EXPECT_ERRNO(timer_settime(id, 0, &its, NULL), EINVAL);
	EXPECT_ERRNO(syscall(SYS_timer_settime, id, 0, NULL, NULL), EINVAL);
	EXPECT_EQ(timer_delete(id), 0);

	ev = (struct sigevent){ .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGUSR1 };
	ev.sigev_notify_thread_id = gettid();
	ASSERT_EQ(timer_create(CLOCK_MONOTONIC, &ev, &id), 0);
	catch(SIGUSR1);
	its = (struct itimerspec){ .it_value = { 0, 10000000 } };
	EXPECT_EQ(timer_settime(id, 0, &its, NULL), 0);
	while (!hits)
		pause();
	EXPECT_EQ(timer_delete(id), 0);
	ev.sigev_notify_thread_id = 1;	/* init: another process */
	EXPECT_ERRNO(timer_create(CLOCK_MONOTONIC, &ev, &id), EINVAL);
	ev = (struct sigevent){ .sigev_notify = SIGEV_SIGNAL, .sigev_signo = 0 };
	EXPECT_ERRNO(timer_create(CLOCK_MONOTONIC, &ev, &id), EINVAL);
	ev.sigev_notify = 99;		/* (musl would take it for SIGEV_THREAD) */
	int kid;
	EXPECT_ERRNO(syscall(SYS_timer_create, CLOCK_MONOTONIC, &ev, &kid), EINVAL);
	EXPECT_ERRNO(syscall(SYS_timer_create, 99, NULL, &id), EINVAL);
	EXPECT_ERRNO(syscall(SYS_timer_create, CLOCK_MONOTONIC, NULL, (void *)8), EFAULT);
}

TEST(posix_timers_go_at_exec_itimers_stay)
{
	/* the child execs /proc/self/exe with "exec-check": see main */
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		timer_t id;
		struct itimerval v = { .it_value = { 100, 0 } };
		timer_create(CLOCK_MONOTONIC, NULL, &id);
		timer_create(CLOCK_MONOTONIC, NULL, &id);
		setitimer(ITIMER_REAL, &v, NULL);
		char *argv[] = { "timers", "exec-check", NULL };
		execv("/proc/self/exe", argv);
		_exit(99);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(timerfd)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	struct itimerspec its = { .it_value = { 0, 5000000 }, .it_interval = { 0, 5000000 } }, cur;
	uint64_t n;

	ASSERT_GE(fd, 0);
	EXPECT_EQ(fcntl(fd, F_GETFD), FD_CLOEXEC);
	EXPECT_ERRNO(read(fd, &n, 8), EAGAIN);
	EXPECT_EQ(timerfd_gettime(fd, &cur), 0);
	EXPECT_EQ(cur.it_value.tv_nsec, 0);
	EXPECT_EQ(timerfd_settime(fd, 0, &its, NULL), 0);
	struct pollfd pf = { .fd = fd, .events = POLLIN };
	EXPECT_EQ(poll(&pf, 1, 1000), 1);
	usleep(20000);
	EXPECT_EQ(read(fd, &n, 8), 8);
	EXPECT_GE(n, 3);
	char small[4];
	EXPECT_ERRNO(read(fd, small, 4), EINVAL);
	EXPECT_EQ(timerfd_gettime(fd, &cur), 0);
	EXPECT_EQ(cur.it_interval.tv_nsec, 5000000);
	/* epoll sees each expiry as an edge; a periodic timerfd expires again only
	 * once read (Linux re-arms it in read) */
	int ep = epoll_create1(0);
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET, .data.u64 = 3 }, out;
	EXPECT_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev), 0);
	EXPECT_EQ(epoll_wait(ep, &out, 1, 1000), 1);
	EXPECT_EQ(epoll_wait(ep, &out, 1, 20), 0);
	EXPECT_EQ(read(fd, &n, 8), 8);
	EXPECT_GE(n, 4);		/* the periods missed meanwhile count */
	EXPECT_EQ(epoll_wait(ep, &out, 1, 1000), 1);
	close(ep);
	/* disarm; errors */
	EXPECT_EQ(timerfd_settime(fd, 0, &(struct itimerspec){ 0 }, &cur), 0);
	EXPECT_EQ(cur.it_interval.tv_nsec, 5000000);
	its.it_value.tv_nsec = -1;
	EXPECT_ERRNO(timerfd_settime(fd, 0, &its, NULL), EINVAL);
	its.it_value.tv_nsec = 0;
	EXPECT_ERRNO(timerfd_settime(fd, 4, &its, NULL), EINVAL);
	EXPECT_ERRNO(timerfd_settime(0x7fff, 0, &its, NULL), EBADF);
	EXPECT_ERRNO(timerfd_settime(0, 0, &its, NULL), EINVAL);
	EXPECT_ERRNO(timerfd_gettime(0, &cur), EINVAL);
	EXPECT_ERRNO(timerfd_create(CLOCK_PROCESS_CPUTIME_ID, 0), EINVAL);
	EXPECT_ERRNO(timerfd_create(CLOCK_MONOTONIC, O_APPEND), EINVAL);
	close(fd);

	/* blocking read, absolute time */
	fd = timerfd_create(CLOCK_REALTIME, 0);
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	its = (struct itimerspec){ .it_value = now };
	its.it_value.tv_nsec += 10000000;
	if (its.it_value.tv_nsec >= 1000000000)
		its.it_value.tv_sec++, its.it_value.tv_nsec -= 1000000000;
	EXPECT_EQ(timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL), 0);
	EXPECT_EQ(read(fd, &n, 8), 8);
	EXPECT_EQ(n, 1);
	close(fd);
}

static long clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000l + ts.tv_nsec;
}

/* timer_create on the CPU-time clocks of the process and of the calling thread: the signal
 * comes once that much CPU time is used, never while the process sleeps. */
TEST(posix_timer_cpu_clocks)
{
	static const clockid_t clocks[] = { CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID };

	for (int i = 0; i < 2; i++) {
		struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1,
				       .sigev_value.sival_int = 40 + i };
		struct itimerspec its = { .it_value = { 0, 10 * 1000 * 1000 } }, cur;
		timer_t id;

		catch(SIGUSR1);
		ASSERT_EQ(timer_create(clocks[i], &ev, &id), 0);
		long armed_at = clock_ns(clocks[i]);
		ASSERT_EQ(timer_settime(id, 0, &its, NULL), 0);
		usleep(50 * 1000);		/* asleep: no CPU time goes by */
		EXPECT_EQ(hits, 0);
		spin_until_hit(3000);
		EXPECT_EQ(hits, 1);
		EXPECT_EQ(last_code, SI_TIMER);
		EXPECT_EQ(last_value, 40 + i);
		EXPECT_GE(clock_ns(clocks[i]) - armed_at, 10 * 1000 * 1000);
		EXPECT_EQ(timer_gettime(id, &cur), 0);
		EXPECT_EQ(cur.it_value.tv_sec + cur.it_value.tv_nsec, 0);
		EXPECT_EQ(timer_delete(id), 0);
	}
}

static volatile sig_atomic_t usr1_hits, usr2_hits;

static void count_usr(int sig)
{
	if (sig == SIGUSR1)
		usr1_hits++;
	else
		usr2_hits++;
}

static void *spin_cpu(void *arg)
{
	long until = clock_ns(CLOCK_THREAD_CPUTIME_ID) + (long)arg;

	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < until)
		;
	return NULL;
}

/* Another thread's CPU time is the process's: the process clock's timer fires while this
 * thread sleeps in the join, this thread's own clock's does not; the process clock holds
 * both threads' time, the exited one's too. */
TEST(posix_cpu_timers_of_a_threaded_process)
{
	struct sigevent ev1 = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1 };
	struct sigevent ev2 = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR2 };
	/* This thread's timer is 50 ms, less than the other thread spins (100 ms), more than
	 * a busy host may stop this vCPU before the join (Linux counts that as this thread's
	 * time: 10 ms fired once). */
	struct itimerspec own_its = { .it_value = { 0, 50 * 1000 * 1000 } };
	struct itimerspec its = { .it_value = { 0, 10 * 1000 * 1000 } };
	struct sigaction sa = { .sa_handler = count_usr };
	timer_t own, proc;
	pthread_t t;

	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	usr1_hits = usr2_hits = 0;
	ASSERT_EQ(timer_create(CLOCK_THREAD_CPUTIME_ID, &ev1, &own), 0);
	ASSERT_EQ(timer_create(CLOCK_PROCESS_CPUTIME_ID, &ev2, &proc), 0);
	long process0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	ASSERT_EQ(timer_settime(own, 0, &own_its, NULL), 0);
	ASSERT_EQ(timer_settime(proc, 0, &its, NULL), 0);
	ASSERT_EQ(pthread_create(&t, NULL, spin_cpu, (void *)(100 * 1000 * 1000l)), 0);
	ASSERT_EQ(pthread_join(t, NULL), 0);
	EXPECT_EQ(usr2_hits, 1);
	EXPECT_EQ(usr1_hits, 0);
	EXPECT_GE(clock_ns(CLOCK_PROCESS_CPUTIME_ID) - process0, 100 * 1000 * 1000);
	EXPECT_EQ(timer_delete(own), 0);
	EXPECT_EQ(timer_delete(proc), 0);
	signal(SIGUSR1, SIG_DFL);
	signal(SIGUSR2, SIG_DFL);
}

/* clock_nanosleep on the process's CPU clock: it ends once the other thread has used the
 * time; on the calling thread's own clock (which stands still while it sleeps) EINVAL. */
TEST(clock_nanosleep_on_the_process_cpu_clock)
{
	struct timespec req = { 0, 10 * 1000 * 1000 };
	pthread_t t;

	EXPECT_EQ(clock_nanosleep(CLOCK_THREAD_CPUTIME_ID, 0, &req, NULL), EINVAL);
	long start = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	ASSERT_EQ(pthread_create(&t, NULL, spin_cpu, (void *)(30 * 1000 * 1000l)), 0);
	EXPECT_EQ(clock_nanosleep(CLOCK_PROCESS_CPUTIME_ID, 0, &req, NULL), 0);
	EXPECT_GE(clock_ns(CLOCK_PROCESS_CPUTIME_ID) - start, 10 * 1000 * 1000);
	ASSERT_EQ(pthread_join(t, NULL), 0);
	req.tv_nsec = 1000000000;
	EXPECT_EQ(clock_nanosleep(CLOCK_PROCESS_CPUTIME_ID, 0, &req, NULL), EINVAL);
}

TEST(accounting_back_to_baseline)
{
	if (baseline_timers < 0)
		SKIP("no /sys/kernel/pmuos/accounting (Linux)");
	EXPECT_EQ(pmuos_accounting("posix_timers"), baseline_timers);
	EXPECT_EQ(pmuos_accounting("timerfds"), baseline_tfds);
	EXPECT_EQ(pmuos_accounting("timers_pending"), baseline_pending);
}

/* After exec: no POSIX timer is left (the accounting shows none, id 0 is gone; ids
 * go on from the process's counter: 2), the ITIMER_REAL set before exec still runs. */
static int exec_check(void)
{
	struct itimerval v;
	timer_t id;

	if (getitimer(ITIMER_REAL, &v) || v.it_value.tv_sec < 90)
		return 1;
	long alive = pmuos_accounting("posix_timers");
	if (alive > 0)
		return 2;
	if (syscall(SYS_timer_gettime, 0, &(struct itimerspec){ 0 }) != -1 || errno != EINVAL)
		return 3;
	if (timer_create(CLOCK_MONOTONIC, NULL, &id) || (long)id != 2)
		return 4;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "exec-check"))
		return exec_check();
	return ktap_main(argc, argv);
}
