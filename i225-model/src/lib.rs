// SPDX-License-Identifier: GPL-2.0

//! A behavioural model of the Intel i225/i226 Ethernet controller, served
//! to QEMU over vfio-user so the unchanged `igc` driver (and the rigc Rust
//! driver) can probe it, bring up a link, move traffic and timestamp it.
//!
//! Layers, bottom up:
//! * register semantics, independent of any transport: [`mac`] (BAR0, with
//!   its transmit and receive units [`mac::tx`] and [`mac::rx`]) with
//!   [`phy`], [`nvm`], [`interrupts`], [`stats`] and [`ptp`];
//! * [`pci_config`] and [`device`]: one PCI function (regions, reset,
//!   guest memory in [`dma`], interrupt lines in [`irq_lines`]);
//! * [`port`] and [`wire`]: a device with its worker thread, cabled to a
//!   second port, or to a host TAP device ([`tap`]);
//! * [`noise`]: what keeps the wire and the stamps from being ideal;
//! * [`vfio_user`]: the protocol server; [`control`]: the control socket.

pub mod cli;
pub mod control;
pub mod device;
pub mod dma;
pub mod interrupts;
pub mod irq_lines;
pub mod lateness;
pub mod logger;
pub mod mac;
pub mod noise;
pub mod nvm;
pub mod packet;
pub mod pci_config;
pub mod phy;
pub mod port;
pub mod ptp;
pub mod regs;
pub mod stats;
pub mod stats_pass;
pub mod tap;
pub mod vfio_user;
pub mod wire;
