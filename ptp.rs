// SPDX-License-Identifier: GPL-2.0

//! PTP: the hardware clock (SYSTIM), the timestamping configuration, RX timestamps from the
//! header the hardware puts in front of a frame, and the single-slot TX timestamp state.
//!
//! # The TX timestamp slot
//!
//! One request at a time, as the design card says: [`TxSlot`] holds the skb waiting for its
//! timestamp together with the time it was claimed, behind a `SpinLockIrq` shared by the xmit
//! path (claim), the time-sync interrupt handler (read-out and completion, in hard-IRQ context)
//! and the watchdog (timeout). The read-out follows `igc_ptp_tx_hwtstamp` of the 7.3 C driver,
//! including the I225 erratum: a TX timestamp interrupt is not raised again until TXSTMPH_0 has
//! been read, even for timestamps latched in sets 1-3. So when TXTT_0 is clear, TXSTMPH_0 is read
//! anyway, and TXSTMPL_0 is compared with the baseline read before TSYNCTXCTL to catch a
//! timestamp that landed in set 0 between the two reads.
//!
//! The slot uses register set 0; sets 1-3 are selectable for tests (`test_txts_set`), which is
//! where the erratum shows without the workaround (`test_no_txstmph0_workaround`).

use kernel::{fmt, io::Io};

use crate::{
    hw::Hw,
    regs::{self, Bar0},
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Systim {
    pub(crate) sec: u32,
    pub(crate) nsec: u32,
}

impl fmt::Display for Systim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:09}", self.sec, self.nsec)
    }
}

/// Reads SYSTIM at probe (SYSTIML first: it latches SYSTIMH).
pub(crate) fn read_systim(bar: &Bar0<'_>) -> Systim {
    let nsec = bar.read(regs::SYSTIML).nsec().get();
    let sec = bar.read(regs::SYSTIMH).sec().get();
    Systim { sec, nsec }
}

/// PTP register offsets and bits (`igc_regs.h`, `igc_defines.h`).
pub(crate) mod r {
    pub(crate) const SYSTIML: usize = 0x0B600;
    pub(crate) const SYSTIMH: usize = 0x0B604;
    pub(crate) const TIMINCA: usize = 0x0B608;
    pub(crate) const TSYNCTXCTL: usize = 0x0B614;
    pub(crate) const TSYNCRXCTL: usize = 0x0B620;
    pub(crate) const TSAUXC: usize = 0x0B640;
    pub(crate) const TSICR: usize = 0x0B66C;
    pub(crate) const TSIM: usize = 0x0B674;
    pub(crate) const RXPBS: usize = 0x02404;

    /// TXSTMPL of register set `n` (0-3).
    pub(crate) const fn txstmpl(n: usize) -> usize {
        match n {
            0 => 0x0B618,
            1 => 0x0B698,
            2 => 0x0B6B8,
            _ => 0x0B6D8,
        }
    }

    /// TXSTMPH of register set `n` (0-3).
    pub(crate) const fn txstmph(n: usize) -> usize {
        txstmpl(n) + 4
    }

    pub(crate) const TSYNCTXCTL_TXTT_MASK: u32 = 0xF;
    pub(crate) const TSYNCTXCTL_ENABLED: u32 = 1 << 4;
    pub(crate) const TSYNCTXCTL_TXSYNSIG: u32 = 1 << 5;
    pub(crate) const TSYNCRXCTL_TYPE_ALL: u32 = 0x08;
    pub(crate) const TSYNCRXCTL_ENABLED: u32 = 0x10;
    pub(crate) const TSYNCRXCTL_RXSYNSIG: u32 = 0x20;
    pub(crate) const TSICR_TXTS: u32 = 1 << 1;
    pub(crate) const RXPBS_CFG_TS_EN: u32 = 1 << 31;
    pub(crate) const SRRCTL_TIMESTAMP: u32 = 1 << 30;
    pub(crate) const SRRCTL_TIMER1SEL_1: u32 = 1 << 14;
    pub(crate) const TIMINCA_ISGN: u32 = 1 << 31;
    pub(crate) const TIMINCA_INCVALUE_MASK: u32 = 0x7FFF_FFFF;
    pub(crate) const ICR_TS: u32 = 1 << 19;
    /// TX descriptor: take a timestamp of this packet (`IGC_ADVTXD_MAC_TSTAMP`).
    pub(crate) const TXD_MAC_TSTAMP: u32 = 0x0008_0000;
    /// TX descriptor: the timestamp register set, bits 17:16 (`IGC_ADVTXD_TSTAMP_REG_n`).
    pub(crate) const TXD_TSTAMP_REG_SHIFT: u32 = 16;
    /// RX descriptor status: a timestamp header precedes the frame (`IGC_RXDADV_STAT_TSIP`).
    pub(crate) const RXD_STAT_TSIP: u32 = 1 << 15;
    /// Length of that header (`IGC_TS_HDR_LEN`).
    pub(crate) const TS_HDR_LEN: u32 = 16;
}

/// How long a TX timestamp may take before the watchdog gives up on it (`IGC_PTP_TX_TIMEOUT`).
pub(crate) const TX_TIMEOUT_NS: u64 = 15_000_000_000;

/// Largest frequency adjustment, in ppb (`igc_ptp_init`: `max_adj = 62499999`).
pub(crate) const MAX_ADJ_PPB: i32 = 62_499_999;

/// TX and RX latencies between the timestamp point and the wire, per link speed
/// (`IGC_I225_TX_LATENCY_*`, `IGC_I225_RX_LATENCY_*`), in ns.
pub(crate) fn tx_latency_ns(mbps: u32) -> u64 {
    match mbps {
        10 => 240,
        100 => 58,
        1000 => 80,
        2500 => 1325,
        _ => 0,
    }
}

/// See [`tx_latency_ns`].
pub(crate) fn rx_latency_ns(mbps: u32) -> u64 {
    match mbps {
        10 => 6450,
        100 => 185,
        1000 => 300,
        2500 => 1485,
        _ => 0,
    }
}

/// Nanoseconds of a SYSTIM-format value: seconds in the high word, nanoseconds in the low.
pub(crate) fn systim_to_ns(lo: u32, hi: u32) -> u64 {
    u64::from(hi) * 1_000_000_000 + u64::from(lo)
}

/// The TIMINCA value for a frequency offset of `scaled_ppm` (ppm with a 16-bit binary
/// fraction), as `igc_ptp_adjfine_i225` computes it: the increment is in units of 2^-32 ns per
/// 3.2 ns cycle, so INCVALUE = |scaled_ppm| * 2^14 / 78125 (= |ppm| * 2^30 / 78125 / 2^16),
/// with the sign in ISGN. Rounded to the nearest unit (igc truncates; the difference is below
/// 0.5 unit, 1.5e-4 ppb).
pub(crate) fn timinca(scaled_ppm: i64) -> u32 {
    // The PTP core keeps |scaled_ppm| within `max_adj` (about 2^32); the clamp keeps the
    // product far from overflowing 64 bits for any input.
    let abs = scaled_ppm.unsigned_abs().min(1 << 40);
    let inca = ((abs << 14) + 78125 / 2) / 78125;
    let inca = inca.min(u64::from(r::TIMINCA_INCVALUE_MASK)) as u32;
    if scaled_ppm < 0 {
        inca | r::TIMINCA_ISGN
    } else {
        inca
    }
}

/// The register reads of the TX timestamp read-out: the device, or a fake in the KUnit tests.
pub(crate) trait TxStampRegs {
    /// TXSTMPL of set `n`.
    fn txstmpl(&self, n: usize) -> u32;
    /// TXSTMPH of set `n`; for set 0 this also clears the TXTT bits and re-arms the interrupt.
    fn txstmph(&self, n: usize) -> u32;
    /// TSYNCTXCTL.
    fn tsynctxctl(&self) -> u32;
}

impl TxStampRegs for Hw {
    fn txstmpl(&self, n: usize) -> u32 {
        self.rd(r::txstmpl(n))
    }

    fn txstmph(&self, n: usize) -> u32 {
        self.rd(r::txstmph(n))
    }

    fn tsynctxctl(&self) -> u32 {
        self.rd(r::TSYNCTXCTL)
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

/// The single-slot TX timestamp state. `S` is the waiting skb (a `TstampSkb`), a token in tests.
pub(crate) struct TxSlot<S> {
    /// The waiting request, the time it was claimed (ns, monotonic) and its claim number,
    /// published together.
    pending: Option<(S, u64, u64)>,
    /// The number of the next claim.
    next_claim: u64,
    /// The hardware register set the slot uses (0 except in tests).
    set: usize,
    /// Whether the TXSTMPH_0 workaround runs (always, except in tests).
    workaround: bool,
    pub(crate) counters: TxSlotCounters,
}

impl<S> TxSlot<S> {
    pub(crate) const fn new(set: usize, workaround: bool) -> Self {
        Self {
            pending: None,
            next_claim: 0,
            set,
            workaround,
            counters: TxSlotCounters {
                completed: 0,
                skipped: 0,
                timeouts: 0,
                stray: 0,
            },
        }
    }

    /// Returns the register set the slot uses.
    pub(crate) fn set(&self) -> usize {
        self.set
    }

    /// Returns whether a request is waiting.
    pub(crate) fn busy(&self) -> bool {
        self.pending.is_some()
    }

    /// Counts a request skipped because the slot is busy (xmit path).
    pub(crate) fn skip(&mut self) {
        self.counters.skipped += 1;
    }

    /// Claims the slot for `req` at `now` (xmit path). If it is busy the request comes back and
    /// is counted as skipped.
    pub(crate) fn claim(&mut self, req: S, now: u64) -> core::result::Result<ClaimId, S> {
        if self.pending.is_some() {
            self.counters.skipped += 1;
            return Err(req);
        }
        let id = self.next_claim;
        self.next_claim = id.wrapping_add(1);
        self.pending = Some((req, now, id));
        Ok(ClaimId(id))
    }

    /// Undoes `claim`, whose packet never reached the hardware (the xmit path dropped it), if
    /// the slot still holds it: a stray stamp may have completed it, and another queue claimed
    /// the slot since.
    pub(crate) fn unclaim(&mut self, claim: ClaimId) -> Option<S> {
        match self.pending {
            Some((_, _, id)) if id == claim.0 => self.pending.take().map(|(s, _, _)| s),
            _ => None,
        }
    }

    /// Reads the timestamp after a TX timestamp interrupt (hard-IRQ context). Returns the
    /// completed request and its SYSTIM time in ns, if its timestamp was there.
    pub(crate) fn on_interrupt(&mut self, regs: &impl TxStampRegs) -> Option<(S, u64)> {
        // Baseline of TXSTMPL_0 before TXTT_0 is tested.
        let baseline = regs.txstmpl(0);
        let mask = regs.tsynctxctl() & r::TSYNCTXCTL_TXTT_MASK;
        let mut set0 = None;
        if mask & 1 != 0 {
            let lo = regs.txstmpl(0);
            set0 = Some(systim_to_ns(lo, regs.txstmph(0)));
        } else if self.workaround {
            // Re-arm the interrupt, then catch a timestamp that arrived meanwhile: consecutive
            // timestamps never share a nanosecond value.
            let _ = regs.txstmph(0);
            let lo = regs.txstmpl(0);
            if lo != baseline {
                set0 = Some(systim_to_ns(lo, regs.txstmph(0)));
            }
        }
        let stamp = if self.set == 0 {
            set0
        } else {
            if set0.is_some() {
                self.counters.stray += 1;
            }
            (mask & (1 << self.set) != 0).then(|| {
                let lo = regs.txstmpl(self.set);
                systim_to_ns(lo, regs.txstmph(self.set))
            })
        };
        let ns = stamp?;
        match self.pending.take() {
            Some((req, _, _)) => {
                self.counters.completed += 1;
                Some((req, ns))
            }
            None => {
                self.counters.stray += 1;
                None
            }
        }
    }

    /// Frees a request older than `timeout` ns at `now` (the watchdog), re-arming the hardware
    /// as `igc_ptp_tx_hang` does. Returns the freed request.
    pub(crate) fn expire(&mut self, regs: &impl TxStampRegs, now: u64, timeout: u64) -> Option<S> {
        match self.pending {
            Some((_, start, _)) if now.saturating_sub(start) > timeout => {
                self.counters.timeouts += 1;
                let _ = regs.txstmph(0);
                self.pending.take().map(|(s, _, _)| s)
            }
            _ => None,
        }
    }

    /// Empties the slot (TX timestamping disabled, interface down, removal), discarding a
    /// timestamp the hardware may hold. Returns the request that was waiting.
    pub(crate) fn cancel(&mut self, regs: &impl TxStampRegs) -> Option<S> {
        let req = self.pending.take().map(|(s, _, _)| s);
        if req.is_some() {
            let _ = regs.txstmpl(self.set);
            let _ = regs.txstmph(self.set);
            let _ = regs.txstmph(0);
        }
        req
    }
}

/// Extracts the timer 0 time (ns) from the 16-byte RX timestamp header: dwords 2 and 3 hold
/// timer 0's SYSTIML and SYSTIMH (`struct igc_inline_rx_tstamps`).
pub(crate) fn rx_header_ns(hdr: &[u8; 16]) -> u64 {
    let lo = u32::from_le_bytes([hdr[8], hdr[9], hdr[10], hdr[11]]);
    let hi = u32::from_le_bytes([hdr[12], hdr[13], hdr[14], hdr[15]]);
    systim_to_ns(lo, hi)
}

#[cfg(CONFIG_RIGC_KUNIT_TEST)]
#[kernel::prelude::kunit_tests(rigc_ptp)]
mod tests {
    use super::*;
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
        /// A capture into set 0 that lands right after the next TSYNCTXCTL read.
        race: Cell<Option<(u32, u32)>>,
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
            self.l[n].get()
        }

        fn txstmph(&self, n: usize) -> u32 {
            if n == 0 {
                self.txtt.set(0);
                self.armed.set(true);
            } else {
                self.txtt.set(self.txtt.get() & !(1 << n));
            }
            self.h[n].get()
        }

        fn tsynctxctl(&self) -> u32 {
            let v = self.txtt.get();
            if let Some((sec, ns)) = self.race.take() {
                self.capture(0, sec, ns);
            }
            v
        }
    }

    #[test]
    fn claim_then_complete_in_the_interrupt() {
        let regs = Fake::new(false);
        let mut slot = TxSlot::new(0, true);
        assert!(slot.claim(1u32, 0).is_ok());
        assert!(regs.capture(0, 5, 123));
        assert_eq!(slot.on_interrupt(&regs), Some((1, 5_000_000_123)));
        assert!(!slot.busy());
        assert_eq!(slot.counters.completed, 1);
    }

    #[test]
    fn unclaim_gives_back_its_own_claim_only() {
        // driver-review.md F8 d: a stray stamp completes A before its xmit drops the packet,
        // and another queue claims the slot for B; A's undo must leave B waiting.
        let regs = Fake::new(false);
        let mut slot = TxSlot::new(0, true);
        let a = slot.claim(1u32, 0).ok();
        assert!(regs.capture(0, 1, 5));
        assert_eq!(slot.on_interrupt(&regs), Some((1, 1_000_000_005)));
        let b = slot.claim(2u32, 1).ok();
        assert_eq!(a.map(|a| slot.unclaim(a)), Some(None));
        assert!(slot.busy());
        assert_eq!(b.map(|b| slot.unclaim(b)), Some(Some(2)));
        assert!(!slot.busy());
    }

    #[test]
    fn busy_slot_skips_and_keeps_the_first() {
        let regs = Fake::new(false);
        let mut slot = TxSlot::new(0, true);
        assert!(slot.claim(1u32, 0).is_ok());
        assert_eq!(slot.claim(2u32, 1), Err(2));
        assert_eq!(slot.counters.skipped, 1);
        regs.capture(0, 0, 7);
        assert_eq!(slot.on_interrupt(&regs), Some((1, 7)));
        assert!(slot.claim(3u32, 2).is_ok());
    }

    #[test]
    fn watchdog_frees_after_the_timeout_and_the_next_request_succeeds() {
        let regs = Fake::new(false);
        let mut slot = TxSlot::new(0, true);
        assert!(slot.claim(1u32, 1_000).is_ok());
        // The interrupt was lost: nothing completes it.
        assert_eq!(
            slot.expire(&regs, 1_000 + TX_TIMEOUT_NS, TX_TIMEOUT_NS),
            None
        );
        assert_eq!(
            slot.expire(&regs, 2_000 + TX_TIMEOUT_NS, TX_TIMEOUT_NS),
            Some(1)
        );
        assert_eq!(slot.counters.timeouts, 1);
        assert!(slot.claim(2u32, 3_000).is_ok());
        assert!(regs.capture(0, 1, 1));
        assert_eq!(slot.on_interrupt(&regs), Some((2, 1_000_000_001)));
    }

    #[test]
    fn disable_while_pending_frees_and_drops_a_late_stamp() {
        let regs = Fake::new(false);
        let mut slot = TxSlot::new(0, true);
        assert!(slot.claim(1u32, 0).is_ok());
        assert_eq!(slot.cancel(&regs), Some(1));
        assert!(!slot.busy());
        // A stamp that arrives after the cancel completes nothing.
        regs.capture(0, 0, 9);
        assert_eq!(slot.on_interrupt(&regs), None);
        assert_eq!(slot.counters.stray, 1);
        assert_eq!(slot.cancel(&regs), None);
    }

    #[test]
    fn erratum_with_the_workaround_loses_nothing() {
        // The slot on set 1, where the erratum bites: without a TXSTMPH_0 read no further
        // interrupt fires.
        let regs = Fake::new(true);
        let mut slot = TxSlot::new(1, true);
        for i in 0..10u32 {
            assert!(slot.claim(i, 0).is_ok());
            // Interrupt `i` fires.
            assert!(regs.capture(1, 0, 100 + i));
            assert_eq!(slot.on_interrupt(&regs), Some((i, u64::from(100 + i))));
        }
        assert_eq!(slot.counters.completed, 10);
    }

    #[test]
    fn erratum_without_the_workaround_loses_the_second_interrupt() {
        let regs = Fake::new(true);
        let mut slot = TxSlot::new(1, false);
        assert!(slot.claim(0u32, 0).is_ok());
        assert!(regs.capture(1, 0, 100));
        assert_eq!(slot.on_interrupt(&regs), Some((0, 100)));
        assert!(slot.claim(1u32, 0).is_ok());
        // No interrupt: TXSTMPH_0 was never read.
        assert!(!regs.capture(1, 0, 200));
        // Only the watchdog gets the slot back.
        assert_eq!(
            slot.expire(&regs, TX_TIMEOUT_NS + 1, TX_TIMEOUT_NS),
            Some(1)
        );
    }

    #[test]
    fn stamp_landing_between_the_txtt_test_and_the_rearm_is_caught() {
        let regs = Fake::new(true);
        let mut slot = TxSlot::new(0, true);
        regs.l[0].set(50); // The previous stamp, already read.
        assert!(slot.claim(7u32, 0).is_ok());
        // TXTT_0 reads clear, then the stamp lands before TXSTMPH_0 is read.
        regs.race.set(Some((2, 60)));
        assert_eq!(slot.on_interrupt(&regs), Some((7, 2_000_000_060)));
    }

    #[test]
    fn timinca_from_scaled_ppm() {
        assert_eq!(timinca(0), 0);
        // 1 ppm: 2^30 / 78125 = 13743.9 -> 13744.
        assert_eq!(timinca(65536), 13744);
        assert_eq!(timinca(-65536), 13744 | r::TIMINCA_ISGN);
        // 1000 ppb = 1 ppm; 62499999 ppb, the largest, fits INCVALUE.
        let max = (62_499_999i64 << 16) / 1000;
        assert!(timinca(max) < r::TIMINCA_INCVALUE_MASK);
        // Rounding: 78125 / 2^14 scaled ppm is exactly one unit.
        assert_eq!(timinca(78125), 1 << 14);
        assert_eq!(timinca(3), 1); // 3 * 16384 / 78125 = 0.63 -> 1
        assert_eq!(timinca(2), 0); // 0.42 -> 0
    }

    #[test]
    fn time_conversions() {
        assert_eq!(systim_to_ns(999_999_999, 3), 3_999_999_999);
        let mut hdr = [0u8; 16];
        hdr[8..12].copy_from_slice(&500u32.to_le_bytes());
        hdr[12..16].copy_from_slice(&7u32.to_le_bytes());
        hdr[0..8].fill(0xAA); // Timer 1: not used.
        assert_eq!(rx_header_ns(&hdr), 7_000_000_500);
        assert_eq!(tx_latency_ns(2500), 1325);
        assert_eq!(rx_latency_ns(1000), 300);
    }
}
