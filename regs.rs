// SPDX-License-Identifier: GPL-2.0

//! I225/I226 register definitions (`igc_regs.h`, `igc_defines.h`).
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
        /// Forced speed (with [`CTRL::frcspd`]): [`CTRL_SPEED_10`] or [`CTRL_SPEED_100`].
        9:8 speed;
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

    /// Extended Device Control.
    pub(crate) CTRL_EXT(u32) @ 0x00018 {
        /// The driver is loaded: the firmware keeps its hands off (`igc_get_hw_control`).
        28:28 drv_load => bool;
        /// SDP3 is an output.
        11:11 sdp3_dir => bool;
        /// SDP2 is an output.
        10:10 sdp2_dir => bool;
    }

    /// Time sync SDP configuration: which software-definable pins the time sync unit drives
    /// or samples (`IGC_TSSDP`); the PTP reset gives them all back (0), as `igc_ptp_reset`.
    /// An output's select is one of [`TSSDP_SEL_TT0`], [`TSSDP_SEL_TT1`], [`TSSDP_SEL_FC0`] and
    /// [`TSSDP_SEL_FC1`].
    pub(crate) TSSDP(u32) @ 0x0003C {
        /// SDP3 is driven by the time sync unit.
        17:17 sdp3_en => bool;
        /// What SDP3 outputs.
        16:15 sdp3_sel;
        /// SDP2 is driven by the time sync unit.
        14:14 sdp2_en => bool;
        /// What SDP2 outputs.
        13:12 sdp2_sel;
        /// SDP1 is driven by the time sync unit.
        11:11 sdp1_en => bool;
        /// What SDP1 outputs.
        10:9 sdp1_sel;
        /// SDP0 is driven by the time sync unit.
        8:8 sdp0_en => bool;
        /// What SDP0 outputs.
        7:6 sdp0_sel;
        /// Auxiliary timestamp 1 samples the pin [`TSSDP::aux1_sel`].
        5:5 aux1_ts_sdp_en => bool;
        /// The pin auxiliary timestamp 1 samples.
        4:3 aux1_sel;
        /// Auxiliary timestamp 0 samples the pin [`TSSDP::aux0_sel`].
        2:2 aux0_ts_sdp_en => bool;
        /// The pin auxiliary timestamp 0 samples.
        1:0 aux0_sel;
    }

    /// MDI Control: one PHY register access (`igc_read_phy_reg_mdic`).
    pub(crate) MDIC(u32) @ 0x00020 {
        /// The PHY answered with an error.
        30:30 error => bool;
        /// The access completed.
        28:28 ready => bool;
        /// Operation: [`MDIC_OP_WRITE`] or [`MDIC_OP_READ`].
        27:26 op;
        /// PHY address.
        25:21 phyadd;
        /// PHY register address.
        20:16 regadd;
        /// Data written, or read back.
        15:0 data;
    }

    /// Receive Control.
    pub(crate) RCTL(u32) @ 0x00100 {
        /// Strip the Ethernet CRC.
        26:26 secrc => bool;
        /// Accept broadcast.
        15:15 bam => bool;
        /// Long packets (up to RLPML).
        5:5 lpe => bool;
        /// Multicast promiscuous.
        4:4 mpe => bool;
        /// Unicast promiscuous.
        3:3 upe => bool;
        /// Receiver enable.
        1:1 en => bool;
    }

    /// Transmit Control.
    pub(crate) TCTL(u32) @ 0x00400 {
        /// Retransmit on late collision.
        24:24 rtlc => bool;
        /// Collision threshold.
        11:4 ct;
        /// Pad short packets.
        3:3 psp => bool;
        /// Transmitter enable.
        1:1 en => bool;
    }

    /// Interrupt Cause Read; read to clear (`IGC_ICR_*`).
    pub(crate) ICR(u32) @ 0x01500 {
        /// An interrupt was asserted (INTx/MSI: the cause is this device's).
        31:31 int_asserted => bool;
        /// Device reset asserted: the device must be reset and set up again.
        30:30 drsta => bool;
        /// The NIC's DMA is out of sync.
        28:28 doutsync => bool;
        /// Time sync: read TSICR.
        19:19 ts => bool;
        /// Receive timer (legacy/MSI mode).
        7:7 rxt0 => bool;
        /// Link status change.
        2:2 lsc => bool;
        /// Transmit descriptor written back (legacy/MSI mode).
        0:0 txdw => bool;
    }

    /// Interrupt Mask Set; the bits of [`ICR`].
    pub(crate) IMS(u32) @ 0x01508 {
        30:30 drsta => bool;
        28:28 doutsync => bool;
        19:19 ts => bool;
        7:7 rxt0 => bool;
        2:2 lsc => bool;
        0:0 txdw => bool;
    }

    /// Interrupt Mask Clear (write only); the bits of [`ICR`].
    pub(crate) IMC(u32) @ 0x0150C {
        31:0 mask;
    }

    /// Interrupt Acknowledge Auto Mask.
    pub(crate) IAM(u32) @ 0x01510 {
        31:0 mask;
    }

    /// General Purpose Interrupt Enable.
    pub(crate) GPIE(u32) @ 0x01514 {
        /// PBA support (MSI-X).
        31:31 pba => bool;
        /// Extended interrupt auto mask enable.
        30:30 eiame => bool;
        /// MSI-X mode.
        4:4 msix_mode => bool;
        /// Non-selective interrupt clear on read.
        0:0 nsicr => bool;
    }

    /// Extended Interrupt Mask Set; one bit per MSI-X vector.
    pub(crate) EIMS(u32) @ 0x01524 {
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

    /// Interrupt throttle of MSI-X vector `n`.
    pub(crate) EITR(u32)[5] @ 0x01680 {
        /// Do not reset the counter on a write.
        31:31 cnt_ignr => bool;
        /// The interval, in microseconds.
        14:2 interval;
    }

    /// Interrupt Vector Allocation: the vectors of queues `2n` (even) and `2n + 1` (odd). Each
    /// byte is a vector number with [`IVAR_VALID`].
    pub(crate) IVAR(u32)[2] @ 0x01700 {
        31:24 tx_odd;
        23:16 rx_odd;
        15:8 tx_even;
        7:0 rx_even;
    }

    /// Interrupt Vector Allocation of the other causes (link, time sync).
    pub(crate) IVAR_MISC(u32) @ 0x01740 {
        /// The vector of the other causes, with [`IVAR_VALID`].
        15:8 other;
    }

    /// Receive packet buffer size.
    pub(crate) RXPBS(u32) @ 0x02404 {
        /// Timestamps go into the packet buffer (the RX timestamp header).
        31:31 cfg_ts_en => bool;
    }

    /// Receive Checksum Control.
    pub(crate) RXCSUM(u32) @ 0x05000 {
        /// Packet checksum disabled: the descriptor carries the RSS hash.
        13:13 pcsd => bool;
        /// SCTP (CRC32) checksum offload.
        11:11 crcofl => bool;
        /// TCP/UDP checksum offload.
        9:9 tuofl => bool;
        /// IP checksum offload.
        8:8 ipofl => bool;
    }

    /// Receive Long Packet Maximum Length.
    pub(crate) RLPML(u32) @ 0x05004 {
        13:0 len;
    }

    /// Multicast Table Array: 4096 hash bits.
    pub(crate) MTA(u32)[128] @ 0x05200 {
        31:0 bits;
    }

    /// Receive Address Low: the first four bytes of address `n`.
    pub(crate) RAL(u32)[16, stride = 8] @ 0x05400 {
        31:0 addr;
    }

    /// Receive Address High: the last two bytes of address `n`.
    pub(crate) RAH(u32)[16, stride = 8] @ 0x05404 {
        /// Address valid.
        31:31 av => bool;
        15:0 addr;
    }

    /// Multiple Receive Queues Command: RSS.
    pub(crate) MRQC(u32) @ 0x05818 {
        21:21 rss_field_ipv6_tcp => bool;
        20:20 rss_field_ipv6 => bool;
        18:18 rss_field_ipv6_tcp_ex => bool;
        17:17 rss_field_ipv4 => bool;
        16:16 rss_field_ipv4_tcp => bool;
        /// [`MRQC_ENABLE_RSS_MQ`] to spread over the queues.
        2:0 enable;
    }

    /// RSS redirection table: four entries (queue numbers) per register.
    pub(crate) RETA(u32)[32] @ 0x05C00 {
        31:24 e3;
        23:16 e2;
        15:8 e1;
        7:0 e0;
    }

    /// RSS random key.
    pub(crate) RSSRK(u32)[10] @ 0x05C80 {
        31:0 key;
    }

    /// RX descriptor base address low of queue `n`.
    pub(crate) RDBAL(u32)[4, stride = 0x40] @ 0x0C000 {
        31:0 addr;
    }

    /// RX descriptor base address high of queue `n`.
    pub(crate) RDBAH(u32)[4, stride = 0x40] @ 0x0C004 {
        31:0 addr;
    }

    /// RX descriptor ring length of queue `n`, in bytes.
    pub(crate) RDLEN(u32)[4, stride = 0x40] @ 0x0C008 {
        19:0 len;
    }

    /// Split and Replication Receive Control of queue `n`.
    pub(crate) SRRCTL(u32)[4, stride = 0x40] @ 0x0C00C {
        /// Put the timestamp header in front of every frame.
        30:30 timestamp => bool;
        /// Descriptor type: [`SRRCTL_DESCTYPE_ADV_ONEBUF`].
        27:25 desctype;
        /// The timer the header's second timestamp comes from.
        15:14 timer1sel;
        /// Header buffer size, in 64-byte units.
        13:8 bsizehdr;
        /// Packet buffer size, in KiB.
        6:0 bsizepkt;
    }

    /// RX descriptor head of queue `n`.
    pub(crate) RDH(u32)[4, stride = 0x40] @ 0x0C010 {
        15:0 head;
    }

    /// RX descriptor tail of queue `n`.
    pub(crate) RDT(u32)[4, stride = 0x40] @ 0x0C018 {
        15:0 tail;
    }

    /// RX descriptor control of queue `n`.
    pub(crate) RXDCTL(u32)[4, stride = 0x40] @ 0x0C028 {
        25:25 enable => bool;
        20:16 wthresh;
        12:8 hthresh;
        4:0 pthresh;
    }

    /// TX descriptor base address low of queue `n`.
    pub(crate) TDBAL(u32)[4, stride = 0x40] @ 0x0E000 {
        31:0 addr;
    }

    /// TX descriptor base address high of queue `n`.
    pub(crate) TDBAH(u32)[4, stride = 0x40] @ 0x0E004 {
        31:0 addr;
    }

    /// TX descriptor ring length of queue `n`, in bytes.
    pub(crate) TDLEN(u32)[4, stride = 0x40] @ 0x0E008 {
        19:0 len;
    }

    /// TX descriptor head of queue `n`.
    pub(crate) TDH(u32)[4, stride = 0x40] @ 0x0E010 {
        15:0 head;
    }

    /// TX descriptor tail of queue `n`.
    pub(crate) TDT(u32)[4, stride = 0x40] @ 0x0E018 {
        15:0 tail;
    }

    /// TX descriptor control of queue `n`.
    pub(crate) TXDCTL(u32)[4, stride = 0x40] @ 0x0E028 {
        25:25 enable => bool;
        20:16 wthresh;
        12:8 hthresh;
        4:0 pthresh;
    }

    /// CRC error count (statistics registers clear on read).
    pub(crate) CRCERRS(u32) @ 0x04000 { 31:0 count; }
    /// Missed packets count.
    pub(crate) MPC(u32) @ 0x04010 { 31:0 count; }
    /// Good packets received count.
    pub(crate) GPRC(u32) @ 0x04074 { 31:0 count; }
    /// Broadcast packets received count.
    pub(crate) BPRC(u32) @ 0x04078 { 31:0 count; }
    /// Multicast packets received count.
    pub(crate) MPRC(u32) @ 0x0407C { 31:0 count; }
    /// Good packets transmitted count.
    pub(crate) GPTC(u32) @ 0x04080 { 31:0 count; }
    /// Good octets received count, low 32 bits (read first).
    pub(crate) GORCL(u32) @ 0x04088 { 31:0 count; }
    /// Good octets received count, high 32 bits.
    pub(crate) GORCH(u32) @ 0x0408C { 31:0 count; }
    /// Good octets transmitted count, low 32 bits (read first).
    pub(crate) GOTCL(u32) @ 0x04090 { 31:0 count; }
    /// Good octets transmitted count, high 32 bits.
    pub(crate) GOTCH(u32) @ 0x04094 { 31:0 count; }
    /// Receive no buffers count.
    pub(crate) RNBC(u32) @ 0x040A0 { 31:0 count; }
    /// Receive undersize count.
    pub(crate) RUC(u32) @ 0x040A4 { 31:0 count; }
    /// Receive oversize count.
    pub(crate) ROC(u32) @ 0x040AC { 31:0 count; }
    /// Total packets received.
    pub(crate) TPR(u32) @ 0x040D0 { 31:0 count; }
    /// Total packets transmitted.
    pub(crate) TPT(u32) @ 0x040D4 { 31:0 count; }
    /// Alignment error count.
    pub(crate) ALGNERRC(u32) @ 0x04004 { 31:0 count; }
    /// Single collision count.
    pub(crate) SCC(u32) @ 0x04014 { 31:0 count; }
    /// Excessive collisions count.
    pub(crate) ECOL(u32) @ 0x04018 { 31:0 count; }
    /// Multiple collision count.
    pub(crate) MCC(u32) @ 0x0401C { 31:0 count; }
    /// Late collisions count.
    pub(crate) LATECOL(u32) @ 0x04020 { 31:0 count; }
    /// Collision count.
    pub(crate) COLC(u32) @ 0x04028 { 31:0 count; }
    /// Receive error count (igc adds it to the collisions).
    pub(crate) RERC(u32) @ 0x0402C { 31:0 count; }
    /// Defer count.
    pub(crate) DC(u32) @ 0x04030 { 31:0 count; }
    /// XON received count.
    pub(crate) XONRXC(u32) @ 0x04048 { 31:0 count; }
    /// XON transmitted count.
    pub(crate) XONTXC(u32) @ 0x0404C { 31:0 count; }
    /// XOFF received count.
    pub(crate) XOFFRXC(u32) @ 0x04050 { 31:0 count; }
    /// XOFF transmitted count.
    pub(crate) XOFFTXC(u32) @ 0x04054 { 31:0 count; }
    /// Management packets received count.
    pub(crate) MGTPRC(u32) @ 0x040B4 { 31:0 count; }
    /// Management packets dropped count.
    pub(crate) MGTPDC(u32) @ 0x040B8 { 31:0 count; }
    /// Management packets transmitted count.
    pub(crate) MGTPTC(u32) @ 0x040BC { 31:0 count; }
    /// TCP segmentation contexts transmitted count.
    pub(crate) TSCTC(u32) @ 0x040F8 { 31:0 count; }
    /// EEE TX LPI count.
    pub(crate) TLPIC(u32) @ 0x04148 { 31:0 count; }
    /// EEE RX LPI count.
    pub(crate) RLPIC(u32) @ 0x0414C { 31:0 count; }
    /// Receive queue drop packet count; on the I225 not cleared by the read, so written 0
    /// after it (`igc_update_stats`).
    pub(crate) RQDPC(u32)[4, stride = 0x40] @ 0x0C030 { 31:0 count; }
    /// Multicast packets transmitted count.
    pub(crate) MPTC(u32) @ 0x040F0 { 31:0 count; }
    /// Broadcast packets transmitted count.
    pub(crate) BPTC(u32) @ 0x040F4 { 31:0 count; }

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
        /// Sample the time on the SFD of sync messages (`IGC_TSYNCTXCTL_TXSYNSIG`).
        5:5 txsynsig => bool;
        /// Timestamping is enabled.
        4:4 enabled => bool;
        /// Bit `n`: a timestamp is valid in register set `n`.
        3:0 txtt;
    }

    /// TX timestamp, set 0, low 32 bits (nanoseconds).
    pub(crate) TXSTMPL_0(u32) @ 0x0B618 {
        31:0 nsec;
    }

    /// TX timestamp, set 0, high 32 bits (seconds). Reading it re-arms set 0.
    pub(crate) TXSTMPH_0(u32) @ 0x0B61C {
        31:0 sec;
    }

    /// TX timestamps of register sets 1-3, low 32 bits (nanoseconds).
    pub(crate) TXSTMPL_N(u32)[3, stride = 0x20] @ 0x0B698 {
        31:0 nsec;
    }

    /// TX timestamps of register sets 1-3, high 32 bits (seconds).
    pub(crate) TXSTMPH_N(u32)[3, stride = 0x20] @ 0x0B69C {
        31:0 sec;
    }

    /// RX time sync control.
    pub(crate) TSYNCRXCTL(u32) @ 0x0B620 {
        /// Sample the time on the SFD (`IGC_TSYNCRXCTL_RXSYNSIG`).
        5:5 rxsynsig => bool;
        /// Timestamping is enabled.
        4:4 enabled => bool;
        /// Which packets get a timestamp: [`TSYNCRXCTL_TYPE_ALL`].
        3:1 type_;
    }

    /// Time sync auxiliary control.
    pub(crate) TSAUXC(u32) @ 0x0B640 {
        /// Stop SYSTIM0 (a blocked clock).
        31:31 disable_systime => bool;
        /// Auxiliary timestamp 1 was taken.
        11:11 autt1 => bool;
        /// Enable auxiliary timestamp 1.
        10:10 en_ts1 => bool;
        /// Auxiliary timestamp 0 was taken.
        9:9 autt0 => bool;
        /// Enable auxiliary timestamp 0.
        8:8 en_ts0 => bool;
        /// Clock 1 starts toggling at target time 1.
        7:7 st1 => bool;
        /// Enable frequency clock 1 ([`FREQOUT`] 1).
        5:5 en_clk1 => bool;
        /// Clock 0 starts toggling at target time 0.
        4:4 st0 => bool;
        /// Enable frequency clock 0.
        2:2 en_clk0 => bool;
        /// Enable target time 1; cleared by the hardware when it fires.
        1:1 en_tt1 => bool;
        /// Enable target time 0; cleared by the hardware when it fires.
        0:0 en_tt0 => bool;
    }

    /// Target time `n`, nanoseconds (`IGC_TRGTTIMLn`).
    pub(crate) TRGTTIML(u32)[2, stride = 8] @ 0x0B644 {
        /// The timer compared: 0, SYSTIM0 (`IGC_TT_IO_TIMER_SEL_SYSTIM0`).
        31:30 timer_sel;
        29:0 nsec;
    }

    /// Target time `n`, seconds (`IGC_TRGTTIMHn`).
    pub(crate) TRGTTIMH(u32)[2, stride = 8] @ 0x0B648 {
        31:0 sec;
    }

    /// Frequency clock `n`'s half period, in ns (`IGC_FREQOUTn`).
    pub(crate) FREQOUT(u32)[2, stride = 4] @ 0x0B654 {
        31:0 half_period;
    }

    /// Auxiliary timestamp `n`, nanoseconds (`IGC_AUXSTMPLn`).
    pub(crate) AUXSTMPL(u32)[2, stride = 8] @ 0x0B65C {
        31:0 nsec;
    }

    /// Auxiliary timestamp `n`, seconds (`IGC_AUXSTMPHn`); reading it frees the latch.
    pub(crate) AUXSTMPH(u32)[2, stride = 8] @ 0x0B660 {
        31:0 sec;
    }

    /// Time sync interrupt cause; read to clear.
    pub(crate) TSICR(u32) @ 0x0B66C {
        /// Auxiliary timestamp 1 taken.
        6:6 autt1 => bool;
        /// Auxiliary timestamp 0 taken.
        5:5 autt0 => bool;
        /// Target time 1 fired.
        4:4 tt1 => bool;
        /// Target time 0 fired.
        3:3 tt0 => bool;
        1:1 txts => bool;
        /// SYSTIM0 crossed a second.
        0:0 sys_wrap => bool;
    }

    /// Time sync interrupt mask.
    pub(crate) TSIM(u32) @ 0x0B674 {
        6:6 autt1 => bool;
        5:5 autt0 => bool;
        4:4 tt1 => bool;
        3:3 tt0 => bool;
        1:1 txts => bool;
        0:0 sys_wrap => bool;
    }

    /// Management control: the manageability firmware's (AMT, a BMC); the driver only reads it.
    pub(crate) MANC(u32) @ 0x05820 {
        /// The firmware uses the PHY: the driver must neither reset nor power it down
        /// (`IGC_MANC_BLK_PHY_RST_ON_IDE`, `igc_check_reset_block`).
        18:18 blk_phy_rst_on_ide => bool;
    }

    /// I225 PHY power management.
    pub(crate) PHPM(u32) @ 0x00E14 {
        /// The internal PHY's reset completed (`IGC_PHY_RST_COMP`).
        8:8 rst_comp => bool;
    }

    /// Energy Efficient Ethernet control.
    pub(crate) EEER(u32) @ 0x00E30 {
        /// EEE was negotiated on the link (read only).
        29:29 eee_neg => bool;
        /// Low-power idle also while flow control pauses.
        18:18 lpi_fc => bool;
        /// RX low-power idle.
        17:17 rx_lpi_en => bool;
        /// TX low-power idle.
        16:16 tx_lpi_en => bool;
    }

    /// Flow control: the destination address of PAUSE frames, low 32 bits.
    pub(crate) FCAL(u32) @ 0x00028 {
        31:0 addr;
    }

    /// Flow control: the destination address of PAUSE frames, high 16 bits.
    pub(crate) FCAH(u32) @ 0x0002C {
        15:0 addr;
    }

    /// Flow control: the EtherType of PAUSE frames.
    pub(crate) FCT(u32) @ 0x00030 {
        15:0 ethertype;
    }

    /// Flow control: the pause time sent in XOFF frames, in slot times.
    pub(crate) FCTTV(u32) @ 0x00170 {
        15:0 ttv;
    }

    /// Flow control: the receive buffer level under which XON is sent, in bytes.
    pub(crate) FCRTL(u32) @ 0x02160 {
        /// Send XON when the level falls under the threshold.
        31:31 xone => bool;
        17:4 rtl;
    }

    /// Flow control: the receive buffer level over which XOFF is sent, in bytes.
    pub(crate) FCRTH(u32) @ 0x02168 {
        17:4 rth;
    }

    /// Internal PHY configuration: which speeds advertise EEE.
    pub(crate) IPCNFG(u32) @ 0x00E38 {
        4:4 eee_2_5g_an => bool;
        3:3 eee_1g_an => bool;
        2:2 eee_100m_an => bool;
    }

    /// Software semaphore: the driver's half (SMBI, set by the read that finds it clear) and
    /// the one it shares with the firmware (SWESMBI, latched only if the firmware lets go).
    pub(crate) SWSM(u32) @ 0x05B50 {
        /// Software/firmware semaphore.
        1:1 swesmbi => bool;
        /// Driver semaphore.
        0:0 smbi => bool;
    }

    /// Software/firmware synchronisation: which resource the driver (bits 15:0) or the
    /// firmware (bits 31:16) owns, one bit per resource ([`SwFwResource`]).
    pub(crate) SW_FW_SYNC(u32) @ 0x05B5C {
        31:16 fw;
        15:0 sw;
    }

    /// NVM read through the shadow RAM (`igc_read_nvm_eerd`).
    pub(crate) EERD(u32) @ 0x12014 {
        /// The word read.
        31:16 data;
        /// Word address.
        15:2 addr;
        /// The read completed.
        1:1 done => bool;
        /// Starts a read.
        0:0 start => bool;
    }
}

/// The resources [`SW_FW_SYNC`] arbitrates (`IGC_SWFW_EEP_SM`, `IGC_SWFW_PHY0_SM`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SwFwResource {
    Nvm = 0x1,
    Phy = 0x2,
}

/// The NVM word with the image's version (`IGC_NVM_DEV_STARTER`), the first half of
/// `ethtool -i`'s firmware version.
pub(crate) const NVM_DEV_STARTER: u16 = 0x05;
/// The NVM words 0 up to this one (the checksum word) sum to [`NVM_SUM`].
pub(crate) const NVM_CHECKSUM_REG: u16 = 0x3F;
pub(crate) const NVM_SUM: u16 = 0xBABA;

/// A register the offline register test (`igc_diag.c`) may access by offset. Only this module
/// makes one, from the table below.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TestReg(usize);

impl TestReg {
    /// The register's offset in BAR0.
    pub(crate) fn offset(self) -> usize {
        self.0
    }

    /// The register `bytes` further on (the next queue's, the next table entry).
    pub(crate) fn plus(self, bytes: usize) -> Self {
        Self(self.0 + bytes)
    }
}

/// How a register of [`REG_TEST`] is tested (`igc_diag.h`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RegTestKind {
    /// The four patterns written and read back, `count` registers 0x40 apart (one per queue).
    Pattern,
    /// `write & mask` written, the `mask` bits read back, `count` registers 0x40 apart.
    SetRead,
    /// Patterns on the low halves of a table of 64-bit entries.
    Table64Lo,
    /// Patterns on the high halves of a table of 64-bit entries.
    Table64Hi,
    /// Patterns on a table of 32-bit entries.
    Table32,
}

/// One row of [`REG_TEST`]: `struct igc_reg_test`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RegTest {
    pub(crate) reg: TestReg,
    pub(crate) count: usize,
    pub(crate) kind: RegTestKind,
    /// The bits that must read back as written.
    pub(crate) mask: u32,
    /// The bits written.
    pub(crate) write: u32,
}

const fn rt(off: usize, count: usize, kind: RegTestKind, mask: u32, write: u32) -> RegTest {
    RegTest {
        reg: TestReg(off),
        count,
        kind,
        mask,
        write,
    }
}

/// The STATUS bits the register test writes; they must read back unchanged (`igc_reg_test`).
pub(crate) const STATUS_TEST: TestReg = TestReg(0x00008);
pub(crate) const STATUS_TOGGLE: u32 = 0x0068_00D3;

/// The register test's table, `reg_test[]` of `igc_diag.c`, row for row. Offsets from
/// `igc_regs.h`: FCAL 0x28, FCAH 0x2C, FCT 0x30, RDBAH/RDBAL/RDLEN/RDT of queue 0, FCRTH 0x2168,
/// FCTTV 0x170, TIPG 0x410, TDBAH/TDBAL/TDLEN/TDT of queue 0, RCTL, TCTL, RA 0x5400, MTA.
pub(crate) const REG_TEST: [RegTest; 21] = {
    use RegTestKind::*;
    [
        rt(0x00028, 1, Pattern, 0xFFFF_FFFF, 0xFFFF_FFFF),
        rt(0x0002C, 1, Pattern, 0x0000_FFFF, 0xFFFF_FFFF),
        rt(0x00030, 1, Pattern, 0x0000_FFFF, 0xFFFF_FFFF),
        rt(0x0C004, 4, Pattern, 0xFFFF_FFFF, 0xFFFF_FFFF),
        rt(0x0C000, 4, Pattern, 0xFFFF_FF80, 0xFFFF_FF80),
        rt(0x0C008, 4, Pattern, 0x000F_FF80, 0x000F_FFFF),
        rt(0x0C018, 4, Pattern, 0x0000_FFFF, 0x0000_FFFF),
        rt(0x02168, 1, Pattern, 0x0003_FFF0, 0x0003_FFF0),
        rt(0x00170, 1, Pattern, 0x0000_FFFF, 0x0000_FFFF),
        rt(0x00410, 1, Pattern, 0x3FFF_FFFF, 0x3FFF_FFFF),
        rt(0x0E004, 4, Pattern, 0xFFFF_FFFF, 0xFFFF_FFFF),
        rt(0x0E000, 4, Pattern, 0xFFFF_FF80, 0xFFFF_FF80),
        rt(0x0E008, 4, Pattern, 0x000F_FF80, 0x000F_FFFF),
        rt(0x0E018, 4, Pattern, 0x0000_FFFF, 0x0000_FFFF),
        rt(0x00100, 1, SetRead, 0xFFFF_FFFF, 0x0000_0000),
        rt(0x00100, 1, SetRead, 0x04CF_B2FE, 0x003F_FFFB),
        rt(0x00100, 1, SetRead, 0x04CF_B2FE, 0xFFFF_FFFF),
        rt(0x00400, 1, SetRead, 0xFFFF_FFFF, 0x0000_0000),
        rt(0x05400, 16, Table64Lo, 0xFFFF_FFFF, 0xFFFF_FFFF),
        rt(0x05400, 16, Table64Hi, 0x900F_FFFF, 0xFFFF_FFFF),
        rt(0x05200, 128, Table32, 0xFFFF_FFFF, 0xFFFF_FFFF),
    ]
};

/// [`MDIC`] operations.
pub(crate) const MDIC_OP_WRITE: u32 = 1;
pub(crate) const MDIC_OP_READ: u32 = 2;
/// [`CTRL`]`.speed` when the speed is forced.
pub(crate) const CTRL_SPEED_10: u32 = 0;
pub(crate) const CTRL_SPEED_100: u32 = 1;
/// PAUSE frames (`igc_defines.h`): the reserved multicast address 01:80:C2:00:00:01, as FCAH
/// and FCAL hold it, and the MAC control EtherType.
pub(crate) const FLOW_CONTROL_ADDRESS_LOW: u32 = 0x00C2_8001;
pub(crate) const FLOW_CONTROL_ADDRESS_HIGH: u32 = 0x0000_0100;
pub(crate) const FLOW_CONTROL_TYPE: u32 = 0x8808;
/// The valid bit of each vector byte in [`IVAR`] and [`IVAR_MISC`].
pub(crate) const IVAR_VALID: u8 = 0x80;
/// [`MRQC`]`.enable`: RSS over several queues.
pub(crate) const MRQC_ENABLE_RSS_MQ: u32 = 2;
/// [`SRRCTL`]`.desctype`: advanced descriptors, one buffer.
pub(crate) const SRRCTL_DESCTYPE_ADV_ONEBUF: u32 = 1;
/// [`TSYNCRXCTL`]`.type_`: timestamp every packet.
pub(crate) const TSYNCRXCTL_TYPE_ALL: u32 = 4;

/// [`TSSDP`] output selects: target time 0 or 1 toggles the pin (`IGC_TS_SDPn_SEL_TT0/1`).
pub(crate) const TSSDP_SEL_TT0: u32 = 0;
/// See [`TSSDP_SEL_TT0`].
pub(crate) const TSSDP_SEL_TT1: u32 = 1;
/// [`TSSDP`] output selects: frequency clock 0 or 1 drives the pin (`IGC_TS_SDPn_SEL_FC0/1`).
pub(crate) const TSSDP_SEL_FC0: u32 = 2;
/// See [`TSSDP_SEL_FC0`].
pub(crate) const TSSDP_SEL_FC1: u32 = 3;

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

    /// The pins' and the auxiliary unit's bits, against `igc_defines.h`.
    #[test]
    fn time_sync_pin_bits() {
        use kernel::num::Bounded;
        assert_eq!(<TSSDP as kernel::io::register::Register>::OFFSET, 0x3C);
        // IGC_TS_SDP3_SEL_FC1 | IGC_TS_SDP3_EN, IGC_AUX1_SEL_SDP2 | IGC_AUX1_TS_SDP_EN.
        let t = TSSDP::zeroed()
            .with_sdp3_sel(Bounded::<u32, 2>::new::<TSSDP_SEL_FC1>())
            .with_sdp3_en(true)
            .with_aux1_sel(Bounded::<u32, 2>::new::<2>())
            .with_aux1_ts_sdp_en(true);
        assert_eq!(t.into_raw(), (3 << 15) | (1 << 17) | (2 << 3) | (1 << 5));
        let t = TSSDP::zeroed()
            .with_sdp0_sel(Bounded::<u32, 2>::new::<TSSDP_SEL_TT1>())
            .with_sdp0_en(true)
            .with_aux0_ts_sdp_en(true);
        assert_eq!(t.into_raw(), (1 << 6) | (1 << 8) | (1 << 2));
        // IGC_TSAUXC_EN_TT0/TT1/CLK0/ST0/CLK1/ST1/EN_TS0/EN_TS1.
        let a = TSAUXC::zeroed()
            .with_en_tt0(true)
            .with_en_tt1(true)
            .with_en_clk0(true)
            .with_st0(true)
            .with_en_clk1(true)
            .with_st1(true)
            .with_en_ts0(true)
            .with_en_ts1(true);
        assert_eq!(
            a.into_raw(),
            0x1 | 0x2 | 0x4 | 0x10 | 0x20 | 0x80 | 0x100 | 0x400
        );
        // IGC_TSICR_TT0/TT1/AUTT0/AUTT1.
        let i = TSIM::zeroed()
            .with_tt0(true)
            .with_tt1(true)
            .with_autt0(true)
            .with_autt1(true);
        assert_eq!(i.into_raw(), 0x78);
        assert_eq!(CTRL_EXT::zeroed().with_sdp2_dir(true).into_raw(), 0x400);
        assert_eq!(CTRL_EXT::zeroed().with_sdp3_dir(true).into_raw(), 0x800);
        assert_eq!(CTRL::zeroed().with_sdp0_dir(true).into_raw(), 0x40_0000);
    }
}
