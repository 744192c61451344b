// SPDX-License-Identifier: GPL-2.0

//! Receive rings (`igc_main.c`: `igc_setup_rx_resources`, `igc_configure_rx_ring`,
//! `igc_clean_rx_irq`): one DMA-mapped page per descriptor, NAPI poll within budget.
//!
//! The poll sees a completed descriptor in memory (its length, written last by the hardware,
//! is non-zero), so it reads no register per packet; it writes RDT once per poll. As igc
//! (`igc_construct_skb`), a frame's headers are copied into a small skb from the NAPI cache and
//! the rest is attached as a fragment of the half page the device wrote it into; the page then
//! turns to its other half, or, while the stack still holds part of it, is replaced by a new
//! one (igc's page reuse, in the `RxPage` abstraction). A frame that fits the skb's 256 bytes is
//! copied whole and its half goes straight back. Frames larger than one buffer (MTU up to 9000)
//! span several descriptors and are reassembled as fragments.

use kernel::{
    device,
    net::{
        dev::{features, Device, NapiPoll},
        skb::{RxPage, RxSkb, RX_HALF, RX_HDR_LEN},
    },
    prelude::*,
    sync::{
        atomic::{Atomic, Relaxed},
        barrier::{dma_mb, Read},
    },
};

use crate::{
    desc::{rxd, Descs, RxRead, RxWb},
    hw::Hw,
    ptp,
    regs::{RDBAH, RDBAL, RDH, RDLEN, RDT, RXDCTL, SRRCTL, SRRCTL_DESCTYPE_ADV_ONEBUF},
};

/// Receive buffer size in SRRCTL (2 KiB, as igc): the half page the device writes into.
pub(crate) const BUF_LEN: u32 = 2048;
const _: () = assert!(BUF_LEN <= RX_HALF);

/// Software counters of one RX queue.
pub(crate) struct RxCounters {
    pub(crate) packets: Atomic<u64>,
    pub(crate) bytes: Atomic<u64>,
    pub(crate) csum_err: Atomic<u64>,
    pub(crate) alloc_failed: Atomic<u64>,
    pub(crate) errors: Atomic<u64>,
}

impl RxCounters {
    pub(crate) const fn new() -> Self {
        Self {
            packets: Atomic::new(0),
            bytes: Atomic::new(0),
            csum_err: Atomic::new(0),
            alloc_failed: Atomic::new(0),
            errors: Atomic::new(0),
        }
    }
}

/// One RX descriptor ring with its pages.
pub(crate) struct RxRing {
    queue: u16,
    desc: Descs,
    count: u32,
    next_to_clean: u32,
    /// One per descriptor; from `kvmalloc`, as igc's `rx_buffer_info` from `vzalloc`.
    pages: KVVec<RxPage>,
    /// A frame being reassembled from several descriptors, or `None`; `Some(None)` marks a frame
    /// being discarded until its last descriptor.
    partial: Option<Option<RxSkb>>,
}

impl RxRing {
    /// Allocates a ring of `count` descriptors for queue `queue`, with a mapped page for each.
    pub(crate) fn new(dev: &device::Device<device::Bound>, queue: u16, count: u32) -> Result<Self> {
        let desc = Descs::new(dev, count)?;
        let mut pages = KVVec::with_capacity(count as usize, GFP_KERNEL)?;
        for _ in 0..count {
            pages.push(RxPage::new(dev, GFP_KERNEL)?, GFP_KERNEL)?;
        }
        let ring = Self {
            queue,
            desc,
            count,
            next_to_clean: 0,
            pages,
            partial: None,
        };
        for i in 0..count {
            ring.give(i);
        }
        Ok(ring)
    }

    /// Hands descriptor `i` (and its page) to the hardware; nothing past the ring.
    #[inline]
    fn give(&self, i: u32) {
        if let Some(page) = self.pages.get(i as usize) {
            let d = RxRead {
                pkt_addr: page.dma_address(),
                hdr_addr: 0,
            };
            self.desc.write(i, &d);
        }
    }

    /// Programs the ring and enables it (`igc_configure_rx_ring`); every descriptor but one is
    /// given to the hardware.
    pub(crate) fn configure(&self, hw: &Hw, tstamp: bool) {
        let q = usize::from(self.queue);
        hw.write_at(q, RXDCTL::zeroed());
        hw.flush();
        let base = self.desc.dma_address();
        hw.write_at(q, RDBAL::zeroed().with_addr(base as u32));
        hw.write_at(q, RDBAH::zeroed().with_addr((base >> 32) as u32));
        hw.write_at(
            q,
            RDLEN::zeroed()
                .try_with_len(self.count * 16)
                .unwrap_or_else(|_| RDLEN::zeroed()),
        );
        hw.write_at(q, RDH::zeroed());
        hw.write_at(q, RDT::zeroed());
        // 2 KiB packet buffers, 256-byte header buffers, one buffer per descriptor; the
        // timestamp header in front of each frame while RX timestamping is on.
        let srrctl = SRRCTL::zeroed()
            .with_const_bsizepkt::<2>()
            .with_const_bsizehdr::<4>()
            .with_const_desctype::<SRRCTL_DESCTYPE_ADV_ONEBUF>();
        hw.write_at(
            q,
            if tstamp {
                srrctl.with_const_timer1sel::<1>().with_timestamp(true)
            } else {
                srrctl
            },
        );
        // PTHRESH 8, HTHRESH 8, WTHRESH 4, as igc.
        hw.write_at(
            q,
            RXDCTL::zeroed()
                .with_const_pthresh::<8>()
                .with_const_hthresh::<8>()
                .with_const_wthresh::<4>()
                .with_enable(true),
        );
        self.write_tail(hw);
    }

    /// Writes the tail one behind `next_to_clean`: every descriptor the hardware's but one.
    fn write_tail(&self, hw: &Hw) {
        let tail = self.next_to_clean.wrapping_sub(1).min(self.count - 1);
        hw.write_at(
            usize::from(self.queue),
            RDT::zeroed().with_tail(tail as u16),
        );
    }

    /// Disables the ring in the hardware.
    pub(crate) fn disable(&self, hw: &Hw) {
        hw.write_at(usize::from(self.queue), RXDCTL::zeroed());
    }

    /// Gives every descriptor back to the hardware and forgets a partial frame (after the ring
    /// was disabled).
    pub(crate) fn reset(&mut self) {
        self.next_to_clean = 0;
        self.partial = None;
        for i in 0..self.count {
            self.give(i);
        }
    }

    /// Receives up to `budget` frames (`igc_clean_rx_irq`) and hands each to GRO as it comes off
    /// the ring: the ring is the poll's own, no lock is held. Returns the number of frames taken
    /// off the ring, dropped ones included.
    /// `rx_tstamp` is the RX latency to subtract from hardware timestamps while RX timestamping
    /// is on, `None` otherwise.
    pub(crate) fn clean(
        &mut self,
        hw: &Hw,
        netdev: &Device,
        poll: &NapiPoll<'_>,
        counters: &RxCounters,
        rx_tstamp: Option<u64>,
        budget: u32,
    ) -> u32 {
        let max_frame = netdev.mtu() + 14 + 4 + 4;
        let feats = netdev.features();
        let (mut done, mut pkts, mut bytes, mut cleaned) = (0u32, 0u64, 0u64, 0u32);
        while done < budget {
            let i = self.next_to_clean;
            if self.desc.rx_length(i) == 0 {
                break;
            }
            // The length is written last: read the rest only after seeing it.
            dma_mb(Read);
            let wb: RxWb = self.desc.read(i);
            let (len, status) = (u32::from(wb.length), wb.status_error);
            if status & rxd::STAT_DD == 0 {
                break;
            }

            let first = self.partial.is_none();
            let mut skb = match self.partial.take() {
                Some(s) => s,
                None => {
                    let s = poll.alloc_skb(RX_HDR_LEN);
                    if s.is_none() {
                        counters.alloc_failed.fetch_add(1, Relaxed);
                    }
                    s
                }
            };
            let page = &mut self.pages[i as usize];
            let len = len.min(BUF_LEN);
            // The timestamp header in front of a frame's first buffer.
            let hdr = if first && status & rxd::STAT_TSIP != 0 && len >= rxd::TS_HDR_LEN {
                rxd::TS_HDR_LEN
            } else {
                0
            };
            if let Some(s) = skb.as_mut() {
                // Cannot wrap: `hdr <= len`, and both lengths are bounded (a buffer, a frame).
                if s.len().wrapping_add(len.wrapping_sub(hdr)) > max_frame {
                    // Longer than the largest frame we accept: discard it.
                    skb = None;
                    counters.errors.fetch_add(1, Relaxed);
                } else if let Err(e) = page.frame(len).and_then(|f| {
                    // Synced for the CPU once (`igc_get_rx_buffer`): the header is read in
                    // place, the rest added to the skb.
                    if let Some(latency) = rx_tstamp.filter(|_| hdr > 0) {
                        if let Ok(h) = f.read(0) {
                            s.set_hwtstamp(ptp::rx_header_ns(&h).saturating_sub(latency));
                        }
                    }
                    s.add_frame(poll, f, hdr)
                }) {
                    // No page to replace one the stack still holds a half of (the frame is
                    // dropped and the page stays), or no fragment slot left.
                    skb = None;
                    let c = if e == ENOMEM {
                        &counters.alloc_failed
                    } else {
                        &counters.errors
                    };
                    c.fetch_add(1, Relaxed);
                }
            }
            self.give(i);
            cleaned = cleaned.wrapping_add(1);
            let next = i.wrapping_add(1);
            self.next_to_clean = if next == self.count { 0 } else { next };

            if status & rxd::STAT_EOP == 0 {
                self.partial = Some(skb);
                continue;
            }
            done += 1;
            let Some(mut skb) = skb else {
                continue;
            };
            if status & rxd::STATERR_RXE != 0 {
                counters.errors.fetch_add(1, Relaxed);
                continue;
            }
            if feats & features::RXCSUM != 0 && status & rxd::STAT_IXSM == 0 {
                if status & (rxd::STATERR_L4E | rxd::STATERR_IPE) != 0 {
                    counters.csum_err.fetch_add(1, Relaxed);
                } else if status & (rxd::STAT_TCPCS | rxd::STAT_UDPCS) != 0 {
                    skb.set_checksum_unnecessary();
                }
            }
            if feats & features::RXHASH != 0 {
                skb.set_hash(wb.rss_hash, rss_hash_is_l4(wb.rss_type()));
            }
            let len = skb.len();
            skb.record_rx_queue(self.queue);
            // A runt shorter than an Ethernet header is dropped (igc: `eth_skb_pad`).
            if skb.eth_type_trans(netdev).is_err() {
                counters.errors.fetch_add(1, Relaxed);
                continue;
            }
            pkts = pkts.wrapping_add(1);
            bytes = bytes.wrapping_add(u64::from(len));
            poll.gro_receive(skb);
        }
        if cleaned > 0 {
            self.write_tail(hw);
        }
        counters.packets.fetch_add(pkts, Relaxed);
        counters.bytes.fetch_add(bytes, Relaxed);
        done
    }
}

/// Whether the RSS type of a received descriptor hashed the ports as well (`igc_rss_type_table`:
/// `PKT_HASH_TYPE_L4` for TCP over IPv4, IPv6 and IPv6 with extension headers, and UDP over the
/// three; `L3` for the IP-only types, `L2` for "no hash" and `NONE` for the reserved ones, which
/// `skb_set_hash` treats alike: the hash set, not as an L4 hash).
fn rss_hash_is_l4(rss_type: u32) -> bool {
    matches!(rss_type, 1 | 3 | 6 | 7 | 8 | 9)
}

#[cfg(CONFIG_RIGC_KUNIT_TEST)]
#[kernel::prelude::kunit_tests(rigc_rx)]
mod tests {
    use super::*;

    #[test]
    fn rss_types_hash_as_igc_table() {
        // `igc_rss_type_table`, by RSS type: 0 no hash (L2), 1 TCP/IPv4 (L4), 2 IPv4 (L3),
        // 3 TCP/IPv6 (L4), 4 IPv6 with extension headers (L3), 5 IPv6 (L3), 6 TCP/IPv6 with
        // extension headers (L4), 7-9 UDP over IPv4, IPv6, IPv6 with extension headers (L4),
        // 10-15 reserved (NONE).
        let want = [
            false, true, false, true, false, false, true, true, true, true, false, false, false,
            false, false, false,
        ];
        let mut got = [false; 16];
        for (t, g) in got.iter_mut().enumerate() {
            *g = rss_hash_is_l4(t as u32);
        }
        assert_eq!(got, want);
    }
}
