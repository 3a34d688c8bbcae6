/* Tasks: made (task_alloc), started in user mode from a prepared frame,
 * freed when the last of them is gone; the run list's programs started
 * (task_run); the user faults that demand paging resolves. */
#include "task.h"
#include "elf.h"
#include "entry_work.h"
#include "exec.h"
#include "kernel_lock.h"
#include "panic.h"
#include "printk.h"
#include "sched.h"
#include "perf/perf.h"
#include "pmu/itrace.h"
#include "pmu/pmu.h"
#include "pmu/sw.h"
#include "traps.h"
#include "x86.h"
#include "fs/dev.h"
#include "fs/vfs.h"
#include "lib/string.h"
#include "mm/kmalloc.h"
#include "mm/paging.h"
#include "mm/uspace.h"
#include "mm/vmalloc.h"
#include <asm-generic/errno.h>
#include <linux/fcntl.h>

static int next_pid = 1;
int pid_max = 32768;		/* PID_MAX_DEFAULT, Linux's with one CPU */
unsigned long tasks_forked;
unsigned long context_switches;
int last_pid;

void task_enter_user(void);

struct task *task_by_pid(int pid)
{
	for (struct task *t = sched_first(); t; t = t->next)
		if (t->pid == pid)
			return t;
	return NULL;
}

int task_next_pid(int from)
{
	for (struct task *t = sched_first(); t; t = t->next)
		if (t->pid >= from && t->state != TASK_ZOMBIE && t->pid == t->tgid)
			return t->pid;
	return -1;
}

uint64_t task_process_cputime_tsc(const struct task *t)
{
	uint64_t sum = t->leader->dead_threads_tsc;

	for (struct task *s = sched_first(); s; s = s->next)
		if (s->tgid == t->tgid)
			sum += task_cputime_tsc(s);
	return sum;
}

void task_set_comm(struct task *t, const char *name, size_t len)
{
	len = MIN(strnlen(name, len), sizeof(t->comm) - 1);
	memcpy(t->comm, name, len);
	t->comm[len] = '\0';
	perf_event_comm(t, false);	/* PERF_RECORD_COMM */
}

/* The next free pid: Linux hands them out in order, wrapping at pid_max to
 * RESERVED_PIDS (300); 0 when every one is taken. */
static int alloc_pid(void)
{
	for (int tries = 0; tries < pid_max; tries++) {
		if (next_pid >= pid_max)
			next_pid = 300;
		int pid = next_pid++;
		if (!task_by_pid(pid))
			return pid;
	}
	return 0;
}

/* An FXSAVE image of the state a new program starts with (Linux's
 * fpstate_init: x87 control word 0x37f, MXCSR 0x1f80). */
void task_fpu_init(struct task *t)
{
	memset(t->fpu, 0, sizeof(t->fpu));
	*(uint16_t *)&t->fpu[0] = 0x37f;	/* FCW */
	*(uint32_t *)&t->fpu[24] = 0x1f80;	/* MXCSR */
	*(uint32_t *)&t->fpu[28] = 0xffff;	/* MXCSR_MASK */
}

long tasks_alive;

struct task *task_alloc(void)
{
	struct task *t = kzalloc(sizeof(*t));
	int pid = alloc_pid();

	if (!t || !pid || !(t->kstack_top = vmalloc_stack(KSTACK_SIZE))) {
		kfree(t);
		return NULL;
	}
	t->pid = t->tgid = last_pid = pid;
	tasks_alive++;
	t->leader = t;
	t->umask = 022;
	t->exit_signal = SIGCHLD;
	t->start_tsc = rdtsc();
	task_fpu_init(t);
	tasks_forked++;
	return t;
}

void task_free(struct task *t)
{
	signal_release(&t->sig);
	if (t->fds)
		fd_table_put(t->fds);
	if (t->cwd)
		inode_put(t->cwd);
	if (t->us)
		uspace_put(t->us);	/* mappings of perf events hold their files */
	bool context_kept = perf_task_release_context(t);
	vfree_stack(t->kstack_top, KSTACK_SIZE);
	if (!context_kept)
		task_free_memory(t);
	tasks_alive--;
}

void task_free_memory(struct task *t)
{
	kfree(t);
}

/* The initial kernel stack: the user frame at the top, and below it what
 * context_switch pops: six callee-saved registers and task_enter_user. */
void task_build_stack(struct task *t, const struct pt_regs *user)
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

static bool no_tasks_left(void *arg)
{
	return !sched_first();
}

int task_run_init(void)
{
	static const char *const argv[] = { "/init" }, *const envp[] = { "HOME=/", "TERM=linux" };
	const struct exec_args args = { .argc = 1, .argv = argv, .envc = 2, .envp = envp };
	struct task *t = task_alloc();
	int err = -ENOMEM;

	if (!t || !(t->fds = fd_table_new()) || (err = dev_open_console(t->fds)))
		goto fail;
	t->pgid = t->sid = t->pid;	/* pid 1, the session leader of the console */
	t->cpus_allowed = cpus_online_mask();
	if ((err = signal_init(&t->sig)))
		goto fail;
	struct pt_regs *regs = (struct pt_regs *)t->kstack_top - 1;
	if ((err = exec_into(t, argv[0], &args, regs)))
		goto fail;
	task_build_stack(t, regs);
	sched_add(t);
	sched_idle(no_tasks_left, NULL);	/* init, and whatever outlives it */
	return task_init_status;
fail:
	printk("pmuos: cannot run /init: error %d\n", err);
	if (t)
		task_free(t);
	return 127;
}

/* A page fault on user memory, counted as Linux counts it: every fault is a
 * page-fault, at its start (a sample sees the page not yet there), each one
 * resolved a minor one (there is no disk: no major). resolve_fault gives 0,
 * -EFAULT (no mapping allows it), or -ENOMEM (no frame for it). */
static void count_fault(struct pt_regs *regs, uint64_t addr)
{
	perf_sw_event(PERF_COUNT_SW_PAGE_FAULTS, 1, regs, addr);
}

static int resolve_fault(struct pt_regs *regs, uint64_t addr)
{
	if (!current || addr >= USER_END)
		return -EFAULT;
	int err = uspace_fault(current->us, addr, regs->error_code & PF_WRITE,
			       regs->error_code & PF_INSTR);
	if (!err)
		perf_sw_event(PERF_COUNT_SW_PAGE_FAULTS_MIN, 1, regs, addr);
	return err;
}

bool task_user_fault_first(struct pt_regs *regs)
{
	uint64_t addr = read_cr2();

	count_fault(regs, addr);
	if (!kernel_lock_on || addr >= USER_END ||
	    uspace_fault_anon(current->us, addr, regs->error_code & PF_WRITE,
			      regs->error_code & PF_INSTR))
		return false;
	perf_sw_event(PERF_COUNT_SW_PAGE_FAULTS_MIN, 1, regs, addr);
	return true;
}

bool task_kernel_fault_on_user(struct pt_regs *regs, uint64_t addr)
{
	count_fault(regs, addr);
	return resolve_fault(regs, addr) == 0;
}

/* A user page fault was counted by task_user_fault_first. */
void task_user_exception(struct pt_regs *regs)
{
	if (regs->vector == X86_TRAP_PF) {
		int err = resolve_fault(regs, read_cr2());
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

