#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# DMA that outlives a queue's disable (driver-review.md F6). Real hardware
# finishes the frame it is writing after RXDCTL.ENABLE is cleared; a driver
# that frees or reuses the ring before that gets a write into memory it no
# longer owns (igc sleeps 10 ms in igc_down before anything is freed). The
# model's late-rx-dma fault completes a frame into each disabled queue's head
# descriptor 4 ms after the disable, if that descriptor still holds what the
# driver posted; the guest runs with init_on_free=1, so a ring freed in the
# meantime reads as zeros and the model counts it as "changed" instead of
# writing. ip link set down, ethtool -G (the old rings are freed once the new
# ones run) and rmmod each disable the queues; none may change a ring within
# 4 ms of the disable.
# It shares the boot of rigc-intx.sh (one queue pair on INTx).
# lab-vm: --driver rigc --ports 2 --memory 5G --append pci=nomsi --append init_on_free=1 --append swiotlb=track_hiwater
# lab-lane: timing (the model's late DMA must run on time to be judged)
. "$(dirname "$0")/lib.sh"

# _late: port 0's counts of late RX DMA since the fault was armed, as
# "scheduled completed changed too_late" (one status read).
_late() {
	$MODEL_CTL status | grep -o '"late_rx_dma":{[^}]*}' | head -1 | sed 's/[{}"]//g; s/,/\n/g' |
		awk -F: '{ v[$1] = $2 } END { print v["scheduled"] + 0, v["completed"] + 0, v["changed"] + 0, v["too_late"] + 0 }'
}

# _late_round WHAT: after WHAT disabled the queues (more than $s0 disables so
# far), every late DMA due has run (or could not be judged) and none found its
# ring changed.
_late_round() {
	local _ sch com chg late
	for _ in $(seq 20); do
		read -r sch com chg late < <(_late)
		[ "$sch" -gt "$s0" ] && [ "$sch" = "$((com + chg + late))" ] && break
		sleep 0.1
	done
	note "$1: scheduled $sch, completed $com, changed $chg, too late to judge $late"
	[ "$sch" -gt "$s0" ] && [ "$chg" = 0 ]
}

check "the guest zeroes freed memory (init_on_free=1)" sh -c 'dmesg | grep -q "mem auto-init:.*free:on"'
check "both ports up with carrier in namespaces a and b" setup_namespaces rigc
A=$(ns_iface a)
check "the model completes DMA 4 ms after each RX queue disable" $MODEL_CTL late-rx-dma 0 4

s0=0
for i in 1 2 3; do
	ip -n a link set "$A" down
	check "ip link set down ($i): no ring freed or reused while its DMA runs" _late_round "down $i"
	read -r s0 _ < <(_late)
	ip -n a link set "$A" up
	wait_carrier a "$A"
done
check "ping a -> b after the late frames" ip netns exec a ping -c 3 -W 2 10.0.0.2

for n in 512 256; do
	ip netns exec a ethtool -G "$A" rx "$n" tx "$n"
	check "ethtool -G rx $n: the old rings freed only after their DMA" _late_round "ethtool -G $n"
	read -r s0 _ < <(_late)
	wait_carrier a "$A"
done
check "ping a -> b after the ring changes" ip netns exec a ping -c 3 -W 2 10.0.0.2

ip netns del a
ip netns del b
rmmod rigc
check "rmmod: the rings freed only after their DMA" _late_round "rmmod"
read -r sch com chg late < <(_late)
note "late RX DMA: $sch disables, $com frames completed 4 ms later, $chg into a changed ring, $late too late to judge"
check "at least 3 of $sch late frames were judged (the model's worker was on time)" test "$((com + chg))" -ge 3
$MODEL_CTL late-rx-dma 0 0 >/dev/null
modprobe rigc
check "rigc binds both ports again" wait_ports rigc 2
check "both ports up again" setup_namespaces rigc
check "traffic flows afterwards: ping a -> b" ip netns exec a ping -c 3 -W 2 10.0.0.2
check "no warning or oops in dmesg" no_kernel_splat
tap_done
