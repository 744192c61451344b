#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Soak: with iperf3 and TX-timestamped traffic running, cycles of rmmod and
# modprobe, ip link down/up, ethtool -G and ethtool -L. 1 cycle by default,
# 1000 in the long mode (RIGC_LONG=1). Each cycle must end with both ports
# bound, up and passing traffic; the splat check covers the kernel log.
# lab-vm: --driver rigc --ports 2 --timeout 1500
. "$(dirname "$0")/lib.sh"

cycles=1
# Timestamped TSO writes with a packet tap (lab/guest/tso-tstamp-tap) that
# never reads beside iperf3. The skbs queued on the tap are alive but partly
# invisible to kmemleak (lab/guest/kmemleak-scan): they go with the tap, in
# stop_load, before any scan.
tap=1
[ -n "${RIGC_LONG:-}" ] && cycles=1000
load() { # background traffic in a -> b: iperf3 and timestamped TSO writes
	local A
	A=$(ns_iface a)
	ip netns exec a /lab/build/tools/hwtstamp_config "$A" ON ALL >/dev/null 2>&1
	iperf_server b 5201 >/dev/null
	ip netns exec b python3 -c '
import socket
l = socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(("10.0.0.2", 5300)); l.listen(8)
while True:
    c, _ = l.accept()
    while c.recv(1 << 20): pass' >/dev/null 2>&1 &
	sleep 0.5
	ip netns exec a timeout 40 iperf3 -c 10.0.0.2 -p 5201 -t 30 >/dev/null 2>&1 &
	[ -n "$tap" ] &&
		ip netns exec a timeout 40 /lab/src/lab/guest/tso-tstamp-tap "$A" 10.0.0.2 30 >/dev/null 2>&1 &
}
stop_load() {
	pkill -f lab/guest/tso-tstamp-tap 2>/dev/null
	pkill iperf3 2>/dev/null
	pkill -f 'l.bind' 2>/dev/null
	sleep 0.3
}
cycle() { # one cycle; fails at the first step that fails
	local A
	setup_namespaces rigc || return 1
	A=$(ns_iface a)
	load
	sleep 1
	ip -n a link set "$A" down && ip -n a link set "$A" up || return 1
	sleep 0.5
	ip netns exec a ethtool -G "$A" rx 512 tx 512 || return 1
	sleep 0.5
	ip netns exec a ethtool -L "$A" combined 2 || return 1
	sleep 0.5
	ip netns exec a ethtool -G "$A" rx 256 tx 256 && ip netns exec a ethtool -L "$A" combined 4 || return 1
	wait_carrier a "$A" && ip netns exec a ping -c 2 -W 2 10.0.0.2 >/dev/null || return 1
	# Unload with the traffic still running, then reload.
	rmmod rigc || return 1
	stop_load
	ip netns del a
	ip netns del b
	modprobe rigc && wait_ports rigc 2
}
fails=0
for i in $(seq "$cycles"); do
	if ! cycle; then
		fails=$((fails + 1))
		echo "# cycle $i failed"
		stop_load
		ip netns del a 2>/dev/null
		ip netns del b 2>/dev/null
		lsmod | grep -q '^rigc' || modprobe rigc
		wait_ports rigc 2
	fi
done
check "soak: $cycles cycles of down/up, -G, -L, rmmod/modprobe under traffic and TX timestamping" \
	test "$fails" = 0
check "both ports up with carrier after the soak" setup_namespaces rigc
check "ping a -> b after the soak" ip netns exec a ping -c 2 -W 2 10.0.0.2
tap_done
