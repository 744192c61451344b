// SPDX-License-Identifier: GPL-2.0

//! Public forms of the stock kernel crate's crate-private methods that the
//! series' files call, for rigc's stock-kernel build.
//!
//! In the kernel crate the series' files may call `pub(crate)` methods of
//! other modules; compiled outside it (in `rigc_kernel.rs`) they cannot, and
//! a method call resolves to the trait method here instead (it is in scope
//! through this crate's prelude), which does the same thing with public means.

use crate::{bindings, device};

/// [`device::Device::as_raw`], which is `pub(crate)` in the stock crate.
pub trait DeviceRaw {
    /// The `struct device` this device wraps.
    fn as_raw(&self) -> *mut bindings::device;
}

impl<Ctx: device::DeviceContext> DeviceRaw for device::Device<Ctx> {
    #[inline]
    fn as_raw(&self) -> *mut bindings::device {
        // `Device` is `#[repr(transparent)]` over `Opaque<bindings::device>`, itself
        // `#[repr(transparent)]` over the C struct: the same address, as `Device::as_raw`
        // computes it in the stock crate (`self.0.get()`).
        core::ptr::from_ref(self).cast_mut().cast()
    }
}
