/* Stopping the machine: the clean halt at the end of a run, panic and assert. */
#include "panic.h"
#include "console.h"
#include "printk.h"
#include "traps.h"
#include "x86.h"
#include "lib/vsprintf.h"

/* QEMU's isa-debug-exit device (-device isa-debug-exit,iobase=0xf4): QEMU
 * exits with (status << 1) | 1. On a real machine the port write does nothing
 * and the CPU halts. */
#define DEBUG_EXIT_PORT 0xf4

__noreturn void machine_halt(int status)
{
	printk("== halt status=%d\n", status);
	cli();
	console_drain();
	outl(DEBUG_EXIT_PORT, (uint32_t)status);
	for (;;)
		hlt();
}

static void backtrace(uint64_t rbp)
{
	printk("Call Trace:\n");
	/* Frame pointers: [rbp] = caller's rbp, [rbp+8] = return address. Only
	 * follow frames inside the kernel's higher half, to never fault here. */
	for (int depth = 0; depth < 32; depth++) {
		if (rbp < 0xffff800000000000ul || (rbp & 7))
			break;
		uint64_t *frame = (uint64_t *)rbp;
		if (!frame[1])
			break;
		printk(" [<%016lx>]\n", frame[1]);
		rbp = frame[0];
	}
}

static bool panicking;

static __noreturn void panic_end(uint64_t rbp)
{
	backtrace(rbp);
	printk("---[ end Kernel panic ]---\n");
	machine_halt(PANIC_EXIT_STATUS);
}

static void panic_message(const char *fmt, va_list ap)
{
	char buf[256];

	cli();
	if (panicking) {	/* a panic inside a panic: stop at once */
		printk("Kernel panic - not syncing: recursive panic\n");
		outl(DEBUG_EXIT_PORT, PANIC_EXIT_STATUS);
		for (;;)
			hlt();
	}
	panicking = true;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	printk("\nKernel panic - not syncing: %s\n", buf);
}

__noreturn void panic(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	panic_message(fmt, ap);
	va_end(ap);
	panic_end((uint64_t)__builtin_frame_address(0));
}

void dump_regs(const struct pt_regs *r)
{
	printk("RIP: %04lx:%016lx RFLAGS: %08lx\n", r->cs, r->rip, r->rflags);
	printk("RSP: %04lx:%016lx CR2: %016lx CR3: %016lx\n", r->ss, r->rsp,
	       read_cr2(), read_cr3());
	printk("RAX: %016lx RBX: %016lx RCX: %016lx\n", r->rax, r->rbx, r->rcx);
	printk("RDX: %016lx RSI: %016lx RDI: %016lx\n", r->rdx, r->rsi, r->rdi);
	printk("RBP: %016lx R08: %016lx R09: %016lx\n", r->rbp, r->r8, r->r9);
	printk("R10: %016lx R11: %016lx R12: %016lx\n", r->r10, r->r11, r->r12);
	printk("R13: %016lx R14: %016lx R15: %016lx\n", r->r13, r->r14, r->r15);
	printk("vector %lu error code 0x%lx\n", r->vector, r->error_code);
}

__noreturn void panic_regs(const struct pt_regs *regs, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	panic_message(fmt, ap);
	va_end(ap);
	dump_regs(regs);
	panic_end(regs->rbp);
}
