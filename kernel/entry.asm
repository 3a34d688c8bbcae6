; Kernel entry and exit: one stub per IDT vector, all joining one path that
; saves a struct pt_regs (traps.h) and calls trap_dispatch().
bits 64
default rel

extern trap_dispatch
extern smap_enabled

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
%macro CLEAR_AC 0
	test byte [smap_enabled], 1
	jz %%done
	clac
%%done:
%endmacro

; ---- The simulated PMU's privilege split (kernel/pmu/sim_ring.c) ----
; Each entry from user mode reports the TSC of its first kernel instruction,
; each return the TSC of the first user instruction: RDTSC's value corrected
; by the instructions between it and the ring change. Under QEMU -icount an
; instruction is a TSC tick, so these counts are the model's constants:
; change the code below and they change with it.
extern pmu_sim_kernel_entry
extern pmu_sim_user_return
extern pmu_sim_user_tsc
extern pmu_sim_exit_abs
extern pmu_sim_exit_rel
extern pmu_sim_exit_timer
PT_REGS_CS equ 18 * 8			; struct pt_regs (traps.h)
TRAP_ENTRY_INSNS equ 3 + 15		; a stub, PUSH_REGS
SYSCALL_ENTRY_INSNS equ 2 + 7 + 15	; the stack switch, the frame, PUSH_REGS
USER_RETURN_INSNS equ 16 + 17		; PMU_USER_RETURN from RDTSC; POP_REGS, RSP, SYSRET/IRET
USER_RETURN_AFTER_STORE equ 1 + 17	; its store; POP_REGS, RSP, SYSRET/IRET

; RAX = the TSC, with every register saved already.
%macro PMU_STAMP 0
	rdtsc
	shl rdx, 32
	or rax, rdx
%endmacro

; Last thing before POP_REGS on a return to user mode, interrupts off: the
; C hook, then the stamp and the LAPIC arming that lands the model's PMI on
; its instruction: count = min(abs - first user TSC, rel) + the instructions
; from the store on (sim_ring.c folded in the LAPIC's own lag). Straight-line
; code: its length is USER_RETURN_INSNS whatever the values.
%macro PMU_USER_RETURN 0
	call pmu_sim_user_return
	PMU_STAMP				; 1-3
	add rax, USER_RETURN_INSNS		; 4: the first user instruction's TSC
	mov [rel pmu_sim_user_tsc], rax		; 5
	mov rcx, [rel pmu_sim_exit_abs]		; 6
	sub rcx, rax				; 7
	mov rdx, [rel pmu_sim_exit_rel]		; 8
	cmp rcx, rdx				; 9
	cmovg rcx, rdx				; 10
	add rcx, USER_RETURN_AFTER_STORE	; 11
	mov edx, 1				; 12
	cmp rcx, rdx				; 13
	cmovl rcx, rdx				; 14: at least 1: 0 stops the timer
	mov rdx, [rel pmu_sim_exit_timer]	; 15: APIC_TIMER_INIT, or a dummy
	mov [rdx], ecx				; 16
%endmacro

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
	jmp trap_common
%assign v v + 1
%endrep

trap_common:
	PUSH_REGS
	PMU_STAMP			; before CLEAR_AC: its length depends on SMAP
	lea rbx, [rax - TRAP_ENTRY_INSNS]	; the entry's TSC (rbx is saved above)
	CLEAR_AC
	cld
	test byte [rsp + PT_REGS_CS], 3
	jz .dispatch
	mov rdi, rbx
	call pmu_sim_kernel_entry
.dispatch:
	mov rdi, rsp
	mov rsi, rbx
	call trap_dispatch
global trap_return
trap_return:
	cli				; IRET restores IF
	test byte [rsp + PT_REGS_CS], 3
	jz .iret
	PMU_USER_RETURN
.iret:
	POP_REGS
	add rsp, 16			; vector and error code
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
; user's; SFMASK has cleared IF, TF, DF and AC. One CPU and no per-CPU data,
; so plain variables hold the stacks and no SWAPGS is needed.
extern syscall_dispatch
extern syscall_kernel_rsp
GDT_USER_DS equ 0x2b
GDT_USER_CS equ 0x33

section .bss
syscall_user_rsp: resq 1

section .text
global syscall_entry
syscall_entry:
	mov [rel syscall_user_rsp], rsp
	mov rsp, [rel syscall_kernel_rsp]
	push GDT_USER_DS		; the same frame an interrupt from user mode builds
	push qword [rel syscall_user_rsp]
	push r11
	push GDT_USER_CS
	push rcx
	push rax			; error_code slot: the syscall number
	push -1				; vector: none
	PUSH_REGS
	PMU_STAMP
	lea rdi, [rax - SYSCALL_ENTRY_INSNS]
	call pmu_sim_kernel_entry
	mov rdi, rsp
	call syscall_dispatch		; true when SYSRET may return
	cli
	test eax, eax
	jz trap_return			; IRET restores everything exactly
	PMU_USER_RETURN
	POP_REGS			; RCX = RIP and R11 = RFLAGS, as checked
	mov rsp, [rsp + 40]		; the user RSP (after vector, error, rip, cs, rflags)
	o64 sysret

; void context_switch(uint64_t *save_rsp, uint64_t load_rsp)
global context_switch
context_switch:
	push rbp
	push rbx
	push r12
	push r13
	push r14
	push r15
	mov [rdi], rsp
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
