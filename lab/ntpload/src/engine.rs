// SPDX-License-Identifier: GPL-2.0

//! One rate step: send the requests on schedule, receive and classify the
//! responses, and collect the statistics.

use std::io;

use crate::frame::{build_request, parse_response, Endpoints, Net, NtpRequest, ResponseFilter, FRAME_LEN};
use crate::schedule::{step_requests, Schedule};
use crate::session::{Clients, Outcome, Rng};
use crate::stats::StepResult;
use crate::sys::{self, PacketSocket, RecvBatch, RECV_BATCH};

/// Requests handed to one sendmmsg() call at most.
const SEND_BATCH: usize = 64;
/// How long to keep retrying a send the kernel refuses (full queue).
const SEND_RETRY_NS: i64 = 1_000_000_000;

/// Parameters of a run that stay the same across steps.
pub struct StepParams {
    pub duration_s: f64,
    pub grace_s: f64,
    /// Subtracted from every offset (e.g. known wire + PHY delay), ns.
    pub correction_ns: i64,
}

pub struct Engine<'a> {
    sock: &'a PacketSocket,
    ep: Endpoints,
    filter: ResponseFilter,
    net: Net,
    /// Prefer hardware RX timestamps.
    hw: bool,
    rng: Rng,
    ip_id: u16,
    batch: RecvBatch,
}

fn interrupted() -> io::Error {
    io::Error::new(io::ErrorKind::Interrupted, "interrupted")
}

impl<'a> Engine<'a> {
    pub fn new(sock: &'a PacketSocket, ep: Endpoints, net: Net, hw: bool) -> Engine<'a> {
        let seed = sys::real_ns() as u64 ^ (u64::from(std::process::id()) << 32);
        Engine {
            sock,
            ep,
            filter: ResponseFilter { server_mac: ep.dst_mac, server_ip: ep.dst_ip, net },
            net,
            hw,
            rng: Rng::new(seed),
            ip_id: 0,
            batch: RecvBatch::new(),
        }
    }

    /// Runs one step at `rate` requests/s over `clients` clients.
    pub fn run_step(&mut self, rate: u64, clients: u32, p: &StepParams) -> io::Result<StepResult> {
        let mut res = StepResult { rate, clients, ..Default::default() };
        let mut cl = Clients::new(clients as usize);
        let (warmup, measured) = step_requests(rate, p.duration_s, clients);
        let total = warmup + measured;
        let sched = Schedule { start_ns: sys::mono_ns() + 1_000_000, rate };
        let mut frames = vec![[0u8; FRAME_LEN]; SEND_BATCH];
        let mut k = 0u64;
        let mut last_send_ns = sched.start_ns;

        while k < total {
            if sys::stop_requested() {
                return Err(interrupted());
            }
            let due = sched.due_ns(k);
            let mut now = sys::mono_ns();
            if due > now {
                self.drain(&mut cl, &mut res, p.correction_ns)?;
                sys::sleep_until_mono(due);
                now = sys::mono_ns();
                if due > now {
                    continue; // woken early (signal)
                }
            }
            // Everything due by now goes out together (batching when behind).
            let mut n = 0;
            while n < SEND_BATCH && k < total && sched.due_ns(k) <= now {
                let i = (k % u64::from(clients)) as u32;
                let counted = k >= warmup;
                let stamps = cl.next_request(i as usize, self.rng.next_u64(), counted);
                let req = NtpRequest {
                    src_ip: self.net.client_ip(i),
                    src_port: 32768 + (self.rng.next_u64() % 28000) as u16,
                    ip_id: self.ip_id,
                    origin: stamps.origin,
                    receive: stamps.receive,
                    transmit: stamps.transmit,
                };
                self.ip_id = self.ip_id.wrapping_add(1);
                build_request(&self.ep, &req, &mut frames[n]);
                res.sent += u64::from(counted);
                n += 1;
                k += 1;
            }
            self.send_all(&frames[..n])?;
            last_send_ns = sys::mono_ns();
            res.tx_lag_max_ns = res.tx_lag_max_ns.max(last_send_ns - due);
            self.drain(&mut cl, &mut res, p.correction_ns)?;
        }

        res.tx_rate = if measured > 0 {
            // Ideal span of the measured requests is measured / rate; any
            // delay of the last one stretches it.
            let span_ns = (last_send_ns - sched.due_ns(warmup)) as f64 + 1e9 / rate as f64;
            measured as f64 * 1e9 / span_ns
        } else {
            rate as f64
        };

        // Grace period for late responses.
        let end = sys::mono_ns() + (p.grace_s * 1e9) as i64;
        loop {
            self.drain(&mut cl, &mut res, p.correction_ns)?;
            let now = sys::mono_ns();
            if now >= end {
                break;
            }
            if sys::stop_requested() {
                return Err(interrupted());
            }
            let ms = ((end - now) / 1_000_000).clamp(1, 10) as i32;
            self.sock.wait_readable(ms)?;
        }
        Ok(res)
    }

    fn send_all(&self, frames: &[[u8; FRAME_LEN]]) -> io::Result<()> {
        let mut off = 0;
        let mut first_failure = None;
        while off < frames.len() {
            match self.sock.send_frames(&frames[off..]) {
                Ok(n) => off += n,
                Err(e)
                    if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted)
                        || e.raw_os_error() == Some(libc::ENOBUFS) =>
                {
                    // Queue full: the frame was not sent, try again shortly.
                    let now = sys::mono_ns();
                    let since = *first_failure.get_or_insert(now);
                    if now - since > SEND_RETRY_NS || sys::stop_requested() {
                        return Err(io::Error::new(e.kind(), format!("sending requests: {e} (for over 1 s)")));
                    }
                    sys::sleep_until_mono(now + 20_000);
                }
                Err(e) => return Err(io::Error::new(e.kind(), format!("sending requests: {e}"))),
            }
        }
        Ok(())
    }

    /// Reads and classifies every queued frame.
    fn drain(&mut self, cl: &mut Clients, res: &mut StepResult, correction_ns: i64) -> io::Result<()> {
        loop {
            let n = self.sock.recv_batch(&mut self.batch)?;
            for i in 0..n {
                let (frame, info) = self.batch.get(i);
                if info.outgoing {
                    continue;
                }
                let Some(resp) = parse_response(frame, &self.filter) else {
                    continue;
                };
                let Some(idx) = self.net.client_index(resp.client_ip).filter(|&i| (i as usize) < cl.len()) else {
                    continue;
                };
                let (rx_ns, hw) = match (self.hw, info.hw_ns, info.sw_ns) {
                    (true, Some(hw), _) => (hw, true),
                    (_, _, Some(sw)) => (sw, false),
                    _ => (sys::real_ns(), false),
                };
                account(res, cl.on_response(idx as usize, &resp, rx_ns), hw, correction_ns);
            }
            if n < RECV_BATCH {
                return Ok(());
            }
        }
    }
}

/// Adds one classified response to the step's counters and statistics.
/// Only responses to measured (not warm-up) requests count.
fn account(res: &mut StepResult, outcome: Outcome, hw: bool, correction_ns: i64) {
    match outcome {
        Outcome::Basic { counted: true, offset_ns } => {
            res.basic += 1;
            if let Some(o) = offset_ns {
                res.basic_offset.add(o - correction_ns);
            }
        }
        Outcome::Interleaved { counted: true, offset_ns, resp_time_ns } => {
            res.interleaved += 1;
            if let Some(o) = offset_ns {
                res.offset.add(o - correction_ns);
            }
            if let Some(t) = resp_time_ns {
                res.resp_time.add(t);
            }
        }
        Outcome::Invalid { counted: true } => {
            res.invalid += 1;
            return;
        }
        _ => return,
    }
    if hw {
        res.hw_ts += 1;
    } else {
        res.sw_ts += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::TsKind;

    #[test]
    fn accounting() {
        let mut r = StepResult { rate: 1000, sent: 5, tx_rate: 1000.0, ..Default::default() };
        account(&mut r, Outcome::Basic { counted: false, offset_ns: Some(1) }, true, 0);
        account(&mut r, Outcome::Interleaved { counted: false, offset_ns: Some(1), resp_time_ns: None }, true, 0);
        account(&mut r, Outcome::Invalid { counted: false }, true, 0);
        assert_eq!((r.basic, r.interleaved, r.invalid, r.hw_ts, r.sw_ts), (0, 0, 0, 0, 0));

        account(&mut r, Outcome::Basic { counted: true, offset_ns: Some(9000) }, true, 1000);
        account(
            &mut r,
            Outcome::Interleaved { counted: true, offset_ns: Some(3000), resp_time_ns: Some(20) },
            true,
            1000,
        );
        account(&mut r, Outcome::Interleaved { counted: true, offset_ns: Some(5000), resp_time_ns: None }, false, 1000);
        account(&mut r, Outcome::Interleaved { counted: true, offset_ns: None, resp_time_ns: None }, true, 1000);
        account(&mut r, Outcome::Invalid { counted: true }, true, 1000);
        assert_eq!((r.basic, r.interleaved, r.invalid, r.hw_ts, r.sw_ts), (1, 3, 1, 3, 1));
        assert_eq!(r.lost(), 0);
        assert_eq!((r.offset.min(), r.offset.max(), r.offset.mean()), (Some(2000), Some(4000), Some(3000.0)));
        assert_eq!(r.basic_offset.min(), Some(8000));
        assert_eq!(r.resp_time.max(), Some(20));
        assert_eq!(TsKind::from_counts(r.hw_ts, r.sw_ts), TsKind::Mixed);
    }
}
