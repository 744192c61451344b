// SPDX-License-Identifier: GPL-2.0

//! The four software-definable pins (SDP0..SDP3) and the time-sync
//! functions on them, as igc programs them (igc_ptp.c: igc_pin_direction,
//! igc_pin_extts, igc_pin_perout, igc_ptp_feature_enable_i225; igc_main.c:
//! igc_tsync_interrupt), and an external pulse source (a GPS PPS, say)
//! wired to one pin.
//!
//! * **Direction**: CTRL.SDP0_DIR/SDP1_DIR (bits 22/23), CTRL_EXT.SDP2_DIR/
//!   SDP3_DIR (bits 10/11); 1 is an output.
//! * **Level**: CTRL.SDP0/1_DATA (bits 18/19), CTRL_EXT.SDP2/3_DATA (bits
//!   6/7). Read, the pin's level; written, the level an output pin drives
//!   when no time-sync function does.
//! * **TSSDP** (0x3C): AUX0_SEL (bits 1:0) with AUX0_TS_SDP_EN (2), and
//!   AUX1_SEL (bits 4:3) with AUX1_TS_SDP_EN (5), choose the pins the
//!   auxiliary timestamps sample; per pin n, TS_SDPn_SEL at bits 7+3n:6+3n
//!   (0 TT0, 1 TT1, 2 FC0, 3 FC1) with TS_SDPn_EN at bit 8+3n routes a
//!   time-sync output to it.
//! * **Auxiliary timestamps** (EXTTS): on each edge, rising and falling (igc
//!   rejects a strict request for a single edge, igc_ptp.c
//!   PTP_CLK_REQ_EXTTS), of an input pin that AUXk selects with
//!   AUXk_TS_SDP_EN, while TSAUXC.EN_TSk is set, SYSTIM0 at that instant
//!   (with the port's stamp quantum and noise) is latched into AUXSTMPL/Hk,
//!   TSAUXC.AUTTk is set and TSICR.AUTTk raised. Until AUXSTMPHk is read
//!   (igc_tsync_interrupt reads L, then H) the latch holds: later edges are
//!   not stamped (counted as busy). That hold is an assumption (I210-like);
//!   igc does not show what the hardware does.
//! * **Target time** (PEROUT, igc's "target time" mode): when SYSTIM0
//!   reaches an armed TRGTTIMx, TSICR.TTx (see [`Ptp::tick`]) and the level
//!   of the TTx output changes; igc re-arms the next half period from its
//!   interrupt, which makes the square wave.
//! * **Clock** (PEROUT, igc's FREQOUT mode): TSAUXC.EN_CLKx with STx starts
//!   the FCx output toggling when SYSTIM0 reaches TRGTTIMx, then every
//!   FREQOUTx ns of SYSTIM0; no interrupt. A start already past when it is
//!   enabled never comes (the target-time rule); clearing EN_CLKx stops it.
//! * **Pulse source**: edges at true times k·PERIOD + PHASE (+ a uniform
//!   jitter in ±JITTER per pulse), falling WIDTH later; true time is the
//!   model's host clock plus [`TimeSource::true_offset_ns`] (the host's
//!   CLOCK_REALTIME for the binary).
//!
//! Every edge of a pin is logged with its true time, host time and the
//! SYSTIM0 value at that instant (the last [`EDGES_KEPT`] per pin).
//!
//! [`TimeSource::true_offset_ns`]: super::TimeSource::true_offset_ns

use std::collections::VecDeque;

use super::{join, Ptp};
use crate::noise::Rng;
use crate::regs::{ctrl, ctrl_ext, tsauxc, tsicr, tssdp};

/// SDP0..SDP3.
pub const NUM_PINS: usize = 4;
/// Edges kept per pin.
pub const EDGES_KEPT: usize = 64;
/// The shortest FREQOUT half period the port's worker wakes for; faster
/// clocks are caught up (with exact edge times) at the next wake-up or
/// register access, as nothing the guest sees depends on them in between.
pub const CLOCK_WAKE_MIN_NS: u32 = 10_000_000;
/// At most this many edges of one source are produced at once (after a
/// long stall of the worker); a clock skips the others (counted), the pulse
/// source starts again from the present.
pub const MAX_EDGES_AT_ONCE: u64 = 128;

/// The pulse source's limits and default width.
pub const MIN_PULSE_PERIOD_NS: u64 = 1_000_000;
pub const MAX_PULSE_PERIOD_NS: u64 = 1_000_000_000_000;
pub const DEFAULT_PULSE_WIDTH_NS: u64 = 100_000_000;

/// A time-sync output, by its TS_SDPn_SEL value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Function {
    /// TT0 / TT1: the target-time output (level change at each target).
    TargetTime(usize),
    /// FC0 / FC1: the clock output (FREQOUT half periods).
    Clock(usize),
}

impl Function {
    fn from_sel(sel: u32) -> Function {
        match sel & 3 {
            tssdp::SEL_TT0 => Function::TargetTime(0),
            tssdp::SEL_TT1 => Function::TargetTime(1),
            tssdp::SEL_FC0 => Function::Clock(0),
            _ => Function::Clock(1),
        }
    }

    fn index(self) -> usize {
        match self {
            Function::TargetTime(i) => i,
            Function::Clock(i) => 2 + i,
        }
    }

    pub fn name(self) -> &'static str {
        ["tt0", "tt1", "fc0", "fc1"][self.index()]
    }
}

/// The pin bits of CTRL, CTRL_EXT and TSSDP, as last written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PinConfig {
    pub ctrl: u32,
    pub ctrl_ext: u32,
    pub tssdp: u32,
}

impl PinConfig {
    /// (register, bit) of the pin's direction and data bits.
    fn bits(&self, pin: usize) -> (u32, u32, u32) {
        match pin {
            0 => (self.ctrl, ctrl::SDP0_DIR, ctrl::SDP0_DATA),
            1 => (self.ctrl, ctrl::SDP1_DIR, ctrl::SDP1_DATA),
            2 => (self.ctrl_ext, ctrl_ext::SDP2_DIR, ctrl_ext::SDP2_DATA),
            _ => (self.ctrl_ext, ctrl_ext::SDP3_DIR, ctrl_ext::SDP3_DATA),
        }
    }

    /// SDPn_DIR: the pin is an output.
    pub fn is_output(&self, pin: usize) -> bool {
        let (reg, dir, _) = self.bits(pin);
        reg & dir != 0
    }

    /// SDPn_DATA as written: what an output pin without a time-sync
    /// function drives.
    pub fn data(&self, pin: usize) -> bool {
        let (reg, _, data) = self.bits(pin);
        reg & data != 0
    }

    /// The time-sync output TSSDP routes to the pin (TS_SDPn_EN), whatever
    /// its direction.
    pub fn function(&self, pin: usize) -> Option<Function> {
        (self.tssdp & tssdp::en(pin) != 0).then(|| Function::from_sel(self.tssdp >> tssdp::sel_shift(pin)))
    }

    /// The pin auxiliary timestamp `channel` samples (AUXk_SEL with
    /// AUXk_TS_SDP_EN).
    pub fn aux_pin(&self, channel: usize) -> Option<usize> {
        let (sel, en) = if channel == 0 {
            (self.tssdp & tssdp::AUX0_SEL_MASK, tssdp::AUX0_TS_SDP_EN)
        } else {
            ((self.tssdp & tssdp::AUX1_SEL_MASK) >> tssdp::AUX1_SEL_SHIFT, tssdp::AUX1_TS_SDP_EN)
        };
        (self.tssdp & en != 0).then_some(sel as usize)
    }

    /// What the pin does, for the control socket: "tt0".."fc1" (an output
    /// with that time-sync function), "gpio" (an output software drives),
    /// "aux0"/"aux1"/"aux0+aux1" (an input an auxiliary timestamp samples),
    /// "input".
    pub fn role(&self, pin: usize) -> &'static str {
        if self.is_output(pin) {
            return self.function(pin).map_or("gpio", Function::name);
        }
        match (self.aux_pin(0) == Some(pin), self.aux_pin(1) == Some(pin)) {
            (true, true) => "aux0+aux1",
            (true, false) => "aux0",
            (false, true) => "aux1",
            (false, false) => "input",
        }
    }
}

/// What made a pin change level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeCause {
    /// The external pulse source (an input pin).
    Pulse,
    /// A time-sync output.
    Output(Function),
    /// Software: SDPn_DATA of an output pin, or its function changed.
    Software,
}

impl EdgeCause {
    pub fn name(self) -> &'static str {
        match self {
            EdgeCause::Pulse => "pulse",
            EdgeCause::Output(f) => f.name(),
            EdgeCause::Software => "sw",
        }
    }
}

/// An auxiliary timestamp channel's response to an input edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AuxCapture {
    /// Latched; false: the channel still held an unread stamp (busy).
    pub latched: bool,
    /// The stamp the channel holds after the edge.
    pub stamp_ns: i128,
}

/// One level change of a pin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    pub rising: bool,
    pub cause: EdgeCause,
    /// The model's host clock at the edge.
    pub host_ns: u64,
    /// The true time of the edge (host + the true offset).
    pub true_ns: i128,
    /// SYSTIM0 at the edge, exact (for an output, the time it was due at;
    /// if SYSTIM0 was set past it, the value it was set to).
    pub systim_ns: i128,
    /// Per auxiliary timestamp channel sampling the pin (input edges).
    pub aux: [Option<AuxCapture>; 2],
}

/// A pin's edges: how many since the last clear, the last [`EDGES_KEPT`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EdgeLog {
    pub count: u64,
    pub recent: VecDeque<Edge>,
}

impl EdgeLog {
    fn push(&mut self, edge: Edge) {
        if self.recent.len() == EDGES_KEPT {
            self.recent.pop_front();
        }
        self.recent.push_back(edge);
        self.count += 1;
    }
}

/// The external pulse source's settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PulseConfig {
    /// The pin it drives (0..3).
    pub pin: usize,
    pub period_ns: u64,
    /// Rising edges at true times k·period + phase (+ jitter).
    pub phase_ns: u64,
    /// Each pulse moves by a uniform draw in ±jitter (both its edges).
    pub jitter_ns: u64,
    /// The falling edge this long after the rising one.
    pub width_ns: u64,
}

impl PulseConfig {
    /// From `PIN PERIOD_NS [PHASE_NS [JITTER_NS [WIDTH_NS]]]`; the width
    /// defaults to [`DEFAULT_PULSE_WIDTH_NS`] or half the period if shorter.
    pub fn from_fields(fields: &[&str]) -> Result<PulseConfig, String> {
        const NAMES: [&str; 5] = ["pin", "period", "phase", "jitter", "width"];
        if fields.len() < 2 {
            return Err("pin and period needed: PIN PERIOD_NS [PHASE_NS [JITTER_NS [WIDTH_NS]]]".into());
        }
        if fields.len() > NAMES.len() {
            return Err("too many fields: PIN PERIOD_NS [PHASE_NS [JITTER_NS [WIDTH_NS]]]".into());
        }
        let mut v = [None; 5];
        for (i, f) in fields.iter().enumerate() {
            v[i] = Some(f.parse::<u64>().map_err(|_| format!("bad {} {f:?}", NAMES[i]))?);
        }
        let period_ns = v[1].unwrap_or_default();
        let config = PulseConfig {
            pin: v[0].unwrap_or_default() as usize,
            period_ns,
            phase_ns: v[2].unwrap_or(0),
            jitter_ns: v[3].unwrap_or(0),
            width_ns: v[4].unwrap_or(DEFAULT_PULSE_WIDTH_NS.min(period_ns / 2)),
        };
        config.check().map(|()| config)
    }

    fn check(&self) -> Result<(), String> {
        if self.pin >= NUM_PINS {
            return Err(format!("no pin {} (0..3)", self.pin));
        }
        if !(MIN_PULSE_PERIOD_NS..=MAX_PULSE_PERIOD_NS).contains(&self.period_ns) {
            return Err(format!("period {} ns out of {MIN_PULSE_PERIOD_NS}..={MAX_PULSE_PERIOD_NS}", self.period_ns));
        }
        if self.phase_ns >= self.period_ns {
            return Err(format!("phase {} ns not below the period", self.phase_ns));
        }
        // Pulses never overlap: width + 2 × jitter below the period.
        if self.width_ns == 0 || self.width_ns.saturating_add(self.jitter_ns.saturating_mul(2)) >= self.period_ns {
            return Err(format!(
                "width {} ns must be over 0 and width + 2 x jitter ({} ns) below the period",
                self.width_ns, self.jitter_ns
            ));
        }
        Ok(())
    }
}

/// What the pulse source's edges did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PulseCounters {
    /// Edges made (rising and falling).
    pub edges: u64,
    /// Stamps latched, per auxiliary timestamp channel.
    pub latched: [u64; 2],
    /// Edges a channel sampling the pin missed: its last stamp was unread.
    pub busy: [u64; 2],
    /// Edges on an input pin no enabled channel samples.
    pub ignored: u64,
    /// Edges on a pin configured as an output: not seen.
    pub on_output: u64,
    /// Times the source started again from the present after the worker
    /// stalled for more than [`MAX_EDGES_AT_ONCE`] edges.
    pub resyncs: u64,
}

/// The external pulse source: its settings and where it is.
#[derive(Clone, Debug)]
pub struct PulseSource {
    pub config: PulseConfig,
    /// The current (or next) pulse: k·period + phase + jitter.
    k: i128,
    jitter: i128,
    /// Whether its next edge is the rising one.
    next_rising: bool,
    /// The level it drives.
    pub level: bool,
    rng: Rng,
    pub counters: PulseCounters,
}

impl PulseSource {
    fn new(config: PulseConfig, rng: Rng, now_true: i128) -> PulseSource {
        let mut s = PulseSource {
            config,
            k: 0,
            jitter: 0,
            next_rising: true,
            level: false,
            rng,
            counters: PulseCounters::default(),
        };
        s.start_after(now_true);
        s
    }

    /// Low, waiting for the first pulse whose rising edge is after `t`.
    fn start_after(&mut self, t: i128) {
        let (period, phase, jitter) =
            (i128::from(self.config.period_ns), i128::from(self.config.phase_ns), i128::from(self.config.jitter_ns));
        self.k = (t + jitter - phase).div_euclid(period) + 1;
        self.draw();
        self.next_rising = true;
        self.level = false;
    }

    fn draw(&mut self) {
        let j = self.config.jitter_ns;
        self.jitter = if j == 0 { 0 } else { i128::from(self.rng.below(2 * j + 1)) - i128::from(j) };
    }

    /// True time of the next edge.
    pub fn next_edge(&self) -> i128 {
        let rising = self.k * i128::from(self.config.period_ns) + i128::from(self.config.phase_ns) + self.jitter;
        if self.next_rising {
            rising
        } else {
            rising + i128::from(self.config.width_ns)
        }
    }

    fn advance(&mut self) {
        if self.next_rising {
            self.next_rising = false;
        } else {
            self.k += 1;
            self.draw();
            self.next_rising = true;
        }
    }
}

/// A clock output's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ClockState {
    /// SYSTIM0 value of its next toggle.
    next: i128,
    /// Past its start (the first toggle, at TRGTTIMx).
    started: bool,
}

/// The pins' state.
#[derive(Clone, Debug)]
pub struct Pins {
    config: PinConfig,
    /// The level of each time-sync output (TT0, TT1, FC0, FC1), which the
    /// output pins routed to it show.
    fn_level: [bool; 4],
    logs: [EdgeLog; NUM_PINS],
    pulse: Option<PulseSource>,
    /// The pulse source of the command line (`reset-faults` restores it).
    pulse_startup: Option<PulseConfig>,
    /// The stream of the pulse source's jitter generator (its seed is the
    /// port's stamping seed).
    pulse_stream: u64,
    clock: [Option<ClockState>; 2],
}

impl Default for Pins {
    fn default() -> Pins {
        Pins {
            config: PinConfig::default(),
            fn_level: [false; 4],
            logs: Default::default(),
            pulse: None,
            pulse_startup: None,
            pulse_stream: crate::noise::stream::pulse(0),
            clock: [None; 2],
        }
    }
}

impl Pins {
    pub fn config(&self) -> PinConfig {
        self.config
    }

    pub fn log(&self, pin: usize) -> &EdgeLog {
        &self.logs[pin]
    }

    pub fn pulse(&self) -> Option<&PulseSource> {
        self.pulse.as_ref()
    }
}

impl Ptp {
    pub fn pins(&self) -> &Pins {
        &self.pins
    }

    /// True time − host time (ns).
    pub fn true_offset_ns(&self) -> i128 {
        self.true_offset_ns
    }

    pub fn set_true_offset_ns(&mut self, offset: i64) {
        self.true_offset_ns = i128::from(offset);
    }

    /// The level of `pin` now (as of the last [`Ptp::tick`]): an output's,
    /// from its time-sync function or SDPn_DATA; an input's, from the pulse
    /// source if it drives the pin (low otherwise).
    pub fn pin_level(&self, pin: usize) -> bool {
        let c = &self.pins.config;
        if c.is_output(pin) {
            return c.function(pin).map_or(c.data(pin), |f| self.pins.fn_level[f.index()]);
        }
        self.pins.pulse.as_ref().is_some_and(|s| s.config.pin == pin && s.level)
    }

    /// CTRL, CTRL_EXT or TSSDP was written: the new pin configuration. An
    /// output pin whose level it changes logs a software edge.
    pub fn set_pin_config(&mut self, config: PinConfig, host: u64) {
        let before: [Option<bool>; NUM_PINS] =
            std::array::from_fn(|p| self.pins.config.is_output(p).then(|| self.pin_level(p)));
        self.pins.config = config;
        for (pin, was) in before.into_iter().enumerate() {
            let now = self.pin_level(pin);
            if was.is_some_and(|was| was != now) && config.is_output(pin) {
                let edge = Edge {
                    rising: now,
                    cause: EdgeCause::Software,
                    host_ns: host,
                    true_ns: i128::from(host) + self.true_offset_ns,
                    systim_ns: self.systim0.at(host),
                    aux: [None; 2],
                };
                self.pins.logs[pin].push(edge);
            }
        }
    }

    /// Sets (or, with `None`, removes) the pulse source; its first pulse is
    /// the first one after `host`. Its jitter is drawn from the port's
    /// stamping seed.
    pub fn set_pulse(&mut self, config: Option<PulseConfig>, host: u64) {
        let now_true = i128::from(host) + self.true_offset_ns;
        let rng = Rng::new(self.stamping.seed(), self.pins.pulse_stream);
        let had = self.pins.pulse.is_some();
        self.pins.pulse = config.map(|c| PulseSource::new(c, rng, now_true));
        match config {
            Some(c) => log::info!(
                "pulse source on SDP{}: period {} ns, phase {} ns, jitter ±{} ns, width {} ns",
                c.pin,
                c.period_ns,
                c.phase_ns,
                c.jitter_ns,
                c.width_ns
            ),
            None if had => log::info!("pulse source off"),
            None => {}
        }
    }

    /// The command line's pulse source, and the stream of its generator.
    pub fn set_pulse_startup(&mut self, config: Option<PulseConfig>, stream: u64, host: u64) {
        self.pins.pulse_startup = config;
        self.pins.pulse_stream = stream;
        self.set_pulse(config, host);
    }

    /// Back to the command line's pulse source: the same one goes on, its
    /// jitter generator restarted from the stamping's seed.
    pub fn restore_pulse(&mut self, host: u64) {
        if self.pins.pulse.as_ref().map(|s| s.config) != self.pins.pulse_startup {
            self.set_pulse(self.pins.pulse_startup, host);
        } else {
            self.reseed_pulse();
        }
    }

    /// The jitter generator restarted from the stamping's (new) seed.
    pub fn reseed_pulse(&mut self) {
        let rng = Rng::new(self.stamping.seed(), self.pins.pulse_stream);
        if let Some(s) = &mut self.pins.pulse {
            s.rng = rng;
        }
    }

    /// Forgets the edges logged.
    pub fn clear_edges(&mut self) {
        self.pins.logs = Default::default();
    }

    /// MAC reset: every pin an input, the outputs low and stopped.
    pub(super) fn reset_pins(&mut self) {
        self.pins.config = PinConfig::default();
        self.pins.fn_level = [false; 4];
        self.pins.clock = [None; 2];
    }

    /// TSAUXC went from `old` to `new`: clock outputs start (EN_CLKx with
    /// STx newly set: at TRGTTIMx, unless it is past) or stop (EN_CLKx
    /// clear).
    pub(super) fn clocks_written(&mut self, old: u32, new: u32, host: u64) {
        let newly = new & !old;
        for (x, (en, st)) in [(tsauxc::EN_CLK0, tsauxc::ST0), (tsauxc::EN_CLK1, tsauxc::ST1)].into_iter().enumerate() {
            if new & en == 0 {
                self.pins.clock[x] = None;
            } else if new & st != 0 {
                if newly & (en | st) != 0 {
                    let (h, l) = self.trgttim[x];
                    let start = join(h, l & 0x3FFF_FFFF);
                    if self.systim0.at(host) < start {
                        self.pins.clock[x] = Some(ClockState { next: start, started: false });
                    } else {
                        self.pins.clock[x] = None;
                        self.counters.clock_armed_in_past += 1;
                        log::info!(
                            "clock {x} started at a past target time ({h} s {} ns): it never starts",
                            l & 0x3FFF_FFFF
                        );
                    }
                }
            } else if newly & en != 0 {
                self.counters.clock_without_start += 1;
                log::info!("TSAUXC.EN_CLK{x} without ST{x}: not modelled, the clock output stays still");
            }
        }
    }

    /// The output `f` changes level at SYSTIM0 = `due` (processed at host
    /// time `host`): every output pin routed to it logs the edge.
    pub(super) fn toggle(&mut self, f: Function, due: i128, host: u64) -> u64 {
        let edge_host = self.systim0.first_host_at(due).map_or(host, |h| h.min(host));
        // Within a run of the timer the edge is at `due` (at() may read 1 ns
        // more at the first host ns past it); a timer set past it shows the
        // value it was set to.
        let at = self.systim0.at(edge_host);
        let systim_ns = if at > due + 1 { at } else { due };
        let level = !self.pins.fn_level[f.index()];
        self.pins.fn_level[f.index()] = level;
        let c = self.pins.config;
        for pin in (0..NUM_PINS).filter(|&p| c.is_output(p) && c.function(p) == Some(f)) {
            let edge = Edge {
                rising: level,
                cause: EdgeCause::Output(f),
                host_ns: edge_host,
                true_ns: i128::from(edge_host) + self.true_offset_ns,
                systim_ns,
                aux: [None; 2],
            };
            self.pins.logs[pin].push(edge);
        }
        edge_host
    }

    /// The clock outputs' edges due by `host`.
    pub(super) fn run_clocks(&mut self, host: u64) {
        let now = self.systim0.at(host);
        for x in 0..2 {
            let Some(mut clock) = self.pins.clock[x] else { continue };
            let half = i128::from(self.freqout[x]);
            if clock.next > now {
                continue;
            }
            if half == 0 {
                // No half period: the start's edge, and nothing more.
                self.toggle(Function::Clock(x), clock.next, host);
                self.pins.clock[x] = None;
                continue;
            }
            let due = (now - clock.next) / half + 1;
            let skip = due - due.min(i128::from(MAX_EDGES_AT_ONCE));
            if skip > 0 {
                // Edges no one will see one by one: counted, the level kept right.
                let f = Function::Clock(x);
                if skip % 2 == 1 {
                    self.pins.fn_level[f.index()] ^= true;
                }
                let c = self.pins.config;
                for pin in (0..NUM_PINS).filter(|&p| c.is_output(p) && c.function(p) == Some(f)) {
                    self.pins.logs[pin].count += skip as u64;
                }
                clock.next += skip * half;
            }
            while clock.next <= now {
                let edge_host = self.toggle(Function::Clock(x), clock.next, host);
                if self.freqout[x] >= CLOCK_WAKE_MIN_NS || !clock.started {
                    self.clock_lateness.record(host.saturating_sub(edge_host));
                }
                clock.started = true;
                clock.next += half;
            }
            self.pins.clock[x] = Some(clock);
        }
    }

    /// The pulse source's edges due by `host`; returns the TSICR causes
    /// raised (AUTT0/1).
    pub(super) fn run_pulse(&mut self, host: u64) -> u32 {
        let Some(mut src) = self.pins.pulse.take() else { return 0 };
        let now_true = i128::from(host) + self.true_offset_ns;
        let mut cause = 0;
        let mut made = 0;
        while src.next_edge() <= now_true {
            if made == MAX_EDGES_AT_ONCE {
                src.counters.resyncs += 1;
                src.start_after(now_true);
                break;
            }
            made += 1;
            let true_ns = src.next_edge();
            let edge_host = u64::try_from(true_ns - self.true_offset_ns).unwrap_or(0);
            let rising = src.next_rising;
            src.level = rising;
            src.advance();
            src.counters.edges += 1;
            self.aux_lateness.record(host.saturating_sub(edge_host));
            let pin = src.config.pin;
            if self.pins.config.is_output(pin) {
                src.counters.on_output += 1;
                continue;
            }
            let mut aux = [None; 2];
            for (ch, slot) in aux.iter_mut().enumerate() {
                let (en, taken, event) =
                    [(tsauxc::EN_TS0, tsauxc::AUTT0, tsicr::AUTT0), (tsauxc::EN_TS1, tsauxc::AUTT1, tsicr::AUTT1)][ch];
                if self.pins.config.aux_pin(ch) != Some(pin) || self.tsauxc & en == 0 {
                    continue;
                }
                let latched = self.tsauxc & taken == 0;
                if latched {
                    let [stamp] = self.stamp([self.systim0.at(edge_host)]);
                    self.auxstmp[ch] = super::split(stamp);
                    self.tsauxc |= taken;
                    cause |= event;
                    src.counters.latched[ch] += 1;
                } else {
                    src.counters.busy[ch] += 1;
                }
                let (h, l) = self.auxstmp[ch];
                *slot = Some(AuxCapture { latched, stamp_ns: join(h, l) });
            }
            if aux.iter().all(Option::is_none) {
                src.counters.ignored += 1;
            }
            let edge = Edge {
                rising,
                cause: EdgeCause::Pulse,
                host_ns: edge_host,
                true_ns,
                systim_ns: self.systim0.at(edge_host),
                aux,
            };
            self.pins.logs[pin].push(edge);
        }
        self.pins.pulse = Some(src);
        cause
    }

    /// Host time of the next pin event the worker wakes for: the pulse
    /// source's next edge, a clock's start, or its next edge if its half
    /// period is [`CLOCK_WAKE_MIN_NS`] or more.
    pub(super) fn next_pin_event(&self, host: u64) -> Option<u64> {
        let pulse = self.pins.pulse.as_ref().map(|s| u64::try_from(s.next_edge() - self.true_offset_ns).unwrap_or(0));
        let clocks = (0..2).filter_map(|x| {
            let c = self.pins.clock[x]?;
            (!c.started || self.freqout[x] >= CLOCK_WAKE_MIN_NS).then(|| self.systim0.host_at(c.next, host))?
        });
        pulse.into_iter().chain(clocks).min().map(|h| h.max(host))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptp::PtpConfig;
    use crate::regs;

    const S: u64 = 1_000_000_000;
    const MS: u64 = 1_000_000;

    /// SYSTIM0 running from `systim` at host 0, with the time-sync causes
    /// enabled in TSIM.
    fn ptp(systim: i64) -> Ptp {
        let mut p = Ptp::new(0, PtpConfig { freq_error_ppb: 0, initial_offset_ns: systim });
        p.write(regs::TSIM, tsicr::AUTT0 | tsicr::AUTT1 | tsicr::TT0 | tsicr::TT1, 0);
        p
    }

    /// igc_pin_extts(chan, pin) and the EN_TSx of igc_ptp_feature_enable_i225.
    fn extts(p: &mut Ptp, chan: usize, pin: usize, host: u64) {
        let mut c = p.pins().config();
        match pin {
            0 => c.ctrl &= !ctrl::SDP0_DIR,
            1 => c.ctrl &= !ctrl::SDP1_DIR,
            2 => c.ctrl_ext &= !ctrl_ext::SDP2_DIR,
            _ => c.ctrl_ext &= !ctrl_ext::SDP3_DIR,
        }
        let mut tssdp_val = c.tssdp & !tssdp::en(pin);
        if chan == 1 {
            tssdp_val =
                (tssdp_val & !tssdp::AUX1_SEL_MASK) | (pin as u32) << tssdp::AUX1_SEL_SHIFT | tssdp::AUX1_TS_SDP_EN;
        } else {
            tssdp_val = (tssdp_val & !tssdp::AUX0_SEL_MASK) | pin as u32 | tssdp::AUX0_TS_SDP_EN;
        }
        c.tssdp = tssdp_val;
        p.set_pin_config(c, host);
        let t = p.read(regs::TSAUXC, host);
        p.write(regs::TSAUXC, t | [tsauxc::EN_TS0, tsauxc::EN_TS1][chan], host);
    }

    #[test]
    fn pin_config_decodes_igc_fields() {
        // igc_pin_perout(chan 1, pin 2, freq) and igc_pin_extts(chan 0, pin 1).
        let c = PinConfig {
            ctrl: 0,
            ctrl_ext: ctrl_ext::SDP2_DIR,
            tssdp: (tssdp::SEL_FC1 << tssdp::sel_shift(2)) | tssdp::en(2) | 1 | tssdp::AUX0_TS_SDP_EN,
        };
        assert!(c.is_output(2) && !c.is_output(1));
        assert_eq!(c.function(2), Some(Function::Clock(1)));
        assert_eq!(c.aux_pin(0), Some(1));
        assert_eq!(c.aux_pin(1), None);
        assert_eq!([c.role(0), c.role(1), c.role(2), c.role(3)], ["input", "aux0", "fc1", "input"]);
    }

    #[test]
    fn pulse_config_parses_and_checks() {
        let c = PulseConfig::from_fields(&["0", "1000000000"]).unwrap();
        assert_eq!((c.pin, c.period_ns, c.phase_ns, c.jitter_ns, c.width_ns), (0, S, 0, 0, 100 * MS));
        let c = PulseConfig::from_fields(&["3", "10000000", "5", "7"]).unwrap();
        assert_eq!((c.pin, c.phase_ns, c.jitter_ns, c.width_ns), (3, 5, 7, 5 * MS), "half the period");
        for bad in [
            &["4", "1000000000"][..],
            &["0"],
            &["0", "999"],
            &["0", "1000000000", "1000000000"],
            &["0", "1000000000", "0", "450000000"],
            &["0", "1000000000", "0", "0", "0"],
            &["0", "x"],
            &["0", "1000000000", "0", "0", "1", "2"],
        ] {
            assert!(PulseConfig::from_fields(bad).is_err(), "{bad:?}");
        }
    }

    /// A 1 s pulse source on SDP0, AUX0 sampling it with EN_TS0: each edge
    /// latches SYSTIM0 at its instant and raises TSICR.AUTT0; until
    /// AUXSTMPH0 is read the latch holds.
    #[test]
    fn pulse_edges_latch_auxstmp0() {
        let mut p = ptp(5 * S as i64);
        p.set_pulse(Some(PulseConfig::from_fields(&["0", "1000000000", "250000000"]).unwrap()), 0);
        extts(&mut p, 0, 0, 0);
        assert_eq!(p.next_event(0), Some(250 * MS), "the worker wakes for the edge");
        assert!(!p.tick(250 * MS - 1));
        assert!(p.tick(250 * MS + 20), "AUTT0 raises ICR.TS");
        assert_eq!(p.read(regs::TSICR, 0) & tsicr::AUTT0, tsicr::AUTT0);
        assert_ne!(p.read(regs::TSAUXC, 0) & tsauxc::AUTT0, 0);
        assert_eq!(p.aux_lateness.summary().max_ns, Some(20));
        assert_eq!((p.read(regs::AUXSTMPH0, 0), p.read(regs::AUXSTMPL0, 0)), (5, 250_000_000));
        assert_eq!(p.read(regs::TSAUXC, 0) & tsauxc::AUTT0, 0, "the H read frees the latch");
        // The falling edge 100 ms later; then the next rising edge with no
        // read in between: the latch holds the falling edge's stamp.
        assert!(p.tick(S));
        assert!(!p.tick(S), "nothing new");
        p.read(regs::TSICR, 0);
        assert!(!p.tick(S + 300 * MS), "the rising edge at 1.25 s finds the latch busy");
        assert_eq!(p.read(regs::TSICR, 0) & tsicr::AUTT0, 0);
        assert_eq!((p.read(regs::AUXSTMPH0, 0), p.read(regs::AUXSTMPL0, 0)), (5, 350_000_000));
        assert!(p.tick(2 * S), "the falling edge at 1.35 s");
        let src = p.pins().pulse().unwrap();
        assert_eq!((src.counters.edges, src.counters.latched, src.counters.busy), (4, [3, 0], [1, 0]));
        let log = p.pins().log(0);
        assert_eq!(log.count, 4);
        let e: Vec<_> =
            log.recent.iter().map(|e| (e.rising, e.true_ns, e.systim_ns, e.aux[0].map(|a| a.latched))).collect();
        let (s, ms) = (i128::from(S), i128::from(MS));
        assert_eq!(
            e,
            [
                (true, 250 * ms, 5 * s + 250 * ms, Some(true)),
                (false, 350 * ms, 5 * s + 350 * ms, Some(true)),
                (true, s + 250 * ms, 6 * s + 250 * ms, Some(false)),
                (false, s + 350 * ms, 6 * s + 350 * ms, Some(true)),
            ]
        );
        assert_eq!(log.recent[3].aux[0].unwrap().stamp_ns, 6 * s + 350 * ms);
    }

    /// No stamp without EN_TS0, nor when AUX0 samples another pin, nor on
    /// an output pin; AUX1 takes the same pin when told to.
    #[test]
    fn no_stamp_unless_assigned_and_enabled() {
        let mut p = ptp(0);
        p.set_pulse(Some(PulseConfig::from_fields(&["2", "1000000000"]).unwrap()), 0);
        // AUX0 on SDP2, but EN_TS0 clear.
        p.set_pin_config(PinConfig { tssdp: 2 | tssdp::AUX0_TS_SDP_EN, ..Default::default() }, 0);
        assert!(!p.tick(S + 1));
        // EN_TS0 set, AUX0 on SDP1.
        p.write(regs::TSAUXC, tsauxc::EN_TS0, S + 1);
        p.set_pin_config(PinConfig { tssdp: 1 | tssdp::AUX0_TS_SDP_EN, ..Default::default() }, S + 1);
        assert!(!p.tick(2 * S + 1));
        // SDP2 an output (EN_TS0 set and AUX0 on it): not seen.
        p.set_pin_config(
            PinConfig { ctrl_ext: ctrl_ext::SDP2_DIR, tssdp: 2 | tssdp::AUX0_TS_SDP_EN, ..Default::default() },
            2 * S + 1,
        );
        assert!(!p.tick(3 * S + 1));
        assert_eq!(p.read(regs::TSICR, 0) & (tsicr::AUTT0 | tsicr::AUTT1), 0);
        assert_eq!(p.read(regs::TSAUXC, 0) & tsauxc::AUTT0, 0);
        let c = p.pins().pulse().unwrap().counters;
        assert_eq!((c.edges, c.ignored, c.on_output, c.latched), (5, 3, 2, [0, 0]));
        assert_eq!(p.pins().log(2).count, 3, "an output pin does not log the source");
        // AUX1 on SDP2 (an input again) with EN_TS1, EN_TS0 clear.
        p.write(regs::TSAUXC, 0, 3 * S + 1);
        extts(&mut p, 1, 2, 3 * S + 1);
        assert!(p.tick(4 * S + 1));
        assert_eq!(p.read(regs::TSICR, 0) & (tsicr::AUTT0 | tsicr::AUTT1), tsicr::AUTT1);
        assert_eq!((p.read(regs::AUXSTMPH1, 0), p.read(regs::AUXSTMPL1, 0)), (3, 100_000_000));
        assert_eq!(p.pins().pulse().unwrap().counters.busy, [0, 1], "the rising edge at 4 s");
    }

    #[test]
    fn pulse_level_reads_on_the_input_pin() {
        let mut p = ptp(0);
        p.set_pulse(Some(PulseConfig::from_fields(&["1", "1000000000", "0", "0", "500000000"]).unwrap()), 0);
        p.tick(S);
        assert!(p.pin_level(1) && !p.pin_level(0));
        p.tick(S + 500 * MS);
        assert!(!p.pin_level(1));
    }

    #[test]
    fn pulse_jitter_is_bounded_and_seeded() {
        let cfg = PulseConfig::from_fields(&["0", "10000000", "0", "1000", "1000000"]).unwrap();
        let run = || {
            let mut p = ptp(0);
            p.set_pulse(Some(cfg), 0);
            for t in 1..=199 {
                p.tick(t * 5 * MS);
            }
            p.pins().log(0).recent.iter().map(|e| e.true_ns).collect::<Vec<_>>()
        };
        let edges = run();
        assert_eq!(edges, run(), "same seed, same jitter");
        assert_eq!(edges.len(), EDGES_KEPT);
        let rising: Vec<i128> = edges.iter().step_by(2).copied().collect();
        for (r, f) in rising.iter().zip(edges.iter().skip(1).step_by(2)) {
            assert_eq!(f - r, 1_000_000, "the whole pulse moves");
            let err = r.rem_euclid(10_000_000);
            let err = if err > 5_000_000 { err - 10_000_000 } else { err };
            assert!(err.abs() <= 1000, "{r}: {err}");
        }
        assert!(rising.iter().any(|r| r.rem_euclid(10_000_000) != 0), "some jitter");
    }

    /// igc's PEROUT with a 1 s period on SDP1: clock mode, FREQOUT = 500 ms,
    /// started at a whole second.
    #[test]
    fn clock_output_toggles_every_freqout() {
        let mut p = ptp(10 * S as i64);
        p.set_pin_config(
            PinConfig {
                ctrl: ctrl::SDP1_DIR,
                tssdp: (tssdp::SEL_FC0 << tssdp::sel_shift(1)) | tssdp::en(1),
                ..Default::default()
            },
            0,
        );
        p.write(regs::TRGTTIMH0, 12, 0);
        p.write(regs::TRGTTIML0, 0, 0);
        p.write(regs::FREQOUT0, 500_000_000, 0);
        p.write(regs::TSAUXC, tsauxc::EN_CLK0 | tsauxc::ST0, 0);
        assert_eq!(p.next_event(S / 2), Some(S), "SYS_WRAP first");
        assert_eq!(p.next_event(S + 1), Some(2 * S), "the clock's start");
        assert!(!p.tick(5 * S + 100), "no interrupt from a clock");
        let log = p.pins().log(1);
        let e: Vec<_> = log.recent.iter().map(|e| (e.rising, e.systim_ns, e.host_ns, e.cause)).collect();
        let want: Vec<_> = (0..7)
            .map(|i| {
                (
                    i % 2 == 0,
                    i128::from(12 * S + i * 500 * MS),
                    2 * S + i * 500 * MS,
                    EdgeCause::Output(Function::Clock(0)),
                )
            })
            .collect();
        assert_eq!(e, want);
        assert!(p.pin_level(1));
        // EN_CLK0 clear: it stops, high.
        p.write(regs::TSAUXC, 0, 5 * S + 200);
        p.tick(9 * S);
        assert_eq!(p.pins().log(1).count, 7);
        // Started in the past: never.
        p.write(regs::TSAUXC, tsauxc::EN_CLK0 | tsauxc::ST0, 9 * S);
        p.tick(20 * S);
        assert_eq!(p.pins().log(1).count, 7);
        assert_eq!(p.counters.clock_armed_in_past, 1);
    }

    /// A fast clock is not woken for, but its edges come out exact, and
    /// after a long stall only the last ones are logged one by one.
    #[test]
    fn fast_clock_is_caught_up() {
        let mut p = ptp(0);
        p.set_pin_config(
            PinConfig {
                ctrl_ext: ctrl_ext::SDP3_DIR,
                tssdp: (tssdp::SEL_FC1 << tssdp::sel_shift(3)) | tssdp::en(3),
                ..Default::default()
            },
            0,
        );
        p.write(regs::TRGTTIMH1, 1, 0);
        p.write(regs::FREQOUT1, 1000, 0);
        p.write(regs::TSAUXC, tsauxc::EN_CLK1 | tsauxc::ST1, 0);
        p.tick(S + 10_500);
        assert_eq!(p.pins().log(3).count, 11);
        assert_eq!(p.next_event(S + 10_500), Some(2 * S), "not woken for a 1 us half period");
        p.tick(S + 1_000_000);
        let log = p.pins().log(3);
        assert_eq!(log.count, 1001);
        assert_eq!(log.recent.back().unwrap().systim_ns, i128::from(S + 1_000_000));
        assert!(log.recent.back().unwrap().rising, "1001 edges from low: high");
        assert!(p.pin_level(3));
    }

    /// TT0 routed to SDP0 in target-time mode, re-armed each half period as
    /// igc_tsync_interrupt does: the pin toggles at each target.
    #[test]
    fn target_time_toggles_its_pin() {
        let mut p = ptp(0);
        p.set_pin_config(PinConfig { ctrl: ctrl::SDP0_DIR, tssdp: tssdp::en(0), ..Default::default() }, 0);
        p.write(regs::TRGTTIMH0, 2, 0);
        p.write(regs::TRGTTIML0, 300_000_000, 0);
        p.write(regs::TSAUXC, tsauxc::EN_TT0, 0);
        for (i, t) in [2_300_000_000u64, 3_000_000_000, 3_700_000_000].into_iter().enumerate() {
            assert!(!p.tick(t - 1));
            assert!(p.tick(t + 5));
            assert_eq!(p.read(regs::TSICR, 0) & tsicr::TT0, tsicr::TT0);
            let e = *p.pins().log(0).recent.back().unwrap();
            assert_eq!((e.rising, e.systim_ns, e.host_ns), (i % 2 == 0, i128::from(t), t));
            // The ISR: next = start + half period (700 ms), EN_TT0 again.
            let next = t + 700 * MS;
            p.write(regs::TRGTTIML0, (next % S) as u32, t + 10);
            p.write(regs::TRGTTIMH0, (next / S) as u32, t + 10);
            let ts = p.read(regs::TSAUXC, t + 10);
            p.write(regs::TSAUXC, ts | tsauxc::EN_TT0, t + 10);
        }
        assert_eq!(p.pins().log(0).count, 3);
        // TT1 is not routed to SDP0.
        p.write(regs::TRGTTIMH1, 9, 5 * S);
        p.write(regs::TSAUXC, tsauxc::EN_TT1, 5 * S);
        assert!(p.tick(9 * S));
        assert_eq!(p.pins().log(0).count, 3);
    }

    #[test]
    fn software_level_of_a_gpio_output() {
        let mut p = ptp(0);
        p.set_pin_config(PinConfig { ctrl: ctrl::SDP1_DIR, ..Default::default() }, 0);
        p.set_pin_config(PinConfig { ctrl: ctrl::SDP1_DIR | ctrl::SDP1_DATA, ..Default::default() }, 7);
        assert!(p.pin_level(1));
        let e = p.pins().log(1).recent[0];
        assert_eq!((e.rising, e.cause, e.host_ns), (true, EdgeCause::Software, 7));
        // An input's data bit drives nothing.
        p.set_pin_config(PinConfig { ctrl: ctrl::SDP0_DATA, ..Default::default() }, 8);
        assert!(!p.pin_level(0));
        assert_eq!(p.pins().log(0).count, 0);
    }

    /// SYSTIM0 set past a clock's edges: they happen at the set, with the
    /// value set.
    #[test]
    fn timer_set_past_an_edge() {
        let mut p = ptp(0);
        p.set_pin_config(PinConfig { ctrl: ctrl::SDP0_DIR, tssdp: tssdp::en(0), ..Default::default() }, 0);
        p.write(regs::TRGTTIMH0, 5, 0);
        p.write(regs::TSAUXC, tsauxc::EN_TT0, 0);
        p.write(regs::SYSTIML, 0, S);
        p.write(regs::SYSTIMH, 7, S);
        assert!(p.tick(S + 10));
        let e = p.pins().log(0).recent[0];
        assert_eq!((e.host_ns, e.systim_ns), (S, i128::from(7 * S)));
    }
}
