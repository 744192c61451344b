// SPDX-License-Identifier: GPL-2.0

//! Replays, register by register, what the C igc driver does at probe and
//! open (igc_probe, igc_reset_hw_base, igc_init_hw_base, igc_setup_link,
//! igc_irq_enable), with its polling limits, against the model's BAR0.

use std::sync::Arc;

use i225_model::device::{Device, REGION_BAR0};
use i225_model::mac::MacConfig;
use i225_model::phy::{Abilities, Partner};
use i225_model::ptp::{PtpConfig, VirtualClock};
use i225_model::regs::{self, ctrl, eecd, mdic, status, swsm};

const MAC: [u8; 6] = [0x02, 0x1a, 0x25, 0x12, 0x34, 0x56];
const SWFW_EEP_SM: u32 = 1 << 0;
const SWFW_PHY0_SM: u32 = 1 << 1;

struct Driver {
    d: Device,
    nvm_words: u32,
}

impl Driver {
    fn rd32(&mut self, off: u32) -> u32 {
        let mut b = [0u8; 4];
        self.d.read(REGION_BAR0, off.into(), &mut b).unwrap();
        let v = u32::from_le_bytes(b);
        // igc_rd32: all ones triggers the CTRL check; CTRL must never be ~0.
        if v == u32::MAX {
            let mut c = [0u8; 4];
            self.d.read(REGION_BAR0, 0, &mut c).unwrap();
            assert_ne!(u32::from_le_bytes(c), u32::MAX, "PCIe link lost");
        }
        v
    }

    fn wr32(&mut self, off: u32, v: u32) {
        self.d.write(REGION_BAR0, off.into(), &v.to_le_bytes()).unwrap();
    }

    fn get_hw_semaphore(&mut self) {
        let timeout = self.nvm_words + 1;
        let got = (0..timeout).any(|_| self.rd32(regs::SWSM) & swsm::SMBI == 0);
        assert!(got, "SMBI never cleared");
        let got = (0..timeout).any(|_| {
            let s = self.rd32(regs::SWSM);
            self.wr32(regs::SWSM, s | swsm::SWESMBI);
            self.rd32(regs::SWSM) & swsm::SWESMBI != 0
        });
        assert!(got, "SWESMBI never stuck");
    }

    fn put_hw_semaphore(&mut self) {
        let s = self.rd32(regs::SWSM);
        self.wr32(regs::SWSM, s & !(swsm::SMBI | swsm::SWESMBI));
    }

    fn acquire_swfw(&mut self, mask: u32) {
        for _ in 0..200 {
            self.get_hw_semaphore();
            let sync = self.rd32(regs::SW_FW_SYNC);
            if sync & (mask | mask << 16) == 0 {
                self.wr32(regs::SW_FW_SYNC, sync | mask);
                self.put_hw_semaphore();
                return;
            }
            self.put_hw_semaphore();
        }
        panic!("SW_FW_SYNC timeout");
    }

    fn release_swfw(&mut self, mask: u32) {
        self.get_hw_semaphore();
        let sync = self.rd32(regs::SW_FW_SYNC);
        self.wr32(regs::SW_FW_SYNC, sync & !mask);
        self.put_hw_semaphore();
    }

    fn mdic(&mut self, cmd: u32) -> u16 {
        self.wr32(regs::MDIC, cmd);
        for _ in 0..1920 {
            let v = self.rd32(regs::MDIC);
            if v & mdic::READY != 0 {
                assert_eq!(v & mdic::ERROR, 0, "MDI error");
                return v as u16;
            }
        }
        panic!("MDI did not complete");
    }

    fn read_phy(&mut self, reg: u32) -> u16 {
        self.acquire_swfw(SWFW_PHY0_SM);
        let v = self.mdic(reg << 16 | mdic::OP_READ);
        self.release_swfw(SWFW_PHY0_SM);
        v
    }

    fn write_phy(&mut self, reg: u32, val: u16) {
        self.acquire_swfw(SWFW_PHY0_SM);
        self.mdic(reg << 16 | mdic::OP_WRITE | u32::from(val));
        self.release_swfw(SWFW_PHY0_SM);
    }

    fn xmdio(&mut self, devad: u16, addr: u16, write: Option<u16>) -> u16 {
        self.write_phy(13, devad);
        self.write_phy(14, addr);
        self.write_phy(13, 0x4000 | devad);
        let v = match write {
            Some(v) => {
                self.write_phy(14, v);
                v
            }
            None => self.read_phy(14),
        };
        self.write_phy(13, 0);
        v
    }

    fn read_nvm(&mut self, word: u32) -> u16 {
        self.acquire_swfw(SWFW_EEP_SM);
        self.wr32(regs::EERD, word << 2 | 1);
        let done = (0..100_000).find_map(|_| {
            let v = self.rd32(regs::EERD);
            (v & 2 != 0).then_some(v)
        });
        self.release_swfw(SWFW_EEP_SM);
        (done.expect("EERD timeout") >> 16) as u16
    }

    /// igc_phy_hw_reset
    fn phy_hw_reset(&mut self) {
        self.acquire_swfw(SWFW_PHY0_SM);
        let _phpm = self.rd32(regs::PHPM);
        let c = self.rd32(regs::CTRL);
        self.wr32(regs::CTRL, c | ctrl::PHY_RST);
        self.rd32(regs::STATUS);
        self.wr32(regs::CTRL, c);
        self.rd32(regs::STATUS);
        assert!((0..10_000).any(|_| self.rd32(regs::PHPM) & (1 << 8) != 0), "PHY reset complete");
        self.release_swfw(SWFW_PHY0_SM);
    }

    /// igc_reset_hw_base
    fn reset_hw(&mut self) {
        let c = self.rd32(regs::CTRL);
        self.wr32(regs::CTRL, c | ctrl::GIO_MASTER_DISABLE);
        assert!((0..800).any(|_| self.rd32(regs::STATUS) & status::GIO_MASTER_ENABLE == 0), "GIO master disable");
        self.wr32(regs::IMC, 0xFFFF_FFFF);
        self.wr32(regs::RCTL, 0);
        self.wr32(regs::TCTL, regs::tctl::PSP);
        self.rd32(regs::STATUS);
        let c = self.rd32(regs::CTRL);
        self.wr32(regs::CTRL, c | ctrl::RST);
        assert!((0..10).any(|_| self.rd32(regs::EECD) & eecd::AUTO_RD != 0), "Auto Read Done");
        self.wr32(regs::IMC, 0xFFFF_FFFF);
        self.rd32(regs::ICR);
    }

    /// igc_check_for_copper_link: BMSR read twice.
    fn has_link(&mut self) -> bool {
        self.read_phy(1);
        self.read_phy(1) & 0x4 != 0
    }
}

#[test]
fn igc_probe_and_open_sequence() {
    let cfg = MacConfig { mac_addr: MAC, ptp: PtpConfig::default() };
    let mut d = Device::new(0x15F3, cfg, Arc::new(VirtualClock::new(0)));
    d.mac.set_partner(Partner::Present(Abilities::ALL));
    let mut drv = Driver { d, nvm_words: 0 };

    // get_invariants: NVM parameters from EECD.
    let e = drv.rd32(regs::EECD);
    assert_ne!(e, u32::MAX);
    let size = (((e >> 11) & 0xF) + 6).min(15);
    drv.nvm_words = 1 << size;
    assert_ne!(e & eecd::FLASH_DETECTED, 0);
    let _func = (drv.rd32(regs::STATUS) >> 2) & 3;
    drv.phy_hw_reset();
    let id = u32::from(drv.read_phy(2)) << 16 | u32::from(drv.read_phy(3));
    assert_eq!(id & 0xFFFF_FFF0, 0x67C9_DC00);

    // Mask everything (igc_irq_disable path at sw_init).
    let eiam = drv.rd32(regs::EIAM);
    drv.wr32(regs::EIAM, eiam & !0x1F);
    drv.wr32(regs::EIMC, 0x1F);
    let eiac = drv.rd32(regs::EIAC);
    drv.wr32(regs::EIAC, eiac & !0x1F);
    drv.wr32(regs::IAM, 0);
    drv.wr32(regs::IMC, 0xFFFF_FFFF);
    drv.rd32(regs::STATUS);

    drv.reset_hw();

    // igc_validate_nvm_checksum
    let sum = (0..=0x3F).fold(0u16, |s, w| s.wrapping_add(drv.read_nvm(w)));
    assert_eq!(sum, 0xBABA, "The NVM Checksum Is Not Valid");
    assert_eq!(drv.read_nvm(5), 0x1079, "dev starter version for ethtool -i");

    // igc_read_mac_addr: from RAL0/RAH0.
    let ral = drv.rd32(regs::RAL0).to_le_bytes();
    let rah = drv.rd32(regs::RAH0).to_le_bytes();
    assert_eq!([ral[0], ral[1], ral[2], ral[3], rah[0], rah[1]], MAC);

    drv.wr32(regs::RXPBS, 0xA2);
    drv.wr32(regs::TXPBS, 0x0400_0014);

    // igc_reset -> reset_hw, init_hw (RAR, MTA), setup_link.
    drv.reset_hw();
    drv.wr32(regs::RAL0, u32::from_le_bytes([MAC[0], MAC[1], MAC[2], MAC[3]]));
    drv.rd32(regs::STATUS);
    drv.wr32(regs::RAH0, u32::from(u16::from_le_bytes([MAC[4], MAC[5]])) | regs::rah::AV);
    for i in (0..128).rev() {
        drv.wr32(regs::MTA + 4 * i, 0);
    }
    assert_eq!(drv.rd32(regs::MANC) & (1 << 18), 0, "BLK_PHY_RST_ON_IDE clear");
    // igc_setup_copper_link / igc_copper_link_autoneg
    let c = drv.rd32(regs::CTRL);
    drv.wr32(regs::CTRL, (c | ctrl::SLU) & !(ctrl::FRCSPD | ctrl::FRCDPX));
    let anar = drv.read_phy(4);
    drv.write_phy(4, anar | 0x01E0 | 0x0C00);
    let gbcr = drv.read_phy(9);
    drv.write_phy(9, gbcr | 0x0200);
    let mgbt = drv.xmdio(7, 0x20, None);
    drv.xmdio(7, 0x20, Some(mgbt | 0x0080));
    let bmcr = drv.read_phy(0);
    drv.write_phy(0, bmcr | 0x1200);
    assert!((0..10).any(|_| drv.has_link()), "link after autoneg");

    // Flow control resolution reads BMSR (AN complete), ANAR, ANLPAR.
    drv.read_phy(1);
    assert_ne!(drv.read_phy(1) & 0x20, 0, "AN complete");
    let lpa = drv.read_phy(5);
    assert_ne!(lpa & 0x0400, 0, "partner pause");

    // Speed and duplex from STATUS: 2.5G full.
    let st = drv.rd32(regs::STATUS);
    assert_eq!(st & (status::LU | status::FD | status::SPEED_1000 | status::SPEED_2500), 0x0040_0083);
    assert_ne!(drv.read_phy(0x0A) & 0x1000, 0, "remote receiver OK");
    assert_eq!(drv.read_phy(0x1E), i225_model::phy::FW_VERSION_VALUE);

    // Interface down after probe: PHY powered down, link gone.
    let bmcr = drv.read_phy(0);
    drv.write_phy(0, bmcr | 0x0800);
    assert!(!drv.has_link());
    assert_eq!(drv.rd32(regs::STATUS) & status::LU, 0);

    // ndo_open: power up; the link comes back.
    let bmcr = drv.read_phy(0);
    drv.write_phy(0, bmcr & !0x0800);
    assert!(drv.has_link());
    let c = drv.rd32(regs::CTRL_EXT);
    drv.wr32(regs::CTRL_EXT, c | regs::ctrl_ext::DRV_LOAD);
    assert_ne!(drv.rd32(regs::CTRL), u32::MAX);
}
