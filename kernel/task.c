/* The user task. */
#include "task.h"
#include "panic.h"

void task_user_exception(struct pt_regs *regs)
{
	panic_regs(regs, "exception in user mode");
}
