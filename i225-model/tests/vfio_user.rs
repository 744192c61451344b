// SPDX-License-Identifier: GPL-2.0

//! End-to-end tests: the real server on a UNIX socket, driven by a tiny
//! vfio-user client written here (what QEMU's vfio-user-pci does).

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::time::Duration;

mod common;

use common::{wait_for, Sockets, MAC0, MAC1};
use i225_model::regs;
use i225_model::vfio_user::proto::{command, flags, Builder, Header};
use i225_model::vfio_user::{self, socket};

/// Starts `n` ports cabled together, each served on its own socket.
fn start(n: usize) -> Sockets {
    let paths = common::cabled_ports(n, "test")
        .into_iter()
        .enumerate()
        .map(|(i, port)| {
            let path = common::socket_path(&format!("p{i}"));
            let listener = vfio_user::bind(&path).unwrap();
            std::thread::spawn(move || vfio_user::serve(listener, port));
            path
        })
        .collect();
    Sockets(paths)
}

struct Client {
    sock: UnixStream,
    next_id: u16,
}

impl Client {
    fn connect(path: &PathBuf) -> Client {
        let sock = UnixStream::connect(path).unwrap();
        sock.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        Client { sock, next_id: 1 }
    }

    fn send(&mut self, cmd: u16, payload: &[u8], fds: &[RawFd], fl: u32) -> u16 {
        let id = self.next_id;
        self.next_id += 1;
        let h = Header { id, command: cmd, flags: fl, ..Header::default() };
        socket::write_message_with_fds(&mut self.sock, h, payload, fds).unwrap();
        id
    }

    /// Sends a request and returns the reply (header, payload).
    fn request_fds(&mut self, cmd: u16, payload: &[u8], fds: &[RawFd]) -> (Header, Vec<u8>) {
        let id = self.send(cmd, payload, fds, 0);
        let reply = socket::read_message(&mut self.sock).unwrap().expect("reply");
        assert_eq!(reply.header.id, id, "replies arrive in order");
        assert_eq!(reply.header.command, cmd);
        assert_eq!(reply.header.flags & flags::TYPE_MASK, flags::TYPE_REPLY);
        (reply.header, reply.payload)
    }

    fn request(&mut self, cmd: u16, payload: &[u8]) -> Vec<u8> {
        let (h, p) = self.request_fds(cmd, payload, &[]);
        assert_eq!(h.flags & flags::ERROR, 0, "command {cmd} failed with errno {}", h.error);
        p
    }

    fn version(&mut self) -> (u16, u16, serde_json::Value) {
        let mut caps = br#"{"capabilities":{"max_msg_fds":16,"max_data_xfer_size":1048576}}"#.to_vec();
        caps.push(0);
        let r = self.request(command::VERSION, &Builder::new().u16(0).u16(1).bytes(&caps).build());
        let json = std::str::from_utf8(&r[4..r.len() - 1]).unwrap();
        assert_eq!(*r.last().unwrap(), 0, "NUL-terminated");
        (u16::from_le_bytes([r[0], r[1]]), u16::from_le_bytes([r[2], r[3]]), serde_json::from_str(json).unwrap())
    }

    fn read(&mut self, region: u32, offset: u64, count: u32) -> Vec<u8> {
        let r = self.request(command::REGION_READ, &Builder::new().u64(offset).u32(region).u32(count).build());
        assert_eq!(u32::from_le_bytes(r[12..16].try_into().unwrap()), count);
        r[16..].to_vec()
    }

    fn read32(&mut self, off: u32) -> u32 {
        u32::from_le_bytes(self.read(0, off.into(), 4).try_into().unwrap())
    }

    /// A posted BAR0 write, as QEMU sends them.
    fn write32(&mut self, off: u32, val: u32) {
        let p = Builder::new().u64(off.into()).u32(0).u32(4).u32(val).build();
        self.send(command::REGION_WRITE, &p, &[], flags::NO_REPLY);
    }

    fn region_info(&mut self, index: u32) -> (u32, u64) {
        let r = self.request(
            command::DEVICE_GET_REGION_INFO,
            &Builder::new().u32(32).u32(0).u32(index).u32(0).u64(0).u64(0).build(),
        );
        (u32::from_le_bytes(r[4..8].try_into().unwrap()), u64::from_le_bytes(r[16..24].try_into().unwrap()))
    }
}

/// Guest RAM: a memfd shared with the server through DMA_MAP.
struct GuestRam {
    fd: OwnedFd,
    base: *mut u8,
    size: usize,
}

impl GuestRam {
    fn new(size: usize) -> GuestRam {
        // SAFETY: plain syscalls; the mapping lives as long as GuestRam.
        unsafe {
            let fd = common::memfd(c"guest-ram", size as u64);
            let base = libc::mmap(
                std::ptr::null_mut(),
                size,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                0,
            );
            assert_ne!(base, libc::MAP_FAILED);
            GuestRam { fd, base: base.cast(), size }
        }
    }

    fn write(&self, addr: u64, data: &[u8]) {
        assert!(addr as usize + data.len() <= self.size);
        // SAFETY: bounds checked above.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), self.base.add(addr as usize), data.len()) };
    }

    fn read(&self, addr: u64, len: usize) -> Vec<u8> {
        assert!(addr as usize + len <= self.size);
        let mut v = vec![0u8; len];
        // SAFETY: bounds checked above; volatile-ish copy of shared memory.
        unsafe { std::ptr::copy_nonoverlapping(self.base.add(addr as usize), v.as_mut_ptr(), len) };
        v
    }

    fn map_into(&self, c: &mut Client) {
        let p = Builder::new().u32(32).u32(3).u64(0).u64(0).u64(self.size as u64).build();
        let (h, _) = c.request_fds(command::DMA_MAP, &p, &[self.fd.as_raw_fd()]);
        assert_eq!(h.flags & flags::ERROR, 0);
    }
}

impl Drop for GuestRam {
    fn drop(&mut self) {
        // SAFETY: base/size come from the mmap in GuestRam::new.
        unsafe { libc::munmap(self.base.cast(), self.size) };
    }
}

fn eventfd() -> OwnedFd {
    // SAFETY: creates a new fd we own.
    unsafe { OwnedFd::from_raw_fd(libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC)) }
}

fn eventfd_count(fd: &OwnedFd) -> u64 {
    let mut v = 0u64;
    // SAFETY: reading 8 bytes into a u64 from a non-blocking eventfd.
    let n = unsafe { libc::read(fd.as_raw_fd(), (&mut v as *mut u64).cast(), 8) };
    if n == 8 {
        v
    } else {
        0
    }
}

#[test]
fn handshake_regions_and_status() {
    let paths = start(1);
    let mut c = Client::connect(&paths[0]);
    let (major, minor, caps) = c.version();
    assert_eq!((major, minor), (0, 1));
    assert!(caps["capabilities"]["max_msg_fds"].as_u64().unwrap() >= 1);

    let info = c.request(command::DEVICE_GET_INFO, &Builder::new().u32(16).u32(0).u32(0).u32(0).build());
    let dw = |i: usize| u32::from_le_bytes(info[4 * i..4 * i + 4].try_into().unwrap());
    assert_eq!(dw(1), 3, "RESET | PCI");
    assert!(dw(2) >= 8, "at least 8 regions");
    assert!(dw(3) >= 3, "at least 3 irq indexes");

    assert_eq!(c.region_info(0), (3, 1 << 20));
    assert_eq!(c.region_info(1).1, 0);
    assert_eq!(c.region_info(3), (3, 16 << 10));
    assert_eq!(c.region_info(7), (3, 4096));

    let irq = c.request(command::DEVICE_GET_IRQ_INFO, &Builder::new().u32(16).u32(0).u32(2).u32(0).build());
    assert_eq!(u32::from_le_bytes(irq[12..16].try_into().unwrap()), 5, "5 MSI-X vectors");
    assert_ne!(u32::from_le_bytes(irq[4..8].try_into().unwrap()) & 2, 0, "MSI-X maskable");

    let cfg = c.read(7, 0, 4);
    assert_eq!(u32::from_le_bytes(cfg.try_into().unwrap()), 0x15F3_8086);

    // A lone port has an ideal link partner: 2.5G full duplex.
    wait_for("link", || c.read32(regs::STATUS) & 2 != 0);
    assert_eq!(c.read32(regs::STATUS), 0x0048_0083);

    // Posted writes get no reply: the next reply must match the next read.
    c.write32(regs::ral(1), 0xAABB_CCDD);
    c.write32(regs::ral(2), 0x1122_3344);
    assert_eq!(c.read32(regs::ral(1)), 0xAABB_CCDD);
    assert_eq!(c.read32(regs::ral(2)), 0x1122_3344);

    // Errors carry an errno and keep the stream in sync.
    let (h, p) = c.request_fds(99, &[], &[]);
    assert_ne!(h.flags & flags::ERROR, 0);
    assert_eq!(h.error, libc::ENOSYS as u32);
    assert!(p.is_empty());
    let (h, _) = c.request_fds(command::REGION_READ, &Builder::new().u64(1 << 20).u32(0).u32(4).build(), &[]);
    assert_eq!(h.error, libc::EINVAL as u32);
    assert_eq!(c.read32(regs::CTRL) & regs::ctrl::RST, 0);
}

#[test]
fn reset_reload_over_the_socket() {
    let paths = start(1);
    let mut c = Client::connect(&paths[0]);
    c.version();
    c.write32(regs::RAH0, 0);
    let ctrl = c.read32(regs::CTRL);
    c.write32(regs::CTRL, ctrl | regs::ctrl::RST);
    assert_eq!(c.read32(regs::CTRL) & regs::ctrl::RST, 0);
    assert_eq!(c.read32(regs::RAH0), 0x8000_0100);
    assert_ne!(c.read32(regs::EECD) & regs::eecd::AUTO_RD, 0);
    // VFIO_USER_DEVICE_RESET is accepted.
    c.request(command::DEVICE_RESET, &[]);
}

/// Programs MSI-X mode the way igc does (4 queue pairs on vectors 1..4).
fn setup_msix(c: &mut Client, fds: &[OwnedFd]) {
    let raw: Vec<RawFd> = fds.iter().map(|f| f.as_raw_fd()).collect();
    let p = Builder::new().u32(20).u32(4 | 32).u32(2).u32(0).u32(raw.len() as u32).build();
    let (h, _) = c.request_fds(command::DEVICE_SET_IRQS, &p, &raw);
    assert_eq!(h.flags & flags::ERROR, 0);
    c.write32(regs::GPIE, 0xC000_0011);
    c.write32(regs::IVAR_MISC, 0x8000);
    c.write32(regs::IVAR0, 0x8282_8181);
    c.write32(regs::IVAR0 + 4, 0x8484_8383);
    c.write32(regs::EIAC, 0x1F);
    c.write32(regs::EIAM, 0x1F);
    c.write32(regs::EIMS, 0x1F);
    c.write32(regs::IMS, 0x5008_0004);
}

#[test]
fn frame_crosses_the_wire_between_two_ports() {
    let paths = start(2);
    let mut tx = Client::connect(&paths[0]);
    let mut rx = Client::connect(&paths[1]);
    tx.version();
    rx.version();
    let ram_tx = GuestRam::new(1 << 20);
    let ram_rx = GuestRam::new(1 << 20);
    ram_tx.map_into(&mut tx);
    ram_rx.map_into(&mut rx);
    wait_for("link on both ports", || tx.read32(regs::STATUS) & 2 != 0 && rx.read32(regs::STATUS) & 2 != 0);

    let tx_fds: Vec<OwnedFd> = (0..5).map(|_| eventfd()).collect();
    let rx_fds: Vec<OwnedFd> = (0..5).map(|_| eventfd()).collect();
    setup_msix(&mut tx, &tx_fds);
    setup_msix(&mut rx, &rx_fds);

    // Receiver: RX queue 0, 8 descriptors of 2 KiB at 0x1000.
    for i in 0..8u64 {
        ram_rx.write(0x1000 + 16 * i, &(0x10000 + 0x800 * i).to_le_bytes());
    }
    rx.write32(regs::rxq(0, regs::RXDCTL), 0);
    rx.write32(regs::rxq(0, regs::RDBAL), 0x1000);
    rx.write32(regs::rxq(0, regs::RDLEN), 8 * 16);
    rx.write32(regs::rxq(0, regs::RDH), 0);
    rx.write32(regs::rxq(0, regs::RDT), 0);
    rx.write32(regs::rxq(0, regs::SRRCTL), 0x0200_0402);
    rx.write32(regs::rxq(0, regs::RXDCTL), 0x0204_0808);
    rx.write32(regs::rxq(0, regs::RDT), 7);
    rx.write32(regs::RCTL, 0x0400_8022);
    // BAR writes are posted: flush them, as the driver's wrfl() does, so the
    // receiver is enabled before the sender (another socket) transmits.
    rx.read32(regs::STATUS);

    // Sender: one 100-byte frame to the receiver's MAC.
    let mut frame = vec![0u8; 100];
    frame[..6].copy_from_slice(&MAC1);
    frame[6..12].copy_from_slice(&MAC0);
    frame[12..14].copy_from_slice(&0x88B5u16.to_be_bytes());
    frame[14..].iter_mut().enumerate().for_each(|(i, b)| *b = i as u8);
    ram_tx.write(0x20000, &frame);
    let mut desc = [0u8; 16];
    desc[..8].copy_from_slice(&0x20000u64.to_le_bytes());
    let cmd = 100u32 | 0x0300_0000 | 0x0800_0000 | 0x2000_0000 | 0x0030_0000; // EOP|IFCS, RS, DEXT, DATA
    desc[8..12].copy_from_slice(&cmd.to_le_bytes());
    ram_tx.write(0x1000, &desc);
    tx.write32(regs::TCTL, 0x0103_F0FA);
    tx.write32(regs::txq(0, regs::TXDCTL), 0);
    tx.write32(regs::txq(0, regs::TDBAL), 0x1000);
    tx.write32(regs::txq(0, regs::TDLEN), 8 * 16);
    tx.write32(regs::txq(0, regs::TDH), 0);
    tx.write32(regs::txq(0, regs::TDT), 0);
    tx.write32(regs::txq(0, regs::TXDCTL), 0x0210_0108);
    tx.write32(regs::txq(0, regs::TDT), 1);

    // TX: DD written back, TDH advanced, TX vector (1) signalled.
    wait_for("TX write-back", || ram_tx.read(0x100C, 4)[0] & 1 == 1);
    assert_eq!(tx.read32(regs::txq(0, regs::TDH)), 1);
    wait_for("TX interrupt", || eventfd_count(&tx_fds[1]) > 0);

    // RX: length written back, data in the buffer, RX vector (1) signalled.
    wait_for("RX write-back", || u16::from_le_bytes(ram_rx.read(0x100C, 2).try_into().unwrap()) != 0);
    assert_eq!(u16::from_le_bytes(ram_rx.read(0x100C, 2).try_into().unwrap()), 100);
    assert_eq!(ram_rx.read(0x1008, 1)[0] & 3, 3, "DD | EOP");
    assert_eq!(ram_rx.read(0x10000, 100), frame);
    wait_for("RX interrupt", || eventfd_count(&rx_fds[1]) > 0);
    assert_eq!(rx.read32(i225_model::stats::GPRC), 1);
    assert_eq!(tx.read32(i225_model::stats::GPTC), 1);

    // Link changes reach the "other" vector: power the receiver's PHY down.
    // (Enabling IMS already signalled the LSC of the initial link-up.)
    tx.read32(regs::ICR);
    eventfd_count(&tx_fds[0]);
    tx.write32(regs::EIMS, 1);
    let mdic_write = regs::mdic::OP_WRITE | 0x1800; // register 0 (BMCR) = AN enable | power down
    rx.write32(regs::MDIC, mdic_write);
    wait_for("LSC on the sender", || eventfd_count(&tx_fds[0]) > 0);
    assert_eq!(tx.read32(regs::STATUS) & 2, 0);
    assert_ne!(tx.read32(regs::ICR) & regs::icr::LSC, 0);
}
