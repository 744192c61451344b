// SPDX-License-Identifier: GPL-2.0

//! The transmit path: four TX rings of advanced descriptors, context descriptors for checksum
//! offload and TSO, completion in NAPI, BQL.
//!
//! Not implemented yet. The rules it will keep: no MMIO read in `ndo_start_xmit` or in the
//! completion path (completion is detected from the DD bit in memory), one TDT write per batch
//! (`xmit_more`), and a look at the TX timestamp slot only while TX timestamping is enabled.
