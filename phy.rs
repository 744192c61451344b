// SPDX-License-Identifier: GPL-2.0

//! The PHY (`igc_phy.c`): clause 22 and clause 45 registers through MDIC, the
//! advertisement, and the link as the MAC resolved it; the link's carrier and log line.

use kernel::{
    io::poll::read_poll_timeout_atomic, net::dev::Device, netdev_info, num::Bounded, prelude::*,
    sync::atomic::Relaxed, time::Delta,
};

use crate::{
    adapter::Adapter,
    hw::Hw,
    regs::{MDIC, MDIC_OP_READ, MDIC_OP_WRITE, STATUS},
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
    pub(super) const BMCR_RESTART_AN: u16 = uapi::BMCR_ANRESTART as u16;
    pub(super) const ANAR_SELECTOR: u16 = uapi::ADVERTISE_CSMA as u16;
    pub(super) const ANAR_10HD: u16 = uapi::ADVERTISE_10HALF as u16;
    pub(super) const ANAR_10FD: u16 = uapi::ADVERTISE_10FULL as u16;
    pub(super) const ANAR_100HD: u16 = uapi::ADVERTISE_100HALF as u16;
    pub(super) const ANAR_100FD: u16 = uapi::ADVERTISE_100FULL as u16;
    pub(super) const GBCR_1000FD: u16 = uapi::ADVERTISE_1000FULL as u16;
    /// MMD 7 (autonegotiation), multi-gigabit control: 2.5GBASE-T advertisement.
    pub(super) const MMD_AN: u16 = uapi::MDIO_MMD_AN as u16;
    pub(super) const MMD_AN_MGBT_CTRL: u16 = uapi::MDIO_AN_10GBT_CTRL as u16;
    pub(super) const MGBT_2500FD: u16 = uapi::MDIO_AN_10GBT_CTRL_ADV2_5G as u16;
}

/// A resolved link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Link {
    pub(crate) mbps: u32,
    pub(crate) full_duplex: bool,
}

impl Hw {
    /// One MDIC access: starts `cmd` and waits for it (`igc_read_phy_reg_mdic`: up to 1920
    /// polls 5 us apart, busy-waiting as igc does).
    fn mdic(&self, cmd: MDIC) -> Result<MDIC> {
        self.write_reg(cmd);
        let v = read_poll_timeout_atomic(
            || Ok(self.read(MDIC)),
            |v: &MDIC| v.into_raw() == u32::MAX || v.ready(),
            Delta::from_micros(5),
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
    fn phy_read(&self, reg: u8) -> Result<u16> {
        let cmd = Self::mdic_cmd(reg)?.with_const_op::<MDIC_OP_READ>();
        Ok(self.mdic(cmd)?.data().get() as u16)
    }

    /// Writes a clause 22 PHY register (`igc_write_phy_reg_mdic`).
    fn phy_write(&self, reg: u8, val: u16) -> Result {
        let cmd = Self::mdic_cmd(reg)?
            .with_data(val)
            .with_const_op::<MDIC_OP_WRITE>();
        self.mdic(cmd).map(|_| ())
    }

    /// Writes a clause 45 register through the clause 22 MMD access registers.
    fn mmd_write(&self, devad: u16, addr: u16, val: u16) -> Result {
        self.phy_write(reg::MMDAC, devad)?;
        self.phy_write(reg::MMDAAD, addr)?;
        self.phy_write(reg::MMDAC, reg::MMD_CTRL_NOINCR | devad)?;
        self.phy_write(reg::MMDAAD, val)
    }

    /// Reads a clause 45 register through the clause 22 MMD access registers.
    fn mmd_read(&self, devad: u16, addr: u16) -> Result<u16> {
        self.phy_write(reg::MMDAC, devad)?;
        self.phy_write(reg::MMDAAD, addr)?;
        self.phy_write(reg::MMDAC, reg::MMD_CTRL_NOINCR | devad)?;
        self.phy_read(reg::MMDAAD)
    }

    /// Advertises the given speeds (Mb/s, full duplex except where noted) and restarts
    /// autonegotiation (`igc_copper_link_autoneg`).
    pub(crate) fn advertise(&self, adv: Advertise) -> Result {
        let mut anar = reg::ANAR_SELECTOR;
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
        self.phy_write(reg::ANAR, anar)?;
        self.phy_write(reg::GBCR, if adv.m1000 { reg::GBCR_1000FD } else { 0 })?;
        self.mmd_write(
            reg::MMD_AN,
            reg::MMD_AN_MGBT_CTRL,
            if adv.m2500 { reg::MGBT_2500FD } else { 0 },
        )?;
        self.phy_write(reg::BMCR, reg::BMCR_AN_ENABLE | reg::BMCR_RESTART_AN)
    }

    /// Reads the advertised modes back from the PHY.
    pub(crate) fn advertised(&self) -> Result<Advertise> {
        let anar = self.phy_read(reg::ANAR)?;
        let gbcr = self.phy_read(reg::GBCR)?;
        let mgbt = self.mmd_read(reg::MMD_AN, reg::MMD_AN_MGBT_CTRL)?;
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
