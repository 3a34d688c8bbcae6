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
/* Something another task waits for has happened (a futex wake, pipe
 * data, a new task): before returning to user mode, the woken task takes
 * the CPU if it is well behind this one in virtual runtime, else it waits
 * for this one to sleep or for the tick. */
void sched_wakeup(void);
/* sched_yield(2): the next runnable task, this one staying runnable. */
void sched_yield(void);
/* A new task's place: a tick behind its creator, which runs on. */
void sched_place_new(struct task *child);
/* The kernel's own loop (kmain, no task current): run tasks until
 * done(arg) holds, halting while none can run. */
void sched_idle(bool (*done)(void *arg), void *arg);
