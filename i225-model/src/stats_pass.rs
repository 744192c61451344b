// SPDX-License-Identifier: GPL-2.0

//! How long a driver's statistics pass takes: the host time from the first to
//! the last read of the statistics block (clear-on-read counters) in one
//! burst. Every MMIO read is a round trip from the guest to this process, so
//! a pass of some sixty reads lasts long enough to show what a driver holds
//! while it reads them (igc: a spinlock with preemption off; rigc: a mutex).

use std::time::{Duration, Instant};

use crate::lateness::Lateness;
use crate::regs::{STATS_END, STATS_START};

/// A gap this long between two reads of the statistics block ends a pass.
pub const GAP: Duration = Duration::from_millis(2);
/// Fewer reads than this in a burst are not a pass (a test reading one
/// counter, a self-test).
pub const MIN_READS: u32 = 16;

/// The passes seen since the last clear.
#[derive(Clone, Debug, Default)]
pub struct StatsPasses {
    /// The pass under way: its first read, its last read, its read count.
    current: Option<(Instant, Instant, u32)>,
    /// Each pass's duration, first to last read, in host ns.
    pub durations: Lateness,
    /// Reads in the most recent pass.
    pub last_reads: u32,
}

impl StatsPasses {
    /// Whether a BAR0 offset is in the statistics block.
    pub fn covers(off: u32) -> bool {
        (STATS_START..STATS_END).contains(&off)
    }

    /// A read of the statistics block at `now`.
    pub fn read(&mut self, now: Instant) {
        match &mut self.current {
            Some((_, last, n)) if now.duration_since(*last) < GAP => {
                *last = now;
                *n += 1;
            }
            _ => {
                self.close();
                self.current = Some((now, now, 1));
            }
        }
    }

    /// Ends the pass under way if it has been quiet for [`GAP`] at `now`.
    pub fn settle(&mut self, now: Instant) {
        if matches!(self.current, Some((_, last, _)) if now.duration_since(last) >= GAP) {
            self.close();
        }
    }

    fn close(&mut self) {
        if let Some((first, last, n)) = self.current.take() {
            if n >= MIN_READS {
                self.durations.record(last.duration_since(first).as_nanos() as u64);
                self.last_reads = n;
            }
        }
    }

    pub fn clear(&mut self) {
        *self = StatsPasses::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_of_reads_is_one_pass_and_a_gap_ends_it() {
        let t0 = Instant::now();
        let mut p = StatsPasses::default();
        let us = |n: u64| t0 + Duration::from_micros(n);
        // Sixty reads 50 us apart: one pass of 2,950 us.
        for i in 0..60 {
            p.read(us(50 * i));
        }
        assert_eq!(p.durations.count, 0, "a pass is counted once it ends");
        p.settle(us(50 * 59 + 1000));
        assert_eq!(p.durations.count, 0, "1 ms of quiet does not end it");
        p.settle(us(50 * 59 + 2000));
        assert_eq!(p.durations.summary().max_ns, Some(2_950_000));
        assert_eq!(p.last_reads, 60);
        // A lone read (a test reading one counter) is no pass.
        p.read(us(100_000));
        p.settle(us(200_000));
        assert_eq!(p.durations.count, 1);
        // A new burst after a gap starts a new pass and ends the old one.
        for i in 0..20 {
            p.read(us(300_000 + 10 * i));
        }
        for i in 0..20 {
            p.read(us(310_000 + 10 * i));
        }
        p.settle(us(400_000));
        assert_eq!(p.durations.count, 3);
        p.clear();
        assert_eq!(p.durations.count, 0);
    }

    #[test]
    fn the_block_is_the_statistics_registers() {
        assert!(StatsPasses::covers(0x4000) && StatsPasses::covers(0x4124));
        assert!(!StatsPasses::covers(0x3fff) && !StatsPasses::covers(STATS_END));
    }
}
