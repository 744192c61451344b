// SPDX-License-Identifier: GPL-2.0

//! The watchdog and the reset (`igc_main.c`): `igc_watchdog_task` every two seconds (link,
//! statistics, TX timestamp timeout, TX recovery after a link loss) and `igc_reset_task`
//! after a TX hang.

use kernel::{
    net::{dev::Registration, rtnl},
    netdev_err, netdev_warn, new_delayed_work, new_work,
    prelude::*,
    sync::{
        atomic::{Atomic, Relaxed},
        Arc,
    },
    time::{msecs_to_jiffies, Instant, Monotonic},
    workqueue::{self, DelayedWork, Work},
};

use crate::{
    adapter::{Adapter, MAX_QUEUES, WATCHDOG_MS},
    netdev::{down, max_frame, up_with, Reset},
    ptp,
    regs::{CTRL_EXT, STATUS, TDH, TDT},
};

/// The 2-second watchdog (`igc_watchdog_task`): link state, statistics, TX hang recovery.
#[pin_data]
pub(crate) struct Watchdog {
    net: Arc<Registration<Adapter>>,
    pub(crate) gen: u64,
    /// Each TX queue's head (TDH) at the last round, while the hardware had descriptors to
    /// fetch ([`NO_HEAD`] otherwise): only the watchdog's rounds touch them.
    tdh_seen: [Atomic<u32>; MAX_QUEUES],
    #[pin]
    work: DelayedWork<Watchdog>,
}

/// No TX head recorded: the queue had nothing for the hardware at the last round.
const NO_HEAD: u32 = u32::MAX;

/// Beside a head (16 bits): the hang at that head has been reported and the queue stopped.
const REPORTED: u32 = 1 << 16;

kernel::impl_has_delayed_work! {
    impl HasDelayedWork<Self> for Watchdog { self.work }
}

impl Watchdog {
    /// A watchdog for generation `gen`, not yet queued.
    pub(crate) fn new(net: Arc<Registration<Adapter>>, gen: u64) -> Result<Arc<Self>> {
        Arc::pin_init(
            pin_init!(Watchdog {
                net,
                gen,
                tdh_seen: [const { Atomic::new(NO_HEAD) }; MAX_QUEUES],
                work <- new_delayed_work!("rigc_watchdog"),
            }),
            GFP_KERNEL,
        )
    }

    /// Queues the first round.
    pub(crate) fn enqueue(self: Arc<Self>) {
        let _ = workqueue::system_power_efficient()
            .enqueue_delayed(self, msecs_to_jiffies(WATCHDOG_MS));
    }
}

impl workqueue::WorkItem for Watchdog {
    type Pointer = Arc<Watchdog>;

    fn run(this: Arc<Watchdog>) {
        let net = &*this.net;
        if net.watchdog_gen.load(Relaxed) != this.gen {
            return;
        }
        if net.hw.removed() {
            // The device vanished (`igc_rd32`): detach the interface, so the stack stops
            // transmitting, and touch nothing any more. Unbinding frees the rest.
            net.device().detach();
            net.device().carrier_off();
            return;
        }
        net.link_changed(net.device(), &net.link.lock(), false);
        let _ = net.update_stats();
        let expired = net
            .ptp
            .txts
            .lock()
            .expire(&net.hw, net.now_ns(), ptp::TX_TIMEOUT_NS);
        for req in expired.into_iter().flatten() {
            drop(req);
            netdev_warn!(net.device(), "Tx timestamp timeout\n");
        }
        if !net.device().carrier_ok() && tx_pending(net) {
            // The link is gone with packets still on a TX ring: the MAC stopped its DMA and
            // they will never complete. Reset to flush them (`igc_watchdog_task`).
            net.tx_timeouts.fetch_add(1, Relaxed);
            net.schedule_reset();
        } else if net.device().carrier_ok() {
            this.detect_tx_hang(net);
        }
        if net.watchdog_gen.load(Relaxed) == this.gen {
            let _ = workqueue::system_power_efficient()
                .enqueue_delayed(this, msecs_to_jiffies(WATCHDOG_MS));
        }
    }
}

impl Watchdog {
    /// igc's own TX hang check (`IGC_RING_FLAG_TX_DETECT_HANG`, set by every watchdog round
    /// and acted on by `igc_clean_tx_irq`): a queue whose hardware has descriptors to fetch
    /// (TDH != TDT) and fetched none since the last round, 2 s ago, while flow control does not
    /// hold the transmitter (STATUS.TXOFF), is stopped with igc's "Detected Tx Unit Hang", and
    /// the stack's TX timeout resets the adapter 5 s later. Without it, a hung TX unit at a low
    /// packet rate (a PTP master, NTP) is reset only when its ring fills. igc times the oldest
    /// packet itself (its `time_stamp`, a second); rigc reads the heads from the watchdog,
    /// which keeps the check off the transmit path: no timestamp per packet.
    fn detect_tx_hang(&self, net: &Registration<Adapter>) {
        let hw = &net.hw;
        let paused = hw.read(STATUS).txoff();
        for (q, seen) in self.tdh_seen.iter().enumerate() {
            // Under the TX queue's lock, so that a transmit cannot wake the queue again
            // between the check and the stop.
            let Some(txq) = net.tx_queue_lock(q as u16) else {
                continue;
            };
            let pending = txq.as_ref().is_some_and(|r| r.pending());
            let (tdh, tdt) = if pending && !paused {
                (
                    hw.read_at::<TDH>(q).head().get(),
                    hw.read_at::<TDT>(q).tail().get(),
                )
            } else {
                (NO_HEAD, NO_HEAD)
            };
            if tdh == tdt || hw.removed() {
                seen.store(NO_HEAD, Relaxed);
                continue;
            }
            // Once per hang: stopping the queue again stamps its `trans_start`
            // (`netif_tx_stop_queue`), which would keep the stack's TX timeout from ever
            // firing. igc stops it once too: with no completion, no poll checks it again.
            let prev = seen.xchg(tdh, Relaxed);
            if prev & !REPORTED == tdh {
                seen.store(tdh | REPORTED, Relaxed);
            }
            if prev == tdh {
                netdev_err!(
                    net.device(),
                    "Detected Tx Unit Hang\n  Tx Queue             <{}>\n  TDH                  <{:x}>\n  TDT                  <{:x}>\n",
                    q,
                    tdh,
                    tdt
                );
                // "we are about to reset, no point in enabling stuff".
                net.device().stop_subqueue(q as u16);
            }
        }
    }
}

/// Returns whether a TX ring holds packets the hardware has not completed.
pub(crate) fn tx_pending(net: &Registration<Adapter>) -> bool {
    (0..net.queues.len() as u16).any(|q| {
        net.tx_queue_lock(q)
            .is_some_and(|t| t.as_ref().is_some_and(|r| r.pending()))
    })
}

/// A watchdog for the next generation, allocated ahead of bringing the interface up.
pub(crate) fn next_watchdog(net: &Registration<Adapter>) -> Result<Arc<Watchdog>> {
    Watchdog::new(net.arc(), net.watchdog_gen.load(Relaxed) + 1)
}

/// The link check after a link interrupt: flow control, carrier and log line need the PHY,
/// which hard IRQ context cannot wait for (`igc_msix_other` arms the watchdog timer for it).
#[pin_data]
pub(crate) struct LinkTask {
    net: Arc<Registration<Adapter>>,
    #[pin]
    work: Work<LinkTask>,
}

kernel::impl_has_work! {
    impl HasWork<Self> for LinkTask { self.work }
}

impl LinkTask {
    pub(crate) fn new(net: Arc<Registration<Adapter>>) -> Result<Arc<Self>> {
        Arc::pin_init(
            pin_init!(LinkTask {
                net,
                work <- new_work!("rigc_link_task"),
            }),
            GFP_KERNEL,
        )
    }
}

impl workqueue::WorkItem for LinkTask {
    type Pointer = Arc<LinkTask>;

    fn run(this: Arc<LinkTask>) {
        let net = &*this.net;
        // Under the link settings, which bringing the interface down takes to stop the
        // datapath: a check that started before sees it running and finishes before the
        // carrier is turned off; one that starts after does nothing.
        let lc = net.link.lock();
        if net.running.load(Relaxed) {
            net.link_changed(net.device(), &lc, true);
        }
    }
}

/// The reset after a TX hang (`igc_reset_task`), queued by `ndo_tx_timeout` and by the watchdog.
#[pin_data]
pub(crate) struct ResetTask {
    net: Arc<Registration<Adapter>>,
    #[pin]
    work: Work<ResetTask>,
}

kernel::impl_has_work! {
    impl HasWork<Self> for ResetTask { self.work }
}

impl ResetTask {
    pub(crate) fn new(net: Arc<Registration<Adapter>>) -> Result<Arc<Self>> {
        Arc::pin_init(
            pin_init!(ResetTask {
                net,
                work <- new_work!("rigc_reset_task"),
            }),
            GFP_KERNEL,
        )
    }
}

impl workqueue::WorkItem for ResetTask {
    type Pointer = Arc<ResetTask>;

    fn run(this: Arc<ResetTask>) {
        reset_after_hang(&this.net);
    }
}

/// Resets the adapter (`igc_reinit_locked`: `igc_down`, `igc_reset`, `igc_up`) under the RTNL,
/// so that no ndo or ethtool operation runs beside it. The rings are kept: they are emptied by
/// the way down, and the packets they held are dropped.
fn reset_after_hang(net: &Registration<Adapter>) {
    let _rtnl = rtnl::lock();
    let mut cfg = net.cfg.lock();
    // Down, or gone: nothing to reset.
    if !cfg.up || net.hw.removed() {
        return;
    }
    let dev = net.device();
    // Allocated first, so that a failure leaves the interface as it was (the next TX timeout
    // or watchdog round asks again).
    let Ok(wd) = next_watchdog(net) else {
        netdev_err!(dev, "no memory to reset the adapter\n");
        return;
    };
    netdev_err!(dev, "Reset adapter\n");
    // `igc_ptp_time_save`.
    let saved = net.systim_read(None).as_nanos();
    let since = Instant::<Monotonic>::now();
    let rings = down(net, &mut cfg, Reset::Mac);
    net.ptp_restore(saved, since, cfg.queues);
    up_with(net, &mut cfg, rings, wd);
}

/// The MAC part of `igc_reset`: the global reset, then the driver owns the device again, the
/// link is set up and the advertisement restored. The caller has the interface down (or
/// never up) and restores the PHC after. Process context.
pub(crate) fn reset_mac(net: &Registration<Adapter>) {
    let dev = net.device();
    // "record the stats before reset" (`igc_down`): the reset clears the counters the
    // watchdog has not read yet.
    let _ = net.update_stats();
    if let Err(e) = net.hw.reset() {
        netdev_err!(dev, "MAC reset did not complete ({:?})\n", e);
    }
    // The reset loaded the NVM's address into receive address 0: the interface's, which
    // `ip link set address` may have changed, goes back (`igc_init_rx_addrs_base`).
    net.hw.set_rar0(&dev.addr());
    net.hw.update(CTRL_EXT, |c: CTRL_EXT| c.with_drv_load(true));
    let lc = net.link.lock();
    if let Err(e) = net.hw.setup_link(&lc, max_frame(dev.mtu())) {
        netdev_err!(dev, "PHY setup failed ({:?})\n", e);
    }
    // "Re-establish EEE setting".
    net.hw.set_eee(lc.eee);
}

impl Adapter {
    /// Queues the reset after a TX hang, unless unbind has begun. Any context.
    pub(crate) fn schedule_reset(&self) {
        if let Some(task) = self.reset_task.lock().as_ref() {
            // Already queued: that reset will do.
            let _ = workqueue::system().enqueue(task.clone());
        }
    }

    /// Queues the link check after a link interrupt, unless unbind has begun. Any context.
    pub(crate) fn schedule_link_check(&self) {
        if let Some(task) = self.link_task.lock().as_ref() {
            let _ = workqueue::system().enqueue(task.clone());
        }
    }
}
