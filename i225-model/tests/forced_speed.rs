// SPDX-License-Identifier: GPL-2.0

//! Forced speed across the cable between two ports: what one PHY is forced to reaches the
//! other, and both ends agree on the speed (the forcing end's own view was all that changed).

use i225_model::phy::{bmcr, BMCR};
use i225_model::port::Port;
use i225_model::regs::{self, mdic};

mod common;

fn link(p: &Port) -> Option<(u32, bool)> {
    p.with_device(|d| d.mac.link().map(|l| (l.speed.mbps(), l.full_duplex)))
}

fn write_bmcr(p: &Port, val: u16) {
    p.with_device(|d| {
        let cmd = (u32::from(BMCR) << mdic::REG_SHIFT) | mdic::OP_WRITE | u32::from(val);
        d.mac.write32(regs::MDIC, cmd, &d.dma);
    });
}

#[test]
fn forced_speed_reaches_the_partner_over_the_wire() {
    let ports = common::cabled_ports(2, "fs");
    common::wait_for("2.5G on both ends", || ports.iter().all(|p| link(p) == Some((2500, true))));
    // igc_force_speed_duplex for `ethtool -s autoneg off speed 100 duplex full`.
    write_bmcr(&ports[0], bmcr::SPEED_100 | bmcr::DUPLEX);
    common::wait_for("100 Mb/s on both ends", || {
        link(&ports[0]) == Some((100, true)) && link(&ports[1]) == Some((100, false))
    });
    // Both forced, at different speeds: no link.
    write_bmcr(&ports[1], bmcr::DUPLEX);
    common::wait_for("no link at 100 against 10", || ports.iter().all(|p| link(p).is_none()));
    write_bmcr(&ports[1], bmcr::AN_ENABLE | bmcr::RESTART_AN);
    write_bmcr(&ports[0], bmcr::AN_ENABLE | bmcr::RESTART_AN);
    common::wait_for("2.5G again", || ports.iter().all(|p| link(p) == Some((2500, true))));
    for p in &ports {
        p.shutdown();
    }
}
