// SPDX-License-Identifier: GPL-2.0

//! The IEEE 1588 block: SYSTIM0 (adjustable), SYSTIM1 (free running), the
//! four TX timestamp register sets, TSICR/TSIM, target times and TSAUXC.
//!
//! Timers are linear functions of a host time source (CLOCK_MONOTONIC by
//! default). SYSTIM0 runs at `(1 ± INCVALUE * 10 / 2^37) * (1 + error)`
//! times the host rate, which is the exact inverse of `igc_ptp_adjfine_i225`
//! (INCVALUE = |scaled_ppm| * 2^14 / 78125). `error` is the configured
//! oscillator frequency error of the port, shared by both timers.
//!
//! The software-definable pins and the time-sync functions on them (the
//! auxiliary timestamps, the target-time and clock outputs, an external
//! pulse source) are in [`sdp`].

pub mod sdp;

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::lateness::Lateness;
use crate::noise::{Noise, Stamping, DEFAULT_SEED};
use crate::regs::{self, timinca, tsauxc, tsicr, tsynctxctl};

const NSEC_PER_SEC: i128 = 1_000_000_000;

/// Where the model takes its notion of "now" from, in nanoseconds.
pub trait TimeSource: Send + Sync {
    fn now_ns(&self) -> u64;

    /// What to add to [`TimeSource::now_ns`] for the true time, the
    /// timescale the external pulse source's edges are on and the pin edges
    /// are reported in ([`sdp`]): 0 unless the source says otherwise.
    fn true_offset_ns(&self) -> i64 {
        0
    }
}

/// The host's CLOCK_MONOTONIC.
#[derive(Clone, Copy, Debug, Default)]
pub struct HostClock;

impl TimeSource for HostClock {
    fn now_ns(&self) -> u64 {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: clock_gettime only writes the timespec we pass.
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
        ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
    }

    /// CLOCK_REALTIME − CLOCK_MONOTONIC now: the true time is the host's
    /// CLOCK_REALTIME (as it was when this was sampled: a later step of the
    /// host's clock does not move it; slewing moves both clocks alike).
    fn true_offset_ns(&self) -> i64 {
        let read = |clock| {
            let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
            // SAFETY: clock_gettime only writes the timespec we pass.
            unsafe { libc::clock_gettime(clock, &mut ts) };
            ts.tv_sec * 1_000_000_000 + ts.tv_nsec
        };
        let before = read(libc::CLOCK_MONOTONIC);
        let real = read(libc::CLOCK_REALTIME);
        let after = read(libc::CLOCK_MONOTONIC);
        real - before - (after - before) / 2
    }
}

/// A manually driven clock, for tests and deterministic runs.
#[derive(Debug, Default)]
pub struct VirtualClock(AtomicU64);

impl VirtualClock {
    pub fn new(start_ns: u64) -> Self {
        VirtualClock(AtomicU64::new(start_ns))
    }
    pub fn advance(&self, ns: u64) {
        self.0.fetch_add(ns, Ordering::SeqCst);
    }
    pub fn set(&self, ns: u64) {
        self.0.store(ns, Ordering::SeqCst);
    }
}

impl TimeSource for VirtualClock {
    fn now_ns(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }
}

/// Per-port clock imperfections.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PtpConfig {
    /// Oscillator frequency error in parts per billion.
    pub freq_error_ppb: i64,
    /// SYSTIM0 value at power-on, in nanoseconds.
    pub initial_offset_ns: i64,
}

/// One hardware timer: value = base_value + elapsed * rate.
#[derive(Clone, Debug)]
pub struct Timer {
    base_host: u64,
    base_value: i128,
    timinca: u32,
    running: bool,
    freq_error_ppb: i64,
}

impl Timer {
    pub fn new(host_now: u64, value: i128, freq_error_ppb: i64) -> Self {
        Timer { base_host: host_now, base_value: value, timinca: 0, running: true, freq_error_ppb }
    }

    /// Timer value (ns) at host time `host`.
    pub fn at(&self, host: u64) -> i128 {
        if !self.running {
            return self.base_value;
        }
        let dt = i128::from(host) - i128::from(self.base_host);
        let inc = i128::from(self.timinca & timinca::INCVALUE_MASK);
        let mut corr = dt * inc * 10 / (1i128 << 37);
        if self.timinca & timinca::ISGN != 0 {
            corr = -corr;
        }
        let drift = dt * i128::from(self.freq_error_ppb) / NSEC_PER_SEC;
        (self.base_value + dt + corr + drift).max(0)
    }

    /// The host time at which the timer reaches `value` (ns), or now if it
    /// already has; `None` if it is stopped short of it.
    pub fn host_at(&self, value: i128, now: u64) -> Option<u64> {
        if self.at(now) >= value {
            return Some(now);
        }
        self.first_host_at(value).map(|h| h.max(now))
    }

    /// The first host time (ns) since the timer was last set, started,
    /// stopped or retuned at which it reads `value` or more: that instant
    /// itself if it already did then; `None` if it is stopped short of it.
    pub fn first_host_at(&self, value: i128) -> Option<u64> {
        if self.at(self.base_host) >= value {
            return Some(self.base_host);
        }
        if !self.running {
            return None;
        }
        // at() = base + dt * rate, with rate = 1 + (±inc·10 / 2^37) + ppb / 1e9.
        let one = (1i128 << 37) * NSEC_PER_SEC;
        let mut inc = i128::from(self.timinca & timinca::INCVALUE_MASK) * 10 * NSEC_PER_SEC;
        if self.timinca & timinca::ISGN != 0 {
            inc = -inc;
        }
        let rate = one + inc + i128::from(self.freq_error_ppb) * (1i128 << 37);
        if rate <= 0 {
            return None;
        }
        let need = value - self.base_value;
        let mut dt = (need * one + rate - 1) / rate;
        // at() truncates each term: step up to the first ns that reaches it.
        while self.at(u64::try_from(i128::from(self.base_host) + dt).ok()?) < value {
            dt += 1;
        }
        u64::try_from(i128::from(self.base_host) + dt).ok()
    }

    fn rebase(&mut self, host: u64) {
        self.base_value = self.at(host);
        self.base_host = host;
    }

    pub fn set(&mut self, host: u64, value: i128) {
        self.base_host = host;
        self.base_value = value.max(0);
    }

    pub fn set_timinca(&mut self, host: u64, val: u32) {
        self.rebase(host);
        self.timinca = val;
    }

    pub fn timinca(&self) -> u32 {
        self.timinca
    }

    pub fn set_running(&mut self, host: u64, running: bool) {
        if running != self.running {
            self.rebase(host);
            self.running = running;
        }
    }
}

/// Splits a timer value into (seconds, nanoseconds) register halves.
pub fn split(value: i128) -> (u32, u32) {
    let v = value.max(0);
    ((v / NSEC_PER_SEC) as u32, (v % NSEC_PER_SEC) as u32)
}

fn join(sec: u32, ns: u32) -> i128 {
    i128::from(sec) * NSEC_PER_SEC + i128::from(ns)
}

/// The earlier of two optional instants.
fn earliest(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// TX and RX latencies the driver corrects for, by link speed (ns).
pub fn latencies(speed_mbps: u32) -> (i128, i128) {
    match speed_mbps {
        10 => (240, 6450),
        100 => (58, 185),
        1000 => (80, 300),
        2500 => (1325, 1485),
        _ => (0, 0),
    }
}

/// Register addresses of the four TX timestamp sets (low, high).
pub const TXSTMP: [(u32, u32); 4] = [
    (regs::TXSTMPL_0, regs::TXSTMPH_0),
    (regs::TXSTMPL_1, regs::TXSTMPH_1),
    (regs::TXSTMPL_2, regs::TXSTMPH_2),
    (regs::TXSTMPL_3, regs::TXSTMPH_3),
];

/// Injectable faults of the timestamping unit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PtpFaults {
    /// Model the i225 erratum: after a TXTS event, no further TXTS event is
    /// raised until TXSTMPH_0 has been read.
    pub txstmph0_rearm_bug: bool,
    /// Number of upcoming TXTS events whose interrupt is silently lost.
    pub drop_txts_irqs: u32,
}

/// Counters for the control socket.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PtpCounters {
    pub tx_captured: u64,
    pub tx_skipped_busy: u64,
    pub tx_read: u64,
    pub rx_stamped: u64,
    pub txts_irqs_dropped: u64,
    /// Target times armed (TSAUXC.EN_TTx set) with a time already past: as
    /// on hardware ("programming any past time value into TT register will
    /// cause PPS to never start", igc_ptp.c), they never fire.
    pub tt_armed_in_past: u64,
    /// Clock outputs started (TSAUXC.EN_CLKx with STx) with a target time
    /// already past: they never start either.
    pub clock_armed_in_past: u64,
    /// TSAUXC.EN_CLKx set without STx (igc never does): the model's clock
    /// stays still.
    pub clock_without_start: u64,
}

/// Upper bounds (exclusive) of the latency histogram buckets with their
/// labels; a last, open bucket takes everything from 1 s up.
pub const LATENCY_BUCKETS: [(u64, &str); 7] = [
    (1_000, "lt_1us"),
    (10_000, "lt_10us"),
    (100_000, "lt_100us"),
    (1_000_000, "lt_1ms"),
    (10_000_000, "lt_10ms"),
    (100_000_000, "lt_100ms"),
    (1_000_000_000, "lt_1s"),
];
/// Label of the open last bucket.
pub const LATENCY_OVERFLOW_BUCKET: &str = "ge_1s";
/// How many of the most recent samples are kept.
pub const LATENCY_RECENT: usize = 16;

/// Distribution of a latency in host nanoseconds: count, min, max, sum, a
/// decade histogram and the last [`LATENCY_RECENT`] samples.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LatencyStats {
    pub count: u64,
    pub min_ns: u64,
    pub max_ns: u64,
    pub sum_ns: u128,
    /// Samples per [`LATENCY_BUCKETS`] bucket, then the open last bucket.
    pub histogram: [u64; LATENCY_BUCKETS.len() + 1],
    /// The most recent samples, oldest first.
    pub recent: VecDeque<u64>,
}

impl LatencyStats {
    pub fn record(&mut self, ns: u64) {
        self.min_ns = if self.count == 0 { ns } else { self.min_ns.min(ns) };
        self.max_ns = self.max_ns.max(ns);
        self.count += 1;
        self.sum_ns += u128::from(ns);
        let bucket = LATENCY_BUCKETS.iter().position(|&(bound, _)| ns < bound).unwrap_or(LATENCY_BUCKETS.len());
        self.histogram[bucket] += 1;
        if self.recent.len() == LATENCY_RECENT {
            self.recent.pop_front();
        }
        self.recent.push_back(ns);
    }

    /// Mean in ns (rounded down); `None` without samples.
    pub fn mean_ns(&self) -> Option<u64> {
        (self.count > 0).then(|| (self.sum_ns / u128::from(self.count)) as u64)
    }

    /// (label, samples) per histogram bucket, the open bucket last.
    pub fn buckets(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        LATENCY_BUCKETS
            .iter()
            .map(|&(_, label)| label)
            .chain(std::iter::once(LATENCY_OVERFLOW_BUCKET))
            .zip(self.histogram.iter().copied())
    }
}

/// How long the driver takes to collect TX timestamps: from the capture
/// into a TXSTMPL/H set (TXTT_n set, TSICR.TXTS raised unless a fault
/// suppresses it) to the read of that set's TXSTMPH, in host time.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TxTsReadLatency {
    /// One sample per read of a valid set's TXSTMPH (so `count` equals
    /// [`PtpCounters::tx_read`]).
    pub latency: LatencyStats,
    /// The same samples, for their percentiles (the benchmark's p50/p99).
    pub percentiles: Lateness,
    /// Stamps released without a read of their own TXSTMPH: freed by a
    /// TXSTMPH_0 read, or lost to a MAC reset.
    pub released_unread: u64,
}

#[derive(Clone, Debug)]
pub struct Ptp {
    pub systim0: Timer,
    pub systim1: Timer,
    latch0: i128,
    latch1: i128,
    pending_ns0: u32,
    pending_ns1: u32,
    timadj: u32,
    tsynctxctl: u32,
    txstmp: [(u32, u32); 4],
    tsyncrxctl: u32,
    tsauxc: u32,
    trgttim: [(u32, u32); 2],
    /// Per target time: armed with a time still ahead and not fired yet.
    /// One armed in the past never fires; one that fired waits to be armed
    /// again (EN_TTx set, or TRGTTIMH written: with DIS_TS_CLEAR, EN_TTx
    /// stays set and igc's interrupt handler only writes the next time).
    tt_pending: [bool; 2],
    /// FREQOUT0/1: the clock-mode half periods.
    freqout: [u32; 2],
    /// AUXSTMPL/H0 and 1 (read-only to software): the auxiliary timestamps,
    /// latched by an edge on their pin (TSAUXC.AUTTx then set until the
    /// read of AUXSTMPHx).
    auxstmp: [(u32, u32); 2],
    /// The pins, their time-sync functions and the pulse source.
    pins: sdp::Pins,
    /// True time − host time (ns): see [`TimeSource::true_offset_ns`].
    true_offset_ns: i128,
    tsicr: u32,
    tsim: u32,
    last_second: u32,
    txts_armed: bool,
    /// Host time each TX set's stamp was captured, while TXTT_n is set.
    tx_ready_at: [Option<u64>; 4],
    pub faults: PtpFaults,
    pub counters: PtpCounters,
    pub txts_read_latency: TxTsReadLatency,
    /// Host time from each new second of SYSTIM0 to its SYS_WRAP.
    pub sys_wrap_lateness: Lateness,
    /// Host time from SYSTIM0 reaching an armed target time to TSICR.TTx.
    pub target_time_lateness: Lateness,
    /// Host time from each edge of the pulse source to its processing
    /// (the auxiliary timestamp, TSICR.AUTTx).
    pub aux_lateness: Lateness,
    /// Host time from each clock-output edge to its processing (only the
    /// clocks the worker wakes for: half periods of
    /// [`sdp::CLOCK_WAKE_MIN_NS`] and more).
    pub clock_lateness: Lateness,
    /// The resolution and error of the TX and RX stamps (exact unless
    /// configured); SYSTIM reads stay exact.
    pub stamping: Noise<Stamping>,
}

impl Ptp {
    pub fn new(host_now: u64, cfg: PtpConfig) -> Self {
        Ptp {
            systim0: Timer::new(host_now, i128::from(cfg.initial_offset_ns.max(0)), cfg.freq_error_ppb),
            systim1: Timer::new(host_now, 0, cfg.freq_error_ppb),
            latch0: 0,
            latch1: 0,
            pending_ns0: 0,
            pending_ns1: 0,
            timadj: 0,
            tsynctxctl: 0,
            txstmp: [(0, 0); 4],
            tsyncrxctl: 0,
            tsauxc: 0,
            trgttim: [(0, 0); 2],
            tt_pending: [false; 2],
            freqout: [0; 2],
            auxstmp: [(0, 0); 2],
            pins: sdp::Pins::default(),
            true_offset_ns: 0,
            tsicr: 0,
            tsim: 0,
            last_second: 0,
            txts_armed: true,
            tx_ready_at: [None; 4],
            faults: PtpFaults::default(),
            counters: PtpCounters::default(),
            txts_read_latency: TxTsReadLatency::default(),
            sys_wrap_lateness: Lateness::default(),
            target_time_lateness: Lateness::default(),
            aux_lateness: Lateness::default(),
            clock_lateness: Lateness::default(),
            stamping: Noise::new(Stamping::EXACT, DEFAULT_SEED, 0),
        }
    }

    /// Host time of the next PTP event (the next second of SYSTIM0, an
    /// armed target time, the pulse source's next edge, a clock output's
    /// start or next edge), for the port's worker to wake at.
    pub fn next_event(&self, host: u64) -> Option<u64> {
        let now = self.systim0.at(host);
        let next_second = (now / NSEC_PER_SEC + 1) * NSEC_PER_SEC;
        let mut due = self.systim0.host_at(next_second, host);
        for (i, en) in [tsauxc::EN_TT0, tsauxc::EN_TT1].into_iter().enumerate() {
            if self.tsauxc & en != 0 && self.tt_pending[i] {
                let (h, l) = self.trgttim[i];
                let t = self.systim0.host_at(join(h, l & 0x3FFF_FFFF), host);
                due = earliest(due, t);
            }
        }
        earliest(due, self.next_pin_event(host))
    }

    /// MAC reset: control registers clear, the timers keep counting (the
    /// driver saves and restores the time around its resets anyway). The
    /// pins go back to inputs (CTRL, CTRL_EXT and TSSDP clear); the pulse
    /// source, outside the chip, goes on.
    pub fn reset(&mut self, host: u64) {
        self.systim0.set_timinca(host, 0);
        self.systim0.set_running(host, true);
        self.systim1.set_running(host, true);
        self.timadj = 0;
        self.tsynctxctl = 0;
        self.txstmp = [(0, 0); 4];
        self.tsyncrxctl = 0;
        self.tsauxc = 0;
        self.trgttim = [(0, 0); 2];
        self.tt_pending = [false; 2];
        self.freqout = [0; 2];
        self.auxstmp = [(0, 0); 2];
        self.reset_pins();
        self.tsicr = 0;
        self.tsim = 0;
        self.txts_armed = true;
        self.release_unread_stamps();
    }

    /// Forgets the capture times of all sets; stamps still waiting count
    /// as released unread.
    fn release_unread_stamps(&mut self) {
        let unread = self.tx_ready_at.iter_mut().filter_map(Option::take).count();
        self.txts_read_latency.released_unread += unread as u64;
    }

    pub fn contains(off: u32) -> bool {
        (0xB600..0xB700).contains(&off)
    }

    pub fn tsyncrxctl(&self) -> u32 {
        self.tsyncrxctl
    }

    /// True if a TSICR cause enabled in TSIM is pending.
    pub fn interrupt_pending(&self) -> bool {
        self.tsicr & self.tsim != 0
    }

    /// Sets TSICR causes; returns true if an enabled cause became pending
    /// (the caller then raises ICR.TS).
    fn set_cause(&mut self, cause: u32) -> bool {
        self.tsicr |= cause;
        cause & self.tsim != 0
    }

    pub fn read(&mut self, off: u32, host: u64) -> u32 {
        match off {
            regs::SYSTIML | regs::SYSTIMR => {
                self.latch0 = self.systim0.at(host);
                if off == regs::SYSTIMR {
                    0
                } else {
                    split(self.latch0).1
                }
            }
            regs::SYSTIMH => split(self.latch0).0,
            regs::SYSTIML_1 | regs::SYSTIMR_1 => {
                self.latch1 = self.systim1.at(host);
                if off == regs::SYSTIMR_1 {
                    0
                } else {
                    split(self.latch1).1
                }
            }
            regs::SYSTIMH_1 => split(self.latch1).0,
            regs::TIMINCA => self.systim0.timinca(),
            regs::TIMINCA_1 => self.systim1.timinca(),
            regs::TIMADJ => self.timadj,
            regs::TSYNCTXCTL => self.tsynctxctl,
            regs::TSYNCRXCTL => self.tsyncrxctl,
            regs::TSAUXC => self.tsauxc,
            regs::TRGTTIML0 => self.trgttim[0].1,
            regs::TRGTTIMH0 => self.trgttim[0].0,
            regs::TRGTTIML1 => self.trgttim[1].1,
            regs::TRGTTIMH1 => self.trgttim[1].0,
            regs::FREQOUT0 => self.freqout[0],
            regs::FREQOUT1 => self.freqout[1],
            regs::AUXSTMPL0 => self.auxstmp[0].1,
            regs::AUXSTMPL1 => self.auxstmp[1].1,
            // Reading the high half frees the latch for the next edge.
            regs::AUXSTMPH0 => {
                self.tsauxc &= !tsauxc::AUTT0;
                self.auxstmp[0].0
            }
            regs::AUXSTMPH1 => {
                self.tsauxc &= !tsauxc::AUTT1;
                self.auxstmp[1].0
            }
            regs::TSICR => std::mem::take(&mut self.tsicr),
            regs::TSIM => self.tsim,
            _ => {
                if let Some(i) = TXSTMP.iter().position(|&(l, _)| l == off) {
                    return self.txstmp[i].1;
                }
                if let Some(i) = TXSTMP.iter().position(|&(_, h)| h == off) {
                    return self.read_txstmph(i, host);
                }
                0
            }
        }
    }

    /// True for the registers of the block whose read changes something
    /// (TSICR clears, TXSTMPH and AUXSTMPH free their sets, SYSTIM latches).
    pub fn read_has_effect(off: u32) -> bool {
        matches!(
            off,
            regs::TSICR
                | regs::AUXSTMPH0
                | regs::AUXSTMPH1
                | regs::SYSTIML
                | regs::SYSTIMH
                | regs::SYSTIMR
                | regs::SYSTIML_1
                | regs::SYSTIMH_1
                | regs::SYSTIMR_1
        ) || TXSTMP.iter().any(|&(_, h)| h == off)
    }

    /// What a byte or word write merges its bytes into: the stored control
    /// registers' contents; 0 for TSICR (write 1 to clear) and for the
    /// registers whose reads have side effects or that writes do not keep.
    pub fn partial_write_base(&self, off: u32) -> u32 {
        match off {
            regs::TIMINCA => self.systim0.timinca(),
            regs::TIMINCA_1 => self.systim1.timinca(),
            regs::TSYNCTXCTL => self.tsynctxctl & !tsynctxctl::TXTT_MASK,
            regs::TSYNCRXCTL => self.tsyncrxctl,
            regs::TSAUXC => self.tsauxc,
            regs::TRGTTIML0 => self.trgttim[0].1,
            regs::TRGTTIMH0 => self.trgttim[0].0,
            regs::TRGTTIML1 => self.trgttim[1].1,
            regs::TRGTTIMH1 => self.trgttim[1].0,
            regs::FREQOUT0 => self.freqout[0],
            regs::FREQOUT1 => self.freqout[1],
            regs::TSIM => self.tsim,
            _ => 0,
        }
    }

    /// Reading TXSTMPH_i releases set i. Per the driver ("reading the high
    /// register of the first set ... clears all the equivalent bits"),
    /// reading set 0 clears every TXTT bit and re-arms the TXTS event.
    /// A read of a valid set is a sample of the TX timestamp read latency.
    fn read_txstmph(&mut self, set: usize, host: u64) -> u32 {
        let valid = tsynctxctl::TXTT_MASK & (1 << set) & self.tsynctxctl != 0;
        if valid {
            self.counters.tx_read += 1;
            if let Some(ready) = self.tx_ready_at[set].take() {
                let ns = host.saturating_sub(ready);
                self.txts_read_latency.latency.record(ns);
                self.txts_read_latency.percentiles.record(ns);
            }
        }
        if set == 0 {
            self.tsynctxctl &= !tsynctxctl::TXTT_MASK;
            self.txts_armed = true;
            self.release_unread_stamps();
        } else {
            self.tsynctxctl &= !(1 << set);
        }
        self.txstmp[set].0
    }

    /// A register write; returns true if ICR.TS must be raised.
    pub fn write(&mut self, off: u32, val: u32, host: u64) -> bool {
        match off {
            regs::SYSTIML => self.pending_ns0 = val,
            regs::SYSTIMH => {
                self.systim0.set(host, join(val, self.pending_ns0));
                // Setting the time is not a second wrapping: no SYS_WRAP for it.
                self.last_second = val;
            }
            regs::SYSTIML_1 => self.pending_ns1 = val,
            regs::SYSTIMH_1 => self.systim1.set(host, join(val, self.pending_ns1)),
            regs::TIMINCA => self.systim0.set_timinca(host, val),
            regs::TIMINCA_1 => self.systim1.set_timinca(host, val),
            regs::TIMADJ => {
                let delta = i128::from(val & 0x3FFF_FFFF);
                if delta != 0 {
                    let now = self.systim0.at(host);
                    let new = if val & (1 << 31) != 0 { now - delta } else { now + delta };
                    self.systim0.set(host, new);
                    self.last_second = split(new).0;
                }
                self.timadj = val & !0x3FFF_FFFF & !(1 << 31);
            }
            regs::TSYNCTXCTL => {
                self.tsynctxctl = (self.tsynctxctl & tsynctxctl::TXTT_MASK) | (val & !tsynctxctl::TXTT_MASK)
            }
            regs::TSYNCRXCTL => self.tsyncrxctl = val,
            regs::TSAUXC => {
                // AUTT0/1 are the hardware's: a write leaves them alone.
                let autt = tsauxc::AUTT0 | tsauxc::AUTT1;
                let val = (val & !autt) | (self.tsauxc & autt);
                let old = self.tsauxc;
                let newly = val & !old;
                self.tsauxc = val;
                self.systim0.set_running(host, val & tsauxc::DISABLE_SYSTIM0 == 0);
                self.systim1.set_running(host, val & tsauxc::DISABLE_SYSTIM1 == 0);
                for (i, en) in [tsauxc::EN_TT0, tsauxc::EN_TT1].into_iter().enumerate() {
                    if newly & en != 0 {
                        self.arm_target(i, host);
                    }
                }
                self.clocks_written(old, val, host);
            }
            regs::TRGTTIML0 => self.trgttim[0].1 = val,
            regs::TRGTTIMH0 | regs::TRGTTIMH1 => {
                let i = usize::from(off == regs::TRGTTIMH1);
                self.trgttim[i].0 = val;
                if self.tsauxc & [tsauxc::EN_TT0, tsauxc::EN_TT1][i] != 0 {
                    self.arm_target(i, host);
                }
            }
            regs::TRGTTIML1 => self.trgttim[1].1 = val,
            regs::FREQOUT0 => self.freqout[0] = val,
            regs::FREQOUT1 => self.freqout[1] = val,
            regs::TSICR => self.tsicr &= !val,
            regs::TSIM => {
                let newly = val & !self.tsim;
                self.tsim = val;
                return self.tsicr & newly != 0;
            }
            _ => {}
        }
        false
    }

    /// Target time `i` was armed (TSAUXC.EN_TTi set, or TRGTTIMHi written
    /// while it is): a time already past never starts, until the target is
    /// armed again.
    fn arm_target(&mut self, i: usize, host: u64) {
        let (h, l) = self.trgttim[i];
        self.tt_pending[i] = self.systim0.at(host) < join(h, l & 0x3FFF_FFFF);
        if !self.tt_pending[i] {
            self.counters.tt_armed_in_past += 1;
            log::info!("target time {i} armed in the past ({h} s {} ns): it never fires", l & 0x3FFF_FFFF);
        }
    }

    /// What a timestamp of an event the timers read `values` at shows: each
    /// rounded down to the quantum, with one error drawn for the event (both
    /// timers sample the same instant).
    fn stamp<const N: usize>(&mut self, values: [i128; N]) -> [i128; N] {
        let st = self.stamping.current;
        if st.is_exact() {
            return values;
        }
        let error = st.draw_error_ps(&mut self.stamping.rng);
        values.map(|v| st.stamp(v, error))
    }

    /// Captures a TX timestamp into `set` for a frame that left the MAC at
    /// host time `host`. `latency` is subtracted so that the driver's TX
    /// latency correction lands on the wire time (up to the stamping's
    /// quantum and noise). Returns true if ICR.TS must be raised.
    pub fn capture_tx(&mut self, set: usize, use_timer1: bool, host: u64, latency: i128) -> bool {
        if self.tsynctxctl & tsynctxctl::ENABLED == 0 || set > 3 {
            return false;
        }
        if self.tsynctxctl & (1 << set) != 0 {
            // The set still holds an unread stamp: keep it.
            self.counters.tx_skipped_busy += 1;
            return false;
        }
        let timer = if use_timer1 { &self.systim1 } else { &self.systim0 };
        let [value] = self.stamp([timer.at(host)]);
        self.txstmp[set] = split(value - latency);
        self.tsynctxctl |= 1 << set;
        self.tx_ready_at[set] = Some(host);
        self.counters.tx_captured += 1;

        if self.faults.txstmph0_rearm_bug && !self.txts_armed {
            return false;
        }
        if self.faults.drop_txts_irqs > 0 {
            self.faults.drop_txts_irqs -= 1;
            self.counters.txts_irqs_dropped += 1;
            return false;
        }
        self.txts_armed = false;
        self.set_cause(tsicr::TXTS)
    }

    /// Value of timer `sel` (SRRCTL TIMERxSEL encoding) at `host`.
    fn timer_value(&self, sel: u32, host: u64) -> i128 {
        match sel {
            0 => self.systim0.at(host),
            1 => self.systim1.at(host),
            _ => 0,
        }
    }

    /// The 16-byte header put in front of a received frame: timer1-slot
    /// (ns, s) then timer0-slot (ns, s), each from the timer SRRCTL selects,
    /// with the stamping's quantum and noise.
    pub fn rx_header(&mut self, srrctl: u32, host: u64, latency: i128) -> [u8; 16] {
        use crate::regs::srrctl::{TIMER0SEL_SHIFT, TIMER1SEL_SHIFT};
        let sel = [(srrctl >> TIMER1SEL_SHIFT) & 3, (srrctl >> TIMER0SEL_SHIFT) & 3];
        let stamped = self.stamp(sel.map(|s| self.timer_value(s, host)));
        // A slot whose select names no timer reads 0, stamped or not.
        let [t1, t0] = [0, 1].map(|i| split(if sel[i] < 2 { stamped[i] + latency } else { latency }));
        let mut h = [0u8; 16];
        h[0..4].copy_from_slice(&t1.1.to_le_bytes());
        h[4..8].copy_from_slice(&t1.0.to_le_bytes());
        h[8..12].copy_from_slice(&t0.1.to_le_bytes());
        h[12..16].copy_from_slice(&t0.0.to_le_bytes());
        self.counters.rx_stamped += 1;
        h
    }

    /// Periodic work: SYS_WRAP on each new second of SYSTIM0, target time
    /// events (toggling the pins TT0/TT1 drive), the clock outputs' edges
    /// and the pulse source's edges (auxiliary timestamps), each at its own
    /// instant: everything due by `host`. Returns true if ICR.TS must be
    /// raised.
    ///
    /// The MAC runs it before every access to the PTP block and the pin
    /// registers, so that events fall before a change of the timers or of
    /// the pins' configuration however late the worker is.
    pub fn tick(&mut self, host: u64) -> bool {
        let now = self.systim0.at(host);
        let mut cause = 0;
        let sec = split(now).0;
        if sec != self.last_second {
            // How far into the new second SYSTIM0 is (at its rate, within ppm of
            // host time): the lateness of the event.
            if sec == self.last_second.wrapping_add(1) {
                self.sys_wrap_lateness.record(u64::from(split(now).1));
            }
            self.last_second = sec;
            cause |= tsicr::SYS_WRAP;
        }
        for (i, (en, bit)) in [(tsauxc::EN_TT0, tsicr::TT0), (tsauxc::EN_TT1, tsicr::TT1)].into_iter().enumerate() {
            let (h, l) = self.trgttim[i];
            // Bits 31:30 of TRGTTIML select the timer; only SYSTIM0 is used.
            let target = join(h, l & 0x3FFF_FFFF);
            if self.tsauxc & en != 0 && self.tt_pending[i] && now >= target {
                self.tt_pending[i] = false;
                let late = now - target;
                self.target_time_lateness.record(u64::try_from(late).unwrap_or(u64::MAX));
                cause |= bit;
                if self.tsauxc & tsauxc::DIS_TS_CLEAR == 0 {
                    self.tsauxc &= !en;
                }
                // The output level of target time i changes (level-change
                // mode: igc's half-period re-arming makes a square wave).
                self.toggle(sdp::Function::TargetTime(i), target, host);
            }
        }
        self.run_clocks(host);
        cause |= self.run_pulse(host);
        cause != 0 && self.set_cause(cause)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scaled_ppm_to_timinca(scaled_ppm: i64) -> u32 {
        // igc_ptp_adjfine_i225
        let rate = ((scaled_ppm.unsigned_abs()) << 14) / 78125;
        let mut inca = (rate as u32) & timinca::INCVALUE_MASK;
        if scaled_ppm < 0 {
            inca |= timinca::ISGN;
        }
        inca
    }

    #[test]
    fn systiml_read_latches_systimh() {
        let mut p = Ptp::new(0, PtpConfig::default());
        p.write(regs::SYSTIML, 999_999_990, 0);
        p.write(regs::SYSTIMH, 41, 0);
        let l = p.read(regs::SYSTIML, 5);
        // The timer crosses the second boundary, but H comes from the latch.
        let h = p.read(regs::SYSTIMH, 100);
        assert_eq!((h, l), (41, 999_999_995));
        assert_eq!(p.read(regs::SYSTIML, 100), 90);
        assert_eq!(p.read(regs::SYSTIMH, 100), 42);
    }

    #[test]
    fn timinca_inverts_adjfine() {
        // +100 ppm and -50 ppm, each over one second of host time.
        for (ppm, expect_ns) in [(100i64, 1_000_100_000i128), (-50, 999_950_000)] {
            let mut p = Ptp::new(0, PtpConfig::default());
            p.write(regs::TIMINCA, scaled_ppm_to_timinca(ppm << 16), 0);
            let t = p.systim0.at(1_000_000_000);
            assert!((t - expect_ns).abs() <= 1, "ppm {ppm}: {t}");
        }
    }

    #[test]
    fn frequency_error_and_offset_are_per_port() {
        let cfg = PtpConfig { freq_error_ppb: 20_000, initial_offset_ns: 5_000 };
        let p = Ptp::new(0, cfg);
        assert_eq!(p.systim0.at(1_000_000_000), 5_000 + 1_000_020_000);
        assert_eq!(p.systim1.at(1_000_000_000), 1_000_020_000);
    }

    #[test]
    fn tsauxc_disable0_stops_systim0() {
        let mut p = Ptp::new(0, PtpConfig::default());
        p.write(regs::TSAUXC, tsauxc::DISABLE_SYSTIM0, 100);
        assert_eq!(p.systim0.at(10_000), 100);
        p.write(regs::TSAUXC, 0, 10_000);
        assert_eq!(p.systim0.at(10_050), 150);
    }

    #[test]
    fn tx_stamp_sets_latch_and_rearm() {
        let mut p = Ptp::new(0, PtpConfig::default());
        p.write(regs::TSIM, tsicr::TXTS, 0);
        p.write(regs::TSYNCTXCTL, 0x30, 0);
        assert!(p.capture_tx(0, false, 1_000, 0));
        assert!(!p.capture_tx(0, false, 2_000, 0), "busy set keeps its stamp");
        assert_eq!(p.read(regs::TSYNCTXCTL, 0) & 0xF, 1);
        assert_eq!(p.read(regs::TSICR, 0), tsicr::TXTS);
        assert_eq!(p.read(regs::TSICR, 0), 0, "TSICR is read-to-clear");
        assert_eq!(p.read(regs::TXSTMPL_0, 0), 1_000);
        assert_eq!(p.read(regs::TXSTMPH_0, 0), 0);
        assert_eq!(p.read(regs::TSYNCTXCTL, 0) & 0xF, 0);
        assert!(p.capture_tx(2, false, 3_000, 0));
        assert_eq!(p.read(regs::TXSTMPL_2, 0), 3_000);
        assert_eq!(p.counters.tx_captured, 2);
    }

    #[test]
    fn rearm_bug_needs_txstmph0_read() {
        let mut p = Ptp::new(0, PtpConfig::default());
        p.faults.txstmph0_rearm_bug = true;
        p.write(regs::TSIM, tsicr::TXTS, 0);
        p.write(regs::TSYNCTXCTL, 0x30, 0);
        assert!(p.capture_tx(1, false, 10, 0));
        p.read(regs::TSICR, 0);
        p.read(regs::TXSTMPH_1, 0);
        assert!(!p.capture_tx(2, false, 20, 0), "no event until TXSTMPH_0 is read");
        assert_eq!(p.read(regs::TSYNCTXCTL, 0) & 0xF, 0b100, "stamp still captured");
        p.read(regs::TXSTMPH_0, 0);
        assert!(p.capture_tx(3, false, 30, 0));
    }

    #[test]
    fn txts_read_latency_from_capture_to_txstmph_read() {
        let mut p = Ptp::new(0, PtpConfig::default());
        p.write(regs::TSIM, tsicr::TXTS, 0);
        p.write(regs::TSYNCTXCTL, 0x30, 0);
        assert!(p.capture_tx(1, false, 1_000, 0));
        p.read(regs::TXSTMPL_1, 1_200);
        p.read(regs::TXSTMPH_1, 1_500);
        p.read(regs::TXSTMPH_1, 9_000);
        assert!(p.capture_tx(0, false, 10_000, 0));
        p.read(regs::TXSTMPH_0, 30_000);
        let l = &p.txts_read_latency.latency;
        assert_eq!((l.count, l.min_ns, l.max_ns, l.mean_ns()), (2, 500, 20_000, Some(10_250)));
        assert_eq!(l.count, p.counters.tx_read, "one sample per counted read");
        assert_eq!(l.recent, [500, 20_000]);
        let hist: Vec<_> = l.buckets().filter(|&(_, n)| n > 0).collect();
        assert_eq!(hist, [("lt_1us", 1), ("lt_100us", 1)]);

        // Reading TXSTMPH_0 frees sets 2 and 3 without a sample of theirs.
        p.capture_tx(2, false, 40_000, 0);
        p.capture_tx(3, false, 40_000, 0);
        p.read(regs::TXSTMPH_0, 50_000);
        p.read(regs::TXSTMPH_2, 60_000);
        assert_eq!(p.txts_read_latency.latency.count, 2);
        assert_eq!(p.txts_read_latency.released_unread, 2);
        // So does a MAC reset; a busy set keeps its first capture time.
        p.capture_tx(1, false, 65_000, 0);
        p.capture_tx(1, false, 75_000, 0);
        p.read(regs::TXSTMPH_1, 90_000);
        assert_eq!(p.txts_read_latency.latency.recent.back(), Some(&25_000));
        p.capture_tx(1, false, 100_000, 0);
        p.reset(110_000);
        assert_eq!(p.txts_read_latency.released_unread, 3);
        assert_eq!(p.counters.tx_captured, 6, "tx_captured unchanged in meaning");
        assert_eq!(p.counters.tx_skipped_busy, 1);
    }

    #[test]
    fn latency_stats_histogram_and_recent() {
        let mut l = LatencyStats::default();
        assert_eq!(l.mean_ns(), None);
        for ns in 0..20u64 {
            l.record(ns * 100_000_000);
        }
        assert_eq!((l.count, l.min_ns, l.max_ns), (20, 0, 1_900_000_000));
        assert_eq!(l.recent.len(), LATENCY_RECENT);
        assert_eq!(l.recent.front(), Some(&400_000_000));
        let hist: Vec<_> = l.buckets().collect();
        assert_eq!(hist.len(), 8);
        assert_eq!(hist[0], ("lt_1us", 1));
        assert_eq!(hist[6], ("lt_1s", 9));
        assert_eq!(hist[7], ("ge_1s", 10));
    }

    #[test]
    fn rx_header_uses_selected_timers() {
        let mut p = Ptp::new(0, PtpConfig { freq_error_ppb: 0, initial_offset_ns: 2_000_000_000 });
        // TIMER1SEL = 1 (SYSTIM1), TIMER0SEL = 0 (SYSTIM0), as igc programs.
        let h = p.rx_header(0x4200_4402, 500, 0);
        let dw = |i: usize| u32::from_le_bytes(h[4 * i..4 * i + 4].try_into().unwrap());
        assert_eq!((dw(0), dw(1)), (500, 0));
        assert_eq!((dw(2), dw(3)), (500, 2));
    }

    /// The stamp captured into set 0 at `host`, as TXSTMPL/H_0 read it
    /// (which frees the set).
    fn tx_stamp(p: &mut Ptp, host: u64, latency: i128) -> i128 {
        p.capture_tx(0, false, host, latency);
        let l = p.read(regs::TXSTMPL_0, host);
        join(p.read(regs::TXSTMPH_0, host), l)
    }

    /// The timer1 and timer0 slots of an RX header as igc programs SRRCTL.
    fn rx_stamps(p: &mut Ptp, host: u64, latency: i128) -> (i128, i128) {
        let h = p.rx_header(0x4200_4402, host, latency);
        let dw = |i: usize| u32::from_le_bytes(h[4 * i..4 * i + 4].try_into().unwrap());
        (join(dw(1), dw(0)), join(dw(3), dw(2)))
    }

    #[test]
    fn stamps_are_quantised_systim_reads_exact() {
        let mut p = Ptp::new(0, PtpConfig::default());
        p.write(regs::TSYNCTXCTL, 0x10, 0);
        p.stamping = Noise::new(Stamping { quantum_ps: 8_000, noise_ps: 0 }, 1, 0);
        for host in [1_000_000_003u64, 1_000_000_008, 1_000_000_015, 2_999_999_999] {
            let floor8 = i128::from(host) / 8 * 8;
            assert_eq!(tx_stamp(&mut p, host, 0), floor8, "TX at {host}");
            // The latency constant is subtracted from the quantised sample.
            assert_eq!(tx_stamp(&mut p, host, 1325), floor8 - 1325);
            assert_eq!(rx_stamps(&mut p, host, 0), (floor8, floor8), "RX at {host}");
            assert_eq!(rx_stamps(&mut p, host, 1485).0, floor8 + 1485);
            let l = p.read(regs::SYSTIML, host);
            assert_eq!(join(p.read(regs::SYSTIMH, host), l), i128::from(host), "SYSTIM reads stay exact");
        }
        // A 3.2 ns clock (what igc's TIMINCA scaling implies).
        p.stamping.current.quantum_ps = 3_200;
        assert_eq!(tx_stamp(&mut p, 7, 0), 6);
        // Without a quantum or noise, the stamp is the exact sample.
        p.stamping.current = Stamping::EXACT;
        assert_eq!(tx_stamp(&mut p, 1_000_000_003, 0), 1_000_000_003);
        assert_eq!(rx_stamps(&mut p, 1_000_000_003, 0), (1_000_000_003, 1_000_000_003));
    }

    /// Mean and standard deviation.
    fn mean_sigma(x: &[f64]) -> (f64, f64) {
        let mean = x.iter().sum::<f64>() / x.len() as f64;
        (mean, (x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / x.len() as f64).sqrt())
    }

    #[test]
    fn stamp_noise_has_the_configured_sigma_tx_and_rx_independently() {
        const N: u64 = 20_000;
        // SYSTIM1 runs 5 s behind SYSTIM0: both slots of one RX header carry the same error.
        let mut p = Ptp::new(0, PtpConfig { freq_error_ppb: 0, initial_offset_ns: 5_000_000_000 });
        p.write(regs::TSYNCTXCTL, 0x10, 0);
        p.stamping = Noise::new(Stamping { quantum_ps: 0, noise_ps: 20_000 }, 1, 0);
        let (mut tx, mut rx) = (Vec::new(), Vec::new());
        for i in 0..N {
            let host = 10_000_000_000 + i * 1_000;
            let exact = 5_000_000_000 + i128::from(host);
            tx.push((tx_stamp(&mut p, host, 0) - exact) as f64);
            let (t1, t0) = rx_stamps(&mut p, host, 0);
            assert_eq!(t0 - exact, t1 - i128::from(host), "one error per RX event");
            rx.push((t0 - exact) as f64);
        }
        for (what, e) in [("TX", &tx), ("RX", &rx)] {
            let (mean, sigma) = mean_sigma(e);
            // Whole ns, rounded down: a -0.5 ns bias.
            assert!((mean + 0.5).abs() < 0.6, "{what} mean {mean}");
            assert!((sigma - 20.0).abs() < 0.6, "{what} sigma {sigma}, configured 20");
        }
        let ((mt, st), (mr, sr)) = (mean_sigma(&tx), mean_sigma(&rx));
        let corr = tx.iter().zip(&rx).map(|(a, b)| (a - mt) * (b - mr)).sum::<f64>() / (N as f64 * st * sr);
        assert!(corr.abs() < 0.03, "TX and RX errors correlate: {corr}");
        // The same seed draws the same errors.
        let mut q = Ptp::new(0, PtpConfig { freq_error_ppb: 0, initial_offset_ns: 5_000_000_000 });
        q.write(regs::TSYNCTXCTL, 0x10, 0);
        q.stamping = Noise::new(p.stamping.current, 1, 0);
        assert_eq!(tx_stamp(&mut q, 10_000_000_000, 0) - 15_000_000_000, tx[0] as i128);
    }

    #[test]
    fn sys_wrap_each_second() {
        let mut p = Ptp::new(0, PtpConfig::default());
        p.write(regs::TSIM, tsicr::SYS_WRAP, 0);
        assert!(!p.tick(10));
        assert!(p.tick(1_000_000_001));
        assert_eq!(p.read(regs::TSICR, 0), tsicr::SYS_WRAP);
    }

    /// SYSTIM0 set to 0 at host time 0, TT0 enabled in TSIM and armed for
    /// `second` s with `tsauxc` written.
    fn tt0_armed(second: u32, tsauxc: u32) -> Ptp {
        let mut p = Ptp::new(0, PtpConfig::default());
        p.write(regs::SYSTIML, 0, 0);
        p.write(regs::SYSTIMH, 0, 0);
        p.write(regs::TSIM, tsicr::TT0, 0);
        p.write(regs::TRGTTIML0, 0, 0);
        p.write(regs::TRGTTIMH0, second, 0);
        p.write(regs::TSAUXC, tsauxc, 0);
        p
    }

    /// A target time fires once when SYSTIM0 reaches it; one armed in the
    /// past never starts (igc_ptp.c forces PEROUT starts into the future for
    /// that reason), until it is armed again with a time ahead.
    #[test]
    fn target_time_fires_once_and_never_from_the_past() {
        const S: u64 = 1_000_000_000;
        let mut p = tt0_armed(2, tsauxc::EN_TT0);
        assert!(!p.tick(S + S / 2));
        assert!(p.tick(2 * S + 1));
        assert_eq!(p.read(regs::TSICR, 0) & tsicr::TT0, tsicr::TT0);
        assert_eq!(p.read(regs::TSAUXC, 0) & tsauxc::EN_TT0, 0, "EN_TT0 clears when it fires");
        // Armed at 3 s for 1 s: never.
        p.write(regs::TRGTTIMH0, 1, 3 * S);
        p.write(regs::TSAUXC, tsauxc::EN_TT0, 3 * S);
        for t in 3..8 {
            p.tick(t * S + 1);
        }
        assert_eq!(p.read(regs::TSICR, 0) & tsicr::TT0, 0);
        assert_eq!(p.counters.tt_armed_in_past, 1);
        // Armed again with a time ahead: it fires.
        p.write(regs::TSAUXC, 0, 8 * S);
        p.write(regs::TRGTTIMH0, 9, 8 * S);
        p.write(regs::TSAUXC, tsauxc::EN_TT0, 8 * S);
        assert!(p.tick(9 * S + 1));
    }

    /// With DIS_TS_CLEAR, EN_TT0 stays set: the target fires once, and the
    /// next one is armed by writing its time (igc's target-time PEROUT).
    #[test]
    fn target_time_with_dis_ts_clear_fires_once_per_time_written() {
        const S: u64 = 1_000_000_000;
        let mut p = tt0_armed(1, tsauxc::EN_TT0 | tsauxc::DIS_TS_CLEAR);
        assert_eq!(p.next_event(0), Some(S));
        assert!(p.tick(S + 10));
        assert_eq!(p.target_time_lateness.summary().max_ns, Some(10));
        p.read(regs::TSICR, 0);
        assert!(!p.tick(S + 20), "fired once, not again");
        assert_eq!(p.next_event(S + 20), Some(2 * S), "only the next second is due");
        p.write(regs::TRGTTIMH0, 3, S + 30);
        assert!(p.tick(3 * S));
    }

    #[test]
    fn setting_the_time_raises_no_sys_wrap() {
        let mut p = Ptp::new(0, PtpConfig::default());
        p.write(regs::TSIM, tsicr::SYS_WRAP, 0);
        p.write(regs::SYSTIML, 0, 0);
        p.write(regs::SYSTIMH, 100, 0);
        assert!(!p.tick(10), "settime to 100 s");
        p.write(regs::TIMADJ, 300_000_000, 20);
        p.write(regs::SYSTIML, 900_000_000, 30);
        p.write(regs::SYSTIMH, 100, 30);
        p.write(regs::TIMADJ, 200_000_000, 40);
        assert!(!p.tick(50), "adjtime across the second");
        assert!(p.tick(1_000_000_000), "the next real second");
    }

    #[test]
    fn freqout_is_stored_and_auxstmp_read_only() {
        let mut p = Ptp::new(0, PtpConfig::default());
        p.write(regs::FREQOUT0, 500_000_000, 0);
        p.write(regs::FREQOUT1, 125_000_000, 0);
        p.write(regs::AUXSTMPL0, 7, 0);
        assert_eq!(p.read(regs::FREQOUT0, 0), 500_000_000);
        assert_eq!(p.read(regs::FREQOUT1, 0), 125_000_000);
        assert_eq!(p.read(regs::AUXSTMPL0, 0), 0);
        p.reset(0);
        assert_eq!(p.read(regs::FREQOUT0, 0), 0);
    }
}
