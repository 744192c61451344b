// SPDX-License-Identifier: GPL-2.0

//! `ntpload`: an ntpperf-like load generator measuring how many interleaved
//! NTP requests per second a server answers with hardware timestamps.
//!
//! The protocol logic follows ntpperf (Miroslav Lichvar) and chronyd's
//! server code; see `session.rs`. Bench setup, with the client port
//! `$CIF` (10.0.0.2) in namespace `cli` and the server port `$SIF` (10.0.0.1)
//! in namespace `srv`:
//!
//! ```text
//! # chrony.conf of the server (run as `ip netns exec srv chronyd -x -f ...`:
//! # -x because the namespaces share CLOCK_REALTIME with phc2sys):
//! allow 172.16.0.0/16
//! local stratum 1
//! hwtimestamp $SIF
//! clientloglimit 16777216     # room for >= --clients interleaved clients
//! # no ratelimit, no noclientlog
//!
//! # responses to the simulated clients go back through the client port:
//! ip -n srv route add 172.16.0.0/16 via 10.0.0.2 dev $SIF
//! ip -n srv neigh replace 10.0.0.2 lladdr $CLIENT_MAC dev $SIF nud permanent
//!
//! ip netns exec cli ntpload -i $CIF -d 10.0.0.1 -m $SERVER_MAC -s 172.16.0.0/16
//! ```
//!
//! The client namespace needs nothing else: it does not own 172.16.0.0/16
//! and does not forward, so its kernel drops the responses silently while
//! the packet socket still sees them.

#![deny(unsafe_code)]

mod cli;
mod engine;
mod frame;
mod ntp;
mod schedule;
mod session;
mod stats;
#[allow(unsafe_code)] // the thin libc wrappers, each with a SAFETY comment
mod sys;

use std::io;
use std::process::ExitCode;

use cli::{Config, Parsed};
use engine::{Engine, StepParams};
use frame::{fmt_ipv4, fmt_mac, Endpoints};
use schedule::{auto_clients, step_rates, AUTO_CLIENT_RATE};
use stats::best_rate;
use sys::{CtlSocket, HwTstampConfig, PacketSocket};

/// Restores the interface's hardware timestamping configuration on drop.
struct HwTstampRestore<'a> {
    ctl: &'a CtlSocket,
    iface: &'a str,
    saved: Option<HwTstampConfig>,
}

impl Drop for HwTstampRestore<'_> {
    fn drop(&mut self) {
        if let Some(cfg) = self.saved {
            if let Err(e) = self.ctl.set_hwtstamp(self.iface, cfg) {
                eprintln!("ntpload: could not restore hardware timestamping on {}: {e}", self.iface);
            }
        }
    }
}

/// Enables RX hardware timestamping of all packets on the interface (TX left
/// as it is, i.e. off unless something else turned it on). Returns whether
/// hardware timestamps are to be used.
fn enable_hw_timestamps<'a>(ctl: &'a CtlSocket, iface: &'a str) -> (bool, HwTstampRestore<'a>) {
    let mut restore = HwTstampRestore { ctl, iface, saved: None };
    let old = ctl.get_hwtstamp(iface).ok();
    if old.is_some_and(|o| o.rx_filter == sys::HWTSTAMP_FILTER_ALL) {
        return (true, restore);
    }
    let tx_type = old.map_or(sys::HWTSTAMP_TX_OFF, |o| o.tx_type);
    match ctl.set_hwtstamp(iface, HwTstampConfig { tx_type, rx_filter: sys::HWTSTAMP_FILTER_ALL }) {
        Ok(applied) => {
            restore.saved = Some(
                old.unwrap_or(HwTstampConfig { tx_type: sys::HWTSTAMP_TX_OFF, rx_filter: sys::HWTSTAMP_FILTER_NONE }),
            );
            if applied.rx_filter != sys::HWTSTAMP_FILTER_ALL && applied.rx_filter != sys::HWTSTAMP_FILTER_NTP_ALL {
                eprintln!(
                    "ntpload: warning: driver applied rx_filter {} instead of ALL; responses may lack hardware \
                     timestamps (software used for those)",
                    applied.rx_filter
                );
            }
            (true, restore)
        }
        Err(e) => {
            eprintln!("ntpload: SIOCSHWTSTAMP on {iface} failed ({e}); falling back to software RX timestamps");
            (false, restore)
        }
    }
}

fn setup_error(what: &str, e: io::Error) -> String {
    let hint = if e.kind() == io::ErrorKind::PermissionDenied || e.raw_os_error() == Some(libc::EPERM) {
        format!(" (needs root or CAP_NET_RAW/CAP_NET_ADMIN; running as uid {})", sys::euid())
    } else {
        String::new()
    };
    format!("{what}: {e}{hint}")
}

/// Runs `--step-cmd` (if given) for step `step` (0: before the first) at `rate`.
fn step_cmd(cfg: &Config, step: u32, rate: u64) -> Result<(), String> {
    let Some(cmd) = &cfg.step_cmd else { return Ok(()) };
    let status = std::process::Command::new("sh")
        .args(["-c", cmd])
        .env("NTPLOAD_STEP", step.to_string())
        .env("NTPLOAD_RATE", rate.to_string())
        .status()
        .map_err(|e| format!("--step-cmd: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("--step-cmd failed after step {step} ({status})"))
    }
}

fn run(cfg: &Config) -> Result<(), String> {
    sys::install_stop_handler().map_err(|e| setup_error("installing signal handlers", e))?;
    let ctl = CtlSocket::open().map_err(|e| setup_error("opening a control socket", e))?;
    let ifindex = sys::if_index(&cfg.iface).map_err(|e| format!("no such interface '{}': {e}", cfg.iface))?;
    let src_mac = ctl.hwaddr(&cfg.iface).map_err(|e| setup_error(&format!("MAC address of {}", cfg.iface), e))?;
    let sock = PacketSocket::open(ifindex).map_err(|e| setup_error("opening an AF_PACKET socket", e))?;

    let (mut hw, _restore) = if cfg.hw {
        enable_hw_timestamps(&ctl, &cfg.iface)
    } else {
        (false, HwTstampRestore { ctl: &ctl, iface: &cfg.iface, saved: None })
    };
    if hw {
        if let Err(e) = sock.set_timestamping(sys::TS_FLAGS_HW) {
            eprintln!("ntpload: SO_TIMESTAMPING with hardware flags failed ({e}); using software RX timestamps");
            hw = false;
        }
    }
    if !hw {
        sock.set_timestamping(sys::TS_FLAGS_SW).map_err(|e| setup_error("SO_TIMESTAMPING", e))?;
    }
    eprintln!(
        "ntpload: {} ({}) -> {} ({}), clients from {}, {} RX timestamps",
        cfg.iface,
        fmt_mac(&src_mac),
        fmt_ipv4(cfg.dst_ip),
        fmt_mac(&cfg.dst_mac),
        cfg.src_net,
        if hw { "hardware" } else { "software" }
    );

    let ep = Endpoints { src_mac, dst_mac: cfg.dst_mac, dst_ip: cfg.dst_ip };
    let mut engine = Engine::new(&sock, ep, cfg.src_net, hw);
    let params = StepParams { duration_s: cfg.duration_s, grace_s: cfg.grace_s, correction_ns: cfg.correction_ns };
    let mut results = Vec::new();
    let rates = step_rates(cfg.rate, cfg.factor, cfg.steps, cfg.max_rate);
    step_cmd(cfg, 0, rates.first().copied().unwrap_or(cfg.rate))?;
    for (step, rate) in (1..).zip(rates) {
        let clients = cfg.clients.unwrap_or_else(|| auto_clients(rate, cfg.src_net.host_count()));
        // ntpperf's clients poll at 10 Hz; its rate/10 rounding is tolerated.
        if rate / u64::from(clients) > AUTO_CLIENT_RATE {
            eprintln!(
                "ntpload: warning: at rate {rate} each of {clients} clients sends {:.1} requests/s (more often \
                 than every 0.1 s)",
                rate as f64 / f64::from(clients)
            );
        }
        let res = engine.run_step(rate, clients, &params).map_err(|e| format!("step at rate {rate}: {e}"))?;
        println!("{}", res.line());
        step_cmd(cfg, step, rate)?;
        if res.offset.mean().is_some_and(|m| m.abs() > 1e9) {
            eprintln!(
                "ntpload: warning: offsets are over 1 s; is the PHC of {} kept on CLOCK_REALTIME (UTC, e.g. \
                 phc2sys -O 0)?",
                cfg.iface
            );
        }
        let stop = if res.behind() {
            Some(format!("could not send requests at rate {rate} (achieved {:.0}/s); stopping", res.tx_rate))
        } else if res.exceeds_loss(cfg.max_loss_pct) {
            Some(format!("lost + invalid responses exceed {}% at rate {rate}; stopping", cfg.max_loss_pct))
        } else {
            None
        };
        results.push(res);
        if let Some(msg) = stop {
            eprintln!("ntpload: {msg}");
            break;
        }
    }
    println!("best rate={}", best_rate(&results));
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cfg = match cli::parse(&args) {
        Ok(Parsed::Help) => {
            print!("{}", cli::USAGE);
            return ExitCode::SUCCESS;
        }
        Ok(Parsed::Run(cfg)) => cfg,
        Err(e) => {
            eprintln!("ntpload: {e} (see --help)");
            return ExitCode::FAILURE;
        }
    };
    match run(&cfg) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ntpload: {e}");
            ExitCode::FAILURE
        }
    }
}
