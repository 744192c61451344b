// SPDX-License-Identifier: GPL-2.0

//! PCI configuration space of the i225/i226 function, laid out like the
//! lspci dumps of real I225-V rev 3 cards: PM at 0x40, MSI at 0x50, MSI-X at
//! 0x70 and a PCIe v2 endpoint capability at 0xA0. The extended space is
//! empty (no AER/DSN/LTR/L1SS/PTM: the driver treats them as optional).
//! PMCSR's power state is acted on by the device (`device.rs`: D3hot).

use crate::regs::{BAR0_SIZE, BAR3_SIZE, NUM_MSIX_VECTORS};

pub const CONFIG_SIZE: usize = 4096;

pub const VENDOR_INTEL: u16 = 0x8086;
pub const DEFAULT_DEVICE_ID: u16 = 0x15F3;

/// Every device ID the igc driver binds, with its part name.
pub const DEVICE_IDS: &[(u16, &str)] = &[
    (0x15F2, "I225-LM"),
    (0x15F3, "I225-V"),
    (0x15F8, "I225-I"),
    (0x15F7, "I220-V"),
    (0x3100, "I225-K"),
    (0x3101, "I225-K2"),
    (0x5502, "I225-LMvP"),
    (0x0D9F, "I225-IT"),
    (0x15FD, "I225 blank NVM"),
    (0x125B, "I226-LM"),
    (0x125C, "I226-V"),
    (0x125D, "I226-IT"),
    (0x3102, "I226-K"),
    (0x5503, "I226-LMvP"),
    (0x125E, "I221-V"),
    (0x125F, "I226 blank NVM"),
];

pub fn part_name(device_id: u16) -> Option<&'static str> {
    DEVICE_IDS.iter().find(|(id, _)| *id == device_id).map(|(_, n)| *n)
}

/// Revision ID real parts report: 3 for i225, 4 for i226.
pub fn revision(device_id: u16) -> u8 {
    match part_name(device_id) {
        Some(n) if n.starts_with("I226") || n.starts_with("I221") => 4,
        _ => 3,
    }
}

pub const COMMAND: usize = 0x04;
pub const STATUS: usize = 0x06;
pub const BAR0: usize = 0x10;
pub const BAR3: usize = 0x1C;
pub const CAP_PM: usize = 0x40;
pub const CAP_MSI: usize = 0x50;
pub const CAP_MSIX: usize = 0x70;
pub const CAP_PCIE: usize = 0xA0;

pub mod command {
    pub const MEMORY: u16 = 1 << 1;
    pub const BUS_MASTER: u16 = 1 << 2;
    pub const INTX_DISABLE: u16 = 1 << 10;
}

const MSI_CTRL: usize = CAP_MSI + 2;
const MSIX_CTRL: usize = CAP_MSIX + 2;
const PCIE_DEVCTL: usize = CAP_PCIE + 8;
const MSIX_ENABLE: u16 = 1 << 15;
const MSIX_FUNC_MASK: u16 = 1 << 14;
const PCIE_FLR: u16 = 1 << 15;

/// The PBA offset within BAR3.
pub const MSIX_PBA_OFFSET: u64 = 0x2000;

#[derive(Clone)]
pub struct ConfigSpace {
    data: Vec<u8>,
    /// Bits software may write.
    wmask: Vec<u8>,
    /// Bits that clear when written with 1.
    w1cmask: Vec<u8>,
    reset_image: Vec<u8>,
}

impl std::fmt::Debug for ConfigSpace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConfigSpace").field("header", &&self.data[..64]).finish()
    }
}

/// What a config write asked the device to do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConfigEffects {
    /// Function level reset was requested.
    pub flr: bool,
}

impl ConfigSpace {
    pub fn new(device_id: u16) -> Self {
        let mut c = ConfigSpace {
            data: vec![0; CONFIG_SIZE],
            wmask: vec![0; CONFIG_SIZE],
            w1cmask: vec![0; CONFIG_SIZE],
            reset_image: Vec::new(),
        };
        c.build(device_id);
        c.reset_image = c.data.clone();
        c
    }

    fn set8(&mut self, off: usize, v: u8) {
        self.data[off] = v;
    }
    fn set16(&mut self, off: usize, v: u16) {
        self.data[off..off + 2].copy_from_slice(&v.to_le_bytes());
    }
    fn set32(&mut self, off: usize, v: u32) {
        self.data[off..off + 4].copy_from_slice(&v.to_le_bytes());
    }
    fn wmask16(&mut self, off: usize, m: u16) {
        self.wmask[off..off + 2].copy_from_slice(&m.to_le_bytes());
    }
    fn wmask32(&mut self, off: usize, m: u32) {
        self.wmask[off..off + 4].copy_from_slice(&m.to_le_bytes());
    }
    fn w1c16(&mut self, off: usize, m: u16) {
        self.w1cmask[off..off + 2].copy_from_slice(&m.to_le_bytes());
    }

    fn build(&mut self, device_id: u16) {
        // Header (type 0).
        self.set16(0x00, VENDOR_INTEL);
        self.set16(0x02, device_id);
        self.wmask16(COMMAND, 0x0546); // MEM, MASTER, PARITY, SERR, INTX_DISABLE
        self.set16(STATUS, 0x0010); // capabilities list
        self.w1c16(STATUS, 0xF900); // error bits
        self.set8(0x08, revision(device_id));
        self.set8(0x09, 0x00); // prog-if
        self.set8(0x0A, 0x00); // subclass: Ethernet
        self.set8(0x0B, 0x02); // class: network
        self.wmask[0x0C] = 0xFF; // cache line size
                                 // BAR0: 1 MiB, 32-bit, non-prefetchable memory.
        self.wmask32(BAR0, !(BAR0_SIZE as u32 - 1));
        // BAR3: 16 KiB, 32-bit, non-prefetchable memory (MSI-X).
        self.wmask32(BAR3, !(BAR3_SIZE as u32 - 1));
        self.set16(0x2C, VENDOR_INTEL); // subsystem vendor
        self.set16(0x2E, 0x0000); // subsystem id
        self.set8(0x34, CAP_PM as u8);
        self.wmask[0x3C] = 0xFF; // interrupt line
        self.set8(0x3D, 0x01); // INTA

        // Power management v3: PME from D0, D3hot, D3cold; DSI.
        self.set8(CAP_PM, 0x01);
        self.set8(CAP_PM + 1, CAP_MSI as u8);
        self.set16(CAP_PM + 2, 0xC823);
        self.set16(CAP_PM + 4, 0x0008); // D0, No_Soft_Reset
        self.wmask16(CAP_PM + 4, 0x0103); // power state, PME_En
        self.w1c16(CAP_PM + 4, 0x8000); // PME status

        // MSI: one vector, 64-bit, per-vector masking.
        self.set8(CAP_MSI, 0x05);
        self.set8(CAP_MSI + 1, CAP_MSIX as u8);
        self.set16(MSI_CTRL, 0x0180);
        self.wmask16(MSI_CTRL, 0x0071); // enable, multiple message enable
        self.wmask32(CAP_MSI + 4, 0xFFFF_FFFC); // address low
        self.wmask32(CAP_MSI + 8, 0xFFFF_FFFF); // address high
        self.wmask16(CAP_MSI + 0xC, 0xFFFF); // data
        self.wmask32(CAP_MSI + 0x10, 0x1); // mask bits

        // MSI-X: 5 vectors, table in BAR3 at 0, PBA in BAR3 at 0x2000.
        self.set8(CAP_MSIX, 0x11);
        self.set8(CAP_MSIX + 1, CAP_PCIE as u8);
        self.set16(MSIX_CTRL, NUM_MSIX_VECTORS as u16 - 1);
        self.wmask16(MSIX_CTRL, MSIX_ENABLE | MSIX_FUNC_MASK);
        self.set32(CAP_MSIX + 4, 3);
        self.set32(CAP_MSIX + 8, MSIX_PBA_OFFSET as u32 | 3);

        // PCI Express v2 endpoint.
        self.set8(CAP_PCIE, 0x10);
        self.set8(CAP_PCIE + 1, 0x00);
        self.set16(CAP_PCIE + 2, 0x0002);
        // DevCap: MPS 512, L0s <512ns, L1 <64us, RBE, FLR.
        self.set32(CAP_PCIE + 4, 0x1000_8CC2);
        self.set16(PCIE_DEVCTL, 0x2810); // MRRS 512, ext tag, relaxed ordering
        self.wmask16(PCIE_DEVCTL, 0xFFFF);
        self.w1c16(CAP_PCIE + 0xA, 0x000F);
        // LnkCap: 5 GT/s, x1, ASPM L1, L1 exit < 64 us.
        self.set32(CAP_PCIE + 0xC, 0x0003_8812);
        self.wmask16(CAP_PCIE + 0x10, 0x0FFB);
        self.set16(CAP_PCIE + 0x12, 0x1012); // 5 GT/s x1, slot clock
                                             // DevCap2: completion timeout ranges, timeout disable, LTR.
        self.set32(CAP_PCIE + 0x24, 0x0000_081F);
        self.wmask16(CAP_PCIE + 0x28, 0x043F);
        self.set32(CAP_PCIE + 0x2C, 0x0000_0006); // 2.5 and 5 GT/s
        self.set16(CAP_PCIE + 0x30, 0x0002);
        self.wmask16(CAP_PCIE + 0x30, 0x003F);
    }

    /// Function reset: back to the power-on image.
    pub fn reset(&mut self) {
        self.data.copy_from_slice(&self.reset_image);
    }

    pub fn read(&self, off: usize, buf: &mut [u8]) -> bool {
        match self.data.get(off..off + buf.len()) {
            Some(src) => {
                buf.copy_from_slice(src);
                true
            }
            None => false,
        }
    }

    pub fn read16(&self, off: usize) -> u16 {
        u16::from_le_bytes([self.data[off], self.data[off + 1]])
    }

    pub fn read32(&self, off: usize) -> u32 {
        u32::from_le_bytes(self.data[off..off + 4].try_into().unwrap())
    }

    /// Applies a write through the write and W1C masks.
    pub fn write(&mut self, off: usize, data: &[u8]) -> Option<ConfigEffects> {
        if off.checked_add(data.len())? > CONFIG_SIZE {
            return None;
        }
        for (i, &b) in data.iter().enumerate() {
            let o = off + i;
            let w = self.wmask[o];
            let c = self.w1cmask[o];
            self.data[o] = (self.data[o] & !w) | (b & w);
            self.data[o] &= !(b & c);
        }
        let mut fx = ConfigEffects::default();
        if self.read16(PCIE_DEVCTL) & PCIE_FLR != 0 {
            let v = self.read16(PCIE_DEVCTL) & !PCIE_FLR;
            self.set16(PCIE_DEVCTL, v);
            fx.flr = true;
        }
        Some(fx)
    }

    pub fn command(&self) -> u16 {
        self.read16(COMMAND)
    }

    /// The function's power state, PMCSR.PowerState of the PM capability: 0 (D0) to 3 (D3hot).
    pub fn power_state(&self) -> u8 {
        (self.read16(CAP_PM + 4) & 3) as u8
    }

    pub fn msix_enabled(&self) -> bool {
        self.read16(MSIX_CTRL) & MSIX_ENABLE != 0
    }

    pub fn msix_function_masked(&self) -> bool {
        self.read16(MSIX_CTRL) & MSIX_FUNC_MASK != 0
    }

    pub fn msi_enabled(&self) -> bool {
        self.read16(MSI_CTRL) & 1 != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk_caps(c: &ConfigSpace) -> Vec<(u8, usize)> {
        let mut caps = vec![];
        let mut p = c.data[0x34] as usize;
        while p != 0 {
            caps.push((c.data[p], p));
            p = c.data[p + 1] as usize;
        }
        caps
    }

    #[test]
    fn identity_and_capabilities() {
        let c = ConfigSpace::new(0x15F3);
        assert_eq!(c.read32(0), 0x15F3_8086);
        assert_eq!(c.read32(0x08), 0x0200_0003);
        assert_eq!(walk_caps(&c), vec![(0x01, 0x40), (0x05, 0x50), (0x11, 0x70), (0x10, 0xA0)]);
        // MSI: 64-bit with per-vector mask; MSI-X: 5 entries in BAR3.
        assert_eq!(c.read16(0x52), 0x0180);
        assert_eq!(c.read16(0x72) & 0x7FF, 4);
        assert_eq!(c.read32(0x74), 3);
        assert_eq!(c.read32(0x78), 0x2003);
        assert_eq!(c.read16(0xA2) & 0xF0, 0, "endpoint");
        assert_eq!(ConfigSpace::new(0x125C).data[8], 4);
    }

    #[test]
    fn bar_sizing() {
        let mut c = ConfigSpace::new(0x15F3);
        c.write(BAR0, &0xFFFF_FFFFu32.to_le_bytes());
        assert_eq!(c.read32(BAR0), 0xFFF0_0000, "1 MiB, 32-bit, non-prefetchable");
        c.write(BAR3, &0xFFFF_FFFFu32.to_le_bytes());
        assert_eq!(c.read32(BAR3), 0xFFFF_C000, "16 KiB");
        c.write(0x14, &0xFFFF_FFFFu32.to_le_bytes());
        assert_eq!(c.read32(0x14), 0, "BAR1 unimplemented");
    }

    #[test]
    fn msix_enable_and_flr() {
        let mut c = ConfigSpace::new(0x15F3);
        c.write(0x72, &0xC004u16.to_le_bytes());
        assert!(c.msix_enabled());
        assert_eq!(c.read16(0x72) & 0x7FF, 4, "table size is read-only");
        let fx = c.write(0xA8, &(0x2810u16 | 0x8000).to_le_bytes()).unwrap();
        assert!(fx.flr);
        assert_eq!(c.read16(0xA8) & 0x8000, 0);
    }
}
