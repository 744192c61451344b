// SPDX-License-Identifier: GPL-2.0

//! Transmit: descriptor rings, advanced context and data descriptors,
//! checksum offload, TSO, VLAN insertion, TX timestamps and DD write-back.
//!
//! Processing runs synchronously on a TDT (or TXDCTL/TCTL enabling) write.
//! A packet is only consumed once its EOP descriptor is below TDT; TDH then
//! moves past it and every descriptor of it with RS gets DD written back.

use super::Mac;
use crate::dma::GuestMemory;
use crate::interrupts::QueueDir;
use crate::packet::{self, ETH_ZLEN, FCS_LEN};
use crate::regs::{self, icr, qctl, tctl, txq};
use crate::stats;
use crate::wire::Frame;

pub const DESC_SIZE: u64 = 16;

/// The shortest packet (without FCS) the MAC sends with TCTL.PSP set: "If the TCTL.PSP bit is
/// set, the total length of the packet transmitted, not including FCS should be at least 17
/// bytes. If bit is cleared the total length ... should be at least 60 bytes" (I210 datasheet
/// 7.2.2.1.2, the I225's ancestor); igc pads every skb to 17 for it (igc_xmit_frame). The
/// datasheet does not say what the MAC does with a shorter one: the model drops it (see
/// [`TxCounts::short_dropped`]).
pub const MIN_PACKET_PSP: usize = 17;

/// What became of transmitted packets that did not reach the wire (for the control socket).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxCounts {
    /// Packets shorter than the datasheet's minimum ([`MIN_PACKET_PSP`] with TCTL.PSP, 60
    /// bytes without): not sent; their descriptors complete (DD) as if sent, so that the
    /// driver's ring moves on, and the queue's `drops` count them. A driver bug (a raw socket
    /// sending a 14-byte frame through a driver that does not pad) shows here and as a frame
    /// that never arrives, instead of a padded frame that a real MAC never promised.
    pub short_dropped: u64,
}

/// Bits of the advanced descriptor `cmd_type_len` and `olinfo_status`.
pub mod txd {
    pub const LEN_MASK: u32 = 0xFFFF;
    pub const TSTAMP_SEL_SHIFT: u32 = 16;
    pub const MAC_TSTAMP: u32 = 1 << 19;
    pub const DTYP_MASK: u32 = 0xF << 20;
    pub const DTYP_CTXT: u32 = 0x2 << 20;
    pub const DTYP_DATA: u32 = 0x3 << 20;
    pub const EOP: u32 = 1 << 24;
    pub const IFCS: u32 = 1 << 25;
    pub const RS: u32 = 1 << 27;
    pub const DEXT: u32 = 1 << 29;
    pub const VLE: u32 = 1 << 30;
    pub const TSE: u32 = 1 << 31;

    pub const STAT_DD: u32 = 1 << 0;
    pub const PTP2_TIMER_1: u32 = 1 << 5;
    pub const CTX_IDX_SHIFT: u32 = 4;
    pub const POPTS_IXSM: u32 = 1 << 8;
    pub const POPTS_TXSM: u32 = 1 << 9;

    pub const TUCMD_IPV4: u32 = 1 << 10;
    pub const TUCMD_L4T_TCP: u32 = 1 << 11;
    pub const TUCMD_L4T_SCTP: u32 = 1 << 12;
}

/// An advanced context descriptor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxContext {
    pub vlan_macip_lens: u32,
    pub launch_time: u32,
    pub type_tucmd_mlhl: u32,
    pub mss_l4len_idx: u32,
}

impl TxContext {
    fn from_bytes(d: &[u8; 16]) -> Self {
        let dw = |i: usize| u32::from_le_bytes(d[4 * i..4 * i + 4].try_into().unwrap());
        TxContext { vlan_macip_lens: dw(0), launch_time: dw(1), type_tucmd_mlhl: dw(2), mss_l4len_idx: dw(3) }
    }
    fn index(&self) -> usize {
        ((self.mss_l4len_idx >> txd::CTX_IDX_SHIFT) & 1) as usize
    }
    pub fn iplen(&self) -> usize {
        (self.vlan_macip_lens & 0x1FF) as usize
    }
    pub fn maclen(&self) -> usize {
        ((self.vlan_macip_lens >> 9) & 0x7F) as usize
    }
    pub fn vlan(&self) -> u16 {
        (self.vlan_macip_lens >> 16) as u16
    }
    pub fn l4len(&self) -> usize {
        ((self.mss_l4len_idx >> 8) & 0xFF) as usize
    }
    pub fn mss(&self) -> usize {
        (self.mss_l4len_idx >> 16) as usize
    }
    fn l4_kind(&self) -> L4Kind {
        if self.type_tucmd_mlhl & txd::TUCMD_L4T_TCP != 0 {
            L4Kind::Tcp
        } else if self.type_tucmd_mlhl & txd::TUCMD_L4T_SCTP != 0 {
            L4Kind::Sctp
        } else {
            L4Kind::Udp
        }
    }
    fn ipv4(&self) -> bool {
        self.type_tucmd_mlhl & txd::TUCMD_IPV4 != 0
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum L4Kind {
    Tcp,
    Udp,
    Sctp,
}

impl L4Kind {
    fn csum_offset(self) -> usize {
        match self {
            L4Kind::Tcp => 16,
            L4Kind::Udp => 6,
            L4Kind::Sctp => 8,
        }
    }
}

/// A packet gathered from its data descriptors.
#[derive(Debug, Default)]
struct TxPacket {
    data: Vec<u8>,
    cmd: u32,
    olinfo: u32,
    /// Guest addresses of descriptors that asked for status (RS).
    report: Vec<u64>,
    /// A legacy descriptor's VLAN tag.
    legacy_vlan: Option<u16>,
}

/// Why a ring could not be processed further.
#[derive(Debug)]
enum Stall {
    /// The next packet is not complete below TDT yet.
    Incomplete,
    Dma(crate::dma::DmaError),
}

impl Mac {
    /// Processes queue `q` from TDH up to TDT.
    pub(crate) fn transmit(&mut self, q: usize, mem: &dyn GuestMemory) {
        // A hung TX unit fetches nothing; without a link the MAC stops its TX DMA and the
        // descriptors stay pending until the link returns (`resume_tx`), as on hardware.
        if self.faults.tx_hang || self.link().is_none() {
            return;
        }
        if self.reg(regs::TCTL) & tctl::EN == 0 || self.reg(txq(q, regs::TXDCTL)) & qctl::ENABLE == 0 {
            return;
        }
        let base = (u64::from(self.reg(txq(q, regs::TDBAH))) << 32) | u64::from(self.reg(txq(q, regs::TDBAL)) & !0xF);
        let count = self.reg(txq(q, regs::TDLEN)) as u64 / DESC_SIZE;
        let tail = u64::from(self.reg(txq(q, regs::TDT)));
        let mut head = u64::from(self.reg(txq(q, regs::TDH)));
        if count == 0 || head >= count || tail >= count {
            if count != 0 {
                log::warn!("TX queue {q}: head {head} / tail {tail} outside a ring of {count}");
            }
            return;
        }
        let mut reported = false;
        while head != tail {
            match self.fetch_packet(q, mem, base, count, head, tail) {
                Ok((pkt, next)) => {
                    head = next;
                    self.set_reg(txq(q, regs::TDH), head as u32);
                    self.send_packet(q, &pkt);
                    for &desc in &pkt.report {
                        if let Err(e) = mem.write_u32(desc + 12, txd::STAT_DD) {
                            log::warn!("TX queue {q}: write-back failed: {e}");
                        }
                    }
                    reported |= !pkt.report.is_empty();
                }
                Err(Stall::Incomplete) => break,
                Err(Stall::Dma(e)) => {
                    log::warn!("TX queue {q}: {e}");
                    break;
                }
            }
        }
        if reported {
            self.intr.queue_event(QueueDir::Tx, q);
        }
    }

    /// The link came back: TX DMA resumes on every queue with descriptors pending.
    pub fn resume_tx(&mut self, mem: &dyn GuestMemory) {
        for q in 0..crate::regs::NUM_QUEUES {
            self.transmit(q, mem);
        }
    }

    /// Reads descriptors from `head` until an EOP data descriptor.
    fn fetch_packet(
        &mut self,
        q: usize,
        mem: &dyn GuestMemory,
        base: u64,
        count: u64,
        mut idx: u64,
        tail: u64,
    ) -> Result<(TxPacket, u64), Stall> {
        let mut pkt = TxPacket::default();
        let mut first = true;
        let mut contexts = Vec::new();
        while idx != tail {
            let addr = base + idx * DESC_SIZE;
            let mut d = [0u8; 16];
            mem.read(addr, &mut d).map_err(Stall::Dma)?;
            idx = (idx + 1) % count;
            let buf = u64::from_le_bytes(d[0..8].try_into().unwrap());
            let cmd = u32::from_le_bytes(d[8..12].try_into().unwrap());
            let olinfo = u32::from_le_bytes(d[12..16].try_into().unwrap());
            let (len, eop, rs) = if cmd & txd::DEXT == 0 {
                // Legacy descriptor: length, CSO, CMD (EOP/IFCS/IC/RS/.../VLE).
                if cmd & txd::VLE != 0 {
                    pkt.legacy_vlan = Some((olinfo >> 16) as u16);
                }
                ((cmd & txd::LEN_MASK) as usize, cmd & txd::EOP != 0, cmd & txd::RS != 0)
            } else {
                match cmd & txd::DTYP_MASK {
                    txd::DTYP_CTXT => {
                        contexts.push(TxContext::from_bytes(&d));
                        continue;
                    }
                    txd::DTYP_DATA => {}
                    other => {
                        log::warn!("TX queue {q}: descriptor type {:#x} skipped", other >> 20);
                        continue;
                    }
                }
                ((cmd & txd::LEN_MASK) as usize, cmd & txd::EOP != 0, cmd & txd::RS != 0)
            };
            if first {
                pkt.cmd = cmd;
                pkt.olinfo = olinfo;
                first = false;
            }
            let start = pkt.data.len();
            pkt.data.resize(start + len, 0);
            mem.read(buf, &mut pkt.data[start..]).map_err(Stall::Dma)?;
            if rs {
                pkt.report.push(addr);
            }
            if eop {
                for ctx in contexts {
                    self.txq[q].ctx[ctx.index()] = ctx;
                }
                return Ok((pkt, idx));
            }
        }
        Err(Stall::Incomplete)
    }

    /// Applies offloads, timestamps and statistics, then puts the frames
    /// on the wire.
    fn send_packet(&mut self, q: usize, pkt: &TxPacket) {
        let advanced = pkt.cmd & txd::DEXT != 0;
        let pad = self.reg(regs::TCTL) & tctl::PSP != 0;
        let min = if pad { MIN_PACKET_PSP } else { ETH_ZLEN };
        if !(advanced && pkt.cmd & txd::TSE != 0) && pkt.data.len() < min {
            log::warn!(
                "TX queue {q}: a packet of {} bytes, under the minimum of {min} (TCTL.PSP {}): dropped",
                pkt.data.len(),
                if pad { "set" } else { "clear" }
            );
            self.tx_counts.short_dropped += 1;
            self.tx_counters[q].drops += 1;
            return;
        }
        let ctx = self.txq[q].ctx[((pkt.olinfo >> txd::CTX_IDX_SHIFT) & 1) as usize];
        let mut frames = if advanced && pkt.cmd & txd::TSE != 0 {
            self.stats.add(stats::TSCTC, 1);
            segment(&pkt.data, &ctx)
        } else {
            let mut f = pkt.data.clone();
            if advanced {
                offload_checksums(&mut f, &ctx, pkt.olinfo);
            }
            vec![f]
        };
        let vlan = match (advanced, pkt.cmd & txd::VLE != 0) {
            (true, true) => Some(ctx.vlan()),
            (false, _) => pkt.legacy_vlan,
            _ => None,
        };
        let tpid = self.reg(regs::VET) as u16;
        for f in &mut frames {
            if let Some(tci) = vlan {
                if f.len() >= 12 {
                    f.splice(12..12, tpid.to_be_bytes().into_iter().chain(tci.to_be_bytes()));
                }
            }
            if pad && f.len() < ETH_ZLEN {
                f.resize(ETH_ZLEN, 0);
            }
        }

        let now = self.now();
        if advanced && pkt.cmd & txd::MAC_TSTAMP != 0 {
            let set = ((pkt.cmd >> txd::TSTAMP_SEL_SHIFT) & 3) as usize;
            let timer1 = pkt.olinfo & txd::PTP2_TIMER_1 != 0;
            let speed = self.link().map_or(0, |l| l.speed.mbps());
            let (tx_latency, _) = crate::ptp::latencies(speed);
            if self.ptp.capture_tx(set, timer1, now, tx_latency) {
                self.intr.raise(icr::TS);
            }
        }

        // `transmit` runs only with a link: every frame goes on the wire.
        for f in frames {
            self.count_tx(q, &f);
            self.outbox.push(Frame { data: f, host_ns: now });
        }
    }

    fn count_tx(&mut self, q: usize, f: &[u8]) {
        let wire_len = (f.len() + FCS_LEN) as u64;
        let s = &mut self.stats;
        for c in [stats::GPTC, stats::TPT, stats::HGPTC] {
            s.add(c, 1);
        }
        for c in [stats::GOTCL, stats::TOTL, stats::HGOTCL] {
            s.add(c, wire_len);
        }
        s.add(stats::PTC64 + 4 * stats::size_bucket(wire_len as usize), 1);
        if f.len() >= 6 && f[..6] == [0xFF; 6] {
            s.add(stats::BPTC, 1);
        } else if f.first().is_some_and(|b| b & 1 != 0) {
            s.add(stats::MPTC, 1);
        }
        self.tx_counters[q].packets += 1;
        self.tx_counters[q].bytes += f.len() as u64;
    }
}

/// IXSM / TXSM for a non-TSO packet. The checksum fields hold the seed the
/// driver left (the pseudo-header sum for L4), so the sum runs over them.
fn offload_checksums(f: &mut [u8], ctx: &TxContext, olinfo: u32) {
    let (maclen, iplen) = (ctx.maclen(), ctx.iplen());
    if olinfo & txd::POPTS_IXSM != 0 && ctx.ipv4() {
        ipv4_header_checksum(f, maclen, iplen);
    }
    if olinfo & txd::POPTS_TXSM != 0 {
        l4_checksum(f, maclen + iplen, ctx.l4_kind(), 0);
    }
}

fn ipv4_header_checksum(f: &mut [u8], off: usize, len: usize) {
    // A header too short to hold its checksum field is left alone.
    if len < 20 {
        return;
    }
    if let Some(h) = f.get(off..off + len) {
        let c = packet::checksum(h, 0);
        packet::put_be16(f, off + 10, c);
    }
}

/// Finishes the L4 checksum at `l4`; `extra_len` is added to the sum for
/// TSO, where the driver took the payload length out of the seed.
fn l4_checksum(f: &mut [u8], l4: usize, kind: L4Kind, extra_len: usize) {
    let field = l4 + kind.csum_offset();
    let width = if kind == L4Kind::Sctp { 4 } else { 2 };
    if field + width > f.len() {
        return;
    }
    match kind {
        L4Kind::Sctp => {
            f[field..field + 4].fill(0);
            let crc = packet::crc32c(&f[l4..]);
            f[field..field + 4].copy_from_slice(&crc.to_le_bytes());
        }
        L4Kind::Tcp | L4Kind::Udp => {
            let sum = packet::sum16(&f[l4..], extra_len as u32);
            let mut c = !packet::fold(sum);
            if kind == L4Kind::Udp && c == 0 {
                c = 0xFFFF;
            }
            packet::put_be16(f, field, c);
        }
    }
}

/// TCP (or UDP) segmentation of one large packet into MSS-sized frames.
fn segment(data: &[u8], ctx: &TxContext) -> Vec<Vec<u8>> {
    let (maclen, iplen, l4len, mss) = (ctx.maclen(), ctx.iplen(), ctx.l4len(), ctx.mss());
    let kind = ctx.l4_kind();
    let hdr_len = maclen + iplen + if kind == L4Kind::Udp { 8 } else { l4len };
    // Header lengths no real packet has (the guest wrote garbage, or fields that overflowed
    // into each other): the hardware cannot segment such a packet. Drop it with an error, as
    // a malicious-driver check would, rather than index out of range.
    let min_ip = if ctx.ipv4() { 20 } else { 40 };
    let min_l4 = match kind {
        L4Kind::Tcp => 20,
        L4Kind::Udp => 8,
        L4Kind::Sctp => usize::MAX,
    };
    if maclen < 14 || iplen < min_ip || (kind == L4Kind::Tcp && l4len < min_l4) || kind == L4Kind::Sctp {
        log::error!(
            "malformed TSO context (MACLEN {maclen}, IPLEN {iplen}, L4LEN {l4len}, {kind:?}): \
             frame of {} bytes dropped",
            data.len()
        );
        return Vec::new();
    }
    if mss == 0 || data.len() <= hdr_len {
        log::warn!("TSO with MSS {mss} and headers {hdr_len} over {} bytes: sent as is", data.len());
        return vec![data.to_vec()];
    }
    let l4 = maclen + iplen;
    let l4_hdr = hdr_len - l4;
    let payload = &data[hdr_len..];
    let nseg = payload.len().div_ceil(mss);
    let ip_id = packet::be16(data, maclen + 4);
    let seq = if kind == L4Kind::Tcp { packet::be32(data, l4 + 4) } else { 0 };
    (0..nseg)
        .map(|i| {
            let chunk = &payload[i * mss..((i + 1) * mss).min(payload.len())];
            let mut f = Vec::with_capacity(hdr_len + chunk.len());
            f.extend_from_slice(&data[..hdr_len]);
            f.extend_from_slice(chunk);
            let l4_total = l4_hdr + chunk.len();
            if ctx.ipv4() {
                packet::put_be16(&mut f, maclen + 2, (iplen + l4_total) as u16);
                packet::put_be16(&mut f, maclen + 4, ip_id.wrapping_add(i as u16));
                ipv4_header_checksum(&mut f, maclen, iplen);
            } else {
                packet::put_be16(&mut f, maclen + 4, (iplen - 40 + l4_total) as u16);
            }
            match kind {
                L4Kind::Tcp => {
                    packet::put_be32(&mut f, l4 + 4, seq.wrapping_add((i * mss) as u32));
                    if i + 1 < nseg {
                        f[l4 + 13] &= !0x09; // FIN, PSH only on the last segment
                    }
                }
                L4Kind::Udp => packet::put_be16(&mut f, l4 + 4, l4_total as u16),
                L4Kind::Sctp => {}
            }
            l4_checksum(&mut f, l4, kind, l4_total);
            f
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Guest-written descriptor contents are arbitrary: segmentation and checksum offload must
    /// never panic (index out of range, underflow), whatever the context descriptor and the
    /// packet say. A seeded xorshift sweep over random contexts, flags and lengths.
    #[test]
    fn fuzzed_contexts_and_packets_never_panic() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let (mut segmented, mut dropped) = (0, 0);
        for _ in 0..20_000 {
            let r = next();
            let ctx = TxContext {
                vlan_macip_lens: r as u32,
                launch_time: 0,
                type_tucmd_mlhl: (r >> 32) as u32 & (txd::TUCMD_IPV4 | txd::TUCMD_L4T_TCP | txd::TUCMD_L4T_SCTP),
                mss_l4len_idx: next() as u32,
            };
            let len = (next() % 9300) as usize;
            let data: Vec<u8> = (0..len).map(|i| (i as u8).wrapping_mul(31)).collect();
            let frames = segment(&data, &ctx);
            if frames.is_empty() {
                dropped += 1;
            } else {
                segmented += 1;
            }
            let mut f = data.clone();
            offload_checksums(&mut f, &ctx, (next() as u32) & (txd::POPTS_IXSM | txd::POPTS_TXSM));
        }
        // Both paths ran: valid-looking contexts segment, garbage ones are dropped.
        assert!(dropped > 0 && segmented > 0, "dropped {dropped}, segmented {segmented}");
    }
    use crate::dma::VecMemory;
    use crate::mac::tests::new_mac;
    use crate::packet::{parse, L3};
    use crate::phy::{Abilities, Partner};

    const RING: u64 = 0x1000;
    const BUF: u64 = 0x10000;

    /// A UDP/IPv4 frame with a correct IP header checksum and the L4 checksum
    /// field seeded with the pseudo-header sum (what CHECKSUM_PARTIAL gives).
    fn udp_frame(payload: usize, seed_len: bool) -> Vec<u8> {
        let mut f = vec![0u8; 14 + 20 + 8 + payload];
        f[0..6].copy_from_slice(&[0x02, 0, 0, 0, 0, 2]);
        f[6..12].copy_from_slice(&[0x02, 0, 0, 0, 0, 1]);
        f[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
        let ip = 14;
        f[ip] = 0x45;
        packet::put_be16(&mut f, ip + 2, (20 + 8 + payload) as u16);
        f[ip + 8] = 64;
        f[ip + 9] = packet::IPPROTO_UDP;
        f[ip + 12..ip + 16].copy_from_slice(&[10, 0, 0, 1]);
        f[ip + 16..ip + 20].copy_from_slice(&[10, 0, 0, 2]);
        let c = packet::checksum(&f[ip..ip + 20], 0);
        packet::put_be16(&mut f, ip + 10, c);
        let l4 = ip + 20;
        packet::put_be16(&mut f, l4, 1234);
        packet::put_be16(&mut f, l4 + 2, 5678);
        packet::put_be16(&mut f, l4 + 4, (8 + payload) as u16);
        for (i, b) in f[l4 + 8..].iter_mut().enumerate() {
            *b = i as u8;
        }
        let p = parse(&f, 0x8100).unwrap();
        let len = if seed_len { 8 + payload } else { 0 };
        let seed = packet::fold(packet::pseudo_header_sum(&f, &p, packet::IPPROTO_UDP, len));
        packet::put_be16(&mut f, l4 + 6, seed);
        f
    }

    fn tcp_frame(payload: usize) -> Vec<u8> {
        let mut f = vec![0u8; 14 + 20 + 20 + payload];
        f[0..6].copy_from_slice(&[0x02, 0, 0, 0, 0, 2]);
        f[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
        let ip = 14;
        f[ip] = 0x45;
        packet::put_be16(&mut f, ip + 4, 0x1000); // IP ID
        f[ip + 8] = 64;
        f[ip + 9] = packet::IPPROTO_TCP;
        f[ip + 12..ip + 16].copy_from_slice(&[10, 0, 0, 1]);
        f[ip + 16..ip + 20].copy_from_slice(&[10, 0, 0, 2]);
        // igc_tso: tot_len 0, check = csum_fold(0) = 0xffff.
        packet::put_be16(&mut f, ip + 10, 0xFFFF);
        let l4 = ip + 20;
        packet::put_be32(&mut f, l4 + 4, 1000);
        f[l4 + 12] = 5 << 4;
        f[l4 + 13] = 0x18 | 0x01; // PSH ACK FIN
        for (i, b) in f[l4 + 20..].iter_mut().enumerate() {
            *b = (i * 7) as u8;
        }
        let p = parse(&f, 0x8100).unwrap();
        let seed = packet::fold(packet::pseudo_header_sum(&f, &p, packet::IPPROTO_TCP, 0));
        packet::put_be16(&mut f, l4 + 16, seed);
        f
    }

    fn ctx_desc(maclen: u32, iplen: u32, vlan: u16, tucmd: u32, l4len: u32, mss: u32) -> [u8; 16] {
        let mut d = [0u8; 16];
        d[0..4].copy_from_slice(&(iplen | maclen << 9 | u32::from(vlan) << 16).to_le_bytes());
        d[8..12].copy_from_slice(&(tucmd | txd::DTYP_CTXT | txd::DEXT).to_le_bytes());
        d[12..16].copy_from_slice(&(l4len << 8 | mss << 16).to_le_bytes());
        d
    }

    fn data_desc(buf: u64, len: usize, cmd: u32, olinfo: u32) -> [u8; 16] {
        let mut d = [0u8; 16];
        d[0..8].copy_from_slice(&buf.to_le_bytes());
        d[8..12].copy_from_slice(&(len as u32 | cmd | txd::DTYP_DATA | txd::DEXT).to_le_bytes());
        d[12..16].copy_from_slice(&olinfo.to_le_bytes());
        d
    }

    /// Sets up TX queue 0 with a 16-entry ring and writes `descs` at 0.
    fn run(descs: &[[u8; 16]], bufs: &[&[u8]]) -> (Mac, VecMemory) {
        let (mut m, _) = new_mac();
        m.set_partner(Partner::Present(Abilities::ALL));
        let mem = VecMemory::new(1 << 20);
        let mut addr = BUF;
        for b in bufs {
            mem.write(addr, b).unwrap();
            addr += 0x1000;
        }
        for (i, d) in descs.iter().enumerate() {
            mem.write(RING + 16 * i as u64, d).unwrap();
        }
        m.write32(regs::TCTL, 0x0103_F0FA, &mem);
        m.write32(txq(0, regs::TXDCTL), 0, &mem);
        m.write32(txq(0, regs::TDLEN), 16 * 16, &mem);
        m.write32(txq(0, regs::TDBAL), RING as u32, &mem);
        m.write32(txq(0, regs::TDBAH), 0, &mem);
        m.write32(txq(0, regs::TDH), 0, &mem);
        m.write32(txq(0, regs::TDT), 0, &mem);
        m.write32(txq(0, regs::TXDCTL), 0x0210_0108, &mem);
        m.write32(txq(0, regs::TDT), descs.len() as u32, &mem);
        (m, mem)
    }

    #[test]
    fn plain_packet_dd_writeback_and_stats() {
        let f = udp_frame(100, true);
        let (mut m, mem) = run(&[data_desc(BUF, f.len(), txd::EOP | txd::RS | txd::IFCS, 0)], &[&f]);
        let out = m.take_outbox();
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].data, f);
        assert_eq!(mem.read_u32(RING + 12).unwrap() & txd::STAT_DD, 1);
        assert_eq!(m.read32(txq(0, regs::TDH)), 1);
        assert_eq!(m.read32(stats::GPTC), 1);
        assert_eq!(m.read32(stats::GOTCL), (f.len() + 4) as u32);
        assert_eq!(m.tx_counters[0].packets, 1);
        // Legacy mode: TX writes back TXDW.
        assert_ne!(m.read32(regs::ICR) & icr::TXDW, 0);
    }

    /// The datasheet's minimum packet ("If the TCTL.PSP bit is set, the total length of the
    /// packet transmitted, not including FCS should be at least 17 bytes. If bit is cleared
    /// ... at least 60 bytes", I210 7.2.2.1.2; igc pads to 17 for it in igc_xmit_frame): a
    /// shorter packet is not sent, its descriptors complete (DD) and the drop is counted.
    /// PSP pads what is long enough to 60 bytes; without PSP a 60-byte packet goes as is.
    #[test]
    fn packets_below_the_minimum_are_dropped_and_psp_pads_to_60() {
        let f: Vec<u8> = (0..60u8).map(|i| i | 0x80).collect();
        let eop = txd::EOP | txd::RS | txd::IFCS;
        let descs = [data_desc(BUF, 16, eop, 0), data_desc(BUF, 17, eop, 0)];
        let (mut m, mem) = run(&descs, &[&f]);
        let out = m.take_outbox();
        assert_eq!(out.len(), 1, "the 16-byte packet is not sent");
        assert_eq!(out[0].data.len(), 60, "PSP pads the 17-byte one to 60");
        assert_eq!(out[0].data[..17], f[..17]);
        assert!(out[0].data[17..].iter().all(|&b| b == 0));
        for i in 0..2 {
            assert_eq!(mem.read_u32(RING + 16 * i + 12).unwrap() & txd::STAT_DD, 1, "descriptor {i} done");
        }
        assert_eq!(m.read32(txq(0, regs::TDH)), 2);
        assert_eq!((m.tx_counters[0].packets, m.tx_counters[0].drops), (1, 1));
        assert_eq!(m.read32(stats::GPTC), 1, "a dropped packet is not a transmitted one");
        assert_eq!(m.tx_counts.short_dropped, 1);

        // PSP clear: the minimum is 60 bytes, and nothing is padded.
        m.write32(regs::TCTL, 0x0103_F0FA & !tctl::PSP, &mem);
        mem.write(RING + 32, &data_desc(BUF, 59, eop, 0)).unwrap();
        mem.write(RING + 48, &data_desc(BUF, 60, eop, 0)).unwrap();
        m.write32(txq(0, regs::TDT), 4, &mem);
        let out = m.take_outbox();
        assert_eq!(out.len(), 1, "the 59-byte packet is not sent without PSP");
        assert_eq!(out[0].data, f);
        assert_eq!((m.tx_counters[0].drops, m.tx_counts.short_dropped), (2, 2));
    }

    /// Posts one packet at the start of the ring; the MAC must neither send it nor write
    /// it back.
    fn post_one_and_see_it_held(m: &mut Mac, mem: &VecMemory) {
        let f = udp_frame(100, true);
        mem.write(RING, &data_desc(BUF, f.len(), txd::EOP | txd::RS | txd::IFCS, 0)).unwrap();
        mem.write(BUF, &f).unwrap();
        m.write32(txq(0, regs::TDT), 1, mem);
        assert!(m.take_outbox().is_empty());
        assert_eq!(mem.read_u32(RING + 12).unwrap() & txd::STAT_DD, 0);
        assert_eq!(m.read32(txq(0, regs::TDH)), 0);
        assert_eq!(m.tx_pending(), 1);
    }

    #[test]
    fn hung_tx_unit_sends_nothing_until_a_mac_reset() {
        let (mut m, mem) = run(&[], &[]);
        m.faults.tx_hang = true;
        post_one_and_see_it_held(&mut m, &mem);
        // The reset clears the hang; the driver then programs the ring again.
        let c = m.read32(regs::CTRL);
        m.write32(regs::CTRL, c | crate::regs::ctrl::RST, &mem);
        assert!(!m.faults.tx_hang);
        m.write32(regs::CTRL, crate::regs::ctrl::SLU, &mem);
        m.write32(regs::TCTL, tctl::EN, &mem);
        m.write32(txq(0, regs::TDBAL), RING as u32, &mem);
        m.write32(txq(0, regs::TDLEN), 16 * 16, &mem);
        m.write32(txq(0, regs::TXDCTL), 0x0210_0108, &mem);
        m.write32(txq(0, regs::TDT), 1, &mem);
        assert_eq!(m.take_outbox().len(), 1);
    }

    #[test]
    fn without_link_descriptors_wait_until_it_returns() {
        let (mut m, mem) = run(&[], &[]);
        m.set_partner(Partner::Absent);
        post_one_and_see_it_held(&mut m, &mem);
        m.set_partner(Partner::Present(Abilities::ALL));
        m.resume_tx(&mem);
        assert_eq!(m.take_outbox().len(), 1);
        assert_eq!(m.tx_pending(), 0);
        assert_eq!(mem.read_u32(RING + 12).unwrap() & txd::STAT_DD, 1);
    }

    #[test]
    fn incomplete_packet_waits_for_eop() {
        let f = udp_frame(100, true);
        let (mut m, mem) = run(&[data_desc(BUF, 50, 0, 0)], &[&f]);
        assert!(m.take_outbox().is_empty());
        assert_eq!(m.read32(txq(0, regs::TDH)), 0);
        mem.write(RING + 16, &data_desc(BUF + 50, f.len() - 50, txd::EOP | txd::RS, 0)).unwrap();
        m.write32(txq(0, regs::TDT), 2, &mem);
        let out = m.take_outbox();
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].data, f);
        assert_eq!(m.read32(txq(0, regs::TDH)), 2);
    }

    #[test]
    fn udp_checksum_offload_and_vlan_insertion() {
        let f = udp_frame(33, true);
        let ctx = ctx_desc(14, 20, 0x0123, 0x400, 0, 0);
        let data = data_desc(BUF, f.len(), txd::EOP | txd::RS | txd::VLE, txd::POPTS_TXSM);
        let (mut m, _) = run(&[ctx, data], &[&f]);
        let out = m.take_outbox().remove(0).data;
        assert_eq!(&out[12..16], &[0x81, 0x00, 0x01, 0x23]);
        let mut untagged = out.clone();
        untagged.drain(12..16);
        let p = parse(&untagged, 0x8100).unwrap();
        assert_eq!(packet::l4_checksum_ok(&untagged, &p), Some(true));
    }

    #[test]
    fn tso_segments_with_valid_checksums() {
        let f = tcp_frame(3000);
        let ctx = ctx_desc(14, 20, 0, txd::TUCMD_IPV4 | txd::TUCMD_L4T_TCP, 20, 1000);
        let paylen = 3000u32;
        let olinfo = txd::POPTS_TXSM | txd::POPTS_IXSM | (paylen << 14);
        let data = data_desc(BUF, f.len(), txd::EOP | txd::RS | txd::TSE, olinfo);
        let (mut m, _) = run(&[ctx, data], &[&f]);
        let out = m.take_outbox();
        assert_eq!(out.len(), 3);
        for (i, seg) in out.iter().enumerate() {
            let s = &seg.data;
            assert_eq!(s.len(), 14 + 20 + 20 + 1000);
            assert_eq!(packet::checksum(&s[14..34], 0), 0, "IPv4 header checksum");
            assert_eq!(packet::be16(s, 16), 1040, "total length");
            assert_eq!(packet::be16(s, 18), 0x1000 + i as u16, "IP ID");
            assert_eq!(packet::be32(s, 34 + 4), 1000 + 1000 * i as u32, "sequence");
            let flags = s[34 + 13];
            assert_eq!(flags & 0x09 != 0, i == 2, "FIN/PSH only on the last");
            let p = parse(s, 0x8100).unwrap();
            assert!(matches!(p.l3, L3::Ipv4 { .. }));
            assert_eq!(packet::l4_checksum_ok(s, &p), Some(true), "segment {i}");
            assert_eq!(&s[54..], &f[54 + 1000 * i..54 + 1000 * (i + 1)]);
        }
        assert_eq!(m.read32(stats::TSCTC), 1);
        assert_eq!(m.read32(stats::GPTC), 3);
    }

    #[test]
    fn tx_timestamp_request_captures_set() {
        let f = udp_frame(20, true);
        let cmd = txd::EOP | txd::RS | txd::MAC_TSTAMP | (2 << txd::TSTAMP_SEL_SHIFT);
        let (mut m, mem) = {
            let (mut m, _) = new_mac();
            let mem = VecMemory::new(1 << 20);
            m.write32(regs::TSYNCTXCTL, 0x30, &mem);
            m.write32(regs::TSIM, crate::regs::tsicr::TXTS, &mem);
            (m, mem)
        };
        m.set_partner(Partner::Present(Abilities::ALL));
        mem.write(BUF, &f).unwrap();
        mem.write(RING, &data_desc(BUF, f.len(), cmd, 0)).unwrap();
        m.write32(regs::TCTL, 0x0103_F0FA, &mem);
        m.write32(txq(0, regs::TDLEN), 256, &mem);
        m.write32(txq(0, regs::TDBAL), RING as u32, &mem);
        m.write32(txq(0, regs::TXDCTL), qctl::ENABLE, &mem);
        m.write32(txq(0, regs::TDT), 1, &mem);
        assert_eq!(m.read32(regs::TSYNCTXCTL) & 0xF, 0b100);
        assert_ne!(m.read32(regs::ICR) & icr::TS, 0);
        assert_eq!(m.read32(regs::TSICR), crate::regs::tsicr::TXTS);
    }
}
