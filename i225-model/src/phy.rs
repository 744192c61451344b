// SPDX-License-Identifier: GPL-2.0

//! The internal 2.5G copper PHY (an Intel/MaxLinear GPY211 as the igc driver
//! sees it), reached through MDIC.
//!
//! Autonegotiation completes instantly: the resolved link is the best mode
//! both this PHY and its link partner advertise. Link status in BMSR is
//! latched low, as IEEE 802.3 clause 22 requires: a link drop is reported by
//! the next BMSR read even if the link is already back.
//!
//! With autonegotiation off (BMCR.AN_ENABLE clear, igc_force_speed_duplex)
//! the PHY forces one mode, and each end of the cable resolves against what
//! the other shows it ([`Phy::offer`]), so that both agree on the speed:
//! - forced against autonegotiating: the autonegotiating end finds link
//!   pulses without an advertisement and detects the speed (parallel
//!   detection, IEEE 802.3 clause 28), 10 or 100 Mb/s only and only if it
//!   advertises that speed, always in half duplex; the forced end keeps its
//!   forced duplex (a duplex mismatch, as on copper);
//! - forced against forced: a link only at the same speed, each end in its
//!   own duplex;
//! - 1000BASE-T and 2.5GBASE-T need autonegotiation: a BMCR forcing 1000 Mb/s
//!   (or the reserved speed 11b) gives no link (igc forces only 10 and 100).

use std::collections::BTreeMap;

pub const BMCR: u8 = 0x00;
pub const BMSR: u8 = 0x01;
pub const PHYID1: u8 = 0x02;
pub const PHYID2: u8 = 0x03;
pub const ANAR: u8 = 0x04;
pub const ANLPAR: u8 = 0x05;
pub const ANER: u8 = 0x06;
pub const GBCR: u8 = 0x09;
pub const GBSR: u8 = 0x0A;
pub const MMDAC: u8 = 0x0D;
pub const MMDAAD: u8 = 0x0E;
pub const GBESR: u8 = 0x0F;
pub const FW_VERSION: u8 = 0x1E;

pub const PHY_ID1_VALUE: u16 = 0x67C9;
pub const PHY_ID2_VALUE: u16 = 0xDC00;
pub const FW_VERSION_VALUE: u16 = 0x8770;

/// MMD device 7 (autonegotiation) registers.
pub const MMD_AN: u8 = 7;
pub const MMD_AN_MGBT_CTRL: u16 = 0x20;
pub const MMD_AN_MGBT_STAT: u16 = 0x21;

pub mod bmcr {
    pub const SPEED_1000: u16 = 1 << 6;
    pub const DUPLEX: u16 = 1 << 8;
    pub const RESTART_AN: u16 = 1 << 9;
    pub const POWER_DOWN: u16 = 1 << 11;
    pub const AN_ENABLE: u16 = 1 << 12;
    pub const SPEED_100: u16 = 1 << 13;
    pub const RESET: u16 = 1 << 15;
}

pub mod bmsr {
    pub const LINK: u16 = 1 << 2;
    pub const AN_COMPLETE: u16 = 1 << 5;
    /// Ability bits: 100FD/HD, 10FD/HD, extended status, MF preamble
    /// suppression, AN ability, extended capabilities.
    pub const ABILITIES: u16 = 0x7949;
}

pub mod anar {
    pub const SELECTOR: u16 = 0x0001;
    pub const A10HD: u16 = 1 << 5;
    pub const A10FD: u16 = 1 << 6;
    pub const A100HD: u16 = 1 << 7;
    pub const A100FD: u16 = 1 << 8;
    pub const PAUSE: u16 = 1 << 10;
    pub const ASM_DIR: u16 = 1 << 11;
    pub const ACK: u16 = 1 << 14;
}

pub mod gbcr {
    pub const A1000FD: u16 = 1 << 9;
}

pub mod gbsr {
    pub const LP_1000FD: u16 = 1 << 11;
    pub const LOCAL_RX_OK: u16 = 1 << 13;
    pub const REMOTE_RX_OK: u16 = 1 << 12;
}

pub mod mgbt {
    pub const A2500FD: u16 = 1 << 7;
    pub const LP_2500: u16 = 1 << 5;
}

/// Link speed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Speed {
    M10,
    M100,
    M1000,
    M2500,
}

impl Speed {
    pub fn mbps(self) -> u32 {
        match self {
            Speed::M10 => 10,
            Speed::M100 => 100,
            Speed::M1000 => 1000,
            Speed::M2500 => 2500,
        }
    }

    pub fn from_mbps(mbps: u32) -> Option<Speed> {
        Some(match mbps {
            10 => Speed::M10,
            100 => Speed::M100,
            1000 => Speed::M1000,
            2500 => Speed::M2500,
            _ => return None,
        })
    }
}

/// A resolved link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Link {
    pub speed: Speed,
    pub full_duplex: bool,
}

/// A set of advertised modes (and pause bits), as a small bit set; or, with
/// [`Abilities::FORCED`], the one mode a PHY with autonegotiation off forces
/// (none for a forced speed that cannot link: 1000 Mb/s).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Abilities(pub u16);

impl Abilities {
    pub const HD10: u16 = 1 << 0;
    pub const FD10: u16 = 1 << 1;
    pub const HD100: u16 = 1 << 2;
    pub const FD100: u16 = 1 << 3;
    pub const FD1000: u16 = 1 << 4;
    pub const FD2500: u16 = 1 << 5;
    pub const PAUSE: u16 = 1 << 6;
    pub const ASM_DIR: u16 = 1 << 7;
    /// Autonegotiation is off: no advertisement, the mode bit is forced.
    pub const FORCED: u16 = 1 << 8;
    /// Every mode and both pause bits, autonegotiated.
    pub const ALL: Abilities = Abilities(0xFF);

    /// Every mode up to and including `max`, plus both pause bits.
    pub fn up_to(max: Speed) -> Abilities {
        let mut a = Self::PAUSE | Self::ASM_DIR | Self::HD10 | Self::FD10;
        if max >= Speed::M100 {
            a |= Self::HD100 | Self::FD100;
        }
        if max >= Speed::M1000 {
            a |= Self::FD1000;
        }
        if max >= Speed::M2500 {
            a |= Self::FD2500;
        }
        Abilities(a)
    }

    pub fn has(self, bit: u16) -> bool {
        self.0 & bit != 0
    }

    /// A PHY with autonegotiation off.
    pub fn forced(self) -> bool {
        self.has(Self::FORCED)
    }

    /// The forced mode of a forced PHY, if it is one a link can come up in (10 or 100 Mb/s).
    fn forced_mode(self) -> Option<(Speed, bool)> {
        [
            (Self::FD100, Speed::M100, true),
            (Self::HD100, Speed::M100, false),
            (Self::FD10, Speed::M10, true),
            (Self::HD10, Speed::M10, false),
        ]
        .into_iter()
        .find(|&(bit, _, _)| self.forced() && self.has(bit))
        .map(|(_, speed, full_duplex)| (speed, full_duplex))
    }

    /// An autonegotiating PHY advertises `speed` (10 or 100) in either duplex: parallel
    /// detection can bring the link up at it.
    fn detects(self, speed: Speed) -> bool {
        match speed {
            Speed::M10 => self.0 & (Self::HD10 | Self::FD10) != 0,
            Speed::M100 => self.0 & (Self::HD100 | Self::FD100) != 0,
            _ => false,
        }
    }

    /// The link a PHY showing `self` gets with a partner showing `theirs`
    /// (see the module comment for forced modes).
    pub fn link_with(self, theirs: Abilities) -> Option<Link> {
        match (self.forced(), theirs.forced()) {
            (false, false) => self.resolve(theirs),
            (true, _) => {
                let (speed, full_duplex) = self.forced_mode()?;
                let partner = if theirs.forced() {
                    theirs.forced_mode().is_some_and(|(s, _)| s == speed)
                } else {
                    theirs.detects(speed)
                };
                partner.then_some(Link { speed, full_duplex })
            }
            (false, true) => {
                let (speed, _) = theirs.forced_mode()?;
                self.detects(speed).then_some(Link { speed, full_duplex: false })
            }
        }
    }

    /// Best common mode of two advertisements, in 802.3 priority order.
    pub fn resolve(self, other: Abilities) -> Option<Link> {
        let common = self.0 & other.0;
        let table = [
            (Self::FD2500, Speed::M2500, true),
            (Self::FD1000, Speed::M1000, true),
            (Self::FD100, Speed::M100, true),
            (Self::HD100, Speed::M100, false),
            (Self::FD10, Speed::M10, true),
            (Self::HD10, Speed::M10, false),
        ];
        table.iter().find(|(bit, _, _)| common & bit != 0).map(|&(_, speed, full_duplex)| Link { speed, full_duplex })
    }
}

/// What the PHY knows about the far end of the cable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Partner {
    /// No cable, or the far end is powered down.
    Absent,
    /// A powered link partner advertising these modes.
    Present(Abilities),
}

#[derive(Clone, Debug)]
pub struct Phy {
    regs: [u16; 32],
    mmd: BTreeMap<(u8, u16), u16>,
    link: Option<Link>,
    partner: Partner,
    /// BMSR link status has been latched low by a link drop.
    link_latched_low: bool,
}

impl Default for Phy {
    fn default() -> Self {
        Self::new()
    }
}

impl Phy {
    pub fn new() -> Self {
        let mut phy =
            Phy { regs: [0; 32], mmd: BTreeMap::new(), link: None, partner: Partner::Absent, link_latched_low: false };
        phy.reset_registers();
        phy
    }

    /// Puts every register back to its power-on value. The link is
    /// re-resolved by the next `update_link`.
    pub fn reset_registers(&mut self) {
        self.regs = [0; 32];
        self.regs[BMCR as usize] = bmcr::AN_ENABLE | bmcr::DUPLEX | bmcr::SPEED_1000;
        self.regs[BMSR as usize] = bmsr::ABILITIES;
        self.regs[PHYID1 as usize] = PHY_ID1_VALUE;
        self.regs[PHYID2 as usize] = PHY_ID2_VALUE;
        self.regs[ANAR as usize] =
            anar::SELECTOR | anar::A10HD | anar::A10FD | anar::A100HD | anar::A100FD | anar::PAUSE | anar::ASM_DIR;
        self.regs[GBCR as usize] = gbcr::A1000FD;
        self.regs[GBESR as usize] = 0x2000; // 1000BASE-T FD capable
        self.regs[FW_VERSION as usize] = FW_VERSION_VALUE;
        self.mmd.clear();
        self.mmd.insert((MMD_AN, MMD_AN_MGBT_CTRL), mgbt::A2500FD);
    }

    /// A PHY reset (CTRL.PHY_RST or BMCR.RESET) drops the link.
    pub fn reset(&mut self) {
        self.reset_registers();
        self.set_link(None);
    }

    pub fn powered_down(&self) -> bool {
        self.regs[BMCR as usize] & bmcr::POWER_DOWN != 0
    }

    pub fn link(&self) -> Option<Link> {
        self.link
    }

    /// The modes this PHY advertises (what a link partner sees).
    pub fn advertisement(&self) -> Abilities {
        let anar = self.regs[ANAR as usize];
        let mut a = 0;
        for (reg_bit, bit) in [
            (anar::A10HD, Abilities::HD10),
            (anar::A10FD, Abilities::FD10),
            (anar::A100HD, Abilities::HD100),
            (anar::A100FD, Abilities::FD100),
            (anar::PAUSE, Abilities::PAUSE),
            (anar::ASM_DIR, Abilities::ASM_DIR),
        ] {
            if anar & reg_bit != 0 {
                a |= bit;
            }
        }
        if self.regs[GBCR as usize] & gbcr::A1000FD != 0 {
            a |= Abilities::FD1000;
        }
        if self.mmd_reg(MMD_AN, MMD_AN_MGBT_CTRL) & mgbt::A2500FD != 0 {
            a |= Abilities::FD2500;
        }
        Abilities(a)
    }

    /// The link this PHY would have with `partner` in its current state.
    fn resolve(&self, partner: Partner) -> Option<Link> {
        let Partner::Present(theirs) = partner else {
            return None;
        };
        if self.powered_down() {
            return None;
        }
        self.offer().link_with(theirs)
    }

    /// What this PHY shows the cable: its advertisement while it
    /// autonegotiates, else the mode BMCR forces ([`Abilities::FORCED`]).
    pub fn offer(&self) -> Abilities {
        let bmcr = self.regs[BMCR as usize];
        if bmcr & bmcr::AN_ENABLE != 0 {
            return self.advertisement();
        }
        let full = bmcr & bmcr::DUPLEX != 0;
        let mode = match (bmcr & bmcr::SPEED_1000 != 0, bmcr & bmcr::SPEED_100 != 0) {
            (false, false) => [Abilities::HD10, Abilities::FD10][usize::from(full)],
            (false, true) => [Abilities::HD100, Abilities::FD100][usize::from(full)],
            // 1000BASE-T cannot be forced; 11b is reserved.
            _ => 0,
        };
        Abilities(Abilities::FORCED | mode)
    }

    /// Re-runs link resolution against `partner`. Returns true when the
    /// link state (up/down, speed or duplex) changed.
    pub fn update_link(&mut self, partner: Partner) -> bool {
        self.partner = partner;
        let new = self.resolve(partner);
        if new == self.link {
            return false;
        }
        self.set_link(new);
        true
    }

    fn set_link(&mut self, link: Option<Link>) {
        if self.link.is_some() && link.is_none() {
            self.link_latched_low = true;
        }
        self.link = link;
        let theirs = match (self.partner, link) {
            (Partner::Present(a), Some(_)) => a,
            _ => Abilities::default(),
        };
        let mut lpa = 0;
        let mut gbsr = 0;
        let mut mgbt_stat = 0;
        if link.is_some() {
            lpa = anar::SELECTOR | anar::ACK;
            for (bit, reg_bit) in [
                (Abilities::HD10, anar::A10HD),
                (Abilities::FD10, anar::A10FD),
                (Abilities::HD100, anar::A100HD),
                (Abilities::FD100, anar::A100FD),
                (Abilities::PAUSE, anar::PAUSE),
                (Abilities::ASM_DIR, anar::ASM_DIR),
            ] {
                if theirs.has(bit) {
                    lpa |= reg_bit;
                }
            }
            if theirs.forced() {
                // No advertisement came: ANLPAR shows the technology detected, ACK clear.
                lpa &= !anar::ACK;
            } else {
                gbsr = gbsr::LOCAL_RX_OK | gbsr::REMOTE_RX_OK;
            }
            if theirs.has(Abilities::FD1000) {
                gbsr |= gbsr::LP_1000FD;
            }
            if theirs.has(Abilities::FD2500) {
                mgbt_stat |= mgbt::LP_2500;
            }
        }
        self.regs[ANLPAR as usize] = lpa;
        // ANER.LP_AN_ABLE: the partner autonegotiates.
        self.regs[ANER as usize] = u16::from(link.is_some() && !theirs.forced());
        self.regs[GBSR as usize] = gbsr;
        self.mmd.insert((MMD_AN, MMD_AN_MGBT_STAT), mgbt_stat);
    }

    fn mmd_reg(&self, devad: u8, addr: u16) -> u16 {
        self.mmd.get(&(devad, addr)).copied().unwrap_or(0)
    }

    /// MMD access function in MMDAC bits 15:14 (0 = address, else data).
    fn mmd_target(&self) -> Option<(u8, u16)> {
        let ac = self.regs[MMDAC as usize];
        let devad = (ac & 0x1F) as u8;
        (ac >> 14 != 0).then(|| (devad, self.regs[MMDAAD as usize]))
    }

    /// A clause-22 register read through MDIC.
    pub fn read(&mut self, reg: u8) -> u16 {
        match reg {
            BMSR => {
                let mut v = bmsr::ABILITIES;
                if self.link.is_some() && !self.link_latched_low {
                    v |= bmsr::LINK;
                }
                if self.link.is_some() && self.regs[BMCR as usize] & bmcr::AN_ENABLE != 0 {
                    v |= bmsr::AN_COMPLETE;
                }
                self.link_latched_low = false;
                v
            }
            MMDAAD => match self.mmd_target() {
                Some((devad, addr)) => self.mmd_reg(devad, addr),
                None => self.regs[MMDAAD as usize],
            },
            _ => self.regs[usize::from(reg & 0x1F)],
        }
    }

    /// A clause-22 register write through MDIC. Link resolution is the
    /// caller's business (`update_link`) so that it can raise LSC.
    pub fn write(&mut self, reg: u8, val: u16) {
        match reg {
            BMCR => {
                if val & bmcr::RESET != 0 {
                    self.reset();
                    return;
                }
                // RESTART_AN self-clears: negotiation is instant here and
                // the caller's next update_link() re-resolves.
                self.regs[BMCR as usize] = val & !bmcr::RESTART_AN;
            }
            BMSR | PHYID1 | PHYID2 | ANLPAR | ANER | GBSR | GBESR | FW_VERSION => {}
            MMDAAD => match self.mmd_target() {
                Some(key) => {
                    self.mmd.insert(key, val);
                }
                None => self.regs[MMDAAD as usize] = val,
            },
            _ => self.regs[usize::from(reg & 0x1F)] = val,
        }
    }

    /// Re-resolves against the last known partner.
    pub fn refresh(&mut self) -> bool {
        self.update_link(self.partner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mmd_write(phy: &mut Phy, devad: u16, addr: u16, val: u16) {
        phy.write(MMDAC, devad);
        phy.write(MMDAAD, addr);
        phy.write(MMDAC, 0x4000 | devad);
        phy.write(MMDAAD, val);
        phy.write(MMDAC, 0);
    }

    fn mmd_read(phy: &mut Phy, devad: u16, addr: u16) -> u16 {
        phy.write(MMDAC, devad);
        phy.write(MMDAAD, addr);
        phy.write(MMDAC, 0x4000 | devad);
        let v = phy.read(MMDAAD);
        phy.write(MMDAC, 0);
        v
    }

    #[test]
    fn identity() {
        let mut phy = Phy::new();
        assert_eq!(phy.read(PHYID1), 0x67C9);
        assert_eq!(phy.read(PHYID2), 0xDC00);
        assert_eq!(phy.read(FW_VERSION), FW_VERSION_VALUE);
    }

    #[test]
    fn autoneg_resolves_2500_and_latches_link_drop() {
        let mut phy = Phy::new();
        assert!(phy.update_link(Partner::Present(Abilities::ALL)));
        assert_eq!(phy.link(), Some(Link { speed: Speed::M2500, full_duplex: true }));
        let bmsr = phy.read(BMSR);
        assert_ne!(bmsr & bmsr::LINK, 0);
        assert_ne!(bmsr & bmsr::AN_COMPLETE, 0);
        assert_ne!(phy.read(GBSR) & gbsr::REMOTE_RX_OK, 0);

        // Cable pulled and put back before the driver looks.
        phy.update_link(Partner::Absent);
        phy.update_link(Partner::Present(Abilities::ALL));
        assert_eq!(phy.read(BMSR) & bmsr::LINK, 0, "first read reports the drop");
        assert_ne!(phy.read(BMSR) & bmsr::LINK, 0, "second read reports the link");
    }

    #[test]
    fn advertisement_through_mmd_limits_speed() {
        let mut phy = Phy::new();
        assert_eq!(mmd_read(&mut phy, 7, 0x20) & mgbt::A2500FD, mgbt::A2500FD);
        mmd_write(&mut phy, 7, 0x20, 0);
        phy.update_link(Partner::Present(Abilities::ALL));
        assert_eq!(phy.link().unwrap().speed, Speed::M1000);
        phy.write(GBCR, 0);
        phy.refresh();
        assert_eq!(phy.link().unwrap().speed, Speed::M100);
    }

    #[test]
    fn power_down_drops_link() {
        let mut phy = Phy::new();
        phy.update_link(Partner::Present(Abilities::up_to(Speed::M1000)));
        assert_eq!(phy.link().unwrap().speed, Speed::M1000);
        let bmcr = phy.read(BMCR);
        phy.write(BMCR, bmcr | bmcr::POWER_DOWN);
        assert!(phy.refresh());
        assert!(phy.link().is_none());
        phy.write(BMCR, bmcr::AN_ENABLE | bmcr::RESTART_AN);
        assert!(phy.refresh());
        assert!(phy.link().is_some());
        assert_eq!(phy.read(BMCR) & bmcr::RESTART_AN, 0);
    }
}
