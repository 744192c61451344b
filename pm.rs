// SPDX-License-Identifier: GPL-2.0

//! System sleep (`igc_suspend`, `__igc_shutdown`, `igc_resume`, `__igc_resume` in
//! `igc_main.c`): the interface is closed before the system sleeps, since the device may lose
//! power (D3cold, hibernation), and opened again after a MAC reset, with the PHC's time carried
//! over the sleep as `igc_ptp_suspend` and `igc_ptp_reset` carry it.
//!
//! Where rigc differs from igc, and why:
//! - The rings of an interface that was up are kept across the sleep, emptied, with the
//!   watchdog of the next generation: igc frees them and allocates them again in
//!   `__igc_open`, so its resume can fail for memory; rigc's cannot.
//! - The interrupt vectors stay allocated (igc frees and requests them again,
//!   `igc_clear_interrupt_scheme`): they are device resources of the binding, the PCI core
//!   saves and restores the MSI-X table with the configuration space, and every cause is
//!   masked while the device sleeps.
//! - The device stays enabled (igc calls `pci_disable_device` and `pci_enable_device_mem`):
//!   the PCI core restores the command register, bus mastering with it, before resume.
//! - No wake-up: Wake-on-LAN is not implemented yet, so WUC and WUFC keep their reset value
//!   (0), and the PHY is powered down unless the firmware forbids it, as igc does without WoL.
//! - A closed interface resumes with the PHY down and the device the firmware's (DRV_LOAD
//!   clear), as rigc's close leaves it; igc's resume takes the device (`igc_get_hw_control`)
//!   even for a closed interface.

use kernel::{
    device::Core,
    net::{dev::Registration, rtnl},
    pci,
    prelude::*,
    sync::Arc,
    time::{Instant, Monotonic},
};

use crate::{
    adapter::Adapter,
    netdev::{down, power_down, power_up, up_with, Reset, Rings},
    probe::{Rigc, RigcDriver},
    watchdog::{next_watchdog, reset_mac, Watchdog},
};

/// What a suspended adapter keeps for its resume ([`Adapter::asleep`]).
pub(crate) struct Asleep {
    /// The rings and the next watchdog of an interface that was up.
    up: Option<(Rings, Arc<Watchdog>)>,
    /// The PHC's time at suspend, and when it was read (`igc_ptp_time_save`).
    saved_ns: i64,
    since: Instant<Monotonic>,
}

impl pci::Sleep for RigcDriver {
    fn suspend<'bound>(_pdev: &'bound pci::Device<Core<'_>>, this: Pin<&Rigc>) -> Result {
        let net = &*this.net;
        let dev = net.device();
        // Allocated first: a failure aborts the suspend with the interface as it was.
        let wd = next_watchdog(net)?;
        let _rtnl = rtnl::lock();
        let mut cfg = net.cfg.lock();
        // `__igc_shutdown`: the stack stops using the interface, which is closed (the TX
        // timestamp request still waiting is freed with it), and the PHC's time is saved.
        dev.detach();
        let saved_ns = net.systim_read(None).as_nanos();
        let since = Instant::<Monotonic>::now();
        let up = if cfg.up {
            Some((down(net, &mut cfg, Reset::No), wd))
        } else {
            None
        };
        // No wake-up: the PHY down unless the firmware forbids it, and the device given back
        // to the firmware (`igc_power_down_phy_copper_base`, `igc_release_hw_control`).
        power_down(net);
        *net.asleep.lock() = Some(Asleep {
            up,
            saved_ns,
            since,
        });
        Ok(())
    }

    fn resume<'bound>(_pdev: &'bound pci::Device<Core<'_>>, this: Pin<&Rigc>) -> Result {
        let net = &*this.net;
        let _rtnl = rtnl::lock();
        // A resume without a suspend: the suspend failed, or was not reached.
        let Some(asleep) = net.asleep.lock().take() else {
            return Ok(());
        };
        resume_adapter(net, asleep)
    }
}

/// `__igc_resume`: the device as it comes out of a power loss is reset and the PHC's time
/// restored, then the interface opened again if it was up. Under the RTNL.
fn resume_adapter(net: &Registration<Adapter>, asleep: Asleep) -> Result {
    let dev = net.device();
    // `pci_device_is_present`: a device that went away while the system slept.
    net.hw.flush();
    if net.hw.removed() {
        return Err(ENODEV);
    }
    let mut cfg = net.cfg.lock();
    // `igc_reset`: the MAC reset, the device the driver's, the link set up; the PHC restarted
    // at the time it had plus the time slept (`igc_ptp_reset`).
    reset_mac(net);
    net.ptp_restore(asleep.saved_ns, asleep.since, cfg.queues);
    match asleep.up {
        Some((rings, wd)) => {
            // `__igc_open`.
            power_up(net);
            up_with(net, &mut cfg, rings, wd);
        }
        None => power_down(net),
    }
    dev.attach();
    Ok(())
}
