/* /proc/PID and /proc/PID/task/TID: a process as Linux 6.1 shows it
 * (status, stat, statm, maps, smaps, cmdline, environ, comm, the exe, cwd,
 * root and fd links, fdinfo), found through task_by_pid at every use. */
#include "proc.h"
#include "../clock.h"
#include "../exec.h"
#include "../fd.h"
#include "../task.h"
#include "../tsc.h"
#include "../x86.h"
#include "../lib/cpulist.h"
#include "../lib/string.h"
#include "../mm/paging.h"
#include "../mm/uspace.h"
#include <asm-generic/errno.h>
#include <linux/fcntl.h>
#include <linux/stat.h>

#define USER_HZ		100

/* The live task a node stands for (a zombie has no memory or files left
 * to show: its directory is gone, as after Linux's release). */
static struct task *task_of(const struct proc_node *n)
{
	struct task *t = task_by_pid(n->pid);

	return t && t->state != TASK_ZOMBIE ? t : NULL;
}

static int ppid_of(const struct task *t)
{
	return t->parent ? t->parent->tgid : 0;
}

/* ---- the address space, counted ---- */

/* Pages of [start, end) with a frame behind them. */
static unsigned long resident_pages(struct uspace *us, uint64_t start, uint64_t end)
{
	unsigned long pages = 0;

	for (uint64_t va = start; va < end; va += PAGE_SIZE) {
		uint64_t next = pte_next_table(us->pml4, va);
		if (next != va) {
			if (next < va || next >= end)	/* wrapped, or past the range */
				break;
			va = next;
		}
		pte_t *e = pte_walk(us->pml4, va, false);
		if (e && (*e & PTE_P))
			pages++;
	}
	return pages;
}

struct vm_counts {
	unsigned long size, rss, data, stack, exec;	/* bytes */
	uint64_t start_code, end_code, start_data, end_data;
};

static bool is_heap(const struct uspace *us, const struct vma *v)
{
	return v->start <= us->brk && v->end >= us->brk_start && (v->flags & VM_ANON) &&
	       !(v->flags & (VM_EXE | VM_STACK));
}

static void vm_count(struct uspace *us, struct vm_counts *c)
{
	*c = (struct vm_counts){ 0 };
	for (struct vma *v = us->vmas; v; v = v->next) {
		uint64_t len = v->end - v->start;
		c->size += len;
		c->rss += resident_pages(us, v->start, v->end) * PAGE_SIZE;
		if (v->flags & VM_STACK)
			c->stack += len;
		else if ((v->flags & VM_WRITE) && !(v->flags & VM_SHARED))
			c->data += len;
		if ((v->flags & VM_EXE) && (v->flags & VM_EXEC)) {
			c->exec += len;
			if (!c->start_code)
				c->start_code = v->start;
			c->end_code = v->end;
		}
		if ((v->flags & VM_EXE) && (v->flags & VM_WRITE)) {
			if (!c->start_data)
				c->start_data = v->start;
			c->end_data = v->end;
		}
	}
}

/* Copy user memory of us into buf without faulting (absent pages end it). */
static size_t read_user(struct uspace *us, uint64_t va, char *buf, size_t n)
{
	size_t done = 0;

	while (done < n) {
		uint64_t at = va + done;
		size_t chunk = MIN(n - done, PAGE_SIZE - (at & (PAGE_SIZE - 1)));
		uint64_t pa = translate(us->pml4, at, false, true);
		if (!pa)
			break;
		memcpy(buf + done, phys_to_virt(pa), chunk);
		done += chunk;
	}
	return done;
}

static int show_user_range(const struct proc_node *n, struct seq *s, bool env)
{
	struct task *t = task_of(n);
	char chunk[256];

	if (!t)
		return -ESRCH;
	uint64_t va = env ? t->us->env_start : t->us->arg_start;
	uint64_t end = env ? t->us->env_end : t->us->arg_end;
	while (va < end) {
		size_t want = MIN(sizeof(chunk), end - va), got = read_user(t->us, va, chunk, want);
		seq_write(s, chunk, got);
		if (got < want)
			break;
		va += got;
	}
	return 0;
}

static int cmdline_show(const struct proc_node *n, struct seq *s)
{
	return show_user_range(n, s, false);
}

static int environ_show(const struct proc_node *n, struct seq *s)
{
	return show_user_range(n, s, true);
}

/* ---- status, stat, statm ---- */

static uint64_t sig_set(const struct task *t, bool ignored)
{
	uint64_t set = 0;

	for (int sig = 1; sig <= NSIGNALS; sig++) {
		uint64_t h = t->sig.hand->action[sig].handler;
		if (ignored ? h == (uint64_t)SIG_IGN : h > (uint64_t)SIG_IGN)
			set |= sigbit(sig);
	}
	return set;
}

static int status_show(const struct proc_node *n, struct seq *s)
{
	struct task *t = task_of(n);
	struct vm_counts c;
	char cpus[24], cpu_list[96];

	if (!t)
		return -ESRCH;
	vm_count(t->us, &c);
	cpumask_format(cpus, sizeof(cpus), t->cpus_allowed, nr_cpus);
	cpulist_format(cpu_list, sizeof(cpu_list), t->cpus_allowed);
	seq_printf(s, "Name:\t%s\nUmask:\t%04o\nState:\tR (running)\nTgid:\t%d\nNgid:\t0\n"
		   "Pid:\t%d\nPPid:\t%d\nTracerPid:\t0\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n"
		   "FDSize:\t%d\nGroups:\t \nNStgid:\t%d\nNSpid:\t%d\nNSpgid:\t0\nNSsid:\t0\n",
		   t->comm, t->umask, t->tgid, n->num ? n->num : t->pid, ppid_of(t), NR_FDS, t->tgid,
		   n->num ? n->num : t->pid);
	seq_kb(s, "VmPeak:\t", 8, c.size / 1024);
	seq_kb(s, "VmSize:\t", 8, c.size / 1024);
	seq_kb(s, "VmLck:\t", 8, 0);
	seq_kb(s, "VmPin:\t", 8, 0);
	seq_kb(s, "VmHWM:\t", 8, c.rss / 1024);
	seq_kb(s, "VmRSS:\t", 8, c.rss / 1024);
	seq_kb(s, "RssAnon:\t", 8, c.rss / 1024);
	seq_kb(s, "RssFile:\t", 8, 0);
	seq_kb(s, "RssShmem:\t", 8, 0);
	seq_kb(s, "VmData:\t", 8, c.data / 1024);
	seq_kb(s, "VmStk:\t", 8, c.stack / 1024);
	seq_kb(s, "VmExe:\t", 8, c.exec / 1024);
	seq_kb(s, "VmLib:\t", 8, 0);
	seq_kb(s, "VmPTE:\t", 8, 0);
	seq_kb(s, "VmSwap:\t", 8, 0);
	seq_kb(s, "HugetlbPages:\t", 8, 0);
	seq_printf(s, "CoreDumping:\t0\nTHP_enabled:\t1\nThreads:\t1\nSigQ:\t%u/%d\n"
		   "SigPnd:\t%016lx\nShdPnd:\t%016lx\nSigBlk:\t%016lx\nSigIgn:\t%016lx\n"
		   "SigCgt:\t%016lx\n", signal_queued(&t->sig),
		   (int)task_rlimit(t, RLIMIT_SIGPENDING), 0ul,
		   t->sig.pending, t->sig.blocked, sig_set(t, true), sig_set(t, false));
	seq_puts(s, "CapInh:\t0000000000000000\nCapPrm:\t000001ffffffffff\n"
		 "CapEff:\t000001ffffffffff\nCapBnd:\t000001ffffffffff\n"
		 "CapAmb:\t0000000000000000\nNoNewPrivs:\t0\nSeccomp:\t0\nSeccomp_filters:\t0\n"
		 "Speculation_Store_Bypass:\tnot vulnerable\n"
		 "SpeculationIndirectBranch:\talways enabled\n");
	seq_printf(s, "Cpus_allowed:\t%s\nCpus_allowed_list:\t%s\nMems_allowed:\t1\n"
		   "Mems_allowed_list:\t0\nvoluntary_ctxt_switches:\t0\n"
		   "nonvoluntary_ctxt_switches:\t0\n", cpus, cpu_list);
	return 0;
}

static unsigned long to_ticks(uint64_t tsc)
{
	return tsc_to_ns(tsc) / (NSEC_PER_SEC / USER_HZ);
}

static int stat_show(const struct proc_node *n, struct seq *s)
{
	struct task *t = task_of(n);
	struct vm_counts c;

	if (!t)
		return -ESRCH;
	vm_count(t->us, &c);
	unsigned long run = to_ticks(task_cputime_tsc(t));
	/* Fields 1-52 of proc(5), Linux 6.1's order. */
	seq_printf(s, "%d (%s) R %d %d %d 0 -1 4194560 0 0 0 0 %lu 0 0 0 20 0 1 0 %lu %lu %lu "
		   "18446744073709551615 %lu %lu %lu 0 0 %lu %lu %lu %lu 0 0 0 17 0 0 0 0 0 0 "
		   "%lu %lu %lu %lu %lu %lu %lu 0\n",
		   n->num ? n->num : t->pid, t->comm, ppid_of(t), t->pgid, t->sid, run,
		   to_ticks(t->start_tsc),
		   c.size, c.rss / PAGE_SIZE, c.start_code, c.end_code, t->us->start_stack,
		   t->sig.pending, t->sig.blocked, sig_set(t, true), sig_set(t, false),
		   c.start_data, c.end_data, t->us->brk_start, t->us->arg_start, t->us->arg_end,
		   t->us->env_start, t->us->env_end);
	return 0;
}

static int statm_show(const struct proc_node *n, struct seq *s)
{
	struct task *t = task_of(n);
	struct vm_counts c;

	if (!t)
		return -ESRCH;
	vm_count(t->us, &c);
	seq_printf(s, "%lu %lu 0 %lu 0 %lu 0\n", c.size / PAGE_SIZE, c.rss / PAGE_SIZE,
		   c.exec / PAGE_SIZE, (c.data + c.stack) / PAGE_SIZE);
	return 0;
}

/* ---- maps, smaps ---- */

/* The name column, or NULL: the program's or its loader's path, a mapped
 * file's (made in buf), [heap], [stack]. */
static const char *vma_name(const struct task *t, const struct vma *v, char *buf, size_t size)
{
	if (v->flags & VM_EXE)
		return t->exe;
	if (v->flags & VM_INTERP)
		return t->us->interp;
	if (v->flags & VM_FILE)
		return vfs_file_path(v->priv, buf, size) > 0 ? buf : NULL;
	if (v->flags & VM_STACK)
		return "[stack]";
	if (is_heap(t->us, v))
		return "[heap]";
	return NULL;
}

static void map_line(struct seq *s, const struct task *t, const struct vma *v,
		     uint32_t dev, uint64_t ino)
{
	static char path[PATH_MAX_LEN];	/* one CPU; maps are made in one go */
	const char *name = vma_name(t, v, path, sizeof(path));
	bool exe = v->flags & (VM_EXE | VM_INTERP | VM_FILE);
	size_t start = s->len;

	if (v->flags & VM_FILE) {	/* the mapped file's own identity */
		const struct inode *n = ((struct file *)v->priv)->inode;
		dev = n->sb->dev;
		ino = n->ino;
	} else if (v->flags & VM_INTERP) {
		dev = 0;		/* the loader: a copy, as the program's segments */
		ino = 0;
	}
	seq_printf(s, "%08lx-%08lx %c%c%c%c %08lx %02x:%02x %lu ", v->start, v->end,
		   v->flags & VM_READ ? 'r' : '-', v->flags & VM_WRITE ? 'w' : '-',
		   v->flags & VM_EXEC ? 'x' : '-', v->flags & VM_SHARED ? 's' : 'p',
		   exe ? v->pgoff : 0, 0, exe ? dev : 0, exe ? ino : 0);
	if (name) {
		/* show_map_vma pads the name to column 73 */
		while (!s->overflow && s->len - start < 72)
			seq_write(s, " ", 1);
		seq_printf(s, " %s", name);
	}
	seq_write(s, "\n", 1);
}

static int maps_show(const struct proc_node *n, struct seq *s)
{
	struct task *t = task_of(n);
	uint32_t dev;
	uint64_t ino;

	if (!t)
		return -ESRCH;
	exec_file_id(t, &dev, &ino);
	for (struct vma *v = t->us->vmas; v; v = v->next)
		map_line(s, t, v, dev, ino);
	return 0;
}

static int smaps_show(const struct proc_node *n, struct seq *s)
{
	struct task *t = task_of(n);
	uint32_t dev;
	uint64_t ino;

	if (!t)
		return -ESRCH;
	exec_file_id(t, &dev, &ino);
	for (struct vma *v = t->us->vmas; v; v = v->next) {
		unsigned long size = (v->end - v->start) / 1024;
		unsigned long rss = resident_pages(t->us, v->start, v->end) * (PAGE_SIZE / 1024);
		map_line(s, t, v, dev, ino);
		seq_kb(s, "Size:           ", 8, size);
		seq_kb(s, "KernelPageSize: ", 8, 4);
		seq_kb(s, "MMUPageSize:    ", 8, 4);
		seq_kb(s, "Rss:            ", 8, rss);
		seq_kb(s, "Pss:            ", 8, rss);
		seq_kb(s, "Pss_Dirty:      ", 8, rss);
		seq_kb(s, "Shared_Clean:   ", 8, 0);
		seq_kb(s, "Shared_Dirty:   ", 8, 0);
		seq_kb(s, "Private_Clean:  ", 8, 0);
		seq_kb(s, "Private_Dirty:  ", 8, rss);
		seq_kb(s, "Referenced:     ", 8, rss);
		seq_kb(s, "Anonymous:      ", 8, v->flags & VM_EXE ? 0 : rss);
		static const char *const zero[] = {
			"LazyFree:       ", "AnonHugePages:  ", "ShmemPmdMapped: ",
			"FilePmdMapped:  ", "Shared_Hugetlb: ", "Private_Hugetlb:",
			"Swap:           ", "SwapPss:        ", "Locked:         ",
		};
		for (size_t i = 0; i < ARRAY_SIZE(zero); i++)
			seq_kb(s, zero[i], 8, 0);
		seq_printf(s, "THPeligible:    0\nProtectionKey:  %8d\nVmFlags: %s%s%s%s%s%s%s\n", 0,
			   v->flags & VM_READ ? "rd " : "", v->flags & VM_WRITE ? "wr " : "",
			   v->flags & VM_EXEC ? "ex " : "", v->flags & VM_SHARED ? "sh " : "",
			   "mr mw me ", v->flags & VM_STACK ? "gd " : "",
			   v->flags & (VM_EXE | VM_SPECIAL) ? "" : "ac ");
	}
	return 0;
}

/* ---- comm and the links ---- */

static int comm_show(const struct proc_node *n, struct seq *s)
{
	struct task *t = task_of(n);

	if (!t)
		return -ESRCH;
	seq_printf(s, "%s\n", t->comm);
	return 0;
}

/* Linux's comm_write: the first TASK_COMM_LEN - 1 bytes, a newline kept;
 * only of the writer's own process (EINVAL). */
static long comm_store(const struct proc_node *n, const char *buf, size_t len)
{
	struct task *t = task_of(n);

	if (!t)
		return -ESRCH;
	if (t->tgid != current->tgid)
		return -EINVAL;
	task_set_comm(t, buf, MIN(len, (size_t)TASK_COMM_LEN - 1));
	return len;
}

static int exe_show(const struct proc_node *n, struct seq *s)
{
	struct task *t = task_of(n);

	if (!t)
		return -ESRCH;
	seq_puts(s, t->exe);
	return 0;
}

/* A path made in place by vfs_path_of or vfs_file_path: len (with the NUL)
 * or its errno. */
static int put_path(struct seq *s, long len)
{
	if (len == -ENAMETOOLONG) {
		s->overflow = true;
		return 0;
	}
	if (len < 0)
		return len;
	s->len += len - 1;
	return 0;
}

static int cwd_show(const struct proc_node *n, struct seq *s)
{
	struct task *t = task_of(n);

	if (!t)
		return -ESRCH;
	return put_path(s, vfs_path_of(t->cwd ? t->cwd : vfs_root(), s->buf + s->len,
				       s->size - s->len));
}

static struct inode *cwd_target(const struct proc_node *n)
{
	struct task *t = task_of(n);
	struct inode *dir = t && t->cwd ? t->cwd : t ? vfs_root() : NULL;

	if (dir)
		inode_get(dir);
	return dir;
}

static int root_show(const struct proc_node *n, struct seq *s)
{
	if (!task_of(n))
		return -ESRCH;
	seq_puts(s, "/");
	return 0;
}

/* ---- fd/ and fdinfo/ ---- */

static struct file *fd_file(const struct proc_node *n)
{
	struct task *t = task_of(n);

	return t ? fd_get(t->fds, n->num) : NULL;
}

static int fd_next(const struct proc_node *dir, int from)
{
	struct task *t = task_of(dir);

	for (int fd = from; t && fd < NR_FDS; fd++)
		if (t->fds->file[fd])
			return fd;
	return -1;
}

static int fd_link_show(const struct proc_node *n, struct seq *s)
{
	struct file *f = fd_file(n);

	if (!f)
		return -ENOENT;
	if (f->inode)
		return put_path(s, vfs_file_path(f, s->buf + s->len, s->size - s->len));
	seq_puts(s, f->ops->name ? f->ops->name : "anon_inode:[unknown]");
	return 0;
}

static int fdinfo_show(const struct proc_node *n, struct seq *s)
{
	struct task *t = task_of(n);
	struct file *f = fd_file(n);

	if (!f)
		return -ENOENT;
	unsigned flags = f->flags | (t->fds->cloexec[n->num] ? O_CLOEXEC : 0);
	seq_printf(s, "pos:\t%ld\nflags:\t0%o\nmnt_id:\t%d\nino:\t%lu\n", f->pos, flags,
		   f->inode ? f->inode->sb->mnt_id : 1, f->inode ? f->inode->ino : 0ul);
	return 0;
}

static struct inode *fd_target(const struct proc_node *n)
{
	struct file *f = fd_file(n);

	if (!f || !f->inode)
		return NULL;
	inode_get(f->inode);
	return f->inode;
}

/* Linux gives an fd's link the owner's r and w bits of the file's access,
 * and x. */
static unsigned fd_link_mode(const struct proc_node *n)
{
	struct file *f = fd_file(n);

	return S_IFLNK | 0100 | (f && file_readable(f) ? 0400 : 0) | (f && file_writable(f) ? 0200 : 0);
}

static const struct proc_entry fd_link = {
	.name = "fd", .mode = S_IFLNK | 0700, .show = fd_link_show, .target = fd_target,
	.mode_of = fd_link_mode };
static const struct proc_entry fdinfo_file = PROC_FILE("fdinfo", fdinfo_show);

/* ---- the directories ---- */

static int tid_next(const struct proc_node *dir, int from)
{
	struct task *t = task_of(dir);

	return t && t->pid >= from ? t->pid : -1;	/* one thread: tid == pid */
}

#define PID_ENTRIES \
	PROC_ENTRY("fd", S_IFDIR | 0500, .next = fd_next, .numbered = &fd_link), \
	PROC_ENTRY("fdinfo", S_IFDIR | 0500, .next = fd_next, .numbered = &fdinfo_file), \
	PROC_ENTRY("environ", S_IFREG | 0400, .show = environ_show), \
	PROC_FILE("status", status_show), \
	PROC_ENTRY("comm", S_IFREG | 0644, .show = comm_show, .store = comm_store), \
	PROC_FILE("cmdline", cmdline_show), \
	PROC_FILE("stat", stat_show), \
	PROC_FILE("statm", statm_show), \
	PROC_FILE("maps", maps_show), \
	PROC_LINK("cwd", cwd_show, .target = cwd_target), \
	PROC_LINK("root", root_show), \
	PROC_LINK("exe", exe_show), \
	PROC_FILE("mounts", proc_mounts_show), \
	PROC_FILE("mountinfo", proc_mountinfo_show), \
	PROC_FILE("smaps", smaps_show)

static const struct proc_entry tid_entries[] = { PID_ENTRIES, { 0 } };
static const struct proc_entry tid_dir = PROC_DIR("tid", tid_entries);
static const struct proc_entry pid_entries[] = {
	PROC_DIR("task", NULL, .next = tid_next, .numbered = &tid_dir),
	PID_ENTRIES,
	{ 0 },
};

const struct proc_entry proc_pid_dir = PROC_DIR("pid", pid_entries);

int proc_pid_next(const struct proc_node *dir, int from)
{
	return task_next_pid(from);
}

int proc_self_show(const struct proc_node *n, struct seq *s)
{
	if (!current)
		return -ENOENT;
	seq_printf(s, "%d", current->pid);
	return 0;
}

int proc_thread_self_show(const struct proc_node *n, struct seq *s)
{
	if (!current)
		return -ENOENT;
	seq_printf(s, "%d/task/%d", current->pid, current->pid);
	return 0;
}
