#!/usr/bin/env python3
"""tests/qemu/suite.py: `make test`: parser tests, host unit tests, pmuos on SeaBIOS and OVMF,
bad runs, the perf syscall fuzzer with fixed seeds, Linux."""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import busybox_cases  # noqa: E402
import fuzz  # noqa: E402
import image  # noqa: E402
import ktap  # noqa: E402
import run  # noqa: E402

# The console input of the boots with test programs, for user/tests/tty.c (run with --stdin):
# typed once it asks, on pmuos and Linux alike. Linux flushes what arrives before it opens
# its console, and a program that asks sees its echo after the prompt on both kernels.
TTY_INPUT = {"stdin_data": run.typed(b"pmuos-tty-input\n"),
             "stdin_after": b"# tty: waiting for stdin"}
RUNS = ("unit", "host", "bios", "uefi", "panic", "fail", "fuzz", "linux", "linux-smp", "busybox",
        "hostout", "perf", "clang", "smp")
DEFAULT_RUNS = RUNS
NEEDS_IMAGE = {"bios", "uefi", "panic", "fail", "fuzz", "smp"}
# The UEFI boot runs the whole userland on two CPUs (SeaBIOS boots it on one, and the smp run
# directly on two and four): OVMF's multiboot2 path, its MADT and its APs in one boot.
UEFI_CPUS = 2
# Linux on several CPUs runs without -icount (Linux 6.1 does not start a second CPU under QEMU
# 7.2's icount, see README): its clocks follow the host's, and the tests allow for a busy one.
ORACLE_SMP_CPUS = (2, 4)


class Collect(unittest.TestResult):
    """Keeps one outcome per unittest test, so parser tests count like the others."""

    def __init__(self):
        super().__init__()
        self.outcomes = []

    @staticmethod
    def name(test):
        return test.id().split(".", 1)[-1]  # Class.test_method, without the module

    def addSuccess(self, test):
        self.outcomes.append(ktap.Outcome(self.name(test), True))

    def addFailure(self, test, err):
        detail = self._exc_info_to_string(err, test)
        self.outcomes.append(ktap.Outcome(self.name(test), False, detail))

    addError = addFailure

    def addSkip(self, test, reason):
        self.outcomes.append(ktap.Outcome(self.name(test), True, reason, skipped=True))


def unit_tests():
    result = Collect()
    unittest.defaultTestLoader.loadTestsFromName("test_ktap").run(result)
    return result.outcomes, ""


def host_tests(opts):
    """The host unit tests (tests/unit/, ASan and UBSan builds): each KTAP program, then the
    libFuzzer target for a bounded time from a corpus of valid attrs."""
    outcomes, logs = [], []
    if not opts.unit_dir or not os.path.isdir(opts.unit_dir):
        return [ktap.Outcome("host", False, f"no unit test directory {opts.unit_dir!r}")], ""
    names = sorted(os.listdir(opts.unit_dir))
    for name in names:
        path = os.path.join(opts.unit_dir, name)
        if not name.endswith("_test") or not os.access(path, os.X_OK):
            continue
        try:
            res = subprocess.run([path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 timeout=opts.timeout, text=True, errors="replace")
            text, code = res.stdout, res.returncode
        except subprocess.TimeoutExpired as e:
            text, code = (e.stdout or b"").decode("utf-8", "replace") + "\n(timed out)", -1
        logs.append(f"== run {name}\n{text}\n== exit {name} status={code}\n")
        log = ktap.parse(logs[-1])
        for p in log.programs:
            outcomes += ktap.program_outcomes(p)
    for name in names:
        if name.endswith("_fuzz"):
            outcomes.append(libfuzzer(os.path.join(opts.unit_dir, name), opts, logs))
    save(opts.log_dir, "host", "".join(logs))
    fuzz_note = f"libFuzzer {opts.libfuzzer_seconds:g} s each" if opts.libfuzzer_seconds else ""
    return outcomes, fuzz_note


def attr_seeds(corpus):
    """A few valid attrs of each published size for the attr fuzzer to start from: byte 0 is
    the harness's (user memory writable, no skew), then the attr."""
    import struct
    for i, size in enumerate((0, 64, 72, 80, 96, 104, 112, 120, 128, 136, 4096)):
        attr = bytearray(max(size, 128) if size != 4096 else 4096)
        struct.pack_into("<IIQQQQQ", attr, 0, 1, size, 0, 4000, 0x3ff, 0xf, 1 | 1 << 6)
        with open(os.path.join(corpus, f"seed{i}"), "wb") as f:
            f.write(b"\x01" + bytes(attr))


def libfuzzer(path, opts, logs):
    name = os.path.basename(path)
    if not opts.libfuzzer_seconds:
        return ktap.Outcome(name, True, "--libfuzzer-seconds 0", skipped=True)
    with tempfile.TemporaryDirectory(prefix="pmuos-corpus-") as corpus:
        attr_seeds(corpus)
        # -seed fixed: the same inputs every run, so a failure is a change in the code
        cmd = [path, f"-max_total_time={opts.libfuzzer_seconds:g}", "-seed=1",
               "-print_final_stats=1", f"-artifact_prefix={corpus}/", corpus]
        try:
            res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                 errors="replace", timeout=opts.libfuzzer_seconds + 60)
            text, code = res.stdout, res.returncode
        except subprocess.TimeoutExpired as e:
            text, code = (e.stdout or b"").decode("utf-8", "replace") + "\n(timed out)", -1
    logs.append(f"== libfuzzer {name}\n{text}\n")
    runs = re.search(r"stat::number_of_executed_units:\s*(\d+)", text)
    detail = f"{int(runs.group(1))} inputs" if runs else ""
    if code:
        tail = "\n".join(l for l in text.splitlines() if not l.startswith("#"))[-3000:]
        return ktap.Outcome(name, False, f"exit status {code}\n{tail}")
    return ktap.Outcome(name, True, detail)


# The fuzzer's races between CPUs (user/fuzz/smp.c): one -smp 2 boot, these seeds and calls,
# 50 races in 1000 calls.
FUZZ_SMP_SEEDS, FUZZ_SMP_CALLS, FUZZ_SMP_ARGS = (1, 2), 10000, "smp=50"


def fuzz_run(opts):
    """The perf syscall fuzzer with fixed seeds (repeatable): one boot on one CPU, then one on
    two CPUs with races between them."""
    if not opts.fuzz_program:
        return [ktap.Outcome("fuzz", True, "no --fuzz-program", skipped=True)], ""
    seeds = [int(s) for s in opts.fuzz_seeds.split(",") if s]
    result, notes = [], []
    for name, seeds, calls, extra, cpus in (
            ("fuzz", seeds, opts.fuzz_calls, "", 1),
            ("fuzz-smp2", FUZZ_SMP_SEEDS, FUZZ_SMP_CALLS, FUZZ_SMP_ARGS, 2)):
        outcomes, note, log = fuzz.run_fuzz(opts.kernel, opts.fuzz_program, seeds, calls,
                                            extra=extra, cmdline=opts.cmdline, smp=cpus)
        save(opts.log_dir, name, log)
        if any(not o.passed for o in outcomes):
            hint = fuzz.replay_hint(log, calls)
            if hint:
                outcomes.append(ktap.Outcome("replay", False, hint, kind="expect"))
        result += [o._replace(name=f"-smp {cpus}: {o.name}") if cpus > 1 else o
                   for o in outcomes]
        notes.append(note)
    return result, "; ".join(notes)


def save(log_dir, name, log):
    if log_dir:
        with open(os.path.join(log_dir, f"{name}.log"), "w") as f:
            f.write(log)


# OVMF under icount takes 60-90 s of a quiet 2-core host for the whole userland, beside the
# other runs, and has passed 120 s on a loaded one: its boots get this many times the
# per-boot timeout, which only a hung boot waits out.
UEFI_TIMEOUT_FACTOR = 3


def boot_iso(iso, firmware, opts, name, cpus=1):
    timeout = opts.timeout * (UEFI_TIMEOUT_FACTOR if firmware == "uefi" else 1)
    log, code, timed_out = run.boot(iso, firmware, timeout, smp=cpus, **TTY_INPUT)
    save(opts.log_dir, name, log)
    return ktap.evaluate(log, code, timed_out), f"QEMU exit code {code}"


def negative(opts, flag, want, name, title):
    """Boots the kernel alone with a ktest flag that must make it fail; one outcome."""
    with tempfile.TemporaryDirectory(prefix="pmuos-neg-") as tmp:
        iso = image.build_iso(opts.kernel, [], f"{opts.cmdline} {flag}".strip(),
                              os.path.join(tmp, f"{name}.iso"))
        log, code, timed_out = run.boot(iso, "bios", opts.timeout)
    save(opts.log_dir, name, log)
    outcome = run.expect_failure(ktap.evaluate(log, code, timed_out), code, want)
    return [outcome._replace(name=title)], f"{flag}, QEMU exit code {code}"


def smp_iso(opts, firmware, cpus, name):
    """The kernel alone (its self-tests, an empty run list) from a GRUB image on QEMU -smp
    cpus: the RSDP from GRUB's multiboot2 tag, every CPU of the MADT started; smp.expect
    makes the self-test smp_every_cpu_up count them."""
    with tempfile.TemporaryDirectory(prefix="pmuos-smp-") as tmp:
        iso = image.build_iso(opts.kernel, [], f"{opts.cmdline} smp.expect={cpus}".strip(),
                              os.path.join(tmp, f"{name}.iso"))
        log, code, timed_out = run.boot(iso, firmware, opts.timeout, smp=cpus)
    save(opts.log_dir, name, log)
    return [o._replace(name=f"-smp {cpus}: {o.name}")
            for o in ktap.evaluate(log, code, timed_out)]


def smp_run(opts):
    """Several CPUs, SeaBIOS: GRUB images with -smp 2 and -smp 4, then the whole userland
    booted directly (qboot: the RSDP found by the BIOS-area scan) with -smp 2 and -smp 4 and
    the self-tests on: tasks start on their creator's CPU, and user/tests/cpus.c pins threads
    to each CPU."""
    result = smp_iso(opts, "bios", 2, "smp2-bios") + smp_iso(opts, "bios", 4, "smp4-bios")
    for cpus in (2, 4) if opts.programs else ():
        log, code, timed_out, _, _ = run.boot_direct(
            opts.kernel32, opts.programs, f"{opts.cmdline} ktest=1 smp.expect={cpus}", None,
            opts.timeout, smp=cpus, **TTY_INPUT)
        save(opts.log_dir, f"smp{cpus}-direct", log)
        result += [o._replace(name=f"-smp {cpus} direct: {o.name}")
                   for o in ktap.evaluate(log, code, timed_out)]
    result += smp_determinism(opts)
    return result, "GRUB -smp 2 and 4, direct -smp 2 and 4 with the programs, icount determinism"


# Programs whose output depends on exact instruction timing (sample positions, records lost).
DETERMINISM_PROGRAMS = ("perf_count", "perf_sample")


def smp_determinism(opts):
    """Under -icount the idle APs must not move CPU 0's clock: two -smp 2 boots give the same
    serial output byte for byte, and a -smp 1 boot the same but for the lines about CPUs and
    the kernel-mode sample count perf_sample prints (the kernel lock is off on one CPU,
    kernel_lock.h, and its cost on several is kernel time)."""
    progs = [p for p in opts.programs if os.path.basename(p[0]) in DETERMINISM_PROGRAMS]
    if not progs:
        return [ktap.Outcome("determinism", True, "no perf_count or perf_sample given",
                             skipped=True)]
    logs = {}
    for name, cpus in (("smp1-a", 1), ("smp2-a", 2), ("smp2-b", 2)):
        log, code, timed_out, _, _ = run.boot_direct(opts.kernel32, progs,
                                                     f"{opts.cmdline} ktest=0", None,
                                                     opts.timeout, smp=cpus)
        save(opts.log_dir, f"determinism-{name}", log)
        logs[name] = log
        if code != 1 or timed_out:  # `== halt status=0` exits QEMU with (0 << 1) | 1
            return [ktap.Outcome(f"determinism: {name} boot", False,
                                 f"QEMU exit code {code}, timed out {timed_out}")]

    def cpu_lines_out(text):
        return [line for line in text.splitlines()
                if not line.startswith(("pmuos: ACPI:", "pmuos: SMP:"))
                and not line.endswith(" kernel samples")]
    same2 = logs["smp2-a"] == logs["smp2-b"]
    same1 = cpu_lines_out(logs["smp1-a"]) == cpu_lines_out(logs["smp2-a"])
    return [ktap.Outcome("determinism: -smp 2 twice, byte for byte", same2,
                         "" if same2 else "the two -smp 2 logs differ (build/test-logs)"),
            ktap.Outcome("determinism: -smp 1 and -smp 2 but the CPU lines", same1,
                         "" if same1 else "the -smp 1 and -smp 2 logs differ (build/test-logs)")]


def oracle(opts, cpus=1):
    """The same programs on Linux; tests/qemu/oracle.py knows how to boot it. With several
    CPUs, without icount."""
    programs = opts.programs
    if not os.path.exists(os.path.join(HERE, "oracle.py")) or not programs:
        why = "no programs given" if not programs else "tests/qemu/oracle.py is missing"
        return [ktap.Outcome("oracle", True, why, skipped=True)], ""
    try:
        import oracle as linux
        kw = {"init": opts.oracle_init} if opts.oracle_init else {}
        log, code, timed_out = linux.run_oracle(programs, opts.timeout, **kw, **TTY_INPUT,
                                                smp=cpus, icount=cpus == 1)
    except Exception as e:  # noqa: BLE001 - any oracle breakage is one failed check
        return [ktap.Outcome("oracle", False, f"{type(e).__name__}: {e}")], ""
    save(opts.log_dir, "linux" if cpus == 1 else f"linux-smp{cpus}", log)
    outcomes = ktap.evaluate(log, code, timed_out, kernel_tests=False)
    note = f"QEMU exit code {code}" + ("" if cpus == 1 else f", -smp {cpus} without icount")
    return outcomes, note


def oracle_smp(opts):
    """The suite on Linux at each of ORACLE_SMP_CPUS, as the smp run boots pmuos."""
    outcomes, notes = [], []
    for cpus in ORACLE_SMP_CPUS:
        result, note = oracle(opts, cpus)
        outcomes += [o._replace(name=f"-smp {cpus}: {o.name}") for o in result]
        notes.append(note)
    return outcomes, "; ".join(notes)


def busybox(opts):
    """Debian's static busybox applets, one per run-list program, on pmuos (booted directly)
    and on Linux: each must exit 0 with the output its case names."""
    if not opts.busybox or not os.path.exists(opts.busybox):
        return [ktap.Outcome("busybox", True, f"no {opts.busybox} (busybox-static)",
                             skipped=True)], ""
    progs = busybox_cases.programs(opts.busybox)
    log, code, timed_out, _, _ = run.boot_direct(opts.kernel32, progs, f"{opts.cmdline} ktest=0",
                                                 None, opts.timeout)
    save(opts.log_dir, "busybox-pmuos", log)
    result = [o._replace(name=f"pmuos {o.name}") for o in busybox_cases.outcomes(log)]
    # The applets print no KTAP: of the usual verdicts, only a panic or a hang counts.
    result += [o for o in ktap.evaluate(log, code, timed_out, kernel_tests=False)
               if not o.passed and (o.kind == "panic" or timed_out)]
    if not opts.no_oracle:
        kw = {"init": opts.oracle_init} if opts.oracle_init else {}
        import oracle as linux
        log, code, timed_out = linux.run_oracle(progs, opts.timeout, **kw)
        save(opts.log_dir, "busybox-linux", log)
        result += [o._replace(name=f"linux {o.name}") for o in busybox_cases.outcomes(log)]
    return result, f"{len(busybox_cases.CASES)} applet runs a kernel"


def perf_run(opts):
    """The perf tool inside both kernels (tests/qemu/perf_cases.py), built into its cache the
    first time (tests/qemu/perf_tool.py), and the host's perf on what pmuos recorded."""
    import perf_cases
    import perf_tool
    try:
        perf_binary = str(perf_tool.perf_binary())
    except perf_tool.PerfToolError as e:
        return [ktap.Outcome("perf tool build", False, str(e))], ""
    programs, files = perf_cases.run_list(perf_cases.PMUOS, perf_binary)
    with tempfile.TemporaryDirectory(prefix="pmuos-perf-") as tmp:
        out, symfs = os.path.join(tmp, "out"), os.path.join(tmp, "symfs")
        log, code, timed_out, _, errors = run.boot_direct(
            opts.kernel32, programs, f"{opts.cmdline} ktest=0", out, opts.timeout,
            files=files, symfs=symfs)
        save(opts.log_dir, "perf-pmuos", log)
        result, seen = perf_cases.outcomes(log, perf_cases.PMUOS, "pmuos ")
        result += [o for o in ktap.evaluate(log, code, timed_out, kernel_tests=False)
                   if not o.passed and (o.kind == "panic" or timed_out)]
        result += [ktap.Outcome("pmuos: files to the host", False, e) for e in errors]
        result += perf_cases.host_report(out, symfs, opts.kernel)
    for cpus in (2, 4):
        cases = perf_cases.smp_cases(cpus)
        programs, files = perf_cases.run_list(cases, perf_binary)
        with tempfile.TemporaryDirectory(prefix="pmuos-perf-smp-") as out:
            log, code, timed_out, _, _ = run.boot_direct(
                opts.kernel32, programs, f"{opts.cmdline} ktest=0", out, opts.timeout,
                files=files, smp=cpus)
            save(opts.log_dir, f"perf-pmuos-smp{cpus}", log)
            result += [o._replace(name=f"-smp {cpus}: {o.name}")
                       for o in perf_cases.outcomes(log, cases, "pmuos ")[0]]
            result += [o for o in ktap.evaluate(log, code, timed_out, kernel_tests=False)
                       if not o.passed and (o.kind == "panic" or timed_out)]
            result += perf_cases.host_cpus_of_samples(out, cpus)
    if not opts.no_oracle:
        import oracle as linux
        kw = {"init": opts.oracle_init} if opts.oracle_init else {}
        programs, files = perf_cases.run_list(perf_cases.SHARED, perf_binary)
        log, code, timed_out = linux.run_oracle(programs, opts.timeout, files=files, **kw)
        save(opts.log_dir, "perf-linux", log)
        linux_result, linux_seen = perf_cases.outcomes(log, perf_cases.SHARED, "linux ")
        result += linux_result + perf_cases.compare(seen, linux_seen)
    return result, (f"{len(perf_cases.PMUOS)} perf runs on pmuos, perf stat -a, stat -C and "
                    f"record -a at -smp 2 and 4, {len(perf_cases.SHARED)} on Linux")


HOSTOUT_SIZE = 1 << 20


def hostout_run(opts):
    """Files a program writes under /out reach the host (COM2) byte for byte: a direct boot
    of user/tests/outfiles.c, then the files run.py extracted."""
    prog = next((p for p, _ in opts.programs if os.path.basename(p) == "outfiles"), None)
    if not prog:
        return [ktap.Outcome("hostout", True, "no outfiles program given", skipped=True)], ""
    with tempfile.TemporaryDirectory(prefix="pmuos-out-") as out:
        start = time.monotonic()
        log, code, timed_out, files, errors = run.boot_direct(
            opts.kernel32, [(prog, str(HOSTOUT_SIZE))], f"{opts.cmdline} ktest=0", out,
            opts.timeout)
        secs = time.monotonic() - start
        save(opts.log_dir, "hostout", log)
        result = [o for o in ktap.evaluate(log, code, timed_out, kernel_tests=False)]
        result += [ktap.Outcome("hostout: intact", not errors, "\n".join(errors))]
        want = {"hello.txt": b"hello from pmuos\n",
                "sub/pattern.bin": bytes((i * 131 + (i >> 12)) & 0xff
                                         for i in range(HOSTOUT_SIZE))}
        for name, data in want.items():
            path = os.path.join(out, name)
            got = open(path, "rb").read() if os.path.exists(path) else None
            result.append(ktap.Outcome(f"hostout: {name}", got == data,
                                       "" if got == data else
                                       f"{'missing' if got is None else f'{len(got)} bytes differ'}"))
    return result, f"{HOSTOUT_SIZE} bytes and a line, boot to exit {secs:.1f} s"


# A CPU without SMAP (every other boot has it): STAC and CLAC are patched out at boot.
NO_SMAP_CPU = "max,-smap,-rdrand,-rdseed"


def clang_build(opts):
    """The kernel builds with clang too (its own build folder beside the GCC one), and that
    kernel runs the self-tests and the userland on a CPU without SMAP; the other boots test
    the GCC build with SMAP."""
    build = os.path.join(os.path.dirname(os.path.abspath(opts.kernel)), "clang")
    res = subprocess.run(["make", "-s", f"BUILD={build}", "CC=clang",
                          f"{build}/pmuos.elf", f"{build}/pmuos32.elf"],
                         cwd=os.path.dirname(os.path.dirname(HERE)),
                         capture_output=True, text=True)
    out = (res.stdout + res.stderr).strip()
    result = [ktap.Outcome("kernel built with clang", res.returncode == 0, out[-3000:])]
    if res.returncode == 0 and opts.programs:
        log, code, timed_out, _, _ = run.boot_direct(
            os.path.join(build, "pmuos32.elf"), opts.programs, f"{opts.cmdline} ktest=1",
            None, opts.timeout, cpu=NO_SMAP_CPU, **TTY_INPUT)
        save(opts.log_dir, "clang-nosmap", log)
        result += [o._replace(name=f"clang, no SMAP: {o.name}")
                   for o in ktap.evaluate(log, code, timed_out)]
    return result, "built with clang, booted on a CPU without SMAP"


def timed(fn, *args):
    start = time.monotonic()
    outcomes, note = fn(*args)
    return outcomes, note, time.monotonic() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--kernel", required=True, help="the kernel ELF, for the negative runs")
    ap.add_argument("--kernel32", help="its ELF32 copy, for direct boots (default: beside it)")
    ap.add_argument("--busybox", default="/bin/busybox", help="busybox-static, for the busybox run")
    ap.add_argument("--iso", required=True, help="the image with the test programs")
    ap.add_argument("--cmdline", default="", help="the kernel command line the ISO was made with")
    ap.add_argument("--program", "--module", dest="programs", action="append", default=[],
                    metavar="PATH[:ARGS]", help="a program in the ISO, in order (for Linux)")
    ap.add_argument("--no-oracle", action="store_true", help="skip the Linux run")
    ap.add_argument("--oracle-init", help="the Linux /init runner (default: oracle.py's)")
    ap.add_argument("--runs", default=",".join(DEFAULT_RUNS),
                    help=f"comma-separated subset of {RUNS}")
    ap.add_argument("--timeout", type=float, default=run.DEFAULT_TIMEOUT, help="per boot")
    ap.add_argument("--jobs", type=int, default=2, help="QEMU boots at once")
    ap.add_argument("--log-dir", help="serial logs go here (default: test-logs beside the ISO)")
    ap.add_argument("--quiet", action="store_true", help="print failures and the summary only")
    ap.add_argument("--unit-dir", help="the host unit tests (*_test) and libFuzzer targets (*_fuzz)")
    ap.add_argument("--libfuzzer-seconds", type=float, default=20, help="per libFuzzer target")
    ap.add_argument("--fuzz-program", help="the perf syscall fuzzer (build/user/fuzz)")
    ap.add_argument("--fuzz-seeds", default="1,2,3,4", help="its fixed seeds, one run each")
    ap.add_argument("--fuzz-calls", type=int, default=50000, help="calls per seed")
    opts = ap.parse_args()
    opts.programs = [image.parse_module(p) for p in opts.programs]
    opts.kernel32 = opts.kernel32 or os.path.join(os.path.dirname(opts.kernel), "pmuos32.elf")
    runs = [r for r in opts.runs.split(",") if r]
    if opts.no_oracle and "linux" in runs:
        runs.remove("linux")
    unknown = set(runs) - set(RUNS)
    if unknown:
        ap.error(f"unknown runs: {', '.join(sorted(unknown))}")
    for path in (opts.iso, opts.kernel) if NEEDS_IMAGE & set(runs) else ():
        if not os.path.exists(path):
            print(f"suite.py: no such file: {path}", file=sys.stderr)
            return 2
    opts.log_dir = opts.log_dir or os.path.join(os.path.dirname(os.path.abspath(opts.iso)),
                                                "test-logs")
    os.makedirs(opts.log_dir, exist_ok=True)

    jobs = {
        "unit": (unit_tests,),
        "host": (host_tests, opts),
        "fuzz": (fuzz_run, opts),
        "bios": (boot_iso, opts.iso, "bios", opts, "bios"),
        "uefi": (boot_iso, opts.iso, "uefi", opts, "uefi", UEFI_CPUS),
        "panic": (negative, opts, "ktest.panic=1", "panic", "panic", "panic on purpose"),
        "fail": (negative, opts, "ktest.fail=1", "notok", "fail", "broken self-test"),
        "linux": (oracle, opts),
        "linux-smp": (oracle_smp, opts),
        "busybox": (busybox, opts),
        "hostout": (hostout_run, opts),
        "perf": (perf_run, opts),
        "clang": (clang_build, opts),
        "smp": (smp_run, opts),
    }
    prefixes = {"panic": "bios", "fail": "bios"}  # the negative runs boot SeaBIOS
    totals = [0, 0, 0]
    # The OVMF boot is the longest by far (see run.py): start it first, and the other
    # boots share the second core meanwhile.
    start_order = sorted(runs, key=lambda r: (r != "uefi", r != "fuzz"))
    with concurrent.futures.ThreadPoolExecutor(max(1, opts.jobs)) as pool:
        futures = {r: pool.submit(timed, *jobs[r]) for r in start_order}
        for r in runs:  # report in a fixed order, whatever finishes first
            try:
                outcomes, note, secs = futures[r].result()
            except Exception as e:  # noqa: BLE001 - a harness bug fails the run, not the suite
                outcomes, note, secs = [ktap.Outcome("harness", False, repr(e))], "", 0.0
            print(f"# {r}: {secs:.1f} s" + (f", {note}" if note else ""))
            counts = run.report(outcomes, f"{prefixes.get(r, r)}: ", opts.quiet)
            totals = [a + b for a, b in zip(totals, counts)]
    if totals[1]:
        print(f"# serial logs in {opts.log_dir}")
    print(run.summary(*totals))
    return 1 if totals[1] else 0


if __name__ == "__main__":
    sys.exit(main())
