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
 * for this one to sleep or for the tick. Every other CPU with a sleeping
 * task gets the reschedule IPI and looks at its own queue. */
void sched_wakeup(void);
/* sched_yield(2): the next runnable task, this one staying runnable. */
void sched_yield(void);
/* A new task's place: a tick behind its creator, which runs on. */
void sched_place_new(struct task *child);
/* The kernel's own loop (kmain, no task current; each AP's from smp.c with
 * done NULL): run this CPU's tasks until done(arg) holds, halting while none
 * can run. */
void sched_idle(bool (*done)(void *arg), void *arg);
/* The run queues and the reschedule IPI (after smp_boot_aps). */
void sched_init(void);
/* t's CPU, if another, looks at its queue and t's signals (reschedule
 * IPI): t may be runnable there now, or have a signal to take. */
void sched_kick(struct task *t);
/* sched_setaffinity: t may run on the CPUs of mask (online ones, at least
 * one); off its CPU if that is not among them (at once for current). */
void sched_set_allowed(struct task *t, uint64_t mask);
/* Every CPU that is up, as a mask (bit n: CPU n). */
uint64_t cpus_online_mask(void);
