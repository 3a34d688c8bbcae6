#!/usr/bin/env python3
"""tests/qemu/hostout.py: extracts the files pmuos sends to the host (kernel/hostout.h): binary
frames from the COM2 stream, or text frames picked out of a console log (hostout=com1)."""
import argparse
import array
import base64
import binascii
import os
import struct
import sys
import zlib

MAGIC = b"PMUOSOUT"
BEGIN = "=== pmuos-out BEGIN "
END = "=== pmuos-out END "
SELFTEST_NAME = "hostout-selftest.bin"


class FrameError(Exception):
    pass


def safe_path(path):
    """The frame's path made relative to the output folder; no way out of it."""
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        raise FrameError(f"refused path {path!r}")
    return os.path.join(*parts)


def checked(path, data, length, crc):
    if len(data) != length:
        raise FrameError(f"{path}: {len(data)} bytes, the frame said {length}")
    if zlib.crc32(data) != crc:
        raise FrameError(f"{path}: CRC-32 {zlib.crc32(data):08x}, the frame said {crc:08x}")
    return path, data


def parse_binary(stream):
    """COM2's frames, back to back. Returns ([(path, bytes)], [error])."""
    files, errors, off, view = [], [], 0, memoryview(stream)
    while off < len(stream):
        try:
            if stream[off:off + 8] != MAGIC:
                raise FrameError(f"no frame magic at byte {off}: the stream is damaged")
            (plen,) = struct.unpack_from("<I", stream, off + 8)
            path = bytes(view[off + 12:off + 12 + plen]).decode("utf-8", "replace")
            (length,) = struct.unpack_from("<Q", stream, off + 12 + plen)
            start = off + 20 + plen
            if start + length + 4 > len(stream):
                raise FrameError(f"{path}: truncated: {length} bytes and a CRC announced, "
                                 f"{len(stream) - start} bytes left in the stream")
            (crc,) = struct.unpack_from("<I", stream, start + length)
            files.append(checked(path, bytes(view[start:start + length]), length, crc))
            off = start + length + 4
        except struct.error:
            errors.append(f"a frame header is truncated at byte {off}")
            break
        except FrameError as e:
            errors.append(str(e))
            break  # no length to trust past a damaged frame
    return files, errors


def parse_text(log):
    """Text frames inside a console log; lines in between that do not start with ':' are the
    console's. Returns ([(path, bytes)], [error])."""
    files, errors, cur = [], [], None
    for line in log.splitlines():
        line = line.rstrip("\r")
        if line.startswith(BEGIN):
            if cur:
                errors.append(f"{cur[0]}: no END line before the next BEGIN")
            length, _, path = line[len(BEGIN):].partition(" ")
            cur = (path, int(length), [])
        elif cur and line.startswith(END):
            path, length, chunks = cur
            cur = None
            try:
                files.append(checked(path, b"".join(chunks), length, int(line[len(END):], 16)))
            except (FrameError, ValueError) as e:
                errors.append(str(e))
        elif cur and line.startswith(":"):
            try:
                cur[2].append(base64.b64decode(line[1:], validate=True))
            except binascii.Error:
                errors.append(f"{cur[0]}: a damaged base64 line {line[:40]!r}")
    if cur:
        errors.append(f"{cur[0]}: truncated (no END line)")
    return files, errors


def write_files(files, out_dir):
    """Writes each file under out_dir; returns ([(host path, size)], [error])."""
    written, errors = [], []
    for path, data in files:
        try:
            dest = os.path.join(out_dir, safe_path(path))
        except FrameError as e:
            errors.append(str(e))
            continue
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "wb") as f:
            f.write(data)
        written.append((dest, len(data)))
    return written, errors


def selftest_pattern(n):
    """kernel/test/hostout.c's pattern: little-endian words w[i] = i * 0x9e3779b1."""
    words = array.array("I", ((i * 0x9E3779B1) & 0xFFFFFFFF for i in range((n + 3) // 4)))
    if sys.byteorder != "little":
        words.byteswap()
    return words.tobytes()[:n]


def check_selftest(data):
    """None if data is the pattern, else where it first differs."""
    want = selftest_pattern(len(data))
    if data == want:
        return None
    first = next(i for i in range(len(data)) if data[i] != want[i])
    return f"{SELFTEST_NAME}: byte {first} is {data[first]:#04x}, the pattern has {want[first]:#04x}"


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("stream", help="a COM2 capture, or a console log with --text")
    ap.add_argument("--text", action="store_true", help="the stream is a console log (hostout=com1)")
    ap.add_argument("--out-dir", default="build/out", help="where the files go (default build/out)")
    ap.add_argument("--check-selftest", action="store_true",
                    help=f"also check {SELFTEST_NAME} (hostout.selftest=N) against the pattern")
    opts = ap.parse_args()
    with open(opts.stream, "rb") as f:
        raw = f.read()
    files, errors = parse_text(raw.decode("utf-8", "replace")) if opts.text else parse_binary(raw)
    written, write_errors = write_files(files, opts.out_dir)
    errors += write_errors
    for dest, size in written:
        print(f"{dest}: {size} bytes")
    if opts.check_selftest:
        got = [data for path, data in files if path == SELFTEST_NAME]
        why = check_selftest(got[0]) if got else f"no {SELFTEST_NAME} in the stream"
        errors += [why] if why else []
    for e in errors:
        print(f"hostout.py: {e}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
