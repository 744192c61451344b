// SPDX-License-Identifier: GPL-2.0

//! The BAR0 register file of one i225 port: reset and link behaviour, the
//! NVM and PHY access registers, semaphores, interrupts, statistics, PTP and
//! the queue registers. TX and RX processing are its children [`tx`] and
//! [`rx`], further `impl Mac` blocks.
//!
//! Everything here is independent of the transport: a `Mac` is driven by
//! `read32`/`write32`, `receive` (a frame from the wire) and `tick`, and
//! reports interrupt messages (`take_signals`) and outgoing frames
//! (`take_outbox`).

pub mod rx;
pub mod tx;

use std::collections::VecDeque;
use std::sync::Arc;

use crate::dma::GuestMemory;
use crate::interrupts::{Interrupts, Signals};
use crate::nvm::Nvm;
use crate::phy::{Abilities, Link, Partner, Phy, Speed};
use crate::ptp::sdp::{PinConfig, PulseConfig};
use crate::ptp::{Ptp, PtpConfig, TimeSource};
use crate::regs::{self, ctrl, ctrl_ext, eecd, icr, mdic, phpm, qctl, rah, status, swsm, NUM_QUEUES};
use crate::stats::Stats;
use crate::wire::Frame;

const NUM_REGS: usize = (regs::BAR0_SIZE / 4) as usize;

/// Static configuration of a port.
#[derive(Clone, Debug)]
pub struct MacConfig {
    pub mac_addr: [u8; 6],
    pub ptp: PtpConfig,
}

/// Injectable MAC-level faults.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MacFaults {
    /// The device has "fallen off the bus": every read returns all ones
    /// and writes are dropped.
    pub vanished: bool,
    /// The device falls off the bus as the driver reads this register
    /// (offset): that read and every later one return all ones. A vanish
    /// at a chosen point of a driver's register sequence (a statistics
    /// pass, a reset), where `vanished` lands wherever the timing puts it.
    pub vanish_on_read: Option<u32>,
    /// The TX unit hangs: no TX descriptor is fetched, nothing is sent or
    /// written back, until a MAC reset (CTRL.RST) clears the hang, as a
    /// driver's reset after "Detected Tx Unit Hang" does on hardware.
    pub tx_hang: bool,
    /// DMA outlives a queue's disable: when RXDCTL.ENABLE of a ring with
    /// descriptors posted is cleared, the frame in flight completes into the
    /// head descriptor this many ms later (0: never). See [`rx::LateRxDma`].
    pub late_rx_dma_ms: u32,
    /// The NVM auto-read never completes: EECD.AUTO_RD stays clear after a
    /// MAC reset, as with the blank NVM of the I225 parts that have none
    /// programmed (IDs 0x125F and 0x15FD). igc logs it and goes on
    /// (`igc_get_auto_rd_done`; `igc_probe` ignores the reset's result).
    pub no_auto_rd: bool,
    /// Master requests stay pending this many ms after CTRL.GIO_MASTER_DISABLE is set:
    /// STATUS.GIO_MASTER_ENABLE stays set that long (0: it clears at once). A driver must
    /// wait for it before CTRL.RST (`igc_disable_pcie_master`: up to 800 polls 2-3 ms apart),
    /// or the reset cuts DMA in flight; the model counts such resets.
    pub gio_master_hold_ms: u32,
}

/// Per-queue traffic counters (for the control socket).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueCounters {
    pub packets: u64,
    pub bytes: u64,
    pub drops: u64,
}

/// State of the TX side that is not in registers.
#[derive(Clone, Debug, Default)]
pub(crate) struct TxQueueState {
    /// Context descriptors by index (the driver uses index 0).
    pub ctx: [tx::TxContext; 2],
    /// The next packet, read from the ring, waiting for room in the packet buffer.
    pub staged: Option<tx::Staged>,
    /// Write-backs of fetched packets still due, in ring order.
    pub write_backs: VecDeque<tx::WriteBack>,
    /// Host time of the last TDT write (or of the queue's enabling).
    pub tail_at: u64,
}

/// A frame waiting in the RX packet buffer for descriptors.
#[derive(Clone, Debug)]
pub(crate) struct PendingRx {
    pub queue: usize,
    pub frame: rx::RxFrame,
}

pub struct Mac {
    pub(crate) regs: Vec<u32>,
    pub(crate) config: MacConfig,
    pub(crate) nvm: Nvm,
    pub(crate) phy: Phy,
    pub(crate) intr: Interrupts,
    pub(crate) stats: Stats,
    pub(crate) ptp: Ptp,
    pub(crate) clock: Arc<dyn TimeSource>,
    pub(crate) txq: [TxQueueState; NUM_QUEUES],
    /// The TX packet buffer and the wire.
    pub(crate) tx: tx::Transmitter,
    pub(crate) rx_backlog: VecDeque<PendingRx>,
    pub(crate) rx_backlog_bytes: usize,
    pub(crate) outbox: Vec<Frame>,
    pub faults: MacFaults,
    pub tx_counters: [QueueCounters; NUM_QUEUES],
    /// Transmitted packets that did not reach the wire.
    pub tx_counts: tx::TxCounts,
    pub rx_counters: [QueueCounters; NUM_QUEUES],
    /// RX DMA still due after a queue disable (the `late_rx_dma_ms` fault).
    pub(crate) late_rx: Vec<rx::LateRxDma>,
    /// What became of that DMA.
    pub late_rx_counts: rx::LateRxCounts,
    /// The PHY's published state changed (the link partner must re-check).
    phy_changed: bool,
    /// MANC as the manageability firmware set it: the firmware's register, kept across a
    /// MAC reset, written by nobody else (the control socket's `manc` command plays the
    /// firmware).
    pub(crate) manc: u32,
    /// PHY resets through CTRL.PHY_RST, and those made while MANC.BLK_PHY_RST_ON_IDE
    /// forbade them (a driver must check the bit first, `igc_check_reset_block`).
    pub phy_resets: u64,
    pub phy_resets_blocked: u64,
    /// PHY power-downs (BMCR.PDOWN set through MDIC), and those made while
    /// MANC.BLK_PHY_RST_ON_IDE forbade them (`igc_power_down_phy_copper_base`).
    pub phy_power_downs: u64,
    pub phy_power_downs_blocked: u64,
    /// When CTRL.GIO_MASTER_DISABLE was last set (host ns), for `gio_master_hold_ms`.
    gio_disabled_at: u64,
    /// MAC resets (CTRL.RST) while STATUS.GIO_MASTER_ENABLE was still set.
    pub resets_with_master_enabled: u64,
}

impl std::fmt::Debug for Mac {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mac").field("mac_addr", &self.config.mac_addr).field("link", &self.phy.link()).finish()
    }
}

impl Mac {
    pub fn new(config: MacConfig, clock: Arc<dyn TimeSource>) -> Self {
        let now = clock.now_ns();
        let mut mac = Mac {
            regs: vec![0; NUM_REGS],
            nvm: Nvm::new(config.mac_addr),
            phy: Phy::new(),
            intr: Interrupts::new(clock.clone()),
            stats: Stats::new(),
            ptp: Ptp::new(now, config.ptp),
            config,
            clock,
            txq: Default::default(),
            tx: Default::default(),
            rx_backlog: VecDeque::new(),
            rx_backlog_bytes: 0,
            outbox: Vec::new(),
            faults: MacFaults::default(),
            tx_counters: Default::default(),
            tx_counts: Default::default(),
            rx_counters: Default::default(),
            late_rx: Vec::new(),
            late_rx_counts: Default::default(),
            phy_changed: true,
            manc: 0,
            phy_resets: 0,
            phy_resets_blocked: 0,
            phy_power_downs: 0,
            phy_power_downs_blocked: 0,
            gio_disabled_at: 0,
            resets_with_master_enabled: 0,
        };
        mac.ptp.set_true_offset_ns(mac.clock.true_offset_ns());
        mac.reset();
        mac
    }

    /// Host time now, from the model's time source.
    pub fn now(&self) -> u64 {
        self.clock.now_ns()
    }

    pub(crate) fn reg(&self, off: u32) -> u32 {
        self.regs[(off / 4) as usize]
    }

    pub(crate) fn set_reg(&mut self, off: u32, val: u32) {
        self.regs[(off / 4) as usize] = val;
    }

    /// Power-on reset (VFIO device reset, FLR): MAC reset plus a PHY reset.
    pub fn power_on_reset(&mut self) {
        self.phy.reset();
        self.phy.refresh();
        self.phy_changed = true;
        self.reset();
    }

    /// A power loss (D3cold): as [`Mac::power_on_reset`], and the PHC, which CTRL.RST keeps
    /// counting from where it was, starts again at 0.
    pub fn power_loss(&mut self) {
        self.power_on_reset();
        let now = self.now();
        self.ptp.systim0.set(now, 0);
        self.ptp.systim1.set(now, 0);
    }

    /// MAC reset (CTRL.RST): registers to their reset values, RAR0 and the
    /// NVM-derived registers reloaded. The PHY and its link are untouched.
    pub fn reset(&mut self) {
        let now = self.now();
        // The pins' and timers' events due before the reset happen before it.
        self.ptp.tick(now);
        self.regs.fill(0);
        let auto_rd = if self.faults.no_auto_rd { 0 } else { eecd::AUTO_RD };
        self.set_reg(regs::EECD, self.nvm.eecd_bits() | auto_rd);
        let mac = self.nvm.mac();
        self.set_reg(regs::RAL0, u32::from_le_bytes([mac[0], mac[1], mac[2], mac[3]]));
        self.set_reg(regs::RAH0, u32::from(u16::from_le_bytes([mac[4], mac[5]])) | rah::AV);
        self.set_reg(regs::TCTL, regs::tctl::PSP);
        self.set_reg(regs::PHPM, phpm::RST_COMPL);
        self.set_reg(regs::VET, 0x8100);
        self.set_reg(regs::MANC, self.manc);
        self.set_reg(regs::RXPBS, 0x0000_00A2);
        self.set_reg(regs::TXPBS, 0x0400_0014);
        self.set_reg(regs::RXCSUM, regs::rxcsum::IPOFL | regs::rxcsum::TUOFL);
        for q in 0..NUM_QUEUES {
            self.set_reg(regs::rxq(q, regs::SRRCTL), 0x0000_0402);
        }
        self.intr.reset();
        self.stats.clear();
        self.ptp.reset(now);
        if self.faults.tx_hang {
            log::info!("CTRL.RST clears the TX unit hang");
            self.faults.tx_hang = false;
        }
        // A MAC reset ends the TX DMA too: what the packet buffer holds is lost, and no
        // write-back still due is made (the driver frees its rings after the reset).
        self.flush_tx_buffer("MAC reset");
        self.txq = Default::default();
        self.rx_backlog.clear();
        self.rx_backlog_bytes = 0;
        // A MAC reset ends every DMA in flight.
        self.late_rx.clear();
    }

    /// The MAC's link: the PHY's, once the driver set CTRL.SLU ("set link
    /// up"; igc_setup_copper_link does). Without it STATUS.LU stays clear and
    /// no frame passes, whatever the PHY negotiated.
    pub fn link(&self) -> Option<Link> {
        self.phy.link().filter(|_| self.reg(regs::CTRL) & ctrl::SLU != 0)
    }

    /// Per TX queue: TDH, TDT, the ring's descriptor count and whether TXDCTL enables it.
    pub fn tx_rings(&self) -> [(u32, u32, u32, bool); NUM_QUEUES] {
        std::array::from_fn(|q| {
            (
                self.reg(regs::txq(q, regs::TDH)),
                self.reg(regs::txq(q, regs::TDT)),
                self.reg(regs::txq(q, regs::TDLEN)) / 16,
                self.reg(regs::txq(q, regs::TXDCTL)) & qctl::ENABLE != 0,
            )
        })
    }

    /// TX descriptors the driver handed over (below TDT) that the MAC has not fetched (at or
    /// above TDH), over the enabled queues.
    pub fn tx_pending(&self) -> u64 {
        self.tx_rings()
            .iter()
            .filter(|&&(_, _, count, enabled)| enabled && count != 0)
            .map(|&(head, tail, count, _)| u64::from((tail + count - head % count) % count))
            .sum()
    }

    /// The state a link partner sees: `None` when this PHY is powered down,
    /// else its advertisement or forced mode ([`Phy::offer`]).
    pub fn phy_advertisement(&self) -> Option<Abilities> {
        (!self.phy.powered_down()).then(|| self.phy.offer())
    }

    /// Returns true once after the PHY's advertisement or power changed.
    pub fn take_phy_changed(&mut self) -> bool {
        std::mem::take(&mut self.phy_changed)
    }

    /// The far end of the cable changed.
    pub fn set_partner(&mut self, partner: Partner) {
        let was_up = self.link();
        if self.phy.update_link(partner) && was_up != self.link() {
            self.link_changed();
        }
    }

    fn link_changed(&mut self) {
        log::info!(
            "link {}",
            match self.link() {
                Some(l) => format!("up {} Mb/s {}", l.speed.mbps(), if l.full_duplex { "full" } else { "half" }),
                None => "down".into(),
            }
        );
        if self.link().is_none() {
            self.rx_backlog.clear();
            self.rx_backlog_bytes = 0;
        }
        // The link went down or retrained (a new speed): what was leaving is lost.
        self.flush_tx_buffer("link change");
        self.intr.raise(icr::LSC);
    }

    /// Interrupt messages that became due.
    pub fn take_signals(&mut self) -> Signals {
        self.intr.take_signals()
    }

    /// Host time at which a message held back by EITR moderation is due
    /// (then [`Mac::take_signals`] releases it).
    pub fn next_irq_deadline(&self) -> Option<u64> {
        self.intr.next_deadline()
    }

    /// Host time at which the next timed event falls due: a firing EITR
    /// holds, late RX DMA, TX work (a frame leaving or left, a write-back),
    /// a PTP event (the next second of SYSTIM0, an armed target time, a pin
    /// edge: the pulse source's, a clock output's). The
    /// port's worker wakes then, whatever the traffic.
    pub fn next_deadline(&self) -> Option<u64> {
        [self.next_irq_deadline(), self.next_dma_deadline(), self.next_tx_deadline(), self.ptp.next_event(self.now())]
            .into_iter()
            .flatten()
            .min()
    }

    /// Host time at which the next late RX DMA falls due, if any.
    pub fn next_dma_deadline(&self) -> Option<u64> {
        self.late_rx.iter().map(|l| l.due).min()
    }

    /// INTx line level.
    pub fn legacy_irq_asserted(&self) -> bool {
        self.intr.legacy_asserted()
    }

    /// Frames transmitted since the last call.
    pub fn take_outbox(&mut self) -> Vec<Frame> {
        std::mem::take(&mut self.outbox)
    }

    pub fn ptp(&self) -> &Ptp {
        &self.ptp
    }

    pub fn ptp_mut(&mut self) -> &mut Ptp {
        &mut self.ptp
    }

    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Periodic work (PTP events, the pins' edges): everything due by now.
    /// Also run before each access to the PTP block and the pin registers.
    pub fn tick(&mut self) {
        let now = self.now();
        self.tick_at(now);
    }

    fn tick_at(&mut self, now: u64) {
        if self.ptp.tick(now) {
            self.intr.raise(icr::TS);
        }
    }

    /// CTRL or CTRL_EXT as read: the stored value with the SDPn_DATA bits
    /// showing the pins' levels.
    fn with_pin_levels(&self, off: u32) -> u32 {
        let (stored, bits) = match off {
            regs::CTRL => (self.reg(off), [(0, ctrl::SDP0_DATA), (1, ctrl::SDP1_DATA)]),
            _ => (self.reg(off), [(2, ctrl_ext::SDP2_DATA), (3, ctrl_ext::SDP3_DATA)]),
        };
        bits.iter().fold(
            stored & !(bits[0].1 | bits[1].1),
            |v, &(pin, bit)| {
                if self.ptp.pin_level(pin) {
                    v | bit
                } else {
                    v
                }
            },
        )
    }

    /// CTRL, CTRL_EXT or TSSDP changed: the pins' configuration follows.
    fn update_pins(&mut self) {
        let config =
            PinConfig { ctrl: self.reg(regs::CTRL), ctrl_ext: self.reg(regs::CTRL_EXT), tssdp: self.reg(regs::TSSDP) };
        let now = self.now();
        self.ptp.set_pin_config(config, now);
    }

    /// Sets (or, with `None`, removes) the external pulse source, its
    /// first edge after now; the true time's offset is sampled again.
    pub fn set_pulse(&mut self, config: Option<PulseConfig>) {
        self.tick();
        self.ptp.set_true_offset_ns(self.clock.true_offset_ns());
        let now = self.now();
        self.ptp.set_pulse(config, now);
    }

    /// The command line's pulse source (`reset-faults` goes back to it), its
    /// jitter drawn from generator stream `stream` of the stamping's seed.
    pub fn set_pulse_startup(&mut self, config: Option<PulseConfig>, stream: u64) {
        self.tick();
        self.ptp.set_true_offset_ns(self.clock.true_offset_ns());
        let now = self.now();
        self.ptp.set_pulse_startup(config, stream, now);
    }

    /// Back to the command line's pulse source (unchanged if it is that).
    pub fn restore_pulse(&mut self) {
        self.tick();
        let now = self.now();
        self.ptp.restore_pulse(now);
    }

    fn status(&self) -> u32 {
        let mut s = 0;
        if let Some(link) = self.link() {
            s |= status::LU;
            if link.full_duplex {
                s |= status::FD;
            }
            s |= match link.speed {
                Speed::M10 => 0,
                Speed::M100 => status::SPEED_100,
                Speed::M1000 => status::SPEED_1000,
                Speed::M2500 => status::SPEED_1000 | status::SPEED_2500,
            };
        }
        if self.master_enabled() {
            s |= status::GIO_MASTER_ENABLE;
        }
        s
    }

    /// STATUS.GIO_MASTER_ENABLE: master requests are enabled or still pending.
    fn master_enabled(&self) -> bool {
        self.reg(regs::CTRL) & ctrl::GIO_MASTER_DISABLE == 0
            || self.now() < self.gio_disabled_at + u64::from(self.faults.gio_master_hold_ms) * 1_000_000
    }

    /// A 32-bit register as the driver last left it, read without any side
    /// effect (for the control socket's `reg`): the registers that are plain
    /// storage, the PTP unit's settings and the interrupt block's. `None` for
    /// those whose read has an effect or a value of the moment (STATUS, EERD,
    /// SWSM, the statistics counters, ICR, EICR, SYSTIM), and past the BAR.
    pub fn peek(&mut self, off: u32) -> Option<u32> {
        if !off.is_multiple_of(4) || off >= regs::BAR0_SIZE as u32 || Stats::contains(off) {
            return None;
        }
        match off {
            regs::STATUS | regs::EERD | regs::SRWR | regs::SWSM | regs::ICR | regs::EICR => None,
            o if Ptp::read_has_effect(o) => None,
            regs::CTRL | regs::CTRL_EXT => Some(self.with_pin_levels(off)),
            o if Ptp::contains(o) => {
                let now = self.now();
                Some(self.ptp.read(o, now))
            }
            o => Some(self.intr.read(o).unwrap_or_else(|| self.reg(o))),
        }
    }

    /// A 32-bit register read with its side effects.
    pub fn read32(&mut self, off: u32) -> u32 {
        if self.faults.vanish_on_read == Some(off & !3) {
            self.faults.vanish_on_read = None;
            self.faults.vanished = true;
        }
        if self.faults.vanished {
            return u32::MAX;
        }
        let off = off & !3;
        match off {
            regs::STATUS => self.status(),
            regs::EERD => self.nvm.read_eerd(),
            regs::SRWR => self.nvm.read_srwr(),
            regs::SWSM => {
                // Reading returns the old value and takes SMBI.
                let v = self.reg(regs::SWSM);
                self.set_reg(regs::SWSM, v | swsm::SMBI);
                v
            }
            // No firmware: its half of SW_FW_SYNC is always free.
            regs::SW_FW_SYNC => self.reg(off) & 0xFFFF,
            o if Stats::contains(o) => self.stats.read(o),
            regs::CTRL | regs::CTRL_EXT => {
                self.tick();
                self.with_pin_levels(off)
            }
            o if Ptp::contains(o) => {
                let now = self.now();
                self.tick_at(now);
                self.ptp.read(o, now)
            }
            o => match self.intr.read(o) {
                Some(v) => v,
                None => self.reg(o),
            },
        }
    }

    /// What a byte or word write to the register at `off` merges its bytes
    /// into, read without side effects from the register's owner: the
    /// current contents, or 0 where a written 0 bit does nothing (set and
    /// clear registers, write-1-to-clear causes).
    pub fn partial_write_base(&mut self, off: u32) -> u32 {
        let off = off & !3;
        match off {
            regs::WUS => 0,
            regs::CTRL => self.reg(off) & !(ctrl::RST | ctrl::PHY_RST),
            o if Stats::contains(o) => 0,
            o if Ptp::contains(o) => self.ptp.partial_write_base(o),
            o => match self.intr.partial_write_base(o) {
                Some(v) => v,
                None => self.reg(o),
            },
        }
    }

    /// A 32-bit register write with its side effects. `mem` is guest memory
    /// for the DMA that TDT/RDT writes start.
    pub fn write32(&mut self, off: u32, val: u32, mem: &dyn GuestMemory) {
        if self.faults.vanished {
            return;
        }
        let off = off & !3;
        match off {
            regs::CTRL => {
                self.tick();
                self.write_ctrl(val, mem);
                self.update_pins();
            }
            regs::CTRL_EXT | regs::TSSDP => {
                self.tick();
                self.set_reg(off, val);
                self.update_pins();
            }
            regs::STATUS => {}
            regs::EECD => {
                if val & eecd::FLUPD != 0 {
                    self.nvm.flash_update();
                }
            }
            regs::MDIC => self.write_mdic(val),
            regs::TCTL => {
                self.set_reg(off, val);
                if val & regs::tctl::EN != 0 {
                    self.restart_tx(mem);
                }
            }
            // The manageability firmware's register: the host's writes do not reach it.
            regs::MANC => {}
            regs::EERD => self.nvm.write_eerd(val),
            regs::SRWR => self.nvm.write_srwr(val),
            regs::SW_FW_SYNC => self.set_reg(off, val & 0xFFFF),
            regs::WUS => {
                let v = self.reg(off) & !val;
                self.set_reg(off, v);
            }
            o if Stats::contains(o) => {}
            o if Ptp::contains(o) => {
                // One instant for both: nothing due slips past the write.
                let now = self.now();
                self.tick_at(now);
                if self.ptp.write(o, val, now) {
                    self.intr.raise(icr::TS);
                }
            }
            o if (regs::TDBAL0..regs::TXQ_END).contains(&o) => self.write_txq(o, val, mem),
            o if (regs::RDBAL0..regs::RXQ_END).contains(&o) => self.write_rxq(o, val, mem),
            o => {
                if !self.intr.write(o, val) {
                    self.set_reg(o, val & regs::writable_bits(o));
                }
            }
        }
    }

    fn write_ctrl(&mut self, val: u32, mem: &dyn GuestMemory) {
        if val & ctrl::RST != 0 {
            log::debug!("CTRL.RST: MAC reset");
            if self.master_enabled() {
                log::warn!("CTRL.RST while master requests are pending (STATUS.GIO_MASTER_ENABLE)");
                self.resets_with_master_enabled += 1;
            }
            self.reset();
            // RST self-clears; the rest of the written value is discarded
            // by the reset, as on hardware.
            return;
        }
        let old = self.reg(regs::CTRL);
        let was_up = self.link();
        if val & ctrl::GIO_MASTER_DISABLE != 0 && old & ctrl::GIO_MASTER_DISABLE == 0 {
            self.gio_disabled_at = self.now();
        }
        self.set_reg(regs::CTRL, val);
        if val & ctrl::PHY_RST != 0 && old & ctrl::PHY_RST == 0 {
            log::debug!("CTRL.PHY_RST: PHY reset");
            self.phy_resets += 1;
            if self.phy_reset_blocked() {
                log::warn!("CTRL.PHY_RST while MANC.BLK_PHY_RST_ON_IDE blocks PHY resets");
                self.phy_resets_blocked += 1;
            }
            self.reset_phy();
        } else if was_up != self.link() {
            // CTRL.SLU changed the MAC's link.
            self.link_changed();
            self.resume_tx(mem);
        }
    }

    /// Whether the firmware forbids PHY resets and power-downs (MANC.BLK_PHY_RST_ON_IDE).
    pub fn phy_reset_blocked(&self) -> bool {
        self.manc & regs::manc::BLK_PHY_RST_ON_IDE != 0
    }

    /// The manageability firmware sets or clears MANC.BLK_PHY_RST_ON_IDE.
    pub fn set_blk_phy_rst(&mut self, on: bool) {
        if on {
            self.manc |= regs::manc::BLK_PHY_RST_ON_IDE;
        } else {
            self.manc &= !regs::manc::BLK_PHY_RST_ON_IDE;
        }
        self.set_reg(regs::MANC, self.manc);
    }

    fn reset_phy(&mut self) {
        let was_up = self.link().is_some();
        self.phy.reset();
        self.phy.refresh();
        self.phy_changed = true;
        let phpm = self.reg(regs::PHPM) | phpm::RST_COMPL;
        self.set_reg(regs::PHPM, phpm);
        if was_up != self.link().is_some() {
            self.link_changed();
        }
    }

    fn write_mdic(&mut self, val: u32) {
        // The PHY address field is ignored: igc leaves it at 0.
        let reg = ((val & mdic::REG_MASK) >> mdic::REG_SHIFT) as u8;
        let result = match val & mdic::OP_MASK {
            mdic::OP_READ => {
                let data = self.phy.read(reg);
                (val & !mdic::DATA_MASK) | u32::from(data) | mdic::READY
            }
            mdic::OP_WRITE => {
                let before = self.phy_advertisement();
                let was_powered = !self.phy.powered_down();
                self.phy.write(reg, val as u16);
                if was_powered && self.phy.powered_down() {
                    self.phy_power_downs += 1;
                    if self.phy_reset_blocked() {
                        log::warn!("PHY powered down while MANC.BLK_PHY_RST_ON_IDE blocks it");
                        self.phy_power_downs_blocked += 1;
                    }
                }
                if before != self.phy_advertisement() {
                    self.phy_changed = true;
                }
                let was_up = self.link();
                if self.phy.refresh() && was_up != self.link() {
                    self.link_changed();
                }
                val | mdic::READY
            }
            _ => val | mdic::READY | mdic::ERROR,
        };
        self.set_reg(regs::MDIC, result);
    }

    fn write_txq(&mut self, off: u32, val: u32, mem: &dyn GuestMemory) {
        let q = ((off - regs::TDBAL0) / regs::QUEUE_STRIDE) as usize;
        let reg = (off - regs::TDBAL0) % regs::QUEUE_STRIDE;
        match reg {
            regs::TDT => {
                self.set_reg(off, val & 0xFFFF);
                self.txq[q].tail_at = self.now();
                self.transmit(mem);
            }
            regs::TDH => {
                self.set_reg(off, val & 0xFFFF);
                // The ring starts again elsewhere: what was read from it goes.
                self.txq[q].staged = None;
            }
            regs::TXDCTL => {
                self.set_reg(off, val & !qctl::SWFLUSH);
                if val & qctl::ENABLE != 0 {
                    self.txq[q].tail_at = self.now();
                    self.transmit(mem);
                } else {
                    // The queue's DMA ends: no write-back still due is made (igc frees the
                    // ring's buffers right after, igc_disable_tx_ring); its frames already in
                    // the packet buffer are the MAC's and still leave.
                    self.txq[q] = TxQueueState::default();
                }
            }
            _ => self.set_reg(off, val & regs::writable_bits(off)),
        }
    }

    fn write_rxq(&mut self, off: u32, val: u32, mem: &dyn GuestMemory) {
        let q = ((off - regs::RDBAL0) / regs::QUEUE_STRIDE) as usize;
        let reg = (off - regs::RDBAL0) % regs::QUEUE_STRIDE;
        match reg {
            regs::RDT => {
                self.set_reg(off, val & 0xFFFF);
                self.drain_rx_backlog(mem);
            }
            regs::RDH => self.set_reg(off, val & 0xFFFF),
            regs::RXDCTL => {
                let was_enabled = self.reg(off) & qctl::ENABLE != 0;
                self.set_reg(off, val & !qctl::SWFLUSH);
                if val & qctl::ENABLE == 0 {
                    self.drop_rx_backlog(q);
                    if was_enabled {
                        self.schedule_late_rx_dma(q, mem);
                    }
                }
            }
            _ => self.set_reg(off, val & regs::writable_bits(off)),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::dma::NoMemory;
    use crate::phy::{bmsr, BMSR, PHYID1, PHYID2};
    use crate::ptp::VirtualClock;
    use crate::regs::{rxq, txq};

    pub const MAC: [u8; 6] = [0x02, 0x1a, 0x25, 0x00, 0x00, 0x01];

    pub fn new_mac() -> (Mac, Arc<VirtualClock>) {
        let clock = Arc::new(VirtualClock::new(1_000_000));
        let mut mac = Mac::new(MacConfig { mac_addr: MAC, ptp: PtpConfig::default() }, clock.clone());
        // The driver's link set-up (igc_setup_copper_link): the MAC's link follows the PHY's.
        mac.write32(regs::CTRL, ctrl::SLU, &NoMemory);
        (mac, clock)
    }

    fn mdic_read(m: &mut Mac, reg: u32) -> u16 {
        m.write32(regs::MDIC, (reg << 16) | mdic::OP_READ, &NoMemory);
        let v = m.read32(regs::MDIC);
        assert_ne!(v & mdic::READY, 0);
        assert_eq!(v & mdic::ERROR, 0);
        v as u16
    }

    fn mdic_write(m: &mut Mac, reg: u32, data: u16) {
        m.write32(regs::MDIC, (reg << 16) | mdic::OP_WRITE | u32::from(data), &NoMemory);
        assert_ne!(m.read32(regs::MDIC) & mdic::READY, 0);
    }

    #[test]
    fn reset_sequence() {
        let (mut m, _) = new_mac();
        let mem = NoMemory;
        // Something the reset must clear, and a clobbered RAR0.
        m.write32(regs::RCTL, 0x0400_8022, &mem);
        m.write32(regs::RAH0, 0, &mem);
        // GIO master disable handshake.
        m.write32(regs::CTRL, ctrl::GIO_MASTER_DISABLE, &mem);
        assert_eq!(m.read32(regs::STATUS) & status::GIO_MASTER_ENABLE, 0);
        let c = m.read32(regs::CTRL);
        m.write32(regs::CTRL, c | ctrl::RST, &mem);
        let c = m.read32(regs::CTRL);
        assert_eq!(c & ctrl::RST, 0, "RST self-clears");
        assert_ne!(c, u32::MAX);
        assert_ne!(m.read32(regs::STATUS) & status::GIO_MASTER_ENABLE, 0);
        assert_ne!(m.read32(regs::EECD) & eecd::AUTO_RD, 0);
        assert_eq!(m.read32(regs::RCTL), 0);
        assert_eq!(m.read32(regs::RAL0), 0x0025_1a02);
        assert_eq!(m.read32(regs::RAH0), rah::AV | 0x0100);
        assert_ne!(m.read32(regs::PHPM) & phpm::RST_COMPL, 0);
    }

    #[test]
    fn nvm_checksum_via_eerd() {
        let (mut m, _) = new_mac();
        let eecd = m.read32(regs::EECD);
        assert_ne!(eecd & eecd::FLASH_DETECTED, 0);
        let size_field = (eecd >> 11) & 0xF;
        assert!(1usize << (size_field + 6) >= 0x40);
        let mut sum = 0u16;
        for word in 0..=0x3Fu32 {
            m.write32(regs::EERD, (word << 2) | 1, &NoMemory);
            let v = m.read32(regs::EERD);
            assert_ne!(v & 2, 0, "DONE");
            sum = sum.wrapping_add((v >> 16) as u16);
        }
        assert_eq!(sum, 0xBABA);
    }

    #[test]
    fn semaphores() {
        let (mut m, _) = new_mac();
        let mem = NoMemory;
        // igc_get_hw_semaphore_i225: SMBI reads 0 the first time only.
        assert_eq!(m.read32(regs::SWSM) & swsm::SMBI, 0);
        assert_ne!(m.read32(regs::SWSM) & swsm::SMBI, 0, "now held");
        let v = m.read32(regs::SWSM);
        m.write32(regs::SWSM, v | swsm::SWESMBI, &mem);
        assert_ne!(m.read32(regs::SWSM) & swsm::SWESMBI, 0);
        // SW_FW_SYNC: firmware bits read as free; software bits stick.
        m.write32(regs::SW_FW_SYNC, 0xFFFF_0002, &mem);
        assert_eq!(m.read32(regs::SW_FW_SYNC), 0x2);
        // Release.
        m.write32(regs::SWSM, 0, &mem);
        assert_eq!(m.read32(regs::SWSM) & (swsm::SMBI | swsm::SWESMBI), 0);
    }

    #[test]
    fn mdic_phy_id_and_autoneg() {
        let (mut m, _) = new_mac();
        m.set_partner(Partner::Present(Abilities::ALL));
        // Any PHY address works.
        m.write32(regs::MDIC, (PHYID1 as u32) << 16 | 5 << 21 | mdic::OP_READ, &NoMemory);
        assert_eq!(m.read32(regs::MDIC) as u16, 0x67C9);
        assert_eq!(mdic_read(&mut m, PHYID2 as u32), 0xDC00);
        // Restart autonegotiation as igc_setup_copper_link does.
        mdic_write(&mut m, 0, 0x1200);
        mdic_read(&mut m, BMSR as u32);
        let bmsr = mdic_read(&mut m, BMSR as u32);
        assert_ne!(bmsr & bmsr::LINK, 0);
        assert_ne!(bmsr & bmsr::AN_COMPLETE, 0);
        assert_eq!(mdic_read(&mut m, 0x1E), crate::phy::FW_VERSION_VALUE);
    }

    #[test]
    fn status_speed_bits_follow_link() {
        let (mut m, _) = new_mac();
        assert_eq!(m.read32(regs::STATUS) & status::LU, 0);
        m.set_partner(Partner::Present(Abilities::ALL));
        assert_eq!(m.read32(regs::STATUS), 0x0040_0083 | status::GIO_MASTER_ENABLE);
        m.set_partner(Partner::Present(Abilities::up_to(Speed::M1000)));
        assert_eq!(m.read32(regs::STATUS), 0x83 | status::GIO_MASTER_ENABLE);
        m.set_partner(Partner::Present(Abilities::up_to(Speed::M100)));
        assert_eq!(m.read32(regs::STATUS), 0x43 | status::GIO_MASTER_ENABLE);
        // STATUS ignores writes (ethtool register test).
        m.write32(regs::STATUS, 0x6800D3, &NoMemory);
        assert_eq!(m.read32(regs::STATUS), 0x43 | status::GIO_MASTER_ENABLE);
    }

    #[test]
    fn no_link_without_slu() {
        let (mut m, _) = new_mac();
        m.write32(regs::CTRL, 0, &NoMemory);
        m.write32(regs::IMS, icr::LSC, &NoMemory);
        m.set_partner(Partner::Present(Abilities::ALL));
        // The PHY negotiated, but the MAC was not told to bring the link up.
        assert!(m.phy.link().is_some());
        assert_eq!(m.read32(regs::STATUS) & status::LU, 0);
        assert!(m.link().is_none());
        assert!(!m.take_signals().legacy, "no LSC while SLU is clear");
        m.write32(regs::CTRL, ctrl::SLU, &NoMemory);
        assert_ne!(m.read32(regs::STATUS) & status::LU, 0);
        assert!(m.take_signals().legacy, "LSC when SLU brings the link up");
        // A MAC reset clears SLU: the link is down until the driver sets it again.
        m.write32(regs::CTRL, ctrl::RST, &NoMemory);
        assert_eq!(m.read32(regs::STATUS) & status::LU, 0);
    }

    #[test]
    fn no_auto_rd_fault_leaves_eecd_auto_rd_clear() {
        let (mut m, _) = new_mac();
        assert_ne!(m.read32(regs::EECD) & eecd::AUTO_RD, 0, "read at reset");
        m.faults.no_auto_rd = true;
        m.write32(regs::CTRL, ctrl::RST, &NoMemory);
        assert_eq!(m.read32(regs::EECD) & eecd::AUTO_RD, 0, "never read after the reset");
        // The MAC address is still there (the model has one; a blank part would not).
        assert_ne!(m.read32(regs::RAH0) & rah::AV, 0);
        m.faults.no_auto_rd = false;
        m.write32(regs::CTRL, ctrl::RST, &NoMemory);
        assert_ne!(m.read32(regs::EECD) & eecd::AUTO_RD, 0, "read again");
    }

    #[test]
    fn link_change_raises_lsc() {
        let (mut m, _) = new_mac();
        m.write32(regs::IMS, icr::LSC, &NoMemory);
        m.set_partner(Partner::Present(Abilities::ALL));
        assert!(m.take_signals().legacy);
        assert_ne!(m.read32(regs::ICR) & icr::LSC, 0);
        m.set_partner(Partner::Absent);
        assert!(m.take_signals().legacy);
    }

    #[test]
    fn manc_is_the_firmwares_and_counts_blocked_phy_resets() {
        let (mut m, _) = new_mac();
        assert_eq!(m.read32(regs::MANC), 0);
        m.set_blk_phy_rst(true);
        assert_eq!(m.read32(regs::MANC), regs::manc::BLK_PHY_RST_ON_IDE);
        // The host cannot clear it, and a MAC reset keeps it.
        m.write32(regs::MANC, 0, &NoMemory);
        m.write32(regs::CTRL, ctrl::RST, &NoMemory);
        assert_eq!(m.read32(regs::MANC), regs::manc::BLK_PHY_RST_ON_IDE);
        m.write32(regs::CTRL, ctrl::PHY_RST, &NoMemory);
        m.write32(regs::CTRL, 0, &NoMemory);
        assert_eq!((m.phy_resets, m.phy_resets_blocked), (1, 1));
        m.set_blk_phy_rst(false);
        m.write32(regs::CTRL, ctrl::PHY_RST, &NoMemory);
        assert_eq!((m.phy_resets, m.phy_resets_blocked), (2, 1));
        assert_eq!(m.read32(regs::MANC), 0);
    }

    #[test]
    fn gio_master_hold_keeps_master_enabled_and_counts_early_resets() {
        let (mut m, _) = new_mac();
        m.faults.gio_master_hold_ms = 1000;
        m.write32(regs::CTRL, ctrl::GIO_MASTER_DISABLE, &NoMemory);
        assert_ne!(m.read32(regs::STATUS) & status::GIO_MASTER_ENABLE, 0, "still pending");
        m.write32(regs::CTRL, ctrl::RST, &NoMemory);
        assert_eq!(m.resets_with_master_enabled, 1);
        m.faults.gio_master_hold_ms = 0;
        m.write32(regs::CTRL, ctrl::GIO_MASTER_DISABLE, &NoMemory);
        assert_eq!(m.read32(regs::STATUS) & status::GIO_MASTER_ENABLE, 0);
        m.write32(regs::CTRL, ctrl::RST, &NoMemory);
        assert_eq!(m.resets_with_master_enabled, 1);
    }

    #[test]
    fn phy_reset_via_ctrl() {
        let (mut m, _) = new_mac();
        m.set_partner(Partner::Present(Abilities::ALL));
        m.write32(regs::PHPM, 0, &NoMemory);
        m.write32(regs::CTRL, ctrl::SLU | ctrl::PHY_RST, &NoMemory);
        m.write32(regs::CTRL, ctrl::SLU, &NoMemory);
        assert_ne!(m.read32(regs::PHPM) & phpm::RST_COMPL, 0);
        // Link comes straight back (instant autoneg) at 2.5G.
        assert_eq!(m.link().unwrap().speed, Speed::M2500);
    }

    /// Two MACs on one cable: each end resolves against what the other's PHY shows it, until
    /// neither changes.
    fn cable(a: &mut Mac, b: &mut Mac) {
        for _ in 0..4 {
            let offer = |m: &Mac| m.phy_advertisement().map_or(Partner::Absent, Partner::Present);
            let (oa, ob) = (offer(a), offer(b));
            a.set_partner(ob);
            b.set_partner(oa);
        }
    }

    /// Autonegotiation off, speed and duplex forced, as igc_force_speed_duplex writes BMCR.
    fn force(m: &mut Mac, bmcr: u16) {
        mdic_write(m, u32::from(crate::phy::BMCR), bmcr);
    }

    fn link_of(m: &Mac) -> Option<(u32, bool)> {
        m.link().map(|l| (l.speed.mbps(), l.full_duplex))
    }

    /// `ethtool -s autoneg off speed 100 duplex full` on one end: the other end, still
    /// autonegotiating, finds no link pulses with an advertisement in them and detects the
    /// speed (parallel detection), in half duplex, as IEEE 802.3 clause 28 makes it. (Each end
    /// kept its own view before: 100 full on the forced end, 2.5G on the other.)
    #[test]
    fn forced_speed_against_autoneg_is_parallel_detected_in_half_duplex() {
        use crate::phy::bmcr;
        let (mut a, _) = new_mac();
        let (mut b, _) = new_mac();
        cable(&mut a, &mut b);
        assert_eq!((link_of(&a), link_of(&b)), (Some((2500, true)), Some((2500, true))));
        force(&mut a, bmcr::SPEED_100 | bmcr::DUPLEX);
        cable(&mut a, &mut b);
        assert_eq!(link_of(&a), Some((100, true)), "the forced end");
        assert_eq!(link_of(&b), Some((100, false)), "parallel detection: half duplex");
        force(&mut a, 0); // 10 half
        cable(&mut a, &mut b);
        assert_eq!((link_of(&a), link_of(&b)), (Some((10, false)), Some((10, false))));
        // Parallel detection finds only a speed the autonegotiating end advertises.
        mdic_write(&mut b, u32::from(crate::phy::ANAR), 0x0181); // 100 half and full, no 10
        cable(&mut a, &mut b);
        assert_eq!((link_of(&a), link_of(&b)), (None, None));
        // Autonegotiation back on: the best common mode again.
        force(&mut a, bmcr::AN_ENABLE | bmcr::RESTART_AN);
        cable(&mut a, &mut b);
        assert_eq!((link_of(&a), link_of(&b)), (Some((2500, true)), Some((2500, true))));
    }

    /// Both ends forced: a link only at the same speed, each end in its own duplex (a duplex
    /// mismatch is possible, as on copper); different speeds give no link at all (both ends
    /// came up, each at its own speed, before). 1000BASE-T and 2.5GBASE-T need
    /// autonegotiation: a BMCR forcing 1000 (igc forces only 10 and 100) gives no link.
    #[test]
    fn forced_speeds_must_match_and_gigabit_cannot_be_forced() {
        use crate::phy::bmcr;
        let (mut a, _) = new_mac();
        let (mut b, _) = new_mac();
        force(&mut a, bmcr::SPEED_100 | bmcr::DUPLEX);
        force(&mut b, bmcr::DUPLEX); // 10 full
        cable(&mut a, &mut b);
        assert_eq!((link_of(&a), link_of(&b)), (None, None), "100 against 10");
        force(&mut b, bmcr::SPEED_100);
        cable(&mut a, &mut b);
        assert_eq!((link_of(&a), link_of(&b)), (Some((100, true)), Some((100, false))));
        force(&mut a, bmcr::SPEED_1000 | bmcr::DUPLEX);
        force(&mut b, bmcr::AN_ENABLE | bmcr::RESTART_AN);
        cable(&mut a, &mut b);
        assert_eq!((link_of(&a), link_of(&b)), (None, None), "1000 forced");
        force(&mut b, bmcr::SPEED_1000 | bmcr::DUPLEX);
        cable(&mut a, &mut b);
        assert_eq!((link_of(&a), link_of(&b)), (None, None), "1000 forced on both ends");
    }

    #[test]
    fn stats_block_clear_on_read() {
        let (mut m, _) = new_mac();
        m.stats.add(crate::stats::GOTCL, 0x2_0000_0010);
        m.stats.add(crate::stats::GPTC, 7);
        assert_eq!(m.read32(crate::stats::GPTC), 7);
        assert_eq!(m.read32(crate::stats::GPTC), 0);
        assert_eq!(m.read32(crate::stats::GOTCL), 0x10);
        assert_eq!(m.read32(crate::stats::GOTCL + 4), 2);
        assert_eq!(m.read32(crate::stats::GOTCL), 0);
    }

    #[test]
    fn vanished_device_reads_all_ones() {
        let (mut m, _) = new_mac();
        m.faults.vanished = true;
        assert_eq!(m.read32(regs::CTRL), u32::MAX);
        m.faults.vanished = false;
        assert_ne!(m.read32(regs::CTRL), u32::MAX);
    }

    #[test]
    fn device_vanishes_at_the_chosen_read() {
        let (mut m, _) = new_mac();
        m.stats.add(crate::stats::GPTC, 7);
        m.faults.vanish_on_read = Some(crate::stats::GOTCL);
        assert_ne!(m.read32(regs::CTRL), u32::MAX);
        assert_eq!(m.read32(crate::stats::GPTC), 7);
        assert_eq!(m.read32(crate::stats::GOTCL + 1), u32::MAX);
        assert!(m.faults.vanished);
        assert_eq!(m.faults.vanish_on_read, None);
        assert_eq!(m.read32(regs::CTRL), u32::MAX);
    }

    /// igc_diag.c's register test (`ethtool -t` offline), table and all:
    /// every pattern reads back as written, less the read-only bits.
    #[test]
    fn igc_diag_register_test_passes() {
        const PATTERN: u8 = 0;
        const SET_READ: u8 = 1;
        const TABLE64_LO: u8 = 2;
        const TABLE64_HI: u8 = 3;
        const TABLE32: u8 = 4;
        let table: &[(u32, u32, u8, u32, u32)] = &[
            (regs::FCAL, 1, PATTERN, 0xFFFF_FFFF, 0xFFFF_FFFF),
            (regs::FCAH, 1, PATTERN, 0x0000_FFFF, 0xFFFF_FFFF),
            (regs::FCT, 1, PATTERN, 0x0000_FFFF, 0xFFFF_FFFF),
            (rxq(0, regs::RDBAH), 4, PATTERN, 0xFFFF_FFFF, 0xFFFF_FFFF),
            (rxq(0, regs::RDBAL), 4, PATTERN, 0xFFFF_FF80, 0xFFFF_FF80),
            (rxq(0, regs::RDLEN), 4, PATTERN, 0x000F_FF80, 0x000F_FFFF),
            (rxq(0, regs::RDT), 4, PATTERN, 0x0000_FFFF, 0x0000_FFFF),
            (regs::FCRTH, 1, PATTERN, 0x0003_FFF0, 0x0003_FFF0),
            (regs::FCTTV, 1, PATTERN, 0x0000_FFFF, 0x0000_FFFF),
            (regs::TIPG, 1, PATTERN, 0x3FFF_FFFF, 0x3FFF_FFFF),
            (txq(0, regs::TDBAH), 4, PATTERN, 0xFFFF_FFFF, 0xFFFF_FFFF),
            (txq(0, regs::TDBAL), 4, PATTERN, 0xFFFF_FF80, 0xFFFF_FF80),
            (txq(0, regs::TDLEN), 4, PATTERN, 0x000F_FF80, 0x000F_FFFF),
            (txq(0, regs::TDT), 4, PATTERN, 0x0000_FFFF, 0x0000_FFFF),
            (regs::RCTL, 1, SET_READ, 0xFFFF_FFFF, 0x0000_0000),
            (regs::RCTL, 1, SET_READ, 0x04CF_B2FE, 0x003F_FFFB),
            (regs::RCTL, 1, SET_READ, 0x04CF_B2FE, 0xFFFF_FFFF),
            (regs::TCTL, 1, SET_READ, 0xFFFF_FFFF, 0x0000_0000),
            (regs::RAL0, 16, TABLE64_LO, 0xFFFF_FFFF, 0xFFFF_FFFF),
            (regs::RAL0, 16, TABLE64_HI, 0x900F_FFFF, 0xFFFF_FFFF),
            (regs::MTA, 128, TABLE32, 0xFFFF_FFFF, 0xFFFF_FFFF),
        ];
        let (mut m, _) = new_mac();
        let mem = NoMemory;
        // STATUS: the toggle bits read back unchanged.
        let before = m.read32(regs::STATUS) & 0x6800D3;
        m.write32(regs::STATUS, 0x6800D3, &mem);
        assert_eq!(m.read32(regs::STATUS) & 0x6800D3, before);
        for &(base, n, kind, mask, write) in table {
            for i in 0..n {
                let reg = match kind {
                    TABLE64_LO => base + 8 * i,
                    TABLE64_HI => base + 4 + 8 * i,
                    TABLE32 => base + 4 * i,
                    _ => base + 0x40 * i,
                };
                let saved = m.read32(reg);
                if kind == SET_READ {
                    m.write32(reg, write & mask, &mem);
                    assert_eq!(m.read32(reg) & mask, write & mask, "set/check {reg:#x}");
                } else {
                    for pat in [0x5A5A_5A5Au32, 0xA5A5_A5A5, 0, u32::MAX] {
                        m.write32(reg, pat & write, &mem);
                        assert_eq!(m.read32(reg), pat & write & mask, "pattern {pat:#x} at {reg:#x}");
                    }
                }
                m.write32(reg, saved, &mem);
            }
        }
    }

    #[test]
    fn plain_storage_round_trips() {
        let (mut m, _) = new_mac();
        for off in [0x0E00u32, 0x5B30, 0x9000, 0xA000, 0x3354, 0x12540] {
            m.write32(off, 0x1234_5678, &NoMemory);
            assert_eq!(m.read32(off), 0x1234_5678, "{off:#x}");
        }
    }
}
