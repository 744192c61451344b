// SPDX-License-Identifier: GPL-2.0

//! The ethtool operations (`igc_ethtool.c`): driver information, link settings, statistics,
//! self-tests (run by `diag.rs`), rings, channels, the timestamping capabilities and the private
//! flags (`igc_ethtool_get_priv_flags`).

use kernel::{
    device,
    net::{
        dev::{hwtstamp, Registration},
        ethtool::{
            self, sof, Channels, DrvInfo, Eee, LinkMode, LinkSettings, Mdix, PauseParam, RingParam,
            SelfTest, TsInfo, SPEED_UNKNOWN,
        },
    },
    netdev_err, netdev_info,
    prelude::*,
    str::{CStr, CString},
    sync::atomic::Relaxed,
};

use crate::{
    adapter::{Adapter, MAX_RING, MIN_RING},
    diag, irq,
    netdev::{max_frame, reconfigure},
    phy::{Advertise, FcMode, Forced},
    stats,
};

/// The private flags (`ethtool --show-priv-flags`): `tx-tstamp-4-sets` lets up to four TX
/// timestamp requests wait at once, one per register set of the I225, as C igc always does;
/// off, the default, one request waits and the others are skipped (`tx_hwtstamp_skipped`).
const PRIV_FLAGS: [&CStr; 1] = [c"tx-tstamp-4-sets"];
/// The bit of `tx-tstamp-4-sets`.
const PRIV_TX_TSTAMP_4_SETS: u32 = 1 << 0;

#[vtable]
impl ethtool::Operations for Adapter {
    fn get_ts_info(net: &Registration<Self>, info: &mut TsInfo) -> Result {
        // As igc_ethtool_get_ts_info.
        info.set_so_timestamping(
            sof::TX_SOFTWARE | sof::TX_HARDWARE | sof::RX_HARDWARE | sof::RAW_HARDWARE,
        );
        info.set_phc_index(net.ptp.phc_index.load(Relaxed));
        info.set_tx_types(1 << hwtstamp::TX_OFF | 1 << hwtstamp::TX_ON);
        info.set_rx_filters(1 << hwtstamp::FILTER_NONE | 1 << hwtstamp::FILTER_ALL);
        Ok(())
    }

    fn get_drvinfo(net: &Registration<Self>, info: &mut DrvInfo<'_>) {
        info.set_driver(c"rigc");
        // As `igc_ethtool_get_drvinfo`: "NVM:gPHY" in hex, the NVM image's version and the
        // PHY's firmware version, each 0 when it cannot be read.
        let nvm = net.hw.nvm_version().unwrap_or(0);
        let gphy = net.hw.phy_fw_version().unwrap_or(0);
        if let Ok(version) = CString::try_from_fmt(fmt!("{nvm:x}:{gphy:x}")) {
            info.set_fw_version(&version);
        }
        let dev: &device::Device = net.pdev.as_ref();
        info.set_bus_info(dev.name());
    }

    fn get_link_ksettings(net: &Registration<Self>, ks: &mut LinkSettings) -> Result {
        // As `igc_ethtool_get_link_ksettings`.
        for m in [
            LinkMode::T10Half,
            LinkMode::T10Full,
            LinkMode::T100Half,
            LinkMode::T100Full,
            LinkMode::T1000Full,
            LinkMode::T2500Full,
            LinkMode::Autoneg,
            LinkMode::Tp,
            LinkMode::Pause,
        ] {
            ks.add_supported(m);
        }
        ks.add_advertising(LinkMode::Tp);
        ks.set_port_tp(1);
        let lc = *net.link.lock();
        if lc.forced.is_none() {
            ks.set_autoneg(true);
            ks.add_advertising(LinkMode::Autoneg);
            // The speeds asked for, as igc reports `hw->phy.autoneg_advertised`.
            let adv = lc.advertise;
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
            // The PAUSE bits the requested flow control advertises.
            match lc.fc {
                FcMode::Full => ks.add_advertising(LinkMode::Pause),
                FcMode::RxPause => {
                    ks.add_advertising(LinkMode::Pause);
                    ks.add_advertising(LinkMode::AsymPause);
                }
                FcMode::TxPause => ks.add_advertising(LinkMode::AsymPause),
                FcMode::None => {}
            }
        } else {
            ks.set_autoneg(false);
        }
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
        // igc never detects a crossover (`hw->phy.is_mdix` stays false): MDI, and the
        // control as it was asked for.
        ks.set_mdix(Mdix::Mdi, lc.mdix);
        Ok(())
    }

    fn set_link_ksettings(net: &Registration<Self>, ks: &LinkSettings) -> Result {
        // As `igc_ethtool_set_link_ksettings`: its checks, errors and messages.
        let dev = net.device();
        // The firmware uses the PHY (MANC.BLK_PHY_RST_ON_IDE): its link stays as it is.
        if net.hw.phy_reset_blocked() {
            netdev_err!(
                dev,
                "Cannot change link characteristics when reset is active\n"
            );
            return Err(EINVAL);
        }
        let mdix = ks.mdix_ctrl();
        if mdix.is_some_and(|m| m != Mdix::Auto) && !ks.autoneg() {
            netdev_err!(
                dev,
                "Forcing MDI/MDI-X state is not supported when link speed and/or duplex are forced\n"
            );
            return Err(EINVAL);
        }
        let mut lc = net.link.lock();
        let mut new = *lc;
        if ks.autoneg() {
            let mut adv = Advertise::default();
            link_mode_speed(ks, &mut adv);
            // Nothing asked for is every speed, as `igc_copper_link_autoneg` takes it.
            if adv.is_empty() {
                adv = Advertise::ALL;
            }
            new.forced = None;
            new.advertise = adv;
            if new.fc_autoneg {
                new.fc = FcMode::Full;
            }
        } else {
            if !matches!(ks.speed(), 10 | 100) {
                netdev_info!(dev, "Unsupported speed for forced link\n");
                return Err(EINVAL);
            }
            let Some(full_duplex) = ks.full_duplex() else {
                netdev_info!(dev, "Duplex must be half or full for forced link\n");
                return Err(EINVAL);
            };
            new.forced = Some(Forced {
                mbps: ks.speed(),
                full_duplex,
            });
        }
        if let Some(m) = mdix {
            new.mdix = m;
        }
        // The link is set up again, as igc's `igc_down`/`igc_up` or `igc_reset` do: a new
        // negotiation, or the forced speed.
        net.hw.setup_link(&new, max_frame(dev.mtu()))?;
        *lc = new;
        // Flow control and carrier from the new link, as igc's `igc_up` has the watchdog look
        // at once: the link may come back without a link interrupt in between.
        net.schedule_link_check();
        Ok(())
    }

    fn get_pauseparam(net: &Registration<Self>, pause: &mut PauseParam) {
        // As `igc_ethtool_get_pauseparam`: the mode resolved at the last link up.
        let fc = FcMode::from_raw(net.fc_current.load(Relaxed));
        pause.autoneg = net.link.lock().fc_autoneg;
        pause.rx_pause = fc.rx();
        pause.tx_pause = fc.tx();
    }

    fn set_pauseparam(net: &Registration<Self>, pause: &PauseParam) -> Result {
        // As `igc_ethtool_set_pauseparam`: negotiated, full flow control is advertised and the
        // link set up again; else the mode asked for is set in the MAC at once.
        let dev = net.device();
        let mut lc = net.link.lock();
        lc.fc_autoneg = pause.autoneg;
        if pause.autoneg {
            lc.fc = FcMode::Full;
            net.hw.setup_link(&lc, max_frame(dev.mtu()))?;
            net.schedule_link_check();
            Ok(())
        } else {
            let fc = FcMode::from_rx_tx(pause.rx_pause, pause.tx_pause);
            lc.fc = fc;
            net.fc_current.store(fc.to_raw(), Relaxed);
            net.hw.force_mac_fc(fc);
            Ok(())
        }
    }

    fn get_eee(net: &Registration<Self>, eee: &mut Eee) -> Result {
        // As `igc_ethtool_get_eee`.
        for m in [LinkMode::T2500Full, LinkMode::T1000Full, LinkMode::T100Full] {
            eee.add_supported(m);
        }
        let st = net.hw.eee_state().map_err(|_| {
            netdev_err!(net.device(), "Failed to read IEEE 7.60 register\n");
            EINVAL
        })?;
        for (on, m) in [
            (st.advertised.m1000, LinkMode::T1000Full),
            (st.advertised.m100, LinkMode::T100Full),
            (st.advertised.m2500, LinkMode::T2500Full),
        ] {
            if on {
                eee.add_advertised(m);
            }
        }
        for (on, m) in [
            (st.lp_advertised.m1000, LinkMode::T1000Full),
            (st.lp_advertised.m100, LinkMode::T100Full),
            (st.lp_advertised.m2500, LinkMode::T2500Full),
        ] {
            if on {
                eee.add_lp_advertised(m);
            }
        }
        eee.set_active(st.active);
        eee.set_tx_lpi_enabled(st.tx_lpi);
        eee.set_enabled(net.link.lock().eee);
        // "Report correct negotiated EEE status for devices that wrongly report EEE at half
        // duplex".
        if net.hw.link().is_some_and(|l| !l.full_duplex) {
            eee.set_enabled(false);
            eee.set_active(false);
            eee.set_tx_lpi_enabled(false);
            eee.clear_advertised();
        }
        Ok(())
    }

    fn set_eee(
        net: &Registration<Self>,
        _parent: &device::Device<device::Bound>,
        eee: &Eee,
    ) -> Result {
        // As `igc_ethtool_set_eee`: only EEE on or off can change.
        let dev = net.device();
        let mut lc = net.link.lock();
        let tx_lpi_now = net.hw.eee_state().map(|s| s.tx_lpi).map_err(|_| {
            netdev_err!(dev, "Problem setting EEE advertisement options\n");
            EINVAL
        })?;
        if lc.eee {
            if tx_lpi_now != eee.tx_lpi_enabled() {
                netdev_err!(dev, "Setting EEE tx-lpi is not supported\n");
                return Err(EINVAL);
            }
            if eee.tx_lpi_timer() != 0 {
                netdev_err!(dev, "Setting EEE Tx LPI timer is not supported\n");
                return Err(EINVAL);
            }
        } else if !eee.enabled() {
            netdev_err!(
                dev,
                "Setting EEE options are not supported with EEE disabled\n"
            );
            return Err(EINVAL);
        }
        if lc.eee != eee.enabled() {
            lc.eee = eee.enabled();
            // igc resets the adapter; the advertisement changes with a new negotiation.
            net.hw.set_eee(lc.eee);
            net.hw.setup_link(&lc, max_frame(dev.mtu()))?;
            net.schedule_link_check();
        }
        Ok(())
    }

    const STATS_STRINGS: &'static [&'static CStr] = &stats::NAMES;

    const TEST_STRINGS: &'static [&'static CStr] = &diag::NAMES;

    fn self_test(net: &Registration<Self>, test: &mut SelfTest<'_>) {
        diag::self_test(net, test)
    }

    const PRIV_FLAGS_STRINGS: &'static [&'static CStr] = &PRIV_FLAGS;

    fn get_priv_flags(net: &Registration<Self>) -> u32 {
        u32::from(net.ptp.txts.lock().four_sets()) * PRIV_TX_TSTAMP_4_SETS
    }

    fn set_priv_flags(net: &Registration<Self>, flags: u32) -> Result {
        let four = flags & PRIV_TX_TSTAMP_4_SETS != 0;
        let mut slot = net.ptp.txts.lock();
        // Requests wait in their register sets: changing the sets under them would strand one.
        if let Err(e) = slot.set_four_sets(four) {
            drop(slot);
            netdev_err!(
                net.device(),
                "tx-tstamp-4-sets: TX timestamps are waiting, try again\n"
            );
            return Err(e);
        }
        Ok(())
    }

    fn get_ethtool_stats(net: &Registration<Self>, data: &mut [u64]) {
        let hw = net.update_stats();
        let sw = net.sw_totals();
        let mut queues = [stats::QueueValues::default(); stats::STAT_QUEUES];
        for (q, v) in net.queues.iter().zip(queues.iter_mut()) {
            *v = stats::QueueValues {
                tx_packets: q.txc.packets.load(Relaxed),
                tx_bytes: q.txc.bytes.load(Relaxed),
                tx_restart: q.txc.restart.load(Relaxed),
                rx_packets: q.rxc.packets.load(Relaxed),
                rx_bytes: q.rxc.bytes.load(Relaxed),
                rx_csum_err: q.rxc.csum_err.load(Relaxed),
                rx_alloc_failed: q.rxc.alloc_failed.load(Relaxed),
            };
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

/// The speeds `ks` advertises (`igc_ethtool_set_link_ksettings`).
fn link_mode_speed(ks: &LinkSettings, adv: &mut Advertise) {
    adv.m10_half = ks.advertising(LinkMode::T10Half);
    adv.m10 = ks.advertising(LinkMode::T10Full);
    adv.m100_half = ks.advertising(LinkMode::T100Half);
    adv.m100 = ks.advertising(LinkMode::T100Full);
    adv.m1000 = ks.advertising(LinkMode::T1000Full);
    adv.m2500 = ks.advertising(LinkMode::T2500Full);
}
