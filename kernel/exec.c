/* execve and execveat: a program file (a static or static-PIE ELF, or a
 * "#!" script naming one) replaces the task's address space, with Linux's
 * rules for what a new program keeps (descriptors without O_CLOEXEC, the
 * signal mask, ignored signals, pid, cwd, umask) and what it loses. */
#include "itimer.h"
#include "exec.h"
#include "elf.h"
#include "sched.h"
#include "signal.h"
#include "syscall.h"
#include "task.h"
#include "traps.h"
#include "x86.h"
#include "fs/ramfs.h"
#include "fs/vfs.h"
#include "lib/string.h"
#include "mm/kmalloc.h"
#include "mm/uaccess.h"
#include "mm/uspace.h"
#include "mm/vmalloc.h"
#include "perf/perf.h"
#include <asm-generic/errno.h>
#include <linux/fcntl.h>
#include <linux/signal.h>

#define BINPRM_BUF_SIZE		256	/* a "#!" line's longest */
#define BINPRM_MAX_RECURSION	4	/* scripts naming scripts */
#define MAX_ARG_STRINGS		0x7fffffff
#define ARG_MAX_BYTES		(STACK_MAX / 4)	/* Linux: a quarter of the stack limit */

/* The absolute path of the file found as name in dir, symlinks resolved
 * and no "." or ".." left, as Linux's d_path gives /proc/PID/exe and the
 * MMAP records: exe gets TASK_EXE_LEN bytes at most. */
static void found_path(const struct vfs_found *found, char *exe)
{
	long len = found->dir ? vfs_path_of(found->dir, exe, TASK_EXE_LEN) : -ENOENT;
	size_t at = len > 1 ? (size_t)len - 1 : 0;

	if (len < 0)
		at = 0;
	if (at == 1)
		at = 0;			/* "/" */
	size_t n = MIN(strlen(found->name), TASK_EXE_LEN - 2 - MIN(at, TASK_EXE_LEN - 2));
	exe[at] = '/';
	memcpy(exe + at + 1, found->name, n);
	exe[at + 1 + n] = '\0';
}

/* The program file's bytes in one piece for the ELF loader (a RAM file's
 * frames are not contiguous): vmalloc'd, or NULL with *err set; exe, if not
 * NULL, gets its absolute path. */
static void *read_program(int dirfd, const char *path, unsigned lookup, size_t *size, int *err,
			  char *exe)
{
	struct inode *n;
	struct vfs_found found = { 0 };

	if ((*err = vfs_lookup_found(dirfd, path, lookup, &n, &found)))
		return NULL;
	if (exe)
		found_path(&found, exe);
	if (found.dir)
		inode_put(found.dir);
	void *image = NULL;
	*err = !inode_is_reg(n) || !(n->mode & 0111) ? -EACCES : !n->size ? -ENOEXEC : 0;
	if (!*err && !(image = vmalloc(n->size)))
		*err = -ENOMEM;
	if (image && ramfs_rw(n, 0, image, n->size, 0) != (long)n->size) {
		vfree(image);
		image = NULL;
		*err = -EIO;
	}
	*size = n->size;
	inode_put(n);
	return image;
}

/* Descriptors marked close-on-exec go; the rest stay. */
static void close_on_exec(struct fd_table *fds)
{
	for (int fd = 0; fd < NR_FDS; fd++)
		if (fds->file[fd] && fds->cloexec[fd])
			fd_close(fds, fd);
}

/* Handled signals return to their default (ignored ones stay ignored), and
 * the alternate stack is forgotten. */
static void reset_signals(struct signal_state *s)
{
	for (int sig = 1; sig <= NSIGNALS; sig++)
		if (s->hand->action[sig].handler != (uint64_t)SIG_IGN)
			s->hand->action[sig] = (struct kernel_sigaction){ .handler = (uint64_t)SIG_DFL };
	s->altstack = (stack_t){ .ss_flags = SS_DISABLE };
}

/* The new image's names: its file's absolute path, and the last part of
 * the path as given for comm (Linux's __set_task_comm of the filename). */
static void set_exe(struct task *t, const char *exe, const char *path)
{
	memcpy(t->exe, exe, TASK_EXE_LEN);
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = MIN(strlen(base), sizeof(t->comm) - 1);
	memcpy(t->comm, base, n);
	t->comm[n] = '\0';
}

void exec_file_id(const struct task *t, uint32_t *dev, uint64_t *ino)
{
	struct inode *n;

	*dev = 0;
	*ino = 0;
	if (!vfs_walk(vfs_root(), t->exe, LOOKUP_FOLLOW, &n)) {
		*dev = n->sb->dev;
		*ino = n->ino;
		inode_put(n);
	}
}

/* "#!interpreter [one argument]": the new argument vector is the
 * interpreter, its argument, the script's path, then argv[1..]. */
static int script(struct task *t, int dirfd, const char *path, const char *image, size_t size,
		  const struct exec_args *args, struct pt_regs *regs, int depth);

static int load(struct task *t, int dirfd, const char *path, unsigned lookup,
		const struct exec_args *args, struct pt_regs *regs, int depth)
{
	size_t size;
	int err;
	char exe[TASK_EXE_LEN];
	char *image = read_program(dirfd, path, lookup, &size, &err, exe);

	if (!image)
		return err;
	if (size >= 2 && image[0] == '#' && image[1] == '!') {
		err = script(t, dirfd, path, image, size, args, regs, depth);
		vfree(image);
		return err;
	}
	/* A dynamically linked program: its loader (PT_INTERP) comes too. */
	char interp_path[sizeof(((struct uspace *)0)->interp)];
	void *interp = NULL;
	size_t interp_size = 0;
	err = elf_interp(image, size, interp_path, sizeof(interp_path));
	if (err == 1) {
		interp = read_program(AT_FDCWD, interp_path, LOOKUP_FOLLOW, &interp_size, &err, NULL);
		if (!interp) {
			vfree(image);
			return err == -EACCES ? -ELIBBAD : err;
		}
	} else if (err < 0) {
		vfree(image);
		return err;
	}
	struct uspace *us = uspace_create();
	struct exec_args a = *args;
	a.filename = path;
	err = us ? elf_load(us, image, size, interp, interp_size, &a, regs) : -ENOMEM;
	vfree(image);
	if (interp) {
		vfree(interp);
		if (!err)
			memcpy(us->interp, interp_path, sizeof(us->interp));
	}
	if (err) {
		if (us)
			uspace_put(us);
		return err;
	}
	/* The point of no return. */
	struct uspace *old = t->us;
	t->us = us;
	if (t == current)
		uspace_activate(us);
	if (old)
		uspace_put(old);
	set_exe(t, exe, path);
	return 0;
}

static int script(struct task *t, int dirfd, const char *path, const char *image, size_t size,
		  const struct exec_args *args, struct pt_regs *regs, int depth)
{
	char line[BINPRM_BUF_SIZE];
	size_t len = 0;

	if (depth >= BINPRM_MAX_RECURSION)
		return -ELOOP;
	for (size_t i = 2; i < size && i < BINPRM_BUF_SIZE + 2 && image[i] != '\n'; i++)
		line[len++] = image[i] == '\t' ? ' ' : image[i];
	if (len == BINPRM_BUF_SIZE)
		return -ENOEXEC;	/* Linux 6.1: no newline in the buffer */
	line[len] = '\0';
	char *interp = line, *arg;
	while (*interp == ' ')
		interp++;
	if (!*interp)
		return -ENOEXEC;
	for (arg = interp; *arg && *arg != ' '; arg++)
		;
	if (*arg) {
		*arg++ = '\0';
		while (*arg == ' ')
			arg++;
		for (char *e = arg + strlen(arg); e > arg && e[-1] == ' ';)
			*--e = '\0';
	}
	const char **v = kmalloc(sizeof(*v) * (args->argc + 3));
	if (!v)
		return -ENOMEM;
	int n = 0;
	v[n++] = interp;
	if (*arg)
		v[n++] = arg;
	v[n++] = path;
	for (int i = 1; i < args->argc; i++)
		v[n++] = args->argv[i];
	struct exec_args a = { .argc = n, .argv = v, .envc = args->envc, .envp = args->envp };
	int err = load(t, AT_FDCWD, interp, LOOKUP_FOLLOW, &a, regs, depth + 1);
	kfree(v);
	return err;
}

int exec_into(struct task *t, const char *path, const struct exec_args *args,
	      struct pt_regs *regs)
{
	return exec_at(t, AT_FDCWD, path, LOOKUP_FOLLOW, args, regs);
}

int exec_at(struct task *t, int dirfd, const char *path, unsigned lookup,
	    const struct exec_args *args, struct pt_regs *regs)
{
	int err = load(t, dirfd, path, lookup, args, regs, 0);

	if (err)
		return err;
	close_on_exec(t->fds);
	itimers_exec(t);		/* POSIX timers go; alarm and itimers stay */
	t->did_exec = true;
	if (signal_unshare(&t->sig))	/* past the point of no return: Linux's */
		signal_force(t, SIGSEGV, NULL);	/* force_fatal_sig */
	else
		reset_signals(&t->sig);
	t->fs_base = 0;
	t->gs_base = 0;
	t->clear_child_tid = 0;
	t->robust_list = 0;
	task_fpu_init(t);
	if (t == current) {
		wrmsr(MSR_FS_BASE, 0);
		wrmsr(MSR_KERNEL_GS_BASE, 0);	/* the user's GS, swapped out */
		__asm__ volatile("fxrstor64 %0" : : "m"(t->fpu));
	}
	if (t->vfork_parent)
		sched_kick(t->vfork_parent);	/* it may sleep on another CPU */
	t->vfork_parent = NULL;		/* the parent of a vfork runs on */
	perf_event_exec_events(t);	/* enable_on_exec, remove_on_exec */
	perf_event_exec(t);		/* COMM (exec) and MMAP records of the new program */
	return 0;
}

/* ---- the syscalls ---- */

/* A user vector of strings (argv, envp) into kernel memory: *out points to
 * n strings in one allocation; NULL counts as empty (Linux warns). */
static long copy_strings(const char *const *uvec, const char ***out, int *n, size_t *bytes)
{
	int count = 0;

	*out = NULL;
	*n = 0;
	for (; uvec; count++) {
		const char *p;
		if (get_user(p, &uvec[count]))
			return -EFAULT;
		if (!p)
			break;
		if (count >= MAX_ARG_STRINGS / 8 || (size_t)count * 8 > ARG_MAX_BYTES)
			return -E2BIG;
	}
	const char **v = kmalloc(sizeof(*v) * (count + 1));
	if (!v)
		return -ENOMEM;
	for (int i = 0; i < count; i++) {
		const char *p;
		char *s;
		if (get_user(p, &uvec[i])) {
			*out = v, *n = i;
			return -EFAULT;
		}
		long len = strnlen_user(p, ARG_MAX_BYTES);
		if (len < 0 || *bytes + len > ARG_MAX_BYTES || !(s = kmalloc(len + 1))) {
			*out = v, *n = i;
			return len < 0 ? len : *bytes + len > ARG_MAX_BYTES ? -E2BIG : -ENOMEM;
		}
		if (copy_from_user(s, p, len + 1)) {
			kfree(s);
			*out = v, *n = i;
			return -EFAULT;
		}
		s[len] = '\0';
		*bytes += len + 1;
		v[i] = s;
	}
	*out = v;
	*n = count;
	return 0;
}

static void free_strings(const char **v, int n)
{
	for (int i = 0; i < n; i++)
		kfree((void *)v[i]);
	kfree(v);
}

long sys_execveat(long dirfd, long upath, long uargv, long uenvp, long flags)
{
	struct exec_args a = { 0 };
	const char **argv = NULL, **envp = NULL;
	char *path = kmalloc(PATH_MAX_LEN);
	size_t bytes = 0;
	long r;

	if (flags & ~(AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW))
		return kfree(path), -EINVAL;
	if (!path)
		return -ENOMEM;
	if (!(r = vfs_get_user_path(path, (const char *)upath, flags & AT_EMPTY_PATH)) &&
	    !(r = copy_strings((const char *const *)uargv, &argv, &a.argc, &bytes)))
		r = copy_strings((const char *const *)uenvp, &envp, &a.envc, &bytes);
	a.argv = argv;
	a.envp = envp;
	if (!r)
		r = exec_at(current, dirfd, path,
			    (flags & AT_SYMLINK_NOFOLLOW ? 0 : LOOKUP_FOLLOW) |
			    (flags & AT_EMPTY_PATH ? LOOKUP_EMPTY : 0), &a, current->regs);
	free_strings(argv, a.argc);
	free_strings(envp, a.envc);
	kfree(path);
	return r;
}

long sys_execve(long upath, long uargv, long uenvp)
{
	return sys_execveat(AT_FDCWD, upath, uargv, uenvp, 0);
}
