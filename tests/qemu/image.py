#!/usr/bin/env python3
"""tests/qemu/image.py: makes the BIOS+UEFI GRUB ISO from the kernel ELF and the programs, which
go into the initramfs (tests/qemu/initramfs.py)."""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import initramfs  # noqa: E402

SAFE = re.compile(r"[A-Za-z0-9_./=:,+@%-]+")


def grub_quote(word):
    """GRUB's script lexer splits and unquotes like sh; quote anything beyond plain words."""
    return word if SAFE.fullmatch(word) else "'" + word.replace("'", "'\\''") + "'"


def grub_words(args):
    return " ".join(grub_quote(w) for w in shlex.split(args))


def parse_module(spec):
    """`PATH[:ARGS]` as the Makefile writes it: the program, then its arguments after a colon."""
    path, _, args = spec.partition(":")
    return path, args


def grub_cfg(cmdline):
    """The kernel, and the initramfs as its one module."""
    return "\n".join([
        "# made by tests/qemu/image.py",
        "serial --unit=0 --speed=115200",
        "terminal_input serial",
        "terminal_output serial",
        "set timeout=0",
        'menuentry "pmuos" {',
        f"    multiboot2 /boot/pmuos.elf {grub_words(cmdline)}".rstrip(),
        "    module2 /boot/initramfs.cpio initramfs",
        "}",
    ]) + "\n"


def build_iso(kernel_elf, modules, cmdline, out_iso, extra=()):
    """modules: [(host_path, args)], the programs in the order the kernel runs them; they go
    into the initramfs (tests/qemu/initramfs.py) with extra entries after them."""
    with tempfile.TemporaryDirectory(prefix="pmuos-iso-") as tmp:
        boot = os.path.join(tmp, "boot")
        os.makedirs(os.path.join(boot, "grub"))
        shutil.copyfile(kernel_elf, os.path.join(boot, "pmuos.elf"))
        with open(os.path.join(boot, "initramfs.cpio"), "wb") as f:
            f.write(initramfs.build(modules, extra))
        with open(os.path.join(boot, "grub", "grub.cfg"), "w") as f:
            f.write(grub_cfg(cmdline))
        os.makedirs(os.path.dirname(os.path.abspath(out_iso)), exist_ok=True)
        part = out_iso + ".part"  # make never sees a half-written image
        res = subprocess.run(["grub-mkrescue", "-o", part, tmp], stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if res.returncode != 0 or not os.path.exists(part):
            if os.path.exists(part):
                os.unlink(part)
            raise RuntimeError(f"grub-mkrescue failed ({res.returncode}):\n{res.stdout.strip()}")
        os.replace(part, out_iso)
    return out_iso


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--kernel", required=True, help="the kernel ELF (multiboot2)")
    ap.add_argument("--cmdline", default="", help="kernel command line")
    ap.add_argument("--module", action="append", default=[], metavar="PATH[:ARGS]",
                    help="a program to run, with its arguments after a colon; repeat in order")
    ap.add_argument("-o", "--output", required=True, help="the ISO to write")
    opts = ap.parse_args()
    try:
        build_iso(opts.kernel, [parse_module(m) for m in opts.module], opts.cmdline, opts.output)
    except (OSError, RuntimeError, ValueError) as e:
        print(f"image.py: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
