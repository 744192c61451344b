#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# C igc under an allocation failure at each allocation of ethtool -L
# (lab/guest/faultsweep, the kernel's fail-nth), the sweep rigc-faults.sh
# runs on rigc. The MSI-X entry table igc could not allocate left it with
# MSI-X on and no table, and the reopen that follows oopsed in
# igc_request_msix (1-igc/0003). Each call fails or succeeds, nothing oopses
# or leaks (lab/guest/splat-check), and the interface works once set down and
# up after the sweep. faultsweep's verdict on the state is not required: once
# igc has fallen back to MSI it stays on one queue, as after any MSI-X
# failure, so the sweep's undo to two channels fails with EINVAL.
# lab-vm: --driver igc --ports 2 --timeout 900
. "$(dirname "$0")/lib.sh"

check "both ports up with carrier in namespaces a and b" setup_namespaces igc
A=$(ns_iface a)
fault_injection_on
sweep() { # sweep ARGS...: faultsweep in namespace a, its summary as a note
	local out
	out=$(timeout 600 ip netns exec a /lab/src/lab/guest/faultsweep "$@" 2>&1)
	printf '%s\n' "$out"
	note "$(printf '%s\n' "$out" | grep -m1 '^faultsweep')"
	# It ran to its end: the summary line is there.
	printf '%s\n' "$out" | grep -q '^faultsweep channels'
}
check "ethtool -L: an allocation failure at each allocation, no oops" sweep "$A" channels 1
fault_injection_off
reopen() { ip -n a link set "$A" down && ip -n a link set "$A" up; }
check "the interface set down and up after the sweep" reopen
check "carrier on port a" wait_carrier a "$A"
check "ping a -> b after the sweep" ip netns exec a ping -c 2 -W 2 10.0.0.2
tap_done
