#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rigc as a module on the emulated i225 (two I225-V ports cabled back to
# back): it declares every I225/I226 ID, modprobe binds both ports, rigc
# identifies the part and reads link state and speed from STATUS, the PHY
# is off while the interface is down (the partner loses its link, as with
# igc), and unbinding and rmmod are clean.
# lab-vm: --driver none --ports 2
. "$(dirname "$0")/lib.sh"

ids="15F2 15F3 15F8 15F7 3100 3101 3102 5502 5503 0D9F 125B 125C 125D 125E 125F 15FD"
aliases=$(modinfo -F alias rigc)
missing=""
for id in $ids; do
	echo "$aliases" | grep -qi "v00008086d0000${id}sv" || missing="$missing $id"
done
check "modinfo lists all 16 I225/I226 device IDs (missing:${missing:- none})" test -z "$missing"
check "the C igc driver is built beside it, with the same 16 IDs" \
	test "$(modinfo -F alias igc | grep -c v00008086)" = 16
check "neither driver is loaded before modprobe" sh -c '! lsmod | grep -qE "^(igc|rigc) "'
check "modprobe rigc" modprobe rigc
udevadm settle 2>/dev/null

ports=$(ls -d /sys/bus/pci/drivers/rigc/0000:* 2>/dev/null)
check "rigc bound both emulated ports" test "$(echo "$ports" | grep -c .)" = 2
for p in $ports; do
	dev=$(basename "$p")
	check "$dev: identified as Intel(R) I225-V with a flash NVM" \
		sh -c "dmesg | grep -q 'rigc $dev: Intel(R) I225-V (I225 family), rev 0x3, .*NVM .* words, flash'"
	# At probe the link partner may be powered down (as igc, a port's PHY is off while
	# its interface is down): the link as STATUS has it, either way.
	check "$dev: link read from STATUS at probe" \
		sh -c "dmesg | grep -qE 'rigc $dev: link (up: 2500 Mbps full duplex|down)'"
done
# Both interfaces up: 2500 Mb/s full duplex. One down: its PHY powers down and
# the other port loses its link, as with igc (igc_reset powers the PHY down
# when the interface is not running); the device is the firmware's again
# (CTRL_EXT.DRV_LOAD clear, read by the model).
set -- $(port_ifaces rigc)
ip link set "$1" up
ip link set "$2" up
check "$1 and $2 up: link at 2500 Mb/s full duplex" sh -c \
	'for _ in $(seq 50); do ethtool $1 | grep -q "Speed: 2500Mb/s" && ethtool $1 | grep -q "Duplex: Full" && exit 0; sleep 0.2; done; exit 1' _ "$1"
ip link set "$2" down
check "$2 down: its PHY is off and $1 has no link" sh -c \
	'for _ in $(seq 50); do [ "$(cat /sys/class/net/$1/carrier)" = 0 ] && exit 0; sleep 0.2; done; exit 1' _ "$1"
ip link set "$2" up
check "$2 up again: $1 has its link back" sh -c \
	'for _ in $(seq 50); do [ "$(cat /sys/class/net/$1/carrier)" = 1 ] && exit 0; sleep 0.2; done; exit 1' _ "$1"
ip link set "$1" down
ip link set "$2" down
dmesg_mark
for p in $ports; do
	check "unbind $(basename "$p")" sh -c "echo $(basename "$p") > /sys/bus/pci/drivers/rigc/unbind"
done
check "rmmod rigc after unbind" rmmod rigc
check "no error, warning or oops in dmesg" sh -c '! dmesg | grep -iE "rigc.*(error|fail)" && ! dmesg | grep -E "WARNING:|BUG:|Oops|Call Trace"'
tap_done
