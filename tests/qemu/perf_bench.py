#!/usr/bin/env python3
"""tests/qemu/perf_bench.py: `make bench`'s figures of the perf tool itself, pmuos against Linux in
the same QEMU: the wall time of `make stat PROG=hello` (a direct boot of pmuos running perf stat
of it) against perf stat of the same binary on the Linux oracle, and perf record's highest
sample rate that loses nothing (cpu-clock on both kernels; instructions:u under the simulated
PMU on pmuos).

A rate is samples per second of guest time (1 GHz under -icount): perf record of user/workloads/
spin (2 ms) at falling periods, with perf's default ring; the highest rate at which perf report
--stats shows no LOST, LOST_SAMPLES or THROTTLE record (the kernel's sampling limits, Linux's
perf_event_max_sample_rate and perf_cpu_time_max_percent, pmuos's too) is the figure.
"""
import argparse
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
import busybox_cases  # noqa: E402
import oracle  # noqa: E402
import perf_tool  # noqa: E402
import run  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
GUEST_HZ = 10 ** 9  # one instruction, one TSC tick, one ns under -icount shift=0
WALL_RUNS = 3
CLOCK_PERIODS_NS = [1000000, 500000, 200000, 100000, 50000, 20000, 10000]
INSN_PERIODS = [100000, 50000, 20000, 10000, 5000, 2000, 1000, 500, 200, 100]


def stat_hello(perf, hello):
    return [(perf, ["stat", "--", "/hello"], "/usr/bin/perf")], [(hello, "/hello")]


def sweep(perf, spin, event, periods):
    """The run list: a recording and its --stats at each period."""
    programs = []
    for p in periods:
        programs += [(perf, ["record", "-q", "-e", event, "-c", str(p), "-o", "/tmp/r.data",
                             "--", "/spin"], "/usr/bin/perf"),
                     (perf, ["report", "-i", "/tmp/r.data", "--stats"], "/usr/bin/perf")]
    return programs, [(spin, "/spin")]


def best_rate(log, periods):
    """The highest samples/s of guest time with nothing lost, or None."""
    runs = busybox_cases.split_log(log)
    best = None
    for i, p in enumerate(periods):
        if 2 * i + 1 >= len(runs):
            break
        stats = runs[2 * i + 1][1]
        samples = re.search(r"SAMPLE events:\s+(\d+)", stats)
        lost = re.search(r"(LOST|LOST_SAMPLES|THROTTLE) events:\s+[1-9]", stats)
        if samples and int(samples.group(1)) > 0 and not lost:
            best = max(best or 0, GUEST_HZ // p)
    return best


def elapsed_us(log):
    m = re.search(r"([\d.]+) seconds time elapsed", log)
    return round(float(m.group(1)) * 1e6) if m else None


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--kernel32", required=True, help="pmuos's ELF32 kernel (direct boot)")
    ap.add_argument("--oracle-init", default=str(oracle.DEFAULT_INIT))
    ap.add_argument("--timeout", type=float, default=run.DEFAULT_TIMEOUT)
    opts = ap.parse_args()
    perf = str(perf_tool.perf_binary())
    hello = os.path.join(ROOT, "build/user/workloads/hello")
    spin = os.path.join(ROOT, "build/user/workloads/spin")

    def pmuos(programs, files):
        log, *_ = run.boot_direct(opts.kernel32, programs, "ktest=0", None, opts.timeout,
                                  files=files)
        return log

    def linux(programs, files):
        return oracle.run_oracle(programs, opts.timeout, init=opts.oracle_init, files=files)[0]

    figures = {}
    for name, boot in (("pmuos", pmuos), ("linux", linux)):
        walls = []
        for _ in range(WALL_RUNS):
            start = time.monotonic()
            log = boot(*stat_hello(perf, hello))
            walls.append(time.monotonic() - start)
        figures.setdefault("perf_stat_hello_wall_ms", {})[name] = round(min(walls) * 1000)
        figures.setdefault("perf_stat_hello_elapsed_us", {})[name] = elapsed_us(log)
        log = boot(*sweep(perf, spin, "cpu-clock", CLOCK_PERIODS_NS))
        figures.setdefault("perf_record_cpu_clock_rate", {})[name] = best_rate(log, CLOCK_PERIODS_NS)
    log = pmuos(*sweep(perf, spin, "instructions:u", INSN_PERIODS))
    figures["perf_record_insn_rate"] = {"pmuos": best_rate(log, INSN_PERIODS), "linux": None}

    for name, v in figures.items():
        mine, ref = v.get("pmuos"), v.get("linux")
        ratio = f"{mine / ref:.2f}" if mine is not None and ref else "-"
        print(f"bench: {name} pmuos={'-' if mine is None else mine} "
              f"linux={'-' if ref is None else ref} ratio={ratio}")
    print("# perf_stat_hello_wall_ms: host wall time of a boot that runs perf stat of hello "
          f"(make stat PROG=hello; Linux: the oracle's boot), best of {WALL_RUNS}")
    print("# perf_stat_hello_elapsed_us: perf stat's own 'seconds time elapsed', guest time")
    print("# perf_record_*_rate: samples per second of guest time, the highest with nothing "
          "lost or throttled (perf record of a 2 ms loop, perf's default ring); "
          "instructions:u: the simulated PMU, which Linux under TCG lacks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
