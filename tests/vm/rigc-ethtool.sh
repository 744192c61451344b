#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rigc's ethtool -t and ethtool -S beside igc's, on the same emulated ports.
# ethtool -t runs igc's tests (igc_diag.c) with igc's names and results: the
# link test, then with the interface closed the register test (igc's table,
# read-only bits and all) and the NVM checksum, and the interface reopened;
# traffic flows after it. ethtool -S lists igc's 86 names in igc's order
# (45 device-wide, the stack's 9, three per TX queue, five per RX queue),
# then the three rigc counts that igc does not have, named here.
# lab-vm: --driver none --ports 2
. "$(dirname "$0")/lib.sh"

modprobe igc && wait_ports igc 2
igc_if=$(port_ifaces igc | head -1)
# igc reports the queues it uses, min(4, online CPUs) by default: 2 here.
# rigc reports its four hardware queues, so igc gets four too.
check "igc: ethtool -L combined 4" ethtool -L "$igc_if" combined 4
stats_names "$igc_if" >/tmp/names-igc
rmmod igc
modprobe rigc && wait_ports rigc 2
set -- $(port_ifaces rigc)
stats_names "$1" >/tmp/names-rigc
check "igc reports 86 ethtool -S counters with four queues ($(wc -l </tmp/names-igc))" test "$(wc -l </tmp/names-igc)" -eq 86
# rigc's own, after igc's: tx_hwtstamp_completed (TX timestamps delivered,
# which ptp tests count), tx_busy (transmits refused for a full ring) and
# rx_dropped_errors (frames rigc dropped for a descriptor error, an oversize
# or a runt; igc drops those without a count).
printf '%s\n' tx_hwtstamp_completed tx_busy rx_dropped_errors >/tmp/names-rigc-own
check "ethtool -S: igc's names in igc's order, then rigc's three" \
	sh -c 'cat /tmp/names-igc /tmp/names-rigc-own | diff - /tmp/names-rigc'

for i in "$@"; do ip link set "$i" up; done
# Offline with the first port up (closed and reopened), online on the other.
selftest_checks "$1" "$2"
check "ethtool -t: the interface was closed and reopened" \
	sh -c "dmesg | grep -q 'rigc.*$1: Offline testing starting' && dmesg | grep -q 'rigc.*$1: EEPROM testing starting'"
# And offline with the interface down: it stays down.
ip link set "$2" down
check "ethtool -t $2 offline while down: PASS" \
	sh -c "ethtool -t $2 offline >/tmp/selftest-down 2>&1; grep -q 'The test result is PASS' /tmp/selftest-down || { cat /tmp/selftest-down; false; }"
check "$2 stays down after it" sh -c "! ip link show $2 | grep -q 'state UP'"
ip link set "$2" up
check "both ports up with carrier in namespaces a and b" setup_namespaces rigc
check "traffic after the self-tests: ping a -> b" ip netns exec a ping -c 3 -W 2 10.0.0.2
A=$(ns_iface a)
check "ethtool -S counts what flowed: rx_packets and tx_queue_0_packets" \
	sh -c "test \"\$(ip netns exec a ethtool -S $A | sed -n 's/^ *rx_packets: //p')\" -gt 0 &&
	       test \"\$(ip netns exec a ethtool -S $A | sed -n 's/^ *tx_queue_0_packets: //p')\" -gt 0"
del_namespaces rigc 2
check "no warning or oops in dmesg" no_kernel_splat
tap_done
