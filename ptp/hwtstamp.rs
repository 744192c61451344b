// SPDX-License-Identifier: GPL-2.0

//! The timestamping configuration (`igc_ptp.c`: `igc_ptp_hwtstamp_get`, `igc_ptp_hwtstamp_set`,
//! `igc_ptp_set_timestamp_mode`): TX on or off, RX for every packet or none, and the RX
//! latency the receive path subtracts.

use kernel::{
    net::dev::{hwtstamp, HwTstampConfig},
    prelude::*,
    sync::atomic::Relaxed,
};

use super::rx_latency_ns;
use crate::{
    adapter::Adapter,
    regs::{RXPBS, SRRCTL, TSYNCRXCTL, TSYNCRXCTL_TYPE_ALL, TSYNCTXCTL, TXSTMPH_0, TXSTMPL_0},
};

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
            self.ptp.txts.lock().switch_on();
            self.ptp.tx_tstamp_on.store(true, Relaxed);
        } else {
            // Switched off and cancelled under the slot's lock, which `claim` decides under.
            let req = {
                let mut slot = self.ptp.txts.lock();
                self.ptp.tx_tstamp_on.store(false, Relaxed);
                slot.switch_off(&self.hw)
            };
            drop(req);
            self.hw.write_reg(TSYNCTXCTL::zeroed());
        }
    }

    /// Turns TX timestamping on in the hardware and discards a timestamp left from before.
    pub(crate) fn write_tx_tstamp_on(&self) {
        self.hw
            .write_reg(TSYNCTXCTL::zeroed().with_enabled(true).with_txsynsig(true));
        let _ = self.hw.read(TXSTMPL_0);
        let _ = self.hw.read(TXSTMPH_0);
    }

    /// Switches RX timestamping (`igc_ptp_enable_rx_timestamp` and its disable counterpart).
    pub(crate) fn set_rx_tstamp(&self, on: bool, queues: usize) {
        // The timestamp header in front of every frame, with timer 0's time (`timer1sel` 1
        // puts timer 1's in the header's other half, as igc does).
        let header = |s: SRRCTL| {
            if on {
                s.with_const_timer1sel::<1>().with_timestamp(true)
            } else {
                s.with_const_timer1sel::<0>().with_timestamp(false)
            }
        };
        if on {
            self.hw.update(RXPBS, |r: RXPBS| r.with_cfg_ts_en(true));
            for q in 0..queues {
                self.hw.update_at(q, header);
            }
            self.hw.write_reg(
                TSYNCRXCTL::zeroed()
                    .with_enabled(true)
                    .with_const_type_::<TSYNCRXCTL_TYPE_ALL>()
                    .with_rxsynsig(true),
            );
        } else {
            self.hw.write_reg(TSYNCRXCTL::zeroed());
            for q in 0..queues {
                self.hw.update_at(q, header);
            }
            self.hw.update(RXPBS, |r: RXPBS| r.with_cfg_ts_en(false));
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
