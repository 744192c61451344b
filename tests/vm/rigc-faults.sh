#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Allocation failures injected at each allocation of open (ip link set up),
# ethtool -G and ethtool -L (lab/guest/faultsweep, the kernel's fail-nth):
# each fails cleanly or succeeds, the interface is left as it was or as asked,
# traffic flows, nothing hangs (driver-review.md F1, F7) and nothing leaks
# (kmemleak, lab/guest/splat-check). RIGC_LONG=1 tries every allocation;
# the default samples about 80 of them per operation.
# lab-vm: --driver rigc --ports 2 --timeout 1200
. "$(dirname "$0")/lib.sh"

check "both ports up with carrier in namespaces a and b" setup_namespaces rigc
A=$(ns_iface a)
long=""
[ -n "${RIGC_LONG:-}" ] && long=--long
fault_injection_on
sweep() { # sweep WHAT ARGS...: faultsweep in namespace a, its summary as a note
	local out rc
	out=$(timeout 900 ip netns exec a /lab/src/lab/guest/faultsweep $long "$@" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	note "$(printf '%s\n' "$out" | grep -m1 '^faultsweep')"
	[ "$rc" = 0 ]
}
# faultsweep's own bookkeeping must not consume the armed fault: ethtool -L
# to the count in use reaches only the ethtool core's allocations (two per
# ioctl, and faultsweep makes two), so the sweep ends at N = 5 with one fault
# still armed, and reading fail-nth then must not fail (it did, as an open(),
# at the end of any sweep whose last N was just past the operation's count).
now=$(ip netns exec a ethtool -l "$A" | awk '/Combined/ { c = $2 } END { print c }')
check "faultsweep: a fault still armed after the operation is read back, not consumed" \
	ip netns exec a /lab/src/lab/guest/faultsweep "$A" channels "$now"
check "open: an allocation failure at each allocation leaves the interface down and usable" \
	sweep "$A" up
ip -n a link set "$A" up
wait_carrier a "$A"
check "ethtool -G: an allocation failure at each allocation keeps old rings or new, traffic flows" \
	sweep --ping 10.0.0.2 "$A" rings 512 512
# One channel: a count different from the default (min(4, CPUs)), so that
# the request reaches the driver (an unchanged count returns in the ethtool
# core, before the driver is called).
check "ethtool -L: an allocation failure at each allocation keeps old channels or new, traffic flows" \
	sweep --ping 10.0.0.2 "$A" channels 1
fault_injection_off
check "ping a -> b after the sweeps" ip netns exec a ping -c 2 -W 2 10.0.0.2
tap_done
