# SPDX-License-Identifier: GPL-2.0
# TAP helpers for the VM tests. Each test script runs inside the VM (through
# lab/vm) and prints "ok N - what" or "not ok N - what" per check; lab/test
# counts them. A "# lab-vm: ARGS" line in a test gives lab/vm its options.

_tap_n=0
_tap_failed=0

ok() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $*"; }
not_ok() { _tap_n=$((_tap_n + 1)); _tap_failed=1; echo "not ok $_tap_n - $*"; }

# check "description" command...: runs the command, shows its output on failure.
check() {
	local what=$1 out
	shift
	if out=$("$@" 2>&1); then
		ok "$what"
	else
		not_ok "$what"
		printf '%s\n' "$out" | sed 's/^/#   /' | tail -20
	fi
}

# Kernel log lines since the mark, and whether any is a warning or an oops.
dmesg_mark() { _dmesg_mark=$(dmesg | wc -l); }
dmesg_since() { dmesg | tail -n +"$((${_dmesg_mark:-0} + 1))"; }
no_kernel_splat() {
	! dmesg | grep -E "WARNING:|BUG:|Oops|general protection|Call Trace|kmemleak: [1-9]"
}

tap_done() { exit $_tap_failed; }
