// SPDX-License-Identifier: GPL-2.0

//! A port cabled to a host TAP device instead of the other port.
//!
//! [`PacketEnd`] is the far end of a port's cable over a file descriptor
//! that carries one Ethernet frame (without FCS) per read and per write: a
//! TAP device opened with `IFF_TAP | IFF_NO_PI` ([`Tap`]), or in tests one
//! end of a datagram socket pair. Frames the guest transmits are written to
//! the descriptor. A reader thread takes frames from it, notes the host time
//! of their arrival and hands them to the port's worker exactly as frames
//! from the wire, so they pass the same filters, get the RX timestamp of the
//! port's own clock at that instant and are counted the same way.
//!
//! The link partner is ideal and present while the device is attached and
//! the cable is not unplugged (`cable`, `flap`); the TAP's carrier follows
//! the port's link, so the host sees the guest's interface go down.

use std::fmt;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crate::packet::ETH_ZLEN;
use crate::phy::{Abilities, Partner};
use crate::ptp::TimeSource;
use crate::wire::{FarEnd, Frame, PortEvent};

/// How long the reader waits for a frame before it checks for shutdown.
const POLL_TIMEOUT_MS: libc::c_int = 100;
/// Larger than any frame a TAP without offloads hands out.
const MAX_FRAME: usize = 65536;

/// A host TAP network device (`/dev/net/tun`, `IFF_TAP | IFF_NO_PI`). The
/// device exists as long as this descriptor is open, unless it was made
/// persistent beforehand (`ip tuntap add`), in which case it is attached.
#[derive(Debug)]
pub struct Tap {
    fd: OwnedFd,
    name: String,
}

impl Tap {
    /// Creates or attaches TAP device `name`. Needs CAP_NET_ADMIN unless
    /// the device is persistent and owned by the caller. The error names
    /// the device, the failing step and the errno.
    pub fn open(name: &str) -> io::Result<Tap> {
        let fail = |what: &str, e: io::Error| {
            let hint = match e.raw_os_error() {
                Some(libc::EPERM) | Some(libc::EACCES) => " (creating a TAP device needs CAP_NET_ADMIN)",
                Some(libc::EBUSY) => " (the device is in use by another process)",
                _ => "",
            };
            io::Error::new(e.kind(), format!("cannot attach TAP device {name:?}: {what}: {e}{hint}"))
        };
        if name.is_empty() || name.len() >= libc::IFNAMSIZ || name.contains(['/', ' ', '\0']) {
            return Err(fail("bad interface name", io::Error::from_raw_os_error(libc::EINVAL)));
        }
        // SAFETY: a plain open(2) of a NUL-terminated path.
        let fd = unsafe { libc::open(c"/dev/net/tun".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) };
        if fd < 0 {
            return Err(fail("open /dev/net/tun", io::Error::last_os_error()));
        }
        // SAFETY: fd is a fresh descriptor we own.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        // SAFETY: ifreq is plain old data; all zeroes is a valid value.
        let mut req: libc::ifreq = unsafe { std::mem::zeroed() };
        for (dst, &src) in req.ifr_name.iter_mut().zip(name.as_bytes()) {
            *dst = src as libc::c_char;
        }
        req.ifr_ifru.ifru_flags = (libc::IFF_TAP | libc::IFF_NO_PI) as libc::c_short;
        // SAFETY: TUNSETIFF reads and writes the ifreq we pass.
        if unsafe { libc::ioctl(fd.as_raw_fd(), libc::TUNSETIFF, &mut req) } < 0 {
            return Err(fail("ioctl TUNSETIFF", io::Error::last_os_error()));
        }
        let name: String = req.ifr_name.iter().take_while(|&&c| c != 0).map(|&c| char::from(c as u8)).collect();
        Ok(Tap { fd, name })
    }

    /// The interface name the kernel gave the device.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl AsFd for Tap {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

/// A descriptor that carries one frame per read and write.
pub trait PacketIo: AsFd + Send + Sync + 'static {
    /// Shows the host side whether the link is up (a TAP's carrier).
    fn set_carrier(&self, _up: bool) {}
}

impl PacketIo for Tap {
    fn set_carrier(&self, up: bool) {
        let on = libc::c_int::from(up);
        // SAFETY: TUNSETCARRIER reads the int we pass.
        if unsafe { libc::ioctl(self.fd.as_raw_fd(), libc::TUNSETCARRIER, &on) } < 0 {
            log::debug!("{}: TUNSETCARRIER: {}", self.name, io::Error::last_os_error());
        }
    }
}

/// Any packet descriptor (a SOCK_SEQPACKET socket pair in tests).
impl PacketIo for OwnedFd {}

/// Frames through a [`PacketEnd`].
#[derive(Debug, Default)]
pub struct PacketCounters {
    /// Frames read from the descriptor and handed to the port.
    pub rx_frames: AtomicU64,
    /// Frames read while the cable was unplugged, dropped.
    pub rx_dropped: AtomicU64,
    /// Frames written to the descriptor.
    pub tx_frames: AtomicU64,
    /// Frames the descriptor refused (e.g. EIO while the TAP is down).
    pub tx_errors: AtomicU64,
}

#[derive(Debug)]
struct Shared<I> {
    io: I,
    label: String,
    connected: AtomicBool,
    /// This port's PHY state as last published.
    offer: Mutex<Option<Abilities>>,
    stop: AtomicBool,
    counters: PacketCounters,
}

impl<I: PacketIo> Shared<I> {
    fn update_carrier(&self) {
        let offer = self.offer.lock().unwrap();
        self.io.set_carrier(self.connected.load(Ordering::SeqCst) && offer.is_some());
    }
}

/// The far end of a port's cable over a frame descriptor (see the module
/// documentation).
pub struct PacketEnd<I: PacketIo> {
    shared: Arc<Shared<I>>,
    partner: Abilities,
    events: Sender<PortEvent>,
    reader: Option<JoinHandle<()>>,
}

impl<I: PacketIo> fmt::Debug for PacketEnd<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PacketEnd").field("label", &self.shared.label).finish()
    }
}

impl<I: PacketIo> PacketEnd<I> {
    /// Attaches a port (its event channel `events`) to `io`, with an ideal
    /// link partner advertising `partner`. `clock` stamps arrivals.
    pub fn new(
        io: I,
        label: String,
        partner: Abilities,
        events: Sender<PortEvent>,
        clock: Arc<dyn TimeSource>,
    ) -> io::Result<Self> {
        set_nonblocking(io.as_fd())?;
        let shared = Arc::new(Shared {
            io,
            label,
            connected: AtomicBool::new(true),
            offer: Mutex::new(None),
            stop: AtomicBool::new(false),
            counters: PacketCounters::default(),
        });
        let reader = {
            let shared = shared.clone();
            let events = events.clone();
            std::thread::Builder::new()
                .name(format!("{}-rx", shared.label))
                .spawn(move || read_frames(&shared, &events, clock.as_ref()))?
        };
        Ok(PacketEnd { shared, partner, events, reader: Some(reader) })
    }

    pub fn counters(&self) -> &PacketCounters {
        &self.shared.counters
    }

    pub fn io(&self) -> &I {
        &self.shared.io
    }
}

impl<I: PacketIo> Drop for PacketEnd<I> {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
    }
}

impl<I: PacketIo> FarEnd for PacketEnd<I> {
    fn publish(&self, offer: Option<Abilities>) {
        *self.shared.offer.lock().unwrap() = offer;
        self.shared.update_carrier();
    }

    fn partner(&self) -> Partner {
        if self.shared.connected.load(Ordering::SeqCst) {
            Partner::Present(self.partner)
        } else {
            Partner::Absent
        }
    }

    fn transmit(&self, frame: Frame) {
        if !self.shared.connected.load(Ordering::SeqCst) {
            return;
        }
        let c = &self.shared.counters;
        match write_frame(self.shared.io.as_fd(), &frame.data) {
            Ok(()) => c.tx_frames.fetch_add(1, Ordering::Relaxed),
            Err(e) => {
                log::debug!("{}: frame of {} bytes not sent: {e}", self.shared.label, frame.data.len());
                c.tx_errors.fetch_add(1, Ordering::Relaxed)
            }
        };
    }

    fn set_connected(&self, connected: bool) {
        self.shared.connected.store(connected, Ordering::SeqCst);
        self.shared.update_carrier();
        let _ = self.events.send(PortEvent::LinkCheck);
    }

    fn connected(&self) -> bool {
        self.shared.connected.load(Ordering::SeqCst)
    }

    fn describe(&self) -> String {
        self.shared.label.clone()
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let c = &self.shared.counters;
        let n = |a: &AtomicU64| a.load(Ordering::Relaxed);
        vec![
            ("rx_frames", n(&c.rx_frames)),
            ("rx_dropped", n(&c.rx_dropped)),
            ("tx_frames", n(&c.tx_frames)),
            ("tx_errors", n(&c.tx_errors)),
        ]
    }
}

fn set_nonblocking(fd: BorrowedFd<'_>) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor we borrow; no memory is passed.
    let flags = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETFL) };
    // SAFETY: as above.
    if flags < 0 || unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

fn write_frame(fd: BorrowedFd<'_>, frame: &[u8]) -> io::Result<()> {
    loop {
        // SAFETY: write(2) reads frame.len() bytes from the slice.
        let n = unsafe { libc::write(fd.as_raw_fd(), frame.as_ptr().cast(), frame.len()) };
        if n >= 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Waits up to [`POLL_TIMEOUT_MS`] for a frame; `Ok(None)` if none came.
fn read_frame(fd: BorrowedFd<'_>, buf: &mut [u8]) -> io::Result<Option<usize>> {
    let mut pfd = libc::pollfd { fd: fd.as_raw_fd(), events: libc::POLLIN, revents: 0 };
    // SAFETY: poll(2) on one pollfd we own.
    let ready = unsafe { libc::poll(&mut pfd, 1, POLL_TIMEOUT_MS) };
    if ready < 0 {
        let e = io::Error::last_os_error();
        return if e.kind() == io::ErrorKind::Interrupted { Ok(None) } else { Err(e) };
    }
    if ready == 0 {
        return Ok(None);
    }
    // SAFETY: read(2) writes at most buf.len() bytes into buf.
    let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
    if n < 0 {
        let e = io::Error::last_os_error();
        return match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(None),
            _ => Err(e),
        };
    }
    if n == 0 {
        return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "end of file"));
    }
    Ok(Some(n as usize))
}

/// The reader thread: frames from the descriptor to the port's worker.
fn read_frames<I: PacketIo>(shared: &Shared<I>, events: &Sender<PortEvent>, clock: &dyn TimeSource) {
    let mut buf = vec![0u8; MAX_FRAME];
    while !shared.stop.load(Ordering::SeqCst) {
        let n = match read_frame(shared.io.as_fd(), &mut buf) {
            Ok(Some(n)) => n,
            Ok(None) => continue,
            Err(e) => {
                // The device is gone: the link goes down for good.
                log::error!("{}: {e}; link down", shared.label);
                shared.connected.store(false, Ordering::SeqCst);
                let _ = events.send(PortEvent::LinkCheck);
                return;
            }
        };
        let host_ns = clock.now_ns();
        if !shared.connected.load(Ordering::SeqCst) {
            shared.counters.rx_dropped.fetch_add(1, Ordering::Relaxed);
            continue;
        }
        // The host does not pad short frames; a real sender pads to the
        // Ethernet minimum before they reach the wire.
        let mut data = buf[..n].to_vec();
        if data.len() < ETH_ZLEN {
            data.resize(ETH_ZLEN, 0);
        }
        shared.counters.rx_frames.fetch_add(1, Ordering::Relaxed);
        if events.send(PortEvent::Frame(Frame { data, host_ns })).is_err() {
            return; // the port is gone
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::{channel, Receiver};
    use std::time::Duration;

    use crate::ptp::VirtualClock;

    /// A connected pair of packet sockets: what a TAP fd looks like.
    fn packet_pair() -> (OwnedFd, OwnedFd) {
        let mut fds = [0; 2];
        // SAFETY: socketpair(2) writes two descriptors into fds.
        let r =
            unsafe { libc::socketpair(libc::AF_UNIX, libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC, 0, fds.as_mut_ptr()) };
        assert_eq!(r, 0, "{}", io::Error::last_os_error());
        // SAFETY: both are fresh descriptors we own.
        unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
    }

    fn next_event(rx: &Receiver<PortEvent>) -> PortEvent {
        rx.recv_timeout(Duration::from_secs(5)).expect("event")
    }

    fn end(clock: Arc<VirtualClock>) -> (PacketEnd<OwnedFd>, OwnedFd, Receiver<PortEvent>) {
        let (ours, host) = packet_pair();
        let (tx, rx) = channel();
        let end = PacketEnd::new(ours, "test-tap".into(), Abilities::ALL, tx, clock).unwrap();
        (end, host, rx)
    }

    #[test]
    fn frames_both_ways_with_arrival_time_and_padding() {
        let clock = Arc::new(VirtualClock::new(7_000));
        let (end, host, rx) = end(clock.clone());
        assert_eq!(end.partner(), Partner::Present(Abilities::ALL));

        let short = [0xAAu8; 42];
        write_frame(host.as_fd(), &short).unwrap();
        match next_event(&rx) {
            PortEvent::Frame(f) => {
                assert_eq!(f.host_ns, 7_000, "stamped with the host time of arrival");
                assert_eq!(f.data.len(), ETH_ZLEN);
                assert_eq!(f.data[..42], short);
                assert!(f.data[42..].iter().all(|&b| b == 0));
            }
            other => panic!("{other:?}"),
        }

        end.transmit(Frame { data: vec![0x55; 100], host_ns: 0 });
        let mut buf = [0u8; 2048];
        assert_eq!(read_frame(host.as_fd(), &mut buf).unwrap(), Some(100));
        assert_eq!(end.counters().tx_frames.load(Ordering::Relaxed), 1);
        assert_eq!(end.counters().rx_frames.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn unplugged_cable_drops_frames_and_link() {
        let clock = Arc::new(VirtualClock::new(0));
        let (end, host, rx) = end(clock);
        end.set_connected(false);
        assert!(matches!(next_event(&rx), PortEvent::LinkCheck));
        assert_eq!(end.partner(), Partner::Absent);
        end.transmit(Frame { data: vec![1; 60], host_ns: 0 });
        let mut buf = [0u8; 128];
        assert_eq!(read_frame(host.as_fd(), &mut buf).unwrap(), None, "nothing sent while unplugged");
        write_frame(host.as_fd(), &[2; 60]).unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while end.counters().rx_dropped.load(Ordering::Relaxed) == 0 {
            assert!(std::time::Instant::now() < deadline, "frame not dropped");
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(rx.try_recv().is_err(), "no frame delivered while unplugged");
        end.set_connected(true);
        assert!(matches!(next_event(&rx), PortEvent::LinkCheck));
        assert!(end.connected());
    }

    #[test]
    fn lost_device_takes_the_link_down() {
        let (end, host, rx) = end(Arc::new(VirtualClock::new(0)));
        drop(host);
        assert!(matches!(next_event(&rx), PortEvent::LinkCheck));
        assert_eq!(end.partner(), Partner::Absent);
    }

    #[test]
    fn bad_tap_names_are_refused() {
        for name in ["", "a/b", "sixteen-chars-xx"] {
            let e = Tap::open(name).unwrap_err();
            assert!(e.to_string().contains("cannot attach TAP device"), "{e}");
        }
    }
}
