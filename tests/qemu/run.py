#!/usr/bin/env python3
"""tests/qemu/run.py: boots pmuos in QEMU, from its ISO (SeaBIOS or OVMF) or directly (`make run`),
and reports the KTAP outcomes or the program's status."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import hostout  # noqa: E402
import image  # noqa: E402
import initramfs  # noqa: E402
import ktap  # noqa: E402

# Under icount OVMF's PEI phase polls ~3 s of virtual time for a TPM at 0xfed40000 (absent
# MMIO reads 0, not the 0xff that would end the probe): a UEFI boot takes ~32 s of wall time
# and no QEMU option we found avoids it, so suite.py starts that boot first.
OVMF_CODE = "/usr/share/OVMF/OVMF_CODE_4M.fd"
OVMF_VARS = "/usr/share/OVMF/OVMF_VARS_4M.fd"
DEFAULT_TIMEOUT = 120
QBOOT = "/usr/share/qemu/qboot.rom"

# q35 rather than pc: its AHCI CD-ROM boots GRUB in 2 s under icount, pc's IDE PIO in 8 s.
# -nic none: no NIC means no iPXE ROM for the firmware to load. The RTC is fixed as the
# Linux oracle's is, so nothing the guest reads depends on the host's clock.
QEMU = [
    "qemu-system-x86_64", "-M", "q35", "-m", "512M", "-smp", "1",
    "-cpu", "max,-rdrand,-rdseed", "-icount", "shift=0,sleep=off",
    "-no-reboot", "-display", "none", "-nic", "none",
    "-rtc", "base=2024-01-01T00:00:00,clock=vm",
    "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
]


def with_smp(cmd, smp):
    """cmd with QEMU's -smp 1 replaced by -smp smp (vCPUs, run round robin under TCG)."""
    i = cmd.index("-smp")
    return cmd[:i + 1] + [str(smp)] + cmd[i + 2:]


def qemu_command(iso, firmware, tmpdir, serial="stdio", gdb=False, smp=1):
    cmd = with_smp(QEMU, smp) + ["-serial", serial, "-cdrom", iso]
    if firmware == "uefi":
        # OVMF writes its variables; a reused VARS file can drop into the EFI shell.
        vars_copy = os.path.join(tmpdir, "OVMF_VARS.fd")
        shutil.copyfile(OVMF_VARS, vars_copy)
        cmd += ["-drive", f"if=pflash,format=raw,unit=0,readonly=on,file={OVMF_CODE}",
                "-drive", f"if=pflash,format=raw,unit=1,file={vars_copy}"]
    elif firmware != "bios":
        raise ValueError(f"unknown firmware {firmware!r} (bios or uefi)")
    if gdb:
        cmd += ["-s", "-S"]  # gdb stub on :1234, CPU stopped until gdb continues it
    return cmd


EOF_CHAR = b"\x04"  # VEOF, Ctrl-D: what ends input on a terminal


def typed(data):
    """data as a user would type it to end their input: Ctrl-D after the last newline, or
    twice after a partial line (the first only hands the partial line to read())."""
    return data + (EOF_CHAR if not data or data.endswith(b"\n") else EOF_CHAR * 2)


class SerialInput:
    """Feeds bytes to a QEMU process's serial input (its stdin, a pipe), then closes it.

    The bytes go once the serial output has shown `after` (at once when None), from a
    thread of their own: QEMU takes them only as fast as the guest's UART receives.
    """

    def __init__(self, proc, data, after=None):
        self.proc, self.data, self.after = proc, data, after
        self.seen, self.thread = b"", None
        if after is None:
            self.start()

    def output(self, chunk):
        """The output reader calls this with each chunk of serial output."""
        if self.thread or self.after is None:
            return
        self.seen = self.seen[-len(self.after):] + chunk
        if self.after in self.seen:
            self.start()

    def start(self):
        self.thread = threading.Thread(target=self.write, daemon=True)
        self.thread.start()

    def write(self):
        try:
            self.proc.stdin.write(self.data)
            self.proc.stdin.close()
        except (BrokenPipeError, ValueError):  # QEMU has quit: nobody to read it
            pass


def without_icount(cmd):
    """cmd without -icount: the TSC then follows the host's clock. Linux 6.1 does not bring
    its second CPU up under QEMU 7.2's -icount (it hangs at "x86: Booting SMP
    configuration", at boot and at a later hotplug alike), so what needs Linux on several
    CPUs runs without it."""
    i = cmd.index("-icount")
    return cmd[:i] + cmd[i + 2:]


def with_cpu(cmd, cpu):
    """cmd with QEMU's -cpu model replaced by cpu (None: as it is)."""
    if cpu is None:
        return cmd
    i = cmd.index("-cpu")
    return cmd[:i + 1] + [cpu] + cmd[i + 2:]


def direct_command(kernel, initrd, cmdline, tmpdir, serial="stdio", gdb=False, smp=1, cpu=None,
                   icount=True):
    """QEMU loads the kernel (an ELF32 with a multiboot1 header) and the initramfs itself,
    and qboot (the firmware the Linux oracle boots with) hands over at once: the kernel's
    first line comes 0.25 s after QEMU starts, its halt 0.3 s (SeaBIOS: 1.5 s on q35, 0.7 s
    on pc; measured on this 2-core host). Multiboot1 rather than a PVH note: QEMU hands a
    multiboot1 kernel its modules, each with a command line, as GRUB does. COM2, the
    kernel's file channel to the host, goes to tmpdir/com2.bin."""
    machine = with_cpu(with_smp(QEMU, smp), cpu)
    cmd = (machine if icount else without_icount(machine)) + ["-bios", QBOOT, "-serial", serial, "-serial", f"file:{os.path.join(tmpdir, 'com2.bin')}",
                  "-kernel", os.path.abspath(kernel), "-append", cmdline,
                  "-initrd", os.path.abspath(initrd).replace(",", ",,")]
    if gdb:
        cmd += ["-s", "-S"]
    return cmd


def run_qemu(cmd, timeout, echo, interactive, stdin_data=None, stdin_after=None):
    """Runs QEMU; returns (log, exit_code, timed_out). See boot()."""
    chunks = []

    def pump(stream):
        while True:
            data = stream.read1(65536)
            if not data:
                return
            chunks.append(data)
            if feed:
                feed.output(data)
            if echo:
                echo.write(data)
                echo.flush()

    with tempfile.TemporaryFile() as errlog:
        # Interactive: QEMU's messages (gdb, monitor) belong on the terminal.
        stdin = None if interactive else subprocess.DEVNULL
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE if stdin_data is not None else stdin,
                                stdout=subprocess.PIPE, stderr=None if interactive else errlog)
        feed = SerialInput(proc, stdin_data, stdin_after) if stdin_data is not None else None
        reader = threading.Thread(target=pump, args=(proc.stdout,), daemon=True)
        reader.start()
        timed_out = False
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            if proc.poll() is None:  # timeout, or Ctrl-C in a non-interactive run
                proc.kill()
                proc.wait()
            reader.join()
        errlog.seek(0)
        errors = errlog.read().decode("utf-8", "replace")
    log = b"".join(chunks).decode("utf-8", "replace")
    if errors.strip():
        log += "".join(f"\nqemu: {line}" for line in errors.strip().splitlines()) + "\n"
    return log, proc.returncode, timed_out


def boot(iso, firmware="bios", timeout=DEFAULT_TIMEOUT, echo=None, interactive=False, gdb=False,
         stdin_data=None, stdin_after=None, smp=1):
    """Boots iso; returns (log, exit_code, timed_out).

    echo: a binary stream that gets the serial output as it arrives. interactive: the
    terminal drives the serial port and QEMU's monitor (Ctrl-A X quits); timeout None waits
    for ever. stdin_data: bytes for the serial input, once the output shows stdin_after (see
    SerialInput). QEMU's own error messages are appended to the log as `qemu: ...` lines.
    """
    with tempfile.TemporaryDirectory(prefix="pmuos-qemu-") as tmp:
        cmd = qemu_command(iso, firmware, tmp, "mon:stdio" if interactive else "stdio", gdb, smp)
        return run_qemu(cmd, timeout, echo, interactive, stdin_data, stdin_after)


def boot_direct(kernel, programs, cmdline="", out_dir=None, timeout=DEFAULT_TIMEOUT, echo=None,
                interactive=False, gdb=False, stdin_data=None, stdin_after=None, extra=(),
                files=(), symfs=None, smp=1, cpu=None, icount=True):
    """Boots the ELF32 kernel with the programs [(host path, args[, guest path])] in its
    initramfs, files [(host path, guest path)] beside them (and extra entries, see
    initramfs.py) on smp CPUs; returns (log, exit_code, timed_out, files, errors): files
    [(host path, size)] the kernel sent to the host (COM2, or text frames in the log),
    written under out_dir; errors about them. symfs: a folder that gets a copy of the
    image's files. cpu: a QEMU -cpu model in place of run.py's; icount False: without
    -icount (without_icount)."""
    with tempfile.TemporaryDirectory(prefix="pmuos-qemu-") as tmp:
        initrd = os.path.join(tmp, "initramfs.cpio")
        entries = initramfs.image_entries(programs, extra, files=files)
        if symfs:
            initramfs.write_tree(entries, symfs)
        with open(initrd, "wb") as f:
            f.write(initramfs.cpio(entries))
        cmd = direct_command(kernel, initrd, cmdline, tmp,
                             "mon:stdio" if interactive else "stdio", gdb, smp, cpu, icount)
        log, code, timed_out = run_qemu(cmd, timeout, echo, interactive, stdin_data, stdin_after)
        with open(os.path.join(tmp, "com2.bin"), "rb") as f:
            files, errors = hostout.parse_binary(f.read())
    text_files, text_errors = hostout.parse_text(log)
    files += text_files
    # hostout.selftest=N's file must be the pattern, not only match its CRC.
    errors += [why for path, data in files if path == hostout.SELFTEST_NAME
               for why in [hostout.check_selftest(data)] if why]
    written, write_errors = hostout.write_files(files, out_dir) if out_dir else ([], [])
    return log, code, timed_out, written, errors + text_errors + write_errors


def expect_failure(outcomes, exit_code, want="any"):
    """A negative check: passes when the run failed the way it was asked to.

    want: "panic" (a panic shown and QEMU exiting with the panic status), "notok" (a `not ok`
    line and no panic), or "any" (either).
    """
    panics = [o for o in outcomes if o.kind == "panic"]
    notoks = [o for o in outcomes if o.kind == "test" and not o.passed]
    panic_exit = (ktap.PANIC_EXIT << 1) | 1
    if want == "panic":
        passed = bool(panics) and exit_code == panic_exit
        evidence = panics[0].detail if panics else ""
    elif want == "notok":
        passed = bool(notoks) and not panics
        evidence = "\n".join(f"not ok: {o.name}\n{o.detail}".strip() for o in notoks)
    else:
        passed = bool(panics or notoks)
        evidence = (panics or notoks)[0].detail if passed else ""
    if passed:
        return ktap.Outcome(f"expected failure ({want})", True, evidence, kind="expect")
    seen = "; ".join(f"{o.name}: {o.detail.splitlines()[0] if o.detail else 'failed'}"
                     for o in outcomes if not o.passed) or "every check passed"
    return ktap.Outcome(f"expected failure ({want})", False,
                        f"the run did not fail as expected (QEMU exit code {exit_code}); "
                        f"saw: {seen}", kind="expect")


def report(outcomes, prefix="", quiet=False, out=sys.stdout):
    """Prints one line per outcome (details indented under failures); returns the counts."""
    passed = failed = skipped = 0
    for o in outcomes:
        if not o.passed:
            failed += 1
            out.write(f"FAIL {prefix}{o.name}\n")
            for line in o.detail.splitlines():
                out.write(f"        {line}\n")
        elif o.skipped:
            skipped += 1
            if not quiet:
                out.write(f"SKIP {prefix}{o.name}" + (f" ({o.detail})" if o.detail else "") + "\n")
        else:
            passed += 1
            if not quiet:
                note = o.detail.splitlines()[0] if o.kind == "expect" and o.detail else ""
                out.write(f"ok   {prefix}{o.name}" + (f" ({note})" if note else "") + "\n")
    out.flush()
    return passed, failed, skipped


def summary(passed, failed, skipped):
    return f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else "")


def run_status(log_text, exit_code):
    """The status `make run` exits with: the one program's, else the first failing
    program's, else the halt status; (why, status) when the run ended badly."""
    log = ktap.parse(log_text)
    progs = [p for p in log.programs if p.name != "kernel"]
    if len(progs) == 1 and progs[0].status is not None:
        return None, progs[0].status
    failing = [p.status for p in progs if p.status]
    if failing:
        return None, failing[0]
    if log.halt is not None:
        return None, log.halt
    if log.panic is not None:
        return "kernel panic", ktap.PANIC_EXIT
    return f"no `== halt` line, QEMU exit code {exit_code}", 1


def local_files(opts):
    """--file and --files-in-args as [(host path, guest path)]."""
    specs = [f.partition("=")[::2] for f in opts.file]
    if opts.files_in_args:
        specs += [(w, "") for w in initramfs.split_args(opts.args)
                  if not w.startswith("-") and os.path.isfile(w)]
    # A relative path means the same file from the guest's working directory, /.
    return [(host, guest or os.path.normpath(os.path.join("/", host))) for host, guest in specs]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    media = ap.add_mutually_exclusive_group(required=True)
    media.add_argument("--iso", help="boot this GRUB image through the firmware")
    media.add_argument("--kernel", help="boot this ELF32 kernel directly (build/pmuos32.elf)")
    ap.add_argument("--module", action="append", default=[], metavar="PATH[:ARGS]",
                    help="with --kernel: a program to run, its arguments after a colon; "
                    "repeat in order")
    ap.add_argument("--program", help="with --kernel: a program to run after the --module ones")
    ap.add_argument("--args", default="", help="--program's arguments, split as sh splits them")
    ap.add_argument("--program-path", help="where --program goes in the image (default /bin/NAME)")
    ap.add_argument("--file", action="append", default=[], metavar="HOST[=GUEST]",
                    help="with --kernel: a file in the image, at GUEST or its own path (a relative "
                    "one under /, the programs' working directory)")
    ap.add_argument("--files-in-args", action="store_true",
                    help="with --kernel: each word of --args that names a local file is a --file")
    ap.add_argument("--symfs", help="with --kernel: copy the image's files under this folder, "
                    "for the host's perf report --symfs")
    ap.add_argument("--cmdline", default="", help="with --kernel: the kernel command line")
    ap.add_argument("--out-dir", help="with --kernel: where files the kernel sends to the host "
                    "go (default: out/ beside the kernel)")
    ap.add_argument("--firmware", choices=("bios", "uefi"), default="bios", help="with --iso")
    ap.add_argument("--timeout", type=float, default=None,
                    help=f"seconds before QEMU is killed (default {DEFAULT_TIMEOUT}; "
                    "none with --interactive)")
    ap.add_argument("--expect-fail", nargs="?", const="any", choices=("any", "panic", "notok"),
                    help="pass only if the run fails: with a panic, a `not ok`, or either")
    ap.add_argument("--log", help="write the serial log to this file")
    ap.add_argument("--quiet", action="store_true", help="print failures and the summary only")
    ap.add_argument("-v", "--verbose", action="store_true", help="echo the serial output")
    ap.add_argument("--interactive", action="store_true",
                    help="serial and monitor on this terminal (Ctrl-A X quits); exits with "
                    "the program's status")
    ap.add_argument("--gdb", action="store_true", help="wait for gdb on :1234")
    ap.add_argument("--smp", type=int, default=1, help="QEMU's -smp: the number of CPUs")
    opts = ap.parse_args()
    media = opts.iso or opts.kernel
    if not os.path.exists(media):
        print(f"run.py: no such file: {media}", file=sys.stderr)
        return 2
    timeout = opts.timeout if opts.interactive else opts.timeout or DEFAULT_TIMEOUT
    echo = sys.stdout.buffer if opts.interactive or opts.verbose else None
    files, file_errors = [], []
    # Piped input (`make run < file`) is typed to the program: it starts, then reads the
    # bytes and end of input, as from a terminal (control bytes act as on one).
    piped = opts.interactive and not sys.stdin.isatty()
    feed = dict(stdin_data=typed(sys.stdin.buffer.read()), stdin_after=b"== run ") if piped else {}
    interactive = opts.interactive and not piped
    if opts.iso:
        log, code, timed_out = boot(opts.iso, opts.firmware, timeout, echo=echo,
                                    interactive=interactive, gdb=opts.gdb, smp=opts.smp, **feed)
    else:
        out_dir = opts.out_dir or os.path.join(os.path.dirname(os.path.abspath(opts.kernel)), "out")
        program = [(opts.program, opts.args) + ((opts.program_path,) if opts.program_path else ())]
        try:
            log, code, timed_out, files, file_errors = boot_direct(
                opts.kernel, [image.parse_module(m) for m in opts.module] +
                (program if opts.program else []), opts.cmdline,
                out_dir, timeout, echo=echo, interactive=interactive, gdb=opts.gdb,
                files=local_files(opts), symfs=opts.symfs, smp=opts.smp, **feed)
        except (OSError, ValueError) as e:
            print(f"run.py: {e}", file=sys.stderr)
            return 2
    if opts.log:
        with open(opts.log, "w") as f:
            f.write(log)
    for dest, size in files:
        print(f"run.py: the kernel sent {dest} ({size} bytes)", file=sys.stderr)
    for e in file_errors:
        print(f"run.py: a file the kernel sent is damaged: {e}", file=sys.stderr)

    if opts.interactive:
        why, status = run_status(log, code)
        if timed_out:
            why, status = f"timed out after {timeout:g} s (TIMEOUT={timeout:g})", 124
        elif file_errors and not status:
            why, status = "a file the kernel sent did not arrive intact", 1
        if why:
            print(f"\nrun.py: {why}", file=sys.stderr)
        print(f"exit status: {status}")
        return status

    # The kernel tests itself unless told ktest=0 (kernel/main.c).
    kernel_tests = bool(opts.iso) or "ktest=0" not in opts.cmdline.split()
    outcomes = ktap.evaluate(log, code, timed_out, kernel_tests)
    outcomes += [ktap.Outcome("hostout", False, e) for e in file_errors]
    if opts.expect_fail:
        outcomes = [expect_failure(outcomes, code, opts.expect_fail)]
    counts = report(outcomes, f"{opts.firmware if opts.iso else 'direct'}: ", opts.quiet)
    print(summary(*counts))
    return 1 if counts[1] else 0


if __name__ == "__main__":
    sys.exit(main())
