/* The scheduler (sched.c): which task runs, and switching between them. */
#pragma once
#include "kernel.h"

struct task;

/* Enter t into the task list (runnable) / take it out (it is off the CPU). */
void sched_add(struct task *t);
void sched_remove(struct task *t);
/* The task list, by pid: for (t = sched_first(); t; t = t->next). */
struct task *sched_first(void);
/* Give the CPU to the next runnable task, if another can run; back here
 * when this one is picked again. Any context that may sleep. */
void schedule(void);
/* At a return to user mode with a resched asked for (entry_work.c): the
 * running task gives the CPU up when its tick ran out or a sleeper woke. */
void sched_preempt(void);
/* Something another task waits for has happened (a futex wake, pipe
 * data, an exit): look again before returning to user mode. */
void sched_wakeup(void);
/* The kernel's own loop (kmain, no task current): run tasks until
 * done(arg) holds, halting while none can run. */
void sched_idle(bool (*done)(void *arg), void *arg);
