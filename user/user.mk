# user/user.mk: builds the static musl userland (KTAP tests, bench, demo, the oracle's /init); the top Makefile includes it.
BUILD ?= build

USER_CC := musl-gcc
USER_LIBC := /usr/lib/x86_64-linux-musl
USER_UAPI := $(BUILD)/uapi
# The UAPI copy keeps glibc's /usr/include out of the search path: it would shadow musl's headers.
USER_CFLAGS := -O2 -g -fno-omit-frame-pointer -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE -MD \
	-isystem $(USER_UAPI) -idirafter include/uapi -Iuser/lib

# Test programs in the order the suite runs them; each one is user/tests/NAME.c.
USER_TESTS := errors fds tty brk mmap clocks identity startup signals restart faults sysfs filemap files dev \
	outfiles proc procfs procs tasks pthreads pipe eventfd select epoll timers sched \
	perf_open perf_read perf_ioctl perf_mux perf_mmap perf_count perf_ring \
	perf_sample perf_records perf_overflow persist_create persist_reopen persist_release \
	perf_aux itrace perf_sigio breakpoint perf_inherit cpus perf_smp mm_smp
USER_KTAP_PROGS := $(addprefix $(BUILD)/user/,$(USER_TESTS) bench bench_smp)
# startup again as a static PIE, so the ELF loader is tested on both kinds of executable.
USER_PIE_PROGS := $(BUILD)/user/startup-pie
USER_TEST_PROGS := $(addprefix $(BUILD)/user/,$(USER_TESTS) cxx gort dynamic startup-pie segv)
USER_BENCH_PROGS := $(BUILD)/user/bench $(BUILD)/user/bench_smp
USER_PROGS := $(USER_KTAP_PROGS) $(USER_PIE_PROGS) $(BUILD)/user/segv $(BUILD)/user/cxx \
	$(BUILD)/user/gort \
	$(BUILD)/user/dynamic \
	$(BUILD)/user/demo $(BUILD)/user/init

# Arguments for a program's run list record (on both kernels), by name.
# --expect-status=N tells the harness the program passes by exiting with status N.
USER_ARGS_segv := --expect-status=139
USER_ARGS_tty := --stdin
USER_ARGS_startup := alpha beta
USER_ARGS_procfs := one two
USER_ARGS_startup-pie := alpha beta

USER_OBJS := $(patsubst %,$(BUILD)/user/tests/%.o,$(USER_TESTS) bench bench_smp segv) \
	$(BUILD)/user/lib/ktap.o $(BUILD)/user/lib/bench.o $(BUILD)/user/lib/perf.o $(BUILD)/user/lib/pmuos.o \
	$(BUILD)/user/lib/itrace_decode.o $(BUILD)/user/lib/file.o $(BUILD)/user/lib/cpu.o $(BUILD)/user/demo.o $(BUILD)/user/init.o \
	$(BUILD)/user/pie/tests/startup.o $(BUILD)/user/pie/lib/ktap.o

$(USER_UAPI)/.stamp:
	@echo "  UAPI    $(USER_UAPI)"
	@rm -rf $(USER_UAPI) && mkdir -p $(USER_UAPI)
	@cp -r /usr/include/linux /usr/include/asm-generic /usr/include/x86_64-linux-gnu/asm $(USER_UAPI)/
	@touch $@

$(BUILD)/user/%.o: user/%.c | $(USER_UAPI)/.stamp
	@mkdir -p $(dir $@)
	@echo "  MUSLCC  $<"
	@$(USER_CC) $(USER_CFLAGS) -fno-pie -c $< -o $@

$(BUILD)/user/pie/%.o: user/%.c | $(USER_UAPI)/.stamp
	@mkdir -p $(dir $@)
	@echo "  MUSLCC  $< (PIE)"
	@$(USER_CC) $(USER_CFLAGS) -fPIE -c $< -o $@

# perf.o, pmuos.o, itrace_decode.o, file.o, cpu.o and bench.o (the perf_event, pmuos /sys,
# itrace, whole-file, CPU and bench-figure helpers) too: unused ones are small.
$(USER_KTAP_PROGS): $(BUILD)/user/%: $(BUILD)/user/tests/%.o $(BUILD)/user/lib/ktap.o \
		$(BUILD)/user/lib/perf.o $(BUILD)/user/lib/pmuos.o $(BUILD)/user/lib/itrace_decode.o \
		$(BUILD)/user/lib/file.o $(BUILD)/user/lib/cpu.o $(BUILD)/user/lib/bench.o
	@echo "  LD      $@"
	@$(USER_CC) -static -no-pie $^ -o $@

# A C++ program as users build them: g++ -static, glibc's libstdc++ and threads.
$(BUILD)/user/cxx: user/tests/cxx.cpp
	@mkdir -p $(dir $@)
	@echo "  G++     $<"
	@g++ -static -O2 -pthread -Wall -Wextra -Werror $< -o $@

# A Go program as users build them: Debian's Go toolchain, static (CGO_ENABLED=0); its
# build cache stays under $(BUILD).
$(BUILD)/user/gort: user/go/gort.go
	@mkdir -p $(dir $@)
	@echo "  GO      $<"
	@cd user/go && HOME=$(abspath $(BUILD)) GOCACHE=$(abspath $(BUILD))/gocache \
		GOPATH=$(abspath $(BUILD))/gopath GO111MODULE=off CGO_ENABLED=0 \
		go build -o $(abspath $@) gort.go

# A dynamically linked program as Debian builds them: the host's glibc, its loader and
# libc.so.6 packed beside it (tests/qemu/initramfs.py asks ldd).
$(BUILD)/user/dynamic: user/tests/dynamic.c
	@mkdir -p $(dir $@)
	@echo "  CC      $< (dynamic)"
	@gcc -O2 -Wall -Wextra -Werror $< -o $@

$(BUILD)/user/segv: $(BUILD)/user/tests/segv.o
	@echo "  LD      $@"
	@$(USER_CC) -static -no-pie $^ -o $@

$(BUILD)/user/demo $(BUILD)/user/init: $(BUILD)/user/%: $(BUILD)/user/%.o
	@echo "  LD      $@"
	@$(USER_CC) -static -no-pie $^ -o $@

# musl-gcc's specs know no -static-pie: name rcrt1.o (which relocates itself) and the
# static-PIE linker flags by hand.
USER_PIE_LDFLAGS := -nostartfiles -Wl,-static,-pie,--no-dynamic-linker,-z,text
$(USER_PIE_PROGS): $(BUILD)/user/%-pie: $(BUILD)/user/pie/tests/%.o $(BUILD)/user/pie/lib/ktap.o
	@echo "  LD      $@ (static PIE)"
	@$(USER_CC) $(USER_PIE_LDFLAGS) $(USER_LIBC)/rcrt1.o $(USER_LIBC)/crti.o \
		$$($(USER_CC) -print-file-name=crtbeginS.o) $^ -lc \
		$$($(USER_CC) -print-file-name=crtendS.o) $(USER_LIBC)/crtn.o -o $@

# ---- workloads for the perf tool (user/workloads/; make stat, record, the perf run of make test) ----
# With build-ids, which musl-gcc's specs leave out: perf.data then names each binary by content,
# and the host's perf report refuses a different one.
USER_WORKLOADS := $(addprefix $(BUILD)/user/workloads/,spin hello forks persist)
USER_PROGS += $(USER_WORKLOADS)
$(BUILD)/user/workloads/spin: user/workloads/spin.S
	@mkdir -p $(dir $@)
	@echo "  AS      $<"
	@$(USER_CC) -nostdlib -static -Wl,--build-id $< -o $@
$(BUILD)/user/workloads/%: user/workloads/%.c | $(USER_UAPI)/.stamp
	@mkdir -p $(dir $@)
	@echo "  MUSLCC  $<"
	@$(USER_CC) $(filter-out -MD,$(USER_CFLAGS)) -static -no-pie -pthread -Wl,--build-id $< -o $@

# ---- the perf syscall fuzzer (user/fuzz/; `make fuzz`, tests/qemu/fuzz.py) ----
FUZZ_SRCS := $(wildcard user/fuzz/*.c)
FUZZ_OBJS := $(patsubst user/fuzz/%.c,$(BUILD)/user/fuzz-obj/%.o,$(FUZZ_SRCS))
USER_PROGS += $(BUILD)/user/fuzz
# Objects beside, not under, build/user/fuzz: that is the program.
$(BUILD)/user/fuzz-obj/%.o: user/fuzz/%.c | $(USER_UAPI)/.stamp
	@mkdir -p $(dir $@)
	@echo "  MUSLCC  $<"
	@$(USER_CC) $(USER_CFLAGS) -fno-pie -c $< -o $@

$(BUILD)/user/fuzz: $(FUZZ_OBJS)
	@echo "  LD      $@"
	@$(USER_CC) -static -no-pie $^ -o $@

.PHONY: user
user: $(USER_PROGS)

-include $(USER_OBJS:.o=.d) $(FUZZ_OBJS:.o=.d)

