// SPDX-License-Identifier: GPL-2.0

//! Interrupt delivery to the client: one line per INTx / MSI / MSI-X
//! vector, each with an optional trigger (an eventfd from SET_IRQS), a mask
//! and a pending latch. A message for a masked line, or a line without a
//! trigger yet, stays pending (that is the MSI-X PBA) and goes out when the
//! line is unmasked or gets its trigger.
//!
//! The active mode follows what the client enabled, as with kernel VFIO:
//! MSI-X if any MSI-X vector has a trigger, else MSI, else INTx.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};

use crate::interrupts::Signals;
use crate::regs::NUM_MSIX_VECTORS;

pub const INDEX_INTX: u32 = 0;
pub const INDEX_MSI: u32 = 1;
pub const INDEX_MSIX: u32 = 2;
pub const INDEX_ERR: u32 = 3;
pub const INDEX_REQ: u32 = 4;
pub const NUM_INDEXES: u32 = 5;

/// Something that can be signalled: an eventfd, or a test probe.
pub trait Notifier: Send + std::fmt::Debug {
    fn notify(&self) -> io::Result<()>;
}

/// An eventfd handed over by the client.
#[derive(Debug)]
pub struct EventFd(pub OwnedFd);

impl Notifier for EventFd {
    fn notify(&self) -> io::Result<()> {
        let one = 1u64.to_ne_bytes();
        // SAFETY: writing 8 bytes from a live buffer to an fd we own.
        let n = unsafe { libc::write(self.0.as_raw_fd(), one.as_ptr().cast(), one.len()) };
        if n == 8 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }
}

#[derive(Debug, Default)]
struct Line {
    trigger: Option<Box<dyn Notifier>>,
    masked: bool,
    pending: bool,
    count: u64,
}

impl Line {
    fn fire(&mut self) {
        match &self.trigger {
            Some(t) if !self.masked => {
                if let Err(e) = t.notify() {
                    log::warn!("interrupt eventfd write failed: {e}");
                }
                self.pending = false;
                self.count += 1;
            }
            _ => self.pending = true,
        }
    }

    fn release_pending(&mut self) {
        if self.pending && !self.masked && self.trigger.is_some() {
            self.fire();
        }
    }
}

/// Which interrupt kind the client enabled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IrqMode {
    None,
    Intx,
    Msi,
    Msix,
}

/// SET_IRQS actions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IrqAction {
    Mask,
    Unmask,
    Trigger,
}

#[derive(Debug)]
pub struct IrqLines {
    intx: Line,
    msi: Line,
    msix: Vec<Line>,
    /// AER error and device request notifiers: accepted, never signalled.
    err: Line,
    req: Line,
}

impl Default for IrqLines {
    fn default() -> Self {
        Self::new()
    }
}

/// Per-line delivery counts: INTx, MSI, then each MSI-X vector.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IrqCounts {
    pub intx: u64,
    pub msi: u64,
    pub msix: Vec<u64>,
}

impl IrqLines {
    pub fn new() -> Self {
        IrqLines {
            intx: Line::default(),
            msi: Line::default(),
            msix: (0..NUM_MSIX_VECTORS).map(|_| Line::default()).collect(),
            err: Line::default(),
            req: Line::default(),
        }
    }

    /// Number of lines of an index (for GET_IRQ_INFO).
    pub fn count(index: u32) -> u32 {
        match index {
            INDEX_INTX | INDEX_MSI | INDEX_ERR | INDEX_REQ => 1,
            INDEX_MSIX => NUM_MSIX_VECTORS as u32,
            _ => 0,
        }
    }

    pub fn mode(&self) -> IrqMode {
        if self.msix.iter().any(|l| l.trigger.is_some()) {
            IrqMode::Msix
        } else if self.msi.trigger.is_some() {
            IrqMode::Msi
        } else if self.intx.trigger.is_some() {
            IrqMode::Intx
        } else {
            IrqMode::None
        }
    }

    fn lines(&mut self, index: u32) -> Option<&mut [Line]> {
        match index {
            INDEX_INTX => Some(std::slice::from_mut(&mut self.intx)),
            INDEX_MSI => Some(std::slice::from_mut(&mut self.msi)),
            INDEX_MSIX => Some(&mut self.msix),
            INDEX_ERR => Some(std::slice::from_mut(&mut self.err)),
            INDEX_REQ => Some(std::slice::from_mut(&mut self.req)),
            _ => None,
        }
    }

    /// Drops every trigger (client went away, or device reset).
    pub fn clear(&mut self) {
        *self = Self::new();
    }

    /// Installs (`Some`) or removes (`None`) triggers for `start..`.
    pub fn set_triggers(&mut self, index: u32, start: u32, triggers: Vec<Option<Box<dyn Notifier>>>) -> bool {
        let Some(lines) = self.lines(index) else {
            return triggers.is_empty();
        };
        let start = start as usize;
        if start + triggers.len() > lines.len() {
            return false;
        }
        for (line, t) in lines[start..].iter_mut().zip(triggers) {
            line.trigger = t;
            if line.trigger.is_none() {
                line.masked = false;
            }
            line.release_pending();
        }
        true
    }

    /// Disables every line of an index (count 0 with DATA_NONE).
    pub fn disable_all(&mut self, index: u32) {
        if let Some(lines) = self.lines(index) {
            for l in lines {
                *l = Line::default();
            }
        }
    }

    /// MASK / UNMASK / TRIGGER on `start..start+count` (filtered by
    /// `select` for DATA_BOOL). For INTx, `intx_level` re-asserts an
    /// unmasked level interrupt.
    pub fn action(&mut self, index: u32, start: u32, select: &[bool], action: IrqAction, intx_level: bool) -> bool {
        let Some(lines) = self.lines(index) else {
            return false;
        };
        let start = start as usize;
        if start + select.len() > lines.len() {
            return false;
        }
        for (line, _) in lines[start..].iter_mut().zip(select).filter(|(_, s)| **s) {
            match action {
                IrqAction::Mask => line.masked = true,
                IrqAction::Unmask => {
                    line.masked = false;
                    if index == INDEX_INTX {
                        // Level-triggered: re-assert if the cause is still
                        // there, then automask again as VFIO INTx does.
                        line.pending = false;
                        if intx_level && line.trigger.is_some() {
                            line.fire();
                            line.masked = true;
                        }
                    } else {
                        line.release_pending();
                    }
                }
                IrqAction::Trigger => line.fire(),
            }
        }
        true
    }

    /// Delivers what the MAC decided, in the mode the client enabled.
    pub fn deliver(&mut self, signals: Signals, intx_level: bool, intx_disabled: bool) {
        match self.mode() {
            IrqMode::Msix => {
                let mut vectors = signals.msix;
                if signals.legacy {
                    vectors |= 1; // causes outside MSI-X mode use vector 0
                }
                for (v, line) in self.msix.iter_mut().enumerate() {
                    if vectors & (1 << v) != 0 {
                        line.fire();
                    }
                }
            }
            IrqMode::Msi => {
                if !signals.is_empty() {
                    self.msi.fire();
                }
            }
            IrqMode::Intx | IrqMode::None => {
                let line = &mut self.intx;
                if intx_level && !intx_disabled && !signals.is_empty() && !line.masked && line.trigger.is_some() {
                    line.fire();
                    line.masked = true; // automasked until UNMASK
                }
            }
        }
    }

    /// Pending bits of the MSI-X vectors (the PBA).
    pub fn msix_pending(&self) -> u64 {
        self.msix.iter().enumerate().filter(|(_, l)| l.pending).fold(0, |a, (i, _)| a | 1 << i)
    }

    pub fn counts(&self) -> IrqCounts {
        IrqCounts { intx: self.intx.count, msi: self.msi.count, msix: self.msix.iter().map(|l| l.count).collect() }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;

    /// Counts notifications.
    #[derive(Debug, Default, Clone)]
    pub struct Probe(pub Arc<AtomicU64>);

    impl Notifier for Probe {
        fn notify(&self) -> io::Result<()> {
            self.0.fetch_add(1, Ordering::SeqCst);
            Ok(())
        }
    }

    impl Probe {
        pub fn hits(&self) -> u64 {
            self.0.load(Ordering::SeqCst)
        }
    }

    fn msix_lines() -> (IrqLines, Vec<Probe>) {
        let mut l = IrqLines::new();
        let probes: Vec<Probe> = (0..5).map(|_| Probe::default()).collect();
        let t = probes.iter().map(|p| Some(Box::new(p.clone()) as Box<dyn Notifier>)).collect();
        assert!(l.set_triggers(INDEX_MSIX, 0, t));
        (l, probes)
    }

    #[test]
    fn masked_vector_is_pending_until_unmasked() {
        let (mut l, p) = msix_lines();
        assert_eq!(l.mode(), IrqMode::Msix);
        l.action(INDEX_MSIX, 2, &[true], IrqAction::Mask, false);
        l.deliver(Signals { msix: 0b100, legacy: false }, false, false);
        assert_eq!(p[2].hits(), 0);
        assert_eq!(l.msix_pending(), 0b100);
        l.action(INDEX_MSIX, 2, &[true], IrqAction::Unmask, false);
        assert_eq!(p[2].hits(), 1);
        assert_eq!(l.msix_pending(), 0);
        assert_eq!(l.counts().msix[2], 1);
    }

    #[test]
    fn vector_without_trigger_latches() {
        let mut l = IrqLines::new();
        let p = Probe::default();
        l.set_triggers(INDEX_MSIX, 0, vec![Some(Box::new(p.clone()))]);
        l.deliver(Signals { msix: 0b10, legacy: false }, false, false);
        assert_eq!(l.msix_pending(), 0b10);
        let q = Probe::default();
        l.set_triggers(INDEX_MSIX, 1, vec![Some(Box::new(q.clone()))]);
        assert_eq!(q.hits(), 1);
    }

    #[test]
    fn intx_is_automasked() {
        let mut l = IrqLines::new();
        let p = Probe::default();
        l.set_triggers(INDEX_INTX, 0, vec![Some(Box::new(p.clone()))]);
        l.deliver(Signals { msix: 0, legacy: true }, true, false);
        l.deliver(Signals { msix: 0, legacy: true }, true, false);
        assert_eq!(p.hits(), 1);
        // EOI with the line still asserted: fires again.
        l.action(INDEX_INTX, 0, &[true], IrqAction::Unmask, true);
        assert_eq!(p.hits(), 2);
        // EOI with the line low: stays quiet.
        l.action(INDEX_INTX, 0, &[true], IrqAction::Unmask, false);
        assert_eq!(p.hits(), 2);
    }
}
