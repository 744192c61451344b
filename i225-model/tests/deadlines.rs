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
