#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# driver-review.md F3 with rigc: the TX timestamp reference is taken only after
# the header edits of TSO, so a header-cloned TSO skb with a timestamp request
# is sent, not a kernel BUG (see tso_tstamp_tap in lib.sh).
# lab-vm: --driver rigc --ports 2
. "$(dirname "$0")/lib.sh"
tso_tstamp_tap rigc
tap_done
