#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rigc addresses 64 bits, as igc does (igc_probe sets a 64-bit DMA mask): with
# guest RAM above 4 GiB (5 GiB, so most pages the stack allocates lie above
# it) no buffer may bounce through swiotlb. With the bus default of 32 bits
# every skb above 4 GiB was copied through the bounce buffer (and rigc still
# advertised NETIF_F_HIGHDMA). swiotlb=track_hiwater makes swiotlb keep its
# high-water mark of used slots; it is reset before iperf3 runs both ways and
# must still read 0 after.
# It shares the boot of rigc-intx.sh (one queue pair on INTx).
# lab-vm: --driver rigc --ports 2 --memory 5G --append pci=nomsi --append init_on_free=1 --append swiotlb=track_hiwater
# lab-lane: timing (it shares the INTx boot of rigc-intx)
. "$(dirname "$0")/lib.sh"

TLB=/sys/kernel/debug/swiotlb
check "guest RAM above 4 GiB: swiotlb is set up" sh -c "test \"\$(cat $TLB/io_tlb_nslabs)\" -gt 0"
check "the kernel keeps swiotlb's high-water mark" test -w "$TLB/io_tlb_used_hiwater"
check "both ports up with carrier in namespaces a and b" setup_namespaces rigc
echo 0 >"$TLB/io_tlb_used_hiwater"
before=$(cat "$TLB/io_tlb_used_hiwater")
iperf_server b 5201
iperf_server a 5202
check "iperf3 a -> b" timeout 60 ip netns exec a iperf3 -c 10.0.0.2 -p 5201 -t 3
check "iperf3 b -> a" timeout 60 ip netns exec b iperf3 -c 10.0.0.1 -p 5202 -t 3
check "ping with 8000-byte payloads both ways" ip netns exec a ping -c 5 -s 8000 -W 2 10.0.0.2
after=$(cat "$TLB/io_tlb_used_hiwater")
pkill iperf3
note "swiotlb slots used at most: $before before, $after after iperf3 both ways (5 GiB guest)"
check "no buffer bounced through swiotlb (high-water mark $before -> $after slots)" \
	test "$after" -eq 0
del_namespaces rigc 2
check "no warning or oops in dmesg" no_kernel_splat
tap_done
