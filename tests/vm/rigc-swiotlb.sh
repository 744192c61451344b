#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Received frames through bounce buffers. A receive page asks once, when it is
# mapped, whether its mapping needs CPU syncs (dma_need_sync) and makes none
# when it does not: on this coherent guest every other test runs with none.
# With swiotlb=force every mapping bounces, so every one needs them: a frame
# reaches the page only when the sync for the CPU copies it out of the bounce
# buffer, and a page that skipped it would hold stale bytes. Files go both ways
# over TCP and must arrive whole (checksum offload on: the model's checksums
# are of the bytes it wrote, so a stale page would pass them); ping checks its
# payload's pattern in every reply. The checking kernel's DMA API debugging
# checks every sync that is made.
# lab-vm: --driver rigc --ports 2 --append swiotlb=force
. "$(dirname "$0")/lib.sh"

TLB=/sys/kernel/debug/swiotlb
check "both ports up with carrier in namespaces a and b" setup_namespaces rigc
bounced() {
	local used
	used=$(cat $TLB/io_tlb_used)
	note "swiotlb slots in use with both ports up: $used"
	[ "$used" -gt 0 ]
}
check "the receive pages are bounced through swiotlb (slots in use)" bounced

head -c 16M /dev/urandom >/tmp/blob
want=$(sha256sum </tmp/blob | cut -d' ' -f1)
# send TO ADDR PORT FROM: a server in namespace TO hashes what FROM sends it.
send() {
	local to=$1 addr=$2 port=$3 got
	# shellcheck disable=SC2016
	ip netns exec "$to" timeout 90 python3 -c '
import hashlib, socket, sys
s = socket.create_server((sys.argv[1], int(sys.argv[2])))
c, _ = s.accept()
h = hashlib.sha256()
while b := c.recv(1 << 16):
    h.update(b)
print(h.hexdigest())' "$addr" "$port" >/tmp/got &
	ip netns exec "$4" timeout 60 python3 -c '
import socket, sys, time
for _ in range(100):  # the server may take seconds to start under TCG
    try:
        s = socket.create_connection((sys.argv[1], int(sys.argv[2])))
        break
    except ConnectionRefusedError:
        time.sleep(0.2)
s.sendall(open("/tmp/blob", "rb").read())
s.close()' "$addr" "$port" || return 1
	wait
	got=$(cat /tmp/got)
	echo "sent $want, received ${got:-nothing}"
	[ "$got" = "$want" ]
}
check "16 MiB over TCP a -> b arrive whole" send b 10.0.0.2 5300 a
check "16 MiB over TCP b -> a arrive whole" send a 10.0.0.1 5301 b
# ping_pattern: every reply comes, each with the pattern ping sent (it says
# "wrong data byte" of any that does not).
ping_pattern() {
	local out
	out=$(ip netns exec a ping -c 20 -i 0.2 -s 3000 -p a5c3 -W 2 10.0.0.2) || { echo "$out"; return 1; }
	echo "$out" | tail -2
	! echo "$out" | grep 'wrong data'
}
check "ping with 3000-byte payloads of a pattern, each reply checked" ping_pattern
del_namespaces rigc 2
check "no warning or oops in dmesg" no_kernel_splat
tap_done
