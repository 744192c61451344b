#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rigc on one legacy interrupt (the guest booted with pci=nomsi: no MSI or
# MSI-X), the fallback igc takes too: one queue pair on one INTx vector that
# carries the queue, link and time-sync causes. Traffic and TX hardware
# timestamps work on it, EITR(0) moderates it as igc_set_itr does, and
# rmmod/modprobe loops while the model flaps the link leave no carrier change
# after unregister (driver-review.md F4): the splat check after the test
# covers use-after-free reports, warnings and leaks. The boot also has
# init_on_free=1, for rigc-late-dma.sh, which shares it.
# lab-vm: --driver rigc --ports 2 --memory 5G --append pci=nomsi --append init_on_free=1 --append swiotlb=track_hiwater
# lab-lane: timing (it shares the INTx boot of rigc-late-dma)
. "$(dirname "$0")/lib.sh"

T=/lab/build/tools
check "rigc fell back to one INTx vector" \
	sh -c "dmesg | grep -E 'rigc.*1 queue pair\(s\), 1 interrupt vector\(s\) \(Intx\)'"
check "both ports up with carrier in namespaces a and b" setup_namespaces rigc
A=$(ns_iface a)
check "ping a -> b on INTx" ip netns exec a ping -c 3 -W 2 10.0.0.2
iperf_server b 5201
check "iperf3 a -> b on INTx" timeout 60 ip netns exec a iperf3 -c 10.0.0.2 -p 5201 -t 2
ip netns exec a timeout 7 stdbuf -oL $T/timestamping "$A" SOF_TIMESTAMPING_TX_HARDWARE \
	SOF_TIMESTAMPING_RAW_HARDWARE >/tmp/ts-intx.log 2>&1
check "TX hardware timestamps through the shared vector" grep -q 'HW raw [1-9]' /tmp/ts-intx.log
# Moderation on the single vector as igc_set_itr sets it: EITR(0), which the
# model applies to the INTx line, takes igc's values during a bulk stream,
# 4,000 interrupts/s among them (C igc on the same stream: 0x800003d4 and
# 0x800000c4, bulk and low latency, in turn).
ip netns exec a iperf3 -c 10.0.0.2 -p 5201 -t 5 >/dev/null 2>&1 &
stream=$!
eitrs=""
for _ in $(seq 8); do
	sleep 0.5
	eitrs="$eitrs $(model_values '^value$' reg 0 1680)"
done
wait "$stream"
other=$(echo $eitrs | tr ' ' '\n' | grep -cv '^0x800003d4$\|^0x800000c4$' || true)
check "EITR(0) moderates the INTx vector in a bulk stream, as igc_set_itr (samples:$eitrs)" \
	sh -c "echo '$eitrs' | grep -q 0x800003d4 && [ $other = 0 ]"
pkill iperf3
# The first round brings up both ports: they must be back from the namespaces.
del_namespaces rigc 2

# The link flaps every 0.3 s (200 ms down) while rigc is loaded, brought up
# and unloaded again.
reloads=5
[ -n "${RIGC_LONG:-}" ] && reloads=20
( while :; do $MODEL_CTL flap 0 >/dev/null 2>&1; $MODEL_CTL flap 1 >/dev/null 2>&1; sleep 0.3; done ) &
flapper=$!
fails=""
for i in $(seq "$reloads"); do
	for ifc in $(port_ifaces rigc); do ip link set "$ifc" up || fails="$fails $i:up"; done
	sleep 0.7
	rmmod rigc || fails="$fails $i:rmmod"
	modprobe rigc && wait_ports rigc 2 || fails="$fails $i:modprobe"
done
kill "$flapper"
wait "$flapper" 2>/dev/null
check "rmmod/modprobe $reloads times on INTx while the link flaps (failed:${fails:- none})" \
	test -z "$fails"
check "both ports up again" setup_namespaces rigc
check "traffic flows afterwards: ping a -> b" ip netns exec a ping -c 3 -W 2 10.0.0.2
check "no warning or oops in dmesg" no_kernel_splat
tap_done
