#!/usr/bin/env python3
"""tests/qemu/perf_cases.py: the perf tool itself on pmuos and on Linux (suite.py's perf run).

The static perf of tests/qemu/perf_tool.py is /usr/bin/perf in each image; the workloads of
user/workloads/ sit at their build paths (relative to /, the programs' working directory), so
the command lines read as a user types them. One boot of each kernel runs the cases in order
from the run list (later ones read what earlier ones recorded); each case checks what its run
printed. On pmuos, the recordings under /out also reach the host, whose own perf reads them with
the image's binaries (--symfs) and the kernel's symbols.

Under the simulated PMU the user-mode counts are exact: spin runs 2,000,006 instructions (see
user/workloads/spin.S), forks 1, 2 and 3 million turns of two instructions in its main thread,
its thread and its child. Linux under TCG has software events only: the cases it shares with
pmuos use those, and the two kernels' answers are compared where they must agree (the events
perf lists, the record types of a recording, the sample layout perf chose).
"""
import re
import subprocess
from collections import Counter
from pathlib import Path

import busybox_cases
import ktap

ROOT = Path(__file__).resolve().parents[2]
WORKLOADS = "build/user/workloads"
SPIN, FORKS, PERSIST = (f"{WORKLOADS}/{w}" for w in ("spin", "forks", "persist"))
SPIN_INSNS = 2000006
PERIOD = 10000
BUSYBOX = "/bin/busybox"


ANSI = re.compile(r"\x1b\[[0-9;]*m")


def plain(out):
    """Output without the colours perf gives a terminal (the console is one)."""
    return ANSI.sub("", out)


def csv_counts(out, events):
    """perf stat -x, lines of events (names may hold commas): {event: (value, the field after
    the name: the deviation with -r)}; a value is an int, or a float for the clocks."""
    counts = {}
    for line in plain(out).splitlines():
        for ev in events:
            head, sep, tail = line.partition(f",{ev},")
            if sep and re.fullmatch(r"[\d.]+,[^,]*", head):
                value = head.split(",")[0]
                counts[ev] = (float(value) if "." in value else int(value), tail.split(",")[0])
    return counts


def samples_line(out):
    m = re.search(r"\((\d+) samples\)", out)
    return int(m.group(1)) if m else None


def symbol_share(report, symbol):
    """The overhead perf report --stdio gives symbol, in percent (0 if absent)."""
    for line in plain(report).splitlines():
        m = re.match(r"\s*([\d.]+)%.*\[\.\]\s+(\S+)\s*$", line)
        if m and m.group(2) == symbol:
            return float(m.group(1))
    return 0.0


def stats_types(out):
    """perf report --stats: the record types present (those with a count)."""
    return {m.group(1) for m in re.finditer(r"^\s*([A-Z0-9_]+) events:\s+[1-9]", plain(out), re.M)
            if m.group(1) != "TOTAL"}


def evlist_layout(out):
    """perf evlist -v: the first event's sample_type and read_format."""
    m = re.search(r"sample_type: ([A-Z|_]+), read_format: ([A-Z|_]+)", plain(out))
    return m.groups() if m else None


def software_events(out):
    return sorted(re.findall(r"^\s+(\S.*?)\s+\[Software event\]", plain(out), re.M))


def forks_ids(out):
    """The pid and tid forks printed for its main thread, thread and child."""
    return {m.group(1): (int(m.group(2)), int(m.group(3)))
            for m in re.finditer(r"forks: (\w+) pid (\d+) tid (\d+)", out)}


# ---- the cases: (name, argv after perf or the full argv, check(output, status, seen) -> why
# not, or ""); seen holds earlier runs' outputs by case name. ----

def check_exact_stat(out, status, seen):
    c = csv_counts(out, ["instructions:u", "cycles:u"])
    want = {"instructions:u": SPIN_INSNS, "cycles:u": SPIN_INSNS}
    got = {k: c.get(k, (None,))[0] for k in want}
    return "" if got == want else f"want {want}, got {got}"


def check_repeat(out, status, seen):
    c = csv_counts(out, ["instructions:u", "cycles:u"])
    bad = {k: c.get(k) for k in ("instructions:u", "cycles:u")
           if c.get(k) != (SPIN_INSNS, "0.00%")}
    return "" if not bad else f"want {SPIN_INSNS} with a deviation of 0.00%, got {bad}"


def check_record_spin(out, status, seen):
    n = samples_line(out)
    return "" if n == SPIN_INSNS // PERIOD else f"want {SPIN_INSNS // PERIOD} samples, got {n}"


def check_report_spin(out, status, seen):
    share = symbol_share(out, "spin")
    return "" if share >= 99 else f"spin has {share}% of the samples"


def check_script_spin(out, status, seen):
    lines = [ln for ln in out.splitlines() if ln.strip()]
    good = [ln for ln in lines if re.fullmatch(r"\s*spin\s+(\d+)/\1\s+[0-9a-f]+ spin", ln)]
    n = SPIN_INSNS // PERIOD
    return "" if len(good) == len(lines) == n else \
        f"want {n} lines `spin PID/PID IP spin`, got {len(good)} of {len(lines)}"


def check_persistent(out, status, seen):
    c = csv_counts(out, set(re.findall(r"persistent/p\d+/", out)))
    ev = list(c.items())
    ev = [(k, v) for k, (v, _) in ev]
    return "" if ev and ev[0][1] > SPIN_INSNS else f"want persistent/p<id>/ > {SPIN_INSNS}: {c}"


def check_raw_event(out, status, seen):
    raw = "cpu/event=0xc0,umask=0x0/u"
    v = csv_counts(out, [raw]).get(raw, (None,))[0]
    return "" if v == SPIN_INSNS else f"want {SPIN_INSNS}, got {v}"


def check_stat_forks(out, status, seen):
    v = csv_counts(out, ["instructions:u"]).get("instructions:u", (0,))[0]
    ids = forks_ids(out)
    # 12 million in the three loops; start-up, thread creation and exits add some 8000.
    if len(ids) != 3:
        return f"forks printed {ids}"
    return "" if 12000000 < v < 12020000 else f"want 12.0M (the three loops, inherited), got {v}"


def check_record_forks(out, status, seen):
    n = samples_line(out)
    return "" if n and 1199 <= n <= 1201 else f"want 1200 samples, got {n}"


def check_script_forks(out, status, seen):
    ids = forks_ids(seen.get("record_inherit_forks", ""))
    if len(ids) != 3:
        return f"the recorded run printed {ids}"
    # -F pid,tid,ip,sym: "PID/TID IP SYMBOL" (perf script prints a symbol only beside its ip)
    got = Counter((f[0], f[2]) for f in (ln.split() for ln in plain(out).splitlines())
                  if len(f) == 3)
    want = {(f"{p}/{t}", f"spin_{who}"): turns * 2 // PERIOD
            for who, turns in (("main", 1000000), ("thread", 2000000), ("child", 3000000))
            for p, t in [ids[who]]}
    bad = {k: (v, got.get(k)) for k, v in want.items() if got.get(k) != v}
    return "" if not bad else f"(pid/tid, symbol): (want, got) {bad}"


def check_list(out, status, seen):
    need = ["cpu/instructions/", "cpu/cpu-cycles/", "itrace/instructions/", "persistent/p",
            "task-clock", "cpu/t1=v1"]
    missing = [n for n in need if n not in out]
    return "" if not missing else f"perf list lacks {missing}"


def check_sw_stat(out, status, seen):
    need = {"task-clock", "page-faults", "context-switches"}
    c = csv_counts(out, need)
    return "" if need <= set(c) else f"want {sorted(need)}, got {sorted(c)}"


def check_ok(out, status, seen):
    return ""


def perf(*args):
    return ["perf", *args]


# Both kernels: software events only.
SHARED = [
    ("stat_software_events", perf("stat", "-x,", "-e", "task-clock,page-faults,context-switches",
                                  "--", SPIN), check_sw_stat),
    ("record_cpu_clock", perf("record", "-q", "-e", "cpu-clock", "-c", "100000", "-o",
                              "/tmp/cc.data", "--", SPIN), check_ok),
    ("report_stats_cpu_clock", perf("report", "-i", "/tmp/cc.data", "--stats"), check_ok),
    ("evlist_cpu_clock", perf("evlist", "-v", "-i", "/tmp/cc.data"), check_ok),
    ("list_software", perf("list", "sw"), check_ok),
]

# pmuos: the simulated PMU's exact counts, the seed's persistent events, the files for the host.
PMUOS = [
    ("stat_exact_user_count", perf("stat", "-x,", "-e", "instructions:u,cycles:u", "--", SPIN),
     check_exact_stat),
    ("stat_repeat_deviation_zero", perf("stat", "-x,", "-r", "10", "-e",
                                        "instructions:u,cycles:u", "--", SPIN), check_repeat),
    ("stat_raw_event_syntax", perf("stat", "-x,", "-e", "cpu/event=0xc0,umask=0x0/u", "--", SPIN),
     check_raw_event),
    ("record_exact_samples", perf("record", "-e", "instructions:u", "-c", str(PERIOD), "-o",
                                  "/out/spin.data", "--", SPIN), check_record_spin),
    ("report_in_guest", perf("report", "-i", "/out/spin.data", "--stdio"), check_report_spin),
    ("script_parses", perf("script", "-i", "/out/spin.data", "-F", "comm,pid,tid,ip,sym"),
     check_script_spin),
    ("stat_persistent_by_sysfs_name",
     [BUSYBOX, "sh", "-c", f"id=$(/{PERSIST}) && perf stat -x, -e persistent/p$id/ -a -- {SPIN}"],
     check_persistent),
    ("list_pmus", perf("list"), check_list),
    ("stat_inherit_forks", perf("stat", "-x,", "-e", "instructions:u", "--", FORKS),
     check_stat_forks),
    ("record_inherit_forks", perf("record", "-e", "instructions:u", "-c", str(PERIOD), "-o",
                                  "/out/forks.data", "--", FORKS), check_record_forks),
    ("script_inherit_forks", perf("script", "-i", "/out/forks.data", "-F", "pid,tid,ip,sym"),
     check_script_forks),
] + SHARED


# pmuos with several CPUs, one boot per CPU count (the perf tool's cases run on Linux at -smp 1
# only, see the README's "SMP"): at -smp 2 and 4, CPU-wide counting on every CPU, then on some
# (-C, each CPU's line with -A), then a CPU-wide recording whose samples (PERF_SAMPLE_CPU) come
# from each CPU's ring, read by the host's perf script.
def utilized(out, event):
    m = re.search(rf"^[^,]*,[^,]*,{re.escape(event)},[^,]*,[^,]*,([0-9.]+),CPUs utilized",
                  plain(out), re.M)
    return float(m.group(1)) if m else None


def check_utilized(cpus):
    def check(out, status, seen):
        u = utilized(out, "cpu-clock")
        return "" if u is not None and abs(u - cpus) < 0.1 else \
            f"want cpu-clock at {cpus} CPUs utilized, got {u}"
    return check


def check_cpu_lines(want):
    """perf stat -A -x, printed a cpu-clock line for each CPU of want, and for no other."""
    def check(out, status, seen):
        got = sorted(int(c) for c in re.findall(r"^CPU(\d+),[\d.]+,[^,]*,cpu-clock,", plain(out),
                                                 re.M))
        return "" if got == want else f"want cpu-clock lines of CPUs {want}, got {got}"
    return check


def smp_cases(cpus):
    """At -smp 2: -C 1; at -smp 4: -C 1,3 (a list, the CPUs between left out)."""
    some = list(range(1, cpus, 2))
    return [(f"smp{cpus}_stat_all_cpus", perf("stat", "-a", "-x,", "-e", "cpu-clock", "--", SPIN),
             check_utilized(cpus)),
            (f"smp{cpus}_stat_some_cpus", perf("stat", "-C", ",".join(map(str, some)), "-A", "-x,",
                                               "-e", "cpu-clock", "--", SPIN),
             check_cpu_lines(some)),
            (f"smp{cpus}_record_all_cpus", perf("record", "-a", "-e", "cpu-clock", "-c", "100000",
                                                "-o", f"/out/all{cpus}.data", "--", SPIN),
             check_ok)]


def host_cpus_of_samples(out_dir, cpus):
    """The host's perf script of /out/all<cpus>.data: samples from every CPU."""
    data = Path(out_dir) / f"all{cpus}.data"
    name = f"host perf script: samples of each of {cpus} CPUs"
    if not data.exists():
        return [ktap.Outcome(name, False, f"{data} did not reach the host")]
    r = subprocess.run(["perf", "script", "-i", str(data), "-F", "cpu"], capture_output=True,
                       text=True)
    got = Counter(int(c) for c in re.findall(r"^\s*\[(\d+)\]\s*$", r.stdout, re.M))
    ok = r.returncode == 0 and sorted(got) == list(range(cpus))
    return [ktap.Outcome(name, ok, "" if ok else f"CPUs of the samples {dict(got)}; {r.stderr[-500:]}")]


def run_list(cases, perf_binary):
    """(programs, files) for run.boot_direct / oracle.run_oracle: perf at /usr/bin/perf, the
    workloads at their build paths, busybox for the shell case."""
    programs = []
    for _, argv, _ in cases:
        if argv[0] == "perf":
            programs.append((perf_binary, argv[1:], "/usr/bin/perf"))
        else:
            programs.append((argv[0], argv[1:]))
    files = [(str(ROOT / w), "/" + w) for w in (SPIN, FORKS, PERSIST)]
    return programs, files


def outcomes(log, cases, prefix):
    runs, seen, result = busybox_cases.split_log(log), {}, []
    for i, (name, argv, check) in enumerate(cases):
        if i >= len(runs):
            result.append(ktap.Outcome(f"{prefix}{name}", False, "(no run)"))
            continue
        _, out, status = runs[i]
        seen[name] = out
        why = check(out, status, seen) if status == 0 else f"perf exited with {status}"
        detail = f"{why}\n--- output of {' '.join(argv)}:\n{out[-3000:]}" if why else ""
        result.append(ktap.Outcome(f"{prefix}{name}", not why, detail))
    return result, seen


def compare(pmuos_seen, linux_seen):
    """What perf sees the same on both kernels for the same software-event commands."""
    result = []
    for name, fn, what in (("report_stats_cpu_clock", stats_types, "record types"),
                           ("evlist_cpu_clock", evlist_layout, "sample layout"),
                           ("list_software", software_events, "software events")):
        a, b = fn(pmuos_seen.get(name, "")), fn(linux_seen.get(name, ""))
        ok = bool(a) and a == b
        result.append(ktap.Outcome(f"same on both kernels: {what}", ok,
                                   "" if ok else f"pmuos {a}\nlinux {b}"))
    return result


def host_report(out_dir, symfs, kernel):
    """The host's perf report of the recording that came out: the loop's symbol from the image's
    binary, found by its build-id."""
    data = Path(out_dir) / "spin.data"
    if not data.exists():
        return [ktap.Outcome("host perf report", False, "no spin.data came out")]
    try:
        res = subprocess.run(["perf", "report", "-i", str(data), "--symfs", str(symfs),
                              "--vmlinux", str(Path(kernel).resolve()), "--stdio"],
                             capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return [ktap.Outcome("host perf report", False, str(e))]
    share = symbol_share(res.stdout, "spin")
    return [ktap.Outcome("host perf report: the loop's symbol", share >= 99,
                         "" if share >= 99 else f"spin {share}%\n{res.stdout[-2000:]}{res.stderr[-1000:]}")]
