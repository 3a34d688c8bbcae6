#!/usr/bin/env python3
"""tests/qemu/test_ktap.py: unit tests of the KTAP parser on the recorded logs in logs/."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import ktap  # noqa: E402
import run  # noqa: E402

OK, PANIC = 1, 255  # QEMU's exit codes for `== halt status=0` and a panic (status 0x7f)


def read_log(name):
    with open(os.path.join(HERE, "logs", name), newline="") as f:
        return f.read()


def by_name(outcomes):
    return {o.name: o for o in outcomes}


def failed(outcomes):
    return sorted(o.name for o in outcomes if not o.passed)


class PassLog(unittest.TestCase):
    def setUp(self):
        self.out = ktap.evaluate(read_log("pass.log"), OK)
        self.named = by_name(self.out)

    def test_all_pass(self):
        self.assertEqual(failed(self.out), [])
        self.assertEqual(len(self.out), 18)

    def test_names(self):
        for name in ("kernel/frames_alloc_free", "errors/close_twice_ebadf", "startup/tls",
                     "kernel: plan", "errors: plan", "startup: exit status", "halt"):
            self.assertIn(name, self.named)
        self.assertNotIn("kernel: exit status", self.named)  # the kernel has no exit line

    def test_skip(self):
        x2apic = self.named["kernel/x2apic"]
        self.assertTrue(x2apic.passed and x2apic.skipped)
        self.assertEqual(x2apic.detail, "x2APIC not present")

    def test_args(self):
        startup = [p for p in ktap.parse(read_log("pass.log")).programs if p.name == "startup"]
        self.assertEqual(startup[0].args, "alpha beta")

    def test_reset_after_halt(self):
        halt = by_name(ktap.evaluate(read_log("pass.log"), 0))["halt"]
        self.assertFalse(halt.passed)
        self.assertIn("QEMU exit code 0", halt.detail)

    def test_interactive_status(self):
        self.assertEqual(run.run_status(read_log("pass.log"), OK), (None, 0))


class FailLog(unittest.TestCase):
    def setUp(self):
        self.out = ktap.evaluate(read_log("fail.log"), OK)

    def test_failures(self):
        self.assertEqual(failed(self.out), ["fds/read_after_close", "fds: exit status"])

    def test_detail_has_diagnostics(self):
        detail = by_name(self.out)["fds/read_after_close"].detail
        self.assertIn("fds.c:88", detail)
        self.assertIn("fds.c:89", detail)
        self.assertNotIn("1 of 3 failed", detail)  # printed after the result line

    def test_ovmf_noise_ignored(self):
        self.assertTrue(by_name(self.out)["kernel: plan"].passed)

    def test_expect_notok(self):
        self.assertTrue(run.expect_failure(self.out, OK, "notok").passed)
        self.assertFalse(run.expect_failure(self.out, OK, "panic").passed)

    def test_interactive_status(self):
        self.assertEqual(run.run_status(read_log("fail.log"), OK), (None, 1))


class PanicLog(unittest.TestCase):
    def setUp(self):
        self.out = ktap.evaluate(read_log("panic.log"), PANIC)

    def test_panic_text(self):
        panic = by_name(self.out)["panic"]
        self.assertFalse(panic.passed)
        lines = panic.detail.splitlines()
        self.assertTrue(lines[0].startswith("Kernel panic - not syncing: page fault"))
        self.assertEqual(lines[-1], "---[ end Kernel panic ]---")
        self.assertIn("Call Trace:", lines)

    def test_plan_unmet(self):
        plan = by_name(self.out)["kernel: plan"]
        self.assertFalse(plan.passed)
        self.assertIn("5 planned, 2 ran", plan.detail)
        self.assertEqual(failed(self.out), ["kernel: plan", "panic"])

    def test_expect_panic(self):
        self.assertTrue(run.expect_failure(self.out, PANIC, "panic").passed)
        self.assertFalse(run.expect_failure(self.out, OK, "panic").passed)  # wrong exit code
        self.assertFalse(run.expect_failure(self.out, PANIC, "notok").passed)

    def test_panic_without_end_marker(self):
        text = read_log("panic.log").split("Call Trace:")[0]
        self.assertTrue(by_name(ktap.evaluate(text, 0))["panic"].detail.endswith("error code 0x2"))


class TruncatedLog(unittest.TestCase):
    def setUp(self):
        self.out = ktap.evaluate(read_log("truncated.log"), 0)

    def test_failures(self):
        self.assertEqual(failed(self.out), ["halt", "mmap: exit status", "mmap: plan"])
        named = by_name(self.out)
        self.assertIn("5 planned, 3 ran", named["mmap: plan"].detail)
        self.assertIn("never finished", named["mmap: exit status"].detail)
        self.assertTrue(named["mmap/file_backed_enodev"].passed)

    def test_timeout(self):
        halt = by_name(ktap.evaluate(read_log("truncated.log"), -9, timed_out=True))["halt"]
        self.assertIn("timed out", halt.detail)


class NestedLog(unittest.TestCase):
    def setUp(self):
        self.out = ktap.evaluate(read_log("nested.log"), OK)
        self.named = by_name(self.out)

    def test_all_pass(self):
        self.assertEqual(failed(self.out), [])

    def test_nested_names(self):
        for name in ("perf/counting/task_clock_read", "perf/sampling/period/fixed_period",
                     "perf/sampling/ring_wrap", "ring/ring/head_tail", "ring/mmap_page"):
            self.assertIn(name, self.named)
        self.assertNotIn("perf/counting", self.named)  # a passing suite is its tests

    def test_skips(self):
        skipped = sorted(o.name for o in self.out if o.skipped)
        self.assertEqual(skipped, ["kernel/x2apic", "perf/aux", "perf/counting/cycles_exact",
                                   "perf/sampling/period/freq_mode"])
        self.assertEqual(self.named["perf/aux"].detail, "no itrace PMU")

    def test_header_diagnostics_are_no_tests(self):
        self.assertEqual(self.named["perf/counting/task_clock_read"].detail, "")


class SegvLog(unittest.TestCase):
    def setUp(self):
        self.out = ktap.evaluate(read_log("segv.log"), OK)
        self.named = by_name(self.out)

    def test_expected_status(self):
        self.assertTrue(self.named["segv: exit status"].passed)
        self.assertNotIn("segv: plan", self.named)  # a status-only test prints no KTAP

    def test_signal_death(self):
        status = self.named["signals: exit status"]
        self.assertFalse(status.passed)
        self.assertIn("139 (SIGSEGV)", status.detail)
        self.assertIn("task 4 (signals): SIGSEGV", status.detail)
        self.assertEqual(failed(self.out), ["signals: exit status", "signals: plan"])


def doc(body, status=0, name="p"):
    return f"KTAP version 1\n1..0\n== run {name}\n{body}== exit {name} status={status}\n" \
        "== halt status=0\n"


class Inline(unittest.TestCase):
    """Corner cases, each on a few lines of log."""

    def check(self, body, want_failed, **kw):
        self.assertEqual(failed(ktap.evaluate(doc(body, **kw), OK)), want_failed)

    def test_clean(self):
        self.assertEqual(ktap.clean("\x1b[0m\x1b[37mjunk\rKTAP version 1\r"), "KTAP version 1")

    def test_todo_failure_counts(self):
        self.check("KTAP version 1\n1..1\nnot ok 1 x # TODO later\n", ["p/x"])

    def test_skipped_failure_passes(self):
        self.check("KTAP version 1\n1..1\nnot ok 1 x # SKIP no pmu\n", [])

    def test_missing_plan(self):
        self.check("KTAP version 1\nok 1 x\n", ["p: plan"])

    def test_too_many_results(self):
        self.check("KTAP version 1\n1..1\nok 1 x\nok 2 y\n", ["p: plan"])

    def test_no_ktap(self):
        self.check("hello\n", ["p: plan"])

    def test_bail_out(self):
        self.check("KTAP version 1\n1..1\nBail out! no memory\nok 1 x\n", ["p: plan"])

    def test_suite_failure_without_failing_test(self):
        body = "KTAP version 1\n1..1\n    KTAP version 1\n    1..1\n    ok 1 a\nnot ok 1 s\n"
        self.check(body, ["p/s"])

    def test_subtest_without_result(self):
        body = "KTAP version 1\n1..1\n    KTAP version 1\n    1..1\n    ok 1 a\n"
        self.check(body, ["p: plan"])

    def test_noise_between_lines(self):
        self.check("KTAP version 1\nsome output\n1..2\n  odd indent\nok 1 a\nmore\nok 2 b\n", [])

    def test_two_documents(self):
        self.check("TAP version 13\n1..1\nok 1 a\nKTAP version 1\n1..1\nnot ok 1 b\n", ["p/b"])

    def test_same_program_twice(self):
        text = doc("KTAP version 1\n1..1\nok 1 a\n") + "== run p\n== exit p status=3\n"
        names = failed(ktap.evaluate(text, OK))
        self.assertEqual(names, ["p(2): exit status", "p(2): plan"])

    def test_kernel_tests_required(self):
        text = "== run p\nKTAP version 1\n1..1\nok 1 a\n== exit p status=0\n== halt status=0\n"
        self.assertEqual(failed(ktap.evaluate(text, OK)), ["kernel: plan"])
        self.assertEqual(failed(ktap.evaluate(text, OK, kernel_tests=False)), [])

    def test_exit_without_run_line(self):
        text = "KTAP version 1\n1..0\n== exit x status=127\n== halt status=0\n"
        self.assertEqual(failed(ktap.evaluate(text, OK)), ["x: exit status", "x: plan"])

    def test_halt_status(self):
        text = "KTAP version 1\n1..0\n== halt status=3\n"
        self.assertEqual(failed(ktap.evaluate(text, 7)), ["halt"])


class SerialInputTests(unittest.TestCase):
    """The console input run.boot types: end of input as a user types it, sent on a prompt."""

    def test_typed(self):
        self.assertEqual(run.typed(b"a\n"), b"a\n\x04")
        self.assertEqual(run.typed(b"a"), b"a\x04\x04")
        self.assertEqual(run.typed(b""), b"\x04")

    def test_waits_for_the_prompt(self):
        import subprocess
        proc = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        feed = run.SerialInput(proc, b"data", after=b"ready")
        feed.output(b"not re")
        self.assertIsNone(feed.thread)
        feed.output(b"ady yet")  # the prompt split across two chunks
        feed.thread.join()
        with proc.stdout:
            self.assertEqual(proc.stdout.read(), b"data")  # and then end of file
        proc.wait()


if __name__ == "__main__":
    unittest.main()
