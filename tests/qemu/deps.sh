#!/bin/sh
# Install the Debian packages pmuos needs to build and test, when missing.
# As root it runs apt-get itself; otherwise it prints the command to run.
set -e

need=""
have() { command -v "$1" >/dev/null 2>&1; }
pkg_if_missing() {	# command package
	have "$1" || need="$need $2"
}
file_if_missing() {	# path package
	[ -e "$1" ] || need="$need $2"
}

pkg_if_missing qemu-system-x86_64 qemu-system-x86
pkg_if_missing nasm nasm
pkg_if_missing grub-mkrescue grub-common
file_if_missing /usr/lib/grub/i386-pc grub-pc-bin
file_if_missing /usr/lib/grub/x86_64-efi grub-efi-amd64-bin
pkg_if_missing xorriso xorriso
pkg_if_missing mformat mtools
file_if_missing /usr/share/OVMF/OVMF_CODE_4M.fd ovmf
pkg_if_missing musl-gcc musl-tools
pkg_if_missing gcc gcc
pkg_if_missing g++ g++
pkg_if_missing go golang-go
pkg_if_missing make make
pkg_if_missing python3 python3
pkg_if_missing gdb gdb
file_if_missing /usr/include/linux/perf_event.h linux-libc-dev
# the busybox run of make test: Debian's static busybox
file_if_missing /bin/busybox busybox-static
pkg_if_missing dpkg-deb dpkg
# the perf tool for the guests (tests/qemu/perf_tool.py builds it static from linux-source-6.1),
# and the host's perf, which reads what it records (make report)
pkg_if_missing flex flex
pkg_if_missing bison bison
file_if_missing /usr/lib/x86_64-linux-gnu/libelf.a libelf-dev
file_if_missing /usr/lib/x86_64-linux-gnu/libdw.a libdw-dev
file_if_missing /usr/lib/x86_64-linux-gnu/libz.a zlib1g-dev
file_if_missing /usr/lib/x86_64-linux-gnu/liblzma.a liblzma-dev
file_if_missing /usr/lib/x86_64-linux-gnu/libzstd.a libzstd-dev
pkg_if_missing perf linux-perf
# the host unit tests: clang with ASan, UBSan and libFuzzer
pkg_if_missing clang clang
if have clang; then
	file_if_missing "$(clang -print-resource-dir)/lib/linux/libclang_rt.fuzzer-x86_64.a" libclang-rt-14-dev
fi

[ -z "$need" ] && exit 0
echo "pmuos: missing Debian packages:$need"
if [ "$(id -u)" -ne 0 ]; then
	echo "pmuos: run as root: apt-get update && apt-get install -y$need"
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq$need >/dev/null
echo "pmuos: installed$need"
