// SPDX-License-Identifier: GPL-2.0

//! Interrupts: MSI-X vectors (one per queue pair plus the "other" vector for link and time sync),
//! with MSI and INTx as fallbacks.
//!
//! What is here today: masking every interrupt source, which probe does before anything else (as
//! `igc_irq_disable` does). Vector allocation and the handlers are not implemented yet.

use kernel::io::Io;

use crate::regs::{
    self,
    Bar0, //
};

/// Masks and disarms every interrupt source, then flushes the writes with a STATUS read.
///
/// EIAM and EIAC are read-modify-written, as in the C driver: only the bits this driver owns are
/// cleared.
pub(crate) fn mask_all(bar: &Bar0<'_>, eims_mask: u32) {
    bar.update(regs::EIAM, |r| {
        regs::EIAM::from_raw(r.into_raw() & !eims_mask)
    });
    bar.write_reg(regs::EIMC::from_raw(eims_mask));
    bar.update(regs::EIAC, |r| {
        regs::EIAC::from_raw(r.into_raw() & !eims_mask)
    });
    bar.write_reg(regs::IAM::from_raw(0));
    bar.write_reg(regs::IMC::from_raw(u32::MAX));
    let _ = bar.read(regs::STATUS);
}

/// Reads ICR to acknowledge every pending legacy cause (ICR is read-to-clear).
pub(crate) fn clear_causes(bar: &Bar0<'_>) {
    let _ = bar.read(regs::ICR);
}
