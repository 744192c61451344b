// SPDX-License-Identifier: GPL-2.0

//! Guest memory as the device sees it (bus-master DMA).
//!
//! QEMU hands the server one `VFIO_USER_DMA_MAP` per RAM section with a file
//! descriptor to mmap; [`DmaMap`] keeps those mappings. Tests use
//! [`VecMemory`].

use std::fmt;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Why a DMA access failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DmaFault {
    /// No guest memory at that address (or not writable, for a write).
    Unmapped,
    /// PCI COMMAND.BME is clear: the function may not master the bus.
    NoBusMaster,
}

/// A failed DMA access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DmaError {
    pub addr: u64,
    pub len: usize,
    pub fault: DmaFault,
}

impl DmaError {
    pub fn unmapped(addr: u64, len: usize) -> Self {
        DmaError { addr, len, fault: DmaFault::Unmapped }
    }
}

impl fmt::Display for DmaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.fault {
            DmaFault::Unmapped => write!(f, "DMA to unmapped guest memory {:#x}+{:#x}", self.addr, self.len),
            DmaFault::NoBusMaster => {
                write!(f, "DMA {:#x}+{:#x} refused: bus mastering is off (PCI COMMAND.BME)", self.addr, self.len)
            }
        }
    }
}

impl std::error::Error for DmaError {}

pub trait GuestMemory {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), DmaError>;
    fn write(&self, addr: u64, data: &[u8]) -> Result<(), DmaError>;

    fn read_u32(&self, addr: u64) -> Result<u32, DmaError> {
        let mut b = [0u8; 4];
        self.read(addr, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    fn read_u64(&self, addr: u64) -> Result<u64, DmaError> {
        let mut b = [0u8; 8];
        self.read(addr, &mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    fn write_u32(&self, addr: u64, val: u32) -> Result<(), DmaError> {
        self.write(addr, &val.to_le_bytes())
    }
}

/// One mmapped DMA window.
struct Mapping {
    iova: u64,
    size: u64,
    host: *mut u8,
    writable: bool,
    /// Kept open for the lifetime of the mapping.
    _fd: OwnedFd,
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: host/size come from a successful mmap in DmaMap::map.
        unsafe { libc::munmap(self.host.cast(), self.size as usize) };
    }
}

/// Guest RAM windows announced by the client, behind the function's bus
/// master enable: as on PCI, nothing reaches memory while COMMAND.BME is clear
/// (the device sets it with [`DmaMap::set_bus_master`] on every config write).
#[derive(Default)]
pub struct DmaMap {
    maps: Vec<Mapping>,
    /// Windows announced without a file descriptor: known but unreachable.
    unmappable: Vec<(u64, u64)>,
    bus_master: bool,
    /// Accesses refused because bus mastering was off.
    refused: AtomicU64,
}

// SAFETY: the raw pointers refer to shared mappings owned by the DmaMap; all
// access goes through &self methods that copy bytes.
unsafe impl Send for DmaMap {}
unsafe impl Sync for DmaMap {}

impl fmt::Debug for DmaMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let maps: Vec<_> = self.maps.iter().map(|m| (m.iova, m.size, m.writable)).collect();
        f.debug_struct("DmaMap")
            .field("maps", &maps)
            .field("unmappable", &self.unmappable)
            .field("bus_master", &self.bus_master)
            .finish()
    }
}

impl DmaMap {
    pub fn new() -> Self {
        Self::default()
    }

    /// Maps `size` bytes of `fd` at file offset `offset` as guest addresses
    /// `iova..iova+size`. Without an fd the window is only recorded.
    pub fn map(
        &mut self,
        iova: u64,
        size: u64,
        offset: u64,
        fd: Option<OwnedFd>,
        readable: bool,
        writable: bool,
    ) -> std::io::Result<()> {
        let overlaps = |a: u64, s: u64| iova < a.saturating_add(s) && a < iova.saturating_add(size);
        if self.maps.iter().any(|m| overlaps(m.iova, m.size)) || self.unmappable.iter().any(|&(a, s)| overlaps(a, s)) {
            return Err(std::io::Error::from_raw_os_error(libc::EEXIST));
        }
        let Some(fd) = fd else {
            self.unmappable.push((iova, size));
            return Ok(());
        };
        let mut prot = 0;
        if readable {
            prot |= libc::PROT_READ;
        }
        if writable {
            prot |= libc::PROT_WRITE;
        }
        // SAFETY: a fresh shared mapping of a file the client gave us; the
        // kernel validates fd, size and offset.
        let host = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                size as usize,
                prot,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                offset as libc::off_t,
            )
        };
        if host == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        self.maps.push(Mapping { iova, size, host: host.cast(), writable, _fd: fd });
        Ok(())
    }

    /// Removes the window starting at `iova` (exact match as the protocol
    /// requires). Returns false if no such window exists.
    pub fn unmap(&mut self, iova: u64, size: u64) -> bool {
        let before = self.maps.len() + self.unmappable.len();
        self.maps.retain(|m| !(m.iova == iova && m.size == size));
        self.unmappable.retain(|&(a, s)| !(a == iova && s == size));
        before != self.maps.len() + self.unmappable.len()
    }

    pub fn clear(&mut self) {
        self.maps.clear();
        self.unmappable.clear();
    }

    pub fn windows(&self) -> usize {
        self.maps.len()
    }

    /// Follows PCI COMMAND.BME. Returns true if it changed.
    pub fn set_bus_master(&mut self, on: bool) -> bool {
        std::mem::replace(&mut self.bus_master, on) != on
    }

    pub fn bus_master(&self) -> bool {
        self.bus_master
    }

    /// DMA accesses refused so far because bus mastering was off.
    pub fn refused(&self) -> u64 {
        self.refused.load(Ordering::Relaxed)
    }

    fn locate(&self, addr: u64, len: usize, write: bool) -> Result<*mut u8, DmaError> {
        if !self.bus_master {
            self.refused.fetch_add(1, Ordering::Relaxed);
            return Err(DmaError { addr, len, fault: DmaFault::NoBusMaster });
        }
        let err = DmaError::unmapped(addr, len);
        let end = addr.checked_add(len as u64).ok_or(err)?;
        let m = self.maps.iter().find(|m| addr >= m.iova && end <= m.iova + m.size).ok_or(err)?;
        if write && !m.writable {
            return Err(err);
        }
        // SAFETY: addr - iova + len <= size, checked above.
        Ok(unsafe { m.host.add((addr - m.iova) as usize) })
    }
}

impl GuestMemory for DmaMap {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), DmaError> {
        let src = self.locate(addr, buf.len(), false)?;
        // SAFETY: src..src+len lies inside a live mapping. Guest memory may
        // change under us; we only copy bytes out, like a DMA engine.
        unsafe { std::ptr::copy_nonoverlapping(src, buf.as_mut_ptr(), buf.len()) };
        Ok(())
    }

    fn write(&self, addr: u64, data: &[u8]) -> Result<(), DmaError> {
        let dst = self.locate(addr, data.len(), true)?;
        // SAFETY: as in read; the mapping is writable.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), dst, data.len()) };
        Ok(())
    }
}

/// A flat, zero-based guest memory for tests.
#[derive(Debug)]
pub struct VecMemory(Mutex<Vec<u8>>);

impl VecMemory {
    pub fn new(size: usize) -> Self {
        VecMemory(Mutex::new(vec![0; size]))
    }
}

impl GuestMemory for VecMemory {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), DmaError> {
        let mem = self.0.lock().unwrap();
        let a = addr as usize;
        let src = mem.get(a..a + buf.len()).ok_or(DmaError::unmapped(addr, buf.len()))?;
        buf.copy_from_slice(src);
        Ok(())
    }

    fn write(&self, addr: u64, data: &[u8]) -> Result<(), DmaError> {
        let mut mem = self.0.lock().unwrap();
        let a = addr as usize;
        let dst = mem.get_mut(a..a + data.len()).ok_or(DmaError::unmapped(addr, data.len()))?;
        dst.copy_from_slice(data);
        Ok(())
    }
}

/// No guest memory at all (before the client maps any).
#[derive(Debug, Default)]
pub struct NoMemory;

impl GuestMemory for NoMemory {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), DmaError> {
        Err(DmaError::unmapped(addr, buf.len()))
    }
    fn write(&self, addr: u64, data: &[u8]) -> Result<(), DmaError> {
        Err(DmaError::unmapped(addr, data.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dma_map_over_memfd() {
        // SAFETY: plain syscalls on an fd we own.
        let fd = unsafe { libc::memfd_create(c"dma-test".as_ptr(), 0) };
        assert!(fd >= 0);
        assert_eq!(unsafe { libc::ftruncate(fd, 8192) }, 0);
        // SAFETY: fd is a fresh descriptor we own.
        let fd = unsafe { <OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd) };
        let mut map = DmaMap::new();
        map.map(0x10_0000, 8192, 0, Some(fd), true, true).unwrap();
        // Bus mastering off (the reset state): nothing gets through.
        let e = map.write_u32(0x10_0004, 0xdead_beef).unwrap_err();
        assert_eq!(e.fault, DmaFault::NoBusMaster);
        assert_eq!(map.refused(), 1);
        assert!(map.set_bus_master(true));
        map.write_u32(0x10_0004, 0xdead_beef).unwrap();
        assert_eq!(map.read_u32(0x10_0004).unwrap(), 0xdead_beef);
        assert!(map.read_u32(0x10_1FFE).is_err(), "straddles the end");
        assert!(map.read_u32(0x0).is_err());
        assert!(map.unmap(0x10_0000, 8192));
        assert!(map.read_u32(0x10_0004).is_err());
    }
}
