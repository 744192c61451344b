// SPDX-License-Identifier: GPL-2.0

//! The receive path: four RX rings of advanced descriptors with page-based buffers, RSS, checksum
//! offload and the 16-byte timestamp header the hardware prepends when RX timestamping is on.
//!
//! Not implemented yet. The rule it will keep: no MMIO read per received packet (completion is
//! detected from the descriptor in memory; RDT is written once per batch of refills).
