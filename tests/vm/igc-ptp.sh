#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The unchanged C igc driver timestamps on the emulated i225: ethtool -T, the
# kernel's hwtstamp_config and testptp programs, ptp4l master/slave across
# the virtual wire, and the model's own counters of TX timestamps.
# lab-vm: --driver igc --ports 2
. "$(dirname "$0")/lib.sh"
T=/lab/build/tools
ctl=/lab/src/lab/guest/model-ctl

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

check "testptp -c reads the capabilities" sh -c "$T/testptp -d /dev/ptp$phc -c | grep -q 'maximum frequency adjustment'"
$T/testptp -d "/dev/ptp$phc" -s >/dev/null
t0=$($T/testptp -d "/dev/ptp$phc" -g | sed -n 's/clock time: \([0-9]*\)\..*/\1/p')
check "testptp -s then -g: the PHC follows the system clock (within 2 s)" \
	test "$(( ${t0:-0} - $(date +%s) ))" -ge -2 -a "$(( ${t0:-0} - $(date +%s) ))" -le 2
$T/testptp -d "/dev/ptp$phc" -t 100 >/dev/null
t1=$($T/testptp -d "/dev/ptp$phc" -g | sed -n 's/clock time: \([0-9]*\)\..*/\1/p')
check "testptp -t 100 shifts the PHC by 100 s (read $(( ${t1:-0} - ${t0:-0} )) s later)" \
	test "$(( ${t1:-0} - ${t0:-0} ))" -ge 100 -a "$(( ${t1:-0} - ${t0:-0} ))" -le 103
check "testptp -f 1000 adjusts the frequency" $T/testptp -d "/dev/ptp$phc" -f 1000
$T/testptp -d "/dev/ptp$phc" -f 0 >/dev/null
ip link set "$i0" down

# ptp4l: master in namespace a, slave in b, 8 Sync messages a second. The
# timeout for TX timestamps is raised for TCG, where an interrupt can take
# many milliseconds to reach the driver.
check "both ports up with carrier in namespaces a and b" setup_namespaces igc
opts="-H -m --logSyncInterval -3 --tx_timestamp_timeout 200 --summary_interval 0"
ip netns exec a ptp4l -i "$(ns_iface a)" $opts --serverOnly 1 >/tmp/ptp4l-master.log 2>&1 &
ip netns exec b timeout 50 ptp4l -i "$(ns_iface b)" $opts --clientOnly 1 >/tmp/ptp4l-slave.log 2>&1
kill %1 2>/dev/null
check "ptp4l slave reached SLAVE state" grep -q "to SLAVE on MASTER_CLOCK_SELECTED" /tmp/ptp4l-slave.log
check "ptp4l master had no TX timestamp timeout" sh -c '! grep -q "timed out while polling for tx timestamp" /tmp/ptp4l-master.log'
# Converged: the last 20 one-second summaries.
grep -o "rms *-\?[0-9]* max *-\?[0-9]*" /tmp/ptp4l-slave.log | tail -20 >/tmp/ptp4l-summary
read -r n rms worst < <(awk '{ n++; s += $2 * $2; m = ($4 < 0 ? -$4 : $4); if (m > w) w = m }
	END { printf "%d %.1f %d\n", n, (n ? sqrt(s / n) : 0), w }' /tmp/ptp4l-summary)
echo "# ptp4l slave, last $n s: offset RMS $rms ns, max |offset| $worst ns"
check "ptp4l slave converged: 20 s of summaries, |offset| < 100 ns (RMS $rms ns)" \
	test "$n" = 20 -a "$worst" -lt 100

# The model counts TX timestamps it captured and the driver read (TXSTMPH).
for p in 0 1; do
	c=$($ctl ptp $p)
	cap=$(echo "$c" | sed -n 's/.*"tx_captured":\([0-9]*\).*/\1/p')
	rd=$(echo "$c" | sed -n 's/.*"tx_read":\([0-9]*\).*/\1/p')
	check "model port $p: TX timestamps captured ($cap) == read by igc ($rd), > 0" \
		test "${cap:-0}" -gt 0 -a "${cap:-0}" = "${rd:-x}"
	[ $p = 0 ] && rd0=$rd
done
# The model's latency from "TX timestamp ready" to igc's TXSTMPH read.
lat=$($ctl ptp 0 | python3 -c 'import json, sys
l = json.load(sys.stdin)["txts_read_latency_ns"]
print(l["count"], int(l["mean"] or 0), l["max"] or 0)')
read -r lat_n lat_mean lat_max <<<"$lat"
echo "# model port 0: TX timestamp ready -> TXSTMPH read: mean $((lat_mean / 1000)) us, max $((lat_max / 1000)) us over $lat_n (TCG)"
check "model port 0: read latency measured for every timestamp read ($lat_n)" test "${lat_n:-0}" = "${rd0:-x}"
check "no warning or oops in dmesg" no_kernel_splat
tap_done
