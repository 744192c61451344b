// SPDX-License-Identifier: GPL-2.0

//! The ethtool operations (`igc_ethtool.c`): driver information, link settings, statistics,
//! self-tests (run by `diag.rs`), rings, channels and the timestamping capabilities.

use kernel::{
    device,
    net::{
        dev::{hwtstamp, Registration},
        ethtool::{
            self, sof, Channels, DrvInfo, LinkMode, LinkSettings, RingParam, SelfTest, TsInfo,
            SPEED_UNKNOWN,
        },
    },
    netdev_info,
    prelude::*,
    str::{CStr, CString},
    sync::atomic::Relaxed,
};

use crate::{
    adapter::{Adapter, MAX_RING, MIN_RING},
    diag, irq,
    netdev::reconfigure,
    phy::Advertise,
    stats,
};

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
            netdev_info!(
                net.device(),
                "forced speed/duplex is not supported, advertise a speed with autoneg on\n"
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

    const TEST_STRINGS: &'static [&'static CStr] = &diag::NAMES;

    fn self_test(net: &Registration<Self>, test: &mut SelfTest<'_>) {
        diag::self_test(net, test)
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
