// SPDX-License-Identifier: GPL-2.0

//! The time sync unit's pins (`igc_ptp.c`): external timestamps on two channels, periodic
//! outputs on two channels and the PPS event, on the four software-definable pins
//! (`igc_pin_direction`, `igc_pin_extts`, `igc_pin_perout`, `igc_ptp_feature_enable_i225`,
//! `igc_ptp_verify_pin`), and their part of the time sync interrupt (`igc_tsync_interrupt`).
//!
//! As igc: the PTP core assigns functions to pins (`PTP_PIN_SETFUNC`) and this file programs a
//! channel onto the pin assigned to it when the channel is turned on. A periodic output whose
//! half period is at most 70 ms, or 125, 250 or 500 ms, is a frequency clock (FREQOUT, the
//! hardware toggles the pin); any other is a target time that the interrupt handler re-arms
//! every half period. A start in the past never fires on the I225, so a start less than two
//! seconds ahead is moved two seconds ahead. A MAC reset clears the pins' set-up (TSAUXC and
//! TSSDP), as in igc; the PPS event survives it.

use kernel::{
    num::Bounded,
    prelude::*,
    ptp::{ExtTsFlags, PinFunction, Pins, Request, Timespec},
    sync::atomic::Relaxed,
};

use super::systim_to_ns;
use crate::{
    adapter::Adapter,
    regs::{
        AUXSTMPH, AUXSTMPL, CTRL, CTRL_EXT, FREQOUT, TRGTTIMH, TRGTTIML, TSAUXC, TSICR, TSIM,
        TSSDP, TSSDP_SEL_FC0, TSSDP_SEL_FC1, TSSDP_SEL_TT0, TSSDP_SEL_TT1,
    },
};

/// External timestamp channels (`IGC_N_EXTTS`).
pub(crate) const N_EXTTS: u32 = 2;
/// Periodic output channels (`IGC_N_PEROUT`).
pub(crate) const N_PEROUT: u32 = 2;
/// The pins, named as igc names them.
pub(crate) static PIN_NAMES: [&CStr; 4] = [c"SDP0", c"SDP1", c"SDP2", c"SDP3"];
/// The external timestamp flags honoured: both edges, strictly (`supported_extts_flags`).
pub(crate) const EXTTS_FLAGS: ExtTsFlags =
    ExtTsFlags::from_bits(ExtTsFlags::BOTH_EDGES.bits() | ExtTsFlags::STRICT.bits());

/// How far ahead of the clock a periodic output starts at the earliest
/// (`igc_ptp_feature_enable_i225`).
const SAFE_START_SEC: i64 = 2;

/// A periodic output's schedule (`igc_adapter.perout[]`): the next target time and the half
/// period the interrupt handler adds to it. Under `systim_lock`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PerOut {
    pub(crate) start: Timespec,
    pub(crate) half_period: Timespec,
}

/// What `systim_lock` guards besides the clock registers: the periodic outputs' schedules.
#[derive(Default)]
pub(crate) struct Outputs {
    pub(crate) perout: [PerOut; N_PEROUT as usize],
}

/// Whether a periodic output of half period `half_ns` is a frequency clock (FREQOUT) rather
/// than a re-armed target time, as `igc_ptp_feature_enable_i225` chooses: `Err(EINVAL)` for a
/// clock faster than the hardware makes.
fn use_freq(half_ns: i64) -> Result<bool> {
    let freq = half_ns <= 70_000_000 || [125_000_000, 250_000_000, 500_000_000].contains(&half_ns);
    if freq && half_ns < 8 {
        return Err(EINVAL);
    }
    Ok(freq)
}

/// The first target time of a periodic output asked to start at `start` when the clock reads
/// `now`: at least [`SAFE_START_SEC`] seconds ahead (seconds moved, nanoseconds kept, as igc).
fn safe_start(start: Timespec, now: Timespec) -> Timespec {
    Timespec {
        sec: start.sec.max(now.sec + SAFE_START_SEC),
        nsec: start.nsec,
    }
}

/// `a + b`, normalised.
fn add(a: Timespec, b: Timespec) -> Timespec {
    Timespec::from_nanos(a.as_nanos().saturating_add(b.as_nanos()))
}

/// The pin's direction bit set to output or input (`igc_pin_direction`).
fn pin_direction(ctrl: CTRL, ctrl_ext: CTRL_EXT, pin: u32, output: bool) -> (CTRL, CTRL_EXT) {
    match pin {
        0 => (ctrl.with_sdp0_dir(output), ctrl_ext),
        1 => (ctrl.with_sdp1_dir(output), ctrl_ext),
        2 => (ctrl, ctrl_ext.with_sdp2_dir(output)),
        _ => (ctrl, ctrl_ext.with_sdp3_dir(output)),
    }
}

/// The pin's output enable and select in TSSDP.
fn pin_output(t: TSSDP, pin: u32, en: bool, sel: Bounded<u32, 2>) -> TSSDP {
    match pin {
        0 => t.with_sdp0_en(en).with_sdp0_sel(sel),
        1 => t.with_sdp1_en(en).with_sdp1_sel(sel),
        2 => t.with_sdp2_en(en).with_sdp2_sel(sel),
        _ => t.with_sdp3_en(en).with_sdp3_sel(sel),
    }
}

/// The pin's output select.
fn pin_sel(t: TSSDP, pin: u32) -> Bounded<u32, 2> {
    match pin {
        0 => t.sdp0_sel(),
        1 => t.sdp1_sel(),
        2 => t.sdp2_sel(),
        _ => t.sdp3_sel(),
    }
}

/// A pin number or an output select (0-3) as a 2-bit TSSDP field.
fn two_bits(v: u32) -> Bounded<u32, 2> {
    Bounded::try_new(v & 3).unwrap_or(Bounded::<u32, 2>::new::<0>())
}

/// TSSDP with `pin` sampled by auxiliary timestamp `chan` (`igc_pin_extts`).
fn tssdp_extts(t: TSSDP, chan: u32, pin: u32) -> TSSDP {
    // Not an output any more.
    let t = pin_output(t, pin, false, pin_sel(t, pin));
    if chan == 1 {
        t.with_aux1_sel(two_bits(pin)).with_aux1_ts_sdp_en(true)
    } else {
        t.with_aux0_sel(two_bits(pin)).with_aux0_ts_sdp_en(true)
    }
}

/// TSSDP with `pin` driven by periodic output `chan`, a frequency clock or a target time
/// (`igc_pin_perout`).
fn tssdp_perout(t: TSSDP, chan: u32, pin: u32, freq: bool) -> TSSDP {
    // Not an input any more: an auxiliary timestamp selecting the pin is turned off.
    let mut t = t;
    if t.aux0_sel().get() == pin {
        t = t.with_aux0_ts_sdp_en(false);
    }
    if t.aux1_sel().get() == pin {
        t = t.with_aux1_ts_sdp_en(false);
    }
    let sel = match (freq, chan == 1) {
        (true, true) => TSSDP_SEL_FC1,
        (true, false) => TSSDP_SEL_FC0,
        (false, true) => TSSDP_SEL_TT1,
        (false, false) => TSSDP_SEL_TT0,
    };
    pin_output(t, pin, true, two_bits(sel))
}

/// TSAUXC without periodic output `chan`'s target time and clock bits.
fn tsauxc_perout_off(a: TSAUXC, chan: u32) -> TSAUXC {
    if chan == 1 {
        a.with_en_tt1(false).with_en_clk1(false).with_st1(false)
    } else {
        a.with_en_tt0(false).with_en_clk0(false).with_st0(false)
    }
}

/// TSAUXC with periodic output `chan` started: a clock that starts toggling at the target
/// time, or the target time alone.
fn tsauxc_perout_on(a: TSAUXC, chan: u32, freq: bool) -> TSAUXC {
    match (chan == 1, freq) {
        (true, true) => a.with_en_clk1(true).with_st1(true),
        (true, false) => a.with_en_tt1(true),
        (false, true) => a.with_en_clk0(true).with_st0(true),
        (false, false) => a.with_en_tt0(true),
    }
}

impl Adapter {
    /// Turns an external timestamp channel, a periodic output or the PPS event on or off
    /// (`igc_ptp_feature_enable_i225`). The PTP core has checked the channel numbers and the
    /// flags against the capabilities, and holds its pin mutex.
    pub(crate) fn pin_enable(&self, pins: &Pins<'_>, request: Request, on: bool) -> Result {
        if self.hw.removed() {
            return Err(ENODEV);
        }
        match request {
            Request::ExtTs { index, flags } => self.extts_enable(pins, index, flags, on),
            Request::PerOut {
                index,
                start,
                period,
                ..
            } => self.perout_enable(pins, index, start, period, on),
            Request::Pps => {
                let _g = self.ptp.systim_lock.lock();
                let tsim = self.hw.read(TSIM).with_sys_wrap(on);
                self.ptp.pps_on.store(on, Relaxed);
                self.hw.write_reg(tsim);
                Ok(())
            }
        }
    }

    fn extts_enable(&self, pins: &Pins<'_>, index: u32, flags: ExtTsFlags, on: bool) -> Result {
        // Both edges or nothing: the I225 timestamps both, and says which by neither.
        if flags.contains(ExtTsFlags::STRICT)
            && flags.contains(ExtTsFlags::ENABLE)
            && !flags.contains(ExtTsFlags::BOTH_EDGES)
        {
            return Err(EOPNOTSUPP);
        }
        let pin = if on {
            Some(pins.find(PinFunction::ExtTs, index).ok_or(EBUSY)?)
        } else {
            None
        };
        let _g = self.ptp.systim_lock.lock();
        let tsauxc = self.hw.read(TSAUXC);
        let tsim = self.hw.read(TSIM);
        if let Some(pin) = pin {
            let ctrl = self.hw.read(CTRL);
            let ctrl_ext = self.hw.read(CTRL_EXT);
            let tssdp = tssdp_extts(self.hw.read(TSSDP), index, pin);
            let (ctrl, ctrl_ext) = pin_direction(ctrl, ctrl_ext, pin, false);
            self.hw.write_reg(tssdp);
            self.hw.write_reg(ctrl);
            self.hw.write_reg(ctrl_ext);
        }
        let on = pin.is_some();
        let (tsauxc, tsim) = if index == 1 {
            (tsauxc.with_en_ts1(on), tsim.with_autt1(on))
        } else {
            (tsauxc.with_en_ts0(on), tsim.with_autt0(on))
        };
        self.hw.write_reg(tsauxc);
        self.hw.write_reg(tsim);
        Ok(())
    }

    fn perout_enable(
        &self,
        pins: &Pins<'_>,
        index: u32,
        start: Timespec,
        period: Timespec,
        on: bool,
    ) -> Result {
        let pin = if on {
            Some(pins.find(PinFunction::PerOut, index).ok_or(EBUSY)?)
        } else {
            None
        };
        let half_ns = period.as_nanos() >> 1;
        let freq = on && use_freq(half_ns)?;
        let mut out = self.ptp.systim_lock.lock();
        let tsauxc = tsauxc_perout_off(self.hw.read(TSAUXC), index);
        let tsim = if index == 1 {
            self.hw.read(TSIM).with_tt1(false)
        } else {
            self.hw.read(TSIM).with_tt0(false)
        };
        let (tsauxc, tsim) = match pin {
            None => (tsauxc, tsim),
            Some(pin) => {
                let ctrl = self.hw.read(CTRL);
                let ctrl_ext = self.hw.read(CTRL_EXT);
                let tssdp = tssdp_perout(self.hw.read(TSSDP), index, pin, freq);
                let (ctrl, ctrl_ext) = pin_direction(ctrl, ctrl_ext, pin, true);
                self.hw.write_reg(tssdp);
                self.hw.write_reg(ctrl);
                self.hw.write_reg(ctrl_ext);
                let first = safe_start(start, self.systim_read_locked());
                let half_period = Timespec::from_nanos(half_ns);
                out.perout[index as usize & 1] = PerOut {
                    start: first,
                    half_period,
                };
                self.hw.write_at(
                    index as usize,
                    TRGTTIMH::zeroed().with_sec(first.sec as u32),
                );
                self.write_target_nsec(index, first);
                if freq {
                    self.hw.write_at(
                        index as usize,
                        FREQOUT::zeroed().with_half_period(half_ns as u32),
                    );
                }
                let tsauxc = tsauxc_perout_on(tsauxc, index, freq);
                // A clock toggles on its own; a target time interrupts to be re-armed.
                let tsim = match (freq, index == 1) {
                    (true, _) => tsim,
                    (false, true) => tsim.with_tt1(true),
                    (false, false) => tsim.with_tt0(true),
                };
                (tsauxc, tsim)
            }
        };
        self.hw.write_reg(tsauxc);
        self.hw.write_reg(tsim);
        Ok(())
    }

    /// Writes target time `index`'s nanoseconds, on SYSTIM0.
    fn write_target_nsec(&self, index: u32, t: Timespec) {
        let nsec = Bounded::try_new(t.nsec as u32).unwrap_or(Bounded::<u32, 30>::new::<0>());
        self.hw
            .write_at(index as usize, TRGTTIML::zeroed().with_nsec(nsec));
    }

    /// Whether pin `pin` may take `func` (`igc_ptp_verify_pin`): any pin may be an input, an
    /// output or nothing; none does physical layer synchronisation.
    pub(crate) fn pin_verify(&self, _pin: u32, func: PinFunction, _chan: u32) -> Result {
        match func {
            PinFunction::None | PinFunction::ExtTs | PinFunction::PerOut => Ok(()),
            PinFunction::PhySync => Err(EOPNOTSUPP),
        }
    }

    /// The PPS event at a second boundary of SYSTIM0 (TSICR.SYS_WRAP), in the time sync
    /// interrupt. Only while PPS is on: igc reports the cause whenever another time sync cause
    /// interrupts with it latched; a PPS source must not see seconds it was not asked for.
    pub(crate) fn pps_interrupt(&self, tsicr: TSICR) {
        if tsicr.sys_wrap() && self.ptp.pps_on.load(Relaxed) {
            self.ptp.events.pps();
        }
    }

    /// The pins' part of the time sync interrupt (`igc_tsync_interrupt`): a target time that
    /// fired is re-armed half a period later while its output is on, and an auxiliary
    /// timestamp is read out (which frees its latch) and sent to the PTP core as an external
    /// timestamp.
    pub(crate) fn pin_interrupt(&self, tsicr: TSICR) {
        for (index, fired) in [(0u32, tsicr.tt0()), (1, tsicr.tt1())] {
            if !fired {
                continue;
            }
            let mut out = self.ptp.systim_lock.lock();
            // A cause latched before the output was turned off (it masks TSIM.TTx under this
            // lock) is not re-armed: igc re-arms it whenever another time sync cause interrupts
            // with it latched, and the pin goes on toggling.
            let tsim = self.hw.read(TSIM);
            if !(if index == 1 { tsim.tt1() } else { tsim.tt0() }) {
                continue;
            }
            let p = &mut out.perout[index as usize];
            let next = add(p.start, p.half_period);
            p.start = next;
            self.write_target_nsec(index, next);
            self.hw
                .write_at(index as usize, TRGTTIMH::zeroed().with_sec(next.sec as u32));
            let tsauxc = self.hw.read(TSAUXC);
            let tsauxc = if index == 1 {
                tsauxc.with_en_tt1(true)
            } else {
                tsauxc.with_en_tt0(true)
            };
            self.hw.write_reg(tsauxc);
        }
        for (index, taken) in [(0u32, tsicr.autt0()), (1, tsicr.autt1())] {
            if taken {
                let nsec = self.hw.read_at::<AUXSTMPL>(index as usize).nsec().get();
                let sec = self.hw.read_at::<AUXSTMPH>(index as usize).sec().get();
                self.ptp.events.extts(index, systim_to_ns(nsec, sec));
            }
        }
    }
}

#[kernel::prelude::kunit_tests(rigc_ptp_pins)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;

    #[test]
    fn freq_clock_or_target_time_as_igc() {
        // 1 PPS: half period 500 ms, a clock.
        assert_eq!(use_freq(500 * MS), Ok(true));
        assert_eq!(use_freq(250 * MS), Ok(true));
        assert_eq!(use_freq(125 * MS), Ok(true));
        assert_eq!(use_freq(70 * MS), Ok(true));
        // 10 Hz: 50 ms, a clock; 2 s period: a target time; 200 ms: a target time.
        assert_eq!(use_freq(50 * MS), Ok(true));
        assert_eq!(use_freq(1000 * MS), Ok(false));
        assert_eq!(use_freq(100 * MS), Ok(false));
        assert_eq!(use_freq(71 * MS), Ok(false));
        // Too fast for the hardware.
        assert_eq!(use_freq(7), Err(EINVAL));
        assert_eq!(use_freq(8), Ok(true));
    }

    #[test]
    fn start_forced_two_seconds_ahead() {
        let now = Timespec {
            sec: 100,
            nsec: 999_000_000,
        };
        let past = Timespec { sec: 50, nsec: 0 };
        assert_eq!(safe_start(past, now), Timespec { sec: 102, nsec: 0 });
        let soon = Timespec { sec: 101, nsec: 5 };
        assert_eq!(safe_start(soon, now), Timespec { sec: 102, nsec: 5 });
        let later = Timespec { sec: 200, nsec: 7 };
        assert_eq!(safe_start(later, now), later);
        let half = Timespec::from_nanos(500 * MS);
        assert_eq!(
            add(
                Timespec {
                    sec: 3,
                    nsec: 700 * MS
                },
                half
            ),
            Timespec {
                sec: 4,
                nsec: 200 * MS
            }
        );
    }

    #[test]
    fn tssdp_as_igc_programs_it() {
        // EXTTS channel 1 on SDP2: IGC_AUX1_SEL_SDP2 | IGC_AUX1_TS_SDP_EN.
        let t = tssdp_extts(TSSDP::zeroed(), 1, 2);
        assert_eq!(t.into_raw(), (2 << 3) | (1 << 5));
        // An output on SDP2 stops being one when it becomes an input.
        let out = tssdp_perout(TSSDP::zeroed(), 0, 2, false);
        assert_eq!(out.into_raw(), 1 << 14);
        assert_eq!(tssdp_extts(out, 0, 2).into_raw(), 2 | (1 << 2));
        // PEROUT channel 1 as a clock on SDP0: IGC_TS_SDP0_SEL_FC1 | IGC_TS_SDP0_EN, and the
        // auxiliary timestamp that sampled SDP0 is off.
        let t = tssdp_perout(tssdp_extts(TSSDP::zeroed(), 0, 0), 1, 0, true);
        assert_eq!(t.into_raw(), (3 << 6) | (1 << 8));
        // PEROUT channel 0 as a target time on SDP3.
        assert_eq!(
            tssdp_perout(TSSDP::zeroed(), 0, 3, false).into_raw(),
            1 << 17
        );
        let (c, e) = pin_direction(CTRL::zeroed(), CTRL_EXT::zeroed(), 3, true);
        assert_eq!((c.into_raw(), e.into_raw()), (0, 0x800));
        let (c, e) = pin_direction(CTRL::from_raw(!0), CTRL_EXT::zeroed(), 1, false);
        assert_eq!((c.into_raw(), e.into_raw()), (!0 & !0x80_0000, 0));
    }

    #[test]
    fn tsauxc_bits_per_channel() {
        let a = tsauxc_perout_on(TSAUXC::zeroed(), 0, true);
        assert_eq!(a.into_raw(), 0x4 | 0x10);
        let a = tsauxc_perout_on(a, 1, false);
        assert_eq!(a.into_raw(), 0x4 | 0x10 | 0x2);
        assert_eq!(tsauxc_perout_off(a, 0).into_raw(), 0x2);
        assert_eq!(tsauxc_perout_off(a, 1).into_raw(), 0x14);
    }
}
