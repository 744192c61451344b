// SPDX-License-Identifier: GPL-2.0

//! The adapter data (`struct igc_adapter` and the limits in `igc.h`): what the network device,
//! the interrupt handlers, the watchdog and the PTP clock share.

use kernel::{
    devres::Devres,
    pci::{self, IrqHandlers},
    prelude::*,
    sync::{
        aref::ARef,
        atomic::{Atomic, Relaxed},
        Arc, Mutex, SpinLockIrq,
    },
};

use crate::{
    hw::Hw,
    irq,
    phy::LinkConfig,
    probe::PartInfo,
    ptp, rx, stats, tx,
    watchdog::{LinkTask, ResetTask, Watchdog},
};

/// Queue pairs the I225 has (`IGC_MAX_TX_QUEUES`, `IGC_MAX_RX_QUEUES`).
pub(crate) const MAX_QUEUES: usize = 4;
/// Default ring size (`IGC_DEFAULT_TXD`, `IGC_DEFAULT_RXD`).
pub(crate) const DEFAULT_RING: u32 = 256;
/// Ring size limits (`IGC_MIN_TXD` .. `IGC_MAX_TXD`), in steps of 8.
pub(crate) const MIN_RING: u32 = 64;
pub(crate) const MAX_RING: u32 = 4096;
/// Largest MTU: `MAX_STD_JUMBO_FRAME_SIZE`, which igc takes as the MTU (`netdev->max_mtu`).
pub(crate) const MAX_MTU: u32 = 9216;
/// Multicast addresses hashed into the MTA; beyond them, all multicast is received.
pub(crate) const MC_FILTERS: usize = 32;
/// Watchdog period (`igc_watchdog`, 2 s).
pub(crate) const WATCHDOG_MS: u32 = 2000;

/// The counters of one queue pair: a TX and an RX ring, served by one vector and one NAPI
/// context, or by one each ([`irq::Layout`]). The rings themselves are lent by the registration
/// without a driver lock, as igc uses them: the RX ring and the TX ring's completion half
/// (`Operations::NapiData`) to the poll of the NAPI context that serves them, the TX ring
/// (`Operations::TxQueueData`) to `start_xmit`, under the TX queue's lock that the core holds.
#[pin_data]
pub(crate) struct QueuePair {
    pub(crate) index: u16,
    pub(crate) txc: tx::TxCounters,
    pub(crate) rxc: rx::RxCounters,
    /// The EITR value the next interrupt of queue vector `index` writes ([`irq::Layout`]).
    pub(crate) itr: irq::PendingItr,
}

impl QueuePair {
    pub(crate) fn new(index: u16) -> impl PinInit<Self> {
        pin_init!(Self {
            index,
            txc: tx::TxCounters::new(),
            rxc: rx::RxCounters::new(),
            itr: irq::PendingItr::new(),
        })
    }
}

/// Settings changed in process context, and whether the interface is up.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Config {
    pub(crate) up: bool,
    pub(crate) tx_ring: u32,
    pub(crate) rx_ring: u32,
    pub(crate) queues: usize,
}

/// What the receive filter's writers share ([`Adapter::rx_filter`]).
#[derive(Clone, Copy, Default)]
pub(crate) struct RxFilter {
    /// RCTL.EN as it must be: the datapath is up.
    pub(crate) on: bool,
    /// How many times RCTL and the multicast table were written.
    pub(crate) writes: u64,
    /// The offline register test writes its patterns into RCTL and the multicast table:
    /// nobody else writes them meanwhile (the interface comes back up with the filters).
    pub(crate) testing: bool,
}

/// The adapter (`struct igc_adapter`): everything the callbacks, handlers and work items share,
/// grouped by concern. It is the network device's data (`Registration<Adapter>`).
#[pin_data]
pub(crate) struct Adapter {
    // The device.
    pub(crate) hw: Hw,
    pub(crate) pdev: ARef<pci::Device>,
    pub(crate) info: PartInfo,

    // Settings changed in process context, and whether the interface is up.
    #[pin]
    pub(crate) cfg: Mutex<Config>,

    /// The link settings (`phy.rs`), apart from `cfg` so that the link task and the watchdog,
    /// which bringing the interface down waits for, may take them: never held while waiting
    /// for either. Taken after `cfg` when both are.
    #[pin]
    pub(crate) link: Mutex<LinkConfig>,
    /// The flow control resolved at the last link up ([`crate::phy::FcMode`]), for `ethtool -a`.
    pub(crate) fc_current: Atomic<u32>,

    // Interrupts: the handlers probe requested, and the vector layout it found (see
    // [`Adapter::mode`]).
    #[pin]
    pub(crate) irqs: Mutex<Option<Devres<Mutex<IrqHandlers<irq::Handler>>>>>,
    pub(crate) mode: Atomic<u32>,
    pub(crate) queue_vectors: Atomic<u32>,

    /// RCTL's writers serialise here: `start_hw` and `stop_hw` switch receive on and off,
    /// `set_rx_mode` (which runs without the RTNL, under the address list's lock only) and
    /// `configure_mac` write the filters.
    #[pin]
    pub(crate) rx_filter: SpinLockIrq<RxFilter>,

    // The datapath.
    pub(crate) queues: KVec<Pin<KBox<QueuePair>>>,
    /// The datapath runs: completed polls may re-enable their interrupt.
    pub(crate) running: Atomic<bool>,
    /// The link speed, for the PTP latencies; 0 while the link is down.
    pub(crate) link_mbps: Atomic<u32>,

    // Statistics (`stats.rs`).
    #[pin]
    pub(crate) hwstats: Mutex<stats::HwStats>,
    /// A copy of `hwstats` for `ndo_get_stats64`, which may not sleep.
    #[pin]
    pub(crate) hwstats_copy: SpinLockIrq<stats::HwStats>,
    pub(crate) tx_timeouts: Atomic<u64>,
    /// ICR.DOUTSYNC interrupts (`stats.doosync`).
    pub(crate) tx_dma_out_of_sync: Atomic<u64>,

    // The watchdog and the reset (`watchdog.rs`).
    pub(crate) watchdog_gen: Atomic<u64>,
    /// The armed watchdog while the interface is up.
    #[pin]
    pub(crate) watchdog: Mutex<Option<Arc<Watchdog>>>,
    /// The reset after a TX hang (`igc_reset_task`), from the end of probe until unbind takes
    /// it out: nothing queues it after that.
    #[pin]
    pub(crate) reset_task: SpinLockIrq<Option<Arc<ResetTask>>>,
    /// The link check the link interrupt queues (`igc_msix_other` arming the watchdog timer),
    /// from the end of probe until unbind takes it out.
    #[pin]
    pub(crate) link_task: SpinLockIrq<Option<Arc<LinkTask>>>,

    /// What a suspend keeps for the resume (`pm.rs`), from one to the other.
    #[pin]
    pub(crate) asleep: Mutex<Option<crate::pm::Asleep>>,

    // The PTP clock and timestamping (`ptp.rs`).
    #[pin]
    pub(crate) ptp: ptp::Ptp,
}

impl Adapter {
    /// The interrupt layout.
    pub(crate) fn mode(&self) -> irq::Mode {
        match self.mode.load(Relaxed) {
            0 => irq::Mode::Single,
            _ => irq::Mode::MsiX {
                queue_vectors: self.queue_vectors.load(Relaxed) as usize,
            },
        }
    }
}
