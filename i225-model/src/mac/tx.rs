// SPDX-License-Identifier: GPL-2.0

//! Transmit: descriptor rings, advanced context and data descriptors,
//! checksum offload, TSO, VLAN insertion, the TX packet buffer and the wire
//! at the link's line rate, TX timestamps and DD write-back.
//!
//! A packet is only fetched once its EOP descriptor is below TDT and the
//! packet buffer has room for it; TDH then moves past it and every
//! descriptor of it with RS gets DD written back. Its frames leave the
//! buffer at line rate ([`Transmitter`]). A TDT (or TXDCTL/TCTL enabling)
//! write fetches what fits at once; the port's worker does the rest at
//! [`Mac::next_tx_deadline`] ([`Mac::run_tx`]).

use std::collections::VecDeque;

use super::Mac;
use crate::dma::GuestMemory;
use crate::interrupts::QueueDir;
use crate::lateness::Lateness;
use crate::packet::{self, ETH_ZLEN, FCS_LEN};
use crate::regs::{self, icr, qctl, tctl, txq, NUM_QUEUES};
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
    /// Frames lost from the packet buffer, fetched but not sent: the link went down or
    /// changed speed, or the MAC was reset. (Their descriptors were done when they were
    /// fetched, as on hardware.)
    pub flushed: u64,
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

/// Wire time in ns of a frame of `len` bytes (without FCS) at `mbps`: the frame, its FCS,
/// preamble and SFD, and the interframe gap, rounded up to the ns.
pub fn wire_ns(len: usize, mbps: u32) -> u64 {
    ((len + WIRE_OVERHEAD) as u64 * 8000).div_ceil(u64::from(mbps.max(1)))
}

/// Bytes a frame takes on the wire besides its own (without FCS): FCS 4, preamble and SFD 8,
/// interframe gap 12.
pub const WIRE_OVERHEAD: usize = FCS_LEN + 8 + 12;

/// How long before its first bit is due to leave a frame may be handed to the cable (with
/// that instant as [`Frame::host_ns`]): about the port worker's own wake-up latency (the
/// timer slack of 50 µs), so that the worker needs not wake for every frame of a burst, and
/// the far end sees frames no further from their time than a worker woken for each would
/// deliver them. TX timestamps are never taken early.
pub const TX_HANDOFF_LEAD_NS: u64 = 50_000;

/// A frame in the TX packet buffer, waiting for the wire or leaving.
#[derive(Debug)]
pub(crate) struct BufferedFrame {
    /// Handed to the cable (left empty) at `departure` (less [`TX_HANDOFF_LEAD_NS`]).
    data: Vec<u8>,
    len: usize,
    queue: usize,
    /// Host time its first bit leaves the MAC: the TX timestamp's instant, and
    /// [`Frame::host_ns`] of the frame handed to the cable then.
    departure: u64,
    /// Host time its last bit (and the interframe gap after it) has left: its room in the
    /// buffer is free from then.
    end: u64,
}

/// A TX timestamp request, taken when its frame starts to leave.
#[derive(Clone, Copy, Debug)]
struct StampDue {
    departure: u64,
    set: usize,
    timer1: bool,
}

/// A packet read from the ring that waits for room in the packet buffer (TDH still at it).
#[derive(Clone, Debug)]
pub(crate) struct Staged {
    frames: Vec<Vec<u8>>,
    report: Vec<u64>,
    /// TDH once it is fetched.
    next: u64,
    stamp: Option<(usize, bool)>,
    /// Host time it has been there for the MAC to fetch since.
    avail: u64,
}

/// A packet's descriptor write-back (DD on its RS descriptors), due once the packet is in
/// the packet buffer.
#[derive(Clone, Debug)]
pub(crate) struct WriteBack {
    due: u64,
    report: Vec<u64>,
}

/// The port's transmitter: the TX packet buffer and the wire it drains into.
///
/// The MAC fetches a packet from a ring into the buffer once the buffer has room for it
/// (TXPBS; a packet larger than the buffer, once it is empty); TDH moves past the packet and
/// DD is written back to its RS descriptors then: the datasheet's DD means "buffered in the
/// output FIFO" (I210 7.2.2.1.4, RS: "... all packets up to (and including) the one with the
/// RS bit set have been buffered in the output FIFO"). A TSO packet streams through the
/// buffer a segment at a time: its DD comes once its last segment is in. The buffer drains
/// at the link's line rate, one frame after the other. When a frame starts to leave its TX
/// timestamp is taken (TXTT, TSICR.TXTS); it is counted and handed to the cable with that
/// instant as [`Frame::host_ns`], up to [`TX_HANDOFF_LEAD_NS`] before it (the far end takes
/// it in whole then: a receiver's store-and-forward time is not modelled, on either side);
/// its room in the buffer is free once its last bit has left. The rest of the ring waits:
/// under load TDH lags TDT and the ring backs up. With the wire idle a frame leaves at once,
/// in the register write that fetched it.
///
/// The timed work runs late by the host's scheduling latency; it is done as of when it was
/// due (a packet fetched when room was free, not when the worker woke), so that the line rate
/// holds whatever the latency.
#[derive(Debug, Default)]
pub(crate) struct Transmitter {
    /// In departure order, which is also the order they end in.
    frames: VecDeque<BufferedFrame>,
    /// How many of `frames` (at the front) have been handed to the cable.
    departed: usize,
    /// Timestamp requests of frames in the buffer, in departure order.
    stamps: VecDeque<StampDue>,
    /// Bytes of `frames`.
    bytes: usize,
    /// Host time the wire is free from (the end of the last frame).
    wire_free_at: u64,
    /// Host time of the latest fetch into the buffer: fetches are in order.
    last_fetch: u64,
    /// No fetch is dated before this: the latest time the transmitter was (re)started.
    floor: u64,
    /// The queue whose packet is fetched first the next time (round robin, a packet each).
    next_queue: usize,
    /// How late frames were handed to the cable after their first bit left (0 for those
    /// handed over before, up to [`TX_HANDOFF_LEAD_NS`]).
    pub(crate) lateness: Lateness,
}

impl Transmitter {
    /// The earliest host time from `avail` on at which `need` more bytes fit in a buffer of
    /// `capacity` bytes, given the frames already in it (each frees its room at its end),
    /// or at which the buffer is empty.
    fn room_at(&self, need: usize, avail: u64, capacity: usize) -> u64 {
        let mut held = self.bytes;
        let mut at = avail;
        for f in &self.frames {
            if f.end <= at {
                held -= f.len;
                continue;
            }
            if held + need <= capacity {
                break;
            }
            held -= f.len;
            at = f.end;
        }
        at
    }

    /// Puts a frame fetched at `at` behind the others on the wire.
    fn push(&mut self, data: Vec<u8>, queue: usize, at: u64, mbps: u32, stamp: Option<(usize, bool)>) {
        let len = data.len();
        let departure = at.max(self.wire_free_at);
        let end = departure + wire_ns(len, mbps);
        self.wire_free_at = end;
        self.bytes += len;
        self.frames.push_back(BufferedFrame { data, len, queue, departure, end });
        if let Some((set, timer1)) = stamp {
            self.stamps.push_back(StampDue { departure, set, timer1 });
        }
    }
}

/// The TX packet buffer and the wire, for the control socket.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxBufferStatus {
    /// Frames in the packet buffer (fetched, not fully left), per queue.
    pub frames: [usize; NUM_QUEUES],
    pub bytes: usize,
    pub capacity: usize,
    /// How long the wire is busy from now with what is in the buffer.
    pub backlog_ns: u64,
    /// Packets in the buffer whose descriptor write-back is still due (TSO), per queue.
    pub writebacks_due: [usize; NUM_QUEUES],
}

impl Mac {
    /// The TX work due now, after a register write that may let the MAC fetch (TDT, TXDCTL
    /// or TCTL enabling, the link back, bus mastering on): fetches into the packet buffer as
    /// it has room, timestamps of frames that started leaving, frames that have left handed
    /// to the cable, descriptor write-backs due.
    pub(crate) fn transmit(&mut self, mem: &dyn GuestMemory) {
        self.tx_work(mem, true);
    }

    /// The TX work due by now, for the port's worker at each wake-up (see
    /// [`Mac::next_tx_deadline`]); the ring is read again only when room in the packet
    /// buffer came free.
    pub fn run_tx(&mut self, mem: &dyn GuestMemory) {
        self.tx_work(mem, false);
    }

    /// The link came back (or bus mastering, or the TX unit): TX DMA resumes on every queue
    /// with descriptors pending.
    pub fn resume_tx(&mut self, mem: &dyn GuestMemory) {
        self.restart_tx(mem);
    }

    /// `transmit`, where the MAC could not fetch until now: nothing it fetches is dated
    /// earlier.
    pub(crate) fn restart_tx(&mut self, mem: &dyn GuestMemory) {
        self.tx.floor = self.tx.floor.max(self.now());
        self.transmit(mem);
    }

    /// Host time at which TX work falls due: a frame is to be handed to the cable, a frame
    /// with a timestamp request starts leaving, a frame has left while a packet waits for its
    /// room in the buffer, a write-back is due.
    pub fn next_tx_deadline(&self) -> Option<u64> {
        let handoff = self.tx.frames.get(self.tx.departed).map(|f| f.departure.saturating_sub(TX_HANDOFF_LEAD_NS));
        let stamp = self.tx.stamps.front().map(|s| s.departure);
        let room = self.tx.frames.front().filter(|_| self.tx_waiting_for_room()).map(|f| f.end);
        let write_backs = self.txq.iter().filter_map(|q| q.write_backs.front().map(|w| w.due));
        handoff.into_iter().chain(stamp).chain(room).chain(write_backs).min()
    }

    /// A packet read from a ring waits for room in the packet buffer.
    fn tx_waiting_for_room(&self) -> bool {
        self.txq.iter().any(|q| q.staged.is_some())
    }

    /// The TX packet buffer's size: TXPBS's four packet buffer sizes (KB; igc gives queue 0
    /// all 20 KB, in TSN mode each queue 5 KB), shared by the queues here.
    pub fn tx_buffer_capacity(&self) -> usize {
        let txpbs = self.reg(regs::TXPBS);
        (0..4).map(|i| ((txpbs >> (6 * i)) & 0x3F) as usize * 1024).sum()
    }

    /// How late frames were handed to the cable after their first bit left.
    pub fn tx_lateness(&self) -> &Lateness {
        &self.tx.lateness
    }

    pub fn clear_tx_lateness(&mut self) {
        self.tx.lateness.clear();
    }

    /// The TX packet buffer and the wire now.
    pub fn tx_buffer(&self) -> TxBufferStatus {
        let mut frames = [0; NUM_QUEUES];
        for f in &self.tx.frames {
            frames[f.queue] += 1;
        }
        TxBufferStatus {
            frames,
            bytes: self.tx.bytes,
            capacity: self.tx_buffer_capacity(),
            backlog_ns: if self.tx.frames.is_empty() { 0 } else { self.tx.wire_free_at.saturating_sub(self.now()) },
            writebacks_due: std::array::from_fn(|q| self.txq[q].write_backs.len()),
        }
    }

    /// The link changed or the MAC was reset: the frames in the packet buffer are lost (they
    /// never reach the cable; counted) and packets read from the rings but not fetched are
    /// read again. Write-backs due stay due: those packets were fetched.
    pub(crate) fn flush_tx_buffer(&mut self, why: &str) {
        let n = self.tx.frames.len();
        if n > self.tx.departed {
            log::info!("TX: {} frames in the packet buffer flushed ({why})", n - self.tx.departed);
        }
        self.tx_counts.flushed += (n - self.tx.departed) as u64;
        self.tx.frames.clear();
        self.tx.departed = 0;
        self.tx.stamps.clear();
        self.tx.bytes = 0;
        self.tx.wire_free_at = 0;
        for q in &mut self.txq {
            q.staged = None;
        }
    }

    fn tx_work(&mut self, mem: &dyn GuestMemory, fetch: bool) {
        let now = self.now();
        if fetch || (self.tx_waiting_for_room() && self.tx.frames.front().is_some_and(|f| f.end <= now)) {
            self.fill_tx_buffer(now, mem);
        }
        self.run_wire(now);
        self.run_write_backs(now, mem);
    }

    /// Fetches packets into the packet buffer while it has room by `now`, a packet per queue
    /// in turn.
    fn fill_tx_buffer(&mut self, now: u64, mem: &dyn GuestMemory) {
        // A hung TX unit fetches nothing; without a link the MAC stops its TX DMA and the
        // descriptors stay pending until the link returns (`resume_tx`), as on hardware.
        let Some(link) = self.link() else { return };
        if self.faults.tx_hang || self.reg(regs::TCTL) & tctl::EN == 0 {
            return;
        }
        let (mbps, capacity) = (link.speed.mbps(), self.tx_buffer_capacity());
        'fill: loop {
            for i in 0..NUM_QUEUES {
                let q = (self.tx.next_queue + i) % NUM_QUEUES;
                if self.fetch_into_buffer(q, now, mbps, capacity, mem) {
                    self.tx.next_queue = (q + 1) % NUM_QUEUES;
                    continue 'fill;
                }
            }
            return;
        }
    }

    /// Fetches queue `q`'s next packet if the buffer has room for it by `now`.
    fn fetch_into_buffer(&mut self, q: usize, now: u64, mbps: u32, capacity: usize, mem: &dyn GuestMemory) -> bool {
        if self.reg(txq(q, regs::TXDCTL)) & qctl::ENABLE == 0 {
            return false;
        }
        if self.txq[q].staged.is_none() {
            match self.stage(q, mem) {
                Some(staged) => self.txq[q].staged = Some(staged),
                None => return false,
            }
        }
        let Some(staged) = &self.txq[q].staged else { return false };
        let avail = staged.avail.max(self.tx.floor).max(self.tx.last_fetch);
        let at = match staged.frames.first() {
            Some(f) => self.tx.room_at(f.len(), avail, capacity),
            None => avail,
        };
        if at > now {
            return false;
        }
        let Some(staged) = self.txq[q].staged.take() else { return false };
        self.tx.last_fetch = at;
        self.set_reg(txq(q, regs::TDH), staged.next as u32);
        let n = staged.frames.len();
        let mut done = at;
        for (i, data) in staged.frames.into_iter().enumerate() {
            if i > 0 && i + 1 == n {
                // The last segment of a TSO packet is in the buffer once there is room for it.
                done = self.tx.room_at(data.len(), at, capacity);
            }
            self.tx.push(data, q, at, mbps, if i == 0 { staged.stamp } else { None });
        }
        if !staged.report.is_empty() {
            // In ring order.
            let due = done.max(self.txq[q].write_backs.back().map_or(0, |w| w.due));
            self.txq[q].write_backs.push_back(WriteBack { due, report: staged.report });
        }
        true
    }

    /// Reads queue `q`'s next complete packet from TDH on and makes its frames.
    fn stage(&mut self, q: usize, mem: &dyn GuestMemory) -> Option<Staged> {
        let base = (u64::from(self.reg(txq(q, regs::TDBAH))) << 32) | u64::from(self.reg(txq(q, regs::TDBAL)) & !0xF);
        let count = self.reg(txq(q, regs::TDLEN)) as u64 / DESC_SIZE;
        let tail = u64::from(self.reg(txq(q, regs::TDT)));
        let head = u64::from(self.reg(txq(q, regs::TDH)));
        if count == 0 || head >= count || tail >= count {
            if count != 0 {
                log::warn!("TX queue {q}: head {head} / tail {tail} outside a ring of {count}");
            }
            return None;
        }
        if head == tail {
            return None;
        }
        match self.fetch_packet(q, mem, base, count, head, tail) {
            Ok((mut pkt, next)) => {
                let advanced = pkt.cmd & txd::DEXT != 0;
                let stamp = (advanced && pkt.cmd & txd::MAC_TSTAMP != 0).then_some((
                    ((pkt.cmd >> txd::TSTAMP_SEL_SHIFT) & 3) as usize,
                    pkt.olinfo & txd::PTP2_TIMER_1 != 0,
                ));
                let frames = self.prepare_frames(q, &mut pkt);
                Some(Staged { frames, report: pkt.report, next, stamp, avail: self.txq[q].tail_at })
            }
            Err(Stall::Incomplete) => None,
            Err(Stall::Dma(e)) => {
                log::warn!("TX queue {q}: {e}");
                None
            }
        }
    }

    /// Frames that started leaving: their TX timestamps taken. Frames about to: counted,
    /// handed to the cable. Frames that have left: their room in the buffer freed.
    fn run_wire(&mut self, now: u64) {
        if self.tx.stamps.front().is_some_and(|s| s.departure <= now) {
            let (tx_latency, _) = crate::ptp::latencies(self.link().map_or(0, |l| l.speed.mbps()));
            while let Some(s) = self.tx.stamps.front().copied().filter(|s| s.departure <= now) {
                self.tx.stamps.pop_front();
                if self.ptp.capture_tx(s.set, s.timer1, s.departure, tx_latency) {
                    self.intr.raise(icr::TS);
                }
            }
        }
        while let Some(f) = self.tx.frames.get_mut(self.tx.departed) {
            let due = f.departure.saturating_sub(TX_HANDOFF_LEAD_NS);
            if due > now {
                break;
            }
            let (data, queue, departure) = (std::mem::take(&mut f.data), f.queue, f.departure);
            self.tx.departed += 1;
            self.tx.lateness.record(now.saturating_sub(departure));
            self.count_tx(queue, &data);
            self.outbox.push(Frame { data, host_ns: departure });
        }
        while self.tx.departed > 0 && self.tx.frames.front().is_some_and(|f| f.end <= now) {
            if let Some(f) = self.tx.frames.pop_front() {
                self.tx.bytes -= f.len;
                self.tx.departed -= 1;
            }
        }
    }

    /// Writes back DD for the packets whose write-back is due, in ring order: one TX queue
    /// event per queue written back.
    fn run_write_backs(&mut self, now: u64, mem: &dyn GuestMemory) {
        for q in 0..NUM_QUEUES {
            let mut reported = false;
            while self.txq[q].write_backs.front().is_some_and(|w| w.due <= now) {
                let Some(wb) = self.txq[q].write_backs.pop_front() else { break };
                for &desc in &wb.report {
                    if let Err(e) = mem.write_u32(desc + 12, txd::STAT_DD) {
                        log::warn!("TX queue {q}: write-back failed: {e}");
                    }
                }
                reported = true;
            }
            if reported {
                self.intr.queue_event(QueueDir::Tx, q);
            }
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

    /// The frames of a packet, offloads applied (checksums, TSO, VLAN insertion, padding);
    /// none for a packet under the minimum size.
    fn prepare_frames(&mut self, q: usize, pkt: &mut TxPacket) -> Vec<Vec<u8>> {
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
            return Vec::new();
        }
        let ctx = self.txq[q].ctx[((pkt.olinfo >> txd::CTX_IDX_SHIFT) & 1) as usize];
        let mut frames = if advanced && pkt.cmd & txd::TSE != 0 {
            self.stats.add(stats::TSCTC, 1);
            segment(&pkt.data, &ctx)
        } else {
            let mut f = std::mem::take(&mut pkt.data);
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

        frames
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
    use crate::phy::{Abilities, Partner, Speed};
    use crate::ptp::{TimeSource, VirtualClock};
    use std::sync::Arc;

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
    fn run(descs: &[[u8; 16]], bufs: &[&[u8]]) -> (Mac, VecMemory, Arc<VirtualClock>) {
        let (mut m, clock) = new_mac();
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
        (m, mem, clock)
    }

    /// What has left for the cable once the wire is done with everything fetched (the port's
    /// worker running the timed TX work at each TX deadline).
    fn sent(m: &mut Mac, clock: &VirtualClock, mem: &VecMemory) -> Vec<Frame> {
        while let Some(due) = m.next_tx_deadline() {
            clock.set(due.max(clock.now_ns()));
            m.run_tx(mem);
        }
        m.take_outbox()
    }

    #[test]
    fn plain_packet_dd_writeback_and_stats() {
        let f = udp_frame(100, true);
        let (mut m, mem, clock) = run(&[data_desc(BUF, f.len(), txd::EOP | txd::RS | txd::IFCS, 0)], &[&f]);
        // Fetched into the packet buffer: done, though still leaving.
        assert_eq!(mem.read_u32(RING + 12).unwrap() & txd::STAT_DD, 1);
        assert_eq!(m.read32(txq(0, regs::TDH)), 1);
        let out = sent(&mut m, &clock, &mem);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].data, f);
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
        let (mut m, mem, clock) = run(&descs, &[&f]);
        let out = sent(&mut m, &clock, &mem);
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
        let out = sent(&mut m, &clock, &mem);
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
        assert_eq!(m.next_tx_deadline(), None, "nothing fetched, nothing to leave");
    }

    #[test]
    fn hung_tx_unit_sends_nothing_until_a_mac_reset() {
        let (mut m, mem, clock) = run(&[], &[]);
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
        assert_eq!(sent(&mut m, &clock, &mem).len(), 1);
    }

    #[test]
    fn without_link_descriptors_wait_until_it_returns() {
        let (mut m, mem, clock) = run(&[], &[]);
        m.set_partner(Partner::Absent);
        post_one_and_see_it_held(&mut m, &mem);
        m.set_partner(Partner::Present(Abilities::ALL));
        m.resume_tx(&mem);
        assert_eq!(sent(&mut m, &clock, &mem).len(), 1);
        assert_eq!(m.tx_pending(), 0);
        assert_eq!(mem.read_u32(RING + 12).unwrap() & txd::STAT_DD, 1);
    }

    #[test]
    fn incomplete_packet_waits_for_eop() {
        let f = udp_frame(100, true);
        let (mut m, mem, clock) = run(&[data_desc(BUF, 50, 0, 0)], &[&f]);
        assert!(sent(&mut m, &clock, &mem).is_empty());
        assert_eq!(m.read32(txq(0, regs::TDH)), 0);
        mem.write(RING + 16, &data_desc(BUF + 50, f.len() - 50, txd::EOP | txd::RS, 0)).unwrap();
        m.write32(txq(0, regs::TDT), 2, &mem);
        let out = sent(&mut m, &clock, &mem);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].data, f);
        assert_eq!(m.read32(txq(0, regs::TDH)), 2);
    }

    #[test]
    fn udp_checksum_offload_and_vlan_insertion() {
        let f = udp_frame(33, true);
        let ctx = ctx_desc(14, 20, 0x0123, 0x400, 0, 0);
        let data = data_desc(BUF, f.len(), txd::EOP | txd::RS | txd::VLE, txd::POPTS_TXSM);
        let (mut m, mem, clock) = run(&[ctx, data], &[&f]);
        let out = sent(&mut m, &clock, &mem).remove(0).data;
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
        let (mut m, mem, clock) = run(&[ctx, data], &[&f]);
        let out = sent(&mut m, &clock, &mem);
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

    /// Wire time of a frame of `len` bytes (without FCS): FCS, preamble and SFD, and the
    /// interframe gap, at `mbps`, rounded up to the ns.
    fn wire(len: usize, mbps: u32) -> u64 {
        ((len as u64 + 24) * 8000).div_ceil(u64::from(mbps))
    }

    /// TX queue 0 with a ring of `count` descriptors at RING, the link at `speed`.
    fn tx_port(speed: Speed, count: u32) -> (Mac, VecMemory, Arc<VirtualClock>) {
        let (mut m, clock) = new_mac();
        m.set_partner(Partner::Present(Abilities::up_to(speed)));
        assert_eq!(m.link().unwrap().speed, speed);
        let mem = VecMemory::new(1 << 20);
        m.write32(regs::TCTL, 0x0103_F0FA, &mem);
        m.write32(txq(0, regs::TDLEN), 16 * count, &mem);
        m.write32(txq(0, regs::TDBAL), RING as u32, &mem);
        m.write32(txq(0, regs::TXDCTL), 0x0210_0108, &mem);
        (m, mem, clock)
    }

    /// Writes `descs` from ring index `first` on and moves TDT past them.
    fn post(m: &mut Mac, mem: &VecMemory, first: u32, descs: &[[u8; 16]]) {
        for (i, d) in descs.iter().enumerate() {
            mem.write(RING + 16 * (u64::from(first) + i as u64), d).unwrap();
        }
        m.write32(txq(0, regs::TDT), first + descs.len() as u32, mem);
    }

    /// The port's worker: the timed TX work at each TX deadline up to `until`, then at `until`.
    fn run_until(m: &mut Mac, clock: &VirtualClock, mem: &VecMemory, until: u64) {
        while let Some(due) = m.next_tx_deadline().filter(|&due| due <= until) {
            clock.set(due.max(clock.now_ns()));
            m.run_tx(mem);
        }
        clock.set(until.max(clock.now_ns()));
        m.run_tx(mem);
    }

    fn dd(mem: &VecMemory, i: u64) -> bool {
        mem.read_u32(RING + 16 * i + 12).unwrap() & txd::STAT_DD != 0
    }

    /// n plain frames of `len` bytes, RS on each.
    fn frames(mem: &VecMemory, n: usize, len: usize, last_cmd: u32) -> Vec<[u8; 16]> {
        let f = udp_frame(len - 42, true);
        mem.write(BUF, &f).unwrap();
        let eop = txd::EOP | txd::RS | txd::IFCS;
        (0..n).map(|i| data_desc(BUF, len, if i + 1 == n { eop | last_cmd } else { eop }, 0)).collect()
    }

    /// How many of frames leaving back to back every `w` ns from `t0` are handed to the
    /// cable by `now` (up to TX_HANDOFF_LEAD_NS before they start leaving).
    fn handed(t0: u64, w: u64, now: u64, n: u64) -> usize {
        (0..n).filter(|k| t0 + k * w <= now + TX_HANDOFF_LEAD_NS).count()
    }

    /// Frames leave one after the other at the link's line rate (2.5G, 1G, 100M, 10M): each
    /// one starts leaving when the one before has left, stamped with that instant, and is
    /// handed to the cable then (up to TX_HANDOFF_LEAD_NS before). (All left at the instant
    /// of the tail write before.)
    #[test]
    fn frames_leave_back_to_back_at_the_line_rate() {
        for speed in [Speed::M2500, Speed::M1000, Speed::M100, Speed::M10] {
            let (mut m, mem, clock) = tx_port(speed, 16);
            let t0 = clock.now_ns();
            let descs = frames(&mem, 3, 1514, 0);
            post(&mut m, &mem, 0, &descs);
            let w = wire(1514, speed.mbps());
            let mut out = m.take_outbox();
            assert_eq!(out.len(), handed(t0, w, t0, 3), "{speed:?}: at the tail write");
            assert_eq!(out[0].host_ns, t0, "{speed:?}: the wire was idle: the first leaves at once");
            if let Some(f) = out.get(1) {
                assert_eq!(f.host_ns, t0 + w, "{speed:?}: the second leaves after the first");
            }
            assert_eq!(m.tx_buffer().backlog_ns, 3 * w, "{speed:?}: the wire is busy with all three");
            for k in 1..3u64 {
                let due = (t0 + k * w).saturating_sub(TX_HANDOFF_LEAD_NS);
                if due > t0 {
                    run_until(&mut m, &clock, &mem, due - 1);
                    assert_eq!(out.len() + m.take_outbox().len(), k as usize, "{speed:?}: frame {k} not yet");
                    run_until(&mut m, &clock, &mem, due);
                    out.extend(m.take_outbox());
                }
                assert_eq!(out.len(), handed(t0, w, clock.now_ns(), 3), "{speed:?}: frame {k} handed over");
                assert_eq!(out[k as usize].host_ns, t0 + k * w, "{speed:?}: frame {k} starts leaving");
            }
            assert_eq!(m.read32(stats::GPTC), 3);
            run_until(&mut m, &clock, &mem, t0 + 3 * w - 1);
            assert!(m.tx_buffer().bytes > 0, "{speed:?}: the last one still leaving");
            run_until(&mut m, &clock, &mem, t0 + 3 * w);
            assert_eq!((m.tx_buffer().bytes, m.next_tx_deadline()), (0, None), "{speed:?}: all gone");
        }
    }

    /// The MAC fetches only as far ahead of the wire as its TX packet buffer holds (TXPBS: 20
    /// KB for igc), and writes DD back once a packet is in it; the rest of the ring waits, so
    /// under load TDH lags TDT and the ring backs up. (The whole ring drained at the tail
    /// write before, whatever the speed.)
    #[test]
    fn the_ring_backs_up_behind_the_packet_buffer() {
        let (mut m, mem, clock) = tx_port(Speed::M10, 64);
        let t0 = clock.now_ns();
        post(&mut m, &mem, 0, &frames(&mem, 40, 1514, 0));
        let fits = 20 * 1024 / 1514; // 13
        assert_eq!(m.read32(txq(0, regs::TDH)), fits as u32, "fetched as far as the buffer holds");
        assert!(dd(&mem, fits - 1) && !dd(&mem, fits), "DD for what is in the buffer only");
        assert_eq!(m.tx_pending(), 40 - fits);
        let w = wire(1514, 10);
        run_until(&mut m, &clock, &mem, t0 + w);
        assert_eq!(m.take_outbox().len(), 2, "the first has left, the second is leaving");
        assert_eq!(handed(t0, w, t0 + w, 40), 2);
        assert_eq!(m.read32(txq(0, regs::TDH)), fits as u32 + 1, "one more fetched as one left");
        assert!(dd(&mem, fits));
        run_until(&mut m, &clock, &mem, t0 + 40 * w);
        assert_eq!(m.take_outbox().len(), 38);
        assert_eq!((m.read32(txq(0, regs::TDH)), m.tx_pending()), (40, 0));
        assert!((0..40).all(|i| dd(&mem, i)));
        assert_eq!(m.next_tx_deadline(), None, "nothing left to do");
    }

    /// The TX timestamp is taken when the frame starts to leave, after its DD (a frame that
    /// waits in the packet buffer has its descriptor done long before): TXTT and TSICR.TXTS
    /// appear no earlier than that instant, and the stamp is that instant's SYSTIM0 less the
    /// TX latency igc adds back. (It was taken at the tail write before.)
    #[test]
    fn the_tx_timestamp_is_taken_when_the_frame_leaves() {
        let (mut m, mem, clock) = tx_port(Speed::M10, 16);
        m.write32(regs::TSYNCTXCTL, 0x10, &mem);
        m.write32(regs::TSIM, crate::regs::tsicr::TXTS, &mem);
        let t0 = clock.now_ns();
        post(&mut m, &mem, 0, &frames(&mem, 3, 1514, txd::MAC_TSTAMP));
        assert!(dd(&mem, 2), "the third frame is in the buffer: DD");
        let leaves = t0 + 2 * wire(1514, 10);
        run_until(&mut m, &clock, &mem, leaves - 1);
        assert_eq!(m.read32(regs::TSYNCTXCTL) & 0xF, 0, "no stamp before the frame leaves");
        assert_eq!(m.read32(regs::TSICR), 0);
        run_until(&mut m, &clock, &mem, leaves);
        assert_eq!(m.read32(regs::TSYNCTXCTL) & 0xF, 1, "TXTT_0");
        assert_eq!(m.read32(regs::TSICR), crate::regs::tsicr::TXTS);
        let stamp = i128::from(m.read32(regs::TXSTMPH_0)) * 1_000_000_000 + i128::from(m.read32(regs::TXSTMPL_0));
        assert_eq!(stamp, m.ptp().systim0.at(leaves) - crate::ptp::latencies(10).0);
    }

    /// The link drops with frames in the packet buffer: they are flushed, never reach the
    /// cable, and are counted; nothing more is fetched (TDH stays) until the link returns,
    /// then the rest of the ring leaves. (Every frame left at the tail write before.)
    #[test]
    fn link_down_flushes_the_packet_buffer() {
        let (mut m, mem, clock) = tx_port(Speed::M10, 64);
        let t0 = clock.now_ns();
        post(&mut m, &mem, 0, &frames(&mem, 20, 1514, 0));
        run_until(&mut m, &clock, &mem, t0 + wire(1514, 10));
        assert_eq!(m.take_outbox().len(), 2, "one has left, one is leaving");
        let head = m.read32(txq(0, regs::TDH));
        assert_eq!(head, 14);
        m.set_partner(Partner::Absent);
        run_until(&mut m, &clock, &mem, t0 + 100 * wire(1514, 10));
        assert!(m.take_outbox().is_empty(), "flushed, not sent");
        assert_eq!(m.tx_counts.flushed, 12, "the 12 behind the one leaving");
        assert_eq!((m.read32(txq(0, regs::TDH)), m.tx_pending()), (head, 20 - u64::from(head)));
        assert!(!dd(&mem, u64::from(head)));
        m.set_partner(Partner::Present(Abilities::up_to(Speed::M10)));
        m.resume_tx(&mem);
        run_until(&mut m, &clock, &mem, clock.now_ns() + 100 * wire(1514, 10));
        assert_eq!(m.take_outbox().len(), 6);
        assert_eq!(m.tx_pending(), 0);
    }

    /// A TSO packet larger than the packet buffer: its segments stream through it, and its
    /// DD comes once its last segment is in it. (DD came at the tail write before.)
    #[test]
    fn tso_is_done_when_its_last_segment_is_in_the_buffer() {
        let (mut m, mem, clock) = tx_port(Speed::M1000, 16);
        let t0 = clock.now_ns();
        let due = tso_40k(&mut m, &mem);
        assert!(!dd(&mem, 1), "the last segment is not in the buffer yet");
        let w = wire(1054, 1000);
        run_until(&mut m, &clock, &mem, due - 1);
        assert!(!dd(&mem, 1));
        let early = handed(t0, w, due - 1, 40);
        assert_eq!(m.take_outbox().len(), early, "segments leaving meanwhile");
        run_until(&mut m, &clock, &mem, due);
        assert!(dd(&mem, 1), "DD once the last segment is in the buffer");
        run_until(&mut m, &clock, &mem, t0 + 40 * w);
        let rest = m.take_outbox();
        assert_eq!(early + rest.len(), 40);
        assert!(rest.iter().zip(early as u64..).all(|(f, k)| f.host_ns == t0 + k * w), "at line rate");
    }

    /// Posts a TSO packet of 40 segments of 1054 bytes at index 0 (context) and 1 (data);
    /// returns when its DD is due at 1 Gb/s from an idle wire: when the 19426 bytes the
    /// buffer has room for ahead of the last segment (20480 - 1054) are 18 segments, so
    /// after 21 have left.
    fn tso_40k(m: &mut Mac, mem: &VecMemory) -> u64 {
        let t0 = m.now();
        let f = tcp_frame(40_000);
        mem.write(BUF, &f).unwrap();
        let ctx = ctx_desc(14, 20, 0, txd::TUCMD_IPV4 | txd::TUCMD_L4T_TCP, 20, 1000);
        let olinfo = txd::POPTS_TXSM | txd::POPTS_IXSM | (40_000 << 14);
        post(m, mem, 0, &[ctx, data_desc(BUF, f.len(), txd::EOP | txd::RS | txd::TSE, olinfo)]);
        t0 + 21 * wire(1054, 1000)
    }

    /// A MAC reset (CTRL.RST) or a queue disable (TXDCTL.ENABLE clear) ends the TX DMA in
    /// flight: a write-back still due is never made (the driver frees the ring after
    /// either), however long the wire takes.
    #[test]
    fn reset_or_queue_disable_drops_the_write_back_in_flight() {
        for how in ["CTRL.RST", "TXDCTL"] {
            let (mut m, mem, clock) = tx_port(Speed::M1000, 16);
            let due = tso_40k(&mut m, &mem);
            run_until(&mut m, &clock, &mem, due / 2 + clock.now_ns() / 2);
            assert!(!dd(&mem, 1), "{how}: DD still due");
            match how {
                "CTRL.RST" => m.write32(regs::CTRL, crate::regs::ctrl::RST, &mem),
                _ => m.write32(txq(0, regs::TXDCTL), qctl::SWFLUSH, &mem),
            }
            run_until(&mut m, &clock, &mem, due + 100 * wire(1054, 1000));
            assert!(!dd(&mem, 1), "{how}: no write-back after it");
            assert_eq!(m.next_tx_deadline(), None, "{how}");
        }
    }
}
