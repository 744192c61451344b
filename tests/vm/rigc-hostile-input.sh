#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Hostile input, rigc beside C igc on the same emulated ports in one run
# (lab/guest/hostile-input): every hwtstamp_config field out of range, PTP
# requests with bad values, ethtool rings/channels/link settings out of
# range, MTU below 68 and above the maximum, multicast/zero/broadcast MAC.
# Each request must get the errno igc returns and leave the configuration as
# it was; then a seeded fuzz of the same interfaces (RIGC_FUZZ_SEED, printed)
# must give igc's errno sequence, with traffic flowing and a clean kernel log.
# lab-vm: --driver none --ports 2
. "$(dirname "$0")/lib.sh"

seed=${RIGC_FUZZ_SEED:-$(date +%s)}
count=100
[ -n "${RIGC_LONG:-}" ] && count=2000
echo "# fuzz seed $seed ($count requests; RIGC_FUZZ_SEED=$seed repeats it)"
run_driver() { # run_driver DRIVER: the cases and the fuzz into /tmp/hostile-DRIVER.json
	local A phc
	modprobe "$1" && wait_ports "$1" 2 || return 1
	setup_namespaces "$1" || return 1
	A=$(ns_iface a)
	phc=$(ip netns exec a ethtool -T "$A" | sed -n "s/.*provider index: //p")
	ip netns exec a /lab/src/lab/guest/hostile-input "$A" "$phc" --fuzz "$seed" "$count" \
		>"/tmp/hostile-$1.json" || return 1
	# Traffic still flows after it all.
	wait_carrier a "$A" && ip netns exec a ping -c 2 -W 2 10.0.0.2 >/dev/null || return 1
	ip netns del a
	ip netns del b
	rmmod "$1"
}
check "C igc: every hostile request sent, traffic flows afterwards" run_driver igc
check "rigc: every hostile request sent, traffic flows afterwards" run_driver rigc
python3 - /tmp/hostile-igc.json /tmp/hostile-rigc.json <<'PY' | sed 's/^/# /'
import json, sys
igc, rigc = (json.load(open(p)) for p in sys.argv[1:])
print(f"{'request':<52} {'igc':>14} {'rigc':>14}")
for k in igc:
    if k == "fuzz":
        continue
    r = rigc.get(k, ["missing", False])
    print(f"{k:<52} {igc[k][0]:>14} {r[0]:>14}")
PY
n=0
while IFS=$'\t' read -r what igc_e rigc_e rigc_kept; do
	n=$((n + 1))
	check "hostile input: $what -> rigc $rigc_e, igc $igc_e, configuration kept" \
		test "$igc_e" = "$rigc_e" -a "$rigc_kept" = True
done < <(python3 - /tmp/hostile-igc.json /tmp/hostile-rigc.json <<'PY'
import json, sys
igc, rigc = (json.load(open(p)) for p in sys.argv[1:])
for k, (e, kept) in igc.items():
    if k == "fuzz":
        continue
    r = rigc.get(k, ["missing", False])
    print(f"{k}\t{e}\t{r[0]}\t{r[1]}")
PY
)
fuzz_cmp() {
	python3 - /tmp/hostile-igc.json /tmp/hostile-rigc.json <<'PY'
import json, sys
igc, rigc = (json.load(open(p))["fuzz"] for p in sys.argv[1:])
diff = [(i, a, b) for i, (a, b) in enumerate(zip(igc, rigc)) if a != b]
print(f"{len(igc)} fuzzed requests, {sum(not e.startswith('ok') for e in igc)} rejected by igc, {len(diff)} differences")
for i, a, b in diff[:10]:
    print(f"  request {i}: igc {a}, rigc {b}")
sys.exit(1 if diff or len(igc) != len(rigc) else 0)
PY
}
check "seeded fuzz (seed $seed): rigc gives igc's errno for every request" fuzz_cmp
echo "# hostile inputs: $n requests, $count fuzzed, per driver"
tap_done
