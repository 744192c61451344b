// SPDX-License-Identifier: GPL-2.0

//! Helpers shared by the integration tests: waiting for a condition, temporary socket paths
//! removed at the end of a test, memfd-backed guest RAM, and two cabled ports.

#![allow(dead_code)] // Each test binary uses a part of them.

use std::os::fd::{FromRawFd, OwnedFd};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use i225_model::device::{Device, REGION_BAR0, REGION_CONFIG};
use i225_model::mac::MacConfig;
use i225_model::pci_config::{self, command};
use i225_model::phy::Abilities;
use i225_model::port::Port;
use i225_model::ptp::{HostClock, PtpConfig};
use i225_model::regs;
use i225_model::wire::Wire;

/// The MAC addresses of the two ports, as lab/vm gives them.
pub const MAC0: [u8; 6] = [0x02, 0x1a, 0x25, 0, 0, 1];
pub const MAC1: [u8; 6] = [0x02, 0x1a, 0x25, 0, 0, 2];

/// Polls `cond` every 5 ms; fails the test after 5 s.
pub fn wait_for(what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A socket path unique to this process and call, in the temporary directory.
pub fn socket_path(tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let n = N.fetch_add(1, Ordering::SeqCst);
    let path = std::env::temp_dir().join(format!("i225-model-test-{}-{tag}-{n}.sock", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

/// Socket paths, removed when the test ends.
pub struct Sockets(pub Vec<PathBuf>);

impl std::ops::Deref for Sockets {
    type Target = [PathBuf];
    fn deref(&self) -> &[PathBuf] {
        &self.0
    }
}

impl Drop for Sockets {
    fn drop(&mut self) {
        for p in &self.0 {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// A memfd of `size` bytes, the guest RAM the model maps.
pub fn memfd(name: &std::ffi::CStr, size: u64) -> OwnedFd {
    // SAFETY: plain syscalls creating a descriptor we own.
    unsafe {
        let fd = libc::memfd_create(name.as_ptr(), 0);
        assert!(fd >= 0);
        assert_eq!(libc::ftruncate(fd, size as libc::off_t), 0);
        OwnedFd::from_raw_fd(fd)
    }
}

/// What every driver does before it moves a frame: memory space and bus
/// mastering on (pci_enable_device_mem, pci_set_master), and CTRL.SLU.
pub fn driver_ready(d: &mut Device) {
    d.write(REGION_CONFIG, pci_config::COMMAND as u64, &(command::MEMORY | command::BUS_MASTER).to_le_bytes()).unwrap();
    let ctrl = d.mac.read32(regs::CTRL);
    d.write(REGION_BAR0, regs::CTRL.into(), &(ctrl | regs::ctrl::SLU).to_le_bytes()).unwrap();
}

/// `n` ports cabled together, named `{prefix}{i}`, with [`MAC0`], [`MAC1`],
/// each as a driver readies it ([`driver_ready`]).
pub fn cabled_ports(n: usize, prefix: &str) -> Vec<Arc<Port>> {
    let wire = Wire::new(n, 50, Abilities::ALL);
    (0..n)
        .map(|i| {
            let cfg = MacConfig { mac_addr: [MAC0, MAC1][i], ptp: PtpConfig::default() };
            let port = Port::spawn(format!("{prefix}{i}"), i, 0x15F3, cfg, Arc::new(HostClock), &wire).0;
            port.with_device(driver_ready);
            port
        })
        .collect()
}
