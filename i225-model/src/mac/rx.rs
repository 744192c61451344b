// SPDX-License-Identifier: GPL-2.0

//! Receive: address filtering, long-frame check, VLAN stripping, RSS queue
//! selection, the optional 16-byte timestamp header, advanced one-buffer
//! descriptors and their write-back, and the RX packet buffer.
//!
//! A frame that finds no free descriptor waits in the packet buffer
//! (`RXPBS` KB, 34 KB as igc programs it) and is delivered on the next RDT
//! write; when the buffer is full the frame is dropped and counted in MPC
//! and the queue's RQDPC.

use std::sync::atomic::{fence, Ordering};

use super::{Mac, PendingRx};
use crate::dma::{DmaFault, GuestMemory};
use crate::interrupts::QueueDir;
use crate::packet::{self, FCS_LEN, L3};
use crate::regs::{self, ctrl, mrqc, qctl, rah, rctl, rxcsum, rxpbs, rxq, srrctl, tsyncrxctl, NUM_QUEUES};
use crate::stats;
use crate::wire::Frame;

pub const DESC_SIZE: u64 = 16;
/// Length of the timestamp header in front of a frame.
pub const TS_HDR_LEN: usize = 16;

/// Write-back status and error bits.
pub mod rxd {
    pub const DD: u32 = 1 << 0;
    pub const EOP: u32 = 1 << 1;
    pub const VP: u32 = 1 << 3;
    pub const UDPCS: u32 = 1 << 4;
    pub const TCPCS: u32 = 1 << 5;
    pub const IPCS: u32 = 1 << 6;
    pub const TSIP: u32 = 1 << 15;
    pub const L4E: u32 = 1 << 29;
    pub const IPE: u32 = 1 << 30;
}

/// RSS types reported in the write-back.
mod rss_type {
    pub const TCP_IPV4: u32 = 1;
    pub const IPV4: u32 = 2;
    pub const TCP_IPV6: u32 = 3;
    pub const IPV6: u32 = 5;
    pub const UDP_IPV4: u32 = 7;
    pub const UDP_IPV6: u32 = 8;
}

/// How late after its queue's disable a late RX DMA may still be judged: a
/// driver that waits igc's 10 ms (`igc_down`) before it frees or reuses a ring
/// owns the ring for at least that long, so a write the model could not make
/// within 9 ms (its worker ran late) proves nothing either way.
pub const LATE_RX_JUDGE_NS: u64 = 9_000_000;

/// A frame in flight when its queue was disabled, completing later (the
/// `late_rx_dma_ms` fault). Real hardware finishes the DMA it has started
/// after RXDCTL.ENABLE is cleared; a driver must not free or reuse the ring
/// before that (igc sleeps 10 ms in `igc_down`). At the due time the model
/// reads the head descriptor again: if it still holds what the driver had
/// posted, the frame is written there (a 60-byte frame, DD and EOP); if not,
/// the driver has freed or rewritten the ring while the queue's DMA was
/// still running (with `init_on_free=1` in the guest, freed memory reads as
/// zeros): the model counts it, logs an error and writes nothing, so that
/// the guest lives to report it.
#[derive(Clone, Debug)]
pub(crate) struct LateRxDma {
    pub queue: usize,
    pub disabled_at: u64,
    pub due: u64,
    pub desc: u64,
    pub posted: [u8; 16],
}

/// What became of the late RX DMA.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LateRxCounts {
    /// Disables of a queue with descriptors posted, each with a frame in flight.
    pub scheduled: u64,
    /// The frame was written into a descriptor the driver still owned.
    pub completed: u64,
    /// The descriptor had changed: the ring was freed or reused too early.
    pub changed: u64,
    /// The model's worker came too late to judge ([`LATE_RX_JUDGE_NS`]).
    pub too_late: u64,
}

/// A frame accepted by the filters, ready for a queue.
#[derive(Clone, Debug)]
pub struct RxFrame {
    pub data: Vec<u8>,
    /// Host time the frame reached the PHY.
    pub host_ns: u64,
    pub vlan: Option<u16>,
    pub status: u32,
    pub rss_type: u32,
    pub rss_hash: u32,
}

impl RxFrame {
    fn buffer_bytes(&self) -> usize {
        self.data.len() + TS_HDR_LEN + FCS_LEN
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Delivery {
    Done,
    NoDescriptors,
    Dropped,
}

impl Mac {
    /// A frame arrives from the wire.
    pub fn receive(&mut self, frame: &Frame, mem: &dyn GuestMemory) {
        if self.faults.vanished || self.link().is_none() {
            return;
        }
        let rctl = self.reg(regs::RCTL);
        if rctl & rctl::EN == 0 {
            return;
        }
        let data = &frame.data;
        let wire_len = data.len() + FCS_LEN;
        self.stats.add(stats::TPR, 1);
        self.stats.add(stats::TORL, wire_len as u64);
        if data.len() < packet::ETH_HLEN || !self.address_match(&data[..6], rctl) {
            return;
        }
        let max = match (rctl & rctl::LPE != 0, self.reg(regs::RLPML)) {
            (true, 0) => 9728,
            (true, rlpml) => rlpml as usize,
            (false, _) => 1522,
        };
        if wire_len > max {
            self.stats.add(stats::ROC, 1);
            return;
        }
        let rx = self.classify(frame);
        let queue = rx.1;
        let rx = rx.0;

        self.stats.add(stats::GPRC, 1);
        self.stats.add(stats::GORCL, wire_len as u64);
        self.stats.add(stats::HGORCL, wire_len as u64);
        self.stats.add(stats::PRC64 + 4 * stats::size_bucket(wire_len), 1);
        if data[..6] == [0xFF; 6] {
            self.stats.add(stats::BPRC, 1);
        } else if data[0] & 1 != 0 {
            self.stats.add(stats::MPRC, 1);
        }

        if self.rx_backlog.is_empty() {
            match self.deliver(queue, &rx, mem) {
                Delivery::Done | Delivery::Dropped => return,
                Delivery::NoDescriptors => {}
            }
        }
        self.stats.add(stats::RNBC, 1);
        let capacity = ((self.reg(regs::RXPBS) & 0x3F) as usize).max(1) * 1024;
        if self.rx_backlog_bytes + rx.buffer_bytes() > capacity {
            // A packet-buffer overflow is a missed packet (MPC) and nothing else:
            // RQDPC counts a queue's own drops (disabled, or SRRCTL.DROP_EN, which
            // igc never sets), and igc adds the two into rx_fifo_errors.
            self.stats.add(stats::MPC, 1);
            self.rx_counters[queue].drops += 1;
            return;
        }
        self.rx_backlog_bytes += rx.buffer_bytes();
        self.rx_backlog.push_back(PendingRx { queue, frame: rx });
    }

    fn count_rx_drop(&mut self, q: usize) {
        let off = rxq(q, regs::RQDPC);
        let v = self.reg(off).saturating_add(1);
        self.set_reg(off, v);
        self.rx_counters[q].drops += 1;
    }

    /// Delivers waiting frames after RDT moved.
    pub(crate) fn drain_rx_backlog(&mut self, mem: &dyn GuestMemory) {
        while let Some(p) = self.rx_backlog.front() {
            let (queue, frame) = (p.queue, p.frame.clone());
            if self.deliver(queue, &frame, mem) == Delivery::NoDescriptors {
                break;
            }
            self.rx_backlog_bytes -= frame.buffer_bytes();
            self.rx_backlog.pop_front();
        }
    }

    /// Queue `q` was just disabled: with the `late_rx_dma_ms` fault on and
    /// descriptors posted, its in-flight frame completes later.
    pub(crate) fn schedule_late_rx_dma(&mut self, q: usize, mem: &dyn GuestMemory) {
        let ms = self.faults.late_rx_dma_ms;
        if ms == 0 {
            return;
        }
        let base = (u64::from(self.reg(rxq(q, regs::RDBAH))) << 32) | u64::from(self.reg(rxq(q, regs::RDBAL)) & !0xF);
        let count = u64::from(self.reg(rxq(q, regs::RDLEN))) / DESC_SIZE;
        let head = u64::from(self.reg(rxq(q, regs::RDH)));
        let tail = u64::from(self.reg(rxq(q, regs::RDT)));
        if count == 0 || head >= count || tail >= count || head == tail {
            return;
        }
        let desc = base + head * DESC_SIZE;
        let mut posted = [0u8; 16];
        if mem.read(desc, &mut posted).is_err() {
            return;
        }
        let now = self.now();
        self.late_rx.push(LateRxDma { queue: q, disabled_at: now, due: now + u64::from(ms) * 1_000_000, desc, posted });
        self.late_rx_counts.scheduled += 1;
    }

    /// Completes the late RX DMA that is due (see [`LateRxDma`]).
    pub(crate) fn run_late_rx_dma(&mut self, mem: &dyn GuestMemory) {
        let now = self.now();
        if self.faults.vanished || !self.late_rx.iter().any(|l| l.due <= now) {
            return;
        }
        let (due, later): (Vec<_>, Vec<_>) = std::mem::take(&mut self.late_rx).into_iter().partition(|l| l.due <= now);
        self.late_rx = later;
        for l in due {
            let after_ms = (now - l.disabled_at) as f64 / 1e6;
            if now - l.disabled_at > LATE_RX_JUDGE_NS {
                log::info!("RX queue {}: late DMA {after_ms:.1} ms after the disable, too late to judge", l.queue);
                self.late_rx_counts.too_late += 1;
                continue;
            }
            let mut seen = [0u8; 16];
            if mem.read(l.desc, &mut seen).is_err() || seen != l.posted {
                log::error!(
                    "RX queue {}: the frame in flight completed {after_ms:.1} ms after RXDCTL.ENABLE was cleared, \
                     but descriptor {:#x} had changed ({:02x?} -> {:02x?}): the driver freed or reused the ring \
                     before the queue's DMA was over",
                    l.queue,
                    l.desc,
                    &l.posted[..8],
                    &seen[..8]
                );
                self.late_rx_counts.changed += 1;
                continue;
            }
            let buf = u64::from_le_bytes(l.posted[..8].try_into().unwrap());
            let frame = [0u8; 60];
            let mut wb = [0u8; 16];
            wb[8..12].copy_from_slice(&(rxd::DD | rxd::EOP).to_le_bytes());
            wb[12..14].copy_from_slice(&(frame.len() as u16).to_le_bytes());
            if mem.write(buf, &frame).is_ok() && mem.write(l.desc, &wb).is_ok() {
                self.late_rx_counts.completed += 1;
            }
        }
    }

    /// Throws away waiting frames of a queue being disabled.
    pub(crate) fn drop_rx_backlog(&mut self, q: usize) {
        let mut freed = 0;
        self.rx_backlog.retain(|p| {
            let keep = p.queue != q;
            if !keep {
                freed += p.frame.buffer_bytes();
            }
            keep
        });
        self.rx_backlog_bytes -= freed;
    }

    fn address_match(&self, dst: &[u8], rctl: u32) -> bool {
        if dst == [0xFF; 6] {
            return rctl & rctl::BAM != 0;
        }
        if dst[0] & 1 != 0 {
            if rctl & rctl::MPE != 0 {
                return true;
            }
            let mo = (rctl >> rctl::MO_SHIFT) & 3;
            let hash = ((u32::from(dst[4]) >> (4 - mo)) | (u32::from(dst[5]) << (4 + mo))) & 0xFFF;
            return self.reg(regs::MTA + 4 * (hash >> 5)) & (1 << (hash & 31)) != 0;
        }
        if rctl & rctl::UPE != 0 {
            return true;
        }
        (0..regs::RAR_ENTRIES).any(|n| {
            let high = self.reg(regs::rah(n));
            let low = self.reg(regs::ral(n));
            let mut addr = [0u8; 6];
            addr[..4].copy_from_slice(&low.to_le_bytes());
            addr[4..].copy_from_slice(&high.to_le_bytes()[..2]);
            high & rah::AV != 0 && high & rah::ASEL_MASK == 0 && addr == dst
        })
    }

    /// VLAN stripping, checksum status and RSS: the frame as a queue gets
    /// it, and the queue.
    fn classify(&self, frame: &Frame) -> (RxFrame, usize) {
        let mut data = frame.data.clone();
        let tpid = self.reg(regs::VET) as u16;
        let mut status = 0;
        let mut vlan = None;
        if self.reg(regs::CTRL) & ctrl::VME != 0 && data.len() >= 18 && packet::be16(&data, 12) == tpid {
            vlan = Some(packet::be16(&data, 14));
            data.drain(12..16);
            status |= rxd::VP;
        }
        let parsed = packet::parse(&data, tpid);
        let csum = self.reg(regs::RXCSUM);
        if let Some(p) = &parsed {
            if let L3::Ipv4 { hdr_len, .. } = p.l3 {
                if csum & rxcsum::IPOFL != 0 && data.len() >= p.l3_off + hdr_len {
                    status |= rxd::IPCS;
                    if packet::checksum(&data[p.l3_off..p.l3_off + hdr_len], 0) != 0 {
                        status |= rxd::IPE;
                    }
                }
            }
            if csum & rxcsum::TUOFL != 0 {
                if let (Some(ok), Some((proto, _))) = (packet::l4_checksum_ok(&data, p), p.l4) {
                    status |= if proto == packet::IPPROTO_TCP { rxd::TCPCS } else { rxd::UDPCS };
                    if !ok {
                        status |= rxd::L4E;
                    }
                }
            }
        }
        let (rss_type, rss_hash, queue) = match &parsed {
            Some(p) => self.rss(&data, p),
            None => (0, 0, 0),
        };
        let rx = RxFrame { data, host_ns: frame.host_ns, vlan, status, rss_type, rss_hash };
        (rx, queue)
    }

    fn rss(&self, data: &[u8], p: &packet::Parsed) -> (u32, u32, usize) {
        let mrqc = self.reg(regs::MRQC);
        if mrqc & mrqc::ENABLE_MASK == 0 {
            return (0, 0, 0);
        }
        let ports = |proto: u8| -> Option<&[u8]> {
            match p.l4 {
                Some((pr, off)) if pr == proto => data.get(off..off + 4),
                _ => None,
            }
        };
        let ip = &data[p.l3_off..];
        let mut input = Vec::with_capacity(36);
        let ty = match p.l3 {
            L3::Ipv4 { fragment, .. } => {
                input.extend_from_slice(&ip[12..20]);
                let tcp = (!fragment && mrqc & mrqc::FIELD_IPV4_TCP != 0).then(|| ports(packet::IPPROTO_TCP)).flatten();
                let udp = (!fragment && mrqc & mrqc::FIELD_IPV4_UDP != 0).then(|| ports(packet::IPPROTO_UDP)).flatten();
                match (tcp, udp) {
                    (Some(pp), _) => {
                        input.extend_from_slice(pp);
                        rss_type::TCP_IPV4
                    }
                    (_, Some(pp)) => {
                        input.extend_from_slice(pp);
                        rss_type::UDP_IPV4
                    }
                    _ if mrqc & mrqc::FIELD_IPV4 != 0 => rss_type::IPV4,
                    _ => return (0, 0, 0),
                }
            }
            L3::Ipv6 { .. } if ip.len() >= 40 => {
                input.extend_from_slice(&ip[8..40]);
                let tcp = (mrqc & mrqc::FIELD_IPV6_TCP != 0).then(|| ports(packet::IPPROTO_TCP)).flatten();
                let udp = (mrqc & mrqc::FIELD_IPV6_UDP != 0).then(|| ports(packet::IPPROTO_UDP)).flatten();
                match (tcp, udp) {
                    (Some(pp), _) => {
                        input.extend_from_slice(pp);
                        rss_type::TCP_IPV6
                    }
                    (_, Some(pp)) => {
                        input.extend_from_slice(pp);
                        rss_type::UDP_IPV6
                    }
                    _ if mrqc & mrqc::FIELD_IPV6 != 0 => rss_type::IPV6,
                    _ => return (0, 0, 0),
                }
            }
            _ => return (0, 0, 0),
        };
        let mut key = [0u8; 40];
        for (i, chunk) in key.chunks_mut(4).enumerate() {
            chunk.copy_from_slice(&self.reg(regs::RSSRK + 4 * i as u32).to_le_bytes());
        }
        let hash = packet::toeplitz(&key, &input);
        let entry = hash & 0x7F;
        let reta = self.reg(regs::RETA + 4 * (entry / 4));
        let queue = ((reta >> (8 * (entry % 4))) & 0xFF) as usize % NUM_QUEUES;
        (ty, hash, queue)
    }

    /// Writes a frame into queue `q`'s ring.
    fn deliver(&mut self, q: usize, rx: &RxFrame, mem: &dyn GuestMemory) -> Delivery {
        if self.reg(rxq(q, regs::RXDCTL)) & qctl::ENABLE == 0 {
            self.count_rx_drop(q);
            return Delivery::Dropped;
        }
        let base = (u64::from(self.reg(rxq(q, regs::RDBAH))) << 32) | u64::from(self.reg(rxq(q, regs::RDBAL)) & !0xF);
        let count = u64::from(self.reg(rxq(q, regs::RDLEN))) / DESC_SIZE;
        let head = u64::from(self.reg(rxq(q, regs::RDH)));
        let tail = u64::from(self.reg(rxq(q, regs::RDT)));
        if count == 0 || head >= count || tail >= count {
            return Delivery::NoDescriptors;
        }
        let free = (tail + count - head) % count;

        let srrctl = self.reg(rxq(q, regs::SRRCTL));
        let bufsize = match srrctl & srrctl::BSIZEPKT_MASK {
            0 => 2048 >> ((self.reg(regs::RCTL) >> rctl::BSIZE_SHIFT) & 3),
            kb => kb as usize * 1024,
        };
        let stamp = srrctl & srrctl::TIMESTAMP != 0
            && self.ptp.tsyncrxctl() & tsyncrxctl::ENABLED != 0
            && self.reg(regs::RXPBS) & rxpbs::CFG_TS_EN != 0;

        let mut payload = Vec::with_capacity(rx.data.len() + TS_HDR_LEN + FCS_LEN);
        if stamp {
            let speed = self.link().map_or(0, |l| l.speed.mbps());
            let (_, rx_latency) = crate::ptp::latencies(speed);
            payload.extend_from_slice(&self.ptp.rx_header(srrctl, rx.host_ns, rx_latency));
        }
        payload.extend_from_slice(&rx.data);
        if self.reg(regs::RCTL) & rctl::SECRC == 0 {
            payload.extend_from_slice(&packet::crc32(&rx.data).to_le_bytes());
        }
        let chunks: Vec<&[u8]> = payload.chunks(bufsize).collect();
        if chunks.len() as u64 > free {
            return Delivery::NoDescriptors;
        }

        let mut idx = head;
        for (i, chunk) in chunks.iter().enumerate() {
            let desc = base + idx * DESC_SIZE;
            let written = mem.read_u64(desc).and_then(|buf| mem.write(buf, chunk));
            if let Err(e) = written {
                if e.fault == DmaFault::NoBusMaster && i == 0 {
                    // No descriptor can be fetched: the frame waits in the packet buffer.
                    return Delivery::NoDescriptors;
                }
                log::warn!("RX queue {q}: {e}");
                self.count_rx_drop(q);
                return Delivery::Dropped;
            }
            let mut status = rxd::DD;
            if i == 0 && stamp {
                status |= rxd::TSIP;
            }
            if i + 1 == chunks.len() {
                status |= rxd::EOP | rx.status;
            }
            let mut wb = [0u8; 16];
            wb[0..4].copy_from_slice(&rx.rss_type.to_le_bytes());
            wb[4..8].copy_from_slice(&rx.rss_hash.to_le_bytes());
            wb[8..12].copy_from_slice(&status.to_le_bytes());
            wb[12..14].copy_from_slice(&(chunk.len() as u16).to_le_bytes());
            wb[14..16].copy_from_slice(&rx.vlan.unwrap_or(0).to_le_bytes());
            // The driver polls the length field: write it last.
            let ok = mem.write(desc, &wb[..12]).is_ok();
            fence(Ordering::Release);
            if !ok || mem.write(desc + 12, &wb[12..]).is_err() {
                self.count_rx_drop(q);
                return Delivery::Dropped;
            }
            idx = (idx + 1) % count;
        }
        self.set_reg(rxq(q, regs::RDH), idx as u32);
        self.rx_counters[q].packets += 1;
        self.rx_counters[q].bytes += rx.data.len() as u64;
        self.intr.queue_event(QueueDir::Rx, q);
        Delivery::Done
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dma::VecMemory;
    use crate::mac::tests::{new_mac, MAC};
    use crate::phy::{Abilities, Partner};
    use crate::ptp::TimeSource;
    use crate::regs::icr;

    const RING: u64 = 0x1000;
    const BUF: u64 = 0x10000;
    const N: u64 = 8;

    fn setup(m: &mut Mac, mem: &VecMemory, srrctl: u32, refill: u64) {
        m.set_partner(Partner::Present(Abilities::ALL));
        for i in 0..N {
            mem.write(RING + 16 * i, &(BUF + 0x1000 * i).to_le_bytes()).unwrap();
        }
        m.write32(regs::RCTL, 0x0400_8022, mem);
        m.write32(rxq(0, regs::RXDCTL), 0, mem);
        m.write32(rxq(0, regs::RDBAL), RING as u32, mem);
        m.write32(rxq(0, regs::RDLEN), (N * 16) as u32, mem);
        m.write32(rxq(0, regs::RDH), 0, mem);
        m.write32(rxq(0, regs::RDT), 0, mem);
        m.write32(rxq(0, regs::SRRCTL), srrctl, mem);
        m.write32(rxq(0, regs::RXDCTL), 0x0204_0808, mem);
        m.write32(rxq(0, regs::RDT), refill as u32, mem);
    }

    fn frame(dst: [u8; 6], len: usize) -> Frame {
        let mut data = vec![0u8; len];
        data[..6].copy_from_slice(&dst);
        data[6..12].copy_from_slice(&[0x02, 0, 0, 0, 0, 9]);
        data[12..14].copy_from_slice(&0x88B5u16.to_be_bytes());
        Frame { data, host_ns: 5_000 }
    }

    fn wb(mem: &VecMemory, i: u64) -> (u32, u16) {
        (mem.read_u32(RING + 16 * i + 8).unwrap(), (mem.read_u32(RING + 16 * i + 12).unwrap() & 0xFFFF) as u16)
    }

    #[test]
    fn late_rx_dma_lands_only_in_a_ring_the_driver_still_owns() {
        let (mut m, clock) = new_mac();
        let mem = VecMemory::new(1 << 20);
        setup(&mut m, &mem, 0x0200_0402, N - 1);
        m.faults.late_rx_dma_ms = 4;
        // A driver that waits: the frame lands in the head descriptor.
        m.write32(rxq(0, regs::RXDCTL), 0, &mem);
        assert_eq!(m.next_dma_deadline(), Some(clock.now_ns() + 4_000_000));
        clock.advance(3_000_000);
        m.run_late_rx_dma(&mem);
        assert_eq!(wb(&mem, 0), (0, 0), "not due yet");
        clock.advance(1_000_000);
        m.run_late_rx_dma(&mem);
        assert_eq!(wb(&mem, 0).1, 60);
        assert_eq!(m.late_rx_counts, LateRxCounts { scheduled: 1, completed: 1, ..Default::default() });
        // A driver that frees the ring at once (freed memory reads as zeros).
        setup(&mut m, &mem, 0x0200_0402, N - 1);
        m.write32(rxq(0, regs::RXDCTL), 0, &mem);
        mem.write(RING, &[0; 16]).unwrap();
        clock.advance(4_000_000);
        m.run_late_rx_dma(&mem);
        assert_eq!(wb(&mem, 0), (0, 0), "nothing written into a changed descriptor");
        assert_eq!(m.late_rx_counts.changed, 1);
        // The worker came after 9 ms: not judged. A MAC reset ends DMA in flight.
        setup(&mut m, &mem, 0x0200_0402, N - 1);
        m.write32(rxq(0, regs::RXDCTL), 0, &mem);
        clock.advance(9_500_000);
        m.run_late_rx_dma(&mem);
        assert_eq!(m.late_rx_counts.too_late, 1);
        setup(&mut m, &mem, 0x0200_0402, N - 1);
        m.write32(rxq(0, regs::RXDCTL), 0, &mem);
        m.write32(regs::CTRL, ctrl::RST, &mem);
        assert_eq!(m.next_dma_deadline(), None);
        // An empty ring (head == tail) has nothing in flight.
        m.late_rx_counts = Default::default();
        setup(&mut m, &mem, 0x0200_0402, 0);
        m.write32(rxq(0, regs::RXDCTL), 0, &mem);
        assert_eq!(m.late_rx_counts.scheduled, 0);
    }

    #[test]
    fn unicast_frame_lands_in_ring() {
        let (mut m, _) = new_mac();
        let mem = VecMemory::new(1 << 20);
        setup(&mut m, &mem, 0x0200_0402, N - 1);
        m.receive(&frame(MAC, 100), &mem);
        let (status, len) = wb(&mem, 0);
        assert_eq!(len, 100);
        assert_eq!(status & (rxd::DD | rxd::EOP), rxd::DD | rxd::EOP);
        let mut buf = [0u8; 6];
        mem.read(BUF, &mut buf).unwrap();
        assert_eq!(buf, MAC);
        assert_eq!(m.read32(rxq(0, regs::RDH)), 1);
        assert_ne!(m.read32(regs::ICR) & icr::RXT0, 0);
        assert_eq!(m.read32(stats::GPRC), 1);
        assert_eq!(m.read32(stats::GORCL), 104);
    }

    #[test]
    fn filters() {
        let (mut m, _) = new_mac();
        let mem = VecMemory::new(1 << 20);
        setup(&mut m, &mem, 0x0200_0402, N - 1);
        m.receive(&frame([0x02, 0, 0, 0, 0, 0x77], 60), &mem);
        m.receive(&frame([0x01, 0, 0x5E, 0, 0, 1], 60), &mem);
        assert_eq!(m.read32(rxq(0, regs::RDH)), 0, "foreign unicast and unlisted multicast dropped");
        m.receive(&frame([0xFF; 6], 60), &mem);
        assert_eq!(m.read32(rxq(0, regs::RDH)), 1, "broadcast accepted with BAM");
        // MTA bit for 01:00:5e:00:00:01 with MO = 0: (DA[4] >> 4) | (DA[5] << 4).
        let hash = 1u32 << 4;
        m.write32(regs::MTA + 4 * (hash >> 5), 1 << (hash & 31), &mem);
        m.receive(&frame([0x01, 0, 0x5E, 0, 0, 1], 60), &mem);
        assert_eq!(m.read32(rxq(0, regs::RDH)), 2);
        m.write32(regs::RCTL, 0x0400_8022 | rctl::UPE, &mem);
        m.receive(&frame([0x02, 0, 0, 0, 0, 0x77], 60), &mem);
        assert_eq!(m.read32(rxq(0, regs::RDH)), 3, "promiscuous");
    }

    #[test]
    fn out_of_descriptors_waits_then_drops() {
        let (mut m, _) = new_mac();
        let mem = VecMemory::new(1 << 20);
        setup(&mut m, &mem, 0x0200_0402, 1);
        m.receive(&frame(MAC, 1000), &mem);
        m.receive(&frame(MAC, 1000), &mem);
        assert_eq!(m.read32(rxq(0, regs::RDH)), 1);
        assert_eq!(m.read32(stats::RNBC), 1);
        // Fill the 34 KB packet buffer, then overflow it.
        for _ in 0..40 {
            m.receive(&frame(MAC, 1500), &mem);
        }
        let (mpc, drops) = (m.read32(stats::MPC), m.rx_counters[0].drops);
        assert!(mpc > 0);
        // One count per dropped frame: MPC only, not the queue's RQDPC too.
        assert_eq!(m.read32(rxq(0, regs::RQDPC)), 0);
        assert_eq!(u64::from(mpc), drops);
        // Refill: the waiting frames are delivered in order.
        m.write32(rxq(0, regs::RDT), 4, &mem);
        assert_eq!(m.read32(rxq(0, regs::RDH)), 4);
        assert_eq!(wb(&mem, 1).1, 1000);
        assert_eq!(wb(&mem, 2).1, 1500);
    }

    #[test]
    fn timestamp_header_and_tsip() {
        let (mut m, clock) = new_mac();
        let mem = VecMemory::new(1 << 20);
        setup(&mut m, &mem, 0x4200_4402, N - 1);
        let rxpbs = m.read32(regs::RXPBS);
        m.write32(regs::RXPBS, rxpbs | rxpbs::CFG_TS_EN, &mem);
        m.write32(regs::TSYNCRXCTL, 0x418, &mem);
        m.write32(regs::SYSTIML, 0, &mem);
        m.write32(regs::SYSTIMH, 100, &mem);
        let t0 = clock.now_ns();
        m.receive(&Frame { host_ns: t0 + 1_000, ..frame(MAC, 60) }, &mem);
        let (status, len) = wb(&mem, 0);
        assert_ne!(status & rxd::TSIP, 0);
        assert_eq!(len as usize, 60 + TS_HDR_LEN);
        let ns = mem.read_u32(BUF + 8).unwrap();
        let s = mem.read_u32(BUF + 12).unwrap();
        assert_eq!((s, ns), (100, 1_000 + 1485), "timer0 slot: SYSTIM0 + RX latency");
    }

    #[test]
    fn vlan_strip_and_checksum_status() {
        let (mut m, _) = new_mac();
        let mem = VecMemory::new(1 << 20);
        setup(&mut m, &mem, 0x0200_0402, N - 1);
        m.write32(regs::CTRL, ctrl::SLU | ctrl::VME, &mem);
        // Tagged IPv4/UDP frame with valid checksums.
        let mut f = vec![0u8; 14 + 4 + 20 + 8 + 10];
        f[..6].copy_from_slice(&MAC);
        f[12..16].copy_from_slice(&[0x81, 0x00, 0x00, 0x05]);
        f[16..18].copy_from_slice(&0x0800u16.to_be_bytes());
        let ip = 18;
        f[ip] = 0x45;
        packet::put_be16(&mut f, ip + 2, 38);
        f[ip + 9] = packet::IPPROTO_UDP;
        f[ip + 12..ip + 20].copy_from_slice(&[10, 0, 0, 1, 10, 0, 0, 2]);
        let c = packet::checksum(&f[ip..ip + 20], 0);
        packet::put_be16(&mut f, ip + 10, c);
        packet::put_be16(&mut f, ip + 24, 18);
        let p = packet::parse(&f, 0x8100).unwrap();
        let s = packet::sum16(&f[ip + 20..], packet::pseudo_header_sum(&f, &p, packet::IPPROTO_UDP, 18));
        packet::put_be16(&mut f, ip + 26, !packet::fold(s));
        m.receive(&Frame { data: f, host_ns: 0 }, &mem);
        let (status, len) = wb(&mem, 0);
        assert_eq!(len, 14 + 20 + 8 + 10);
        assert_ne!(status & rxd::VP, 0);
        assert_eq!(status & (rxd::UDPCS | rxd::IPCS | rxd::L4E | rxd::IPE), rxd::UDPCS | rxd::IPCS);
        assert_eq!(mem.read_u32(RING + 12).unwrap() >> 16, 5, "VLAN tag in the write-back");
    }

    #[test]
    fn rss_spreads_by_reta() {
        let (mut m, _) = new_mac();
        let mem = VecMemory::new(1 << 20);
        setup(&mut m, &mem, 0x0200_0402, N - 1);
        m.write32(regs::MRQC, 0x0037_0002, &mem);
        // Every RETA entry points at queue 3 (disabled): the frame is dropped
        // there, which proves the steering.
        for i in 0..32 {
            m.write32(regs::RETA + 4 * i, 0x0303_0303, &mem);
        }
        let mut f = vec![0u8; 60];
        f[..6].copy_from_slice(&MAC);
        f[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
        f[14] = 0x45;
        packet::put_be16(&mut f, 16, 46);
        f[23] = packet::IPPROTO_TCP;
        m.receive(&Frame { data: f, host_ns: 0 }, &mem);
        assert_eq!(m.read32(rxq(3, regs::RQDPC)), 1);
        assert_eq!(m.read32(rxq(0, regs::RDH)), 0);
    }
}
