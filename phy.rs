// SPDX-License-Identifier: GPL-2.0

//! The PHY (`igc_phy.c`): clause 22 and clause 45 registers through MDIC under the
//! semaphore shared with the firmware, the advertisement, power and EEE, and the link as the
//! MAC resolved it; the link's carrier and log line.

use kernel::{
    io::poll::read_poll_timeout_atomic,
    net::dev::Device,
    netdev_info,
    num::Bounded,
    prelude::*,
    sync::atomic::Relaxed,
    time::{delay::fsleep, Delta},
};

use crate::{
    adapter::Adapter,
    hw::Hw,
    nvm::{Phy, SwFw},
    regs::{EEER, IPCNFG, MDIC, MDIC_OP_READ, MDIC_OP_WRITE, STATUS},
};

/// The PHY address on MDIC (`igc_phy.c` uses 1).
const PHY_ADDR: u8 = 1;

/// The PHY registers and bits used here, from the kernel's `mii.h` and `mdio.h`.
mod reg {
    use kernel::uapi;

    pub(super) const BMCR: u8 = uapi::MII_BMCR as u8;
    pub(super) const ANAR: u8 = uapi::MII_ADVERTISE as u8;
    pub(super) const GBCR: u8 = uapi::MII_CTRL1000 as u8;
    pub(super) const MMDAC: u8 = uapi::MII_MMD_CTRL as u8;
    pub(super) const MMDAAD: u8 = uapi::MII_MMD_DATA as u8;
    pub(super) const MMD_CTRL_NOINCR: u16 = uapi::MII_MMD_CTRL_NOINCR as u16;
    pub(super) const BMCR_AN_ENABLE: u16 = uapi::BMCR_ANENABLE as u16;
    pub(super) const BMCR_PDOWN: u16 = uapi::BMCR_PDOWN as u16;
    pub(super) const BMCR_RESTART_AN: u16 = uapi::BMCR_ANRESTART as u16;
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
    pub(crate) fn advertise(&self, adv: Advertise) -> Result {
        let phy = self.swfw::<Phy>()?;
        let mut anar = 0;
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
        let speeds = reg::ANAR_10HD | reg::ANAR_10FD | reg::ANAR_100HD | reg::ANAR_100FD;
        self.phy_update(&phy, reg::ANAR, speeds, anar)?;
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

    /// Powers the PHY up or down (`igc_power_up_phy_copper`, `igc_power_down_phy_copper`): it
    /// keeps its settings; powered down, it has no link, and the link partner sees none. igc
    /// powers it down whenever the interface is not running. Process context.
    pub(crate) fn phy_power(&self, up: bool) -> Result {
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

    /// Turns Energy Efficient Ethernet off (`igc_set_eee_i225` with `eee_enable` false, as
    /// `igc_probe` leaves it and every reset restores it): no EEE advertised at any speed, no
    /// low-power idle. LPI adds wake-up latency to the first frame after idle, which a PTP
    /// timestamp taken at the MAC does not see.
    pub(crate) fn eee_off(&self) {
        self.update(IPCNFG, |c: IPCNFG| {
            c.with_eee_100m_an(false)
                .with_eee_1g_an(false)
                .with_eee_2_5g_an(false)
        });
        self.update(EEER, |e: EEER| {
            e.with_tx_lpi_en(false)
                .with_rx_lpi_en(false)
                .with_lpi_fc(false)
        });
        let _ = self.read(IPCNFG);
        let _ = self.read(EEER);
    }

    /// Reads the advertised modes back from the PHY. Process context.
    pub(crate) fn advertised(&self) -> Result<Advertise> {
        let phy = self.swfw::<Phy>()?;
        let anar = self.phy_read(&phy, reg::ANAR)?;
        let gbcr = self.phy_read(&phy, reg::GBCR)?;
        let mgbt = self.mmd_access(&phy, reg::MMD_AN, reg::MMD_AN_MGBT_CTRL, None)?;
        Ok(Advertise {
            m10_half: anar & reg::ANAR_10HD != 0,
            m10: anar & reg::ANAR_10FD != 0,
            m100_half: anar & reg::ANAR_100HD != 0,
            m100: anar & reg::ANAR_100FD != 0,
            m1000: gbcr & reg::GBCR_1000FD != 0,
            m2500: mgbt & reg::MGBT_2500FD != 0,
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
    /// Reports a link change (from the link interrupt or the watchdog): carrier and a log line
    /// as igc prints it. Any context.
    pub(crate) fn link_changed(&self, dev: &Device) {
        let link = self.hw.link();
        let mbps = link.map_or(0, |l| l.mbps);
        let old = self.link_mbps.load(Relaxed);
        self.link_mbps.store(mbps, Relaxed);
        match link {
            Some(l) => {
                if !dev.carrier_ok() || old != l.mbps {
                    netdev_info!(
                        dev,
                        "NIC Link is Up {} Mbps {} Duplex\n",
                        l.mbps,
                        if l.full_duplex { "Full" } else { "Half" }
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
