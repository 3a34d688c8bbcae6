/* The virtual file system: inodes, mounts, the path walk, and files opened
 * on inodes. Every file system (the RAM root, /dev, /proc, /sys) is a set of
 * inodes with inode_ops; the walk, the permission rules, the errnos and the
 * syscalls are written once, here and in sys_file*.c. */
#pragma once
#include "../kernel.h"

struct file;
struct file_ops;
struct inode;
struct pipe;
struct statfs;

#define NAME_MAX_LEN	255	/* a path component: longer is ENAMETOOLONG */
#define PATH_MAX_LEN	4096	/* a path with its NUL */
#define MAXSYMLINKS	40	/* links followed in one walk, as Linux counts */
#define MAX_LFS_FILESIZE	0x7fffffffffffffffl	/* the largest file size (s_maxbytes) */

/* Timestamps as stat(2) gives them. */
struct vfs_time {
	int64_t sec;
	long nsec;
};

/* A mounted file system. */
struct super_block {
	const char *type;		/* /proc/mounts' fstype: "rootfs", "proc" ... */
	const char *source;		/* /proc/mounts' device column */
	long magic;			/* statfs f_type: RAMFS_MAGIC, PROC_SUPER_MAGIC ... */
	uint32_t dev;			/* st_dev, an anonymous device (0:N) */
	bool read_only_names;		/* no create, unlink, rename (proc, sys) */
	bool lookup_final;		/* a name not found is ENOENT, never one to
					 * create (proc: its lookups fail so) */
	int mnt_id;			/* /proc/PID/mountinfo's and fdinfo's mount id */
	struct inode *root;
	struct inode *mountpoint;	/* the directory it covers; NULL for / */
	uint64_t next_ino;
	/* Names of its files in /proc/PID/fd links ("pipe:[INO]"), for file
	 * systems nothing can be looked up in (Linux's d_dname); NULL: paths. */
	long (*dname)(struct inode *n, char *buf, size_t size);
	struct super_block *next;	/* in mount order, for /proc/mounts */
};

/*
 * An emit callback for iterate: one directory entry with the position after
 * it (getdents64's d_off); false stops the listing (the buffer is full).
 */
typedef bool (*dir_emit_t)(void *ctx, const char *name, size_t len, uint64_t ino,
			   unsigned char dtype, long next);

/*
 * What a file system does with its inodes. Every op may be NULL where the
 * inode's type cannot have it; the VFS checks types, names and permissions
 * before it calls, so an op sees a valid request on the right kind of inode.
 * Names are not NUL-terminated: (name, len), len <= NAME_MAX_LEN, never "."
 * or "..".
 */
struct inode_ops {
	/* Directories. lookup: the child named, referenced, or -ENOENT. */
	int (*lookup)(struct inode *dir, const char *name, size_t len, struct inode **out);
	/* List from pos: 0 is ".", 1 is "..", then the children; 0 or an errno. */
	int (*iterate)(struct inode *dir, long pos, dir_emit_t emit, void *ctx);
	/* Make a new node (regular, directory, device, fifo, socket, or a
	 * symlink to target) under a name the VFS has checked is free. */
	int (*create)(struct inode *dir, const char *name, size_t len, unsigned mode,
		      uint32_t rdev, const char *target, struct inode **out);
	/* A new name for an existing non-directory inode. */
	int (*link)(struct inode *dir, const char *name, size_t len, struct inode *target);
	/* Drop a name; the VFS has checked emptiness for directories. */
	int (*unlink)(struct inode *dir, const char *name, size_t len);
	/* Move old to new (flags: RENAME_NOREPLACE, RENAME_EXCHANGE), the VFS
	 * having checked every rule that does not depend on the fs. */
	int (*rename)(struct inode *odir, const char *oname, size_t olen,
		      struct inode *ndir, const char *nname, size_t nlen, unsigned flags);
	/* Symlinks: the target into buf (not terminated past len); its length. */
	long (*readlink)(struct inode *n, char *buf, size_t size);
	/* A magic link (/proc/PID/fd/N, cwd): the node itself, referenced,
	 * which the walk takes instead of resolving the text (Linux's
	 * proc_get_link); -ENOENT when there is none to take. */
	int (*get_link)(struct inode *n, struct inode **out);
	/* Regular files: a new size, zero-filled when it grows. */
	int (*truncate)(struct inode *n, uint64_t size);
	/* Set up an open file: its ops, priv. Without it the inode's fops. */
	int (*open)(struct inode *n, struct file *f);
	/* The last reference is gone: free what the fs keeps for it. */
	void (*evict)(struct inode *n);
};

struct inode {
	uint64_t ino;
	unsigned mode;			/* S_IFMT and permission bits */
	unsigned nlink;
	uint32_t uid, gid;
	uint32_t rdev;			/* devices: Linux's new_encode_dev */
	uint64_t size;
	uint64_t blocks;		/* st_blocks: 512-byte units held */
	struct vfs_time atime, mtime, ctime, btime;
	int refs;			/* walks, open files, cwds, the fs itself */
	int mmap_shared;		/* shared mappings of its pages */
	const struct inode_ops *ops;
	const struct file_ops *fops;	/* files opened on it, unless ops->open */
	struct super_block *sb;
	/* Directories: the parent (".."; a mounted root's is its mountpoint's
	 * parent), the name in it (for getcwd and /proc paths), and the root of
	 * a file system mounted here. */
	struct inode *parent;
	char *name;
	struct super_block *mounted;
	void *priv;			/* the file system's own */
	struct pipe *pipe;		/* FIFOs and pipes: the buffer while open */
};

/* Inodes */
struct inode *inode_new(struct super_block *sb, unsigned mode, const struct inode_ops *ops,
			const struct file_ops *fops);
void inode_get(struct inode *n);
void inode_put(struct inode *n);
/* Set a directory's parent and name (taking a reference on the parent). */
int inode_set_name(struct inode *dir, struct inode *parent, const char *name, size_t len);
void inode_touch(struct inode *n, bool mtime, bool ctime);
struct vfs_time vfs_now(void);
/* Inodes alive, for /sys/kernel/pmuos/accounting. */
extern long inodes_alive;

static inline bool inode_is_dir(const struct inode *n) { return (n->mode & 0170000) == 0040000; }
static inline bool inode_is_reg(const struct inode *n) { return (n->mode & 0170000) == 0100000; }
static inline bool inode_is_link(const struct inode *n) { return (n->mode & 0170000) == 0120000; }

/* Mounts */
struct super_block *sb_new(const char *type, const char *source, long magic);
/* Mount sb on the directory at path (absolute, existing). */
int vfs_mount(struct super_block *sb, const char *path);
/* The root file system: sb becomes "/". */
void vfs_set_root(struct super_block *sb);
struct inode *vfs_root(void);
extern struct super_block *vfs_mounts;	/* "/" first, then in mount order */

/* The path walk */
enum { LAST_NORM, LAST_ROOT, LAST_DOT, LAST_DOTDOT };
#define LOOKUP_FOLLOW		0x1	/* follow a symlink in the last component */
#define LOOKUP_DIRECTORY	0x2	/* the result must be a directory */
#define LOOKUP_EMPTY		0x4	/* "" names the start directory (AT_EMPTY_PATH) */

/* The parent of a path's last component, for create, unlink, rename. */
struct nameidata {
	struct inode *dir;		/* referenced */
	const char *last;		/* points into the path given */
	size_t len;
	int type;			/* LAST_* */
	bool trailing_slash;
};

/* Where relative paths start: the task's cwd for AT_FDCWD, else dirfd's
 * directory (EBADF, ENOTDIR). Referenced. */
int vfs_start(int dirfd, const char *path, struct inode **out);
/* Walk path (a kernel string) from start to the node it names. 0 or
 * -ENOENT, -ENOTDIR, -ENAMETOOLONG, -ELOOP. */
int vfs_walk(struct inode *start, const char *path, unsigned flags, struct inode **out);
/* Walk to the parent of the last component. */
int vfs_walk_parent(struct inode *start, const char *path, struct nameidata *nd);
/* Where a walk's last node was found: its directory (referenced, NULL if
 * none: "/", ".", "..") and its name there. */
struct vfs_found {
	struct inode *dir;
	char name[NAME_MAX_LEN + 1];
};
int vfs_walk_found(struct inode *start, const char *path, unsigned flags, struct inode **out,
		   struct vfs_found *found);
int vfs_lookup_found(int dirfd, const char *path, unsigned flags, struct inode **out,
		     struct vfs_found *found);
/* The two above from a dirfd and a kernel path. */
int vfs_lookup_at(int dirfd, const char *path, unsigned flags, struct inode **out);
int vfs_parent_at(int dirfd, const char *path, struct nameidata *nd);
/* The child named in a directory (mounts crossed), referenced. */
int vfs_child(struct inode *dir, const char *name, size_t len, struct inode **out);
/* The absolute path of a directory (getcwd) or of a node reached from dir
 * by name: its length with the NUL, -ENAMETOOLONG, -ENOENT if unlinked. */
long vfs_path_of(struct inode *dir, char *buf, size_t size);
/* A path buffer of PATH_MAX_LEN for one call (NULL: no memory), and back. */
char *path_alloc(void);
void path_free(char *buf);
/* A user path into a kernel buffer of PATH_MAX_LEN: 0, -EFAULT,
 * -ENAMETOOLONG, -ENOENT for "" unless empty_ok. */
long vfs_get_user_path(char *buf, const char *upath, bool empty_ok);

/* Namespace operations on kernel paths, with Linux's checks and errnos. */
/* A new node: mode's type picks it (S_IFDIR: mkdir; S_IFLNK: a symlink to
 * target; S_IFREG, S_IFCHR ...: mknod). out, if not NULL, gets it referenced. */
int vfs_mknod(int dirfd, const char *path, unsigned mode, uint32_t rdev, const char *target,
	      struct inode **out);
int vfs_unlink(int dirfd, const char *path, bool rmdir);
/* A new name at path for old (not a directory). */
int vfs_link(struct inode *old, int dirfd, const char *path);
int vfs_rename(int odirfd, const char *opath, int ndirfd, const char *npath, unsigned flags);

/* Files on inodes */
/* A new open file on n (its fops or ops->open), taking a reference on n. */
int vfs_open_inode(struct inode *n, unsigned flags, struct file **out);
/* The absolute path of an open file, as /proc/PID/fd and MMAP records show
 * it (" (deleted)" after its last name is gone): the length with the NUL,
 * or an errno. */
long vfs_file_path(struct file *f, char *buf, size_t size);
/* Remember where f was found, for vfs_file_path (takes found->dir). */
int vfs_file_set_path(struct file *f, struct vfs_found *found);
/* generic_file_llseek for a file of size bytes, with SEEK_DATA and
 * SEEK_HOLE answered as for a file without holes (Linux's default). */
long vfs_llseek(struct file *f, long off, int whence, long size);
/* Directories of every file system (getdents64 over ops->iterate). */
extern const struct file_ops vfs_dir_file_ops;
/* statfs of the fs holding n. */
void vfs_statfs(struct inode *n, struct statfs *st);
