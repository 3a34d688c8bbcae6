#!/usr/bin/env python3
"""tests/qemu/fuzz.py: `make fuzz`: boots the perf syscall fuzzer (user/fuzz/) for some seeds.

Each seed is one run of the fuzzer program (a module of its own, in order) with
`seed=S calls=N`; the fuzzer checks the accounting counters itself and prints one KTAP
test. Without --seed a fresh seed is drawn and printed first, so any failure replays with
`make fuzz SEED=S CALLS=N` (add FUZZ_ARGS='trace=K' to print every call from the K-th).
"""
import argparse
import os
import random
import re
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import image  # noqa: E402
import ktap  # noqa: E402
import run  # noqa: E402

# Measured on the 2-core TCG host (README): some 1000 fuzzer calls a second of host time;
# the limit leaves a factor of three, plus the boot and the kernel's self-tests.
# The fuzzer's own samplers (CPU-wide persistent ones outlive their fds) may take a quarter of
# the CPU, not the default three quarters: four times the calls a second in their heavy phases.
# The default budget has its own test (perf_overflow/sampling_budget_leaves_the_task_time).
BUDGET = "perf_sample_cpu_max_percent=25"
BOOT_SECONDS = 60
CALLS_PER_SECOND_WORST = 300
REPLAY = re.compile(r"# replay: fuzz seed=(\d+) calls=(\d+) trace=(\d+)")
SUMMARY = re.compile(r"# fuzz: (\d+) calls in (\d+) guest instructions")


class Stamps:
    """A binary stream for run.boot's echo: notes when each program starts and exits, and
    passes the text on (to the terminal, or nowhere)."""

    def __init__(self, out=None):
        self.out, self.buf, self.starts, self.ends = out, b"", [], []

    def write(self, data):
        now = time.monotonic()
        self.buf += data
        while b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            if b"== run " in line:
                self.starts.append(now)
            elif b"== exit " in line:
                self.ends.append(now)
        if self.out:
            self.out.write(data)

    def flush(self):
        if self.out:
            self.out.flush()

    def seconds(self):
        """Host seconds the programs ran, the boot and self-tests left out."""
        return sum(e - s for s, e in zip(self.starts, self.ends))


def timeout_for(seeds, calls):
    return BOOT_SECONDS + len(seeds) * calls / CALLS_PER_SECOND_WORST


def module_args(seed, calls, extra=""):
    return f"seed={seed} calls={calls} {extra}".strip()


def run_fuzz(kernel, program, seeds, calls, extra="", timeout=None, log_dir=None, echo=None,
             cmdline="", smp=1):
    """Boots one image on smp CPUs with a fuzzer run per seed. Returns (outcomes, note, log)."""
    timeout = timeout or timeout_for(seeds, calls)
    if "perf_sample_cpu_max_percent=" not in cmdline:
        cmdline = f"{cmdline} {BUDGET}".strip()
    with tempfile.TemporaryDirectory(prefix="pmuos-fuzz-") as tmp:
        modules = [(program, module_args(s, calls, extra)) for s in seeds]
        iso = image.build_iso(kernel, modules, cmdline, os.path.join(tmp, "fuzz.iso"))
        stamps = Stamps(echo)
        log, code, timed_out = run.boot(iso, "bios", timeout, echo=stamps, smp=smp)
    if log_dir:
        os.makedirs(log_dir, exist_ok=True)
        with open(os.path.join(log_dir, "fuzz.log"), "w") as f:
            f.write(log)
    outcomes = ktap.evaluate(log, code, timed_out)
    done = sum(int(m.group(1)) for m in SUMMARY.finditer(log))
    insns = sum(int(m.group(2)) for m in SUMMARY.finditer(log))
    secs = stamps.seconds()
    note = f"seeds {','.join(map(str, seeds))}, {done} calls"
    if done and secs:
        note += f", {done / secs:.0f} calls/s of host time, {insns // done} guest instructions a call"
    if timed_out:
        note += f", timed out after {timeout:.0f} s"
    return outcomes, note, log


def replay_hint(log, calls):
    m = REPLAY.search(log)
    if m:
        return (f"replay: make fuzz SEED={m.group(1)} CALLS={m.group(2)} "
                f"FUZZ_ARGS='trace={m.group(3)}'")
    seeds = re.findall(r"== run \S+ seed=(\d+)", log)
    if seeds:
        return (f"replay: make fuzz SEED={seeds[-1]} CALLS={calls} "
                "FUZZ_ARGS='progress=1000' (then trace=K from the last progress line)")
    return ""


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--program", required=True, help="the fuzzer (build/user/fuzz)")
    ap.add_argument("--seed", default="", help="seed, or comma-separated seeds (default: fresh)")
    ap.add_argument("--calls", type=int, default=100000, help="calls per seed")
    ap.add_argument("--args", default="", help="more fuzzer arguments (trace=K, verbose, last=K)")
    ap.add_argument("--timeout", type=float, help="seconds for the boot (default: by calls)")
    ap.add_argument("--log-dir", help="the serial log goes here")
    ap.add_argument("--quiet", action="store_true", help="do not echo the serial output")
    ap.add_argument("--cmdline", default="", help="more kernel command line")
    ap.add_argument("--smp", type=int, default=1,
                    help="CPUs (with several, smp=N of the calls in 1000 race them: smp.c)")
    opts = ap.parse_args()

    if opts.seed:
        seeds = [int(s, 0) for s in opts.seed.split(",") if s]
    else:
        seeds = [random.SystemRandom().randrange(1, 1 << 32)]
    print(f"fuzz: seed{'s' if len(seeds) > 1 else ''} {','.join(map(str, seeds))}, "
          f"{opts.calls} calls each (replay: make fuzz SEED={seeds[0]} CALLS={opts.calls})",
          flush=True)
    echo = None if opts.quiet else sys.stdout.buffer
    start = time.monotonic()
    outcomes, note, log = run_fuzz(opts.kernel, opts.program, seeds, opts.calls, opts.args,
                                   opts.timeout, opts.log_dir, echo,
                                   opts.cmdline, opts.smp)
    print(f"\n# fuzz: {note}; {time.monotonic() - start:.0f} s in all")
    counts = run.report(outcomes, "fuzz: ", quiet=True)
    if counts[1]:
        hint = replay_hint(log, opts.calls)
        if hint:
            print(f"# {hint}")
    print(run.summary(*counts))
    return 1 if counts[1] else 0


if __name__ == "__main__":
    sys.exit(main())
