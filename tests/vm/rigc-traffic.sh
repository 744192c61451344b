#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rigc moves traffic across the emulated wire, rigc bound to both ports:
# link, ping, iperf3 both ways with checksum offload on and off, TSO, MTU
# 9000, ethtool (-i, -k, -g/-G, -l/-L, -s, -S against the model's counters)
# and the MMIO reads per packet under load.
# At the end the model's TX unit hangs under load: the stack's TX watchdog
# fires, the driver resets the adapter and traffic and TX timestamps resume
# (tests/vm/lib.sh: tx_hang_checks). Then the cables are pulled with packets
# on the TX ring: the driver resets to flush them (link_loss_checks).
# lab-vm: --driver rigc --ports 2
. "$(dirname "$0")/lib.sh"

check "both ports up with carrier in namespaces a and b" setup_namespaces rigc
no_ipv6 a
no_ipv6 b
A=$(ns_iface a) B=$(ns_iface b)
ea() { ip netns exec a ethtool "$@"; }
eb() { ip netns exec b ethtool "$@"; }

check "ethtool: link 2500 Mb/s full duplex, autonegotiated" \
	sh -c "ip netns exec a ethtool $A | grep -q 'Speed: 2500Mb/s' &&
		ip netns exec a ethtool $A | grep -q 'Duplex: Full' &&
		ip netns exec a ethtool $A | grep -q 'Auto-negotiation: on' &&
		ip netns exec a ethtool $A | grep -q 'Link detected: yes'"
check "ethtool -i: driver rigc, PCI bus address" \
	sh -c "ip netns exec a ethtool -i $A | grep -q '^driver: rigc' &&
		ip netns exec a ethtool -i $A | grep -q '^bus-info: 0000:'"
check "ping a -> b" ip netns exec a ping -c 3 -W 2 10.0.0.2
check "ping b -> a" ip netns exec b ping -c 3 -W 2 10.0.0.1

iperf_server b 5201
model_lateness_clear
iperf_server a 5202
iperf() { # iperf3 DIRECTION LABEL
	local out bps
	if [ "$1" = ab ]; then
		out=$(timeout 60 ip netns exec a iperf3 -c 10.0.0.2 -p 5201 -t 3 2>&1)
	else
		out=$(timeout 60 ip netns exec b iperf3 -c 10.0.0.1 -p 5202 -t 3 2>&1)
	fi
	bps=$(echo "$out" | iperf_bps)
	note "iperf3 $2: $((${bps:-0} / 1000000)) Mbit/s (TCG, not a performance figure)"
	test "${bps:-0}" -gt 0
}
for csum in off on; do
	ea -K "$A" tx "$csum" rx "$csum" >/dev/null 2>&1
	eb -K "$B" tx "$csum" rx "$csum" >/dev/null 2>&1
	check "ethtool -K: checksum offload $csum" \
		sh -c "ip netns exec a ethtool -k $A | grep -q '^tx-checksumming: $csum' &&
			ip netns exec a ethtool -k $A | grep -q '^rx-checksumming: $csum'"
	check "iperf3 a -> b, checksum offload $csum" iperf ab "a -> b, csum $csum"
	check "iperf3 b -> a, checksum offload $csum" iperf ba "b -> a, csum $csum"
done
ea -K "$A" tso on >/dev/null 2>&1
# igc takes no lock of its own in xmit, the TX clean or the RX clean: the
# rings are owned by their TX queue's lock and their NAPI context. On the
# lockdep kernel every lock class that was ever taken is listed by name.
no_ring_locks() {
	[ -r /proc/lockdep ] || { echo "no /proc/lockdep"; return 1; }
	! grep -E 'rigc_(tx|rx)_ring' /proc/lockdep
}
check "no driver lock around the rings after traffic both ways (driver-review.md F2)" no_ring_locks
check "ethtool -k: TSO on" sh -c "ip netns exec a ethtool -k $A | grep -q '^tcp-segmentation-offload: on'"
tso0=$(model_queue_sum 0 tx packets)
segs0=$(ethtool_sum a "$A" '^tx_queue_[0-9]+_packets$')
check "iperf3 a -> b with TSO" iperf ab "a -> b, TSO"
# With TSO the stack hands the driver fewer, larger packets than go on the
# wire; the driver counts wire frames, as the model does.
check "TSO: the driver's TX frame count follows the model's (segmented on the device)" \
	test "$(( $(ethtool_sum a "$A" '^tx_queue_[0-9]+_packets$') - segs0 ))" = \
	"$(( $(model_queue_sum 0 tx packets) - tso0 ))"

check "MTU 9000 on both ports" sh -c "ip -n a link set $A mtu 9000 && ip -n b link set $B mtu 9000"
check "ping with 8972-byte payload, don't fragment (9000-byte IP packets)" \
	ip netns exec a ping -c 3 -W 2 -M do -s 8972 10.0.0.2
check "iperf3 a -> b at MTU 9000" iperf ab "a -> b, MTU 9000"
check "iperf3 b -> a at MTU 9000" iperf ba "b -> a, MTU 9000"
check "an MTU above the device's limit is refused" sh -c "! ip -n a link set $A mtu 9700 2>/dev/null"
ip -n a link set "$A" mtu 1500 && ip -n b link set "$B" mtu 1500

check "ethtool -G rx 512 tx 1024, shown by -g" sh -c "ip netns exec a ethtool -G $A rx 512 tx 1024 &&
	ip netns exec a ethtool -g $A | sed -n '/^Current/,\$p' | grep -q 'RX:.*512' &&
	ip netns exec a ethtool -g $A | sed -n '/^Current/,\$p' | grep -q 'TX:.*1024'"
wait_carrier a "$A"
check "ping a -> b after the ring change" ip netns exec a ping -c 3 -W 2 10.0.0.2
check "ethtool -G rejects a ring above 4096" sh -c "! ip netns exec a ethtool -G $A rx 8192 2>/dev/null"
ea -G "$A" rx 256 tx 256
check "ethtool -l: min(4, CPUs) combined channels" sh -c "ip netns exec a ethtool -l $A | sed -n '/^Current/,\$p' | grep -q 'Combined:.*$(( $(nproc) < 4 ? $(nproc) : 4 ))'"
check "ethtool -L combined 2" ea -L "$A" combined 2
wait_carrier a "$A"
check "ping a -> b on 2 channels" ip netns exec a ping -c 3 -W 2 10.0.0.2
check "ethtool -L combined 5 is refused" sh -c "! ip netns exec a ethtool -L $A combined 5 2>/dev/null"
ea -L "$A" combined 4
wait_carrier a "$A"

check "ethtool -s speed 1000 duplex full autoneg on" ea -s "$A" speed 1000 duplex full autoneg on
sleep 1
check "link renegotiated at 1000 Mb/s on both ends" \
	sh -c "ip netns exec a ethtool $A | grep -q 'Speed: 1000Mb/s' && ip netns exec b ethtool $B | grep -q 'Speed: 1000Mb/s'"
check "ethtool -s speed 2500 duplex full autoneg on" ea -s "$A" speed 2500 duplex full autoneg on
sleep 1
check "back at 2500 Mb/s" sh -c "ip netns exec a ethtool $A | grep -q 'Speed: 2500Mb/s'"
check "ethtool -s autoneg off is refused with a clear error" sh -c "! ip netns exec a ethtool -s $A speed 1000 duplex full autoneg off 2>/dev/null"
wait_carrier a "$A" && wait_carrier b "$B"

# ethtool -S against the model over a known transfer: 200 pings each way,
# with permanent neighbour entries so that no ARP frame (padded to 60 bytes
# on the wire) joins in. Deltas of both sides' counters must be equal.
ip -n a neigh replace 10.0.0.2 lladdr "$(ip -n b -br link show "$B" | awk '{print $3}')" dev "$A" nud permanent
ip -n b neigh replace 10.0.0.1 lladdr "$(ip -n a -br link show "$A" | awk '{print $3}')" dev "$B" nud permanent
# snap: "PORT DIR WHAT DRIVER MODEL" for tx/rx packets/bytes of both ports,
# the driver's per-queue counters (ethtool -S) and the model's summed, from
# one ethtool and one model-ctl call a port (each process started costs a
# third of a second under TCG).
snap() {
	local p ns iface
	for p in 0 1; do
		ns=a iface=$A
		[ "$p" = 1 ] && ns=b iface=$B
		{
			ip netns exec $ns ethtool -S "$iface"
			echo "model: $($MODEL_CTL flat queues $p)"
		} | awk -v p=$p '
			$1 == "model:" {
				for (i = 2; i <= NF; i++) {
					split($i, kv, "=")
					if (split(kv[1], k, ".") == 3) m[k[1], k[3]] += kv[2]
				}
				next
			}
			{ sub(/:$/, "", $1) }
			$1 ~ /^(tx|rx)_queue_[0-9]+_(packets|bytes)$/ { split($1, k, "_"); d[k[1], k[4]] += $2 }
			END {
				split("tx rx", dirs, " "); split("packets bytes", whats, " ")
				for (i = 1; i <= 2; i++)
					for (j = 1; j <= 2; j++)
						print p, dirs[i], whats[j], d[dirs[i], whats[j]] + 0, m[dirs[i], whats[j]] + 0
			}'
	done
}
sleep 1
before=$(snap)
ip netns exec a ping -q -c 200 -i 0.002 -W 2 10.0.0.2 >/dev/null
ip netns exec b ping -q -c 200 -i 0.002 -W 2 10.0.0.1 >/dev/null
sleep 1
after=$(snap)
while read -r p dir what d0 m0 && read -r _ _ _ d1 m1 <&3; do
	check "ethtool -S port $p: $dir $what +$((d1 - d0)) == model's +$((m1 - m0)) (400 pings)" \
		test "$((d1 - d0))" = "$((m1 - m0))" -a "$((d1 - d0))" -ge 400
done < <(echo "$before") 3< <(echo "$after")
check "ethtool -S: the hardware's good-packet counters saw the transfer" \
	test "$(ethtool_sum a "$A" '^rx_packets$')" -gt 1000

check "MMIO reads per packet measured under iperf3" mmio_per_packet rigc
check "model: SYS_WRAP every second under the traffic; event lateness measured" model_lateness rigc
tx_hang_checks rigc
link_loss_checks rigc
check "no warning or oops in dmesg" no_kernel_splat
tap_done
