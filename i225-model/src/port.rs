// SPDX-License-Identifier: GPL-2.0

//! A port: a [`Device`] behind a lock, the far end of its cable (the other
//! port or a TAP device) and a worker thread for everything asynchronous
//! (frames from the cable, link changes, periodic PTP work, interrupts
//! released when their EITR interval expires).

use std::io;
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::device::Device;
use crate::mac::MacConfig;
use crate::ptp::TimeSource;
use crate::wire::{FarEnd, PortEvent, Wire};

const TICK: Duration = Duration::from_millis(10);

pub struct Port {
    pub name: String,
    device: Mutex<Device>,
    far_end: Arc<dyn FarEnd>,
    events: Sender<PortEvent>,
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
    pub fn with_device<R>(&self, f: impl FnOnce(&mut Device) -> R) -> R {
        let (result, frames) = {
            let mut d = self.lock();
            let result = f(&mut d);
            d.deliver_irqs();
            if d.mac.take_phy_changed() {
                self.far_end.publish(d.mac.phy_advertisement());
            }
            (result, d.mac.take_outbox())
        };
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
    fn next_wait(&self) -> Duration {
        let d = self.lock();
        let due = match (d.mac.next_irq_deadline(), d.mac.next_dma_deadline()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        match due {
            Some(due) => Duration::from_nanos(due.saturating_sub(d.mac.now())).min(TICK),
            None => TICK,
        }
    }

    fn run(&self, events: Receiver<PortEvent>) {
        loop {
            // DMA due after a queue disable runs with whatever the worker does next, under the
            // same lock, so that traffic cannot hold it back.
            match events.recv_timeout(self.next_wait()) {
                Ok(PortEvent::Frame(frame)) => self.with_device(|d| {
                    let Device { mac, dma, .. } = d;
                    mac.run_late_rx_dma(dma);
                    mac.receive(&frame, dma);
                }),
                Ok(PortEvent::LinkCheck) => {
                    let partner = self.far_end.partner();
                    self.with_device(|d| {
                        let Device { mac, dma, .. } = d;
                        mac.run_late_rx_dma(dma);
                        mac.set_partner(partner);
                        mac.resume_tx(dma);
                    });
                }
                Ok(PortEvent::Shutdown) | Err(RecvTimeoutError::Disconnected) => return,
                Err(RecvTimeoutError::Timeout) => self.with_device(|d| {
                    let Device { mac, dma, .. } = d;
                    mac.run_late_rx_dma(dma);
                    mac.tick();
                }),
            }
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
