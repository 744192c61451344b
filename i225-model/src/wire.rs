// SPDX-License-Identifier: GPL-2.0

//! The virtual cable between the two ports of one process.
//!
//! Each end publishes what its PHY offers (powered, advertised modes); the
//! other end's link is resolved against that. Frames travel as messages to
//! the peer port's worker with the host time at which they reach the far
//! PHY: transmit time + the delay of their direction (+ jitter), so both
//! ends stamp that instant in their own clocks. Each direction has its own
//! delay, jitter and loss ([`PathConfig`]); with the ideal settings
//! (constant, equal delays, no loss) it is the ideal wire. Frames are
//! delivered when the message is taken, in the order sent; jitter changes
//! only the arrival time they are stamped with, and never puts it before
//! the previous frame's in the same direction.
//!
//! A port sees its cable through [`FarEnd`]: [`WireEnd`] here, or a host
//! TAP device ([`crate::tap::PacketEnd`]).

use std::fmt;
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};

use crate::noise::{self, Noise, PathConfig, DEFAULT_SEED};
use crate::phy::{Abilities, Partner};

/// A frame on the wire, without FCS.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub data: Vec<u8>,
    /// Host time (ns) of the start of the frame at the point it refers to:
    /// leaving the MAC for TX, reaching the PHY for RX.
    pub host_ns: u64,
}

/// Events a port's worker acts on.
#[derive(Debug)]
pub enum PortEvent {
    Frame(Frame),
    /// The far end's PHY state or the cable changed.
    LinkCheck,
    /// Something due earlier than the worker planned to wake (an interrupt
    /// EITR now holds, a target time armed): it sleeps again until then.
    Wake,
    Shutdown,
}

/// What a port is cabled to, as the port sees it. Frames for the port come
/// back as [`PortEvent::Frame`] on the port's event channel, link changes
/// as [`PortEvent::LinkCheck`].
pub trait FarEnd: Send + Sync + fmt::Debug {
    /// Publishes this port's PHY state (`None` while it is powered down).
    fn publish(&self, offer: Option<Abilities>);
    /// What this port's PHY sees at the far end.
    fn partner(&self) -> Partner;
    /// Sends a frame that left the MAC at `frame.host_ns`.
    fn transmit(&self, frame: Frame);
    /// Plugs or unplugs the cable.
    fn set_connected(&self, connected: bool);
    fn connected(&self) -> bool;
    /// A short description for logs and the control socket, e.g. "wire".
    fn describe(&self) -> String;
    /// Named frame counters of the far end, for the control socket.
    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
    /// The direction of the two-port wire this port transmits on, whose
    /// delay, jitter and loss can be set; `None` for anything else (a TAP
    /// device, the ideal partner of a single port).
    fn tx_path(&self) -> Option<TxPath<'_>> {
        None
    }
}

/// Frames of one direction of the wire.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PathCounters {
    /// Frames sent into this direction (cable plugged, peer attached).
    pub frames: u64,
    /// Lost to the loss probability.
    pub lost: u64,
    /// Dropped on request (`drop_next`).
    pub dropped: u64,
}

/// One direction of the wire.
#[derive(Debug)]
struct Path {
    config: Noise<PathConfig>,
    /// Arrival time of the previous frame.
    last_arrival: u64,
    /// Frames still to drop.
    drop_next: u64,
    counters: PathCounters,
}

impl Path {
    fn new(config: PathConfig, seed: u64, side: usize) -> Self {
        Path {
            config: Noise::new(config, seed, noise::stream::wire(side)),
            last_arrival: 0,
            drop_next: 0,
            counters: PathCounters::default(),
        }
    }

    /// The arrival time of a frame that left at `departure`, or `None` if
    /// the wire loses it.
    fn pass(&mut self, departure: u64) -> Option<u64> {
        let PathConfig { delay_ns, jitter_ns, loss_ppm } = self.config.current;
        self.counters.frames += 1;
        if self.drop_next > 0 {
            self.drop_next -= 1;
            self.counters.dropped += 1;
            return None;
        }
        let rng = &mut self.config.rng;
        if loss_ppm > 0 && rng.below(u64::from(noise::PPM)) < u64::from(loss_ppm) {
            self.counters.lost += 1;
            return None;
        }
        let mut arrival = departure.saturating_add(delay_ns);
        if jitter_ns > 0 {
            // Never before (or with) the frame ahead of it: no reordering.
            arrival = arrival.saturating_add(rng.below(jitter_ns + 1)).max(self.last_arrival.saturating_add(1));
        }
        self.last_arrival = arrival;
        Some(arrival)
    }
}

/// What a port's PHY shows the cable.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct EndState {
    /// `Some` while the PHY is powered, with its advertisement.
    offer: Option<Abilities>,
}

#[derive(Debug)]
struct Shared {
    connected: bool,
    ends: [EndState; 2],
    peers: [Option<Sender<PortEvent>>; 2],
    /// Indexed by the sending side.
    paths: [Path; 2],
}

/// A cable with two ends. With a single port the far end is an always-on
/// link partner advertising `solo_partner`.
#[derive(Clone, Debug)]
pub struct Wire {
    shared: Arc<Mutex<Shared>>,
    solo_partner: Abilities,
    ports: usize,
}

/// One end of the cable, owned by a port.
#[derive(Clone, Debug)]
pub struct WireEnd {
    wire: Wire,
    side: usize,
}

impl Wire {
    /// An ideal cable for `ports` (1 or 2) ports: `delay_ns` both ways.
    pub fn new(ports: usize, delay_ns: u64, solo_partner: Abilities) -> Self {
        Self::with_paths(ports, [PathConfig::ideal(delay_ns); 2], DEFAULT_SEED, solo_partner)
    }

    /// A cable whose direction from side `i` has `paths[i]`, drawing its
    /// jitter and loss from `seed`; these are also what
    /// [`TxPath::restore`] goes back to.
    pub fn with_paths(ports: usize, paths: [PathConfig; 2], seed: u64, solo_partner: Abilities) -> Self {
        let shared = Shared {
            connected: true,
            ends: Default::default(),
            peers: [None, None],
            paths: [Path::new(paths[0], seed, 0), Path::new(paths[1], seed, 1)],
        };
        Wire { shared: Arc::new(Mutex::new(shared)), solo_partner, ports }
    }

    pub fn end(&self, side: usize, events: Sender<PortEvent>) -> WireEnd {
        assert!(side < self.ports.min(2));
        self.shared.lock().unwrap().peers[side] = Some(events);
        WireEnd { wire: self.clone(), side }
    }

    /// Plugs or unplugs the cable; both ends re-check their link.
    pub fn set_connected(&self, connected: bool) {
        let peers = {
            let mut s = self.shared.lock().unwrap();
            s.connected = connected;
            s.peers.clone()
        };
        for p in peers.iter().flatten() {
            let _ = p.send(PortEvent::LinkCheck);
        }
    }

    pub fn connected(&self) -> bool {
        self.shared.lock().unwrap().connected
    }
}

impl WireEnd {
    fn other(&self) -> usize {
        1 - self.side
    }

    fn solo(&self) -> bool {
        self.wire.ports < 2
    }

    pub fn wire(&self) -> &Wire {
        &self.wire
    }
}

/// The direction of the wire from one side, as its sending port sees it.
#[derive(Clone, Copy, Debug)]
pub struct TxPath<'a> {
    wire: &'a Wire,
    side: usize,
}

impl TxPath<'_> {
    fn with<R>(&self, f: impl FnOnce(&mut Path) -> R) -> R {
        f(&mut self.wire.shared.lock().unwrap().paths[self.side])
    }

    /// The side the frames come from (0: A to B).
    pub fn side(&self) -> usize {
        self.side
    }

    pub fn config(&self) -> PathConfig {
        self.with(|p| p.config.current)
    }

    /// New settings, from the next frame on.
    pub fn set_config(&self, config: PathConfig) {
        self.with(|p| p.config.current = config);
    }

    /// Changes the settings with `f`, from the next frame on.
    pub fn update(&self, f: impl FnOnce(&mut PathConfig)) {
        self.with(|p| f(&mut p.config.current));
    }

    /// Drops the next `n` frames (instead of those still to drop).
    pub fn drop_next(&self, n: u64) {
        self.with(|p| p.drop_next = n);
    }

    pub fn pending_drops(&self) -> u64 {
        self.with(|p| p.drop_next)
    }

    pub fn counters(&self) -> PathCounters {
        self.with(|p| p.counters)
    }

    /// Restarts the generator of jitter and loss from `seed`.
    pub fn reseed(&self, seed: u64) {
        self.with(|p| p.config.reseed(seed));
    }

    pub fn seed(&self) -> u64 {
        self.with(|p| p.config.seed())
    }

    /// The settings and seed the wire was made with; nothing left to drop.
    pub fn restore(&self) {
        self.with(|p| {
            p.config.restore();
            p.drop_next = 0;
        });
    }
}

impl FarEnd for WireEnd {
    fn publish(&self, offer: Option<Abilities>) {
        let peer = {
            let mut s = self.wire.shared.lock().unwrap();
            if s.ends[self.side].offer == offer {
                return;
            }
            s.ends[self.side].offer = offer;
            s.peers[self.other()].clone()
        };
        if let Some(p) = peer {
            let _ = p.send(PortEvent::LinkCheck);
        }
    }

    fn partner(&self) -> Partner {
        let s = self.wire.shared.lock().unwrap();
        if !s.connected {
            return Partner::Absent;
        }
        if self.solo() {
            return Partner::Present(self.wire.solo_partner);
        }
        match s.ends[self.other()].offer {
            Some(a) => Partner::Present(a),
            None => Partner::Absent,
        }
    }

    fn transmit(&self, frame: Frame) {
        if self.solo() {
            return;
        }
        let (peer, host_ns) = {
            let mut s = self.wire.shared.lock().unwrap();
            if !s.connected {
                return;
            }
            let Some(peer) = s.peers[self.other()].clone() else {
                return;
            };
            let Some(arrival) = s.paths[self.side].pass(frame.host_ns) else {
                return;
            };
            (peer, arrival)
        };
        let _ = peer.send(PortEvent::Frame(Frame { host_ns, data: frame.data }));
    }

    /// The cable is shared: both ends of a two-port wire go down together.
    fn set_connected(&self, connected: bool) {
        self.wire.set_connected(connected);
    }

    fn connected(&self) -> bool {
        self.wire.connected()
    }

    fn describe(&self) -> String {
        if self.solo() {
            "ideal link partner".into()
        } else {
            "wire".into()
        }
    }

    /// Frames this end sent into the wire, and those the wire lost or
    /// dropped in each direction.
    fn counters(&self) -> Vec<(&'static str, u64)> {
        if self.solo() {
            return Vec::new();
        }
        let s = self.wire.shared.lock().unwrap();
        let (tx, rx) = (s.paths[self.side].counters, s.paths[self.other()].counters);
        vec![
            ("tx_frames", tx.frames),
            ("tx_lost", tx.lost),
            ("tx_dropped", tx.dropped),
            ("rx_lost", rx.lost),
            ("rx_dropped", rx.dropped),
        ]
    }

    fn tx_path(&self) -> Option<TxPath<'_>> {
        (!self.solo()).then_some(TxPath { wire: &self.wire, side: self.side })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::{channel, Receiver};

    #[test]
    fn two_ends_see_each_other() {
        let wire = Wire::new(2, 100, Abilities::ALL);
        let (ta, ra) = channel();
        let (tb, rb) = channel();
        let a = wire.end(0, ta);
        let b = wire.end(1, tb);
        assert_eq!(a.tx_path().map(|p| p.side()), Some(0));
        assert_eq!(a.partner(), Partner::Absent);
        b.publish(Some(Abilities::ALL));
        assert!(matches!(ra.try_recv(), Ok(PortEvent::LinkCheck)));
        assert_eq!(a.partner(), Partner::Present(Abilities::ALL));
        a.transmit(Frame { data: vec![1, 2, 3], host_ns: 1_000 });
        match rb.try_recv() {
            Ok(PortEvent::Frame(f)) => assert_eq!(f.host_ns, 1_100),
            other => panic!("{other:?}"),
        }
        wire.set_connected(false);
        assert_eq!(a.partner(), Partner::Absent);
    }

    /// Two ends of a wire with `paths` and their event channels.
    fn cable(paths: [PathConfig; 2], seed: u64) -> ([WireEnd; 2], [Receiver<PortEvent>; 2]) {
        let wire = Wire::with_paths(2, paths, seed, Abilities::ALL);
        let (ta, ra) = channel();
        let (tb, rb) = channel();
        ([wire.end(0, ta), wire.end(1, tb)], [ra, rb])
    }

    /// Arrival times of the frames waiting on `r`.
    fn arrivals(r: &Receiver<PortEvent>) -> Vec<u64> {
        r.try_iter()
            .filter_map(|e| match e {
                PortEvent::Frame(f) => Some(f.host_ns),
                _ => None,
            })
            .collect()
    }

    fn send(end: &WireEnd, host_ns: u64) {
        end.transmit(Frame { data: vec![0; 60], host_ns });
    }

    #[test]
    fn each_direction_has_its_delay() {
        let ([a, b], [ra, rb]) = cable([PathConfig::ideal(50), PathConfig::ideal(250)], 1);
        send(&a, 1_000);
        send(&b, 1_000);
        assert_eq!((arrivals(&rb), arrivals(&ra)), (vec![1_050], vec![1_250]));
        b.tx_path().unwrap().set_config(PathConfig::ideal(70));
        send(&b, 2_000);
        assert_eq!(arrivals(&ra), [2_070], "set at run time");
        assert_eq!(a.tx_path().unwrap().config(), PathConfig::ideal(50), "the other direction kept");
        b.tx_path().unwrap().restore();
        assert_eq!(b.tx_path().unwrap().config(), PathConfig::ideal(250));
    }

    #[test]
    fn jitter_never_reorders_frames() {
        let path = PathConfig { delay_ns: 100, jitter_ns: 5_000, loss_ppm: 0 };
        let ([a, _b], [_ra, rb]) = cable([path, path], 1);
        // Frames far apart: each gets its own jitter, uniform over 0..=5 µs.
        let departures: Vec<u64> = (0..20_000u64).map(|i| 1_000_000 * i).collect();
        departures.iter().for_each(|&t| send(&a, t));
        let extra: Vec<i64> =
            arrivals(&rb).iter().zip(&departures).map(|(arr, dep)| (arr - dep) as i64 - 100).collect();
        assert_eq!(extra.len(), departures.len());
        assert!(extra.iter().all(|e| (0..=5_000).contains(e)), "jitter outside 0..=5000 ns");
        let mean = extra.iter().sum::<i64>() as f64 / extra.len() as f64;
        assert!((mean - 2_500.0).abs() < 50.0, "mean jitter {mean} ns");
        assert!(extra.iter().any(|&e| e < 100) && extra.iter().any(|&e| e > 4_900));
        // A burst (TSO segments, one TDT batch) and frames 10 ns apart: never
        // before the frame ahead, never before departure + delay.
        let departures: Vec<u64> = (0..1_000u64).map(|i| 50_000_000_000 + if i < 100 { 0 } else { 10 * i }).collect();
        departures.iter().for_each(|&t| send(&a, t));
        let got = arrivals(&rb);
        assert!(got.windows(2).all(|w| w[0] < w[1]), "reordered");
        assert!(got.iter().zip(&departures).all(|(arr, dep)| *arr >= dep + 100));
    }

    #[test]
    fn loss_at_the_configured_rate_and_drop_next() {
        const N: u64 = 100_000;
        let lossy = PathConfig { delay_ns: 50, jitter_ns: 0, loss_ppm: 10_000 };
        let run = |seed| {
            let ([a, b], [ra, rb]) = cable([lossy, PathConfig::ideal(50)], seed);
            (0..N).for_each(|i| send(&a, i * 1_000));
            (0..N).for_each(|i| send(&b, i * 1_000));
            assert_eq!(arrivals(&ra).len() as u64, N, "the other direction loses nothing");
            let c = a.tx_path().unwrap().counters();
            assert_eq!(arrivals(&rb).len() as u64, N - c.lost);
            assert_eq!((c.frames, c.dropped), (N, 0));
            let counters = |e: &WireEnd| e.counters().into_iter().collect::<std::collections::HashMap<_, _>>();
            assert_eq!(
                (counters(&a)["tx_lost"], counters(&b)["rx_lost"], counters(&b)["tx_lost"]),
                (c.lost, c.lost, 0)
            );
            // Drop the next 3 frames: those, and no others, go.
            a.tx_path().unwrap().set_config(PathConfig::ideal(50));
            a.tx_path().unwrap().drop_next(3);
            (0..5).for_each(|i| send(&a, 1_000_000_000 + i));
            assert_eq!(arrivals(&rb), [1_000_000_053, 1_000_000_054]);
            assert_eq!((a.tx_path().unwrap().counters().dropped, counters(&b)["rx_dropped"]), (3, 3));
            assert_eq!(a.tx_path().unwrap().pending_drops(), 0);
            c.lost
        };
        let lost = run(1);
        // 1% of 100000: 1000, sigma 31.
        assert!((900..1_100).contains(&lost), "{lost} lost at 1%");
        assert_eq!(run(1), lost, "the same seed loses the same frames");
        assert_ne!(run(2), lost, "another seed others");
    }

    #[test]
    fn solo_port_has_ideal_partner() {
        let wire = Wire::new(1, 0, Abilities::ALL);
        let (t, _r) = channel();
        let a = wire.end(0, t);
        assert_eq!(a.partner(), Partner::Present(Abilities::ALL));
        assert!(a.tx_path().is_none(), "nothing to set on the ideal partner");
    }
}
