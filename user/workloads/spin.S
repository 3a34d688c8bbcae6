/* user/workloads/spin.S: the perf tool tests' known loop. No C library, so
 * its user-mode instruction count is a number written here: _start runs 2,
 * spin 2 * SPIN_TURNS + 1, the exit 3; 2,000,006 in all. Under the simulated
 * PMU, `perf stat -e instructions:u` of it gives exactly that, and `perf
 * record -c 10000` exactly 200 samples, every one inside spin. */
#define SPIN_TURNS 1000000

	.text
	.globl _start
_start:
	mov $SPIN_TURNS, %ecx
	call spin
	mov $60, %eax		/* exit(0) */
	xor %edi, %edi
	syscall

	.globl spin
	.type spin, @function
spin:
1:	dec %rcx
	jnz 1b
	ret
	.size spin, . - spin

	.section .note.GNU-stack, "", @progbits
