// SPDX-License-Identifier: GPL-2.0

//! The PTP hardware clock (SYSTIM0) and hardware timestamping.
//!
//! What is here today: reading the clock (the `SYSTIML` read latches `SYSTIMH`) and the
//! frequency-correction arithmetic used by `adjfine`. The PHC registration, the single-slot TX
//! timestamp state and the RX timestamp header are not implemented yet.

use kernel::{
    fmt,
    io::Io, //
};

use crate::regs::{
    self,
    Bar0, //
};

/// A SYSTIM value: seconds and nanoseconds as the hardware keeps them (the I225 counts
/// nanoseconds in `SYSTIML`, wrapping at one second, and seconds in `SYSTIMH`).
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

/// Reads SYSTIM0. The low half must be read first: that read latches the high half.
pub(crate) fn read_systim(bar: &Bar0<'_>) -> Systim {
    let nsec = bar.read(regs::SYSTIML).nsec().get();
    let sec = bar.read(regs::SYSTIMH).sec().get();
    Systim { sec, nsec }
}
