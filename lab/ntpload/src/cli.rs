// SPDX-License-Identifier: GPL-2.0

//! Command line parsing.

use crate::frame::{fmt_ipv4, parse_ipv4, parse_mac, Mac, Net};

pub const USAGE: &str = "\
Usage: ntpload -i IFACE -d SERVER-IP -m SERVER-MAC -s NET/BITS [OPTIONS]

Measures how many interleaved-mode NTP requests per second an NTP server
(chronyd with hwtimestamp) answers, as `ntpperf -I -H` does. Requests from
many simulated clients (source addresses NET+1, NET+2, ...) are crafted as
raw Ethernet frames on IFACE; responses are received with hardware RX
timestamps. Needs root (CAP_NET_RAW, CAP_NET_ADMIN for SIOCSHWTSTAMP).

Required:
  -i, --iface IFACE        network interface to send and receive on
  -d, --dst-ip IP          IPv4 address of the NTP server
  -m, --dst-mac MAC        MAC address of the server's (or next hop's) interface
  -s, --src-net NET/BITS   private network of the simulated clients (8..30 bits,
                           inside 10/8, 172.16/12 or 192.168/16)

Options:
  -c, --clients N          simulated clients, used round-robin (default: rate/10
                           per step, 1..16384, as ntpperf)
  -r, --rate R             requests/s of the first step (default 1000)
  -x, --factor F           rate multiplier per step (default 1.5; rates are
                           truncated to integers)
  -n, --steps N            number of steps at most (default 10)
      --max-rate R         no step above R requests/s (default 1000000)
  -t, --duration S         measured seconds per step (default 2.0); each client
                           first sends 2 warm-up requests that are not counted
      --grace S            seconds to wait for late responses after a step (0.5)
      --max-loss PCT       stop after a step whose lost + invalid responses
                           exceed PCT % of the requests (default 50, as ntpperf);
                           a step not sent at >= 90% of its rate also ends the run
  -o, --correction NS      subtract NS from all offsets (e.g. known wire delay)
      --sw                 do not enable hardware timestamping; software RX
                           timestamps only
      --step-cmd CMD       run `sh -c CMD` before the first step and after each
                           step (NTPLOAD_STEP=0, 1, ... and NTPLOAD_RATE in its
                           environment), e.g. to read the server's counters
                           step by step; a failing CMD ends the run
  -h, --help               show this help

Output (stdout), one line per step, then the best rate:
  step rate=R sent=N received=N lost=N loss_pct=X basic=N interleaved=N
       ts=hw|sw|mixed|- offset_min=NS offset_mean=NS offset_max=NS
       offset_stddev=NS invalid=N clients=N tx_rate=R tx_lag_max_us=N
       basic_offset_min=NS ... basic_offset_stddev=NS
       resp_time_min=NS ... resp_time_stddev=NS
  best rate=R
(printed as one line per step; `-` where a value is undefined). offset =
our RX time of a response - the server's TX time of that response, as
reported in the next (interleaved) response. best = highest rate of a step
with nothing lost, 100% interleaved responses, sent at >= 90% of its rate.
Exit status: 0 after a completed run, 1 on errors.
";

#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub iface: String,
    pub dst_ip: u32,
    pub dst_mac: Mac,
    pub src_net: Net,
    pub clients: Option<u32>,
    pub rate: u64,
    pub factor: f64,
    pub steps: u32,
    pub max_rate: u64,
    pub duration_s: f64,
    pub grace_s: f64,
    pub max_loss_pct: f64,
    pub correction_ns: i64,
    pub hw: bool,
    pub step_cmd: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Parsed {
    Run(Config),
    Help,
}

fn num<T: std::str::FromStr>(opt: &str, v: &str) -> Result<T, String> {
    v.parse().map_err(|_| format!("invalid value '{v}' for {opt}"))
}

fn float(opt: &str, v: &str) -> Result<f64, String> {
    let x: f64 = num(opt, v)?;
    if x.is_finite() {
        Ok(x)
    } else {
        Err(format!("invalid value '{v}' for {opt}"))
    }
}

pub fn parse(args: &[String]) -> Result<Parsed, String> {
    let (mut iface, mut dst_ip, mut dst_mac, mut src_net) = (None, None, None, None);
    let mut c = Config {
        iface: String::new(),
        dst_ip: 0,
        dst_mac: [0; 6],
        src_net: Net { base: 0, bits: 32 },
        clients: None,
        rate: 1000,
        factor: 1.5,
        steps: 10,
        max_rate: 1_000_000,
        duration_s: 2.0,
        grace_s: 0.5,
        max_loss_pct: 50.0,
        correction_ns: 0,
        hw: true,
        step_cmd: None,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let (opt, inline) = match arg.split_once('=') {
            Some((o, v)) if o.starts_with("--") => (o, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        match opt {
            "-h" | "--help" => return Ok(Parsed::Help),
            "--sw" => {
                c.hw = false;
                continue;
            }
            _ => {}
        }
        let mut value = || inline.clone().or_else(|| it.next().cloned()).ok_or_else(|| format!("{opt} needs a value"));
        match opt {
            "-i" | "--iface" => iface = Some(value()?),
            "-d" | "--dst-ip" => dst_ip = Some(parse_ipv4(&value()?)?),
            "-m" | "--dst-mac" => dst_mac = Some(parse_mac(&value()?)?),
            "-s" | "--src-net" => src_net = Some(Net::parse(&value()?)?),
            "-c" | "--clients" => c.clients = Some(num(opt, &value()?)?),
            "-r" | "--rate" => c.rate = num(opt, &value()?)?,
            "-x" | "--factor" => c.factor = float(opt, &value()?)?,
            "-n" | "--steps" => c.steps = num(opt, &value()?)?,
            "--max-rate" => c.max_rate = num(opt, &value()?)?,
            "-t" | "--duration" => c.duration_s = float(opt, &value()?)?,
            "--grace" => c.grace_s = float(opt, &value()?)?,
            "--max-loss" => c.max_loss_pct = float(opt, &value()?)?,
            "-o" | "--correction" => c.correction_ns = float(opt, &value()?)?.round() as i64,
            "--step-cmd" => c.step_cmd = Some(value()?).filter(|s| !s.trim().is_empty()),
            _ => return Err(format!("unknown option '{arg}'")),
        }
    }
    c.iface = iface.ok_or("--iface is required")?;
    c.dst_ip = dst_ip.ok_or("--dst-ip is required")?;
    c.dst_mac = dst_mac.ok_or("--dst-mac is required")?;
    c.src_net = src_net.ok_or("--src-net is required")?;
    if !c.src_net.is_private() {
        return Err(format!("source network {} is not private (10/8, 172.16/12, 192.168/16)", c.src_net));
    }
    if c.src_net.contains(c.dst_ip) {
        return Err(format!("server {} is inside the client network {}", fmt_ipv4(c.dst_ip), c.src_net));
    }
    if let Some(n) = c.clients {
        if n == 0 || n > c.src_net.host_count() {
            return Err(format!("--clients must be 1..{} for {}", c.src_net.host_count(), c.src_net));
        }
    }
    if c.rate == 0 || c.max_rate < c.rate {
        return Err("--rate must be at least 1 and at most --max-rate".into());
    }
    if c.factor < 1.0 {
        return Err("--factor must be at least 1.0".into());
    }
    if c.steps == 0 {
        return Err("--steps must be at least 1".into());
    }
    if c.duration_s <= 0.0 || c.duration_s > 3600.0 || c.grace_s < 0.0 || c.grace_s > 60.0 {
        return Err("--duration must be in (0, 3600] and --grace in [0, 60] seconds".into());
    }
    if !(0.0..=100.0).contains(&c.max_loss_pct) {
        return Err("--max-loss must be 0..100".into());
    }
    Ok(Parsed::Run(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    const BASE: &str = "-i eth1 -d 10.0.0.1 -m 52:54:00:12:34:56 -s 172.16.0.0/16";

    #[test]
    fn defaults() {
        let Parsed::Run(c) = parse(&args(BASE)).unwrap() else { panic!() };
        assert_eq!(c.iface, "eth1");
        assert_eq!(c.dst_ip, 0x0a00_0001);
        assert_eq!(c.dst_mac, [0x52, 0x54, 0, 0x12, 0x34, 0x56]);
        assert_eq!(c.src_net, Net { base: 0xac10_0000, bits: 16 });
        assert_eq!((c.clients, c.rate, c.factor, c.steps), (None, 1000, 1.5, 10));
        assert_eq!((c.duration_s, c.grace_s, c.max_loss_pct, c.correction_ns, c.hw), (2.0, 0.5, 50.0, 0, true));
        assert_eq!(c.step_cmd, None);
    }

    #[test]
    fn long_options() {
        let a = args(
            "--iface=eth1 --dst-ip 10.0.0.1 --dst-mac=52:54:00:12:34:56 --src-net 172.16.0.0/16 --clients 1000 \
             --rate=2000 --factor 2 --steps 4 --duration 0.5 --grace=0.2 --max-loss 10 --correction 1950 --sw",
        );
        let Parsed::Run(c) = parse(&a).unwrap() else { panic!() };
        assert_eq!((c.clients, c.rate, c.factor, c.steps), (Some(1000), 2000, 2.0, 4));
        assert_eq!((c.duration_s, c.grace_s, c.max_loss_pct, c.correction_ns, c.hw), (0.5, 0.2, 10.0, 1950, false));
        let mut a = args(BASE);
        a.push("--step-cmd=echo a=b".into());
        let Parsed::Run(c) = parse(&a).unwrap() else { panic!() };
        assert_eq!(c.step_cmd.as_deref(), Some("echo a=b"));
    }

    #[test]
    fn help_and_errors() {
        assert_eq!(parse(&args("--help")).unwrap(), Parsed::Help);
        assert_eq!(parse(&args(&format!("{BASE} -h"))).unwrap(), Parsed::Help);
        assert!(parse(&args("-i eth1")).unwrap_err().contains("--dst-ip"));
        assert!(parse(&args(&format!("{BASE} --bogus"))).is_err());
        assert!(parse(&args(&format!("{BASE} --rate"))).unwrap_err().contains("needs a value"));
        assert!(parse(&args(&format!("{BASE} --rate x"))).is_err());
        assert!(parse(&args(&format!("{BASE} --factor 0.5"))).is_err());
        assert!(parse(&args(&format!("{BASE} --clients 0"))).is_err());
        assert!(parse(&args(&format!("{BASE} --clients 65535"))).is_err());
        assert!(parse(&args("-i eth1 -d 10.0.0.1 -m 52:54:00:12:34:56 -s 8.8.0.0/16")).is_err());
        assert!(parse(&args("-i eth1 -d 172.16.0.9 -m 52:54:00:12:34:56 -s 172.16.0.0/16")).is_err());
    }
}
