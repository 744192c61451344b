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
//!
//! A ring has two halves, as igc's transmit and clean share a ring without a lock: the
//! [`TxRing`], under the TX queue's lock with `start_xmit`, fills descriptors from
//! `next_to_use` on; the [`TxCompletion`], in the NAPI context that serves the queue, empties
//! them from `next_to_clean` on. They hand packets to each other through
//! [`kernel::net::skb::TxBuffers`], and stop and wake the queue as igc does
//! (`igc_maybe_stop_tx`, the end of `igc_clean_tx_irq`): each looks at the other's index again
//! after a full barrier, so that neither a stop nor a wake is missed.

use kernel::{
    device,
    net::{
        dev::{Device, NapiPoll},
        skb::{MappedTxSkb, Tso, TxBuffers, TxChecksum, TxConsumer, TxProducer, TxSkb},
    },
    prelude::*,
    sync::{
        atomic::{Atomic, Relaxed},
        barrier::{smp_mb, Full},
        Arc,
    },
};

use crate::{
    desc::{txd, Descs, TxContext, TxData},
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
pub(crate) const CLEAN_LIMIT: u32 = 128;
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

/// The index after `i` on a ring of `count` descriptors.
fn ring_next(i: u32, count: u32) -> u32 {
    // `i` is below `count`: the increment never wraps (and, were it to, 0 is still the answer).
    let n = i.wrapping_add(1);
    if n < count {
        n
    } else {
        0
    }
}

/// What the ring keeps beside a packet's skb, in the slot of its first descriptor.
#[derive(Clone, Copy, Default)]
struct TxInfo {
    /// Index of its last (EOP) descriptor.
    eop: u32,
    /// Frames on the wire (segments for TSO) and their bytes, for the counters and BQL.
    segs: u32,
    bytes: u32,
}

/// One TX descriptor ring, the transmit path's half: under the TX queue's lock, it writes
/// descriptors and fills slots from `next_to_use` on.
pub(crate) struct TxRing {
    queue: u16,
    desc: Arc<Descs>,
    count: u32,
    bufs: TxProducer<TxInfo>,
}

/// The completion half of a TX descriptor ring (`igc_clean_tx_irq`), owned by the poll of the
/// NAPI context that serves the queue: it reads the descriptors the hardware wrote back and
/// empties the slots from `next_to_clean` on, without the TX queue's lock.
pub(crate) struct TxCompletion {
    queue: u16,
    desc: Arc<Descs>,
    count: u32,
    bufs: TxConsumer<TxInfo>,
}

impl TxRing {
    /// Allocates a ring of `count` descriptors for queue `queue`, as its two halves.
    pub(crate) fn new(
        dev: &device::Device<device::Bound>,
        queue: u16,
        count: u32,
    ) -> Result<(Self, TxCompletion)> {
        let desc = Arc::new(Descs::new(dev, count)?, GFP_KERNEL)?;
        let (prod, cons) = TxBuffers::alloc(dev, count as usize)?;
        let completion = TxCompletion {
            queue,
            desc: desc.clone(),
            count,
            bufs: cons,
        };
        let ring = Self {
            queue,
            desc,
            count,
            bufs: prod,
        };
        Ok((ring, completion))
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

    /// Returns whether packets are on the ring that the hardware has not completed yet.
    pub(crate) fn pending(&self) -> bool {
        self.bufs.in_flight() > 0
    }

    /// Stops the queue if fewer than `need` descriptors are free, then looks again: a clean on
    /// another CPU may have made room meanwhile and not seen the queue stopped; if so, it is
    /// woken again (`igc_maybe_stop_tx`). Returns whether the queue stays stopped.
    #[inline]
    fn maybe_stop(&mut self, netdev: &Device, counters: &TxCounters, need: u32) -> bool {
        // The room seen last first: the clean's index is loaded only when that is short.
        self.bufs.room() < need && self.stop_unless_room(netdev, counters, need)
    }

    /// [`TxRing::maybe_stop`] once the room seen last is short: out of line, as it is rare, so
    /// that the check before it is inlined in `xmit`.
    #[cold]
    fn stop_unless_room(&mut self, netdev: &Device, counters: &TxCounters, need: u32) -> bool {
        if self.bufs.unused() >= need {
            return false;
        }
        netdev.stop_subqueue(self.queue);
        // Orders the stop before the second look, against the clean's wake (its index store,
        // `smp_mb`, then the look at the stopped flag).
        smp_mb(Full);
        if self.bufs.unused() < need {
            return true;
        }
        netdev.wake_subqueue(self.queue);
        counters.restart.fetch_add(1, Relaxed);
        false
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
        let drop_packet = |counters: &TxCounters| {
            counters.dropped.fetch_add(1, Relaxed);
        };
        // One data descriptor per 32 KiB of each segment (`TXD_USE_COUNT`); an empty segment
        // takes none.
        let data_descs = |skb: &TxSkb| {
            let per = |len: u32| len.div_ceil(MAX_DATA_PER_TXD);
            (0..skb.nr_frags()).fold(per(skb.headlen()), |n, f| {
                n.saturating_add(per(skb.frag_len(f)))
            })
        };
        let mut ndata = data_descs(&skb);
        if ndata == 0 {
            // Nothing to send (the stack sends no empty frame; `start_xmit` pads short ones).
            drop_packet(counters);
            return Ok(());
        }
        // With a context descriptor and the gap: igc's `count + 5`, less the two it keeps for a
        // launch time's empty packet.
        if self.maybe_stop(netdev, counters, ndata.saturating_add(3)) {
            counters.busy.fetch_add(1, Relaxed);
            return Err(skb);
        }

        // Offloads: the context descriptor and the per-packet flags.
        let mut ctx = None;
        let mut cmd = txd::DTYP_DATA | txd::DCMD_DEXT | txd::DCMD_IFCS;
        let mut olinfo_flags = 0;
        let len = skb.len();
        let mut paylen = len;
        let (mut segs, mut bytes) = (1, len);
        // Whether a header edit below may have laid the skb out anew: `skb_cow_head` copies
        // zerocopy fragments, `skb_checksum_help` linearizes an skb with shared ones.
        let mut reshaped = false;
        if skb.gso_size().is_some() {
            reshaped = true;
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
            // The header lengths only for a checksum to offload (`igc_tx_csum`).
            let tucmd = match skb.checksum() {
                TxChecksum::None => None,
                csum => {
                    let mac = skb.network_offset();
                    let macip = skb
                        .checksum_start_offset()
                        .checked_sub(mac)
                        .and_then(|iplen| macip(mac, iplen));
                    match (csum, macip) {
                        (TxChecksum::Tcp, Some(m)) => Some((m, txd::TUCMD_L4T_TCP)),
                        (TxChecksum::Udp, Some(m)) => Some((m, 0)),
                        // Another protocol, or headers the context descriptor cannot describe:
                        // the checksum in software.
                        _ => {
                            reshaped = true;
                            if skb.checksum_help().is_err() {
                                drop_packet(counters);
                                return Ok(());
                            }
                            None
                        }
                    }
                }
            };
            if let Some((macip, tucmd)) = tucmd {
                ctx = Some((macip, tucmd, 0));
                olinfo_flags |= txd::POPTS_TXSM;
            }
        }

        if reshaped {
            // Counted again, for the descriptors written below: more than before (fragments
            // copied into more pages) only if the ring still has room for them, else dropped.
            ndata = data_descs(&skb);
            let need = ndata.saturating_add(3);
            if ndata == 0 || (self.bufs.room() < need && self.bufs.unused() < need) {
                drop_packet(counters);
                return Ok(());
            }
        }

        // Mapped into the slot of the packet's first descriptor, in place, with the index of its
        // last: at most `ndata + 1` descriptors on, fewer than the ring's (`ndata + 3` are
        // free), so one subtraction wraps it.
        let first = self.bufs.next() as u32;
        let eop = first
            .wrapping_add(u32::from(ctx.is_some()))
            .wrapping_add(ndata - 1);
        let eop = if eop >= self.count {
            eop - self.count
        } else {
            eop
        };
        let info = TxInfo { eop, segs, bytes };
        let mut mapped = match self.bufs.map(dmadev, skb, info) {
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
            i = ring_next(i, self.count);
        }
        let olinfo = paylen << txd::PAYLEN_SHIFT | olinfo_flags;
        // Each data descriptor is written once the next one is known, so that the last goes
        // with EOP and RS (`igc_tx_map` sets them on the last one after its loop). Segments
        // above 32 KiB take several descriptors (`IGC_MAX_DATA_PER_TXD`).
        let mut pending: Option<(u32, TxData)> = None;
        for seg in mapped.segments() {
            let (mut addr, mut left) = (seg.addr, seg.len);
            while left > 0 {
                let chunk = left.min(MAX_DATA_PER_TXD);
                left -= chunk;
                let d = TxData {
                    buffer_addr: addr,
                    cmd_type_len: cmd | chunk,
                    olinfo_status: olinfo,
                };
                if let Some((at, prev)) = pending.replace((i, d)) {
                    self.desc.write(at, &prev);
                }
                addr = addr.wrapping_add(u64::from(chunk));
                i = ring_next(i, self.count);
            }
        }
        // The last one is where `eop` says: the segments are the mapped skb's, as counted after
        // its last header edit.
        let last = match pending {
            Some((at, mut last)) if at == eop => {
                last.cmd_type_len |= txd::DCMD_EOP | txd::DCMD_RS;
                last
            }
            _ => {
                if let Some((_, id)) = claim {
                    tstamp.unclaim(id);
                }
                // Never handed to the hardware: unmapped and freed.
                drop(self.bufs.unmap());
                drop_packet(counters);
                return Ok(());
            }
        };
        self.desc.write(eop, &last);
        // Hands the packet to the clean, its descriptors written: cannot fail, `ndata + 3` of
        // them were free above and the clean only frees more.
        if self.bufs.publish(i as usize).is_err() {
            drop(self.bufs.unmap());
            drop_packet(counters);
            return Ok(());
        }
        self.maybe_stop(netdev, counters, DESC_NEEDED);
        // The MMIO write orders the descriptor writes before it (writel).
        if netdev.tx_sent_queue(q, bytes) {
            hw.write_at_bound(dmadev, usize::from(q), TDT::zeroed().with_tail(i as u16));
        }
        Ok(())
    }

    /// Frees every packet still on the ring, with its completion half `c` (after the ring was
    /// disabled and the queue's NAPI context too), and resets both.
    pub(crate) fn clear(&mut self, c: &mut TxCompletion, netdev: &Device) {
        // Unmaps and frees with `dev_kfree_skb_any`; `EINVAL` if `c` is another ring's, which
        // changes nothing.
        if c.bufs.clear(&mut self.bufs).is_err() {
            return;
        }
        for i in 0..self.count {
            self.desc.write(i, &TxData::default());
        }
        netdev.tx_reset_queue(self.queue);
    }
}

impl TxCompletion {
    /// Frees completed packets (`igc_clean_tx_irq`), at most [`CLEAN_LIMIT`], with `poll`,
    /// counts them and reports them to BQL. Returns whether the ring has no completed packet
    /// left. A stopped queue is woken only if `running` still holds after the clean's index is
    /// stored (the datapath is not being stopped, `__IGC_DOWN` in igc) and the carrier is on.
    pub(crate) fn clean(
        &mut self,
        netdev: &Device,
        running: &Atomic<bool>,
        poll: &NapiPoll<'_>,
        counters: &TxCounters,
    ) -> bool {
        let (mut n, mut pkts, mut bytes) = (0u32, 0u32, 0u32);
        let mut finished = true;
        // The completed packets' slots go back to the transmit path at once, when the batch
        // ends (`igc_clean_tx_irq` stores `next_to_clean` once, after its loop).
        let mut batch = self.bufs.batch();
        while let Some(&info) = batch.peek() {
            if n >= CLEAN_LIMIT {
                finished = false;
                break;
            }
            if self.desc.tx_status(info.eop) & txd::STAT_DD == 0 {
                break;
            }
            // The packet's slots, up to its last descriptor, go back when the batch ends.
            let next = ring_next(info.eop, self.count);
            let Some((skb, _)) = batch.complete(next as usize) else {
                break;
            };
            n += 1;
            // At most `CLEAN_LIMIT` packets of a TSO's worth each: the sums cannot wrap.
            (pkts, bytes) = (pkts.wrapping_add(info.segs), bytes.wrapping_add(info.bytes));
            poll.consume(skb);
        }
        drop(batch);
        if pkts > 0 {
            counters.packets.fetch_add(u64::from(pkts), Relaxed);
            counters.bytes.fetch_add(u64::from(bytes), Relaxed);
            netdev.tx_completed_queue(self.queue, pkts, bytes);
            if netdev.carrier_ok() && self.bufs.unused() >= WAKE_THRESHOLD {
                // Orders the index store before the look at the stopped flag, against
                // `start_xmit`'s stop (`igc_maybe_stop_tx`).
                smp_mb(Full);
                if netdev.subqueue_stopped(self.queue) && running.load(Relaxed) {
                    netdev.wake_subqueue(self.queue);
                    counters.restart.fetch_add(1, Relaxed);
                }
            }
        }
        finished
    }
}
