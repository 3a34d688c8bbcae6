/* The read-only /sys tree: Linux's view of the registered PMUs
 * (/sys/bus/event_source, /sys/devices/<pmu>) and pmuos's accounting file,
 * generated from live state at every lookup and read, never cached. */
#pragma once
#include "kernel.h"

struct file;
struct pmu;

#define SYSFS_NAME_MAX	64	/* a node's name with its NUL; longer names are cut */
#define SYSFS_DEPTH_MAX	10	/* the deepest: / sys devices system cpu cpu0 cache index0 size */
#define SYSFS_PATH_MAX	512	/* a canonical path with its NUL */
#define SYSFS_FILE_SIZE	4096	/* st_size of every file, as sysfs reports PAGE_SIZE */
#define SYSFS_ST_DEV	0x15	/* st_dev: an anonymous device, like sysfs's 0:21 */

enum sysfs_kind { SYSFS_DIR, SYSFS_FILE, SYSFS_LINK };

/* A path walked as open(2) walks it. parent_found tells O_CREAT that the
 * walk reached the last component with a directory in hand: an -ENOENT is
 * then that component's, and a create would have happened there. */
struct sysfs_lookup {
	char path[SYSFS_PATH_MAX];	/* canonical: absolute, no links, dots or "//" */
	enum sysfs_kind kind;
	unsigned mode;			/* st_mode */
	long size;			/* st_size */
	uint64_t ino;			/* st_ino, also getdents64's d_ino */
	unsigned nlink;			/* st_nlink: 2 + subdirectories for a directory */
	bool parent_found;
	bool trailing_slash;		/* the path ended in '/' */
	bool last_dots;			/* the last component was "." or ".." */
};

/* Walk path (relative ones from base, a canonical directory path, or "/").
 * follow: follow a symlink in the last component too. 0 or -ENOENT,
 * -ENOTDIR, -ENAMETOOLONG (a component over NAME_MAX in "/"), -ELOOP. */
int sysfs_lookup(const char *base, const char *path, bool follow, struct sysfs_lookup *res);
/* The text of the file (or a link's target, without a newline) at a
 * canonical path into buf: its length, or -ENOENT, -EISDIR. At most
 * SYSFS_FILE_SIZE bytes, as a sysfs show() fills at most a page. */
long sysfs_read_text(const char *path, char *buf, size_t size);

/* One directory entry, as getdents64 reports it. */
struct sysfs_dirent {
	char name[SYSFS_NAME_MAX];
	uint64_t ino;
	unsigned char type;		/* DT_DIR, DT_REG, DT_LNK */
};
/* List the directory at a canonical path from position pos: "." is 0, ".."
 * is 1, then the children in order. emit(ctx, entry, next) gets each entry
 * with the position after it and returns false to stop. 0, or -ENOTDIR. A
 * directory that has vanished lists only its dots, as Linux's kernfs does. */
int sysfs_iterate(const char *path, long pos,
		  bool (*emit)(void *ctx, const struct sysfs_dirent *d, long next), void *ctx);

/* /sys/devices/cpu/rdpmc's text: the hardware PMU driver points it at its
 * own state ("0", "1" or "2", Linux's x86_pmu.attr_rdpmc); "1" by default,
 * Linux's: user RDPMC is allowed while the event is mmapped. */
extern const char *sysfs_cpu_rdpmc;

/*
 * Run-time entries of a PMU's events/ directory, for the persistent-event
 * PMU's p<id> files. The driver keeps one of these (static) and registers it
 * once; sysfs then shows events/ even when pmu->events is NULL and lists
 * these after the static ones. entry(i) fills the i-th entry's name
 * (SYSFS_NAME_MAX bytes) and text (without the newline, value_size bytes)
 * and returns true, or false past the last one. It is called at every
 * lookup, listing and read, so what it says is what the tree shows.
 */
struct sysfs_events_source {
	struct pmu *pmu;
	bool (*entry)(long i, char *name, char *value, size_t value_size);
	struct sysfs_events_source *next;
};
void sysfs_add_events_source(struct sysfs_events_source *src);
void sysfs_remove_events_source(struct sysfs_events_source *src);
