// SPDX-License-Identifier: GPL-2.0

//! I225/I226 register definitions.
//!
//! Names, offsets and bit positions follow the C driver's `igc_regs.h` and `igc_defines.h`, so the
//! two can be read side by side. Only registers the driver uses are defined; each one grows
//! fields as the driver needs them.

use kernel::{
    io::register,
    pci, //
};

/// Size of BAR0, the register space. The driver maps all of it: the NVM (EERD at 0x12014) and the
/// PTM block (up to 0x12594) live beyond the first 64 KiB.
pub(crate) const BAR0_SIZE: usize = 0x10_0000;

/// BAR0 mapped with compile-time bounds checks for every register below.
pub(crate) type Bar0<'bound> = pci::Bar<'bound, BAR0_SIZE>;

register! {
    /// Device Control.
    pub(crate) CTRL(u32) @ 0x00000 {
        /// PHY reset.
        31:31 phy_rst => bool;
        /// IEEE VLAN mode enable.
        30:30 vme => bool;
        /// Transmit flow control enable.
        28:28 tfce => bool;
        /// Receive flow control enable.
        27:27 rfce => bool;
        /// Global (MAC) reset; self-clearing.
        26:26 rst => bool;
        /// SDP1 data direction.
        23:23 sdp1_dir => bool;
        /// SDP0 data direction.
        22:22 sdp0_dir => bool;
        /// Force duplex.
        12:12 frcdpx => bool;
        /// Force speed.
        11:11 frcspd => bool;
        /// Set link up.
        6:6 slu => bool;
        /// PCIe master disable (stop issuing DMA before a reset).
        2:2 gio_master_disable => bool;
        /// Full duplex.
        0:0 fd => bool;
    }

    /// Device Status (read only).
    pub(crate) STATUS(u32) @ 0x00008 {
        /// Link is 2500 Mb/s (only meaningful with `speed_1000` set).
        22:22 speed_2500 => bool;
        /// PCIe master requests are still enabled.
        19:19 gio_master_enable => bool;
        /// Link is 1000 Mb/s or faster.
        7:7 speed_1000 => bool;
        /// Link is 100 Mb/s.
        6:6 speed_100 => bool;
        /// Transmission paused by flow control.
        4:4 txoff => bool;
        /// LAN function number of this port.
        3:2 func;
        /// Link up.
        1:1 lu => bool;
        /// Full duplex.
        0:0 fd => bool;
    }

    /// EEPROM/Flash Control.
    pub(crate) EECD(u32) @ 0x00010 {
        /// Flash update done.
        26:26 fludone => bool;
        /// Start a flash update.
        23:23 flupd => bool;
        /// A flash part is present: NVM reads take the semaphores and the checksum is checked.
        19:19 flash_detected => bool;
        /// NVM size: the word count is 2^(size + 6), capped at 2^15.
        14:11 size;
        /// NVM address width.
        10:10 addr_bits => bool;
        /// NVM auto read done (set after reset).
        9:9 auto_rd => bool;
    }

    /// Interrupt Cause Read; read to clear.
    pub(crate) ICR(u32) @ 0x01500 {
        31:0 causes;
    }

    /// Interrupt Mask Clear (write only).
    pub(crate) IMC(u32) @ 0x0150C {
        31:0 mask;
    }

    /// Interrupt Acknowledge Auto Mask.
    pub(crate) IAM(u32) @ 0x01510 {
        31:0 mask;
    }

    /// Extended Interrupt Mask Clear (write only); one bit per MSI-X vector.
    pub(crate) EIMC(u32) @ 0x01528 {
        31:0 mask;
    }

    /// Extended Interrupt Auto Clear.
    pub(crate) EIAC(u32) @ 0x0152C {
        31:0 mask;
    }

    /// Extended Interrupt Auto Mask.
    pub(crate) EIAM(u32) @ 0x01530 {
        31:0 mask;
    }

    /// System time, low 32 bits: nanoseconds. Reading it latches `SYSTIMH`.
    pub(crate) SYSTIML(u32) @ 0x0B600 {
        31:0 nsec;
    }

    /// System time, high 32 bits: seconds (latched by the `SYSTIML` read).
    pub(crate) SYSTIMH(u32) @ 0x0B604 {
        31:0 sec;
    }

    /// Increment attributes. On the I225 this is a signed correction of the nominal rate: the
    /// magnitude is in units of 2^-32 ns per 8 ns cycle (see `ptp::timinca_from_scaled_ppm`).
    pub(crate) TIMINCA(u32) @ 0x0B608 {
        /// The correction slows the clock down.
        31:31 isgn => bool;
        30:0 incvalue;
    }

    /// Time adjustment offset.
    pub(crate) TIMADJ(u32) @ 0x0B60C {
        30:30 adjust_meth => bool;
    }

    /// TX time sync control.
    pub(crate) TSYNCTXCTL(u32) @ 0x0B614 {
        /// Timestamping is enabled.
        4:4 enabled => bool;
        /// A timestamp is valid in set 3 .. set 0.
        3:3 txtt_3 => bool;
        2:2 txtt_2 => bool;
        1:1 txtt_1 => bool;
        0:0 txtt_0 => bool;
    }

    /// TX timestamp, set 0, low 32 bits (nanoseconds).
    pub(crate) TXSTMPL_0(u32) @ 0x0B618 {
        31:0 nsec;
    }

    /// TX timestamp, set 0, high 32 bits (seconds). Reading it re-arms set 0.
    pub(crate) TXSTMPH_0(u32) @ 0x0B61C {
        31:0 sec;
    }

    /// RX time sync control.
    pub(crate) TSYNCRXCTL(u32) @ 0x0B620 {
        /// Timestamping is enabled.
        4:4 enabled => bool;
        /// Which packets get a timestamp.
        3:1 type_;
    }

    /// Time sync auxiliary control.
    pub(crate) TSAUXC(u32) @ 0x0B640 {
        /// Stop SYSTIM0 (a blocked clock).
        31:31 disable_systime => bool;
    }

    /// Time sync interrupt cause; read to clear.
    pub(crate) TSICR(u32) @ 0x0B66C {
        1:1 txts => bool;
        0:0 sys_wrap => bool;
    }

    /// Time sync interrupt mask.
    pub(crate) TSIM(u32) @ 0x0B674 {
        1:1 txts => bool;
        0:0 sys_wrap => bool;
    }
}

/// Link speed as the MAC reports it in [`STATUS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Speed {
    Mbps10,
    Mbps100,
    Mbps1000,
    Mbps2500,
}

impl Speed {
    /// The speed in Mb/s.
    pub(crate) const fn mbps(self) -> u32 {
        match self {
            Speed::Mbps10 => 10,
            Speed::Mbps100 => 100,
            Speed::Mbps1000 => 1000,
            Speed::Mbps2500 => 2500,
        }
    }
}

impl STATUS {
    /// Decodes the link speed. The I225 reports 2500 Mb/s as "1000" plus a separate bit.
    pub(crate) fn speed(self) -> Speed {
        if self.speed_1000() {
            if self.speed_2500() {
                Speed::Mbps2500
            } else {
                Speed::Mbps1000
            }
        } else if self.speed_100() {
            Speed::Mbps100
        } else {
            Speed::Mbps10
        }
    }
}

impl EECD {
    /// Number of 16-bit words in the NVM, as `igc_init_nvm_params_base` computes it.
    pub(crate) fn nvm_word_size(self) -> u32 {
        let field = u32::from(self.size());
        1 << (field + 6).min(15)
    }
}

/// Register offsets for the registers the datapath reaches by computed offset (per queue,
/// per vector, tables), as in `igc_regs.h`.
pub(crate) mod off {
    pub(crate) const CTRL: usize = 0x00000;
    pub(crate) const STATUS: usize = 0x00008;
    pub(crate) const CTRL_EXT: usize = 0x00018;
    pub(crate) const MDIC: usize = 0x00020;
    pub(crate) const RCTL: usize = 0x00100;
    pub(crate) const TCTL: usize = 0x00400;
    pub(crate) const ICR: usize = 0x01500;
    pub(crate) const IMS: usize = 0x01508;
    pub(crate) const IMC: usize = 0x0150C;
    pub(crate) const IAM: usize = 0x01510;
    pub(crate) const GPIE: usize = 0x01514;
    pub(crate) const EIMS: usize = 0x01524;
    pub(crate) const EIMC: usize = 0x01528;
    pub(crate) const EIAC: usize = 0x0152C;
    pub(crate) const EIAM: usize = 0x01530;
    pub(crate) const IVAR_MISC: usize = 0x01740;
    pub(crate) const RXCSUM: usize = 0x05000;
    pub(crate) const RLPML: usize = 0x05004;
    pub(crate) const MRQC: usize = 0x05818;

    /// Interrupt throttle of MSI-X vector `n`.
    pub(crate) const fn eitr(n: usize) -> usize {
        0x01680 + 4 * n
    }
    /// Interrupt vector allocation `n` (two queues per register).
    pub(crate) const fn ivar(n: usize) -> usize {
        0x01700 + 4 * n
    }
    /// Multicast table array entry `n` (128 entries).
    pub(crate) const fn mta(n: usize) -> usize {
        0x05200 + 4 * n
    }
    /// Receive address low of entry `n`.
    pub(crate) const fn ral(n: usize) -> usize {
        0x05400 + 8 * n
    }
    /// Receive address high of entry `n`.
    pub(crate) const fn rah(n: usize) -> usize {
        0x05404 + 8 * n
    }
    /// RSS redirection table register `n` (32 registers, 4 entries each).
    pub(crate) const fn reta(n: usize) -> usize {
        0x05C00 + 4 * n
    }
    /// RSS random key register `n` (10 registers).
    pub(crate) const fn rssrk(n: usize) -> usize {
        0x05C80 + 4 * n
    }

    const fn rxq(q: usize, reg: usize) -> usize {
        0x0C000 + 0x40 * q + reg
    }
    const fn txq(q: usize, reg: usize) -> usize {
        0x0E000 + 0x40 * q + reg
    }
    pub(crate) const fn rdbal(q: usize) -> usize {
        rxq(q, 0x00)
    }
    pub(crate) const fn rdbah(q: usize) -> usize {
        rxq(q, 0x04)
    }
    pub(crate) const fn rdlen(q: usize) -> usize {
        rxq(q, 0x08)
    }
    pub(crate) const fn srrctl(q: usize) -> usize {
        rxq(q, 0x0C)
    }
    pub(crate) const fn rdh(q: usize) -> usize {
        rxq(q, 0x10)
    }
    pub(crate) const fn rdt(q: usize) -> usize {
        rxq(q, 0x18)
    }
    pub(crate) const fn rxdctl(q: usize) -> usize {
        rxq(q, 0x28)
    }
    pub(crate) const fn tdbal(q: usize) -> usize {
        txq(q, 0x00)
    }
    pub(crate) const fn tdbah(q: usize) -> usize {
        txq(q, 0x04)
    }
    pub(crate) const fn tdlen(q: usize) -> usize {
        txq(q, 0x08)
    }
    pub(crate) const fn tdh(q: usize) -> usize {
        txq(q, 0x10)
    }
    pub(crate) const fn tdt(q: usize) -> usize {
        txq(q, 0x18)
    }
    pub(crate) const fn txdctl(q: usize) -> usize {
        txq(q, 0x28)
    }

    /// Statistics (clear on read), `igc_regs.h`.
    pub(crate) const CRCERRS: usize = 0x04000;
    pub(crate) const MPC: usize = 0x04010;
    pub(crate) const GPRC: usize = 0x04074;
    pub(crate) const BPRC: usize = 0x04078;
    pub(crate) const MPRC: usize = 0x0407C;
    pub(crate) const GPTC: usize = 0x04080;
    pub(crate) const GORCL: usize = 0x04088;
    pub(crate) const GORCH: usize = 0x0408C;
    pub(crate) const GOTCL: usize = 0x04090;
    pub(crate) const GOTCH: usize = 0x04094;
    pub(crate) const RNBC: usize = 0x040A0;
    pub(crate) const RUC: usize = 0x040A4;
    pub(crate) const ROC: usize = 0x040AC;
    pub(crate) const TPR: usize = 0x040D0;
    pub(crate) const TPT: usize = 0x040D4;
    pub(crate) const MPTC: usize = 0x040F0;
    pub(crate) const BPTC: usize = 0x040F4;
}

/// Register bits used with [`off`], as in `igc_defines.h`.
pub(crate) mod bits {
    pub(crate) const CTRL_GIO_MASTER_DISABLE: u32 = 1 << 2;
    pub(crate) const CTRL_SLU: u32 = 1 << 6;
    pub(crate) const CTRL_RST: u32 = 1 << 26;
    pub(crate) const STATUS_GIO_MASTER_ENABLE: u32 = 1 << 19;
    pub(crate) const CTRL_EXT_DRV_LOAD: u32 = 1 << 28;
    pub(crate) const EECD_AUTO_RD: u32 = 1 << 9;

    pub(crate) const MDIC_REG_SHIFT: u32 = 16;
    pub(crate) const MDIC_PHY_SHIFT: u32 = 21;
    pub(crate) const MDIC_OP_WRITE: u32 = 1 << 26;
    pub(crate) const MDIC_OP_READ: u32 = 2 << 26;
    pub(crate) const MDIC_READY: u32 = 1 << 28;
    pub(crate) const MDIC_ERROR: u32 = 1 << 30;

    pub(crate) const RCTL_EN: u32 = 1 << 1;
    pub(crate) const RCTL_UPE: u32 = 1 << 3;
    pub(crate) const RCTL_MPE: u32 = 1 << 4;
    pub(crate) const RCTL_LPE: u32 = 1 << 5;
    pub(crate) const RCTL_BAM: u32 = 1 << 15;
    pub(crate) const RCTL_SECRC: u32 = 1 << 26;

    pub(crate) const TCTL_EN: u32 = 1 << 1;
    pub(crate) const TCTL_PSP: u32 = 1 << 3;
    pub(crate) const TCTL_CT_15: u32 = 15 << 4;
    pub(crate) const TCTL_RTLC: u32 = 1 << 24;

    pub(crate) const ICR_LSC: u32 = 1 << 2;
    pub(crate) const ICR_INT_ASSERTED: u32 = 1 << 31;
    pub(crate) const ICR_RXT0: u32 = 1 << 7;
    pub(crate) const ICR_TXDW: u32 = 1 << 0;

    pub(crate) const GPIE_NSICR: u32 = 1 << 0;
    pub(crate) const GPIE_MSIX_MODE: u32 = 1 << 4;
    pub(crate) const GPIE_EIAME: u32 = 1 << 30;
    pub(crate) const GPIE_PBA: u32 = 1 << 31;

    pub(crate) const IVAR_VALID: u32 = 0x80;
    pub(crate) const EITR_CNT_IGNR: u32 = 1 << 31;

    pub(crate) const RXCSUM_PCSD: u32 = 1 << 13;
    pub(crate) const RXCSUM_TUOFL: u32 = 1 << 9;
    pub(crate) const RXCSUM_IPOFL: u32 = 1 << 8;

    pub(crate) const MRQC_ENABLE_RSS_MQ: u32 = 0x2;
    pub(crate) const MRQC_RSS_FIELD_IPV4_TCP: u32 = 1 << 16;
    pub(crate) const MRQC_RSS_FIELD_IPV4: u32 = 1 << 17;
    pub(crate) const MRQC_RSS_FIELD_IPV6_TCP_EX: u32 = 1 << 18;
    pub(crate) const MRQC_RSS_FIELD_IPV6: u32 = 1 << 20;
    pub(crate) const MRQC_RSS_FIELD_IPV6_TCP: u32 = 1 << 21;

    pub(crate) const RAH_AV: u32 = 1 << 31;

    pub(crate) const QUEUE_ENABLE: u32 = 1 << 25;
    pub(crate) const SRRCTL_BSIZEPKT_2K: u32 = 2;
    pub(crate) const SRRCTL_BSIZEHDR_256: u32 = 4 << 8;
    pub(crate) const SRRCTL_DESCTYPE_ADV_ONEBUF: u32 = 1 << 25;
}

#[cfg(CONFIG_RIGC_KUNIT_TEST)]
#[kernel::prelude::kunit_tests(rigc_regs)]
mod tests {
    use super::*;
    use kernel::prelude::*;

    #[test]
    fn ctrl_bits_match_igc_defines() {
        // IGC_CTRL_RST, IGC_CTRL_PHY_RST, IGC_CTRL_SLU, IGC_CTRL_GIO_MASTER_DISABLE.
        assert_eq!(CTRL::zeroed().with_rst(true).into_raw(), 0x0400_0000);
        assert_eq!(CTRL::zeroed().with_phy_rst(true).into_raw(), 0x8000_0000);
        assert_eq!(CTRL::zeroed().with_slu(true).into_raw(), 0x0000_0040);
        assert_eq!(CTRL::zeroed().with_gio_master_disable(true).into_raw(), 0x4);
        assert_eq!(CTRL::zeroed().with_vme(true).into_raw(), 0x4000_0000);
        assert_eq!(
            CTRL::zeroed()
                .with_frcspd(true)
                .with_frcdpx(true)
                .into_raw(),
            0x0000_1800
        );
    }

    #[test]
    fn ctrl_update_keeps_other_bits() {
        let ctrl = CTRL::from_raw(0x0014_0241).with_rst(true);
        assert_eq!(ctrl.into_raw(), 0x0414_0241);
        assert!(ctrl.slu());
        assert!(ctrl.fd());
    }

    #[test]
    fn status_speed_decoding() {
        // Link up, full duplex, 2500 Mb/s: SPEED_1000 | SPEED_2500 | LU | FD.
        let s = STATUS::from_raw(0x0040_0083);
        assert!(s.lu());
        assert!(s.fd());
        assert_eq!(s.speed(), Speed::Mbps2500);
        assert_eq!(s.speed().mbps(), 2500);
        assert_eq!(STATUS::from_raw(0x0000_0083).speed(), Speed::Mbps1000);
        assert_eq!(STATUS::from_raw(0x0000_0043).speed(), Speed::Mbps100);
        assert_eq!(STATUS::from_raw(0x0000_0003).speed(), Speed::Mbps10);
        // SPEED_2500 alone does not mean 2500: the C driver tests SPEED_1000 first.
        assert_eq!(STATUS::from_raw(0x0040_0000).speed(), Speed::Mbps10);
    }

    #[test]
    fn status_function_and_gio() {
        let s = STATUS::from_raw(0x0008_0004);
        assert_eq!(u32::from(s.func()), 1);
        assert!(s.gio_master_enable());
        assert!(!s.lu());
    }

    #[test]
    fn eecd_fields() {
        // AUTO_RD, FLASH_DETECTED, size field 9.
        let e = EECD::from_raw(0x0008_0200 | (9 << 11));
        assert!(e.auto_rd());
        assert!(e.flash_detected());
        assert_eq!(e.nvm_word_size(), 1 << 15);
        assert_eq!(EECD::from_raw(2 << 11).nvm_word_size(), 256);
        // The word count is capped at 2^15 (IGC_NVM_WORD_SIZE_BASE_SHIFT + field <= 15).
        assert_eq!(EECD::from_raw(0xF << 11).nvm_word_size(), 1 << 15);
    }

    #[test]
    fn ptp_register_offsets() {
        use kernel::io::register::Register;
        assert_eq!(<SYSTIML as Register>::OFFSET, 0xB600);
        assert_eq!(<SYSTIMH as Register>::OFFSET, 0xB604);
        assert_eq!(<TIMINCA as Register>::OFFSET, 0xB608);
        assert_eq!(<TSYNCTXCTL as Register>::OFFSET, 0xB614);
        assert_eq!(<TXSTMPL_0 as Register>::OFFSET, 0xB618);
        assert_eq!(<TXSTMPH_0 as Register>::OFFSET, 0xB61C);
        assert_eq!(<TSICR as Register>::OFFSET, 0xB66C);
        assert_eq!(TSYNCTXCTL::zeroed().with_enabled(true).into_raw(), 0x10);
        assert_eq!(
            TIMADJ::zeroed().with_adjust_meth(true).into_raw(),
            0x4000_0000
        );
    }
}
