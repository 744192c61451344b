// SPDX-License-Identifier: GPL-2.0

//! rigc: a Rust driver for the Intel(R) Ethernet Controller I225/I226 family (2.5 GbE).
//!
//! The hardware and its sequences follow the C `igc` driver; the ownership and execution-context
//! rules are in `docs/design.md` of the rigc repository.

use kernel::{
    device::{self, Core},
    io::Io,
    net::{
        dev::{
            self, features, flags, hwtstamp, Device, HwTstampConfig, McList, NapiPoll, Poll,
            Registration, Stats64, Xmit,
        },
        ethtool::{
            sof, Channels, DrvInfo, LinkMode, LinkSettings, RingParam, TsInfo, SPEED_UNKNOWN,
        },
        rtnl,
        skb::{CompletedTxSkb, MappedTxSkb, RxSkb, TstampSkb, TxSkb},
    },
    new_delayed_work, new_mutex, new_spinlock_irq, new_work, pci,
    prelude::*,
    str::CStr,
    sync::{
        aref::ARef,
        atomic::{Atomic, Relaxed},
        Arc, Mutex, SpinLockIrq,
    },
    time::{msecs_to_jiffies, Instant, Monotonic},
    workqueue::{self, DelayedWork, Work},
};

mod batch;
mod hw;
mod irq;
mod ptp;
mod regs;
mod rx;
mod stats;
mod tx;

use batch::Batch;
use hw::{Advertise, Hw};
use regs::{bits, off};
use rx::RxRing;
use tx::TxRing;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    I225,
    I226,
    Other,
}

#[derive(Clone, Copy, Debug)]
struct PartInfo {
    name: &'static str,
    family: Family,
}

const fn part(name: &'static str, family: Family) -> PartInfo {
    PartInfo { name, family }
}

kernel::pci_device_table!(
    PCI_TABLE,
    <RigcDriver as pci::Driver>::IdInfo,
    [
        (intel(0x15F2), part("I225-LM", Family::I225)),
        (intel(0x15F3), part("I225-V", Family::I225)),
        (intel(0x15F8), part("I225-I", Family::I225)),
        (intel(0x15F7), part("I220-V", Family::Other)),
        (intel(0x3100), part("I225-K", Family::I225)),
        (intel(0x3101), part("I225-K2", Family::I225)),
        (intel(0x3102), part("I226-K", Family::I226)),
        (intel(0x5502), part("I225-LMvP", Family::I225)),
        (intel(0x5503), part("I226-LMvP", Family::Other)),
        (intel(0x0D9F), part("I225-IT", Family::I225)),
        (intel(0x125B), part("I226-LM", Family::I226)),
        (intel(0x125C), part("I226-V", Family::I226)),
        (intel(0x125D), part("I226-IT", Family::I226)),
        (intel(0x125E), part("I221-V", Family::Other)),
        (intel(0x125F), part("I226 (blank NVM)", Family::Other)),
        (intel(0x15FD), part("I225 (blank NVM)", Family::Other)),
    ]
);

const fn intel(device: u32) -> pci::DeviceId {
    pci::DeviceId::from_id(pci::Vendor::INTEL, device)
}

/// Queue pairs the I225 has (`IGC_MAX_TX_QUEUES`, `IGC_MAX_RX_QUEUES`).
const MAX_QUEUES: usize = 4;
/// Default ring size (`IGC_DEFAULT_TXD`, `IGC_DEFAULT_RXD`).
const DEFAULT_RING: u32 = 256;
/// Ring size limits (`IGC_MIN_TXD` .. `IGC_MAX_TXD`), in steps of 8.
const MIN_RING: u32 = 64;
const MAX_RING: u32 = 4096;
/// Largest MTU: `MAX_STD_JUMBO_FRAME_SIZE`, which igc takes as the MTU (`netdev->max_mtu`).
const MAX_MTU: u32 = 9216;
/// Multicast addresses hashed into the MTA; beyond them, all multicast is received.
const MC_FILTERS: usize = 32;
/// Watchdog period (`igc_watchdog`, 2 s).
const WATCHDOG_MS: u32 = 2000;

/// The counters of one queue pair: a TX and an RX ring served by one vector and one NAPI
/// context. The rings themselves are lent by the registration without a driver lock, as igc
/// uses them: the RX ring (`Operations::NapiData`) to the poll of its NAPI context, the TX ring
/// (`Operations::TxQueueData`) under its TX queue's lock, which the core holds in `start_xmit`
/// and the poll takes for the TX clean.
#[pin_data]
struct QueuePair {
    index: u16,
    txc: tx::TxCounters,
    rxc: rx::RxCounters,
}

impl QueuePair {
    fn new(index: u16) -> impl PinInit<Self> {
        pin_init!(Self {
            index,
            txc: tx::TxCounters::new(),
            rxc: rx::RxCounters::new(),
        })
    }
}

/// Settings changed in process context, and whether the interface is up.
#[derive(Clone, Copy)]
struct Config {
    up: bool,
    tx_ring: u32,
    rx_ring: u32,
    queues: usize,
    advertise: Advertise,
}

/// The network device's data: everything the callbacks, handlers and watchdog share.
#[pin_data]
pub(crate) struct Net {
    hw: Hw,
    pdev: ARef<pci::Device>,
    info: PartInfo,
    queues: KVec<Pin<KBox<QueuePair>>>,
    #[pin]
    cfg: Mutex<Config>,
    mode: Atomic<u32>,
    queue_vectors: Atomic<u32>,
    #[pin]
    hwstats: Mutex<stats::HwStats>,
    /// A copy of `hwstats` for `ndo_get_stats64`, which may not sleep.
    #[pin]
    hwstats_copy: SpinLockIrq<stats::HwStats>,
    watchdog_gen: Atomic<u64>,
    /// The armed watchdog while the interface is up.
    #[pin]
    watchdog: Mutex<Option<Arc<Watchdog>>>,
    /// The datapath runs: completed polls may re-enable their interrupt.
    running: Atomic<bool>,
    tx_timeouts: Atomic<u64>,
    /// The reset after a TX hang (`igc_reset_task`), from the end of probe until unbind takes
    /// it out: nothing queues it after that.
    #[pin]
    reset_task: SpinLockIrq<Option<Arc<ResetTask>>>,
    link_mbps: Atomic<u32>,
    /// Serialises SYSTIM and TIMINCA accesses (SYSTIML latches SYSTIMH), `tmreg_lock` in igc.
    #[pin]
    systim_lock: SpinLockIrq<()>,
    /// The last rate written to TIMINCA (`adjfine`), restored after a MAC reset.
    timinca: Atomic<u32>,
    /// The single-slot TX timestamp state (see `ptp.rs`).
    #[pin]
    txts: SpinLockIrq<ptp::TxSlot<TstampSkb>>,
    /// Timestamping configuration: the fast paths read only these flags.
    tx_tstamp_on: Atomic<bool>,
    rx_tstamp_on: Atomic<bool>,
    /// The index of the PTP clock (`/dev/ptpN`), -1 before it is registered.
    phc_index: Atomic<i32>,
    /// Time origin of the slot's claim times.
    t0: Instant<Monotonic>,
}

impl Net {
    fn mode(&self) -> irq::Mode {
        match self.mode.load(Relaxed) {
            0 => irq::Mode::Single,
            _ => irq::Mode::MsiX {
                queue_vectors: self.queue_vectors.load(Relaxed) as usize,
            },
        }
    }

    /// Reports a link change (from the link interrupt or the watchdog): carrier and a log line
    /// as igc prints it. Any context.
    fn link_changed(&self, dev: &Device) {
        let link = self.hw.link();
        let mbps = link.map_or(0, |l| l.mbps);
        let old = self.link_mbps.load(Relaxed);
        self.link_mbps.store(mbps, Relaxed);
        match link {
            Some(l) => {
                if !dev.carrier_ok() || old != l.mbps {
                    pr_info!(
                        "{}: NIC Link is Up {} Mbps {} Duplex\n",
                        dev.name(),
                        l.mbps,
                        if l.full_duplex { "Full" } else { "Half" }
                    );
                }
                dev.carrier_on();
            }
            None => {
                if dev.carrier_ok() {
                    pr_info!("{}: NIC Link is Down\n", dev.name());
                }
                dev.carrier_off();
            }
        }
    }

    /// Refreshes the hardware counters. Process context: takes the mutex, reads the registers,
    /// then publishes a copy under the spinlock without touching the hardware.
    fn update_stats(&self) -> stats::HwStats {
        let mut s = self.hwstats.lock();
        s.update(&self.hw);
        let copy = *s;
        drop(s);
        *self.hwstats_copy.lock() = copy;
        copy
    }

    fn sw_totals(&self) -> stats::SwTotals {
        let ts = self.txts.lock().counters;
        let mut t = stats::SwTotals {
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

    /// Programs the MAC for receive and transmit (`igc_configure`, `igc_setup_rctl`,
    /// `igc_setup_tctl`, `igc_setup_mrqc`) for `queues` queue pairs.
    fn configure_mac(&self, dev: &Device, queues: usize) {
        let hw = &self.hw;
        hw.set_rar0(&dev.addr());
        hw.wr(
            off::TCTL,
            bits::TCTL_PSP | bits::TCTL_RTLC | bits::TCTL_CT_15,
        );
        // RSS: the key, and the 128-entry table spread over the queues.
        const KEY: [u32; 10] = [
            0xda565a6d, 0xc20e5b25, 0x3d256741, 0xb08fa343, 0xcb2bcad0, 0xb4307bae, 0xa32dcb77,
            0x0cf23080, 0x3bb7426a, 0xfa01acbe,
        ];
        for (i, k) in KEY.iter().enumerate() {
            hw.wr(off::rssrk(i), *k);
        }
        for r in 0..32 {
            let mut v = 0u32;
            for b in 0..4 {
                let entry = r * 4 + b;
                v |= ((entry * queues / 128) as u32) << (8 * b);
            }
            hw.wr(off::reta(r), v);
        }
        hw.wr(
            off::RXCSUM,
            bits::RXCSUM_PCSD | bits::RXCSUM_TUOFL | bits::RXCSUM_IPOFL,
        );
        let mrqc = bits::MRQC_RSS_FIELD_IPV4
            | bits::MRQC_RSS_FIELD_IPV4_TCP
            | bits::MRQC_RSS_FIELD_IPV6
            | bits::MRQC_RSS_FIELD_IPV6_TCP
            | bits::MRQC_RSS_FIELD_IPV6_TCP_EX
            | if queues > 1 {
                bits::MRQC_ENABLE_RSS_MQ
            } else {
                0
            };
        hw.wr(off::MRQC, mrqc);
        hw.wr(off::RLPML, dev.mtu() + 14 + 4 + 4);
        let mut addrs = [[0u8; 6]; MC_FILTERS];
        let n = dev.mc_addrs(&mut addrs);
        self.write_rx_mode(dev, &addrs, n);
    }

    /// Unicast/multicast promiscuity and the multicast hash table (`igc_set_rx_mode`,
    /// `igc_hash_mc_addr`).
    fn write_rx_mode(&self, dev: &Device, addrs: &[[u8; 6]; MC_FILTERS], n: usize) {
        let hw = &self.hw;
        let f = dev.flags();
        let mut rctl = bits::RCTL_EN | bits::RCTL_BAM | bits::RCTL_SECRC | bits::RCTL_LPE;
        if f & flags::PROMISC != 0 {
            rctl |= bits::RCTL_UPE | bits::RCTL_MPE;
        } else if f & flags::ALLMULTI != 0 || n > addrs.len() {
            rctl |= bits::RCTL_MPE;
        }
        let mut mta = [0u32; 128];
        for a in addrs.iter().take(n.min(addrs.len())) {
            let hash = (u32::from(a[4]) >> 4 | u32::from(a[5]) << 4) & 0xFFF;
            mta[(hash >> 5) as usize & 127] |= 1 << (hash & 0x1F);
        }
        for (i, v) in mta.iter().enumerate() {
            hw.wr(off::mta(i), *v);
        }
        hw.wr(off::RCTL, rctl);
    }
}

impl Net {
    /// Nanoseconds since probe, for the TX timestamp slot's claim times.
    fn now_ns(&self) -> u64 {
        self.t0.elapsed().as_nanos().max(0) as u64
    }

    /// The time-sync interrupt (ICR.TS): reads TSICR once (it clears on read) and, for a TX
    /// timestamp, reads it out and completes the waiting skb right here, in hard-IRQ context.
    fn tsync_interrupt(&self) {
        let tsicr = self.hw.rd(ptp::r::TSICR);
        if tsicr & ptp::r::TSICR_TXTS == 0 || tsicr == u32::MAX {
            return;
        }
        let done = self.txts.lock().on_interrupt(&self.hw);
        if let Some((skb, ns)) = done {
            let mbps = self.link_mbps.load(Relaxed);
            skb.complete(ns + ptp::tx_latency_ns(mbps));
        }
    }

    /// Queues the reset after a TX hang, unless unbind has begun. Any context.
    fn schedule_reset(&self) {
        if let Some(task) = self.reset_task.lock().as_ref() {
            // Already queued: that reset will do.
            let _ = workqueue::system().enqueue(task.clone());
        }
    }

    /// Reprograms the PTP side after a MAC reset (`igc_ptp_reset` with
    /// `igc_ptp_time_restore`): the clock set to the time saved before the reset plus the time
    /// the reset took, its last rate, and the timestamping configuration.
    fn ptp_restore(&self, saved_ns: i64, since: Instant<Monotonic>, queues: usize) {
        self.hw.wr(ptp::r::TSAUXC, 0);
        self.hw.wr(ptp::r::TSIM, ptp::r::TSICR_TXTS);
        {
            let _g = self.systim_lock.lock();
            self.hw.wr(ptp::r::TIMINCA, self.timinca.load(Relaxed));
        }
        let elapsed = since.elapsed().as_nanos();
        self.systim_write(kernel::ptp::Timespec::from_nanos(
            saved_ns.saturating_add(elapsed),
        ));
        if self.tx_tstamp_on.load(Relaxed) {
            self.write_tx_tstamp_on();
        }
        if self.rx_tstamp_on.load(Relaxed) {
            self.set_rx_tstamp(true, queues);
        }
    }

    /// The RX latency to subtract from RX timestamps while they are on.
    fn rx_tstamp(&self) -> Option<u64> {
        self.rx_tstamp_on
            .load(Relaxed)
            .then(|| ptp::rx_latency_ns(self.link_mbps.load(Relaxed)))
    }

    /// Reads SYSTIM (`igc_ptp_read`), with system timestamps around the latching read.
    fn systim_read(
        &self,
        sts: Option<&mut kernel::ptp::SystemTimestamps>,
    ) -> kernel::ptp::Timespec {
        let _g = self.systim_lock.lock();
        let (lo, hi) = match sts {
            Some(sts) => {
                sts.pre();
                let lo = self.hw.rd(ptp::r::SYSTIML);
                let hi = self.hw.rd(ptp::r::SYSTIMH);
                sts.post();
                (lo, hi)
            }
            None => (self.hw.rd(ptp::r::SYSTIML), self.hw.rd(ptp::r::SYSTIMH)),
        };
        kernel::ptp::Timespec {
            sec: i64::from(hi),
            nsec: i64::from(lo),
        }
    }

    /// Writes SYSTIM (`igc_ptp_write_i225`).
    fn systim_write(&self, ts: kernel::ptp::Timespec) {
        let _g = self.systim_lock.lock();
        self.hw.wr(ptp::r::SYSTIML, ts.nsec as u32);
        self.hw.wr(ptp::r::SYSTIMH, ts.sec as u32);
    }

    /// Starts the clock and the TX timestamp interrupt (`igc_ptp_reset`), the clock set to the
    /// system's real time.
    fn ptp_reset(&self) {
        self.hw.wr(ptp::r::TSAUXC, 0);
        self.hw.wr(ptp::r::TSIM, ptp::r::TSICR_TXTS);
        self.systim_write(kernel::ptp::realtime());
    }

    /// Switches TX timestamping (`igc_ptp_enable_tx_timestamp` and its disable counterpart).
    fn set_tx_tstamp(&self, on: bool) {
        if on {
            // Only an off -> on switch discards a stale timestamp: when timestamping is already
            // on (every ptp4l or chronyd start sets it again), a request may be waiting for the
            // timestamp that has latched, and reading it out here would lose it.
            if self.tx_tstamp_on.load(Relaxed) {
                return;
            }
            self.write_tx_tstamp_on();
            self.tx_tstamp_on.store(true, Relaxed);
        } else {
            // The flag is cleared and the slot cancelled under the slot's lock, which `claim`
            // tests the flag under too.
            let req = {
                let mut slot = self.txts.lock();
                self.tx_tstamp_on.store(false, Relaxed);
                slot.cancel(&self.hw)
            };
            drop(req);
            self.hw.wr(ptp::r::TSYNCTXCTL, 0);
        }
    }

    /// Turns TX timestamping on in the hardware and discards a timestamp left from before.
    fn write_tx_tstamp_on(&self) {
        self.hw.wr(
            ptp::r::TSYNCTXCTL,
            ptp::r::TSYNCTXCTL_ENABLED | ptp::r::TSYNCTXCTL_TXSYNSIG,
        );
        let _ = self.hw.rd(ptp::r::txstmpl(0));
        let _ = self.hw.rd(ptp::r::txstmph(0));
    }

    /// Switches RX timestamping (`igc_ptp_enable_rx_timestamp` and its disable counterpart).
    fn set_rx_tstamp(&self, on: bool, queues: usize) {
        let ts = ptp::r::SRRCTL_TIMER1SEL_1 | ptp::r::SRRCTL_TIMESTAMP;
        if on {
            self.hw.set_bits(ptp::r::RXPBS, ptp::r::RXPBS_CFG_TS_EN);
            for q in 0..queues {
                self.hw.set_bits(off::srrctl(q), ts);
            }
            self.hw.wr(
                ptp::r::TSYNCRXCTL,
                ptp::r::TSYNCRXCTL_ENABLED
                    | ptp::r::TSYNCRXCTL_TYPE_ALL
                    | ptp::r::TSYNCRXCTL_RXSYNSIG,
            );
        } else {
            self.hw.wr(ptp::r::TSYNCRXCTL, 0);
            for q in 0..queues {
                self.hw.clear_bits(off::srrctl(q), ts);
            }
            self.hw.clear_bits(ptp::r::RXPBS, ptp::r::RXPBS_CFG_TS_EN);
        }
        self.rx_tstamp_on.store(on, Relaxed);
    }
}

impl tx::TxTstamp for Net {
    fn claim(&self, skb: &mut MappedTxSkb) -> Option<(u32, ptp::ClaimId)> {
        if !self.tx_tstamp_on.load(Relaxed) || !skb.skb().hw_tstamp_requested() {
            return None;
        }
        let mut slot = self.txts.lock();
        // Tested again under the lock: switching TX timestamping off stores the flag and
        // cancels the slot under this lock, so no claim can slip in after the cancel.
        if !self.tx_tstamp_on.load(Relaxed) {
            return None;
        }
        if slot.busy() {
            // Counted as skipped; the packet goes out without a hardware timestamp.
            slot.skip();
            return None;
        }
        let set = slot.set() as u32;
        // The skb reference and the claim time are published together, under the lock.
        let id = slot.claim(skb.start_hw_tstamp(), self.now_ns()).ok()?;
        Some((
            ptp::r::TXD_MAC_TSTAMP | set << ptp::r::TXD_TSTAMP_REG_SHIFT,
            id,
        ))
    }

    fn unclaim(&self, claim: ptp::ClaimId) {
        let req = self.txts.lock().unclaim(claim);
        drop(req);
    }
}

/// The PTP hardware clock's operations (`igc_ptp_*_i225`).
struct PtpClock {
    net: Arc<Registration<Net>>,
}

#[vtable]
impl kernel::ptp::Operations for PtpClock {
    fn gettimex64(&self, sts: &mut kernel::ptp::SystemTimestamps) -> Result<kernel::ptp::Timespec> {
        let t = self.net.systim_read(Some(sts));
        // A vanished device reads all ones: no time, rather than an invalid timespec.
        if self.net.hw.removed() {
            return Err(ENODEV);
        }
        Ok(t)
    }

    fn settime64(&self, ts: kernel::ptp::Timespec) -> Result {
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
        let inc = ptp::timinca(scaled_ppm);
        let _g = self.net.systim_lock.lock();
        self.net.timinca.store(inc, Relaxed);
        self.net.hw.wr(ptp::r::TIMINCA, inc);
        Ok(())
    }

    fn adjtime(&self, delta: i64) -> Result {
        let _g = self.net.systim_lock.lock();
        let now = kernel::ptp::Timespec {
            nsec: i64::from(self.net.hw.rd(ptp::r::SYSTIML)),
            sec: i64::from(self.net.hw.rd(ptp::r::SYSTIMH)),
        };
        if self.net.hw.removed() {
            return Err(ENODEV);
        }
        let t = kernel::ptp::Timespec::from_nanos(now.as_nanos().saturating_add(delta));
        self.net.hw.wr(ptp::r::SYSTIML, t.nsec as u32);
        self.net.hw.wr(ptp::r::SYSTIMH, t.sec as u32);
        Ok(())
    }
}

/// The rings of the queue pairs, outside the queue pairs: allocated and not yet installed, or
/// taken out at ifdown. A fixed array, so that moving rings in and out never allocates.
type Rings = [Option<(TxRing, RxRing)>; MAX_QUEUES];

/// Allocates the rings `cfg` asks for. Nothing is installed: on an error, what was allocated is
/// freed here and the interface is untouched.
fn alloc_rings(parent: &device::Device<device::Bound>, cfg: &Config) -> Result<Rings> {
    let mut rings: Rings = [const { None }; MAX_QUEUES];
    for (q, slot) in rings.iter_mut().enumerate().take(cfg.queues) {
        let txr = TxRing::new(parent, q as u16, cfg.tx_ring)?;
        let rxr = RxRing::new(parent, q as u16, cfg.rx_ring)?;
        *slot = Some((txr, rxr));
    }
    Ok(rings)
}

/// Installs `rings` in the queue pairs; returns the rings they held.
fn install_rings(net: &Registration<Net>, mut rings: Rings) -> Rings {
    for (qp, slot) in net.queues.iter().zip(rings.iter_mut()) {
        let (tx, rx) = match slot.take() {
            Some((t, r)) => (Some(t), Some(r)),
            None => (None, None),
        };
        // The interface is down: the TX queue lock and the disabled NAPI context are free.
        let old_tx = net
            .tx_queue_lock(qp.index)
            .and_then(|mut t| core::mem::replace(&mut *t, tx));
        let old_rx = net
            .napi_off(usize::from(qp.index))
            .and_then(|mut r| core::mem::replace(&mut *r, rx));
        if let (Some(t), Some(r)) = (old_tx, old_rx) {
            *slot = Some((t, r));
        }
    }
    rings
}

/// Returns whether a TX ring holds packets the hardware has not completed.
fn tx_pending(net: &Registration<Net>) -> bool {
    (0..net.queues.len() as u16).any(|q| {
        net.tx_queue_lock(q)
            .is_some_and(|t| t.as_ref().is_some_and(|r| r.pending()))
    })
}

/// Starts the interface with `rings` and the watchdog `wd` (`__igc_open` after its
/// allocations): hardware programming, interrupts, NAPI, queues, watchdog. Cannot fail: the
/// callers allocate everything first, so an error leaves the interface down and untouched, with
/// nothing to undo (in particular no NAPI is disabled that was never enabled).
fn up_with(net: &Registration<Net>, cfg: &mut Config, rings: Rings, wd: Arc<Watchdog>) {
    drop(install_rings(net, rings));
    net.watchdog_gen.store(wd.gen, Relaxed);
    start_hw(net, net.device(), cfg.queues);
    cfg.up = true;
    *net.watchdog.lock() = Some(wd.clone());
    wd.enqueue();
}

/// A watchdog for the next generation, allocated ahead of bringing the interface up.
fn next_watchdog(net: &Registration<Net>) -> Result<Arc<Watchdog>> {
    Watchdog::new(net.arc(), net.watchdog_gen.load(Relaxed) + 1)
}

/// Brings the interface up: rings for the configured queues and a watchdog, then [`up_with`].
fn up(net: &Registration<Net>, parent: &device::Device<device::Bound>, cfg: &mut Config) -> Result {
    let rings = alloc_rings(parent, cfg)?;
    let wd = next_watchdog(net)?;
    up_with(net, cfg, rings, wd);
    Ok(())
}

/// Programs the hardware for rings that exist and starts the datapath.
fn start_hw(net: &Registration<Net>, dev: &Device, nq: usize) {
    let hw = &net.hw;
    let mode = net.mode();
    net.configure_mac(dev, nq);
    for q in 0..nq {
        if let Some(Some(r)) = net.tx_queue_lock(q as u16).as_deref() {
            r.configure(hw);
        }
        // Disabled until `napi_enable` below.
        if let Some(Some(r)) = net.napi_off(q).as_deref() {
            r.configure(hw, net.rx_tstamp_on.load(Relaxed));
        }
    }
    hw.set_bits(off::TCTL, bits::TCTL_EN);
    irq::configure(hw, mode, nq);
    net.running.store(true, Relaxed);
    for i in 0..nq {
        net.napi_enable(i);
    }
    // Causes that arrived while masked are dropped: the link is read below.
    let _ = hw.rd(off::ICR);
    irq::enable(hw, mode);
    dev.tx_start_all_queues();
    net.link_changed(dev);
}

/// Stops the datapath and the hardware; the rings stay allocated and are emptied.
fn stop_hw(net: &Registration<Net>, dev: &Device, nq: usize) {
    let hw = &net.hw;
    net.running.store(false, Relaxed);
    dev.tx_disable();
    hw.clear_bits(off::RCTL, bits::RCTL_EN);
    irq::disable(hw, net.mode());
    // Wait for handlers already running on other CPUs: none touches the carrier or re-enables
    // a cause after this (`synchronize_irq` in `igc_irq_disable`).
    net.pdev.synchronize_irqs();
    for i in 0..nq {
        net.napi_disable(i);
    }
    for q in 0..nq {
        if let Some(Some(r)) = net.tx_queue_lock(q as u16).as_deref() {
            r.disable(hw);
        }
        if let Some(Some(r)) = net.napi_off(q).as_deref() {
            r.disable(hw);
        }
    }
    hw.clear_bits(off::TCTL, bits::TCTL_EN);
    hw.flush();
    // Frames already in the FIFOs finish their DMA: 10 ms, as `igc_down` sleeps (a 9 KiB frame
    // at 10 Mb/s takes 7.4 ms); only then are the buffers reset or freed.
    kernel::time::delay::fsleep(kernel::time::Delta::from_millis(10));
    dev.carrier_off();
    for q in 0..nq {
        if let Some(Some(r)) = net.tx_queue_lock(q as u16).as_deref_mut() {
            r.clear(dev);
        }
        if let Some(Some(r)) = net.napi_off(q).as_deref_mut() {
            r.reset();
        }
    }
}

/// Brings the interface down (`__igc_close`) and returns its rings, stopped and emptied, for
/// the caller to free or to bring back up.
fn down(net: &Registration<Net>, cfg: &mut Config) -> Rings {
    let dev = net.device();
    net.watchdog_gen.fetch_add(1, Relaxed);
    if let Some(w) = net.watchdog.lock().take() {
        // The watchdog only try-locks `cfg`, so waiting for it here cannot deadlock.
        workqueue::cancel_delayed_work_sync(&w);
    }
    stop_hw(net, dev, cfg.queues);
    // A TX timestamp request cannot complete any more: free it.
    let req = net.txts.lock().cancel(&net.hw);
    drop(req);
    cfg.up = false;
    // Take the rings out under their locks, free them after: freeing coherent DMA memory (and
    // unmapping pages) must not happen with interrupts disabled.
    install_rings(net, [const { None }; MAX_QUEUES])
}

/// The 2-second watchdog (`igc_watchdog_task`): link state, statistics, TX hang recovery.
#[pin_data]
struct Watchdog {
    net: Arc<Registration<Net>>,
    gen: u64,
    #[pin]
    work: DelayedWork<Watchdog>,
}

kernel::impl_has_delayed_work! {
    impl HasDelayedWork<Self> for Watchdog { self.work }
}

impl Watchdog {
    /// A watchdog for generation `gen`, not yet queued.
    fn new(net: Arc<Registration<Net>>, gen: u64) -> Result<Arc<Self>> {
        Arc::pin_init(
            pin_init!(Watchdog {
                net,
                gen,
                work <- new_delayed_work!("rigc_watchdog"),
            }),
            GFP_KERNEL,
        )
    }

    /// Queues the first round.
    fn enqueue(self: Arc<Self>) {
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
        net.link_changed(net.device());
        let _ = net.update_stats();
        let expired = net
            .txts
            .lock()
            .expire(&net.hw, net.now_ns(), ptp::TX_TIMEOUT_NS);
        if let Some(req) = expired {
            drop(req);
            pr_warn!("{}: Tx timestamp timeout\n", net.device().name());
        }
        if !net.device().carrier_ok() && tx_pending(net) {
            // The link is gone with packets still on a TX ring: the MAC stopped its DMA and
            // they will never complete. Reset to flush them (`igc_watchdog_task`).
            net.tx_timeouts.fetch_add(1, Relaxed);
            net.schedule_reset();
        }
        if net.watchdog_gen.load(Relaxed) == this.gen {
            let _ = workqueue::system_power_efficient()
                .enqueue_delayed(this, msecs_to_jiffies(WATCHDOG_MS));
        }
    }
}

/// The reset after a TX hang (`igc_reset_task`), queued by `ndo_tx_timeout` and by the watchdog.
#[pin_data]
struct ResetTask {
    net: Arc<Registration<Net>>,
    #[pin]
    work: Work<ResetTask>,
}

kernel::impl_has_work! {
    impl HasWork<Self> for ResetTask { self.work }
}

impl ResetTask {
    fn new(net: Arc<Registration<Net>>) -> Result<Arc<Self>> {
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
fn reset_after_hang(net: &Registration<Net>) {
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
        pr_err!("{}: no memory to reset the adapter\n", dev.name());
        return;
    };
    pr_err!("{}: Reset adapter\n", dev.name());
    // `igc_ptp_time_save`.
    let saved = net.systim_read(None).as_nanos();
    let since = Instant::<Monotonic>::now();
    let rings = down(net, &mut cfg);
    if let Err(e) = net.hw.reset() {
        pr_err!("{}: MAC reset did not complete ({:?})\n", dev.name(), e);
    }
    // `igc_reset` after `reset_hw`: the driver owns the device, link up, the advertisement.
    net.hw.set_bits(off::CTRL_EXT, bits::CTRL_EXT_DRV_LOAD);
    net.hw.set_bits(off::CTRL, bits::CTRL_SLU);
    if let Err(e) = net.hw.advertise(cfg.advertise) {
        pr_err!("{}: PHY setup failed ({:?})\n", dev.name(), e);
    }
    net.ptp_restore(saved, since, cfg.queues);
    up_with(net, &mut cfg, rings, wd);
}

fn link_mode_speed(ks: &LinkSettings, adv: &mut Advertise) {
    adv.m10_half = ks.advertising(LinkMode::T10Half);
    adv.m10 = ks.advertising(LinkMode::T10Full);
    adv.m100_half = ks.advertising(LinkMode::T100Half);
    adv.m100 = ks.advertising(LinkMode::T100Full);
    adv.m1000 = ks.advertising(LinkMode::T1000Full);
    adv.m2500 = ks.advertising(LinkMode::T2500Full);
}

/// Restarts the interface with new settings, if it is up (`igc_set_ringparam`,
/// `igc_set_channels`). Transactional: the new rings are allocated while the old ones still
/// run, and on any error the interface keeps its old settings and rings, up as before.
fn reconfigure(
    net: &Registration<Net>,
    parent: &device::Device<device::Bound>,
    change: impl FnOnce(&mut Config),
) -> Result {
    let mut cfg = net.cfg.lock();
    let old = *cfg;
    let mut new = old;
    change(&mut new);
    if !cfg.up {
        net.set_real_num_queues(new.queues as u32, new.queues as u32)?;
        *cfg = new;
        return Ok(());
    }
    let rings = alloc_rings(parent, &new)?;
    let wd = next_watchdog(net)?;
    let old_rings = down(net, &mut cfg);
    let (rings, result) = match net.set_real_num_queues(new.queues as u32, new.queues as u32) {
        Ok(()) => {
            *cfg = Config { up: false, ..new };
            drop(old_rings);
            (rings, Ok(()))
        }
        Err(e) => {
            // Back to the old settings and rings, which `down` kept.
            let _ = net.set_real_num_queues(old.queues as u32, old.queues as u32);
            drop(rings);
            (old_rings, Err(e))
        }
    };
    up_with(net, &mut cfg, rings, wd);
    result
}

#[vtable]
impl dev::Operations for Net {
    type NapiData = Option<RxRing>;
    type TxQueueData = Option<TxRing>;

    fn open(net: &Registration<Self>, parent: &device::Device<device::Bound>) -> Result {
        let mut cfg = net.cfg.lock();
        // `up` leaves the interface untouched when it fails.
        up(net, parent, &mut cfg)
    }

    fn stop(net: &Registration<Self>) -> Result {
        let mut cfg = net.cfg.lock();
        if cfg.up {
            drop(down(net, &mut cfg));
        }
        Ok(())
    }

    fn start_xmit(
        net: &Registration<Self>,
        parent: &device::Device<device::Bound>,
        queue: u16,
        ring: &mut Option<TxRing>,
        skb: TxSkb,
    ) -> Xmit {
        let Some(qp) = net.queues.get(usize::from(queue)) else {
            return Xmit::Ok;
        };
        let Some(r) = ring else {
            qp.txc.dropped.fetch_add(1, Relaxed);
            return Xmit::Ok;
        };
        match r.xmit(&net.hw, net.device(), parent, &qp.txc, &**net, skb) {
            Ok(()) => Xmit::Ok,
            Err(skb) => Xmit::Busy(skb),
        }
    }

    fn poll(
        net: &Registration<Self>,
        poll: &NapiPoll<'_>,
        rx_ring: &mut Option<RxRing>,
        index: usize,
    ) -> Poll {
        let Some(qp) = net.queues.get(index) else {
            return Poll::Done(0);
        };
        let dev = net.device();
        // The TX ring is under its queue's lock, held for the descriptor walk only, the RX ring
        // this poll's own: transmitted skbs are freed, and received ones go up the stack, with
        // no lock held (the stack may transmit from the receive path, and freeing may enable
        // softirqs).
        // Done when a pass ends with the ring empty before the per-poll limit.
        let mut tx_done = false;
        let mut cleaned = 0;
        while cleaned < tx::CLEAN_LIMIT {
            let mut freed = Batch::<CompletedTxSkb, { tx::TX_BATCH }>::new();
            let finished = match net.tx_queue_lock(qp.index).as_deref_mut() {
                Some(Some(r)) => r.clean(dev, &qp.txc, net.running.load(Relaxed), &mut freed),
                _ => true,
            };
            cleaned += freed.len();
            for skb in freed.drain() {
                poll.consume(skb);
            }
            if finished {
                tx_done = true;
                break;
            }
        }
        // A budget of 0 (netpoll) allows TX cleaning only: the RX ring is not even locked.
        let mut rx_done = 0;
        let budget = poll.budget();
        while rx_done < budget {
            let mut frames =
                Batch::<RxSkb, { rx::RX_BATCH }>::with_limit((budget - rx_done) as usize);
            let n = match rx_ring {
                Some(r) => r.clean(&net.hw, dev, poll, &qp.rxc, net.rx_tstamp(), &mut frames),
                None => 0,
            };
            for skb in frames.drain() {
                poll.gro_receive(skb);
            }
            rx_done += n;
            // Fewer frames than asked: the ring is empty.
            if (n as usize) < frames.limit() {
                break;
            }
        }
        if !tx_done || rx_done >= budget {
            Poll::Again
        } else {
            Poll::Done(rx_done)
        }
    }

    /// `igc_features_check`: no checksum or segmentation offload for headers longer than the
    /// context descriptor's MACLEN (7 bits) and IPLEN (9 bits) fields hold.
    fn features_check(_net: &Registration<Self>, skb: &TxSkb, feats: u64) -> u64 {
        let offloads = features::IP_CSUM | features::IPV6_CSUM | features::TSO | features::TSO6;
        let mac = skb.network_offset();
        let too_long = mac > tx::MAX_MAC_HDR_LEN
            || skb
                .checksum_start_offset()
                .checked_sub(mac)
                .is_some_and(|ip| ip > tx::MAX_NETWORK_HDR_LEN);
        if too_long {
            feats & !offloads
        } else {
            feats
        }
    }

    fn napi_complete(net: &Registration<Self>, index: usize) {
        if net.running.load(Relaxed) {
            irq::enable_queue(&net.hw, net.mode(), index);
        }
    }

    fn get_stats64(net: &Registration<Self>, stats: &mut Stats64) {
        let s = stats.get_mut();
        for q in net.queues.iter() {
            s.rx_packets += q.rxc.packets.load(Relaxed);
            s.rx_bytes += q.rxc.bytes.load(Relaxed);
            s.tx_packets += q.txc.packets.load(Relaxed);
            s.tx_bytes += q.txc.bytes.load(Relaxed);
            s.tx_dropped += q.txc.dropped.load(Relaxed);
            s.rx_errors += q.rxc.errors.load(Relaxed) + q.rxc.csum_err.load(Relaxed);
            s.rx_dropped += q.rxc.alloc_failed.load(Relaxed);
        }
        let hw = *net.hwstats_copy.lock();
        s.multicast = hw.mprc;
        s.rx_crc_errors = hw.crcerrs;
        s.rx_length_errors = hw.roc + hw.ruc;
        s.rx_missed_errors = hw.mpc;
        s.rx_errors += hw.crcerrs + hw.roc + hw.ruc;
    }

    fn set_rx_mode(net: &Registration<Self>, mc: &McList<'_>) {
        let mut addrs = [[0u8; 6]; MC_FILTERS];
        let n = mc.copy(&mut addrs);
        net.write_rx_mode(net.device(), &addrs, n);
    }

    fn set_mac_address(net: &Registration<Self>, addr: &[u8; 6]) -> Result {
        net.hw.set_rar0(addr);
        Ok(())
    }

    fn change_mtu(
        net: &Registration<Self>,
        _parent: &device::Device<device::Bound>,
        new_mtu: u32,
    ) -> Result {
        // Buffers are 2 KiB and frames are copied out of them, so any MTU up to the maximum
        // (checked by the core) only needs the receive length limit.
        net.hw.wr(off::RLPML, new_mtu + 14 + 4 + 4);
        pr_info!(
            "{}: changing MTU from {} to {}\n",
            net.device().name(),
            net.device().mtu(),
            new_mtu
        );
        Ok(())
    }

    fn tx_timeout(net: &Registration<Self>, queue: u32) {
        // `igc_tx_timeout`: count it and reset the adapter from process context.
        net.tx_timeouts.fetch_add(1, Relaxed);
        pr_warn!(
            "{}: TX queue {} timed out, reset scheduled\n",
            net.device().name(),
            queue
        );
        net.schedule_reset();
    }

    fn hwtstamp_get(net: &Registration<Self>, cfg: &mut HwTstampConfig) -> Result {
        cfg.set_tx_type(if net.tx_tstamp_on.load(Relaxed) {
            hwtstamp::TX_ON
        } else {
            hwtstamp::TX_OFF
        });
        cfg.set_rx_filter(if net.rx_tstamp_on.load(Relaxed) {
            hwtstamp::FILTER_ALL
        } else {
            hwtstamp::FILTER_NONE
        });
        Ok(())
    }

    fn hwtstamp_set(net: &Registration<Self>, cfg: &mut HwTstampConfig) -> Result {
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
        let queues = net.cfg.lock().queues;
        net.set_tx_tstamp(tx);
        net.set_rx_tstamp(rx, queues);
        cfg.set_rx_filter(if rx {
            hwtstamp::FILTER_ALL
        } else {
            hwtstamp::FILTER_NONE
        });
        Ok(())
    }

    fn get_ts_info(net: &Registration<Self>, info: &mut TsInfo) -> Result {
        // As igc_ethtool_get_ts_info.
        info.set_so_timestamping(
            sof::TX_SOFTWARE | sof::TX_HARDWARE | sof::RX_HARDWARE | sof::RAW_HARDWARE,
        );
        info.set_phc_index(net.phc_index.load(Relaxed));
        info.set_tx_types(1 << hwtstamp::TX_OFF | 1 << hwtstamp::TX_ON);
        info.set_rx_filters(1 << hwtstamp::FILTER_NONE | 1 << hwtstamp::FILTER_ALL);
        Ok(())
    }

    fn set_features(_net: &Registration<Self>, _features: u64) -> Result {
        // RX checksum and hash are applied per packet from the device's features.
        Ok(())
    }

    fn get_drvinfo(net: &Registration<Self>, info: &mut DrvInfo<'_>) {
        info.set_driver(c"rigc");
        let dev: &device::Device = net.pdev.as_ref();
        info.set_bus_info(dev.name());
    }

    fn get_link_ksettings(net: &Registration<Self>, ks: &mut LinkSettings) -> Result {
        for m in [
            LinkMode::T10Half,
            LinkMode::T10Full,
            LinkMode::T100Half,
            LinkMode::T100Full,
            LinkMode::T1000Full,
            LinkMode::T2500Full,
            LinkMode::Autoneg,
            LinkMode::Tp,
        ] {
            ks.add_supported(m);
        }
        // What the PHY advertises, read back; the last setting if the PHY does not answer.
        let adv = net.hw.advertised().unwrap_or(net.cfg.lock().advertise);
        for (on, m) in [
            (adv.m10_half, LinkMode::T10Half),
            (adv.m10, LinkMode::T10Full),
            (adv.m100_half, LinkMode::T100Half),
            (adv.m100, LinkMode::T100Full),
            (adv.m1000, LinkMode::T1000Full),
            (adv.m2500, LinkMode::T2500Full),
        ] {
            if on {
                ks.add_advertising(m);
            }
        }
        ks.add_advertising(LinkMode::Autoneg);
        ks.add_advertising(LinkMode::Tp);
        ks.set_port_tp(1);
        ks.set_autoneg(true);
        match net.hw.link() {
            Some(l) if net.device().carrier_ok() => {
                ks.set_speed(l.mbps);
                ks.set_full_duplex(Some(l.full_duplex));
            }
            _ => {
                ks.set_speed(SPEED_UNKNOWN);
                ks.set_full_duplex(None);
            }
        }
        Ok(())
    }

    fn set_link_ksettings(net: &Registration<Self>, ks: &LinkSettings) -> Result {
        if !ks.autoneg() {
            // What igc refuses as invalid (it forces only 10 or 100 Mb/s, half or full
            // duplex) is EINVAL here too; forcing a valid one is what rigc does not do yet.
            if !matches!(ks.speed(), 10 | 100) || ks.full_duplex().is_none() {
                return Err(EINVAL);
            }
            pr_info!(
                "{}: forced speed/duplex is not supported, advertise a speed with autoneg on\n",
                net.device().name()
            );
            return Err(EOPNOTSUPP);
        }
        let mut adv = Advertise::default();
        link_mode_speed(ks, &mut adv);
        if adv.is_empty() {
            return Err(EINVAL);
        }
        let mut cfg = net.cfg.lock();
        net.hw.advertise(adv)?;
        cfg.advertise = adv;
        Ok(())
    }

    const STATS_STRINGS: &'static [&'static CStr] = &stats::NAMES;

    fn get_ethtool_stats(net: &Registration<Self>, data: &mut [u64]) {
        let hw = net.update_stats();
        let sw = net.sw_totals();
        let mut queues = [[0u64; 4]; stats::STAT_QUEUES];
        for (q, v) in net.queues.iter().zip(queues.iter_mut()) {
            *v = [
                q.txc.packets.load(Relaxed),
                q.txc.bytes.load(Relaxed),
                q.rxc.packets.load(Relaxed),
                q.rxc.bytes.load(Relaxed),
            ];
        }
        stats::values(&hw, &sw, &queues, data);
    }

    fn get_ringparam(net: &Registration<Self>, ring: &mut RingParam) {
        let cfg = net.cfg.lock();
        ring.rx_max = MAX_RING;
        ring.tx_max = MAX_RING;
        ring.rx = cfg.rx_ring;
        ring.tx = cfg.tx_ring;
    }

    fn set_ringparam(
        net: &Registration<Self>,
        parent: &device::Device<device::Bound>,
        ring: &RingParam,
    ) -> Result {
        let size = |n: u32| n.clamp(MIN_RING, MAX_RING).next_multiple_of(8);
        let (tx, rx) = (size(ring.tx), size(ring.rx));
        reconfigure(net, parent, |cfg| {
            cfg.tx_ring = tx;
            cfg.rx_ring = rx;
        })
    }

    fn get_channels(net: &Registration<Self>, ch: &mut Channels) {
        let cfg = net.cfg.lock();
        match net.mode() {
            irq::Mode::MsiX { queue_vectors } => {
                ch.max_combined = queue_vectors as u32;
                ch.other = 1;
            }
            irq::Mode::Single => ch.max_combined = 1,
        }
        ch.combined = cfg.queues as u32;
    }

    fn set_channels(
        net: &Registration<Self>,
        parent: &device::Device<device::Bound>,
        ch: &Channels,
    ) -> Result {
        let max = match net.mode() {
            irq::Mode::MsiX { queue_vectors } => queue_vectors,
            irq::Mode::Single => 1,
        };
        let n = ch.combined as usize;
        // As `igc_ethtool_set_channels`: combined channels only (the abstraction refuses
        // separate RX/TX counts), exactly one "other" vector, at most the hardware's queues.
        if n == 0 || ch.other != 1 || n > max {
            return Err(EINVAL);
        }
        reconfigure(net, parent, |cfg| cfg.queues = n)
    }
}

/// The PCI driver's data: the network device is owned by the device (devres), so this only
/// keeps what unbind logs.
struct Rigc {
    info: PartInfo,
    net: Arc<Registration<Net>>,
}

struct RigcDriver;

impl pci::Driver for RigcDriver {
    type IdInfo = PartInfo;
    type Data<'bound> = Rigc;

    const ID_TABLE: pci::IdTable<Self::IdInfo> = &PCI_TABLE;

    fn probe<'bound>(
        pdev: &'bound pci::Device<Core<'_>>,
        info: Option<&'bound Self::IdInfo>,
    ) -> impl PinInit<Self::Data<'bound>, Error> + 'bound {
        let info = *info.ok_or(ENODEV)?;

        pdev.enable_device_mem()?;
        pdev.set_master();
        let bar = pdev.iomap_region_sized::<{ regs::BAR0_SIZE }>(0, c"rigc")?;

        if bar.read(regs::CTRL).into_raw() == u32::MAX {
            dev_err!(pdev, "device does not respond (CTRL reads all ones)\n");
            return Err(ENODEV);
        }
        let eecd = bar.read(regs::EECD);
        if eecd.into_raw() == u32::MAX {
            dev_err!(pdev, "NVM control register reads all ones\n");
            return Err(ENXIO);
        }

        irq::mask_all(&bar, u32::MAX);
        irq::clear_causes(&bar);

        let status = bar.read(regs::STATUS);
        dev_info!(
            pdev,
            "Intel(R) {} ({:?} family), rev {:#x}, port {}, NVM {} words{}\n",
            info.name,
            info.family,
            pdev.revision_id(),
            u32::from(status.func()),
            eecd.nvm_word_size(),
            if eecd.flash_detected() { ", flash" } else { "" }
        );
        dev_info!(pdev, "PHC time at probe: {}\n", ptp::read_systim(&bar));

        let hw = Hw::new(bar.into_devres()?);
        if let Err(e) = hw.reset() {
            dev_err!(pdev, "MAC reset did not complete ({:?})\n", e);
            return Err(e);
        }
        let mac = hw.read_mac();
        if !dev::is_valid_ether_addr(&mac) {
            dev_err!(pdev, "invalid MAC address in the NVM\n");
            return Err(EIO);
        }
        // Tell the firmware the driver is loaded (`igc_get_hw_control`), bring the link up and
        // advertise every speed (`igc_setup_link`).
        hw.set_bits(off::CTRL_EXT, bits::CTRL_EXT_DRV_LOAD);
        hw.set_bits(off::CTRL, bits::CTRL_SLU);
        if let Err(e) = hw.advertise(Advertise::ALL) {
            dev_err!(pdev, "PHY setup failed ({:?})\n", e);
            return Err(e);
        }
        match hw.link() {
            Some(l) => dev_info!(
                pdev,
                "link up: {} Mbps {} duplex\n",
                l.mbps,
                if l.full_duplex { "full" } else { "half" }
            ),
            None => dev_info!(pdev, "link down\n"),
        }

        // Test-only switches of the TX timestamp slot (see `ptp.rs`).
        let txts_set = module_parameters::test_txts_set.value().clamp(0, 3) as usize;
        let txts_workaround = !module_parameters::test_no_txstmph0_workaround.value();
        if txts_set != 0 || !txts_workaround {
            dev_warn!(
                pdev,
                "test mode: TX timestamps in register set {}, TXSTMPH_0 workaround {}\n",
                txts_set,
                if txts_workaround { "on" } else { "off" }
            );
        }

        let pdev_ref: ARef<pci::Device> = ARef::from(&**pdev);
        let mut queues = KVec::with_capacity(MAX_QUEUES, GFP_KERNEL)?;
        for i in 0..MAX_QUEUES {
            queues.push(
                KBox::pin_init(QueuePair::new(i as u16), GFP_KERNEL)?,
                GFP_KERNEL,
            )?;
        }
        let data = try_pin_init!(Net {
            hw,
            pdev: pdev_ref,
            info,
            queues,
            cfg <- new_mutex!(Config {
                up: false,
                tx_ring: DEFAULT_RING,
                rx_ring: DEFAULT_RING,
                queues: MAX_QUEUES,
                advertise: Advertise::ALL,
            }),
            mode: Atomic::new(0),
            queue_vectors: Atomic::new(0),
            hwstats <- new_mutex!(stats::HwStats::default()),
            hwstats_copy <- new_spinlock_irq!(stats::HwStats::default()),
            watchdog_gen: Atomic::new(0),
            watchdog <- new_mutex!(None),
            running: Atomic::new(false),
            tx_timeouts: Atomic::new(0),
            reset_task <- new_spinlock_irq!(None, "rigc_reset_task"),
            link_mbps: Atomic::new(0),
            systim_lock <- new_spinlock_irq!(()),
            timinca: Atomic::new(0),
            txts <- new_spinlock_irq!(ptp::TxSlot::new(txts_set, txts_workaround)),
            tx_tstamp_on: Atomic::new(false),
            rx_tstamp_on: Atomic::new(false),
            phc_index: Atomic::new(-1),
            t0: Instant::now(),
        }? Error);
        let opts = dev::Options {
            tx_queues: MAX_QUEUES as u32,
            rx_queues: MAX_QUEUES as u32,
            napis: MAX_QUEUES,
            mac,
            hw_features: features::SG
                | features::IP_CSUM
                | features::IPV6_CSUM
                | features::TSO
                | features::TSO6
                | features::RXCSUM
                | features::RXHASH,
            features: features::SG
                | features::IP_CSUM
                | features::IPV6_CSUM
                | features::TSO
                | features::TSO6
                | features::RXCSUM
                | features::RXHASH
                | features::HIGHDMA,
            max_mtu: MAX_MTU,
        };
        let parent: &device::Device<device::Bound> = pdev.as_ref();
        let net = Registration::register(parent, opts, data, |net| {
            // MSI-X: the other vector and one per queue pair; else one MSI or INTx vector.
            let (n, kind) = pdev.register_irq_handlers(
                1,
                (MAX_QUEUES + 1) as u32,
                pci::IrqTypes::all(),
                c"rigc",
                |i, n, kind| {
                    let k = match kind {
                        pci::IrqType::MsiX if n > 1 => {
                            if i == 0 {
                                irq::Kind::Other
                            } else {
                                irq::Kind::Queue(i - 1)
                            }
                        }
                        _ => irq::Kind::Single,
                    };
                    Ok(irq::Handler {
                        net: net.clone(),
                        kind: k,
                    })
                },
            )?;
            let queues = if matches!(kind, pci::IrqType::MsiX) && n > 1 {
                net.queue_vectors.store((n - 1) as u32, Relaxed);
                net.mode.store(1, Relaxed);
                n - 1
            } else {
                1
            };
            net.cfg.lock().queues = queues;
            net.set_real_num_queues(queues as u32, queues as u32)?;
            // The PTP clock (`igc_ptp_init`, `igc_ptp_reset`).
            net.ptp_reset();
            let index = kernel::ptp::Registration::register(
                parent,
                &<LocalModule as kernel::ModuleMetadata>::THIS_MODULE,
                c"rigc",
                ptp::MAX_ADJ_PPB,
                PtpClock { net: net.clone() },
            )?;
            net.phc_index.store(index, Relaxed);
            dev_info!(
                pdev,
                "{} queue pair(s), {} interrupt vector(s) ({:?})\n",
                queues,
                n,
                kind
            );
            Ok(())
        })?;
        dev_info!(
            pdev,
            "{}: Intel(R) {} registered, MAC {:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}\n",
            net.device().name(),
            info.name,
            mac[0],
            mac[1],
            mac[2],
            mac[3],
            mac[4],
            mac[5]
        );
        // Only now, with nothing left to fail: the task holds the registration, and unbind is
        // what takes it out again.
        *net.reset_task.lock() = Some(ResetTask::new(net.clone())?);
        Ok(Rigc { info, net })
    }

    fn unbind<'bound>(pdev: &'bound pci::Device<Core<'_>>, this: Pin<&Self::Data<'bound>>) {
        dev_info!(pdev, "unbinding {}\n", this.info.name);
        // Nothing queues the reset after this; wait for one that is queued or running. The
        // RTNL is not held here (the unregistration comes after), so waiting cannot deadlock.
        let task = this.net.reset_task.lock().take();
        if let Some(task) = task {
            workqueue::cancel_work_sync(&task);
        }
    }
}

kernel::module_pci_driver! {
    type: RigcDriver,
    name: "rigc",
    authors: ["The rigc developers"],
    description: "Intel(R) 2.5G Ethernet Controller I225/I226 driver (Rust)",
    license: "GPL",
    params: {
        test_txts_set: i64 {
            default: 0,
            description: "Testing only: TX timestamp register set (0-3) of the timestamp slot",
        },
        test_no_txstmph0_workaround: bool {
            default: false,
            description: "Testing only: skip the I225 TXSTMPH_0 re-arm workaround",
        },
    },
}
