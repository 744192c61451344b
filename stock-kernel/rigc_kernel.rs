// SPDX-License-Identifier: GPL-2.0

//! The `kernel` crate as rigc sees it when built for a distribution's 7.3
//! kernel (`stock-kernel/build`), compiled into `rigc.ko`.
//!
//! A distribution kernel's crate lacks the abstractions of the upstream series
//! (`kernel-patches/2-rust-net`). This crate re-exports everything the
//! stock `kernel` crate has, and compiles the modules the series adds or
//! changes from the series' own files (patched onto the distribution's
//! `linux-source-7.3` by the build command and copied beside this file);
//! those shadow the stock modules of the same name. rigc is compiled with
//! `--extern kernel=` this crate, so its sources are the in-tree ones,
//! unchanged. `irq` is compiled here too, unchanged, because the series'
//! `pci::irq` builds its requests with `irq`'s crate-private constructor.
//!
//! `bindings` is `rigc_bindings.rs`: the stock bindings and what the series
//! adds. [`stock`] gives the crate-private methods of the stock crate that the
//! series' files call a public form, through the prelude.

#![allow(unreachable_pub, clippy::all)]

pub use kernel::*;

pub use ::bindings;

pub mod cpu;
pub mod irq;
pub mod pci;
pub mod ptp;
pub mod stock;
pub mod workqueue;

/// Networking: the stock modules and the series' ones.
pub mod net {
    pub use kernel::net::*;

    pub mod csum;
    pub mod dev;
    pub mod ethtool;
    pub mod rtnl;
    pub mod skb;
}

/// The stock prelude, and the public forms of [`stock`].
pub mod prelude {
    pub use crate::stock::DeviceRaw as _;
    pub use kernel::prelude::*;
}
