// SPDX-License-Identifier: GPL-2.0

//! The PHY (`igc_phy.c`): clause 22 and clause 45 registers through MDIC under the
//! semaphore shared with the firmware, the advertisement, power and EEE, and the link as the
//! MAC resolved it; the link's carrier and log line.

use kernel::{
    io::poll::read_poll_timeout_atomic,
    net::{dev::Device, ethtool::Mdix},
    netdev_err, netdev_info,
    num::Bounded,
    prelude::*,
    sync::atomic::Relaxed,
    time::{delay::fsleep, Delta},
};

use crate::{
    adapter::Adapter,
    hw::Hw,
    nvm::{Phy, SwFw},
    regs::{
        CTRL, CTRL_SPEED_10, CTRL_SPEED_100, EEER, FCAH, FCAL, FCRTH, FCRTL, FCT, FCTTV,
        FLOW_CONTROL_ADDRESS_HIGH, FLOW_CONTROL_ADDRESS_LOW, FLOW_CONTROL_TYPE, IPCNFG, MANC, MDIC,
        MDIC_OP_READ, MDIC_OP_WRITE, PHPM, STATUS,
    },
};

/// The PHY address on MDIC (`igc_phy.c` uses 1).
const PHY_ADDR: u8 = 1;
/// How long CTRL.PHY_RST is held (`phy->reset_delay_us` of `igc_init_phy_params`).
const PHY_RESET_DELAY_US: i64 = 100;

/// The PHY registers and bits used here, from the kernel's `mii.h` and `mdio.h`.
mod reg {
    use kernel::uapi;

    pub(super) const BMCR: u8 = uapi::MII_BMCR as u8;
    pub(super) const BMSR: u8 = uapi::MII_BMSR as u8;
    pub(super) const ANAR: u8 = uapi::MII_ADVERTISE as u8;
    pub(super) const ANLPAR: u8 = uapi::MII_LPA as u8;
    pub(super) const GBCR: u8 = uapi::MII_CTRL1000 as u8;
    pub(super) const MMDAC: u8 = uapi::MII_MMD_CTRL as u8;
    pub(super) const MMDAAD: u8 = uapi::MII_MMD_DATA as u8;
    pub(super) const MMD_CTRL_NOINCR: u16 = uapi::MII_MMD_CTRL_NOINCR as u16;
    pub(super) const BMCR_AN_ENABLE: u16 = uapi::BMCR_ANENABLE as u16;
    pub(super) const BMCR_PDOWN: u16 = uapi::BMCR_PDOWN as u16;
    pub(super) const BMCR_RESTART_AN: u16 = uapi::BMCR_ANRESTART as u16;
    pub(super) const BMCR_SPEED100: u16 = uapi::BMCR_SPEED100 as u16;
    pub(super) const BMCR_SPEED1000: u16 = uapi::BMCR_SPEED1000 as u16;
    pub(super) const BMCR_FULLDPLX: u16 = uapi::BMCR_FULLDPLX as u16;
    pub(super) const BMSR_AN_COMPLETE: u16 = uapi::BMSR_ANEGCOMPLETE as u16;
    pub(super) const ANAR_PAUSE: u16 = uapi::ADVERTISE_PAUSE_CAP as u16;
    pub(super) const ANAR_ASM_DIR: u16 = uapi::ADVERTISE_PAUSE_ASYM as u16;
    pub(super) const LPA_PAUSE: u16 = uapi::LPA_PAUSE_CAP as u16;
    pub(super) const LPA_ASM_DIR: u16 = uapi::LPA_PAUSE_ASYM as u16;
    pub(super) const ANAR_10HD: u16 = uapi::ADVERTISE_10HALF as u16;
    pub(super) const ANAR_10FD: u16 = uapi::ADVERTISE_10FULL as u16;
    pub(super) const ANAR_100HD: u16 = uapi::ADVERTISE_100HALF as u16;
    pub(super) const ANAR_100FD: u16 = uapi::ADVERTISE_100FULL as u16;
    pub(super) const GBCR_1000HD: u16 = uapi::ADVERTISE_1000HALF as u16;
    pub(super) const GBCR_1000FD: u16 = uapi::ADVERTISE_1000FULL as u16;
    /// MMD 7 (autonegotiation), multi-gigabit control: 2.5GBASE-T advertisement.
    pub(super) const MMD_AN: u16 = uapi::MDIO_MMD_AN as u16;
    pub(super) const MMD_AN_MGBT_CTRL: u16 = uapi::MDIO_AN_10GBT_CTRL as u16;
    pub(super) const MGBT_2500FD: u16 = uapi::MDIO_AN_10GBT_CTRL_ADV2_5G as u16;
    /// MMD 7 EEE advertisement and link partner ability, 100/1000 (7.60, 7.61) and 2.5G (7.62,
    /// 7.63), which `igc_ethtool_get_eee` reads.
    pub(super) const MMD_AN_EEE_ADV: u16 = uapi::MDIO_AN_EEE_ADV as u16;
    pub(super) const MMD_AN_EEE_LPABLE: u16 = uapi::MDIO_AN_EEE_LPABLE as u16;
    pub(super) const MMD_AN_EEE_ADV2: u16 = uapi::MDIO_AN_EEE_ADV2 as u16;
    pub(super) const MMD_AN_EEE_LPABLE2: u16 = uapi::MDIO_AN_EEE_LPABLE2 as u16;
    pub(super) const EEE_100TX: u16 = uapi::MDIO_EEE_100TX as u16;
    pub(super) const EEE_1000T: u16 = uapi::MDIO_EEE_1000T as u16;
    pub(super) const EEE_2_5GT: u16 = uapi::MDIO_EEE_2_5GT as u16;
    /// The gPHY firmware version (`IGC_GPHY_VERSION`, vendor-specific).
    pub(super) const GPHY_VERSION: u8 = 0x1E;
}

/// A resolved link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Link {
    pub(crate) mbps: u32,
    pub(crate) full_duplex: bool,
}

impl Hw {
    /// One MDIC access: starts `cmd` and waits for it (`igc_read_phy_reg_mdic`: up to 1920
    /// polls 50 us apart, busy-waiting as igc does).
    fn mdic(&self, _phy: &SwFw<'_, Phy>, cmd: MDIC) -> Result<MDIC> {
        self.write_reg(cmd);
        let v = read_poll_timeout_atomic(
            || Ok(self.read(MDIC)),
            |v: &MDIC| v.into_raw() == u32::MAX || v.ready(),
            Delta::from_micros(50),
            1920,
        )?;
        if v.into_raw() == u32::MAX {
            Err(ENODEV)
        } else if v.error() {
            Err(EIO)
        } else {
            Ok(v)
        }
    }

    /// The MDIC command for `reg` of the PHY.
    fn mdic_cmd(reg: u8) -> Result<MDIC> {
        Ok(MDIC::zeroed()
            .with_regadd(Bounded::try_new(u32::from(reg)).ok_or(EINVAL)?)
            .with_phyadd(Bounded::try_new(u32::from(PHY_ADDR)).ok_or(EINVAL)?))
    }

    /// Reads a clause 22 PHY register (`igc_read_phy_reg_mdic`).
    fn phy_read(&self, phy: &SwFw<'_, Phy>, reg: u8) -> Result<u16> {
        let cmd = Self::mdic_cmd(reg)?.with_const_op::<MDIC_OP_READ>();
        Ok(self.mdic(phy, cmd)?.data().get() as u16)
    }

    /// Writes a clause 22 PHY register (`igc_write_phy_reg_mdic`).
    fn phy_write(&self, phy: &SwFw<'_, Phy>, reg: u8, val: u16) -> Result {
        let cmd = Self::mdic_cmd(reg)?
            .with_data(val)
            .with_const_op::<MDIC_OP_WRITE>();
        self.mdic(phy, cmd).map(|_| ())
    }

    /// Reads-modifies-writes a clause 22 PHY register: the bits in `clear` cleared, those in
    /// `set` set, the others as the PHY has them (as `igc_phy_setup_autoneg` and
    /// `igc_copper_link_autoneg` do).
    fn phy_update(&self, phy: &SwFw<'_, Phy>, reg: u8, clear: u16, set: u16) -> Result {
        let v = self.phy_read(phy, reg)?;
        self.phy_write(phy, reg, (v & !clear) | set)
    }

    /// Reads or writes a clause 45 register through the clause 22 MMD access registers, and
    /// sets MMDAC back to 0 after, as `__igc_access_xmdio_reg` does ("recalibrate the device
    /// back to 0"), so that the next clause 22 access is not taken for MMD data.
    fn mmd_access(
        &self,
        phy: &SwFw<'_, Phy>,
        devad: u16,
        addr: u16,
        write: Option<u16>,
    ) -> Result<u16> {
        self.phy_write(phy, reg::MMDAC, devad)?;
        self.phy_write(phy, reg::MMDAAD, addr)?;
        self.phy_write(phy, reg::MMDAC, reg::MMD_CTRL_NOINCR | devad)?;
        let v = match write {
            Some(v) => self.phy_write(phy, reg::MMDAAD, v).map(|()| v)?,
            None => self.phy_read(phy, reg::MMDAAD)?,
        };
        self.phy_write(phy, reg::MMDAC, 0)?;
        Ok(v)
    }

    /// Advertises the given speeds (Mb/s, full duplex except where noted) and restarts
    /// autonegotiation (`igc_copper_link_autoneg`, `igc_phy_setup_autoneg`): each register
    /// read, its speed bits changed, written back, under the PHY's semaphore. Process context.
    fn advertise(&self, adv: Advertise, fc: FcMode) -> Result {
        let phy = self.swfw::<Phy>()?;
        // The PAUSE bits as `igc_phy_setup_autoneg` sets them: RX only is advertised as both
        // (there is no way to advertise it), and resolved down after the link is up.
        let mut anar = match fc {
            FcMode::None => 0,
            FcMode::TxPause => reg::ANAR_ASM_DIR,
            FcMode::RxPause | FcMode::Full => reg::ANAR_ASM_DIR | reg::ANAR_PAUSE,
        };
        if adv.m10_half {
            anar |= reg::ANAR_10HD;
        }
        if adv.m10 {
            anar |= reg::ANAR_10FD;
        }
        if adv.m100_half {
            anar |= reg::ANAR_100HD;
        }
        if adv.m100 {
            anar |= reg::ANAR_100FD;
        }
        let bits = reg::ANAR_10HD
            | reg::ANAR_10FD
            | reg::ANAR_100HD
            | reg::ANAR_100FD
            | reg::ANAR_PAUSE
            | reg::ANAR_ASM_DIR;
        self.phy_update(&phy, reg::ANAR, bits, anar)?;
        self.phy_update(
            &phy,
            reg::GBCR,
            reg::GBCR_1000HD | reg::GBCR_1000FD,
            if adv.m1000 { reg::GBCR_1000FD } else { 0 },
        )?;
        let mgbt = self.mmd_access(&phy, reg::MMD_AN, reg::MMD_AN_MGBT_CTRL, None)?;
        let mgbt = (mgbt & !reg::MGBT_2500FD) | if adv.m2500 { reg::MGBT_2500FD } else { 0 };
        self.mmd_access(&phy, reg::MMD_AN, reg::MMD_AN_MGBT_CTRL, Some(mgbt))?;
        self.phy_update(
            &phy,
            reg::BMCR,
            0,
            reg::BMCR_AN_ENABLE | reg::BMCR_RESTART_AN,
        )
    }

    /// The gPHY firmware version (`igc_read_phy_fw_version`), the second half of `ethtool -i`'s
    /// firmware version. Process context.
    pub(crate) fn phy_fw_version(&self) -> Result<u16> {
        let phy = self.swfw::<Phy>()?;
        self.phy_read(&phy, reg::GPHY_VERSION)
    }

    /// Whether the manageability firmware (AMT, a BMC on an LM part) uses the PHY and forbids
    /// the driver to reset it or power it down (`igc_check_reset_block`:
    /// MANC.BLK_PHY_RST_ON_IDE).
    pub(crate) fn phy_reset_blocked(&self) -> bool {
        // All ones: the device is gone, and nothing blocks anything.
        let manc = self.read(MANC);
        manc.into_raw() != u32::MAX && manc.blk_phy_rst_on_ide()
    }

    /// Resets the PHY (`igc_phy_hw_reset`): CTRL.PHY_RST for 100 us, then up to 10,000 polls
    /// 1 us apart for PHPM.RST_COMP; nothing when the firmware blocks it. Process context.
    pub(crate) fn phy_reset(&self) -> Result {
        if self.phy_reset_blocked() {
            return Ok(());
        }
        let _phy = self.swfw::<Phy>()?;
        let ctrl = self.read(CTRL);
        self.write_reg(ctrl.with_phy_rst(true));
        self.flush();
        fsleep(Delta::from_micros(PHY_RESET_DELAY_US));
        self.write_reg(ctrl);
        self.flush();
        // "SW should guarantee 100us for the completion of the PHY reset".
        fsleep(Delta::from_micros(100));
        let done = read_poll_timeout_atomic(
            || Ok(self.read(PHPM)),
            |p: &PHPM| p.into_raw() == u32::MAX || p.rst_comp(),
            Delta::from_micros(1),
            10_000,
        );
        if done.is_err() {
            pr_debug!("rigc: Timeout is expired after a phy reset\n");
        }
        fsleep(Delta::from_micros(100));
        Ok(())
    }

    /// Powers the PHY up or down (`igc_power_up_phy_copper`, `igc_power_down_phy_copper_base`): it
    /// keeps its settings; powered down, it has no link, and the link partner sees none. igc
    /// powers it down whenever the interface is not running, unless the firmware forbids it
    /// ([`Hw::phy_reset_blocked`]): it keeps its link for the management engine then. Process
    /// context.
    pub(crate) fn phy_power(&self, up: bool) -> Result {
        if !up && self.phy_reset_blocked() {
            return Ok(());
        }
        let phy = self.swfw::<Phy>()?;
        if up {
            self.phy_update(&phy, reg::BMCR, reg::BMCR_PDOWN, 0)
        } else {
            self.phy_update(&phy, reg::BMCR, 0, reg::BMCR_PDOWN)?;
            drop(phy);
            fsleep(Delta::from_millis(1));
            Ok(())
        }
    }

    /// Forces speed and duplex in the PHY, autonegotiation off (`igc_force_speed_duplex`).
    fn force_speed_duplex(&self, forced: Forced) -> Result {
        let phy = self.swfw::<Phy>()?;
        let mut set = if forced.mbps == 100 {
            reg::BMCR_SPEED100
        } else {
            0
        };
        if forced.full_duplex {
            set |= reg::BMCR_FULLDPLX;
        }
        self.phy_update(
            &phy,
            reg::BMCR,
            reg::BMCR_SPEED100
                | reg::BMCR_SPEED1000
                | reg::BMCR_FULLDPLX
                | reg::BMCR_AN_ENABLE
                | reg::BMCR_RESTART_AN,
            set,
        )
    }

    /// Sets the link up as `lc` asks (`igc_setup_link`, `igc_setup_copper_link_base`): the MAC's
    /// forced speed bits, then the PHY's advertisement (with the PAUSE bits of the flow
    /// control asked for) and a new autonegotiation, or its forced speed; then the flow control
    /// registers, PAUSE frame address, type, pause time and the receive thresholds, for a
    /// frame of `max_frame` bytes (`igc_reset`, `igc_set_fc_watermarks`). CTRL.RFCE/TFCE are
    /// set once the link is up, from what was negotiated ([`Hw::config_fc_after_link_up`]).
    /// Nothing while the firmware blocks PHY resets: "we already have a link" (`igc_setup_link`).
    /// Process context.
    pub(crate) fn setup_link(&self, lc: &LinkConfig, max_frame: u32) -> Result {
        if self.phy_reset_blocked() {
            return Ok(());
        }
        let ctrl = self
            .read(CTRL)
            .with_frcspd(false)
            .with_frcdpx(false)
            .with_fd(false);
        let ctrl = ctrl.with_speed(Bounded::try_new(CTRL_SPEED_10).ok_or(EINVAL)?);
        match lc.forced {
            None => {
                self.write_reg(ctrl.with_slu(true));
                self.advertise(lc.advertise, lc.fc)?;
            }
            Some(f) => {
                let speed = if f.mbps == 100 {
                    CTRL_SPEED_100
                } else {
                    CTRL_SPEED_10
                };
                self.write_reg(
                    ctrl.with_slu(true)
                        .with_frcspd(true)
                        .with_frcdpx(true)
                        .with_fd(f.full_duplex)
                        .with_speed(Bounded::try_new(speed).ok_or(EINVAL)?),
                );
                self.force_speed_duplex(f)?;
            }
        }
        self.write_reg(FCT::zeroed().with_const_ethertype::<FLOW_CONTROL_TYPE>());
        self.write_reg(FCAH::zeroed().with_const_addr::<FLOW_CONTROL_ADDRESS_HIGH>());
        self.write_reg(FCAL::zeroed().with_addr(FLOW_CONTROL_ADDRESS_LOW));
        self.write_reg(FCTTV::zeroed().with_const_ttv::<PAUSE_TIME>());
        self.set_fc_watermarks(lc.fc, max_frame)
    }

    /// Programs the flow control receive thresholds for frames of `max_frame` bytes, with XON,
    /// or none when `fc` sends no PAUSE frames (`igc_set_fc_watermarks`). A change of MTU calls
    /// it too, under the RTNL as a reset: igc's goes through `igc_reset`, which computes them.
    pub(crate) fn set_fc_watermarks(&self, fc: FcMode, max_frame: u32) -> Result {
        let (high, low) = match fc {
            FcMode::TxPause | FcMode::Full => fc_watermarks(max_frame),
            FcMode::None | FcMode::RxPause => (0, 0),
        };
        let xon = high > 0;
        self.write_reg(FCRTL::zeroed().with_xone(xon).try_with_rtl(low >> 4)?);
        self.write_reg(FCRTH::zeroed().try_with_rth(high >> 4)?);
        Ok(())
    }

    /// Resolves flow control once the link is up (`igc_config_fc_after_link_up`): from the
    /// PAUSE bits both ends advertised (IEEE 802.3 annex 28B), none at half duplex, the
    /// request itself with a forced link; then sets the MAC to it ([`Hw::force_mac_fc`]).
    /// `None` if autonegotiation has not completed yet (nothing is changed then). Process
    /// context.
    pub(crate) fn config_fc_after_link_up(&self, lc: &LinkConfig) -> Result<Option<FcMode>> {
        let mode = match lc.forced {
            Some(f) if !f.full_duplex => FcMode::None,
            Some(_) => lc.fc,
            None => {
                let phy = self.swfw::<Phy>()?;
                // Twice: the register latches some of its bits.
                let _ = self.phy_read(&phy, reg::BMSR)?;
                if self.phy_read(&phy, reg::BMSR)? & reg::BMSR_AN_COMPLETE == 0 {
                    return Ok(None);
                }
                let anar = self.phy_read(&phy, reg::ANAR)?;
                let lpa = self.phy_read(&phy, reg::ANLPAR)?;
                drop(phy);
                let full = self.link().is_some_and(|l| l.full_duplex);
                if full {
                    resolve_fc(anar, lpa, lc.fc)
                } else {
                    FcMode::None
                }
            }
        };
        self.force_mac_fc(mode);
        Ok(Some(mode))
    }

    /// The flow control the MAC does, from CTRL.RFCE and TFCE (as igc's link message reads it).
    pub(crate) fn mac_fc(&self) -> FcMode {
        let c = self.read(CTRL);
        FcMode::from_rx_tx(c.rfce(), c.tfce())
    }

    /// Sets CTRL.RFCE and TFCE to `mode` (`igc_force_mac_fc`): with a copper PHY the MAC does
    /// not learn the negotiated flow control by itself.
    pub(crate) fn force_mac_fc(&self, mode: FcMode) {
        self.update(CTRL, |c: CTRL| {
            c.with_rfce(matches!(mode, FcMode::RxPause | FcMode::Full))
                .with_tfce(matches!(mode, FcMode::TxPause | FcMode::Full))
        });
    }

    /// Turns Energy Efficient Ethernet on or off (`igc_set_eee_i225`: advertised at 100M, 1G and
    /// 2.5G, with low-power idle, or none of it). igc turns it off at probe and every reset
    /// restores the setting; `ethtool --set-eee` changes it. LPI adds wake-up latency to the
    /// first frame after idle, which a PTP timestamp taken at the MAC does not see.
    pub(crate) fn set_eee(&self, on: bool) {
        self.update(IPCNFG, |c: IPCNFG| {
            c.with_eee_100m_an(on)
                .with_eee_1g_an(on)
                .with_eee_2_5g_an(on)
        });
        self.update(EEER, |e: EEER| {
            e.with_tx_lpi_en(on).with_rx_lpi_en(on).with_lpi_fc(on)
        });
        let _ = self.read(IPCNFG);
        let _ = self.read(EEER);
    }

    /// The EEE state as `igc_ethtool_get_eee` reads it: the speeds the PHY advertises EEE at
    /// and those the link partner does (MMD 7.60-7.63), whether it was negotiated and whether
    /// LPI is on (EEER). Process context.
    pub(crate) fn eee_state(&self) -> Result<EeeState> {
        let phy = self.swfw::<Phy>()?;
        let adv = self.mmd_access(&phy, reg::MMD_AN, reg::MMD_AN_EEE_ADV, None)?;
        let adv2 = self.mmd_access(&phy, reg::MMD_AN, reg::MMD_AN_EEE_ADV2, None)?;
        let lp = self.mmd_access(&phy, reg::MMD_AN, reg::MMD_AN_EEE_LPABLE, None)?;
        let lp2 = self.mmd_access(&phy, reg::MMD_AN, reg::MMD_AN_EEE_LPABLE2, None)?;
        drop(phy);
        let eeer = self.read(EEER);
        let speeds = |v: u16, v2: u16| EeeSpeeds {
            m100: v & reg::EEE_100TX != 0,
            m1000: v & reg::EEE_1000T != 0,
            m2500: v2 & reg::EEE_2_5GT != 0,
        };
        Ok(EeeState {
            advertised: speeds(adv, adv2),
            lp_advertised: speeds(lp, lp2),
            active: eeer.eee_neg(),
            tx_lpi: eeer.tx_lpi_en(),
        })
    }

    /// Returns the link as the MAC resolved it (STATUS), or `None` if it is down.
    pub(crate) fn link(&self) -> Option<Link> {
        let s = self.read(STATUS);
        if s.into_raw() == u32::MAX || !s.lu() {
            return None;
        }
        Some(Link {
            mbps: s.speed().mbps(),
            full_duplex: s.fd(),
        })
    }
}

/// The pause time sent in XOFF frames (`fc->pause_time`), the largest.
const PAUSE_TIME: u32 = 0xFFFF;

/// The flow control receive thresholds, high and low, in bytes, for frames of `max_frame`
/// bytes (`igc_reset`): the 34 KiB receive buffer less one frame being received and one
/// jumbo frame being sent after the XOFF, on 16 bytes.
pub(crate) fn fc_watermarks(max_frame: u32) -> (u32, u32) {
    const PBA_BYTES: u32 = 34 << 10;
    const MAX_JUMBO_FRAME_SIZE: u32 = 0x2600;
    let high = PBA_BYTES.saturating_sub(max_frame + MAX_JUMBO_FRAME_SIZE) & !0xF;
    (high, high.saturating_sub(16))
}

/// The flow control both ends' PAUSE bits give (`igc_config_fc_after_link_up`, after IEEE 802.3
/// annex 28B): `anar` ours, `lpa` the link partner's, `requested` what we asked for.
pub(crate) fn resolve_fc(anar: u16, lpa: u16, requested: FcMode) -> FcMode {
    let (pause, asm) = (anar & reg::ANAR_PAUSE != 0, anar & reg::ANAR_ASM_DIR != 0);
    let (lp_pause, lp_asm) = (lpa & reg::LPA_PAUSE != 0, lpa & reg::LPA_ASM_DIR != 0);
    if pause && lp_pause {
        if requested == FcMode::Full {
            FcMode::Full
        } else {
            FcMode::RxPause
        }
    } else if !pause && asm && lp_pause && lp_asm {
        FcMode::TxPause
    } else if pause && asm && !lp_pause && lp_asm {
        FcMode::RxPause
    } else if matches!(requested, FcMode::None | FcMode::TxPause) {
        FcMode::None
    } else {
        // A link partner that advertises nothing may still send PAUSE frames: obeying them
        // does no harm (igc's comment: "predominantly a server NIC").
        FcMode::RxPause
    }
}

/// Flow control (`enum igc_fc_mode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum FcMode {
    /// No PAUSE frames sent or obeyed.
    None,
    /// PAUSE frames received are obeyed.
    RxPause,
    /// PAUSE frames are sent.
    TxPause,
    /// Both; igc's default.
    #[default]
    Full,
}

impl FcMode {
    /// From `ethtool -A`'s RX and TX.
    pub(crate) fn from_rx_tx(rx: bool, tx: bool) -> Self {
        match (rx, tx) {
            (true, true) => Self::Full,
            (true, false) => Self::RxPause,
            (false, true) => Self::TxPause,
            (false, false) => Self::None,
        }
    }

    pub(crate) fn rx(self) -> bool {
        matches!(self, Self::RxPause | Self::Full)
    }

    pub(crate) fn tx(self) -> bool {
        matches!(self, Self::TxPause | Self::Full)
    }

    /// As igc's link message names it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::None => "None",
            Self::RxPause => "RX",
            Self::TxPause => "TX",
            Self::Full => "RX/TX",
        }
    }

    pub(crate) fn to_raw(self) -> u32 {
        self as u32
    }

    pub(crate) fn from_raw(v: u32) -> Self {
        match v {
            0 => Self::None,
            1 => Self::RxPause,
            2 => Self::TxPause,
            _ => Self::Full,
        }
    }
}

/// A forced link: 10 or 100 Mb/s, half or full duplex (`igc_forced_speed_duplex`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Forced {
    pub(crate) mbps: u32,
    pub(crate) full_duplex: bool,
}

/// The link settings the user chose (`hw->mac.autoneg_enabled`, `forced_speed_duplex`,
/// `hw->phy.autoneg_advertised`, `hw->fc.requested_mode`, `adapter->fc_autoneg`,
/// `hw->phy.mdix`, `eee_enable`), kept across resets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LinkConfig {
    /// `None`: autonegotiation with `advertise`.
    pub(crate) forced: Option<Forced>,
    pub(crate) advertise: Advertise,
    /// The flow control asked for.
    pub(crate) fc: FcMode,
    /// Flow control follows the negotiation (`ethtool -A DEV autoneg on`).
    pub(crate) fc_autoneg: bool,
    /// The MDI/MDI-X control asked for (`ethtool -s DEV mdix`): stored and reported, as igc
    /// does; neither driver programs it, the PHY crosses over by itself.
    pub(crate) mdix: Mdix,
    pub(crate) eee: bool,
}

impl LinkConfig {
    /// As igc starts: every speed advertised, full flow control negotiated, automatic
    /// crossover, EEE off.
    pub(crate) const DEFAULT: Self = Self {
        forced: None,
        advertise: Advertise::ALL,
        fc: FcMode::Full,
        fc_autoneg: true,
        mdix: Mdix::Auto,
        eee: false,
    };
}

#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct EeeSpeeds {
    pub(crate) m100: bool,
    pub(crate) m1000: bool,
    pub(crate) m2500: bool,
}

/// EEE as the hardware has it: the speeds advertised by each end, negotiated, LPI on.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct EeeState {
    pub(crate) advertised: EeeSpeeds,
    pub(crate) lp_advertised: EeeSpeeds,
    pub(crate) active: bool,
    pub(crate) tx_lpi: bool,
}

/// Speeds to advertise (`hw->phy.autoneg_advertised`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Advertise {
    pub(crate) m10_half: bool,
    pub(crate) m10: bool,
    pub(crate) m100_half: bool,
    pub(crate) m100: bool,
    pub(crate) m1000: bool,
    pub(crate) m2500: bool,
}

impl Advertise {
    /// Everything the I225 supports (`IGC_ALL_SPEED_DUPLEX_2500`).
    pub(crate) const ALL: Self = Self {
        m10_half: true,
        m10: true,
        m100_half: true,
        m100: true,
        m1000: true,
        m2500: true,
    };

    /// Returns whether nothing is advertised.
    pub(crate) fn is_empty(self) -> bool {
        self == Self::default()
    }
}

impl Adapter {
    /// Reports a link change (from the link task the link interrupt queues, the watchdog, or
    /// bringing the interface up): the flow control negotiated when the link comes up, or
    /// whenever the link interrupt said it changed (`lsc`: a new negotiation may have come and
    /// gone between two looks), the carrier, and a log line as igc prints it
    /// (`igc_watchdog_task`, `igc_check_for_copper_link`). Process context.
    pub(crate) fn link_changed(&self, dev: &Device, lc: &LinkConfig, lsc: bool) {
        let link = self.hw.link();
        let mbps = link.map_or(0, |l| l.mbps);
        let old = self.link_mbps.load(Relaxed);
        self.link_mbps.store(mbps, Relaxed);
        match link {
            Some(l) => {
                let changed = !dev.carrier_ok() || old != l.mbps;
                if changed || lsc {
                    match self.hw.config_fc_after_link_up(lc) {
                        Ok(Some(fc)) => self.fc_current.store(fc.to_raw(), Relaxed),
                        Ok(None) => {}
                        Err(e) => netdev_err!(dev, "Error configuring flow control ({:?})\n", e),
                    }
                }
                if changed {
                    netdev_info!(
                        dev,
                        "NIC Link is Up {} Mbps {} Duplex, Flow Control: {}\n",
                        l.mbps,
                        if l.full_duplex { "Full" } else { "Half" },
                        self.hw.mac_fc().name()
                    );
                }
                dev.carrier_on();
            }
            None => {
                if dev.carrier_ok() {
                    netdev_info!(dev, "NIC Link is Down\n");
                }
                dev.carrier_off();
            }
        }
    }
}

#[cfg(CONFIG_RIGC_KUNIT_TEST)]
#[kernel::prelude::kunit_tests(rigc_phy)]
mod tests {
    use super::*;

    /// The PAUSE bits `advertise` sends for a requested mode.
    fn anar_of(fc: FcMode) -> u16 {
        match fc {
            FcMode::None => 0,
            FcMode::TxPause => reg::ANAR_ASM_DIR,
            FcMode::RxPause | FcMode::Full => reg::ANAR_PAUSE | reg::ANAR_ASM_DIR,
        }
    }

    #[test]
    fn flow_control_resolves_as_igc() {
        use FcMode::{Full as F, None as N, RxPause as R, TxPause as T};
        // `igc_config_fc_after_link_up`, each request against a partner advertising PAUSE and
        // ASM_DIR, PAUSE, ASM_DIR, nothing (igc still obeys PAUSE frames if it asked to).
        let lpas = [
            reg::LPA_PAUSE | reg::LPA_ASM_DIR,
            reg::LPA_PAUSE,
            reg::LPA_ASM_DIR,
            0,
        ];
        let want = [
            (F, [F, F, R, R]),
            (R, [R, R, R, R]),
            (T, [T, N, N, N]),
            (N, [N, N, N, N]),
        ];
        for (requested, modes) in want {
            let mut got = [N; 4];
            for (g, lpa) in got.iter_mut().zip(lpas) {
                *g = resolve_fc(anar_of(requested), lpa, requested);
            }
            assert_eq!(got, modes);
        }
    }

    #[test]
    fn flow_control_thresholds_as_igc() {
        // `igc_reset` at MTU 1500 (igc's FCRTH and FCRTL on the model) and at the largest MTU.
        assert_eq!(fc_watermarks(1500 + 22), (0x5c00, 0x5bf0));
        assert_eq!(fc_watermarks(9216 + 22), (0x3de0, 0x3dd0));
    }
}
