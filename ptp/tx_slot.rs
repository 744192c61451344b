// SPDX-License-Identifier: GPL-2.0

//! The single-slot TX timestamp state (`igc_ptp_tx_hwtstamp`, `igc_ptp_tx_timeout`), its
//! claim in the xmit path and its read-out in the time-sync interrupt.
//!
//! One request at a time, as the design card says: [`TxSlot`] holds the skb waiting for its
//! timestamp together with the time it was claimed, behind a `SpinLockIrq` shared by the xmit
//! path (claim), the time-sync interrupt handler (read-out and completion, in hard-IRQ context)
//! and the watchdog (timeout). The read-out follows `igc_ptp_tx_hwtstamp` of the 7.3 C driver,
//! including the I225 erratum: a TX timestamp interrupt is not raised again until TXSTMPH_0 has
//! been read, even for timestamps latched in sets 1-3. So when TXTT_0 is clear, TXSTMPH_0 is read
//! anyway, and TXSTMPL_0 is compared with its baseline to catch a timestamp that landed in set 0
//! between the TSYNCTXCTL read and that one. igc reads the baseline first in every interrupt; the
//! slot keeps the value it read last, which only a new timestamp (or a MAC reset) changes, and
//! reads one only where it cannot know it (`TxSlot::seen`).
//!
//! The slot uses register set 0; sets 1-3, where the erratum shows, and running without the
//! workaround are test switches in debugfs (`rigc-<PCI address>/tx_tstamp_slot`), never module
//! parameters.
//!
//! With the `tx-tstamp-4-sets` private flag (`ethtool --set-priv-flags`), all four register sets
//! take requests, each with its own skb and claim time under the same lock, as C igc always
//! does; the read-out catches a stamp landing in any of them while TXSTMPH_0 is read.

use kernel::{
    debugfs::{Dir, File},
    fmt,
    net::{dev::Registration, skb::MappedTxSkb},
    netdev_warn,
    prelude::*,
    sync::{atomic::Relaxed, Arc},
    time::NSEC_PER_SEC,
    uaccess::UserSliceReader,
};

use super::{systim_to_ns, tx_latency_ns};
use crate::{
    adapter::Adapter,
    desc::txd,
    hw::Hw,
    regs::{TSICR, TSYNCTXCTL, TXSTMPH_0, TXSTMPH_N, TXSTMPL_0, TXSTMPL_N},
    tx,
};

/// The register reads of the TX timestamp read-out: the device, or a fake in the KUnit tests.
pub(crate) trait TxStampRegs {
    /// TXSTMPL of set `n`.
    fn txstmpl(&self, n: usize) -> u32;
    /// TXSTMPH of set `n`; for set 0 this also clears the TXTT bits and re-arms the interrupt.
    fn txstmph(&self, n: usize) -> u32;
    /// The TXTT bits of TSYNCTXCTL: bit `n` says set `n` holds a timestamp.
    fn txtt(&self) -> u32;
}

impl TxStampRegs for Hw {
    fn txstmpl(&self, n: usize) -> u32 {
        match n {
            0 => self.read(TXSTMPL_0).nsec().get(),
            _ => self.read_at::<TXSTMPL_N>(n - 1).nsec().get(),
        }
    }

    fn txstmph(&self, n: usize) -> u32 {
        match n {
            0 => self.read(TXSTMPH_0).sec().get(),
            _ => self.read_at::<TXSTMPH_N>(n - 1).sec().get(),
        }
    }

    fn txtt(&self) -> u32 {
        self.read(TSYNCTXCTL).txtt().get()
    }
}

/// Counters of the TX timestamp slot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct TxSlotCounters {
    /// Timestamps delivered.
    pub(crate) completed: u64,
    /// Requests not timestamped because the slot was busy (`tx_hwtstamp_skipped`).
    pub(crate) skipped: u64,
    /// Requests freed by the watchdog without a timestamp (`tx_hwtstamp_timeouts`).
    pub(crate) timeouts: u64,
    /// Timestamps read with no request waiting (after a timeout or a cancel).
    pub(crate) stray: u64,
}

/// One claim of the slot, returned by [`TxSlot::claim`] and needed to undo it: an undo gives
/// back this claim only, never a later one. Neither `Copy` nor `Clone`, so it is undone once.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct ClaimId(u64);

/// The TX timestamp register sets of the I225 (`IGC_MAX_TX_TSTAMP_REGS`).
pub(crate) const N_SETS: usize = 4;

/// One value per register set: the requests completed, freed or cancelled together.
pub(crate) type PerSet<T> = [Option<T>; N_SETS];

/// A request waiting for its timestamp: the skb (or a test token), the time it was claimed (ns,
/// monotonic) and its claim number, published together.
struct Pending<S> {
    req: S,
    start: u64,
    id: u64,
}

/// The TX timestamp state: a single slot on one register set (the default, as the design
/// asks), or all four sets, each with its own request (the `tx-tstamp-4-sets` private flag).
/// `S` is the waiting skb (a `TstampSkb`), a token in tests.
pub(crate) struct TxSlot<S> {
    /// The waiting request of each register set.
    pending: PerSet<Pending<S>>,
    /// The number of the next claim.
    next_claim: u64,
    /// The register set of the single slot (0 except in tests).
    set: usize,
    /// Whether all four sets take requests.
    four: bool,
    /// Whether the workaround runs (always, except in tests).
    workaround: bool,
    /// Whether TX timestamping is on: claims are refused while it is off. Switched under the
    /// slot's lock, with the cancel, so no claim can slip in between a cancel and the switch.
    on: bool,
    /// The TXSTMPL of each set as last read by the slot, the baseline the interrupt compares
    /// with: a set's TXSTMPL changes only when a timestamp latches in it (or a MAC reset clears
    /// it), and the slot reads every timestamp that latches while its TXTT bit can be seen.
    /// `None` where that may not hold: before the first read, after a MAC reset, for a set
    /// whose request was given up (its timestamp may latch yet), and for a set no request
    /// waited in while TXSTMPH_0 was read (a stray stamp latching then loses its TXTT bit).
    /// The interrupt then reads the baseline first, as igc reads TXSTMPL_0 in every interrupt.
    /// An MMIO read saved per interrupt for set 0, and for a set 1-3 a request waits in again.
    seen: [Option<u32>; N_SETS],
    pub(crate) counters: TxSlotCounters,
}

impl<S> TxSlot<S> {
    pub(crate) const fn new(set: usize, workaround: bool) -> Self {
        Self {
            pending: [None, None, None, None],
            next_claim: 0,
            set,
            four: false,
            workaround,
            on: false,
            seen: [None; N_SETS],
            counters: TxSlotCounters {
                completed: 0,
                skipped: 0,
                timeouts: 0,
                stray: 0,
            },
        }
    }

    /// Returns the register set of the single slot.
    pub(crate) fn set(&self) -> usize {
        self.set
    }

    /// Returns whether the TXSTMPH_0 workaround runs.
    pub(crate) fn workaround(&self) -> bool {
        self.workaround
    }

    /// Returns whether all four register sets take requests.
    pub(crate) fn four_sets(&self) -> bool {
        self.four
    }

    /// Moves the single slot to register set `set` (0-3), with or without the TXSTMPH_0
    /// workaround: the test switches of `tx_tstamp_slot` in debugfs. Refused while a request
    /// waits.
    pub(crate) fn set_test_mode(&mut self, set: usize, workaround: bool) -> Result {
        if set >= N_SETS {
            return Err(EINVAL);
        }
        if self.pending.iter().any(Option::is_some) {
            return Err(EBUSY);
        }
        self.set = set;
        self.workaround = workaround;
        Ok(())
    }

    /// Uses all four register sets, or the single slot again (the private flag): `EBUSY` while
    /// a request waits, which the change would strand in a set no longer read, or leave behind
    /// a set the single slot then claims.
    pub(crate) fn set_four_sets(&mut self, four: bool) -> Result {
        if four == self.four {
            return Ok(());
        }
        if self.pending.iter().any(Option::is_some) {
            return Err(EBUSY);
        }
        self.four = four;
        Ok(())
    }

    /// Switches TX timestamping on: claims are taken from now on. The registers were read to
    /// discard a stamp left from before (`write_tx_tstamp_on`), so the values seen last are
    /// forgotten: the next read-out reads its baseline again, as igc reads it every time.
    pub(crate) fn switch_on(&mut self) {
        self.forget_seen();
        self.on = true;
    }

    /// Switches TX timestamping off: claims are refused from now on, and the waiting requests,
    /// if any, are cancelled (see [`TxSlot::cancel`]) and returned.
    pub(crate) fn switch_off(&mut self, regs: &impl TxStampRegs) -> PerSet<S> {
        self.on = false;
        self.cancel(regs)
    }

    /// Returns whether TX timestamping is on.
    pub(crate) fn is_on(&self) -> bool {
        self.on
    }

    /// The register set a claim would take now, if one is free.
    fn free_set(&self) -> Option<usize> {
        if self.four {
            self.pending.iter().position(Option::is_none)
        } else {
            self.pending[self.set].is_none().then_some(self.set)
        }
    }

    /// Returns whether no register set is free for a request.
    pub(crate) fn busy(&self) -> bool {
        self.free_set().is_none()
    }

    /// Counts a request skipped because the slot is busy (xmit path).
    pub(crate) fn skip(&mut self) {
        self.counters.skipped += 1;
    }

    /// Claims a free register set for `req` at `now` (xmit path) and returns it with the claim.
    /// If TX timestamping is off the request comes back; if no set is free it comes back and
    /// is counted as skipped.
    pub(crate) fn claim(&mut self, req: S, now: u64) -> core::result::Result<(usize, ClaimId), S> {
        if !self.on {
            return Err(req);
        }
        let Some(set) = self.free_set() else {
            self.counters.skipped += 1;
            return Err(req);
        };
        let id = self.next_claim;
        self.next_claim = id.wrapping_add(1);
        self.pending[set] = Some(Pending {
            req,
            start: now,
            id,
        });
        Ok((set, ClaimId(id)))
    }

    /// Undoes `claim`, whose packet never reached the hardware (the xmit path dropped it), if
    /// a set still holds it: a stray stamp may have completed it, and another queue claimed
    /// the set since.
    pub(crate) fn unclaim(&mut self, claim: ClaimId) -> Option<S> {
        let slot = self
            .pending
            .iter_mut()
            .find(|p| matches!(p, Some(p) if p.id == claim.0))?;
        slot.take().map(|p| p.req)
    }

    /// Reads the timestamps after a TX timestamp interrupt (hard-IRQ context), as
    /// `igc_ptp_tx_hwtstamp` does: set 0 first, with the erratum's workaround, then the sets
    /// whose TXTT bit is set. Returns each completed request with its SYSTIM time in ns.
    ///
    /// Reading TXSTMPH_0 clears every TXTT bit, so a timestamp that lands in set 1-3 between
    /// the TSYNCTXCTL read and that read would lose its bit, and with the erratum its
    /// interrupt: as for set 0, the TXSTMPL of each set waiting for a timestamp is read before
    /// TSYNCTXCTL and again after, and a change is a timestamp (consecutive timestamps never
    /// share a nanosecond value).
    pub(crate) fn on_interrupt(&mut self, regs: &impl TxStampRegs) -> PerSet<(S, u64)> {
        // Baselines: set 0 always (igc), the other sets while they wait; read only where the
        // slot has not seen the register's value.
        let mut baseline = [None; N_SETS];
        for (set, b) in baseline.iter_mut().enumerate() {
            if set == 0 || self.pending[set].is_some() {
                *b = Some(match self.seen[set] {
                    Some(lo) => lo,
                    None => self.read_low(regs, set),
                });
            }
        }
        let mask = regs.txtt();
        let mut stamps = [None; N_SETS];
        let mut h0_read = true;
        if mask & 1 != 0 {
            let lo = self.read_low(regs, 0);
            stamps[0] = Some(systim_to_ns(lo, regs.txstmph(0)));
        } else if self.workaround {
            // Re-arm the interrupt, then catch a timestamp that arrived meanwhile.
            let _ = regs.txstmph(0);
            let lo = self.read_low(regs, 0);
            if Some(lo) != baseline[0] {
                stamps[0] = Some(systim_to_ns(lo, regs.txstmph(0)));
            }
        } else {
            h0_read = false;
        }
        for set in 1..N_SETS {
            if mask & (1 << set) != 0 {
                let lo = self.read_low(regs, set);
                stamps[set] = Some(systim_to_ns(lo, regs.txstmph(set)));
            } else if h0_read && baseline[set].is_some() {
                let lo = self.read_low(regs, set);
                if Some(lo) != baseline[set] {
                    stamps[set] = Some(systim_to_ns(lo, regs.txstmph(set)));
                }
            } else if h0_read {
                // No request waits in this set: a late stamp landing in it now lost its TXTT
                // bit to the TXSTMPH_0 read, unseen.
                self.seen[set] = None;
            }
        }
        let mut done = [None, None, None, None];
        for (set, ns) in stamps.into_iter().enumerate() {
            let Some(ns) = ns else { continue };
            match self.pending[set].take() {
                Some(p) => {
                    self.counters.completed += 1;
                    done[set] = Some((p.req, ns));
                }
                None => self.counters.stray += 1,
            }
        }
        done
    }

    /// Reads TXSTMPL of `set` and keeps it as the set's baseline, if it is one: nanoseconds,
    /// not the all-ones of a device that is gone.
    fn read_low(&mut self, regs: &impl TxStampRegs, set: usize) -> u32 {
        let lo = regs.txstmpl(set);
        self.seen[set] = (i64::from(lo) < NSEC_PER_SEC).then_some(lo);
        lo
    }

    /// Forgets the TXSTMPL values seen: the MAC reset clears the registers (`ptp_restore`).
    pub(crate) fn forget_seen(&mut self) {
        self.seen = [None; N_SETS];
    }

    /// Frees the requests older than `timeout` ns at `now` (the watchdog), each set on its own,
    /// re-arming the hardware as `igc_ptp_tx_hang` does. Returns the freed requests.
    pub(crate) fn expire(&mut self, regs: &impl TxStampRegs, now: u64, timeout: u64) -> PerSet<S> {
        let mut freed = [None, None, None, None];
        for (slot, f) in self.pending.iter_mut().zip(freed.iter_mut()) {
            if matches!(slot, Some(p) if now.saturating_sub(p.start) > timeout) {
                self.counters.timeouts += 1;
                *f = slot.take().map(|p| p.req);
            }
        }
        if freed.iter().any(Option::is_some) {
            let _ = regs.txstmph(0);
            // The sets freed (their stamps may latch yet) and the others no request waits in
            // (a stamp latched there lost its TXTT bit to that read, unseen).
            for (slot, seen) in self.pending.iter().zip(self.seen.iter_mut()) {
                if slot.is_none() {
                    *seen = None;
                }
            }
        }
        freed
    }

    /// Empties every set (TX timestamping disabled, interface down, removal), discarding the
    /// timestamps the hardware may hold. Returns the requests that were waiting.
    pub(crate) fn cancel(&mut self, regs: &impl TxStampRegs) -> PerSet<S> {
        // Packets asking for a timestamp may still be on their way out.
        self.forget_seen();
        let mut reqs = [None, None, None, None];
        for (set, (slot, r)) in self.pending.iter_mut().zip(reqs.iter_mut()).enumerate() {
            if let Some(p) = slot.take() {
                let _ = regs.txstmpl(set);
                let _ = regs.txstmph(set);
                *r = Some(p.req);
            }
        }
        if reqs.iter().any(Option::is_some) {
            let _ = regs.txstmph(0);
        }
        reqs
    }
}

impl Adapter {
    /// Nanoseconds since probe, for the TX timestamp slot's claim times.
    pub(crate) fn now_ns(&self) -> u64 {
        self.ptp.t0.elapsed().as_nanos().max(0) as u64
    }

    /// The time-sync interrupt (ICR.TS, `igc_tsync_interrupt`): reads TSICR once (it clears
    /// on read); the PPS event first, then a TX timestamp, read out and completed with its skb
    /// right here, in hard-IRQ context; then the pins' target times and auxiliary timestamps
    /// (`ptp/pins.rs`).
    pub(crate) fn tsync_interrupt(&self) {
        let tsicr = self.hw.read(TSICR);
        if tsicr.into_raw() == u32::MAX {
            return;
        }
        self.pps_interrupt(tsicr);
        if tsicr.txts() {
            let done = self.ptp.txts.lock().on_interrupt(&self.hw);
            let mbps = self.link_mbps.load(Relaxed);
            for (skb, ns) in done.into_iter().flatten() {
                skb.complete(ns + tx_latency_ns(mbps));
            }
        }
        self.pin_interrupt(tsicr);
    }
}

impl tx::TxTstamp for Adapter {
    /// Inline in the xmit path for the packets that ask for no timestamp (nearly all); the
    /// slot's lock is taken out of line.
    #[inline]
    fn claim(&self, skb: &mut MappedTxSkb<'_>) -> Option<(u32, ClaimId)> {
        if !self.ptp.tx_tstamp_on.load(Relaxed) || !skb.skb().hw_tstamp_requested() {
            return None;
        }
        self.claim_slot(skb)
    }

    fn unclaim(&self, claim: ClaimId) {
        let req = self.ptp.txts.lock().unclaim(claim);
        drop(req);
    }
}

impl Adapter {
    /// The slot's part of [`tx::TxTstamp::claim`], for a packet that asks for a timestamp
    /// while timestamping is on.
    #[inline(never)]
    fn claim_slot(&self, skb: &mut MappedTxSkb<'_>) -> Option<(u32, ClaimId)> {
        let mut slot = self.ptp.txts.lock();
        // The flag `claim` tested is a hint that spares the lock while timestamping is off; the
        // slot's own switch, changed under this lock with the cancel, decides.
        if !slot.is_on() {
            return None;
        }
        if slot.busy() {
            // Counted as skipped; the packet goes out without a hardware timestamp.
            slot.skip();
            return None;
        }
        // The skb reference and the claim time are published together, under the lock.
        let (set, id) = slot.claim(skb.start_hw_tstamp(), self.now_ns()).ok()?;
        Some((txd::MAC_TSTAMP | (set as u32) << txd::TSTAMP_REG_SHIFT, id))
    }
}

/// The debugfs file of the slot's test switches; removed when dropped.
pub(crate) type TestSwitches = Pin<KBox<File<Arc<Registration<Adapter>>>>>;

/// The test switches of the slot in debugfs, `tx_tstamp_slot` in `dir`. Reading it shows the
/// register set and whether the TXSTMPH_0 workaround runs (`0 1` normally); writing `SET
/// WORKAROUND`, e.g. `1 0`, changes them while no request waits. Testing only: on the I225, TX
/// timestamps in sets 1-3 without the workaround lose interrupts.
pub(crate) fn debugfs_file(dir: &Dir, net: Arc<Registration<Adapter>>) -> Result<TestSwitches> {
    KBox::pin_init(
        dir.read_write_callback_file(c"tx_tstamp_slot", net, &show_test_mode, &store_test_mode),
        GFP_KERNEL,
    )
}

fn show_test_mode(net: &Arc<Registration<Adapter>>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let slot = net.ptp.txts.lock();
    writeln!(f, "{} {}", slot.set(), u8::from(slot.workaround()))
}

fn store_test_mode(net: &Arc<Registration<Adapter>>, r: &mut UserSliceReader) -> Result {
    let mut buf = [0u8; 16];
    let n = r.len();
    if n == 0 || n > buf.len() {
        return Err(EINVAL);
    }
    r.read_slice(&mut buf[..n])?;
    let text = core::str::from_utf8(&buf[..n]).map_err(|_| EINVAL)?;
    let mut words = text.split_whitespace();
    let set = words
        .next()
        .and_then(|w| w.parse::<usize>().ok())
        .ok_or(EINVAL)?;
    let workaround = match words.next() {
        Some("1") => true,
        Some("0") => false,
        _ => return Err(EINVAL),
    };
    if words.next().is_some() {
        return Err(EINVAL);
    }
    net.ptp.txts.lock().set_test_mode(set, workaround)?;
    netdev_warn!(
        net.device(),
        "test mode: TX timestamps in register set {}, TXSTMPH_0 workaround {}\n",
        set,
        if workaround { "on" } else { "off" }
    );
    Ok(())
}

#[cfg(CONFIG_RIGC_KUNIT_TEST)]
#[kernel::prelude::kunit_tests(rigc_ptp_tx_slot)]
mod tests {
    use super::*;
    use crate::ptp::TX_TIMEOUT_NS;
    use core::cell::Cell;

    /// A fake TX timestamp block that behaves as the I225 does, erratum included: TXSTMPH_0
    /// reads clear every TXTT bit and re-arm the interrupt, which (with `bug`) is not raised
    /// again until then.
    struct Fake {
        l: [Cell<u32>; 4],
        h: [Cell<u32>; 4],
        txtt: Cell<u32>,
        armed: Cell<bool>,
        bug: bool,
        /// A capture into a set that lands right after the next TSYNCTXCTL read.
        race: Cell<Option<(usize, u32, u32)>>,
        /// Register reads so far.
        reads: Cell<u32>,
    }

    impl Fake {
        fn new(bug: bool) -> Self {
            Self {
                l: Default::default(),
                h: Default::default(),
                txtt: Cell::new(0),
                armed: Cell::new(true),
                bug,
                race: Cell::new(None),
                reads: Cell::new(0),
            }
        }

        /// Latches a timestamp into `set`; returns whether the interrupt fires.
        fn capture(&self, set: usize, sec: u32, ns: u32) -> bool {
            if self.txtt.get() & (1 << set) != 0 {
                return false;
            }
            self.l[set].set(ns);
            self.h[set].set(sec);
            self.txtt.set(self.txtt.get() | 1 << set);
            if self.bug && !self.armed.get() {
                return false;
            }
            self.armed.set(false);
            true
        }
    }

    impl TxStampRegs for Fake {
        fn txstmpl(&self, n: usize) -> u32 {
            self.reads.set(self.reads.get() + 1);
            self.l[n].get()
        }

        fn txstmph(&self, n: usize) -> u32 {
            self.reads.set(self.reads.get() + 1);
            if n == 0 {
                self.txtt.set(0);
                self.armed.set(true);
            } else {
                self.txtt.set(self.txtt.get() & !(1 << n));
            }
            self.h[n].get()
        }

        fn txtt(&self) -> u32 {
            self.reads.set(self.reads.get() + 1);
            let v = self.txtt.get();
            if let Some((set, sec, ns)) = self.race.take() {
                self.capture(set, sec, ns);
            }
            v
        }
    }

    /// The one value of a per-set result, if any; more than one fails the test.
    fn single<T>(per_set: PerSet<T>) -> Option<T> {
        let mut it = per_set.into_iter().flatten();
        let first = it.next();
        assert!(it.next().is_none());
        first
    }

    /// A slot with TX timestamping switched on.
    fn on<S>(mut slot: TxSlot<S>) -> TxSlot<S> {
        slot.switch_on();
        slot
    }

    #[test]
    fn switched_off_slot_refuses_claims() {
        let regs = Fake::new(false);
        let mut slot = TxSlot::new(0, true);
        assert_eq!(slot.claim(1u32, 0), Err(1));
        slot.switch_on();
        assert!(slot.claim(2u32, 0).is_ok());
        // Switching off hands back the waiting request; a claim right after is refused, not
        // left waiting for a timestamp that will never come.
        assert_eq!(single(slot.switch_off(&regs)), Some(2));
        assert_eq!(slot.claim(3u32, 1), Err(3));
        assert!(!slot.busy());
        assert_eq!(slot.counters.skipped, 0);
        slot.switch_on();
        assert!(slot.claim(4u32, 2).is_ok());
    }

    #[test]
    fn a_stamp_discarded_at_switch_on_is_not_taken_for_the_next_request() {
        // driver-review-2.md N8: switching on reads TXSTMPL_0/TXSTMPH_0 to discard a stamp
        // left from before (`write_tx_tstamp_on`); the baseline the slot kept from its last
        // interrupt is stale then, and the workaround's comparison must not take the
        // discarded stamp for the new request's.
        let regs = Fake::new(true);
        let mut slot = on(TxSlot::new(0, true));
        assert!(slot.claim(1u32, 0).is_ok());
        assert!(regs.capture(0, 1, 5));
        assert_eq!(single(slot.on_interrupt(&regs)), Some((1, 1_000_000_005)));
        assert!(single(slot.switch_off(&regs)).is_none());
        // A time sync interrupt while off reads set 0's baseline again.
        assert!(single(slot.on_interrupt(&regs)).is_none());
        // A packet sent before the switch off is stamped after it; the switch on discards it.
        regs.capture(0, 2, 7);
        let _ = regs.txstmpl(0);
        let _ = regs.txstmph(0);
        slot.switch_on();
        assert!(slot.claim(2u32, 1).is_ok());
        // An interrupt before the new request's stamp (another cause): nothing completes.
        assert!(single(slot.on_interrupt(&regs)).is_none());
        assert!(slot.busy());
        assert!(regs.capture(0, 3, 9));
        assert_eq!(single(slot.on_interrupt(&regs)), Some((2, 3_000_000_009)));
    }

    #[test]
    fn claim_then_complete_in_the_interrupt() {
        let regs = Fake::new(false);
        let mut slot = on(TxSlot::new(0, true));
        assert!(slot.claim(1u32, 0).is_ok());
        assert!(regs.capture(0, 5, 123));
        assert_eq!(single(slot.on_interrupt(&regs)), Some((1, 5_000_000_123)));
        assert!(!slot.busy());
        assert_eq!(slot.counters.completed, 1);
    }

    #[test]
    fn unclaim_gives_back_its_own_claim_only() {
        // driver-review.md F8 d: a stray stamp completes A before its xmit drops the packet,
        // and another queue claims the slot for B; A's undo must leave B waiting.
        let regs = Fake::new(false);
        let mut slot = on(TxSlot::new(0, true));
        let a = slot.claim(1u32, 0).ok();
        assert!(regs.capture(0, 1, 5));
        assert_eq!(single(slot.on_interrupt(&regs)), Some((1, 1_000_000_005)));
        let b = slot.claim(2u32, 1).ok();
        assert_eq!(a.map(|(_, a)| slot.unclaim(a)), Some(None));
        assert!(slot.busy());
        assert_eq!(b.map(|(_, b)| slot.unclaim(b)), Some(Some(2)));
        assert!(!slot.busy());
    }

    #[test]
    fn busy_slot_skips_and_keeps_the_first() {
        let regs = Fake::new(false);
        let mut slot = on(TxSlot::new(0, true));
        assert!(slot.claim(1u32, 0).is_ok());
        assert_eq!(slot.claim(2u32, 1), Err(2));
        assert_eq!(slot.counters.skipped, 1);
        regs.capture(0, 0, 7);
        assert_eq!(single(slot.on_interrupt(&regs)), Some((1, 7)));
        assert!(slot.claim(3u32, 2).is_ok());
    }

    #[test]
    fn watchdog_frees_after_the_timeout_and_the_next_request_succeeds() {
        let regs = Fake::new(false);
        let mut slot = on(TxSlot::new(0, true));
        assert!(slot.claim(1u32, 1_000).is_ok());
        // The interrupt was lost: nothing completes it.
        assert_eq!(
            single(slot.expire(&regs, 1_000 + TX_TIMEOUT_NS, TX_TIMEOUT_NS)),
            None
        );
        assert_eq!(
            single(slot.expire(&regs, 2_000 + TX_TIMEOUT_NS, TX_TIMEOUT_NS)),
            Some(1)
        );
        assert_eq!(slot.counters.timeouts, 1);
        assert!(slot.claim(2u32, 3_000).is_ok());
        assert!(regs.capture(0, 1, 1));
        assert_eq!(single(slot.on_interrupt(&regs)), Some((2, 1_000_000_001)));
    }

    #[test]
    fn disable_while_pending_frees_and_drops_a_late_stamp() {
        let regs = Fake::new(false);
        let mut slot = on(TxSlot::new(0, true));
        assert!(slot.claim(1u32, 0).is_ok());
        assert_eq!(single(slot.cancel(&regs)), Some(1));
        assert!(!slot.busy());
        // A stamp that arrives after the cancel completes nothing.
        regs.capture(0, 0, 9);
        assert_eq!(single(slot.on_interrupt(&regs)), None);
        assert_eq!(slot.counters.stray, 1);
        assert_eq!(single(slot.cancel(&regs)), None);
    }

    #[test]
    fn erratum_with_the_workaround_loses_nothing() {
        // The slot on set 1, where the erratum bites: without a TXSTMPH_0 read no further
        // interrupt fires.
        let regs = Fake::new(true);
        let mut slot = on(TxSlot::new(1, true));
        for i in 0..10u32 {
            assert!(slot.claim(i, 0).is_ok());
            // Interrupt `i` fires.
            assert!(regs.capture(1, 0, 100 + i));
            assert_eq!(
                single(slot.on_interrupt(&regs)),
                Some((i, u64::from(100 + i)))
            );
        }
        assert_eq!(slot.counters.completed, 10);
    }

    #[test]
    fn erratum_without_the_workaround_loses_the_second_interrupt() {
        let regs = Fake::new(true);
        let mut slot = on(TxSlot::new(1, false));
        assert!(slot.claim(0u32, 0).is_ok());
        assert!(regs.capture(1, 0, 100));
        assert_eq!(single(slot.on_interrupt(&regs)), Some((0, 100)));
        assert!(slot.claim(1u32, 0).is_ok());
        // No interrupt: TXSTMPH_0 was never read.
        assert!(!regs.capture(1, 0, 200));
        // Only the watchdog gets the slot back.
        assert_eq!(
            single(slot.expire(&regs, TX_TIMEOUT_NS + 1, TX_TIMEOUT_NS)),
            Some(1)
        );
    }

    #[test]
    fn stamp_landing_between_the_txtt_test_and_the_rearm_is_caught() {
        let regs = Fake::new(true);
        let mut slot = on(TxSlot::new(0, true));
        regs.l[0].set(50); // The previous stamp, already read.
        assert!(slot.claim(7u32, 0).is_ok());
        // TXTT_0 reads clear, then the stamp lands before TXSTMPH_0 is read.
        regs.race.set(Some((0, 2, 60)));
        assert_eq!(single(slot.on_interrupt(&regs)), Some((7, 2_000_000_060)));
    }

    /// Register reads of one interrupt.
    fn reads_of<S>(slot: &mut TxSlot<S>, regs: &Fake) -> (PerSet<(S, u64)>, u32) {
        let before = regs.reads.get();
        let done = slot.on_interrupt(regs);
        (done, regs.reads.get() - before)
    }

    #[test]
    fn interrupt_reads_no_baseline_the_slot_has_seen() {
        // The first interrupt reads TXSTMPL_0 before TSYNCTXCTL, as igc does in every one;
        // after it the slot knows the register's value.
        let regs = Fake::new(true);
        let mut slot = on(TxSlot::new(0, true));
        let stamp = |i: u32| Some((i, u64::from(i) * 1_000_000_000 + 10));
        assert!(slot.claim(1u32, 0).is_ok());
        assert!(regs.capture(0, 1, 10));
        assert_eq!(
            reads_of(&mut slot, &regs),
            ([stamp(1), None, None, None], 4)
        );
        for i in 2..5u32 {
            assert!(slot.claim(i, 0).is_ok());
            assert!(regs.capture(0, i, 10));
            // TSYNCTXCTL, TXSTMPL_0 and TXSTMPH_0.
            let (done, reads) = reads_of(&mut slot, &regs);
            assert_eq!((single(done), reads), (stamp(i), 3));
        }
        // The same on set 1, in the erratum's way: TXSTMPH_0 read to re-arm, TXSTMPL_0 to
        // catch a stamp landing in set 0 meanwhile; set 1's baseline read once.
        assert_eq!(slot.set_test_mode(1, true), Ok(()));
        for i in 5..8u32 {
            assert!(slot.claim(i, 0).is_ok());
            assert!(regs.capture(1, i, 10));
            let (done, reads) = reads_of(&mut slot, &regs);
            assert_eq!(
                (single(done), reads),
                (stamp(i), if i == 5 { 6 } else { 5 })
            );
        }
        assert_eq!(slot.counters.stray, 0);
    }

    #[test]
    fn a_mac_reset_makes_the_slot_read_its_baselines_again() {
        // A stamp seen in set 0, then the reset clears the registers: compared with what was
        // seen before, set 0's cleared TXSTMPL would pass for a new stamp.
        let regs = Fake::new(true);
        let mut slot = four::<u32>();
        assert!(slot.claim(1, 0).is_ok());
        assert!(regs.capture(0, 0, 50));
        assert_eq!(single(slot.on_interrupt(&regs)), Some((1, 50)));
        for set in 0..N_SETS {
            regs.l[set].set(0);
            regs.h[set].set(0);
        }
        slot.forget_seen();
        // Set 0 waits; set 1's stamp interrupts.
        assert_eq!(slot.claim(2, 0).map(|(set, _)| set), Ok(0));
        assert_eq!(slot.claim(3, 0).map(|(set, _)| set), Ok(1));
        assert!(regs.capture(1, 0, 60));
        let done = slot.on_interrupt(&regs);
        assert_eq!(done, [None, Some((3, 60)), None, None]);
        assert_eq!(slot.counters.stray, 0);
    }

    #[test]
    fn a_request_given_up_leaves_no_baseline_for_its_late_stamp() {
        let regs = Fake::new(false);
        let mut slot = four::<u32>();
        assert_eq!(slot.claim(1, 5_000).map(|(set, _)| set), Ok(0));
        assert_eq!(slot.claim(2, 0).map(|(set, _)| set), Ok(1));
        assert!(regs.capture(1, 0, 10));
        assert_eq!(slot.on_interrupt(&regs), [None, Some((2, 10)), None, None]);
        // Set 1 again; its request times out, set 0's does not.
        assert_eq!(slot.claim(3, 0).map(|(set, _)| set), Ok(1));
        let freed = slot.expire(&regs, TX_TIMEOUT_NS + 1, TX_TIMEOUT_NS);
        assert_eq!(freed, [None, Some(3), None, None]);
        // Set 0's stamp interrupts; set 1's late stamp lands meanwhile, and the TXSTMPH_0 read
        // clears its TXTT bit unseen.
        assert!(regs.capture(0, 0, 20));
        regs.race.set(Some((1, 0, 30)));
        assert_eq!(slot.on_interrupt(&regs), [Some((1, 20)), None, None, None]);
        // Set 1 claimed anew: its late stamp is not the new request's.
        assert_eq!(slot.claim(4, 0).map(|(set, _)| set), Ok(0));
        assert_eq!(slot.claim(5, 0).map(|(set, _)| set), Ok(1));
        assert!(regs.capture(0, 0, 40));
        assert_eq!(slot.on_interrupt(&regs), [Some((4, 40)), None, None, None]);
        assert!(slot.pending[1].is_some());
    }

    #[test]
    fn a_stray_stamp_in_an_idle_set_is_not_the_next_requests() {
        // A stamp no request waits for (here: a second one in set 1) lands while set 0's
        // interrupt reads TXSTMPH_0, which clears its TXTT bit: set 1's TXSTMPL moved unseen.
        let regs = Fake::new(false);
        let mut slot = four::<u32>();
        assert_eq!(slot.claim(1, 0).map(|(set, _)| set), Ok(0));
        assert_eq!(slot.claim(2, 0).map(|(set, _)| set), Ok(1));
        assert!(regs.capture(1, 0, 10));
        assert_eq!(slot.on_interrupt(&regs), [None, Some((2, 10)), None, None]);
        assert!(regs.capture(0, 0, 20));
        regs.race.set(Some((1, 0, 30)));
        assert_eq!(slot.on_interrupt(&regs), [Some((1, 20)), None, None, None]);
        // Set 1 claimed anew waits for its own stamp.
        assert_eq!(slot.claim(3, 0).map(|(set, _)| set), Ok(0));
        assert_eq!(slot.claim(4, 0).map(|(set, _)| set), Ok(1));
        assert!(regs.capture(0, 0, 40));
        assert_eq!(slot.on_interrupt(&regs), [Some((3, 40)), None, None, None]);
        assert!(regs.capture(1, 0, 50));
        assert_eq!(slot.on_interrupt(&regs), [None, Some((4, 50)), None, None]);
    }

    /// A slot with all four register sets, TX timestamping on.
    fn four<S>() -> TxSlot<S> {
        let mut slot = on(TxSlot::new(0, true));
        assert_eq!(slot.set_four_sets(true), Ok(()));
        slot
    }

    #[test]
    fn four_sets_take_four_requests_and_complete_each_with_its_own_stamp() {
        let regs = Fake::new(true);
        let mut slot = four();
        for i in 0..4u32 {
            assert_eq!(slot.claim(i, 0).map(|(set, _)| set), Ok(i as usize));
        }
        // A fifth waits for nothing: skipped, as with one slot.
        assert_eq!(slot.claim(4u32, 0).map(|(set, _)| set), Err(4));
        assert_eq!(slot.counters.skipped, 1);
        // Sets 3, 1 and 2 latch before the handler runs; only the first raises the interrupt.
        assert!(regs.capture(3, 3, 30));
        assert!(!regs.capture(1, 1, 10));
        assert!(!regs.capture(2, 2, 20));
        let done = slot.on_interrupt(&regs);
        assert_eq!(done[1], Some((1, 1_000_000_010)));
        assert_eq!(done[2], Some((2, 2_000_000_020)));
        assert_eq!(done[3], Some((3, 3_000_000_030)));
        assert_eq!(done[0], None);
        // The TXSTMPH_0 read re-armed the interrupt: set 0's stamp raises it.
        assert!(regs.capture(0, 4, 40));
        assert_eq!(single(slot.on_interrupt(&regs)), Some((0, 4_000_000_040)));
        assert_eq!(slot.counters.completed, 4);
        assert!(!slot.busy());
    }

    #[test]
    fn four_sets_with_the_erratum_keep_their_interrupts() {
        // Stamps only ever in sets 1-3: without the TXSTMPH_0 read the second would never
        // interrupt.
        let regs = Fake::new(true);
        let mut slot = four::<u32>();
        // Set 0 stays busy with a request whose stamp never comes.
        assert_eq!(slot.claim(100, 0).map(|(set, _)| set), Ok(0));
        for round in 0..20u32 {
            let mut sets = [0usize; 3];
            for (k, s) in sets.iter_mut().enumerate() {
                *s = slot
                    .claim(round * 3 + k as u32, 0)
                    .map(|(set, _)| set)
                    .unwrap_or(9);
            }
            assert_eq!(sets, [1, 2, 3]);
            assert!(regs.capture(2, round, 2));
            assert!(!regs.capture(1, round, 1));
            assert!(!regs.capture(3, round, 3));
            let done = slot.on_interrupt(&regs);
            assert_eq!(done.iter().flatten().count(), 3);
        }
        assert_eq!(slot.counters.completed, 60);
    }

    #[test]
    fn four_sets_catch_a_stamp_landing_before_the_rearm() {
        // A stamp lands in set 2 after TSYNCTXCTL was read and before TXSTMPH_0 clears its
        // bit: only its TXSTMPL moved.
        let regs = Fake::new(true);
        let mut slot = four::<u32>();
        regs.l[2].set(70); // An earlier stamp of set 2, read long ago.
        assert!(slot.claim(1, 0).is_ok()); // set 0
        assert!(slot.claim(2, 0).is_ok()); // set 1
        assert!(slot.claim(3, 0).is_ok()); // set 2
        assert!(regs.capture(1, 5, 11));
        regs.race.set(Some((2, 5, 22)));
        let done = slot.on_interrupt(&regs);
        assert_eq!(done[1], Some((2, 5_000_000_011)));
        assert_eq!(done[2], Some((3, 5_000_000_022)));
        assert_eq!(done[0], None);
        assert_eq!(slot.counters.stray, 0);
    }

    #[test]
    fn four_sets_time_out_one_by_one() {
        let regs = Fake::new(false);
        let mut slot = four::<u32>();
        assert!(slot.claim(1, 1_000).is_ok());
        assert!(slot.claim(2, 5_000).is_ok());
        let freed = slot.expire(&regs, 1_001 + TX_TIMEOUT_NS, TX_TIMEOUT_NS);
        assert_eq!(freed, [Some(1), None, None, None]);
        assert_eq!(slot.counters.timeouts, 1);
        // The set freed is taken again; the other still waits, then times out too.
        assert_eq!(slot.claim(3, 6_000).map(|(set, _)| set), Ok(0));
        let freed = slot.expire(&regs, 5_001 + TX_TIMEOUT_NS, TX_TIMEOUT_NS);
        assert_eq!(freed, [None, Some(2), None, None]);
        assert_eq!(slot.counters.timeouts, 2);
    }

    #[test]
    fn switching_sets_waits_for_no_request_and_unclaim_finds_its_set() {
        let regs = Fake::new(false);
        let mut slot = four::<u32>();
        let a = slot.claim(1, 0).ok();
        let b = slot.claim(2, 0).ok();
        assert_eq!(slot.set_four_sets(false), Err(EBUSY));
        assert_eq!(b.map(|(_, b)| slot.unclaim(b)), Some(Some(2)));
        assert_eq!(a.map(|(_, a)| slot.unclaim(a)), Some(Some(1)));
        assert_eq!(slot.set_four_sets(false), Ok(()));
        // One slot again: the second claim is skipped.
        assert!(slot.claim(3, 0).is_ok());
        assert_eq!(slot.claim(4, 0), Err(4));
        assert_eq!(single(slot.cancel(&regs)), Some(3));
    }
}
