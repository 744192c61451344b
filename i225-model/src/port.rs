// SPDX-License-Identifier: GPL-2.0

//! A port: a [`Device`] behind a lock, the far end of its cable (the other
//! port or a TAP device) and a worker thread for everything asynchronous
//! (frames from the cable, link changes, periodic PTP work).

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

    fn run(&self, events: Receiver<PortEvent>) {
        loop {
            match events.recv_timeout(TICK) {
                Ok(PortEvent::Frame(frame)) => self.with_device(|d| {
                    let Device { mac, dma, .. } = d;
                    mac.receive(&frame, dma);
                }),
                Ok(PortEvent::LinkCheck) => {
                    let partner = self.far_end.partner();
                    self.with_device(|d| d.mac.set_partner(partner));
                }
                Ok(PortEvent::Shutdown) | Err(RecvTimeoutError::Disconnected) => return,
                Err(RecvTimeoutError::Timeout) => self.with_device(|d| d.mac.tick()),
            }
        }
    }
}
