// SPDX-License-Identifier: GPL-2.0

//! How late the model's timed events happen against their due time: the PTP
//! events (SYS_WRAP at each second of SYSTIM0, the target times, the pulse
//! source's edges, the clock outputs' edges) and the interrupts EITR
//! moderation held back. The port's worker sleeps until the
//! earliest of them is due, whatever the traffic, so these figures are the
//! host's scheduling latency, not the model's design.

use std::collections::VecDeque;

/// How many of the most recent samples the percentiles come from.
pub const KEPT: usize = 1 << 16;

/// Lateness samples in host nanoseconds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lateness {
    /// The most recent [`KEPT`] samples.
    samples: VecDeque<u64>,
    /// Every sample since the last clear.
    pub count: u64,
    pub max_ns: u64,
}

/// Percentiles of the kept samples (`None` without samples).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LatenessSummary {
    pub count: u64,
    pub p50_ns: Option<u64>,
    pub p99_ns: Option<u64>,
    pub max_ns: Option<u64>,
}

impl Lateness {
    pub fn record(&mut self, ns: u64) {
        if self.samples.len() == KEPT {
            self.samples.pop_front();
        }
        self.samples.push_back(ns);
        self.count += 1;
        self.max_ns = self.max_ns.max(ns);
    }

    pub fn clear(&mut self) {
        *self = Lateness::default();
    }

    pub fn summary(&self) -> LatenessSummary {
        let mut s: Vec<u64> = self.samples.iter().copied().collect();
        s.sort_unstable();
        // Nearest rank: the smallest sample with at least p% of them at or below it.
        let rank = |p: usize| (!s.is_empty()).then(|| s[(s.len() * p).div_ceil(100).max(1) - 1]);
        LatenessSummary {
            count: self.count,
            p50_ns: rank(50),
            p99_ns: rank(99),
            max_ns: (self.count > 0).then_some(self.max_ns),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_by_nearest_rank() {
        let mut l = Lateness::default();
        assert_eq!(l.summary(), LatenessSummary::default());
        for ns in 1..=100 {
            l.record(ns * 1000);
        }
        let s = l.summary();
        assert_eq!((s.count, s.p50_ns, s.p99_ns, s.max_ns), (100, Some(50_000), Some(99_000), Some(100_000)));
        l.clear();
        assert_eq!(l.summary().count, 0);
    }
}
