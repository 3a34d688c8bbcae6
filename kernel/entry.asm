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
