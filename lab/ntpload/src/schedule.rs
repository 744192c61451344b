// SPDX-License-Identifier: GPL-2.0

//! Rate steps and the send schedule within a step.

/// ntpperf's cap on simulated clients.
pub const MAX_AUTO_CLIENTS: u32 = 16384;
/// ntpperf's per-client request rate when the client count follows the rate.
pub const AUTO_CLIENT_RATE: u64 = 10;

/// The step rates: `start`, then each previous rate times `factor` (truncated
/// to an integer, as ntpperf does), at most `steps` of them and none above
/// `max_rate`.
pub fn step_rates(start: u64, factor: f64, steps: u32, max_rate: u64) -> Vec<u64> {
    let mut rates = Vec::new();
    let mut rate = start;
    while rates.len() < steps as usize && rate <= max_rate && rate > 0 {
        rates.push(rate);
        rate = (rate as f64 * factor) as u64;
    }
    rates
}

/// ntpperf's client count for a rate: one client per 10 requests/s (each
/// client polls at 10 Hz), between 1 and 16384, and no more than the network holds.
pub fn auto_clients(rate: u64, hosts: u32) -> u32 {
    (rate / AUTO_CLIENT_RATE).clamp(1, u64::from(MAX_AUTO_CLIENTS.min(hosts))) as u32
}

/// Evenly spaced send times: request `k` of a step is due at
/// `start_ns + k * 1e9 / rate`, computed exactly so that no rounding error
/// accumulates over a step.
#[derive(Clone, Copy, Debug)]
pub struct Schedule {
    pub start_ns: i64,
    pub rate: u64,
}

impl Schedule {
    pub fn due_ns(&self, k: u64) -> i64 {
        self.start_ns + (u128::from(k) * 1_000_000_000 / u128::from(self.rate)) as i64
    }
}

/// Requests in a step: two warm-up requests per client (chronyd can answer a
/// new client in interleaved mode from its third request on), then
/// `rate * duration` measured requests.
pub fn step_requests(rate: u64, duration_s: f64, clients: u32) -> (u64, u64) {
    let warmup = 2 * u64::from(clients);
    let measured = (rate as f64 * duration_s).round() as u64;
    (warmup, measured)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_grow_by_factor() {
        // The same sequence as ntpperf's README.
        assert_eq!(step_rates(1000, 1.5, 8, 1_000_000), vec![1000, 1500, 2250, 3375, 5062, 7593, 11389, 17083]);
        assert_eq!(step_rates(1000, 2.0, 3, 1_000_000), vec![1000, 2000, 4000]);
        assert_eq!(step_rates(1000, 1.5, 100, 3000), vec![1000, 1500, 2250]);
        assert_eq!(step_rates(500, 1.0, 3, 1_000_000), vec![500, 500, 500]);
        assert!(step_rates(1000, 1.5, 0, 1_000_000).is_empty());
        assert!(step_rates(2000, 1.5, 5, 1000).is_empty());
    }

    #[test]
    fn clients_follow_rate() {
        assert_eq!(auto_clients(1, 65534), 1);
        assert_eq!(auto_clients(1000, 65534), 100);
        assert_eq!(auto_clients(5062, 65534), 506);
        assert_eq!(auto_clients(1_000_000, 65534), 16384);
        assert_eq!(auto_clients(10_000, 254), 254);
    }

    #[test]
    fn send_times_evenly_spaced() {
        let s = Schedule { start_ns: 1_000, rate: 3 };
        assert_eq!(s.due_ns(0), 1_000);
        assert_eq!(s.due_ns(1), 1_000 + 333_333_333);
        assert_eq!(s.due_ns(2), 1_000 + 666_666_666);
        assert_eq!(s.due_ns(3), 1_000 + 1_000_000_000);
        assert_eq!(s.due_ns(3000), 1_000 + 1_000_000_000_000);
        let s = Schedule { start_ns: 0, rate: 7593 };
        let interval = 1_000_000_000 / 7593; // 131700.8 ns
        let times: Vec<i64> = (0..10_000).map(|k| s.due_ns(k)).collect();
        for w in times.windows(2) {
            let gap = w[1] - w[0];
            assert!(gap == interval || gap == interval + 1, "gap {gap}");
        }
        // No drift: 7593 requests take exactly one second.
        assert_eq!(s.due_ns(7593), 1_000_000_000);
    }

    #[test]
    fn requests_per_step() {
        assert_eq!(step_requests(1000, 2.0, 100), (200, 2000));
        assert_eq!(step_requests(1500, 0.5, 150), (300, 750));
        assert_eq!(step_requests(3, 0.5, 1), (2, 2));
    }
}
