#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rigc as a module on the emulated i225 (two I225-V ports cabled back to
# back): it declares every I225/I226 ID, modprobe binds both ports, rigc
# identifies the part and reads link state and speed from STATUS, and
# unbinding and rmmod are clean.
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
	check "$dev: link up at 2500 Mbps full duplex, read from STATUS" \
		sh -c "dmesg | grep -q 'rigc $dev: link up: 2500 Mbps full duplex'"
done
dmesg_mark
for p in $ports; do
	check "unbind $(basename "$p")" sh -c "echo $(basename "$p") > /sys/bus/pci/drivers/rigc/unbind"
done
check "rmmod rigc after unbind" rmmod rigc
check "no error, warning or oops in dmesg" sh -c '! dmesg | grep -iE "rigc.*(error|fail)" && ! dmesg | grep -E "WARNING:|BUG:|Oops|Call Trace"'
tap_done
