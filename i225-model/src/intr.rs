// SPDX-License-Identifier: GPL-2.0

//! The interrupt block: legacy causes (ICR/ICS/IMS/IMC/IAM), the extended
//! per-vector causes used in MSI-X mode (EICR/EICS/EIMS/EIMC/EIAC/EIAM),
//! GPIE, IVAR routing and EITR storage.
//!
//! The block decides *when* an interrupt message is due and records it in
//! [`Signals`]; delivering it (eventfds, per-vector masks) is the transport's
//! business. Messages are edge-triggered: a vector fires when it gets a new
//! cause while enabled, or when it is enabled with a cause pending. EITR
//! throttling is not modelled.

use crate::regs::{self, gpie, icr, ivar, NUM_MSIX_VECTORS};

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

#[derive(Clone, Debug, Default)]
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
}

impl Interrupts {
    pub fn new() -> Self {
        Self::default()
    }

    /// MAC reset: every register back to zero. Already-due messages are
    /// kept: they were sent before the reset.
    pub fn reset(&mut self) {
        let due = self.due;
        *self = Self { due, ..Self::default() };
    }

    pub fn msix_mode(&self) -> bool {
        self.gpie & gpie::MSIX_MODE != 0
    }

    /// Takes the messages that became due since the last call.
    pub fn take_signals(&mut self) -> Signals {
        std::mem::take(&mut self.due)
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
                self.fire(val & VECTOR_MASK);
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
            self.due.legacy = true;
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
    fn fire(&mut self, candidates: u32) {
        let fire = candidates & self.eicr & self.eims & VECTOR_MASK;
        if fire == 0 {
            return;
        }
        self.due.msix |= fire;
        self.eicr &= !(fire & self.eiac);
        if self.gpie & gpie::EIAME != 0 {
            self.eims &= !(fire & self.eiam);
        }
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

    /// The MSI-X setup igc programs with four paired queues.
    fn msix_block() -> Interrupts {
        let mut i = Interrupts::new();
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
        i
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
        let mut i = Interrupts::new();
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
        let mut i = Interrupts::new();
        i.write(regs::IMC, 0xFFFF_FFFF);
        i.write(regs::ICS, icr::LSC);
        assert!(i.take_signals().is_empty());
        assert_eq!(i.read(regs::ICR).unwrap(), icr::LSC);
    }
}
