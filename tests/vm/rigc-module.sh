#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rigc as a module: it loads, declares every I225/I226 ID, and unloads cleanly.
# lab-vm: --driver none --ports 0
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
dmesg_mark
check "modprobe rigc" modprobe rigc
check "rigc is registered as a PCI driver" test -d /sys/bus/pci/drivers/rigc
check "rmmod rigc" rmmod rigc
check "no warning or oops in dmesg" no_kernel_splat
tap_done
