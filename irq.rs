// SPDX-License-Identifier: GPL-2.0

//! Interrupts: MSI-X with one vector per queue pair plus the "other" vector (link, time sync),
//! as `igc_configure_msix`; or a single MSI or INTx vector for everything.
//!
//! The handlers run in hard-IRQ context: a queue vector only schedules its NAPI context (the
//! vector is auto-masked by EIAM until the poll completes and re-enables it); the other vector
//! reads ICR once (it clears on read), updates the carrier on a link change and re-enables
//! itself.

use kernel::{
    io::Io,
    irq::{self, IrqReturn},
    net::dev::Registration,
    sync::{atomic::Relaxed, Arc},
};

use crate::{
    adapter::Adapter,
    hw::Hw,
    ptp,
    regs::{bits, off, Bar0},
};

/// Interrupt moderation: at most about 20,000 interrupts per second per queue vector, the value
/// igc writes for it (`IGC_20K_ITR`: EITR bits 14:2 hold the interval in µs, here 49).
pub(crate) const ITR_20K: u32 = 196;

/// Masks every interrupt source (`igc_irq_disable`).
pub(crate) fn mask_all(bar: &Bar0<'_>, eims_mask: u32) {
    bar.update(crate::regs::EIAM, |r| {
        crate::regs::EIAM::from_raw(r.into_raw() & !eims_mask)
    });
    bar.write_reg(crate::regs::EIMC::from_raw(eims_mask));
    bar.update(crate::regs::EIAC, |r| {
        crate::regs::EIAC::from_raw(r.into_raw() & !eims_mask)
    });
    bar.write_reg(crate::regs::IAM::from_raw(0));
    bar.write_reg(crate::regs::IMC::from_raw(u32::MAX));
    let _ = bar.read(crate::regs::STATUS);
}

/// Clears pending causes (ICR clears on read).
pub(crate) fn clear_causes(bar: &Bar0<'_>) {
    let _ = bar.read(crate::regs::ICR);
}

/// How interrupts are delivered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// MSI-X: vector 0 for link and time sync, vector 1 + i for queue pair i.
    MsiX { queue_vectors: usize },
    /// One MSI or INTx vector for everything, one queue pair.
    Single,
}

impl Mode {
    /// The EIMS bit of queue pair `q`'s vector.
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

/// The causes enabled in IMS: link status change, time sync (and, single-vector, the queue
/// causes).
const IMS_OTHER: u32 = bits::ICR_LSC | ptp::r::ICR_TS;
const IMS_SINGLE: u32 = bits::ICR_LSC | ptp::r::ICR_TS | bits::ICR_RXT0 | bits::ICR_TXDW;

/// Routes queue pairs `0..queues` to their vectors and sets moderation (`igc_configure_msix`,
/// `igc_assign_vector`, `igc_write_itr`).
pub(crate) fn configure(hw: &Hw, mode: Mode, queues: usize) {
    match mode {
        Mode::MsiX { .. } => {
            hw.wr(
                off::GPIE,
                bits::GPIE_MSIX_MODE | bits::GPIE_PBA | bits::GPIE_EIAME | bits::GPIE_NSICR,
            );
            hw.wr(off::IVAR_MISC, bits::IVAR_VALID << 8);
            for q in 0..queues {
                let vector = (q + 1) as u32;
                let reg = off::ivar(q >> 1);
                let shift = (q as u32 & 1) * 16;
                let mut ivar = hw.rd(reg);
                // RX in byte 0 (or 2), TX in byte 1 (or 3).
                ivar &= !(0xFFFF << shift);
                ivar |= (vector | bits::IVAR_VALID) << shift;
                ivar |= (vector | bits::IVAR_VALID) << (shift + 8);
                hw.wr(reg, ivar);
                hw.wr(off::eitr(q + 1), ITR_20K | bits::EITR_CNT_IGNR);
            }
        }
        Mode::Single => {
            hw.wr(off::GPIE, bits::GPIE_NSICR);
        }
    }
}

/// Enables interrupts (`igc_irq_enable`).
pub(crate) fn enable(hw: &Hw, mode: Mode) {
    match mode {
        Mode::MsiX { .. } => {
            let mask = mode.all_eims();
            hw.set_bits(off::EIAC, mask);
            hw.set_bits(off::EIAM, mask);
            hw.wr(off::EIMS, mask);
            hw.wr(off::IMS, IMS_OTHER);
        }
        Mode::Single => {
            hw.wr(off::IMS, IMS_SINGLE);
        }
    }
    hw.flush();
}

/// Disables interrupts (`igc_irq_disable`).
pub(crate) fn disable(hw: &Hw, mode: Mode) {
    let mask = mode.all_eims();
    if mask != 0 {
        hw.clear_bits(off::EIAM, mask);
        hw.wr(off::EIMC, mask);
        hw.clear_bits(off::EIAC, mask);
    }
    hw.wr(off::IAM, 0);
    hw.wr(off::IMC, u32::MAX);
    hw.flush();
}

/// Re-enables queue pair `q`'s interrupt after its poll completed.
pub(crate) fn enable_queue(hw: &Hw, mode: Mode, q: usize) {
    match mode {
        Mode::MsiX { .. } => hw.wr(off::EIMS, mode.queue_eims(q)),
        Mode::Single => hw.wr(off::IMS, IMS_SINGLE),
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
                if let Some(napi) = net.napi(q) {
                    napi.schedule();
                }
                IrqReturn::Handled
            }
            Kind::Other => {
                let icr = net.hw.rd(off::ICR);
                if icr == u32::MAX {
                    return IrqReturn::None;
                }
                // The carrier is only touched while the datapath runs: after ifdown (and after
                // unregistration, which comes later) a late link interrupt must not turn it
                // back on or queue a linkwatch event (`__IGC_DOWN` in igc).
                if icr & bits::ICR_LSC != 0 && net.running.load(Relaxed) {
                    net.link_changed(net.device());
                }
                if icr & ptp::r::ICR_TS != 0 {
                    net.tsync_interrupt();
                }
                if net.running.load(Relaxed) {
                    net.hw.wr(off::EIMS, 1);
                }
                IrqReturn::Handled
            }
            Kind::Single => {
                let icr = net.hw.rd(off::ICR);
                // A shared line: only an asserted cause is ours (`igc_intr`).
                if icr & bits::ICR_INT_ASSERTED == 0 || icr == u32::MAX {
                    return IrqReturn::None;
                }
                if icr & bits::ICR_LSC != 0 && net.running.load(Relaxed) {
                    net.link_changed(net.device());
                }
                if icr & ptp::r::ICR_TS != 0 {
                    net.tsync_interrupt();
                }
                if icr & (bits::ICR_RXT0 | bits::ICR_TXDW) != 0 {
                    // Masked until the poll completes.
                    net.hw.wr(off::IMC, bits::ICR_RXT0 | bits::ICR_TXDW);
                    if let Some(napi) = net.napi(0) {
                        napi.schedule();
                    }
                }
                IrqReturn::Handled
            }
        }
    }
}
