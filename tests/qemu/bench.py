#!/usr/bin/env python3
"""tests/qemu/bench.py: the `make bench` driver: one bench program on pmuos and on Linux, figures side by side."""
import argparse
import concurrent.futures
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import image  # noqa: E402
import ktap  # noqa: E402
import oracle  # noqa: E402
import run  # noqa: E402

FIGURE = re.compile(r"#\s*bench:\s*(\S+)\s+(\d+)\s*$")

# What the figures that are not one call's cost measure (user/tests/bench.c says how).
NOTES = {
    "getpid_model": "getpid while the PMU model counts (its privilege split on every entry "
                    "and return; a real PMU has none)",
    "read_model": "read() of the task-clock fd, the same",
    "ioctl_reset_model": "ioctl(RESET), the same",
    "itrace_insn": "guest instructions a traced user instruction costs on top of itself",
    "itrace_insn_slowpath": "the same with every #DB step through the C trap path",
    "itrace_flush": "ioctl(PERF_EVENT_IOC_FLUSH) of a traced task, ~300 instructions buffered",
    "sample_cost": "guest instructions one instructions:u sample (IP, TID, TIME, PERIOD) adds, "
                   "interrupt entry to return",
    "cpu_clock_sample_cost": "the same for a cpu-clock sample (hrtimer / LAPIC timer)",
    "sample_rate_max": "samples per second of guest time kept with no lost record while the "
                       "reader drains a 64 KiB ring",
    "file_open_read_close": "open(O_RDONLY) + read of 4 KiB + close of a 4 KiB file under /tmp, "
                            "timed together",
    "file_stat": "stat() of that file",
    "dir_getdents64_100": "getdents64 of a folder of 100 files into a buffer that holds them "
                          "all, after an lseek to 0 that is not timed",
    "fork_exit_wait": "fork() + the child's _exit(0) + the parent's waitpid, timed together",
    "pipe_round_trip": "one byte to a child over a pipe and back over another (two switches)",
    "futex_wake_none": "FUTEX_WAKE_PRIVATE of a word nobody waits on",
    "pthread_create_join": "pthread_create of a thread that returns at once + pthread_join, "
                           "timed together (musl)",
    "futex_round_trip": "two threads hand a futex word back and forth: two FUTEX_WAKEs, two "
                        "FUTEX_WAITs, two switches",
    "context_switch": "half a sched_yield round trip between two processes (a shared counter "
                      "proves each yield ran the other): one yield, one switch of address space",
    "inherited_child_insns": "instructions:u a forked child ran in a window of a 100000-turn "
                             "two-instruction loop, read by the parent from its inherit=1 event "
                             "after wait (simulated PMU; Linux under TCG has no hardware event)",
    "child_own_insns": "the same window counted by the child on an event of its own: must be "
                       "equal",
    "cross_cpu_read": "read() from CPU 0 of a task-clock event active on CPU 1 (-smp 2, no "
                      "icount: TSC cycles, see SMP_NOTE)",
    "cross_cpu_enable": "ioctl(ENABLE) from CPU 0 of a disabled task-clock event of a task "
                        "running on CPU 1 (the same)",
    "munmap_shootdown": "munmap of a touched page while a thread of the process runs on the "
                        "other CPU (the same)",
    "munmap_alone": "the same munmap with the process on one CPU (the same)",
    "sample_rate_per_cpu": "samples per second of guest time, both CPUs together, with a "
                           "cpu-clock sampler on each CPU at once and nothing lost or "
                           "throttled (64 KiB rings drained after each stretch of work)",
}
# The -smp 2 figures (user/tests/bench_smp.c) are taken without -icount: Linux 6.1 does not
# bring its second CPU up under QEMU 7.2's icount (run.without_icount). They are TSC cycles of
# QEMU's host-paced TSC, so they vary from run to run and host to host; pmuos and Linux run at
# the same time on the same host, so their ratio means more than either figure.
SMP_NOTE = "the -smp 2 figures are TSC cycles without icount, not instructions"


def figures(log_text, program):
    """{name: guest instructions} from the program's `# bench: NAME N` lines, in print order,
    and the program's outcomes that failed (a figure that could not be taken is a failed
    test), or a panic."""
    name = os.path.basename(program)
    found = {}
    for p in ktap.parse(log_text).programs:
        if p.name == name:
            for line in p.lines:
                m = FIGURE.match(line.strip())
                if m:
                    found[m.group(1)] = int(m.group(2))
    mine = (f"{name}/", f"{name}:")
    failed = [o for o in ktap.evaluate(log_text, 0, kernel_tests=False)
              if not o.passed and (o.kind == "panic" or o.name.startswith(mine))]
    return found, failed


def on_pmuos(opts):
    with tempfile.TemporaryDirectory(prefix="pmuos-bench-") as tmp:
        iso = image.build_iso(opts.kernel, [(opts.program, "")], opts.cmdline,
                              os.path.join(tmp, "bench.iso"))
        log, _, timed_out = run.boot(iso, "bios", opts.timeout)
    return log, timed_out


def on_linux(opts):
    log, _, timed_out = oracle.run_oracle([(opts.program, "")], opts.timeout,
                                          init=opts.oracle_init)
    return log, timed_out


def on_pmuos_smp(opts):
    kernel32 = os.path.join(os.path.dirname(os.path.abspath(opts.kernel)), "pmuos32.elf")
    log, _, timed_out, _, _ = run.boot_direct(kernel32, [(opts.smp_program, "")],
                                              f"{opts.cmdline} ktest=0".strip(), None,
                                              opts.timeout, smp=2, icount=False)
    return log, timed_out


def on_linux_smp(opts):
    log, _, timed_out = oracle.run_oracle([(opts.smp_program, "")], opts.timeout,
                                          init=opts.oracle_init, smp=2, icount=False)
    return log, timed_out


def cell(value):
    return "-" if value is None else str(value)


def main():
    ap = argparse.ArgumentParser(description=__doc__, epilog="Prints `bench: NAME pmuos=X "
                                 "linux=Y ratio=X/Y` per figure, `-` where a kernel gave none.")
    ap.add_argument("--kernel", required=True, help="the pmuos kernel ELF")
    ap.add_argument("--program", required=True, help="the static bench binary")
    ap.add_argument("--smp-program", help="the -smp 2 bench binary (user/tests/bench_smp.c)")
    ap.add_argument("--cmdline", default="", help="pmuos kernel command line")
    ap.add_argument("--timeout", type=float, default=run.DEFAULT_TIMEOUT, help="per boot")
    ap.add_argument("--log-dir", help="write pmuos.log and linux.log here")
    ap.add_argument("--oracle-init", default=str(oracle.DEFAULT_INIT),
                    help="the /init runner (make's $(BUILD)/user/init)")
    opts = ap.parse_args()
    for path in (opts.kernel, opts.program):
        if not os.path.exists(path):
            print(f"bench.py: no such file: {path} (build it first)", file=sys.stderr)
            return 2

    passes = [({"pmuos": on_pmuos, "linux": on_linux}, opts.program, "")]
    if opts.smp_program:
        passes.append(({"pmuos": on_pmuos_smp, "linux": on_linux_smp}, opts.smp_program, "-smp2"))
    results, problems = {"pmuos": {}, "linux": {}}, []
    for kernels, program, suffix in passes:
        # Two boots at once: under -icount the figures do not depend on the host's load.
        with concurrent.futures.ThreadPoolExecutor(len(kernels)) as pool:
            futures = {k: pool.submit(fn, opts) for k, fn in kernels.items()}
            for k, fut in futures.items():
                try:
                    log, timed_out = fut.result()
                except (OSError, RuntimeError, oracle.OracleError) as e:
                    problems.append(f"{k}{suffix}: {e}")
                    continue
                if opts.log_dir:
                    os.makedirs(opts.log_dir, exist_ok=True)
                    with open(os.path.join(opts.log_dir, f"{k}{suffix}.log"), "w") as f:
                        f.write(log)
                found, failed = figures(log, program)
                results[k].update(found)
                problems += [f"{k}{suffix}: timed out after {opts.timeout} s"] if timed_out else []
                problems += [f"{k}{suffix}: FAIL {o.name}: "
                             f"{o.detail.splitlines()[0] if o.detail else ''}" for o in failed]

    names = list(dict.fromkeys(list(results["pmuos"]) + list(results["linux"])))
    for name in names:
        mine, ref = results["pmuos"].get(name), results["linux"].get(name)
        ratio = f"{mine / ref:.2f}" if mine is not None and ref else "-"
        print(f"bench: {name} pmuos={cell(mine)} linux={cell(ref)} ratio={ratio}")
    for name in names:
        if name in NOTES:
            print(f"# {name}: {NOTES[name]}")
    if opts.smp_program:
        print(f"# {SMP_NOTE}")
    for p in problems:
        print(f"bench.py: {p}", file=sys.stderr)
    if not names:
        print("bench.py: no figures from either kernel", file=sys.stderr)
    return 0 if results["pmuos"] and results["linux"] else 1


if __name__ == "__main__":
    sys.exit(main())
