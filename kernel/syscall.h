/* System calls: the Linux x86-64 numbers, arguments and errno convention. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

struct pt_regs;
struct new_utsname;

void syscall_init(void);
/* STAR, LSTAR, SFMASK and EFER.SCE: each CPU for itself. */
void syscall_init_cpu(void);
/* uname's answer (sys_proc.c), also /proc/sys/kernel's and /proc/version's. */
extern struct new_utsname system_utsname;
/* entry.asm's calls into C on its full-frame paths; true when the return
 * may use SYSRET. */
bool syscall_full(struct pt_regs *regs, uint64_t entry_tsc);
bool syscall_exit_full(struct pt_regs *regs);
long unknown_syscall(unsigned long nr);

/* The syscalls, grouped by the file that implements them. */
long sys_read(long fd, long ubuf, long n);
long sys_read_lockless(long fd, long ubuf, long n);
long sys_write(long fd, long ubuf, long n);
long sys_readv(long fd, long uiov, long iovcnt);
long sys_writev(long fd, long uiov, long iovcnt);
long sys_close(long fd);
long sys_ioctl(long fd, long cmd, long arg);
long sys_ioctl_lockless(long fd, long cmd, long arg);
long sys_fcntl(long fd, long cmd, long arg);
long sys_dup(long fd);
long sys_dup2(long fd, long newfd);
long sys_dup3(long fd, long newfd, long flags);
long sys_lseek(long fd, long off, long whence);
long sys_fstat(long fd, long ustat);
long sys_poll(long ufds, long nfds, long timeout_ms);
long sys_ppoll(long ufds, long nfds, long uts, long usigmask, long sigsetsize);
long sys_mmap(long addr, long len, long prot, long flags, long fd, long off);
long sys_munmap(long addr, long len);
long sys_mprotect(long addr, long len, long prot);
long sys_madvise(long addr, long len, long advice);
long sys_msync(long addr, long len, long flags);
long sys_brk(long addr);
long sys_clock_gettime(long clock, long uts);
long sys_clock_getres(long clock, long uts);
long sys_gettimeofday(long utv, long utz);
long sys_time(long ut);
long sys_nanosleep(long ureq, long urem);
long sys_clock_nanosleep(long clock, long flags, long ureq, long urem);
long sys_getpid(void);
long sys_getppid(void);
long sys_gettid(void);
long sys_getuid(void);
long sys_uname(long ubuf);
long sys_arch_prctl(long code, long addr);
long sys_prctl(long option, long a2, long a3, long a4, long a5);
long sys_set_tid_address(long uptr);
long sys_sched_yield(void);
long sys_exit(long code);
long sys_exit_group(long code);
long sys_wait4(long pid, long ustatus, long options, long urusage);
long sys_waitid(long idtype, long id, long uinfo, long options, long urusage);
long sys_clone(long flags, long newsp, long uparent_tid, long uchild_tid, long tls);
long sys_clone3(long uargs, long size);
long sys_fork(void);
long sys_vfork(void);
long sys_execve(long upath, long uargv, long uenvp);
long sys_execveat(long dirfd, long upath, long uargv, long uenvp, long flags);
long sys_futex(long uaddr, long op, long val, long uts, long uaddr2, long val3);
long sys_getrandom(long ubuf, long n, long flags);
/* sys_info.c */
long sys_prlimit64(long pid, long resource, long unew, long uold);
long sys_getrlimit(long resource, long uold);
long sys_setrlimit(long resource, long unew);
long sys_sysinfo(long uinfo);
long sys_sched_getaffinity(long pid, long len, long umask);
long sys_sched_setaffinity(long pid, long len, long umask);
long sys_getgroups(long size, long ulist);
long sys_set_robust_list(long uhead, long len);
long sys_get_robust_list(long pid, long uhead, long ulen);
/* sys_copy.c */
long sys_sendfile(long out_fd, long in_fd, long uoff, long count);
long sys_copy_file_range(long in_fd, long uoff_in, long out_fd, long uoff_out, long len,
			 long flags);
/* sys_open.c */
long sys_open(long upath, long flags, long mode);
long sys_openat(long dirfd, long upath, long flags, long mode);
long sys_creat(long upath, long mode);
long sys_pread64(long fd, long ubuf, long n, long pos);
long sys_pwrite64(long fd, long ubuf, long n, long pos);
long sys_preadv(long fd, long uiov, long iovcnt, long pos);
long sys_pwritev(long fd, long uiov, long iovcnt, long pos);
long sys_preadv2(long fd, long uiov, long iovcnt, long pos, long pos_h, long flags);
long sys_pwritev2(long fd, long uiov, long iovcnt, long pos, long pos_h, long flags);
long sys_getdents64(long fd, long ubuf, long n);
long sys_truncate(long upath, long len);
long sys_ftruncate(long fd, long len);
long sys_fsync(long fd);
long sys_chdir(long upath);
long sys_fchdir(long fd);
long sys_getcwd(long ubuf, long size);
long sys_umask(long mask);
/* sys_stat.c */
long sys_stat(long upath, long ustat);
long sys_lstat(long upath, long ustat);
long sys_newfstatat(long dirfd, long upath, long ustat, long flags);
long sys_statx(long dirfd, long upath, long flags, long mask, long ustatx);
long sys_statfs(long upath, long ubuf);
long sys_fstatfs(long fd, long ubuf);
long sys_access(long upath, long mode);
long sys_faccessat(long dirfd, long upath, long mode);
long sys_faccessat2(long dirfd, long upath, long mode, long flags);
long sys_readlink(long upath, long ubuf, long bufsiz);
long sys_readlinkat(long dirfd, long upath, long ubuf, long bufsiz);
long sys_chmod(long upath, long mode);
long sys_fchmod(long fd, long mode);
long sys_fchmodat(long dirfd, long upath, long mode);
long sys_chown(long upath, long uid, long gid);
long sys_fchown(long fd, long uid, long gid);
long sys_lchown(long upath, long uid, long gid);
long sys_fchownat(long dirfd, long upath, long uid, long gid, long flags);
long sys_utimensat(long dirfd, long upath, long utimes, long flags);
/* sys_namei.c */
long sys_mkdir(long upath, long mode);
long sys_mkdirat(long dirfd, long upath, long mode);
long sys_mknod(long upath, long mode, long dev);
long sys_mknodat(long dirfd, long upath, long mode, long dev);
long sys_rmdir(long upath);
long sys_unlink(long upath);
long sys_unlinkat(long dirfd, long upath, long flags);
long sys_rename(long uold, long unew);
long sys_renameat(long odirfd, long uold, long ndirfd, long unew);
long sys_renameat2(long odirfd, long uold, long ndirfd, long unew, long flags);
long sys_link(long uold, long unew);
long sys_linkat(long odirfd, long uold, long ndirfd, long unew, long flags);
long sys_symlink(long utarget, long upath);
long sys_symlinkat(long utarget, long dirfd, long upath);
/* pipe.c, eventfd.c, sys_poll.c, epoll.c */
long sys_pipe(long ufds);
long sys_pipe2(long ufds, long flags);
long sys_eventfd(long initval);
long sys_eventfd2(long initval, long flags);
long sys_select(long n, long uin, long uout, long uex, long utv);
long sys_pselect6(long n, long uin, long uout, long uex, long uts, long usig);
long sys_epoll_create(long size);
long sys_epoll_create1(long flags);
long sys_epoll_ctl(long epfd, long op, long fd, long uevent);
long sys_epoll_wait(long epfd, long uevents, long max, long timeout_ms);
long sys_epoll_pwait(long epfd, long uevents, long max, long timeout_ms, long usigmask,
		     long sigsetsize);
long sys_epoll_pwait2(long epfd, long uevents, long max, long uts, long usigmask,
		      long sigsetsize);
/* itimer.c, timerfd.c */
long sys_alarm(long seconds);
long sys_getitimer(long which, long uvalue);
long sys_setitimer(long which, long unew, long uold);
long sys_timer_create(long clock, long usevp, long uid);
long sys_timer_settime(long id, long flags, long unew, long uold);
long sys_timer_gettime(long id, long ucur);
long sys_timer_getoverrun(long id);
long sys_timer_delete(long id);
long sys_timerfd_create(long clock, long flags);
long sys_timerfd_settime(long fd, long flags, long unew, long uold);
long sys_timerfd_gettime(long fd, long ucur);
/* sys_sched.c, sys_pgrp.c */
long sys_getrusage(long who, long uru);
long sys_times(long ubuf);
long sys_getcpu(long ucpu, long unode, long ucache);
long sys_sched_setscheduler(long pid, long policy, long uparam);
long sys_sched_getscheduler(long pid);
long sys_sched_setparam(long pid, long uparam);
long sys_sched_getparam(long pid, long uparam);
long sys_sched_get_priority_max(long policy);
long sys_sched_get_priority_min(long policy);
long sys_setpgid(long pid, long pgid);
long sys_getpgid(long pid);
long sys_getpgrp(void);
long sys_getsid(long pid);
long sys_setsid(void);
long sys_perf_event_open(long uattr, long pid, long cpu, long group_fd, long flags);
