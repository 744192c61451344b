# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the rigc lab scripts. Sourced, never run.
#
# The lab is a Debian trixie root filesystem in a cache folder outside the
# clone. Everything heavy (QEMU >= 10.1, clang/LLVM 19, rustc with its library
# sources, bindgen, the 7.3 kernel tree, the kernel builds) lives there, keyed
# by content, so the host system is left alone and a second run is cheap.

set -euo pipefail

RIGC_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RIGC_CACHE=${RIGC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rigc}
LAB_ROOT=$RIGC_CACHE/root          # the trixie root filesystem
LAB_WORK=$RIGC_CACHE/work          # bind-mounted at /lab inside the root
JOBS=${JOBS:-2}
MAKE_LLVM="LLVM=-19"

log() { printf '\033[1m[rigc]\033[0m %s\n' "$*" >&2; }
die() { printf '[rigc] error: %s\n' "$*" >&2; exit 1; }

# Hash of files (content only), used as cache key.
content_key() {
	cat "$@" | sha256sum | cut -c1-16
}

# Run a command inside the lab root, in a private mount namespace so that
# every mount disappears with the command. The repository is visible at
# /lab/src (read-only view of the clone), the cache at /lab.
# LIBCLANG_PATH: bindgen loads the newest libclang it finds unless told; the
# lab root has LLVM 22 too (lab/kernel --bench-inline), and bindgen 0.71 with
# libclang 22 drops fields of some structures (rust-bindgen#3278). Every
# build's bindings come from libclang 19.
lab_exec() {
	local kvm_mask=""
	[ -e "$RIGC_CACHE/kvm-broken" ] && kvm_mask=1
	mkdir -p "$LAB_WORK" "$LAB_ROOT/lab"
	unshare -m --propagation private -- env -i \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root TERM="${TERM:-dumb}" LANG=C.UTF-8 \
		LIBCLANG_PATH=/usr/lib/llvm-19/lib \
		LAB_ROOT="$LAB_ROOT" LAB_WORK="$LAB_WORK" RIGC_SRC="$RIGC_SRC" \
		KVM_MASK="$kvm_mask" RIGC_VERBOSE="${RIGC_VERBOSE:-}" \
		bash -c '
		set -e
		r=$LAB_ROOT
		mount --bind "$LAB_WORK" "$r/lab"
		mkdir -p "$r/lab/src"
		mount --bind "$RIGC_SRC" "$r/lab/src"
		mount -t proc proc "$r/proc"
		mount --rbind /sys "$r/sys"
		mount --rbind /dev "$r/dev"
		mount -t tmpfs tmpfs "$r/tmp"
		mount -t tmpfs tmpfs "$r/run"
		mkdir -p "$r/dev/shm" && mount -t tmpfs tmpfs "$r/dev/shm"
		if [ -n "$KVM_MASK" ] && [ -e "$r/dev/kvm" ]; then
			mount --bind /dev/null "$r/dev/kvm"
		fi
		cp /etc/resolv.conf "$r/etc/resolv.conf" 2>/dev/null || true
		exec chroot "$r" "$@"
		' lab-exec "$@"
}
