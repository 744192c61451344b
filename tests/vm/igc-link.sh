#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The unchanged C igc driver on the emulated i225: both ports probe cleanly
# and link at 2500 Mb/s full duplex with the configured MAC addresses; its
# self-test (ethtool -t) passes offline and online.
# lab-vm: --driver igc --ports 2
. "$(dirname "$0")/lib.sh"

check "igc bound two ports" test "$(ls -d /sys/bus/pci/drivers/igc/0000:* | wc -l)" = 2
check "no error or warning from igc in dmesg" \
	sh -c '! dmesg | grep -iE "igc.*(error|fail|warn|invalid)"'
n=0
for i in $(port_ifaces igc); do
	ip link set "$i" up
	mac=$(cat "/sys/class/net/$i/address")
	check "$i has the model's MAC address ($mac)" test "$mac" = "02:1a:25:00:00:0$((n + 1))"
	n=$((n + 1))
done
for _ in $(seq 50); do
	up=0
	for i in $(port_ifaces igc); do [ "$(cat /sys/class/net/$i/carrier 2>/dev/null)" = 1 ] && up=$((up + 1)); done
	[ $up = 2 ] && break
	sleep 0.2
done
for i in $(port_ifaces igc); do
	check "$i: link up at 2500 Mb/s full duplex (ethtool)" \
		sh -c "ethtool $i | grep -q 'Speed: 2500Mb/s' && ethtool $i | grep -q 'Duplex: Full' && ethtool $i | grep -q 'Link detected: yes'"
done
# ethtool -t, as igc_diag.c runs it: offline (link, register and EEPROM
# tests, the interface closed and reopened) on one port, online (link) on the
# other, at once. The register test failed at FCAH on the kinder model.
set -- $(port_ifaces igc)
selftest_checks "$1" "$2"
check "no warning or oops in dmesg" no_kernel_splat
tap_done
