// SPDX-License-Identifier: GPL-2.0

//! Interrupts (`igc_main.c`: `igc_msix_ring`, `igc_msix_other`, `igc_intr_msi`, `igc_intr`): MSI-X
//! with one vector per queue pair plus the "other" vector (link, time sync), as
//! `igc_configure_msix`; or a single MSI or INTx vector for everything.
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
    sync::{atomic::Relaxed, Arc},
};

use crate::{
    adapter::Adapter,
    hw::Hw,
    regs::{
        Bar0, EIAC, EIAM, EIMC, EIMS, EITR, GPIE, IAM, ICR, IMC, IMS, IVAR, IVAR_MISC, IVAR_VALID,
        STATUS,
    },
};

/// Interrupt moderation: at most about 20,000 interrupts per second per queue vector, the value
/// igc writes for it (`IGC_20K_ITR`: an interval of 49 us in EITR bits 14:2).
const ITR_20K_US: u32 = 49;

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

/// Routes queue pairs `0..queues` to their vectors and sets moderation (`igc_configure_msix`,
/// `igc_assign_vector`, `igc_write_itr`).
pub(crate) fn configure(hw: &Hw, mode: Mode, queues: usize) {
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
            for q in 0..queues {
                let vector = (q + 1) as u8 | IVAR_VALID;
                hw.update_at(q >> 1, |ivar: IVAR| {
                    if q & 1 == 0 {
                        ivar.with_rx_even(vector).with_tx_even(vector)
                    } else {
                        ivar.with_rx_odd(vector).with_tx_odd(vector)
                    }
                });
                hw.write_at(
                    q + 1,
                    EITR::zeroed()
                        .with_const_interval::<ITR_20K_US>()
                        .with_cnt_ignr(true),
                );
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

/// Re-enables queue pair `q`'s interrupt after its poll completed.
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
