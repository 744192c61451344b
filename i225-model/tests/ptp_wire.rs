// SPDX-License-Identifier: GPL-2.0

//! Timestamps across the wire: a frame stamped on TX by port A and on RX by
//! port B carries the same instant, each in its own clock, once the driver
//! applies its latency corrections; on the ideal wire exactly, on a
//! realistic one within the stamps' quantum and noise, and on an asymmetric
//! one each direction shows its own delay.

use std::sync::mpsc::{channel, Receiver};
use std::sync::Arc;

use i225_model::dma::{GuestMemory, VecMemory};
use i225_model::mac::{Mac, MacConfig};
use i225_model::noise::{Noise, PathConfig, Preset, Stamping};
use i225_model::phy::{Abilities, Partner};
use i225_model::ptp::{latencies, PtpConfig, TimeSource, VirtualClock};
use i225_model::regs::{self, rxq, txq};
use i225_model::wire::{FarEnd, Frame, PortEvent, Wire};

const TX_RING: u64 = 0x1000;
const TX_BUF: u64 = 0x10000;
const RX_RING: u64 = 0x2000;
const RX_BUF: u64 = 0x40000;
const WIRE_DELAY: u64 = 50;
const A_MAC: [u8; 6] = [2, 0, 0, 0, 0, 0xA];
const B_MAC: [u8; 6] = [2, 0, 0, 0, 0, 0xB];

/// A port with link, TX timestamps on and RX timestamps in the packet, as
/// igc programs them.
fn port(mac_addr: [u8; 6], ptp: PtpConfig, clock: &Arc<VirtualClock>) -> (Mac, VecMemory) {
    let mut m = Mac::new(MacConfig { mac_addr, ptp }, clock.clone());
    let mem = VecMemory::new(1 << 20);
    m.write32(regs::CTRL, regs::ctrl::SLU, &mem);
    m.set_partner(Partner::Present(Abilities::ALL));
    // TX: timestamping on, queue 0 enabled.
    m.write32(regs::TSYNCTXCTL, 0x30, &mem);
    m.write32(regs::TSIM, regs::tsicr::TXTS, &mem);
    m.write32(regs::TCTL, 0x0103_F0FA, &mem);
    m.write32(txq(0, regs::TDLEN), 256, &mem);
    m.write32(txq(0, regs::TDBAL), TX_RING as u32, &mem);
    m.write32(txq(0, regs::TXDCTL), 0x0210_0108, &mem);
    // RX: queue 0 with 8 buffers, the timestamp header in each packet.
    for i in 0..8u64 {
        mem.write(RX_RING + 16 * i, &(RX_BUF + 0x1000 * i).to_le_bytes()).unwrap();
    }
    m.write32(regs::RCTL, 0x0400_8022, &mem);
    m.write32(rxq(0, regs::RDBAL), RX_RING as u32, &mem);
    m.write32(rxq(0, regs::RDLEN), 128, &mem);
    m.write32(rxq(0, regs::SRRCTL), 0x4200_4402, &mem);
    m.write32(rxq(0, regs::RXDCTL), 0x0204_0808, &mem);
    m.write32(rxq(0, regs::RDT), 7, &mem);
    let rxpbs = m.read32(regs::RXPBS);
    m.write32(regs::RXPBS, rxpbs | regs::rxpbs::CFG_TS_EN, &mem);
    m.write32(regs::TSYNCRXCTL, 0x418, &mem);
    (m, mem)
}

/// Sends one PTP-like frame to `dst` from descriptor 0 with a stamp request
/// in set 1; returns the frame as it left the MAC and its raw TX stamp.
fn send_stamped(m: &mut Mac, mem: &VecMemory, src: [u8; 6], dst: [u8; 6]) -> (Frame, u64) {
    let mut frame = vec![0u8; 90];
    frame[..6].copy_from_slice(&dst);
    frame[6..12].copy_from_slice(&src);
    frame[12..14].copy_from_slice(&0x88F7u16.to_be_bytes());
    mem.write(TX_BUF, &frame).unwrap();
    let mut d = [0u8; 16];
    d[..8].copy_from_slice(&TX_BUF.to_le_bytes());
    let cmd = 90u32 | 0x0100_0000 | 0x0800_0000 | 0x2000_0000 | 0x0030_0000 | (1 << 19) | (1 << 16);
    d[8..12].copy_from_slice(&cmd.to_le_bytes());
    mem.write(TX_RING, &d).unwrap();
    m.write32(txq(0, regs::TDT), 1, mem);
    let mut sent = m.take_outbox();
    assert_eq!(sent.len(), 1);
    assert_eq!(m.read32(regs::TSYNCTXCTL) & 0xF, 0b10, "TXTT_1");
    let tx_raw = u64::from(m.read32(regs::TXSTMPH_1)) * 1_000_000_000 + u64::from(m.read32(regs::TXSTMPL_1));
    assert_eq!(m.read32(regs::TSYNCTXCTL) & 0xF, 0, "reading TXSTMPH_1 frees the set");
    (sent.remove(0), tx_raw)
}

/// Receives `frame` into descriptor 0; returns its raw RX stamp (timer 0).
fn receive_stamped(m: &mut Mac, mem: &VecMemory, frame: &Frame) -> u64 {
    m.receive(frame, mem);
    let len = mem.read_u32(RX_RING + 12).unwrap() & 0xFFFF;
    assert_eq!(len as usize, 90 + 16);
    let rx_ns = mem.read_u32(RX_BUF + 8).unwrap();
    let rx_s = mem.read_u32(RX_BUF + 12).unwrap();
    u64::from(rx_s) * 1_000_000_000 + u64::from(rx_ns)
}

/// The frame waiting on a port's event channel.
fn arrived(events: &Receiver<PortEvent>) -> Frame {
    events.try_iter().find_map(|e| if let PortEvent::Frame(f) = e { Some(f) } else { None }).expect("a frame")
}

#[test]
fn tx_and_rx_stamps_agree_across_the_wire() {
    let clock = Arc::new(VirtualClock::new(1_000_000_000));
    // Port B's oscillator is 25 ppm fast and 3 s ahead.
    let (mut a, amem) = port(A_MAC, PtpConfig::default(), &clock);
    let (mut b, bmem) = port(B_MAC, PtpConfig { freq_error_ppb: 25_000, initial_offset_ns: 3_000_000_000 }, &clock);

    clock.advance(5_000_000);
    let (f, tx_raw) = send_stamped(&mut a, &amem, A_MAC, B_MAC);

    // Time passes on the wire; then B receives.
    clock.advance(10_000);
    let rx_raw = receive_stamped(&mut b, &bmem, &Frame { data: f.data.clone(), host_ns: f.host_ns + WIRE_DELAY });

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

/// One two-way exchange as ptp4l makes it (Sync A to B, Delay_Req B to A)
/// across a wire with `paths`, both ports stamping with `stamping`. B's
/// clock is 3 s ahead of A's. Returns the one-way delays A to B and B to A
/// measured from the driver-corrected stamps (each: RX stamp minus TX
/// stamp, less the 3 s), and every raw stamp.
fn exchange(paths: [PathConfig; 2], stamping: Stamping) -> ([i64; 2], [u64; 4]) {
    const OFFSET: i64 = 3_000_000_000;
    let clock = Arc::new(VirtualClock::new(1_000_000_000));
    let (mut a, amem) = port(A_MAC, PtpConfig::default(), &clock);
    let (mut b, bmem) = port(B_MAC, PtpConfig { freq_error_ppb: 0, initial_offset_ns: OFFSET }, &clock);
    for (i, m) in [&mut a, &mut b].into_iter().enumerate() {
        m.ptp_mut().stamping = Noise::new(stamping, 1, i as u64);
    }
    let wire = Wire::with_paths(2, paths, 1, Abilities::ALL);
    let (ta, ra) = channel();
    let (tb, rb) = channel();
    let (a_end, b_end) = (wire.end(0, ta), wire.end(1, tb));
    let (lat_tx, lat_rx) = latencies(2500);
    let (lat_tx, lat_rx) = (lat_tx as i64, lat_rx as i64);

    // Odd times: no sample falls on a multiple of a quantum by chance.
    clock.advance(5_000_003);
    let (sync, t1) = send_stamped(&mut a, &amem, A_MAC, B_MAC);
    a_end.transmit(sync);
    clock.advance(10_001);
    let t2 = receive_stamped(&mut b, &bmem, &arrived(&rb));

    clock.advance(1_000_005);
    let (req, t3) = send_stamped(&mut b, &bmem, B_MAC, A_MAC);
    b_end.transmit(req);
    clock.advance(10_007);
    let t4 = receive_stamped(&mut a, &amem, &arrived(&ra));

    let ab = (t2 as i64 - lat_rx) - (t1 as i64 + lat_tx) - OFFSET;
    let ba = (t4 as i64 - lat_rx) - (t3 as i64 + lat_tx) + OFFSET;
    ([ab, ba], [t1, t2, t3, t4])
}

#[test]
fn ideal_wire_gives_exact_stamps() {
    let ([ab, ba], _) = exchange(Preset::Ideal.paths(), Preset::Ideal.stamping());
    assert_eq!((ab, ba), (50, 50));
}

/// The delay of each direction shows in the one-way delays; a two-way
/// exchange cannot see it and is off by half the difference, as on a real
/// asymmetric path.
#[test]
fn asymmetry_shows_in_one_way_delays() {
    let paths = [PathConfig::ideal(50), PathConfig::ideal(250)];
    let ([ab, ba], _) = exchange(paths, Stamping::EXACT);
    assert_eq!((ab, ba), (50, 250));
    // ptp4l's offset of B from A, ((t2 - t1) - (t4 - t3)) / 2, less the
    // true 3 s: -(250 - 50) / 2.
    assert_eq!((ab - ba) / 2, -100);
    assert_eq!((ab + ba) / 2, 150, "the mean path delay");
}

#[test]
fn realistic_stamps_are_quantised_and_close() {
    let st = Preset::Realistic.stamping();
    let q = u64::from(st.quantum_ps / 1000);
    let ([ab, ba], raw) = exchange(Preset::Realistic.paths(), st);
    // The samples are quantised; the model then takes the TX latency off
    // and adds the RX latency, for the driver to undo.
    let (lat_tx, lat_rx) = latencies(2500);
    let samples = [raw[0] + lat_tx as u64, raw[1] - lat_rx as u64, raw[2] + lat_tx as u64, raw[3] - lat_rx as u64];
    assert!(samples.iter().all(|t| t % q == 0), "samples are multiples of {q} ns: {samples:?}");
    // Each delay is one RX stamp minus one TX stamp: within a quantum and
    // 6 sigma of noise (each) of the truth, 50 and 54 ns.
    let tol = (q + 2 * 6 * u64::from(st.noise_ps) / 1000) as i64;
    assert!((ab - 50).abs() <= tol && (ba - 54).abs() <= tol, "{ab} and {ba} ns, tolerance {tol}");
}
