#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Frames shorter than 17 bytes, as an AF_PACKET socket may send them (14
# bytes: an Ethernet header alone). With TCTL.PSP set the I225 sends a packet
# of 17 bytes or more, padded to 60; igc pads every skb to 17 first
# (igc_xmit_frame: skb_put_padto). The strict model drops a shorter packet
# and counts it (status: tx_short_dropped), as the datasheet gives it no
# meaning. For igc and for rigc: 20 frames of 14 bytes from port 0 reach
# port 1, none is dropped by the MAC.
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
	del_namespaces "$drv" 2
	rmmod "$drv"
done
check "no warning or oops in dmesg" no_kernel_splat
tap_done
