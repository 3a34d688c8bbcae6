/* The user process: created from a program file, entered through the
 * saved-frame return path, ended by exit or a fatal signal, then torn down
 * completely (address space, descriptors, kernel stack). */
#include "task.h"
#include "elf.h"
#include "entry_work.h"
#include "fs/dev.h"
#include "fs/ramfs.h"
#include "fs/vfs.h"
#include "gdt.h"
#include "panic.h"
#include "printk.h"
#include "perf/perf.h"
#include "pmu/itrace.h"
#include "pmu/pmu.h"
#include "pmu/sw.h"
#include "timer.h"
#include "traps.h"
#include "x86.h"
#include "lib/string.h"
#include "mm/kmalloc.h"
#include "mm/paging.h"
#include "mm/uspace.h"
#include "mm/vmalloc.h"
#include <asm-generic/errno.h>
#include <linux/fcntl.h>

struct task *current;
static uint64_t scheduler_rsp;	/* kmain's stack while a task runs */
static int next_pid = 1;
int pid_max = 32768;		/* PID_MAX_DEFAULT, Linux's with one CPU */
unsigned long tasks_forked;
unsigned long context_switches;
uint64_t idle_tsc_total;
int last_pid;
uint64_t syscall_kernel_rsp;	/* entry.asm switches to it on SYSCALL */

void context_switch(uint64_t *save_rsp, uint64_t load_rsp);
void task_enter_user(void);

static void fpu_reset(void)
{
	static const uint32_t mxcsr_default = 0x1f80;

	__asm__ volatile("fninit\n ldmxcsr %0" : : "m"(mxcsr_default));
}

/* The program file's basename, truncated as Linux truncates comm. */
static void set_comm(struct task *t, const char *path)
{
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = MIN(strlen(name), sizeof(t->comm) - 1);

	memcpy(t->comm, name, n);
	t->comm[n] = '\0';
}

struct task *task_by_pid(int pid)
{
	return current && current->pid == pid ? current : NULL;
}

int task_next_pid(int from)
{
	return current && current->pid >= from ? current->pid : -1;
}

void task_set_comm(struct task *t, const char *name, size_t len)
{
	len = MIN(strnlen(name, len), sizeof(t->comm) - 1);
	memcpy(t->comm, name, len);
	t->comm[len] = '\0';
	perf_event_comm(t, false);	/* PERF_RECORD_COMM */
}

/* The program file's bytes in one piece for the ELF loader (a RAM file's
 * frames are not contiguous): vmalloc'd, or NULL with *err set. */
static void *read_program(const char *path, size_t *size, int *err)
{
	struct inode *n;

	if ((*err = vfs_lookup_at(AT_FDCWD, path, LOOKUP_FOLLOW, &n)))
		return NULL;
	void *image = NULL;
	*err = inode_is_dir(n) ? -EACCES : !inode_is_reg(n) || !(n->mode & 0111) ? -EACCES :
	       !n->size ? -ENOEXEC : 0;
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

/* The initial kernel stack: the user frame at the top, and below it what
 * context_switch pops: six callee-saved registers and task_enter_user. */
static void build_kernel_stack(struct task *t, const struct pt_regs *user)
{
	struct pt_regs *regs = (struct pt_regs *)t->kstack_top - 1;
	uint64_t *sp = (uint64_t *)regs;

	*regs = *user;
	t->regs = regs;		/* every entry from user mode puts its frame here */
	*--sp = (uint64_t)task_enter_user;
	for (int i = 0; i < 6; i++)
		*--sp = 0;
	t->kernel_rsp = (uint64_t)sp;
}

static void task_free(struct task *t)
{
	perf_event_exit_task(t);
	fd_close_all(&t->fds);
	if (t->cwd)
		inode_put(t->cwd);
	if (t->us)
		uspace_destroy(t->us);	/* mappings of perf events hold their files */
	perf_task_free_context(t);
	if (t->kstack_top)
		vfree_stack(t->kstack_top, KSTACK_SIZE);
	kfree(t);
}

/* The "== run" line: the name and the arguments after argv[0]. */
static void print_run(const char *comm, const struct exec_args *args)
{
	printk("== run %s", comm);
	for (int i = 1; i < args->argc; i++)
		printk(" %s", args->argv[i]);
	printk("\n");
}

int task_run(const char *path, const struct exec_args *args)
{
	struct task *t = kzalloc(sizeof(*t));
	struct pt_regs user = { 0 };
	size_t size = 0;
	int err = -ENOMEM;

	if (t)
		set_comm(t, path);
	print_run(t ? t->comm : path, args);
	if (!t)
		goto fail;
	if (next_pid >= pid_max)
		next_pid = 300;		/* RESERVED_PIDS: Linux wraps to it */
	t->pid = last_pid = next_pid++;
	tasks_forked++;
	context_switches++;		/* the switch into it */
	t->umask = 022;
	size_t plen = MIN(strlen(path), sizeof(t->exe) - 1);
	memcpy(t->exe, path, plen);
	t->kstack_top = vmalloc_stack(KSTACK_SIZE);
	t->us = uspace_create();
	if (!t->kstack_top || !t->us || (err = dev_open_console(&t->fds)))
		goto fail;
	signal_init(&t->sig);
	void *image = read_program(path, &size, &err);
	if (!image)
		goto fail;
	err = elf_load(t->us, image, size, args, &user);
	vfree(image);
	if (err)
		goto fail;
	build_kernel_stack(t, &user);

	current = t;
	user_work_signal();	/* a new task on this CPU: look at its signals */
	uspace_activate(t->us);
	perf_event_exec(t);		/* COMM and MMAP records of the new program */
	tss_set_rsp0((uint64_t)t->kstack_top);
	syscall_kernel_rsp = (uint64_t)t->kstack_top;
	wrmsr(MSR_FS_BASE, 0);
	fpu_reset();
	t->start_tsc = rdtsc();
	context_switch(&scheduler_rsp, t->kernel_rsp);

	/* Back here when the task has exited (task_exit left interrupts off);
	 * its stack is no longer in use. The kernel's own work between
	 * programs runs with interrupts on, visible to CPU-wide samplers. */
	current = NULL;
	sti();
	uspace_activate(NULL);
	int status = t->exit_status;
	printk("== exit %s status=%d\n", t->comm, status);
	task_free(t);
	return status;
fail:
	printk("pmuos: cannot start %s: error %d\n", path, err);
	printk("== exit %s status=%d\n", t ? t->comm : "?", 127);
	if (t)
		task_free(t);
	return 127;
}

__noreturn void task_exit(int status)
{
	struct task *t = current;

	cli();
	t->exit_status = status;
	t->exiting = true;
	perf_log_task_exit(t);	/* PERF_RECORD_EXIT */
	context_switch(&t->kernel_rsp, scheduler_rsp);
	panic("an exited task was resumed");
}

/* A page fault on user memory, counted as Linux counts it: every fault is a
 * page-fault, each one resolved a minor one (there is no disk: no major).
 * 0, -EFAULT (no mapping allows it), or -ENOMEM (no frame for it). */
static int user_page_fault(struct pt_regs *regs, uint64_t addr)
{
	perf_sw_event(PERF_COUNT_SW_PAGE_FAULTS, 1, regs, addr);
	if (!current || addr >= USER_END)
		return -EFAULT;
	int err = uspace_fault(current->us, addr, regs->error_code & PF_WRITE,
			       regs->error_code & PF_INSTR);
	if (!err)
		perf_sw_event(PERF_COUNT_SW_PAGE_FAULTS_MIN, 1, regs, addr);
	return err;
}

bool task_kernel_fault_on_user(struct pt_regs *regs, uint64_t addr)
{
	return user_page_fault(regs, addr) == 0;
}

void task_user_exception(struct pt_regs *regs)
{
	if (regs->vector == X86_TRAP_PF) {
		int err = user_page_fault(regs, read_cr2());
		if (!err)
			return;
		if (err == -EIO) {	/* a file mapping past the file's end */
			siginfo_t bus = { .si_signo = SIGBUS, .si_code = BUS_ADRERR,
					  .si_addr = (void *)read_cr2() };
			signal_force(current, SIGBUS, &bus);
			return;
		}
		if (err == -ENOMEM) {
			/* Linux's VM_FAULT_OOM: the OOM killer's SIGKILL, and
			 * this task is the only one to choose. */
			printk("pmuos: %s[%d]: out of memory\n", current->comm, current->pid);
			signal_force(current, SIGKILL, NULL);
			return;
		}
	}
	if (regs->vector == X86_TRAP_DB && itrace_debug_trap(regs))
		return;			/* the tracer's single step */
	if (pmu_sim_rdpmc(regs))	/* user RDPMC under the PMU model */
		return;
	signal_from_exception(regs);
}

static void wake(struct timer *t, struct pt_regs *regs)
{
}

int task_wait(bool (*cond)(void *arg), void *arg, uint64_t deadline)
{
	struct timer timer = { .fn = wake };
	bool switched = false;
	int ret;

	if (deadline)
		timer_add(&timer, deadline);
	for (;;) {
		cli();
		if (cond && cond(arg)) {
			ret = 0;
			break;
		}
		if (deadline && rdtsc() >= deadline) {
			ret = -ETIMEDOUT;
			break;
		}
		if (signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		/* Linux would switch to idle here: one context switch. */
		if (!switched) {
			context_switches++;
			perf_sw_event(PERF_COUNT_SW_CONTEXT_SWITCHES, 1, NULL, 0);
			perf_event_switch(current, true);	/* PERF_RECORD_SWITCH out */
		}
		switched = true;
		/* STI's shadow: no interrupt slips in between the checks and HLT. */
		uint64_t t0 = rdtsc();
		pmu_sim_halt(true);	/* the PMU model counts no halted time */
		sti_hlt();
		pmu_sim_halt(false);
		current->idle_tsc += rdtsc() - t0;
		idle_tsc_total += rdtsc() - t0;
	}
	if (switched)
		perf_event_switch(current, false);	/* and back in */
	timer_del(&timer);
	sti();
	return ret;
}
