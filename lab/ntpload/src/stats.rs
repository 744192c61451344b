// SPDX-License-Identifier: GPL-2.0

//! Per-step counters and running statistics, and the "best rate" rule.

/// Running min/mean/max/standard deviation (Welford's algorithm).
#[derive(Clone, Copy, Debug, Default)]
pub struct Running {
    n: u64,
    mean: f64,
    m2: f64,
    min: i64,
    max: i64,
}

impl Running {
    pub fn add(&mut self, x: i64) {
        if self.n == 0 {
            self.min = x;
            self.max = x;
        } else {
            self.min = self.min.min(x);
            self.max = self.max.max(x);
        }
        self.n += 1;
        let delta = x as f64 - self.mean;
        self.mean += delta / self.n as f64;
        self.m2 += delta * (x as f64 - self.mean);
    }

    pub fn min(&self) -> Option<i64> {
        (self.n > 0).then_some(self.min)
    }

    pub fn max(&self) -> Option<i64> {
        (self.n > 0).then_some(self.max)
    }

    pub fn mean(&self) -> Option<f64> {
        (self.n > 0).then_some(self.mean)
    }

    /// Sample standard deviation (n - 1 in the denominator); needs two values.
    pub fn stddev(&self) -> Option<f64> {
        (self.n > 1).then(|| (self.m2 / (self.n - 1) as f64).sqrt())
    }

    /// `PREFIX_min=.. PREFIX_mean=.. PREFIX_max=.. PREFIX_stddev=..`, with `-` for
    /// values that are not defined.
    pub fn fields(&self, prefix: &str) -> String {
        let int = |v: Option<i64>| v.map_or("-".to_string(), |v| v.to_string());
        let float = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.1}"));
        format!(
            "{prefix}_min={} {prefix}_mean={} {prefix}_max={} {prefix}_stddev={}",
            int(self.min()),
            float(self.mean()),
            int(self.max()),
            float(self.stddev())
        )
    }
}

/// Timestamp source of our RX timestamps in a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TsKind {
    None,
    Hardware,
    Software,
    Mixed,
}

impl TsKind {
    pub fn from_counts(hw: u64, sw: u64) -> TsKind {
        match (hw, sw) {
            (0, 0) => TsKind::None,
            (_, 0) => TsKind::Hardware,
            (0, _) => TsKind::Software,
            _ => TsKind::Mixed,
        }
    }

    pub fn as_str(&self) -> &'static str {
        match self {
            TsKind::None => "-",
            TsKind::Hardware => "hw",
            TsKind::Software => "sw",
            TsKind::Mixed => "mixed",
        }
    }
}

/// Everything measured in one rate step.
#[derive(Clone, Debug, Default)]
pub struct StepResult {
    pub rate: u64,
    pub clients: u32,
    /// Measured requests sent (warm-up requests excluded).
    pub sent: u64,
    pub basic: u64,
    pub interleaved: u64,
    /// Responses that matched no outstanding measured request (late, duplicate, bogus).
    pub invalid: u64,
    pub hw_ts: u64,
    pub sw_ts: u64,
    /// Interleaved: our RX of the previous response - server TX of that response.
    pub offset: Running,
    /// Basic: our RX of this response - its server transmit timestamp.
    pub basic_offset: Running,
    /// Interleaved: server TX - server RX of the previous exchange.
    pub resp_time: Running,
    /// Achieved send rate of the measured requests (requests/s).
    pub tx_rate: f64,
    /// Largest delay of a send behind its scheduled time (ns).
    pub tx_lag_max_ns: i64,
}

/// Fraction of the requested rate below which a step counts as "behind".
pub const MIN_TX_RATE_RATIO: f64 = 0.9;

impl StepResult {
    pub fn received(&self) -> u64 {
        self.basic + self.interleaved
    }

    /// Requests that got no response at all (as ntpperf: invalid responses
    /// are neither received nor lost).
    pub fn lost(&self) -> u64 {
        self.sent.saturating_sub(self.basic + self.interleaved + self.invalid)
    }

    pub fn loss_pct(&self) -> f64 {
        if self.sent == 0 {
            0.0
        } else {
            100.0 * self.lost() as f64 / self.sent as f64
        }
    }

    /// Whether the requests could not be sent at (nearly) the requested rate.
    pub fn behind(&self) -> bool {
        self.tx_rate < MIN_TX_RATE_RATIO * self.rate as f64
    }

    /// A step counts for "best": something was sent, at the requested rate,
    /// nothing lost and every response interleaved.
    pub fn is_clean(&self) -> bool {
        self.sent > 0 && self.lost() == 0 && self.interleaved == self.sent && !self.behind()
    }

    /// ntpperf's stop rule, with its 50% made a parameter: stop after a step
    /// whose lost + invalid responses exceed `max_loss_pct` of the requests.
    pub fn exceeds_loss(&self, max_loss_pct: f64) -> bool {
        (self.lost() + self.invalid) as f64 * 100.0 > max_loss_pct * self.sent as f64
    }

    pub fn line(&self) -> String {
        format!(
            "step rate={} sent={} received={} lost={} loss_pct={:.2} basic={} interleaved={} ts={} {} \
             invalid={} clients={} tx_rate={:.0} tx_lag_max_us={} {} {}",
            self.rate,
            self.sent,
            self.received(),
            self.lost(),
            self.loss_pct(),
            self.basic,
            self.interleaved,
            TsKind::from_counts(self.hw_ts, self.sw_ts).as_str(),
            self.offset.fields("offset"),
            self.invalid,
            self.clients,
            self.tx_rate,
            self.tx_lag_max_ns / 1000,
            self.basic_offset.fields("basic_offset"),
            self.resp_time.fields("resp_time"),
        )
    }
}

/// The highest rate among clean steps, 0 if there is none.
pub fn best_rate(steps: &[StepResult]) -> u64 {
    steps.iter().filter(|s| s.is_clean()).map(|s| s.rate).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn running_stats() {
        let mut r = Running::default();
        assert_eq!((r.min(), r.max(), r.mean(), r.stddev()), (None, None, None, None));
        assert_eq!(r.fields("offset"), "offset_min=- offset_mean=- offset_max=- offset_stddev=-");
        r.add(5);
        assert_eq!((r.min(), r.max(), r.mean(), r.stddev()), (Some(5), Some(5), Some(5.0), None));
        for x in [2, 4, 4, 4, 5, 7, 9] {
            r.add(x);
        }
        // 5 2 4 4 4 5 7 9: mean 5, sum of squared deviations 32, sample variance 32/7.
        assert_eq!(r.min(), Some(2));
        assert_eq!(r.max(), Some(9));
        assert!((r.mean().unwrap() - 5.0).abs() < 1e-12);
        assert!((r.stddev().unwrap() - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
        assert_eq!(r.fields("o"), "o_min=2 o_mean=5.0 o_max=9 o_stddev=2.1");
    }

    #[test]
    fn running_negative_and_large() {
        let mut r = Running::default();
        for x in [-1_000_000_000_000i64, -999_999_999_998, -1_000_000_000_002] {
            r.add(x);
        }
        assert_eq!(r.min(), Some(-1_000_000_000_002));
        assert_eq!(r.max(), Some(-999_999_999_998));
        assert!((r.mean().unwrap() + 1e12).abs() < 1e-3);
        assert!((r.stddev().unwrap() - 2.0).abs() < 1e-3);
    }

    fn step(rate: u64, sent: u64, basic: u64, interleaved: u64, invalid: u64) -> StepResult {
        StepResult { rate, sent, basic, interleaved, invalid, tx_rate: rate as f64, ..Default::default() }
    }

    #[test]
    fn counters() {
        let s = step(1000, 2000, 10, 1980, 4);
        assert_eq!(s.received(), 1990);
        assert_eq!(s.lost(), 6);
        assert!((s.loss_pct() - 0.3).abs() < 1e-12);
        assert!(!s.exceeds_loss(50.0));
        assert!(s.exceeds_loss(0.4)); // (6 + 4) / 2000 = 0.5%
        assert!(step(1000, 100, 0, 40, 10).exceeds_loss(50.0));
        assert!(!step(1000, 100, 0, 50, 0).exceeds_loss(50.0));
        assert_eq!(step(1000, 0, 0, 0, 3).lost(), 0);
        assert_eq!(step(1000, 0, 0, 0, 0).loss_pct(), 0.0);
    }

    #[test]
    fn best_rate_rule() {
        assert_eq!(best_rate(&[]), 0);
        let steps = vec![
            step(1000, 2000, 0, 2000, 0),
            step(1500, 3000, 0, 3000, 0),
            step(2250, 4500, 1, 4499, 0), // one basic response
            step(3375, 6750, 0, 6749, 0), // one lost
            step(5062, 10124, 0, 10124, 0),
        ];
        assert_eq!(best_rate(&steps), 5062);
        assert_eq!(best_rate(&steps[..4]), 1500);
        assert_eq!(best_rate(&steps[2..4]), 0);
        // Invalid responses also spoil a step (interleaved < sent).
        assert_eq!(best_rate(&[step(1000, 10, 0, 9, 1)]), 0);
        // A step that could not be sent at its rate does not count.
        let mut slow = step(7593, 15186, 0, 15186, 0);
        slow.tx_rate = 6000.0;
        assert!(slow.behind());
        assert_eq!(best_rate(&[steps[0].clone(), slow]), 1000);
        // Nothing sent is not a success.
        assert_eq!(best_rate(&[step(1000, 0, 0, 0, 0)]), 0);
    }

    #[test]
    fn ts_kind() {
        assert_eq!(TsKind::from_counts(0, 0).as_str(), "-");
        assert_eq!(TsKind::from_counts(5, 0).as_str(), "hw");
        assert_eq!(TsKind::from_counts(0, 5).as_str(), "sw");
        assert_eq!(TsKind::from_counts(5, 1).as_str(), "mixed");
    }

    #[test]
    fn line_format() {
        let mut s = step(1000, 2000, 0, 2000, 0);
        s.clients = 100;
        s.hw_ts = 2000;
        s.offset.add(-10);
        s.offset.add(30);
        let line = s.line();
        assert!(line.starts_with(
            "step rate=1000 sent=2000 received=2000 lost=0 loss_pct=0.00 basic=0 interleaved=2000 ts=hw \
             offset_min=-10 offset_mean=10.0 offset_max=30 offset_stddev=28.3 invalid=0 clients=100 tx_rate=1000 "
        ));
        assert!(line.ends_with("resp_time_stddev=-"));
        assert!(line
            .split(' ')
            .skip(1)
            .all(|kv| kv.split_once('=').is_some_and(|(k, v)| !k.is_empty() && !v.is_empty())));
    }
}
