#!/usr/bin/env python3
"""tests/qemu/oracle.py: runs userland programs on Debian's Linux kernel in QEMU (the reference for pmuos)."""
import argparse
import lzma
import os
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import initramfs  # noqa: E402
import run  # noqa: E402  (SerialInput)

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_INIT = initramfs.DEFAULT_INIT
XZ_MAGIC = b"\xfd7zXZ\x00"

# The QEMU settings pmuos is run under too (DESIGN.md, "Tests"), so instruction counts compare.
QEMU_MACHINE = [
    "qemu-system-x86_64", "-M", "pc", "-m", "512M", "-smp", "1",
    "-cpu", "max,-rdrand,-rdseed", "-icount", "shift=0,sleep=off",
    "-no-reboot", "-display", "none", "-serial", "stdio",
    "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
    "-rtc", "base=2024-01-01T00:00:00,clock=vm",
]
APPEND = "console=ttyS0 quiet panic=-1 nokaslr norandmaps"
# nolapic_timer: calibrating the LAPIC timer busy-waits 100 ms of virtual time, which under
# icount is 100M instructions, 2.6 of the 5.8 s boot on a 2-core host. Without icount it is
# quick, and the LAPIC timer is what drives each CPU's hrtimers (cpu-clock's samples on a
# CPU other than the boot CPU come from the PIT broadcast at HZ without it).
NO_LAPIC_TIMER = " nolapic_timer"
# tsc=reliable, without icount (several CPUs): TCG's TSC is one monotonic counter for every
# vCPU, but its "max" CPU has no constant_tsc, so Linux takes a multi-CPU machine for one with
# unsynchronized TSCs, marks the TSC unstable, and its sched_clock then stands still between
# ticks on an idle CPU: a task-clock read 0 after some work, a CPU-wide clock did not move.
TSC_RELIABLE = " tsc=reliable"


class OracleError(RuntimeError):
    pass


def pmuos_cache(name):
    """Where pmuos keeps a dependency it fetched or built: outside the tree, once per host."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "pmuos" / name


def cache_dir():
    return pmuos_cache("linux")


def run_command(cmd, error=OracleError, **kw):
    """cmd's stdout; a failure raises error with its stderr."""
    try:
        return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        detail = getattr(e, "stderr", "") or str(e)
        raise error(f"{' '.join(map(str, cmd))} failed: {detail.strip()[-2000:]}") from e


def kernel_package():
    out = run_command(["apt-cache", "depends", "linux-image-amd64"])
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "Depends:" and parts[1].startswith("linux-image-"):
            return parts[1]
    raise OracleError("apt-cache knows no linux-image-amd64 (run apt-get update first)")


def extract_vmlinux(bzimage):
    """The bzImage payload is one xz stream; its content is the ELF vmlinux with a PVH entry."""
    start = bzimage.find(XZ_MAGIC)
    if start < 0:
        raise OracleError("no xz stream in the bzImage")
    dec = lzma.LZMADecompressor(format=lzma.FORMAT_XZ)
    elf = dec.decompress(bzimage[start:])  # stops at the stream's end, trailing bytes ignored
    if not dec.eof or elf[:4] != b"\x7fELF":
        raise OracleError("the bzImage's xz payload is not an ELF vmlinux")
    return elf


def fetch_kernel(refresh=False):
    """Returns (vmlinux, bzImage) paths, downloading the package on first use.

    A cached kernel is kept until refresh asks for the current package: a reference that
    changes under the tests by itself would make logs differ from one day to the next.
    """
    cache = cache_dir()
    cached = sorted(cache.glob("vmlinux-*"), key=lambda p: p.stat().st_mtime)
    if cached and not refresh:
        vmlinux = cached[-1]
        bzimage = cache / vmlinux.name.replace("vmlinux-", "vmlinuz-", 1)
        if bzimage.exists():
            return vmlinux, bzimage
    pkg = kernel_package()
    vmlinux, bzimage = cache / f"vmlinux-{pkg}", cache / f"vmlinuz-{pkg}"
    if vmlinux.exists() and bzimage.exists():
        return vmlinux, bzimage
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        run_command(["apt-get", "download", pkg], cwd=tmp)
        debs = list(Path(tmp).glob("*.deb"))
        if not debs:
            raise OracleError(f"apt-get download {pkg} produced no .deb (no network?)")
        # Like dpkg-deb -x, but only boot/vmlinuz-*: the modules are hundreds of megabytes.
        tar = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(debs[0])], stdout=subprocess.PIPE)
        image = None
        with tarfile.open(fileobj=tar.stdout, mode="r|") as tf:
            for member in tf:
                if member.isfile() and Path(member.name).name.startswith("vmlinuz-"):
                    image = tf.extractfile(member).read()
                    break
        tar.kill()
        tar.wait()
        if image is None:
            raise OracleError(f"{debs[0].name} holds no boot/vmlinuz-*")
        elf = extract_vmlinux(image)
        for path, data in ((bzimage, image), (vmlinux, elf)):
            part = Path(tmp) / path.name  # renamed into place whole, never seen half-written
            part.write_bytes(data)
            part.rename(path)
    return vmlinux, bzimage


def build_initramfs(programs, init, files=()):
    """The initramfs pmuos boots (tests/qemu/initramfs.py: /init, /bin, /etc/runlist, files),
    plus the /dev/console node Linux opens for init (pmuos makes its /dev itself)."""
    return initramfs.build(programs, [initramfs.Entry("dev/console", 0o020600, rdev=(5, 1))],
                           init=init, files=files)


def _boot(cmd, timeout, stdin_data=None, stdin_after=None):
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL if stdin_data is None else subprocess.PIPE)
    feed = run.SerialInput(proc, stdin_data, stdin_after) if stdin_data is not None else None
    chunks = []

    def pump():
        while True:
            data = proc.stdout.read1(65536)
            if not data:
                return
            chunks.append(data)
            if feed:
                feed.output(data)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    try:
        proc.wait(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        timed_out = True
    reader.join()
    log = b"".join(chunks).decode("utf-8", errors="replace").replace("\r\n", "\n")
    return log, proc.returncode, timed_out


def run_oracle(programs, timeout=120, init=DEFAULT_INIT, stdin_data=None, stdin_after=None,
               files=(), smp=1, icount=True):
    """Boots Linux on smp CPUs with programs [(host_path, args[, guest_path])] and files
    [(host_path, guest_path)] in its initramfs; stdin_data goes to the console's input once
    the output shows stdin_after (run.SerialInput). icount False: without -icount, which
    Linux needs on several CPUs (run.without_icount).

    Returns (log, exit_code, timed_out): the serial output, QEMU's exit status (isa-debug-exit
    makes it (halt_status << 1) | 1) and whether the timeout killed QEMU.
    """
    if not Path(init).exists():
        raise OracleError(f"{init} is missing: build it first (make user)")
    missing = [str(p) for p, *_ in programs if not Path(p).is_file()]
    if missing:
        raise OracleError(f"no such program: {', '.join(missing)}")
    vmlinux, bzimage = fetch_kernel()
    with tempfile.TemporaryDirectory() as tmp:
        cpio = Path(tmp) / "initramfs.cpio"
        cpio.write_bytes(build_initramfs(programs, init, files))
        machine = run.with_smp(QEMU_MACHINE, smp)
        common = (machine if icount else run.without_icount(machine)) + [
            "-initrd", str(cpio), "-append", APPEND + (NO_LAPIC_TIMER if icount else TSC_RELIABLE)]
        # The ELF vmlinux's PVH entry under qboot skips the BIOS and the decompressor: about
        # 3 s against 7 s for the bzImage under SeaBIOS on a 2-core host.
        log, code, timed_out = _boot(
            common + ["-bios", "/usr/share/qemu/qboot.rom", "-kernel", str(vmlinux)], timeout,
            stdin_data, stdin_after)
        if "== " not in log:
            log, code, timed_out = _boot(common + ["-kernel", str(bzimage)], timeout,
                                         stdin_data, stdin_after)
    return log, code, timed_out


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, epilog="Prints the serial log and exits with QEMU's status: 1 "
        "when /init halted with status 0 ((status << 1) | 1), 124 on timeout.")
    ap.add_argument("programs", nargs="*", metavar="PROG[:ARGS]",
                    help="program to run, with its arguments after a colon")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--init", default=str(DEFAULT_INIT), help="the static /init runner")
    ap.add_argument("--fetch", action="store_true",
                    help="only download the current kernel package into the cache")
    opts = ap.parse_args()
    try:
        if opts.fetch:
            print(*fetch_kernel(refresh=True), sep="\n")
            return 0
        progs = [(p.partition(":")[0], p.partition(":")[2]) for p in opts.programs]
        start = time.monotonic()
        log, code, timed_out = run_oracle(progs, opts.timeout, opts.init)
    except OracleError as e:
        print(f"oracle: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(log)
    print(f"oracle: qemu exit {code}{' (timeout)' if timed_out else ''} "
          f"after {time.monotonic() - start:.2f} s", file=sys.stderr)
    return 124 if timed_out else code


if __name__ == "__main__":
    sys.exit(main())
