/* user/tests/errors.c: error returns of the syscall layer: EFAULT for bad pointers, EBADF, ENOSYS, EINVAL. */
#include "ktap.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/*
 * Raw syscall() throughout: libc wrappers may check arguments themselves or, on Linux,
 * answer from the vDSO (clock_gettime), and then the kernel would not be tested.
 */
#define KERNEL_ADDR ((void *)0xffffffff80000000UL) /* where both kernels map their text */
#define NONCANONICAL ((void *)0x8000000000000000UL)
#define USER_TOP 0x7ffffffff000UL /* Linux's TASK_SIZE_MAX on 4-level paging */

TEST(write_from_null)
{
	ASSERT_ERRNO(syscall(SYS_write, 1, NULL, 1), EFAULT);
}

TEST(write_from_kernel_address)
{
	ASSERT_ERRNO(syscall(SYS_write, 1, KERNEL_ADDR, 1), EFAULT);
	ASSERT_ERRNO(syscall(SYS_write, 1, NONCANONICAL, 1), EFAULT);
}

/* A buffer that starts in user space but runs past its top must not reach the kernel. */
TEST(write_across_user_top)
{
	ASSERT_ERRNO(syscall(SYS_write, 1, (void *)(USER_TOP - 16), 32), EFAULT);
	ASSERT_ERRNO(syscall(SYS_write, 1, (void *)(USER_TOP - 16), -1UL), EFAULT);
}

/* Only kernel addresses: a NULL buffer would first wait for console input on Linux. */
TEST(read_into_kernel_address)
{
	ASSERT_ERRNO(syscall(SYS_read, 0, KERNEL_ADDR, 1), EFAULT);
}

TEST(writev_bad_pointers)
{
	struct iovec bad_base = { .iov_base = KERNEL_ADDR, .iov_len = 1 };

	ASSERT_ERRNO(syscall(SYS_writev, 1, NULL, 1), EFAULT);
	ASSERT_ERRNO(syscall(SYS_writev, 1, KERNEL_ADDR, 1), EFAULT);
	ASSERT_ERRNO(syscall(SYS_writev, 1, &bad_base, 1), EFAULT);
}

TEST(clock_gettime_bad_pointer)
{
	ASSERT_ERRNO(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, NULL), EFAULT);
	ASSERT_ERRNO(syscall(SYS_clock_gettime, CLOCK_REALTIME, KERNEL_ADDR), EFAULT);
}

TEST(uname_bad_pointer)
{
	ASSERT_ERRNO(syscall(SYS_uname, NULL), EFAULT);
	ASSERT_ERRNO(syscall(SYS_uname, KERNEL_ADDR), EFAULT);
}

TEST(nanosleep_bad_pointer)
{
	ASSERT_ERRNO(syscall(SYS_nanosleep, NULL, NULL), EFAULT);
	ASSERT_ERRNO(syscall(SYS_nanosleep, KERNEL_ADDR, NULL), EFAULT);
}

TEST(sigaction_bad_pointers)
{
	ASSERT_ERRNO(syscall(SYS_rt_sigaction, SIGUSR1, KERNEL_ADDR, NULL, 8), EFAULT);
	ASSERT_ERRNO(syscall(SYS_rt_sigaction, SIGUSR1, NULL, KERNEL_ADDR, 8), EFAULT);
	ASSERT_ERRNO(syscall(SYS_rt_sigprocmask, SIG_BLOCK, KERNEL_ADDR, NULL, 8), EFAULT);
}

TEST(bad_fd_read_write)
{
	char c = 0;

	ASSERT_ERRNO(syscall(SYS_read, 1000, &c, 1), EBADF);
	ASSERT_ERRNO(syscall(SYS_read, -1, &c, 1), EBADF);
	ASSERT_ERRNO(syscall(SYS_write, 1000, &c, 1), EBADF);
	ASSERT_ERRNO(syscall(SYS_write, -1, &c, 1), EBADF);
}

TEST(bad_fd_close_fcntl_ioctl)
{
	ASSERT_ERRNO(syscall(SYS_close, 1000), EBADF);
	ASSERT_ERRNO(syscall(SYS_close, -1), EBADF);
	ASSERT_ERRNO(syscall(SYS_fcntl, 1000, F_GETFD), EBADF);
	ASSERT_ERRNO(syscall(SYS_fcntl, -1, F_GETFL), EBADF);
	ASSERT_ERRNO(syscall(SYS_ioctl, 1000, 0x5401 /* TCGETS */, NULL), EBADF);
}

/* The bad fd is reported before the bad pointer is looked at. */
TEST(bad_fd_before_bad_pointer)
{
	ASSERT_ERRNO(syscall(SYS_write, 1000, NULL, 1), EBADF);
}

/* Numbers no kernel has: past the table, in Linux's unused gap, and -1 (Linux's "no syscall"). */
TEST(unknown_syscall_enosys)
{
	ASSERT_ERRNO(syscall(1000), ENOSYS);
	ASSERT_ERRNO(syscall(511), ENOSYS);
	ASSERT_ERRNO(syscall(-1L), ENOSYS);
	ASSERT_ERRNO(syscall(0x7fffffffL), ENOSYS);
}

TEST(zero_length_io)
{
	ASSERT_EQ(syscall(SYS_write, 1, NULL, 0), 0);
	ASSERT_EQ(syscall(SYS_writev, 1, NULL, 0), 0);
}

TEST(invalid_arguments)
{
	struct iovec iov = { .iov_base = "x", .iov_len = 1 };
	struct timespec ts = { .tv_sec = 0, .tv_nsec = 1000000000 };

	ASSERT_ERRNO(syscall(SYS_writev, 1, &iov, -1), EINVAL);
	ASSERT_ERRNO(syscall(SYS_writev, 1, &iov, 1025), EINVAL); /* over IOV_MAX */
	ASSERT_ERRNO(syscall(SYS_nanosleep, &ts, NULL), EINVAL);
	ts.tv_sec = -1;
	ts.tv_nsec = 0;
	ASSERT_ERRNO(syscall(SYS_nanosleep, &ts, NULL), EINVAL);
	ASSERT_ERRNO(syscall(SYS_clock_gettime, 1000, &ts), EINVAL);
	ASSERT_ERRNO(syscall(SYS_rt_sigaction, SIGUSR1, NULL, NULL, 4), EINVAL);
}
