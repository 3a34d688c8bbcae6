/* The /sys tree: a handful of node types that generate their children and
 * text from live state (the PMU list, the allocators' counters), and the path
 * walk that open, stat and readlink share. Nothing is cached, so a lookup or
 * a read sees the state of that moment, and nothing can go stale. */
#include "sysfs.h"
#include "cpu_stats.h"
#include "fd.h"
#include "itimer.h"
#include "pipe.h"
#include "panic.h"
#include "sched.h"
#include "lib/cpulist.h"
#include "lib/string.h"
#include "lib/vsprintf.h"
#include "mm/frames.h"
#include "mm/kmalloc.h"
#include "perf/perf.h"	/* struct perf_stats */
#include "pmu/pmu.h"
#include "task.h"
#include "timer.h"
#include "cpu.h"
#include "mm/uspace.h"
#include "x86.h"
#include "fs/ramfs.h"
#include "fs/vfs.h"
#include <asm-generic/errno.h>
#include <linux/limits.h>
#include <linux/stat.h>

/* d_type values (Linux's include/linux/fs_types.h; not in the UAPI). */
#define DT_DIR		4
#define DT_REG		8
#define DT_LNK		10
#define MAXSYMLINKS	40	/* Linux's limit per path walk */

struct node;

/* What a node is and how it generates what it holds. */
struct node_type {
	enum sysfs_kind kind;
	/* DIR: the i-th child into *out, false past the last. */
	bool (*child)(const struct node *dir, long i, struct node *out);
	/* FILE: its whole text, newline included; LINK: the target, relative
	 * to the link's directory. Returns the length; buf stays terminated. */
	int (*show)(const struct node *n, char *buf, size_t size);
};

/* A node is a small value, made afresh at every walk: no references to
 * drop, and one that has vanished is simply not found next time. */
struct node {
	const struct node_type *type;
	struct pmu *pmu;		/* in the subtree of devices/<pmu> */
	const void *data;		/* the type's own: a child table, an attribute */
	long index;			/* the type's own: an entry of an events source, the
					 * CPU of a cpuN directory (tables pass it down) */
	char name[SYSFS_NAME_MAX];
};

const char *sysfs_cpu_rdpmc = "1";
static struct sysfs_events_source *events_sources;

static void set_name(struct node *n, const char *name)
{
	size_t len = strnlen(name, SYSFS_NAME_MAX - 1);

	memcpy(n->name, name, len);
	n->name[len] = '\0';
}

/* snprintf's length clipped to what buf holds, for appending. */
static int clip(int r, size_t size)
{
	return r < 0 ? 0 : (size_t)r < size ? r : (int)size - 1;
}

/* ---- directories with a fixed table of children ---- */

struct entry {
	const char *name;
	const struct node_type *type;
	const void *data;		/* the child's node->data */
	/* NULL: always there; else whether it is, under this parent. */
	bool (*present)(const struct node *parent, const void *data);
};

static bool table_child(const struct node *dir, long i, struct node *out)
{
	for (const struct entry *e = dir->data; e->name; e++) {
		if (e->present && !e->present(dir, e->data))
			continue;
		if (i-- == 0) {
			*out = (struct node){ .type = e->type, .pmu = dir->pmu, .data = e->data,
					      .index = dir->index };
			set_name(out, e->name);
			return true;
		}
	}
	return false;
}

static const struct node_type table_dir = { SYSFS_DIR, .child = table_child };

/* ---- /sys/kernel/pmuos/accounting ---- */

/* One line per counter, so a new counter is one line here. All are 64-bit
 * integers read through long (an unsigned counterpart may alias it). */
static const struct { const char *name; const long *value; } accounting[] = {
	{ "frames_free",	(const long *)&frame_stats.free },
	{ "frames_total",	(const long *)&frame_stats.total },
	{ "heap_bytes",		(const long *)&heap_stats.bytes },
	{ "heap_objects",	(const long *)&heap_stats.objects },
	{ "files_open",		&files_open },
	{ "perf_events",	&perf_stats.events },
	{ "perf_rings",		&perf_stats.rings },
	{ "perf_aux_areas",	&perf_stats.aux_areas },
	{ "pmu_counters_used",	&x86_pmu_counters_used },
	{ "timers_pending",	&timers_pending },
	{ "pipes",		&pipes_alive },
	{ "eventfds",		&eventfds_alive },
	{ "epolls",		&epolls_alive },
	{ "posix_timers",	&posix_timers_alive },
	{ "timerfds",		&timerfds_alive },
	{ "inodes",		&inodes_alive },
	{ "file_pages",		&ramfs_pages },
	{ "tasks",		&tasks_alive },
	{ "address_spaces",	&uspaces_alive },
};
static_assert(sizeof(frame_stats.free) == sizeof(long), "accounting reads longs");
static_assert(sizeof(heap_stats.bytes) == sizeof(long), "accounting reads longs");

static int accounting_show(const struct node *n, char *buf, size_t size)
{
	int len = 0;

	for (size_t i = 0; i < ARRAY_SIZE(accounting); i++)
		len += clip(snprintf(buf + len, size - len, "%s %ld\n", accounting[i].name,
				     READ_ONCE(*accounting[i].value)), size - len);
	return len;
}

static const struct node_type accounting_file = { SYSFS_FILE, .show = accounting_show };

/* ---- /sys/kernel/pmuos/kernel_lock ---- */

/* Each CPU's acquisitions of the big kernel lock and how many found it
 * held: what a program's syscalls and faults cost in it, and what leaves it
 * (kernel_lock.c). Zero with one CPU, where the lock is off. */
static int kernel_lock_show(const struct node *n, char *buf, size_t size)
{
	int len = 0;

	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		const struct cpu_stats *st = cpu_stats_of(cpu);
		len += clip(snprintf(buf + len, size - len, "cpu%d taken %lu contended %lu\n", cpu,
				     READ_ONCE(st->kernel_lock_taken),
				     READ_ONCE(st->kernel_lock_contended)), size - len);
	}
	return len;
}

static const struct node_type kernel_lock_file = { SYSFS_FILE, .show = kernel_lock_show };

/* ---- /sys/devices/<pmu>/{format,events,caps}/<name> ---- */

/* Which list of struct pmu an attribute directory shows; events/ also lists
 * the run-time entries of the PMU's events sources. */
struct attr_group {
	size_t offset;
	bool dynamic;
};
static const struct attr_group format_group = { offsetof(struct pmu, format), false };
static const struct attr_group events_group = { offsetof(struct pmu, events), true };
static const struct attr_group caps_group = { offsetof(struct pmu, caps), false };

static const struct pmu_attr *group_list(const struct pmu *pmu, const struct attr_group *g)
{
	return *(const struct pmu_attr *const *)((const char *)pmu + g->offset);
}

static bool has_source(const struct pmu *pmu)
{
	for (struct sysfs_events_source *s = events_sources; s; s = s->next)
		if (s->pmu == pmu)
			return true;
	return false;
}

static bool group_present(const struct node *pmu_dir, const void *data)
{
	const struct attr_group *g = data;

	return group_list(pmu_dir->pmu, g) || (g->dynamic && has_source(pmu_dir->pmu));
}

static int attr_show(const struct node *n, char *buf, size_t size)
{
	const struct pmu_attr *a = n->data;

	return clip(snprintf(buf, size, "%s\n", a->value), size);
}

/* A run-time entry: data is its source, index its position there. */
static int source_show(const struct node *n, char *buf, size_t size)
{
	const struct sysfs_events_source *s = n->data;
	char name[SYSFS_NAME_MAX];

	if (size < 2 || !s->entry(n->index, name, buf, size - 1))
		return 0;
	int len = strnlen(buf, size - 2);
	buf[len++] = '\n';
	buf[len] = '\0';
	return len;
}

static const struct node_type attr_file = { SYSFS_FILE, .show = attr_show };
static const struct node_type source_file = { SYSFS_FILE, .show = source_show };

static bool group_child(const struct node *dir, long i, struct node *out)
{
	const struct attr_group *g = dir->data;
	const struct pmu_attr *list = group_list(dir->pmu, g);
	char value[SYSFS_NAME_MAX];

	*out = (struct node){ .pmu = dir->pmu };
	for (; list && list->name; list++) {
		if (i-- == 0) {
			out->type = &attr_file;
			out->data = list;
			set_name(out, list->name);
			return true;
		}
	}
	for (struct sysfs_events_source *s = events_sources; g->dynamic && s; s = s->next) {
		if (s->pmu != dir->pmu)
			continue;
		for (long j = 0; s->entry(j, out->name, value, sizeof(value)); j++) {
			if (i-- == 0) {
				out->type = &source_file;
				out->data = s;
				out->index = j;
				out->name[SYSFS_NAME_MAX - 1] = '\0';
				return true;
			}
		}
	}
	return false;
}

static const struct node_type group_dir = { SYSFS_DIR, .child = group_child };

/* ---- /sys/devices/<pmu> and /sys/bus/event_source/devices/<pmu> ---- */

static int type_show(const struct node *n, char *buf, size_t size)
{
	return clip(snprintf(buf, size, "%d\n", n->pmu->type), size);
}

static int rdpmc_show(const struct node *n, char *buf, size_t size)
{
	return clip(snprintf(buf, size, "%s\n", sysfs_cpu_rdpmc), size);
}

static bool is_cpu_pmu(const struct node *pmu_dir, const void *data)
{
	return !strcmp(pmu_dir->pmu->name, "cpu");
}

static const struct node_type type_file = { SYSFS_FILE, .show = type_show };
static const struct node_type rdpmc_file = { SYSFS_FILE, .show = rdpmc_show };

#define ENTRY(n, t, ...)	{ .name = (n), .type = (t), __VA_ARGS__ }

static const struct entry pmu_entries[] = {
	ENTRY("type", &type_file),
	ENTRY("format", &group_dir, .data = &format_group, .present = group_present),
	ENTRY("events", &group_dir, .data = &events_group, .present = group_present),
	ENTRY("caps", &group_dir, .data = &caps_group, .present = group_present),
	ENTRY("rdpmc", &rdpmc_file, .present = is_cpu_pmu),
	{ 0 },
};

static struct pmu *nth_pmu(long i)
{
	struct pmu *p = perf_pmus;

	while (p && i-- > 0)
		p = p->next;
	return p;
}

/* ---- /sys/devices/system/cpu: a directory per CPU, caches from CPUID ---- */

/* A set of CPUs as a cpulist ("0-3") or a hex mask as wide as the CPUs
 * need ("f"). */
static int show_cpus(uint64_t mask, bool list, char *buf, size_t size)
{
	char text[96];

	if (list)
		cpulist_format(text, sizeof(text), mask);
	else
		cpumask_format(text, sizeof(text), mask, nr_cpus);
	return clip(snprintf(buf, size, "%s\n", text), size);
}

/* Linux's pairs of files: NAME a mask, NAME_list the same as a cpulist. */
static bool names_a_list(const char *name)
{
	size_t len = strlen(name);

	return len >= 5 && !strcmp(name + len - 5, "_list");
}

static int text_show(const struct node *n, char *buf, size_t size)
{
	return clip(snprintf(buf, size, "%s\n", (const char *)n->data), size);
}

static const struct node_type text_file = { SYSFS_FILE, .show = text_show };

/* A cache as CPUID leaf 4 (Intel) or 0x8000001D (AMD, with TOPOEXT) gives
 * it: the same layout (SDM Vol. 2A CPUID; APM Vol. 3 E.4.15). A cache
 * node's index is its CPU times CACHES_MAX plus the cache's subleaf. */
#define CACHES_MAX	16
struct cache_desc {
	unsigned type, level, line, partitions, ways, sets;
};

/* AMD's associativity codes of 8000_0006 (APM Vol. 3 E.4.7). */
static unsigned amd_assoc(unsigned code, unsigned lines)
{
	static const unsigned ways[16] = { 0, 1, 2, 0, 4, 0, 8, 0, 16, 0, 32, 48, 64, 96, 128, 0 };

	return code == 0xf ? lines : ways[code & 0xf];
}

/* Without TOPOEXT, Linux's amd_cpuid4 builds the caches from the legacy
 * leaves 8000_0005 (L1d, L1i) and 8000_0006 (L2, L3): the same here. */
static bool amd_legacy_cache(long i, struct cache_desc *c)
{
	uint32_t a, b, ecx5, edx5, ecx6, edx6;

	if (cpu_caps.max_ext_leaf < 0x80000006)
		return false;
	cpuid_count(0x80000005, 0, &a, &b, &ecx5, &edx5);
	cpuid_count(0x80000006, 0, &a, &b, &ecx6, &edx6);
	uint64_t kb;
	unsigned line, assoc;
	switch (i) {
	case 0:
	case 1: {
		uint32_t r = i ? edx5 : ecx5;
		kb = r >> 24, line = r & 0xff, assoc = (r >> 16) & 0xff;
		*c = (struct cache_desc){ i ? 2 : 1, 1, line, 1, assoc == 0xff ? 0 : assoc, 0 };
		if (assoc == 0xff)
			c->ways = line ? kb * 1024 / line : 0;
		break;
	}
	case 2:
		kb = ecx6 >> 16, line = ecx6 & 0xff;
		*c = (struct cache_desc){ 3, 2, line, 1, 0, 0 };
		c->ways = amd_assoc((ecx6 >> 12) & 0xf, line ? kb * 1024 / line : 0);
		break;
	case 3:
		kb = (uint64_t)(edx6 >> 18) * 512, line = edx6 & 0xff;
		*c = (struct cache_desc){ 3, 3, line, 1, 0, 0 };
		c->ways = amd_assoc((edx6 >> 12) & 0xf, line ? kb * 1024 / line : 0);
		break;
	default:
		return false;
	}
	if (!kb || !line || !c->ways)
		return false;
	c->sets = kb * 1024 / (line * c->ways);
	return true;
}

static bool cache_of(long i, struct cache_desc *c)
{
	uint32_t leaf = cpu_caps.vendor == VENDOR_INTEL ? 4 : 0x8000001d, a, b, cx, d;
	bool topoext = false;

	if (cpu_caps.vendor == VENDOR_AMD && cpu_caps.max_ext_leaf >= 0x80000001) {
		cpuid_count(0x80000001, 0, &a, &b, &cx, &d);
		topoext = cx & (1u << 22);
		if (!topoext)
			return amd_legacy_cache(i, c);
	}
	if (i < 0 || i >= CACHES_MAX || (leaf == 4 ? cpu_caps.max_leaf < 4 : !topoext))
		return false;
	cpuid_count(leaf, i, &a, &b, &cx, &d);
	if (!(a & 0x1f))
		return false;
	*c = (struct cache_desc){ a & 0x1f, (a >> 5) & 7, (b & 0xfff) + 1, ((b >> 12) & 0x3ff) + 1,
				  (b >> 22) + 1, cx + 1 };
	return true;
}

static const char *const cache_attrs[] = {
	"coherency_line_size", "id", "level", "number_of_sets", "physical_line_partition",
	"shared_cpu_list", "shared_cpu_map", "size", "type", "ways_of_associativity",
};

/* The CPUs that share a cache: each core its own L1 and L2, the one
 * package's L3 every CPU (as /proc/cpuinfo describes the machine). */
static uint64_t cache_sharers(const struct cache_desc *c, int cpu)
{
	return c->level >= 3 ? cpus_online_mask() : BIT_ULL(cpu);
}

static int cache_attr_show(const struct node *n, char *buf, size_t size)
{
	static const char *const types[] = { "Null", "Data", "Instruction", "Unified" };
	const char *attr = n->data;
	int cpu = n->index / CACHES_MAX;
	struct cache_desc c;

	if (!cache_of(n->index % CACHES_MAX, &c))
		return clip(snprintf(buf, size, "\n"), size);
	unsigned long v = !strcmp(attr, "coherency_line_size") ? c.line :
		!strcmp(attr, "level") ? c.level : !strcmp(attr, "number_of_sets") ? c.sets :
		!strcmp(attr, "physical_line_partition") ? c.partitions :
		!strcmp(attr, "ways_of_associativity") ? c.ways : 0;
	if (!strcmp(attr, "size"))
		return clip(snprintf(buf, size, "%luK\n", (unsigned long)c.line * c.partitions *
				     c.ways * c.sets / 1024), size);
	if (!strcmp(attr, "type"))
		return clip(snprintf(buf, size, "%s\n", types[c.type & 3]), size);
	if (!strcmp(attr, "shared_cpu_map") || !strcmp(attr, "shared_cpu_list"))
		return show_cpus(cache_sharers(&c, cpu), names_a_list(attr), buf, size);
	if (!strcmp(attr, "id"))	/* Linux's: the core's for a core's cache */
		v = c.level >= 3 ? 0 : cpu;
	return clip(snprintf(buf, size, "%lu\n", v), size);
}

static const struct node_type cache_attr_file = { SYSFS_FILE, .show = cache_attr_show };

static bool cache_index_child(const struct node *dir, long i, struct node *out)
{
	if (i < 0 || i >= (long)ARRAY_SIZE(cache_attrs))
		return false;
	*out = (struct node){ .type = &cache_attr_file, .data = cache_attrs[i],
			      .index = dir->index };
	set_name(out, cache_attrs[i]);
	return true;
}

static const struct node_type cache_index_dir = { SYSFS_DIR, .child = cache_index_child };

static bool cache_child(const struct node *dir, long i, struct node *out)
{
	struct cache_desc c;
	char name[16];

	if (!cache_of(i, &c))
		return false;
	*out = (struct node){ .type = &cache_index_dir, .index = dir->index * CACHES_MAX + i };
	snprintf(name, sizeof(name), "index%ld", i);
	set_name(out, name);
	return true;
}

static const struct node_type cache_dir = { SYSFS_DIR, .child = cache_child };

#define TEXT(n, v)		ENTRY(n, &text_file, .data = (v))

/* One package of single-threaded cores: a CPU's core and thread siblings
 * are itself, its package siblings every CPU. data: whose CPUs, "core" or
 * "package"; the name says mask or list. */
static int topology_mask_show(const struct node *n, char *buf, size_t size)
{
	uint64_t mask = !strcmp(n->data, "core") ? BIT_ULL(n->index) : cpus_online_mask();

	return show_cpus(mask, names_a_list(n->name), buf, size);
}

static const struct node_type topology_mask_file = { SYSFS_FILE, .show = topology_mask_show };

static int core_id_show(const struct node *n, char *buf, size_t size)
{
	return clip(snprintf(buf, size, "%ld\n", n->index), size);
}

static const struct node_type core_id_file = { SYSFS_FILE, .show = core_id_show };

#define MASK(n, of)		ENTRY(n, &topology_mask_file, .data = (of))

static const struct entry topology_entries[] = {
	MASK("core_cpus", "core"), MASK("core_cpus_list", "core"), ENTRY("core_id", &core_id_file),
	MASK("core_siblings", "package"), MASK("core_siblings_list", "package"),
	TEXT("die_id", "0"), TEXT("physical_package_id", "0"), MASK("thread_siblings", "core"),
	MASK("thread_siblings_list", "core"), { 0 },
};
static const struct entry cpuN_entries[] = {
	ENTRY("cache", &cache_dir),
	ENTRY("topology", &table_dir, .data = topology_entries),
	{ 0 },
};
/* Every CPU that came up, as a cpulist ("0", "0-3"): all of them are online,
 * possible and present (no hotplug). */
static int cpus_show(const struct node *n, char *buf, size_t size)
{
	return show_cpus(cpus_online_mask(), true, buf, size);
}

static const struct node_type cpus_file = { SYSFS_FILE, .show = cpus_show };

/* glibc's sysconf(_SC_NPROCESSORS_ONLN) reads online, and the perf tool
 * opens a per-CPU event on each online CPU and reads each one's topology. */
static const struct entry cpu_entries[] = {
	TEXT("kernel_max", "0"), TEXT("offline", ""), ENTRY("online", &cpus_file),
	ENTRY("possible", &cpus_file), ENTRY("present", &cpus_file), { 0 },
};

/* cpu0 .. cpuN-1 (index: the CPU), then the files about them all. */
static bool cpu_dir_child(const struct node *dir, long i, struct node *out)
{
	char name[16];

	if (i >= nr_cpus) {
		struct node files = { .data = cpu_entries };
		return table_child(&files, i - nr_cpus, out);
	}
	*out = (struct node){ .type = &table_dir, .data = cpuN_entries, .index = i };
	snprintf(name, sizeof(name), "cpu%ld", i);
	set_name(out, name);
	return true;
}

static const struct node_type cpu_dir = { SYSFS_DIR, .child = cpu_dir_child };

static const struct entry system_entries[] = { ENTRY("cpu", &cpu_dir), { 0 } };
static const struct entry system_entry = ENTRY("system", &table_dir, .data = system_entries);

/* /sys/devices: the PMUs, then system/. */
static bool devices_child(const struct node *dir, long i, struct node *out)
{
	struct pmu *p = nth_pmu(i);

	if (!p) {
		long pmus = 0;
		for (struct pmu *q = perf_pmus; q; q = q->next)
			pmus++;
		if (i != pmus)
			return false;
		*out = (struct node){ .type = system_entry.type, .data = system_entry.data };
		set_name(out, system_entry.name);
		return true;
	}
	*out = (struct node){ .type = &table_dir, .pmu = p, .data = pmu_entries };
	set_name(out, p->name);
	return true;
}

/* Linux's bus directory links to the device: the same target text here. */
static int pmu_link_show(const struct node *n, char *buf, size_t size)
{
	return clip(snprintf(buf, size, "../../../devices/%s", n->name), size);
}

static const struct node_type pmu_link = { SYSFS_LINK, .show = pmu_link_show };

static bool bus_devices_child(const struct node *dir, long i, struct node *out)
{
	struct pmu *p = nth_pmu(i);

	if (!p)
		return false;
	*out = (struct node){ .type = &pmu_link, .pmu = p };
	set_name(out, p->name);
	return true;
}

static const struct node_type devices_dir = { SYSFS_DIR, .child = devices_child };
static const struct node_type bus_devices_dir = { SYSFS_DIR, .child = bus_devices_child };

/* ---- /sys/kernel/notes: the kernel's ELF notes, as Linux gives them ---- */

extern const char __notes_start[], __notes_end[];

static int notes_show(const struct node *n, char *buf, size_t size)
{
	size_t len = __notes_end - __notes_start;

	len = len < size ? len : size;
	memcpy(buf, __notes_start, len);
	return len;
}

static const struct node_type notes_file = { SYSFS_FILE, .show = notes_show };

/* ---- the fixed part of the tree ---- */

static const struct entry pmuos_entries[] = {
	ENTRY("accounting", &accounting_file),
	ENTRY("kernel_lock", &kernel_lock_file), { 0 } };
static const struct entry kernel_entries[] = {
	ENTRY("notes", &notes_file),
	ENTRY("pmuos", &table_dir, .data = pmuos_entries), { 0 } };
static const struct entry event_source_entries[] = { ENTRY("devices", &bus_devices_dir), { 0 } };
static const struct entry bus_entries[] = {
	ENTRY("event_source", &table_dir, .data = event_source_entries), { 0 } };
static const struct entry sys_entries[] = {
	ENTRY("bus", &table_dir, .data = bus_entries),
	ENTRY("devices", &devices_dir),
	ENTRY("kernel", &table_dir, .data = kernel_entries),
	{ 0 },
};
static const struct entry root_entries[] = { ENTRY("sys", &table_dir, .data = sys_entries), { 0 } };

void sysfs_add_events_source(struct sysfs_events_source *src)
{
	struct sysfs_events_source **p = &events_sources;

	while (*p)
		p = &(*p)->next;
	src->next = NULL;
	*p = src;
}

void sysfs_remove_events_source(struct sysfs_events_source *src)
{
	for (struct sysfs_events_source **p = &events_sources; *p; p = &(*p)->next) {
		if (*p == src) {
			*p = src->next;
			return;
		}
	}
}

/* ---- the path walk ---- */

struct walk {
	struct node stack[SYSFS_DEPTH_MAX];	/* stack[0] is "/" */
	int depth;				/* stack[depth] is where the walk is */
	int links;
	bool parent_found;
};

static bool find_child(const struct node *dir, const char *name, size_t len, struct node *out)
{
	if (len >= SYSFS_NAME_MAX)
		return false;
	for (long i = 0; dir->type->child(dir, i, out); i++)
		if (!strncmp(out->name, name, len) && !out->name[len])
			return true;
	return false;
}

/* Walk path from the walk's node (from "/" when path is absolute). top: the
 * caller's own path, not a link's target. */
static int walk(struct walk *w, const char *p, bool follow, bool top)
{
	if (*p == '/')
		w->depth = 0;
	for (;;) {
		while (*p == '/')
			p++;
		if (!*p)
			return 0;
		const char *name = p;
		while (*p && *p != '/')
			p++;
		size_t len = p - name;
		const char *rest = p;
		while (*rest == '/')
			rest++;
		bool last = !*rest;

		if (w->stack[w->depth].type->kind != SYSFS_DIR)
			return -ENOTDIR;
		w->parent_found = last && top;
		/* Linux's root is a ramfs, whose lookup refuses long names;
		 * kernfs just does not find them. */
		if (len > NAME_MAX && w->depth == 0)
			return -ENAMETOOLONG;
		if (len == 1 && name[0] == '.')
			continue;
		if (len == 2 && name[0] == '.' && name[1] == '.') {
			w->depth -= w->depth > 0;	/* "/.." is "/" */
			continue;
		}
		assert(w->depth + 1 < SYSFS_DEPTH_MAX);
		struct node *next = &w->stack[w->depth + 1];
		if (!find_child(&w->stack[w->depth], name, len, next))
			return -ENOENT;
		w->depth++;
		/* A trailing slash asks for a directory: links are followed. */
		if (next->type->kind == SYSFS_LINK && (!last || follow || *p == '/')) {
			char target[2 * SYSFS_NAME_MAX];
			next->type->show(next, target, sizeof(target));
			w->depth--;			/* targets are relative to the link's directory */
			if (++w->links > MAXSYMLINKS)
				return -ELOOP;
			int r = walk(w, target, true, false);
			if (r)
				return r;
		}
	}
}

/* FNV-1a: inode numbers that are stable for a path across boots. */
static uint64_t hash_add(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
	return h;
}

#define HASH_INIT 0xcbf29ce484222325ull

/* The inode number of name inside the directory at path (name NULL: of path). */
static uint64_t ino_of(const char *path, const char *name)
{
	uint64_t h = hash_add(HASH_INIT, path, strlen(path));

	if (name) {
		if (path[1])
			h = hash_add(h, "/", 1);
		h = hash_add(h, name, strlen(name));
	}
	return h ? h : 1;
}

/* The inode number of the directory holding path ("/" holds itself). */
static uint64_t parent_ino(const char *path)
{
	size_t len = strlen(path);

	while (len > 1 && path[len - 1] != '/')
		len--;
	len -= len > 1;			/* the slash, unless it is the root */
	return hash_add(HASH_INIT, path, len) ?: 1;
}

static unsigned char dtype(const struct node *n)
{
	return n->type->kind == SYSFS_DIR ? DT_DIR : n->type->kind == SYSFS_LINK ? DT_LNK : DT_REG;
}

static void root(struct walk *w)
{
	w->stack[0] = (struct node){ .type = &table_dir, .data = root_entries, .name = "/" };
	w->depth = 0;
}

int sysfs_lookup(const char *base, const char *path, bool follow, struct sysfs_lookup *res)
{
	struct walk w = { 0 };
	size_t len = strlen(path), n = 0;
	int r = 0;

	*res = (struct sysfs_lookup){ 0 };
	if (!len)
		return -ENOENT;
	res->trailing_slash = path[len - 1] == '/';
	while (len && path[len - 1] == '/')
		len--;
	while (n < len && path[len - 1 - n] != '/')
		n++;
	res->last_dots = (n == 1 && path[len - 1] == '.') ||
			 (n == 2 && path[len - 1] == '.' && path[len - 2] == '.');
	root(&w);
	if (path[0] != '/' && base)
		r = walk(&w, base, true, false);
	if (!r)
		r = walk(&w, path, follow, true);
	res->parent_found = w.parent_found;
	if (!r && res->trailing_slash && w.stack[w.depth].type->kind != SYSFS_DIR)
		r = -ENOTDIR;
	if (r)
		return r;

	const struct node *node = &w.stack[w.depth];
	int off = 0;
	for (int i = 1; i <= w.depth; i++)
		off += clip(snprintf(res->path + off, sizeof(res->path) - off, "/%s",
				     w.stack[i].name), sizeof(res->path) - off);
	if (!off)
		memcpy(res->path, "/", 2);
	res->kind = node->type->kind;
	res->ino = ino_of(res->path, NULL);
	res->nlink = 1;
	switch (res->kind) {
	case SYSFS_DIR: {
		struct node child;
		res->mode = S_IFDIR | 0755;
		res->nlink = 2;
		for (long i = 0; node->type->child(node, i, &child); i++)
			res->nlink += child.type->kind == SYSFS_DIR;
		break;
	}
	case SYSFS_FILE:
		res->mode = S_IFREG | 0444;
		res->size = SYSFS_FILE_SIZE;
		break;
	case SYSFS_LINK:
		res->mode = S_IFLNK | 0777;
		break;
	}
	return 0;
}

/* The node at a canonical path (links in the last component not followed). */
static int resolve(const char *path, struct walk *w)
{
	root(w);
	return walk(w, path, false, true);
}

long sysfs_read_text(const char *path, char *buf, size_t size)
{
	struct walk w;
	int r = resolve(path, &w);

	if (r)
		return r;
	const struct node *n = &w.stack[w.depth];
	if (n->type->kind == SYSFS_DIR)
		return -EISDIR;
	buf[0] = '\0';
	return n->type->show(n, buf, MIN(size, (size_t)SYSFS_FILE_SIZE));
}

int sysfs_iterate(const char *path, long pos,
		  bool (*emit)(void *ctx, const struct sysfs_dirent *d, long next), void *ctx)
{
	struct walk w;
	struct sysfs_dirent d = { .type = DT_DIR };
	int r = resolve(path, &w);
	const struct node *dir = &w.stack[w.depth];
	struct node child;

	if (!r && dir->type->kind != SYSFS_DIR)
		return -ENOTDIR;
	if (pos == 0) {
		memcpy(d.name, ".", 2);
		d.ino = ino_of(path, NULL);
		if (!emit(ctx, &d, ++pos))
			return 0;
	}
	if (pos == 1) {
		memcpy(d.name, "..", 3);
		d.ino = parent_ino(path);
		if (!emit(ctx, &d, ++pos))
			return 0;
	}
	for (long i = pos - 2; !r && i >= 0 && dir->type->child(dir, i, &child); i++) {
		memcpy(d.name, child.name, sizeof(d.name));
		d.ino = ino_of(path, child.name);
		d.type = dtype(&child);
		if (!emit(ctx, &d, i + 3))
			return 0;
	}
	return 0;
}
