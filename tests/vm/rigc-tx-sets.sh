#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Several TX timestamps in flight (issue 13): ptp4l and a second timestamping
# program (lab/guest/tx-stamp-stream, a stamp requested per datagram, the next
# sent when it is back) on the same port, 20 s at a time:
# - rigc with its single slot, the default: the two collide and requests are
#   skipped (tx_hwtstamp_skipped > 0), which shows the check can fail;
# - rigc with the private flag tx-tstamp-4-sets on: nothing skipped;
# - C igc, which always uses the four sets, for comparison (its skipped
#   count);
# and the flag itself: listed by --show-priv-flags, off by default, refused
# for an unknown name by ethtool.
# lab-vm: --driver none --ports 2 --timeout 600
# lab-lane: timing (ptp4l's offsets)
. "$(dirname "$0")/lib.sh"

# collide DRIVER LABEL: ptp4l master on a, slave on b for 20 s, and
# tx-stamp-stream on a for 16 s; sets skipped, stream_ok, summary.
collide() {
	local A
	A=$(ns_iface a)
	(sleep 3; ip netns exec a timeout 20 /lab/src/lab/guest/tx-stamp-stream 10.0.0.2 16 \
		>/tmp/stream-"$2".log 2>&1; echo $? >/tmp/stream-"$2".rc) &
	local bg=$!
	ptp4l_pair 20
	wait "$bg"
	skipped=$(ethtool_sum a "$A" '^tx_hwtstamp_skipped$')
	stream_ok=$(cat /tmp/stream-"$2".rc)
	summary=$(ptp4l_converged 8)
	# Shown, not judged: a skipped request leaves ptp4l without the stamp of a
	# Sync it sent, but so does a stamp later than its 200 ms under host load
	# (seen for igc in CI, nothing skipped).
	lost=$(grep -c "timed out while polling for tx timestamp" /tmp/ptp4l-master.log)
	echo "# $2: tx_hwtstamp_skipped $skipped, stream: $(cat /tmp/stream-"$2".log), ptp4l master: $lost TX timestamp(s) lost, slave's last 8 summaries (count rms worst): $summary"
}

modprobe rigc
check "rigc bound both ports" wait_ports rigc 2
check "both ports up with carrier in namespaces a and b" setup_namespaces rigc
A=$(ns_iface a)
check "ethtool --show-priv-flags lists tx-tstamp-4-sets, off" \
	sh -c "ip netns exec a ethtool --show-priv-flags $A | grep -qE '^tx-tstamp-4-sets *: off'"
check "ethtool --set-priv-flags with an unknown name fails" \
	sh -c "! ip netns exec a ethtool --set-priv-flags $A no-such-flag on"

collide rigc rigc-1-slot
check "one slot: ptp4l and a second program collide, requests skipped ($skipped)" test "$skipped" -gt 0

check "ethtool --set-priv-flags tx-tstamp-4-sets on" ip netns exec a ethtool --set-priv-flags "$A" tx-tstamp-4-sets on
check "the flag reads back on" \
	sh -c "ip netns exec a ethtool --show-priv-flags $A | grep -qE '^tx-tstamp-4-sets *: on'"
base=$(ethtool_sum a "$A" '^tx_hwtstamp_skipped$')
collide rigc rigc-4-sets
check "four sets: nothing skipped ($((skipped - base)) more)" test "$skipped" = "$base"
check "four sets: no TX timestamp timeout" test "$(ethtool_sum a "$A" '^tx_hwtstamp_timeouts$')" = 0
check "ethtool --set-priv-flags tx-tstamp-4-sets off again" \
	ip netns exec a ethtool --set-priv-flags "$A" tx-tstamp-4-sets off
del_namespaces rigc 2
rmmod rigc

modprobe igc
check "igc bound both ports" wait_ports igc 2
check "igc: both ports up with carrier in namespaces a and b" setup_namespaces igc
collide igc igc
check "igc (four sets always): nothing skipped ($skipped)" test "$skipped" = 0
del_namespaces igc 2
rmmod igc
check "no warning or oops in dmesg" no_kernel_splat
tap_done
