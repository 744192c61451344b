// SPDX-License-Identifier: GPL-2.0

//! The semaphore the driver shares with the firmware, and the NVM (`igc_i225.c`, `igc_nvm.c`):
//! words read through EERD and the checksum.
//!
//! The PHY and the NVM are shared with the I225's firmware: the driver takes the software
//! semaphore (SWSM), then claims the resource in SW_FW_SYNC, and gives it back when done. Here
//! the claim is a [`SwFw`] guard: the PHY and NVM accesses take it as a parameter, so they do
//! not compile outside it, and dropping it releases the resource.

use core::marker::PhantomData;

use kernel::{
    prelude::*,
    sync::atomic::Relaxed,
    time::{delay::fsleep, Delta},
};

use crate::{
    hw::Hw,
    regs::{
        SwFwResource, EECD, EERD, NVM_CHECKSUM_REG, NVM_DEV_STARTER, NVM_SUM, SWSM, SW_FW_SYNC,
    },
};

/// A resource [`SW_FW_SYNC`] arbitrates, as a type.
pub(crate) trait Resource {
    const BIT: SwFwResource;
}

/// The NVM (`IGC_SWFW_EEP_SM`).
pub(crate) struct Nvm;
/// The PHY (`IGC_SWFW_PHY0_SM`).
pub(crate) struct Phy;

impl Resource for Nvm {
    const BIT: SwFwResource = SwFwResource::Nvm;
}

impl Resource for Phy {
    const BIT: SwFwResource = SwFwResource::Phy;
}

/// Resource `R`, held by the driver in SW_FW_SYNC until dropped.
pub(crate) struct SwFw<'a, R: Resource> {
    hw: &'a Hw,
    _resource: PhantomData<R>,
}

/// `igc_acquire_swfw_sync_i225`: up to 200 tries 5 ms apart while the firmware holds it.
const SWFW_TRIES: u32 = 200;

impl Hw {
    /// Tries of the SWSM semaphore (`igc_get_hw_semaphore_i225`: the NVM's word count + 1,
    /// 500 us apart).
    fn semaphore_tries(&self) -> u32 {
        self.read(EECD).nvm_word_size() + 1
    }

    /// `igc_put_hw_semaphore`.
    fn put_hw_semaphore(&self) {
        self.update(SWSM, |s: SWSM| s.with_smbi(false).with_swesmbi(false));
    }

    /// Waits for SMBI clear (the read that finds it clear sets it): `Ok(false)` after `tries`.
    fn smbi(&self, tries: u32) -> Result<bool> {
        for i in 0..tries {
            if i > 0 {
                fsleep(Delta::from_micros(500));
            }
            let s = self.read(SWSM);
            if s.into_raw() == u32::MAX {
                return Err(ENODEV);
            }
            if !s.smbi() {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// `igc_get_hw_semaphore_i225`: SMBI, then SWESMBI, which latches only while the firmware
    /// does not hold it. A stale SMBI is cleared once in the device's life before giving up, as
    /// igc does. `ENODEV` at once if the device is gone. Process context.
    fn get_hw_semaphore(&self) -> Result {
        let tries = self.semaphore_tries();
        if !self.smbi(tries)? {
            if self.clear_semaphore_once.xchg(false, Relaxed) {
                self.put_hw_semaphore();
            }
            if !self.smbi(tries)? {
                pr_debug!("rigc: driver can't access device - SMBI bit is set\n");
                return Err(EBUSY);
            }
        }
        for i in 0..tries {
            if i > 0 {
                fsleep(Delta::from_micros(500));
            }
            self.update(SWSM, |s: SWSM| s.with_swesmbi(true));
            let s = self.read(SWSM);
            if s.into_raw() == u32::MAX {
                return Err(ENODEV);
            }
            if s.swesmbi() {
                return Ok(());
            }
        }
        self.put_hw_semaphore();
        pr_debug!("rigc: driver can't access the NVM\n");
        Err(EBUSY)
    }

    /// Claims resource `R` from the firmware (`igc_acquire_swfw_sync_i225`). Process context.
    pub(crate) fn swfw<R: Resource>(&self) -> Result<SwFw<'_, R>> {
        let bit = R::BIT as u32;
        for i in 0..SWFW_TRIES {
            if i > 0 {
                fsleep(Delta::from_millis(5));
            }
            self.get_hw_semaphore()?;
            let sync = self.read(SW_FW_SYNC);
            if sync.into_raw() == u32::MAX {
                self.put_hw_semaphore();
                return Err(ENODEV);
            }
            if (sync.sw().get() | sync.fw().get()) & bit == 0 {
                self.write_reg(SW_FW_SYNC::from_raw(sync.into_raw() | bit));
                self.put_hw_semaphore();
                return Ok(SwFw {
                    hw: self,
                    _resource: PhantomData,
                });
            }
            // The firmware is using it.
            self.put_hw_semaphore();
        }
        pr_debug!("rigc: driver can't access resource, SW_FW_SYNC timeout\n");
        Err(EBUSY)
    }

    /// Reads NVM word `offset` through EERD (`igc_read_nvm_eerd`: up to 100000 polls 5 us
    /// apart), with the NVM claimed.
    pub(crate) fn nvm_read(&self, _nvm: &SwFw<'_, Nvm>, offset: u16) -> Result<u16> {
        let addr = kernel::num::Bounded::try_new(u32::from(offset)).ok_or(EINVAL)?;
        self.write_reg(EERD::zeroed().with_addr(addr).with_start(true));
        for _ in 0..100_000 {
            let e = self.read(EERD);
            if e.into_raw() == u32::MAX {
                return Err(ENODEV);
            }
            if e.done() {
                return Ok(e.data().get() as u16);
            }
            fsleep(Delta::from_micros(5));
        }
        Err(ETIMEDOUT)
    }

    /// The NVM image version (word [`NVM_DEV_STARTER`]), the first half of `ethtool -i`'s
    /// firmware version (`igc_ethtool_get_drvinfo`). Process context.
    pub(crate) fn nvm_version(&self) -> Result<u16> {
        let nvm = self.swfw::<Nvm>()?;
        self.nvm_read(&nvm, NVM_DEV_STARTER)
    }

    /// Checks the NVM checksum (`igc_validate_nvm_checksum_i225`): words 0 to the checksum
    /// word sum to 0xBABA. Process context.
    pub(crate) fn validate_nvm_checksum(&self) -> Result {
        let nvm = self.swfw::<Nvm>()?;
        let mut sum = 0u16;
        for w in 0..=NVM_CHECKSUM_REG {
            sum = sum.wrapping_add(self.nvm_read(&nvm, w)?);
        }
        if sum == NVM_SUM {
            Ok(())
        } else {
            Err(EIO)
        }
    }
}

impl<R: Resource> Drop for SwFw<'_, R> {
    /// `igc_release_swfw_sync_i225`: without the semaphore nothing can be released; igc then
    /// logs and gives up rather than hang, and so does this.
    fn drop(&mut self) {
        if self.hw.get_hw_semaphore().is_err() {
            pr_debug!("rigc: failed to release SW_FW_SYNC\n");
            return;
        }
        let bit = R::BIT as u32;
        self.hw.update(SW_FW_SYNC, |s: SW_FW_SYNC| {
            SW_FW_SYNC::from_raw(s.into_raw() & !bit)
        });
        self.hw.put_hw_semaphore();
    }
}
