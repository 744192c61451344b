#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Surprise removal: during traffic, TX timestamping and ethtool -S, the
# model's port 0 vanishes (reads all ones) at a random moment, then the
# device is removed from the PCI bus, as the hotplug driver does on a
# surprise removal (pci_stop_and_remove_bus_device, here through sysfs
# "remove"). rigc must notice, stop touching MMIO, free everything and unbind:
# no oops, no leak, no hang (the splat check and the VM timeout), and leave
# bus mastering off, so that the port, back, writes nothing into memory the
# driver has freed (driver-review F13). A rescan
# finds the device again; rigc binds it and it passes traffic. Twice by
# default, 10 times in the long mode; the random delays come from
# RIGC_FUZZ_SEED (printed).
#
# QEMU's own device_del (lab/vm --hotplug, lab/guest/qmp) would be the
# stronger form, but QEMU 11.1.3 exits as soon as it has unplugged a
# vfio-user-pci device, with or without a driver bound (docs/reliability.md).
# lab-vm: --driver rigc --ports 2 --timeout 1200
. "$(dirname "$0")/lib.sh"

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
check "both ports up with carrier in namespaces a and b" setup_namespaces rigc
B=$(ns_iface b)
for round in $(seq "$rounds"); do
	A=$(ns_iface a)
	bdf=$(ip netns exec a ethtool -i "$A" | sed -n 's/^bus-info: //p')
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
	check "round $round: port 0 ($bdf) removed from the bus $delay ms into the traffic" \
		sh -c "echo 1 >/sys/bus/pci/devices/$bdf/remove"
	check "round $round: rigc unbinds the removed port (one left)" wait_bound 1
	kill "$load" "$stats" "$sink" 2>/dev/null
	wait "$load" "$stats" "$sink" 2>/dev/null
	# The writes that would have stopped its receive unit were lost while it
	# was gone: only a cleared bus master bit (igc_remove's
	# pci_disable_device) keeps it from writing frames into freed memory.
	check "round $round: bus mastering of the unbound port is off" \
		test "$(model_values '^0[.]bus_master$' status)" = false
	$MODEL_CTL vanish 0 off >/dev/null
	rx0=$(model_queue_sum 0 rx packets)
	ip netns exec b ping -c 3 -i 0.3 -W 1 10.0.0.1 >/dev/null 2>&1
	check "round $round: no frame for the unbound port reaches memory (rx $rx0 -> $(model_queue_sum 0 rx packets))" \
		test "$(model_queue_sum 0 rx packets)" = "$rx0"
	check "round $round: a PCI rescan finds port 0 again" sh -c "echo 1 >/sys/bus/pci/rescan"
	check "round $round: rigc binds it again (two ports)" wait_bound 2
	# The new interface appears in the initial namespace: back into a.
	udevadm settle -t 10 2>/dev/null
	new=$(port_ifaces rigc | grep -v '^eth' | head -1)
	ip link set "$new" netns a && ip -n a addr add 10.0.0.1/24 dev "$new" &&
		ip -n a link set "$new" up
	check "round $round: the re-added port has carrier again" wait_carrier a "$new"
done
check "ping a -> b after the rounds" ip netns exec a ping -c 3 -W 2 10.0.0.2
tap_done
