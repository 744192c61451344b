// SPDX-License-Identifier: GPL-2.0

//! Register access after probe, and the MAC sequences of `igc_base.c` and `igc_mac.c`: reset and
//! MAC address. The PHY is in `phy.rs`, the descriptor rings in `desc.rs`.

use kernel::{
    device,
    io::{
        poll::read_poll_timeout,
        register::{LocatedRegister, Register, RegisterArray, RegisterArrayLoc},
        Io, IoLoc, Region,
    },
    pci,
    prelude::*,
    sync::atomic::{Atomic, Relaxed},
    time::{delay::fsleep, Delta},
};

use crate::regs::{TestReg, BAR0_SIZE, CTRL, EECD, ICR, IMC, RAH, RAL, RCTL, STATUS, TCTL};

/// Polls of STATUS.GIO_MASTER_ENABLE before a MAC reset, 2 ms apart (`MASTER_DISABLE_TIMEOUT`).
const MASTER_DISABLE_TIMEOUT: i64 = 800;

/// The register space of a bound device, revoked when it is unbound.
///
/// Reads return all ones and writes are dropped once the device is gone: unbound (the mapping
/// is revoked), or surprise removed, which the first all-ones read confirmed by CTRL latches
/// for good, as `igc_rd32` does (it clears `hw_addr`): no MMIO after that, but for the
/// transmit tail ([`Hw::write_at_bound`]), which igc writes without the check too.
pub(crate) struct Hw {
    bar: pci::DevresBar<BAR0_SIZE>,
    removed: Atomic<bool>,
    /// A stale SWSM.SMBI may still be cleared once (`clear_semaphore_once`, see `nvm.rs`).
    pub(crate) clear_semaphore_once: Atomic<bool>,
}

impl Hw {
    pub(crate) fn new(bar: pci::DevresBar<BAR0_SIZE>) -> Self {
        Self {
            bar,
            removed: Atomic::new(false),
            clear_semaphore_once: Atomic::new(true),
        }
    }

    fn raw_rd(&self, off: usize) -> u32 {
        self.bar
            .try_access()
            .and_then(|bar| bar.try_read32(off).ok())
            .unwrap_or(u32::MAX)
    }

    /// Reads the register at `off`; all ones if the device is gone. An all-ones value that CTRL
    /// confirms (no register of the I225 reads all ones while the device is there) latches the
    /// removal (`igc_rd32`).
    fn rd(&self, off: usize) -> u32 {
        if self.removed.load(Relaxed) {
            return u32::MAX;
        }
        let v = self.raw_rd(off);
        if v == u32::MAX
            && (off == <CTRL as Register>::OFFSET
                || self.raw_rd(<CTRL as Register>::OFFSET) == u32::MAX)
            && !self.removed.xchg(true, Relaxed)
        {
            pr_err!("PCIe link lost, device now detached (read 0x{off:x})\n");
        }
        v
    }

    /// Writes the register at `off`; dropped if the device is gone.
    fn wr(&self, off: usize, val: u32) {
        if self.removed.load(Relaxed) {
            return;
        }
        if let Some(bar) = self.bar.try_access() {
            let _ = bar.try_write32(val, off);
        }
    }

    /// [`Hw::wr`] from a context that holds the bound device `dev`: the BAR is reached through
    /// it, with no RCU read section, as it cannot be revoked while `dev` is bound. The write
    /// goes out even once the removal is latched, as igc writes its tail registers
    /// (`writel(i, tx_ring->tail)`): the bus drops a write to a device that is gone, and the
    /// transmit path is spared a load of the flag per packet.
    #[inline(always)]
    fn wr_bound(&self, dev: &device::Device<device::Bound>, off: usize, val: u32) {
        match self.bar.access(dev) {
            Ok(bar) => {
                let _ = bar.try_write32(val, off);
            }
            // Not the BAR's device: the guarded way.
            Err(_) => self.wr(off, val),
        }
    }

    /// Reads a register of the offline register test's table ([`crate::regs::REG_TEST`]).
    pub(crate) fn test_read(&self, t: TestReg) -> u32 {
        self.rd(t.offset())
    }

    /// Writes a register of the offline register test's table.
    pub(crate) fn test_write(&self, t: TestReg, val: u32) {
        self.wr(t.offset(), val)
    }

    /// Reads a register: `hw.read(regs::CTRL)`; all ones if the device is gone.
    pub(crate) fn read<R: From<u32>, L: IoLoc<Region<BAR0_SIZE>, R, IoType = u32>>(
        &self,
        loc: L,
    ) -> R {
        self.rd(loc.offset()).into()
    }

    /// Reads register `idx` of an array: `hw.read_at::<regs::TDH>(q)`; all ones if the device is
    /// gone or `idx` is past the array.
    pub(crate) fn read_at<R>(&self, idx: usize) -> R
    where
        R: RegisterArray + From<u32>,
        RegisterArrayLoc<R>: IoLoc<Region<BAR0_SIZE>, R, IoType = u32>,
    {
        match RegisterArrayLoc::<R>::try_new(idx) {
            Some(loc) => self.read(loc),
            None => R::from(u32::MAX),
        }
    }

    /// Writes a register value at its own location: `hw.write_reg(regs::RCTL::zeroed()...)`.
    pub(crate) fn write_reg<R, L, V>(&self, value: V)
    where
        u32: From<R>,
        V: LocatedRegister<Region<BAR0_SIZE>, Location = L, Value = R>,
        L: IoLoc<Region<BAR0_SIZE>, R, IoType = u32>,
    {
        let (loc, value) = value.into_io_op();
        self.wr(loc.offset(), u32::from(value));
    }

    /// Writes register `idx` of an array; dropped if `idx` is past the array.
    pub(crate) fn write_at<R>(&self, idx: usize, value: R)
    where
        R: RegisterArray,
        u32: From<R>,
        RegisterArrayLoc<R>: IoLoc<Region<BAR0_SIZE>, R, IoType = u32>,
    {
        if let Some(loc) = RegisterArrayLoc::<R>::try_new(idx) {
            self.wr(loc.offset(), u32::from(value));
        }
    }

    /// [`Hw::write_at`] from a context that holds the bound device `dev` (the transmit path,
    /// a NAPI poll), through [`Hw::wr_bound`]. Always inlined: the transmit path's tail write
    /// costs a call and its register saves otherwise.
    #[inline(always)]
    pub(crate) fn write_at_bound<R>(
        &self,
        dev: &device::Device<device::Bound>,
        idx: usize,
        value: R,
    ) where
        R: RegisterArray,
        u32: From<R>,
        RegisterArrayLoc<R>: IoLoc<Region<BAR0_SIZE>, R, IoType = u32>,
    {
        if let Some(loc) = RegisterArrayLoc::<R>::try_new(idx) {
            self.wr_bound(dev, loc.offset(), u32::from(value));
        }
    }

    /// Read-modify-writes a register. Nothing is written if the read found the device gone
    /// (all ones would be written back).
    pub(crate) fn update<R, L>(&self, loc: L, f: impl FnOnce(R) -> R)
    where
        R: From<u32>,
        u32: From<R>,
        L: IoLoc<Region<BAR0_SIZE>, R, IoType = u32>,
    {
        let off = loc.offset();
        let v = self.rd(off);
        if !self.removed() {
            self.wr(off, u32::from(f(v.into())));
        }
    }

    /// [`Hw::update`] of register `idx` of an array.
    pub(crate) fn update_at<R>(&self, idx: usize, f: impl FnOnce(R) -> R)
    where
        R: RegisterArray + From<u32>,
        u32: From<R>,
        RegisterArrayLoc<R>: IoLoc<Region<BAR0_SIZE>, R, IoType = u32>,
    {
        if let Some(loc) = RegisterArrayLoc::<R>::try_new(idx) {
            self.update(loc, f);
        }
    }

    /// Returns whether the removal of the device was latched (no MMIO any more).
    pub(crate) fn removed(&self) -> bool {
        self.removed.load(Relaxed)
    }

    /// Flushes posted writes (`wrfl()`).
    pub(crate) fn flush(&self) {
        let _ = self.read(STATUS);
    }

    /// Returns whether the device is gone: unbound, or reading all ones from CTRL.
    pub(crate) fn gone(&self) -> bool {
        self.read(CTRL).into_raw() == u32::MAX
    }

    /// Polls register `loc` until `done(value)`, `timeout` at most, `step` apart
    /// (`read_poll_timeout`); `ENODEV` if the device is gone.
    fn poll<R, L>(&self, loc: L, step: Delta, timeout: Delta, done: impl Fn(R) -> bool) -> Result
    where
        R: From<u32>,
        L: IoLoc<Region<BAR0_SIZE>, R, IoType = u32>,
    {
        let off = loc.offset();
        read_poll_timeout(
            || Ok(self.rd(off)),
            |&v| v == u32::MAX || done(v.into()),
            step,
            timeout,
        )
        .and_then(|v| if v == u32::MAX { Err(ENODEV) } else { Ok(()) })
    }

    /// Global MAC reset, as `igc_reset_hw_base`: stop DMA, mask interrupts, disable RX/TX,
    /// reset, wait for the NVM auto-read, clear causes. Process context.
    pub(crate) fn reset(&self) -> Result {
        // `igc_disable_pcie_master`: up to 800 polls 2-3 ms apart for the requests in flight;
        // the reset goes on without them, as igc's, but only after that.
        self.update(CTRL, |c: CTRL| c.with_gio_master_disable(true));
        if self
            .poll(
                STATUS,
                Delta::from_millis(2),
                Delta::from_millis(2 * MASTER_DISABLE_TIMEOUT),
                |s: STATUS| !s.gio_master_enable(),
            )
            .is_err()
        {
            pr_debug!("rigc: PCI-E Master disable polling has failed\n");
        }
        self.write_reg(IMC::from_raw(u32::MAX));
        self.write_reg(RCTL::zeroed());
        self.write_reg(TCTL::zeroed().with_psp(true));
        self.flush();
        fsleep(Delta::from_millis(10));
        self.update(CTRL, |c: CTRL| c.with_rst(true));
        // igc_get_auto_rd_done: up to 10 ms for EECD.AUTO_RD. As in igc, a part whose NVM has
        // not been read by then (a blank NVM, IDs 0x125F and 0x15FD) is said so in the debug
        // log and goes on: `igc_probe` and `igc_reset` do not fail on it. A device that is
        // gone still fails the reset.
        match self.poll(
            EECD,
            Delta::from_millis(1),
            Delta::from_millis(10),
            |e: EECD| e.auto_rd(),
        ) {
            Err(e) if e == ENODEV => return Err(e),
            Err(_) => pr_debug!("rigc: Auto read by HW from NVM has not completed.\n"),
            Ok(()) => {}
        }
        self.write_reg(IMC::from_raw(u32::MAX));
        let _ = self.read(ICR);
        Ok(())
    }

    /// Reads the MAC address the NVM loaded into receive address 0 (`igc_read_mac_addr`).
    pub(crate) fn read_mac(&self) -> [u8; 6] {
        let lo = self.read_at::<RAL>(0).addr().get().to_le_bytes();
        let hi = self.read_at::<RAH>(0).addr().get().to_le_bytes();
        [lo[0], lo[1], lo[2], lo[3], hi[0], hi[1]]
    }

    /// Programs receive address 0 (`igc_rar_set`).
    pub(crate) fn set_rar0(&self, mac: &[u8; 6]) {
        let lo = u32::from_le_bytes([mac[0], mac[1], mac[2], mac[3]]);
        let hi = u16::from_le_bytes([mac[4], mac[5]]);
        self.write_at(0, RAL::zeroed().with_addr(lo));
        self.flush();
        self.write_at(0, RAH::zeroed().with_addr(hi).with_av(true));
        self.flush();
    }
}
