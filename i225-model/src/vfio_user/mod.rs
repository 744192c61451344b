// SPDX-License-Identifier: GPL-2.0

//! A vfio-user server for one port.
//!
//! One client at a time; messages are handled in order. Replies follow the
//! protocol strictly: a request with NO_REPLY (posted BAR writes) never gets
//! one, and a failed request gets a header-only reply with the ERROR flag
//! and a real errno.

pub mod proto;
pub mod socket;

use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::fs::FileTypeExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::sync::Arc;

use crate::device::{self, Device, NUM_REGIONS};
use crate::irq_lines::{EventFd, IrqAction, IrqLines, Notifier, NUM_INDEXES};
use crate::port::Port;
use proto::{command, flags, Builder, Header, Payload};
use socket::Message;

type Reply = Result<Vec<u8>, i32>;

/// Binds `path`, replacing a stale socket left by an earlier run.
pub fn bind(path: &Path) -> io::Result<UnixListener> {
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if meta.file_type().is_socket() {
            std::fs::remove_file(path)?;
        }
    }
    UnixListener::bind(path)
}

/// Serves clients on `listener` forever, one connection at a time.
pub fn serve(listener: UnixListener, port: Arc<Port>) {
    for stream in listener.incoming() {
        match stream {
            Ok(stream) => {
                log::info!("{}: client connected", port.name);
                let mut conn = Connection { port: port.clone(), stream };
                match conn.run() {
                    Ok(()) => log::info!("{}: client disconnected", port.name),
                    Err(e) => log::warn!("{}: connection ended: {e}", port.name),
                }
                // Per the protocol: forget the client's memory and
                // eventfds, keep the device state.
                port.with_device(|d| {
                    d.dma.clear();
                    d.irqs.clear();
                });
            }
            Err(e) => log::warn!("{}: accept failed: {e}", port.name),
        }
    }
}

/// One client connection.
pub struct Connection {
    port: Arc<Port>,
    stream: UnixStream,
}

impl Connection {
    pub fn new(port: Arc<Port>, stream: UnixStream) -> Self {
        Connection { port, stream }
    }

    /// Handles messages until the client disconnects.
    pub fn run(&mut self) -> io::Result<()> {
        while let Some(msg) = socket::read_message(&mut self.stream)? {
            if !msg.header.is_request() {
                log::warn!("{}: unexpected message type {:#x}", self.port.name, msg.header.flags);
                continue;
            }
            let header = msg.header;
            let reply = self.handle(msg);
            if !header.wants_reply() {
                if let Err(e) = reply {
                    log::warn!("{}: posted command {} failed: errno {e}", self.port.name, header.command);
                }
                continue;
            }
            let mut out =
                Header { id: header.id, command: header.command, flags: flags::TYPE_REPLY, ..Header::default() };
            match reply {
                Ok(payload) => socket::write_message(&mut self.stream, out, &payload)?,
                Err(errno) => {
                    log::warn!("{}: command {} failed: errno {errno}", self.port.name, header.command);
                    out.flags |= flags::ERROR;
                    out.error = errno as u32;
                    socket::write_message(&mut self.stream, out, &[])?;
                }
            }
        }
        Ok(())
    }

    fn handle(&mut self, msg: Message) -> Reply {
        let p = Payload(&msg.payload);
        let fds = msg.fds;
        match msg.header.command {
            command::VERSION => self.version(p),
            command::DMA_MAP => self.dma_map(p, fds),
            command::DMA_UNMAP => self.dma_unmap(p),
            command::DEVICE_GET_INFO => Ok(Builder::new()
                .u32(16)
                .u32(proto::device_info::FLAG_RESET | proto::device_info::FLAG_PCI)
                .u32(NUM_REGIONS)
                .u32(NUM_INDEXES)
                .build()),
            command::DEVICE_GET_REGION_INFO => region_info(p),
            command::DEVICE_GET_IRQ_INFO => irq_info(p),
            command::DEVICE_SET_IRQS => self.set_irqs(p, fds),
            command::REGION_READ => self.region_read(p),
            command::REGION_WRITE => self.region_write(p),
            command::REGION_WRITE_MULTI => self.region_write_multi(p),
            command::DEVICE_RESET => {
                log::info!("{}: device reset", self.port.name);
                self.port.with_device(Device::reset);
                Ok(Vec::new())
            }
            command::DEVICE_FEATURE => Err(libc::ENOTTY),
            command::DEVICE_GET_REGION_IO_FDS => Err(libc::EINVAL),
            other => {
                log::warn!("{}: unknown command {other}", self.port.name);
                Err(libc::ENOSYS)
            }
        }
    }

    fn version(&mut self, p: Payload) -> Reply {
        let major = p.bytes(0, 2).map(|b| u16::from_le_bytes([b[0], b[1]])).ok_or(libc::EINVAL)?;
        let minor = p.bytes(2, 2).map(|b| u16::from_le_bytes([b[0], b[1]])).ok_or(libc::EINVAL)?;
        let caps = p.0.get(4..).unwrap_or_default();
        let caps = String::from_utf8_lossy(caps.split(|&b| b == 0).next().unwrap_or_default()).into_owned();
        log::info!("{}: client version {major}.{minor} {caps}", self.port.name);
        if major != proto::VERSION_MAJOR {
            return Err(libc::ENOTSUP);
        }
        let reply_caps = serde_json::json!({
            "capabilities": {
                "max_msg_fds": proto::MAX_MSG_FDS,
                "max_data_xfer_size": proto::MAX_DATA_XFER,
            }
        });
        let mut json = reply_caps.to_string().into_bytes();
        json.push(0);
        Ok(Builder::new().u16(proto::VERSION_MAJOR).u16(minor.min(proto::VERSION_MINOR)).bytes(&json).build())
    }

    fn dma_map(&mut self, p: Payload, mut fds: Vec<OwnedFd>) -> Reply {
        let fl = p.u32(4).ok_or(libc::EINVAL)?;
        let offset = p.u64(8).ok_or(libc::EINVAL)?;
        let iova = p.u64(16).ok_or(libc::EINVAL)?;
        let size = p.u64(24).ok_or(libc::EINVAL)?;
        let fd = (!fds.is_empty()).then(|| fds.remove(0));
        log::debug!("{}: dma_map {iova:#x}+{size:#x} flags {fl:#x} fd {}", self.port.name, fd.is_some());
        self.port
            .with_device(|d| d.dma.map(iova, size, offset, fd, fl & proto::dma::READ != 0, fl & proto::dma::WRITE != 0))
            .map_err(|e| e.raw_os_error().unwrap_or(libc::EINVAL))?;
        Ok(Vec::new())
    }

    fn dma_unmap(&mut self, p: Payload) -> Reply {
        let fl = p.u32(4).ok_or(libc::EINVAL)?;
        let iova = p.u64(8).ok_or(libc::EINVAL)?;
        let size = p.u64(16).ok_or(libc::EINVAL)?;
        log::debug!("{}: dma_unmap {iova:#x}+{size:#x} flags {fl:#x}", self.port.name);
        if fl & proto::dma::UNMAP_GET_DIRTY_BITMAP != 0 {
            return Err(libc::ENOTSUP);
        }
        let found = self.port.with_device(|d| {
            if fl & proto::dma::UNMAP_ALL != 0 {
                d.dma.clear();
                true
            } else {
                d.dma.unmap(iova, size)
            }
        });
        if !found {
            return Err(libc::ENOENT);
        }
        Ok(p.0.get(..24).unwrap_or_default().to_vec())
    }

    fn set_irqs(&mut self, p: Payload, fds: Vec<OwnedFd>) -> Reply {
        use proto::irq_set::*;
        let fl = p.u32(4).ok_or(libc::EINVAL)?;
        let index = p.u32(8).ok_or(libc::EINVAL)?;
        let start = p.u32(12).ok_or(libc::EINVAL)?;
        let count = p.u32(16).ok_or(libc::EINVAL)?;
        if index >= NUM_INDEXES || start.checked_add(count).is_none_or(|e| e > IrqLines::count(index)) {
            return Err(libc::EINVAL);
        }
        let action = match fl & ACTION_MASK_BITS {
            ACTION_MASK => IrqAction::Mask,
            ACTION_UNMASK => IrqAction::Unmask,
            ACTION_TRIGGER => IrqAction::Trigger,
            _ => return Err(libc::EINVAL),
        };
        log::debug!(
            "{}: set_irqs index {index} start {start} count {count} flags {fl:#x} fds {}",
            self.port.name,
            fds.len()
        );
        match (fl & DATA_MASK, action) {
            (DATA_EVENTFD, IrqAction::Trigger) => {
                let triggers: Vec<Option<Box<dyn Notifier>>> = if fds.is_empty() {
                    (0..count).map(|_| None).collect()
                } else if fds.len() == count as usize {
                    fds.into_iter().map(|fd| Some(Box::new(EventFd(fd)) as Box<dyn Notifier>)).collect()
                } else {
                    return Err(libc::EINVAL);
                };
                self.port.with_device(|d| d.irqs.set_triggers(index, start, triggers));
                Ok(Vec::new())
            }
            (DATA_NONE, IrqAction::Trigger) if count == 0 => {
                self.port.with_device(|d| d.irqs.disable_all(index));
                Ok(Vec::new())
            }
            (DATA_NONE | DATA_BOOL, action) => {
                let select: Vec<bool> = if fl & DATA_BOOL != 0 {
                    let data = p.bytes(HEADER_SIZE, count as usize).ok_or(libc::EINVAL)?;
                    data.iter().map(|&b| b != 0).collect()
                } else {
                    vec![true; count as usize]
                };
                let ok = self.port.with_device(|d| {
                    let level = d.mac.legacy_irq_asserted();
                    d.irqs.action(index, start, &select, action, level)
                });
                if ok {
                    Ok(Vec::new())
                } else {
                    Err(libc::EINVAL)
                }
            }
            _ => Err(libc::EINVAL),
        }
    }

    fn region_read(&mut self, p: Payload) -> Reply {
        let offset = p.u64(0).ok_or(libc::EINVAL)?;
        let region = p.u32(8).ok_or(libc::EINVAL)?;
        let count = p.u32(12).ok_or(libc::EINVAL)? as usize;
        if count > proto::MAX_DATA_XFER {
            return Err(libc::EINVAL);
        }
        let mut data = vec![0u8; count];
        self.port.with_device(|d| d.read(region, offset, &mut data)).map_err(device::AccessError::errno)?;
        Ok(Builder::new().u64(offset).u32(region).u32(count as u32).bytes(&data).build())
    }

    fn region_write(&mut self, p: Payload) -> Reply {
        let offset = p.u64(0).ok_or(libc::EINVAL)?;
        let region = p.u32(8).ok_or(libc::EINVAL)?;
        let count = p.u32(12).ok_or(libc::EINVAL)?;
        let data = p.bytes(16, count as usize).ok_or(libc::EINVAL)?;
        self.port.with_device(|d| d.write(region, offset, data)).map_err(device::AccessError::errno)?;
        Ok(Builder::new().u64(offset).u32(region).u32(count).build())
    }

    fn region_write_multi(&mut self, p: Payload) -> Reply {
        const ENTRY: usize = 24;
        let n = p.u64(0).ok_or(libc::EINVAL)?;
        for i in 0..n as usize {
            let base = 8 + i * ENTRY;
            let offset = p.u64(base).ok_or(libc::EINVAL)?;
            let region = p.u32(base + 8).ok_or(libc::EINVAL)?;
            let count = p.u32(base + 12).ok_or(libc::EINVAL)? as usize;
            let data = p.bytes(base + 16, count.min(8)).ok_or(libc::EINVAL)?;
            self.port.with_device(|d| d.write(region, offset, data)).map_err(device::AccessError::errno)?;
        }
        Ok(Builder::new().u64(n).build())
    }
}

fn region_info(p: Payload) -> Reply {
    let index = p.u32(8).ok_or(libc::EINVAL)?;
    if index >= NUM_REGIONS {
        return Err(libc::EINVAL);
    }
    let size = device::region_size(index);
    let rw = if size > 0 { proto::region_info::FLAG_READ | proto::region_info::FLAG_WRITE } else { 0 };
    Ok(Builder::new().u32(proto::region_info::SIZE).u32(rw).u32(index).u32(0).u64(size).u64(0).build())
}

fn irq_info(p: Payload) -> Reply {
    use crate::irq_lines::{INDEX_INTX, INDEX_MSI, INDEX_MSIX};
    use proto::irq_info::*;
    let index = p.u32(8).ok_or(libc::EINVAL)?;
    let fl = match index {
        INDEX_INTX => EVENTFD | MASKABLE | AUTOMASKED,
        INDEX_MSI => EVENTFD | NORESIZE,
        INDEX_MSIX => EVENTFD | MASKABLE | NORESIZE,
        i if i < NUM_INDEXES => EVENTFD,
        _ => return Err(libc::EINVAL),
    };
    Ok(Builder::new().u32(16).u32(fl).u32(index).u32(IrqLines::count(index)).build())
}
