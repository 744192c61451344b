// SPDX-License-Identifier: GPL-2.0

//! The port's worker is deadline-driven: PTP events happen at their time
//! with frames arriving every millisecond (they starved entirely above about
//! 100 frames/s when the worker ran its periodic work only after 10 ms
//! without an event). The lateness is printed; only the events are asserted,
//! as the host's scheduling decides the rest.

use std::time::{Duration, Instant};

use i225_model::wire::Frame;

mod common;

#[test]
fn sys_wrap_fires_every_second_under_a_frame_every_millisecond() {
    let ports = common::cabled_ports(2, "dl");
    ports[1].with_device(|d| d.mac.ptp_mut().sys_wrap_lateness.clear());
    let mut frame = vec![0u8; 60];
    frame[..6].copy_from_slice(&common::MAC1);
    frame[6..12].copy_from_slice(&common::MAC0);
    let start = Instant::now();
    let mut sent = 0u64;
    while start.elapsed() < Duration::from_millis(3200) {
        ports[0].far_end().transmit(Frame { data: frame.clone(), host_ns: 0 });
        sent += 1;
        std::thread::sleep(Duration::from_millis(1));
    }
    let s = ports[1].with_device(|d| d.mac.ptp().sys_wrap_lateness.summary());
    eprintln!("{sent} frames in 3.2 s; SYS_WRAP lateness: {s:?}");
    assert!(s.count >= 3, "a SYS_WRAP each second under traffic: {s:?}");
}

/// The pulse source's edges are stamped at their time under traffic: the
/// worker wakes for each of them (a 20 ms source on SDP0, AUX0 sampling
/// it, a frame every millisecond).
#[test]
fn pulse_edges_are_timely_under_a_frame_every_millisecond() {
    use i225_model::ptp::sdp::PulseConfig;
    use i225_model::regs::{self, tsauxc, tssdp};
    let ports = common::cabled_ports(2, "dlp");
    ports[1].with_device(|d| {
        d.mac.write32(regs::TSSDP, tssdp::AUX0_TS_SDP_EN, &d.dma);
        d.mac.write32(regs::TSAUXC, tsauxc::EN_TS0, &d.dma);
        d.mac.set_pulse(Some(PulseConfig::from_fields(&["0", "20000000", "0", "0", "5000000"]).unwrap()));
    });
    let mut frame = vec![0u8; 60];
    frame[..6].copy_from_slice(&common::MAC1);
    frame[6..12].copy_from_slice(&common::MAC0);
    let start = Instant::now();
    let mut read = 0;
    while start.elapsed() < Duration::from_millis(1200) {
        ports[0].far_end().transmit(Frame { data: frame.clone(), host_ns: 0 });
        // The driver's read of each stamp frees the latch for the next edge.
        read += ports[1].with_device(|d| {
            let autt = d.mac.read32(regs::TSICR) & regs::tsicr::AUTT0 != 0;
            if autt {
                d.mac.read32(regs::AUXSTMPL0);
                d.mac.read32(regs::AUXSTMPH0);
            }
            u32::from(autt)
        });
        std::thread::sleep(Duration::from_millis(1));
    }
    let (s, edges) = ports[1].with_device(|d| (d.mac.ptp().aux_lateness.summary(), d.mac.ptp().pins().log(0).count));
    eprintln!("{edges} edges in 1.2 s, {read} stamps read; pulse edge lateness: {s:?}");
    assert!(edges >= 80, "two edges each 20 ms under traffic: {edges}");
    assert!(read >= 40, "{read} stamps read");
    assert_eq!(s.count, edges);
}
