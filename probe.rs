// SPDX-License-Identifier: GPL-2.0

//! Probe and unbind (`igc_main.c`: `igc_probe`, `igc_remove`) and the PCI IDs of every
//! I225/I226 part (`igc_pci_tbl`, `igc_hw.h`).

use kernel::{
    debugfs,
    device::{self, Core},
    dma::DmaMask,
    io::Io,
    net::dev::{self, features, Registration},
    new_mutex, new_spinlock_irq, pci,
    prelude::*,
    str::CString,
    sync::{
        aref::ARef,
        atomic::{Atomic, Relaxed},
        Arc,
    },
    workqueue,
};

use crate::{
    adapter::{Adapter, Config, QueuePair, RxFilter, DEFAULT_RING, MAX_MTU, MAX_QUEUES},
    hw::Hw,
    irq,
    netdev::max_frame,
    phy::{FcMode, LinkConfig},
    ptp, regs,
    regs::CTRL_EXT,
    stats,
    watchdog::{LinkTask, ResetTask},
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Family {
    I225,
    I226,
    Other,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct PartInfo {
    pub(crate) name: &'static str,
    pub(crate) family: Family,
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

/// Checks that the device answers and describes it (`igc_probe`'s first reads): CTRL and EECD
/// read all ones from a device that is not there. Masks and clears every interrupt cause.
fn identify(pdev: &pci::Device, bar: &regs::Bar0<'_>, info: &PartInfo) -> Result {
    if bar.read(regs::CTRL).into_raw() == u32::MAX {
        dev_err!(pdev, "device does not respond (CTRL reads all ones)\n");
        return Err(ENODEV);
    }
    let eecd = bar.read(regs::EECD);
    if eecd.into_raw() == u32::MAX {
        dev_err!(pdev, "NVM control register reads all ones\n");
        return Err(ENXIO);
    }

    irq::mask_all(bar, u32::MAX);
    irq::clear_causes(bar);

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
    dev_info!(pdev, "PHC time at probe: {}\n", ptp::read_systim(bar));
    Ok(())
}

/// Resets the MAC, checks the NVM, reads the MAC address, takes the device from the firmware,
/// brings the link up advertising every speed, then powers the PHY down until the interface is
/// opened (`igc_reset_hw`, `igc_get_hw_control`, `igc_setup_link`, `igc_reset`).
fn init_hw(pdev: &pci::Device, hw: &Hw) -> Result<[u8; 6]> {
    if let Err(e) = hw.reset() {
        dev_err!(pdev, "MAC reset did not complete ({:?})\n", e);
        return Err(e);
    }
    // `igc_probe`: with a flash part, the NVM must hold a valid checksum.
    if hw.read(regs::EECD).flash_detected() && hw.validate_nvm_checksum().is_err() {
        dev_err!(pdev, "The NVM Checksum Is Not Valid\n");
        return Err(EIO);
    }
    let mac = hw.read_mac();
    if !dev::is_valid_ether_addr(&mac) {
        dev_err!(pdev, "invalid MAC address in the NVM\n");
        return Err(EIO);
    }
    // Tell the firmware the driver is loaded (`igc_get_hw_control`), bring the link up and
    // advertise every speed (`igc_setup_link`).
    hw.update(CTRL_EXT, |c: CTRL_EXT| c.with_drv_load(true));
    if let Err(e) = hw.setup_link(&LinkConfig::DEFAULT, max_frame(1500)) {
        dev_err!(pdev, "PHY setup failed ({:?})\n", e);
        return Err(e);
    }
    // EEE off (`igc_probe` clears `eee_enable`; `igc_reset` applies it).
    hw.set_eee(false);
    match hw.link() {
        Some(l) => dev_info!(
            pdev,
            "link up: {} Mbps {} duplex\n",
            l.mbps,
            if l.full_duplex { "full" } else { "half" }
        ),
        None => dev_info!(pdev, "link down\n"),
    }
    // Until the interface is opened, as `igc_reset` leaves a device that is not running.
    if let Err(e) = hw.phy_power(false) {
        dev_err!(pdev, "PHY power down failed ({:?})\n", e);
        return Err(e);
    }
    Ok(mac)
}

/// The network device rigc registers: four queue pairs, the offloads of `igc_probe`.
fn netdev_options(mac: [u8; 6]) -> dev::Options {
    let offloads = features::SG
        | features::IP_CSUM
        | features::IPV6_CSUM
        | features::TSO
        | features::TSO6
        | features::RXCSUM
        | features::RXHASH;
    dev::Options {
        tx_queues: MAX_QUEUES as u32,
        rx_queues: MAX_QUEUES as u32,
        napis: MAX_QUEUES,
        mac,
        hw_features: offloads,
        features: offloads | features::HIGHDMA,
        max_mtu: MAX_MTU,
    }
}

/// The PCI driver's data: the network device is owned by the device (devres), so this only
/// keeps what unbind logs.
pub(crate) struct Rigc {
    info: PartInfo,
    pub(crate) net: Arc<Registration<Adapter>>,
    /// The slot's test switches in debugfs (`rigc-<PCI address>/tx_tstamp_slot`).
    _tx_tstamp_slot: ptp::TestSwitches,
}

pub(crate) struct RigcDriver;

impl pci::Driver for RigcDriver {
    type IdInfo = PartInfo;
    type Data<'bound> = Rigc;

    const ID_TABLE: pci::IdTable<Self::IdInfo> = &PCI_TABLE;

    /// The I225 addresses 64 bits (`igc_probe`: `dma_set_mask_and_coherent(.., 64)`, which
    /// fails the probe if the platform cannot), so no buffer is bounced through swiotlb.
    const DMA_MASK: Option<DmaMask> = Some(DmaMask::new::<64>());

    /// Suspend and resume, hibernation's freeze, thaw, poweroff and restore (`igc_pm_ops`'s
    /// system sleep callbacks, `pm.rs`).
    const PM_OPS: Option<&'static pci::PmOps> = Some(&pci::PmOps::sleep::<Self>());

    fn probe<'bound>(
        pdev: &'bound pci::Device<Core<'_>>,
        info: Option<&'bound Self::IdInfo>,
    ) -> impl PinInit<Self::Data<'bound>, Error> + 'bound {
        let info = *info.ok_or(ENODEV)?;

        pdev.enable_device_mem()?;
        pdev.set_master();
        let bar = pdev.iomap_region_sized::<{ regs::BAR0_SIZE }>(0, c"rigc")?;

        identify(pdev, &bar, &info)?;

        let hw = Hw::new(bar.into_devres()?);
        let mac = init_hw(pdev, &hw)?;

        let pdev_ref: ARef<pci::Device> = ARef::from(&**pdev);
        let mut queues = KVec::with_capacity(MAX_QUEUES, GFP_KERNEL)?;
        for i in 0..MAX_QUEUES {
            queues.push(
                KBox::pin_init(QueuePair::new(i as u16), GFP_KERNEL)?,
                GFP_KERNEL,
            )?;
        }
        // Where the clock's external timestamps and PPS events go from the time sync interrupt:
        // made before the adapter that holds it, attached when the clock is registered.
        let ptp_events = kernel::ptp::Events::new()?;
        let adapter_events = ptp_events.clone();
        let data = try_pin_init!(Adapter {
            hw,
            pdev: pdev_ref,
            info,
            queues,
            cfg <- new_mutex!(Config {
                up: false,
                tx_ring: DEFAULT_RING,
                rx_ring: DEFAULT_RING,
                queues: MAX_QUEUES,
            }),
            link <- new_mutex!(LinkConfig::DEFAULT),
            fc_current: Atomic::new(FcMode::Full.to_raw()),
            irqs <- new_mutex!(None),
            mode: Atomic::new(0),
            queue_vectors: Atomic::new(0),
            hwstats <- new_mutex!(stats::HwStats::default()),
            hwstats_copy <- new_spinlock_irq!(stats::HwStats::default()),
            watchdog_gen: Atomic::new(0),
            watchdog <- new_mutex!(None),
            running: Atomic::new(false),
            tx_timeouts: Atomic::new(0),
            tx_dma_out_of_sync: Atomic::new(0),
            reset_task <- new_spinlock_irq!(None, "rigc_reset_task"),
            link_task <- new_spinlock_irq!(None, "rigc_link_task"),
            rx_filter <- new_spinlock_irq!(RxFilter::default(), "rigc_rx_filter"),
            link_mbps: Atomic::new(0),
            asleep <- new_mutex!(None),
            ptp <- ptp::Ptp::new(adapter_events),
        }? Error);
        let opts = netdev_options(mac);
        let parent: &device::Device<device::Bound> = pdev.as_ref();
        let net = Registration::register(parent, opts, data, |net| {
            // MSI-X: the other vector and one per queue pair; else one MSI or INTx vector.
            // The handlers hold the registration, and it holds them (to name them at open).
            // The device keeps a reference of its own, dropped after the handlers are revoked
            // at unbind (devres runs in reverse), so that the last one is never dropped inside
            // that revocation, which would wait for itself.
            kernel::devres::register(parent, net.arc(), GFP_KERNEL)?;
            // No carrier until the interface is up with a link (`igc_probe`): "Link detected:
            // no" before the first open.
            net.device().carrier_off();
            let (irqs, kind) = pdev.register_irq_handlers_named(
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
            let n = irqs.access(parent)?.lock().len();
            // Named after the interface at every open (`netdev::name_irqs`).
            *net.irqs.lock() = Some(irqs);
            let queues = if matches!(kind, pci::IrqType::MsiX) && n > 1 {
                net.queue_vectors.store((n - 1) as u32, Relaxed);
                net.mode.store(1, Relaxed);
                // Each queue vector's NAPI context is scheduled by its vector
                // (`netif_napi_set_irq` in `igc_request_msix`).
                for q in 0..n - 1 {
                    if let (Some(napi), Ok(irq)) =
                        (net.napi(q), pdev.irq_vector_number((q + 1) as u32))
                    {
                        napi.set_irq(irq as i32);
                    }
                }
                // As many queue pairs as CPUs, up to the vectors there are
                // (`igc_init_queue_configuration`); `ethtool -L` may use them all.
                (n - 1).min(kernel::cpu::num_online_cpus() as usize).max(1)
            } else {
                1
            };
            net.cfg.lock().queues = queues;
            net.set_real_num_queues(queues as u32, queues as u32)?;
            // The PTP clock (`igc_ptp_init`, `igc_ptp_reset`), named as igc names it: its MAC
            // address in hex ("%pm").
            net.ptp_reset();
            let clock_name = CString::try_from_fmt(fmt!(
                "{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
                mac[0],
                mac[1],
                mac[2],
                mac[3],
                mac[4],
                mac[5]
            ))?;
            // Two external timestamp channels, two periodic outputs, the PPS event and four pins
            // (`igc_ptp_init` for the I225).
            let caps = kernel::ptp::Capabilities {
                n_ext_ts: ptp::N_EXTTS,
                n_per_out: ptp::N_PEROUT,
                pps: true,
                pins: &ptp::PIN_NAMES,
                extts_flags: ptp::EXTTS_FLAGS,
                events: Some(ptp_events),
                ..kernel::ptp::Capabilities::new(ptp::MAX_ADJ_PPB)
            };
            let index = kernel::ptp::Registration::register(
                parent,
                &<crate::LocalModule as kernel::ModuleMetadata>::THIS_MODULE,
                &clock_name,
                caps,
                ptp::PtpClock::new(net.clone()),
            )?;
            net.ptp.phc_index.store(index, Relaxed);
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
        // Each task holds the registration, and the registration holds the tasks once they are
        // published: made first, published only when nothing is left to fail (a failed probe
        // runs no unbind, which is what takes them out again).
        let reset_task = ResetTask::new(net.clone())?;
        let link_task = LinkTask::new(net.clone())?;
        let parent: &device::Device = pdev.as_ref();
        let name = CString::try_from_fmt(fmt!("rigc-{}", parent.name().to_str().unwrap_or("?")))?;
        let tx_tstamp_slot = ptp::debugfs_file(&debugfs::Dir::new(&name), net.clone())?;
        *net.reset_task.lock() = Some(reset_task);
        *net.link_task.lock() = Some(link_task);
        Ok(Rigc {
            info,
            net,
            _tx_tstamp_slot: tx_tstamp_slot,
        })
    }

    fn unbind<'bound>(pdev: &'bound pci::Device<Core<'_>>, this: Pin<&Self::Data<'bound>>) {
        dev_info!(
            pdev,
            "{}: unbinding {}\n",
            this.net.device().name(),
            this.info.name
        );
        // The firmware may have the device back (`igc_release_hw_control` in `igc_remove`);
        // the unregistration that follows closes the interface and powers the PHY down.
        this.net
            .hw
            .update(CTRL_EXT, |c: CTRL_EXT| c.with_drv_load(false));
        // Nothing queues the reset after this; wait for one that is queued or running. The
        // RTNL is not held here (the unregistration comes after), so waiting cannot deadlock.
        let task = this.net.reset_task.lock().take();
        if let Some(task) = task {
            workqueue::cancel_work_sync(&task);
        }
        let task = this.net.link_task.lock().take();
        if let Some(task) = task {
            workqueue::cancel_work_sync(&task);
        }
    }
}
