# pmuos: a bare-metal x86-64 kernel that gives programs the Linux perf_event ABI.
# make            the kernel (and its ELF32 copy for QEMU -kernel), the userland and the BIOS+UEFI ISO
# make run        boot the demo (or PROG=static-binary ARGS="...") in QEMU (SMP=n: n CPUs)
# make test       self-tests and the userland suite on pmuos (BIOS, UEFI) and Linux
# make debug      QEMU halted with a gdb stub; gdb -x build/gdbinit
# make bench      cost figures in guest instructions, pmuos against Linux
# make fuzz       the perf syscall fuzzer (SEED=n CALLS=n); make unit: host unit tests
# make perf ARGS="..."; make stat PROG=...; make record PROG=...; make report: the perf tool

BUILD ?= build
.DEFAULT_GOAL := all
CC ?= gcc
ifeq ($(origin CC),default)
CC := gcc
endif
NASM ?= nasm
LD ?= ld
PYTHON ?= python3

KERNEL_CFLAGS := -std=gnu11 -O2 -g -MD \
	-ffreestanding -nostdlib -mno-red-zone -mcmodel=kernel -mgeneral-regs-only \
	-fno-pic -fno-pie -fno-stack-protector -fno-omit-frame-pointer \
	-fno-asynchronous-unwind-tables -fno-builtin-printf \
	-Wall -Wextra -Werror -Wno-unused-parameter \
	-isystem $(BUILD)/uapi -Iinclude -Iinclude/uapi
# Spinlock checks (kernel/spinlock.h, lockdep.c): a lock in NMI context, a lock taken
# twice, two locks taken in both orders, the kernel lock under a spinlock.
LOCK_DEBUG ?= 1
KERNEL_CFLAGS += -DLOCK_DEBUG=$(LOCK_DEBUG)
# GCC keeps KTEST tables in source order with this; clang has no such flag.
KERNEL_CFLAGS += $(if $(findstring clang,$(CC)),,-fno-toplevel-reorder)
NASMFLAGS := -f elf64 -g -F dwarf -I kernel/
KERNEL_LDFLAGS := -nostdlib -static --build-id -z max-page-size=4096 --no-warn-rwx-segments -z noexecstack -T linker.ld

BOOT_ASM := boot/multiboot.asm boot/entry.asm
KERNEL_ASM := kernel/entry.asm kernel/trampoline.asm kernel/mm/copy_user.asm
KERNEL_C := \
	kernel/main.c kernel/percpu.c kernel/cpu_stats.c kernel/acpi.c kernel/smp.c kernel/kernel_lock.c kernel/lockdep.c kernel/console.c kernel/printk.c kernel/panic.c \
	kernel/multiboot.c kernel/cmdline.c kernel/cpu.c kernel/gdt.c kernel/idt.c \
	kernel/traps.c kernel/entry_work.c kernel/clock.c kernel/nmi.c kernel/pic.c kernel/apic.c kernel/ioapic.c kernel/tsc.c \
	kernel/timer.c kernel/ktest.c kernel/msr.c kernel/rtc.c \
	kernel/task.c kernel/sched.c kernel/fork.c kernel/exec.c kernel/exit.c kernel/futex.c \
	kernel/elf.c kernel/fd.c kernel/signal.c \
	kernel/tty.c kernel/n_tty.c kernel/n_tty_output.c kernel/n_tty_read.c \
	kernel/pipe.c kernel/eventfd.c kernel/sys_poll.c kernel/epoll.c kernel/itimer.c \
	kernel/timerfd.c kernel/sys_sched.c kernel/sys_pgrp.c \
	kernel/syscall.c kernel/sys_fd.c kernel/sys_mm.c kernel/sys_time.c kernel/sys_proc.c \
	kernel/sysfs.c kernel/test/sysfs.c \
	kernel/sys_open.c kernel/sys_stat.c kernel/sys_namei.c kernel/sys_info.c kernel/sys_copy.c \
	kernel/fs/inode.c kernel/fs/namei.c kernel/fs/ops.c kernel/fs/file.c kernel/fs/ramfs.c \
	kernel/fs/initramfs.c kernel/fs/rootfs.c kernel/fs/dev.c kernel/fs/proc.c \
	kernel/fs/proc_pid.c kernel/fs/proc_info.c kernel/fs/proc_sys.c \
	kernel/fs/sysfs_mount.c kernel/fs/filemap.c kernel/fs/outdir.c kernel/test/fs.c \
	kernel/lib/string.c kernel/lib/vsprintf.c kernel/lib/cpulist.c \
	kernel/mm/paging.c kernel/mm/frames.c kernel/mm/kmalloc.c kernel/mm/vmalloc.c \
	kernel/mm/uaccess.c kernel/mm/uspace.c kernel/mm/anon_fault.c kernel/mm/tlb.c \
	kernel/perf/event.c kernel/perf/attr.c kernel/perf/open.c kernel/perf/read.c \
	kernel/perf/ioctl.c kernel/perf/mmap.c kernel/perf/overflow.c kernel/pmu/sw.c \
	kernel/pmu/x86.c kernel/pmu/probe.c kernel/pmu/intel.c kernel/pmu/amd.c kernel/pmu/sim.c kernel/pmu/sim_split.c kernel/test/pmu.c \
	kernel/test/mm.c kernel/test/cpu.c kernel/test/smp.c kernel/perf/test/event.c \
	kernel/perf/ring.c kernel/perf/test/ring.c \
	kernel/perf/sample.c kernel/perf/records.c kernel/perf/test/sample.c \
	kernel/perf/persistent.c kernel/perf/inherit.c \
	kernel/perf/aux.c kernel/pmu/itrace.c kernel/pmu/breakpoint.c kernel/perf/test/aux.c kernel/test/itrace.c \
	kernel/hostout.c kernel/lib/crc32.c kernel/test/hostout.c

KERNEL_OBJS := $(patsubst %.asm,$(BUILD)/%.o,$(BOOT_ASM) $(KERNEL_ASM)) \
	$(patsubst %.c,$(BUILD)/%.o,$(KERNEL_C))
KERNEL := $(BUILD)/pmuos.elf
KERNEL32 := $(BUILD)/pmuos32.elf
ISO := $(BUILD)/pmuos.iso

include user/user.mk

# Every initramfs carries /init (user/init.c), this build's.
export PMUOS_INIT := $(abspath $(BUILD)/user/init)

.PHONY: all kernel iso run test debug bench deps clean fuzz unit
all: $(ISO) $(KERNEL32)
kernel: $(KERNEL) $(KERNEL32)

$(BUILD)/%.o: %.c | $(BUILD)/uapi/.stamp
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(KERNEL_CFLAGS) -c $< -o $@

$(BUILD)/%.o: %.asm
	@mkdir -p $(dir $@)
	@echo "  NASM    $<"
	@$(NASM) $(NASMFLAGS) -MD $(@:.o=.d) $< -o $@

# /proc/kallsyms: the symbol table is linked into the kernel itself, as Linux
# does it. Link with an empty table, list the symbols, link with them (the
# table's size moves what follows it), list again: the same names, so the same
# size, and the third link gives every symbol its final address; the last two
# lists must agree. Absolute symbols are left out (no address in the image).
KALLSYMS_GEN = nm -n $(1) | awk -f kernel/kallsyms.awk > $(2)
$(KERNEL): $(KERNEL_OBJS) linker.ld kernel/kallsyms.awk
	@echo "  KALLSYMS $@"
	@printf 'const unsigned long kallsyms_num = 0;\nconst unsigned long kallsyms_addresses[1];\nconst char kallsyms_types[1];\nconst char kallsyms_names[1];\n' > $(BUILD)/kallsyms0.c
	@$(CC) $(KERNEL_CFLAGS) -c $(BUILD)/kallsyms0.c -o $(BUILD)/kallsyms0.o
	@$(LD) $(KERNEL_LDFLAGS) $(KERNEL_OBJS) $(BUILD)/kallsyms0.o -o $@.0
	@$(call KALLSYMS_GEN,$@.0,$(BUILD)/kallsyms1.c)
	@$(CC) $(KERNEL_CFLAGS) -c $(BUILD)/kallsyms1.c -o $(BUILD)/kallsyms1.o
	@$(LD) $(KERNEL_LDFLAGS) $(KERNEL_OBJS) $(BUILD)/kallsyms1.o -o $@.1
	@$(call KALLSYMS_GEN,$@.1,$(BUILD)/kallsyms2.c)
	@$(CC) $(KERNEL_CFLAGS) -c $(BUILD)/kallsyms2.c -o $(BUILD)/kallsyms2.o
	$(LD) $(KERNEL_LDFLAGS) $(KERNEL_OBJS) $(BUILD)/kallsyms2.o -o $@
	nm -n $@ > $(BUILD)/kernel.sym
	@nm -n $@.1 | cmp -s - $(BUILD)/kernel.sym || { echo "kallsyms: addresses moved"; exit 1; }
	@rm -f $@.0 $@.1
	objdump -d -M intel --no-show-raw-insn $@ > $(BUILD)/kernel.asm

# The same kernel as an ELF32 for QEMU's -kernel, which loads multiboot1 ELFs
# but refuses x86-64 ones; the program headers' physical addresses and the
# 32-bit entry are unchanged. No debug info: gdb reads $(KERNEL).
$(KERNEL32): $(KERNEL)
	objcopy -O elf32-i386 --strip-debug $< $@

# The default image: the kernel and the test programs as modules, in order.
module_arg = $(1)$(if $(USER_ARGS_$(notdir $(1))),:$(USER_ARGS_$(notdir $(1))))
$(ISO): $(KERNEL) $(USER_TEST_PROGS) $(BUILD)/user/init tests/qemu/image.py tests/qemu/initramfs.py
	$(PYTHON) tests/qemu/image.py --kernel $(KERNEL) -o $@ \
		$(foreach p,$(USER_TEST_PROGS),--module '$(call module_arg,$(p))')

iso: $(ISO)

deps:
	@sh tests/qemu/deps.sh

# make run [PROG=static-binary] [ARGS="..."] [KTEST=1] [TIMEOUT=secs] [CMDLINE="..."] [SMP=n]:
# QEMU loads the kernel and the program itself (no firmware menu, no ISO), the
# self-tests only with KTEST=1; files the kernel sends to the host land in $(BUILD)/out.
PROG ?=
ARGS ?=
KTEST ?= 0
TIMEOUT ?= 300
CMDLINE ?=
SMP ?= 1
# ARGS reaches run.py through the environment (make exports command-line variables), so
# quotes in it are the shell's to parse, once: ARGS="sh -c 'echo hi'" gives three words.
run: deps $(KERNEL32) $(BUILD)/user/demo $(BUILD)/user/init
	$(PYTHON) tests/qemu/run.py --interactive --kernel $(KERNEL32) \
		--cmdline 'ktest=$(KTEST) $(CMDLINE)' --timeout $(TIMEOUT) --out-dir $(BUILD)/out --smp $(SMP) \
		--program '$(if $(PROG),$(PROG),$(BUILD)/user/demo)' --args "$$ARGS"

# ---- the perf tool inside pmuos (tests/qemu/perf_tool.py builds it once into a cache) ----
# make perf ARGS="stat -e instructions:u -- ./bench": any perf command line. Local files that
# ARGS names go into the image at the same paths (relative ones under /, the guest's working
# directory), perf is /usr/bin/perf, and what it writes under /out lands in $(BUILD)/out, beside
# a copy of the image's files (symfs/) for the host's perf report.
# make stat PROG=./bench [EVENTS=...] [REPEAT=n]; make record PROG=./bench [EVENTS=...]
# [PERIOD=n | FREQ=n] (leaves $(BUILD)/out/perf.data); make report [REPORT_ARGS=...].
PERF_TOOL := $(BUILD)/perf
EVENTS ?=
REPEAT ?=
PERIOD ?=
FREQ ?=
REPORT_ARGS ?=
PERF_RUN = $(PYTHON) tests/qemu/run.py --interactive --kernel $(KERNEL32) \
	--cmdline 'ktest=0 $(CMDLINE)' --timeout $(TIMEOUT) --out-dir $(BUILD)/out --smp $(SMP) \
	--program $(PERF_TOOL) --program-path /usr/bin/perf --files-in-args --symfs $(BUILD)/out/symfs
PERF_EVENTS = $(if $(EVENTS),-e $(EVENTS))
$(PERF_TOOL): tests/qemu/perf_tool.py
	$(PYTHON) tests/qemu/perf_tool.py --install $@

.PHONY: perf stat record report
perf: deps $(KERNEL32) $(BUILD)/user/init $(PERF_TOOL)
	$(PERF_RUN) --args "$$ARGS"
stat: deps $(KERNEL32) $(BUILD)/user/init $(PERF_TOOL)
	$(PERF_RUN) --args "stat $(PERF_EVENTS) $(if $(REPEAT),-r $(REPEAT)) -- $(PROG) $$ARGS"
record: deps $(KERNEL32) $(BUILD)/user/init $(PERF_TOOL)
	rm -rf $(BUILD)/out/symfs $(BUILD)/out/perf.data
	$(PERF_RUN) --args "record $(PERF_EVENTS) $(if $(PERIOD),-c $(PERIOD)) \
		$(if $(FREQ),-F $(FREQ)) -o /out/perf.data -- $(PROG) $$ARGS"
# The host's perf: binaries from the copy of the image (build-ids checked), the kernel's
# symbols from its ELF.
report:
	perf report -i $(BUILD)/out/perf.data --symfs $(BUILD)/out/symfs \
		--vmlinux $(abspath $(KERNEL)) --stdio $(REPORT_ARGS)

test: deps
	$(MAKE) all $(BUILD)/user/init $(BUILD)/user/fuzz $(UNIT_PROGS) $(USER_WORKLOADS) $(PERF_TOOL)
	$(PYTHON) tests/qemu/suite.py --kernel $(KERNEL) --kernel32 $(KERNEL32) --iso $(ISO) \
		--oracle-init $(BUILD)/user/init --log-dir $(BUILD)/test-logs \
		$(if $(NO_ORACLE),--no-oracle) $(if $(RUNS),--runs $(RUNS)) \
		$(if $(TEST_TIMEOUT),--timeout $(TEST_TIMEOUT)) \
		--unit-dir $(BUILD)/unit --fuzz-program $(BUILD)/user/fuzz \
		--fuzz-seeds $(TEST_FUZZ_SEEDS) --fuzz-calls $(TEST_FUZZ_CALLS) \
		$(foreach p,$(USER_TEST_PROGS),--program '$(call module_arg,$(p))')

# make bench measures the kernel as it ships: without LOCK_DEBUG's checks (make test keeps
# them on), built in its own folder.
BENCH_BUILD := $(BUILD)/bench
bench: deps $(USER_BENCH_PROGS) $(USER_WORKLOADS) $(BUILD)/user/init
	$(MAKE) -s BUILD=$(BENCH_BUILD) LOCK_DEBUG=0 $(BENCH_BUILD)/pmuos.elf $(BENCH_BUILD)/pmuos32.elf
	$(PYTHON) tests/qemu/bench.py --kernel $(BENCH_BUILD)/pmuos.elf --program $(BUILD)/user/bench \
		--smp-program $(BUILD)/user/bench_smp \
		--oracle-init $(BUILD)/user/init --log-dir $(BUILD)/bench-logs
	$(PYTHON) tests/qemu/perf_bench.py --kernel32 $(BENCH_BUILD)/pmuos32.elf \
		--oracle-init $(BUILD)/user/init

# ---- the perf syscall fuzzer and the host unit tests (user/fuzz/, tests/unit/) ----
# make fuzz [SEED=n[,n...]] [CALLS=n] [FUZZ_ARGS='trace=K'] [SMP=n]: without SEED a fresh one,
# printed first. make test runs the fixed seeds below (repeatable, see README).
SEED ?=
CALLS ?= 100000
FUZZ_ARGS ?=
TEST_FUZZ_SEEDS ?= 1,2,3,4
TEST_FUZZ_CALLS ?= 50000
# Seconds per boot before a run counts as hung (suite.py: 120); more on a loaded host,
# where OVMF and the Linux oracle boot several times slower: make test TEST_TIMEOUT=400.
TEST_TIMEOUT ?=
fuzz: deps $(KERNEL) $(BUILD)/user/fuzz $(BUILD)/user/init
	$(PYTHON) tests/qemu/fuzz.py --kernel $(KERNEL) --program $(BUILD)/user/fuzz \
		$(if $(SEED),--seed $(SEED)) --calls $(CALLS) $(if $(FUZZ_ARGS),--args '$(FUZZ_ARGS)') \
		--log-dir $(BUILD)/fuzz-logs --smp $(SMP)

# ASan and UBSan builds of the kernel's pure logic, and a libFuzzer target (clang).
UNIT_CC ?= clang
UNIT_CFLAGS := -std=gnu11 -g -O1 -fno-omit-frame-pointer -Wall -Wextra -Werror \
	-Wno-unused-parameter -fsanitize=address,undefined -fno-sanitize-recover=all \
	-Iinclude -Iinclude/uapi -Iuser/lib -MD
UNIT_PROGS := $(BUILD)/unit/attr_test $(BUILD)/unit/layout_test $(BUILD)/unit/attr_fuzz
$(BUILD)/unit/attr_test: tests/unit/attr_test.c tests/unit/uaccess.c tests/unit/sysctl.c kernel/perf/attr.c \
	user/lib/ktap.c
$(BUILD)/unit/layout_test: tests/unit/layout_test.c user/lib/ktap.c
$(BUILD)/unit/%_test:
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $@ (ASan, UBSan)"
	@$(UNIT_CC) $(UNIT_CFLAGS) $(filter %.c,$^) -o $@
$(BUILD)/unit/attr_fuzz: tests/unit/attr_fuzz.c tests/unit/uaccess.c tests/unit/sysctl.c kernel/perf/attr.c
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $@ (libFuzzer, ASan, UBSan)"
	@$(UNIT_CC) $(UNIT_CFLAGS) -fsanitize=fuzzer $(filter %.c,$^) -o $@

unit: deps $(UNIT_PROGS)
	$(PYTHON) tests/qemu/suite.py --runs host --kernel $(KERNEL) --iso $(ISO) \
		--unit-dir $(BUILD)/unit --log-dir $(BUILD)/test-logs

debug: deps $(ISO)
	printf 'file $(KERNEL)\ntarget remote :1234\n' > $(BUILD)/gdbinit
	@echo "pmuos: QEMU waits for gdb on :1234; in another terminal: gdb -x $(BUILD)/gdbinit"
	$(PYTHON) tests/qemu/run.py --interactive --firmware bios --iso $(ISO) --gdb

clean:
	rm -rf $(BUILD)

-include $(KERNEL_OBJS:.o=.d) $(wildcard $(BUILD)/unit/*.d)
