#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rigc on the emulated i225 (two I225-V ports cabled back to back): both
# ports probe, rigc identifies the part and reads link state and speed from
# STATUS, and unbinding is clean.
# lab-vm: --driver rigc --ports 2
. "$(dirname "$0")/lib.sh"

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
