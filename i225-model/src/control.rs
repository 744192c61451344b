// SPDX-License-Identifier: GPL-2.0

//! The control socket: one command per line, one JSON object per answer.
//!
//! ```text
//! status                      link, speed, interrupt mode, cable of every port,
//!                             TX packets dropped under the minimum size
//!                             (`tx_short_dropped`), frames lost from the TX
//!                             packet buffer to a link change or reset
//!                             (`tx_flushed`), the TX packet buffer
//! mmio PORT                   BAR0 accesses per register
//! reg PORT OFFSET             a register's value (OFFSET in hex), read
//!                             without side effects; refused for the ones
//!                             whose read has one (statistics, ICR, SYSTIM,
//!                             TSICR, TXSTMPH, AUXSTMPH); CTRL and CTRL_EXT
//!                             show the pins' levels
//! irqs PORT                   interrupts delivered per line
//! queues PORT                 packets/bytes/drops per TX and RX queue; per TX
//!                             queue the frames in the TX packet buffer
//!                             (`in_buffer`) and the write-backs still due
//!                             (`writebacks_due`); the buffer's bytes, size
//!                             and how long the wire is busy with it
//!                             (`tx_buffer`)
//! ptp PORT                    timestamps captured/read, clock values, TX
//!                             timestamp read latency (see below), target
//!                             times and clock outputs armed in the past
//!                             (`tt_armed_in_past`, `clock_armed_in_past`),
//!                             clocks enabled without STx
//!                             (`clock_without_start`)
//! cable plug|unplug           connect or disconnect every port's cable
//!                             (the wire, TAP devices)
//! vanish PORT on|off          device falls off the bus (reads all ones)
//! vanish PORT on-read OFFSET  it falls off as the driver reads the register
//!                             at OFFSET (hex with 0x, or decimal): that
//!                             read returns all ones already
//! no-auto-rd PORT on|off      EECD.AUTO_RD stays clear after each MAC reset
//!                             (an NVM auto-read that never completes)
//! tx-hang PORT                the TX unit hangs (no descriptor fetched)
//!                             until the next MAC reset
//! late-rx-dma PORT MS         each RX queue disabled with descriptors posted
//!                             completes a frame into its head descriptor MS
//!                             ms later, unless the driver changed it (0: off;
//!                             the counts in `status` start again at 0)
//! reset-faults                every port: no fault injected, cables plugged
//!                             (between the tests of one VM boot)
//! gio-master-hold PORT MS    master requests stay pending MS ms after
//!                             CTRL.GIO_MASTER_DISABLE (STATUS.GIO_MASTER_ENABLE
//!                             set); `status` counts the MAC resets made while
//!                             they were (`resets_with_master_enabled`)
//! manc PORT blk-phy-rst on|off
//!                             the manageability firmware blocks PHY resets
//!                             and power-downs (MANC.BLK_PHY_RST_ON_IDE);
//!                             `status` counts those made anyway (`phy`)
//! d3-power-loss PORT on|off   the port loses its state in D3hot, as a system
//!                             sleep that cuts the power leaves it (registers,
//!                             PHY and PHC at their power-on values when PMCSR
//!                             brings it back to D0); `status` has `pm`
//! txstmph0-bug PORT on|off    TX timestamp re-arm erratum
//! drop-txts PORT N            lose the next N TX timestamp interrupts
//! flap PORT                   unplug the port's cable for 200 ms (LSC twice;
//!                             on the two-port wire both ends see it)
//! lateness PORT               how late the timed events fired against their
//!                             due time (src/lateness.rs): SYS_WRAP, target
//!                             times, EITR-held interrupts, TX frames handed
//!                             to the cable after their first bit left
//!                             (`tx_wire_ns`: 0 for the many handed over at
//!                             once or ahead), the pulse source's edges
//!                             (`aux_ns`), the clock outputs' edges
//!                             (`clock_ns`); count, p50, p99, max in ns
//!                             (null without samples)
//! lateness-clear PORT         start those figures again
//! bench PORT                  the benchmark's figures (below)
//! bench-clear PORT            start them again
//! wire                        the wire's and the timestamps' settings and
//!                             the wire's frame counts (below)
//! wire ideal|realistic|noisy  a preset (src/noise.rs) for every port and
//!                             both directions
//! wire set KEY VALUE [PORT]   one setting, of PORT or of every port: of the
//!                             frames the port sends, `delay` and `jitter`
//!                             (ns), `loss` (probability 0..1); of the
//!                             port's TX and RX stamps, `ts-quantum` and
//!                             `ts-noise` (sigma) in ns (3 decimals)
//! wire drop N [PORT]          the wire drops the next N frames PORT (or
//!                             each port) sends
//! wire seed N                 every generator restarted from seed N
//!                             (the pulse source's jitter too)
//! pulse PORT                  the port's external pulse source (below)
//! pulse PORT off              no pulse source
//! pulse PORT PIN PERIOD_NS [PHASE_NS [JITTER_NS [WIDTH_NS]]]
//!                             a pulse source on SDP<PIN> (0..3): rising
//!                             edges at true times k*PERIOD_NS + PHASE_NS,
//!                             each pulse moved by a uniform draw in
//!                             +-JITTER_NS, falling WIDTH_NS later (default
//!                             100 ms, or half the period if shorter)
//! edges PORT [PIN]            the pins (or pin PIN) and their last 64 edges
//! edges-clear PORT            forget the edges logged
//! ```
//!
//! The pins (src/ptp/sdp.rs): SDP0..SDP3 with their direction in CTRL
//! (SDP0/1_DIR, bits 22/23) and CTRL_EXT (SDP2/3_DIR, bits 10/11), their
//! level in CTRL.SDP0/1_DATA (18/19) and CTRL_EXT.SDP2/3_DATA (6/7), and
//! TSSDP routing the auxiliary timestamps (inputs) and the target-time and
//! clock outputs (TT0, TT1, FC0, FC1) to them, as igc programs them.
//!
//! `pulse` answers `{"pulse": null}` or `{"pulse": {"pin", "period_ns",
//! "phase_ns", "jitter_ns", "width_ns", "level", "next_edge_true_ns",
//! "edges", "latched": [AUX0, AUX1], "busy": [AUX0, AUX1], "ignored",
//! "on_output", "resyncs"}, "true_offset_ns"}`: `latched` counts the edges
//! stamped into AUXSTMPn, `busy` those a channel missed because its last
//! stamp was unread (AUXSTMPHn not read yet), `ignored` those on an input
//! no enabled channel samples, `on_output` those on a pin configured as an
//! output. True time is the model's host clock (CLOCK_MONOTONIC) plus
//! `true_offset_ns`, CLOCK_REALTIME − CLOCK_MONOTONIC sampled at start and
//! at each `pulse` setting: the host's CLOCK_REALTIME, so that a 1 s source
//! with phase 0 pulses on its whole seconds (what `ts2phc -s generic`
//! expects). `reset-faults` restores the command line's pulse source.
//!
//! `edges` answers `{"true_offset_ns", "pins": [{"pin", "direction" ("in"
//! or "out"), "function" ("input", "aux0", "aux1", "aux0+aux1", "gpio",
//! "tt0", "tt1", "fc0", "fc1"), "level", "count" (edges since the last
//! clear), "edges": [...]}]}`, each edge (oldest first) `{"rising", "cause"
//! ("pulse", "tt0", "tt1", "fc0", "fc1", "sw"), "true_ns", "host_ns",
//! "systim_ns" (SYSTIM0 at the edge, exact), "systim_minus_true_ns",
//! "aux": [{"channel", "latched", "stamp_ns"}]}` (`aux`: what each channel
//! sampling an input pin did; `stamp_ns` is the stamp it holds after the
//! edge, with the port's stamp quantum and noise). Times in ns are strings
//! (they exceed a double's exact range), `systim_minus_true_ns` a number.
//!
//! Every `wire` command answers with the settings: `preset` (the name of
//! the preset they match, or `custom`), `seed`, and per port `name`,
//! `ts_quantum_ns`, `ts_noise_ns` and `tx`, the direction of the wire the
//! port sends on (null for a TAP device or a single port's ideal partner):
//! `delay_ns`, `jitter_ns`, `loss`, `drop_next` (frames still to drop),
//! `frames` (sent), `lost`, `dropped`. `reset-faults` restores the settings
//! of the command line. `status` counts each port's frames on the wire
//! (`cable.counters`: `tx_frames`, `tx_lost`, `tx_dropped`, `rx_lost`,
//! `rx_dropped`).
//!
//! `flat COMMAND...` answers COMMAND on one line of `PATH=VALUE` words
//! instead of JSON, for the guest's shell to read with awk (a python3 start
//! costs seconds under TCG): PATH joins object keys and array indices with
//! `.` (`tx.0.packets=12`, `0.tx_hang=false`), VALUE is a number, `true`,
//! `false`, `null` or a string with its whitespace turned into `_`; an
//! empty object or array is `PATH={}` or `PATH=[]`.
//!
//! `ptp`'s `txts_read_latency_ns` is the host time from the capture of a
//! TX timestamp into a TXSTMPL/H set (TXTT_n set, TSICR.TXTS raised unless
//! a fault suppresses it) to the read of that set's TXSTMPH, one sample per
//! read counted in `tx_read`: `count`, `min`, `max`, `mean` (null without
//! samples), `histogram` (decade buckets `lt_1us` .. `lt_1s`, `ge_1s`),
//! `recent` (the last 16 samples, oldest first) and `released_unread`
//! (stamps freed by a TXSTMPH_0 read or a reset before their own read).
//!
//! `bench N` gives the benchmark's figures: the totals since the start of
//! `mmio_reads`, `mmio_writes` (BAR0), `irqs` (every interrupt message sent,
//! INTx, MSI and MSI-X), `msix` (the MSI-X messages of each vector),
//! `msix_on_enable` (those of each vector that an EIMS write released, its
//! cause having come while it was masked), `tx_packets` and `rx_packets` (every queue); since
//! `bench-clear N` (or the start), `stats_pass_ns`, the duration of each statistics pass of the
//! driver (host time from the first to the last read of the statistics
//! block in a burst of at least 16 reads, see `stats_pass.rs`) as `count`,
//! `p50`, `p99`, `max`; `stats_pass_reads`, the reads of the last pass; and
//! `txts_read_latency_ns`, the same percentiles of the TX timestamp read
//! latency above.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::sync::Arc;

use serde_json::{json, Value};

use crate::device::Device;
use crate::noise::{self, Preset};
use crate::port::Port;
use crate::ptp::sdp::{Edge, PulseConfig, NUM_PINS};

fn tx_buffer(b: &crate::mac::tx::TxBufferStatus) -> Value {
    json!({ "frames": b.frames.iter().sum::<usize>(), "bytes": b.bytes, "capacity": b.capacity,
            "backlog_ns": b.backlog_ns })
}

fn lateness(l: &crate::lateness::Lateness) -> Value {
    let s = l.summary();
    json!({ "count": s.count, "p50": s.p50_ns, "p99": s.p99_ns, "max": s.max_ns })
}

/// The `pulse` answer: the port's pulse source.
fn pulse_answer(d: &Device) -> Value {
    let ptp = d.mac.ptp();
    let source = ptp.pins().pulse().map(|s| {
        let (c, n) = (s.config, s.counters);
        json!({
            "pin": c.pin, "period_ns": c.period_ns, "phase_ns": c.phase_ns, "jitter_ns": c.jitter_ns,
            "width_ns": c.width_ns, "level": s.level, "next_edge_true_ns": s.next_edge().to_string(),
            "edges": n.edges, "latched": n.latched, "busy": n.busy, "ignored": n.ignored,
            "on_output": n.on_output, "resyncs": n.resyncs,
        })
    });
    json!({ "pulse": source, "true_offset_ns": ptp.true_offset_ns().to_string() })
}

fn edge(e: &Edge) -> Value {
    let aux: Vec<Value> = e
        .aux
        .iter()
        .enumerate()
        .filter_map(|(ch, a)| {
            a.map(|a| json!({ "channel": ch, "latched": a.latched, "stamp_ns": a.stamp_ns.to_string() }))
        })
        .collect();
    json!({
        "rising": e.rising, "cause": e.cause.name(), "true_ns": e.true_ns.to_string(),
        "host_ns": e.host_ns.to_string(), "systim_ns": e.systim_ns.to_string(),
        "systim_minus_true_ns": i64::try_from(e.systim_ns - e.true_ns).ok(), "aux": aux,
    })
}

/// The `edges` answer: `pins` of the port.
fn edges_answer(d: &Device, pins: &[usize]) -> Value {
    let ptp = d.mac.ptp();
    let config = ptp.pins().config();
    let pins: Vec<Value> = pins
        .iter()
        .map(|&pin| {
            let log = ptp.pins().log(pin);
            json!({
                "pin": pin, "direction": if config.is_output(pin) { "out" } else { "in" },
                "function": config.role(pin), "level": ptp.pin_level(pin), "count": log.count,
                "edges": log.recent.iter().map(edge).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({ "true_offset_ns": ptp.true_offset_ns().to_string(), "pins": pins })
}

/// How long `flap` keeps the cable unplugged.
pub const FLAP_TIME: std::time::Duration = std::time::Duration::from_millis(200);

/// Serves the control socket forever.
pub fn serve(listener: UnixListener, ports: Vec<Arc<Port>>) {
    for stream in listener.incoming().flatten() {
        let ports = ports.clone();
        std::thread::spawn(move || {
            if let Err(e) = session(stream, &ports) {
                log::debug!("control session ended: {e}");
            }
        });
    }
}

fn session(stream: UnixStream, ports: &[Arc<Port>]) -> std::io::Result<()> {
    let mut out = stream.try_clone()?;
    for line in BufReader::new(stream).lines() {
        let line = line?;
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.is_empty() {
            continue;
        }
        if words[0] == "flat" && words.len() > 1 {
            let answer = execute(&words[1..], ports).unwrap_or_else(|e| json!({ "error": e }));
            writeln!(out, "{}", flat(&answer))?;
            continue;
        }
        let answer = execute(&words, ports).unwrap_or_else(|e| json!({ "error": e }));
        writeln!(out, "{answer}")?;
    }
    Ok(())
}

/// `value` as the `flat` command's `PATH=VALUE` words.
pub fn flat(value: &Value) -> String {
    fn walk(v: &Value, path: &str, words: &mut Vec<String>) {
        let join = |key: &dyn std::fmt::Display| {
            if path.is_empty() {
                key.to_string()
            } else {
                format!("{path}.{key}")
            }
        };
        match v {
            Value::Object(m) if !m.is_empty() => m.iter().for_each(|(k, v)| walk(v, &join(k), words)),
            Value::Array(a) if !a.is_empty() => a.iter().enumerate().for_each(|(i, v)| walk(v, &join(&i), words)),
            Value::Object(_) => words.push(format!("{path}={{}}")),
            Value::Array(_) => words.push(format!("{path}=[]")),
            Value::String(s) => words.push(format!("{path}={}", s.split_whitespace().collect::<Vec<_>>().join("_"))),
            other => words.push(format!("{path}={other}")),
        }
    }
    let mut words = Vec::new();
    walk(value, "", &mut words);
    words.join(" ")
}

fn port<'a>(ports: &'a [Arc<Port>], arg: Option<&&str>) -> Result<&'a Arc<Port>, String> {
    let i: usize = arg.ok_or("port number missing")?.parse().map_err(|_| "bad port number")?;
    ports.get(i).ok_or_else(|| format!("no port {i}"))
}

fn on_off(arg: Option<&&str>) -> Result<bool, String> {
    match arg.copied() {
        Some("on") => Ok(true),
        Some("off") => Ok(false),
        _ => Err("expected on or off".into()),
    }
}

/// Runs one command.
pub fn execute(words: &[&str], ports: &[Arc<Port>]) -> Result<Value, String> {
    let arg = |i: usize| words.get(i);
    match words[0] {
        "status" => Ok(Value::Array(ports.iter().map(status).collect())),
        "mmio" => Ok(port(ports, arg(1))?.with_device(|d| {
            let regs: serde_json::Map<String, Value> = d
                .mmio
                .iter()
                .map(|(off, c)| (format!("{off:#07x}"), json!({ "reads": c.reads, "writes": c.writes })))
                .collect();
            Value::Object(regs)
        })),
        "reg" => {
            let p = port(ports, arg(1))?;
            let text = arg(2).ok_or("register offset missing")?;
            let off = u32::from_str_radix(text.trim_start_matches("0x"), 16)
                .map_err(|_| format!("bad register offset {text} (hex)"))?;
            let val = p.with_device(|d| d.mac.peek(off));
            let val = val.ok_or_else(|| format!("register {off:#x} cannot be read without side effects"))?;
            Ok(json!({ "offset": format!("{off:#07x}"), "value": format!("{val:#010x}") }))
        }
        "irqs" => Ok(port(ports, arg(1))?.with_device(|d| {
            let c = d.irqs.counts();
            json!({ "mode": format!("{:?}", d.irqs.mode()), "intx": c.intx, "msi": c.msi, "msix": c.msix,
                    "msix_pending": d.irqs.msix_pending() })
        })),
        "queues" => Ok(port(ports, arg(1))?.with_device(|d| {
            let q = |c: &[crate::mac::QueueCounters]| -> Vec<Value> {
                c.iter().map(|c| json!({ "packets": c.packets, "bytes": c.bytes, "drops": c.drops })).collect()
            };
            let buffer = d.mac.tx_buffer();
            let mut tx = q(&d.mac.tx_counters);
            for (i, t) in tx.iter_mut().enumerate() {
                t["in_buffer"] = json!(buffer.frames[i]);
                t["writebacks_due"] = json!(buffer.writebacks_due[i]);
            }
            json!({ "tx": tx, "rx": q(&d.mac.rx_counters), "tx_buffer": tx_buffer(&buffer) })
        })),
        "ptp" => Ok(port(ports, arg(1))?.with_device(|d| {
            let now = d.mac.now();
            let ptp = d.mac.ptp();
            let c = ptp.counters;
            let lat = &ptp.txts_read_latency;
            let l = &lat.latency;
            let histogram: serde_json::Map<String, Value> =
                l.buckets().map(|(label, n)| (label.to_string(), json!(n))).collect();
            let some_sample = |v: u64| (l.count > 0).then_some(v);
            json!({
                "systim0_ns": ptp.systim0.at(now).to_string(),
                "systim1_ns": ptp.systim1.at(now).to_string(),
                "tx_captured": c.tx_captured, "tx_read": c.tx_read, "tx_skipped_busy": c.tx_skipped_busy,
                "rx_stamped": c.rx_stamped, "txts_irqs_dropped": c.txts_irqs_dropped,
                "tt_armed_in_past": c.tt_armed_in_past, "clock_armed_in_past": c.clock_armed_in_past,
                "clock_without_start": c.clock_without_start,
                "txts_read_latency_ns": {
                    "count": l.count, "min": some_sample(l.min_ns), "max": some_sample(l.max_ns),
                    "mean": l.mean_ns(), "histogram": histogram, "recent": l.recent,
                    "released_unread": lat.released_unread,
                },
                "faults": { "txstmph0_rearm_bug": ptp.faults.txstmph0_rearm_bug,
                            "drop_txts_irqs": ptp.faults.drop_txts_irqs },
            })
        })),
        "bench" => Ok(port(ports, arg(1))?.with_device(|d| {
            d.stats_passes.settle(std::time::Instant::now());
            let passes = &d.stats_passes;
            let c = d.irqs.counts();
            let sum = |q: &[crate::mac::QueueCounters]| q.iter().map(|q| q.packets).sum::<u64>();
            json!({
                "mmio_reads": d.mmio.values().map(|c| c.reads).sum::<u64>(),
                "mmio_writes": d.mmio.values().map(|c| c.writes).sum::<u64>(),
                "irqs": c.intx + c.msi + c.msix.iter().sum::<u64>(),
                "msix": c.msix,
                "msix_on_enable": d.mac.intr.fired_on_enable,
                "tx_packets": sum(&d.mac.tx_counters), "rx_packets": sum(&d.mac.rx_counters),
                "stats_pass_ns": lateness(&passes.durations),
                "stats_pass_reads": passes.last_reads,
                "txts_read_latency_ns": lateness(&d.mac.ptp().txts_read_latency.percentiles),
            })
        })),
        "bench-clear" => Ok(port(ports, arg(1))?.with_device(|d| {
            d.stats_passes.clear();
            d.mac.ptp_mut().txts_read_latency.percentiles.clear();
            json!({ "bench": "cleared" })
        })),
        "lateness" => Ok(port(ports, arg(1))?.with_device(|d| {
            let ptp = d.mac.ptp();
            json!({
                "sys_wrap_ns": lateness(&ptp.sys_wrap_lateness),
                "target_time_ns": lateness(&ptp.target_time_lateness),
                "eitr_release_ns": lateness(&d.mac.intr.release_lateness),
                "tx_wire_ns": lateness(d.mac.tx_lateness()),
                "aux_ns": lateness(&ptp.aux_lateness),
                "clock_ns": lateness(&ptp.clock_lateness),
            })
        })),
        "lateness-clear" => Ok(port(ports, arg(1))?.with_device(|d| {
            d.mac.ptp_mut().sys_wrap_lateness.clear();
            d.mac.ptp_mut().target_time_lateness.clear();
            d.mac.ptp_mut().aux_lateness.clear();
            d.mac.ptp_mut().clock_lateness.clear();
            d.mac.intr.release_lateness.clear();
            d.mac.clear_tx_lateness();
            json!({ "lateness": "cleared" })
        })),
        "cable" => {
            let plug = match arg(1).copied() {
                Some("plug") => true,
                Some("unplug") => false,
                _ => return Err("expected plug or unplug".into()),
            };
            if ports.is_empty() {
                return Err("no ports".into());
            }
            for p in ports {
                p.far_end().set_connected(plug);
            }
            Ok(json!({ "cable": plug }))
        }
        "vanish" => {
            let p = port(ports, arg(1))?;
            if arg(2).copied() == Some("on-read") {
                let off = arg(3).ok_or("expected a register offset")?;
                let off = match off.strip_prefix("0x") {
                    Some(hex) => u32::from_str_radix(hex, 16),
                    None => off.parse(),
                }
                .map_err(|_| format!("bad register offset {off}"))?;
                p.with_device(|d| d.mac.faults.vanish_on_read = Some(off & !3));
                return Ok(json!({ "vanish_on_read": off & !3 }));
            }
            let on = on_off(arg(2))?;
            p.with_device(|d| {
                d.mac.faults.vanished = on;
                d.mac.faults.vanish_on_read = None;
            });
            Ok(json!({ "vanished": on }))
        }
        "reset-faults" => {
            for p in ports {
                p.with_device(|d| {
                    d.mac.faults = Default::default();
                    d.mac.ptp_mut().faults = Default::default();
                    d.mac.ptp_mut().stamping.restore();
                    d.mac.restore_pulse();
                    d.mac.set_blk_phy_rst(false);
                    d.pm.power_loss = false;
                });
                if let Some(path) = p.far_end().tx_path() {
                    path.restore();
                }
                p.far_end().set_connected(true);
            }
            Ok(json!({ "faults": "reset" }))
        }
        "no-auto-rd" => {
            let p = port(ports, arg(1))?;
            let on = on_off(arg(2))?;
            p.with_device(|d| d.mac.faults.no_auto_rd = on);
            Ok(json!({ "no_auto_rd": on }))
        }
        "d3-power-loss" => {
            let p = port(ports, arg(1))?;
            let on = on_off(arg(2))?;
            p.with_device(|d| d.pm.power_loss = on);
            Ok(json!({ "d3_power_loss": on }))
        }
        "gio-master-hold" => {
            let p = port(ports, arg(1))?;
            let ms: u32 = arg(2).ok_or("milliseconds missing")?.parse().map_err(|_| "bad milliseconds")?;
            if ms > 10_000 {
                return Err("at most 10000 ms".into());
            }
            p.with_device(|d| d.mac.faults.gio_master_hold_ms = ms);
            Ok(json!({ "gio_master_hold_ms": ms }))
        }
        "manc" => {
            let p = port(ports, arg(1))?;
            if arg(2).copied() != Some("blk-phy-rst") {
                return Err("expected blk-phy-rst on|off".into());
            }
            let on = on_off(arg(3))?;
            p.with_device(|d| d.mac.set_blk_phy_rst(on));
            Ok(json!({ "blk_phy_rst_on_ide": on }))
        }
        "tx-hang" => {
            let p = port(ports, arg(1))?;
            p.with_device(|d| d.mac.faults.tx_hang = true);
            Ok(json!({ "tx_hang": true }))
        }
        "late-rx-dma" => {
            let p = port(ports, arg(1))?;
            let ms: u32 = arg(2).ok_or("milliseconds missing")?.parse().map_err(|_| "bad milliseconds")?;
            if ms > 1000 {
                return Err("at most 1000 ms".into());
            }
            p.with_device(|d| {
                d.mac.faults.late_rx_dma_ms = ms;
                d.mac.late_rx_counts = Default::default();
            });
            Ok(json!({ "late_rx_dma_ms": ms }))
        }
        "txstmph0-bug" => {
            let p = port(ports, arg(1))?;
            let on = on_off(arg(2))?;
            p.with_device(|d| d.mac.ptp_mut().faults.txstmph0_rearm_bug = on);
            Ok(json!({ "txstmph0_rearm_bug": on }))
        }
        "drop-txts" => {
            let p = port(ports, arg(1))?;
            let n: u32 = arg(2).ok_or("count missing")?.parse().map_err(|_| "bad count")?;
            p.with_device(|d| d.mac.ptp_mut().faults.drop_txts_irqs = n);
            Ok(json!({ "drop_txts_irqs": n }))
        }
        "flap" => {
            let p = port(ports, arg(1))?;
            let cable = p.far_end().clone();
            cable.set_connected(false);
            std::thread::spawn(move || {
                std::thread::sleep(FLAP_TIME);
                cable.set_connected(true);
            });
            Ok(json!({ "flap": true }))
        }
        "pulse" => {
            let p = port(ports, arg(1))?;
            let config = match &words[2..] {
                [] => None,
                ["off"] => Some(None),
                fields => Some(Some(PulseConfig::from_fields(fields)?)),
            };
            Ok(p.with_device(|d| {
                if let Some(config) = config {
                    d.mac.set_pulse(config);
                } else {
                    d.mac.tick();
                }
                pulse_answer(d)
            }))
        }
        "edges" => {
            let p = port(ports, arg(1))?;
            let pins: Vec<usize> = match arg(2) {
                None => (0..NUM_PINS).collect(),
                Some(pin) => {
                    let pin: usize = pin.parse().map_err(|_| format!("bad pin {pin:?}"))?;
                    if pin >= NUM_PINS {
                        return Err(format!("no pin {pin} (0..3)"));
                    }
                    vec![pin]
                }
            };
            Ok(p.with_device(|d| {
                d.mac.tick();
                edges_answer(d, &pins)
            }))
        }
        "edges-clear" => Ok(port(ports, arg(1))?.with_device(|d| {
            d.mac.tick();
            d.mac.ptp_mut().clear_edges();
            json!({ "edges": "cleared" })
        })),
        "wire" => wire(&words[1..], ports),
        other => Err(format!("unknown command {other:?}")),
    }
}

/// The ports a `wire` command applies to: `arg`'s, or all.
fn targets<'a>(ports: &'a [Arc<Port>], arg: Option<&&str>) -> Result<Vec<&'a Arc<Port>>, String> {
    match arg {
        Some(_) => Ok(vec![port(ports, arg)?]),
        None => Ok(ports.iter().collect()),
    }
}

/// Runs `f` on the direction of the wire each of `targets` sends on; an
/// error if one named alone has none, or none has.
fn each_path(targets: &[&Arc<Port>], f: impl Fn(crate::wire::TxPath<'_>)) -> Result<(), String> {
    let mut any = false;
    for p in targets {
        match p.far_end().tx_path() {
            Some(path) => {
                f(path);
                any = true;
            }
            None if targets.len() == 1 => {
                return Err(format!("{} is cabled to {}, not to the two-port wire", p.name, p.far_end().describe()))
            }
            None => {}
        }
    }
    if any {
        Ok(())
    } else {
        Err("no two-port wire".into())
    }
}

/// The `wire` commands (`args` after the word `wire`).
fn wire(args: &[&str], ports: &[Arc<Port>]) -> Result<Value, String> {
    let arg = |i: usize| args.get(i);
    let at_most = |n: usize| if args.len() > n { Err("too many arguments".to_string()) } else { Ok(()) };
    match args.first().copied() {
        None => {}
        Some("set") => {
            at_most(4)?;
            let key = *arg(1).ok_or("setting missing")?;
            let value = *arg(2).ok_or("value missing")?;
            let targets = targets(ports, arg(3))?;
            let bad = || format!("bad value {value:?} for {key}");
            let ns = || noise::parse_delay_ns(value).ok_or_else(bad);
            let ps = || noise::parse_stamp_ps(value).ok_or_else(bad);
            let stamping = |f: &dyn Fn(&mut noise::Stamping)| {
                for p in &targets {
                    p.with_device(|d| f(&mut d.mac.ptp_mut().stamping.current));
                }
            };
            match key {
                "delay" => {
                    let ns = ns()?;
                    each_path(&targets, |path| path.update(|c| c.delay_ns = ns))?;
                }
                "jitter" => {
                    let ns = ns()?;
                    each_path(&targets, |path| path.update(|c| c.jitter_ns = ns))?;
                }
                "loss" => {
                    let ppm = noise::parse_loss_ppm(value).ok_or_else(bad)?;
                    each_path(&targets, |path| path.update(|c| c.loss_ppm = ppm))?;
                }
                "ts-quantum" => {
                    let ps = ps()?;
                    stamping(&|st| st.quantum_ps = ps);
                }
                "ts-noise" => {
                    let ps = ps()?;
                    stamping(&|st| st.noise_ps = ps);
                }
                other => {
                    return Err(format!("unknown setting {other:?} (delay, jitter, loss, ts-quantum, ts-noise)"));
                }
            }
        }
        Some("drop") => {
            at_most(3)?;
            let n: u64 = arg(1).ok_or("count missing")?.parse().map_err(|_| "bad count")?;
            each_path(&targets(ports, arg(2))?, |path| path.drop_next(n))?;
        }
        Some("seed") => {
            at_most(2)?;
            let seed: u64 = arg(1).ok_or("seed missing")?.parse().map_err(|_| "bad seed")?;
            for p in ports {
                p.with_device(|d| {
                    d.mac.ptp_mut().stamping.reseed(seed);
                    d.mac.ptp_mut().reseed_pulse();
                });
                if let Some(path) = p.far_end().tx_path() {
                    path.reseed(seed);
                }
            }
        }
        Some(name) => {
            at_most(1)?;
            let preset = Preset::from_name(name)
                .ok_or_else(|| format!("unknown wire command {name:?} (ideal, realistic, noisy, set, drop, seed)"))?;
            for p in ports {
                p.with_device(|d| d.mac.ptp_mut().stamping.current = preset.stamping());
                if let Some(path) = p.far_end().tx_path() {
                    path.set_config(preset.paths()[path.side()]);
                }
            }
        }
    }
    Ok(wire_settings(ports))
}

/// The answer of every `wire` command.
fn wire_settings(ports: &[Arc<Port>]) -> Value {
    let mut matches = Preset::ALL.to_vec();
    let mut seed = None;
    let answers: Vec<Value> = ports
        .iter()
        .map(|p| {
            let (st, stamp_seed) = p.with_device(|d| (d.mac.ptp().stamping.current, d.mac.ptp().stamping.seed()));
            seed.get_or_insert(stamp_seed);
            matches.retain(|pre| pre.stamping() == st);
            let tx = p.far_end().tx_path().map(|path| {
                let (c, n) = (path.config(), path.counters());
                matches.retain(|pre| pre.paths()[path.side()] == c);
                json!({
                    "delay_ns": c.delay_ns, "jitter_ns": c.jitter_ns, "loss": noise::ppm_to_probability(c.loss_ppm),
                    "drop_next": path.pending_drops(), "frames": n.frames, "lost": n.lost, "dropped": n.dropped,
                })
            });
            json!({
                "name": p.name,
                "ts_quantum_ns": noise::ps_to_ns(st.quantum_ps),
                "ts_noise_ns": noise::ps_to_ns(st.noise_ps),
                "tx": tx,
            })
        })
        .collect();
    json!({
        "preset": matches.first().map_or("custom", |p| p.name()),
        "seed": seed,
        "ports": answers,
    })
}

fn status(p: &Arc<Port>) -> Value {
    let far = p.far_end();
    let counters: serde_json::Map<String, Value> =
        far.counters().into_iter().map(|(name, n)| (name.to_string(), json!(n))).collect();
    let cable = json!({ "to": far.describe(), "connected": far.connected(), "counters": counters });
    p.with_device(|d| {
        let link = d.mac.link().map(|l| json!({ "speed": l.speed.mbps(), "full_duplex": l.full_duplex }));
        json!({
            "name": p.name,
            "device_id": format!("{:#06x}", d.config.read16(2)),
            "link": link,
            "irq_mode": format!("{:?}", d.irqs.mode()),
            "dma_windows": d.dma.windows(),
            "bus_master": d.dma.bus_master(),
            "dma_refused_no_bus_master": d.dma.refused(),
            "vanished": d.mac.faults.vanished,
            "vanish_on_read": d.mac.faults.vanish_on_read,
            "tx_hang": d.mac.faults.tx_hang,
            "phy": {
                "powered_down": d.mac.phy.powered_down(),
                "resets": d.mac.phy_resets,
                "resets_blocked": d.mac.phy_resets_blocked,
                "power_downs": d.mac.phy_power_downs,
                "power_downs_blocked": d.mac.phy_power_downs_blocked,
                "blk_phy_rst_on_ide": d.mac.phy_reset_blocked(),
            },
            "pm": {
                "state": format!("D{}", d.config.power_state()),
                "power_loss": d.pm.power_loss,
                "d3_entries": d.pm.d3_entries,
                "power_losses": d.pm.power_losses,
                "mmio_in_d3": d.pm.mmio_in_d3,
            },
            "gio_master_hold_ms": d.mac.faults.gio_master_hold_ms,
            "resets_with_master_enabled": d.mac.resets_with_master_enabled,
            "late_rx_dma": {
                "ms": d.mac.faults.late_rx_dma_ms,
                "scheduled": d.mac.late_rx_counts.scheduled,
                "completed": d.mac.late_rx_counts.completed,
                "changed": d.mac.late_rx_counts.changed,
                "too_late": d.mac.late_rx_counts.too_late,
            },
            "tx_pending": d.mac.tx_pending(),
            "tx_short_dropped": d.mac.tx_counts.short_dropped,
            "tx_flushed": d.mac.tx_counts.flushed,
            "tx_buffer": tx_buffer(&d.mac.tx_buffer()),
            "tx_rings": d.mac.tx_rings().iter().map(|&(head, tail, count, enabled)| {
                json!({ "tdh": head, "tdt": tail, "count": count, "enabled": enabled })
            }).collect::<Vec<_>>(),
            "cable": cable,
        })
    })
}
