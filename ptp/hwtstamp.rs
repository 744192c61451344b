// SPDX-License-Identifier: GPL-2.0

//! The timestamping configuration (`igc_ptp.c`: `igc_ptp_hwtstamp_get`, `igc_ptp_hwtstamp_set`,
//! `igc_ptp_set_timestamp_mode`): TX on or off, RX for every packet or none, and the RX
//! latency the receive path subtracts.

use kernel::{
    net::dev::{hwtstamp, HwTstampConfig},
    prelude::*,
    sync::atomic::Relaxed,
};

use super::{r, rx_latency_ns};
use crate::{adapter::Adapter, regs::off};

impl Adapter {
    /// `SIOCGHWTSTAMP` (`igc_ptp_hwtstamp_get`).
    pub(crate) fn hwtstamp_get(&self, cfg: &mut HwTstampConfig) -> Result {
        cfg.set_tx_type(if self.ptp.tx_tstamp_on.load(Relaxed) {
            hwtstamp::TX_ON
        } else {
            hwtstamp::TX_OFF
        });
        cfg.set_rx_filter(if self.ptp.rx_tstamp_on.load(Relaxed) {
            hwtstamp::FILTER_ALL
        } else {
            hwtstamp::FILTER_NONE
        });
        Ok(())
    }

    /// `SIOCSHWTSTAMP` (`igc_ptp_hwtstamp_set`).
    pub(crate) fn hwtstamp_set(&self, cfg: &mut HwTstampConfig) -> Result {
        // igc_ptp_set_timestamp_mode: TX off or on; RX none, or every packet for any filter (the
        // hardware timestamps all of them), reported as ALL.
        let tx = match cfg.tx_type() {
            hwtstamp::TX_OFF => false,
            hwtstamp::TX_ON => true,
            _ => return Err(ERANGE),
        };
        // Every filter igc accepts is served by timestamping all packets; igc refuses SOME.
        // Both fields are checked before anything changes (igc applies TX first).
        let rx = match cfg.rx_filter() {
            hwtstamp::FILTER_NONE => false,
            hwtstamp::FILTER_SOME => return Err(ERANGE),
            _ => true,
        };
        let queues = self.cfg.lock().queues;
        self.set_tx_tstamp(tx);
        self.set_rx_tstamp(rx, queues);
        cfg.set_rx_filter(if rx {
            hwtstamp::FILTER_ALL
        } else {
            hwtstamp::FILTER_NONE
        });
        Ok(())
    }

    /// Switches TX timestamping (`igc_ptp_enable_tx_timestamp` and its disable counterpart).
    pub(crate) fn set_tx_tstamp(&self, on: bool) {
        if on {
            // Only an off -> on switch discards a stale timestamp: when timestamping is already
            // on (every ptp4l or chronyd start sets it again), a request may be waiting for the
            // timestamp that has latched, and reading it out here would lose it.
            if self.ptp.tx_tstamp_on.load(Relaxed) {
                return;
            }
            self.write_tx_tstamp_on();
            self.ptp.tx_tstamp_on.store(true, Relaxed);
        } else {
            // The flag is cleared and the slot cancelled under the slot's lock, which `claim`
            // tests the flag under too.
            let req = {
                let mut slot = self.ptp.txts.lock();
                self.ptp.tx_tstamp_on.store(false, Relaxed);
                slot.cancel(&self.hw)
            };
            drop(req);
            self.hw.wr(r::TSYNCTXCTL, 0);
        }
    }

    /// Turns TX timestamping on in the hardware and discards a timestamp left from before.
    pub(crate) fn write_tx_tstamp_on(&self) {
        self.hw.wr(
            r::TSYNCTXCTL,
            r::TSYNCTXCTL_ENABLED | r::TSYNCTXCTL_TXSYNSIG,
        );
        let _ = self.hw.rd(r::txstmpl(0));
        let _ = self.hw.rd(r::txstmph(0));
    }

    /// Switches RX timestamping (`igc_ptp_enable_rx_timestamp` and its disable counterpart).
    pub(crate) fn set_rx_tstamp(&self, on: bool, queues: usize) {
        let ts = r::SRRCTL_TIMER1SEL_1 | r::SRRCTL_TIMESTAMP;
        if on {
            self.hw.set_bits(r::RXPBS, r::RXPBS_CFG_TS_EN);
            for q in 0..queues {
                self.hw.set_bits(off::srrctl(q), ts);
            }
            self.hw.wr(
                r::TSYNCRXCTL,
                r::TSYNCRXCTL_ENABLED | r::TSYNCRXCTL_TYPE_ALL | r::TSYNCRXCTL_RXSYNSIG,
            );
        } else {
            self.hw.wr(r::TSYNCRXCTL, 0);
            for q in 0..queues {
                self.hw.clear_bits(off::srrctl(q), ts);
            }
            self.hw.clear_bits(r::RXPBS, r::RXPBS_CFG_TS_EN);
        }
        self.ptp.rx_tstamp_on.store(on, Relaxed);
    }

    /// The RX latency to subtract from RX timestamps while they are on.
    pub(crate) fn rx_tstamp(&self) -> Option<u64> {
        self.ptp
            .rx_tstamp_on
            .load(Relaxed)
            .then(|| rx_latency_ns(self.link_mbps.load(Relaxed)))
    }
}
