#!/usr/bin/env python3
"""tests/qemu/busybox_cases.py: busybox applets that run without fork, each as its own program from
the run list, with what their stdout must contain; `make test` runs them on pmuos and on Linux
(suite.py's busybox run).

The binary is Debian 12's busybox-static (1.35.0, glibc-static; tests/qemu/deps.sh installs it
as /bin/busybox). The cases run in order in one boot and build on each other (the first makes
/tmp/bb, later ones read what earlier ones wrote); each one must exit with status 0.
`python3 tests/qemu/busybox_cases.py` checks them on the Linux oracle alone.
"""
import argparse
import hashlib
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_BUSYBOX = "/bin/busybox"
# Where the initramfs puts the binary (tests/qemu/initramfs.py puts programs in /bin/).
BB_PATH = "/bin/busybox"

# md5sum/size of Debian 12's busybox-static 1:1.35.0-4+deb12u1+b1: the copy cases compare
# against the binary itself, so a different build fails only those two lines.
BB_MD5 = "a03e135f96727bae2966896f57509a21"
BB_SIZE = "1982256"

# (argv, expected stdout substring); "" only asks for a clean exit.
CASES = [
    # files: make, copy, inspect, rename, link, remove
    (["busybox", "mkdir", "-p", "/tmp/bb/sub/deeper"], ""),
    (["busybox", "touch", "/tmp/bb/empty"], ""),
    (["busybox", "ls", "-1", "/tmp/bb"], "empty\nsub\n"),  # -1: the console is a tty
    (["busybox", "cp", BB_PATH, "/tmp/bb/bb"], ""),
    (["busybox", "md5sum", "/tmp/bb/bb"], f"{BB_MD5}  /tmp/bb/bb\n"),
    (["busybox", "stat", "-c", "%s", "/tmp/bb/bb"], f"{BB_SIZE}\n"),
    (["busybox", "wc", "-c", "/tmp/bb/bb"], f"{BB_SIZE} /tmp/bb/bb\n"),
    (["busybox", "cmp", BB_PATH, "/tmp/bb/bb"], ""),
    (["busybox", "od", "-An", "-tx1", "-N4", "/tmp/bb/bb"], " 7f 45 4c 46\n"),
    (["busybox", "mv", "/tmp/bb/bb", "/tmp/bb/sub/bb2"], ""),
    (["busybox", "ls", "-1", "/tmp/bb/sub"], "bb2\ndeeper\n"),
    (["busybox", "ln", "-s", "sub/bb2", "/tmp/bb/link"], ""),
    (["busybox", "readlink", "/tmp/bb/link"], "sub/bb2\n"),
    (["busybox", "realpath", "/tmp/bb/link"], "/tmp/bb/sub/bb2\n"),
    (["busybox", "ln", "/tmp/bb/sub/bb2", "/tmp/bb/hard"], ""),
    (["busybox", "stat", "-c", "%h", "/tmp/bb/hard"], "2\n"),
    (["busybox", "ls", "-la", "/tmp/bb"], "link -> sub/bb2\n"),
    (["busybox", "ls", "-l", "/tmp/bb/empty"], "-rw-r--r--    1 0        0                0 "),
    (["busybox", "chmod", "600", "/tmp/bb/empty"], ""),
    (["busybox", "stat", "-c", "%a", "/tmp/bb/empty"], "600\n"),
    (["busybox", "truncate", "-s", "100", "/tmp/bb/empty"], ""),
    (["busybox", "stat", "-c", "%s", "/tmp/bb/empty"], "100\n"),
    (["busybox", "find", "/tmp/bb", "-name", "bb2"], "/tmp/bb/sub/bb2\n"),
    (["busybox", "rm", "/tmp/bb/hard", "/tmp/bb/link"], ""),
    (["busybox", "rmdir", "/tmp/bb/sub/deeper"], ""),
    (["busybox", "ls", "-1", "/tmp/bb/sub"], "bb2\n"),
    # text files from /proc, then text tools on them
    (["busybox", "cp", "/proc/version", "/tmp/bb/version"], ""),
    (["busybox", "cat", "/tmp/bb/version"], "Linux version "),
    (["busybox", "wc", "-l", "/tmp/bb/version"], "1 /tmp/bb/version\n"),
    (["busybox", "grep", "-c", "Linux", "/tmp/bb/version"], "1\n"),
    (["busybox", "head", "-c", "13", "/tmp/bb/version"], "Linux version"),
    (["busybox", "cut", "-c", "1-5", "/tmp/bb/version"], "Linux\n"),
    (["busybox", "dd", "if=/tmp/bb/version", "of=/tmp/bb/five", "bs=5", "count=1"], ""),
    (["busybox", "cat", "/tmp/bb/five"], "Linux"),
    (["busybox", "sha256sum", "/tmp/bb/five"],
     hashlib.sha256(b"Linux").hexdigest() + "  /tmp/bb/five\n"),
    (["busybox", "tar", "-cf", "/tmp/bb/a.tar", "-C", "/tmp/bb", "five", "sub"], ""),
    (["busybox", "tar", "-tf", "/tmp/bb/a.tar"], "five\nsub/\nsub/bb2\n"),
    (["busybox", "mkdir", "/tmp/bb/untar"], ""),
    (["busybox", "tar", "-xf", "/tmp/bb/a.tar", "-C", "/tmp/bb/untar"], ""),
    (["busybox", "md5sum", "/tmp/bb/untar/sub/bb2"], f"{BB_MD5}  /tmp/bb/untar/sub/bb2\n"),
    # the process and the system
    (["busybox", "pwd"], "/\n"),
    (["busybox", "id"], "uid=0 gid=0"),
    (["busybox", "uname", "-s"], "Linux\n"),
    (["busybox", "nproc"], "1\n"),
    # busybox df skips /proc/mounts' "rootfs" entries: `df /` on an initramfs root fails.
    (["busybox", "df", "/proc"], " /proc\n"),
    (["busybox", "cat", "/proc/self/comm"], "busybox\n"),  # comm is the file's name
    (["busybox", "cat", "/sys/devices/system/cpu/online"], "0\n"),
    (["busybox", "echo", "hello", "world"], "hello world\n"),
    (["busybox", "seq", "3"], "1\n2\n3\n"),
    (["busybox", "expr", "6", "*", "7"], "42\n"),
    (["busybox", "basename", "/a/b/c"], "c\n"),
    (["busybox", "true"], ""),
    # the shell: pipelines, command substitution, external commands, scripts (fork, execve,
    # wait4, pipes; busybox runs its applets by re-executing /proc/self/exe)
    (["busybox", "sh", "-c", "echo hello | tr a-z A-Z"], "HELLO\n"),
    (["busybox", "sh", "-c", "echo got $(echo sub)"], "got sub\n"),
    (["busybox", "sh", "-c", "seq 5 | sort -r | head -2"], "5\n4\n"),
    (["busybox", "sh", "-c", "for i in 1 2 3; do echo n$i; done | wc -l"], "3\n"),
    (["busybox", "sh", "-c", "(exit 3); echo status $?; false || echo or"], "status 3\nor\n"),
    (["busybox", "sh", "-c", "cd /tmp/bb && echo data > f && cat f | md5sum"],
     "6137cde4893c59f76f005a8123d8e8e6  -\n"),
    (["busybox", "sh", "-c", "printf '#!/bin/busybox sh\\necho from $0\\n' > /tmp/bb/s.sh; "
      "chmod +x /tmp/bb/s.sh; /tmp/bb/s.sh"], "from /tmp/bb/s.sh\n"),
    (["busybox", "rm", "-r", "/tmp/bb"], ""),
    (["busybox", "ls", "-1", "/tmp"], ""),
]


def programs(busybox, cases=CASES):
    """The run list: (host binary, argv after argv[0]) in order."""
    return [(busybox, argv[1:]) for argv, _ in cases]


MARK = re.compile(r"== run (.*)\n|== exit \S+ status=(\d+)\n")


def split_log(log):
    """[(run line, output, status)] from the oracle's serial log, in order.

    The runner's lines may follow output with no newline on the same line ("Linux== run"):
    the markers are found anywhere, and what precedes one belongs to the run before it.
    """
    runs, cur, pos = [], None, 0
    log = log.replace("\r\n", "\n")  # the console tty's ONLCR
    for m in MARK.finditer(log):
        if m.group(1) is not None:
            cur = m.group(1)
        elif cur is not None:
            runs.append((cur, log[pos:m.start()], int(m.group(2))))
            cur = None
        pos = m.end()
    return runs


def outcomes(log, cases=CASES):
    """One ktap.Outcome a case: the run exited 0 and its output holds the expected text."""
    import ktap
    runs, result = split_log(log), []
    for i, (argv, want) in enumerate(cases):
        got = runs[i] if i < len(runs) else None
        ok = got is not None and got[2] == 0 and want in got[1]
        shown = "(no run)" if got is None else f"status={got[2]}, output {got[1]!r}"
        result.append(ktap.Outcome(f"{i + 1} {' '.join(argv[1:])}", ok,
                                   "" if ok else f"want {want!r}\ngot {shown}"))
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--busybox", default=DEFAULT_BUSYBOX, help="the busybox-static binary")
    ap.add_argument("--init", default=None, help="the oracle's /init runner")
    ap.add_argument("--timeout", type=float, default=300)
    opts = ap.parse_args()
    sys.path.insert(0, str(HERE))
    import oracle
    import run

    kw = {"init": opts.init} if opts.init else {}
    log, code, timed_out = oracle.run_oracle(programs(opts.busybox), opts.timeout, **kw)
    result = outcomes(log)
    if timed_out:
        import ktap
        result.append(ktap.Outcome("timeout", False, "the oracle timed out"))
    counts = run.report(result, "linux: busybox ")
    print(run.summary(*counts))
    return 1 if counts[1] else 0


if __name__ == "__main__":
    sys.exit(main())
