; Kernel entry and exit: one stub per IDT vector, all joining one path that
; saves a struct pt_regs (traps.h) and calls trap_dispatch(); the two
; syscall entries (fast and full frame); the return to user mode, which runs
; user_exit_work (entry_work.h) and names no feature.
bits 64
default rel

extern trap_dispatch
%include "smap.inc"

; Vectors whose exception pushes an error code (SDM Vol. 3A 6.13).
%define HAS_ERROR_CODE(v) ((v) == 8 || ((v) >= 10 && (v) <= 14) || (v) == 17 || (v) == 21 || (v) == 29 || (v) == 30)

%macro PUSH_REGS 0
	push rdi
	push rsi
	push rdx
	push rcx
	push rax
	push r8
	push r9
	push r10
	push r11
	push rbx
	push rbp
	push r12
	push r13
	push r14
	push r15
%endmacro

%macro POP_REGS 0
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbp
	pop rbx
	pop r11
	pop r10
	pop r9
	pop r8
	pop rax
	pop rcx
	pop rdx
	pop rsi
	pop rdi
%endmacro

; User code may have set RFLAGS.AC; the kernel must not run with it set, or
; SMAP would let stray accesses to user memory through. CLAC is #UD without SMAP.
%define CLEAR_AC SMAP_SITE clac

; ---- Stamps for time split by privilege level (entry_work.h) ----
; Each full-frame entry from user mode passes the TSC of its first kernel
; instruction to user_entry_work, each full-frame return stamps the TSC of
; the first user instruction: RDTSC's value corrected by the instructions
; between it and the ring change. Under QEMU -icount an instruction is a TSC
; tick, so these counts are constants a subscriber (the simulated PMU) relies
; on: change the code below and they change with it.
extern user_entry_work
extern user_exit_work
; struct cpu (percpu.h) at GS:0 in the kernel, field by field
CPU_SYSCALL_RSP equ 8
CPU_USER_RSP equ 16
CPU_USER_WORK equ 24
CPU_USER_RETURN_TSC equ 32
CPU_USER_RETURN_TIMER_ABS equ 40
CPU_USER_RETURN_TIMER_REL equ 48
CPU_USER_RETURN_TIMER_REG equ 56
MSR_GS_BASE equ 0xc0000101
; struct pt_regs (traps.h), slot by slot
PT_R15 equ 0
PT_R14 equ 1 * 8
PT_R13 equ 2 * 8
PT_R12 equ 3 * 8
PT_RBP equ 4 * 8
PT_RBX equ 5 * 8
PT_R11 equ 6 * 8
PT_R10 equ 7 * 8
PT_R9 equ 8 * 8
PT_R8 equ 9 * 8
PT_RAX equ 10 * 8
PT_RCX equ 11 * 8
PT_RDX equ 12 * 8
PT_RSI equ 13 * 8
PT_RDI equ 14 * 8
PT_VECTOR equ 15 * 8
PT_ERROR equ 16 * 8
PT_RIP equ 17 * 8
PT_CS equ 18 * 8
PT_RFLAGS equ 19 * 8
PT_RSP equ 20 * 8
PT_SS equ 21 * 8
TRAP_ENTRY_INSNS equ 3 + 15		; a stub, PUSH_REGS
SYSCALL_ENTRY_INSNS equ 3 + 7 + 15	; SWAPGS and the stack switch, the frame, PUSH_REGS
USER_RETURN_INSNS equ 16 + 18		; EXIT_STAMP from RDTSC; POP_REGS, RSP, SWAPGS, SYSRET/IRET
USER_RETURN_AFTER_STORE equ 1 + 18	; its store; POP_REGS, RSP, SWAPGS, SYSRET/IRET
X86_EFLAGS_TF equ 1 << 8

; RAX = the TSC, with every register saved already.
%macro ENTRY_STAMP 0
	rdtsc
	shl rdx, 32
	or rax, rdx
%endmacro

; Last thing before POP_REGS on a full-frame return to user mode, interrupts
; off, after user_exit_work: the stamp, and the timer store that lands an
; interrupt on an exact user instruction: count = min(abs - first user TSC,
; rel) + the instructions from the store on. Straight-line code: its length
; is USER_RETURN_INSNS whatever the values.
%macro EXIT_STAMP 0
	ENTRY_STAMP				; 1-3
	add rax, USER_RETURN_INSNS		; 4: the first user instruction's TSC
	mov [gs:CPU_USER_RETURN_TSC], rax	; 5
	mov rcx, [gs:CPU_USER_RETURN_TIMER_ABS]	; 6
	sub rcx, rax				; 7
	mov rdx, [gs:CPU_USER_RETURN_TIMER_REL]	; 8
	cmp rcx, rdx				; 9
	cmovg rcx, rdx				; 10
	add rcx, USER_RETURN_AFTER_STORE	; 11
	mov edx, 1				; 12
	cmp rcx, rdx				; 13
	cmovl rcx, rdx				; 14: at least 1: 0 stops a LAPIC timer
	mov rdx, [gs:CPU_USER_RETURN_TIMER_REG]	; 15: the timer's count register, or a dummy
	mov [rdx], ecx				; 16
%endmacro

; ---- The GS base (percpu.h) ----
; In the kernel GS points at the CPU's struct cpu; in user mode it is the
; user's (arch_prctl ARCH_SET_GS), and IA32_KERNEL_GS_BASE holds the other.
; Every entry from user mode swaps them with SWAPGS, every return swaps them
; back, always after the entry stamp and before the exit's ring change, so
; the stamps' instruction counts see one SWAPGS on the way out only.
; Ordinary vectors decide by the saved CS: they cannot arrive while the
; kernel runs with the user's GS (the SYSCALL entry and the exits keep
; interrupts off there and touch no memory that could fault). NMI, #DF, #MC
; and #DB can (vectors 2, 8, 18 and 1, the "paranoid" ones; #DB through a
; kernel data breakpoint on the stack IRETQ reads): they read the GS base
; itself, which is a kernel address exactly when it is the kernel's
; (arch_prctl refuses kernel addresses and CR4.FSGSBASE is off, so user
; mode cannot set one), and swap back on their way out only if they
; swapped on their way in. Their entry stamp comes before the test, as the
; others', so the stamps' counts are the same on both paths.
%define PARANOID(v) ((v) == 1 || (v) == 2 || (v) == 8 || (v) == 18)

section .text

%assign v 0
%rep 256
align 16
isr_stub_ %+ v:
%if HAS_ERROR_CODE(v) == 0
	push 0
%else
	nop				; every stub three instructions: TRAP_ENTRY_INSNS
%endif
	push v
%if PARANOID(v)
	jmp paranoid_common
%else
	jmp trap_common
%endif
%assign v v + 1
%endrep

trap_common:
	PUSH_REGS
	ENTRY_STAMP			; before CLEAR_AC: its length depends on SMAP
	lea rsi, [rax - TRAP_ENTRY_INSNS]	; the entry's TSC
	test byte [rsp + PT_CS], 3
	jz .kernel_gs
	swapgs
.kernel_gs:
	CLEAR_AC
	cld
	mov rdi, rsp
	call trap_dispatch
global trap_return
trap_return:
	cli				; IRET restores IF
	test byte [rsp + PT_CS], 3
	jz .kernel
	mov rdi, rsp
	call user_exit_work
	xor eax, eax			; IRET
	jmp return_to_user
.kernel:
	POP_REGS
	add rsp, 16			; vector and error code
	iretq

; NMI, #DF, #MC, #DB: EBX (callee-saved, so kept across trap_dispatch) says
; whether this entry swapped GS.
paranoid_common:
	PUSH_REGS
	ENTRY_STAMP
	lea rsi, [rax - TRAP_ENTRY_INSNS]
	mov ecx, MSR_GS_BASE
	rdmsr				; EDX = the base's high half
	xor ebx, ebx
	test edx, edx
	js .kernel_gs			; a kernel address: the kernel's GS already
	swapgs
	mov ebx, 1
.kernel_gs:
	CLEAR_AC
	cld
	mov rdi, rsp
	call trap_dispatch
	test byte [rsp + PT_CS], 3
	jnz trap_return			; from user mode: it swapped, the exit swaps back
	test ebx, ebx
	jz .no_swap
	swapgs				; interrupted the kernel with the user's GS
.no_swap:
	POP_REGS
	add rsp, 16
	iretq

; A full frame's return to user mode, interrupts off, the exit work done:
; SYSRET when EAX says it may, else IRET. Both tails after EXIT_STAMP are
; 18 instructions (USER_RETURN_INSNS).
return_to_user:
	mov qword [rsp + PT_VECTOR], 0	; no longer a complete syscall frame (see .slow_exit)
	test eax, eax
	jz .iret
	EXIT_STAMP
	POP_REGS			; RCX = RIP and R11 = RFLAGS, as checked
	mov rsp, [rsp + 40]		; the user RSP (after vector, error, rip, cs, rflags)
	swapgs
	o64 sysret
.iret:
	EXIT_STAMP
	POP_REGS
	add rsp, 16
	swapgs
	iretq

section .rodata
align 8
global isr_stubs
isr_stubs:
%assign v 0
%rep 256
	dq isr_stub_ %+ v
%assign v v + 1
%endrep

; SYSCALL (SDM Vol. 2B): RCX = user RIP, R11 = user RFLAGS, RSP still the
; user's; SFMASK has cleared IF, TF, DF and AC. SWAPGS first: the CPU's
; struct cpu holds the kernel stack and a slot for the user RSP.
;
; Two entries (entry_work.c points MSR_LSTAR at one): syscall_entry_full
; builds the whole struct pt_regs and runs the entry and exit work in C
; (syscall_full); syscall_entry, taken while no feature wants entry work,
; saves only what the ABI makes it restore: the argument registers, RIP,
; RFLAGS and RSP, each in its pt_regs slot at the top of the kernel stack.
; The callee-saved registers stay in the CPU (the C code preserves them):
; a syscall that reads or rewrites the whole frame (rt_sigreturn, the
; forks, which copy it, and the execs) has a stub in the fast table that stores them
; first (FULL_FRAME_SYSCALL), and a return with work to do (a signal, a
; feature switched on meanwhile) stores them on its way out (.slow_exit).
; A complete frame is marked by vector = -1 until its return.
extern syscall_full
extern syscall_exit_full
extern syscall_fast_table
extern unknown_syscall
extern syscall_locked
GDT_USER_DS equ 0x2b
GDT_USER_CS equ 0x33
NR_SYSCALLS equ 512

section .text
global syscall_entry_full
syscall_entry_full:
	swapgs
	mov [gs:CPU_USER_RSP], rsp
	mov rsp, [gs:CPU_SYSCALL_RSP]	; the SS slot
	mov qword [rsp], GDT_USER_DS	; the same frame an interrupt from user mode builds
	push qword [gs:CPU_USER_RSP]
	push r11
	push GDT_USER_CS
	push rcx
	push rax			; error_code slot: the syscall number
	push -1				; vector: none, and the frame is complete
	PUSH_REGS
	ENTRY_STAMP
	lea rsi, [rax - SYSCALL_ENTRY_INSNS]
	mov rdi, rsp
	call syscall_full		; true when SYSRET may return
	jmp return_to_user

; The rest of a fast frame, from the registers that still hold it; RSP =
; the frame, RCX and R11 free.
%macro COMPLETE_FRAME 0
	mov [rsp + PT_RBX], rbx
	mov [rsp + PT_RBP], rbp
	mov [rsp + PT_R12], r12
	mov [rsp + PT_R13], r13
	mov [rsp + PT_R14], r14
	mov [rsp + PT_R15], r15
	mov rcx, [rsp + PT_RIP]
	mov [rsp + PT_RCX], rcx		; what SYSCALL left in them
	mov r11, [rsp + PT_RFLAGS]
	mov [rsp + PT_R11], r11
	mov qword [rsp + PT_CS], GDT_USER_CS
	mov qword [rsp + PT_SS], GDT_USER_DS
	mov qword [rsp + PT_VECTOR], -1
%endmacro

global syscall_entry
syscall_entry:
	swapgs
	mov [gs:CPU_USER_RSP], rsp
	mov rsp, [gs:CPU_SYSCALL_RSP]	; the SS slot, written only if the frame is completed
	push qword [gs:CPU_USER_RSP]	; RSP = the frame's RSP slot
	mov [rsp + PT_RFLAGS - PT_RSP], r11
	mov [rsp + PT_RIP - PT_RSP], rcx
	mov [rsp + PT_ERROR - PT_RSP], rax	; the number, for a restart
	mov [rsp + PT_RDI - PT_RSP], rdi
	mov [rsp + PT_RSI - PT_RSP], rsi
	mov [rsp + PT_RDX - PT_RSP], rdx
	mov [rsp + PT_R8 - PT_RSP], r8
	mov [rsp + PT_R9 - PT_RSP], r9
	mov [rsp + PT_R10 - PT_RSP], r10
	sub rsp, PT_RSP			; RSP = the frame
	test r11d, X86_EFLAGS_TF
	jnz .traced			; SYSRET would trap at once: IRET
	cmp rax, NR_SYSCALLS
	jae .unknown
	sti
	mov rcx, r10
	call [syscall_fast_table + rax * 8]
.done:
	cli
	cmp dword [gs:CPU_USER_WORK], 0
	jne .slow_exit
	mov rdi, [rsp + PT_RDI]
	mov rsi, [rsp + PT_RSI]
	mov rdx, [rsp + PT_RDX]
	mov r8, [rsp + PT_R8]
	mov r9, [rsp + PT_R9]
	mov r10, [rsp + PT_R10]
	mov rcx, [rsp + PT_RIP]
	mov r11, [rsp + PT_RFLAGS]
	mov rsp, [rsp + PT_RSP]
	swapgs				; an NMI from here on finds the user's GS (paranoid_common)
	o64 sysret
.unknown:
	sti
	mov rdi, rax
	call unknown_syscall
	jmp .done
.slow_exit:				; RAX = the return value
	cmp qword [rsp + PT_VECTOR], -1
	je .complete
	COMPLETE_FRAME
.complete:
	mov [rsp + PT_RAX], rax
	mov rdi, rsp
	call syscall_exit_full		; true when SYSRET may return
	jmp return_to_user
.traced:
	COMPLETE_FRAME
	mov [rsp + PT_RAX], rax
	mov [rsp + PT_ERROR], rax
	ENTRY_STAMP
	mov rsi, rax			; (no subscriber wants it: their bits are off)
	mov rdi, rsp
	call syscall_full
	jmp return_to_user

; The fast table's entry for a syscall that reads or rewrites the whole
; frame: complete it, call the handler, return through the full exit.
%macro FULL_FRAME_SYSCALL 1
global full_frame_%1
full_frame_%1:
	pop r11				; not back to syscall_entry's .done
	COMPLETE_FRAME
	mov rcx, r10			; the fourth argument again
	call syscall_locked		; %1 inside the kernel lock
	cli
	mov [rsp + PT_RAX], rax
	mov rdi, rsp
	call syscall_exit_full
	jmp return_to_user
%endmacro

FULL_FRAME_SYSCALL sys_rt_sigreturn
FULL_FRAME_SYSCALL sys_fork
FULL_FRAME_SYSCALL sys_vfork
FULL_FRAME_SYSCALL sys_clone
FULL_FRAME_SYSCALL sys_clone3
FULL_FRAME_SYSCALL sys_execve
FULL_FRAME_SYSCALL sys_execveat

; The fast table's entry for a number with no handler: RAX still holds it.
global syscall_unknown_stub
syscall_unknown_stub:
	mov rdi, rax
	jmp unknown_syscall

; void context_switch(uint64_t *save_rsp, uint64_t load_rsp, uint32_t *unlock)
; Frees the kernel lock (*unlock = 0) once the outgoing stack is saved: from
; then on another CPU may resume it (x86 stores are seen in order).
global context_switch
context_switch:
	push rbp
	push rbx
	push r12
	push r13
	push r14
	push r15
	mov [rdi], rsp
	mov dword [rdx], 0
	mov rsp, rsi
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbx
	pop rbp
	ret

; The first return of a new task: its user frame sits right above.
global task_enter_user
task_enter_user:
	jmp trap_return
