; The boot loader headers, both in the file's first 8 KiB.
; multiboot2 (Multiboot2 spec 3.1): GRUB loads the ELF by its physical program
; headers. multiboot1 (Multiboot spec 3.1): QEMU's -kernel loads an ELF32 copy
; of the same kernel straight away, with no firmware boot menu and no ISO.
bits 32

MB2_MAGIC        equ 0xe85250d6
MB2_ARCH_I386    equ 0
MB2_TAG_END      equ 0
MB2_TAG_ALIGN    equ 6        ; page-align modules

MB1_MAGIC        equ 0x1badb002
MB1_PAGE_ALIGN   equ 1 << 0   ; modules on page boundaries
MB1_MEMORY_INFO  equ 1 << 1   ; mem_* fields and the memory map
MB1_FLAGS        equ MB1_PAGE_ALIGN | MB1_MEMORY_INFO

section .multiboot
align 8
mb2_header:
	dd MB2_MAGIC
	dd MB2_ARCH_I386
	dd mb2_header_end - mb2_header
	dd -(MB2_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))

	; Modules page-aligned: the loader maps them into user space page by page.
	align 8
	dw MB2_TAG_ALIGN, 0
	dd 8

	align 8
	dw MB2_TAG_END, 0
	dd 8
mb2_header_end:

; No address fields (flag 16 clear): the loader takes the ELF program headers.
align 4
mb1_header:
	dd MB1_MAGIC
	dd MB1_FLAGS
	dd -(MB1_MAGIC + MB1_FLAGS)
