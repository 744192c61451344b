// SPDX-License-Identifier: GPL-2.0

//! The port's worker does the timed TX work: of two frames fetched at the tail write, the
//! second reaches the cable once the first has left at the link's line rate (here 10 Mb/s,
//! forced), not at the tail write; the worker wakes for it by itself. On a virtual clock, so
//! the wire time is exact and only the worker's wake-up is real.

use std::sync::Arc;
use std::time::Duration;

use i225_model::dma::GuestMemory;
use i225_model::mac::tx::{wire_ns, TX_HANDOFF_LEAD_NS};
use i225_model::mac::MacConfig;
use i225_model::phy::{bmcr, Abilities, BMCR};
use i225_model::port::Port;
use i225_model::ptp::{PtpConfig, VirtualClock};
use i225_model::regs::{self, mdic, txq};
use i225_model::wire::Wire;

mod common;

const RING: u64 = 0x1000;
const BUF: u64 = 0x4000;

#[test]
fn the_worker_sends_the_next_frame_when_the_first_has_left() {
    let clock = Arc::new(VirtualClock::new(1_000_000_000));
    let wire = Wire::new(1, 0, Abilities::ALL);
    let cfg = MacConfig { mac_addr: common::MAC0, ptp: PtpConfig::default() };
    let (port, worker) = Port::spawn("lr".into(), 0, 0x15F3, cfg, clock.clone(), &wire);
    let sent = || port.with_device(|d| d.mac.tx_counters[0].packets);
    port.with_device(|d| {
        common::driver_ready(d);
        d.dma.map(0, 1 << 16, 0, Some(common::memfd(c"line-rate", 1 << 16)), true, true).unwrap();
        let bmcr = (u32::from(BMCR) << mdic::REG_SHIFT) | mdic::OP_WRITE | u32::from(bmcr::DUPLEX);
        d.mac.write32(regs::MDIC, bmcr, &d.dma); // 10 Mb/s full duplex, forced
    });
    common::wait_for("10 Mb/s", || port.with_device(|d| d.mac.link().is_some_and(|l| l.speed.mbps() == 10)));
    port.with_device(|d| {
        let mut desc = [0u8; 16];
        desc[..8].copy_from_slice(&BUF.to_le_bytes());
        desc[8..12].copy_from_slice(&(1514u32 | 0x2B30_0000).to_le_bytes()); // EOP IFCS RS, data
        d.dma.write(RING, &desc).unwrap();
        d.dma.write(RING + 16, &desc).unwrap();
        d.dma.write(BUF, &[0xFF; 1514]).unwrap();
        let m = &mut d.mac;
        m.write32(regs::TCTL, 0x0103_F0FA, &d.dma);
        m.write32(txq(0, regs::TDLEN), 16 * 16, &d.dma);
        m.write32(txq(0, regs::TDBAL), RING as u32, &d.dma);
        m.write32(txq(0, regs::TXDCTL), 0x0210_0108, &d.dma);
        m.write32(txq(0, regs::TDT), 2, &d.dma);
        assert_eq!(m.read32(txq(0, regs::TDH)), 2, "both fetched at the tail write");
    });
    assert_eq!(sent(), 1, "the wire was idle: the first leaves at once");
    std::thread::sleep(Duration::from_millis(30));
    assert_eq!(sent(), 1, "the first still leaving while no time passes");
    // The second starts leaving when the first has left; it is handed to the cable up to
    // TX_HANDOFF_LEAD_NS before.
    clock.advance(wire_ns(1514, 10) - TX_HANDOFF_LEAD_NS - 1);
    std::thread::sleep(Duration::from_millis(30));
    assert_eq!(sent(), 1, "1 ns short of the second one's hand-over");
    clock.advance(1);
    common::wait_for("the worker to send the second", || sent() == 2);
    port.shutdown();
    worker.join().unwrap();
}
