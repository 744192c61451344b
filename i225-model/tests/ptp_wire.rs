// SPDX-License-Identifier: GPL-2.0

//! Timestamps across the ideal wire: a frame stamped on TX by port A and on
//! RX by port B carries the same instant, each in its own clock, once the
//! driver applies its latency corrections.

use std::sync::Arc;

use i225_model::dma::{GuestMemory, VecMemory};
use i225_model::mac::{Mac, MacConfig};
use i225_model::phy::{Abilities, Partner};
use i225_model::ptp::{latencies, PtpConfig, TimeSource, VirtualClock};
use i225_model::regs::{self, rxq, txq};
use i225_model::wire::Frame;

const RING: u64 = 0x1000;
const BUF: u64 = 0x10000;
const WIRE_DELAY: u64 = 50;

fn port(mac_addr: [u8; 6], ptp: PtpConfig, clock: &Arc<VirtualClock>) -> (Mac, VecMemory) {
    let mut m = Mac::new(MacConfig { mac_addr, ptp }, clock.clone());
    let mem = VecMemory::new(1 << 20);
    m.write32(regs::CTRL, regs::ctrl::SLU, &mem);
    m.set_partner(Partner::Present(Abilities::ALL));
    (m, mem)
}

#[test]
fn tx_and_rx_stamps_agree_across_the_wire() {
    let clock = Arc::new(VirtualClock::new(1_000_000_000));
    let a_mac = [2, 0, 0, 0, 0, 0xA];
    let b_mac = [2, 0, 0, 0, 0, 0xB];
    // Port B's oscillator is 25 ppm fast and 3 s ahead.
    let (mut a, amem) = port(a_mac, PtpConfig::default(), &clock);
    let (mut b, bmem) = port(b_mac, PtpConfig { freq_error_ppb: 25_000, initial_offset_ns: 3_000_000_000 }, &clock);

    // A: timestamping on, one PTP-like frame with a stamp request in set 1.
    a.write32(regs::TSYNCTXCTL, 0x30, &amem);
    a.write32(regs::TSIM, regs::tsicr::TXTS, &amem);
    let mut frame = vec![0u8; 90];
    frame[..6].copy_from_slice(&b_mac);
    frame[6..12].copy_from_slice(&a_mac);
    frame[12..14].copy_from_slice(&0x88F7u16.to_be_bytes());
    amem.write(BUF, &frame).unwrap();
    let mut d = [0u8; 16];
    d[..8].copy_from_slice(&BUF.to_le_bytes());
    let cmd = 90u32 | 0x0100_0000 | 0x0800_0000 | 0x2000_0000 | 0x0030_0000 | (1 << 19) | (1 << 16);
    d[8..12].copy_from_slice(&cmd.to_le_bytes());
    amem.write(RING, &d).unwrap();
    a.write32(regs::TCTL, 0x0103_F0FA, &amem);
    a.write32(txq(0, regs::TDLEN), 256, &amem);
    a.write32(txq(0, regs::TDBAL), RING as u32, &amem);
    a.write32(txq(0, regs::TXDCTL), 0x0210_0108, &amem);
    clock.advance(5_000_000);
    a.write32(txq(0, regs::TDT), 1, &amem);
    let sent = a.take_outbox();
    assert_eq!(sent.len(), 1);
    assert_eq!(a.read32(regs::TSYNCTXCTL) & 0xF, 0b10, "TXTT_1");
    let tx_raw = u64::from(a.read32(regs::TXSTMPH_1)) * 1_000_000_000 + u64::from(a.read32(regs::TXSTMPL_1));
    assert_eq!(a.read32(regs::TSYNCTXCTL) & 0xF, 0, "reading TXSTMPH_1 frees the set");

    // B: RX timestamps in the packet, as igc programs them.
    for i in 0..8u64 {
        bmem.write(RING + 16 * i, &(BUF + 0x1000 * i).to_le_bytes()).unwrap();
    }
    b.write32(regs::RCTL, 0x0400_8022, &bmem);
    b.write32(rxq(0, regs::RDBAL), RING as u32, &bmem);
    b.write32(rxq(0, regs::RDLEN), 128, &bmem);
    b.write32(rxq(0, regs::SRRCTL), 0x4200_4402, &bmem);
    b.write32(rxq(0, regs::RXDCTL), 0x0204_0808, &bmem);
    b.write32(rxq(0, regs::RDT), 7, &bmem);
    let rxpbs = b.read32(regs::RXPBS);
    b.write32(regs::RXPBS, rxpbs | regs::rxpbs::CFG_TS_EN, &bmem);
    b.write32(regs::TSYNCRXCTL, 0x418, &bmem);

    // Time passes on the wire; then B receives.
    clock.advance(10_000);
    let f = &sent[0];
    b.receive(&Frame { data: f.data.clone(), host_ns: f.host_ns + WIRE_DELAY }, &bmem);
    let len = bmem.read_u32(RING + 12).unwrap() & 0xFFFF;
    assert_eq!(len as usize, 90 + 16);
    let rx_ns = bmem.read_u32(BUF + 8).unwrap();
    let rx_s = bmem.read_u32(BUF + 12).unwrap();
    let rx_raw = u64::from(rx_s) * 1_000_000_000 + u64::from(rx_ns);

    // What the driver reports after its latency corrections.
    let (tx_lat, rx_lat) = latencies(2500);
    let tx_wire = tx_raw + tx_lat as u64;
    let rx_wire = rx_raw - rx_lat as u64;
    assert_eq!(tx_wire, f.host_ns - 1_000_000_000, "A's clock started at 0 at host time 1 s");
    // B's clock: 3 s offset, 25 ppm fast since host time 1 s.
    let elapsed = (f.host_ns + WIRE_DELAY - 1_000_000_000) as i128;
    let expect_b = 3_000_000_000i128 + elapsed + elapsed * 25_000 / 1_000_000_000;
    assert_eq!(rx_wire as i128, expect_b);
    assert!(clock.now_ns() > f.host_ns);
}
