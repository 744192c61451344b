#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Frames shorter than 17 bytes, as an AF_PACKET socket may send them (14
# bytes: an Ethernet header alone). With TCTL.PSP set the I225 sends a packet
# of 17 bytes or more, padded to 60; igc pads every skb to 17 first
# (igc_xmit_frame: skb_put_padto). The strict model drops a shorter packet
# and counts it (status: tx_short_dropped), as the datasheet gives it no
# meaning. For igc and for rigc: 20 frames of 14 bytes from port 0 reach
# port 1, none is dropped by the MAC.
# Frames with a bad UDP checksum (the MAC sets L4E): counted per queue in
# ethtool -S's rx_queue_N_csum_err and handed to the stack, which drops them;
# not in the interface's rx_errors (igc_rx_checksum counts hw_csum_err only,
# igc_update_stats leaves them out of rx_errors).
# lab-vm: --driver none --ports 2
# lab-lane: timing (for balance: the main lane is the longer; it runs between the PTP tests, never beside them)
. "$(dirname "$0")/lib.sh"

for drv in igc rigc; do
	modprobe "$drv"
	check "$drv bound both ports" wait_ports "$drv" 2
	check "$drv: both ports up with carrier in namespaces a and b" setup_namespaces "$drv"
	A=$(ns_iface a) B=$(ns_iface b)
	before=$(model_sum 'tx_short_dropped$' status)
	rx0=$(ip netns exec b cat "/sys/class/net/$B/statistics/rx_packets")
	check "$drv: 20 frames of 14 bytes sent on an AF_PACKET socket" ip netns exec a python3 -c '
import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[1], 0))
for _ in range(20):
    s.send(bytes.fromhex("ffffffffffff021a2500000188b5"))
' "$A"
	sleep 1
	after=$(model_sum 'tx_short_dropped$' status)
	rx1=$(ip netns exec b cat "/sys/class/net/$B/statistics/rx_packets")
	check "$drv: no packet dropped by the MAC as shorter than 17 bytes (model: $before -> $after)" \
		test "$after" -eq "$before"
	check "$drv: port 1 received them ($((rx1 - rx0)) packets, at least 20)" test $((rx1 - rx0)) -ge 20
	bmac=$(ip netns exec b cat "/sys/class/net/$B/address")
	csum0=$(ip netns exec b ethtool -S "$B" | awk '/rx_queue_[0-9]+_csum_err:/ { s += $2 } END { print s + 0 }')
	err0=$(ip netns exec b cat "/sys/class/net/$B/statistics/rx_errors")
	check "$drv: 10 UDP frames with a bad checksum sent to port 1" ip netns exec a python3 -c '
import socket, struct, sys
def csum(b):
    b += bytes(len(b) % 2)
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
src, dst, data = bytes([10, 9, 9, 1]), bytes([10, 9, 9, 2]), bytes(18)
good = csum(src + dst + struct.pack("!HH", 17, 8 + len(data)) + struct.pack("!HHHH", 9, 9, 8 + len(data), 0) + data) or 0xffff
udp = struct.pack("!HHHH", 9, 9, 8 + len(data), good ^ 0x0f0f) + data
ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, 64, 17, 0, src, dst)
ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[1], 0))
for _ in range(10):
    s.send(bytes.fromhex(sys.argv[2].replace(":", "")) + bytes.fromhex("021a25000001") + b"\x08\x00" + ip + udp)
' "$A" "$bmac"
	sleep 1
	csum1=$(ip netns exec b ethtool -S "$B" | awk '/rx_queue_[0-9]+_csum_err:/ { s += $2 } END { print s + 0 }')
	err1=$(ip netns exec b cat "/sys/class/net/$B/statistics/rx_errors")
	check "$drv: the bad checksums counted in rx_queue_N_csum_err ($csum0 -> $csum1)" test $((csum1 - csum0)) -eq 10
	check "$drv: and not in rx_errors ($err0 -> $err1)" test "$err1" -eq "$err0"
	del_namespaces "$drv" 2
	rmmod "$drv"
done
check "no warning or oops in dmesg" no_kernel_splat
tap_done
