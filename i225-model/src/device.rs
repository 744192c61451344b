// SPDX-License-Identifier: GPL-2.0

//! One PCI function as the transport sees it: regions (BAR0, BAR3, config
//! space), guest memory, interrupt lines and reset. No protocol details.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::dma::DmaMap;
use crate::irq_lines::IrqLines;
use crate::mac::{Mac, MacConfig};
use crate::pci_config::{command, ConfigSpace, CONFIG_SIZE, MSIX_PBA_OFFSET};
use crate::ptp::TimeSource;
use crate::regs::{BAR0_SIZE, BAR3_SIZE, NUM_MSIX_VECTORS};
use crate::stats_pass::StatsPasses;

/// VFIO PCI region indexes.
pub const REGION_BAR0: u32 = 0;
pub const REGION_BAR3: u32 = 3;
pub const REGION_ROM: u32 = 6;
pub const REGION_CONFIG: u32 = 7;
pub const REGION_VGA: u32 = 8;
pub const NUM_REGIONS: u32 = 9;

/// Why a region access failed (reported to the client as an errno).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessError {
    /// No such region, or outside it.
    OutOfRange,
    /// An access size the region does not support.
    BadSize,
}

impl AccessError {
    pub fn errno(self) -> i32 {
        libc::EINVAL
    }
}

/// Read/write counts of one BAR0 register.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AccessCount {
    pub reads: u64,
    pub writes: u64,
}

#[derive(Debug)]
pub struct Device {
    pub config: ConfigSpace,
    pub mac: Mac,
    pub dma: DmaMap,
    pub irqs: IrqLines,
    /// MSI-X table storage (QEMU emulates the table; kept for completeness).
    msix_table: Vec<u8>,
    /// BAR0 accesses by register offset.
    pub mmio: BTreeMap<u32, AccessCount>,
    /// The driver's statistics passes (reads of the statistics block).
    pub stats_passes: StatsPasses,
    /// PCI power management: what D3hot did.
    pub pm: PowerManagement,
}

/// The function in D3hot, as the PCI PM capability's PMCSR puts it there: no DMA, no
/// interrupt message (causes stay pending until D0), BAR accesses answered as a real function
/// in D3hot answers them (reads all ones, writes dropped) and counted. With `power_loss`, the
/// way back to D0 finds the state a system sleep that cut the power leaves (D3cold, S3, a
/// hibernation's power off): every register and the PHY at their power-on values, the PHC at
/// 0 and stopped. The configuration space is kept, as the PCI core restores it on resume
/// anyway (`pci_restore_state`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PowerManagement {
    /// The state is lost in D3 (control socket: `d3-power-loss PORT on|off`).
    pub power_loss: bool,
    /// Entries into D3hot.
    pub d3_entries: u64,
    /// Returns to D0 that found the state lost.
    pub power_losses: u64,
    /// BAR0 reads and writes made while in D3hot.
    pub mmio_in_d3: u64,
}

/// Size and access flags of a region (for GET_REGION_INFO).
pub fn region_size(index: u32) -> u64 {
    match index {
        REGION_BAR0 => BAR0_SIZE,
        REGION_BAR3 => BAR3_SIZE,
        REGION_CONFIG => CONFIG_SIZE as u64,
        _ => 0,
    }
}

impl Device {
    pub fn new(device_id: u16, config: MacConfig, clock: Arc<dyn TimeSource>) -> Self {
        Device {
            config: ConfigSpace::new(device_id),
            mac: Mac::new(config, clock),
            dma: DmaMap::new(),
            irqs: IrqLines::new(),
            msix_table: vec![0; NUM_MSIX_VECTORS * 16],
            mmio: BTreeMap::new(),
            stats_passes: StatsPasses::default(),
            pm: PowerManagement::default(),
        }
    }

    /// Function reset (VFIO_USER_DEVICE_RESET or FLR).
    pub fn reset(&mut self) {
        self.config.reset();
        self.sync_bus_master();
        self.mac.power_on_reset();
        self.msix_table.fill(0);
        // Pending messages die with the reset; triggers stay installed.
        let _ = self.mac.take_signals();
    }

    /// Pushes interrupt messages the MAC decided on to the client.
    pub fn deliver_irqs(&mut self) {
        if self.in_d3() {
            // Pending until D0.
            return;
        }
        let signals = self.mac.take_signals();
        let level = self.mac.legacy_irq_asserted();
        let disabled = self.config.command() & command::INTX_DISABLE != 0;
        self.irqs.deliver(signals, level, disabled);
    }

    pub fn read(&mut self, region: u32, offset: u64, buf: &mut [u8]) -> Result<(), AccessError> {
        let end = offset.checked_add(buf.len() as u64).ok_or(AccessError::OutOfRange)?;
        if end > region_size(region) {
            return Err(AccessError::OutOfRange);
        }
        match region {
            REGION_BAR0 if self.in_d3() => {
                self.pm.mmio_in_d3 += 1;
                buf.fill(0xFF);
                Ok(())
            }
            REGION_BAR0 => self.bar0_read(offset as u32, buf),
            REGION_BAR3 => {
                self.bar3_read(offset, buf);
                Ok(())
            }
            REGION_CONFIG => {
                self.config.read(offset as usize, buf);
                Ok(())
            }
            _ => Err(AccessError::OutOfRange),
        }
    }

    pub fn write(&mut self, region: u32, offset: u64, data: &[u8]) -> Result<(), AccessError> {
        let end = offset.checked_add(data.len() as u64).ok_or(AccessError::OutOfRange)?;
        if end > region_size(region) {
            return Err(AccessError::OutOfRange);
        }
        match region {
            REGION_BAR0 if self.in_d3() => self.pm.mmio_in_d3 += 1,
            REGION_BAR0 => self.bar0_write(offset as u32, data)?,
            REGION_BAR3 => {
                if let Some(dst) = self.msix_table.get_mut(offset as usize..end as usize) {
                    dst.copy_from_slice(data);
                }
            }
            REGION_CONFIG => {
                let before = self.config.power_state();
                let fx = self.config.write(offset as usize, data).ok_or(AccessError::OutOfRange)?;
                if fx.flr {
                    log::info!("function level reset");
                    self.reset();
                }
                self.power_transition(before);
                self.sync_bus_master();
            }
            _ => return Err(AccessError::OutOfRange),
        }
        self.deliver_irqs();
        Ok(())
    }

    /// Whether PMCSR has the function in D3hot.
    pub fn in_d3(&self) -> bool {
        self.config.power_state() == 3
    }

    /// Acts on a change of PMCSR's power state ([`PowerManagement`]).
    fn power_transition(&mut self, before: u8) {
        let now = self.config.power_state();
        if now == before {
            return;
        }
        log::info!("power state D{before} -> D{now}");
        if now == 3 {
            self.pm.d3_entries += 1;
        } else if before == 3 && self.pm.power_loss {
            log::info!("the state was lost in D3 (the power was cut)");
            self.pm.power_losses += 1;
            self.mac.power_loss();
            // Nothing that was pending survives.
            let _ = self.mac.take_signals();
        }
    }

    /// DMA follows PCI COMMAND.BME: while it is clear nothing reaches guest
    /// memory (descriptor fetches and write-backs are refused, TX stalls, RX
    /// frames wait in the packet buffer or drop), and once it is set again the
    /// MAC picks up where it stopped, as a bus master that was held off does.
    fn sync_bus_master(&mut self) {
        let on = self.config.command() & command::BUS_MASTER != 0 && !self.in_d3();
        if !self.dma.set_bus_master(on) {
            return;
        }
        log::debug!("bus mastering {}", if on { "on" } else { "off" });
        if on {
            self.mac.resume_tx(&self.dma);
            self.mac.drain_rx_backlog(&self.dma);
        }
    }

    fn count(&mut self, off: u32, write: bool) {
        let c = self.mmio.entry(off & !3).or_default();
        if write {
            c.writes += 1;
        } else {
            c.reads += 1;
            if StatsPasses::covers(off) {
                self.stats_passes.read(std::time::Instant::now());
            }
        }
    }

    fn bar0_read(&mut self, off: u32, buf: &mut [u8]) -> Result<(), AccessError> {
        match buf.len() {
            4 | 8 => {
                for (i, chunk) in buf.chunks_mut(4).enumerate() {
                    let o = off + 4 * i as u32;
                    self.count(o, false);
                    chunk.copy_from_slice(&self.mac.read32(o).to_le_bytes());
                }
            }
            1 | 2 => {
                let aligned = off & !3;
                self.count(aligned, false);
                let v = self.mac.read32(aligned).to_le_bytes();
                let s = (off - aligned) as usize;
                buf.copy_from_slice(v.get(s..s + buf.len()).ok_or(AccessError::BadSize)?);
            }
            _ => return Err(AccessError::BadSize),
        }
        Ok(())
    }

    fn bar0_write(&mut self, off: u32, data: &[u8]) -> Result<(), AccessError> {
        match data.len() {
            4 | 8 => {
                for (i, chunk) in data.chunks(4).enumerate() {
                    let o = off + 4 * i as u32;
                    self.count(o, true);
                    let v = u32::from_le_bytes(chunk.try_into().unwrap());
                    self.mac.write32(o, v, &self.dma);
                }
            }
            1 | 2 => {
                let aligned = off & !3;
                let s = (off - aligned) as usize;
                if s + data.len() > 4 {
                    return Err(AccessError::BadSize);
                }
                self.count(aligned, true);
                // PCIe byte enables: the register sees the written bytes only.
                let mut v = self.mac.partial_write_base(aligned).to_le_bytes();
                v[s..s + data.len()].copy_from_slice(data);
                self.mac.write32(aligned, u32::from_le_bytes(v), &self.dma);
            }
            _ => return Err(AccessError::BadSize),
        }
        Ok(())
    }

    fn bar3_read(&mut self, offset: u64, buf: &mut [u8]) {
        buf.fill(0);
        if offset >= MSIX_PBA_OFFSET {
            let pba = self.irqs.msix_pending().to_le_bytes();
            for (i, b) in buf.iter_mut().enumerate() {
                let o = (offset - MSIX_PBA_OFFSET) as usize + i;
                *b = pba.get(o).copied().unwrap_or(0);
            }
        } else if let Some(src) = self.msix_table.get(offset as usize..offset as usize + buf.len()) {
            buf.copy_from_slice(src);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::irq_lines::{tests::Probe, Notifier, INDEX_MSIX};
    use crate::ptp::{PtpConfig, VirtualClock};
    use crate::regs;

    fn device() -> Device {
        let cfg = MacConfig { mac_addr: [2, 0, 0, 0, 0, 1], ptp: PtpConfig::default() };
        Device::new(0x15F3, cfg, Arc::new(VirtualClock::new(0)))
    }

    /// A probe on each MSI-X vector, the vectors in MSI-X mode and every one unmasked.
    fn msix_probes(d: &mut Device) -> Vec<Probe> {
        let probes: Vec<Probe> = (0..5).map(|_| Probe::default()).collect();
        let t = probes.iter().map(|p| Some(Box::new(p.clone()) as Box<dyn Notifier>)).collect();
        d.irqs.set_triggers(INDEX_MSIX, 0, t);
        w32(d, regs::GPIE, 0xC000_0011);
        w32(d, regs::EIMS, 0x1F);
        probes
    }

    fn w32(d: &mut Device, off: u32, v: u32) {
        d.write(REGION_BAR0, off.into(), &v.to_le_bytes()).unwrap();
    }

    fn r32(d: &mut Device, off: u32) -> u32 {
        let mut b = [0u8; 4];
        d.read(REGION_BAR0, off.into(), &mut b).unwrap();
        u32::from_le_bytes(b)
    }

    #[test]
    fn regions_and_sub_dword_access() {
        let mut d = device();
        let mut b = [0u8; 2];
        d.read(REGION_CONFIG, 2, &mut b).unwrap();
        assert_eq!(u16::from_le_bytes(b), 0x15F3);
        assert!(d.read(REGION_BAR0, BAR0_SIZE - 2, &mut [0u8; 4]).is_err());
        assert!(d.read(REGION_ROM, 0, &mut [0u8; 4]).is_err());
        w32(&mut d, 0x5408, 0x1122_3344);
        d.write(REGION_BAR0, 0x5409, &[0xAA]).unwrap();
        assert_eq!(r32(&mut d, 0x5408), 0x1122_AA44);
        let mut q = [0u8; 8];
        d.read(REGION_BAR0, 0x5408, &mut q).unwrap();
        assert_eq!(u32::from_le_bytes(q[..4].try_into().unwrap()), 0x1122_AA44);
        assert_eq!(d.mmio[&0x5408].writes, 2);
    }

    /// No DMA without PCI bus master enable: a TX descriptor posted with
    /// COMMAND.BME clear is not fetched (the refusal is counted), and leaves
    /// once the driver sets BME (pci_set_master).
    #[test]
    fn no_dma_without_bus_master_enable() {
        use crate::dma::GuestMemory;
        use crate::phy::{Abilities, Partner};
        use std::os::fd::{FromRawFd, OwnedFd};
        const RING: u64 = 0x1000;
        const BUF: u64 = 0x4000;
        let mut d = device();
        // SAFETY: plain syscalls creating a descriptor we own.
        let fd = unsafe {
            let fd = libc::memfd_create(c"bme".as_ptr(), 0);
            assert!(fd >= 0);
            assert_eq!(libc::ftruncate(fd, 1 << 16), 0);
            OwnedFd::from_raw_fd(fd)
        };
        d.dma.map(0, 1 << 16, 0, Some(fd), true, true).unwrap();
        let command = |d: &mut Device, v: u16| d.write(REGION_CONFIG, 4, &v.to_le_bytes()).unwrap();
        command(&mut d, crate::pci_config::command::BUS_MASTER);
        let mut desc = [0u8; 16];
        desc[..8].copy_from_slice(&BUF.to_le_bytes());
        // 60 bytes, EOP | IFCS | RS, advanced data descriptor.
        desc[8..12].copy_from_slice(&(60u32 | 0x2B30_0000).to_le_bytes());
        d.dma.write(RING, &desc).unwrap();
        d.dma.write(BUF, &[0xFF; 60]).unwrap();
        command(&mut d, crate::pci_config::command::MEMORY);
        d.mac.set_partner(Partner::Present(Abilities::ALL));
        w32(&mut d, regs::CTRL, regs::ctrl::SLU);
        w32(&mut d, regs::TCTL, 0x0103_F0FA);
        w32(&mut d, regs::txq(0, regs::TDLEN), 16 * 16);
        w32(&mut d, regs::txq(0, regs::TDBAL), RING as u32);
        w32(&mut d, regs::txq(0, regs::TXDCTL), 0x0210_0108);
        w32(&mut d, regs::txq(0, regs::TDT), 1);
        assert!(d.mac.take_outbox().is_empty(), "nothing fetched with BME clear");
        assert_eq!(r32(&mut d, regs::txq(0, regs::TDH)), 0);
        assert!(d.dma.refused() > 0);
        command(&mut d, crate::pci_config::command::MEMORY | crate::pci_config::command::BUS_MASTER);
        assert_eq!(d.mac.take_outbox().len(), 1, "sent once bus mastering is on");
        assert_eq!(r32(&mut d, regs::txq(0, regs::TDH)), 1);
        let mut dd = [0u8; 4];
        d.dma.read(RING + 12, &mut dd).unwrap();
        assert_eq!(dd[0] & 1, 1, "DD written back");
    }

    /// D3hot: BAR accesses read all ones and are counted, interrupt messages wait for D0,
    /// and with the power loss on, D0 finds the registers at their power-on values and the
    /// PHC at 0; without it, the state is kept (PMCSR's No_Soft_Reset).
    #[test]
    fn d3hot_and_the_power_loss_of_a_system_sleep() {
        let mut d = device();
        let probes = msix_probes(&mut d);
        let pmcsr = |d: &mut Device, state: u16| {
            d.write(REGION_CONFIG, (crate::pci_config::CAP_PM + 4) as u64, &state.to_le_bytes()).unwrap()
        };
        w32(&mut d, regs::RAL0 + 8, 0x1234_5678);
        pmcsr(&mut d, 3);
        assert!(d.in_d3());
        assert_eq!(r32(&mut d, regs::STATUS), u32::MAX, "reads all ones in D3hot");
        w32(&mut d, regs::EICS, 0b1_0000);
        assert_eq!(d.pm.mmio_in_d3, 2);
        assert_eq!(probes[4].hits(), 0, "the write was dropped");
        pmcsr(&mut d, 0);
        assert_eq!(r32(&mut d, regs::RAL0 + 8), 0x1234_5678, "No_Soft_Reset: kept");
        assert_eq!((d.pm.d3_entries, d.pm.power_losses), (1, 0));
        d.pm.power_loss = true;
        w32(&mut d, regs::TIMINCA, 0x0100_0000);
        w32(&mut d, regs::SYSTIML, 500);
        w32(&mut d, regs::SYSTIMH, 7);
        pmcsr(&mut d, 3);
        pmcsr(&mut d, 0);
        assert_eq!((d.pm.d3_entries, d.pm.power_losses), (2, 1));
        assert_eq!(r32(&mut d, regs::RAL0 + 8), 0, "registers at their power-on values");
        assert_eq!(r32(&mut d, regs::TIMINCA), 0);
        let _ = r32(&mut d, regs::SYSTIML);
        assert_eq!(r32(&mut d, regs::SYSTIMH), 0, "the PHC starts again at 0");
    }

    /// Byte writes reach the register's real owner: a byte of EIAC keeps
    /// the other bytes, a byte of EIMS or EIMC sets or clears only its own
    /// bits, and a byte of ICR clears only the causes it names.
    #[test]
    fn byte_writes_to_interrupt_registers() {
        let mut d = device();
        w32(&mut d, regs::EIAC, 0x1F);
        d.write(REGION_BAR0, (regs::EIAC + 1).into(), &[0]).unwrap();
        assert_eq!(r32(&mut d, regs::EIAC), 0x1F, "byte 1 of EIAC written, byte 0 kept");
        w32(&mut d, regs::EIMS, 0x1F);
        d.write(REGION_BAR0, regs::EIMC.into(), &[0x01]).unwrap();
        assert_eq!(r32(&mut d, regs::EIMS), 0x1E, "a byte of EIMC clears only its bits");
        d.write(REGION_BAR0, (regs::EIMS + 1).into(), &[0]).unwrap();
        assert_eq!(r32(&mut d, regs::EIMS), 0x1E);
        w32(&mut d, regs::ICS, 0x0000_0104);
        d.write(REGION_BAR0, regs::ICR.into(), &[0x04]).unwrap();
        // ICR reads clear it: read once, through ICS's view of the causes.
        assert_eq!(r32(&mut d, regs::ICS) & 0x104, 0x100, "only the named cause cleared");
        w32(&mut d, regs::GPIE, 0xC000_0011);
        d.write(REGION_BAR0, (regs::GPIE + 3).into(), &[0x80]).unwrap();
        assert_eq!(r32(&mut d, regs::GPIE), 0x8000_0011);
    }

    #[test]
    fn msix_delivery_through_eics() {
        let mut d = device();
        let probes = msix_probes(&mut d);
        w32(&mut d, regs::EICS, 0b1_0000);
        assert_eq!(probes[4].hits(), 1);
        // PBA reflects a masked vector's pending message.
        d.irqs.action(INDEX_MSIX, 1, &[true], crate::irq_lines::IrqAction::Mask, false);
        w32(&mut d, regs::EICS, 0b10);
        let mut pba = [0u8; 8];
        d.read(REGION_BAR3, MSIX_PBA_OFFSET, &mut pba).unwrap();
        assert_eq!(pba[0], 0b10);
    }

    #[test]
    fn eitr_deferred_firing_of_masked_vector_goes_to_pba() {
        let clock = Arc::new(VirtualClock::new(0));
        let cfg = MacConfig { mac_addr: [2, 0, 0, 0, 0, 1], ptp: PtpConfig::default() };
        let mut d = Device::new(0x15F3, cfg, clock.clone());
        let probes: Vec<Probe> = (0..5).map(|_| Probe::default()).collect();
        let t = probes.iter().map(|p| Some(Box::new(p.clone()) as Box<dyn Notifier>)).collect();
        d.irqs.set_triggers(INDEX_MSIX, 0, t);
        w32(&mut d, regs::GPIE, 0xC000_0011);
        w32(&mut d, regs::EITR0 + 8, 0x8000_0000 | (196 & 0x7FFC)); // 49 µs
        w32(&mut d, regs::EIMS, 0x1F);
        w32(&mut d, regs::EICS, 1 << 2);
        assert_eq!(probes[2].hits(), 1);
        w32(&mut d, regs::EICS, 1 << 2);
        assert_eq!(probes[2].hits(), 1, "held by EITR(2)");
        assert_eq!(d.mac.next_irq_deadline(), Some(49_000));
        // The client masks the vector; the deferred message becomes pending.
        d.irqs.action(INDEX_MSIX, 2, &[true], crate::irq_lines::IrqAction::Mask, false);
        clock.advance(49_000);
        d.deliver_irqs();
        assert_eq!(probes[2].hits(), 1);
        assert_eq!(d.irqs.msix_pending(), 1 << 2);
        d.irqs.action(INDEX_MSIX, 2, &[true], crate::irq_lines::IrqAction::Unmask, false);
        assert_eq!(probes[2].hits(), 2);
        assert_eq!(d.irqs.msix_pending(), 0);
    }
}
