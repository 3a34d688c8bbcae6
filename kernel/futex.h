/* Futexes: waits on a word of user memory, wakes by address. */
#pragma once
#include "kernel.h"

struct uspace;

/* Wake up to n waiters on addr in us whose bitset meets bitset; the
 * number woken (a thread's exit clears its tid word and wakes one). */
int futex_wake_address(struct uspace *us, uint64_t addr, int n, uint32_t bitset);

struct task;
/* At a thread's exit, in its address space: every lock on its robust list
 * (set_robust_list) that it still holds is marked FUTEX_OWNER_DIED and one
 * waiter woken, as Linux's exit_robust_list does. */
void futex_exit_robust_list(struct task *t);
