#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The unchanged C igc driver moves traffic across the emulated wire: the two
# ports in two network namespaces, ping both ways, iperf3 both directions.
# lab-vm: --driver igc --ports 2
. "$(dirname "$0")/lib.sh"

i0=$(basename /sys/bus/pci/drivers/igc/0000:00:0a.0/net/*)
i1=$(basename /sys/bus/pci/drivers/igc/0000:00:0b.0/net/*)
ip netns add a && ip netns add b
ip link set "$i0" netns a && ip link set "$i1" netns b
ip -n a addr add 10.0.0.1/24 dev "$i0" && ip -n b addr add 10.0.0.2/24 dev "$i1"
ip -n a link set lo up && ip -n b link set lo up
ip -n a link set "$i0" up && ip -n b link set "$i1" up
for _ in $(seq 50); do
	[ "$(ip netns exec a cat /sys/class/net/"$i0"/carrier)" = 1 ] &&
		[ "$(ip netns exec b cat /sys/class/net/"$i1"/carrier)" = 1 ] && break
	sleep 0.2
done

check "ping a -> b" ip netns exec a ping -c 3 -W 2 10.0.0.2
check "ping b -> a" ip netns exec b ping -c 3 -W 2 10.0.0.1
ip netns exec b iperf3 -s -D -p 5201
sleep 1
for dir in "" -R; do
	out=$(timeout 60 ip netns exec a iperf3 -c 10.0.0.2 -p 5201 -t 3 $dir -J 2>&1)
	bps=$(echo "$out" | python3 -c 'import json,sys; print(int(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"]))' 2>/dev/null)
	what="a -> b"
	[ -n "$dir" ] && what="b -> a"
	echo "# iperf3 $what: $((${bps:-0} / 1000000)) Mbit/s (TCG, not a performance figure)"
	check "iperf3 $what moves data" test "${bps:-0}" -gt 0
done
check "no warning or oops in dmesg" no_kernel_splat
tap_done
