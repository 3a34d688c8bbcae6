/* user/tests/perf_sigio.c: a SIGIO for every overflow of an fd with O_ASYNC (ring or none,
 * whatever wakeup_events says, POLL_HUP when a REFRESH runs out), real-time signals queued
 * one instance each (F_SETSIG, rt_sigqueueinfo, kill, tgkill) up to RLIMIT_SIGPENDING, and
 * standard ones coalescing. Page faults are the overflows both kernels give exactly. */
#include "ktap.h"
#include "perf.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_SIGS 64

static volatile int nsigs;
static volatile int codes[MAX_SIGS], fds[MAX_SIGS], values[MAX_SIGS];
static volatile long bands[MAX_SIGS];

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	if (nsigs < MAX_SIGS) {
		codes[nsigs] = si->si_code;
		fds[nsigs] = si->si_fd;
		bands[nsigs] = si->si_band;
		values[nsigs] = si->si_value.sival_int;
	}
	nsigs++;
}

static void catch(int sig)
{
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO };

	sigaction(sig, &sa, NULL);
	nsigs = 0;
}

static void block(int sig, bool on)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, sig);
	sigprocmask(on ? SIG_BLOCK : SIG_UNBLOCK, &s, NULL);
}

/* Each first write to a fresh page: one page fault. */
static void touch_pages(int n)
{
	char *p = mmap(NULL, n * 4096L, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	for (int i = 0; i < n; i++)
		p[i * 4096L] = 1;
	munmap(p, n * 4096L);
}

/* A page-fault sampler whose overflows signal this process (sig 0: plain SIGIO). */
static int async_sampler(unsigned wakeup_events, int sig)
{
	struct perf_event_attr attr = perf_fault_sampler(PERF_SAMPLE_IP);

	attr.wakeup_events = wakeup_events;
	int fd = perf_open(&attr, 0, -1, -1, 0);
	if (fd < 0)
		return fd;
	if (fcntl(fd, F_SETOWN, getpid()) || fcntl(fd, F_SETSIG, sig) ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC))
		return -1;
	return fd;
}

/* No ring at all: Linux still signals each overflow. */
TEST(sigio_for_every_overflow_without_a_ring)
{
	int fd = async_sampler(1, 0);

	ASSERT_GE(fd, 0);
	catch(SIGIO);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	touch_pages(20);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	EXPECT_EQ(perf_value(fd), 20);
	EXPECT_EQ(nsigs, 20);
	EXPECT_EQ(codes[0], SI_KERNEL);		/* plain SIGIO: no F_SETSIG info */
	signal(SIGIO, SIG_DFL);
	close(fd);
}

/* wakeup_events 3 wakes poll() every third sample; the signal comes every overflow. */
TEST(sigio_for_every_overflow_with_wakeup_events_3)
{
	int fd = async_sampler(3, SIGUSR1);

	ASSERT_GE(fd, 0);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, 8);
	catch(SIGUSR1);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	touch_pages(20);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	EXPECT_EQ(perf_value(fd), 20);
	EXPECT_EQ(nsigs, 20);
	EXPECT_EQ(codes[0], POLL_IN);
	EXPECT_EQ(bands[0], POLLIN | POLLRDNORM);
	EXPECT_EQ(fds[0], fd);
	signal(SIGUSR1, SIG_DFL);
	perf_ring_unmap(pc);
	close(fd);
}

/* A one-page ring holds 256 samples of 16 bytes; the signals go on past it. */
TEST(sigio_past_a_full_ring)
{
	int fd = async_sampler(1, 0);

	ASSERT_GE(fd, 0);
	struct perf_event_mmap_page *pc = perf_ring_map(fd, 1);
	catch(SIGIO);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	touch_pages(300);		/* (not so many that the rate limit throttles) */
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	EXPECT_EQ(perf_value(fd), 300);
	EXPECT_EQ(nsigs, 300);
	signal(SIGIO, SIG_DFL);
	perf_ring_unmap(pc);
	close(fd);
}

/* REFRESH 5: five overflows, the last one's signal says POLL_HUP and the event stops. */
TEST(refresh_ends_with_poll_hup)
{
	int sig = SIGRTMIN + 1;
	int fd = async_sampler(1, sig);

	ASSERT_GE(fd, 0);
	catch(sig);
	ASSERT_EQ(perf_ioctl(fd, PERF_EVENT_IOC_REFRESH, 5), 0);
	touch_pages(20);
	EXPECT_EQ(perf_value(fd), 5);
	ASSERT_EQ(nsigs, 5);
	for (int i = 0; i < 4; i++)
		EXPECT_EQ(codes[i], POLL_IN);
	EXPECT_EQ(codes[4], POLL_HUP);
	EXPECT_EQ(bands[4], POLLHUP | POLLERR);
	EXPECT_EQ(fds[4], fd);
	signal(sig, SIG_DFL);
	close(fd);
}

/* Two events overflow on the same fault: a real-time signal queues one instance each, with
 * its own si_fd; a standard one coalesces while blocked. */
TEST(two_events_queue_their_own_realtime_signals)
{
	int sig = SIGRTMIN + 2;
	int a = async_sampler(1, sig), b = async_sampler(1, sig);

	ASSERT_GE(a, 0);
	ASSERT_GE(b, 0);
	catch(sig);
	block(sig, true);
	ASSERT_EQ(perf_ioctl(a, PERF_EVENT_IOC_ENABLE, 0), 0);
	ASSERT_EQ(perf_ioctl(b, PERF_EVENT_IOC_ENABLE, 0), 0);
	touch_pages(3);
	ASSERT_EQ(perf_ioctl(a, PERF_EVENT_IOC_DISABLE, 0), 0);
	ASSERT_EQ(perf_ioctl(b, PERF_EVENT_IOC_DISABLE, 0), 0);
	EXPECT_EQ(perf_value(a), 3);
	EXPECT_EQ(perf_value(b), 3);
	block(sig, false);
	ASSERT_EQ(nsigs, 6);
	int from_a = 0, from_b = 0;
	for (int i = 0; i < 6; i++)
		from_a += fds[i] == a, from_b += fds[i] == b;
	EXPECT_EQ(from_a, 3);
	EXPECT_EQ(from_b, 3);
	signal(sig, SIG_DFL);
	/* The same with SIGUSR2: one pending instance. */
	ASSERT_EQ(fcntl(a, F_SETSIG, SIGUSR2), 0);
	ASSERT_EQ(fcntl(b, F_SETSIG, SIGUSR2), 0);
	catch(SIGUSR2);
	block(SIGUSR2, true);
	ASSERT_EQ(perf_ioctl(a, PERF_EVENT_IOC_ENABLE, 0), 0);
	ASSERT_EQ(perf_ioctl(b, PERF_EVENT_IOC_ENABLE, 0), 0);
	touch_pages(3);
	ASSERT_EQ(perf_ioctl(a, PERF_EVENT_IOC_DISABLE, 0), 0);
	ASSERT_EQ(perf_ioctl(b, PERF_EVENT_IOC_DISABLE, 0), 0);
	block(SIGUSR2, false);
	EXPECT_EQ(nsigs, 1);
	signal(SIGUSR2, SIG_DFL);
	close(a);
	close(b);
}

static long sigqueue_self(int sig, int value)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	si.si_code = SI_QUEUE;
	si.si_value.sival_int = value;
	return syscall(SYS_rt_sigqueueinfo, getpid(), sig, &si);
}

static int sigq_queued(void)
{
	char buf[4096];
	int fd = open("/proc/self/status", O_RDONLY), n, queued = -1;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	char *q = strstr(buf, "SigQ:");
	if (q)
		sscanf(q, "SigQ:\t%d", &queued);
	return queued;
}

/* RLIMIT_SIGPENDING bounds the instances pending, standard ones included: past it
 * rt_sigqueueinfo and tgkill fail with EAGAIN, kill() still sends, without its info. */
TEST(realtime_queue_up_to_rlimit_sigpending)
{
	int sig = SIGRTMIN + 3;
	struct rlimit old, rl;

	ASSERT_EQ(getrlimit(RLIMIT_SIGPENDING, &old), 0);
	rl = old;
	rl.rlim_cur = 5;
	ASSERT_EQ(setrlimit(RLIMIT_SIGPENDING, &rl), 0);
	catch(sig);
	block(sig, true);
	block(SIGUSR1, true);
	EXPECT_EQ(kill(getpid(), SIGUSR1), 0);
	for (int i = 0; i < 4; i++)
		EXPECT_EQ(sigqueue_self(sig, i), 0);
	EXPECT_ERRNO(sigqueue_self(sig, 4), EAGAIN);
	EXPECT_ERRNO(syscall(SYS_tgkill, getpid(), getpid(), sig), EAGAIN);
	EXPECT_EQ(kill(getpid(), sig), 0);
	EXPECT_EQ(sigq_queued(), 5);
	block(sig, false);
	/* The four queued ones in order; the kill() without room is not one more. */
	ASSERT_EQ(nsigs, 4);
	for (int i = 0; i < 4; i++) {
		EXPECT_EQ(codes[i], SI_QUEUE);
		EXPECT_EQ(values[i], i);
	}
	signal(SIGUSR1, SIG_IGN);	/* drop the pending SIGUSR1 */
	block(SIGUSR1, false);
	signal(SIGUSR1, SIG_DFL);
	EXPECT_EQ(sigq_queued(), 0);
	ASSERT_EQ(setrlimit(RLIMIT_SIGPENDING, &old), 0);
	signal(sig, SIG_DFL);
}

/* Who may queue what: only one's own process gets si_code >= 0 or SI_TKILL. */
TEST(rt_sigqueueinfo_errors)
{
	siginfo_t si;
	int sig = SIGRTMIN + 4;

	memset(&si, 0, sizeof(si));
	si.si_code = SI_QUEUE;
	EXPECT_ERRNO(syscall(SYS_rt_sigqueueinfo, 0x7ffffff0, sig, &si), ESRCH);
	EXPECT_ERRNO(syscall(SYS_rt_sigqueueinfo, getpid(), 99, &si), EINVAL);
	EXPECT_ERRNO(syscall(SYS_rt_sigqueueinfo, getpid(), sig, (void *)8), EFAULT);
	EXPECT_ERRNO(syscall(SYS_rt_tgsigqueueinfo, getpid(), 0, sig, &si), EINVAL);
	EXPECT_ERRNO(syscall(SYS_rt_tgsigqueueinfo, 0x7ffffff0, getpid(), sig, &si), ESRCH);
	EXPECT_EQ(syscall(SYS_rt_sigqueueinfo, getpid(), 0, &si), 0);
	si.si_code = SI_USER;
	EXPECT_ERRNO(syscall(SYS_rt_sigqueueinfo, 0x7ffffff0, sig, &si), EPERM);
	si.si_code = SI_TKILL;
	EXPECT_ERRNO(syscall(SYS_rt_tgsigqueueinfo, 0x7ffffff0, 0x7ffffff0, sig, &si), EPERM);
	/* To itself, any si_code goes, and a tgsigqueueinfo arrives like the rest. */
	catch(sig);
	si.si_code = SI_KERNEL;
	si.si_value.sival_int = 7;
	EXPECT_EQ(syscall(SYS_rt_tgsigqueueinfo, getpid(), getpid(), sig, &si), 0);
	EXPECT_EQ(nsigs, 1);
	EXPECT_EQ(codes[0], SI_KERNEL);
	EXPECT_EQ(values[0], 7);
	signal(sig, SIG_DFL);
}
