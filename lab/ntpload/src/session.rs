// SPDX-License-Identifier: GPL-2.0

//! Per-client protocol state for the interleaved mode as chronyd implements it.
//!
//! A request carries a random 64-bit value `id` as its transmit timestamp and
//! `id ^ 1` as its receive timestamp; its origin timestamp is the receive
//! timestamp of the client's previous response (zero for a new client).
//!
//! chronyd (ntp_core.c) answers in interleaved mode when the request is
//! NTPv4, the request's receive and transmit timestamps differ, the origin
//! has its lowest bit set (chronyd sets that bit in every receive timestamp it
//! sends), and it still holds the transmit timestamp of the response it sent
//! with that receive timestamp. An interleaved response has origin = the
//! request's receive timestamp and transmit = the (hardware, if available) TX
//! time of the previous response; a basic response has origin = the request's
//! transmit timestamp and a transmit timestamp read just before sending.
//! The first two requests of a new client get basic responses.

use crate::frame::NtpResponse;
use crate::ntp::ntp_to_unix_ns;

/// What a client remembers of its last (valid, in-order) response.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Prev {
    /// The server's receive timestamp, as received: the next origin.
    remote_rx_raw: u64,
    remote_rx_ns: Option<i64>,
    /// Our RX timestamp of that response.
    local_rx_ns: i64,
}

/// A request sent and what it referred to.
#[derive(Clone, Copy, Debug)]
struct Outstanding {
    transmit: u64,
    receive: u64,
    counted: bool,
    answered: bool,
    /// The response whose receive timestamp was the origin of this request:
    /// an interleaved answer reports the server's TX time of exactly that one.
    prev: Option<Prev>,
}

#[derive(Clone, Debug, Default)]
struct Client {
    last: Option<Prev>,
    current: Option<Outstanding>,
    older: Option<Outstanding>,
}

/// Classification of a response frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Outcome {
    /// Basic response to the outstanding request. `offset_ns` = our RX of this
    /// response - its transmit timestamp.
    Basic { counted: bool, offset_ns: Option<i64> },
    /// Interleaved response to the outstanding request. `offset_ns` = our RX
    /// of the previous response - the server's TX of it (this transmit
    /// timestamp); `resp_time_ns` = that TX - the server's RX of the previous
    /// request.
    Interleaved { counted: bool, offset_ns: Option<i64>, resp_time_ns: Option<i64> },
    /// A late answer to the previous request, a duplicate, or a response with
    /// an origin we never sent. `counted` tells whether the request it belongs
    /// to (or, failing that, the outstanding one) is a measured request.
    Invalid { counted: bool },
}

/// The NTP timestamps of a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequestStamps {
    pub origin: u64,
    pub receive: u64,
    pub transmit: u64,
}

/// All simulated clients of a step.
pub struct Clients {
    v: Vec<Client>,
}

impl Clients {
    pub fn new(n: usize) -> Clients {
        Clients { v: vec![Client::default(); n] }
    }

    pub fn len(&self) -> usize {
        self.v.len()
    }

    /// Records a new request of client `i` with random `id` and returns its
    /// timestamps. `counted` marks a measured (not warm-up) request.
    pub fn next_request(&mut self, i: usize, id: u64, counted: bool) -> RequestStamps {
        let c = &mut self.v[i];
        let stamps = RequestStamps { origin: c.last.map_or(0, |p| p.remote_rx_raw), receive: id ^ 1, transmit: id };
        c.older = c.current.take();
        c.current = Some(Outstanding {
            transmit: stamps.transmit,
            receive: stamps.receive,
            counted,
            answered: false,
            prev: c.last,
        });
        stamps
    }

    /// Classifies a response to client `i` received at `local_rx_ns` (Unix
    /// ns, our RX timestamp) and updates the client's state.
    pub fn on_response(&mut self, i: usize, resp: &NtpResponse, local_rx_ns: i64) -> Outcome {
        let c = &mut self.v[i];
        let Some(cur) = c.current.as_mut() else {
            return Outcome::Invalid { counted: false };
        };
        let interleaved = if resp.origin == cur.transmit && !cur.answered {
            false
        } else if resp.origin == cur.receive && !cur.answered {
            true
        } else {
            let late = c.older.filter(|o| resp.origin == o.transmit || resp.origin == o.receive);
            return Outcome::Invalid { counted: late.map_or(cur.counted, |o| o.counted) };
        };
        cur.answered = true;
        let counted = cur.counted;
        let remote_rx_ns = ntp_to_unix_ns(resp.receive);
        let remote_tx_ns = ntp_to_unix_ns(resp.transmit);
        let outcome = if interleaved {
            let prev = cur.prev;
            Outcome::Interleaved {
                counted,
                offset_ns: prev.zip(remote_tx_ns).map(|(p, tx)| p.local_rx_ns - tx),
                resp_time_ns: prev.and_then(|p| p.remote_rx_ns).zip(remote_tx_ns).map(|(rx, tx)| tx - rx),
            }
        } else {
            Outcome::Basic { counted, offset_ns: remote_tx_ns.map(|tx| local_rx_ns - tx) }
        };
        c.last = Some(Prev { remote_rx_raw: resp.receive, remote_rx_ns, local_rx_ns });
        outcome
    }
}

/// xorshift64* pseudo-random numbers (request ids, source ports).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ntp::unix_ns_to_ntp;

    const T0: i64 = 1_700_000_000_000_000_000;

    /// chronyd sets the lowest bit of its receive timestamps and clears it in
    /// transmit timestamps.
    fn server_rx(ns: i64) -> u64 {
        unix_ns_to_ntp(ns) | 1
    }

    fn server_tx(ns: i64) -> u64 {
        unix_ns_to_ntp(ns) & !1
    }

    fn resp(origin: u64, receive: u64, transmit: u64) -> NtpResponse {
        NtpResponse { client_ip: 0, dst_port: 40000, lvm: 0x24, stratum: 1, origin, receive, transmit }
    }

    fn near(a: Option<i64>, b: i64) -> bool {
        a.is_some_and(|a| (a - b).abs() <= 1)
    }

    #[test]
    fn request_fields() {
        let mut cl = Clients::new(2);
        let r = cl.next_request(1, 0xdead_beef_0000_1234, false);
        assert_eq!(r, RequestStamps { origin: 0, receive: 0xdead_beef_0000_1235, transmit: 0xdead_beef_0000_1234 });
        assert_ne!(r.receive, r.transmit, "chronyd requires receive != transmit for interleaved mode");
    }

    #[test]
    fn basic_then_interleaved() {
        let mut cl = Clients::new(1);
        // Request 1: new client, basic response.
        let r1 = cl.next_request(0, 100, false);
        let rx1 = server_rx(T0 + 10_000);
        let out = cl.on_response(0, &resp(r1.transmit, rx1, server_tx(T0 + 30_000)), T0 + 35_000);
        assert!(matches!(out, Outcome::Basic { counted: false, offset_ns } if near(offset_ns, 5_000)));

        // Request 2 refers to response 1; chronyd answers basic (it saved
        // nothing for request 1), origin = our transmit.
        let r2 = cl.next_request(0, 200, false);
        assert_eq!(r2.origin, rx1);
        let rx2 = server_rx(T0 + 100_010_000);
        let out = cl.on_response(0, &resp(r2.transmit, rx2, server_tx(T0 + 100_030_000)), T0 + 100_034_000);
        assert!(matches!(out, Outcome::Basic { .. }));

        // Request 3 refers to response 2, whose hardware TX time was
        // T0 + 100_020_000 and which we received at T0 + 100_034_000.
        let r3 = cl.next_request(0, 300, true);
        assert_eq!(r3.origin, rx2);
        let out = cl.on_response(
            0,
            &resp(r3.receive, server_rx(T0 + 200_010_000), server_tx(T0 + 100_020_000)),
            T0 + 200_040_000,
        );
        match out {
            Outcome::Interleaved { counted: true, offset_ns, resp_time_ns } => {
                assert!(near(offset_ns, 14_000), "{offset_ns:?}");
                assert!(near(resp_time_ns, 10_000), "{resp_time_ns:?}");
            }
            o => panic!("{o:?}"),
        }

        // A duplicate of the same response is invalid.
        let dup = resp(r3.receive, server_rx(T0 + 200_010_000), server_tx(T0 + 100_020_000));
        assert_eq!(cl.on_response(0, &dup, T0 + 200_050_000), Outcome::Invalid { counted: true });
    }

    #[test]
    fn foreign_and_late_responses() {
        let mut cl = Clients::new(1);
        assert_eq!(cl.on_response(0, &resp(1, 2, 3), T0), Outcome::Invalid { counted: false });
        let r1 = cl.next_request(0, 1000, false);
        let r2 = cl.next_request(0, 2000, true);
        // Origin matching nothing we sent.
        assert_eq!(cl.on_response(0, &resp(12345, 3, 4), T0), Outcome::Invalid { counted: true });
        // The answer to the warm-up request 1 arrives after request 2 was sent.
        assert_eq!(
            cl.on_response(0, &resp(r1.transmit, server_rx(T0), server_tx(T0)), T0 + 1),
            Outcome::Invalid { counted: false }
        );
        // The in-order answer to request 2 is still fine; being stale, request 2
        // carried no origin.
        assert_eq!(r2.origin, 0);
        assert!(matches!(
            cl.on_response(0, &resp(r2.transmit, server_rx(T0 + 5), server_tx(T0 + 9)), T0 + 20),
            Outcome::Basic { counted: true, .. }
        ));
    }

    #[test]
    fn interleaved_without_tx_timestamp() {
        let mut cl = Clients::new(1);
        let r1 = cl.next_request(0, 10, false);
        cl.on_response(0, &resp(r1.transmit, server_rx(T0), server_tx(T0)), T0 + 5);
        let r2 = cl.next_request(0, 20, true);
        let out = cl.on_response(0, &resp(r2.receive, server_rx(T0 + 100), 0), T0 + 200);
        assert_eq!(out, Outcome::Interleaved { counted: true, offset_ns: None, resp_time_ns: None });
    }

    #[test]
    fn rng_varies() {
        let mut r = Rng::new(42);
        let a: Vec<u64> = (0..100).map(|_| r.next_u64()).collect();
        let mut s = a.clone();
        s.sort_unstable();
        s.dedup();
        assert_eq!(s.len(), a.len());
        assert!(a.iter().any(|x| x & 1 == 1) && a.iter().any(|x| x & 1 == 0));
    }

    /// A minimal chronyd server model following ntp_core.c / clientlog.c:
    /// receive timestamps get the lowest bit set, transmit timestamps cleared;
    /// interleaved when origin & 1, receive != transmit and the origin is a
    /// saved receive timestamp (each usable once).
    struct Server {
        saved: std::collections::HashMap<u64, i64>,
    }

    impl Server {
        /// Answers a request frame received at `rx_ns`, sent out (hardware
        /// TX) at `tx_ns`.
        fn answer(&mut self, req: &[u8], rx_ns: i64, tx_ns: i64, daemon_tx_ns: i64) -> [u8; FRAME_LEN] {
            use crate::frame::{ETH_HLEN, IPV4_HLEN, NTP_ORIGIN_OFF, NTP_RECEIVE_OFF, NTP_TRANSMIT_OFF, UDP_HLEN};
            let ntp = &req[ETH_HLEN + IPV4_HLEN + UDP_HLEN..];
            let field = |off: usize| u64::from_be_bytes(ntp[off..off + 8].try_into().unwrap());
            let (origin, receive, transmit) = (field(NTP_ORIGIN_OFF), field(NTP_RECEIVE_OFF), field(NTP_TRANSMIT_OFF));
            let client_ip = u32::from_be_bytes(req[ETH_HLEN + 12..ETH_HLEN + 16].try_into().unwrap());
            let mut interleaved = None;
            if origin & 1 == 1 && receive != transmit {
                interleaved = self.saved.remove(&origin);
            }
            let rx = server_rx(rx_ns);
            let resp = match interleaved {
                Some(prev_tx) => response_frame(client_ip, receive, rx, server_tx(prev_tx)),
                None => response_frame(client_ip, transmit, rx, server_tx(daemon_tx_ns)),
            };
            if origin & 1 == 1 && receive != transmit {
                self.saved.insert(rx, tx_ns);
            }
            resp
        }
    }

    use crate::frame::tests::{filter, response_frame, CLIENT_MAC, SERVER_IP, SERVER_MAC};
    use crate::frame::{build_request, parse_response, Endpoints, NtpRequest, FRAME_LEN};

    #[test]
    fn frames_against_chronyd_model() {
        let net = crate::frame::tests::net();
        let ep = Endpoints { src_mac: CLIENT_MAC, dst_mac: SERVER_MAC, dst_ip: SERVER_IP };
        let mut server = Server { saved: Default::default() };
        let clients = 10usize;
        let mut cl = Clients::new(clients);
        let mut rng = Rng::new(7);
        let mut kinds = vec![Vec::new(); clients];
        let mut t = T0;
        for k in 0..(clients * 6) {
            let i = k % clients;
            let stamps = cl.next_request(i, rng.next_u64(), k >= 2 * clients);
            let req = NtpRequest {
                src_ip: net.client_ip(i as u32),
                src_port: 40000,
                ip_id: k as u16,
                origin: stamps.origin,
                receive: stamps.receive,
                transmit: stamps.transmit,
            };
            let mut frame = [0u8; FRAME_LEN];
            build_request(&ep, &req, &mut frame);
            // Server RX at t + 5 us, daemon TX timestamp at t + 15 us, hardware
            // TX at t + 20 us, our hardware RX at t + 23 us.
            let resp_frame = server.answer(&frame, t + 5_000, t + 20_000, t + 15_000);
            let resp = parse_response(&resp_frame, &filter()).expect("a response to us");
            let idx = net.client_index(resp.client_ip).unwrap() as usize;
            assert_eq!(idx, i);
            kinds[i].push(cl.on_response(idx, &resp, t + 23_000));
            t += 1_000_000;
        }
        for k in &kinds {
            assert!(matches!(k[0], Outcome::Basic { counted: false, offset_ns } if near(offset_ns, 8_000)));
            assert!(matches!(k[1], Outcome::Basic { counted: false, .. }));
            for o in &k[2..] {
                match *o {
                    Outcome::Interleaved { counted: true, offset_ns, resp_time_ns } => {
                        assert!(near(offset_ns, 3_000), "{offset_ns:?}");
                        assert!(near(resp_time_ns, 15_000), "{resp_time_ns:?}");
                    }
                    o => panic!("{o:?}"),
                }
            }
        }
        // A response to a port other than 123 or to an address outside the
        // client range never reaches the classification.
        let mut f = response_frame(net.client_ip(0), 0, 1, 2);
        f[34 + 1] = 124;
        assert!(parse_response(&f, &filter()).is_none());
        let f = response_frame(0xac11_0001, 0, 1, 2);
        assert!(parse_response(&f, &filter()).is_none());
    }
}
