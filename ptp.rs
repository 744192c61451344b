// SPDX-License-Identifier: GPL-2.0

//! PTP (`igc_ptp.c`): the hardware clock (SYSTIM), the timestamping configuration, RX timestamps
//! from the header the hardware puts in front of a frame, and the single-slot TX timestamp state.
//!
//! Here: the PTP state of the adapter, the registers, latencies and time conversions. Beside
//! it:
//!
//! - `ptp/clock.rs`: the clock's operations, SYSTIM, the restore after a reset
//!   (`igc_ptp_*_i225`, `igc_ptp_reset`);
//! - `ptp/hwtstamp.rs`: the timestamping configuration (`igc_ptp_hwtstamp_set`);
//! - `ptp/tx_slot.rs`: the TX timestamp slot and the time sync interrupt (`igc_ptp_tx_hwtstamp`,
//!   `igc_tsync_interrupt`);
//! - `ptp/pins.rs`: the pins, external timestamps, periodic outputs and the PPS event
//!   (`igc_ptp_feature_enable_i225`).
//!
//! The TX timestamp slot, the heart of the driver, is described in `ptp/tx_slot.rs`: one
//! request at a time, behind a `SpinLockIrq` shared by xmit, the time-sync interrupt and the
//! watchdog, with the I225's TXSTMPH_0 erratum worked around.

use kernel::{
    fmt,
    io::Io,
    net::skb::TstampSkb,
    new_spinlock_irq,
    num::Bounded,
    prelude::*,
    ptp::Events,
    sync::{atomic::Atomic, Arc, SpinLockIrq},
    time::{Instant, Monotonic, NSEC_PER_SEC},
};

use crate::regs::{self, Bar0, TIMINCA};

mod clock;
mod hwtstamp;
mod pins;
mod tx_slot;

pub(crate) use clock::PtpClock;
pub(crate) use pins::{EXTTS_FLAGS, N_EXTTS, N_PEROUT, PIN_NAMES};
pub(crate) use tx_slot::{debugfs_file, ClaimId, TestSwitches, TxSlot};

/// The PTP state of the adapter (the `ptp_*` and `tstamp_config` fields of `struct igc_adapter`).
#[pin_data]
pub(crate) struct Ptp {
    /// Serialises SYSTIM and TIMINCA accesses (SYSTIML latches SYSTIMH) and the
    /// read-modify-writes of the time sync unit's registers (TSAUXC, TSIM, TSSDP, the pins'
    /// directions), with the periodic outputs' schedules: `tmreg_lock` in igc.
    #[pin]
    pub(crate) systim_lock: SpinLockIrq<pins::Outputs>,
    /// The PPS event is on (`pps_sys_wrap_on`): TSIM.SYS_WRAP, kept across resets.
    pub(crate) pps_on: Atomic<bool>,
    /// Where external timestamps and the PPS event go, from the time sync interrupt.
    pub(crate) events: Arc<Events>,
    /// The last rate written to TIMINCA (`adjfine`), restored after a MAC reset.
    pub(crate) timinca: Atomic<u32>,
    /// The single-slot TX timestamp state (`ptp/tx_slot.rs`).
    #[pin]
    pub(crate) txts: SpinLockIrq<TxSlot<TstampSkb>>,
    /// Timestamping configuration: the fast paths read only these flags.
    pub(crate) tx_tstamp_on: Atomic<bool>,
    pub(crate) rx_tstamp_on: Atomic<bool>,
    /// The index of the PTP clock (`/dev/ptpN`), -1 before it is registered.
    pub(crate) phc_index: Atomic<i32>,
    /// Time origin of the slot's claim times.
    pub(crate) t0: Instant<Monotonic>,
}

impl Ptp {
    /// The state before the clock is started: TX timestamps in register set 0, with the
    /// TXSTMPH_0 workaround; no pin in use; the clock's events to `events`.
    pub(crate) fn new(events: Arc<Events>) -> impl PinInit<Self> {
        pin_init!(Self {
            systim_lock <- new_spinlock_irq!(pins::Outputs::default()),
            pps_on: Atomic::new(false),
            events,
            timinca: Atomic::new(0),
            txts <- new_spinlock_irq!(TxSlot::new(0, true)),
            tx_tstamp_on: Atomic::new(false),
            rx_tstamp_on: Atomic::new(false),
            phc_index: Atomic::new(-1),
            t0: Instant::now(),
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Systim {
    pub(crate) sec: u32,
    pub(crate) nsec: u32,
}

impl fmt::Display for Systim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:09}", self.sec, self.nsec)
    }
}

/// Reads SYSTIM at probe (SYSTIML first: it latches SYSTIMH).
pub(crate) fn read_systim(bar: &Bar0<'_>) -> Systim {
    let nsec = bar.read(regs::SYSTIML).nsec().get();
    let sec = bar.read(regs::SYSTIMH).sec().get();
    Systim { sec, nsec }
}

/// How long a TX timestamp may take before the watchdog gives up on it (`IGC_PTP_TX_TIMEOUT`).
pub(crate) const TX_TIMEOUT_NS: u64 = 15_000_000_000;

/// Largest frequency adjustment, in ppb (`igc_ptp_init`: `max_adj = 62499999`).
pub(crate) const MAX_ADJ_PPB: i32 = 62_499_999;

/// TX and RX latencies between the timestamp point and the wire, per link speed
/// (`IGC_I225_TX_LATENCY_*`, `IGC_I225_RX_LATENCY_*`), in ns.
pub(crate) fn tx_latency_ns(mbps: u32) -> u64 {
    match mbps {
        10 => 240,
        100 => 58,
        1000 => 80,
        2500 => 1325,
        _ => 0,
    }
}

/// See [`tx_latency_ns`].
pub(crate) fn rx_latency_ns(mbps: u32) -> u64 {
    match mbps {
        10 => 6450,
        100 => 185,
        1000 => 300,
        2500 => 1485,
        _ => 0,
    }
}

/// Nanoseconds of a SYSTIM-format value: seconds in the high word, nanoseconds in the low.
pub(crate) fn systim_to_ns(lo: u32, hi: u32) -> u64 {
    u64::from(hi) * NSEC_PER_SEC as u64 + u64::from(lo)
}

/// The largest TIMINCA.INCVALUE.
const INCVALUE_MAX: u64 = (1 << 31) - 1;

/// The TIMINCA value for a frequency offset of `scaled_ppm` (ppm with a 16-bit binary
/// fraction), as `igc_ptp_adjfine_i225` computes it: the increment is in units of 2^-32 ns per
/// 3.2 ns cycle, so INCVALUE = |scaled_ppm| * 2^14 / 78125 (= |ppm| * 2^30 / 78125 / 2^16),
/// with the sign in ISGN. Rounded to the nearest unit (igc truncates; the difference is below
/// 0.5 unit, 1.5e-4 ppb).
pub(crate) fn timinca(scaled_ppm: i64) -> TIMINCA {
    // The PTP core keeps |scaled_ppm| within `max_adj` (about 2^32); the clamp keeps the
    // product far from overflowing 64 bits for any input.
    let abs = scaled_ppm.unsigned_abs().min(1 << 40);
    let inca = ((abs << 14) + 78125 / 2) / 78125;
    let inca =
        Bounded::<u32, 31>::try_new(inca.min(INCVALUE_MAX) as u32)
            .unwrap_or(Bounded::<u32, 31>::new::<0x7FFF_FFFF>());
    TIMINCA::zeroed()
        .with_incvalue(inca)
        .with_isgn(scaled_ppm < 0)
}

/// Extracts the timer 0 time (ns) from the 16-byte RX timestamp header: dwords 2 and 3 hold
/// timer 0's SYSTIML and SYSTIMH (`struct igc_inline_rx_tstamps`).
pub(crate) fn rx_header_ns(hdr: &[u8; 16]) -> u64 {
    let lo = u32::from_le_bytes([hdr[8], hdr[9], hdr[10], hdr[11]]);
    let hi = u32::from_le_bytes([hdr[12], hdr[13], hdr[14], hdr[15]]);
    systim_to_ns(lo, hi)
}

#[cfg(CONFIG_RIGC_KUNIT_TEST)]
#[kernel::prelude::kunit_tests(rigc_ptp)]
mod tests {
    use super::*;

    #[test]
    fn timinca_from_scaled_ppm() {
        let raw = |ppm| timinca(ppm).into_raw();
        assert_eq!(raw(0), 0);
        // 1 ppm: 2^30 / 78125 = 13743.9 -> 13744.
        assert_eq!(raw(65536), 13744);
        // ISGN, bit 31: the correction slows the clock down.
        assert_eq!(raw(-65536), 13744 | 1 << 31);
        // 1000 ppb = 1 ppm; 62499999 ppb, the largest, fits INCVALUE.
        let max = (62_499_999i64 << 16) / 1000;
        assert!(u64::from(timinca(max).incvalue().get()) < INCVALUE_MAX);
        // Rounding: 78125 / 2^14 scaled ppm is exactly one unit.
        assert_eq!(raw(78125), 1 << 14);
        assert_eq!(raw(3), 1); // 3 * 16384 / 78125 = 0.63 -> 1
        assert_eq!(raw(2), 0); // 0.42 -> 0
    }

    #[test]
    fn time_conversions() {
        assert_eq!(systim_to_ns(999_999_999, 3), 3_999_999_999);
        let mut hdr = [0u8; 16];
        hdr[8..12].copy_from_slice(&500u32.to_le_bytes());
        hdr[12..16].copy_from_slice(&7u32.to_le_bytes());
        hdr[0..8].fill(0xAA); // Timer 1: not used.
        assert_eq!(rx_header_ns(&hdr), 7_000_000_500);
        assert_eq!(tx_latency_ns(2500), 1325);
        assert_eq!(rx_latency_ns(1000), 300);
    }
}
