/* A process's timers (itimer.c): alarm, setitimer, POSIX timers. */
#pragma once
#include "kernel.h"

struct task;

/* exec: the POSIX timers go; alarm and the interval timers stay. */
void itimers_exec(struct task *t);
/* The process of leader has ended: every timer goes. */
void itimers_exit(struct task *leader);
/* POSIX timers and timerfds alive (accounting). */
extern long posix_timers_alive, timerfds_alive;
