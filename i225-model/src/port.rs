// SPDX-License-Identifier: GPL-2.0

//! A port: a [`Device`] behind a lock, the far end of its cable (the other
//! port or a TAP device) and a worker thread for everything asynchronous
//! (frames from the cable, link changes, PTP events, interrupts released
//! when their EITR interval expires).
//!
//! The worker is deadline-driven: it sleeps until the device's next timed
//! event ([`crate::mac::Mac::next_deadline`]) or the next frame, whichever
//! comes first, and runs the timed work after every wake-up, so that
//! traffic cannot starve it; an access from the guest that makes something
//! due earlier wakes it ([`PortEvent::Wake`]).

use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::device::Device;
use crate::mac::MacConfig;
use crate::ptp::TimeSource;
use crate::wire::{FarEnd, PortEvent, Wire};

/// The longest the worker sleeps with nothing due.
const TICK: Duration = Duration::from_millis(10);

pub struct Port {
    pub name: String,
    device: Mutex<Device>,
    far_end: Arc<dyn FarEnd>,
    events: Sender<PortEvent>,
    /// Host time the worker will wake at, at the latest.
    planned_wake: AtomicU64,
}

impl std::fmt::Debug for Port {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Port").field("name", &self.name).finish()
    }
}

impl Port {
    /// Creates port `side` of `wire` and starts its worker.
    pub fn spawn(
        name: String,
        side: usize,
        device_id: u16,
        config: MacConfig,
        clock: Arc<dyn TimeSource>,
        wire: &Wire,
    ) -> (Arc<Port>, JoinHandle<()>) {
        Self::spawn_with(name, device_id, config, clock, |events| Ok(Arc::new(wire.end(side, events))))
            .expect("spawn port worker")
    }

    /// Creates a port cabled to what `connect` returns (given the port's
    /// event channel) and starts its worker.
    pub fn spawn_with(
        name: String,
        device_id: u16,
        config: MacConfig,
        clock: Arc<dyn TimeSource>,
        connect: impl FnOnce(Sender<PortEvent>) -> io::Result<Arc<dyn FarEnd>>,
    ) -> io::Result<(Arc<Port>, JoinHandle<()>)> {
        let (tx, rx) = channel();
        let port = Arc::new(Port {
            name,
            device: Mutex::new(Device::new(device_id, config, clock)),
            far_end: connect(tx.clone())?,
            events: tx,
            planned_wake: AtomicU64::new(0),
        });
        port.with_device(|_| {}); // publish the PHY state
        let _ = port.events.send(PortEvent::LinkCheck);
        let worker = {
            let port = port.clone();
            std::thread::Builder::new().name(format!("{}-worker", port.name)).spawn(move || port.run(rx))?
        };
        Ok((port, worker))
    }

    /// Runs `f` on the device, then delivers interrupts, publishes PHY
    /// changes and puts transmitted frames on the wire.
    /// Wakes the worker if `f` made something due before its planned wake.
    pub fn with_device<R>(&self, f: impl FnOnce(&mut Device) -> R) -> R {
        let (result, frames, due) = {
            let mut d = self.lock();
            let result = f(&mut d);
            d.deliver_irqs();
            if d.mac.take_phy_changed() {
                self.far_end.publish(d.mac.phy_advertisement());
            }
            (result, d.mac.take_outbox(), d.mac.next_deadline())
        };
        if due.is_some_and(|due| due < self.planned_wake.load(Ordering::Acquire)) {
            let _ = self.events.send(PortEvent::Wake);
        }
        for frame in frames {
            self.far_end.transmit(frame);
        }
        result
    }

    fn lock(&self) -> MutexGuard<'_, Device> {
        // A panic in a handler must not take the whole model down with a
        // poisoned lock: the device state is still usable.
        self.device.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What the port is cabled to.
    pub fn far_end(&self) -> &Arc<dyn FarEnd> {
        &self.far_end
    }

    /// Asks the worker to stop.
    pub fn shutdown(&self) {
        let _ = self.events.send(PortEvent::Shutdown);
    }

    /// How long the worker may sleep: until the next tick, or earlier if
    /// an interrupt held back by EITR moderation falls due.
    /// How long the worker may sleep: until the device's next deadline, at
    /// most [`TICK`]. Records the planned wake for [`Port::with_device`].
    fn next_wait(&self) -> Duration {
        let d = self.lock();
        let now = d.mac.now();
        let wait = match d.mac.next_deadline() {
            Some(due) => Duration::from_nanos(due.saturating_sub(now)).min(TICK),
            None => TICK,
        };
        self.planned_wake.store(now.saturating_add(wait.as_nanos() as u64), Ordering::Release);
        wait
    }

    fn run(&self, events: Receiver<PortEvent>) {
        loop {
            let event = events.recv_timeout(self.next_wait());
            if matches!(event, Ok(PortEvent::Shutdown) | Err(RecvTimeoutError::Disconnected)) {
                return;
            }
            let partner = matches!(event, Ok(PortEvent::LinkCheck)).then(|| self.far_end.partner());
            // The timed work (late DMA, TX, PTP events; held interrupts go out in with_device) runs
            // at every wake-up, under the same lock as the event, before the event.
            self.with_device(|d| {
                let Device { mac, dma, .. } = d;
                mac.run_late_rx_dma(dma);
                mac.run_tx(dma);
                mac.tick();
                match event {
                    Ok(PortEvent::Frame(frame)) => mac.receive(&frame, dma),
                    Ok(PortEvent::LinkCheck) => {
                        if let Some(partner) = partner {
                            mac.set_partner(partner);
                        }
                        mac.resume_tx(dma);
                    }
                    _ => {}
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::irq_lines::{tests::Probe, Notifier, INDEX_MSIX};
    use crate::phy::Abilities;
    use crate::ptp::{PtpConfig, VirtualClock};
    use crate::regs;
    use std::time::Instant;

    #[test]
    fn worker_releases_held_interrupt_at_eitr_expiry() {
        let clock = Arc::new(VirtualClock::new(0));
        let wire = Wire::new(1, 0, Abilities::ALL);
        let cfg = MacConfig { mac_addr: [2, 0, 0, 0, 0, 1], ptp: PtpConfig::default() };
        let (port, worker) = Port::spawn("eitr".into(), 0, 0x15F3, cfg, clock.clone(), &wire);
        let probe = Probe::default();
        port.with_device(|d| {
            d.irqs.set_triggers(INDEX_MSIX, 1, vec![Some(Box::new(probe.clone()) as Box<dyn Notifier>)]);
            let Device { mac, dma, .. } = d;
            mac.write32(regs::GPIE, 0x0000_0011, dma);
            mac.write32(regs::EITR0 + 4, 0x8000_0000 | 196, dma); // 49 µs
            mac.write32(regs::EIMS, 1 << 1, dma);
            mac.write32(regs::EICS, 1 << 1, dma);
            mac.write32(regs::EICS, 1 << 1, dma);
        });
        assert_eq!(probe.hits(), 1, "second cause held");
        clock.advance(49_000);
        let start = Instant::now();
        while probe.hits() < 2 && start.elapsed() < Duration::from_secs(2) {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(probe.hits(), 2, "the worker fired the held vector");
        port.shutdown();
        worker.join().unwrap();
    }
}
