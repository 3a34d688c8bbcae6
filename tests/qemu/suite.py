#!/usr/bin/env python3
"""tests/qemu/suite.py: `make test`: parser tests, pmuos on SeaBIOS and OVMF, bad runs, Linux."""
import argparse
import concurrent.futures
import os
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import image  # noqa: E402
import ktap  # noqa: E402
import run  # noqa: E402

RUNS = ("unit", "bios", "uefi", "panic", "fail", "linux")


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


def save(log_dir, name, log):
    if log_dir:
        with open(os.path.join(log_dir, f"{name}.log"), "w") as f:
            f.write(log)


def boot_iso(iso, firmware, opts, name):
    log, code, timed_out = run.boot(iso, firmware, opts.timeout)
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


def oracle(opts):
    """The same programs on Linux; tests/qemu/oracle.py knows how to boot it."""
    if not os.path.exists(os.path.join(HERE, "oracle.py")) or not opts.programs:
        why = "no programs given" if opts.programs == [] else "tests/qemu/oracle.py is missing"
        return [ktap.Outcome("oracle", True, why, skipped=True)], ""
    try:
        import oracle as linux
        kw = {"init": opts.oracle_init} if opts.oracle_init else {}
        log, code, timed_out = linux.run_oracle(opts.programs, opts.timeout, **kw)
    except Exception as e:  # noqa: BLE001 - any oracle breakage is one failed check
        return [ktap.Outcome("oracle", False, f"{type(e).__name__}: {e}")], ""
    save(opts.log_dir, "linux", log)
    return ktap.evaluate(log, code, timed_out, kernel_tests=False), f"QEMU exit code {code}"


def timed(fn, *args):
    start = time.monotonic()
    outcomes, note = fn(*args)
    return outcomes, note, time.monotonic() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--kernel", required=True, help="the kernel ELF, for the negative runs")
    ap.add_argument("--iso", required=True, help="the image with the test programs")
    ap.add_argument("--cmdline", default="", help="the kernel command line the ISO was made with")
    ap.add_argument("--program", "--module", dest="programs", action="append", default=[],
                    metavar="PATH[:ARGS]", help="a program in the ISO, in order (for Linux)")
    ap.add_argument("--no-oracle", action="store_true", help="skip the Linux run")
    ap.add_argument("--oracle-init", help="the Linux /init runner (default: oracle.py's)")
    ap.add_argument("--runs", default=",".join(RUNS), help=f"comma-separated subset of {RUNS}")
    ap.add_argument("--timeout", type=float, default=run.DEFAULT_TIMEOUT, help="per boot")
    ap.add_argument("--jobs", type=int, default=2, help="QEMU boots at once")
    ap.add_argument("--log-dir", help="serial logs go here (default: test-logs beside the ISO)")
    ap.add_argument("--quiet", action="store_true", help="print failures and the summary only")
    opts = ap.parse_args()
    opts.programs = [image.parse_module(p) for p in opts.programs]
    runs = [r for r in opts.runs.split(",") if r]
    if opts.no_oracle and "linux" in runs:
        runs.remove("linux")
    unknown = set(runs) - set(RUNS)
    if unknown:
        ap.error(f"unknown runs: {', '.join(sorted(unknown))}")
    for path in (opts.iso, opts.kernel):
        if not os.path.exists(path):
            print(f"suite.py: no such file: {path}", file=sys.stderr)
            return 2
    opts.log_dir = opts.log_dir or os.path.join(os.path.dirname(os.path.abspath(opts.iso)),
                                                "test-logs")
    os.makedirs(opts.log_dir, exist_ok=True)

    jobs = {
        "unit": (unit_tests,),
        "bios": (boot_iso, opts.iso, "bios", opts, "bios"),
        "uefi": (boot_iso, opts.iso, "uefi", opts, "uefi"),
        "panic": (negative, opts, "ktest.panic=1", "panic", "panic", "panic on purpose"),
        "fail": (negative, opts, "ktest.fail=1", "notok", "fail", "broken self-test"),
        "linux": (oracle, opts),
    }
    prefixes = {"panic": "bios", "fail": "bios"}  # the negative runs boot SeaBIOS
    totals = [0, 0, 0]
    # The OVMF boot is the longest by far (see run.py): start it first, and the other
    # boots share the second core meanwhile.
    start_order = sorted(runs, key=lambda r: r != "uefi")
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
