// SPDX-License-Identifier: GPL-2.0

//! The SDP pins and the PTP pin functions as the C igc driver uses them:
//! its register sequences replayed through BAR0 (igc_ptp.c:
//! igc_pin_direction, igc_pin_extts, igc_pin_perout,
//! igc_ptp_feature_enable_i225; igc_main.c: igc_tsync_interrupt), against
//! an external pulse source on a pin and a virtual clock. EXTTS stamps the
//! pulse edges with SYSTIM0; PEROUT drives a pin in clock mode (FREQOUT) or
//! in target-time mode (TT interrupts re-armed by the ISR), each edge
//! logged with its SYSTIM0 value.

use std::sync::Arc;

use i225_model::device::{Device, REGION_BAR0};
use i225_model::mac::MacConfig;
use i225_model::ptp::sdp::{EdgeCause, Function, PulseConfig};
use i225_model::ptp::{PtpConfig, VirtualClock};
use i225_model::regs::{self, ctrl, ctrl_ext, icr, tsauxc, tsicr, tssdp};

const S: u64 = 1_000_000_000;
const MS: u64 = 1_000_000;

/// What the ISR reported to the PTP core.
#[derive(Debug, PartialEq, Eq)]
enum Event {
    Extts(usize, u64),
    /// A target-time interrupt, re-armed for the next half period.
    Perout(usize),
}

/// The igc side of the test: its register accesses and its state.
struct Igc {
    d: Device,
    clock: Arc<VirtualClock>,
    /// perout[i].start and .period (the half period), in ns.
    perout: [(u64, u64); 2],
}

impl Igc {
    /// A port whose host clock starts at 1 s, SYSTIM0 set to 100 s then
    /// (so that SYSTIM0 = host + 99 s).
    fn new() -> Igc {
        let clock = Arc::new(VirtualClock::new(S));
        let cfg = MacConfig { mac_addr: [2, 0, 0, 0, 0, 1], ptp: PtpConfig::default() };
        let mut igc = Igc { d: Device::new(0x15F3, cfg, clock.clone()), clock, perout: [(0, 0); 2] };
        igc.wr32(regs::SYSTIML, 0);
        igc.wr32(regs::SYSTIMH, 100);
        // igc_ptp_reset: TSAUXC = 0, TSSDP = 0, TSIM = TXTS, IMS = TS.
        igc.wr32(regs::TSAUXC, 0);
        igc.wr32(regs::TSSDP, 0);
        igc.wr32(regs::TSIM, tsicr::TXTS);
        igc.wr32(regs::IMS, icr::TS);
        igc
    }

    fn rd32(&mut self, off: u32) -> u32 {
        let mut b = [0u8; 4];
        self.d.read(REGION_BAR0, off.into(), &mut b).unwrap();
        u32::from_le_bytes(b)
    }

    fn wr32(&mut self, off: u32, v: u32) {
        self.d.write(REGION_BAR0, off.into(), &v.to_le_bytes()).unwrap();
    }

    /// Host time `host_ns` on the virtual clock, and the port's worker's
    /// timed work then.
    fn run_to(&mut self, host_ns: u64) {
        self.clock.set(host_ns);
        self.d.mac.tick();
    }

    /// SYSTIM0 at host time `host`, as set by [`Igc::new`].
    fn systim_at(host: u64) -> u64 {
        host + 99 * S
    }

    fn pin_direction(pin: usize, input: bool, ctrl: &mut u32, ctrl_ext: &mut u32) {
        let (reg, mask) = match pin {
            0 => (ctrl, ctrl::SDP0_DIR),
            1 => (ctrl, ctrl::SDP1_DIR),
            2 => (ctrl_ext, ctrl_ext::SDP2_DIR),
            _ => (ctrl_ext, ctrl_ext::SDP3_DIR),
        };
        if input {
            *reg &= !mask;
        } else {
            *reg |= mask;
        }
    }

    fn pin_extts(&mut self, chan: usize, pin: usize) {
        let (mut c, mut ce) = (self.rd32(regs::CTRL), self.rd32(regs::CTRL_EXT));
        let mut t = self.rd32(regs::TSSDP);
        Self::pin_direction(pin, true, &mut c, &mut ce);
        t &= !tssdp::en(pin);
        if chan == 1 {
            t &= !tssdp::AUX1_SEL_MASK;
            t |= (pin as u32) << tssdp::AUX1_SEL_SHIFT | tssdp::AUX1_TS_SDP_EN;
        } else {
            t &= !tssdp::AUX0_SEL_MASK;
            t |= pin as u32 | tssdp::AUX0_TS_SDP_EN;
        }
        self.wr32(regs::TSSDP, t);
        self.wr32(regs::CTRL, c);
        self.wr32(regs::CTRL_EXT, ce);
    }

    fn pin_perout(&mut self, chan: usize, pin: usize, freq: bool) {
        let (mut c, mut ce) = (self.rd32(regs::CTRL), self.rd32(regs::CTRL_EXT));
        let mut t = self.rd32(regs::TSSDP);
        Self::pin_direction(pin, false, &mut c, &mut ce);
        if t & tssdp::AUX0_SEL_MASK == pin as u32 {
            t &= !tssdp::AUX0_TS_SDP_EN;
        }
        if t & tssdp::AUX1_SEL_MASK == (pin as u32) << tssdp::AUX1_SEL_SHIFT {
            t &= !tssdp::AUX1_TS_SDP_EN;
        }
        t &= !(tssdp::SEL_FC1 << tssdp::sel_shift(pin));
        let sel = match (freq, chan) {
            (true, 1) => tssdp::SEL_FC1,
            (true, _) => tssdp::SEL_FC0,
            (false, 1) => tssdp::SEL_TT1,
            (false, _) => tssdp::SEL_TT0,
        };
        t |= sel << tssdp::sel_shift(pin) | tssdp::en(pin);
        self.wr32(regs::TSSDP, t);
        self.wr32(regs::CTRL, c);
        self.wr32(regs::CTRL_EXT, ce);
    }

    /// PTP_CLK_REQ_EXTTS.
    fn extts(&mut self, index: usize, pin: usize, on: bool) {
        let (en, autt) = [(tsauxc::EN_TS0, tsicr::AUTT0), (tsauxc::EN_TS1, tsicr::AUTT1)][index];
        let mut a = self.rd32(regs::TSAUXC);
        let mut m = self.rd32(regs::TSIM);
        if on {
            self.pin_extts(index, pin);
            a |= en;
            m |= autt;
        } else {
            a &= !en;
            m &= !autt;
        }
        self.wr32(regs::TSAUXC, a);
        self.wr32(regs::TSIM, m);
    }

    /// PTP_CLK_REQ_PEROUT with `period_ns` starting at `start_ns` (SYSTIM0).
    fn perout(&mut self, index: usize, pin: usize, period_ns: u64, start_ns: u64, on: bool) {
        let half = period_ns >> 1;
        let freq = on && (half <= 70 * MS || [125 * MS, 250 * MS, 500 * MS].contains(&half));
        let (mask, tsim_mask) = match (index, freq) {
            (1, true) => (tsauxc::EN_CLK1 | tsauxc::ST1, 0),
            (1, false) => (tsauxc::EN_TT1, tsicr::TT1),
            (_, true) => (tsauxc::EN_CLK0 | tsauxc::ST0, 0),
            (_, false) => (tsauxc::EN_TT0, tsicr::TT0),
        };
        let (trgttiml, trgttimh, freqout) =
            [(regs::TRGTTIML0, regs::TRGTTIMH0, regs::FREQOUT0), (regs::TRGTTIML1, regs::TRGTTIMH1, regs::FREQOUT1)]
                [index];
        let mut a = self.rd32(regs::TSAUXC);
        let mut m = self.rd32(regs::TSIM);
        let clear = [tsauxc::EN_TT0 | tsauxc::EN_CLK0 | tsauxc::ST0, tsauxc::EN_TT1 | tsauxc::EN_CLK1 | tsauxc::ST1];
        a &= !clear[index];
        m &= ![tsicr::TT0, tsicr::TT1][index];
        if on {
            self.pin_perout(index, pin, freq);
            // igc_ptp_read: SYSTIML latches SYSTIMH.
            self.rd32(regs::SYSTIML);
            let sec = u64::from(self.rd32(regs::SYSTIMH));
            // The start at least 2 s ahead (only its seconds are moved).
            let start_sec = (start_ns / S).max(sec + 2);
            let start = start_sec * S + start_ns % S;
            self.perout[index] = (start, half);
            self.wr32(trgttimh, start_sec as u32);
            self.wr32(trgttiml, (start % S) as u32);
            if freq {
                self.wr32(freqout, half as u32);
            }
            a |= mask;
            m |= tsim_mask;
        }
        self.wr32(regs::TSAUXC, a);
        self.wr32(regs::TSIM, m);
    }

    /// igc_msix_other's ICR read and igc_tsync_interrupt.
    fn interrupt(&mut self) -> Vec<Event> {
        let mut events = Vec::new();
        if self.rd32(regs::ICR) & icr::TS == 0 {
            return events;
        }
        let t = self.rd32(regs::TSICR);
        for (i, (tt, l, h)) in
            [(tsicr::TT0, regs::TRGTTIML0, regs::TRGTTIMH0), (tsicr::TT1, regs::TRGTTIML1, regs::TRGTTIMH1)]
                .into_iter()
                .enumerate()
        {
            if t & tt != 0 {
                let next = self.perout[i].0 + self.perout[i].1;
                self.wr32(l, (next % S) as u32);
                self.wr32(h, (next / S) as u32);
                let a = self.rd32(regs::TSAUXC);
                self.wr32(regs::TSAUXC, a | [tsauxc::EN_TT0, tsauxc::EN_TT1][i]);
                self.perout[i].0 = next;
                events.push(Event::Perout(i));
            }
        }
        for (i, (autt, l, h)) in
            [(tsicr::AUTT0, regs::AUXSTMPL0, regs::AUXSTMPH0), (tsicr::AUTT1, regs::AUXSTMPL1, regs::AUXSTMPH1)]
                .into_iter()
                .enumerate()
        {
            if t & autt != 0 {
                let nsec = u64::from(self.rd32(l));
                let sec = u64::from(self.rd32(h));
                events.push(Event::Extts(i, sec * S + nsec));
            }
        }
        events
    }

    /// Pin `pin`'s logged edges: (rising, SYSTIM0, host time, cause).
    fn edges(&self, pin: usize) -> Vec<(bool, u64, u64, EdgeCause)> {
        let log = self.d.mac.ptp().pins().log(pin);
        log.recent.iter().map(|e| (e.rising, e.systim_ns as u64, e.host_ns, e.cause)).collect()
    }
}

/// `ts2phc` on SDP0 against a 1 PPS: every edge, rising and falling, is an
/// EXTTS event carrying SYSTIM0 at the edge's instant, whatever the ISR's
/// delay; nothing once EXTTS is off, nor while AUX0 samples another pin.
#[test]
fn extts_stamps_each_edge_of_a_1pps_on_sdp0() {
    let mut igc = Igc::new();
    // The virtual clock's true time is its host time: edges on whole seconds.
    igc.d.mac.set_pulse(Some(PulseConfig::from_fields(&["0", "1000000000"]).unwrap()));
    igc.extts(0, 0, true);
    assert_eq!(igc.d.mac.next_deadline(), Some(2 * S), "the worker wakes for the next edge");
    let mut events = Vec::new();
    for host in [2 * S + 30 * MS, 2 * S + 150 * MS, 3 * S + 2 * MS, 3 * S + 500 * MS] {
        igc.run_to(host);
        events.extend(igc.interrupt());
    }
    assert_eq!(
        events,
        [
            Event::Extts(0, Igc::systim_at(2 * S)),
            Event::Extts(0, Igc::systim_at(2 * S + 100 * MS)),
            Event::Extts(0, Igc::systim_at(3 * S)),
            Event::Extts(0, Igc::systim_at(3 * S + 100 * MS)),
        ]
    );
    assert_ne!(igc.rd32(regs::TSIM) & tsicr::AUTT0, 0);

    // Off: edges come, no stamps.
    igc.extts(0, 0, false);
    igc.run_to(4 * S + 500 * MS);
    assert!(igc.interrupt().is_empty());
    assert_eq!(igc.rd32(regs::TSICR) & tsicr::AUTT0, 0);
    // On, but for AUX0 on SDP1: the pulse on SDP0 is not sampled.
    igc.extts(0, 1, true);
    igc.run_to(5 * S + 500 * MS);
    assert!(igc.interrupt().is_empty());
    let src = igc.d.mac.ptp().pins().pulse().unwrap().counters;
    assert_eq!((src.edges, src.latched, src.busy, src.ignored), (8, [4, 0], [0, 0], 4));
    // The level of SDP0 reads in CTRL.SDP0_DATA.
    igc.run_to(6 * S + 50 * MS);
    assert_ne!(igc.rd32(regs::CTRL) & ctrl::SDP0_DATA, 0);
    igc.run_to(6 * S + 150 * MS);
    assert_eq!(igc.rd32(regs::CTRL) & ctrl::SDP0_DATA, 0);
}

/// EXTTS on channel 1 with the pin on CTRL_EXT (SDP3) and a frequency
/// offset of SYSTIM0 (adjfine +100 ppm): the stamps follow SYSTIM0.
#[test]
fn extts_channel_1_on_sdp3_follows_systim() {
    let mut igc = Igc::new();
    igc.d.mac.set_pulse(Some(PulseConfig::from_fields(&["3", "500000000", "100000000", "0", "1000000"]).unwrap()));
    // igc_ptp_adjfine_i225 for +100 ppm: scaled_ppm = 100 << 16.
    igc.wr32(regs::TIMINCA, (((100u64 << 16) << 14) / 78125) as u32);
    let base = {
        let l = igc.rd32(regs::SYSTIML);
        u64::from(igc.rd32(regs::SYSTIMH)) * S + u64::from(l)
    };
    igc.extts(1, 3, true);
    igc.run_to(S + 150 * MS);
    let events = igc.interrupt();
    let [Event::Extts(1, stamp)] = events[..] else { panic!("{events:?}") };
    // 100 ms of host time at +100 ppm.
    let expect = base + 100 * MS + 10_000;
    assert!(stamp.abs_diff(expect) <= 1, "{stamp} vs {expect}");
    assert_eq!(igc.edges(3)[0].1, stamp, "the log's exact SYSTIM0");
}

/// PEROUT with a 1 s period on SDP1: clock mode (FREQOUT0 = 500 ms,
/// EN_CLK0 | ST0), its edges at the start and every 500 ms of SYSTIM0,
/// without interrupts; the pin's level in CTRL.SDP1_DATA.
#[test]
fn perout_clock_mode_500ms_half_period_on_sdp1() {
    let mut igc = Igc::new();
    igc.perout(0, 1, S, 103 * S, true);
    assert_eq!(igc.rd32(regs::FREQOUT0), 500_000_000);
    assert_eq!(igc.rd32(regs::TSAUXC) & (tsauxc::EN_CLK0 | tsauxc::ST0), tsauxc::EN_CLK0 | tsauxc::ST0);
    // SYSTIM0 103 s is host 4 s.
    assert_eq!(igc.d.mac.next_deadline(), Some(2 * S), "SYS_WRAP first");
    igc.run_to(3 * S + 999 * MS);
    assert!(igc.edges(1).is_empty());
    for k in 0..6 {
        igc.run_to(4 * S + k * 500 * MS + 3);
        assert!(igc.interrupt().is_empty(), "no interrupt in clock mode");
        let sdp1 = igc.rd32(regs::CTRL) & ctrl::SDP1_DATA != 0;
        assert_eq!(sdp1, k % 2 == 0, "edge {k}");
    }
    let clock0 = EdgeCause::Output(Function::Clock(0));
    let want: Vec<_> = (0..6).map(|k| (k % 2 == 0, 103 * S + k * 500 * MS, 4 * S + k * 500 * MS, clock0)).collect();
    assert_eq!(igc.edges(1), want);
    // Off: the pin stops.
    igc.perout(0, 1, S, 0, false);
    igc.run_to(10 * S);
    assert_eq!(igc.edges(1).len(), 6);
}

/// PEROUT with a 3 s period on SDP2: target-time mode (EN_TT0, TSIM.TT0).
/// Each target raises TSICR.TT0 and changes the pin's level at exactly the
/// target; the ISR arms the next one, a half period later.
#[test]
fn perout_target_time_mode_on_sdp2() {
    let mut igc = Igc::new();
    // A start in the past is moved 2 s ahead by the driver: 102.25 s.
    igc.perout(0, 2, 3 * S, 250 * MS, true);
    assert_eq!(igc.perout[0], (102 * S + 250 * MS, 1500 * MS));
    assert_eq!(igc.rd32(regs::TSAUXC) & tsauxc::EN_TT0, tsauxc::EN_TT0);
    let mut fired = 0;
    for host in (1..39).map(|i| S + i * 250 * MS) {
        igc.run_to(host + 7);
        for e in igc.interrupt() {
            assert_eq!(e, Event::Perout(0));
            fired += 1;
        }
    }
    // Targets 102.25, 103.75, ... up to SYSTIM0 108.75 (host 10.75 s).
    assert_eq!(fired, 5);
    let tt0 = EdgeCause::Output(Function::TargetTime(0));
    let want: Vec<_> = (0..5)
        .map(|k| (k % 2 == 0, 102 * S + 250 * MS + k * 1500 * MS, 3 * S + 250 * MS + k * 1500 * MS, tt0))
        .collect();
    assert_eq!(igc.edges(2), want);
    assert!(igc.rd32(regs::CTRL_EXT) & ctrl_ext::SDP2_DATA != 0, "high after 5 edges");
    let lateness = igc.d.mac.ptp().target_time_lateness.summary();
    assert_eq!((lateness.count, lateness.max_ns), (5, Some(7)));
}

/// A target time or a clock start programmed in the past never fires, and
/// SDP0 with TT1 routed to it stays still.
#[test]
fn past_targets_never_fire() {
    let mut igc = Igc::new();
    igc.pin_perout(1, 0, false);
    igc.wr32(regs::TSIM, tsicr::TT1);
    igc.wr32(regs::TRGTTIMH1, 100);
    igc.wr32(regs::TRGTTIML1, 500_000_000);
    igc.run_to(2 * S); // SYSTIM0 101 s: 100.5 s is past.
    igc.wr32(regs::TSAUXC, tsauxc::EN_TT1);
    igc.wr32(regs::TRGTTIMH0, 100);
    igc.wr32(regs::FREQOUT0, 1000);
    igc.wr32(regs::TSAUXC, tsauxc::EN_TT1 | tsauxc::EN_CLK0 | tsauxc::ST0);
    for host in [3 * S, 5 * S, 9 * S] {
        igc.run_to(host);
        assert!(igc.interrupt().is_empty());
    }
    assert!(igc.edges(0).is_empty());
    let c = igc.d.mac.ptp().counters;
    assert_eq!((c.tt_armed_in_past, c.clock_armed_in_past), (1, 1));
}

/// A MAC reset (igc_reset → CTRL.RST) makes every pin an input again; the
/// pulse source goes on, and its edges are latched once EXTTS is set up
/// again.
#[test]
fn reset_returns_the_pins_to_inputs() {
    let mut igc = Igc::new();
    igc.d.mac.set_pulse(Some(PulseConfig::from_fields(&["1", "1000000000"]).unwrap()));
    igc.perout(0, 0, S, 0, true);
    let c = igc.rd32(regs::CTRL);
    igc.wr32(regs::CTRL, c | ctrl::RST);
    assert_eq!(igc.rd32(regs::TSSDP), 0);
    assert_eq!(igc.rd32(regs::CTRL) & (ctrl::SDP0_DIR | ctrl::SDP1_DIR), 0);
    igc.wr32(regs::IMS, icr::TS);
    igc.extts(0, 1, true);
    igc.run_to(5 * S);
    assert!(igc.edges(0).is_empty(), "the clock output stopped");
    // The first edge after the reset (2 s) is latched; the rest wait for its read.
    assert_eq!(igc.interrupt(), [Event::Extts(0, Igc::systim_at(2 * S))]);
}
