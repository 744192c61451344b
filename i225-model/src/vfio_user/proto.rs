// SPDX-License-Identifier: GPL-2.0

//! vfio-user wire format: the 16-byte message header, command numbers and
//! the flag bits of the payload structures we use.

/// Protocol version spoken (QEMU proposes 0.1).
pub const VERSION_MAJOR: u16 = 0;
pub const VERSION_MINOR: u16 = 1;

pub const HEADER_SIZE: usize = 16;
/// Largest REGION_READ/WRITE data we accept (also advertised).
pub const MAX_DATA_XFER: usize = 1 << 20;
/// Largest number of fds we accept in one message (also advertised).
pub const MAX_MSG_FDS: usize = 16;

pub mod command {
    pub const VERSION: u16 = 1;
    pub const DMA_MAP: u16 = 2;
    pub const DMA_UNMAP: u16 = 3;
    pub const DEVICE_GET_INFO: u16 = 4;
    pub const DEVICE_GET_REGION_INFO: u16 = 5;
    pub const DEVICE_GET_REGION_IO_FDS: u16 = 6;
    pub const DEVICE_GET_IRQ_INFO: u16 = 7;
    pub const DEVICE_SET_IRQS: u16 = 8;
    pub const REGION_READ: u16 = 9;
    pub const REGION_WRITE: u16 = 10;
    pub const DEVICE_RESET: u16 = 13;
    pub const REGION_WRITE_MULTI: u16 = 15;
    pub const DEVICE_FEATURE: u16 = 16;
}

pub mod flags {
    pub const TYPE_MASK: u32 = 0xF;
    pub const TYPE_REQUEST: u32 = 0;
    pub const TYPE_REPLY: u32 = 1;
    pub const NO_REPLY: u32 = 1 << 4;
    pub const ERROR: u32 = 1 << 5;
}

pub mod dma {
    pub const READ: u32 = 1 << 0;
    pub const WRITE: u32 = 1 << 1;
    pub const UNMAP_GET_DIRTY_BITMAP: u32 = 1 << 0;
    pub const UNMAP_ALL: u32 = 1 << 1;
}

pub mod device_info {
    pub const FLAG_RESET: u32 = 1 << 0;
    pub const FLAG_PCI: u32 = 1 << 1;
}

pub mod region_info {
    pub const FLAG_READ: u32 = 1 << 0;
    pub const FLAG_WRITE: u32 = 1 << 1;
    pub const SIZE: u32 = 32;
}

pub mod irq_info {
    pub const EVENTFD: u32 = 1 << 0;
    pub const MASKABLE: u32 = 1 << 1;
    pub const AUTOMASKED: u32 = 1 << 2;
    pub const NORESIZE: u32 = 1 << 3;
}

pub mod irq_set {
    pub const DATA_NONE: u32 = 1 << 0;
    pub const DATA_BOOL: u32 = 1 << 1;
    pub const DATA_EVENTFD: u32 = 1 << 2;
    pub const DATA_MASK: u32 = 0x7;
    pub const ACTION_MASK: u32 = 1 << 3;
    pub const ACTION_UNMASK: u32 = 1 << 4;
    pub const ACTION_TRIGGER: u32 = 1 << 5;
    pub const ACTION_MASK_BITS: u32 = 0x38;
    /// Fixed part of the payload before the data array.
    pub const HEADER_SIZE: usize = 20;
}

/// The message header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Header {
    pub id: u16,
    pub command: u16,
    /// Whole message size, header included.
    pub size: u32,
    pub flags: u32,
    pub error: u32,
}

impl Header {
    pub fn parse(b: &[u8; HEADER_SIZE]) -> Header {
        Header {
            id: u16::from_le_bytes([b[0], b[1]]),
            command: u16::from_le_bytes([b[2], b[3]]),
            size: u32::from_le_bytes(b[4..8].try_into().unwrap()),
            flags: u32::from_le_bytes(b[8..12].try_into().unwrap()),
            error: u32::from_le_bytes(b[12..16].try_into().unwrap()),
        }
    }

    pub fn to_bytes(self) -> [u8; HEADER_SIZE] {
        let mut b = [0u8; HEADER_SIZE];
        b[0..2].copy_from_slice(&self.id.to_le_bytes());
        b[2..4].copy_from_slice(&self.command.to_le_bytes());
        b[4..8].copy_from_slice(&self.size.to_le_bytes());
        b[8..12].copy_from_slice(&self.flags.to_le_bytes());
        b[12..16].copy_from_slice(&self.error.to_le_bytes());
        b
    }

    pub fn is_request(&self) -> bool {
        self.flags & flags::TYPE_MASK == flags::TYPE_REQUEST
    }

    pub fn wants_reply(&self) -> bool {
        self.flags & flags::NO_REPLY == 0
    }
}

/// Little-endian field access on a payload, with bounds checks.
#[derive(Clone, Copy, Debug)]
pub struct Payload<'a>(pub &'a [u8]);

impl Payload<'_> {
    pub fn u32(&self, off: usize) -> Option<u32> {
        Some(u32::from_le_bytes(self.0.get(off..off + 4)?.try_into().ok()?))
    }
    pub fn u64(&self, off: usize) -> Option<u64> {
        Some(u64::from_le_bytes(self.0.get(off..off + 8)?.try_into().ok()?))
    }
    pub fn bytes(&self, off: usize, len: usize) -> Option<&[u8]> {
        self.0.get(off..off.checked_add(len)?)
    }
}

/// Builds a little-endian payload.
#[derive(Debug, Default)]
pub struct Builder(pub Vec<u8>);

impl Builder {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn u16(mut self, v: u16) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub fn u32(mut self, v: u32) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub fn u64(mut self, v: u64) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub fn bytes(mut self, b: &[u8]) -> Self {
        self.0.extend_from_slice(b);
        self
    }
    pub fn build(self) -> Vec<u8> {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trip() {
        let h = Header { id: 7, command: command::REGION_READ, size: 32, flags: flags::NO_REPLY, error: 0 };
        assert_eq!(Header::parse(&h.to_bytes()), h);
        assert!(h.is_request());
        assert!(!h.wants_reply());
    }
}
