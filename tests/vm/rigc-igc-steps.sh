#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Set-up steps C igc takes for the I225 (../shared/audits/igc-parity.md §2),
# rigc beside igc on the same emulated ports: read back from the model's
# registers (model-ctl reg, no side effect) or seen on the wire.
# - ethtool -i: the firmware version, "NVM:gPHY" (NVM word 5, PHY register
#   0x1E), the same for both (igc_ethtool_get_drvinfo).
# - The PTP reset: TIMADJ.ADJUST_METH set, TSSDP 0 (igc_ptp_reset).
# - RXCSUM as igc leaves it (PCSD, CRCOFL and the reset's offload bits), and
#   MRQC with RSS enabled even on one queue (igc_setup_mrqc).
# - Any number of multicast groups: 40 joined, all hashed into the MTA, no
#   multicast promiscuity (igc_write_mc_addr_list); a frame to a joined group
#   arrives, one to another group does not reach the driver.
# - A double-tagged frame at the full MTU (1522 bytes) is received (RLPML;
#   igc writes 1648 for the standard MTU, rigc MTU + two tags + CRC, 1526).
# - Ring sizes and channel counts set to the current ones change nothing: the
#   same rings, no carrier change (igc returns early; only the ioctl asks).
# - An NVM auto-read that never completes (EECD.AUTO_RD clear after reset, the
#   model's no-auto-rd) does not fail the probe (igc_get_auto_rd_done); for
#   igc only in the long mode (RIGC_LONG=1).
# lab-vm: --driver none --ports 2
. "$(dirname "$0")/lib.sh"

# model_reg PORT OFFSET: the register's value (0x........), as the driver
# left it.
model_reg() { model_values '^value$' reg "$1" "$2"; }

# send_frames NETNS IFACE N HEX: N copies of the frame HEX (no FCS) on an
# AF_PACKET socket.
send_frames() {
	ip netns exec "$1" python3 -c '
import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[1], 0))
f = bytes.fromhex(sys.argv[3])
for _ in range(int(sys.argv[2])):
    s.send(f)
' "$2" "$3" "$4"
}

# rx_delta COMMAND...: how many frames the model handed to port 0's driver
# while COMMAND ran (and the second after it).
rx_delta() {
	local r0 r1
	r0=$(model_queue_sum 0 rx packets)
	"$@" || return 1
	sleep 1
	r1=$(model_queue_sum 0 rx packets)
	echo $((r1 - r0))
}

# ethtool_same IFACE rings|channels: in namespace a, the SIOCETHTOOL ioctl that sets the ring
# sizes (ETHTOOL_SRINGPARAM) or channel counts (ETHTOOL_SCHANNELS) to the
# values it has just read. The ethtool command and the netlink path never
# ask a driver to change nothing (both drop an unchanged request); the ioctl
# does, as older tools and other programs use it.
ethtool_same() {
	ip netns exec a python3 -c '
import array, fcntl, socket, struct, sys
get, set_ = {"rings": (0x10, 0x11), "channels": (0x3c, 0x3d)}[sys.argv[2]]
buf = array.array("I", [get] + [0] * 8)
ifr = struct.pack("16sP", sys.argv[1].encode(), buf.buffer_info()[0])
s = socket.socket()
fcntl.ioctl(s, 0x8946, ifr)
buf[0] = set_
fcntl.ioctl(s, 0x8946, ifr)
' "$1" "$2"
}

# _nothing_changes COMMAND...: COMMAND leaves port 0's
# rings where they were (queue 0's RDBAL and TDBAL: new rings would be new
# allocations, made while the old ones still exist) and the carrier as it was.
_nothing_changes() {
	local c0 c1 r0 r1
	c0=$(ip netns exec a cat "/sys/class/net/$A/carrier_changes")
	r0="$(model_reg 0 c000) $(model_reg 0 e000)"
	"$@" || return 1
	sleep 1
	c1=$(ip netns exec a cat "/sys/class/net/$A/carrier_changes")
	r1="$(model_reg 0 c000) $(model_reg 0 e000)"
	[ "$c1" = "$c0" ] && [ "$r1" = "$r0" ] ||
		{ echo "carrier changes $c0 -> $c1, RDBAL0 TDBAL0 $r0 -> $r1"; return 1; }
}

payload=$(printf '%03000d' 0)
for drv in igc rigc; do
	modprobe "$drv"
	check "$drv bound both ports" wait_ports "$drv" 2
	check "$drv: both ports up with carrier in namespaces a and b" setup_namespaces "$drv"
	A=$(ns_iface a) B=$(ns_iface b)
	ip netns exec a ethtool -i "$A" | sed -n 's/^firmware-version: //p' >"/tmp/fw-$drv"
	# One queue on both drivers, so that MRQC is compared on the case where
	# rigc used to turn RSS off.
	ip netns exec a ethtool -L "$A" combined 1
	check "$drv: carrier after ethtool -L combined 1" wait_carrier a "$A"
	for r in 5000 5818 b60c 3c; do
		echo "$r $(model_reg 0 $r)"
	done >"/tmp/regs-$drv"
	echo "# $drv: $(tr '\n' ' ' <"/tmp/regs-$drv")firmware-version $(cat "/tmp/fw-$drv")"
	timadj=$(model_reg 0 b60c)
	check "$drv: TIMADJ.ADJUST_METH set by the PTP reset ($timadj)" test $((timadj & 0x40000000)) -ne 0
	check "$drv: TSSDP 0 (no pin given to the time sync unit)" test $(($(model_reg 0 3c))) -eq 0

	# 40 multicast groups, 01:00:5e:00:01:01 to :28: hashes 0x010 to 0x280.
	for n in $(seq 1 40); do
		ip -n a maddr add "$(printf '01:00:5e:00:01:%02x' "$n")" dev "$A"
	done
	rctl=$(model_reg 0 100)
	check "$drv: 40 multicast groups hashed, no multicast promiscuity (RCTL $rctl)" \
		test $((rctl & 0x10)) -eq 0
	src=$(ip netns exec b cat "/sys/class/net/$B/address" | tr -d :)
	n=$(rx_delta send_frames b "$B" 10 "01005e000128${src}88b5${payload:0:92}")
	check "$drv: 10 frames to the 40th group reach the driver ($n)" test "${n:-0}" -ge 10
	n=$(rx_delta send_frames b "$B" 10 "01005e7ffffe${src}88b5${payload:0:92}")
	check "$drv: 10 frames to a group not joined do not ($n)" test "${n:-10}" -lt 10

	# A double-tagged frame (802.1ad 0x88a8, then 802.1Q) at the full MTU:
	# 22 bytes of header and 1500 of payload. The sender needs a larger MTU
	# to send it.
	ip -n b link set "$B" mtu 1600
	dst=$(ip netns exec a cat "/sys/class/net/$A/address" | tr -d :)
	n=$(rx_delta send_frames b "$B" 5 "${dst}${src}88a80064810000c888b5${payload}")
	check "$drv: 5 double-tagged frames at the full MTU received ($n)" test "${n:-0}" -ge 5
	ip -n b link set "$B" mtu 1500

	check "$drv: ring sizes set to the current ones (ETHTOOL_SRINGPARAM) change nothing" \
		_nothing_changes ethtool_same "$A" rings
	check "$drv: channels set to the current ones (ETHTOOL_SCHANNELS) change nothing" \
		_nothing_changes ethtool_same "$A" channels
	del_namespaces "$drv" 2

	# A blank NVM whose auto-read never completes: probe goes on. igc's
	# probe waits out its polls (about 30 s under TCG): igc only in the long
	# mode.
	if [ "$drv" = rigc ] || [ -n "${RIGC_LONG:-}" ]; then
		$MODEL_CTL no-auto-rd 0 on >/dev/null && $MODEL_CTL no-auto-rd 1 on >/dev/null
		rmmod "$drv"
		modprobe "$drv"
		check "$drv: both ports probed with EECD.AUTO_RD never set" wait_ports "$drv" 2
		$MODEL_CTL no-auto-rd 0 off >/dev/null && $MODEL_CTL no-auto-rd 1 off >/dev/null
	fi
	rmmod "$drv"
done

check "ethtool -i: rigc's firmware version is igc's ($(cat /tmp/fw-igc))" \
	sh -c 'test -s /tmp/fw-igc && diff /tmp/fw-igc /tmp/fw-rigc'
# RXCSUM, MRQC on one queue, TIMADJ, TSSDP: the same values.
check "RXCSUM, MRQC, TIMADJ, TSSDP as igc leaves them" diff /tmp/regs-igc /tmp/regs-rigc
check "no warning or oops in dmesg" no_kernel_splat
tap_done
