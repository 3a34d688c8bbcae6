/* The user task. */
#pragma once

struct pt_regs;

/* An exception raised by user code: becomes a signal. */
void task_user_exception(struct pt_regs *regs);
