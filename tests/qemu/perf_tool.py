#!/usr/bin/env python3
"""tests/qemu/perf_tool.py: the perf tool of Linux 6.1 for the guests, a static binary built from
Debian's linux-source-6.1 package into a cache outside the tree (as oracle.py caches Linux).

`python3 tests/qemu/perf_tool.py [--install PATH]` prints the cached binary's path, building it
first when the cache has none: about 20 s to unpack the sources' tools/ and 1.5 min to build on
2 cores. Nothing of Linux's source enters the repository; the build log stays in the cache.

The binary links glibc and libelf statically: inside the guest it resolves user symbols from the
ELF files and kernel ones from /proc/kallsyms. Left out, as no test or target needs them: Python
and Perl scripting, libunwind and libdw (DWARF unwinding), BPF, slang and GTK (perf report's
TUI: --stdio is the interface), libtraceevent's plugins, the demangler's libbfd.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
from oracle import pmuos_cache, run_command  # noqa: E402

PACKAGE = "linux-source-6.1"
# Where the package keeps the tarball, and what of it the perf build reads (tools/perf/MANIFEST
# names these folders; the kernel's own headers come from include/ and arch/x86/).
TARBALL = f"usr/src/{PACKAGE}.tar.xz"
SOURCE_DIRS = ["tools", "include", "arch/x86", "scripts", "lib", "kernel", "Makefile"]
MAKE_FLAGS = [
    "LDFLAGS=-static", "WERROR=0", "NO_LIBPYTHON=1", "NO_LIBPERL=1", "NO_LIBBPF=1",
    "NO_BPF_SKEL=1", "NO_LIBUNWIND=1", "NO_LIBNUMA=1", "NO_SLANG=1", "NO_GTK2=1",
    "NO_LIBAUDIT=1", "NO_LIBCRYPTO=1", "NO_LIBBABELTRACE=1", "NO_JVMTI=1", "NO_LIBCAP=1",
    "NO_LIBDEBUGINFOD=1", "NO_DEMANGLE=1",
]


class PerfToolError(RuntimeError):
    pass


def cache_dir():
    return pmuos_cache("perf")


def _run(cmd, **kw):
    return run_command(cmd, PerfToolError, **kw)


def cached():
    """The newest cached build, or None. A cached binary is kept until the cache is removed,
    as the oracle's kernel is: the tool under test does not change by itself."""
    builds = sorted(cache_dir().glob("*/perf"))
    return builds[-1] if builds else None


def build():
    """Download the source package, unpack the folders perf needs and build; returns the path."""
    cache = cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="pmuos-perf-", dir=cache) as tmp:
        tmp = Path(tmp)
        _run(["apt-get", "download", PACKAGE], cwd=tmp)
        deb = next(tmp.glob(f"{PACKAGE}_*.deb"), None)
        if not deb:
            raise PerfToolError(f"apt-get download {PACKAGE} left no package (apt-get update?)")
        version = deb.name.split("_")[1]
        print(f"perf_tool: building perf from {deb.name} (a few minutes, once)", file=sys.stderr)
        subprocess.run(f"dpkg-deb --fsys-tarfile {deb.name} | tar x ./{TARBALL}", shell=True,
                       check=True, cwd=tmp)
        (tmp / deb.name).unlink()
        top = PACKAGE
        _run(["tar", "xJf", TARBALL, "--wildcards"] +
             [f"{top}/{d}" if d == "Makefile" else f"{top}/{d}/*" for d in SOURCE_DIRS],
             cwd=tmp)
        (tmp / TARBALL).unlink()
        out = tmp / "out"
        out.mkdir()
        log = tmp / "build.log"
        with open(log, "w") as f:
            res = subprocess.run(["make", "-C", f"{top}/tools/perf", f"O={out}",
                                  f"-j{os.cpu_count() or 2}", *MAKE_FLAGS, "perf"],
                                 cwd=tmp, stdout=f, stderr=subprocess.STDOUT)
        if res.returncode or not (out / "perf").exists():
            tail = log.read_text(errors="replace").splitlines()[-30:]
            raise PerfToolError("building perf failed:\n" + "\n".join(tail))
        dest = cache / version
        dest.mkdir(exist_ok=True)
        _run(["strip", "-o", str(dest / "perf.tmp"), str(out / "perf")])
        shutil.copy(log, dest / "build.log")
        os.replace(dest / "perf.tmp", dest / "perf")
        return dest / "perf"


def perf_binary():
    return cached() or build()


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--install", metavar="PATH", help="copy the binary here")
    opts = ap.parse_args()
    try:
        path = perf_binary()
    except PerfToolError as e:
        print(f"perf_tool: {e}", file=sys.stderr)
        return 1
    if opts.install:
        Path(opts.install).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, opts.install)
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
