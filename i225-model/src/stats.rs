// SPDX-License-Identifier: GPL-2.0

//! The statistics block at 0x4000..0x42A4. Every counter clears when read.
//! The octet counters are 64-bit pairs (low register, high register at +4):
//! reading the low half does not clear, reading the high half returns the
//! upper 32 bits and clears the whole counter ("read high to clear low").

use crate::regs::{STATS_END, STATS_START};

pub const CRCERRS: u32 = 0x4000;
pub const MPC: u32 = 0x4010;
pub const PRC64: u32 = 0x405C;
pub const GPRC: u32 = 0x4074;
pub const BPRC: u32 = 0x4078;
pub const MPRC: u32 = 0x407C;
pub const GPTC: u32 = 0x4080;
pub const GORCL: u32 = 0x4088;
pub const GOTCL: u32 = 0x4090;
pub const RNBC: u32 = 0x40A0;
pub const RUC: u32 = 0x40A4;
pub const ROC: u32 = 0x40AC;
pub const TORL: u32 = 0x40C0;
pub const TOTL: u32 = 0x40C8;
pub const TPR: u32 = 0x40D0;
pub const TPT: u32 = 0x40D4;
pub const PTC64: u32 = 0x40D8;
pub const MPTC: u32 = 0x40F0;
pub const BPTC: u32 = 0x40F4;
pub const TSCTC: u32 = 0x40F8;
pub const HGPTC: u32 = 0x4118;
pub const HGORCL: u32 = 0x4128;
pub const HGOTCL: u32 = 0x4130;

/// Low halves of the 64-bit counters.
const PAIRS: [u32; 6] = [GORCL, GOTCL, TORL, TOTL, HGORCL, HGOTCL];

const COUNT: usize = ((STATS_END - STATS_START) / 4) as usize;

#[derive(Clone, Debug)]
pub struct Stats {
    counters: Vec<u64>,
}

impl Default for Stats {
    fn default() -> Self {
        Self::new()
    }
}

fn index(off: u32) -> usize {
    ((off - STATS_START) / 4) as usize
}

/// Index of the size bucket (64, 65-127, ... 1024-1522) of a frame length
/// counted with its FCS.
pub fn size_bucket(len_with_fcs: usize) -> u32 {
    match len_with_fcs {
        0..=64 => 0,
        65..=127 => 1,
        128..=255 => 2,
        256..=511 => 3,
        512..=1023 => 4,
        _ => 5,
    }
}

impl Stats {
    pub fn new() -> Self {
        Stats { counters: vec![0; COUNT] }
    }

    pub fn contains(off: u32) -> bool {
        (STATS_START..STATS_END).contains(&off)
    }

    pub fn clear(&mut self) {
        self.counters.fill(0);
    }

    /// Adds to a counter (32-bit counters saturate like the hardware's).
    pub fn add(&mut self, counter: u32, n: u64) {
        let i = index(counter);
        let c = &mut self.counters[i];
        *c = if PAIRS.contains(&counter) { c.wrapping_add(n) } else { (*c + n).min(u64::from(u32::MAX)) };
    }

    /// Peeks at a counter without the read side effect.
    pub fn peek(&self, counter: u32) -> u64 {
        self.counters[index(counter)]
    }

    /// A register read, with the clear-on-read side effect.
    pub fn read(&mut self, off: u32) -> u32 {
        let off = off & !3;
        if PAIRS.contains(&off) {
            return self.counters[index(off)] as u32;
        }
        if off >= 4 && PAIRS.contains(&(off - 4)) {
            let low = index(off - 4);
            return (std::mem::take(&mut self.counters[low]) >> 32) as u32;
        }
        std::mem::take(&mut self.counters[index(off)]) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_clear_on_read() {
        let mut s = Stats::new();
        s.add(GPRC, 3);
        assert_eq!(s.read(GPRC), 3);
        assert_eq!(s.read(GPRC), 0);
    }

    #[test]
    fn octet_pair_clears_on_high_read() {
        let mut s = Stats::new();
        s.add(GORCL, 0x1_2345_6789);
        assert_eq!(s.read(GORCL), 0x2345_6789);
        assert_eq!(s.read(GORCL), 0x2345_6789, "low read does not clear");
        assert_eq!(s.read(GORCL + 4), 1);
        assert_eq!(s.read(GORCL), 0);
        assert_eq!(s.read(GORCL + 4), 0);
    }

    #[test]
    fn buckets() {
        assert_eq!(size_bucket(64), 0);
        assert_eq!(size_bucket(65), 1);
        assert_eq!(size_bucket(1518), 5);
    }
}
