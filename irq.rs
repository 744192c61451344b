// SPDX-License-Identifier: GPL-2.0

//! Interrupts (`igc_main.c`: `igc_msix_ring`, `igc_msix_other`, `igc_intr_msi`, `igc_intr`): MSI-X
//! with the "other" vector (link, time sync) and the queue vectors, one per queue pair or one
//! per ring ([`Layout`]), as `igc_configure_msix`; or a single MSI or INTx vector for everything.
//!
//! The handlers run in hard-IRQ context: a queue vector only schedules its NAPI context (the
//! vector is auto-masked by EIAM until the poll completes and re-enables it); the other vector
//! reads ICR once (it clears on read), updates the carrier on a link change and re-enables
//! itself.

use kernel::{
    io::Io,
    irq::{self, IrqReturn},
    net::dev::Registration,
    prelude::*,
    sync::{
        atomic::{Atomic, Relaxed},
        Arc,
    },
};

use crate::{
    adapter::{Adapter, MAX_QUEUES},
    hw::Hw,
    regs::{
        Bar0, EIAC, EIAM, EIMC, EIMS, EITR, GPIE, IAM, ICR, IMC, IMS, IVAR, IVAR_MISC, IVAR_VALID,
        STATUS,
    },
};

/// Interrupt moderation values in igc's units (`itr_val`: EITR bits 14:2, the interval in
/// microseconds shifted left by 2): `IGC_START_ITR` (about 6,000 interrupts/s), `IGC_20K_ITR`
/// and `IGC_4K_ITR`.
const ITR_START: u32 = 648;
const ITR_20K: u32 = 196;
const ITR_4K: u32 = 980;

/// EITR for an `itr_val`: bits 14:2, the smallest interval for 0, counters kept on the write.
fn eitr_of(itr: u32) -> EITR {
    let v = itr & 0x7ffc;
    EITR::from_raw(if v == 0 { 0x4 } else { v }).with_cnt_ignr(true)
}

/// Dynamic interrupt moderation of one queue vector, igc's default (`rx_itr_setting` 3, the
/// conservative dynamic mode) with more than one queue vector (`igc_update_ring_itr`): after each
/// completed poll, an interval from the average size of the frames the vector served since the
/// last one, at least `IGC_20K_ITR`, and `IGC_4K_ITR` at 10 and 100 Mb/s. The new value is
/// written to EITR by the vector's next interrupt ([`PendingItr`]), never from the
/// poll: a write restarts the hardware's interval timer.
///
/// Owned by the poll of its NAPI context, which never runs twice at once.
pub(crate) struct Moderation {
    /// The current value (`q_vector->itr_val`).
    itr: u32,
    /// The queue pair's RX and TX packet and byte counts at the last update.
    last: [u64; 4],
    /// The RX and TX latency classes of the only queue vector ([`Moderation::update_single`]).
    class: [Latency; 2],
}

/// The latency class of one direction of the only queue vector (`enum latency_range`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Latency {
    Lowest,
    Low,
    Bulk,
}

impl Latency {
    /// The class after `packets` frames of `bytes` bytes since the last update
    /// (`igc_update_itr`); none: unchanged.
    fn next(self, packets: u64, bytes: u64) -> Self {
        let Some(avg) = bytes.checked_div(packets) else {
            return self;
        };
        match self {
            Self::Lowest if avg > 8000 => Self::Bulk,
            Self::Lowest if packets < 5 && bytes > 512 => Self::Low,
            // TSO and jumbo frames, few or large frames: bulk; many small ones: lowest.
            Self::Low if bytes > 10000 => {
                if avg > 1200 || packets < 10 {
                    Self::Bulk
                } else if packets > 35 {
                    Self::Lowest
                } else {
                    Self::Low
                }
            }
            Self::Low if avg > 2000 => Self::Bulk,
            Self::Low if packets <= 2 && bytes < 512 => Self::Lowest,
            Self::Bulk if bytes > 25000 && packets > 35 => Self::Low,
            Self::Bulk if bytes < 1500 => Self::Low,
            c => c,
        }
    }
}

impl Default for Moderation {
    fn default() -> Self {
        Self::new()
    }
}

impl Moderation {
    /// A vector's moderation at open (`igc_alloc_q_vector`: `IGC_START_ITR`).
    pub(crate) const fn new() -> Self {
        Self {
            itr: ITR_START,
            last: [0; 4],
            class: [Latency::Lowest; 2],
        }
    }

    /// The current value as EITR holds it (`igc_write_itr`).
    pub(crate) fn eitr(&self) -> EITR {
        eitr_of(self.itr)
    }

    /// Updates the value after a completed poll from the running counts of the vector's rings
    /// (RX packets and bytes, TX packets and bytes; 0 for a direction it does not serve) and the
    /// link speed (`igc_update_ring_itr`);
    /// returns the EITR value to write at the next interrupt if it changed.
    pub(crate) fn update(&mut self, counts: [u64; 4], link_mbps: u32) -> Option<EITR> {
        let [rxp, rxb, txp, txb] = self.since_last(counts);
        let new = if matches!(link_mbps, 10 | 100) {
            ITR_4K
        } else {
            let avg = |bytes: u64, packets: u64| bytes.checked_div(packets).unwrap_or(0);
            // The larger average frame of the two directions; no frame: no change.
            let wire = avg(rxb, rxp).max(avg(txb, txp));
            if wire == 0 {
                return None;
            }
            // CRC, preamble and gap; jumbo frames not starved; mid-size frames a little boost.
            let wire = (wire + 24).min(3000) as u32;
            let itr = if wire > 300 && wire < 1200 {
                wire / 3
            } else {
                wire / 2
            };
            // Conservative mode: never below the 20,000 interrupts/s setting.
            itr.max(ITR_20K)
        };
        self.set(new)
    }

    /// Updates the value after a completed poll of the only queue vector, on an MSI or INTx
    /// interrupt (`igc_set_itr`): from the running counts as [`Moderation::update`] takes them,
    /// each direction's latency class, and the slower of the two as 20,000 interrupts/s (the
    /// lowest latency too, in the conservative mode) or 4,000 (bulk); 4,000 at 10 and 100 Mb/s.
    pub(crate) fn update_single(&mut self, counts: [u64; 4], link_mbps: u32) -> Option<EITR> {
        let [rxp, rxb, txp, txb] = self.since_last(counts);
        if matches!(link_mbps, 10 | 100) {
            return self.set(ITR_4K);
        }
        let [rx, tx] = self.class;
        self.class = [rx.next(rxp, rxb), tx.next(txp, txb)];
        match self.class[0].max(self.class[1]) {
            Latency::Bulk => self.set(ITR_4K),
            Latency::Low | Latency::Lowest => self.set(ITR_20K),
        }
    }

    /// The counts since the last update, whose counts `counts` become.
    fn since_last(&mut self, counts: [u64; 4]) -> [u64; 4] {
        let since = core::array::from_fn(|i| counts[i].wrapping_sub(self.last[i]));
        self.last = counts;
        since
    }

    /// Takes `new` as the value; the EITR value to write if it changed.
    fn set(&mut self, new: u32) -> Option<EITR> {
        if new == self.itr {
            return None;
        }
        self.itr = new;
        Some(self.eitr())
    }
}

/// The EITR value a queue vector's next interrupt writes (`q_vector->set_itr`), set by the
/// completed poll and taken by the interrupt handler.
pub(crate) struct PendingItr(Atomic<u32>);

impl PendingItr {
    pub(crate) const fn new() -> Self {
        Self(Atomic::new(0))
    }

    pub(crate) fn set(&self, eitr: EITR) {
        self.0.store(eitr.into_raw(), Relaxed);
    }

    /// The value to write, once. A plain load first: most interrupts find nothing to write,
    /// and they need no locked exchange for it.
    pub(crate) fn take(&self) -> Option<EITR> {
        if self.0.load(Relaxed) == 0 {
            return None;
        }
        match self.0.xchg(0, Relaxed) {
            0 => None,
            v => Some(EITR::from_raw(v)),
        }
    }
}

/// Masks every interrupt source (`igc_irq_disable`).
pub(crate) fn mask_all(bar: &Bar0<'_>, eims_mask: u32) {
    bar.update(EIAM, |r| EIAM::from_raw(r.into_raw() & !eims_mask));
    bar.write_reg(EIMC::from_raw(eims_mask));
    bar.update(EIAC, |r| EIAC::from_raw(r.into_raw() & !eims_mask));
    bar.write_reg(IAM::zeroed());
    bar.write_reg(IMC::from_raw(u32::MAX));
    let _ = bar.read(STATUS);
}

/// Clears pending causes (ICR clears on read).
pub(crate) fn clear_causes(bar: &Bar0<'_>) {
    let _ = bar.read(ICR);
}

/// How interrupts are delivered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// MSI-X: vector 0 for link and time sync, vector 1 + i for queue vector i ([`Layout`]).
    MsiX { queue_vectors: usize },
    /// One MSI or INTx vector for everything, one queue pair.
    Single,
}

impl Mode {
    /// The EIMS bit of queue vector `q`.
    pub(crate) fn queue_eims(self, q: usize) -> u32 {
        match self {
            Mode::MsiX { .. } => 1 << (q + 1),
            Mode::Single => 0,
        }
    }

    /// Every vector's EIMS bit, the other vector included.
    pub(crate) fn all_eims(self) -> u32 {
        match self {
            Mode::MsiX { queue_vectors } => (1 << (queue_vectors + 1)) - 1,
            Mode::Single => 0,
        }
    }
}

/// The causes enabled in IMS on the other vector: link status change, time sync, and as igc
/// (`igc_irq_enable`) a device reset and DMA out of sync.
fn ims_other() -> IMS {
    IMS::zeroed()
        .with_lsc(true)
        .with_ts(true)
        .with_drsta(true)
        .with_doutsync(true)
}

/// The causes enabled in IMS on a single vector: [`ims_other`] and the queue causes.
fn ims_single() -> IMS {
    ims_other().with_rxt0(true).with_txdw(true)
}

/// The queue causes of the single vector, masked in IMC until the poll completes.
fn imc_queue() -> IMC {
    IMC::from_raw(IMS::zeroed().with_rxt0(true).with_txdw(true).into_raw())
}

/// Which rings each queue vector serves (`igc_set_flag_queue_pairs`, `igc_alloc_q_vectors`).
///
/// With more queues than half the I225's four, a TX and an RX queue share a vector, as igc
/// pairs them then to save vectors: vector `i` serves both queues `i` ("TxRx"). With one or two
/// queues every ring has a vector of its own, the RX ones first: vector `i` serves RX queue `i`,
/// vector `queues + i` TX queue `i`, each moderated on its own direction. A single MSI or INTx
/// vector, or too few MSI-X vectors for one per ring, pairs them. Queue vector `v` is MSI-X
/// vector `v + 1` and NAPI context `v`; NAPI context `q` holds RX ring `q` in both layouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    queues: usize,
    paired: bool,
}

impl Layout {
    pub(crate) fn new(mode: Mode, queues: usize) -> Self {
        let paired = match mode {
            Mode::MsiX { queue_vectors } => queues > MAX_QUEUES / 2 || 2 * queues > queue_vectors,
            Mode::Single => true,
        };
        Self { queues, paired }
    }

    /// The queue vectors (and NAPI contexts) in use.
    pub(crate) fn vectors(self) -> usize {
        if self.paired {
            self.queues
        } else {
            2 * self.queues
        }
    }

    /// Which RX queue vector `v` serves.
    pub(crate) fn rx_of(self, v: usize) -> Option<usize> {
        (v < self.queues).then_some(v)
    }

    /// Which TX queue vector `v` serves.
    pub(crate) fn tx_of(self, v: usize) -> Option<usize> {
        if self.paired {
            (v < self.queues).then_some(v)
        } else {
            v.checked_sub(self.queues).filter(|&q| q < self.queues)
        }
    }

    /// The queue vector of RX queue `q`.
    pub(crate) fn rx_vector(self, q: usize) -> usize {
        q
    }

    /// The queue vector of TX queue `q`.
    pub(crate) fn tx_vector(self, q: usize) -> usize {
        if self.paired {
            q
        } else {
            self.queues + q
        }
    }
}

/// Routes the rings of `layout` to their vectors and sets moderation (`igc_configure_msix`,
/// `igc_assign_vector`, `igc_write_itr`).
pub(crate) fn configure(hw: &Hw, mode: Mode, layout: Layout) {
    match mode {
        Mode::MsiX { .. } => {
            hw.write_reg(
                GPIE::zeroed()
                    .with_msix_mode(true)
                    .with_pba(true)
                    .with_eiame(true)
                    .with_nsicr(true),
            );
            // The other causes on vector 0.
            hw.write_reg(IVAR_MISC::zeroed().with_other(IVAR_VALID));
            for q in 0..layout.queues {
                let rx = (layout.rx_vector(q) + 1) as u8 | IVAR_VALID;
                let tx = (layout.tx_vector(q) + 1) as u8 | IVAR_VALID;
                hw.update_at(q >> 1, |ivar: IVAR| {
                    if q & 1 == 0 {
                        ivar.with_rx_even(rx).with_tx_even(tx)
                    } else {
                        ivar.with_rx_odd(rx).with_tx_odd(tx)
                    }
                });
            }
            // igc's starting value; each completed poll then picks its own
            // (`igc_configure_msix` sets `set_itr` for the first interrupt).
            for v in 0..layout.vectors() {
                hw.write_at(v + 1, eitr_of(ITR_START));
            }
        }
        Mode::Single => {
            hw.write_reg(GPIE::zeroed().with_nsicr(true));
        }
    }
}

/// Enables interrupts (`igc_irq_enable`).
pub(crate) fn enable(hw: &Hw, mode: Mode) {
    match mode {
        Mode::MsiX { .. } => {
            let mask = mode.all_eims();
            hw.update(EIAC, |r: EIAC| EIAC::from_raw(r.into_raw() | mask));
            hw.update(EIAM, |r: EIAM| EIAM::from_raw(r.into_raw() | mask));
            hw.write_reg(EIMS::from_raw(mask));
            hw.write_reg(ims_other());
        }
        Mode::Single => {
            hw.write_reg(ims_single());
        }
    }
    hw.flush();
}

/// Disables interrupts (`igc_irq_disable`).
pub(crate) fn disable(hw: &Hw, mode: Mode) {
    let mask = mode.all_eims();
    if mask != 0 {
        hw.update(EIAM, |r: EIAM| EIAM::from_raw(r.into_raw() & !mask));
        hw.write_reg(EIMC::from_raw(mask));
        hw.update(EIAC, |r: EIAC| EIAC::from_raw(r.into_raw() & !mask));
    }
    hw.write_reg(IAM::zeroed());
    hw.write_reg(IMC::from_raw(u32::MAX));
    hw.flush();
}

/// Re-enables queue vector `q`'s interrupt after its poll completed.
pub(crate) fn enable_queue(hw: &Hw, mode: Mode, q: usize) {
    match mode {
        Mode::MsiX { .. } => hw.write_reg(EIMS::from_raw(mode.queue_eims(q))),
        Mode::Single => hw.write_reg(ims_single()),
    }
}

/// What a vector serves.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Kind {
    Other,
    Queue(usize),
    Single,
}

/// The handler of one vector.
pub(crate) struct Handler {
    pub(crate) net: Arc<Registration<Adapter>>,
    pub(crate) kind: Kind,
}

impl irq::Handler for Handler {
    fn handle(&self) -> IrqReturn {
        let net = &*self.net;
        match self.kind {
            Kind::Queue(q) => {
                // The value the last completed poll chose (`igc_write_itr`).
                if let Some(eitr) = net.queues.get(q).and_then(|qp| qp.itr.take()) {
                    net.hw.write_at(q + 1, eitr);
                }
                if let Some(napi) = net.napi(q) {
                    napi.schedule();
                }
                IrqReturn::Handled
            }
            Kind::Other => {
                let icr = net.hw.read(ICR);
                if icr.into_raw() == u32::MAX {
                    return IrqReturn::None;
                }
                other_causes(net, icr);
                if net.running.load(Relaxed) {
                    // Vector 0 again (auto-masked).
                    net.hw.write_reg(EIMS::from_raw(1));
                }
                IrqReturn::Handled
            }
            Kind::Single => {
                let icr = net.hw.read(ICR);
                // A shared line: only an asserted cause is ours (`igc_intr`).
                if !icr.int_asserted() || icr.into_raw() == u32::MAX {
                    return IrqReturn::None;
                }
                // The value the last completed poll chose, in EITR(0) (`igc_write_itr`).
                if let Some(eitr) = net.queues.first().and_then(|qp| qp.itr.take()) {
                    net.hw.write_at(0, eitr);
                }
                other_causes(net, icr);
                if icr.rxt0() || icr.txdw() {
                    // Masked until the poll completes.
                    net.hw.write_reg(imc_queue());
                    if let Some(napi) = net.napi(0) {
                        napi.schedule();
                    }
                }
                IrqReturn::Handled
            }
        }
    }
}

/// The causes of ICR that are not a queue's (`igc_msix_other`): a device reset asks for
/// the reset task, DMA out of sync is counted, a link change updates the carrier, time
/// sync events are handled. Hard IRQ context.
fn other_causes(net: &Registration<Adapter>, icr: ICR) {
    if icr.drsta() {
        net.schedule_reset();
    }
    if icr.doutsync() {
        net.tx_dma_out_of_sync.fetch_add(1, Relaxed);
    }
    // The carrier is only touched while the datapath runs: after ifdown (and after
    // unregistration, which comes later) a late link interrupt must not turn it back on
    // or queue a linkwatch event (`__IGC_DOWN` in igc).
    if icr.lsc() && net.running.load(Relaxed) {
        net.schedule_link_check();
    }
    if icr.ts() {
        net.tsync_interrupt();
    }
}

#[kernel::prelude::kunit_tests(rigc_irq)]
mod tests {
    use super::*;

    /// The EITR `update` asks for, as raw bits without CNT_IGNR.
    fn itr_of(e: Option<EITR>) -> Option<u32> {
        e.map(|e| {
            assert!(e.cnt_ignr());
            e.into_raw() & 0x7fff_ffff
        })
    }

    /// Cumulative counts: `p` RX frames of `rx` bytes and `t` TX frames of `tx` bytes.
    fn counts(p: u64, rx: u64, t: u64, tx: u64) -> [u64; 4] {
        [p, p * rx, t, t * tx]
    }

    /// `igc_alloc_q_vectors` and the names `igc_request_msix` gives: one vector per ring, the
    /// RX ones first, with one or two queues; pairs with three or four, or too few vectors.
    #[test]
    fn layout_follows_igc_alloc_q_vectors() {
        let msix = Mode::MsiX { queue_vectors: 4 };
        let two = Layout::new(msix, 2);
        assert_eq!(two.vectors(), 4);
        assert_eq!(
            core::array::from_fn::<_, 4, _>(|v| two.rx_of(v)),
            [Some(0), Some(1), None, None]
        );
        assert_eq!(
            core::array::from_fn::<_, 4, _>(|v| two.tx_of(v)),
            [None, None, Some(0), Some(1)]
        );
        assert_eq!((two.rx_vector(1), two.tx_vector(1)), (1, 3));
        let one = Layout::new(msix, 1);
        assert_eq!(
            (one.vectors(), one.tx_of(1), one.tx_of(2)),
            (2, Some(0), None)
        );
        for n in [3, 4] {
            let l = Layout::new(msix, n);
            assert_eq!(l.vectors(), n);
            assert_eq!(
                (l.rx_of(n - 1), l.tx_of(n - 1), l.tx_vector(n - 1)),
                (Some(n - 1), Some(n - 1), n - 1)
            );
            assert_eq!(l.tx_of(n), None);
        }
        // Too few vectors for one per ring, or a single one: paired.
        assert_eq!(Layout::new(Mode::MsiX { queue_vectors: 3 }, 2).vectors(), 2);
        assert_eq!(Layout::new(Mode::MsiX { queue_vectors: 2 }, 1).vectors(), 2);
        assert_eq!(Layout::new(Mode::Single, 1).vectors(), 1);
    }

    #[test]
    fn moderation_follows_igc_update_ring_itr() {
        let mut m = Moderation::new();
        assert_eq!(m.eitr().into_raw() & 0x7fff_ffff, ITR_START);
        // Full-size frames: (1514 + 24) / 2 = 769, EITR keeps bits 14:2.
        assert_eq!(itr_of(m.update(counts(100, 1514, 0, 0), 2500)), Some(768));
        // The same average again: no write.
        assert_eq!(itr_of(m.update(counts(200, 1514, 0, 0), 2500)), None);
        // Nothing since: no change.
        assert_eq!(itr_of(m.update(counts(200, 1514, 0, 0), 2500)), None);
        // Small frames: never under IGC_20K_ITR in the conservative mode.
        let mut m = Moderation::new();
        assert_eq!(itr_of(m.update(counts(100, 60, 0, 0), 2500)), Some(ITR_20K));
        // Mid-size frames get a third: (600 + 24) / 3 = 208.
        let mut m = Moderation::new();
        assert_eq!(itr_of(m.update(counts(10, 600, 0, 0), 1000)), Some(208));
        // Jumbo frames are not starved: at most 3000 / 2.
        let mut m = Moderation::new();
        assert_eq!(itr_of(m.update(counts(10, 9000, 0, 0), 2500)), Some(1500));
        // The larger average of the two directions (TSO: 64 KiB sends, small ACKs back).
        let mut m = Moderation::new();
        assert_eq!(
            itr_of(m.update(counts(100, 66, 10, 65536), 2500)),
            Some(1500)
        );
        // 10 and 100 Mb/s: IGC_4K_ITR whatever the traffic.
        let mut m = Moderation::new();
        assert_eq!(itr_of(m.update(counts(100, 60, 0, 0), 100)), Some(ITR_4K));
        assert_eq!(itr_of(m.update(counts(200, 1514, 0, 0), 10)), None);
    }

    #[test]
    fn moderation_uses_the_counts_since_the_last_update() {
        let mut m = Moderation::new();
        assert_eq!(itr_of(m.update(counts(1000, 1514, 0, 0), 2500)), Some(768));
        // 1000 more small frames: their own average, not the running one.
        let [p, b, t, tb] = counts(1000, 1514, 0, 0);
        assert_eq!(
            itr_of(m.update([p + 1000, b + 60_000, t, tb], 2500)),
            Some(ITR_20K)
        );
    }

    #[test]
    fn single_vector_moderation_follows_igc_set_itr() {
        // Cumulative counts, link speed, the value asked for, step by step.
        let bulk = [
            // A few full-size frames sent: low latency, 20,000 interrupts/s.
            (counts(0, 0, 2, 1514), 2500, Some(ITR_20K)),
            // Then over 10,000 bytes of them: bulk, 4,000 interrupts/s.
            (counts(0, 0, 12, 1514), 2500, Some(ITR_4K)),
            // Nothing since: no change.
            (counts(0, 0, 12, 1514), 2500, None),
            // Many frames in one poll: back to low latency.
            (counts(0, 0, 52, 1514), 2500, Some(ITR_20K)),
            // The slower direction counts: a jumbo frame received is bulk.
            (counts(1, 9000, 53, 1514), 2500, Some(ITR_4K)),
        ];
        let small = [
            // Small frames: the lowest latency, which the conservative mode makes low.
            (counts(1, 98, 1, 98), 2500, Some(ITR_20K)),
            // 10 and 100 Mb/s: IGC_4K_ITR whatever the traffic.
            (counts(2, 98, 2, 98), 100, Some(ITR_4K)),
        ];
        for steps in [&bulk[..], &small[..]] {
            let mut m = Moderation::new();
            for &(c, mbps, want) in steps {
                assert_eq!(itr_of(m.update_single(c, mbps)), want);
            }
        }
    }

    #[test]
    fn pending_value_is_written_once() {
        let p = PendingItr::new();
        assert!(p.take().is_none());
        p.set(eitr_of(ITR_4K));
        assert_eq!(p.take().map(|e| e.into_raw() & 0x7fff_ffff), Some(ITR_4K));
        assert!(p.take().is_none());
        // The smallest interval for a value of 0, as `igc_write_itr`.
        assert_eq!(eitr_of(0).into_raw() & 0x7fff_ffff, 0x4);
    }
}
