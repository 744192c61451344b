// SPDX-License-Identifier: GPL-2.0

//! What keeps the wire and the timestamps from being ideal: the settings,
//! their presets, and a small seeded PRNG (no crate) to draw them from.
//!
//! * [`Stamping`], per port: each TX and RX timestamp is taken on a clock
//!   of finite resolution (rounded down to a multiple of the quantum) and
//!   carries a white Gaussian error, drawn independently per stamp.
//! * [`PathConfig`], per direction of the two-port wire: the propagation
//!   delay (the two directions apart, so that they can differ: path
//!   asymmetry), a uniform random extra delay per frame (jitter, which
//!   never reorders the frames of one direction) and a loss probability.
//!
//! [`Preset::Ideal`] is the model as it was: exact stamps, a symmetric
//! wire of constant delay, no loss. The binary's default is
//! [`Preset::Realistic`]; the library's constructors stay ideal, so that
//! the unit tests can assert exact values.

/// Picoseconds per nanosecond: quantum and noise are set in ps, so that a
/// 3.2 ns clock or a 0.5 ns sigma can be expressed exactly.
pub const PS_PER_NS: u32 = 1000;
/// Loss probabilities are in parts per million.
pub const PPM: u32 = 1_000_000;
/// The largest timestamp quantum and noise sigma accepted (100 µs).
pub const MAX_STAMP_PS: u32 = 100_000_000;
/// The largest delay and jitter accepted (1 s).
pub const MAX_DELAY_NS: u64 = 1_000_000_000;
/// The seed when none is given.
pub const DEFAULT_SEED: u64 = 1;

/// Stream numbers that keep the generators of one seed apart.
pub mod stream {
    /// The direction of the wire in which port `side` transmits.
    pub fn wire(side: usize) -> u64 {
        1 + side as u64
    }
    /// The timestamps of port `index`.
    pub fn stamps(index: usize) -> u64 {
        0x100 + index as u64
    }
    /// The jitter of port `index`'s external pulse source.
    pub fn pulse(index: usize) -> u64 {
        0x200 + index as u64
    }
}

fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// xorshift64* seeded through splitmix64; Gaussian draws by Box-Muller.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
    /// The second value of the last Box-Muller pair.
    spare: Option<f64>,
}

impl Rng {
    /// The generator of `stream` for `seed`.
    pub fn new(seed: u64, stream: u64) -> Rng {
        let state = splitmix64(seed ^ splitmix64(stream));
        Rng { state: if state == 0 { 0x2545_F491_4F6C_DD1D } else { state }, spare: None }
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (0 for `n` 0).
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in (0, 1].
    fn unit(&mut self) -> f64 {
        ((self.next_u64() >> 11) + 1) as f64 / (1u64 << 53) as f64
    }

    /// Standard normal.
    pub fn gaussian(&mut self) -> f64 {
        if let Some(z) = self.spare.take() {
            return z;
        }
        let r = (-2.0 * self.unit().ln()).sqrt();
        let (sin, cos) = (std::f64::consts::TAU * self.unit()).sin_cos();
        self.spare = Some(r * sin);
        r * cos
    }
}

/// How a port's timestamping unit departs from an exact, 1 ns clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stamping {
    /// Each stamp is rounded down to a multiple of this (ps; 0: exact ns).
    pub quantum_ps: u32,
    /// Standard deviation of each stamp's white Gaussian error (ps).
    pub noise_ps: u32,
}

impl Stamping {
    pub const EXACT: Stamping = Stamping { quantum_ps: 0, noise_ps: 0 };

    pub fn is_exact(&self) -> bool {
        *self == Self::EXACT
    }

    /// One stamp's error in ps, drawn from `rng` (nothing is drawn without
    /// noise).
    pub fn draw_error_ps(&self, rng: &mut Rng) -> i64 {
        if self.noise_ps == 0 {
            return 0;
        }
        (rng.gaussian() * f64::from(self.noise_ps)).round() as i64
    }

    /// The stamp a clock reading `value_ns` at the event gives, with the
    /// event's error `error_ps`: rounded down to the quantum, in whole ns,
    /// never negative.
    pub fn stamp(&self, value_ns: i128, error_ps: i64) -> i128 {
        if self.is_exact() {
            return value_ns;
        }
        let ps = value_ns * i128::from(PS_PER_NS) + i128::from(error_ps);
        let q = i128::from(self.quantum_ps);
        let ps = if q > 0 { ps.div_euclid(q) * q } else { ps };
        ps.div_euclid(i128::from(PS_PER_NS)).max(0)
    }
}

/// One direction of the two-port wire.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PathConfig {
    /// Propagation delay (ns).
    pub delay_ns: u64,
    /// Each frame is delayed by a further uniform 0..=jitter_ns, but never
    /// arrives before the previous frame of its direction (+1 ns).
    pub jitter_ns: u64,
    /// Probability that a frame is lost, in parts per million.
    pub loss_ppm: u32,
}

impl PathConfig {
    /// Constant delay, no jitter, no loss: the ideal wire.
    pub const fn ideal(delay_ns: u64) -> PathConfig {
        PathConfig { delay_ns, jitter_ns: 0, loss_ppm: 0 }
    }
}

/// A named set of settings for every port and both directions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preset {
    /// Exact stamps, 50 ns both ways, no jitter, no loss (the model before
    /// these settings existed).
    Ideal,
    /// What a pair of I225s on a short cable would show (the binary's
    /// default): docs/model-strictness.md gives the sources.
    Realistic,
    /// Clearly visible in ptp4l's offsets, and still converging.
    Noisy,
}

impl Preset {
    pub const ALL: [Preset; 3] = [Preset::Ideal, Preset::Realistic, Preset::Noisy];

    pub fn name(self) -> &'static str {
        match self {
            Preset::Ideal => "ideal",
            Preset::Realistic => "realistic",
            Preset::Noisy => "noisy",
        }
    }

    pub fn from_name(name: &str) -> Option<Preset> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }

    pub fn stamping(self) -> Stamping {
        match self {
            Preset::Ideal => Stamping::EXACT,
            // 8 ns: the 82580/i210 timer's 8 ns step (igb_ptp.c), the
            // coarser of what igc's family documents or implies; 2 ns: a
            // few ns of PHY timestamp jitter.
            Preset::Realistic => Stamping { quantum_ps: 8_000, noise_ps: 2_000 },
            Preset::Noisy => Stamping { quantum_ps: 8_000, noise_ps: 40_000 },
        }
    }

    /// Frames sent by port 0 (A to B), then by port 1 (B to A).
    pub fn paths(self) -> [PathConfig; 2] {
        match self {
            Preset::Ideal => [PathConfig::ideal(50); 2],
            // About 10 m of cable (5 ns/m); 4 ns of asymmetry.
            Preset::Realistic => [PathConfig::ideal(50), PathConfig::ideal(54)],
            Preset::Noisy => {
                let noisy = |delay_ns| PathConfig { delay_ns, jitter_ns: 2_000, loss_ppm: 1_000 };
                [noisy(50), noisy(250)]
            }
        }
    }
}

/// One source of randomness: its settings now and at start-up (which
/// `reset-faults` restores), and the generator it draws from.
#[derive(Clone, Debug)]
pub struct Noise<T> {
    pub current: T,
    startup: T,
    stream: u64,
    seed: u64,
    startup_seed: u64,
    pub rng: Rng,
}

impl<T: Copy> Noise<T> {
    /// `value`, now and at start-up, drawing from stream `stream` of `seed`.
    pub fn new(value: T, seed: u64, stream: u64) -> Self {
        Noise { current: value, startup: value, stream, seed, startup_seed: seed, rng: Rng::new(seed, stream) }
    }

    /// Back to the start-up settings and seed, the generator restarted.
    pub fn restore(&mut self) {
        self.current = self.startup;
        self.reseed(self.startup_seed);
    }

    /// The generator restarted from `seed`.
    pub fn reseed(&mut self, seed: u64) {
        self.seed = seed;
        self.rng = Rng::new(seed, self.stream);
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }
}

/// A non-negative decimal with at most `digits` fractional digits, scaled
/// by 10^digits: `parse_scaled("3.2", 3)` is 3200. Exact (no float).
pub fn parse_scaled(s: &str, digits: u32) -> Option<u64> {
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    if (int.is_empty() && frac.is_empty())
        || frac.len() > digits as usize
        || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let int: u64 = if int.is_empty() { 0 } else { int.parse().ok()? };
    let frac_scaled =
        if frac.is_empty() { 0 } else { frac.parse::<u64>().ok()? * 10u64.pow(digits - frac.len() as u32) };
    int.checked_mul(10u64.pow(digits))?.checked_add(frac_scaled)
}

/// A quantum or noise sigma in ns (`3.2`) as ps, within [`MAX_STAMP_PS`].
pub fn parse_stamp_ps(s: &str) -> Option<u32> {
    parse_scaled(s, 3).filter(|&ps| ps <= u64::from(MAX_STAMP_PS)).map(|ps| ps as u32)
}

/// A probability (`0.001`) as parts per million.
pub fn parse_loss_ppm(s: &str) -> Option<u32> {
    parse_scaled(s, 6).filter(|&ppm| ppm <= u64::from(PPM)).map(|ppm| ppm as u32)
}

/// A delay or jitter in whole ns, within [`MAX_DELAY_NS`].
pub fn parse_delay_ns(s: &str) -> Option<u64> {
    s.parse().ok().filter(|&ns| ns <= MAX_DELAY_NS)
}

/// ps as (fractional) ns, for answers.
pub fn ps_to_ns(ps: u32) -> f64 {
    f64::from(ps) / f64::from(PS_PER_NS)
}

/// ppm as a probability, for answers.
pub fn ppm_to_probability(ppm: u32) -> f64 {
    f64::from(ppm) / f64::from(PPM)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rng_is_reproducible_and_streams_differ() {
        let draws = |seed, stream| {
            let mut r = Rng::new(seed, stream);
            (0..4).map(|_| r.next_u64()).collect::<Vec<_>>()
        };
        assert_eq!(draws(1, 1), draws(1, 1));
        assert_ne!(draws(1, 1), draws(1, 2));
        assert_ne!(draws(1, 1), draws(2, 1));
        let mut r = Rng::new(0, 0);
        assert!((0..10_000).all(|_| r.below(7) < 7));
        assert_eq!(r.below(0), 0);
    }

    #[test]
    fn gaussian_has_mean_0_and_sigma_1() {
        let mut r = Rng::new(7, 0);
        let n = 200_000;
        let z: Vec<f64> = (0..n).map(|_| r.gaussian()).collect();
        let mean = z.iter().sum::<f64>() / n as f64;
        let var = z.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
        assert!(mean.abs() < 0.01, "mean {mean}");
        assert!((var.sqrt() - 1.0).abs() < 0.01, "sigma {}", var.sqrt());
        let beyond_2 = z.iter().filter(|x| x.abs() > 2.0).count() as f64 / n as f64;
        assert!((beyond_2 - 0.0455).abs() < 0.003, "P(|z| > 2) = {beyond_2}");
    }

    #[test]
    fn stamp_rounds_down_to_the_quantum() {
        let s = Stamping { quantum_ps: 8_000, noise_ps: 0 };
        assert_eq!(s.stamp(1_000_000_007, 0), 1_000_000_000);
        assert_eq!(s.stamp(1_000_000_008, 0), 1_000_000_008);
        assert_eq!(s.stamp(1_000_000_008, -1), 1_000_000_000, "an error below the tick");
        // A 3.2 ns clock: the ns of its ticks.
        let s = Stamping { quantum_ps: 3_200, noise_ps: 0 };
        let ticks: Vec<i128> = (0..8).map(|t| s.stamp(t, 0)).collect();
        assert_eq!(ticks, [0, 0, 0, 0, 3, 3, 3, 6]);
        assert_eq!(Stamping::EXACT.stamp(12_345, 0), 12_345);
        assert_eq!(Stamping { quantum_ps: 0, noise_ps: 1 }.stamp(0, -5_000), 0, "never negative");
    }

    #[test]
    fn parsers_are_exact_and_bounded() {
        assert_eq!(parse_stamp_ps("3.2"), Some(3_200));
        assert_eq!(parse_stamp_ps("8"), Some(8_000));
        assert_eq!(parse_stamp_ps(".5"), Some(500));
        assert_eq!(parse_stamp_ps("0.0001"), None, "below 1 ps");
        assert_eq!(parse_stamp_ps("-1"), None);
        assert_eq!(parse_stamp_ps("1e3"), None);
        assert_eq!(parse_stamp_ps("."), None);
        assert_eq!(parse_stamp_ps("100001"), None);
        assert_eq!(parse_loss_ppm("0.001"), Some(1_000));
        assert_eq!(parse_loss_ppm("1"), Some(PPM));
        assert_eq!(parse_loss_ppm("1.5"), None);
        assert_eq!(parse_delay_ns("250"), Some(250));
        assert_eq!(parse_delay_ns("2000000000"), None);
    }

    #[test]
    fn presets_by_name() {
        for p in Preset::ALL {
            assert_eq!(Preset::from_name(p.name()), Some(p));
        }
        assert_eq!(Preset::from_name("perfect"), None);
        assert!(Preset::Ideal.stamping().is_exact());
        assert_eq!(Preset::Ideal.paths(), [PathConfig::ideal(50); 2]);
        assert!(Preset::Realistic.paths().iter().all(|p| p.loss_ppm == 0), "no loss by default");
    }
}
