/* /proc/sys: the kernel's tunables as Linux 6.1 names them. An integer is
 * written as proc_dointvec_minmax takes it (EINVAL for a non-number or one
 * out of range) and takes effect at once; a string as proc_dostring (up to
 * a newline, cut to its size). */
#include "proc.h"
#include "../syscall.h"
#include "../task.h"
#include "../lib/string.h"
#include "../perf/perf.h"
#include <asm-generic/errno.h>
#include <linux/stat.h>
#include <linux/utsname.h>

#define INT_MAX_	0x7fffffffl
#define INT_MIN_	(-INT_MAX_ - 1)
#define PID_MAX_LIMIT	(4 * 1024 * 1024)	/* 64-bit Linux's */

struct sysctl_int {
	int *value;		/* NULL: a value read from get */
	long min, max;
	unsigned long (*get)(void);
	int (*set)(long v);	/* NULL: store into value */
};

static int int_show(const struct proc_node *n, struct seq *s)
{
	const struct sysctl_int *d = n->e->data;

	if (d->get)
		seq_printf(s, "%lu\n", d->get());
	else
		seq_printf(s, "%d\n", *d->value);
	return 0;
}

static long int_store(const struct proc_node *n, const char *buf, size_t len)
{
	const struct sysctl_int *d = n->e->data;
	long v;
	long taken = proc_parse_long(buf, len, d->min, d->max, &v);

	if (taken < 0)
		return taken;
	if (d->set) {
		int err = d->set(v);
		if (err)
			return err;
	} else {
		*d->value = v;
	}
	return taken;
}

static int set_sample_rate(long v)
{
	return perf_set_max_sample_rate(v);
}

struct sysctl_str {
	char *value;
	size_t size;		/* with the NUL */
};

static int str_show(const struct proc_node *n, struct seq *s)
{
	const struct sysctl_str *d = n->e->data;

	seq_printf(s, "%s\n", d->value);
	return 0;
}

static long str_store(const struct proc_node *n, const char *buf, size_t len)
{
	const struct sysctl_str *d = n->e->data;
	size_t k = 0;

	while (k < len && k < d->size - 1 && buf[k] && buf[k] != '\n')
		k++;
	memcpy(d->value, buf, k);
	d->value[k] = '\0';
	return len;
}

static int zero = 0;

#define INT(n, m, v, lo, hi)	{ .name = (n), .mode = S_IFREG | (m), .show = int_show, \
			  .store = (m) & 0200 ? int_store : NULL, .flags = PROC_SYSCTL, \
			  .data = &(const struct sysctl_int){ .value = (v), .min = (lo), .max = (hi) } }
#define STR(n, m, v)	{ .name = (n), .mode = S_IFREG | (m), .show = str_show, \
			  .store = (m) & 0200 ? str_store : NULL, .flags = PROC_SYSCTL, \
			  .data = &(const struct sysctl_str){ (v), sizeof(v) } }

static const struct proc_entry kernel_entries[] = {
	STR("domainname", 0644, system_utsname.domainname),
	STR("hostname", 0644, system_utsname.nodename),
	INT("kptr_restrict", 0644, &proc_kptr_restrict, 0, 2),
	INT("nmi_watchdog", 0444, &zero, 0, 0),
	STR("osrelease", 0444, system_utsname.release),
	STR("ostype", 0444, system_utsname.sysname),
	INT("perf_cpu_time_max_percent", 0644, &perf_sysctl.cpu_time_max_percent, 0, 100),
	INT("perf_event_max_contexts_per_stack", 0644, &perf_sysctl.max_contexts_per_stack,
	    0, 1000),
	{ .name = "perf_event_max_sample_rate", .mode = S_IFREG | 0644, .show = int_show,
	  .store = int_store, .flags = PROC_SYSCTL, .data = &(const struct sysctl_int){
		NULL, 1, INT_MAX_, perf_max_sample_rate, set_sample_rate } },
	INT("perf_event_max_stack", 0644, &perf_sysctl.max_stack, 0, 640 * 1024),
	INT("perf_event_mlock_kb", 0644, &perf_sysctl.mlock_kb, INT_MIN_, INT_MAX_),
	INT("perf_event_paranoid", 0644, &perf_sysctl.paranoid, INT_MIN_, INT_MAX_),
	INT("pid_max", 0644, &pid_max, 301, PID_MAX_LIMIT),
	INT("threads-max", 0644, &max_threads, 1, MAX_THREADS),	/* 1: Linux 5.4 on */
	STR("version", 0444, system_utsname.version),
	{ 0 },
};

const struct proc_entry proc_sys_entries[] = {
	PROC_DIR("kernel", kernel_entries),
	{ 0 },
};
