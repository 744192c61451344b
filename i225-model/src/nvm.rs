// SPDX-License-Identifier: GPL-2.0

//! The NVM (flash shadow RAM) and its EERD / SRWR access registers.
//!
//! Model choice: the device reports `EECD.FLASH_DETECTED`, so the C driver
//! takes the "flash present" path: it reads words through EERD under the
//! SW/FW semaphore and validates the checksum at probe. The image is
//! generated at start-up with the MAC address in words 0..2 and the word at
//! 0x3F chosen so that words 0x00..=0x3F sum to 0xBABA.

use crate::regs::{eecd, nvm_rw};

/// Number of 16-bit words in the image (EECD size field 5 => 2^(5+6)).
pub const NVM_WORDS: usize = 2048;
const EECD_SIZE_FIELD: u32 = 5;
/// Word holding the checksum.
pub const CHECKSUM_WORD: usize = 0x3F;
/// Words 0..=CHECKSUM_WORD must sum to this value.
pub const CHECKSUM_SUM: u16 = 0xBABA;
/// "Dev starter" version word, shown by `ethtool -i`.
pub const DEV_STARTER_WORD: usize = 0x05;
/// Version reported in the dev starter word.
pub const DEV_STARTER_VERSION: u16 = 0x1079;

/// The NVM image plus the state of its access registers.
#[derive(Clone, Debug)]
pub struct Nvm {
    words: Vec<u16>,
    eerd: u32,
    srwr: u32,
    /// A flash update (EECD.FLUPD) is pending.
    dirty: bool,
}

impl Nvm {
    /// Builds a valid image for `mac`.
    pub fn new(mac: [u8; 6]) -> Self {
        let mut words = vec![0xFFFF; NVM_WORDS];
        words[..CHECKSUM_WORD].fill(0);
        for (i, pair) in mac.chunks(2).enumerate() {
            words[i] = u16::from_le_bytes([pair[0], pair[1]]);
        }
        words[DEV_STARTER_WORD] = DEV_STARTER_VERSION;
        let mut nvm = Nvm { words, eerd: 0, srwr: 0, dirty: false };
        nvm.fix_checksum();
        nvm
    }

    /// Recomputes the checksum word.
    pub fn fix_checksum(&mut self) {
        let sum = self.sum();
        let old = self.words[CHECKSUM_WORD];
        self.words[CHECKSUM_WORD] = old.wrapping_add(CHECKSUM_SUM.wrapping_sub(sum));
    }

    /// 16-bit sum of words 0..=0x3F.
    pub fn sum(&self) -> u16 {
        self.words[..=CHECKSUM_WORD].iter().fold(0u16, |a, w| a.wrapping_add(*w))
    }

    pub fn word(&self, addr: usize) -> Option<u16> {
        self.words.get(addr).copied()
    }

    /// MAC address stored in words 0..2.
    pub fn mac(&self) -> [u8; 6] {
        let mut mac = [0u8; 6];
        for i in 0..3 {
            mac[2 * i..2 * i + 2].copy_from_slice(&self.words[i].to_le_bytes());
        }
        mac
    }

    /// EECD bits contributed by the NVM (size field, flash present, done).
    pub fn eecd_bits(&self) -> u32 {
        (EECD_SIZE_FIELD << eecd::SIZE_SHIFT) | eecd::FLASH_DETECTED | eecd::FLUDONE
    }

    /// Handles a write to EECD.FLUPD: commits the shadow RAM to "flash".
    /// The model commits instantly, so FLUDONE stays set.
    pub fn flash_update(&mut self) {
        self.dirty = false;
    }

    pub fn read_eerd(&self) -> u32 {
        self.eerd
    }

    /// A write to EERD: a read request completes at once.
    pub fn write_eerd(&mut self, val: u32) {
        if val & nvm_rw::START == 0 {
            self.eerd = val & !nvm_rw::DONE;
            return;
        }
        let addr = ((val >> nvm_rw::ADDR_SHIFT) & nvm_rw::ADDR_MASK) as usize;
        // Out-of-range reads return erased flash.
        let data = self.word(addr).unwrap_or(0xFFFF);
        self.eerd =
            (u32::from(data) << nvm_rw::DATA_SHIFT) | (val & (nvm_rw::ADDR_MASK << nvm_rw::ADDR_SHIFT)) | nvm_rw::DONE;
    }

    pub fn read_srwr(&self) -> u32 {
        self.srwr
    }

    /// A write to SRWR (EEWR): a shadow RAM write completes at once.
    pub fn write_srwr(&mut self, val: u32) {
        if val & nvm_rw::START != 0 {
            let addr = ((val >> nvm_rw::ADDR_SHIFT) & nvm_rw::ADDR_MASK) as usize;
            if let Some(w) = self.words.get_mut(addr) {
                *w = (val >> nvm_rw::DATA_SHIFT) as u16;
                self.dirty = true;
            }
        }
        self.srwr = (val & !nvm_rw::START) | nvm_rw::DONE;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAC: [u8; 6] = [0x02, 0x1a, 0x25, 0x00, 0x00, 0x01];

    #[test]
    fn image_checksum_is_baba() {
        let nvm = Nvm::new(MAC);
        assert_eq!(nvm.sum(), 0xBABA);
        assert_eq!(nvm.mac(), MAC);
    }

    #[test]
    fn eerd_read_returns_data_in_high_half() {
        let mut nvm = Nvm::new(MAC);
        nvm.write_eerd((1 << nvm_rw::ADDR_SHIFT) | nvm_rw::START);
        let v = nvm.read_eerd();
        assert_ne!(v & nvm_rw::DONE, 0);
        assert_eq!(v >> 16, 0x0025);
    }

    #[test]
    fn srwr_write_then_fix_checksum() {
        let mut nvm = Nvm::new(MAC);
        nvm.write_srwr((0x10 << nvm_rw::ADDR_SHIFT) | (0x1234 << 16) | nvm_rw::START);
        assert_ne!(nvm.read_srwr() & nvm_rw::DONE, 0);
        assert_eq!(nvm.word(0x10), Some(0x1234));
        assert_ne!(nvm.sum(), 0xBABA);
        nvm.fix_checksum();
        assert_eq!(nvm.sum(), 0xBABA);
    }
}
