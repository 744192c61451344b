// SPDX-License-Identifier: GPL-2.0

//! Thin wrappers around the libc calls ntpload needs. This is the only
//! module with `unsafe` code; everything it exports is safe to call.

use std::ffi::CString;
use std::io;
use std::mem::{size_of, zeroed};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::ptr;

const NSEC_PER_SEC: i64 = 1_000_000_000;

fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

// time_t and c_long are i64 on 64-bit Linux but not everywhere.
#[allow(clippy::unnecessary_cast)]
fn timespec_ns(ts: &libc::timespec) -> i64 {
    ts.tv_sec as i64 * NSEC_PER_SEC + ts.tv_nsec as i64
}

fn clock_ns(clock: libc::clockid_t) -> i64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; clock_gettime only writes it.
    let r = unsafe { libc::clock_gettime(clock, &mut ts) };
    assert_eq!(r, 0, "clock_gettime({clock}) failed");
    timespec_ns(&ts)
}

/// CLOCK_MONOTONIC in ns (for scheduling).
pub fn mono_ns() -> i64 {
    clock_ns(libc::CLOCK_MONOTONIC)
}

/// CLOCK_REALTIME in ns since the Unix epoch.
pub fn real_ns() -> i64 {
    clock_ns(libc::CLOCK_REALTIME)
}

/// Sleeps until CLOCK_MONOTONIC reaches `t_ns` (clock_nanosleep, absolute).
pub fn sleep_until_mono(t_ns: i64) {
    let ts = libc::timespec { tv_sec: t_ns.div_euclid(NSEC_PER_SEC) as _, tv_nsec: t_ns.rem_euclid(NSEC_PER_SEC) as _ };
    loop {
        // SAFETY: `ts` is a valid timespec; the remainder pointer may be null
        // (it is unused with TIMER_ABSTIME).
        let r = unsafe { libc::clock_nanosleep(libc::CLOCK_MONOTONIC, libc::TIMER_ABSTIME, &ts, ptr::null_mut()) };
        if r != libc::EINTR {
            break;
        }
    }
}

/// The interface index of `name` (if_nametoindex).
pub fn if_index(name: &str) -> io::Result<u32> {
    let c = CString::new(name).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    // SAFETY: `c` is a NUL-terminated string that outlives the call.
    let index = unsafe { libc::if_nametoindex(c.as_ptr()) };
    if index == 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(index)
    }
}

/// An ifreq with the interface name filled in.
fn ifreq(name: &str) -> io::Result<libc::ifreq> {
    if name.is_empty() || name.len() >= libc::IFNAMSIZ || name.contains('\0') {
        return Err(io::Error::from(io::ErrorKind::InvalidInput));
    }
    // SAFETY: ifreq is plain old data (arrays, integers, a pointer in a
    // union); all zeroes is a valid value.
    let mut ifr: libc::ifreq = unsafe { zeroed() };
    for (dst, src) in ifr.ifr_name.iter_mut().zip(name.bytes()) {
        *dst = src as libc::c_char;
    }
    Ok(ifr)
}

/// An AF_INET datagram socket used only as a handle for interface ioctls.
pub struct CtlSocket {
    fd: OwnedFd,
}

impl CtlSocket {
    pub fn open() -> io::Result<CtlSocket> {
        // SAFETY: plain socket(2) call without pointers.
        let raw = cvt(unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) })?;
        // SAFETY: `raw` is a fresh descriptor that nothing else owns.
        Ok(CtlSocket { fd: unsafe { OwnedFd::from_raw_fd(raw) } })
    }

    /// The interface's MAC address (SIOCGIFHWADDR).
    pub fn hwaddr(&self, name: &str) -> io::Result<[u8; 6]> {
        let mut ifr = ifreq(name)?;
        // SAFETY: `ifr` is a valid ifreq the kernel fills in; it outlives the call.
        cvt(unsafe { libc::ioctl(self.fd.as_raw_fd(), libc::SIOCGIFHWADDR as _, &mut ifr) })?;
        // SAFETY: SIOCGIFHWADDR succeeded, so the union holds ifru_hwaddr.
        let sa = unsafe { ifr.ifr_ifru.ifru_hwaddr };
        if sa.sa_family != libc::ARPHRD_ETHER {
            return Err(io::Error::other(format!("not an Ethernet interface (type {})", sa.sa_family)));
        }
        let mut mac = [0u8; 6];
        for (dst, src) in mac.iter_mut().zip(sa.sa_data.iter()) {
            *dst = *src as u8;
        }
        Ok(mac)
    }

    fn hwtstamp_ioctl(&self, name: &str, req: libc::c_ulong, cfg: &mut HwTstampConfig) -> io::Result<()> {
        let mut raw = libc::hwtstamp_config { flags: 0, tx_type: cfg.tx_type, rx_filter: cfg.rx_filter };
        let mut ifr = ifreq(name)?;
        ifr.ifr_ifru.ifru_data = (&mut raw as *mut libc::hwtstamp_config).cast();
        // SAFETY: `ifr` names the interface and points at `raw`, a valid
        // hwtstamp_config; both outlive the call.
        cvt(unsafe { libc::ioctl(self.fd.as_raw_fd(), req as _, &mut ifr) })?;
        *cfg = HwTstampConfig { tx_type: raw.tx_type, rx_filter: raw.rx_filter };
        Ok(())
    }

    /// The interface's hardware timestamping configuration (SIOCGHWTSTAMP).
    pub fn get_hwtstamp(&self, name: &str) -> io::Result<HwTstampConfig> {
        let mut cfg = HwTstampConfig { tx_type: 0, rx_filter: 0 };
        self.hwtstamp_ioctl(name, libc::SIOCGHWTSTAMP, &mut cfg)?;
        Ok(cfg)
    }

    /// Sets the configuration (SIOCSHWTSTAMP); returns what the driver applied.
    pub fn set_hwtstamp(&self, name: &str, cfg: HwTstampConfig) -> io::Result<HwTstampConfig> {
        let mut cfg = cfg;
        self.hwtstamp_ioctl(name, libc::SIOCSHWTSTAMP, &mut cfg)?;
        Ok(cfg)
    }
}

/// struct hwtstamp_config without the (always zero) flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HwTstampConfig {
    pub tx_type: libc::c_int,
    pub rx_filter: libc::c_int,
}

pub const HWTSTAMP_TX_OFF: libc::c_int = libc::HWTSTAMP_TX_OFF as libc::c_int;
pub const HWTSTAMP_FILTER_NONE: libc::c_int = libc::HWTSTAMP_FILTER_NONE as libc::c_int;
pub const HWTSTAMP_FILTER_ALL: libc::c_int = libc::HWTSTAMP_FILTER_ALL as libc::c_int;
pub const HWTSTAMP_FILTER_NTP_ALL: libc::c_int = libc::HWTSTAMP_FILTER_NTP_ALL as libc::c_int;

/// SO_TIMESTAMPING flags for hardware RX timestamps (reported raw, i.e. in
/// the PHC's time) plus software RX timestamps as a fallback.
pub const TS_FLAGS_HW: u32 = libc::SOF_TIMESTAMPING_RX_HARDWARE
    | libc::SOF_TIMESTAMPING_RAW_HARDWARE
    | libc::SOF_TIMESTAMPING_RX_SOFTWARE
    | libc::SOF_TIMESTAMPING_SOFTWARE;
/// SO_TIMESTAMPING flags for software RX timestamps only.
pub const TS_FLAGS_SW: u32 = libc::SOF_TIMESTAMPING_RX_SOFTWARE | libc::SOF_TIMESTAMPING_SOFTWARE;

pub const RECV_BATCH: usize = 64;
const RECV_BUF: usize = 256;
const CTRL_WORDS: usize = 32; // 256 bytes, u64-aligned for cmsghdr

/// What came with a received frame.
#[derive(Clone, Copy, Debug, Default)]
pub struct RecvInfo {
    pub len: usize,
    /// sll_pkttype == PACKET_OUTGOING (our own transmissions).
    pub outgoing: bool,
    /// Software RX timestamp (CLOCK_REALTIME ns), if reported.
    pub sw_ns: Option<i64>,
    /// Raw hardware RX timestamp (PHC ns), if reported.
    pub hw_ns: Option<i64>,
}

/// Buffers for one recvmmsg() call.
pub struct RecvBatch {
    bufs: Vec<[u8; RECV_BUF]>,
    ctrl: Vec<[u64; CTRL_WORDS]>,
    addrs: Vec<libc::sockaddr_ll>,
    info: Vec<RecvInfo>,
}

impl RecvBatch {
    pub fn new() -> RecvBatch {
        // SAFETY: sockaddr_ll is plain old data; all zeroes is a valid value.
        let addr: libc::sockaddr_ll = unsafe { zeroed() };
        RecvBatch {
            bufs: vec![[0; RECV_BUF]; RECV_BATCH],
            ctrl: vec![[0; CTRL_WORDS]; RECV_BATCH],
            addrs: vec![addr; RECV_BATCH],
            info: vec![RecvInfo::default(); RECV_BATCH],
        }
    }

    /// Frame `i` of the last batch (possibly truncated to 256 bytes) and its info.
    pub fn get(&self, i: usize) -> (&[u8], &RecvInfo) {
        let info = &self.info[i];
        (&self.bufs[i][..info.len.min(RECV_BUF)], info)
    }
}

/// Extracts the SCM_TIMESTAMPING timestamps from a received message.
fn parse_timestamps(hdr: &libc::msghdr, info: &mut RecvInfo) {
    // SAFETY: `hdr` was filled in by recvmmsg(); msg_control/msg_controllen
    // describe a live buffer, so the CMSG_* macros stay inside it, and
    // CMSG_DATA of an SCM_TIMESTAMPING message holds three timespecs (read
    // unaligned, the length checked first).
    unsafe {
        let mut cmsg = libc::CMSG_FIRSTHDR(hdr);
        while !cmsg.is_null() {
            let c = &*cmsg;
            let need = libc::CMSG_LEN(3 * size_of::<libc::timespec>() as u32) as usize;
            if c.cmsg_level == libc::SOL_SOCKET && c.cmsg_type == libc::SCM_TIMESTAMPING && c.cmsg_len as usize >= need
            {
                let ts = libc::CMSG_DATA(cmsg) as *const libc::timespec;
                let sw = ptr::read_unaligned(ts);
                let hw = ptr::read_unaligned(ts.add(2));
                info.sw_ns = Some(timespec_ns(&sw)).filter(|&t| t != 0);
                info.hw_ns = Some(timespec_ns(&hw)).filter(|&t| t != 0);
            }
            cmsg = libc::CMSG_NXTHDR(hdr, cmsg);
        }
    }
}

/// An AF_PACKET SOCK_RAW socket bound to one interface, receiving IPv4.
pub struct PacketSocket {
    fd: OwnedFd,
}

impl PacketSocket {
    /// Opens the socket (needs CAP_NET_RAW) and binds it to `ifindex`.
    pub fn open(ifindex: u32) -> io::Result<PacketSocket> {
        // Protocol 0: receive nothing until bound to the interface.
        // SAFETY: plain socket(2) call without pointers.
        let raw = cvt(unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0) })?;
        // SAFETY: `raw` is a fresh descriptor that nothing else owns.
        let sock = PacketSocket { fd: unsafe { OwnedFd::from_raw_fd(raw) } };
        // Our own requests are of no interest (Linux >= 4.20; filtered anyway).
        let _ = sock.setsockopt_int(libc::SOL_PACKET, libc::PACKET_IGNORE_OUTGOING, 1);
        let size = 16 << 20;
        if sock.setsockopt_int(libc::SOL_SOCKET, libc::SO_RCVBUFFORCE, size).is_err() {
            sock.setsockopt_int(libc::SOL_SOCKET, libc::SO_RCVBUF, size)?;
        }
        if sock.setsockopt_int(libc::SOL_SOCKET, libc::SO_SNDBUFFORCE, size).is_err() {
            sock.setsockopt_int(libc::SOL_SOCKET, libc::SO_SNDBUF, size)?;
        }
        // SAFETY: sockaddr_ll is plain old data; all zeroes is a valid value.
        let mut sll: libc::sockaddr_ll = unsafe { zeroed() };
        sll.sll_family = libc::AF_PACKET as u16;
        sll.sll_protocol = (libc::ETH_P_IP as u16).to_be();
        sll.sll_ifindex = ifindex as i32;
        // SAFETY: `sll` is a valid sockaddr_ll of the given length.
        cvt(unsafe {
            libc::bind(
                sock.fd.as_raw_fd(),
                (&sll as *const libc::sockaddr_ll).cast(),
                size_of::<libc::sockaddr_ll>() as libc::socklen_t,
            )
        })?;
        Ok(sock)
    }

    fn setsockopt_int(&self, level: libc::c_int, name: libc::c_int, value: libc::c_int) -> io::Result<()> {
        // SAFETY: `value` is a c_int that outlives the call; the length matches.
        cvt(unsafe {
            libc::setsockopt(
                self.fd.as_raw_fd(),
                level,
                name,
                (&value as *const libc::c_int).cast(),
                size_of::<libc::c_int>() as libc::socklen_t,
            )
        })
        .map(drop)
    }

    /// Enables SO_TIMESTAMPING with `flags` (SOF_TIMESTAMPING_*).
    pub fn set_timestamping(&self, flags: u32) -> io::Result<()> {
        self.setsockopt_int(libc::SOL_SOCKET, libc::SO_TIMESTAMPING, flags as libc::c_int)
    }

    /// Sends complete frames with one sendmmsg(); returns how many were sent.
    pub fn send_frames<F: AsRef<[u8]>>(&self, frames: &[F]) -> io::Result<usize> {
        if frames.is_empty() {
            return Ok(0);
        }
        let mut iovs: Vec<libc::iovec> = frames
            .iter()
            .map(|f| libc::iovec { iov_base: f.as_ref().as_ptr() as *mut libc::c_void, iov_len: f.as_ref().len() })
            .collect();
        let mut hdrs: Vec<libc::mmsghdr> = iovs
            .iter_mut()
            .map(|iov| {
                // SAFETY: mmsghdr is plain old data; all zeroes is a valid value.
                let mut h: libc::mmsghdr = unsafe { zeroed() };
                h.msg_hdr.msg_iov = iov;
                h.msg_hdr.msg_iovlen = 1;
                h
            })
            .collect();
        // SAFETY: every header points at one iovec that points at a frame
        // borrowed for the duration of the call; the kernel reads the frames
        // and writes only msg_len of the headers.
        let n = cvt(unsafe { libc::sendmmsg(self.fd.as_raw_fd(), hdrs.as_mut_ptr(), hdrs.len() as _, 0) })?;
        Ok(n as usize)
    }

    /// Receives up to RECV_BATCH frames without blocking; 0 when none are queued.
    pub fn recv_batch(&self, batch: &mut RecvBatch) -> io::Result<usize> {
        let mut iovs: Vec<libc::iovec> =
            batch.bufs.iter_mut().map(|b| libc::iovec { iov_base: b.as_mut_ptr().cast(), iov_len: RECV_BUF }).collect();
        let mut hdrs: Vec<libc::mmsghdr> = Vec::with_capacity(RECV_BATCH);
        for ((iov, ctrl), addr) in iovs.iter_mut().zip(batch.ctrl.iter_mut()).zip(batch.addrs.iter_mut()) {
            // SAFETY: mmsghdr is plain old data; all zeroes is a valid value.
            let mut h: libc::mmsghdr = unsafe { zeroed() };
            h.msg_hdr.msg_name = (addr as *mut libc::sockaddr_ll).cast();
            h.msg_hdr.msg_namelen = size_of::<libc::sockaddr_ll>() as libc::socklen_t;
            h.msg_hdr.msg_iov = iov;
            h.msg_hdr.msg_iovlen = 1;
            h.msg_hdr.msg_control = ctrl.as_mut_ptr().cast();
            h.msg_hdr.msg_controllen = size_of::<[u64; CTRL_WORDS]>() as _;
            hdrs.push(h);
        }
        // SAFETY: each header points at its own name, data and control
        // buffers (owned by `batch` or by `iovs`), all alive and with the
        // lengths given; the timeout pointer may be null.
        let r = unsafe {
            libc::recvmmsg(self.fd.as_raw_fd(), hdrs.as_mut_ptr(), RECV_BATCH as _, libc::MSG_DONTWAIT, ptr::null_mut())
        };
        if r < 0 {
            let e = io::Error::last_os_error();
            return match e.kind() {
                io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(0),
                _ => Err(e),
            };
        }
        let n = r as usize;
        for (i, h) in hdrs.iter().take(n).enumerate() {
            let mut info = RecvInfo {
                len: h.msg_len as usize,
                outgoing: batch.addrs[i].sll_pkttype == libc::PACKET_OUTGOING,
                ..Default::default()
            };
            parse_timestamps(&h.msg_hdr, &mut info);
            batch.info[i] = info;
        }
        Ok(n)
    }

    /// Waits up to `timeout_ms` for a frame to arrive (poll).
    pub fn wait_readable(&self, timeout_ms: i32) -> io::Result<bool> {
        let mut pfd = libc::pollfd { fd: self.fd.as_raw_fd(), events: libc::POLLIN, revents: 0 };
        // SAFETY: `pfd` is one valid pollfd that outlives the call.
        match unsafe { libc::poll(&mut pfd, 1, timeout_ms) } {
            r if r >= 0 => Ok(r > 0),
            _ => {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    Ok(false)
                } else {
                    Err(e)
                }
            }
        }
    }
}

/// The effective user id (for error messages).
pub fn euid() -> u32 {
    // SAFETY: geteuid() has no arguments and cannot fail.
    unsafe { libc::geteuid() }
}

static STOP: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

extern "C" fn on_stop_signal(_sig: libc::c_int) {
    STOP.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Makes SIGINT and SIGTERM set a flag (see [`stop_requested`]) instead of
/// killing the process, so that the interface configuration is restored.
pub fn install_stop_handler() -> io::Result<()> {
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: sigaction is plain old data; all zeroes is a valid value
        // (empty mask, no flags). The handler only stores to an atomic, which
        // is async-signal-safe.
        let r = unsafe {
            let mut sa: libc::sigaction = zeroed();
            sa.sa_sigaction = on_stop_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            libc::sigaction(sig, &sa, ptr::null_mut())
        };
        cvt(r)?;
    }
    Ok(())
}

/// Whether SIGINT or SIGTERM arrived.
pub fn stop_requested() -> bool {
    STOP.load(std::sync::atomic::Ordering::Relaxed)
}
