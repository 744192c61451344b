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
    adapter::{Adapter, MAX_QUEUES},
    hw::Hw,
    regs::{
        ALGNERRC, BPRC, BPTC, COLC, CRCERRS, DC, ECOL, GORCH, GORCL, GOTCH, GOTCL, GPRC, GPTC,
        LATECOL, MCC, MGTPDC, MGTPRC, MGTPTC, MPC, MPRC, MPTC, RERC, RLPIC, RNBC, ROC, RQDPC, RUC,
        SCC, TLPIC, TPR, TPT, TSCTC, XOFFRXC, XOFFTXC, XONRXC, XONTXC,
    },
};

/// Accumulated hardware counters (`struct igc_hw_stats`, the ones `igc_update_stats` reads and
/// ethtool or the stack reports).
#[derive(Clone, Copy, Default)]
pub(crate) struct HwStats {
    pub(crate) crcerrs: u64,
    pub(crate) algnerrc: u64,
    pub(crate) mpc: u64,
    pub(crate) scc: u64,
    pub(crate) ecol: u64,
    pub(crate) mcc: u64,
    pub(crate) latecol: u64,
    pub(crate) colc: u64,
    pub(crate) dc: u64,
    pub(crate) xonrxc: u64,
    pub(crate) xontxc: u64,
    pub(crate) xoffrxc: u64,
    pub(crate) xofftxc: u64,
    pub(crate) gprc: u64,
    pub(crate) bprc: u64,
    pub(crate) mprc: u64,
    pub(crate) gptc: u64,
    pub(crate) gorc: u64,
    pub(crate) gotc: u64,
    pub(crate) rnbc: u64,
    pub(crate) ruc: u64,
    pub(crate) roc: u64,
    pub(crate) mgprc: u64,
    pub(crate) mgpdc: u64,
    pub(crate) mgptc: u64,
    pub(crate) tpr: u64,
    pub(crate) tpt: u64,
    pub(crate) mptc: u64,
    pub(crate) bptc: u64,
    pub(crate) tsctc: u64,
    pub(crate) tlpic: u64,
    pub(crate) rlpic: u64,
    /// Per queue: frames dropped for want of descriptors (`rx_stats.drops`).
    pub(crate) rqdpc: [u64; MAX_QUEUES],
}

impl HwStats {
    /// Reads every counter once (clearing it) and adds it to the totals (`igc_update_stats`).
    ///
    /// A pass during which the device vanished is dropped whole: from the read that found it
    /// gone on, every counter reads all ones, which igc adds to its totals (rx_errors then
    /// jumps by some 2^32, and the octet counters by 2^64 - 1). Which reads came before cannot
    /// be told apart, and the device is gone; the totals stay as the last whole pass left them.
    pub(crate) fn update(&mut self, hw: &Hw) {
        if hw.gone() {
            return;
        }
        let mut next = *self;
        next.add_counters(hw);
        if !hw.removed() {
            *self = next;
        }
    }

    fn add_counters(&mut self, hw: &Hw) {
        let rd = |v: u32| u64::from(v);
        for (q, d) in self.rqdpc.iter_mut().enumerate() {
            *d += rd(hw.read_at::<RQDPC>(q).into_raw());
            hw.write_at(q, RQDPC::from_raw(0));
        }
        self.crcerrs += rd(hw.read(CRCERRS).into_raw());
        self.algnerrc += rd(hw.read(ALGNERRC).into_raw());
        self.mpc += rd(hw.read(MPC).into_raw());
        self.scc += rd(hw.read(SCC).into_raw());
        self.ecol += rd(hw.read(ECOL).into_raw());
        self.mcc += rd(hw.read(MCC).into_raw());
        self.latecol += rd(hw.read(LATECOL).into_raw());
        self.colc += rd(hw.read(COLC).into_raw()) + rd(hw.read(RERC).into_raw());
        self.dc += rd(hw.read(DC).into_raw());
        self.xonrxc += rd(hw.read(XONRXC).into_raw());
        self.xontxc += rd(hw.read(XONTXC).into_raw());
        self.xoffrxc += rd(hw.read(XOFFRXC).into_raw());
        self.xofftxc += rd(hw.read(XOFFTXC).into_raw());
        self.gprc += rd(hw.read(GPRC).into_raw());
        self.bprc += rd(hw.read(BPRC).into_raw());
        self.mprc += rd(hw.read(MPRC).into_raw());
        self.gptc += rd(hw.read(GPTC).into_raw());
        // The 64-bit octet counters: low half first, then high (which clears both). igc keeps
        // only the low half; the high one is added here. Wrapping: a pass the device left reads
        // all ones here, and is dropped by the caller (an overflow check would panic first).
        let lo = rd(hw.read(GORCL).into_raw());
        let gorc = lo | rd(hw.read(GORCH).into_raw()) << 32;
        self.gorc = self.gorc.wrapping_add(gorc);
        let lo = rd(hw.read(GOTCL).into_raw());
        let gotc = lo | rd(hw.read(GOTCH).into_raw()) << 32;
        self.gotc = self.gotc.wrapping_add(gotc);
        self.rnbc += rd(hw.read(RNBC).into_raw());
        self.ruc += rd(hw.read(RUC).into_raw());
        self.roc += rd(hw.read(ROC).into_raw());
        self.mgprc += rd(hw.read(MGTPRC).into_raw());
        self.mgpdc += rd(hw.read(MGTPDC).into_raw());
        self.mgptc += rd(hw.read(MGTPTC).into_raw());
        self.tpr += rd(hw.read(TPR).into_raw());
        self.tpt += rd(hw.read(TPT).into_raw());
        self.mptc += rd(hw.read(MPTC).into_raw());
        self.bptc += rd(hw.read(BPTC).into_raw());
        self.tsctc += rd(hw.read(TSCTC).into_raw());
        self.tlpic += rd(hw.read(TLPIC).into_raw());
        self.rlpic += rd(hw.read(RLPIC).into_raw());
    }
}

/// Number of queues `ethtool -S` reports counters for (igc: `num_tx_queues`, `num_rx_queues`,
/// four once probed).
pub(crate) const STAT_QUEUES: usize = MAX_QUEUES;

/// `igc_gstrings_stats`, in its order; [`values`] fills them in the same order.
const GLOBAL_NAMES: [&CStr; 45] = [
    c"rx_packets",
    c"tx_packets",
    c"rx_bytes",
    c"tx_bytes",
    c"rx_broadcast",
    c"tx_broadcast",
    c"rx_multicast",
    c"tx_multicast",
    c"multicast",
    c"collisions",
    c"rx_crc_errors",
    c"rx_no_buffer_count",
    c"rx_missed_errors",
    c"tx_aborted_errors",
    c"tx_carrier_errors",
    c"tx_window_errors",
    c"tx_abort_late_coll",
    c"tx_deferred_ok",
    c"tx_single_coll_ok",
    c"tx_multi_coll_ok",
    c"tx_timeout_count",
    c"rx_long_length_errors",
    c"rx_short_length_errors",
    c"rx_align_errors",
    c"tx_tcp_seg_good",
    c"tx_tcp_seg_failed",
    c"rx_flow_control_xon",
    c"rx_flow_control_xoff",
    c"tx_flow_control_xon",
    c"tx_flow_control_xoff",
    c"rx_long_byte_count",
    c"tx_dma_out_of_sync",
    c"tx_smbus",
    c"rx_smbus",
    c"dropped_smbus",
    c"os2bmc_rx_by_bmc",
    c"os2bmc_tx_by_bmc",
    c"os2bmc_tx_by_host",
    c"os2bmc_rx_by_host",
    c"tx_hwtstamp_timeouts",
    c"tx_hwtstamp_skipped",
    c"rx_hwtstamp_cleared",
    c"tx_lpi_counter",
    c"rx_lpi_counter",
    c"qbv_config_change_errors",
];

/// `igc_gstrings_net_stats`: the stack's statistics ([`NetStats`]).
const NETDEV_NAMES: [&CStr; 9] = [
    c"rx_errors",
    c"tx_errors",
    c"tx_dropped",
    c"rx_length_errors",
    c"rx_over_errors",
    c"rx_frame_errors",
    c"rx_fifo_errors",
    c"tx_fifo_errors",
    c"tx_heartbeat_errors",
];

/// Counters rigc has and igc does not report, after igc's: TX timestamps delivered, transmits
/// refused for a full ring (`NETDEV_TX_BUSY`), and received frames the driver dropped (error
/// bit in the descriptor, longer than the largest frame, shorter than an Ethernet header).
const RIGC_NAMES: [&CStr; 3] = [c"tx_hwtstamp_completed", c"tx_busy", c"rx_dropped_errors"];

const TX_QUEUE_STATS: usize = 3;
const RX_QUEUE_STATS: usize = 5;
const QUEUES_START: usize = GLOBAL_NAMES.len() + NETDEV_NAMES.len();
const RX_QUEUES_START: usize = QUEUES_START + TX_QUEUE_STATS * STAT_QUEUES;
const RIGC_START: usize = RX_QUEUES_START + RX_QUEUE_STATS * STAT_QUEUES;
const ALL: usize = RIGC_START + RIGC_NAMES.len();

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
    pub(crate) tx_dma_out_of_sync: u64,
    pub(crate) tx_hwtstamp_timeouts: u64,
    pub(crate) tx_hwtstamp_skipped: u64,
    pub(crate) tx_hwtstamp_completed: u64,
}

/// One queue's software counters (`tx_stats`, `rx_stats`).
#[derive(Clone, Copy, Default)]
pub(crate) struct QueueValues {
    pub(crate) tx_packets: u64,
    pub(crate) tx_bytes: u64,
    pub(crate) tx_restart: u64,
    pub(crate) rx_packets: u64,
    pub(crate) rx_bytes: u64,
    pub(crate) rx_csum_err: u64,
    pub(crate) rx_alloc_failed: u64,
}

/// Writes `src` into `all` from `at`, in a constant context.
const fn put(all: &mut [&'static CStr; ALL], at: usize, src: &[&'static CStr]) {
    let mut i = 0;
    while i < src.len() {
        all[at + i] = src[i];
        i += 1;
    }
}

const fn names() -> [&'static CStr; ALL] {
    const TX: [[&CStr; TX_QUEUE_STATS]; 4] = [
        [
            c"tx_queue_0_packets",
            c"tx_queue_0_bytes",
            c"tx_queue_0_restart",
        ],
        [
            c"tx_queue_1_packets",
            c"tx_queue_1_bytes",
            c"tx_queue_1_restart",
        ],
        [
            c"tx_queue_2_packets",
            c"tx_queue_2_bytes",
            c"tx_queue_2_restart",
        ],
        [
            c"tx_queue_3_packets",
            c"tx_queue_3_bytes",
            c"tx_queue_3_restart",
        ],
    ];
    const RX: [[&CStr; RX_QUEUE_STATS]; 4] = [
        [
            c"rx_queue_0_packets",
            c"rx_queue_0_bytes",
            c"rx_queue_0_drops",
            c"rx_queue_0_csum_err",
            c"rx_queue_0_alloc_failed",
        ],
        [
            c"rx_queue_1_packets",
            c"rx_queue_1_bytes",
            c"rx_queue_1_drops",
            c"rx_queue_1_csum_err",
            c"rx_queue_1_alloc_failed",
        ],
        [
            c"rx_queue_2_packets",
            c"rx_queue_2_bytes",
            c"rx_queue_2_drops",
            c"rx_queue_2_csum_err",
            c"rx_queue_2_alloc_failed",
        ],
        [
            c"rx_queue_3_packets",
            c"rx_queue_3_bytes",
            c"rx_queue_3_drops",
            c"rx_queue_3_csum_err",
            c"rx_queue_3_alloc_failed",
        ],
    ];
    let mut all = [c""; ALL];
    put(&mut all, 0, &GLOBAL_NAMES);
    put(&mut all, GLOBAL_NAMES.len(), &NETDEV_NAMES);
    let mut q = 0;
    while q < STAT_QUEUES {
        put(&mut all, QUEUES_START + TX_QUEUE_STATS * q, &TX[q]);
        put(&mut all, RX_QUEUES_START + RX_QUEUE_STATS * q, &RX[q]);
        q += 1;
    }
    put(&mut all, RIGC_START, &RIGC_NAMES);
    all
}

/// Every `ethtool -S` name: igc's, in igc's order (device-wide, the stack's, three per TX
/// queue, five per RX queue), then rigc's own.
pub(crate) static NAMES: [&CStr; ALL] = names();

/// The stack's statistics from the hardware and software counters, computed as
/// `igc_update_stats` fills `stats64` (and as `ndo_get_stats64` reports them).
#[derive(Clone, Copy, Default)]
pub(crate) struct NetStats {
    pub(crate) rx_errors: u64,
    pub(crate) tx_errors: u64,
    pub(crate) tx_dropped: u64,
    pub(crate) rx_length_errors: u64,
    pub(crate) rx_frame_errors: u64,
    pub(crate) rx_fifo_errors: u64,
}

impl NetStats {
    pub(crate) fn new(hw: &HwStats, sw: &SwTotals) -> Self {
        Self {
            // igc: RXERRC (never read) + CRC + alignment + undersize + oversize, then the frames
            // rigc drops itself (`rx.rs`). A bad checksum is not one (the frame goes up
            // unverified, counted in `csum_err` only, as igc).
            rx_errors: hw.crcerrs + hw.algnerrc + hw.ruc + hw.roc + sw.rx_errors,
            tx_errors: hw.ecol + hw.latecol,
            tx_dropped: sw.tx_dropped,
            rx_length_errors: hw.ruc + hw.roc,
            rx_frame_errors: hw.algnerrc,
            rx_fifo_errors: hw.mpc + hw.rqdpc.iter().sum::<u64>(),
        }
    }
}

/// Fills `out` (one value per name of [`NAMES`]). Counters igc reports without ever counting
/// them (TNCRS, TSCTFC, the OS2BMC ones, `rx_hwtstamp_cleared`) are 0, as in igc; so is
/// `qbv_config_change_errors` (no TSN scheduling in rigc).
pub(crate) fn values(hw: &HwStats, sw: &SwTotals, queues: &[QueueValues], out: &mut [u64]) {
    let net = NetStats::new(hw, sw);
    let global: [u64; GLOBAL_NAMES.len()] = [
        hw.gprc,
        hw.gptc,
        hw.gorc,
        hw.gotc,
        hw.bprc,
        hw.bptc,
        hw.mprc,
        hw.mptc,
        hw.mprc,
        hw.colc,
        hw.crcerrs,
        hw.rnbc,
        hw.mpc,
        hw.ecol,
        0,
        hw.latecol,
        hw.latecol,
        hw.dc,
        hw.scc,
        hw.mcc,
        sw.tx_timeouts,
        hw.roc,
        hw.ruc,
        hw.algnerrc,
        hw.tsctc,
        0,
        hw.xonrxc,
        hw.xoffrxc,
        hw.xontxc,
        hw.xofftxc,
        hw.gorc,
        sw.tx_dma_out_of_sync,
        hw.mgptc,
        hw.mgprc,
        hw.mgpdc,
        0,
        0,
        0,
        0,
        sw.tx_hwtstamp_timeouts,
        sw.tx_hwtstamp_skipped,
        0,
        hw.tlpic,
        hw.rlpic,
        0,
    ];
    let netdev: [u64; NETDEV_NAMES.len()] = [
        net.rx_errors,
        net.tx_errors,
        net.tx_dropped,
        net.rx_length_errors,
        0,
        net.rx_frame_errors,
        net.rx_fifo_errors,
        0,
        0,
    ];
    let mut all = [0u64; ALL];
    all[..GLOBAL_NAMES.len()].copy_from_slice(&global);
    all[GLOBAL_NAMES.len()..QUEUES_START].copy_from_slice(&netdev);
    for (q, v) in queues.iter().enumerate().take(STAT_QUEUES) {
        let tx = QUEUES_START + TX_QUEUE_STATS * q;
        all[tx..tx + TX_QUEUE_STATS].copy_from_slice(&[v.tx_packets, v.tx_bytes, v.tx_restart]);
        let rx = RX_QUEUES_START + RX_QUEUE_STATS * q;
        all[rx..rx + RX_QUEUE_STATS].copy_from_slice(&[
            v.rx_packets,
            v.rx_bytes,
            hw.rqdpc[q],
            v.rx_csum_err,
            v.rx_alloc_failed,
        ]);
    }
    all[RIGC_START..].copy_from_slice(&[sw.tx_hwtstamp_completed, sw.tx_busy, sw.rx_errors]);
    for (o, v) in out.iter_mut().zip(all.iter()) {
        *o = *v;
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
            tx_dma_out_of_sync: self.tx_dma_out_of_sync.load(Relaxed),
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
