#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The time sync unit's pins, C igc then rigc on the same emulated port 0
# (issue 13): the kernel's testptp and ts2phc against each driver's PHC, the
# model's pulse source on SDP0 and its log of every pin edge.
# - testptp -c and -l: the same capabilities and pins for both (2 external
#   timestamp channels, 2 periodic outputs, PPS, SDP0-SDP3).
# - Requests out of range or refused (a pin or channel past the last, the
#   PHYSYNC function, a channel with no pin, a clock faster than the
#   hardware makes, the edge flag combinations of testptp -z): the same
#   answers, errno for errno.
# - EXTTS on SDP0 (testptp -L 0,1 -e): the timestamps of both edges of the
#   1 PPS source are the ones the model latched, a second apart.
# - PEROUT: 1 PPS on SDP1 (a frequency clock) and a 2 s period on SDP2 (a
#   re-armed target time): the edges the model logged fall on the PHC's
#   second boundaries (within PEROUT_BOUND_NS).
# - PPS (testptp -P 1): the PPS source's assert sequence counts the seconds.
# - ts2phc -s generic disciplines the PHC to the pulses: RMS and max |offset|
#   over its last 15 s (< 100 ns); then phc2sys steers the system clock from
#   the PHC. For igc only in the long mode (RIGC_LONG=1).
# lab-vm: --driver none --ports 2 --timeout 900
# lab-lane: timing (ts2phc's and phc2sys's offsets are gated)
. "$(dirname "$0")/lib.sh"
T=/lab/build/tools
PEROUT_BOUND_NS=8
TS2PHC_RMS_NS=100

phc_of() { ethtool -T "$1" | sed -n 's/.*provider index: //p'; }

# noted COMMAND...: runs it, its output shown beside the check's result.
noted() {
	local o rc
	o=$("$@" 2>&1)
	rc=$?
	note "$o"
	return $rc
}

# refusals DEV: what testptp answers to requests that must fail, one line
# each (exit status and message), for igc and rigc to be compared.
refusals() {
	local dev=$1 args
	# Free pins and channels first: a pin assignment survives the fd.
	for args in "-L 0,0" "-L 1,0" "-L 2,0" "-L 3,0"; do $T/testptp -d "$dev" $args >/dev/null 2>&1; done
	for args in "-i 2 -L 0,1" "-i 2 -L 0,2" "-L 4,1" "-L 0,3" "-i 1 -L 0,3" "-i 2 -e 1" \
		"-i 2 -p 1000000000" "-i 0 -e 1" "-i 1 -p 1000000000" "-i 0 -E 1 -e 1"; do
		echo "testptp $args: $(timeout 5 $T/testptp -d "$dev" $args 2>&1 >/dev/null | tr '\n' ' ')(exit $?)"
	done
	# A channel with its pin: a clock faster than 8 ns half periods.
	$T/testptp -d "$dev" -i 0 -L 1,2 >/dev/null 2>&1
	echo "testptp -i 0 -p 14: $($T/testptp -d "$dev" -i 0 -p 14 2>&1 >/dev/null | tr '\n' ' ')(exit $?)"
	$T/testptp -d "$dev" -i 0 -p 0 >/dev/null 2>&1
	$T/testptp -d "$dev" -L 1,0 >/dev/null 2>&1
	# Every edge flag combination, both ioctls, on channel 0 with its pin.
	$T/testptp -d "$dev" -i 0 -L 0,1 >/dev/null 2>&1
	timeout 5 $T/testptp -d "$dev" -i 0 -z 2>&1
	$T/testptp -d "$dev" -L 0,0 >/dev/null 2>&1
}

# extts_matches_model LOG: every event testptp read is a stamp the model
# latched on channel 0, rising edges a second apart.
extts_matches_model() {
	$MODEL_CTL edges 0 0 | python3 -c '
import json, sys
ev = [l.split() for l in open(sys.argv[1]) if l.startswith("event index 0 at ")]
got = [int(e[4].split(".")[0]) * 10**9 + int(e[4].split(".")[1]) for e in ev]
pins = json.load(sys.stdin)["pins"]
stamps = {int(a["stamp_ns"]) for p in pins for e in p["edges"] for a in e.get("aux", [])
          if a["channel"] == 0 and a["latched"]}
if len(got) < 4:
    sys.exit("only %d events: %s" % (len(got), open(sys.argv[1]).read()))
missing = [g for g in got if g not in stamps]
if missing:
    sys.exit("events not latched by the model: %s (model: %s)" % (missing, sorted(stamps)[-8:]))
d = sorted(got)
gaps = [b - a for a, b in zip(d, d[1:])]
# Both edges: 100 ms high, 900 ms low.
if not all(abs(g - 10**8) < 10**6 or abs(g - 9 * 10**8) < 10**6 for g in gaps):
    sys.exit("edges not 100/900 ms apart: %s" % gaps)
print("%d events, gaps %s ns" % (len(got), gaps))
' "$1"
}

# perout_on_seconds PIN CAUSE HALF_NS: the model logged at least 3 rising edges
# of CAUSE on PIN, each and the falling ones on a multiple of HALF_NS of
# SYSTIM0, within PEROUT_BOUND_NS.
perout_on_seconds() {
	$MODEL_CTL edges 0 "$1" | python3 -c '
import json, sys
cause, half, bound = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
pins = json.load(sys.stdin)["pins"]
edges = [e for p in pins for e in p["edges"] if e["cause"] == cause]
rising = [e for e in edges if e["rising"]]
if len(rising) < 3:
    sys.exit("%d rising %s edges: %s" % (len(rising), cause, edges))
worst = 0
for e in edges:
    s = int(e["systim_ns"])
    off = min(s % half, half - s % half)
    worst = max(worst, off)
if worst > bound:
    sys.exit("an edge %d ns off a %d ns boundary of SYSTIM0: %s" % (worst, half, edges[-4:]))
print("%d edges (%d rising), at most %d ns off the boundaries" % (len(edges), len(rising), worst))
' "$2" "$3" "$PEROUT_BOUND_NS"
}

# pps_counts PHC: the PPS source of ptpN counted at least 2 assert events in 3 s.
pps_counts() {
	local p src="" s0 s1
	for p in /sys/class/pps/pps*; do
		[ "$(cat "$p/name" 2>/dev/null)" = "ptp$1" ] && src=$p
	done
	[ -n "$src" ] || { echo "no PPS source named ptp$1: $(cat /sys/class/pps/*/name 2>/dev/null)"; return 1; }
	s0=$(sed 's/.*#//' "$src/assert")
	sleep 3
	s1=$(sed 's/.*#//' "$src/assert")
	note "$src: assert sequence $s0 -> $s1 in 3 s"
	[ "$((s1 - s0))" -ge 2 ]
}

# ts2phc_converges IFACE DRIVER: ts2phc -s generic on IFACE for 40 s; the last 15
# offsets' RMS and max under TS2PHC_RMS_NS. The generic source labels the
# pulses with the system clock's UTC, which needs a leap second table that
# has not expired: tzdata's (linuxptp's built-in one has).
ts2phc_converges() {
	cat >/tmp/ts2phc.conf <<-EOF
		[global]
		leapfile /usr/share/zoneinfo/leap-seconds.list
		use_syslog 0
		verbose 1
		logging_level 6
		ts2phc.pulsewidth 100000000
		[$1]
		ts2phc.extts_polarity both
		ts2phc.pin_index 0
		ts2phc.channel 0
	EOF
	timeout 40 ts2phc -f /tmp/ts2phc.conf -s generic -m >/tmp/ts2phc-"$2".log 2>&1
	awk '/ offset / { for (i = 1; i < NF; i++) if ($i == "offset") o[n++] = $(i + 1) }
		END {
			if (n < 20) { print "only " n " offsets:"; system("tail -15 " FILENAME); exit 1 }
			for (i = n - 15; i < n; i++) { s += o[i] * o[i]; a = o[i] < 0 ? -o[i] : o[i]; if (a > m) m = a }
			r = sqrt(s / 15)
			printf "ts2phc: %d offsets, the last 15: RMS %.1f ns, max |offset| %d ns\n", n, r, m
			exit !(r < lim && m < 2 * lim)
		}' lim="$TS2PHC_RMS_NS" /tmp/ts2phc-"$2".log
}

# phc2sys_follows IFACE: phc2sys steers CLOCK_REALTIME from the PHC; its last
# 20 offsets under 100 us, as in rigc-ptp.sh (TCG: the system clock's reads
# are slow and noisy).
phc2sys_follows() {
	# A second run decides if host load spoiled the first, as in rigc-ptp.sh.
	timeout 15 phc2sys -s "$1" -c CLOCK_REALTIME -O 0 -R 4 -m -q >/tmp/phc2sys-pins.log 2>&1
	phc2sys_close && return 0
	timeout 15 phc2sys -s "$1" -c CLOCK_REALTIME -O 0 -R 4 -m -q >/tmp/phc2sys-pins.log 2>&1
	phc2sys_close
}
phc2sys_close() {
	awk '/offset/ { for (i = 1; i < NF; i++) if ($i == "offset") o[n++] = $(i + 1) }
		END {
			if (n < 30) { print "only " n " offsets"; exit 1 }
			for (i = n - 20; i < n; i++) { a = o[i] < 0 ? -o[i] : o[i]; if (a > m) m = a; s += o[i] * o[i] }
			printf "phc2sys: %d offsets, the last 20 within %d ns (RMS %.0f ns)\n", n, m, sqrt(s / 20)
			exit !(m < 100000)
		}' /tmp/phc2sys-pins.log
}

for drv in igc rigc; do
	$MODEL_CTL pulse 0 off >/dev/null
	$MODEL_CTL edges-clear 0 >/dev/null
	modprobe "$drv"
	check "$drv bound both ports" wait_ports "$drv" 2
	if0=$(port_ifaces "$drv" | head -1)
	ip link set "$if0" up
	phc=$(phc_of "$if0")
	dev=/dev/ptp$phc
	$T/testptp -d "$dev" -c >/tmp/caps-"$drv" 2>&1
	$T/testptp -d "$dev" -l >/tmp/pins-"$drv" 2>&1
	refusals "$dev" >/tmp/refusals-"$drv"

	# EXTTS: a 1 PPS on SDP0, 100 ms wide, on the whole seconds of the
	# guest's clock, which the PHC follows.
	$T/testptp -d "$dev" -s >/dev/null
	$MODEL_CTL pulse 0 0 1000000000 0 0 100000000 >/dev/null
	$T/testptp -d "$dev" -i 0 -L 0,1 >/dev/null
	timeout 10 $T/testptp -d "$dev" -i 0 -e 4 >/tmp/extts-"$drv" 2>&1
	check "$drv: testptp -e reads both edges of the pulses on SDP0, as the model latched them" \
		noted extts_matches_model /tmp/extts-"$drv"
	$T/testptp -d "$dev" -L 0,0 >/dev/null
	# The guest's clock is the host's give or take a fraction of a second, which
	# the PHC, set from it, shows against the model's true time: ts2phc's pulses
	# will come on the guest's whole seconds, as a GPS PPS on a synchronised host.
	phase=$($MODEL_CTL edges 0 0 | python3 -c 'import json, sys
e = [e for p in json.load(sys.stdin)["pins"] for e in p["edges"]]
print((-e[-1]["systim_minus_true_ns"]) % 10**9 if e else 0)')

	# PEROUT: 1 PPS on SDP1 (clock mode), a 2 s period on SDP2 (target time).
	$MODEL_CTL edges-clear 0 >/dev/null
	$T/testptp -d "$dev" -i 0 -L 1,2 >/dev/null
	$T/testptp -d "$dev" -i 0 -p 1000000000 >/dev/null
	$T/testptp -d "$dev" -i 1 -L 2,2 >/dev/null
	$T/testptp -d "$dev" -i 1 -p 2000000000 >/dev/null
	sleep 6
	check "$drv: 1 PPS on SDP1: its edges on the PHC's half seconds" noted perout_on_seconds 1 fc0 500000000
	check "$drv: a 2 s period on SDP2: its edges on the PHC's seconds" noted perout_on_seconds 2 tt1 1000000000
	$T/testptp -d "$dev" -i 0 -p 0 >/dev/null
	$T/testptp -d "$dev" -i 1 -p 0 >/dev/null
	$T/testptp -d "$dev" -L 1,0 >/dev/null
	$T/testptp -d "$dev" -L 2,0 >/dev/null

	# PPS.
	$T/testptp -d "$dev" -P 1 >/dev/null
	check "$drv: testptp -P 1: the PPS source counts the PHC's seconds" pps_counts "$phc"
	$T/testptp -d "$dev" -P 0 >/dev/null

	# ts2phc, then phc2sys from the disciplined PHC: for igc only in the long
	# mode (they are a minute of the test; rigc is the driver under test, and
	# igc's PHC answers as rigc's in every check above).
	if [ "$drv" = rigc ] || [ -n "${RIGC_LONG:-}" ]; then
		$MODEL_CTL pulse 0 0 1000000000 "$phase" 0 100000000 >/dev/null
		check "$drv: ts2phc -s generic disciplines the PHC to the pulses on SDP0" noted ts2phc_converges "$if0" "$drv"
		check "$drv: phc2sys steers the system clock from the PHC" noted phc2sys_follows "$if0"
	fi
	$MODEL_CTL pulse 0 off >/dev/null
	rmmod "$drv"
done

check "testptp -c: rigc's capabilities are igc's" diff -u /tmp/caps-igc /tmp/caps-rigc
check "testptp -l: rigc's pins are igc's" diff -u /tmp/pins-igc /tmp/pins-rigc
check "refused requests: rigc answers as igc, errno for errno ($(wc -l </tmp/refusals-igc) requests)" \
	diff -u /tmp/refusals-igc /tmp/refusals-rigc
sed 's/^/# igc: /' /tmp/refusals-igc | head -14
tap_done
