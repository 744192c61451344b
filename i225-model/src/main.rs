// SPDX-License-Identifier: GPL-2.0

//! `i225-model`: serves emulated i225/i226 ports over vfio-user.

use std::process::ExitCode;
use std::sync::Arc;

use i225_model::cli::{self, Command, Options};
use i225_model::mac::MacConfig;
use i225_model::noise::{self, Noise};
use i225_model::pci_config::part_name;
use i225_model::phy::Abilities;
use i225_model::port::Port;
use i225_model::ptp::{HostClock, PtpConfig, TimeSource};
use i225_model::tap::{PacketEnd, Tap};
use i225_model::wire::{FarEnd, Wire};
use i225_model::{control, logger, vfio_user};

fn run(opts: Options) -> std::io::Result<()> {
    let clock: Arc<dyn TimeSource> = Arc::new(HostClock);
    let partner = Abilities::up_to(opts.partner_speed);
    // TAP devices first: failing to get one must stop us before any socket
    // is listening.
    let mut taps = opts
        .ports
        .iter()
        .map(|po| po.tap.as_deref().map(Tap::open).transpose())
        .collect::<std::io::Result<Vec<_>>>()?;
    // The ports without a TAP share the wire (a single one has the ideal
    // link partner).
    let wired = opts.ports.iter().filter(|po| po.tap.is_none()).count();
    let wire = Wire::with_paths(wired.max(1), opts.paths(), opts.seed, partner);
    if wired == 2 {
        let [ab, ba] = opts.paths();
        log::info!(
            "wire (--wire {} and the options given): delay {} ns, jitter {} ns, loss {} ppm from port 0; {} ns, {} ns, {} ppm \
             from port 1; seed {}",
            opts.wire.name(),
            ab.delay_ns,
            ab.jitter_ns,
            ab.loss_ppm,
            ba.delay_ns,
            ba.jitter_ns,
            ba.loss_ppm,
            opts.seed
        );
    }
    let mut wire_sides = 0..wired;
    let mut ports = Vec::new();
    let mut servers = Vec::new();
    for (i, po) in opts.ports.iter().enumerate() {
        // Bind first: QEMU must find the socket listening when it starts.
        let listener = vfio_user::bind(&po.socket)?;
        let config = MacConfig {
            mac_addr: po.mac_for(i),
            ptp: PtpConfig { freq_error_ppb: po.ptp_ppb, initial_offset_ns: po.ptp_offset_ns },
        };
        let name = format!("port{i}");
        let tap = taps[i].take();
        let clock_for_end = clock.clone();
        let (port, _worker) = Port::spawn_with(name.clone(), po.device_id, config.clone(), clock.clone(), |events| {
            Ok(match tap {
                Some(tap) => {
                    let label = format!("tap {}", tap.name());
                    Arc::new(PacketEnd::new(tap, label, partner, events, clock_for_end)?) as Arc<dyn FarEnd>
                }
                None => Arc::new(wire.end(wire_sides.next().expect("a wire side per wired port"), events)),
            })
        })?;
        let stamping = po.stamping(opts.wire);
        port.with_device(|d| {
            d.mac.ptp_mut().faults.txstmph0_rearm_bug = po.txstmph0_bug;
            d.mac.ptp_mut().stamping = Noise::new(stamping, opts.seed, noise::stream::stamps(i));
            // After the stamping: the pulse source's jitter draws from its seed.
            d.mac.set_pulse_startup(po.pulse, noise::stream::pulse(i));
        });
        let m = config.mac_addr;
        log::info!(
            "{name}: {} ({:04x}) {:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x} on {}, cabled to {}, stamps rounded to {} ns \
             with {} ns of noise",
            part_name(po.device_id).unwrap_or("?"),
            po.device_id,
            m[0],
            m[1],
            m[2],
            m[3],
            m[4],
            m[5],
            po.socket.display(),
            port.far_end().describe(),
            noise::ps_to_ns(stamping.quantum_ps),
            noise::ps_to_ns(stamping.noise_ps)
        );
        let server_port = port.clone();
        servers.push(
            std::thread::Builder::new()
                .name(format!("{name}-vfio"))
                .spawn(move || vfio_user::serve(listener, server_port))?,
        );
        ports.push(port);
    }
    if let Some(path) = &opts.control {
        let listener = vfio_user::bind(path)?;
        log::info!("control socket on {}", path.display());
        let ports = ports.clone();
        std::thread::Builder::new().name("control".into()).spawn(move || control::serve(listener, ports))?;
    }
    for s in servers {
        let _ = s.join();
    }
    Ok(())
}

fn main() -> ExitCode {
    match cli::parse(std::env::args().skip(1)) {
        Ok(Command::Help) => {
            println!("{}", cli::USAGE);
            ExitCode::SUCCESS
        }
        Ok(Command::Run(opts)) => {
            logger::init(opts.log_level);
            match run(opts) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    log::error!("{e}");
                    ExitCode::FAILURE
                }
            }
        }
        Err(e) => {
            eprintln!("i225-model: {e}");
            ExitCode::from(2)
        }
    }
}
