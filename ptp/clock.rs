// SPDX-License-Identifier: GPL-2.0

//! The PTP hardware clock (`igc_ptp.c`): its operations (`igc_ptp_gettimex64_i225`,
//! `igc_ptp_settime_i225`, `igc_ptp_adjfine_i225`, `igc_ptp_adjtime_i225`), SYSTIM reads and
//! writes, the start at probe and the restore after a MAC reset (`igc_ptp_reset`).

use kernel::{
    net::dev::Registration,
    prelude::*,
    ptp::{SystemTimestamps, Timespec},
    sync::{atomic::Relaxed, Arc},
    time::{Instant, Monotonic},
};

use super::{r, timinca};
use crate::adapter::Adapter;

/// The PTP hardware clock's operations (`igc_ptp_*_i225`).
pub(crate) struct PtpClock {
    net: Arc<Registration<Adapter>>,
}

impl PtpClock {
    /// The clock of the adapter `net`.
    pub(crate) fn new(net: Arc<Registration<Adapter>>) -> Self {
        Self { net }
    }
}

#[vtable]
impl kernel::ptp::Operations for PtpClock {
    fn gettimex64(&self, sts: &mut SystemTimestamps) -> Result<Timespec> {
        let t = self.net.systim_read(Some(sts));
        // A vanished device reads all ones: no time, rather than an invalid timespec.
        if self.net.hw.removed() {
            return Err(ENODEV);
        }
        Ok(t)
    }

    fn settime64(&self, ts: Timespec) -> Result {
        if self.net.hw.removed() {
            return Err(ENODEV);
        }
        self.net.systim_write(ts);
        Ok(())
    }

    fn adjfine(&self, scaled_ppm: i64) -> Result {
        if self.net.hw.removed() {
            return Err(ENODEV);
        }
        let inc = timinca(scaled_ppm);
        let _g = self.net.ptp.systim_lock.lock();
        self.net.ptp.timinca.store(inc, Relaxed);
        self.net.hw.wr(r::TIMINCA, inc);
        Ok(())
    }

    fn adjtime(&self, delta: i64) -> Result {
        let _g = self.net.ptp.systim_lock.lock();
        let now = Timespec {
            nsec: i64::from(self.net.hw.rd(r::SYSTIML)),
            sec: i64::from(self.net.hw.rd(r::SYSTIMH)),
        };
        if self.net.hw.removed() {
            return Err(ENODEV);
        }
        let t = Timespec::from_nanos(now.as_nanos().saturating_add(delta));
        self.net.hw.wr(r::SYSTIML, t.nsec as u32);
        self.net.hw.wr(r::SYSTIMH, t.sec as u32);
        Ok(())
    }
}

impl Adapter {
    /// Reads SYSTIM (`igc_ptp_read`), with system timestamps around the latching read.
    pub(crate) fn systim_read(&self, sts: Option<&mut SystemTimestamps>) -> Timespec {
        let _g = self.ptp.systim_lock.lock();
        let (lo, hi) = match sts {
            Some(sts) => {
                sts.pre();
                let lo = self.hw.rd(r::SYSTIML);
                let hi = self.hw.rd(r::SYSTIMH);
                sts.post();
                (lo, hi)
            }
            None => (self.hw.rd(r::SYSTIML), self.hw.rd(r::SYSTIMH)),
        };
        Timespec {
            sec: i64::from(hi),
            nsec: i64::from(lo),
        }
    }

    /// Writes SYSTIM (`igc_ptp_write_i225`).
    pub(crate) fn systim_write(&self, ts: Timespec) {
        let _g = self.ptp.systim_lock.lock();
        self.hw.wr(r::SYSTIML, ts.nsec as u32);
        self.hw.wr(r::SYSTIMH, ts.sec as u32);
    }

    /// Starts the clock and the TX timestamp interrupt (`igc_ptp_reset`), the clock set to the
    /// system's real time.
    pub(crate) fn ptp_reset(&self) {
        self.hw.wr(r::TSAUXC, 0);
        self.hw.wr(r::TSIM, r::TSICR_TXTS);
        self.systim_write(kernel::ptp::realtime());
    }

    /// Reprograms the PTP side after a MAC reset (`igc_ptp_reset` with
    /// `igc_ptp_time_restore`): the clock set to the time saved before the reset plus the time
    /// the reset took, its last rate, and the timestamping configuration.
    pub(crate) fn ptp_restore(&self, saved_ns: i64, since: Instant<Monotonic>, queues: usize) {
        self.hw.wr(r::TSAUXC, 0);
        self.hw.wr(r::TSIM, r::TSICR_TXTS);
        {
            let _g = self.ptp.systim_lock.lock();
            self.hw.wr(r::TIMINCA, self.ptp.timinca.load(Relaxed));
        }
        let elapsed = since.elapsed().as_nanos();
        self.systim_write(Timespec::from_nanos(saved_ns.saturating_add(elapsed)));
        if self.ptp.tx_tstamp_on.load(Relaxed) {
            self.write_tx_tstamp_on();
        }
        if self.ptp.rx_tstamp_on.load(Relaxed) {
            self.set_rx_tstamp(true, queues);
        }
    }
}
