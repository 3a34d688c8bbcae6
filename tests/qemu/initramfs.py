#!/usr/bin/env python3
"""tests/qemu/initramfs.py: the initramfs both kernels boot: a cpio newc archive with the programs
under /bin, the run list /etc/runlist (argv and envp byte for byte), and a folder tree.

/init is user/init.c on both kernels (the kernel runs it as pid 1): it reads the run list, whose
format is
NUL-terminated fields, per program: the path, argc in decimal, the argc arguments, envc in
decimal, the envc environment strings.
"""
import argparse
import os
import re
import shlex
import stat
import struct
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The /init both kernels run: the Makefile names its build's (PMUOS_INIT).
DEFAULT_INIT = os.environ.get("PMUOS_INIT") or str(ROOT / "build" / "user" / "init")
# What every program gets unless the caller says otherwise; the same on both kernels.
DEFAULT_ENV = ["HOME=/", "TERM=linux", "PATH=/bin:/usr/bin:/sbin:/usr/sbin"]
# Folders every image has: / as a Linux system expects it, /out for files to the host.
DIRS = ["bin", "dev", "etc", "out", "proc", "sys", "tmp", "usr", "usr/bin"]


class Entry:
    """One archive member. data: bytes for a file, the target for a symlink."""

    def __init__(self, name, mode, data=b"", uid=0, gid=0, mtime=0, rdev=(0, 0), ino=None,
                 nlink=None):
        self.name, self.mode, self.data = name.lstrip("/"), mode, data
        self.uid, self.gid, self.mtime, self.rdev = uid, gid, mtime, rdev
        self.ino, self.nlink = ino, nlink


def cpio(entries):
    """A newc archive of entries, with the trailer; inodes numbered from 1 unless given."""
    pad = lambda n: b"\0" * (-n % 4)  # noqa: E731
    out = []
    for i, e in enumerate(entries + [Entry("TRAILER!!!", 0)], 1):
        name = e.name.encode() + b"\0"
        data = e.data.encode() if isinstance(e.data, str) else e.data
        nlink = e.nlink or (2 if stat.S_ISDIR(e.mode) else 1)
        fields = [e.ino or i, e.mode, e.uid, e.gid, nlink, e.mtime, len(data), 0, 0,
                  e.rdev[0], e.rdev[1], len(name), 0]
        head = b"070701" + b"".join(b"%08x" % f for f in fields) + name
        out += [head, pad(len(head)), data, pad(len(data))]
    return b"".join(out)


def runlist(records):
    """records: [(path, argv, envp)] -> the run list's bytes."""
    out = []
    for path, argv, envp in records:
        fields = [path, str(len(argv)), *argv, str(len(envp)), *envp]
        for f in fields:
            b = f.encode() if isinstance(f, str) else f
            if b"\0" in b:
                raise ValueError(f"a NUL byte in {f!r}: argv and envp strings cannot hold one")
            out.append(b + b"\0")
    return b"".join(out)


PT_INTERP = 3


def elf_interp(data):
    """The dynamic loader an x86-64 ELF names (PT_INTERP), or None."""
    if data[:4] != b"\x7fELF" or data[4] != 2:
        return None
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    for i in range(phnum):
        ptype, = struct.unpack_from("<I", data, phoff + i * phentsize)
        if ptype == PT_INTERP:
            off, _, _, size = struct.unpack_from("<QQQQ", data, phoff + i * phentsize + 8)
            return data[off:off + size].rstrip(b"\0").decode()
    return None


def shared_objects(host):
    """What a dynamically linked program needs at run time, as ldd lists it: absolute paths
    of its libraries and its loader."""
    out = subprocess.run(["ldd", str(host)], capture_output=True, text=True, check=True).stdout
    return re.findall(r"(/\S+) \(0x", out)


def dirs_of(path, seen):
    """Directory entries for every folder above path not made yet."""
    parts = Path(path).parts[1:-1]
    for i in range(len(parts)):
        d = "/".join(parts[:i + 1])
        if d not in seen:
            seen.add(d)
            yield Entry(d, stat.S_IFDIR | 0o755)


def split_args(args):
    """A program's arguments: a list is taken as it is, a string is split as sh would."""
    return list(args) if isinstance(args, (list, tuple)) else shlex.split(args)


def file_entries(files, seen):
    """files: [(host_path, guest_path)] -> entries for them and the folders above them not in
    seen (which it extends). The mode is the host file's."""
    entries = []
    for host, guest in files:
        guest = "/" + guest.lstrip("/")
        entries += list(dirs_of(guest, seen))
        mode = os.stat(host).st_mode
        entries.append(Entry(guest, stat.S_IFREG | (mode & 0o777), Path(host).read_bytes()))
    return entries


def program_tree(programs, env=None, files=()):
    """programs: [(host_path, args[, guest_path])] in run order -> (entries, run list records).

    Each program lands at its guest path if given, else in /bin/NAME (a second one of the same
    name in /bin/mN/NAME), and is run as NAME args: argv[0] is its name, as a shell gives it.
    A dynamically linked one brings what ldd lists (its loader and libraries) at the same paths.
    files: [(host_path, guest_path)] put in the image beside them (see file_entries).
    """
    entries = [Entry(d, stat.S_IFDIR | (0o1777 if d == "tmp" else 0o755)) for d in DIRS]
    placed, records, libs, seen = {}, [], set(), set(DIRS)
    for host, args, *where in programs:
        host = Path(host).resolve()
        name = host.name
        if host not in placed:
            taken = sum(p.name == name for p in placed)
            path = f"/bin/{name}" if not taken else f"/bin/m{taken}/{name}"
            if where:
                path = "/" + where[0].lstrip("/")
                entries += list(dirs_of(path, seen))
            elif taken:
                entries.append(Entry(f"bin/m{taken}", stat.S_IFDIR | 0o755))
            data = host.read_bytes()
            entries.append(Entry(path, stat.S_IFREG | 0o755, data))
            placed[host] = path
            # A dynamically linked program brings its loader and libraries, at the paths
            # the host's ldd gives them.
            for lib in shared_objects(host) if elf_interp(data) else []:
                if lib not in libs:
                    libs.add(lib)
                    entries += list(dirs_of(lib, seen))
                    entries.append(Entry(lib, stat.S_IFREG | 0o755, Path(lib).read_bytes()))
        records.append((placed[host], [name] + split_args(args),
                        DEFAULT_ENV if env is None else env))
    entries += file_entries(files, seen)
    entries.append(Entry("etc/runlist", stat.S_IFREG | 0o644, runlist(records)))
    return entries, records


def image_entries(programs, extra=(), env=None, init=None, files=()):
    """What the archive holds: /init, the program tree, then extra entries (later ones win,
    as in Linux)."""
    init = Path(init or DEFAULT_INIT)
    if not init.is_file():
        raise FileNotFoundError(f"no {init}: build it first (make user)")
    entries, _ = program_tree(programs, env, files)
    return [Entry("init", stat.S_IFREG | 0o755, init.read_bytes())] + entries + list(extra)


def build(programs, extra=(), env=None, init=None, files=()):
    """The archive's bytes (see image_entries)."""
    return cpio(image_entries(programs, extra, env, init, files))


def write_tree(entries, root):
    """The regular files of entries under root at their paths in the image: the tree the
    host's perf report reads binaries from (--symfs) as the guest saw them."""
    for e in entries:
        if stat.S_ISREG(e.mode):
            dest = Path(root) / e.name
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(e.data.encode() if isinstance(e.data, str) else e.data)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("programs", nargs="*", metavar="PATH[:ARGS]",
                    help="a program to run, with its arguments (sh-quoted) after a colon")
    ap.add_argument("-o", "--output", required=True)
    opts = ap.parse_args()
    progs = [(p.partition(":")[0], p.partition(":")[2]) for p in opts.programs]
    data = build(progs)
    part = opts.output + ".part"
    os.makedirs(os.path.dirname(os.path.abspath(opts.output)), exist_ok=True)
    with open(part, "wb") as f:
        f.write(data)
    os.replace(part, opts.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
