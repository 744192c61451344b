// SPDX-License-Identifier: GPL-2.0

//! Command line parsing (no external parser: the grammar is small).
//!
//! Port options apply to the port of the closest `--socket` before them;
//! given before any `--socket`, they are defaults for every port.

use std::fmt;
use std::path::PathBuf;

use log::LevelFilter;

use crate::noise::{self, PathConfig, Preset, Stamping};
use crate::pci_config::{part_name, DEFAULT_DEVICE_ID};
use crate::phy::Speed;
use crate::ptp::sdp::PulseConfig;

pub const USAGE: &str = "\
usage: i225-model [options] --socket PATH [port options] [--socket PATH [port options]]

Serves one emulated Intel i225/i226 per --socket over vfio-user (QEMU:
-device vfio-user-pci). Two ports are cabled back to back; a port with
--tap is cabled to that host TAP device instead.

global options:
  --control PATH        control socket (line commands, JSON answers)
  --wire PRESET         the wire's and the timestamps' imperfections:
                        ideal (exact stamps, 50 ns both ways), realistic
                        (the default: 8 ns stamp quantum, 2 ns stamp noise,
                        50/54 ns), noisy (8 ns, 40 ns, 50/250 ns, 2 us
                        jitter, 0.1% loss); the options below override
  --wire-delay-ns N[,M] propagation delay of the cable in ns: both ways, or
                        of port 0's frames, then port 1's
  --wire-jitter-ns N[,M]
                        random extra delay per frame, uniform 0..N ns (no
                        reordering)
  --wire-loss P[,Q]     probability that the wire loses a frame (0..1)
  --wire-seed N         seed of the jitter, loss and stamp noise (default 1)
  --partner-speed MBPS  best speed of the link partner of a single port or
                        a TAP device (10, 100, 1000, 2500; default 2500)
  -v, --verbose         more logging (repeat for more)
  -q, --quiet           errors only
  -h, --help            this text

port options (after a --socket; before any --socket: defaults for all ports):
  --device-id ID        PCI device ID, hex (default 0x15f3, I225-V)
  --mac XX:XX:XX:XX:XX:XX
                        MAC address in the NVM (default 02:1a:25:00:00:0N)
  --ptp-ppb N           oscillator frequency error in ppb (default 0)
  --ptp-offset-ns N     SYSTIM0 at power-on in ns (default 0)
  --ts-quantum-ns Q     TX and RX stamps rounded down to multiples of Q ns
                        (0: exact; default from --wire)
  --ts-noise-ns S       Gaussian error of each TX and RX stamp, sigma S ns
                        (default from --wire)
  --txstmph0-bug        model the TXSTMPH_0 re-arm erratum
  --pulse PIN,PERIOD_NS[,PHASE_NS[,JITTER_NS[,WIDTH_NS]]]
                        an external pulse source (a GPS PPS, say) on pin
                        SDP<PIN> (0..3): rising edges at true times (the
                        host's CLOCK_REALTIME) k*PERIOD_NS + PHASE_NS, each
                        pulse moved by a uniform draw in +-JITTER_NS,
                        falling WIDTH_NS later (default 100 ms, or half the
                        period); e.g. --pulse 0,1000000000 for a 1 PPS
  --tap NAME            cable the port to host TAP device NAME (created if
                        missing; needs CAP_NET_ADMIN) instead of the wire";

/// Settings of one port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortOptions {
    pub socket: PathBuf,
    pub device_id: u16,
    pub mac: Option<[u8; 6]>,
    pub ptp_ppb: i64,
    pub ptp_offset_ns: i64,
    pub txstmph0_bug: bool,
    /// Host TAP device at the far end of the port's cable.
    pub tap: Option<String>,
    /// Overrides of the preset's timestamp quantum and noise (ps).
    pub ts_quantum_ps: Option<u32>,
    pub ts_noise_ps: Option<u32>,
    /// The external pulse source on one of the port's pins.
    pub pulse: Option<PulseConfig>,
}

impl Default for PortOptions {
    fn default() -> Self {
        PortOptions {
            socket: PathBuf::new(),
            device_id: DEFAULT_DEVICE_ID,
            mac: None,
            ptp_ppb: 0,
            ptp_offset_ns: 0,
            txstmph0_bug: false,
            tap: None,
            ts_quantum_ps: None,
            ts_noise_ps: None,
            pulse: None,
        }
    }
}

impl PortOptions {
    /// The configured MAC, or a locally administered default per port.
    pub fn mac_for(&self, index: usize) -> [u8; 6] {
        self.mac.unwrap_or([0x02, 0x1a, 0x25, 0x00, 0x00, index as u8 + 1])
    }

    /// The port's timestamping: `preset`'s, with the options given on top.
    pub fn stamping(&self, preset: Preset) -> Stamping {
        let p = preset.stamping();
        Stamping {
            quantum_ps: self.ts_quantum_ps.unwrap_or(p.quantum_ps),
            noise_ps: self.ts_noise_ps.unwrap_or(p.noise_ps),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub ports: Vec<PortOptions>,
    pub control: Option<PathBuf>,
    pub wire: Preset,
    /// Overrides of the preset, per direction (port 0's frames, port 1's).
    pub wire_delay_ns: Option<[u64; 2]>,
    pub wire_jitter_ns: Option<[u64; 2]>,
    pub wire_loss_ppm: Option<[u32; 2]>,
    pub seed: u64,
    pub partner_speed: Speed,
    pub log_level: LevelFilter,
}

impl Options {
    /// The wire's directions (port 0's frames, port 1's): the preset's,
    /// with the options given on top.
    pub fn paths(&self) -> [PathConfig; 2] {
        let mut paths = self.wire.paths();
        for (i, p) in paths.iter_mut().enumerate() {
            p.delay_ns = self.wire_delay_ns.map_or(p.delay_ns, |d| d[i]);
            p.jitter_ns = self.wire_jitter_ns.map_or(p.jitter_ns, |j| j[i]);
            p.loss_ppm = self.wire_loss_ppm.map_or(p.loss_ppm, |l| l[i]);
        }
        paths
    }
}

/// What the command line asked for.
#[derive(Debug, PartialEq, Eq)]
pub enum Command {
    Run(Options),
    Help,
}

#[derive(Debug, PartialEq, Eq)]
pub struct CliError(pub String);

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CliError {}

fn err<T>(msg: impl Into<String>) -> Result<T, CliError> {
    Err(CliError(msg.into()))
}

pub fn parse_mac(s: &str) -> Result<[u8; 6], CliError> {
    let parts: Vec<&str> = s.split([':', '-']).collect();
    if parts.len() != 6 {
        return err(format!("bad MAC address {s:?}"));
    }
    let mut mac = [0u8; 6];
    for (b, p) in mac.iter_mut().zip(parts) {
        *b = u8::from_str_radix(p, 16).map_err(|_| CliError(format!("bad MAC address {s:?}")))?;
    }
    if mac[0] & 1 != 0 || mac == [0; 6] {
        return err(format!("{s} is not a unicast address"));
    }
    Ok(mac)
}

fn parse_hex_u16(s: &str) -> Result<u16, CliError> {
    let digits = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")).unwrap_or(s);
    u16::from_str_radix(digits, 16).map_err(|_| CliError(format!("bad device ID {s:?}")))
}

/// A network interface name as the kernel accepts it.
fn parse_ifname(s: &str) -> Result<String, CliError> {
    if s.is_empty() || s.len() >= libc::IFNAMSIZ || s.contains(|c: char| c == '/' || c.is_whitespace()) {
        return err(format!("bad interface name {s:?}"));
    }
    Ok(s.to_string())
}

fn parse_num<T: std::str::FromStr>(opt: &str, s: &str) -> Result<T, CliError> {
    s.parse().map_err(|_| CliError(format!("bad value {s:?} for {opt}")))
}

fn parse_with<T>(opt: &str, s: &str, parse: impl Fn(&str) -> Option<T>) -> Result<T, CliError> {
    parse(s).ok_or_else(|| CliError(format!("bad value {s:?} for {opt}")))
}

/// `V` (both directions) or `V,W` (port 0's frames, port 1's).
fn parse_pair<T: Copy>(opt: &str, s: &str, parse: impl Fn(&str) -> Option<T>) -> Result<[T; 2], CliError> {
    match s.split_once(',') {
        Some((a, b)) => Ok([parse_with(opt, a, &parse)?, parse_with(opt, b, &parse)?]),
        None => Ok([parse_with(opt, s, parse)?; 2]),
    }
}

pub fn parse<I: IntoIterator<Item = String>>(args: I) -> Result<Command, CliError> {
    let mut defaults = PortOptions::default();
    let mut ports: Vec<PortOptions> = Vec::new();
    let mut control = None;
    let mut wire = Preset::Realistic;
    let (mut wire_delay_ns, mut wire_jitter_ns, mut wire_loss_ppm) = (None, None, None);
    let mut seed = noise::DEFAULT_SEED;
    let mut partner_speed = Speed::M2500;
    let mut verbosity: i32 = 0;

    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| CliError(format!("{name} needs a value")));
        let target = ports.last_mut().unwrap_or(&mut defaults);
        match arg.as_str() {
            "-h" | "--help" => return Ok(Command::Help),
            "-v" | "--verbose" => verbosity += 1,
            "-vv" => verbosity += 2,
            "-q" | "--quiet" => verbosity = -1,
            "--socket" => {
                let path = value("--socket")?;
                ports.push(PortOptions { socket: path.into(), ..defaults.clone() });
            }
            "--control" => control = Some(PathBuf::from(value("--control")?)),
            "--wire" => {
                let name = value("--wire")?;
                wire = Preset::from_name(&name).ok_or_else(|| CliError(format!("no such wire preset {name:?}")))?;
            }
            "--wire-delay-ns" => {
                wire_delay_ns = Some(parse_pair(&arg, &value(&arg)?, noise::parse_delay_ns)?);
            }
            "--wire-jitter-ns" => {
                wire_jitter_ns = Some(parse_pair(&arg, &value(&arg)?, noise::parse_delay_ns)?);
            }
            "--wire-loss" => wire_loss_ppm = Some(parse_pair(&arg, &value(&arg)?, noise::parse_loss_ppm)?),
            "--wire-seed" => seed = parse_num(&arg, &value(&arg)?)?,
            "--ts-quantum-ns" => {
                target.ts_quantum_ps = Some(parse_with(&arg, &value(&arg)?, noise::parse_stamp_ps)?);
            }
            "--ts-noise-ns" => target.ts_noise_ps = Some(parse_with(&arg, &value(&arg)?, noise::parse_stamp_ps)?),
            "--partner-speed" => {
                let mbps = parse_num("--partner-speed", &value("--partner-speed")?)?;
                partner_speed = Speed::from_mbps(mbps).ok_or_else(|| CliError(format!("no such speed {mbps}")))?;
            }
            "--device-id" => {
                let id = parse_hex_u16(&value("--device-id")?)?;
                if part_name(id).is_none() {
                    return err(format!("{id:#06x} is not an i225/i226 device ID"));
                }
                target.device_id = id;
            }
            "--mac" => target.mac = Some(parse_mac(&value("--mac")?)?),
            "--ptp-ppb" => target.ptp_ppb = parse_num("--ptp-ppb", &value("--ptp-ppb")?)?,
            "--ptp-offset-ns" => target.ptp_offset_ns = parse_num("--ptp-offset-ns", &value("--ptp-offset-ns")?)?,
            "--txstmph0-bug" => target.txstmph0_bug = true,
            "--tap" => target.tap = Some(parse_ifname(&value("--tap")?)?),
            "--pulse" => {
                let v = value("--pulse")?;
                let fields: Vec<&str> = v.split(',').collect();
                let pulse = PulseConfig::from_fields(&fields).map_err(|e| CliError(format!("--pulse {v}: {e}")))?;
                target.pulse = Some(pulse);
            }
            other => return err(format!("unknown option {other:?} (try --help)")),
        }
    }
    if ports.is_empty() {
        return err("at least one --socket is needed (try --help)");
    }
    if ports.len() > 2 {
        return err("at most two ports (--socket) are supported");
    }
    if ports.len() == 2 && ports[0].mac.is_some() && ports[0].mac == ports[1].mac {
        return err("both ports have the same MAC address");
    }
    if ports.len() == 2 && ports[0].tap.is_some() && ports[0].tap == ports[1].tap {
        return err("both ports have the same TAP device");
    }
    let log_level = match verbosity {
        i32::MIN..=-1 => LevelFilter::Error,
        0 => LevelFilter::Info,
        1 => LevelFilter::Debug,
        _ => LevelFilter::Trace,
    };
    Ok(Command::Run(Options {
        ports,
        control,
        wire,
        wire_delay_ns,
        wire_jitter_ns,
        wire_loss_ppm,
        seed,
        partner_speed,
        log_level,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Result<Options, CliError> {
        match parse(args.iter().map(|s| s.to_string()))? {
            Command::Run(o) => Ok(o),
            Command::Help => panic!("help"),
        }
    }

    #[test]
    fn per_port_and_default_options() {
        let o = run(&[
            "--device-id",
            "125c",
            "--socket",
            "a.sock",
            "--mac",
            "02:00:00:00:00:0a",
            "--ptp-ppb",
            "-30",
            "--socket",
            "b.sock",
            "--device-id",
            "0x15F2",
            "--control",
            "c.sock",
        ])
        .unwrap();
        assert_eq!(o.ports.len(), 2);
        assert_eq!(o.ports[0].device_id, 0x125C);
        assert_eq!(o.ports[0].mac_for(0), [2, 0, 0, 0, 0, 0x0a]);
        assert_eq!(o.ports[0].ptp_ppb, -30);
        assert_eq!(o.ports[1].device_id, 0x15F2);
        assert_eq!(o.ports[1].mac_for(1), [0x02, 0x1a, 0x25, 0, 0, 2]);
        assert_eq!(o.control, Some(PathBuf::from("c.sock")));
    }

    #[test]
    fn rejects_bad_input() {
        assert!(run(&[]).is_err());
        assert!(run(&["--socket", "a", "--device-id", "0x1234"]).is_err());
        assert!(run(&["--socket", "a", "--mac", "01:00:00:00:00:01"]).is_err());
        assert!(run(&["--socket", "a", "--bogus"]).is_err());
        assert!(run(&["--socket", "a", "--tap", "much-too-long-name"]).is_err());
        assert!(run(&["--socket", "a", "--tap", "a/b"]).is_err());
        assert!(run(&["--tap", "t0", "--socket", "a", "--socket", "b"]).is_err(), "one TAP for two ports");
    }

    #[test]
    fn wire_presets_and_overrides() {
        let o = run(&["--socket", "a", "--socket", "b"]).unwrap();
        assert_eq!(o.wire, Preset::Realistic, "realistic by default");
        assert_eq!(o.paths(), Preset::Realistic.paths());
        assert_eq!(o.ports[1].stamping(o.wire), Preset::Realistic.stamping());
        assert_eq!(o.seed, noise::DEFAULT_SEED);

        let o = run(&["--wire", "ideal", "--socket", "a", "--socket", "b"]).unwrap();
        assert_eq!(o.paths(), [PathConfig::ideal(50); 2]);
        assert!(o.ports[0].stamping(o.wire).is_exact());

        let o = run(&[
            "--wire",
            "noisy",
            "--wire-delay-ns",
            "100,300",
            "--wire-loss",
            "0",
            "--wire-seed",
            "42",
            "--ts-noise-ns",
            "5",
            "--socket",
            "a",
            "--socket",
            "b",
            "--ts-quantum-ns",
            "3.2",
        ])
        .unwrap();
        let [ab, ba] = o.paths();
        assert_eq!((ab.delay_ns, ba.delay_ns), (100, 300));
        assert_eq!((ab.jitter_ns, ab.loss_ppm, ba.loss_ppm), (2_000, 0, 0), "noisy's jitter, no loss");
        assert_eq!(o.seed, 42);
        assert_eq!(o.ports[0].stamping(o.wire), Stamping { quantum_ps: 8_000, noise_ps: 5_000 });
        assert_eq!(o.ports[1].stamping(o.wire), Stamping { quantum_ps: 3_200, noise_ps: 5_000 });
        let o = run(&["--wire-jitter-ns", "7", "--socket", "a"]).unwrap();
        assert_eq!(o.paths().map(|p| p.jitter_ns), [7, 7]);

        assert!(run(&["--wire", "perfect", "--socket", "a"]).is_err());
        assert!(run(&["--wire-delay-ns", "1,2,3", "--socket", "a"]).is_err());
        assert!(run(&["--wire-loss", "2", "--socket", "a"]).is_err());
        assert!(run(&["--socket", "a", "--ts-noise-ns", "-1"]).is_err());
    }

    #[test]
    fn pulse_is_a_port_option() {
        let o = run(&["--socket", "a", "--pulse", "2,1000000000,250000000,50,200000000", "--socket", "b"]).unwrap();
        let p = o.ports[0].pulse.expect("port 0's pulse source");
        assert_eq!(
            (p.pin, p.period_ns, p.phase_ns, p.jitter_ns, p.width_ns),
            (2, 1_000_000_000, 250_000_000, 50, 200_000_000)
        );
        assert_eq!(o.ports[1].pulse, None);
        let o = run(&["--pulse", "0,1000000000", "--socket", "a"]).unwrap();
        assert_eq!(o.ports[0].pulse.map(|p| (p.pin, p.width_ns)), Some((0, 100_000_000)), "default for all ports");
        for bad in ["4,1000000000", "0", "0,1000000000,,5", "0,1000", "0,1000000000,0,0,0"] {
            let e = run(&["--socket", "a", "--pulse", bad]).unwrap_err();
            assert!(e.0.starts_with("--pulse"), "{bad}: {e}");
        }
    }

    #[test]
    fn tap_is_a_port_option() {
        let o = run(&["--socket", "a", "--socket", "b", "--tap", "rigc0"]).unwrap();
        assert_eq!(o.ports[0].tap, None);
        assert_eq!(o.ports[1].tap.as_deref(), Some("rigc0"));
        let o = run(&["--tap", "rigc0", "--socket", "a"]).unwrap();
        assert_eq!(o.ports[0].tap.as_deref(), Some("rigc0"), "default for all ports");
    }
}
