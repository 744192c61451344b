# SPDX-License-Identifier: GPL-2.0
# TAP helpers for the VM tests. Each test script runs inside the VM (through
# lab/vm) and prints "ok N - what" or "not ok N - what" per check; lab/test
# counts them. A "# lab-vm: ARGS" line in a test gives lab/vm its options.

MODEL_CTL=/lab/src/lab/guest/model-ctl

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

# The network interfaces of the ports bound to a driver, in PCI address order
# (the order of the model's ports).
port_ifaces() {
	local d
	for d in /sys/bus/pci/drivers/"$1"/0000:*/net/*; do
		[ -e "$d" ] && basename "$d"
	done
}

# wait_carrier NETNS IFACE: up to 10 s for carrier.
wait_carrier() {
	local _
	for _ in $(seq 50); do
		[ "$(ip netns exec "$1" cat /sys/class/net/"$2"/carrier 2>/dev/null)" = 1 ] && return 0
		sleep 0.2
	done
	return 1
}

# Two ports of driver $1 in two network namespaces "a" (10.0.0.1) and "b"
# (10.0.0.2), up, with carrier. ns_iface a|b names the port in each.
setup_namespaces() {
	local i0 i1
	set -- $(port_ifaces "$1")
	i0=$1 i1=$2
	ip netns add a && ip netns add b
	ip link set "$i0" netns a && ip link set "$i1" netns b
	ip -n a addr add 10.0.0.1/24 dev "$i0" && ip -n b addr add 10.0.0.2/24 dev "$i1"
	ip -n a link set lo up && ip -n b link set lo up
	ip -n a link set "$i0" up && ip -n b link set "$i1" up
	wait_carrier a "$i0" && wait_carrier b "$i1"
}

ns_iface() {
	ip -n "$1" -o link show | awk -F': ' '$2 != "lo" { sub(/@.*/, "", $2); print $2 }'
}

# ptp4l_pair SECONDS: ptp4l -H master in namespace a, slave in b (see
# setup_namespaces) at 8 Sync messages a second, for SECONDS. Logs in
# /tmp/ptp4l-master.log and /tmp/ptp4l-slave.log. The TX timestamp timeout is
# raised for TCG, where an interrupt can take milliseconds to reach a driver.
ptp4l_pair() {
	local opts="-H -m --logSyncInterval -3 --tx_timestamp_timeout 200 --summary_interval 0"
	ip netns exec a ptp4l -i "$(ns_iface a)" $opts --serverOnly 1 >/tmp/ptp4l-master.log 2>&1 &
	local master=$!
	ip netns exec b timeout "$1" ptp4l -i "$(ns_iface b)" $opts --clientOnly 1 \
		>/tmp/ptp4l-slave.log 2>&1
	kill "$master" 2>/dev/null
	wait "$master" 2>/dev/null
}

# ptp4l_converged N: "count rms worst" over the slave's last N one-second
# summaries (offset RMS and max |offset| in ns).
ptp4l_converged() {
	grep -o "rms *-\?[0-9]* max *-\?[0-9]*" /tmp/ptp4l-slave.log | tail -"$1" |
		awk '{ n++; s += $2 * $2; m = ($4 < 0 ? -$4 : $4); if (m > w) w = m }
		     END { printf "%d %.1f %d\n", n, (n ? sqrt(s / n) : 0), w }'
}

# model_tx_stamps PORT: "captured read", the model's count of TX timestamps
# it captured and the driver read (TXSTMPH) on that port.
model_tx_stamps() {
	$MODEL_CTL ptp "$1" | python3 -c 'import json, sys
p = json.load(sys.stdin)
print(p["tx_captured"], p["tx_read"])'
}
