; 32-bit protected mode -> 64-bit long mode, then a jump to the higher-half kmain.
; A multiboot2 loader (GRUB, Multiboot2 spec 3.3) or a multiboot1 one (QEMU's
; -kernel, Multiboot spec 3.2) enters here the same way: EAX = the loader's
; magic, EBX = boot info physical address, paging off, interrupts off, no
; usable stack. kmain tells the two infos apart by the magic.
bits 32

KERNEL_VMA   equ 0xffffffff80000000
CR0_PG       equ 1 << 31
CR0_WP       equ 1 << 16
CR4_PAE      equ 1 << 5
MSR_EFER     equ 0xc0000080
EFER_LME     equ 1 << 8
PTE_P        equ 1 << 0
PTE_W        equ 1 << 1
PTE_PS       equ 1 << 7
COM1         equ 0x3f8

section .boot.text progbits alloc exec nowrite
global _start
_start:
	mov esp, boot_stack_top
	mov edi, eax                    ; multiboot1 or 2 magic, kept for kmain
	mov esi, ebx                    ; boot info physical address

	; Long mode needs CPUID 0x80000001 EDX.LM (SDM Vol. 3A 9.8.5).
	mov eax, 0x80000000
	cpuid
	cmp eax, 0x80000001
	jb .no_long_mode
	mov eax, 0x80000001
	cpuid
	test edx, 1 << 29
	jz .no_long_mode

	; Boot page tables: the first GiB identity-mapped (this code runs there)
	; and again at KERNEL_VMA (-2 GiB), both with 2 MiB pages.
	mov eax, boot_pdpt_low
	or eax, PTE_P | PTE_W
	mov [boot_pml4], eax
	mov eax, boot_pdpt_high
	or eax, PTE_P | PTE_W
	mov [boot_pml4 + 511 * 8], eax
	mov eax, boot_pd
	or eax, PTE_P | PTE_W
	mov [boot_pdpt_low], eax
	mov [boot_pdpt_high + 510 * 8], eax
	xor ecx, ecx
.fill_pd:
	mov eax, ecx
	shl eax, 21
	or eax, PTE_P | PTE_W | PTE_PS
	mov [boot_pd + ecx * 8], eax
	inc ecx
	cmp ecx, 512
	jne .fill_pd

	mov eax, cr4
	or eax, CR4_PAE
	mov cr4, eax
	mov eax, boot_pml4
	mov cr3, eax
	mov ecx, MSR_EFER
	rdmsr
	or eax, EFER_LME
	wrmsr
	mov eax, cr0
	or eax, CR0_PG | CR0_WP
	mov cr0, eax

	lgdt [boot_gdt_ptr]
	jmp 0x08:.long_mode

.no_long_mode:
	mov esi, no_lm_msg
.putc:
	lodsb
	test al, al
	jz .halt
	mov dx, COM1
	out dx, al
	jmp .putc
.halt:
	cli
	hlt
	jmp .halt

bits 64
.long_mode:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	xor ax, ax
	mov fs, ax
	mov gs, ax
	mov rax, higher_half
	jmp rax

section .boot.data progbits alloc noexec write
align 8
boot_gdt:
	dq 0
	dq 0x00af9a000000ffff           ; 0x08: 64-bit code, DPL 0
	dq 0x00cf92000000ffff           ; 0x10: data, DPL 0
boot_gdt_ptr:
	dw boot_gdt_ptr - boot_gdt - 1
	dq boot_gdt
no_lm_msg:
	db "pmuos: this CPU has no long mode", 13, 10, 0

section .boot.bss nobits alloc noexec write
align 4096
boot_pml4:      resb 4096
boot_pdpt_low:  resb 4096
boot_pdpt_high: resb 4096
boot_pd:        resb 4096
boot_stack:     resb 4096
boot_stack_top:

; Higher half from here on: the kernel's own GDT and page tables replace the boot ones.
section .text
extern kmain
extern boot_stack_guarded_top
higher_half:
	mov rsp, boot_stack_guarded_top
	xor ebp, ebp                    ; ends frame-pointer backtraces
	; edi = magic, esi = info physical address: kmain's two arguments
	call kmain
.hang:
	cli
	hlt
	jmp .hang
