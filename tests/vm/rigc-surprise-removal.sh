#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Surprise removal: during traffic, TX timestamping and ethtool -S, the
# model's port 0 vanishes (reads all ones) at a random moment, then QEMU
# removes the device (device_del through its monitor, lab/guest/qmp). rigc
# must notice, stop touching MMIO, free everything and unbind: no oops, no
# leak, no hang (the splat check and the VM timeout). Re-adding the device
# binds it again and it passes traffic. Twice by default, 10 times in the
# long mode; the random delays come from RIGC_FUZZ_SEED (printed).
# lab-vm: --driver rigc --ports 2 --hotplug --timeout 1200
. "$(dirname "$0")/lib.sh"

QMP=/lab/src/lab/guest/qmp
seed=${RIGC_FUZZ_SEED:-$(date +%s)}
RANDOM=$seed
rounds=2
[ -n "${RIGC_LONG:-}" ] && rounds=10
echo "# seed $seed, $rounds rounds"
bound() { ls /sys/bus/pci/drivers/rigc | grep -c '^0000:'; }
wait_bound() { # wait_bound N: up to 40 s for N ports bound to rigc
	local _
	for _ in $(seq 200); do
		[ "$(bound)" = "$1" ] && return 0
		sleep 0.2
	done
	return 1
}
for round in $(seq "$rounds"); do
	check "round $round: both ports up with carrier" setup_namespaces rigc
	A=$(ns_iface a)
	ip netns exec a ethtool -K "$A" tso on >/dev/null 2>&1
	ip netns exec a /lab/build/tools/hwtstamp_config "$A" ON ALL >/dev/null 2>&1
	ip netns exec b python3 -c '
import socket
l = socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(("10.0.0.2", 5300)); l.listen(1); c, _ = l.accept()
while c.recv(1 << 20): pass' >/dev/null 2>&1 &
	sink=$!
	sleep 0.5
	ip netns exec a timeout 30 /lab/src/lab/guest/tso-tstamp-tap "$A" 10.0.0.2 20 >/dev/null 2>&1 &
	load=$!
	( for _ in $(seq 100); do ip netns exec a ethtool -S "$A" >/dev/null 2>&1; ip -s link >/dev/null; sleep 0.1; done ) &
	stats=$!
	delay=$((RANDOM % 3000))
	sleep "$((delay / 1000)).$(printf '%03d' $((delay % 1000)))"
	$MODEL_CTL vanish 0 on >/dev/null
	sleep "0.$((RANDOM % 900 + 100))"
	check "round $round: device_del of port 0 $delay ms into the traffic" $QMP device_del '{"id": "port0"}'
	check "round $round: rigc unbinds the removed port (one left)" wait_bound 1
	kill "$load" "$stats" "$sink" 2>/dev/null
	wait "$load" "$stats" "$sink" 2>/dev/null
	ip netns del a 2>/dev/null
	ip netns del b 2>/dev/null
	$MODEL_CTL vanish 0 off >/dev/null
	check "round $round: device_add of port 0" $QMP device_add "$(cat "$RIGC_VM_RUN/port0.json")"
	check "round $round: rigc binds it again (two ports)" wait_bound 2
	wait_ports rigc 2
done
check "both ports up with carrier after the rounds" setup_namespaces rigc
check "ping a -> b after the rounds" ip netns exec a ping -c 3 -W 2 10.0.0.2
tap_done
