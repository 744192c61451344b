// SPDX-License-Identifier: GPL-2.0

//! The advanced TX and RX descriptors (`igc_base.h`: `union igc_adv_tx_desc`,
//! `struct igc_adv_tx_context_desc`, `union igc_adv_rx_desc`), their bits (`igc_defines.h`,
//! `igc_base.h`), and the ring of them in coherent DMA memory.
//!
//! Each descriptor is a `#[repr(C)]` struct with igc's field names. The ring itself holds the
//! 16-byte descriptors as pairs of 64-bit words, each word read and written with one volatile
//! access (the device reads and writes the ring concurrently); [`Desc`] converts between the
//! two.

use kernel::{
    device,
    dma::Coherent,
    io::{io_project, io_read, io_write},
    prelude::*,
};

/// TX descriptor bits (`IGC_ADVTXD_*`, `IGC_TXD_*`).
pub(crate) mod txd {
    /// Descriptor type: context.
    pub(crate) const DTYP_CTXT: u32 = 0x0020_0000;
    /// Descriptor type: data.
    pub(crate) const DTYP_DATA: u32 = 0x0030_0000;
    /// End of packet.
    pub(crate) const DCMD_EOP: u32 = 0x0100_0000;
    /// Insert the Ethernet CRC.
    pub(crate) const DCMD_IFCS: u32 = 0x0200_0000;
    /// Report status (write back DD).
    pub(crate) const DCMD_RS: u32 = 0x0800_0000;
    /// Advanced descriptor.
    pub(crate) const DCMD_DEXT: u32 = 0x2000_0000;
    /// TCP segmentation.
    pub(crate) const DCMD_TSE: u32 = 0x8000_0000;
    /// Take a timestamp of this packet (`IGC_ADVTXD_MAC_TSTAMP`).
    pub(crate) const MAC_TSTAMP: u32 = 0x0008_0000;
    /// The timestamp register set, bits 17:16 (`IGC_ADVTXD_TSTAMP_REG_n`).
    pub(crate) const TSTAMP_REG_SHIFT: u32 = 16;
    /// Write-back: descriptor done.
    pub(crate) const STAT_DD: u32 = 0x1;
    /// `olinfo_status`: the payload length, from bit 14.
    pub(crate) const PAYLEN_SHIFT: u32 = 14;
    /// `olinfo_status`: insert the IPv4 header checksum.
    pub(crate) const POPTS_IXSM: u32 = 0x100;
    /// `olinfo_status`: insert the TCP/UDP checksum.
    pub(crate) const POPTS_TXSM: u32 = 0x200;
    /// `vlan_macip_lens`: the MAC header length, from bit 9 (IPLEN below).
    pub(crate) const MACLEN_SHIFT: u32 = 9;
    /// `type_tucmd_mlhl`: IPv4.
    pub(crate) const TUCMD_IPV4: u32 = 0x400;
    /// `type_tucmd_mlhl`: TCP (else UDP).
    pub(crate) const TUCMD_L4T_TCP: u32 = 0x800;
    /// `mss_l4len_idx`: the L4 header length, from bit 8.
    pub(crate) const L4LEN_SHIFT: u32 = 8;
    /// `mss_l4len_idx`: the segment size, from bit 16.
    pub(crate) const MSS_SHIFT: u32 = 16;
}

/// RX write-back status and error bits (`IGC_RXD_STAT_*`, `IGC_RXDEXT_STATERR_*`).
pub(crate) mod rxd {
    /// Descriptor done.
    pub(crate) const STAT_DD: u32 = 1 << 0;
    /// End of packet.
    pub(crate) const STAT_EOP: u32 = 1 << 1;
    /// Ignore the checksum indications.
    pub(crate) const STAT_IXSM: u32 = 1 << 2;
    /// UDP checksum calculated.
    pub(crate) const STAT_UDPCS: u32 = 1 << 4;
    /// TCP checksum calculated.
    pub(crate) const STAT_TCPCS: u32 = 1 << 5;
    /// A timestamp header precedes the frame (`IGC_RXDADV_STAT_TSIP`).
    pub(crate) const STAT_TSIP: u32 = 1 << 15;
    /// TCP/UDP checksum error.
    pub(crate) const STATERR_L4E: u32 = 1 << 29;
    /// IPv4 checksum error.
    pub(crate) const STATERR_IPE: u32 = 1 << 30;
    /// RX data error.
    pub(crate) const STATERR_RXE: u32 = 1 << 31;
    /// Length of the timestamp header (`IGC_TS_HDR_LEN`).
    pub(crate) const TS_HDR_LEN: u32 = 16;
}

/// A 16-byte descriptor: how it lies in the ring's two little-endian 64-bit words.
pub(crate) trait Desc: Sized {
    /// The two words, first the one at the lower address.
    fn to_words(&self) -> [u64; 2];
    /// The descriptor read back from its two words.
    fn from_words(w: [u64; 2]) -> Self;
}

/// A TX data descriptor as the driver writes it (`igc_adv_tx_desc.read`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct TxData {
    pub(crate) buffer_addr: u64,
    /// Type, command bits and the buffer length.
    pub(crate) cmd_type_len: u32,
    /// Payload length and checksum options.
    pub(crate) olinfo_status: u32,
}

impl Desc for TxData {
    fn to_words(&self) -> [u64; 2] {
        [
            self.buffer_addr,
            u64::from(self.cmd_type_len) | u64::from(self.olinfo_status) << 32,
        ]
    }

    fn from_words(w: [u64; 2]) -> Self {
        Self {
            buffer_addr: w[0],
            cmd_type_len: w[1] as u32,
            olinfo_status: (w[1] >> 32) as u32,
        }
    }
}

/// A TX context descriptor (`igc_adv_tx_context_desc`): the offloads of the packets after it.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct TxContext {
    /// VLAN tag, MAC header length, IP header length.
    pub(crate) vlan_macip_lens: u32,
    pub(crate) launch_time: u32,
    /// Descriptor type, L3/L4 command.
    pub(crate) type_tucmd_mlhl: u32,
    /// Segment size, L4 header length, context index.
    pub(crate) mss_l4len_idx: u32,
}

impl Desc for TxContext {
    fn to_words(&self) -> [u64; 2] {
        [
            u64::from(self.vlan_macip_lens) | u64::from(self.launch_time) << 32,
            u64::from(self.type_tucmd_mlhl) | u64::from(self.mss_l4len_idx) << 32,
        ]
    }

    fn from_words(w: [u64; 2]) -> Self {
        Self {
            vlan_macip_lens: w[0] as u32,
            launch_time: (w[0] >> 32) as u32,
            type_tucmd_mlhl: w[1] as u32,
            mss_l4len_idx: (w[1] >> 32) as u32,
        }
    }
}

/// A TX descriptor written back (`igc_adv_tx_desc.wb`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct TxWb {
    pub(crate) rsvd: u64,
    pub(crate) nxtseq_seed: u32,
    /// [`txd::STAT_DD`] once the hardware is done with the packet.
    pub(crate) status: u32,
}

impl Desc for TxWb {
    fn to_words(&self) -> [u64; 2] {
        [
            self.rsvd,
            u64::from(self.nxtseq_seed) | u64::from(self.status) << 32,
        ]
    }

    fn from_words(w: [u64; 2]) -> Self {
        Self {
            rsvd: w[0],
            nxtseq_seed: w[1] as u32,
            status: (w[1] >> 32) as u32,
        }
    }
}

/// An RX descriptor as the driver gives it (`igc_adv_rx_desc.read`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct RxRead {
    pub(crate) pkt_addr: u64,
    /// Zero: no header split.
    pub(crate) hdr_addr: u64,
}

impl Desc for RxRead {
    fn to_words(&self) -> [u64; 2] {
        [self.pkt_addr, self.hdr_addr]
    }

    fn from_words(w: [u64; 2]) -> Self {
        Self {
            pkt_addr: w[0],
            hdr_addr: w[1],
        }
    }
}

/// An RX descriptor written back (`igc_adv_rx_desc.wb`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct RxWb {
    /// Packet type; bits 3:0 the RSS type.
    pub(crate) pkt_info: u32,
    pub(crate) rss_hash: u32,
    /// [`rxd`] status and error bits.
    pub(crate) status_error: u32,
    /// Bytes written to the buffer; written last.
    pub(crate) length: u16,
    pub(crate) vlan: u16,
}

impl Desc for RxWb {
    fn to_words(&self) -> [u64; 2] {
        [
            u64::from(self.pkt_info) | u64::from(self.rss_hash) << 32,
            u64::from(self.status_error)
                | u64::from(self.length) << 32
                | u64::from(self.vlan) << 48,
        ]
    }

    fn from_words(w: [u64; 2]) -> Self {
        Self {
            pkt_info: w[0] as u32,
            rss_hash: (w[0] >> 32) as u32,
            status_error: w[1] as u32,
            length: (w[1] >> 32) as u16,
            vlan: (w[1] >> 48) as u16,
        }
    }
}

impl RxWb {
    /// The RSS type (`IGC_RSS_TYPE_*`), 0 if the hardware computed no hash.
    pub(crate) fn rss_type(&self) -> u32 {
        self.pkt_info & 0xF
    }
}

/// A descriptor ring in coherent DMA memory, each descriptor two 64-bit words.
pub(crate) struct Descs(Coherent<[[u64; 2]]>);

impl Descs {
    /// Allocates a zeroed ring of `count` 16-byte descriptors.
    pub(crate) fn new(dev: &device::Device<device::Bound>, count: u32) -> Result<Self> {
        Ok(Self(Coherent::<[u64; 2]>::zeroed_slice(
            dev,
            count as usize,
            GFP_KERNEL,
        )?))
    }

    /// Returns the bus address of the ring.
    pub(crate) fn dma_address(&self) -> u64 {
        self.0.dma_address()
    }

    /// Reads descriptor `i`'s second word, the one the hardware writes last (the status, the
    /// RX length); 0 past the ring, which reads as a descriptor the hardware has not written
    /// back (no DD bit, no length).
    fn second_word(&self, i: u32) -> u64 {
        let get = || -> Result<u64> { Ok(io_read!(&self.0, [try: i as usize][build: 1])) };
        get().unwrap_or(0)
    }

    /// Reads descriptor `i`, the second word first: the hardware writes the word with the
    /// status (and the RX length) last. Zeros past the ring.
    pub(crate) fn read<D: Desc>(&self, i: u32) -> D {
        // The index is checked once for both words.
        let get = || -> Result<[u64; 2]> {
            let d = io_project!(&self.0, [try: i as usize]);
            let hi = io_read!(d, [build: 1]);
            Ok([io_read!(d, [build: 0]), hi])
        };
        D::from_words(get().unwrap_or([0, 0]))
    }

    /// The length of RX descriptor `i`'s write-back, from the one word that holds it (the word
    /// the hardware writes last): the poll's test for a completed descriptor, before its barrier.
    pub(crate) fn rx_length(&self, i: u32) -> u16 {
        RxWb::from_words([0, self.second_word(i)]).length
    }

    /// The status of TX descriptor `i`'s write-back, from the one word that holds it: the TX
    /// clean's test for a completed packet.
    pub(crate) fn tx_status(&self, i: u32) -> u32 {
        TxWb::from_words([0, self.second_word(i)]).status
    }

    /// Writes descriptor `i` (nothing past the ring), each word with one volatile access, the
    /// index checked once.
    pub(crate) fn write(&self, i: u32, d: &impl Desc) {
        let [lo, hi] = d.to_words();
        let put = || -> Result {
            let d = io_project!(&self.0, [try: i as usize]);
            io_write!(d, [build: 0], lo);
            io_write!(d, [build: 1], hi);
            Ok(())
        };
        let _ = put();
    }
}

#[cfg(CONFIG_RIGC_KUNIT_TEST)]
#[kernel::prelude::kunit_tests(rigc_desc)]
mod tests {
    use super::*;

    #[test]
    fn tx_data_lies_as_igc_adv_tx_desc_read() {
        let d = TxData {
            buffer_addr: 0x1234_5678_9abc_def0,
            cmd_type_len: txd::DTYP_DATA | txd::DCMD_DEXT | txd::DCMD_EOP | 1514,
            olinfo_status: 1514 << txd::PAYLEN_SHIFT | txd::POPTS_TXSM,
        };
        let w = d.to_words();
        assert_eq!(w[0], 0x1234_5678_9abc_def0);
        // cmd_type_len in bytes 8-11, olinfo_status in bytes 12-15.
        assert_eq!(w[1] as u32, 0x2130_05ea);
        assert_eq!((w[1] >> 32) as u32, 1514 << 14 | 0x200);
        assert_eq!(TxData::from_words(w), d);
        assert_eq!(core::mem::size_of::<TxData>(), 16);
    }

    #[test]
    fn tx_context_and_write_back() {
        let c = TxContext {
            vlan_macip_lens: 14 << txd::MACLEN_SHIFT | 20,
            launch_time: 0,
            type_tucmd_mlhl: txd::DTYP_CTXT | txd::DCMD_DEXT | txd::TUCMD_L4T_TCP,
            mss_l4len_idx: 1448 << txd::MSS_SHIFT | 32 << txd::L4LEN_SHIFT,
        };
        let w = c.to_words();
        assert_eq!(w[0], 0x1c14);
        assert_eq!(w[1] as u32, 0x2020_0800);
        assert_eq!((w[1] >> 32) as u32, 0x05a8_2000);
        assert_eq!(TxContext::from_words(w), c);
        // The DD bit of a written-back descriptor is in the upper half of the second word.
        assert_eq!(TxWb::from_words([0, 1 << 32]).status & txd::STAT_DD, 1);
        assert_eq!(core::mem::size_of::<TxContext>(), 16);
        assert_eq!(core::mem::size_of::<TxWb>(), 16);
    }

    #[test]
    fn rx_write_back_fields() {
        // pkt_info 0x1 (TCP/IPv4 hash), hash 0xdeadbeef; status DD|EOP, length 60, VLAN 5.
        let wb = RxWb::from_words([0xdead_beef_0000_0001, 5 << 48 | 60 << 32 | 0x3]);
        assert_eq!(wb.rss_type(), 1);
        assert_eq!(wb.rss_hash, 0xdead_beef);
        assert_eq!(wb.status_error & (rxd::STAT_DD | rxd::STAT_EOP), 3);
        assert_eq!(wb.length, 60);
        assert_eq!(wb.vlan, 5);
        assert_eq!(RxWb::from_words(wb.to_words()), wb);
        let r = RxRead {
            pkt_addr: 0x1000,
            hdr_addr: 0,
        };
        assert_eq!(r.to_words(), [0x1000, 0]);
        assert_eq!(core::mem::size_of::<RxWb>(), 16);
    }
}
