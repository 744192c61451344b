#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rigc over IPv6, which the VM kernel lacked before the checking kernel: ping -6,
# TCP with TSO6 and IPv6 checksum offload both ways, and IPv6 TCP with a
# 600-byte destination options header, whose 640-byte network header does
# not fit the context descriptor's 9-bit IPLEN field: ndo_features_check must
# send it to software checksum and segmentation (driver-review.md F10), or the
# data arrives corrupt or not at all.
# lab-vm: --driver rigc --ports 2
# lab-lane: timing (for balance: the main lane is the longer; it runs between the PTP tests, never beside them)
. "$(dirname "$0")/lib.sh"

check "both ports up with carrier in namespaces a and b" setup_namespaces rigc
A=$(ns_iface a) B=$(ns_iface b)
ip -n a addr add fd00::1/64 dev "$A" nodad
ip -n b addr add fd00::2/64 dev "$B" nodad
ip netns exec a ethtool -K "$A" tso on tx on >/dev/null 2>&1
check "ping -6 a -> b" ip netns exec a ping -6 -c 3 -W 2 fd00::2
iperf_server b 5201
for dir in "" -R; do
	out=$(timeout 60 ip netns exec a iperf3 -6 -c fd00::2 -p 5201 -t 3 $dir 2>&1)
	bps=$(echo "$out" | iperf_bps)
	what="a -> b"
	[ -n "$dir" ] && what="b -> a"
	check "iperf3 -6 $what with TSO6 moves data ($((${bps:-0} / 1000000)) Mbit/s under TCG)" test "${bps:-0}" -gt 0
done
X=/lab/src/lab/guest/ipv6-exthdr-tcp
exthdr() { # exthdr EXTLEN BYTES
	ip netns exec b $X recv fd00::2 5300 "$2" >/tmp/exthdr-recv.log 2>&1 &
	local r=$! i
	# Until the receiver listens: a fixed second was not always enough for
	# Python to start in a loaded TCG guest (connection refused, seen once).
	for i in $(seq 1 100); do
		ip netns exec b ss -Hltn 'sport = :5300' | grep -q . && break
		sleep 0.2
	done
	ip netns exec a $X send fd00::2 5300 "$2" "$1" >/tmp/exthdr-send.log 2>&1
	wait "$r"
	local rc=$?
	cat /tmp/exthdr-send.log /tmp/exthdr-recv.log
	return $rc
}
check "IPv6 TCP with a 64-byte destination options header, TSO: 4 MiB intact" exthdr 64 4194304
check "IPv6 TCP with a 600-byte destination options header (IPLEN 640 > 511), TSO: 4 MiB intact" \
	exthdr 600 4194304
check "ping -6 a -> b afterwards" ip netns exec a ping -6 -c 2 -W 2 fd00::2
tap_done
