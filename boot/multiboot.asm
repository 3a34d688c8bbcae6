; The multiboot2 header (Multiboot2 spec 3.1): GRUB finds it in the first 32 KiB
; of the file and loads the ELF by its physical program headers.
bits 32

MB2_MAGIC        equ 0xe85250d6
MB2_ARCH_I386    equ 0
MB2_TAG_END      equ 0
MB2_TAG_ALIGN    equ 6        ; page-align modules

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
