/* Per-CPU state: the boot CPU's struct cpu, the table of every CPU's, and
 * each CPU's copy of the per-CPU variables (.bss.percpu). */
#include "percpu.h"
#include "panic.h"
#include "x86.h"
#include "lib/string.h"
#include "mm/kmalloc.h"

static struct cpu cpu0;
struct cpu *cpus[NR_CPUS] = { &cpu0 };
int nr_cpus = 1;

void percpu_load(struct cpu *c)
{
	wrmsr(MSR_GS_BASE, (uint64_t)c);
}

void percpu_init_boot(void)
{
	cpu0.self = &cpu0;
	cpu0.online = true;	/* id 0, percpu_offset 0: .bss.percpu itself */
	percpu_load(&cpu0);
}

struct cpu *percpu_alloc(int id, uint32_t apic_id)
{
	extern char __percpu_start[], __percpu_end[];
	size_t size = __percpu_end - __percpu_start;
	struct cpu *c = kmalloc(sizeof(*c));
	char *area = size ? kmalloc(size) : __percpu_start;

	assert(id > 0 && id < NR_CPUS && !cpus[id]);
	if (!c || !area)
		panic("percpu: no memory for CPU %d", id);
	memset(c, 0, sizeof(*c));
	memset(area, 0, size);
	c->self = c;
	c->id = id;
	c->apic_id = apic_id;
	c->percpu_offset = (uintptr_t)area - (uintptr_t)__percpu_start;
	cpus[id] = c;
	return c;
}
