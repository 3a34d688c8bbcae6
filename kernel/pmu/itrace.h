/* The itrace PMU (itrace.c): its hooks in the trap and syscall paths. */
#pragma once
#include "../kernel.h"
#include "../traps.h"
#include "../x86.h"

struct itrace;

/* The TF in the user frame was set by itrace at this CPU's last return to
 * user mode, not by the program. */
bool itrace_tf_ours(void);

/* Register the PMU and route #DB to its fast path (perf_init). */
void itrace_init(void);
/* A #DB from user mode (task_user_exception): true when it was itrace's
 * single step and nothing else is due; false for the program's own TF
 * (its SIGTRAP follows), also when itrace records the step too. */
bool itrace_debug_trap(struct pt_regs *regs);
/* Every return to user mode but NMIs', last thing before the registers are
 * restored (after signal delivery): record the instruction about to run
 * when it is a new one, and set TF to trap after it. An entry_work hook. */
void __itrace_user_exit(struct pt_regs *regs);

/* Every entry from user mode but NMIs, before anything reads the frame:
 * itrace's TF is no part of the program's state (sigcontext, sigreturn).
 * An entry_work hook, on while itrace traces or its TF is out. */
void itrace_user_entry(struct pt_regs *regs, uint64_t tsc);
