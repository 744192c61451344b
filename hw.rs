// SPDX-License-Identifier: GPL-2.0

//! Register access after probe, and the MAC sequences of `igc_base.c` and `igc_mac.c`: reset and
//! MAC address; the descriptor rings' DMA memory. The PHY is in `phy.rs`.

use kernel::{
    device,
    dma::Coherent,
    io::{io_read, io_write, Io},
    pci,
    prelude::*,
    sync::atomic::{Atomic, Relaxed},
    time::{delay::fsleep, Delta},
};

use crate::regs::{
    bits,
    off,
    BAR0_SIZE, //
};

/// The register space of a bound device, revoked when it is unbound.
///
/// Reads return all ones and writes are dropped once the device is gone: unbound (the mapping
/// is revoked), or surprise removed, which the first all-ones read confirmed by CTRL latches
/// for good, as `igc_rd32` does (it clears `hw_addr`): no MMIO after that.
pub(crate) struct Hw {
    bar: pci::DevresBar<BAR0_SIZE>,
    removed: Atomic<bool>,
}

impl Hw {
    pub(crate) fn new(bar: pci::DevresBar<BAR0_SIZE>) -> Self {
        Self {
            bar,
            removed: Atomic::new(false),
        }
    }

    fn raw_rd(&self, reg: usize) -> u32 {
        self.bar
            .try_access()
            .and_then(|bar| bar.try_read32(reg).ok())
            .unwrap_or(u32::MAX)
    }

    /// Reads a register; all ones if the device is gone. An all-ones value that CTRL confirms
    /// (no register of the I225 reads all ones while the device is there) latches the removal
    /// (`igc_rd32`).
    pub(crate) fn rd(&self, reg: usize) -> u32 {
        if self.removed.load(Relaxed) {
            return u32::MAX;
        }
        let v = self.raw_rd(reg);
        if v == u32::MAX
            && (reg == off::CTRL || self.raw_rd(off::CTRL) == u32::MAX)
            && !self.removed.xchg(true, Relaxed)
        {
            pr_err!("PCIe link lost, device now detached (read 0x{reg:x})\n");
        }
        v
    }

    /// Writes a register; dropped if the device is gone.
    pub(crate) fn wr(&self, reg: usize, val: u32) {
        if self.removed.load(Relaxed) {
            return;
        }
        if let Some(bar) = self.bar.try_access() {
            let _ = bar.try_write32(val, reg);
        }
    }

    /// Returns whether the removal of the device was latched (no MMIO any more).
    pub(crate) fn removed(&self) -> bool {
        self.removed.load(Relaxed)
    }

    /// Flushes posted writes (`wrfl()`).
    pub(crate) fn flush(&self) {
        let _ = self.rd(off::STATUS);
    }

    /// Returns whether the device is gone: unbound, or reading all ones from CTRL.
    pub(crate) fn gone(&self) -> bool {
        self.rd(off::CTRL) == u32::MAX
    }

    /// Sets bits of a register. Nothing is written if the read found the device gone (all
    /// ones would be written back).
    pub(crate) fn set_bits(&self, reg: usize, mask: u32) {
        let v = self.rd(reg);
        if !self.removed() {
            self.wr(reg, v | mask);
        }
    }

    /// Clears bits of a register; see [`Hw::set_bits`].
    pub(crate) fn clear_bits(&self, reg: usize, mask: u32) {
        let v = self.rd(reg);
        if !self.removed() {
            self.wr(reg, v & !mask);
        }
    }

    /// Polls `reg` until `done(value)` or `tries` polls `step` apart have passed.
    fn poll(&self, reg: usize, tries: u32, step: Delta, done: impl Fn(u32) -> bool) -> Result<u32> {
        for _ in 0..tries {
            let v = self.rd(reg);
            if v == u32::MAX {
                return Err(ENODEV);
            }
            if done(v) {
                return Ok(v);
            }
            fsleep(step);
        }
        Err(ETIMEDOUT)
    }

    /// Global MAC reset, as `igc_reset_hw_base`: stop DMA, mask interrupts, disable RX/TX,
    /// reset, wait for the NVM auto-read, clear causes. Process context.
    pub(crate) fn reset(&self) -> Result {
        self.set_bits(off::CTRL, bits::CTRL_GIO_MASTER_DISABLE);
        if self
            .poll(off::STATUS, 800, Delta::from_micros(100), |s| {
                s & bits::STATUS_GIO_MASTER_ENABLE == 0
            })
            .is_err()
        {
            pr_debug!("rigc: PCIe master disable polling failed\n");
        }
        self.wr(off::IMC, u32::MAX);
        self.wr(off::RCTL, 0);
        self.wr(off::TCTL, bits::TCTL_PSP);
        self.flush();
        fsleep(Delta::from_millis(10));
        let ctrl = self.rd(off::CTRL);
        self.wr(off::CTRL, ctrl | bits::CTRL_RST);
        // igc_get_auto_rd_done: up to 10 ms for EECD.AUTO_RD.
        self.poll(0x10, 10, Delta::from_millis(1), |e| {
            e & bits::EECD_AUTO_RD != 0
        })?;
        self.wr(off::IMC, u32::MAX);
        let _ = self.rd(off::ICR);
        Ok(())
    }

    /// Reads the MAC address the NVM loaded into receive address 0 (`igc_read_mac_addr`).
    pub(crate) fn read_mac(&self) -> [u8; 6] {
        let lo = self.rd(off::ral(0)).to_le_bytes();
        let hi = self.rd(off::rah(0)).to_le_bytes();
        [lo[0], lo[1], lo[2], lo[3], hi[0], hi[1]]
    }

    /// Programs receive address 0 (`igc_rar_set`).
    pub(crate) fn set_rar0(&self, mac: &[u8; 6]) {
        let lo = u32::from_le_bytes([mac[0], mac[1], mac[2], mac[3]]);
        let hi = u32::from(mac[4]) | u32::from(mac[5]) << 8;
        self.wr(off::ral(0), lo);
        self.flush();
        self.wr(off::rah(0), hi | bits::RAH_AV);
        self.flush();
    }
}

/// A descriptor ring in coherent DMA memory, seen as 64-bit words (two per descriptor). The
/// device reads and writes it concurrently, so every access is a single volatile access.
pub(crate) struct Descs(Coherent<[u64]>);

impl Descs {
    /// Allocates a zeroed ring of `count` 16-byte descriptors.
    pub(crate) fn new(dev: &device::Device<device::Bound>, count: u32) -> Result<Self> {
        Ok(Self(Coherent::<u64>::zeroed_slice(
            dev,
            count as usize * 2,
            GFP_KERNEL,
        )?))
    }

    /// Returns the bus address of the ring.
    pub(crate) fn dma_address(&self) -> u64 {
        self.0.dma_address()
    }

    /// Reads 64-bit word `word` (0 if out of range).
    pub(crate) fn read(&self, word: usize) -> u64 {
        let get = || -> Result<u64> { Ok(io_read!(&self.0, [try: word])) };
        get().unwrap_or(0)
    }

    /// Writes 64-bit word `word` (ignored if out of range).
    pub(crate) fn write(&self, word: usize, val: u64) {
        let put = || -> Result {
            io_write!(&self.0, [try: word], val);
            Ok(())
        };
        let _ = put();
    }
}
