#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The benchmark's smoke run (lab/bench's guest half, lab/guest/bench --smoke):
# every experiment once for C igc and rigc with each step cut to a second or
# two, so that the benchmark cannot rot while the tests pass. No figure is
# judged: under TCG, and on the checking kernel, they mean nothing; what is
# checked is that each experiment gives every figure for both drivers. The
# run is left in /lab/results/bench-smoke, and lab/test makes the table and
# the plots from it on the host (lab/bench-report, as lab/bench does: under
# TCG matplotlib alone took about 30 s).
# lab-vm: --driver none --ports 2 --timeout 900
# lab-lane: timing (for balance: the main lane is the longer; it runs between the PTP tests, never beside them)
. /lab/src/tests/vm/lib.sh

smoke_dir=/lab/results/bench-smoke
rm -rf $smoke_dir
/lab/src/lab/guest/bench --smoke --out $smoke_dir >/tmp/bench-smoke.log 2>&1
rc=$?
ran() { [ "$rc" = 0 ] || { tail -20 /tmp/bench-smoke.log; false; }; }
check "lab/guest/bench --smoke runs every experiment for igc and rigc" ran
grep '^# bench:' /tmp/bench-smoke.log
# figures_of DRIVER EXPERIMENT: that experiment's figure lines for the driver.
figures_of() { awk -v d="$1" -v e="$2." '$2 == d && index($3, e) == 1' $smoke_dir/figures.txt; }
each_has_value() { # DRIVER EXPERIMENT
	local lines
	lines=$(figures_of "$1" "$2")
	[ -n "$lines" ] && ! printf '%s\n' "$lines" | grep ' -$'
}
for e in ixgbe igb ntp tput; do
	for d in igc rigc; do
		check "$e: $(figures_of $d $e | wc -l) figures for $d, each with a value" each_has_value $d $e
	done
done
same_names() { diff <(awk '$2 == "igc" { print $3 }' $smoke_dir/figures.txt) <(awk '$2 == "rigc" { print $3 }' $smoke_dir/figures.txt); }
check "igc and rigc give the same figures" same_names
interleaved() { # DRIVER
	grep -q 'interleaved=[1-9]' $smoke_dir/logs/1-"$1"-ntpload.txt || { cat $smoke_dir/logs/1-"$1"-ntpload.txt; false; }
}
check "ntpload got interleaved responses from chronyd (igc)" interleaved igc
check "ntpload got interleaved responses from chronyd (rigc)" interleaved rigc
tap_done
