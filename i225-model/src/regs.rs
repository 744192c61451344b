// SPDX-License-Identifier: GPL-2.0

//! BAR0 register offsets and bit fields of the i225/i226 MAC.
//!
//! Names follow the C `igc` driver (without the `IGC_` prefix) so the model
//! can be read side by side with `igc_regs.h` / `igc_defines.h`.

/// Size of BAR0 (register space) in bytes.
pub const BAR0_SIZE: u64 = 1 << 20;
/// Size of BAR3 (MSI-X table and PBA) in bytes.
pub const BAR3_SIZE: u64 = 16 << 10;

/// Number of TX and RX queues.
pub const NUM_QUEUES: usize = 4;
/// Number of MSI-X vectors.
pub const NUM_MSIX_VECTORS: usize = 5;

// General control and status.
pub const CTRL: u32 = 0x0000;
pub const STATUS: u32 = 0x0008;
pub const EECD: u32 = 0x0010;
pub const CTRL_EXT: u32 = 0x0018;
pub const MDIC: u32 = 0x0020;
pub const FCAL: u32 = 0x0028;
pub const FCAH: u32 = 0x002C;
pub const FCT: u32 = 0x0030;
pub const VET: u32 = 0x0038;
/// Time-sync SDP configuration: which pins carry the auxiliary timestamp
/// inputs and the target-time / clock outputs ([`tssdp`]).
pub const TSSDP: u32 = 0x003C;
pub const FCTTV: u32 = 0x0170;
pub const RCTL: u32 = 0x0100;
pub const TCTL: u32 = 0x0400;
pub const TIPG: u32 = 0x0410;
pub const PHPM: u32 = 0x0E14;

// Interrupts.
pub const ICR: u32 = 0x1500;
pub const ICS: u32 = 0x1504;
pub const IMS: u32 = 0x1508;
pub const IMC: u32 = 0x150C;
pub const IAM: u32 = 0x1510;
pub const GPIE: u32 = 0x1514;
pub const EICS: u32 = 0x1520;
pub const EIMS: u32 = 0x1524;
pub const EIMC: u32 = 0x1528;
pub const EIAC: u32 = 0x152C;
pub const EIAM: u32 = 0x1530;
pub const EICR: u32 = 0x1580;
pub const EITR0: u32 = 0x1680;
pub const IVAR0: u32 = 0x1700;
pub const IVAR_MISC: u32 = 0x1740;

pub const FCRTL: u32 = 0x2160;
pub const FCRTH: u32 = 0x2168;
pub const RXPBS: u32 = 0x2404;
pub const TXPBS: u32 = 0x3404;

// Statistics block (clear on read).
pub const STATS_START: u32 = 0x4000;
pub const STATS_END: u32 = 0x42A4;

// RX filtering and offloads.
pub const RXCSUM: u32 = 0x5000;
pub const RLPML: u32 = 0x5004;
pub const MTA: u32 = 0x5200;
pub const MTA_ENTRIES: usize = 128;
pub const RAL0: u32 = 0x5400;
pub const RAH0: u32 = 0x5404;
pub const RAR_ENTRIES: usize = 16;
pub const WUS: u32 = 0x5810;
pub const MRQC: u32 = 0x5818;
pub const MANC: u32 = 0x5820;
pub const SWSM: u32 = 0x5B50;
pub const FWSM: u32 = 0x5B54;
pub const SW_FW_SYNC: u32 = 0x5B5C;
pub const RETA: u32 = 0x5C00;
pub const RSSRK: u32 = 0x5C80;

// PTP block.
pub const SYSTIML: u32 = 0xB600;
pub const SYSTIMH: u32 = 0xB604;
pub const TIMINCA: u32 = 0xB608;
pub const TIMADJ: u32 = 0xB60C;
pub const TSYNCTXCTL: u32 = 0xB614;
pub const TXSTMPL_0: u32 = 0xB618;
pub const TXSTMPH_0: u32 = 0xB61C;
pub const TSYNCRXCTL: u32 = 0xB620;
pub const TSAUXC: u32 = 0xB640;
pub const TRGTTIML0: u32 = 0xB644;
pub const TRGTTIMH0: u32 = 0xB648;
pub const TRGTTIML1: u32 = 0xB64C;
pub const TRGTTIMH1: u32 = 0xB650;
pub const FREQOUT0: u32 = 0xB654;
pub const FREQOUT1: u32 = 0xB658;
pub const AUXSTMPL0: u32 = 0xB65C;
pub const AUXSTMPH0: u32 = 0xB660;
pub const AUXSTMPL1: u32 = 0xB664;
pub const AUXSTMPH1: u32 = 0xB668;
pub const TSICR: u32 = 0xB66C;
pub const TSIM: u32 = 0xB674;
pub const SYSTIMR_1: u32 = 0xB684;
pub const SYSTIML_1: u32 = 0xB688;
pub const SYSTIMH_1: u32 = 0xB68C;
pub const TIMINCA_1: u32 = 0xB690;
pub const TXSTMPL_1: u32 = 0xB698;
pub const TXSTMPH_1: u32 = 0xB69C;
pub const TXSTMPL_2: u32 = 0xB6B8;
pub const TXSTMPH_2: u32 = 0xB6BC;
pub const TXSTMPL_3: u32 = 0xB6D8;
pub const TXSTMPH_3: u32 = 0xB6DC;
pub const SYSTIMR: u32 = 0xB6F8;

// Per-queue registers (stride 0x40).
pub const RDBAL0: u32 = 0xC000;
pub const RXQ_END: u32 = 0xC100;
pub const TDBAL0: u32 = 0xE000;
pub const TXQ_END: u32 = 0xE100;
pub const QUEUE_STRIDE: u32 = 0x40;
pub const RDBAL: u32 = 0x00;
pub const RDBAH: u32 = 0x04;
pub const RDLEN: u32 = 0x08;
pub const SRRCTL: u32 = 0x0C;
pub const RDH: u32 = 0x10;
pub const RDT: u32 = 0x18;
pub const RXDCTL: u32 = 0x28;
pub const RQDPC: u32 = 0x30;
pub const TDBAL: u32 = 0x00;
pub const TDBAH: u32 = 0x04;
pub const TDLEN: u32 = 0x08;
pub const TDH: u32 = 0x10;
pub const TDT: u32 = 0x18;
pub const TXDCTL: u32 = 0x28;

// NVM access.
pub const EERD: u32 = 0x12014;
pub const EEWR: u32 = 0x12018;
pub const SRWR: u32 = EEWR;

/// The bits software can write in a register the model keeps as storage; the
/// others are read-only and read 0, as igc_diag.c's register test (`ethtool
/// -t`, reg_test[]) expects of FCAH, FCT, RDLEN/TDLEN, RDBAL/TDBAL and RAH.
pub fn writable_bits(off: u32) -> u32 {
    let queue_reg = |base: u32, end: u32| (base..end).contains(&off).then(|| (off - base) % QUEUE_STRIDE);
    if let Some(r) = queue_reg(RDBAL0, RXQ_END).or_else(|| queue_reg(TDBAL0, TXQ_END)) {
        return match r {
            RDBAL => 0xFFFF_FF80,
            RDLEN => 0x000F_FF80,
            _ => u32::MAX,
        };
    }
    match off {
        FCAH | FCT | FCTTV => 0x0000_FFFF,
        FCRTL => 0x8003_FFF0,
        FCRTH => 0x0003_FFF0,
        TIPG => 0x3FFF_FFFF,
        o if (RAH0..RAH0 + 8 * RAR_ENTRIES as u32).contains(&o) && (o - RAH0).is_multiple_of(8) => 0x900F_FFFF,
        _ => u32::MAX,
    }
}

/// Per-queue register address helpers.
pub const fn rxq(n: usize, reg: u32) -> u32 {
    RDBAL0 + n as u32 * QUEUE_STRIDE + reg
}
pub const fn txq(n: usize, reg: u32) -> u32 {
    TDBAL0 + n as u32 * QUEUE_STRIDE + reg
}
pub const fn ral(n: usize) -> u32 {
    RAL0 + 8 * n as u32
}
pub const fn rah(n: usize) -> u32 {
    RAH0 + 8 * n as u32
}

pub mod manc {
    /// Block PHY reset and power down (the manageability firmware uses the PHY).
    pub const BLK_PHY_RST_ON_IDE: u32 = 1 << 18;
}

pub mod ctrl {
    pub const GIO_MASTER_DISABLE: u32 = 1 << 2;
    pub const SLU: u32 = 1 << 6;
    pub const FRCSPD: u32 = 1 << 11;
    pub const FRCDPX: u32 = 1 << 12;
    /// The level of SDP0 / SDP1 (e1000's SWDPIN0/1, which igb's 82580 PEROUT
    /// code reads back as the pin's level): written, the level an output
    /// pin under software control drives; read, the pin's level.
    pub const SDP0_DATA: u32 = 1 << 18;
    pub const SDP1_DATA: u32 = 1 << 19;
    /// SDP0 / SDP1 direction, 1 = output (igc_defines.h).
    pub const SDP0_DIR: u32 = 1 << 22;
    pub const SDP1_DIR: u32 = 1 << 23;
    pub const RST: u32 = 1 << 26;
    pub const RFCE: u32 = 1 << 27;
    pub const TFCE: u32 = 1 << 28;
    pub const VME: u32 = 1 << 30;
    pub const PHY_RST: u32 = 1 << 31;
}

pub mod status {
    pub const FD: u32 = 1 << 0;
    pub const LU: u32 = 1 << 1;
    pub const SPEED_100: u32 = 1 << 6;
    pub const SPEED_1000: u32 = 1 << 7;
    pub const GIO_MASTER_ENABLE: u32 = 1 << 19;
    pub const SPEED_2500: u32 = 1 << 22;
}

pub mod eecd {
    pub const AUTO_RD: u32 = 1 << 9;
    pub const SIZE_SHIFT: u32 = 11;
    pub const FLASH_DETECTED: u32 = 1 << 19;
    pub const FLUPD: u32 = 1 << 23;
    pub const FLUDONE: u32 = 1 << 26;
}

pub mod ctrl_ext {
    /// The level of SDP2 / SDP3, as CTRL.SDP0/1_DATA (e1000_defines.h).
    pub const SDP2_DATA: u32 = 1 << 6;
    pub const SDP3_DATA: u32 = 1 << 7;
    /// SDP2 / SDP3 direction, 1 = output (igc_defines.h).
    pub const SDP2_DIR: u32 = 1 << 10;
    pub const SDP3_DIR: u32 = 1 << 11;
    pub const DRV_LOAD: u32 = 1 << 28;
}

/// TSSDP fields (igc_defines.h, "SDP Configuration Bits").
pub mod tssdp {
    /// AUX0_SEL: the pin (0..3) auxiliary timestamp 0 samples.
    pub const AUX0_SEL_MASK: u32 = 3;
    pub const AUX0_TS_SDP_EN: u32 = 1 << 2;
    pub const AUX1_SEL_SHIFT: u32 = 3;
    pub const AUX1_SEL_MASK: u32 = 3 << AUX1_SEL_SHIFT;
    pub const AUX1_TS_SDP_EN: u32 = 1 << 5;
    /// TS_SDPn_SEL of pin n at bits `6 + 3n`: 0 TT0, 1 TT1, 2 FC0, 3 FC1.
    pub const fn sel_shift(pin: usize) -> u32 {
        6 + 3 * pin as u32
    }
    /// TS_SDPn_EN at bit `8 + 3n`: the pin carries that time-sync output.
    pub const fn en(pin: usize) -> u32 {
        1 << (8 + 3 * pin as u32)
    }
    pub const SEL_TT0: u32 = 0;
    pub const SEL_TT1: u32 = 1;
    pub const SEL_FC0: u32 = 2;
    pub const SEL_FC1: u32 = 3;
}

pub mod mdic {
    pub const DATA_MASK: u32 = 0xFFFF;
    pub const REG_SHIFT: u32 = 16;
    pub const REG_MASK: u32 = 0x1F << REG_SHIFT;
    pub const PHY_SHIFT: u32 = 21;
    pub const OP_WRITE: u32 = 1 << 26;
    pub const OP_READ: u32 = 2 << 26;
    pub const OP_MASK: u32 = 3 << 26;
    pub const READY: u32 = 1 << 28;
    pub const ERROR: u32 = 1 << 30;
}

pub mod nvm_rw {
    pub const START: u32 = 1 << 0;
    pub const DONE: u32 = 1 << 1;
    pub const ADDR_SHIFT: u32 = 2;
    pub const ADDR_MASK: u32 = 0x3FFF;
    pub const DATA_SHIFT: u32 = 16;
}

pub mod swsm {
    pub const SMBI: u32 = 1 << 0;
    pub const SWESMBI: u32 = 1 << 1;
}

pub mod phpm {
    pub const RST_COMPL: u32 = 1 << 8;
}

pub mod icr {
    pub const TXDW: u32 = 1 << 0;
    pub const LSC: u32 = 1 << 2;
    pub const RXDMT0: u32 = 1 << 4;
    pub const RXO: u32 = 1 << 6;
    pub const RXT0: u32 = 1 << 7;
    pub const TS: u32 = 1 << 19;
    pub const INT_ASSERTED: u32 = 1 << 31;
}

pub mod gpie {
    pub const NSICR: u32 = 1 << 0;
    pub const MSIX_MODE: u32 = 1 << 4;
    pub const EIAME: u32 = 1 << 30;
    pub const PBA: u32 = 1 << 31;
}

pub mod ivar {
    pub const VALID: u32 = 0x80;
    pub const VECTOR_MASK: u32 = 0x1F;
}

/// EITR(n) = EITR0 + 4n (igc_regs.h: `IGC_EITR(_n) (0x01680 + (0x4 * (_n)))`).
pub mod eitr {
    /// The interval field, bits 14:2 (igc_defines.h: `IGC_QVECTOR_MASK 0x7FFC`).
    /// Taken in place it counts 0.25 µs (the field itself counts 1 µs): see
    /// [`interval_ns`].
    pub const INTERVAL_MASK: u32 = 0x7FFC;
    /// Writes leave the interval counter alone (`IGC_EITR_CNT_IGNR`); igc
    /// sets it on every write. The model keeps no counter to reset.
    pub const CNT_IGNR: u32 = 1 << 31;

    /// The moderation interval an EITR value programs, in ns.
    ///
    /// igc writes `itr_val & IGC_QVECTOR_MASK` (igc_main.c, igc_write_itr:
    /// `u32 itr_val = q_vector->itr_val & IGC_QVECTOR_MASK;`), where itr_val
    /// is 4 × the interval in µs: ethtool's `rx_itr_setting =
    /// ec->rx_coalesce_usecs << 2` (igc_ethtool.c, igc_ethtool_set_coalesce)
    /// and igc.h's `IGC_20K_ITR 196` (49 µs, 20,000 ints/s), `IGC_4K_ITR 980`
    /// (245 µs), `IGC_70K_ITR 56` (14 µs). So `(val & 0x7FFC) >> 2` is the
    /// interval in µs; 0 means no moderation (igc never writes it: its
    /// minimum is `IGC_ITR_VAL_MASK`, 0x04 = 1 µs).
    pub fn interval_ns(val: u32) -> u64 {
        u64::from((val & INTERVAL_MASK) >> 2) * 1000
    }
}

pub mod rctl {
    pub const EN: u32 = 1 << 1;
    pub const SBP: u32 = 1 << 2;
    pub const UPE: u32 = 1 << 3;
    pub const MPE: u32 = 1 << 4;
    pub const LPE: u32 = 1 << 5;
    pub const MO_SHIFT: u32 = 12;
    pub const BAM: u32 = 1 << 15;
    pub const BSIZE_SHIFT: u32 = 16;
    pub const SECRC: u32 = 1 << 26;
}

pub mod tctl {
    pub const EN: u32 = 1 << 1;
    pub const PSP: u32 = 1 << 3;
}

pub mod rah {
    pub const ASEL_MASK: u32 = 3 << 16;
    pub const AV: u32 = 1 << 31;
}

pub mod qctl {
    /// TXDCTL/RXDCTL queue enable.
    pub const ENABLE: u32 = 1 << 25;
    /// TXDCTL/RXDCTL software flush (self-clearing).
    pub const SWFLUSH: u32 = 1 << 26;
}

pub mod srrctl {
    pub const BSIZEPKT_MASK: u32 = 0x7F;
    pub const TIMER1SEL_SHIFT: u32 = 14;
    pub const TIMER0SEL_SHIFT: u32 = 17;
    pub const DROP_EN: u32 = 1 << 31;
    pub const TIMESTAMP: u32 = 1 << 30;
}

pub mod rxcsum {
    pub const IPOFL: u32 = 1 << 8;
    pub const TUOFL: u32 = 1 << 9;
    pub const PCSD: u32 = 1 << 13;
}

pub mod mrqc {
    pub const ENABLE_MASK: u32 = 0x7;
    pub const ENABLE_RSS_MQ: u32 = 0x2;
    pub const FIELD_IPV4_TCP: u32 = 1 << 16;
    pub const FIELD_IPV4: u32 = 1 << 17;
    pub const FIELD_IPV6_TCP_EX: u32 = 1 << 18;
    pub const FIELD_IPV6: u32 = 1 << 20;
    pub const FIELD_IPV6_TCP: u32 = 1 << 21;
    pub const FIELD_IPV4_UDP: u32 = 1 << 22;
    pub const FIELD_IPV6_UDP: u32 = 1 << 23;
}

pub mod rxpbs {
    pub const CFG_TS_EN: u32 = 1 << 31;
}

pub mod tsynctxctl {
    pub const TXTT_MASK: u32 = 0xF;
    pub const ENABLED: u32 = 1 << 4;
}

pub mod tsyncrxctl {
    pub const ENABLED: u32 = 1 << 4;
}

pub mod tsicr {
    pub const SYS_WRAP: u32 = 1 << 0;
    pub const TXTS: u32 = 1 << 1;
    pub const TT0: u32 = 1 << 3;
    pub const TT1: u32 = 1 << 4;
    /// Auxiliary timestamp 0 / 1 taken.
    pub const AUTT0: u32 = 1 << 5;
    pub const AUTT1: u32 = 1 << 6;
}

pub mod tsauxc {
    pub const EN_TT0: u32 = 1 << 0;
    pub const EN_TT1: u32 = 1 << 1;
    /// Clock output 0: enable, and start toggling at target time 0.
    pub const EN_CLK0: u32 = 1 << 2;
    pub const ST0: u32 = 1 << 4;
    pub const EN_CLK1: u32 = 1 << 5;
    pub const ST1: u32 = 1 << 7;
    /// Auxiliary timestamp 0: enable, and "taken" (read-only, cleared by
    /// the read of AUXSTMPH0).
    pub const EN_TS0: u32 = 1 << 8;
    pub const AUTT0: u32 = 1 << 9;
    pub const EN_TS1: u32 = 1 << 10;
    pub const AUTT1: u32 = 1 << 11;
    /// "Generate a pulse": igc never sets it; stored only.
    pub const PLSG: u32 = 1 << 17;
    /// Stops SYSTIM1 (the driver names it DISABLE1).
    pub const DISABLE_SYSTIM1: u32 = 1 << 27;
    pub const DIS_TS_CLEAR: u32 = 1 << 30;
    /// Stops SYSTIM0.
    pub const DISABLE_SYSTIM0: u32 = 1 << 31;
}

pub mod timinca {
    /// Sign of the correction: set means the clock runs slower than nominal.
    pub const ISGN: u32 = 1 << 31;
    pub const INCVALUE_MASK: u32 = 0x7FFF_FFFF;
}
