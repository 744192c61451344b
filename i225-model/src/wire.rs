// SPDX-License-Identifier: GPL-2.0

//! The virtual cable between the two ports of one process.
//!
//! Each end publishes what its PHY offers (powered, advertised modes); the
//! other end's link is resolved against that. Frames travel as messages to
//! the peer port's worker with the host time at which they reach the far
//! PHY (transmit time + wire delay), so both ends stamp the same instant in
//! their own clocks: an ideal wire.
//!
//! A port sees its cable through [`FarEnd`]: [`WireEnd`] here, or a host
//! TAP device ([`crate::tap::PacketEnd`]).

use std::fmt;
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};

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
}

/// A cable with two ends. With a single port the far end is an always-on
/// link partner advertising `solo_partner`.
#[derive(Clone, Debug)]
pub struct Wire {
    shared: Arc<Mutex<Shared>>,
    delay_ns: u64,
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
    /// A cable for `ports` (1 or 2) ports.
    pub fn new(ports: usize, delay_ns: u64, solo_partner: Abilities) -> Self {
        Wire {
            shared: Arc::new(Mutex::new(Shared { connected: true, ends: Default::default(), peers: [None, None] })),
            delay_ns,
            solo_partner,
            ports,
        }
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
        let peer = {
            let s = self.wire.shared.lock().unwrap();
            if !s.connected {
                return;
            }
            s.peers[self.other()].clone()
        };
        if let Some(p) = peer {
            let arrival = Frame { host_ns: frame.host_ns + self.wire.delay_ns, data: frame.data };
            let _ = p.send(PortEvent::Frame(arrival));
        }
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::channel;

    #[test]
    fn two_ends_see_each_other() {
        let wire = Wire::new(2, 100, Abilities::ALL);
        let (ta, ra) = channel();
        let (tb, rb) = channel();
        let a = wire.end(0, ta);
        let b = wire.end(1, tb);
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

    #[test]
    fn solo_port_has_ideal_partner() {
        let wire = Wire::new(1, 0, Abilities::ALL);
        let (t, _r) = channel();
        let a = wire.end(0, t);
        assert_eq!(a.partner(), Partner::Present(Abilities::ALL));
    }
}
