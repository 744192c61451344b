// SPDX-License-Identifier: GPL-2.0

//! The self-tests of `ethtool -t` (`igc_diag.c`, `igc_ethtool_diag_test`): registers, NVM
//! checksum and link, with igc's names, order and results.

use kernel::{
    net::{dev::Registration, ethtool::SelfTest},
    netdev_err, netdev_info,
    prelude::*,
    str::CStr,
    time::{delay::fsleep, Delta, Instant, Monotonic},
};

use crate::{
    adapter::Adapter,
    hw::Hw,
    netdev::{down, power_down, up_with, Reset},
    regs::{RegTestKind, TestReg, REG_TEST, STATUS_TEST, STATUS_TOGGLE},
    watchdog::{next_watchdog, reset_mac},
};

/// The results' names, as `igc_gstrings_test`.
pub(crate) const NAMES: [&CStr; 5] = [
    c"Register test  (offline)",
    c"Eeprom test    (offline)",
    c"Interrupt test (offline)",
    c"Loopback test  (offline)",
    c"Link test   (on/offline)",
];
const TEST_REG: usize = 0;
const TEST_EEP: usize = 1;
const TEST_LINK: usize = 4;

/// The values `reg_pattern_test` writes.
const PATTERNS: [u32; 4] = [0x5A5A_5A5A, 0xA5A5_A5A5, 0x0000_0000, 0xFFFF_FFFF];

/// Writes each pattern (masked by `write`) and reads the `mask` bits back, restoring the
/// register after each (`reg_pattern_test`). `Err` holds the register that failed.
fn pattern(net: &Registration<Adapter>, reg: TestReg, mask: u32, write: u32) -> Result<(), u64> {
    let hw = &net.hw;
    for p in PATTERNS {
        let before = hw.test_read(reg);
        hw.test_write(reg, p & write);
        let val = hw.test_read(reg);
        hw.test_write(reg, before);
        if val != p & write & mask {
            netdev_err!(
                net.device(),
                "pattern test reg {:04X} failed: got 0x{:08X} expected 0x{:08X}\n",
                reg.offset(),
                val,
                p & write & mask
            );
            return Err(reg.offset() as u64);
        }
    }
    Ok(())
}

/// Writes `write & mask` and reads the `mask` bits back (`reg_set_and_check`).
fn set_read(net: &Registration<Adapter>, reg: TestReg, mask: u32, write: u32) -> Result<(), u64> {
    let hw = &net.hw;
    let before = hw.test_read(reg);
    hw.test_write(reg, write & mask);
    let val = hw.test_read(reg);
    hw.test_write(reg, before);
    if val & mask != write & mask {
        netdev_err!(
            net.device(),
            "set/check reg {:04X} test failed: got 0x{:08X} expected 0x{:08X}\n",
            reg.offset(),
            val & mask,
            write & mask
        );
        return Err(reg.offset() as u64);
    }
    Ok(())
}

/// The register test (`igc_reg_test`): STATUS first (the bits written must not change, some
/// being read only, some toggling), then igc's table. `Err` holds the result igc reports: 1
/// for STATUS, else the offset of the register that failed.
fn reg_test(net: &Registration<Adapter>) -> Result<(), u64> {
    let hw: &Hw = &net.hw;
    let before = hw.test_read(STATUS_TEST);
    hw.test_write(STATUS_TEST, STATUS_TOGGLE);
    let after = hw.test_read(STATUS_TEST) & STATUS_TOGGLE;
    if after != before & STATUS_TOGGLE {
        netdev_err!(
            net.device(),
            "failed STATUS register test got: 0x{:08X} expected: 0x{:08X}\n",
            after,
            before & STATUS_TOGGLE
        );
        return Err(1);
    }
    hw.test_write(STATUS_TEST, before);
    for t in &REG_TEST {
        for i in 0..t.count {
            match t.kind {
                RegTestKind::Pattern => pattern(net, t.reg.plus(i * 0x40), t.mask, t.write),
                RegTestKind::SetRead => set_read(net, t.reg.plus(i * 0x40), t.mask, t.write),
                RegTestKind::Table64Lo => pattern(net, t.reg.plus(i * 8), t.mask, t.write),
                RegTestKind::Table64Hi => pattern(net, t.reg.plus(4 + i * 8), t.mask, t.write),
                RegTestKind::Table32 => pattern(net, t.reg.plus(i * 4), t.mask, t.write),
            }?;
        }
    }
    Ok(())
}

/// The link test (`igc_link_test`): five seconds for autonegotiation, then the link must be up
/// (`Err(1)` if not).
fn link_test(net: &Registration<Adapter>) -> Result<(), u64> {
    fsleep(Delta::from_secs(5));
    net.hw.link().map(|_| ()).ok_or(1)
}

/// Stores a test's outcome: 0 if it passed, else its error value, and the failure flag.
fn record(test: &mut SelfTest<'_>, index: usize, outcome: Result<(), u64>) {
    if let Err(v) = outcome {
        if let Some(r) = test.results().get_mut(index) {
            *r = v;
        }
        test.fail();
    }
}

/// `ethtool -t` (`igc_ethtool_diag_test`). Online: the link test only. Offline (the default):
/// the link test, then with the interface down (brought down first if it was up) the register
/// and NVM tests, each followed by a reset, and the interface back up as it was; the PHC keeps
/// its time across the resets. The interrupt and loopback tests are not implemented by igc
/// either and report 0. The RTNL is held.
pub(crate) fn self_test(net: &Registration<Adapter>, test: &mut SelfTest<'_>) {
    let dev = net.device();
    if !test.offline() {
        netdev_info!(dev, "Online testing starting\n");
        record(test, TEST_LINK, link_test(net));
        fsleep(Delta::from_secs(4));
        return;
    }
    netdev_info!(dev, "Offline testing starting\n");
    // The PHY on for the link test (it is off while the interface is down), which runs
    // before any reset so that autonegotiation does not interfere (as igc).
    if let Err(e) = net.hw.phy_power(true) {
        netdev_err!(dev, "PHY power up failed ({:?})\n", e);
    }
    record(test, TEST_LINK, link_test(net));

    let mut cfg = net.cfg.lock();
    let was_up = cfg.up;
    // Allocated first, so that an interface that was up comes back up (igc_open could fail
    // there; nothing can once the tests have begun).
    let wd = if was_up {
        match next_watchdog(net) {
            Ok(wd) => Some(wd),
            Err(_) => {
                netdev_err!(
                    dev,
                    "no memory to take the interface down for the offline tests\n"
                );
                record(test, TEST_REG, Err(1));
                return;
            }
        }
    } else {
        None
    };
    let saved = net.systim_read(None).as_nanos();
    let since = Instant::<Monotonic>::now();
    let rings = was_up.then(|| down(net, &mut cfg, Reset::Mac));
    if !was_up {
        reset_mac(net);
    }

    netdev_info!(dev, "Register testing starting\n");
    net.rx_filter.lock().testing = true;
    record(test, TEST_REG, reg_test(net));
    net.rx_filter.lock().testing = false;
    reset_mac(net);

    netdev_info!(dev, "EEPROM testing starting\n");
    record(
        test,
        TEST_EEP,
        net.hw.validate_nvm_checksum().map_err(|_| 1),
    );
    reset_mac(net);

    net.ptp_restore(saved, since, cfg.queues);
    match (rings, wd) {
        (Some(rings), Some(wd)) => up_with(net, &mut cfg, rings, wd),
        // `igc_reset` of a device that is not running.
        _ => power_down(net),
    }
    drop(cfg);
    fsleep(Delta::from_secs(4));
}
