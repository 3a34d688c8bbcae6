; The application processors' first instructions (smp.c copies this block to
; a page below 1 MiB and sends its page number in the STARTUP IPI): real mode
; at CS:0 = that page, straight into long mode (PAE, EFER.LME, then CR0.PE and
; CR0.PG together, SDM Vol. 3A 10.8.5), then a jump to smp_ap_entry on the
; kernel stack smp.c made for the CPU. smp.c fills the tr_* slots before each
; start (one CPU at a time) and points tr_cr3 at page tables that map this
; page at its physical address and the kernel's upper half as the kernel does.
bits 16

CR0_PE       equ 1 << 0
CR0_WP       equ 1 << 16
CR0_NW       equ 1 << 29
CR0_CD       equ 1 << 30
CR0_PG       equ 1 << 31
CR4_PAE      equ 1 << 5
MSR_EFER     equ 0xc0000080
TR_CODE64    equ 0x08
TR_DATA      equ 0x10

%define TR(label) ((label) - trampoline_start)

section .rodata
align 16
global trampoline_start
trampoline_start:
	cli
	cld
	mov ax, cs
	mov ds, ax
	mov eax, cr4
	or eax, CR4_PAE
	mov cr4, eax
	mov eax, [TR(tr_cr3)]
	mov cr3, eax
	mov ecx, MSR_EFER
	mov eax, [TR(tr_efer)]
	xor edx, edx
	wrmsr
	o32 lgdt [TR(tr_gdt_ptr)]
	mov eax, cr0
	; INIT leaves the caches off (CR0 = 60000010H, SDM Vol. 3A 9.1.1): CD
	; and NW go, or every access of this CPU would go to memory.
	and eax, ~(CR0_CD | CR0_NW)
	or eax, CR0_PE | CR0_PG | CR0_WP
	mov cr0, eax
	jmp far dword [TR(tr_far)]	; CS = the 64-bit code segment: long mode

bits 64
global tr_long
tr_long:
	mov eax, TR_DATA
	mov ds, eax
	mov es, eax
	mov ss, eax
	mov rsp, [rel tr_stack]
	mov rdi, [rel tr_cpu]
	xor ebp, ebp			; ends backtraces
	push 0				; no return address: the ABI's alignment
	jmp [rel tr_entry]

align 8
global tr_gdt
tr_gdt:
	dq 0
	dq 0x00af9a000000ffff		; 0x08: 64-bit code, DPL 0
	dq 0x00cf92000000ffff		; 0x10: data, DPL 0
global tr_gdt_ptr, tr_far, tr_cr3, tr_efer, tr_stack, tr_cpu, tr_entry
tr_gdt_ptr:
	dw 3 * 8 - 1
	dd 0				; the copy's tr_gdt, physical
tr_far:
	dd 0				; the copy's tr_long, physical
	dw TR_CODE64
align 8
tr_cr3:		dq 0			; below 4 GiB
tr_efer:	dq 0			; LME, and NXE and SCE as the boot CPU has them
tr_stack:	dq 0
tr_cpu:		dq 0			; smp_ap_entry's argument: the CPU's struct cpu
tr_entry:	dq 0
global trampoline_end
trampoline_end:
