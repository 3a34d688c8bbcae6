"""tests/qemu/ktap.py: parses a serial log (KTAP documents + runner lines) into test outcomes."""
import re
import signal
from typing import NamedTuple

# Terminal control from GRUB and OVMF (colours, cursor moves) would glue onto the kernel's
# first line; strip it before matching.
ANSI = re.compile(r"\x1b(\[[0-9;=?]*[ -/]*[@-~]|[@-Z\\-_])")
VERSION = re.compile(r"(KTAP version 1|TAP version 1[34])\s*$")
PLAN = re.compile(r"1\.\.(\d+)\s*(?:#\s*(.*))?$")
RESULT = re.compile(r"(not ok|ok)\s+(\d+)\b\s*(?:-\s+)?(.*)$")
DIRECTIVE = re.compile(r"(SKIP|TODO)\b\s*(.*)$", re.IGNORECASE)
SUBTEST = re.compile(r"#\s*Subtest:\s*(.*)$")
BAIL = re.compile(r"Bail out!\s*(.*)$")
RUN = re.compile(r"== run (\S+)\s*(.*)$")
EXIT = re.compile(r"== exit (\S+) status=(-?\d+)")
HALT = re.compile(r"== halt status=(-?\d+)")
EXPECT_STATUS = re.compile(r"--expect-status=(\d+)")
PANIC = "Kernel panic - not syncing:"
PANIC_END = "---[ end Kernel panic"
PANIC_EXIT = 0x7F  # the status both kernels hand isa-debug-exit after a panic


class Outcome(NamedTuple):
    name: str
    passed: bool
    detail: str = ""
    skipped: bool = False
    kind: str = "test"  # test (a result line), plan, exit, panic, halt


class Test:
    """A KTAP test: a result line, and for a suite the subtests indented above it."""

    def __init__(self):
        self.name = self.subtest_name = None
        self.number = self.plan = self.ok = self.directive = None
        self.reason = ""
        self.subtests, self.diag, self.pending = [], [], []  # pending: diag for the next leaf
        self.bail, self.seen_version = None, False

    def title(self):
        return self.name or self.subtest_name or (f"#{self.number}" if self.number else "?")


class Program:
    """One `== run` .. `== exit` stretch of the log (or the kernel's own output)."""

    def __init__(self, name, args=""):
        self.name, self.args = name, args
        self.status = None  # None: no `== exit` line seen
        self.docs, self.lines = [], []
        m = EXPECT_STATUS.search(args)
        self.expect_status = int(m.group(1)) if m else None


class Log:
    def __init__(self):
        self.programs, self.halt, self.panic = [], None, None


def clean(line):
    """What a terminal shows: no escapes, and a carriage return restarts the line."""
    line = ANSI.sub("", line).rstrip("\r\n")
    return line.rsplit("\r", 1)[-1]


class Parser:
    """Builds documents line by line; stack[d] is the test whose lines are indented 4*d."""

    def __init__(self):
        self.stack = []

    def close(self, keep):
        """Pops the tests above stack[keep-1] into their parents; they got no result line.

        Returns the finished document when keep is 0.
        """
        while len(self.stack) > max(keep, 1):
            node = self.stack.pop()
            self.stack[-1].subtests.append(node)
        if keep == 0 and self.stack:
            return self.stack.pop()
        return None

    def feed(self, line):
        """Takes one clean line; returns a document the line finished, or None."""
        text = line.lstrip(" ")
        indent = len(line) - len(text)
        kind = classify(text)
        if kind is None or indent % 4:
            return None
        depth = indent // 4
        if depth == 0 and kind == "version":
            done = self.close(0)
            self.stack.append(Test())
            return done
        if not self.stack:
            return None  # no KTAP document open: program text
        if depth < len(self.stack) - 1 and kind == "result":
            self.close(depth + 2)
            node = self.stack.pop()  # the subtest this result line closes
            self.result(node, RESULT.match(text))
            self.stack[depth].subtests.append(node)
            self.stack[depth].pending = []
            return None
        if depth < len(self.stack) - 1:
            self.close(depth + 1)
        elif depth == len(self.stack) - 1 and depth > 0 and self.restarts(self.stack[-1], kind):
            self.close(depth)  # a new subtest header: the previous one never got a result
        while len(self.stack) <= depth:
            self.stack.append(Test())
        self.apply(self.stack[depth], kind, text)
        return None

    @staticmethod
    def restarts(node, kind):
        """Whether a header line of this kind must begin a new subtest after node."""
        started = node.plan is not None or node.subtests
        if kind == "version":
            return started or node.seen_version or node.subtest_name is not None
        if kind == "subtest":
            return started or node.subtest_name is not None
        return kind == "plan" and started

    def apply(self, node, kind, text):
        if kind == "version":
            node.seen_version = True
        elif kind == "subtest":
            node.subtest_name = SUBTEST.match(text).group(1).strip()
        elif kind == "plan":
            m = PLAN.match(text)
            node.plan, node.pending = int(m.group(1)), []  # header diagnostics are no test's
            d = DIRECTIVE.match(m.group(2) or "")
            if d:  # "1..0 # SKIP reason": the whole suite is skipped
                node.directive, node.reason = d.group(1).upper(), d.group(2).strip()
        elif kind == "result":
            leaf = Test()
            leaf.diag, node.pending = node.pending, []
            self.result(leaf, RESULT.match(text))
            node.subtests.append(leaf)
        elif kind == "bail":
            node.bail = BAIL.match(text).group(1) or "(no reason)"
        else:
            node.diag.append(text)
            node.pending.append(text)

    @staticmethod
    def result(node, m):
        node.ok, node.number = m.group(1) == "ok", int(m.group(2))
        rest = " " + m.group(3)
        desc, _, comment = rest.partition(" #")
        node.name = desc.strip() or node.subtest_name
        d = DIRECTIVE.match(comment.strip())
        if d:
            node.directive, node.reason = d.group(1).upper(), d.group(2).strip()
        elif comment.strip():
            node.diag.append("# " + comment.strip())


def classify(text):
    """The kind of a KTAP line (without its indentation), or None for program text."""
    if VERSION.match(text):
        return "version"
    if SUBTEST.match(text):
        return "subtest"
    if PLAN.match(text):
        return "plan"
    if RESULT.match(text):
        return "result"
    if BAIL.match(text):
        return "bail"
    return "diag" if text.startswith("#") else None


def parse(text):
    """Splits the log into programs, each with its KTAP documents; finds halt and panic."""
    log, parser = Log(), Parser()
    kernel = Program("kernel")
    cur = kernel
    lines = [clean(l) for l in text.split("\n")]
    for i, line in enumerate(lines):
        run, ext, halt = RUN.match(line), EXIT.match(line), HALT.match(line)
        if run or ext or halt:
            doc = parser.close(0)
            if doc:
                cur.docs.append(doc)
        if run:
            cur = Program(run.group(1), run.group(2).strip())
            log.programs.append(cur)
        elif ext:
            if cur is kernel:  # an exit with no run line still reports a program
                cur = Program(ext.group(1))
                log.programs.append(cur)
            cur.status = int(ext.group(2))
            cur = kernel
        elif halt:
            log.halt = int(halt.group(1))
        elif PANIC in line and log.panic is None:
            end = next((j for j in range(i, len(lines)) if PANIC_END in lines[j]), len(lines) - 1)
            log.panic = "\n".join(lines[i:end + 1]).strip("\n")
        else:
            cur.lines.append(line)
            doc = parser.feed(line)
            if doc:
                cur.docs.append(doc)
    doc = parser.close(0)
    if doc:
        cur.docs.append(doc)
    if kernel.docs:
        log.programs.insert(0, kernel)
    seen = {}
    for p in log.programs:  # the same program twice gets distinct names
        seen[p.name] = seen.get(p.name, 0) + 1
        if seen[p.name] > 1:
            p.name = f"{p.name}({seen[p.name]})"
    return log


def flatten(node, prefix, out):
    """Outcomes of one test: each leaf, and a suite only when no child explains its failure."""
    name = f"{prefix}/{node.title()}"
    before = len(out)
    for sub in node.subtests:
        flatten(sub, name, out)
    skipped = node.directive == "SKIP"
    passed = bool(node.ok) or skipped
    # A suite with no result line at all is left to the plan check.
    if node.subtests and (passed or node.ok is None or any(not o.passed for o in out[before:])):
        return
    detail = "\n".join(node.diag)
    if skipped:
        detail = node.reason
    elif node.directive == "TODO":
        detail = ("# TODO " + node.reason + "\n" + detail).strip()
    if node.subtests:
        detail = (detail + "\nthe suite failed but none of its tests did").strip()
    out.append(Outcome(name, passed, detail, skipped))


def plan_problems(node, label, problems):
    """Missing or unmet plans, subtests without a result line and bail-outs, recursively."""
    if node.plan is None and label is None:
        problems.append("no plan line")
    elif node.plan is not None and node.plan != len(node.subtests):
        problems.append(f"{label or 'plan'}: {node.plan} planned, {len(node.subtests)} ran")
    if node.bail:
        problems.append(f"{label or 'document'}: Bail out! {node.bail}")
    for sub in node.subtests:
        where = f"{label}/{sub.title()}" if label else sub.title()
        if sub.ok is None:
            problems.append(f"{where}: no result line")
        if sub.subtests or sub.plan is not None:
            plan_problems(sub, where, problems)


def status_text(status):
    if status > 128:
        try:
            return f"{status} ({signal.Signals(status - 128).name})"
        except ValueError:
            pass
    return str(status)


def program_outcomes(p):
    out = []
    for doc in p.docs:
        for t in doc.subtests:
            flatten(t, p.name, out)
    problems = []
    for doc in p.docs:
        plan_problems(doc, None, problems)
    if not p.docs and p.expect_status is None:
        problems.append("no KTAP output")
    if p.docs or p.expect_status is None:
        out.append(Outcome(f"{p.name}: plan", not problems, "\n".join(problems), kind="plan"))
    if p.name != "kernel":
        want = p.expect_status or 0
        # The program's last words, for a crash: its text and the kernel's, not its KTAP.
        words = [l for l in p.lines if l.strip() and classify(l.strip()) in (None, "diag")]
        tail = "\n".join(words[-6:])
        if p.status is None:
            out.append(Outcome(f"{p.name}: exit status", False,
                               "no `== exit` line: it never finished\n" + tail, kind="exit"))
        else:
            ok = p.status == want
            detail = "" if ok else f"exit status {status_text(p.status)}, expected {want}\n{tail}"
            out.append(Outcome(f"{p.name}: exit status", ok, detail.strip(), kind="exit"))
    return out


def evaluate(text, exit_code, timed_out=False, kernel_tests=True):
    """All outcomes of one boot: tests, per-program checks, then the panic or halt check.

    exit_code is QEMU's; isa-debug-exit makes it (S << 1) | 1 for `== halt status=S`.
    kernel_tests: the kernel must have printed KTAP of its own (false for Linux).
    """
    log = parse(text)
    out = []
    if kernel_tests and not any(p.name == "kernel" for p in log.programs):
        out.append(Outcome("kernel: plan", False, "no KTAP from the kernel's self-tests",
                           kind="plan"))
    for p in log.programs:
        out += program_outcomes(p)
    if log.panic is not None:
        out.append(Outcome("panic", False, log.panic, kind="panic"))
    elif timed_out:
        out.append(Outcome("halt", False, "timed out: QEMU killed", kind="halt"))
    elif log.halt is None:
        out.append(Outcome("halt", False, f"no `== halt` line, QEMU exit code {exit_code}"
                           " (reset, triple fault or a crash)", kind="halt"))
    elif exit_code != (log.halt << 1) | 1:
        out.append(Outcome("halt", False, f"`== halt status={log.halt}` but QEMU exit code "
                           f"{exit_code}, not {(log.halt << 1) | 1}: a reset or triple fault "
                           "after the halt line?", kind="halt"))
    else:
        out.append(Outcome("halt", log.halt == 0,
                           "" if log.halt == 0 else f"halt status {log.halt}", kind="halt"))
    return out
