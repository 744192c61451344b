// SPDX-License-Identifier: GPL-2.0

//! rigc: a Rust driver for the Intel(R) Ethernet Controller I225/I226 family (2.5 GbE); the
//! module itself (`igc_main.c`: `igc_init_module`, the module description and license).
//!
//! The hardware and its sequences follow the C `igc` driver; the ownership and execution-context
//! rules are in `docs/design.md` of the rigc repository. The files follow igc's:
//!
//! | rigc | igc |
//! |---|---|
//! | `probe.rs` | `igc_main.c`: `igc_probe`, `igc_remove`, the PCI ID table |
//! | `adapter.rs` | `igc.h`: `struct igc_adapter`, the queue and ring limits |
//! | `netdev.rs` | `igc_main.c`: `igc_netdev_ops`, `igc_open`/`igc_close`, `igc_up`/`igc_down` |
//! | `ethtool.rs` | `igc_ethtool.c` |
//! | `watchdog.rs` | `igc_main.c`: `igc_watchdog_task`, `igc_reset_task`, the link check |
//! | `pm.rs` | `igc_main.c`: `igc_suspend`, `igc_resume`, `igc_pm_ops` |
//! | `hw.rs` | `igc_base.c`, `igc_mac.c`: register access, reset, MAC address |
//! | `desc.rs` | `igc_base.h`: the advanced TX and RX descriptors, the rings |
//! | `phy.rs` | `igc_phy.c`, `igc_mac.c`: MDIC, speeds, flow control, power, EEE, link |
//! | `nvm.rs` | `igc_i225.c`, `igc_nvm.c`: the SW/FW semaphore, NVM reads and checksum |
//! | `diag.rs` | `igc_diag.c`, `igc_ethtool_diag_test`: the self-tests |
//! | `irq.rs` | `igc_main.c`: `igc_configure_msix`, `igc_msix_ring`, `igc_intr` |
//! | `tx.rs` | `igc_main.c`: `igc_xmit_frame_ring`, `igc_tso`, `igc_clean_tx_irq` |
//! | `rx.rs` | `igc_main.c`: `igc_alloc_rx_buffers`, `igc_clean_rx_irq` |
//! | `stats.rs` | `igc_main.c`: `igc_update_stats`; `igc_ethtool.c`: `igc_gstrings_stats` |
//! | `ptp.rs`, `ptp/` | `igc_ptp.c` |
//! | `regs.rs` | `igc_regs.h`, `igc_defines.h` |

mod adapter;
mod desc;
mod diag;
mod ethtool;
mod hw;
mod irq;
mod netdev;
mod nvm;
mod phy;
mod pm;
mod probe;
mod ptp;
mod regs;
mod rx;
mod stats;
mod tx;
mod watchdog;

kernel::module_pci_driver! {
    type: probe::RigcDriver,
    name: "rigc",
    authors: ["The rigc developers"],
    description: "Intel(R) 2.5G Ethernet Controller I225/I226 driver (Rust)",
    license: "GPL",
}
