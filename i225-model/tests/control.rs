// SPDX-License-Identifier: GPL-2.0

//! The control socket end to end: `control::serve` on a UNIX socket in
//! front of two cabled ports, driven line by line as `nc -U` would.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

mod common;

use common::{wait_for, Sockets};
use i225_model::control;
use i225_model::port::Port;
use i225_model::regs;
use i225_model::wire::Frame;

struct Session {
    out: UnixStream,
    lines: std::io::Lines<BufReader<UnixStream>>,
}

impl Session {
    fn connect(path: &PathBuf) -> Session {
        let out = UnixStream::connect(path).unwrap();
        out.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let lines = BufReader::new(out.try_clone().unwrap()).lines();
        Session { out, lines }
    }

    fn ask(&mut self, command: &str) -> Value {
        writeln!(self.out, "{command}").unwrap();
        let line = self.lines.next().expect("an answer").unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{command}: {line:?} is not JSON: {e}"))
    }
}

fn start() -> (Vec<Arc<Port>>, Sockets) {
    let ports = common::cabled_ports(2, "ctl");
    let path = common::socket_path("control");
    let listener = UnixListener::bind(&path).unwrap();
    let served = ports.clone();
    std::thread::spawn(move || control::serve(listener, served));
    (ports, Sockets(vec![path]))
}

fn link_up(p: &Port) -> bool {
    p.with_device(|d| d.mac.link().is_some())
}

#[test]
fn flat_answers_are_path_value_words() {
    let v = json!({ "tx": [{ "packets": 3, "bytes": 180 }, { "packets": 1, "bytes": 60 }],
                    "link": null, "name": "port 0", "on": true, "none": [], "empty": {} });
    let words: Vec<&str> = control::flat(&v).leak().split(' ').collect();
    for w in [
        "tx.0.packets=3",
        "tx.0.bytes=180",
        "tx.1.packets=1",
        "tx.1.bytes=60",
        "link=null",
        "name=port_0",
        "on=true",
        "none=[]",
        "empty={}",
    ] {
        assert!(words.contains(&w), "{w} in {words:?}");
    }
    assert_eq!(words.len(), 9);
    assert_eq!(control::flat(&json!([{ "tx_hang": false }, { "tx_hang": true }])), "0.tx_hang=false 1.tx_hang=true");
}

/// The named counter of port `p`'s cable in `status`.
fn cable_counter(s: &mut Session, p: usize, name: &str) -> Value {
    s.ask("status")[p]["cable"]["counters"][name].clone()
}

#[test]
fn wire_commands_round_trip() {
    let (ports, path) = start();
    let mut s = Session::connect(&path[0]);
    // The ports of the tests are on the ideal wire: 50 ns, exact stamps.
    let w = s.ask("wire");
    assert_eq!((&w["preset"], &w["seed"]), (&json!("ideal"), &json!(1)), "{w}");
    for (i, p) in w["ports"].as_array().expect("one entry per port").iter().enumerate() {
        assert_eq!(p["name"], format!("ctl{i}"));
        assert_eq!((&p["ts_quantum_ns"], &p["ts_noise_ns"]), (&json!(0.0), &json!(0.0)));
        assert_eq!(p["tx"]["delay_ns"], 50);
        assert_eq!(
            (&p["tx"]["jitter_ns"], &p["tx"]["loss"], &p["tx"]["drop_next"]),
            (&json!(0), &json!(0.0), &json!(0))
        );
    }

    let w = s.ask("wire realistic");
    assert_eq!(w["preset"], "realistic");
    assert_eq!((&w["ports"][0]["tx"]["delay_ns"], &w["ports"][1]["tx"]["delay_ns"]), (&json!(50), &json!(54)));
    assert_eq!((&w["ports"][1]["ts_quantum_ns"], &w["ports"][1]["ts_noise_ns"]), (&json!(8.0), &json!(2.0)));
    assert_eq!(s.ask("wire"), w, "wire answers what the last command set");
    let w = s.ask("wire noisy");
    assert_eq!(w["preset"], "noisy");
    assert_eq!((&w["ports"][1]["tx"]["delay_ns"], &w["ports"][0]["tx"]["jitter_ns"]), (&json!(250), &json!(2000)));
    assert_eq!(w["ports"][0]["tx"]["loss"], 0.001);

    // One setting, of one port or of both.
    s.ask("wire ideal");
    let w = s.ask("wire set delay 300 1");
    assert_eq!(w["preset"], "custom");
    assert_eq!((&w["ports"][0]["tx"]["delay_ns"], &w["ports"][1]["tx"]["delay_ns"]), (&json!(50), &json!(300)));
    let w = s.ask("wire set ts-noise 12.5 0");
    assert_eq!((&w["ports"][0]["ts_noise_ns"], &w["ports"][1]["ts_noise_ns"]), (&json!(12.5), &json!(0.0)));
    let w = s.ask("wire set ts-quantum 3.2");
    assert_eq!((&w["ports"][0]["ts_quantum_ns"], &w["ports"][1]["ts_quantum_ns"]), (&json!(3.2), &json!(3.2)));
    let w = s.ask("wire set jitter 1000");
    assert_eq!((&w["ports"][0]["tx"]["jitter_ns"], &w["ports"][1]["tx"]["jitter_ns"]), (&json!(1000), &json!(1000)));
    assert_eq!(s.ask("wire seed 7")["seed"], 7);

    // Loss and drops, counted per direction.
    let frame = || Frame { data: vec![0xff; 60], host_ns: 0 };
    assert_eq!(s.ask("wire drop 2 0")["ports"][0]["tx"]["drop_next"], 2);
    (0..5).for_each(|_| ports[0].far_end().transmit(frame()));
    assert_eq!(s.ask("wire set loss 1 0")["ports"][0]["tx"]["loss"], 1.0);
    (0..3).for_each(|_| ports[0].far_end().transmit(frame()));
    let tx = s.ask("wire")["ports"][0]["tx"].clone();
    assert_eq!(
        (&tx["frames"], &tx["dropped"], &tx["lost"], &tx["drop_next"]),
        (&json!(8), &json!(2), &json!(3), &json!(0))
    );
    assert_eq!((cable_counter(&mut s, 0, "tx_dropped"), cable_counter(&mut s, 0, "tx_lost")), (json!(2), json!(3)));
    assert_eq!((cable_counter(&mut s, 1, "rx_dropped"), cable_counter(&mut s, 1, "rx_lost")), (json!(2), json!(3)));
    assert_eq!(cable_counter(&mut s, 1, "tx_frames"), 0);

    writeln!(s.out, "flat wire").unwrap();
    let line = s.lines.next().expect("an answer").unwrap();
    assert!(line.split(' ').any(|w| w == "ports.1.tx.delay_ns=300"), "flat wire: {line}");

    // Errors, and the session goes on.
    assert_eq!(s.ask("wire set delay x"), json!({ "error": "bad value \"x\" for delay" }));
    assert_eq!(s.ask("wire set loss 1.5"), json!({ "error": "bad value \"1.5\" for loss" }));
    assert_eq!(s.ask("wire set delay 5 9"), json!({ "error": "no port 9" }));
    assert!(s.ask("wire set colour 1")["error"].as_str().unwrap().contains("unknown setting"));
    assert!(s.ask("wire perfect")["error"].as_str().unwrap().contains("unknown wire command"));
    assert_eq!(s.ask("wire drop"), json!({ "error": "count missing" }));

    // reset-faults: back to the settings the ports were made with.
    s.ask("wire drop 4");
    assert_eq!(s.ask("reset-faults"), json!({ "faults": "reset" }));
    let w = s.ask("wire");
    assert_eq!((&w["preset"], &w["seed"]), (&json!("ideal"), &json!(1)), "{w}");
    assert_eq!((&w["ports"][0]["tx"]["drop_next"], &w["ports"][1]["tx"]["drop_next"]), (&json!(0), &json!(0)));
    assert_eq!(w["ports"][0]["tx"]["frames"], 8, "counts survive");

    for p in &ports {
        p.shutdown();
    }
}

#[test]
fn control_socket_commands() {
    let (ports, path) = start();
    let mut s = Session::connect(&path[0]);
    wait_for("link on both ports", || ports.iter().all(|p| link_up(p)));

    writeln!(s.out, "flat queues 1").unwrap();
    let line = s.lines.next().expect("an answer").unwrap();
    assert!(line.split(' ').any(|w| w == "rx.0.packets=0"), "flat queues 1: {line}");
    for w in ["tx.3.in_buffer=0", "tx.0.writebacks_due=0", "tx_buffer.capacity=20480"] {
        assert!(line.split(' ').any(|x| x == w), "{w} in flat queues 1: {line}");
    }
    assert_eq!(s.ask("lateness 0")["tx_wire_ns"]["count"], 0);

    let status = s.ask("status");
    let status = status.as_array().expect("one entry per port");
    assert_eq!(status.len(), 2);
    for (i, st) in status.iter().enumerate() {
        assert_eq!(st["name"], format!("ctl{i}"));
        assert_eq!(st["device_id"], "0x15f3");
        assert_eq!(st["link"], json!({ "speed": 2500, "full_duplex": true }));
        assert_eq!(st["vanished"], false);
        assert_eq!(st["tx_short_dropped"], 0);
        assert_eq!(st["tx_flushed"], 0);
        assert_eq!(st["tx_buffer"], json!({ "frames": 0, "bytes": 0, "capacity": 20480, "backlog_ns": 0 }));
        assert_eq!(st["cable"]["to"], "wire");
        assert_eq!(st["cable"]["connected"], true);
    }

    // No TX timestamp read yet: an empty latency record.
    let ptp = s.ask("ptp 0");
    assert!(ptp["systim0_ns"].as_str().unwrap().parse::<u128>().is_ok());
    assert_eq!(ptp["tx_captured"], 0);
    let lat = &ptp["txts_read_latency_ns"];
    assert_eq!(lat["count"], 0);
    assert_eq!((&lat["min"], &lat["max"], &lat["mean"]), (&Value::Null, &Value::Null, &Value::Null));
    assert_eq!(lat["histogram"].as_object().unwrap().len(), 8);

    // A stamp captured now and read 20 ms later: one latency sample.
    ports[0].with_device(|d| {
        d.mac.write32(regs::TSYNCTXCTL, 0x10, &d.dma);
        let now = d.mac.now();
        d.mac.ptp_mut().capture_tx(2, false, now, 0);
    });
    std::thread::sleep(Duration::from_millis(20));
    ports[0].with_device(|d| d.mac.read32(regs::TXSTMPH_2));
    let ptp = s.ask("ptp 0");
    assert_eq!((&ptp["tx_captured"], &ptp["tx_read"]), (&json!(1), &json!(1)));
    let lat = &ptp["txts_read_latency_ns"];
    assert_eq!(lat["count"], 1);
    let min = lat["min"].as_u64().unwrap();
    assert!((20_000_000..5_000_000_000).contains(&min), "{min} ns");
    assert_eq!(lat["max"], min);
    assert_eq!(lat["mean"], min);
    assert_eq!(lat["recent"], json!([min]));
    assert_eq!(lat["histogram"]["lt_100ms"].as_u64().unwrap() + lat["histogram"]["lt_1s"].as_u64().unwrap(), 1);
    assert_eq!(s.ask("ptp 1")["txts_read_latency_ns"]["count"], 0, "per port");

    assert_eq!(s.ask("drop-txts 0 2"), json!({ "drop_txts_irqs": 2 }));
    assert_eq!(ports[0].with_device(|d| d.mac.ptp().faults.drop_txts_irqs), 2);
    assert_eq!(s.ask("ptp 0")["faults"]["drop_txts_irqs"], 2);

    assert_eq!(s.ask("vanish 0 on"), json!({ "vanished": true }));
    assert_eq!(ports[0].with_device(|d| d.mac.read32(regs::CTRL)), u32::MAX);
    assert_ne!(ports[1].with_device(|d| d.mac.read32(regs::CTRL)), u32::MAX, "port 1 unaffected");
    assert_eq!(s.ask("status")[0]["vanished"], true);
    assert_eq!(s.ask("vanish 0 off"), json!({ "vanished": false }));
    assert_ne!(ports[0].with_device(|d| d.mac.read32(regs::CTRL)), u32::MAX);

    // flap: the cable is out for a while, both ends lose the link, then
    // it comes back by itself.
    let before = Instant::now();
    assert_eq!(s.ask("flap 0"), json!({ "flap": true }));
    assert!(!ports[0].far_end().connected());
    wait_for("link down on both ports", || ports.iter().all(|p| !link_up(p)));
    assert_eq!(s.ask("status")[1]["link"], Value::Null);
    wait_for("link back on both ports", || ports.iter().all(|p| link_up(p)));
    assert!(before.elapsed() >= control::FLAP_TIME);
    assert_eq!(s.ask("status")[0]["cable"]["connected"], true);

    assert_eq!(s.ask("cable unplug"), json!({ "cable": false }));
    wait_for("link down", || !link_up(&ports[1]));
    assert_eq!(s.ask("cable plug"), json!({ "cable": true }));
    wait_for("link up", || link_up(&ports[1]));

    // Errors come back as JSON too, and the session goes on.
    assert_eq!(s.ask("ptp 7"), json!({ "error": "no port 7" }));
    assert_eq!(s.ask("vanish 0 maybe"), json!({ "error": "expected on or off" }));
    assert_eq!(s.ask("drop-txts 0"), json!({ "error": "count missing" }));
    assert!(s.ask("frobnicate")["error"].as_str().unwrap().contains("unknown command"));
    assert_eq!(s.ask("status").as_array().unwrap().len(), 2);

    for p in &ports {
        p.shutdown();
    }
}

#[test]
fn reg_reads_a_register_without_side_effects() {
    let (ports, path) = start();
    let mut s = Session::connect(&path[0]);
    ports[0].with_device(|d| {
        d.mac.write32(regs::RLPML, 9728, &d.dma);
        d.mac.write32(regs::TIMADJ, 0x4000_0000, &d.dma);
    });
    assert_eq!(s.ask("reg 0 5004"), json!({ "offset": "0x05004", "value": "0x00002600" }));
    assert_eq!(s.ask("reg 0 0xb60c")["value"], "0x40000000");
    assert_eq!(s.ask("reg 1 5004")["value"], "0x00000000");
    // Reads with an effect, or of the moment, are refused: a statistics
    // counter (cleared by a read), ICR, SYSTIM; so are odd offsets.
    for (cmd, what) in [
        ("reg 0 4010", "cannot be read without side effects"),
        ("reg 0 1500", "cannot be read without side effects"),
        ("reg 0 b600", "cannot be read without side effects"),
        ("reg 0 b66c", "cannot be read without side effects"),
        ("reg 0 b660", "cannot be read without side effects"),
        ("reg 0 b61c", "cannot be read without side effects"),
        ("reg 0 5005", "cannot be read without side effects"),
        ("reg 0 zz", "bad register offset"),
        ("reg 2 0", "no port 2"),
    ] {
        let err = s.ask(cmd)["error"].as_str().unwrap_or_default().to_string();
        assert!(err.contains(what), "{cmd}: {err:?}");
    }
}

/// `pulse`, `edges` and `edges-clear`: a pulse source on port 0's SDP0 with
/// AUX0 sampling it (igc's EXTTS set-up), its edges on whole multiples of
/// its period in true time (the host's CLOCK_REALTIME); a clock output on
/// port 1's SDP1 logging its edges at their SYSTIM0 times.
#[test]
fn pulse_and_edges_commands() {
    use i225_model::ptp::{HostClock, TimeSource};
    use i225_model::regs::{ctrl, tsauxc, tssdp};
    let (ports, path) = start();
    let mut s = Session::connect(&path[0]);
    let p = s.ask("pulse 0");
    assert_eq!(p["pulse"], Value::Null);
    let offset: i128 = p["true_offset_ns"].as_str().unwrap().parse().unwrap();
    let real = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as i128;
    let mono = i128::from(HostClock.now_ns());
    assert!((real - mono - offset).abs() < 1_000_000_000, "true time is CLOCK_REALTIME: {offset}");

    // AUX0 on SDP0 (an input), EN_TS0: as igc_pin_extts and EXTTS leave them.
    ports[0].with_device(|d| {
        d.mac.write32(regs::TSSDP, tssdp::AUX0_TS_SDP_EN, &d.dma);
        d.mac.write32(regs::TSAUXC, tsauxc::EN_TS0, &d.dma);
    });
    let p = s.ask("pulse 0 0 20000000 0 0 2000000");
    assert_eq!(
        [&p["pulse"]["pin"], &p["pulse"]["period_ns"], &p["pulse"]["phase_ns"], &p["pulse"]["width_ns"]],
        [&json!(0), &json!(20_000_000), &json!(0), &json!(2_000_000)]
    );
    wait_for("six edges", || s.ask("pulse 0")["pulse"]["edges"].as_u64().unwrap() >= 6);
    let p = s.ask("pulse 0");
    let n = p["pulse"]["edges"].as_u64().unwrap();
    // Nobody reads AUXSTMPH0: the first edge is latched, the others find it busy.
    assert_eq!((&p["pulse"]["latched"], &p["pulse"]["busy"][1]), (&json!([1, 0]), &json!(0)));
    assert!(p["pulse"]["busy"][0].as_u64().unwrap() + 1 >= n, "{p}");

    let e = s.ask("edges 0 0");
    let pins = e["pins"].as_array().unwrap();
    assert_eq!(pins.len(), 1);
    assert_eq!(
        (&pins[0]["pin"], &pins[0]["direction"], &pins[0]["function"]),
        (&json!(0), &json!("in"), &json!("aux0"))
    );
    let edges = pins[0]["edges"].as_array().unwrap();
    assert!(edges.len() >= 6 && pins[0]["count"].as_u64().unwrap() >= 6);
    let diff = &edges[0]["systim_minus_true_ns"];
    for e in edges {
        assert_eq!(e["cause"], "pulse");
        let t: i128 = e["true_ns"].as_str().unwrap().parse().unwrap();
        let phase = if e["rising"] == true { 0 } else { 2_000_000 };
        assert_eq!(t.rem_euclid(20_000_000), phase, "{e}");
        assert_eq!(&e["systim_minus_true_ns"], diff, "SYSTIM0 runs at the true rate");
        assert_eq!(e["aux"][0]["channel"], 0);
    }
    assert!((edges[1]["rising"] != edges[0]["rising"]) && (edges[2]["rising"] == edges[0]["rising"]));
    assert!(s.ask("lateness 0")["aux_ns"]["count"].as_u64().unwrap() >= 6);
    assert_eq!(s.ask("edges 0")["pins"].as_array().unwrap().len(), 4);
    writeln!(s.out, "flat edges 0 0").unwrap();
    let line = s.lines.next().expect("an answer").unwrap();
    assert!(line.split(' ').any(|w| w == "pins.0.function=aux0"), "flat edges: {line}");

    // Off, then the log cleared.
    assert_eq!(s.ask("pulse 0 off")["pulse"], Value::Null);
    assert_eq!(s.ask("edges-clear 0"), json!({ "edges": "cleared" }));
    assert_eq!(s.ask("edges 0 0")["pins"][0]["count"], 0);
    // reset-faults brings back the command line's source: none here.
    s.ask("pulse 0 1 1000000000");
    assert_eq!(s.ask("wire seed 3")["seed"], 3);
    s.ask("reset-faults");
    assert_eq!(s.ask("pulse 0")["pulse"], Value::Null);

    // A clock output on port 1's SDP1: FC0, 10 ms half periods, started at
    // a whole 10 ms of SYSTIM0 100 ms ahead.
    let start = ports[1].with_device(|d| {
        let m = &mut d.mac;
        let l = m.read32(regs::SYSTIML);
        let now = u64::from(m.read32(regs::SYSTIMH)) * 1_000_000_000 + u64::from(l);
        let start = (now / 10_000_000 + 10) * 10_000_000;
        m.write32(regs::TSSDP, (tssdp::SEL_FC0 << tssdp::sel_shift(1)) | tssdp::en(1), &d.dma);
        let c = m.read32(regs::CTRL);
        m.write32(regs::CTRL, c | ctrl::SDP1_DIR, &d.dma);
        m.write32(regs::TRGTTIMH0, (start / 1_000_000_000) as u32, &d.dma);
        m.write32(regs::TRGTTIML0, (start % 1_000_000_000) as u32, &d.dma);
        m.write32(regs::FREQOUT0, 10_000_000, &d.dma);
        m.write32(regs::TSAUXC, tsauxc::EN_CLK0 | tsauxc::ST0, &d.dma);
        start
    });
    wait_for("clock edges", || s.ask("edges 1 1")["pins"][0]["count"].as_u64().unwrap() >= 5);
    let e = s.ask("edges 1 1");
    assert_eq!((&e["pins"][0]["direction"], &e["pins"][0]["function"]), (&json!("out"), &json!("fc0")));
    for (k, edge) in e["pins"][0]["edges"].as_array().unwrap().iter().enumerate() {
        assert_eq!(edge["cause"], "fc0");
        assert_eq!(edge["rising"], k % 2 == 0);
        assert_eq!(edge["systim_ns"], (start + k as u64 * 10_000_000).to_string(), "{edge}");
    }
    assert!(s.ask("lateness 1")["clock_ns"]["count"].as_u64().unwrap() >= 5);

    // Errors.
    for (cmd, what) in [
        ("pulse 0 9 1000000000", "no pin 9"),
        ("pulse 0 0 1000", "period 1000 ns out of"),
        ("pulse 0 0 1000000000 0 0 0", "width 0 ns"),
        ("pulse 7", "no port 7"),
        ("edges 0 4", "no pin 4"),
        ("edges 0 x", "bad pin"),
        ("edges", "port number missing"),
    ] {
        let err = s.ask(cmd)["error"].as_str().unwrap_or_default().to_string();
        assert!(err.contains(what), "{cmd}: {err:?}");
    }
    for p in &ports {
        p.shutdown();
    }
}
