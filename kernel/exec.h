/* execve: a new program in a task. */
#pragma once

struct exec_args;
struct pt_regs;
struct task;

/* Load the program at path into t (current, or a task not yet run) with a
 * fresh address space, and set regs to enter it: Linux's execve from the
 * point of no return on (descriptors closed on exec, handlers reset,
 * comm and exe, COMM and MMAP records). A "#!" script runs its
 * interpreter. 0 or an errno, t unchanged but for the errno. */
int exec_into(struct task *t, const char *path, const struct exec_args *args,
	      struct pt_regs *regs);
/* The same from dirfd with the walk's flags (execveat: AT_EMPTY_PATH, no
 * following a final symlink). */
int exec_at(struct task *t, int dirfd, const char *path, unsigned lookup,
	    const struct exec_args *args, struct pt_regs *regs);
/* The program file's device and inode (/proc/PID/maps, MMAP2), looked up
 * by its path now; 0 and 0 if it is gone. */
void exec_file_id(const struct task *t, uint32_t *dev, uint64_t *ino);
