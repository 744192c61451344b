// SPDX-License-Identifier: GPL-2.0

//! The interrupt block: legacy causes (ICR/ICS/IMS/IMC/IAM), the extended
//! per-vector causes used in MSI-X mode (EICR/EICS/EIMS/EIMC/EIAC/EIAM),
//! GPIE, IVAR routing and EITR interrupt moderation.
//!
//! The block decides *when* an interrupt message is due and records it in
//! [`Signals`]; delivering it (eventfds, per-vector masks) is the transport's
//! business. Messages are edge-triggered: a vector fires when it gets a new
//! cause while enabled, or when it is enabled with a cause pending.
//!
//! EITR moderation: after vector n fires, it does not fire again until
//! EITR(n)'s interval (see [`regs::eitr::interval_ns`]) has passed since
//! that firing. A firing due meanwhile is held; when the interval expires
//! the vector fires once if its cause is still pending and enabled (causes
//! coalesce in EICR). Outside MSI-X mode EITR(0) moderates the single
//! MSI/INTx interrupt the same way, as igc programs it (igc_main.c,
//! igc_alloc_q_vector: `itr_register = adapter->io_addr + IGC_EITR(0)`).
//! Holds are released by [`Interrupts::take_signals`]; whoever drives the
//! block calls it by [`Interrupts::next_deadline`].

use std::sync::Arc;

use crate::lateness::Lateness;
use crate::ptp::TimeSource;
use crate::regs::{self, eitr, gpie, icr, ivar, NUM_MSIX_VECTORS};

const VECTOR_MASK: u32 = (1 << NUM_MSIX_VECTORS) - 1;
const NUM_EITR: usize = 25;
const NUM_IVAR: usize = 8;

/// Direction of a queue event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueDir {
    Rx,
    Tx,
}

/// Interrupt messages that became due.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Signals {
    /// MSI-X vectors to signal (bit n = vector n).
    pub msix: u32,
    /// The single MSI / INTx interrupt is to be signalled.
    pub legacy: bool,
}

impl Signals {
    pub fn is_empty(&self) -> bool {
        self.msix == 0 && !self.legacy
    }
}

#[derive(Clone)]
pub struct Interrupts {
    icr: u32,
    ims: u32,
    iam: u32,
    gpie: u32,
    eicr: u32,
    eims: u32,
    eiac: u32,
    eiam: u32,
    ivar: [u32; NUM_IVAR],
    ivar_misc: u32,
    eitr: [u32; NUM_EITR],
    due: Signals,
    /// Host time of each vector's last firing (vector 0 also stands for
    /// the MSI/INTx interrupt), for EITR moderation.
    last_fired: [Option<u64>; NUM_MSIX_VECTORS],
    /// Vectors whose firing waits for their EITR interval to expire.
    held: u32,
    /// The MSI/INTx interrupt waits for EITR(0)'s interval.
    held_legacy: bool,
    /// Host time from the end of an EITR window to the release of the
    /// firing it held (kept across MAC resets: the model's figure).
    pub release_lateness: Lateness,
    /// Firings of each vector that an EIMS write released, its cause pending
    /// while it was masked (kept across MAC resets: the benchmark's figure).
    pub fired_on_enable: [u64; NUM_MSIX_VECTORS],
    clock: Arc<dyn TimeSource>,
}

impl std::fmt::Debug for Interrupts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Interrupts")
            .field("icr", &self.icr)
            .field("eicr", &self.eicr)
            .field("eims", &self.eims)
            .field("held", &self.held)
            .field("held_legacy", &self.held_legacy)
            .finish_non_exhaustive()
    }
}

impl Interrupts {
    pub fn new(clock: Arc<dyn TimeSource>) -> Self {
        Interrupts {
            icr: 0,
            ims: 0,
            iam: 0,
            gpie: 0,
            eicr: 0,
            eims: 0,
            eiac: 0,
            eiam: 0,
            ivar: [0; NUM_IVAR],
            ivar_misc: 0,
            eitr: [0; NUM_EITR],
            due: Signals::default(),
            last_fired: [None; NUM_MSIX_VECTORS],
            held: 0,
            held_legacy: false,
            release_lateness: Lateness::default(),
            fired_on_enable: [0; NUM_MSIX_VECTORS],
            clock,
        }
    }

    /// MAC reset: every register back to zero, held firings dropped.
    /// Already-due messages are kept: they were sent before the reset.
    pub fn reset(&mut self) {
        let due = self.due;
        let release_lateness = std::mem::take(&mut self.release_lateness);
        let fired_on_enable = self.fired_on_enable;
        *self = Self { due, release_lateness, fired_on_enable, ..Self::new(self.clock.clone()) };
    }

    pub fn msix_mode(&self) -> bool {
        self.gpie & gpie::MSIX_MODE != 0
    }

    /// Takes the messages that became due since the last call, including
    /// held ones whose EITR interval has expired.
    pub fn take_signals(&mut self) -> Signals {
        self.release_expired();
        std::mem::take(&mut self.due)
    }

    /// Host time at which the earliest held firing is released, if any.
    pub fn next_deadline(&self) -> Option<u64> {
        let vectors = (0..NUM_MSIX_VECTORS).filter(|v| self.held & (1 << v) != 0);
        let legacy = self.held_legacy.then_some(0);
        vectors.chain(legacy).filter_map(|v| self.window_end(v)).min()
    }

    /// End of vector `v`'s moderation window: its last firing plus the
    /// interval in EITR(v). `None` without moderation or a firing.
    fn window_end(&self, v: usize) -> Option<u64> {
        let interval = eitr::interval_ns(self.eitr[v]);
        (interval != 0).then_some(self.last_fired[v]?.saturating_add(interval))
    }

    /// Vectors whose moderation window is still open at `now`.
    fn throttled(&self, now: u64) -> u32 {
        (0..NUM_MSIX_VECTORS).filter(|&v| self.window_end(v).is_some_and(|end| now < end)).fold(0, |m, v| m | 1 << v)
    }

    /// Fires held vectors (and the held MSI/INTx interrupt) whose window
    /// has closed, if their cause is still pending and enabled.
    fn release_expired(&mut self) {
        if self.held == 0 && !self.held_legacy {
            return;
        }
        let now = self.clock.now_ns();
        let open = self.throttled(now);
        let ready = self.held & !open;
        for v in (0..NUM_MSIX_VECTORS).filter(|v| ready & (1 << v) != 0) {
            if let Some(end) = self.window_end(v) {
                self.release_lateness.record(now.saturating_sub(end));
            }
        }
        if self.held_legacy && open & 1 == 0 {
            if let Some(end) = self.window_end(0) {
                self.release_lateness.record(now.saturating_sub(end));
            }
        }
        self.held &= !ready;
        self.fire(ready);
        if self.held_legacy && open & 1 == 0 {
            self.held_legacy = false;
            if !self.msix_mode() && self.legacy_asserted() {
                self.fire_legacy();
            }
        }
    }

    /// True while an enabled legacy cause is pending (INTx line level).
    pub fn legacy_asserted(&self) -> bool {
        self.icr & self.ims != 0
    }

    /// Handles a register this block owns; `None` if it is not ours.
    pub fn read(&mut self, off: u32) -> Option<u32> {
        Some(match off {
            regs::ICR => self.read_icr(),
            regs::ICS => self.icr,
            regs::IMS => self.ims,
            regs::IMC => 0,
            regs::IAM => self.iam,
            regs::GPIE => self.gpie,
            regs::EICS => self.eicr,
            regs::EIMS | regs::EIMC => self.eims,
            regs::EIAC => self.eiac,
            regs::EIAM => self.eiam,
            regs::EICR => {
                // Read-to-clear, like the igb family (igc never reads it).
                std::mem::take(&mut self.eicr)
            }
            _ => *self.slot(off)?,
        })
    }

    pub fn write(&mut self, off: u32, val: u32) -> bool {
        match off {
            regs::ICR => self.icr &= !val,
            regs::ICS => self.raise(val),
            regs::IMS => {
                self.ims |= val;
                let newly = self.icr & val;
                self.legacy_cause_enabled(newly);
            }
            regs::IMC => self.ims &= !val,
            regs::IAM => self.iam = val,
            regs::GPIE => self.gpie = val,
            regs::EICS => self.set_vector_causes(val & VECTOR_MASK),
            regs::EIMS => {
                self.eims |= val & VECTOR_MASK;
                let fired = self.fire(val & VECTOR_MASK);
                for (v, n) in self.fired_on_enable.iter_mut().enumerate() {
                    *n += u64::from(fired >> v & 1);
                }
            }
            regs::EIMC => self.eims &= !val,
            regs::EIAC => self.eiac = val & VECTOR_MASK,
            regs::EIAM => self.eiam = val,
            regs::EICR => self.eicr &= !val,
            _ => match self.slot(off) {
                Some(slot) => *slot = val,
                None => return false,
            },
        }
        true
    }

    /// What a byte or word write (PCIe byte enables) merges its bytes into:
    /// 0 for the set and clear registers (ICS/IMS/IMC/EICS/EIMS/EIMC and the
    /// write-1-to-clear ICR/EICR), so that the bytes not written set or clear
    /// nothing; the current contents of the others. `None` if `off` is not an
    /// interrupt register.
    pub fn partial_write_base(&mut self, off: u32) -> Option<u32> {
        Some(match off {
            regs::ICR | regs::ICS | regs::IMS | regs::IMC => 0,
            regs::EICS | regs::EIMS | regs::EIMC | regs::EICR => 0,
            regs::IAM => self.iam,
            regs::GPIE => self.gpie,
            regs::EIAC => self.eiac,
            regs::EIAM => self.eiam,
            _ => *self.slot(off)?,
        })
    }

    fn slot(&mut self, off: u32) -> Option<&mut u32> {
        match off {
            regs::IVAR_MISC => Some(&mut self.ivar_misc),
            o if (regs::IVAR0..regs::IVAR0 + 4 * NUM_IVAR as u32).contains(&o) && o % 4 == 0 => {
                Some(&mut self.ivar[((o - regs::IVAR0) / 4) as usize])
            }
            o if (regs::EITR0..regs::EITR0 + 4 * NUM_EITR as u32).contains(&o) && o % 4 == 0 => {
                Some(&mut self.eitr[((o - regs::EITR0) / 4) as usize])
            }
            _ => None,
        }
    }

    fn read_icr(&mut self) -> u32 {
        let mut v = self.icr;
        if self.legacy_asserted() {
            v |= icr::INT_ASSERTED;
        }
        if !self.msix_mode() && v != 0 {
            // Auto-mask on read (legacy/MSI mode).
            self.ims &= !self.iam;
        }
        self.icr = 0;
        v
    }

    /// Raises "other" causes in ICR (LSC, TS, ...).
    pub fn raise(&mut self, cause: u32) {
        self.icr |= cause;
        self.legacy_cause_enabled(cause & self.ims);
    }

    /// An enabled ICR cause became pending.
    fn legacy_cause_enabled(&mut self, causes: u32) {
        if causes == 0 {
            return;
        }
        if self.msix_mode() {
            if let Some(v) = vector_of(self.ivar_misc >> 8) {
                self.set_vector_causes(1 << v);
            }
        } else {
            self.fire_legacy();
        }
    }

    /// Signals the MSI/INTx interrupt unless EITR(0) holds it back.
    fn fire_legacy(&mut self) {
        let now = self.clock.now_ns();
        if self.throttled(now) & 1 != 0 {
            self.held_legacy = true;
        } else {
            self.due.legacy = true;
            self.last_fired[0] = Some(now);
        }
    }

    /// RX or TX activity on a queue.
    pub fn queue_event(&mut self, dir: QueueDir, queue: usize) {
        if self.msix_mode() {
            let reg = self.ivar[queue / 2];
            let shift = match (dir, queue % 2) {
                (QueueDir::Rx, 0) => 0,
                (QueueDir::Tx, 0) => 8,
                (QueueDir::Rx, _) => 16,
                (QueueDir::Tx, _) => 24,
            };
            if let Some(v) = vector_of(reg >> shift) {
                self.set_vector_causes(1 << v);
            }
        } else {
            self.raise(match dir {
                QueueDir::Rx => icr::RXT0,
                QueueDir::Tx => icr::TXDW,
            });
        }
    }

    fn set_vector_causes(&mut self, vectors: u32) {
        self.eicr |= vectors;
        self.fire(vectors);
    }

    /// Sends the messages of `candidates` that are pending and enabled,
    /// then applies auto-clear (EIAC) and auto-mask (EIAM with GPIE.EIAME).
    /// A vector inside its EITR window is held instead (its cause stays in
    /// EICR, its mask untouched) until the window closes. Returns the vectors
    /// fired.
    fn fire(&mut self, candidates: u32) -> u32 {
        let ready = candidates & self.eicr & self.eims & VECTOR_MASK;
        if ready == 0 {
            return 0;
        }
        let now = self.clock.now_ns();
        let open = ready & self.throttled(now);
        self.held |= open;
        let fire = ready & !open;
        if fire == 0 {
            return 0;
        }
        for (v, last) in self.last_fired.iter_mut().enumerate() {
            if fire & (1 << v) != 0 {
                *last = Some(now);
            }
        }
        self.due.msix |= fire;
        self.eicr &= !(fire & self.eiac);
        if self.gpie & gpie::EIAME != 0 {
            self.eims &= !(fire & self.eiam);
        }
        fire
    }
}

/// Decodes an 8-bit IVAR field.
fn vector_of(field: u32) -> Option<u32> {
    let v = field & (ivar::VALID | ivar::VECTOR_MASK);
    (v & ivar::VALID != 0 && (v & ivar::VECTOR_MASK) < NUM_MSIX_VECTORS as u32).then_some(v & ivar::VECTOR_MASK)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptp::VirtualClock;

    fn block() -> Interrupts {
        block_with_clock().0
    }

    fn block_with_clock() -> (Interrupts, Arc<VirtualClock>) {
        let clock = Arc::new(VirtualClock::new(1_000_000));
        (Interrupts::new(clock.clone()), clock)
    }

    /// The MSI-X setup igc programs with four paired queues.
    fn msix_block() -> Interrupts {
        msix_block_with_clock().0
    }

    fn msix_block_with_clock() -> (Interrupts, Arc<VirtualClock>) {
        let (mut i, clock) = block_with_clock();
        i.write(regs::GPIE, 0xC000_0011);
        i.write(regs::IVAR_MISC, 0x8000);
        i.write(regs::IVAR0, 0x8282_8181);
        i.write(regs::IVAR0 + 4, 0x8484_8383);
        let eiac = i.read(regs::EIAC).unwrap();
        i.write(regs::EIAC, eiac | 0x1F);
        let eiam = i.read(regs::EIAM).unwrap();
        i.write(regs::EIAM, eiam | 0x1F);
        i.write(regs::EIMS, 0x1F);
        i.write(regs::IMS, 0x5008_0004);
        assert!(i.take_signals().is_empty());
        (i, clock)
    }

    /// What igc_write_itr writes for `itr_val`.
    fn igc_eitr(itr_val: u32) -> u32 {
        let v = itr_val & 0x7FFC; // IGC_QVECTOR_MASK
        (if v == 0 { 0x04 } else { v }) | 0x8000_0000 // IGC_ITR_VAL_MASK, IGC_EITR_CNT_IGNR
    }

    #[test]
    fn eics_sets_eicr_and_fires_enabled_vector() {
        let mut i = msix_block();
        i.write(regs::EIAC, 0); // keep the cause visible
        i.write(regs::EICS, 1 << 2);
        assert_eq!(i.take_signals().msix, 1 << 2);
        assert_eq!(i.read(regs::EICR).unwrap(), 1 << 2);
    }

    #[test]
    fn eiac_auto_clears_and_eiam_auto_masks() {
        let mut i = msix_block();
        i.write(regs::EICS, 1 << 3);
        assert_eq!(i.take_signals().msix, 1 << 3);
        assert_eq!(i.eicr & (1 << 3), 0, "EIAC cleared the cause");
        assert_eq!(i.read(regs::EIMS).unwrap() & (1 << 3), 0, "EIAM masked the vector");
        // A new event while masked stays pending until EIMS re-arms.
        i.queue_event(QueueDir::Rx, 2);
        assert!(i.take_signals().is_empty());
        i.write(regs::EIMS, 1 << 3);
        assert_eq!(i.take_signals().msix, 1 << 3);
    }

    #[test]
    fn ivar_routes_queues_to_vectors() {
        let mut i = msix_block();
        i.queue_event(QueueDir::Rx, 0);
        assert_eq!(i.take_signals().msix, 1 << 1);
        i.queue_event(QueueDir::Tx, 3);
        assert_eq!(i.take_signals().msix, 1 << 4);
        // Unpaired plan (2 CPUs): RX0 on 1, TX0 on 3.
        i.write(regs::IVAR0, 0x0000_8381);
        i.write(regs::EIMS, 0x1F);
        i.queue_event(QueueDir::Tx, 0);
        assert_eq!(i.take_signals().msix, 1 << 3);
    }

    #[test]
    fn other_causes_go_to_misc_vector_and_icr_clears_on_read() {
        let mut i = msix_block();
        i.raise(icr::LSC);
        assert_eq!(i.take_signals().msix, 1 << 0);
        assert_eq!(i.read(regs::ICR).unwrap() & icr::LSC, icr::LSC);
        assert_eq!(i.read(regs::ICR).unwrap(), 0);
        // Masked cause (RXSEQ is not in IMS) does not interrupt.
        i.write(regs::EIMS, 1);
        i.raise(1 << 3);
        assert!(i.take_signals().is_empty());
    }

    #[test]
    fn legacy_mode_uses_icr_ims_and_iam() {
        let mut i = block();
        i.write(regs::IMS, 0x4000_009D);
        i.write(regs::IAM, 0x4000_009D);
        i.queue_event(QueueDir::Rx, 0);
        assert!(i.take_signals().legacy);
        assert!(i.legacy_asserted());
        let v = i.read(regs::ICR).unwrap();
        assert_eq!(v, icr::RXT0 | icr::INT_ASSERTED);
        assert_eq!(i.read(regs::IMS).unwrap(), 0, "IAM auto-masked on ICR read");
        i.queue_event(QueueDir::Tx, 0);
        assert!(i.take_signals().is_empty(), "masked until IMS is rewritten");
        i.write(regs::IMS, 0x4000_009D);
        assert!(i.take_signals().legacy, "re-enabling with a cause pending fires");
    }

    #[test]
    fn imc_masks_and_ics_sets() {
        let mut i = block();
        i.write(regs::IMC, 0xFFFF_FFFF);
        i.write(regs::ICS, icr::LSC);
        assert!(i.take_signals().is_empty());
        assert_eq!(i.read(regs::ICR).unwrap(), icr::LSC);
    }

    #[test]
    fn eitr_zero_fires_every_cause() {
        let (mut i, clock) = msix_block_with_clock();
        i.write(regs::EITR0 + 4, 0);
        for _ in 0..3 {
            i.queue_event(QueueDir::Rx, 0);
            assert_eq!(i.take_signals().msix, 1 << 1);
            i.write(regs::EIMS, 1 << 1); // igc re-arms after polling
            clock.advance(1_000);
        }
        assert_eq!(i.next_deadline(), None);
    }

    #[test]
    fn eitr_coalesces_causes_within_the_interval() {
        let (mut i, clock) = msix_block_with_clock();
        i.write(regs::EITR0 + 4, igc_eitr(196)); // IGC_20K_ITR: 49 µs
        i.queue_event(QueueDir::Rx, 0);
        assert_eq!(i.take_signals().msix, 1 << 1, "first cause fires at once");
        i.write(regs::EIMS, 1 << 1);
        clock.advance(10_000);
        i.queue_event(QueueDir::Rx, 0);
        clock.advance(10_000);
        i.queue_event(QueueDir::Tx, 0); // same vector (paired queues)
        assert!(i.take_signals().is_empty(), "held inside the window");
        assert_eq!(i.read(regs::EIMS).unwrap() & (1 << 1), 1 << 1, "no auto-mask while held");
        assert_eq!(i.next_deadline(), Some(1_000_000 + 49_000));
        // Another vector is not held back by vector 1's window.
        i.queue_event(QueueDir::Rx, 1);
        assert_eq!(i.take_signals().msix, 1 << 2);
        clock.advance(28_999);
        assert!(i.take_signals().is_empty(), "1 ns before expiry");
        clock.advance(1);
        assert_eq!(i.take_signals().msix, 1 << 1, "one deferred firing at expiry");
        assert_eq!(i.eicr & (1 << 1), 0, "EIAC applied when it fired");
        assert_eq!(i.read(regs::EIMS).unwrap() & (1 << 1), 0, "EIAM applied when it fired");
        assert_eq!(i.next_deadline(), None);
        clock.advance(1_000_000);
        assert!(i.take_signals().is_empty(), "the two causes coalesced into one");
    }

    #[test]
    fn eitr_interval_units_follow_igc_encoding() {
        // itr_val is 4 × µs (ethtool: rx_itr_setting = usecs << 2).
        assert_eq!(eitr::interval_ns(igc_eitr(196)), 49_000); // IGC_20K_ITR
        assert_eq!(eitr::interval_ns(igc_eitr(980)), 245_000); // IGC_4K_ITR
        assert_eq!(eitr::interval_ns(igc_eitr(56)), 14_000); // IGC_70K_ITR
        assert_eq!(eitr::interval_ns(igc_eitr(648)), 162_000); // IGC_START_ITR
        assert_eq!(eitr::interval_ns(igc_eitr(0)), 1_000); // IGC_ITR_VAL_MASK minimum
        assert_eq!(eitr::interval_ns(igc_eitr(100 << 2)), 100_000); // ethtool rx-usecs 100
        assert_eq!(eitr::interval_ns(eitr::CNT_IGNR), 0);
        // And the block uses them: IGC_4K_ITR holds vector 0 for 245 µs.
        let (mut i, clock) = msix_block_with_clock();
        i.write(regs::EITR0, igc_eitr(980));
        assert_eq!(i.read(regs::EITR0).unwrap(), 0x8000_03D4, "EITR reads back");
        i.write(regs::EIAC, 0);
        i.write(regs::EIAM, 0);
        i.write(regs::EICS, 1);
        assert_eq!(i.take_signals().msix, 1);
        i.write(regs::EICS, 1);
        assert_eq!(i.next_deadline(), Some(1_000_000 + 245_000));
        clock.advance(244_999);
        assert!(i.take_signals().is_empty());
        clock.advance(1);
        assert_eq!(i.take_signals().msix, 1);
    }

    #[test]
    fn eitr_held_vector_keeps_mask_semantics() {
        let (mut i, clock) = msix_block_with_clock();
        i.write(regs::EITR0 + 4, igc_eitr(196));
        i.queue_event(QueueDir::Rx, 0);
        assert_eq!(i.take_signals().msix, 1 << 1);
        // EIAM masked the vector: a cause inside the window stays pending
        // in EICR and is neither held nor fired at expiry.
        i.queue_event(QueueDir::Rx, 0);
        assert_eq!(i.next_deadline(), None);
        clock.advance(100_000);
        assert!(i.take_signals().is_empty(), "masked vector stays quiet");
        // Re-arming after the window fires the pending cause at once.
        assert_eq!(i.fired_on_enable[1], 0);
        i.write(regs::EIMS, 1 << 1);
        assert_eq!(i.take_signals().msix, 1 << 1);
        assert_eq!(i.fired_on_enable[1], 1, "counted as released by the EIMS write");
        // Re-arming inside the window holds it until expiry.
        i.queue_event(QueueDir::Rx, 0);
        clock.advance(10_000);
        i.write(regs::EIMS, 1 << 1);
        assert!(i.take_signals().is_empty());
        assert_eq!(i.fired_on_enable[1], 1, "a held firing is not counted");
        // Masked again (EIMC) while held: nothing fires at expiry...
        i.write(regs::EIMC, 1 << 1);
        clock.advance(39_000);
        assert!(i.take_signals().is_empty());
        assert_eq!(i.next_deadline(), None);
        // ...and the cause is still pending for the next EIMS.
        i.write(regs::EIMS, 1 << 1);
        assert_eq!(i.take_signals().msix, 1 << 1);
    }

    #[test]
    fn eitr0_moderates_the_legacy_interrupt() {
        let (mut i, clock) = block_with_clock();
        i.write(regs::EITR0, igc_eitr(196));
        i.write(regs::IMS, icr::RXT0 | icr::TXDW);
        i.queue_event(QueueDir::Rx, 0);
        assert!(i.take_signals().legacy);
        i.queue_event(QueueDir::Tx, 0);
        assert!(i.take_signals().is_empty(), "held by EITR(0)");
        assert_eq!(i.next_deadline(), Some(1_000_000 + 49_000));
        clock.advance(49_000);
        assert!(i.take_signals().legacy, "fires at expiry");
        // A held interrupt whose causes were read away does not fire.
        i.queue_event(QueueDir::Rx, 0);
        assert_eq!(i.read(regs::ICR).unwrap() & icr::RXT0, icr::RXT0);
        clock.advance(49_000);
        assert!(i.take_signals().is_empty());
    }
}
