// SPDX-License-Identifier: GPL-2.0

//! rigc: a Rust driver for the Intel(R) Ethernet Controller I225/I226 family.
//!
//! This is the crate root: the module, the PCI driver and (as the driver grows) the netdev
//! operations. The hardware is described in [`regs`]; the datapath lives in [`tx`], [`rx`] and
//! [`irq`], and the PTP hardware clock in [`ptp`].
//!
//! The C `igc` driver serves the same devices and is the reference for the hardware's behaviour.

use kernel::{
    device::Core,
    io::Io,
    pci,
    prelude::*, //
};

mod irq;
mod ptp;
mod regs;
mod rx;
mod tx;

/// The two families the C driver tells apart (`igc_is_device_id_i225/i226`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    I225,
    I226,
    /// IDs in neither helper list (I220-V, I221-V, I226-LMvP, the blank-NVM parts).
    Other,
}

/// Per-ID information from the device table.
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

/// A bound I225/I226 port.
struct Rigc<'bound> {
    pdev: &'bound pci::Device,
    bar: regs::Bar0<'bound>,
    info: &'bound PartInfo,
}

impl Rigc<'_> {
    /// Reads the link state from STATUS and logs it, as the C driver's watchdog reports it.
    fn log_link(&self) {
        let status = self.bar.read(regs::STATUS);
        if status.lu() {
            dev_info!(
                self.pdev,
                "link up: {} Mbps {} duplex\n",
                status.speed().mbps(),
                if status.fd() { "full" } else { "half" }
            );
        } else {
            dev_info!(self.pdev, "link down\n");
        }
    }
}

/// The PCI driver.
struct RigcDriver;

impl pci::Driver for RigcDriver {
    type IdInfo = PartInfo;
    type Data<'bound> = Rigc<'bound>;

    const ID_TABLE: pci::IdTable<Self::IdInfo> = &PCI_TABLE;

    fn probe<'bound>(
        pdev: &'bound pci::Device<Core<'_>>,
        info: Option<&'bound Self::IdInfo>,
    ) -> impl PinInit<Self::Data<'bound>, Error> + 'bound {
        let info = info.ok_or(ENODEV)?;

        pdev.enable_device_mem()?;
        pdev.set_master();
        let bar = pdev.iomap_region_sized::<{ regs::BAR0_SIZE }>(0, c"rigc")?;

        // A surprise-removed device reads all ones; CTRL never does on a live one.
        if bar.read(regs::CTRL).into_raw() == u32::MAX {
            dev_err!(pdev, "device does not respond (CTRL reads all ones)\n");
            return Err(ENODEV);
        }
        // igc_get_invariants_base() fails probe the same way.
        let eecd = bar.read(regs::EECD);
        if eecd.into_raw() == u32::MAX {
            dev_err!(pdev, "NVM control register reads all ones\n");
            return Err(ENXIO);
        }

        // Nothing is requested yet: keep every interrupt source masked (igc_irq_disable()).
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

        let this = Rigc { pdev, bar, info };
        this.log_link();
        Ok(this)
    }

    fn unbind<'bound>(pdev: &'bound pci::Device<Core<'_>>, this: Pin<&Self::Data<'bound>>) {
        dev_info!(pdev, "unbinding {}\n", this.info.name);
    }
}

kernel::module_pci_driver! {
    type: RigcDriver,
    name: "rigc",
    authors: ["The rigc developers"],
    description: "Intel(R) 2.5G Ethernet Controller I225/I226 driver (Rust)",
    license: "GPL",
}
