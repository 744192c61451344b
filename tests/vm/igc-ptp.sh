#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The unchanged C igc driver timestamps on the emulated i225: ethtool -T, the
# kernel's hwtstamp_config and testptp programs, ptp4l master/slave across
# the virtual wire, and the model's own counters of TX timestamps.
# lab-vm: --driver igc --ports 2
# lab-lane: timing (ptp4l's offsets are gated)
. "$(dirname "$0")/lib.sh"
T=/lab/build/tools

set -- $(port_ifaces igc)
i0=$1
ip link set "$i0" up
ts=$(ethtool -T "$i0")
phc=$(echo "$ts" | sed -n 's/.*provider index: //p')
for cap in hardware-transmit hardware-receive hardware-raw-clock; do
	check "ethtool -T $i0 lists $cap" sh -c "echo '$ts' | grep -qw $cap"
done
check "ethtool -T $i0 names a PHC (/dev/ptp$phc)" test -c "/dev/ptp$phc"
check "ethtool -T: TX modes off and on, RX filters none and all" \
	sh -c "echo '$ts' | grep -A2 'Transmit Timestamp Modes' | grep -qw on &&
	       echo '$ts' | grep -A2 'Receive Filter Modes' | grep -qw all"

check "hwtstamp_config: set ON PTP_V2_EVENT (igc applies ALL)" \
	sh -c "$T/hwtstamp_config $i0 ON PTP_V2_EVENT | grep -q 'rx_filter = ALL'"
check "hwtstamp_config: get returns what was applied" \
	sh -c "$T/hwtstamp_config $i0 | grep -q 'tx_type = ON'"
check "hwtstamp_config: set OFF NONE" \
	sh -c "$T/hwtstamp_config $i0 OFF NONE | grep -q 'rx_filter = NONE'"

testptp_checks "$phc"
ip link set "$i0" down

# ptp4l across the wire: master in namespace a, slave in b (lib.sh).
# The model's TX timestamp counts from here (an earlier test of the boot may
# have left one unread).
model_tx_stamps_mark
lat_n0=$(model_values '^txts_read_latency_ns[.]count$' ptp 0)
check "both ports up with carrier in namespaces a and b" setup_namespaces igc
ptp4l_judged 40 15
check "ptp4l slave reached SLAVE state" grep -q "to SLAVE on MASTER_CLOCK_SELECTED" /tmp/ptp4l-slave.log
check "ptp4l master had no TX timestamp timeout" sh -c '! grep -q "timed out while polling for tx timestamp" /tmp/ptp4l-master.log'
echo "# ptp4l slave: $ptp_note"
check "ptp4l slave converged: last 15 s of summaries, RMS < 60 ns, |offset| < 200 ns ($ptp_note)" \
	ptp4l_close "$ptp_n" "$ptp_rms" "$ptp_worst"

# The model counts TX timestamps it captured and the driver read (TXSTMPH).
for p in 0 1; do
	read -r cap rd < <(model_tx_stamps $p)
	check "model port $p: TX timestamps captured ($cap) == read by igc ($rd), > 0" \
		test "${cap:-0}" -gt 0 -a "${cap:-0}" = "${rd:-x}"
	[ $p = 0 ] && rd0=$rd
done
# The model's latency from "TX timestamp ready" to igc's TXSTMPH read.
# (flat paths sorted: count, max, mean; null without samples).
read -r lat_n lat_max lat_mean < <(model_values '^txts_read_latency_ns[.](count|max|mean)$' ptp 0 | sed 's/null/0/g')
lat_mean=${lat_mean%.*}
echo "# model port 0: TX timestamp ready -> TXSTMPH read: mean $((lat_mean / 1000)) us, max $((lat_max / 1000)) us over $lat_n (TCG)"
lat_n=$((lat_n - lat_n0))
check "model port 0: read latency measured for every timestamp read ($lat_n)" test "${lat_n:-0}" = "${rd0:-x}"

# The TXSTMPH_0 re-arm erratum (the 2023 igc patch "Work around HW bug
# causing missing timestamps"), switched on at run time on both ports: igc,
# which carries the workaround, loses no TX timestamp and ptp4l converges.
for p in 0 1; do
	check "model port $p: TXSTMPH_0 re-arm bug switched on" $MODEL_CTL txstmph0-bug $p on
	read -r cap$p rd$p < <(model_tx_stamps $p)
done
ptp4l_judged 30 10
check "with the erratum: ptp4l master had no TX timestamp timeout" \
	sh -c '! grep -q "timed out while polling for tx timestamp" /tmp/ptp4l-master.log'
echo "# ptp4l slave with the erratum: $ptp_note"
check "with the erratum: slave RMS < 60 ns, |offset| < 200 ns over the last 10 s ($ptp_note)" \
	ptp4l_close "$ptp_n" "$ptp_rms" "$ptp_worst" 10
for p in 0 1; do
	read -r cap rd < <(model_tx_stamps $p)
	before_cap=$((cap$p)) before_rd=$((rd$p))
	check "with the erratum: model port $p: every new TX timestamp was read ($((cap - before_cap)) == $((rd - before_rd)))" \
		test "$((cap - before_cap))" -gt 0 -a "$((cap - before_cap))" = "$((rd - before_rd))"
done
for ns in a b; do
	i=$(ns_iface $ns)
	check "igc $i: ethtool -S tx_hwtstamp_timeouts is 0" \
		sh -c "ip netns exec $ns ethtool -S $i | grep -q 'tx_hwtstamp_timeouts: 0$'"
done
check "no warning or oops in dmesg" no_kernel_splat
tap_done
