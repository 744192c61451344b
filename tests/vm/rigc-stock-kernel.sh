#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rigc on Debian's unmodified 7.3 kernel (the linux-image package of the
# archive, booted as it is), built for it by stock-kernel/build in a bare
# trixie root and installed in its /lib/modules/RELEASE/updates
# (lab/stock-kernel build, by DKMS, signed with its key, which this kernel
# does not trust): modprobe rigc binds both emulated ports,
# ethtool -i says rigc, ping and iperf3 run, ptp4l converges on rigc's
# hardware timestamps, and the kernel is tainted out-of-tree and unsigned
# only.
# lab-vm: --stock --driver none --ports 2
# lab-lane: timing (ptp4l's offsets are gated)
. "$(dirname "$0")/lib.sh"

check "the kernel is Debian's 7.3 ($(uname -r), $(uname -v | cut -d' ' -f1-4))" \
	sh -c 'uname -r | grep -qE "^7\.3\.[0-9]+\+deb[0-9]+-amd64$" && uname -v | grep -q Debian'
check "Debian's kernel crate has no network device abstraction: rigc carries its own" \
	sh -c '! grep -q "6kernel3net3dev" /proc/kallsyms'
check "rigc is the stock-kernel build in updates/ ($(modinfo -n rigc 2>&1))" \
	sh -c 'modinfo -n rigc | grep -q "/lib/modules/$(uname -r)/updates/rigc.ko"'
check "modprobe rigc" modprobe rigc
check "rigc bound both emulated ports" wait_ports rigc 2
set -- $(port_ifaces rigc)
for i in "$@"; do
	check "ethtool -i $i: driver rigc" sh -c "ethtool -i $i | grep -qx 'driver: rigc'"
done
check "ethtool -T: a PTP hardware clock with hardware TX and RX timestamps" \
	sh -c "ethtool -T $1 | grep -q 'hardware-transmit' && ethtool -T $1 | grep -qE 'Hardware timestamp provider index: [0-9]+|PTP Hardware Clock: [0-9]+'"

setup_namespaces rigc
check "ping a -> b" ip netns exec a ping -c 3 -W 2 10.0.0.2
iperf_server b 5201
bps=$(ip netns exec a iperf3 -c 10.0.0.2 -p 5201 -t 3 2>&1 | iperf_bps)
check "iperf3 a -> b: $((bps / 1000000)) Mbit/s" test "$bps" -gt 1000000
pkill -x iperf3

ptp4l_judged 40 15
check "ptp4l rigc -> rigc: slave reached SLAVE state" grep -q "to SLAVE on MASTER_CLOCK_SELECTED" /tmp/ptp4l-slave.log
check "ptp4l rigc -> rigc: slave offset RMS < 60 ns, |offset| < 200 ns after convergence ($ptp_note)" \
	ptp4l_close "$ptp_n" "$ptp_rms" "$ptp_worst"
del_namespaces rigc 2

check "rmmod rigc" rmmod rigc
# O (out-of-tree, 4096) and E (unsigned module, 8192), nothing else.
check "the kernel is tainted out-of-tree and unsigned only ($(cat /proc/sys/kernel/tainted))" \
	test "$(cat /proc/sys/kernel/tainted)" = 12288
check "dmesg: rigc's two taint messages, no warning" sh -c '
	dmesg | grep -q "rigc: loading out-of-tree module taints kernel" &&
	dmesg | grep -q "rigc: module verification failed: signature and/or required key missing" &&
	! dmesg | grep -E "WARNING:|BUG:|Oops|Call Trace"'
tap_done
