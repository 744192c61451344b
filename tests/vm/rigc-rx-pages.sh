#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Received data arrives as sent while the stack holds the pages under it.
# rigc receives into half pages and hands each frame's data to the stack as
# a fragment of its half; the page turns to its other half only when no skb
# holds any of it, and is replaced otherwise (RxSkb::add_frame, igc's
# page reuse). A half given to the device while an skb still held it would
# be overwritten under the stack: after the hardware verified the checksum,
# so TCP would not see it. lab/guest/rx-integrity sends a pseudo-random
# stream and the receiver compares every byte, pausing after every 4 MiB so
# that its socket queue, and the pages under it, fill up while frames keep
# arriving. At MTU 1500 (headers copied, the rest one fragment), with RX
# hardware timestamps on (a 16-byte header in front of each frame), at MTU
# 9000 (a frame spans five buffers) and with the RX ring at its minimum
# (64), where the pages the stack holds outnumber the ring's.
# lab-vm: --driver rigc --ports 2 --timeout 900
. "$(dirname "$0")/lib.sh"

T=/lab/build/tools
check "both ports up with carrier in namespaces a and b" setup_namespaces rigc
A=$(ns_iface a) B=$(ns_iface b)
port=6000
# transfer WHAT MIB PAUSE: MIB MiB from a to b, the receiver pausing PAUSE s
# after every 4 MiB; the receiver's verdict as a note.
transfer() {
	local out
	port=$((port + 1))
	ip netns exec b timeout 240 /lab/src/lab/guest/rx-integrity serve $port $(($2 << 20)) "$3" \
		>/tmp/rx-integrity.out 2>&1 &
	local srv=$!
	sleep 1
	timeout 240 ip netns exec a /lab/src/lab/guest/rx-integrity send 10.0.0.2 $port $(($2 << 20))
	wait $srv
	local rc=$?
	out=$(cat /tmp/rx-integrity.out)
	note "$1: $out"
	[ $rc = 0 ] && [ "${out#ok:}" != "$out" ]
}
alloc_failed() {
	ip netns exec b ethtool -S "$B" | awk '/rx_queue_[0-9]+_alloc_failed/ { n += $2 } END { print n + 0 }'
}
af0=$(alloc_failed)
check "MTU 1500: 32 MiB arrive as sent while the receiver's queue fills" transfer "MTU 1500" 32 0.3
check "RX hardware timestamps on" ip netns exec b "$T/hwtstamp_config" "$B" OFF ALL
check "RX timestamps: 16 MiB arrive as sent" transfer "RX timestamps" 16 0.3
ip netns exec b "$T/hwtstamp_config" "$B" OFF NONE >/dev/null
check "ethtool -G rx 64 on the receiver" ip netns exec b ethtool -G "$B" rx 64
wait_carrier b "$B"
check "RX ring of 64: 16 MiB arrive as sent" transfer "ring 64" 16 0.3
ip netns exec b ethtool -G "$B" rx 256
check "MTU 9000 on both ports" sh -c "ip -n a link set $A mtu 9000 && ip -n b link set $B mtu 9000"
wait_carrier a "$A"
wait_carrier b "$B"
check "MTU 9000: 32 MiB arrive as sent" transfer "MTU 9000" 32 0.3
af1=$(alloc_failed)
check "no frame dropped for want of a page (rx_queue_*_alloc_failed: $af0 -> $af1)" test "$af1" -eq "$af0"
# Atomic page allocations failing while frames arrive (fail_page_alloc with
# ignore-gfp-wait: one in five of the allocations that cannot sleep, the receive
# path's replacement pages among them): a frame whose page cannot be replaced
# is dropped and counted, its page stays on the ring (RxSkb::add_frame fails
# with ENOMEM before it adds anything), TCP sends it again, and nothing leaks
# (the checking kernel's kmemleak scan at the end).
F=/sys/kernel/debug/fail_page_alloc
fault_injection_on
echo Y >$F/ignore-gfp-wait
echo 1 >$F/interval
echo -1 >$F/times
echo 20 >$F/probability
# 16 MiB: three pauses, each filling the receiver's queue, so that pages must
# be replaced whatever the host's timing (with 8 MiB and one in ten, one CI
# run of 44720ee counted no failed replacement).
check "atomic page allocations failing: 16 MiB arrive as sent" transfer "page failures" 16 0.3
echo 0 >$F/probability
echo N >$F/ignore-gfp-wait
fault_injection_off
af2=$(alloc_failed)
check "frames dropped for want of a page are counted (rx_queue_*_alloc_failed: $af1 -> $af2)" \
	test "$af2" -gt "$af1"
check "no warning or oops in dmesg" no_kernel_splat
tap_done
