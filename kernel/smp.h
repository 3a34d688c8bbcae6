/* The application processors: found in the MADT, started with
 * INIT-SIPI-SIPI, parked idle. */
#pragma once
#include "kernel.h"

/* Start every enabled processor the MADT lists (the kernel command line's
 * maxcpus=N caps the count) and wait until each is parked in its idle loop;
 * nr_cpus counts those up. After sti: the waits halt on the timer. */
void smp_boot_aps(void);

/* Run fn(arg) on CPU cpu with its interrupts off, and wait until it has
 * returned (Linux's smp_call_function_single with wait = 1): at once when
 * cpu is this one, else by IPI (IRQ_VECTOR_CALL_FUNCTION). Not from NMI
 * context; from an interrupt handler too (a timer deleting a timer queued on
 * another CPU), as it waits with interrupts off. 0, or -ENXIO for a CPU that
 * is not up. While it waits it runs the calls other CPUs send it, so two
 * CPUs calling each other do not deadlock, nor does a CPU waiting for the
 * kernel lock (kernel_lock.c) hold up its holder. */
int smp_call_function_single(int cpu, void (*fn)(void *arg), void *arg);
/* Run the call another CPU posted to this one, if any (interrupts off):
 * what a CPU spinning for a lock does, so that the holder may wait for it. */
void smp_poll_calls(void);
/* IPIs the CPU has taken (for tests). */
unsigned long smp_calls_taken(int cpu);
