#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Received frames through bounce buffers. A receive page asks once, when it is
# mapped, whether its mapping needs CPU syncs (dma_need_sync) and makes none
# when it does not: on this coherent guest every other test runs with none.
# With swiotlb=force every mapping bounces, so every one needs them: a frame
# reaches the page only when the sync for the CPU copies it out of the bounce
# buffer, and a page that skipped it would hold stale bytes. A byte stream goes
# each way over TCP and must arrive as sent (checksum offload on: the model's
# checksums are of the bytes it wrote, so a stale page would pass them), and
# every ping reply must come back with its pattern. The checking kernel's DMA
# API debugging checks every sync that is made.
# lab-vm: --driver rigc --ports 2 --append swiotlb=force
. "$(dirname "$0")/lib.sh"

TLB=/sys/kernel/debug/swiotlb
used0=$(cat $TLB/io_tlb_used)
check "both ports up with carrier in namespaces a and b" setup_namespaces rigc
bounced() {
	local used
	used=$(cat $TLB/io_tlb_used)
	note "swiotlb slots in use: $used0 with the ports down, $used with both up"
	[ "$used" -gt "$used0" ]
}
check "the rings' pages are bounced through swiotlb (slots taken at open)" bounced

port=6100
# transfer TO ADDR FROM: 16 MiB of lab/guest/rx-integrity's stream from
# namespace FROM to TO, which compares every byte as it reads; its verdict as a
# note. The server is stopped if the sender fails.
transfer() {
	local out rc
	port=$((port + 1))
	ip netns exec "$1" timeout 120 /lab/src/lab/guest/rx-integrity serve $port $((16 << 20)) \
		>/tmp/rx-integrity.out 2>&1 &
	local srv=$!
	sleep 2
	if ! timeout 120 ip netns exec "$3" /lab/src/lab/guest/rx-integrity send "$2" $port $((16 << 20)); then
		kill $srv 2>/dev/null
	fi
	wait $srv
	rc=$?
	out=$(cat /tmp/rx-integrity.out)
	note "${out:-no verdict}"
	[ $rc = 0 ] && [ "${out#ok:}" != "$out" ]
}
check "16 MiB over TCP a -> b arrive as sent" transfer b 10.0.0.2 a
check "16 MiB over TCP b -> a arrive as sent" transfer a 10.0.0.1 b
# ping_pattern: every reply comes back (ICMP is checked in software, so a reply
# read from a stale page is dropped), each with the pattern ping sent (ping
# says "wrong data byte" of any that does not).
ping_pattern() {
	local out
	out=$(ip netns exec a ping -c 20 -i 0.2 -s 3000 -p a5c3 -W 2 10.0.0.2)
	echo "$out" | tail -2
	echo "$out" | grep -q ' 20 received' && ! echo "$out" | grep 'wrong data'
}
check "ping with 3000-byte payloads of a pattern: 20 replies, each as sent" ping_pattern
del_namespaces rigc 2
check "no warning or oops in dmesg" no_kernel_splat
tap_done
