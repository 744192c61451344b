// SPDX-License-Identifier: GPL-2.0

//! A port cabled to a real host TAP device: a frame the host sends on the
//! interface lands in the port's RX ring with its timestamp header, and a
//! frame the port transmits shows up on the interface. Needs /dev/net/tun,
//! CAP_NET_ADMIN, CAP_NET_RAW and `ip`; skipped with a note otherwise.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

mod common;

use common::wait_for;
use i225_model::dma::GuestMemory;
use i225_model::mac::MacConfig;
use i225_model::phy::Abilities;
use i225_model::port::Port;
use i225_model::ptp::{latencies, HostClock, PtpConfig, TimeSource};
use i225_model::regs::{self, rxq, txq};
use i225_model::tap::{PacketEnd, Tap};
use i225_model::wire::FarEnd;

const TAP_NAME: &str = "rigc-test-tap0";
const PORT_MAC: [u8; 6] = [0x02, 0x1a, 0x25, 0, 0, 0x77];
const HOST_MAC: [u8; 6] = [0x02, 0x1a, 0x25, 0, 0, 0x88];
/// IEEE local experimental EtherTypes: host to port, port to host.
const TO_PORT: u16 = 0x88B5;
const TO_HOST: u16 = 0x88B6;

const MEM_SIZE: u64 = 1 << 20;
const TX_RING: u64 = 0x1000;
const RX_RING: u64 = 0x2000;
const TX_BUF: u64 = 0x10000;
const RX_BUF: u64 = 0x20000;
const RX_DESCS: u64 = 8;

fn skip(why: impl std::fmt::Display) {
    eprintln!("NOTE: real TAP test skipped: {why}");
}

fn frame(dst: [u8; 6], src: [u8; 6], ethertype: u16, payload: &[u8]) -> Vec<u8> {
    let mut f = Vec::new();
    f.extend_from_slice(&dst);
    f.extend_from_slice(&src);
    f.extend_from_slice(&ethertype.to_be_bytes());
    f.extend_from_slice(payload);
    f
}

/// An AF_PACKET socket on the TAP interface, for one EtherType.
struct PacketSocket(OwnedFd);

impl PacketSocket {
    fn bind(ifname: &str, ethertype: u16) -> std::io::Result<PacketSocket> {
        let cname = std::ffi::CString::new(ifname).unwrap();
        // SAFETY: plain syscalls on descriptors we own; sockaddr_ll is
        // plain old data.
        unsafe {
            let ifindex = libc::if_nametoindex(cname.as_ptr());
            if ifindex == 0 {
                return Err(std::io::Error::last_os_error());
            }
            let proto = ethertype.to_be();
            let fd = libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_CLOEXEC, i32::from(proto));
            if fd < 0 {
                return Err(std::io::Error::last_os_error());
            }
            let fd = OwnedFd::from_raw_fd(fd);
            let mut addr: libc::sockaddr_ll = std::mem::zeroed();
            addr.sll_family = libc::AF_PACKET as u16;
            addr.sll_protocol = proto;
            addr.sll_ifindex = ifindex as i32;
            let len = std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t;
            if libc::bind(fd.as_raw_fd(), (&addr as *const libc::sockaddr_ll).cast(), len) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(PacketSocket(fd))
        }
    }

    fn send(&self, frame: &[u8]) {
        // SAFETY: send(2) reads frame.len() bytes from the slice.
        let n = unsafe { libc::send(self.0.as_raw_fd(), frame.as_ptr().cast(), frame.len(), 0) };
        assert_eq!(n, frame.len() as isize, "{}", std::io::Error::last_os_error());
    }

    /// The next frame within `timeout`, if any.
    fn recv(&self, timeout: Duration) -> Option<Vec<u8>> {
        let mut pfd = libc::pollfd { fd: self.0.as_raw_fd(), events: libc::POLLIN, revents: 0 };
        // SAFETY: poll on one pollfd, then recv(2) into our buffer.
        unsafe {
            if libc::poll(&mut pfd, 1, timeout.as_millis() as libc::c_int) <= 0 {
                return None;
            }
            let mut buf = vec![0u8; 4096];
            let n = libc::recv(self.0.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), 0);
            (n >= 0).then(|| {
                buf.truncate(n as usize);
                buf
            })
        }
    }
}

fn memfd(size: u64) -> OwnedFd {
    common::memfd(c"tap-test-ram", size)
}

fn carrier() -> String {
    std::fs::read_to_string(format!("/sys/class/net/{TAP_NAME}/carrier")).unwrap_or_default().trim().to_string()
}

fn systim0_now(port: &Port) -> u64 {
    port.with_device(|d| d.mac.ptp().systim0.at(d.mac.now()) as u64)
}

#[test]
fn frames_cross_a_real_tap() {
    let tap = match Tap::open(TAP_NAME) {
        Ok(tap) => tap,
        Err(e) => return skip(e),
    };
    assert_eq!(tap.name(), TAP_NAME);
    let clock: Arc<dyn TimeSource> = Arc::new(HostClock);
    let cfg = MacConfig { mac_addr: PORT_MAC, ptp: PtpConfig::default() };
    let end_clock = clock.clone();
    let (port, worker) = Port::spawn_with("taptest".into(), 0x15F3, cfg, clock, |events| {
        let end = PacketEnd::new(tap, format!("tap {TAP_NAME}"), Abilities::ALL, events, end_clock)?;
        Ok(Arc::new(end) as Arc<dyn FarEnd>)
    })
    .unwrap();
    let stop = || {
        port.shutdown();
        worker.join().unwrap();
    };
    match Command::new("ip").args(["link", "set", "dev", TAP_NAME, "up"]).status() {
        Ok(s) if s.success() => {}
        other => {
            stop();
            return skip(format!("ip link set {TAP_NAME} up: {other:?}"));
        }
    }
    let sock = match (PacketSocket::bind(TAP_NAME, TO_PORT), PacketSocket::bind(TAP_NAME, TO_HOST)) {
        (Ok(to_port), Ok(to_host)) => (to_port, to_host),
        (Err(e), _) | (_, Err(e)) => {
            stop();
            return skip(format!("AF_PACKET socket: {e}"));
        }
    };
    let (to_port, to_host) = sock;

    // Guest memory, RX and TX rings as igc sets them up.
    port.with_device(|d| {
        common::driver_ready(d);
        d.dma.map(0, MEM_SIZE, 0, Some(memfd(MEM_SIZE)), true, true).unwrap();
        let mem = &d.dma;
        for i in 0..RX_DESCS {
            mem.write(RX_RING + 16 * i, &(RX_BUF + 0x1000 * i).to_le_bytes()).unwrap();
        }
        let m = &mut d.mac;
        m.write32(regs::RCTL, 0x0400_8022, mem);
        m.write32(rxq(0, regs::RDBAL), RX_RING as u32, mem);
        m.write32(rxq(0, regs::RDLEN), (16 * RX_DESCS) as u32, mem);
        m.write32(rxq(0, regs::SRRCTL), 0x4200_4402, mem);
        m.write32(rxq(0, regs::RXDCTL), 0x0204_0808, mem);
        m.write32(rxq(0, regs::RDT), (RX_DESCS - 1) as u32, mem);
        let rxpbs = m.read32(regs::RXPBS);
        m.write32(regs::RXPBS, rxpbs | regs::rxpbs::CFG_TS_EN, mem);
        m.write32(regs::TSYNCRXCTL, 0x418, mem);
        m.write32(regs::TSYNCTXCTL, 0x10, mem);
        m.write32(regs::TCTL, 0x0103_F0FA, mem);
        m.write32(txq(0, regs::TDLEN), 256, mem);
        m.write32(txq(0, regs::TDBAL), TX_RING as u32, mem);
        m.write32(txq(0, regs::TXDCTL), 0x0210_0108, mem);
    });
    wait_for("link up", || port.with_device(|d| d.mac.link().is_some()));
    assert_eq!(carrier(), "1", "the TAP's carrier follows the port's link");

    // Host -> port: a short frame, padded on the way like on a real wire,
    // with the port's SYSTIM0 at arrival in the timestamp header.
    let sent = frame(PORT_MAC, HOST_MAC, TO_PORT, b"rigc host->port");
    assert!(sent.len() < 60);
    let before = systim0_now(&port);
    to_port.send(&sent);
    let (len, buf) = {
        let mut found = None;
        wait_for("the frame in the RX ring", || {
            found = port.with_device(|d| {
                (0..RX_DESCS).find_map(|i| {
                    let staterr = d.dma.read_u32(RX_RING + 16 * i + 8).unwrap();
                    let len = d.dma.read_u32(RX_RING + 16 * i + 12).unwrap() & 0xFFFF;
                    let buf = RX_BUF + 0x1000 * i;
                    let mut ty = [0u8; 2];
                    d.dma.read(buf + 16 + 12, &mut ty).unwrap();
                    (staterr & 1 != 0 && u16::from_be_bytes(ty) == TO_PORT).then_some((len, buf))
                })
            });
            found.is_some()
        });
        found.unwrap()
    };
    let after = systim0_now(&port);
    assert_eq!(len, 60 + 16, "padded frame behind the 16-byte timestamp header");
    let (got, ts) = port.with_device(|d| {
        let mut data = vec![0u8; len as usize];
        d.dma.read(buf, &mut data).unwrap();
        (data[16..].to_vec(), data[..16].to_vec())
    });
    assert_eq!(got[..sent.len()], sent[..]);
    assert!(got[sent.len()..].iter().all(|&b| b == 0));
    let dw = |i: usize| u64::from(u32::from_le_bytes(ts[4 * i..4 * i + 4].try_into().unwrap()));
    let stamp = dw(3) * 1_000_000_000 + dw(2);
    let rx_lat = latencies(2500).1 as u64;
    assert!((before + rx_lat..=after + rx_lat).contains(&stamp), "{before} <= {stamp} - {rx_lat} <= {after}");
    let (gprc, rx_packets) =
        port.with_device(|d| (d.mac.read32(i225_model::stats::GPRC), d.mac.rx_counters[0].packets));
    assert!(gprc >= 1 && rx_packets >= 1, "counted like a frame from the wire");

    // Port -> host, with a TX timestamp in set 0.
    let out = frame([0xFF; 6], PORT_MAC, TO_HOST, &[0x5A; 76]);
    port.with_device(|d| {
        d.dma.write(TX_BUF, &out).unwrap();
        let cmd = out.len() as u32 | 0x0100_0000 | 0x0800_0000 | 0x2000_0000 | 0x0030_0000 | (1 << 19);
        let mut desc = [0u8; 16];
        desc[..8].copy_from_slice(&TX_BUF.to_le_bytes());
        desc[8..12].copy_from_slice(&cmd.to_le_bytes());
        d.dma.write(TX_RING, &desc).unwrap();
        d.mac.write32(txq(0, regs::TDT), 1, &d.dma);
    });
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        assert!(Instant::now() < deadline, "the port's frame never showed up on {TAP_NAME}");
        if to_host.recv(Duration::from_millis(100)).is_some_and(|f| f == out) {
            break;
        }
    }
    let counters: Vec<_> = port.far_end().counters();
    assert!(counters.contains(&("tx_frames", 1)), "{counters:?}");
    port.with_device(|d| {
        assert_eq!(d.mac.read32(regs::TSYNCTXCTL) & 0xF, 1, "TXTT_0");
        d.mac.read32(regs::TXSTMPL_0);
        d.mac.read32(regs::TXSTMPH_0);
        assert_eq!(d.mac.ptp().txts_read_latency.latency.count, 1);
    });

    // Unplugging the cable drops the carrier and the link.
    port.far_end().set_connected(false);
    assert_eq!(carrier(), "0");
    wait_for("link down", || port.with_device(|d| d.mac.link().is_none()));
    port.far_end().set_connected(true);
    assert_eq!(carrier(), "1");
    wait_for("link up again", || port.with_device(|d| d.mac.link().is_some()));

    // Closing the port closes the TAP, and the kernel removes the device.
    drop((to_port, to_host));
    stop();
    drop(port);
    wait_for("the TAP device to go away", || !std::path::Path::new(&format!("/sys/class/net/{TAP_NAME}")).exists());
}
