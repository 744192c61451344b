#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The unchanged C igc driver moves traffic across the emulated wire: the two
# ports in two network namespaces, ping both ways, iperf3 both directions.
# At the end the model's TX unit hangs under load: the stack's TX watchdog
# fires, the driver resets the adapter and traffic and TX timestamps resume
# (tests/vm/lib.sh: tx_hang_checks). Then the cables are pulled with packets
# on the TX ring: the driver resets to flush them (link_loss_checks).
# lab-vm: --driver igc --ports 2
. "$(dirname "$0")/lib.sh"

check "both ports up with carrier in namespaces a and b" setup_namespaces igc

check "ping a -> b" ip netns exec a ping -c 3 -W 2 10.0.0.2
check "ping b -> a" ip netns exec b ping -c 3 -W 2 10.0.0.1
iperf_server b 5201
model_lateness_clear
for dir in "" -R; do
	out=$(timeout 60 ip netns exec a iperf3 -c 10.0.0.2 -p 5201 -t 3 $dir 2>&1)
	bps=$(echo "$out" | iperf_bps)
	what="a -> b"
	[ -n "$dir" ] && what="b -> a"
	echo "# iperf3 $what: $((${bps:-0} / 1000000)) Mbit/s (TCG, not a performance figure)"
	check "iperf3 $what moves data" test "${bps:-0}" -gt 0
done
check "MMIO reads per packet measured under iperf3" mmio_per_packet igc
check "model: SYS_WRAP every second under the traffic; event lateness measured" model_lateness igc
tx_hang_checks igc
link_loss_checks igc
check "no warning or oops in dmesg" no_kernel_splat
tap_done
