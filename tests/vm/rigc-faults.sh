#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Allocation failures injected at each allocation of open (ip link set up),
# ethtool -G and ethtool -L (lab/guest/faultsweep, the kernel's fail-nth):
# each fails cleanly or succeeds, the interface is left as it was or as asked,
# traffic flows, nothing hangs (driver-review.md F1, F7) and nothing leaks
# (kmemleak, lab/guest/splat-check); no allocation for the rings but their
# descriptors needs more than the allocator's costly order of contiguous
# pages (F12.4). RIGC_LONG=1 tries every allocation; the default samples
# about 80 of them per operation. (A sweep over the probe, "faultsweep rigc
# bind BDF", is not run: the first try oopsed in ACPICA's reference counts,
# acpi_ut_update_object_reference from pci_disable_device at the unbind after
# a failed bind, before any of rigc's allocations could be judged; it needs
# the failures confined to the driver's own call stack first.)
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

# The rings' bookkeeping arrays come from kvmalloc, as igc's from vzalloc:
# no allocation of the driver's needs more contiguous pages than the
# allocator's costly order (PAGE_ALLOC_COSTLY_ORDER, 3), which a machine that
# has run for a while may not have (driver-review.md F12.4), except the
# descriptor rings the device reads, contiguous by nature (64 KiB, order 4,
# at 4096 descriptors: igc's too). without_order N CMD...: CMD runs with every
# page allocation of order N or more failing.
without_order() {
	local d=/sys/kernel/debug/fail_page_alloc rc
	echo "$1" >$d/min-order
	echo -1 >$d/times
	echo 100 >$d/probability
	shift
	"$@"
	rc=$?
	echo 0 >$d/probability
	echo 0 >$d/min-order
	return $rc
}
reopen() { ip -n a link set "$A" down && ip -n a link set "$A" up; }
check "open with every allocation of order 4 or more failing" without_order 4 reopen
check "ethtool -G 1024 with every allocation of order 4 or more failing" \
	without_order 4 ip netns exec a ethtool -G "$A" rx 1024 tx 1024
check "ethtool -G 4096 with every allocation of order 5 or more failing" \
	without_order 5 ip netns exec a ethtool -G "$A" rx 4096 tx 4096
check "open at 4096 descriptors with every allocation of order 5 or more failing" \
	without_order 5 reopen
wait_carrier a "$A"
check "ping a -> b at 4096 descriptors" ip netns exec a ping -c 2 -W 2 10.0.0.2
check "ethtool -G back to 256" ip netns exec a ethtool -G "$A" rx 256 tx 256
fault_injection_off
check "ping a -> b after the sweeps" ip netns exec a ping -c 2 -W 2 10.0.0.2

tap_done
