// SPDX-License-Identifier: GPL-2.0

//! Hardware statistics (`igc_main.c`: `igc_update_stats`; `igc_ethtool.c`: `igc_gstrings_stats`).
//!
//! The counters clear on read, so every read is accumulated into 64-bit totals. The reads happen
//! in process context (the 2-second watchdog, `ethtool -S`) under a mutex, never under a
//! spinlock: reading some forty registers under a spinlock with interrupts off is what made igb
//! hold CPU0 for milliseconds. `ndo_get_stats64`, which may run in atomic context, reads only a
//! copy published after each refresh.

use kernel::{str::CStr, sync::atomic::Relaxed};

use crate::{
    adapter::Adapter,
    hw::Hw,
    regs::{
        BPRC, BPTC, CRCERRS, GORCH, GORCL, GOTCH, GOTCL, GPRC, GPTC, MPC, MPRC, MPTC, RNBC, ROC,
        RUC, TPR, TPT,
    },
};

/// Accumulated hardware counters.
#[derive(Clone, Copy, Default)]
pub(crate) struct HwStats {
    pub(crate) crcerrs: u64,
    pub(crate) mpc: u64,
    pub(crate) gprc: u64,
    pub(crate) bprc: u64,
    pub(crate) mprc: u64,
    pub(crate) gptc: u64,
    pub(crate) gorc: u64,
    pub(crate) gotc: u64,
    pub(crate) rnbc: u64,
    pub(crate) ruc: u64,
    pub(crate) roc: u64,
    pub(crate) tpr: u64,
    pub(crate) tpt: u64,
    pub(crate) mptc: u64,
    pub(crate) bptc: u64,
}

impl HwStats {
    /// Reads every counter once (clearing it) and adds it to the totals (`igc_update_stats`).
    pub(crate) fn update(&mut self, hw: &Hw) {
        if hw.gone() {
            return;
        }
        self.crcerrs += u64::from(hw.read(CRCERRS).into_raw());
        self.mpc += u64::from(hw.read(MPC).into_raw());
        self.gprc += u64::from(hw.read(GPRC).into_raw());
        self.bprc += u64::from(hw.read(BPRC).into_raw());
        self.mprc += u64::from(hw.read(MPRC).into_raw());
        self.gptc += u64::from(hw.read(GPTC).into_raw());
        // The 64-bit octet counters: low half first, then high (which clears both).
        let lo = u64::from(hw.read(GORCL).into_raw());
        self.gorc += lo | u64::from(hw.read(GORCH).into_raw()) << 32;
        let lo = u64::from(hw.read(GOTCL).into_raw());
        self.gotc += lo | u64::from(hw.read(GOTCH).into_raw()) << 32;
        self.rnbc += u64::from(hw.read(RNBC).into_raw());
        self.ruc += u64::from(hw.read(RUC).into_raw());
        self.roc += u64::from(hw.read(ROC).into_raw());
        self.tpr += u64::from(hw.read(TPR).into_raw());
        self.tpt += u64::from(hw.read(TPT).into_raw());
        self.mptc += u64::from(hw.read(MPTC).into_raw());
        self.bptc += u64::from(hw.read(BPTC).into_raw());
    }
}

/// Number of queues `ethtool -S` reports counters for.
pub(crate) const STAT_QUEUES: usize = 4;

/// Names of the device-wide `ethtool -S` counters, in the order of [`device_values`].
const DEVICE_NAMES: [&CStr; 23] = [
    c"rx_packets",
    c"tx_packets",
    c"rx_bytes",
    c"tx_bytes",
    c"rx_broadcast",
    c"tx_broadcast",
    c"rx_multicast",
    c"tx_multicast",
    c"rx_crc_errors",
    c"rx_missed_errors",
    c"rx_no_buffer_count",
    c"rx_long_length_errors",
    c"rx_short_length_errors",
    c"tx_timeout_count",
    c"tx_restart_queue",
    c"tx_busy",
    c"tx_dropped",
    c"rx_csum_offload_errors",
    c"alloc_rx_buff_failed",
    c"rx_frame_errors",
    c"tx_hwtstamp_timeouts",
    c"tx_hwtstamp_skipped",
    c"tx_hwtstamp_completed",
];

/// Software counters summed over the queues.
#[derive(Clone, Copy, Default)]
pub(crate) struct SwTotals {
    pub(crate) tx_timeouts: u64,
    pub(crate) tx_restart: u64,
    pub(crate) tx_busy: u64,
    pub(crate) tx_dropped: u64,
    pub(crate) rx_csum_err: u64,
    pub(crate) rx_alloc_failed: u64,
    pub(crate) rx_errors: u64,
    pub(crate) tx_hwtstamp_timeouts: u64,
    pub(crate) tx_hwtstamp_skipped: u64,
    pub(crate) tx_hwtstamp_completed: u64,
}

/// Per-queue counters: TX packets and bytes, RX packets and bytes.
pub(crate) type QueueValues = [u64; 4];

const fn names() -> [&'static CStr; DEVICE_NAMES.len() + 4 * STAT_QUEUES] {
    let mut all = [c""; DEVICE_NAMES.len() + 4 * STAT_QUEUES];
    let mut i = 0;
    while i < DEVICE_NAMES.len() {
        all[i] = DEVICE_NAMES[i];
        i += 1;
    }
    const Q: [[&CStr; 4]; STAT_QUEUES] = [
        [
            c"tx_queue_0_packets",
            c"tx_queue_0_bytes",
            c"rx_queue_0_packets",
            c"rx_queue_0_bytes",
        ],
        [
            c"tx_queue_1_packets",
            c"tx_queue_1_bytes",
            c"rx_queue_1_packets",
            c"rx_queue_1_bytes",
        ],
        [
            c"tx_queue_2_packets",
            c"tx_queue_2_bytes",
            c"rx_queue_2_packets",
            c"rx_queue_2_bytes",
        ],
        [
            c"tx_queue_3_packets",
            c"tx_queue_3_bytes",
            c"rx_queue_3_packets",
            c"rx_queue_3_bytes",
        ],
    ];
    let mut q = 0;
    while q < STAT_QUEUES {
        let mut k = 0;
        while k < 4 {
            all[DEVICE_NAMES.len() + 4 * q + k] = Q[q][k];
            k += 1;
        }
        q += 1;
    }
    all
}

/// Every `ethtool -S` name, device-wide counters first, then four per queue.
pub(crate) static NAMES: [&CStr; DEVICE_NAMES.len() + 4 * STAT_QUEUES] = names();

/// Fills `out` (one value per name of [`NAMES`]).
pub(crate) fn values(hw: &HwStats, sw: &SwTotals, queues: &[QueueValues], out: &mut [u64]) {
    let dev = [
        hw.gprc,
        hw.gptc,
        hw.gorc,
        hw.gotc,
        hw.bprc,
        hw.bptc,
        hw.mprc,
        hw.mptc,
        hw.crcerrs,
        hw.mpc,
        hw.rnbc,
        hw.roc,
        hw.ruc,
        sw.tx_timeouts,
        sw.tx_restart,
        sw.tx_busy,
        sw.tx_dropped,
        sw.rx_csum_err,
        sw.rx_alloc_failed,
        sw.rx_errors,
        sw.tx_hwtstamp_timeouts,
        sw.tx_hwtstamp_skipped,
        sw.tx_hwtstamp_completed,
    ];
    for (o, v) in out.iter_mut().zip(dev.iter()) {
        *o = *v;
    }
    for (q, vals) in queues.iter().enumerate().take(STAT_QUEUES) {
        for (k, v) in vals.iter().enumerate() {
            if let Some(o) = out.get_mut(DEVICE_NAMES.len() + 4 * q + k) {
                *o = *v;
            }
        }
    }
}

/// The statistics of the adapter (`igc_update_stats`).
impl Adapter {
    /// Refreshes the hardware counters. Process context: takes the mutex, reads the registers,
    /// then publishes a copy under the spinlock without touching the hardware.
    pub(crate) fn update_stats(&self) -> HwStats {
        let mut s = self.hwstats.lock();
        s.update(&self.hw);
        let copy = *s;
        drop(s);
        *self.hwstats_copy.lock() = copy;
        copy
    }

    pub(crate) fn sw_totals(&self) -> SwTotals {
        let ts = self.ptp.txts.lock().counters;
        let mut t = SwTotals {
            tx_timeouts: self.tx_timeouts.load(Relaxed),
            tx_hwtstamp_timeouts: ts.timeouts,
            tx_hwtstamp_skipped: ts.skipped,
            tx_hwtstamp_completed: ts.completed,
            ..Default::default()
        };
        for q in self.queues.iter() {
            t.tx_restart += q.txc.restart.load(Relaxed);
            t.tx_busy += q.txc.busy.load(Relaxed);
            t.tx_dropped += q.txc.dropped.load(Relaxed);
            t.rx_csum_err += q.rxc.csum_err.load(Relaxed);
            t.rx_alloc_failed += q.rxc.alloc_failed.load(Relaxed);
            t.rx_errors += q.rxc.errors.load(Relaxed);
        }
        t
    }
}
