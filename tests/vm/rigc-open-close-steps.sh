#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What igc does at probe, open and close that a real host relies on, igc
# then rigc on the same emulated ports (../shared/audits/driver-review-2.md
# N1, N4, N5, N9, N10, N13):
# - No carrier before the first open: igc turns the carrier off before it
#   registers the interface (igc_probe), so "ethtool IF" says "Link
#   detected: no" until the interface is up with a link.
# - The PHY reset at every open (igc_power_up_link -> igc_reset_phy:
#   CTRL.PHY_RST, counted by the model).
# - The manageability firmware's rule: while MANC.BLK_PHY_RST_ON_IDE is set
#   (the model's "manc PORT blk-phy-rst on", as the firmware of an LM part
#   with AMT or a BMC sets it), the PHY is neither reset (igc_phy_hw_reset)
#   nor powered down (igc_power_down_phy_copper_base): the partner keeps its
#   link while the interface is down, at probe and at "ip link set down".
# - Receive stays off once the interface is down, whatever multicast joins
#   race with the close (IPv6 joins reach ndo_set_rx_mode without the RTNL:
#   igc_set_rx_mode never sets RCTL.EN).
# - A TX unit that hangs at a low packet rate (one ping every 0.5 s: the
#   ring never fills) is detected ("Detected Tx Unit Hang": igc's check in
#   igc_clean_tx_irq, rigc's in its watchdog) and the adapter reset.
# - A MAC reset waits for the master requests still pending after
#   GIO_MASTER_DISABLE (the model's gio-master-hold; igc_disable_pcie_master
#   waits up to 800 polls 2-3 ms apart).
# - The counters of the last watchdog period are kept across a reset (igc
#   records the statistics before it resets: igc_down): ethtool -S
#   tx_packets after an offline self-test right behind a burst of traffic
#   agrees with the frames the model sent.
# lab-vm: --driver none --ports 2
# lab-lane: timing (for balance: the main lane is the longer; nothing here is timed)
. "$(dirname "$0")/lib.sh"

# phy PORT FIELD: the model's PHY state of the port (status' "phy").
phy() { model_values "^$1[.]phy[.]$2\$" status; }
model_reg() { model_values '^value$' reg "$1" "$2"; }
# rctl_en PORT: RCTL.EN (bit 1) as the driver left it.
rctl_en() { echo $((($(model_reg "$1" 0x100) >> 1) & 1)); }
link_detected() { ip netns exec "$1" ethtool "$2" | awk '/Link detected:/ { print $3 }'; }

for drv in igc rigc; do
	dmesg_mark
	modprobe "$drv"
	check "$drv bound both ports" wait_ports "$drv" 2
	set -- $(port_ifaces "$drv")
	check "$drv: no carrier before the first open (\"Link detected: no\" on both ports)" \
		test "$(ethtool "$1" | awk '/Link detected:/ { print $3 }') $(ethtool "$2" | awk '/Link detected:/ { print $3 }')" = "no no"
	r0=$(phy 0 resets) r1=$(phy 1 resets)
	check "$drv: both ports up with carrier in namespaces a and b" setup_namespaces "$drv"
	A=$(ns_iface a) B=$(ns_iface b)
	check "$drv: one PHY reset at the first open of each port (CTRL.PHY_RST: $r0 $r1 -> $(phy 0 resets) $(phy 1 resets))" \
		test "$(phy 0 resets) $(phy 1 resets)" = "$((r0 + 1)) $((r1 + 1))"

	# The firmware blocks PHY resets and power-downs on port 1.
	$MODEL_CTL manc 1 blk-phy-rst on >/dev/null
	r1=$(phy 1 resets)
	ip -n b link set "$B" down
	sleep 1
	check "$drv: port 1 down, MANC blocking: its PHY still powered, port 0 still has carrier" \
		test "$(phy 1 powered_down) $(phy 1 power_downs_blocked) $(ip netns exec a cat /sys/class/net/$A/carrier)" = "false 0 1"
	# Up again: no PHY reset. Nor a link set-up (igc_setup_link: "we already have a link";
	# the model's MAC has none without CTRL.SLU, which the firmware would have set).
	ip -n b link set "$B" up
	check "$drv: no PHY reset at the open of port 1, MANC blocking it ($r1 -> $(phy 1 resets))" \
		test "$(phy 1 resets) $(phy 1 resets_blocked)" = "$r1 0"
	# Without the block, a down port's PHY is off and the partner loses its link.
	$MODEL_CTL manc 1 blk-phy-rst off >/dev/null
	ip -n b link set "$B" down
	check "$drv: port 1 down without the block: its PHY off, port 0 without carrier" \
		sh -c 'for _ in $(seq 50); do [ "$(ip netns exec a cat /sys/class/net/$1/carrier)" = 0 ] && exit 0; sleep 0.2; done; exit 1' _ "$A"
	ip -n b link set "$B" up
	wait_carrier b "$B"
	wait_carrier a "$A"

	# Multicast joins racing the close: RCTL.EN clear after every down.
	ip netns exec a python3 -c '
import socket, struct, sys, time
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
idx = socket.if_nametoindex(sys.argv[1])
end = time.time() + float(sys.argv[2])
i = 0
while time.time() < end:
    g = socket.inet_pton(socket.AF_INET6, "ff02::1:ff%02x:%04x" % (i % 256, i % 65536))
    mreq = g + struct.pack("@I", idx)
    try:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_JOIN_GROUP, mreq)
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_LEAVE_GROUP, mreq)
    except OSError:
        time.sleep(0.0005)
    i += 1
' "$A" 120 &
	joiner=$!
	sleep 2
	left_on=0
	for _ in $(seq 10); do
		ip -n a link set "$A" down
		[ "$(rctl_en 0)" = 0 ] || left_on=$((left_on + 1))
		ip -n a link set "$A" up
	done
	kill "$joiner" 2>/dev/null
	wait "$joiner" 2>/dev/null
	check "$drv: RCTL.EN clear after each of 10 closes with multicast joins racing them ($left_on left receive on)" \
		test "$left_on" = 0
	wait_carrier a "$A"
	check "$drv: ping a -> b after the closes" ip netns exec a ping -c 2 -W 2 10.0.0.2

	# The counters of the last watchdog period survive the offline self-test's reset: the
	# statistics are read before it (igc_down). A frame still leaving the model's packet buffer
	# between that read and CTRL.RST is counted by the model and lost to the counter (seen once
	# with rigc under TCG; igc reads and resets in the same order): up to 2 a round are
	# allowed; a reset that loses the period loses hundreds. (Under TCG the period is rarely
	# long enough for the loss to show: this check passed on the driver without the read too.)
	lost=0
	for round in 1 2; do
		t0=$(ethtool_sum a "$A" '^tx_packets$') m0=$(model_queue_sum 0 tx packets)
		ip netns exec a sh -c 'ping -q -f -c 800 -W 1 10.0.0.2 >/dev/null 2>&1; ethtool -t "$1" offline >/dev/null 2>&1' _ "$A"
		wait_carrier a "$A"
		sleep 3
		t1=$(ethtool_sum a "$A" '^tx_packets$') m1=$(model_queue_sum 0 tx packets)
		note "$drv round $round: ethtool -S tx_packets +$((t1 - t0)), the model sent +$((m1 - m0))"
		[ $((t1 - t0)) -ge $((m1 - m0 - 2)) ] || lost=$((lost + (m1 - m0) - (t1 - t0)))
	done
	check "$drv: tx_packets counts the frames sent right before an offline self-test (at most 2 in flight a round; $lost more missing)" \
		test "$lost" = 0

	# A TX unit that hangs while one ping leaves every 0.5 s (its ring never fills, so the
	# queue never stops by itself): the driver detects it (igc's "Detected Tx Unit Hang") and
	# the stack's TX timeout resets the adapter. igc checks in its TX clean, which runs only
	# when the port's vector interrupts: the port also receives a ping every 0.5 s, as a PTP
	# master receives Delay_Req messages (with nothing received, igc never detects it).
	dmesg_mark
	$MODEL_CTL tx-hang 0 >/dev/null
	ip netns exec a ping -q -i 0.5 -c 60 -W 1 10.0.0.2 >/dev/null 2>&1 &
	pinger=$!
	ip netns exec b ping -q -i 0.5 -c 60 -W 1 10.0.0.1 >/dev/null 2>&1 &
	pinger_b=$!
	check "$drv: a TX hang under a ping every 0.5 s: \"Detected Tx Unit Hang\"" \
		wait_log 30 'Detected Tx Unit Hang'
	check "$drv: ... and the adapter reset (\"Reset adapter\")" wait_log 20 'Reset adapter'
	kill "$pinger" "$pinger_b" 2>/dev/null
	wait "$pinger" "$pinger_b" 2>/dev/null
	check "$drv: carrier and ping a -> b after the reset" \
		sh -c 'for _ in $(seq 50); do ip netns exec a ping -c 1 -W 1 10.0.0.2 >/dev/null && exit 0; sleep 0.2; done; exit 1'

	# Master requests still pending 200 ms after GIO_MASTER_DISABLE: each MAC reset of the
	# offline self-test waits for them (igc_disable_pcie_master: up to 800 polls 2-3 ms apart).
	e0=$(model_values '^0[.]resets_with_master_enabled$' status)
	$MODEL_CTL gio-master-hold 0 200 >/dev/null
	ip netns exec a ethtool -t "$A" offline >/dev/null 2>&1
	$MODEL_CTL gio-master-hold 0 0 >/dev/null
	e1=$(model_values '^0[.]resets_with_master_enabled$' status)
	check "$drv: no MAC reset of the offline self-test while master requests were pending 200 ms ($e0 -> $e1)" \
		test "$e1" = "$e0"
	wait_carrier a "$A"

	# Close, unbind and probe with the firmware blocking PHY resets on port 1: its PHY stays
	# powered (the close as the namespace goes, igc_remove's, igc_probe's igc_reset).
	$MODEL_CTL manc 1 blk-phy-rst on >/dev/null
	del_namespaces "$drv" 2
	rmmod "$drv"
	modprobe "$drv"
	check "$drv bound both ports again, MANC blocking port 1" wait_ports "$drv" 2
	check "$drv: port 1's PHY powered through close, rmmod and probe, MANC blocking it (no blocked reset or power-down)" \
		test "$(phy 1 powered_down) $(phy 1 resets_blocked) $(phy 1 power_downs_blocked)" = "false 0 0"
	$MODEL_CTL manc 1 blk-phy-rst off >/dev/null
	rmmod "$drv"
	check "$drv: no splat" no_kernel_splat
done
tap_done
