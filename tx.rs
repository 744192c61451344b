// SPDX-License-Identifier: GPL-2.0

//! Transmit rings (`igc_main.c`: `igc_xmit_frame_ring`, `igc_tso`, `igc_tx_csum`,
//! `igc_clean_tx_irq`): advanced descriptors, checksum and segmentation offload, completion in
//! NAPI.
//!
//! A packet takes an optional context descriptor (checksum offload or TSO) and one data
//! descriptor per DMA segment of its skb. The skb, mapped, is kept at the index of the packet's
//! first descriptor until the hardware reports the last one done (DD); then it is unmapped and
//! freed from NAPI with `napi_consume_skb`. The tail register is written once per batch
//! (`xmit_more`), and TDH is never read: completion is seen in the descriptors in memory.

use kernel::{
    device,
    net::{
        dev::Device,
        skb::{CompletedTxSkb, MappedTxSkb, Tso, TxBuffers, TxChecksum, TxSkb},
    },
    prelude::*,
    sync::atomic::{Atomic, Relaxed},
};

use crate::{
    batch::Batch,
    desc::{txd, Descs, TxContext, TxData, TxWb},
    hw::Hw,
    ptp::ClaimId,
    regs::{TDBAH, TDBAL, TDH, TDLEN, TDT, TXDCTL},
};

/// Descriptors one packet may need: a context descriptor, the linear part, 17 fragments, and
/// slack so the tail never catches the head (`DESC_NEEDED` in igc).
pub(crate) const DESC_NEEDED: u32 = 1 + kernel::net::skb::MAX_TX_SEGMENTS as u32 + 2;
/// Free descriptors needed before a stopped queue is woken (`TX_WAKE_THRESHOLD`).
const WAKE_THRESHOLD: u32 = 2 * DESC_NEEDED;
/// Packets cleaned per poll at most (`IGC_DEFAULT_TX_WORK`).
pub(crate) const CLEAN_LIMIT: usize = 128;
/// Packets unmapped under the TX queue's lock at a time, then freed outside it.
pub(crate) const TX_BATCH: usize = 32;
/// Largest segment one data descriptor carries.
const MAX_DATA_PER_TXD: u32 = 1 << 15;
/// The shortest packet the MAC sends with TCTL.PSP set (igc: `skb_put_padto(skb, 17)`); it pads
/// that up to 60 bytes.
pub(crate) const MIN_FRAME: u32 = 17;

/// Software counters of one TX queue, read without locks by the statistics paths.
pub(crate) struct TxCounters {
    pub(crate) packets: Atomic<u64>,
    pub(crate) bytes: Atomic<u64>,
    pub(crate) restart: Atomic<u64>,
    pub(crate) busy: Atomic<u64>,
    pub(crate) dropped: Atomic<u64>,
}

impl TxCounters {
    pub(crate) const fn new() -> Self {
        Self {
            packets: Atomic::new(0),
            bytes: Atomic::new(0),
            restart: Atomic::new(0),
            busy: Atomic::new(0),
            dropped: Atomic::new(0),
        }
    }
}

/// The packets a poll's TX clean completed, reported once the TX queue's lock is let go, as
/// igc's lockless clean reports them at its end.
#[derive(Default)]
pub(crate) struct Completed {
    pkts: u32,
    bytes: u32,
    /// How many times the clean woke the stopped queue.
    restarts: u32,
}

impl Completed {
    /// Reports them to BQL (`netdev_tx_completed_queue`) and counts them.
    pub(crate) fn report(&self, netdev: &Device, queue: u16, counters: &TxCounters) {
        if self.pkts > 0 {
            counters.packets.fetch_add(u64::from(self.pkts), Relaxed);
            counters.bytes.fetch_add(u64::from(self.bytes), Relaxed);
            if self.restarts > 0 {
                counters.restart.fetch_add(self.restarts.into(), Relaxed);
            }
            netdev.tx_completed_queue(queue, self.pkts, self.bytes);
        }
    }
}

/// The TX timestamp slot, as the xmit path sees it.
pub(crate) trait TxTstamp {
    /// Claims the slot for `skb` if it asks for a hardware timestamp and timestamping is on;
    /// returns the descriptor bits that request it with the claim. The skb is mapped: its
    /// header edits are over, so the reference the claim takes cannot meet `pskb_expand_head`.
    fn claim(&self, skb: &mut MappedTxSkb<'_>) -> Option<(u32, ClaimId)>;
    /// Gives back `claim`, if the slot still holds it: its packet is dropped before the
    /// hardware saw it.
    fn unclaim(&self, claim: ClaimId);
}

/// The MACLEN/IPLEN word of a context descriptor, if the lengths fit its fields (7 and 9 bits;
/// `IGC_MAX_MAC_HDR_LEN`, `IGC_MAX_NETWORK_HDR_LEN`).
fn macip(maclen: u32, iplen: u32) -> Option<u32> {
    (maclen <= MAX_MAC_HDR_LEN && iplen <= MAX_NETWORK_HDR_LEN)
        .then_some(iplen | maclen << txd::MACLEN_SHIFT)
}

/// What a TSO packet puts in its descriptors.
struct TsoFields {
    macip: u32,
    tucmd: u32,
    mss_l4len: u32,
    ipv4: bool,
    paylen: u32,
    segs: u32,
    bytes: u32,
}

/// The descriptor fields of a TSO packet of `len` bytes whose network header starts at
/// `network_offset`, or `None` if its headers do not fit the context descriptor (or are
/// inconsistent: checked arithmetic, no wrap, no overflow panic).
fn tso_fields(tso: &Tso, network_offset: u32, len: u32) -> Option<TsoFields> {
    let iplen = tso.l4_offset.checked_sub(network_offset)?;
    let l4len = tso.hdr_len.checked_sub(tso.l4_offset)?;
    let paylen = len.checked_sub(tso.hdr_len)?;
    if l4len > 0xFF || tso.mss == 0 || tso.mss > 0xFFFF {
        return None;
    }
    let segs = paylen.div_ceil(tso.mss).max(1);
    let bytes = (segs - 1).checked_mul(tso.hdr_len)?.checked_add(len)?;
    Some(TsoFields {
        macip: macip(network_offset, iplen)?,
        tucmd: txd::TUCMD_L4T_TCP | if tso.ipv4 { txd::TUCMD_IPV4 } else { 0 },
        mss_l4len: l4len << txd::L4LEN_SHIFT | tso.mss << txd::MSS_SHIFT,
        ipv4: tso.ipv4,
        paylen,
        segs,
        bytes,
    })
}

/// The largest MAC header (MACLEN, 7 bits) and network header (IPLEN, 9 bits) a context
/// descriptor describes (`IGC_MAX_MAC_HDR_LEN`, `IGC_MAX_NETWORK_HDR_LEN`).
pub(crate) const MAX_MAC_HDR_LEN: u32 = 127;
pub(crate) const MAX_NETWORK_HDR_LEN: u32 = 511;

/// What the ring keeps beside a packet's skb, in the slot of its first descriptor.
#[derive(Clone, Copy, Default)]
struct TxInfo {
    /// Index of its last (EOP) descriptor.
    eop: u32,
    /// Frames on the wire (segments for TSO) and their bytes, for the counters and BQL.
    segs: u32,
    bytes: u32,
}

/// One TX descriptor ring.
pub(crate) struct TxRing {
    queue: u16,
    desc: Descs,
    count: u32,
    next_to_use: u32,
    next_to_clean: u32,
    bufs: TxBuffers<TxInfo>,
}

impl TxRing {
    /// Allocates a ring of `count` descriptors for queue `queue`.
    pub(crate) fn new(dev: &device::Device<device::Bound>, queue: u16, count: u32) -> Result<Self> {
        let desc = Descs::new(dev, count)?;
        let bufs = TxBuffers::new(dev, count as usize)?;
        Ok(Self {
            queue,
            desc,
            count,
            next_to_use: 0,
            next_to_clean: 0,
            bufs,
        })
    }

    /// Programs the ring into the hardware and enables it (`igc_configure_tx_ring`).
    pub(crate) fn configure(&self, hw: &Hw) {
        let q = usize::from(self.queue);
        hw.write_at(q, TXDCTL::zeroed());
        hw.flush();
        let base = self.desc.dma_address();
        hw.write_at(
            q,
            TDLEN::zeroed()
                .try_with_len(self.count * 16)
                .unwrap_or_else(|_| TDLEN::zeroed()),
        );
        hw.write_at(q, TDBAL::zeroed().with_addr(base as u32));
        hw.write_at(q, TDBAH::zeroed().with_addr((base >> 32) as u32));
        hw.write_at(q, TDH::zeroed());
        hw.write_at(q, TDT::zeroed());
        // PTHRESH 8, HTHRESH 1, WTHRESH 16, as igc.
        hw.write_at(
            q,
            TXDCTL::zeroed()
                .with_const_pthresh::<8>()
                .with_const_hthresh::<1>()
                .with_const_wthresh::<16>()
                .with_enable(true),
        );
    }

    /// Disables the ring in the hardware.
    pub(crate) fn disable(&self, hw: &Hw) {
        hw.write_at(usize::from(self.queue), TXDCTL::zeroed());
    }

    fn unused(&self) -> u32 {
        (self.next_to_clean + self.count - self.next_to_use - 1) % self.count
    }

    /// Returns whether packets are on the ring that the hardware has not completed yet.
    pub(crate) fn pending(&self) -> bool {
        self.unused() + 1 < self.count
    }

    fn desc_done(&self, i: u32) -> bool {
        self.desc.read::<TxWb>(i).status & txd::STAT_DD != 0
    }

    /// Queues `skb`. Returns the skb back if the ring is full (the queue is stopped then).
    pub(crate) fn xmit(
        &mut self,
        hw: &Hw,
        netdev: &Device,
        dmadev: &device::Device<device::Bound>,
        counters: &TxCounters,
        tstamp: &impl TxTstamp,
        mut skb: TxSkb,
    ) -> core::result::Result<(), TxSkb> {
        let q = self.queue;
        // A context descriptor, one data descriptor per 32 KiB of each segment, and the gap.
        let per = |len: u32| len.div_ceil(MAX_DATA_PER_TXD).max(1);
        let need = 1
            + per(skb.headlen())
            + (0..skb.nr_frags())
                .map(|f| per(skb.frag_len(f)))
                .sum::<u32>()
            + 2;
        if self.unused() < need {
            netdev.stop_subqueue(q);
            counters.busy.fetch_add(1, Relaxed);
            return Err(skb);
        }

        let drop_packet = |counters: &TxCounters| {
            counters.dropped.fetch_add(1, Relaxed);
        };

        // Offloads: the context descriptor and the per-packet flags.
        let mut ctx = None;
        let mut cmd = txd::DTYP_DATA | txd::DCMD_DEXT | txd::DCMD_IFCS;
        let mut olinfo_flags = 0;
        let len = skb.len();
        let mut paylen = len;
        let (mut segs, mut bytes) = (1, len);
        if skb.gso_size().is_some() {
            // No arithmetic here may panic or wrap into a bad context descriptor: a header
            // layout the descriptor cannot express (`features_check` keeps those away) drops the
            // packet, counted.
            let Some(t) = skb
                .tso_prepare()
                .ok()
                .and_then(|tso| tso_fields(&tso, skb.network_offset(), len))
            else {
                drop_packet(counters);
                return Ok(());
            };
            olinfo_flags |= txd::POPTS_TXSM | if t.ipv4 { txd::POPTS_IXSM } else { 0 };
            cmd |= txd::DCMD_TSE;
            ctx = Some((t.macip, t.tucmd, t.mss_l4len));
            paylen = t.paylen;
            (segs, bytes) = (t.segs, t.bytes);
        } else {
            let macip = skb
                .checksum_start_offset()
                .checked_sub(skb.network_offset())
                .and_then(|iplen| macip(skb.network_offset(), iplen));
            let tucmd = match (skb.checksum(), macip) {
                (TxChecksum::None, _) => None,
                (TxChecksum::Tcp, Some(m)) => Some((m, txd::TUCMD_L4T_TCP)),
                (TxChecksum::Udp, Some(m)) => Some((m, 0)),
                // Another protocol, or headers the context descriptor cannot describe: the
                // checksum in software.
                _ => {
                    if skb.checksum_help().is_err() {
                        drop_packet(counters);
                        return Ok(());
                    }
                    None
                }
            };
            if let Some((macip, tucmd)) = tucmd {
                ctx = Some((macip, tucmd, 0));
                olinfo_flags |= txd::POPTS_TXSM;
            }
        }

        // Mapped into the slot of the packet's first descriptor, in place; the EOP index is
        // filled in below.
        let first = self.next_to_use;
        let info = TxInfo {
            eop: first,
            segs,
            bytes,
        };
        let mut mapped = match self.bufs.map(dmadev, first as usize, skb, info) {
            Ok(m) => m,
            Err((_, skb)) => {
                drop_packet(counters);
                drop(skb);
                return Ok(());
            }
        };
        // A hardware timestamp request claims the slot only now, after every header edit (TSO,
        // checksum help) and the mapping: igc took it before them, and the reference it takes
        // made `pskb_expand_head` hit `BUG_ON(skb_shared)` for a header-cloned TSO skb.
        let claim = tstamp.claim(&mut mapped);
        if let Some((bits, _)) = &claim {
            cmd |= *bits;
        }
        mapped.tx_timestamp();
        let mut i = first;
        if let Some((macip, tucmd, mss_l4len)) = ctx {
            let c = TxContext {
                vlan_macip_lens: macip,
                launch_time: 0,
                type_tucmd_mlhl: tucmd | txd::DCMD_DEXT | txd::DTYP_CTXT,
                mss_l4len_idx: mss_l4len,
            };
            self.desc.write(i, &c);
            i = (i + 1) % self.count;
        }
        let olinfo = paylen << txd::PAYLEN_SHIFT | olinfo_flags;
        let Some(last) = mapped.segments().iter().rposition(|s| s.len > 0) else {
            if let Some((_, id)) = claim {
                tstamp.unclaim(id);
            }
            // Never handed to the hardware: unmapped and freed.
            drop(self.bufs.complete(first as usize));
            drop_packet(counters);
            return Ok(());
        };
        let mut eop = i;
        for (n, seg) in mapped.segments().iter().enumerate() {
            // Segments above 32 KiB take several descriptors (`IGC_MAX_DATA_PER_TXD`).
            let (mut addr, mut left) = (seg.addr, seg.len);
            while left > 0 {
                let chunk = left.min(MAX_DATA_PER_TXD);
                left -= chunk;
                let mut c = cmd | chunk;
                if n == last && left == 0 {
                    c |= txd::DCMD_EOP | txd::DCMD_RS;
                }
                let d = TxData {
                    buffer_addr: addr,
                    cmd_type_len: c,
                    olinfo_status: olinfo,
                };
                self.desc.write(i, &d);
                addr += u64::from(chunk);
                eop = i;
                i = (i + 1) % self.count;
            }
        }
        if let Some(info) = self.bufs.get_mut(first as usize) {
            info.eop = eop;
        }
        self.next_to_use = i;

        if self.unused() < DESC_NEEDED {
            netdev.stop_subqueue(q);
        }
        // The MMIO write orders the descriptor writes before it (writel).
        if netdev.tx_sent_queue(q, bytes) {
            hw.write_at(
                usize::from(q),
                TDT::zeroed().with_tail(self.next_to_use as u16),
            );
        }
        Ok(())
    }

    /// Unmaps completed packets (`igc_clean_tx_irq`) into `done`, for the caller to free, and
    /// adds them to `sum`, for the caller to report, once it has dropped the TX queue's lock.
    /// Returns whether the ring has no completed packet left (`false`: `done` is full). A
    /// stopped queue is woken only if `may_wake` (the datapath is not being stopped,
    /// `__IGC_DOWN` in igc) and the carrier is on.
    pub(crate) fn clean(
        &mut self,
        netdev: &Device,
        may_wake: bool,
        done: &mut Batch<CompletedTxSkb, TX_BATCH>,
        sum: &mut Completed,
    ) -> bool {
        let (mut pkts, mut bytes) = (0u32, 0u32);
        let mut finished = true;
        loop {
            if done.is_full() {
                finished = false;
                break;
            }
            let i = self.next_to_clean as usize;
            let Some(eop) = self.bufs.get(i).map(|b| b.eop) else {
                break;
            };
            if !self.desc_done(eop) {
                break;
            }
            if let Some((skb, info)) = self.bufs.complete(i) {
                pkts += info.segs;
                bytes += info.bytes;
                // Cannot fail: the batch is not full.
                let _ = done.push(skb);
            }
            self.next_to_clean = (eop + 1) % self.count;
        }
        if pkts > 0 {
            sum.pkts += pkts;
            sum.bytes += bytes;
            if may_wake
                && netdev.carrier_ok()
                && netdev.subqueue_stopped(self.queue)
                && self.unused() >= WAKE_THRESHOLD
            {
                netdev.wake_subqueue(self.queue);
                sum.restarts += 1;
            }
        }
        finished
    }

    /// Frees every packet still on the ring (after the ring was disabled) and resets it.
    pub(crate) fn clear(&mut self, netdev: &Device) {
        // Unmaps and frees with `dev_kfree_skb_any`.
        self.bufs.clear();
        for i in 0..self.count {
            self.desc.write(i, &TxData::default());
        }
        self.next_to_use = 0;
        self.next_to_clean = 0;
        netdev.tx_reset_queue(self.queue);
    }
}
