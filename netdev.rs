// SPDX-License-Identifier: GPL-2.0

//! The network device (`igc_main.c`): the `net_device_ops` (`igc_open`, `igc_close`,
//! `igc_xmit_frame`, `igc_poll`, `igc_set_rx_mode`, ...), the way up and down (`igc_up`,
//! `igc_down`, `igc_configure`) and the restart with new rings (`igc_reinit_locked`).
//!
//! The hardware timestamping ioctls are `igc_ptp_hwtstamp_get`/`_set` of `igc_ptp.c` in
//! `ptp/hwtstamp.rs`, as igc's ndo table points into `igc_ptp.c`.

use kernel::{
    device,
    net::{
        dev::{
            self, features, flags, Device, HwTstampConfig, McList, NapiPoll, Poll, QueueKind,
            Registration, Stats64, Xmit,
        },
        skb::TxSkb,
    },
    netdev_err, netdev_info, netdev_warn,
    prelude::*,
    str::CString,
    sync::{atomic::Relaxed, Arc},
    workqueue,
};

use crate::{
    adapter::{Adapter, Config, MAX_QUEUES, MC_FILTERS},
    irq,
    regs::{CTRL_EXT, ICR, MRQC, MRQC_ENABLE_RSS_MQ, MTA, RCTL, RETA, RLPML, RSSRK, RXCSUM, TCTL},
    rx::RxRing,
    stats,
    tx::{self, TxCompletion, TxRing},
    watchdog::{next_watchdog, Watchdog},
};

/// The rings of the queue pairs, outside the queue pairs: allocated and not yet installed, or
/// taken out at ifdown (a TX ring as its two halves). A fixed array, so that moving rings in
/// and out never allocates.
pub(crate) type Rings = [Option<(TxRing, TxCompletion, RxRing)>; MAX_QUEUES];

/// Allocates the rings `cfg` asks for. Nothing is installed: on an error, what was allocated is
/// freed here and the interface is untouched.
fn alloc_rings(parent: &device::Device<device::Bound>, cfg: &Config) -> Result<Rings> {
    let mut rings: Rings = [const { None }; MAX_QUEUES];
    for (q, slot) in rings.iter_mut().enumerate().take(cfg.queues) {
        let (txr, txc) = TxRing::new(parent, q as u16, cfg.tx_ring)?;
        let rxr = RxRing::new(parent, q as u16, cfg.rx_ring)?;
        *slot = Some((txr, txc, rxr));
    }
    Ok(rings)
}

/// What the poll of a queue vector's NAPI context owns (`Operations::NapiData`): the RX ring
/// (context `q` holds RX ring `q`, whether its vector serves it or not), the completion half of
/// the TX ring its vector serves (context `q` holds TX completion `q` while the interface is
/// down), the queues its vector serves ([`irq::Layout`], set while the context is disabled),
/// and the vector's interrupt moderation.
#[derive(Default)]
pub(crate) struct PollData {
    pub(crate) rx: Option<RxRing>,
    pub(crate) tx: Option<TxCompletion>,
    pub(crate) rx_queue: Option<usize>,
    pub(crate) tx_queue: Option<usize>,
    pub(crate) itr: irq::Moderation,
}

/// Installs `rings` in the queue pairs; returns the rings they held.
fn install_rings(net: &Registration<Adapter>, mut rings: Rings) -> Rings {
    for (qp, slot) in net.queues.iter().zip(rings.iter_mut()) {
        let (tx, txc, rx) = match slot.take() {
            Some((t, c, r)) => (Some(t), Some(c), Some(r)),
            None => (None, None, None),
        };
        // The interface is down: the TX queue lock and the disabled NAPI context are free.
        let old_tx = net
            .tx_queue_lock(qp.index)
            .and_then(|mut t| core::mem::replace(&mut *t, tx));
        let (old_txc, old_rx) = match net.napi_off(usize::from(qp.index)) {
            Some(mut d) => (
                core::mem::replace(&mut d.tx, txc),
                core::mem::replace(&mut d.rx, rx),
            ),
            None => (None, None),
        };
        if let (Some(t), Some(c), Some(r)) = (old_tx, old_txc, old_rx) {
            *slot = Some((t, c, r));
        }
    }
    rings
}

/// Starts the interface with `rings` and the watchdog `wd` (`__igc_open` after its
/// allocations): hardware programming, interrupts, NAPI, queues, watchdog. Cannot fail: the
/// callers allocate everything first, so an error leaves the interface down and untouched, with
/// nothing to undo (in particular no NAPI is disabled that was never enabled).
pub(crate) fn up_with(
    net: &Registration<Adapter>,
    cfg: &mut Config,
    rings: Rings,
    wd: Arc<Watchdog>,
) {
    drop(install_rings(net, rings));
    net.watchdog_gen.store(wd.gen, Relaxed);
    start_hw(net, net.device(), cfg.queues);
    cfg.up = true;
    *net.watchdog.lock() = Some(wd.clone());
    wd.enqueue();
}

/// Brings the interface up: rings for the configured queues and a watchdog, then [`up_with`].
pub(crate) fn up(
    net: &Registration<Adapter>,
    parent: &device::Device<device::Bound>,
    cfg: &mut Config,
) -> Result {
    let rings = alloc_rings(parent, cfg)?;
    let wd = next_watchdog(net)?;
    up_with(net, cfg, rings, wd);
    Ok(())
}

/// Programs the hardware for rings that exist and starts the datapath.
pub(crate) fn start_hw(net: &Registration<Adapter>, dev: &Device, nq: usize) {
    let hw = &net.hw;
    let mode = net.mode();
    let layout = irq::Layout::new(mode, nq);
    // Receive on from the filters' write in `configure_mac` on (`igc_setup_rctl`).
    net.rx_filter.lock().on = true;
    net.configure_mac(dev, nq);
    for q in 0..nq {
        if let Some(Some(r)) = net.tx_queue_lock(q as u16).as_deref() {
            r.configure(hw);
        }
        if let Some(PollData { rx: Some(r), .. }) = net.napi_off(q).as_deref() {
            r.configure(hw, net.ptp.rx_tstamp_on.load(Relaxed));
        }
    }
    // Disabled until `napi_enable` below: each context learns its queues, and the vector's
    // moderation starts again, as `irq::configure` programs it.
    for v in 0..layout.vectors() {
        if let Some(qp) = net.queues.get(v) {
            let _ = qp.itr.take();
        }
        if let Some(d) = net.napi_off(v).as_deref_mut() {
            d.rx_queue = layout.rx_of(v);
            d.tx_queue = layout.tx_of(v);
            d.itr = irq::Moderation::new();
        }
    }
    move_tx_completions(net, nq, |q| q, |q| layout.tx_vector(q));
    hw.update(TCTL, |t: TCTL| t.with_en(true));
    irq::configure(hw, mode, layout);
    net.running.store(true, Relaxed);
    for v in 0..layout.vectors() {
        net.napi_enable(v);
    }
    for q in 0..nq {
        set_queue_napi(net, q, Some(layout));
    }
    // Causes that arrived while masked are dropped: the link is read below.
    let _ = hw.read(ICR);
    irq::enable(hw, mode);
    dev.tx_start_all_queues();
    net.link_changed(dev, &net.link.lock(), true);
}

/// Whether the way down resets the MAC before it empties the rings.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reset {
    /// No reset: the queues are disabled and their DMA given 10 ms.
    No,
    /// A MAC reset after that, before any buffer is unmapped or freed, as `igc_down` resets
    /// (`igc_reset`: master requests quiesced, CTRL.RST) before it cleans the rings: after a
    /// TX hang, DMA may still be outstanding.
    Mac,
}

/// Stops the datapath and the hardware; the rings stay allocated and are emptied.
pub(crate) fn stop_hw(net: &Registration<Adapter>, dev: &Device, nq: usize, reset: Reset) {
    let hw = &net.hw;
    // Under the link settings: a link check that is running finishes first (`LinkTask`).
    {
        let _link = net.link.lock();
        net.running.store(false, Relaxed);
    }
    dev.tx_disable();
    {
        let mut filter = net.rx_filter.lock();
        filter.on = false;
        hw.update(RCTL, |r: RCTL| r.with_en(false));
    }
    irq::disable(hw, net.mode());
    // Wait for handlers already running on other CPUs: none touches the carrier or re-enables
    // a cause after this (`synchronize_irq` in `igc_irq_disable`).
    net.pdev.synchronize_irqs();
    let layout = irq::Layout::new(net.mode(), nq);
    for v in 0..layout.vectors() {
        net.napi_disable(v);
    }
    for q in 0..nq {
        set_queue_napi(net, q, None);
    }
    // No poll runs now, so none wakes a queue: stopped again, a queue that a poll woke after
    // `tx_disable` above (it read `running` before the store) sends nothing more.
    dev.tx_disable();
    move_tx_completions(net, nq, |q| layout.tx_vector(q), |q| q);
    for q in 0..nq {
        if let Some(Some(r)) = net.tx_queue_lock(q as u16).as_deref() {
            r.disable(hw);
        }
        if let Some(PollData { rx: Some(r), .. }) = net.napi_off(q).as_deref() {
            r.disable(hw);
        }
    }
    hw.update(TCTL, |t: TCTL| t.with_en(false));
    hw.flush();
    // Frames already in the FIFOs finish their DMA: 10 ms, as `igc_down` sleeps (a 9 KiB frame
    // at 10 Mb/s takes 7.4 ms); only then are the buffers reset or freed.
    kernel::time::delay::fsleep(kernel::time::Delta::from_millis(10));
    dev.carrier_off();
    if reset == Reset::Mac {
        crate::watchdog::reset_mac(net);
    }
    for q in 0..nq {
        if let Some(d) = net.napi_off(q).as_deref_mut() {
            if let (Some(c), Some(Some(t))) =
                (d.tx.as_mut(), net.tx_queue_lock(q as u16).as_deref_mut())
            {
                t.clear(c, dev);
            }
            if let Some(r) = d.rx.as_mut() {
                r.reset();
            }
        }
    }
}

/// Moves the TX completion of each of the `nq` queues, `q`, from the NAPI context `from(q)` into
/// `to(q)`, the contexts disabled: into the context that serves the queue at start, back to
/// context `q` at stop.
fn move_tx_completions(
    net: &Registration<Adapter>,
    nq: usize,
    from: impl Fn(usize) -> usize,
    to: impl Fn(usize) -> usize,
) {
    let mut held: [Option<TxCompletion>; MAX_QUEUES] = [const { None }; MAX_QUEUES];
    for (q, c) in held.iter_mut().enumerate().take(nq) {
        if let Some(d) = net.napi_off(from(q)).as_deref_mut() {
            *c = d.tx.take();
        }
    }
    for (q, c) in held.iter_mut().enumerate().take(nq) {
        if let Some(d) = net.napi_off(to(q)).as_deref_mut() {
            d.tx = c.take();
        }
    }
}

/// Records which NAPI contexts serve RX and TX queue `q`, for the netdev netlink family
/// (`igc_set_queue_napi`): those of `layout`, or none while the interface is down.
fn set_queue_napi(net: &Registration<Adapter>, q: usize, layout: Option<irq::Layout>) {
    // Cannot fail: the queues and contexts exist.
    let _ = net.set_queue_napi(q as u32, QueueKind::Rx, layout.map(|l| l.rx_vector(q)));
    let _ = net.set_queue_napi(q as u32, QueueKind::Tx, layout.map(|l| l.tx_vector(q)));
}

/// Brings the interface down (`__igc_close`), with a MAC reset if `reset` asks for one, and
/// returns its rings, stopped and emptied, for the caller to free or to bring back up.
pub(crate) fn down(net: &Registration<Adapter>, cfg: &mut Config, reset: Reset) -> Rings {
    let dev = net.device();
    net.watchdog_gen.fetch_add(1, Relaxed);
    if let Some(w) = net.watchdog.lock().take() {
        // The watchdog only try-locks `cfg`, so waiting for it here cannot deadlock.
        workqueue::cancel_delayed_work_sync(&w);
    }
    stop_hw(net, dev, cfg.queues, reset);
    // A TX timestamp request cannot complete any more: free it.
    let req = net.ptp.txts.lock().cancel(&net.hw);
    drop(req);
    cfg.up = false;
    // Take the rings out under their locks, free them after: freeing coherent DMA memory (and
    // unmapping pages) must not happen with interrupts disabled.
    install_rings(net, [const { None }; MAX_QUEUES])
}

/// Takes the device from the firmware, resets the PHY and powers it up with its advertisement,
/// as `__igc_open` does before it configures the rings (`igc_power_up_link`).
pub(crate) fn power_up(net: &Registration<Adapter>) {
    let dev = net.device();
    net.hw.update(CTRL_EXT, |c: CTRL_EXT| c.with_drv_load(true));
    // A PHY reset that fails leaves the PHY as it was: powered up and set up all the same, as
    // `igc_power_up_link` ignores `igc_reset_phy`'s result.
    if let Err(e) = net.hw.phy_reset() {
        netdev_err!(dev, "PHY reset failed ({:?})\n", e);
    }
    if let Err(e) = net
        .hw
        .phy_power(true)
        .and_then(|()| net.hw.setup_link(&net.link.lock(), max_frame(dev.mtu())))
    {
        netdev_err!(dev, "PHY power up failed ({:?})\n", e);
    }
}

/// Powers the PHY down, unless the firmware forbids it, and gives the device back to the
/// firmware, in `__igc_close`'s order (`igc_down`'s reset, then `igc_release_hw_control`).
pub(crate) fn power_down(net: &Registration<Adapter>) {
    if let Err(e) = net.hw.phy_power(false) {
        netdev_err!(net.device(), "PHY power down failed ({:?})\n", e);
    }
    net.hw
        .update(CTRL_EXT, |c: CTRL_EXT| c.with_drv_load(false));
}

/// Names the interrupts after the interface and the rings of `nq` queues, as `igc_request_msix`
/// does at every open: a queue vector `<interface>-TxRx-<queue>`, `-rx-<queue>` or
/// `-tx-<queue>` ([`irq::Layout`]), one that serves nothing (rigc keeps every vector from probe
/// to unbind) `<interface>-unused`, the other one (or the only one) `<interface>`. The device
/// raises none while the interface is down.
fn name_irqs(
    net: &Registration<Adapter>,
    parent: &device::Device<device::Bound>,
    nq: usize,
) -> Result {
    let ifname = net.device().name().to_str().map_err(|_| EINVAL)?;
    let layout = irq::Layout::new(net.mode(), nq);
    let irqs = net.irqs.lock();
    let Some(irqs) = irqs.as_ref() else {
        return Ok(());
    };
    let mut set = irqs.access(parent)?.lock();
    for i in 0..set.len() {
        let v = i.wrapping_sub(1);
        let name = match (i, layout.rx_of(v), layout.tx_of(v)) {
            (0, ..) => CString::try_from_fmt(fmt!("{ifname}"))?,
            (_, Some(q), Some(_)) => CString::try_from_fmt(fmt!("{ifname}-TxRx-{q}"))?,
            (_, Some(q), None) => CString::try_from_fmt(fmt!("{ifname}-rx-{q}"))?,
            (_, None, Some(q)) => CString::try_from_fmt(fmt!("{ifname}-tx-{q}"))?,
            (_, None, None) => CString::try_from_fmt(fmt!("{ifname}-unused"))?,
        };
        set.rename(i, &name)?;
    }
    Ok(())
}

/// Restarts the interface with new settings, if it is up (`igc_set_ringparam`,
/// `igc_set_channels`). Transactional: the new rings are allocated while the old ones still
/// run, and on any error the interface keeps its old settings and rings, up as before. Settings
/// that do not change anything change nothing: no restart, the link stays (as igc returns
/// early from both).
pub(crate) fn reconfigure(
    net: &Registration<Adapter>,
    parent: &device::Device<device::Bound>,
    change: impl FnOnce(&mut Config),
) -> Result {
    let mut cfg = net.cfg.lock();
    let old = *cfg;
    let mut new = old;
    change(&mut new);
    if new == old {
        return Ok(());
    }
    if !cfg.up {
        net.set_real_num_queues(new.queues as u32, new.queues as u32)?;
        *cfg = new;
        return Ok(());
    }
    let rings = alloc_rings(parent, &new)?;
    let wd = next_watchdog(net)?;
    let old_rings = down(net, &mut cfg, Reset::No);
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
    // Another queue count: the vectors serve other rings. Renamed while down, since a rename
    // requests the handlers again and the device must raise no interrupt meanwhile.
    if cfg.queues != old.queues {
        if let Err(e) = name_irqs(net, parent, cfg.queues) {
            netdev_warn!(net.device(), "interrupts not renamed ({:?})\n", e);
        }
    }
    up_with(net, &mut cfg, rings, wd);
    result
}

impl Adapter {
    /// Programs the MAC for receive and transmit (`igc_configure`, `igc_setup_rctl`,
    /// `igc_setup_tctl`, `igc_setup_mrqc`) for `queues` queue pairs.
    pub(crate) fn configure_mac(&self, dev: &Device, queues: usize) {
        let hw = &self.hw;
        hw.set_rar0(&dev.addr());
        hw.write_reg(
            TCTL::zeroed()
                .with_psp(true)
                .with_rtlc(true)
                .with_const_ct::<15>(),
        );
        // RSS: the system's random key (`netdev_rss_key_fill`, as `igc_setup_mrqc`), and the
        // 128-entry table spread over the queues.
        let mut key = [0u8; 40];
        dev::rss_key_fill(&mut key);
        for (i, k) in key.chunks_exact(4).enumerate() {
            hw.write_at(
                i,
                RSSRK::zeroed().with_key(u32::from_le_bytes([k[0], k[1], k[2], k[3]])),
            );
        }
        for (r, e) in reta(queues).iter().enumerate() {
            hw.write_at(
                r,
                RETA::zeroed()
                    .with_e0(e[0])
                    .with_e1(e[1])
                    .with_e2(e[2])
                    .with_e3(e[3]),
            );
        }
        // As `igc_setup_mrqc`: the checksum offloads as they come out of reset (TUOFL, IPOFL),
        // the hash in the descriptor instead of the raw checksum (PCSD), the SCTP offload
        // (CRCOFL), and RSS on whatever the number of queues (with one, every entry is 0).
        hw.update(RXCSUM, |c: RXCSUM| {
            c.with_pcsd(true)
                .with_crcofl(true)
                .with_tuofl(true)
                .with_ipofl(true)
        });
        hw.write_reg(
            MRQC::zeroed()
                .with_rss_field_ipv4(true)
                .with_rss_field_ipv4_tcp(true)
                .with_rss_field_ipv6(true)
                .with_rss_field_ipv6_tcp(true)
                .with_rss_field_ipv6_tcp_ex(true)
                .with_const_enable::<MRQC_ENABLE_RSS_MQ>(),
        );
        if let Ok(rlpml) = rlpml(dev.mtu()) {
            hw.write_reg(rlpml);
        }
        // Receive filters from the list as it is now, unless a `set_rx_mode` wrote a newer one
        // in the meantime.
        self.set_rx_mode_from(dev, |buf| dev.mc_addrs(buf), false);
    }

    /// Unicast/multicast promiscuity and the multicast hash table (`igc_set_rx_mode`,
    /// `igc_write_mc_addr_list`) from the multicast addresses `copy` gives (up to the length of
    /// its buffer; it returns how many there are): every one of them hashed into the MTA, as
    /// many as there are. Up to [`MC_FILTERS`] are copied on the stack, more into an atomic
    /// allocation; if that fails, or the list grew between the two copies, every multicast
    /// frame is accepted (MPE), as igc does when its allocation fails.
    ///
    /// `latest`: the list cannot change until the filters are written (`set_rx_mode`, called
    /// under the address list's lock); otherwise (`configure_mac`) nothing is written if a
    /// `set_rx_mode` wrote after the copy began, since its list is the newer one.
    pub(crate) fn set_rx_mode_from(
        &self,
        dev: &Device,
        copy: impl Fn(&mut [[u8; 6]]) -> usize,
        latest: bool,
    ) {
        let since = if latest {
            None
        } else {
            Some(self.rx_filter.lock().writes)
        };
        let mut few = [[0u8; 6]; MC_FILTERS];
        let n = copy(&mut few);
        if n <= few.len() {
            return self.write_rx_mode(dev, &few[..n], true, since);
        }
        match KVec::from_elem([0u8; 6], n, GFP_ATOMIC) {
            Ok(mut many) => {
                let m = copy(&mut many);
                self.write_rx_mode(dev, &many[..m.min(n)], m <= n, since)
            }
            Err(_) => self.write_rx_mode(dev, &[], false, since),
        }
    }

    /// Writes RCTL and the multicast hash table for `addrs`; `complete` says whether they are
    /// all the device's multicast addresses (MPE otherwise). Under [`Adapter::rx_filter`]:
    /// RCTL.EN as `start_hw` or `stop_hw` left it (a multicast join reaches `set_rx_mode`
    /// without the RTNL, in the middle of a close or a reset, and must not turn receive on
    /// again: `igc_set_rx_mode` changes only UPE and MPE), and nothing if a write came after
    /// `since`.
    fn write_rx_mode(&self, dev: &Device, addrs: &[[u8; 6]], complete: bool, since: Option<u64>) {
        let hw = &self.hw;
        let f = dev.flags();
        let promisc = f & flags::PROMISC != 0;
        let mut filter = self.rx_filter.lock();
        if filter.testing || since.is_some_and(|g| g != filter.writes) {
            return;
        }
        filter.writes = filter.writes.wrapping_add(1);
        for (i, v) in mta(addrs).iter().enumerate() {
            hw.write_at(i, MTA::zeroed().with_bits(*v));
        }
        hw.write_reg(
            RCTL::zeroed()
                .with_en(filter.on)
                .with_bam(true)
                .with_secrc(true)
                .with_lpe(true)
                .with_upe(promisc)
                .with_mpe(promisc || f & flags::ALLMULTI != 0 || !complete),
        );
    }
}

/// The RSS redirection table (`igc_setup_reta`): 128 entries spread evenly over `queues`
/// queues, four per RETA register.
pub(crate) fn reta(queues: usize) -> [[u8; 4]; 32] {
    let mut t = [[0u8; 4]; 32];
    for (r, e) in t.iter_mut().enumerate() {
        for (b, q) in e.iter_mut().enumerate() {
            *q = ((r * 4 + b) * queues / 128) as u8;
        }
    }
    t
}

/// The multicast table (`igc_hash_mc_addr` with `mc_filter_type` 0): bits 47:36 of each
/// address select one of 4096 bits.
pub(crate) fn mta(addrs: &[[u8; 6]]) -> [u32; 128] {
    let mut mta = [0u32; 128];
    for a in addrs {
        let hash = (u32::from(a[4]) >> 4 | u32::from(a[5]) << 4) & 0xFFF;
        mta[(hash >> 5) as usize & 127] |= 1 << (hash & 0x1F);
    }
    mta
}

/// The largest frame for `mtu`, as igc counts it for the flow control thresholds
/// (`adapter->max_frame_size`): Ethernet header, one VLAN tag, CRC; at least 1,518 bytes.
pub(crate) fn max_frame(mtu: u32) -> u32 {
    (mtu + 14 + 4 + 4).max(1518)
}

/// The receive length limit for `mtu`: the frame with its header, two VLAN tags (a
/// double-tagged frame, 802.1ad, at the full MTU) and the CRC. igc writes 9728, or for the
/// standard MTU the largest frame its 2 KiB `build_skb` buffers hold (1648 bytes with 4 KiB
/// pages): a length that follows its buffers. A frame spans as many of rigc's buffers as it
/// needs (fragments, `rx.rs`), so rigc's limit follows the MTU, and an oversized frame is
/// dropped and counted by the MAC (ROC, `rx_long_length_errors`) rather than by the driver.
fn rlpml(mtu: u32) -> Result<RLPML> {
    RLPML::zeroed().try_with_len(mtu + 14 + 2 * 4 + 4)
}

#[vtable]
impl dev::Operations for Adapter {
    type NapiData = PollData;
    type TxQueueData = Option<TxRing>;

    fn open(net: &Registration<Self>, parent: &device::Device<device::Bound>) -> Result {
        let mut cfg = net.cfg.lock();
        // No carrier until the first link check of this open finds the link (`__igc_open`).
        net.device().carrier_off();
        // `igc_power_up_link` and `igc_get_hw_control`: the PHY on, its link set up, the device
        // the driver's.
        power_up(net);
        // `up` leaves the interface untouched when it fails; the PHY goes down again.
        name_irqs(net, parent, cfg.queues)
            .and_then(|()| up(net, parent, &mut cfg))
            .inspect_err(|_| power_down(net))
    }

    fn stop(net: &Registration<Self>) -> Result {
        let mut cfg = net.cfg.lock();
        if cfg.up {
            drop(down(net, &mut cfg, Reset::No));
        }
        // `__igc_close`: the firmware may have the device; `igc_reset` on a device that is not
        // running: the PHY off, so the link partner sees no link.
        power_down(net);
        Ok(())
    }

    // Inlined into the kernel crate's `ndo_start_xmit` callback, its one caller: no second
    // call, frame and register saves per packet.
    #[inline]
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
        // `igc_xmit_frame`: "The minimum packet size with TCTL.PSP set is 17 bytes so pad the
        // skb in order to meet this minimum size requirement" (the MAC drops shorter ones).
        let Some(skb) = skb.put_padto(tx::MIN_FRAME) else {
            qp.txc.dropped.fetch_add(1, Relaxed);
            return Xmit::Ok;
        };
        match r.xmit(&net.hw, net.device(), parent, &qp.txc, &**net, skb) {
            Ok(()) => Xmit::Ok,
            Err(skb) => Xmit::Busy(skb),
        }
    }

    // As `start_xmit`: inlined into the NAPI callback, its one caller.
    #[inline]
    fn poll(
        net: &Registration<Self>,
        poll: &NapiPoll<'_>,
        data: &mut PollData,
        index: usize,
    ) -> Poll {
        let txq = data.tx_queue.and_then(|q| net.queues.get(q));
        let rxq = data.rx_queue.and_then(|q| net.queues.get(q));
        let dev = net.device();
        // The TX completion and the RX ring are this poll's own: no lock is held (the transmit
        // path has the TX ring's other half; the stack may transmit from the receive path).
        // Done when the TX clean ends with the ring empty before the per-poll limit.
        let mut tx_done = true;
        if let (Some(qp), Some(c)) = (txq, data.tx.as_mut()) {
            tx_done = c.clean(dev, &net.running, poll, &qp.txc);
        }
        // A budget of 0 (netpoll) allows TX cleaning only.
        let budget = poll.budget();
        let rx_done = match (&mut data.rx, rxq) {
            (Some(r), Some(qp)) => r.clean(&net.hw, dev, poll, &qp.rxc, net.rx_tstamp(), budget),
            _ => 0,
        };
        if !tx_done || rx_done >= budget {
            return Poll::Again;
        }
        // The moderation for the vector's next interrupt (`igc_ring_irq_enable`).
        // A vector serving one direction counts only its frames (`igc_update_ring_itr`).
        if let Some(vector) = net.queues.get(index) {
            let (rxp, rxb) = rxq.map_or((0, 0), |qp| {
                (qp.rxc.packets.load(Relaxed), qp.rxc.bytes.load(Relaxed))
            });
            let (txp, txb) = txq.map_or((0, 0), |qp| {
                (qp.txc.packets.load(Relaxed), qp.txc.bytes.load(Relaxed))
            });
            let (counts, mbps) = ([rxp, rxb, txp, txb], net.link_mbps.load(Relaxed));
            let eitr = match net.mode() {
                irq::Mode::MsiX { .. } => data.itr.update(counts, mbps),
                irq::Mode::Single => data.itr.update_single(counts, mbps),
            };
            if let Some(eitr) = eitr {
                vector.itr.set(eitr);
            }
        }
        Poll::Done(rx_done)
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
            s.rx_dropped += q.rxc.alloc_failed.load(Relaxed);
        }
        // As `igc_update_stats` fills `stats64`, and `ethtool -S` shows.
        let hw = *net.hwstats_copy.lock();
        let n = stats::NetStats::new(&hw, &net.sw_totals());
        s.multicast = hw.mprc;
        s.collisions = hw.colc;
        s.rx_errors = n.rx_errors;
        s.rx_length_errors = n.rx_length_errors;
        s.rx_crc_errors = hw.crcerrs;
        s.rx_frame_errors = n.rx_frame_errors;
        s.rx_missed_errors = hw.mpc;
        s.rx_fifo_errors = n.rx_fifo_errors;
        s.tx_errors = n.tx_errors;
        s.tx_aborted_errors = hw.ecol;
        s.tx_window_errors = hw.latecol;
        s.tx_dropped = n.tx_dropped;
    }

    fn set_rx_mode(net: &Registration<Self>, mc: &McList<'_>) {
        net.set_rx_mode_from(net.device(), |buf| mc.copy(buf), true);
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
        // Buffers are 2 KiB and a frame spans as many as it needs, so any MTU up to the maximum
        // (checked by the core) only needs the receive length limit and flow control thresholds.
        net.hw.write_reg(rlpml(new_mtu)?);
        net.hw
            .set_fc_watermarks(net.link.lock().fc, max_frame(new_mtu))?;
        netdev_info!(
            net.device(),
            "changing MTU from {} to {}\n",
            net.device().mtu(),
            new_mtu
        );
        Ok(())
    }

    fn tx_timeout(net: &Registration<Self>, queue: u32) {
        // `igc_tx_timeout`: count it and reset the adapter from process context.
        net.tx_timeouts.fetch_add(1, Relaxed);
        netdev_warn!(
            net.device(),
            "TX queue {} timed out, reset scheduled\n",
            queue
        );
        net.schedule_reset();
    }

    fn hwtstamp_get(net: &Registration<Self>, cfg: &mut HwTstampConfig) -> Result {
        net.hwtstamp_get(cfg)
    }

    fn hwtstamp_set(net: &Registration<Self>, cfg: &mut HwTstampConfig) -> Result {
        net.hwtstamp_set(cfg)
    }

    fn set_features(_net: &Registration<Self>, _features: u64) -> Result {
        // RX checksum and hash are applied per packet from the device's features.
        Ok(())
    }
}

#[cfg(CONFIG_RIGC_KUNIT_TEST)]
#[kernel::prelude::kunit_tests(rigc_netdev)]
mod tests {
    use super::*;

    #[test]
    fn reta_spreads_the_entries_evenly() {
        // One queue: every entry 0.
        assert!(reta(1).iter().flatten().all(|&q| q == 0));
        // Four queues: 32 consecutive entries each, in order (igc: `i * num_rx_queues / 128`).
        let t = reta(4);
        assert_eq!(t.iter().flatten().count(), 128);
        for (i, q) in t.iter().flatten().enumerate() {
            assert_eq!(usize::from(*q), i / 32);
        }
        // Two queues: the first register's four entries are all queue 0, the last's queue 1.
        assert_eq!(reta(2)[0], [0, 0, 0, 0]);
        assert_eq!(reta(2)[31], [1, 1, 1, 1]);
    }

    #[test]
    fn mta_hashes_bits_47_to_36() {
        // 01:00:5e:00:00:01 (all-hosts): hash = (0x00 >> 4 | 0x01 << 4) & 0xfff = 0x010:
        // register 0, bit 16.
        let m = mta(&[[0x01, 0x00, 0x5e, 0x00, 0x00, 0x01]]);
        assert_eq!(m[0], 1 << 16);
        assert_eq!(m.iter().filter(|&&v| v != 0).count(), 1);
        // 33:33:ff:12:34:56 (IPv6 solicited-node): (0x34 >> 4 | 0x56 << 4) & 0xfff = 0x563:
        // register 0x2b, bit 3.
        let m = mta(&[[0x33, 0x33, 0xff, 0x12, 0x34, 0x56]]);
        assert_eq!(m[0x2b], 1 << 3);
        // No address, no bit.
        assert!(mta(&[]).iter().all(|&v| v == 0));
    }

    #[test]
    fn rlpml_holds_the_largest_frame() {
        // MTU, Ethernet header, two VLAN tags, CRC: 1500 + 26.
        assert_eq!(rlpml(1500).map(|r| r.len().get()), Ok(1526));
        assert_eq!(rlpml(9216).map(|r| r.len().get()), Ok(9242));
        // Beyond the 14-bit field: refused, not truncated.
        assert!(rlpml(1 << 14).is_err());
    }
}
