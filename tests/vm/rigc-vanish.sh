#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The device vanishes while bound (driver-review.md F11): the model's port 0
# reads all ones during traffic, TX timestamping and ethtool -S. rigc latches
# the removal as igc_rd32 does ("PCIe link lost, device now detached"),
# detaches the interface and stops touching MMIO; the PHC reports an error
# instead of an invalid time; when the device comes back it stays detached
# (no register written with all-ones garbage), and unbinding then rebinding
# gives a working port again. The splat check covers oopses and leaks.
# Then the device vanishes in the middle of a statistics pass, as it reads
# GORCL (a CI run hit "attempt to add with overflow" there: the octet
# counters read all ones): the pass must not panic, and the counters the
# stack reports must not take in the all-ones values.
# lab-vm: --driver rigc --ports 2
. "$(dirname "$0")/lib.sh"

check "both ports up with carrier in namespaces a and b" setup_namespaces rigc
A=$(ns_iface a)
phc=$(ip netns exec a ethtool -T "$A" | sed -n "s/.*provider index: //p")
ip netns exec a /lab/build/tools/hwtstamp_config "$A" ON ALL >/dev/null 2>&1
iperf_server b 5201
ip netns exec a timeout 20 iperf3 -c 10.0.0.2 -p 5201 -t 12 >/dev/null 2>&1 &
load=$!
( for _ in $(seq 40); do ip netns exec a ethtool -S "$A" >/dev/null 2>&1; sleep 0.2; done ) &
stats=$!
sleep 2
$MODEL_CTL vanish 0 on >/dev/null
sleep 5
check "rigc latched the removal (\"PCIe link lost, device now detached\")" \
	sh -c "dmesg | grep -q 'PCIe link lost, device now detached'"
check "the PHC reports ENODEV, not an all-ones time" \
	sh -c "/lab/build/tools/testptp -d /dev/ptp$phc -g 2>&1 | grep -q 'No such device'"
# The ethtool core itself refuses a detached device (ENODEV), as with igc: it must
# just not hang.
check "ethtool -S does not hang while the device is gone" \
	sh -c "timeout 10 ip netns exec a ethtool -S $A >/dev/null 2>&1; [ \$? != 124 ]"
ip -n a link set "$A" down
check "ip link set up is refused on the detached interface" \
	sh -c "! ip -n a link set $A up 2>/dev/null"
wait "$load" "$stats"
$MODEL_CTL vanish 0 off >/dev/null
check "still detached after the device came back: nothing written from all-ones reads" \
	sh -c "! ip -n a link set $A up 2>/dev/null"
ip netns del a
ip netns del b
check "rmmod rigc with one port vanished and back" rmmod rigc
check "modprobe rigc" modprobe rigc
check "rigc binds both ports again" wait_ports rigc 2
check "both ports up with carrier again" setup_namespaces rigc
check "ping a -> b after the rebind" ip netns exec a ping -c 3 -W 2 10.0.0.2

A=$(ns_iface a)
counters() { # rx bytes, rx errors, multicast, tx bytes, tx errors as ip -s link shows them
	ip -n a -s -j link show "$A" | python3 -c '
import json, sys
s = json.load(sys.stdin)[0]["stats64"]
print(s["rx"]["bytes"], s["rx"]["errors"], s["rx"]["multicast"], s["tx"]["bytes"], s["tx"]["errors"])'
}
ip netns exec a ethtool -S "$A" >/dev/null # a statistics pass: the totals published
before=$(counters)
lost=$(dmesg | grep -c 'PCIe link lost')
$MODEL_CTL vanish 0 on-read 0x4088 >/dev/null # GORCL
ip netns exec a ethtool -S "$A" >/dev/null 2>&1
sleep 3 # and the watchdog's pass
check "the device vanishing in a statistics pass is latched (\"PCIe link lost\")" \
	test "$(dmesg | grep -c 'PCIe link lost')" = $((lost + 1))
after=$(counters)
echo "# counters (rx bytes, rx errors, multicast, tx bytes, tx errors) before: $before, after: $after"
check "no all-ones value from that pass in the counters ip -s link shows" \
	python3 -c "
b, a = [list(map(int, x.split())) for x in ('$before', '$after')]
assert a[0] >= b[0] and a[3] >= b[3] and a[1:3] == b[1:3] and a[4] == b[4]"
$MODEL_CTL vanish 0 off >/dev/null
tap_done
