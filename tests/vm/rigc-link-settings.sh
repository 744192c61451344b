#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Link settings as C igc has them, igc then rigc on the same emulated ports,
# read back from ethtool, the model's registers (model-ctl reg) and the
# kernel log, and compared between the two drivers:
# - Flow control (igc_setup_link, igc_config_fc_after_link_up): full flow
#   control negotiated, "Flow Control: RX/TX" in the link message, CTRL.RFCE
#   and TFCE set, the PAUSE address, type, time and thresholds; ethtool -A
#   with autoneg off sets the MAC at once, autoneg on renegotiates.
# - EEE (igc_ethtool_get_eee/set_eee): off; --set-eee eee on sets the
#   advertisement (IPCNFG) and LPI (EEER), off clears them; changing an
#   option with EEE off is refused.
# - A forced 10/100 link (igc_handle_autoneg_disabled): CTRL.FRCSPD/FRCDPX,
#   the link at the forced speed, autonegotiation reported off; a forced
#   1000 refused; autoneg on brings 2.5G back.
# - MDI-X as igc reports it (never detected: MDI, control auto).
# - An empty advertisement (ethtool -s advertise 0x0) is every speed, as
#   igc_copper_link_autoneg takes it.
# - ethtool DEV reports the speeds asked for (hw->phy.autoneg_advertised in
#   igc_ethtool_get_link_ksettings) without an MDIC access: chronyd asks it
#   periodically, and each PHY read takes the semaphore shared with the
#   firmware.
# - The PHC named after the MAC address, the RSS key the system's random one
#   (the same for both drivers in one boot), min(4, CPUs) queue pairs, and
#   the NAPI instances tied to their queues and interrupts in the netdev
#   netlink family (igc_set_queue_napi, netif_napi_set_irq), the interrupts
#   named at open (igc_request_msix): <interface>-rx-<n> and -tx-<n> with
#   two queues (a vector per ring, igc_alloc_q_vectors), <interface>-TxRx-<n>
#   with four (paired).
# lab-vm: --driver none --ports 2
# lab-lane: timing (for balance: the main lane is the longer; its steps mostly wait for links)
. "$(dirname "$0")/lib.sh"

model_reg() { model_values '^value$' reg "$1" "$2"; }
ea() { ip netns exec a ethtool "$@"; }
# bits REG MASK: the register's bits under MASK, in hex.
bits() { printf '%#x' $(($(model_reg 0 "$1") & $2)); }
# eee_regs: IPCNFG's EEE advertisement and EEER's LPI bits.
eee_regs() { echo "$(bits e38 0x1c) $(bits e30 0x70000)"; }
# link_speed: what ethtool says of speed and autonegotiation.
link_speed() { ea "$A" | grep -E 'Speed:|Auto-negotiation:' | tr -d '\t' | tr '\n' ' '; }
wait_speed() {
	local i
	for i in $(seq 1 40); do
		link_speed | grep -q "Speed: $1" && return 0
		sleep 0.25
	done
	link_speed
	return 1
}
# mdic_accesses: MDIC's reads and writes on port 0 (the model's count).
mdic_accesses() { echo $(($(model_sum '^0x00020[.](reads|writes)$' mmio 0))); }
# advertised_modes: the advertised link modes in ethtool's output (stdin), on one line.
advertised_modes() {
	awk '/Advertised link modes:/ { p = 1 } /Advertised pause/ { p = 0 } p { sub(/.*:/, ""); printf "%s", $0 }' |
		tr -s ' \t' ' '
}
fails_with() { local want=$1; shift; ! "$@" 2>/tmp/err || return 1; grep -q "$want" /tmp/err || { cat /tmp/err; return 1; }; }

# irq_names IFACE: the names of the interrupts of IFACE in /proc/interrupts,
# the interface's name written IF, sorted.
irq_names() {
	awk -v i="$1" '{ n = $NF } n == i || index(n, i "-") == 1 { sub(i, "IF", n); print n }' /proc/interrupts | sort
}

cpus=$(nproc)
want_q=$((cpus < 4 ? cpus : 4))
for drv in igc rigc; do
	dmesg_mark
	modprobe "$drv"
	check "$drv bound both ports" wait_ports "$drv" 2
	check "$drv: both ports up with carrier in namespaces a and b" setup_namespaces "$drv"
	A=$(ns_iface a) B=$(ns_iface b)
	o=/tmp/ls-$drv
	mkdir -p $o

	# Flow control, as it comes up.
	check "$drv: link message with the flow control negotiated" \
		wait_log 10 "$A: NIC Link is Up 2500 Mbps Full Duplex, Flow Control: RX/TX"
	ea -a "$A" | tail -n +2 >$o/pause
	check "$drv: ethtool -a: autoneg, RX and TX on" \
		sh -c "grep -q 'Autonegotiate:.*on' $o/pause && grep -q 'RX:.*on' $o/pause && grep -q 'TX:.*on' $o/pause"
	check "$drv: CTRL.RFCE and TFCE set" test "$(bits 0 0x18000000)" = 0x18000000
	for r in 28 2c 30 170 2160 2168; do echo "$r $(model_reg 0 $r)"; done >$o/fcregs
	echo "# $drv flow control registers: $(tr '\n' ' ' <$o/fcregs)"
	check "$drv: ethtool -A autoneg off rx off tx off" ea -A "$A" autoneg off rx off tx off
	check "$drv: CTRL.RFCE and TFCE cleared at once" test "$(bits 0 0x18000000)" = 0
	check "$drv: ethtool -a says RX and TX off" sh -c "ip netns exec a ethtool -a $A | grep -q 'RX:.*off'"
	check "$drv: ethtool -A autoneg on" ea -A "$A" autoneg on
	check "$drv: carrier back" wait_carrier a "$A"
	sleep 1
	check "$drv: RFCE and TFCE negotiated again" test "$(bits 0 0x18000000)" = 0x18000000
	# The thresholds follow the largest frame: igc_change_mtu resets the
	# device, and igc_reset computes them from the new max_frame_size, at
	# least a standard frame's 1,518 bytes (34 KiB less the frame and a
	# 9,728-byte jumbo frame, on 16 bytes; XON 16 bytes lower).
	for m in 9000:0x3ec0 1000:0x5c10; do
		mtu=${m%:*} high=${m#*:}
		check "$drv: ip link set mtu $mtu" ip -n a link set "$A" mtu $mtu
		check "$drv: carrier at MTU $mtu" wait_carrier a "$A"
		for r in 2160 2168; do echo "$r $(model_reg 0 $r)"; done >$o/fcregs$mtu
		check "$drv: FCRTL and FCRTH at MTU $mtu ($(tr '\n' ' ' <$o/fcregs$mtu))" \
			test "$(tr '\n' ' ' <$o/fcregs$mtu)" = "$(printf '2160 %#010x 2168 %#010x ' $((0x80000000 | (high - 16))) $high)"
	done
	check "$drv: ip link set mtu 1500" ip -n a link set "$A" mtu 1500
	check "$drv: carrier at MTU 1500" wait_carrier a "$A"
	check "$drv: FCRTH back at the standard MTU's" test "$(model_reg 0 2168)" = "$(sed -n 's/^2168 //p' $o/fcregs)"

	# EEE.
	ea --show-eee "$A" | tail -n +2 >$o/eee
	check "$drv: EEE off (ethtool --show-eee)" grep -q 'EEE status: disabled' $o/eee
	check "$drv: IPCNFG and EEER without EEE" test "$(eee_regs)" = "0 0"
	check "$drv: --set-eee tx-lpi on with EEE off is refused" fails_with 'Invalid argument' ea --set-eee "$A" tx-lpi on
	check "$drv: --set-eee eee on" ea --set-eee "$A" eee on
	check "$drv: IPCNFG advertises EEE at 100M, 1G and 2.5G, EEER has LPI on ($(eee_regs))" \
		test "$(eee_regs)" = "0x1c 0x70000"
	check "$drv: carrier after --set-eee eee on" wait_carrier a "$A"
	check "$drv: --set-eee eee off" ea --set-eee "$A" eee off
	check "$drv: EEE off again ($(eee_regs))" test "$(eee_regs)" = "0 0"
	check "$drv: carrier after --set-eee eee off" wait_carrier a "$A"

	# MDI-X and the forced link.
	m0=$(mdic_accesses)
	ea "$A" >$o/ethtool
	m1=$(mdic_accesses)
	check "$drv: ethtool $A reads no PHY register ($((m1 - m0)) MDIC accesses)" test "$m1" = "$m0"
	advertised_modes <$o/ethtool >$o/advertised
	check "$drv: ethtool $A: every speed advertised ($(cat $o/advertised))" \
		test "$(cat $o/advertised)" = " 10baseT/Half 10baseT/Full 100baseT/Half 100baseT/Full 1000baseT/Full 2500baseT/Full"
	grep 'MDI-X' $o/ethtool | tr -d '\t' >$o/mdix
	check "$drv: MDI-X reported as igc does ($(cat $o/mdix))" grep -q 'MDI-X: off (auto)' $o/mdix
	check "$drv: ethtool -s speed 1000 autoneg off is refused" \
		fails_with 'Invalid argument' ea -s "$A" speed 1000 duplex full autoneg off
	check "$drv: ethtool -s speed 100 duplex full autoneg off" ea -s "$A" speed 100 duplex full autoneg off
	check "$drv: link at 100 Mb/s, autonegotiation off ($(link_speed))" wait_speed 100Mb/s
	check "$drv: CTRL forces speed and duplex (FRCSPD, FRCDPX, 100 Mb/s, FD)" \
		test "$(bits 0 0x1b01)" = 0x1901
	check "$drv: ping over the forced link" _carrier_ping "$A"
	check "$drv: ethtool -s autoneg on" ea -s "$A" autoneg on
	check "$drv: link back at 2500 Mb/s" wait_speed 2500Mb/s
	check "$drv: CTRL no longer forces" test "$(bits 0 0x1800)" = 0
	# An empty advertisement: every speed (igc_copper_link_autoneg).
	check "$drv: ethtool -s advertise 0x0 is taken" ea -s "$A" advertise 0x0
	check "$drv: link back at 2500 Mb/s after advertise 0x0" wait_speed 2500Mb/s
	ea "$A" | advertised_modes >$o/advertised0
	check "$drv: after advertise 0x0, every speed advertised ($(cat $o/advertised0))" \
		test "$(cat $o/advertised0)" = "$(cat $o/advertised)"
	link_speed >$o/speed

	# PHC name, RSS key, queues, NAPI.
	ip netns exec a sh -c "cat /sys/class/net/$A/device/ptp/ptp*/clock_name" >$o/phc
	mac=$(ip netns exec a cat "/sys/class/net/$A/address" | tr -d :)
	check "$drv: PHC named after the MAC address ($(cat $o/phc))" test "$(cat $o/phc)" = "$mac"
	for r in $(seq 0 9); do model_reg 0 $(printf '%x' $((0x5c80 + 4 * r))); done >$o/rssk
	check "$drv: RSS key not the old fixed one" sh -c "! grep -q 0xda565a6d $o/rssk"
	ea -l "$A" >$o/channels
	check "$drv: $want_q combined channels (min(4, $cpus CPUs)), at most 4" \
		sh -c "sed -n '/^Current/,\$p' $o/channels | grep -q 'Combined:.*$want_q' && sed -n '/^Pre-set/,/^Current/p' $o/channels | grep -q 'Combined:.*4'"
	ifindex=$(ip netns exec a cat "/sys/class/net/$A/ifindex")
	ip netns exec a /lab/src/lab/guest/netdev-nl "$ifindex" >$o/nl
	cat $o/nl | sed "s/^/# $drv: /"
	# igc pairs a TX and an RX queue on one vector only with more than half
	# its queues in use (IGC_FLAG_QUEUE_PAIRS), and so does rigc. Compared:
	# every queue tied to an instance, every instance to an interrupt of its
	# own.
	q_napi=$(awk '$1 == "queue" && $5 != 0' $o/nl | wc -l)
	n_napi=$(awk '$1 == "napi"' $o/nl | wc -l)
	napi_irq=$(awk '$1 == "napi" && $4 > 0 { print $4 }' $o/nl | sort -u | wc -l)
	echo "queues with NAPI $q_napi, NAPI instances with an IRQ of their own $((napi_irq == n_napi))" >$o/napi
	check "$drv: every RX and TX queue tied to a NAPI instance ($q_napi)" test "$q_napi" = $((2 * want_q))
	check "$drv: each of the $n_napi NAPI instances tied to an interrupt of its own ($napi_irq)" \
		test "$napi_irq" = "$n_napi" -a "$n_napi" -gt 0
	# Interrupt names with two queues: a vector per ring, the RX ones first,
	# each with a NAPI instance of its own.
	ea -L "$A" combined 2
	check "$drv: carrier after ethtool -L combined 2" wait_carrier a "$A"
	irq_names "$A" >$o/irqs2
	echo "# $drv interrupts with 2 queues: $(tr '\n' ' ' <$o/irqs2)"
	check "$drv: interrupts named <if>, <if>-rx-0..1 and <if>-tx-0..1" \
		test "$(tr '\n' ' ' <$o/irqs2)" = "IF IF-rx-0 IF-rx-1 IF-tx-0 IF-tx-1 "
	ip netns exec a /lab/src/lab/guest/netdev-nl "$ifindex" >$o/nl2
	check "$drv: with 2 queues, 4 NAPI instances serve queues, each with an interrupt of its own" \
		test "$(awk '$1 == "queue" && $5 != 0 { print $5 }' $o/nl2 | sort -u | wc -l)" = 4
	# Interrupt names, with four queues (igc pairs TX and RX then) and after
	# a rename of the interface while it is down (igc names them at open).
	ea -L "$A" combined 4
	check "$drv: carrier after ethtool -L combined 4" wait_carrier a "$A"
	irq_names "$A" >$o/irqs
	echo "# $drv interrupts: $(tr '\n' ' ' <$o/irqs)"
	check "$drv: interrupts named <if> and <if>-TxRx-0..3" \
		test "$(tr '\n' ' ' <$o/irqs)" = "IF IF-TxRx-0 IF-TxRx-1 IF-TxRx-2 IF-TxRx-3 "
	ip -n a link set "$A" down
	ip -n a link set "$A" name rigcx0
	ip -n a link set rigcx0 up
	check "$drv: named after the new name at the next open" \
		test "$(irq_names rigcx0 | tr '\n' ' ')" = "IF IF-TxRx-0 IF-TxRx-1 IF-TxRx-2 IF-TxRx-3 "
	ip -n a link set rigcx0 down
	ip -n a link set rigcx0 name "$A"
	ip netns exec a /lab/src/lab/guest/netdev-nl "$ifindex" >$o/nl-down
	check "$drv: no queue tied to NAPI while down" sh -c "! awk '\$1 == \"queue\" && \$5 != 0' $o/nl-down | grep -q ."

	del_namespaces "$drv" 2
	rmmod "$drv"
done

for f in pause fcregs fcregs9000 fcregs1000 eee mdix speed phc rssk channels napi irqs; do
	check "$f: rigc as igc" diff /tmp/ls-igc/$f /tmp/ls-rigc/$f
done
check "no warning or oops in dmesg" no_kernel_splat
tap_done
