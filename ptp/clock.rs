// SPDX-License-Identifier: GPL-2.0

//! The PTP hardware clock (`igc_ptp.c`): its operations (`igc_ptp_gettimex64_i225`,
//! `igc_ptp_settime_i225`, `igc_ptp_adjfine_i225`, `igc_ptp_adjtime_i225`), SYSTIM reads and
//! writes, the start at probe and the restore after a MAC reset (`igc_ptp_reset`).

use kernel::{
    net::dev::Registration,
    prelude::*,
    ptp::{PinFunction, Pins, Request, SystemTimestamps, Timespec},
    sync::{atomic::Relaxed, Arc},
    time::{Instant, Monotonic},
};

use super::timinca;
use crate::{
    adapter::Adapter,
    regs::{SYSTIMH, SYSTIML, TIMADJ, TIMINCA, TSAUXC, TSIM, TSSDP},
};

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
        self.net.ptp.timinca.store(inc.into_raw(), Relaxed);
        self.net.hw.write_reg(inc);
        Ok(())
    }

    fn adjtime(&self, delta: i64) -> Result {
        let _g = self.net.ptp.systim_lock.lock();
        let now = self.net.systim_read_locked();
        if self.net.hw.removed() {
            return Err(ENODEV);
        }
        let t = Timespec::from_nanos(now.as_nanos().saturating_add(delta));
        self.net.systim_write_locked(t);
        Ok(())
    }

    fn enable(&self, pins: &Pins<'_>, request: Request, on: bool) -> Result {
        self.net.pin_enable(pins, request, on)
    }

    fn verify(&self, pin: u32, func: PinFunction, chan: u32) -> Result {
        self.net.pin_verify(pin, func, chan)
    }
}

impl Adapter {
    /// Reads SYSTIM (`igc_ptp_read`), with system timestamps around the latching read.
    pub(crate) fn systim_read(&self, sts: Option<&mut SystemTimestamps>) -> Timespec {
        let _g = self.ptp.systim_lock.lock();
        match sts {
            Some(sts) => {
                sts.pre();
                let t = self.systim_read_locked();
                sts.post();
                t
            }
            None => self.systim_read_locked(),
        }
    }

    /// Reads SYSTIM, SYSTIML first (it latches SYSTIMH); `systim_lock` held.
    pub(super) fn systim_read_locked(&self) -> Timespec {
        let nsec = self.hw.read(SYSTIML).nsec().get();
        let sec = self.hw.read(SYSTIMH).sec().get();
        Timespec {
            sec: i64::from(sec),
            nsec: i64::from(nsec),
        }
    }

    /// Writes SYSTIM; `systim_lock` held.
    fn systim_write_locked(&self, ts: Timespec) {
        self.hw
            .write_reg(SYSTIML::zeroed().with_nsec(ts.nsec as u32));
        self.hw.write_reg(SYSTIMH::zeroed().with_sec(ts.sec as u32));
    }

    /// Writes SYSTIM (`igc_ptp_write_i225`).
    pub(crate) fn systim_write(&self, ts: Timespec) {
        let _g = self.ptp.systim_lock.lock();
        self.systim_write_locked(ts);
    }

    /// Starts the clock and the TX timestamp interrupt (`igc_ptp_reset`), the clock set to the
    /// system's real time.
    pub(crate) fn ptp_reset(&self) {
        self.start_clock();
        self.systim_write(kernel::ptp::realtime());
    }

    /// Runs SYSTIM (TSAUXC cleared) and enables the TX timestamp interrupt, and the PPS event's
    /// if it is on, as `igc_ptp_reset` for the I225: TIMADJ's adjustment method set, no pin
    /// given to the time sync unit.
    fn start_clock(&self) {
        // Under the lock the pins' set-up takes (`igc_ptp_reset` under `tmreg_lock`): a PPS
        // enable racing a reset sees TSIM before or after, and `pps_on` with it.
        let _g = self.ptp.systim_lock.lock();
        self.hw.update(TIMADJ, |t: TIMADJ| t.with_adjust_meth(true));
        self.hw.write_reg(TSAUXC::zeroed());
        self.hw.write_reg(TSSDP::zeroed());
        self.hw.write_reg(
            TSIM::zeroed()
                .with_txts(true)
                .with_sys_wrap(self.ptp.pps_on.load(Relaxed)),
        );
    }

    /// Reprograms the PTP side after a MAC reset (`igc_ptp_reset` with
    /// `igc_ptp_time_restore`): the clock set to the time saved before the reset plus the time
    /// the reset took, its last rate, and the timestamping configuration.
    pub(crate) fn ptp_restore(&self, saved_ns: i64, since: Instant<Monotonic>, queues: usize) {
        self.start_clock();
        {
            let _g = self.ptp.systim_lock.lock();
            self.hw
                .write_reg(TIMINCA::from_raw(self.ptp.timinca.load(Relaxed)));
        }
        let elapsed = since.elapsed().as_nanos();
        self.systim_write(Timespec::from_nanos(saved_ns.saturating_add(elapsed)));
        // The reset cleared the TX timestamp registers the slot compares with.
        self.ptp.txts.lock().forget_seen();
        if self.ptp.tx_tstamp_on.load(Relaxed) {
            self.write_tx_tstamp_on();
        }
        if self.ptp.rx_tstamp_on.load(Relaxed) {
            self.set_rx_tstamp(true, queues);
        }
    }
}
