; The only instructions that touch user memory (uaccess.c checks ranges first). Each may fault; the exception
; table (.extable, see traps.c) sends the fault to a fixup that returns -EFAULT.
; SMAP is opened (STAC) only around the access.
bits 64
default rel

%include "smap.inc"
EFAULT equ 14

%define SMAP_OPEN SMAP_SITE stac
%define SMAP_CLOSE SMAP_SITE clac

section .text

; int __copy_user(void *dst, const void *src, size_t n): 0 or -EFAULT
global __copy_user
__copy_user:
	SMAP_OPEN
	mov rcx, rdx
	shr rcx, 3
.copy8:	rep movsq			; eight bytes a step, then the rest
	mov ecx, edx
	and ecx, 7
.copy:	rep movsb
	SMAP_CLOSE
	xor eax, eax
	ret
.copy_fault:
	SMAP_CLOSE
	mov eax, -EFAULT
	ret

; One u64 from user memory in one MOV (uaccess.h's get_user_u64; its
; put_user_u64 is inline). The caller checked the address.
; int __get_user_8(uint64_t *dst, const uint64_t *usrc): 0 or -EFAULT
global __get_user_8
__get_user_8:
	SMAP_OPEN
.get:	mov rax, [rsi]
	SMAP_CLOSE
	mov [rdi], rax
	xor eax, eax
	ret
.get_fault:
	SMAP_CLOSE
	mov eax, -EFAULT
	ret

; int __get_user_4(uint32_t *dst, const uint32_t *usrc): 0 or -EFAULT
global __get_user_4
__get_user_4:
	SMAP_OPEN
.get:	mov eax, [rsi]
	SMAP_CLOSE
	mov [rdi], eax
	xor eax, eax
	ret
.get_fault:
	SMAP_CLOSE
	mov eax, -EFAULT
	ret

; int __clear_user(void *dst, size_t n): 0 or -EFAULT
global __clear_user
__clear_user:
	SMAP_OPEN
	mov rcx, rsi
	shr rcx, 3
	xor eax, eax
.clear8: rep stosq
	mov ecx, esi
	and ecx, 7
.clear:	rep stosb
	SMAP_CLOSE
	ret
.clear_fault:
	SMAP_CLOSE
	mov eax, -EFAULT
	ret

; long __strncpy_user(char *dst, const char *src, size_t n): the length of the
; string copied with its NUL, n if no NUL came within n bytes, or -EFAULT.
global __strncpy_user
__strncpy_user:
	SMAP_OPEN
	xor eax, eax
.next:	cmp rax, rdx
	je .done
.load:	movzx ecx, byte [rsi + rax]
	mov [rdi + rax], cl
	inc rax
	test ecx, ecx
	jnz .next
.done:	SMAP_CLOSE
	ret
.load_fault:
	SMAP_CLOSE
	mov rax, -EFAULT
	ret

section .extable
align 8
	dq __copy_user.copy8, __copy_user.copy_fault
	dq __copy_user.copy, __copy_user.copy_fault
	dq __clear_user.clear8, __clear_user.clear_fault
	dq __clear_user.clear, __clear_user.clear_fault
	dq __get_user_8.get, __get_user_8.get_fault
	dq __get_user_4.get, __get_user_4.get_fault
	dq __strncpy_user.load, __strncpy_user.load_fault
