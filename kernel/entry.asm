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

section .text

%assign v 0
%rep 256
align 16
isr_stub_ %+ v:
%if HAS_ERROR_CODE(v) == 0
	push 0
%endif
	push v
	jmp trap_common
%assign v v + 1
%endrep

trap_common:
	PUSH_REGS
	CLEAR_AC
	cld
	mov rdi, rsp
	call trap_dispatch
global trap_return
trap_return:
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
	mov rdi, rsp
	call syscall_dispatch		; true when SYSRET may return
	cli
	test eax, eax
	jz trap_return			; IRET restores everything exactly
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
