#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# driver-review.md F3 with C igc: the same case as rigc-tso-tstamp-tap.sh.
# igc_request_tx_tstamp's skb_get came before igc_tso's skb_cow_head; the
# series carries the fix (kernel-patches/, "igc: take the TX timestamp
# reference after the header edits").
# lab-vm: --driver igc --ports 2
. "$(dirname "$0")/lib.sh"
tso_tstamp_tap igc
tap_done
