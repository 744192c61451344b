// SPDX-License-Identifier: GPL-2.0

//! The PHY (`igc_phy.c`): clause 22 and clause 45 registers through MDIC, the
//! advertisement, and the link as the MAC resolved it; the link's carrier and log line.

use kernel::{
    net::dev::Device,
    prelude::*,
    sync::atomic::Relaxed,
    time::{delay::udelay, Delta},
};

use crate::{
    adapter::Adapter,
    hw::Hw,
    regs::{bits, off},
};

/// The PHY address on MDIC (`igc_phy.c` uses 1).
const PHY_ADDR: u32 = 1;

/// Clause 22 PHY registers used here.
pub(crate) mod reg {
    pub(crate) const BMCR: u32 = 0x00;
    pub(crate) const ANAR: u32 = 0x04;
    pub(crate) const GBCR: u32 = 0x09;
    pub(crate) const MMDAC: u32 = 0x0D;
    pub(crate) const MMDAAD: u32 = 0x0E;
    pub(crate) const BMCR_AN_ENABLE: u16 = 1 << 12;
    pub(crate) const BMCR_RESTART_AN: u16 = 1 << 9;
    pub(crate) const ANAR_SELECTOR: u16 = 0x0001;
    pub(crate) const ANAR_10HD: u16 = 1 << 5;
    pub(crate) const ANAR_10FD: u16 = 1 << 6;
    pub(crate) const ANAR_100HD: u16 = 1 << 7;
    pub(crate) const ANAR_100FD: u16 = 1 << 8;
    pub(crate) const GBCR_1000FD: u16 = 1 << 9;
    /// MMD 7 (autonegotiation), multi-gigabit control: 2.5GBASE-T advertisement.
    pub(crate) const MMD_AN: u16 = 7;
    pub(crate) const MMD_AN_MGBT_CTRL: u16 = 0x20;
    pub(crate) const MGBT_2500FD: u16 = 1 << 7;
}

/// A resolved link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Link {
    pub(crate) mbps: u32,
    pub(crate) full_duplex: bool,
}

impl Hw {
    fn mdic(&self, cmd: u32) -> Result<u32> {
        self.wr(off::MDIC, cmd);
        for _ in 0..1920 {
            udelay(Delta::from_micros(5));
            let v = self.rd(off::MDIC);
            if v == u32::MAX {
                return Err(ENODEV);
            }
            if v & bits::MDIC_READY != 0 {
                if v & bits::MDIC_ERROR != 0 {
                    return Err(EIO);
                }
                return Ok(v);
            }
        }
        Err(ETIMEDOUT)
    }

    /// Reads a clause 22 PHY register (`igc_read_phy_reg_mdic`).
    pub(crate) fn phy_read(&self, reg: u32) -> Result<u16> {
        let v = self.mdic(
            reg << bits::MDIC_REG_SHIFT | PHY_ADDR << bits::MDIC_PHY_SHIFT | bits::MDIC_OP_READ,
        )?;
        Ok(v as u16)
    }

    /// Writes a clause 22 PHY register (`igc_write_phy_reg_mdic`).
    pub(crate) fn phy_write(&self, reg: u32, val: u16) -> Result {
        self.mdic(
            u32::from(val)
                | reg << bits::MDIC_REG_SHIFT
                | PHY_ADDR << bits::MDIC_PHY_SHIFT
                | bits::MDIC_OP_WRITE,
        )
        .map(|_| ())
    }

    /// Writes a clause 45 register through the clause 22 MMD access registers.
    pub(crate) fn mmd_write(&self, devad: u16, addr: u16, val: u16) -> Result {
        self.phy_write(reg::MMDAC, devad)?;
        self.phy_write(reg::MMDAAD, addr)?;
        self.phy_write(reg::MMDAC, 0x4000 | devad)?;
        self.phy_write(reg::MMDAAD, val)
    }

    /// Reads a clause 45 register through the clause 22 MMD access registers.
    pub(crate) fn mmd_read(&self, devad: u16, addr: u16) -> Result<u16> {
        self.phy_write(reg::MMDAC, devad)?;
        self.phy_write(reg::MMDAAD, addr)?;
        self.phy_write(reg::MMDAC, 0x4000 | devad)?;
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
        let raw = self.rd(off::STATUS);
        let s = crate::regs::STATUS::from_raw(raw);
        if raw == u32::MAX || !s.lu() {
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
                    pr_info!(
                        "{}: NIC Link is Up {} Mbps {} Duplex\n",
                        dev.name(),
                        l.mbps,
                        if l.full_duplex { "Full" } else { "Half" }
                    );
                }
                dev.carrier_on();
            }
            None => {
                if dev.carrier_ok() {
                    pr_info!("{}: NIC Link is Down\n", dev.name());
                }
                dev.carrier_off();
            }
        }
    }
}
