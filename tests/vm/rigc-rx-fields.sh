#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What a received frame's skb carries into GRO, as igc sets it: the protocol
# (eth_type_trans), the checksum state (CHECKSUM_UNNECESSARY for a TCP or UDP
# frame the device verified), the device's RSS hash and whether it covered the
# ports (l4_hash). rigc writes these fields of struct sk_buff itself (the kernel
# crate's RxSkb, through bindgen's view of the skb's headers group and its
# bitfields), where igc's C inline functions write them: read
# from the kernel's napi_gro_receive_entry trace event, for igc and then rigc,
# for TCP and UDP frames to port b.
# lab-vm: --driver none --ports 2
. "$(dirname "$0")/lib.sh"

EV=/sys/kernel/tracing/events/net/napi_gro_receive_entry
# fields DRIVER PROTO: the event's fields of port b's frames of PROTO (tcp or
# udp, full-sized: len 1500 once eth_type_trans pulled the Ethernet header)
# during a 2-second stream.
fields() {
	local drv=$1 proto=$2 B
	rm -f /tmp/fields-$drv-$proto
	del_namespaces
	rmmod rigc igc 2>/dev/null
	modprobe "$drv" && wait_ports "$drv" 2 && setup_namespaces "$drv" || return 1
	B=$(ns_iface b)
	ip netns exec b ethtool -K "$B" rx on rxhash on >/dev/null 2>&1
	iperf_server b 5201
	echo >/sys/kernel/tracing/trace
	echo "name == \"$B\" && len >= 1400" >$EV/filter
	echo 1 >$EV/enable
	if [ "$proto" = udp ]; then
		ip netns exec a iperf3 -c 10.0.0.2 -p 5201 -u -b 50M -l 1472 -t 2 >/dev/null 2>&1
	else
		ip netns exec a iperf3 -c 10.0.0.2 -p 5201 -t 2 >/dev/null 2>&1
	fi
	echo 0 >$EV/enable
	echo 0 >$EV/filter
	pkill iperf3
	# One line per distinct set of the fields this test is about.
	grep -o 'protocol=0x[0-9a-f]* ip_summed=[0-9]* hash=0x[0-9a-f]* l4_hash=[0-9]*' \
		/sys/kernel/tracing/trace | sed 's/hash=0x[0-9a-f]*/hash=H/' | sort | uniq -c | sort -rn \
		>/tmp/fields-$drv-$proto
	del_namespaces "$drv" 2
	[ -s /tmp/fields-$drv-$proto ]
}
# want DRIVER PROTO L4: every traced frame an IPv4 frame (protocol 0x0800),
# checksum verified (ip_summed 1, CHECKSUM_UNNECESSARY), with the device's
# hash (not 0), of the ports if L4 is 1 (TCP; UDP over IPv4 is hashed on the
# addresses unless ethtool -N asks for its ports, as igc's MRQC).
want() {
	cat /tmp/fields-$1-$2 && [ -s /tmp/fields-$1-$2 ] &&
		! grep -v " protocol=0x0800 ip_summed=1 hash=H l4_hash=$3\$" /tmp/fields-$1-$2 &&
		! grep -q 'hash=0x00000000 ' /sys/kernel/tracing/trace
}
for drv in igc rigc; do
	for proto in tcp udp; do
		check "$drv: $proto frames traced at napi_gro_receive" fields $drv $proto
		l4=$([ $proto = tcp ] && echo 1 || echo 0)
		check "$drv: $proto frames are IPv4, CHECKSUM_UNNECESSARY, hashed (l4_hash $l4)" want $drv $proto $l4
	done
done
# same PROTO: the same distinct sets of fields for both drivers.
same() { diff <(cut -c9- /tmp/fields-igc-"$1" | sort) <(cut -c9- /tmp/fields-rigc-"$1" | sort); }
check "rigc sets the fields as igc: TCP" same tcp
check "rigc sets the fields as igc: UDP" same udp
check "no warning or oops in dmesg" no_kernel_splat
tap_done
