// SPDX-License-Identifier: GPL-2.0

//! Ethernet + IPv4 + UDP + NTP frame construction and parsing.
//!
//! Requests are built byte by byte (no kernel IP stack involved) so that
//! they can carry any source address from the simulated client network.

use std::fmt;

pub const ETH_HLEN: usize = 14;
pub const IPV4_HLEN: usize = 20;
pub const UDP_HLEN: usize = 8;
pub const NTP_HLEN: usize = 48;
/// Length of a request frame (no Ethernet FCS; the NIC appends it).
pub const FRAME_LEN: usize = ETH_HLEN + IPV4_HLEN + UDP_HLEN + NTP_HLEN;
pub const NTP_PORT: u16 = 123;
const ETHERTYPE_IPV4: u16 = 0x0800;
const IPPROTO_UDP: u8 = 17;

/// NTP header byte 0 of a request: LI = 3 (unsynchronised), VN = 4, mode = 3 (client).
pub const NTP_CLIENT_LVM: u8 = 0xe3;
const NTP_MODE_SERVER: u8 = 4;

/// Offsets of the NTP timestamps inside the NTP header.
pub const NTP_ORIGIN_OFF: usize = 24;
pub const NTP_RECEIVE_OFF: usize = 32;
pub const NTP_TRANSMIT_OFF: usize = 40;

pub type Mac = [u8; 6];

/// Parses "aa:bb:cc:dd:ee:ff".
pub fn parse_mac(s: &str) -> Result<Mac, String> {
    let mut mac = [0u8; 6];
    let parts: Vec<&str> = s.split(':').collect();
    if parts.len() != 6 {
        return Err(format!("invalid MAC address '{s}'"));
    }
    for (byte, part) in mac.iter_mut().zip(parts) {
        if part.is_empty() || part.len() > 2 {
            return Err(format!("invalid MAC address '{s}'"));
        }
        *byte = u8::from_str_radix(part, 16).map_err(|_| format!("invalid MAC address '{s}'"))?;
    }
    Ok(mac)
}

pub fn fmt_mac(mac: &Mac) -> String {
    mac.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(":")
}

/// Parses a dotted-quad IPv4 address into a host-order `u32`.
pub fn parse_ipv4(s: &str) -> Result<u32, String> {
    s.parse::<std::net::Ipv4Addr>().map(u32::from).map_err(|_| format!("invalid IPv4 address '{s}'"))
}

pub fn fmt_ipv4(ip: u32) -> String {
    std::net::Ipv4Addr::from(ip).to_string()
}

/// The simulated client network. Client `i` uses address `base + 1 + i`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Net {
    pub base: u32,
    pub bits: u8,
}

impl Net {
    /// Parses "a.b.c.d/bits" (host bits are cleared).
    pub fn parse(s: &str) -> Result<Net, String> {
        let (addr, bits) = s.split_once('/').ok_or_else(|| format!("network '{s}' lacks /BITS"))?;
        let bits: u8 = bits.parse().map_err(|_| format!("invalid prefix length in '{s}'"))?;
        if !(8..=30).contains(&bits) {
            return Err(format!("prefix length of '{s}' must be 8..30"));
        }
        let net = Net { base: 0, bits };
        Ok(Net { base: parse_ipv4(addr)? & net.mask(), bits })
    }

    pub fn mask(&self) -> u32 {
        u32::MAX << (32 - self.bits)
    }

    pub fn contains(&self, ip: u32) -> bool {
        ip & self.mask() == self.base
    }

    /// Usable host addresses (network and broadcast addresses excluded).
    pub fn host_count(&self) -> u32 {
        (1u32 << (32 - self.bits)) - 2
    }

    pub fn client_ip(&self, index: u32) -> u32 {
        self.base + 1 + index
    }

    /// Inverse of [`Net::client_ip`]; `None` outside the host range.
    pub fn client_index(&self, ip: u32) -> Option<u32> {
        let index = ip.wrapping_sub(self.base).wrapping_sub(1);
        (self.contains(ip) && index < self.host_count()).then_some(index)
    }

    /// Whether the network lies inside 10/8, 172.16/12 or 192.168/16 (the
    /// same sanity rule as ntpperf: source addresses are spoofed).
    pub fn is_private(&self) -> bool {
        [(0x0a00_0000u32, 8u8), (0xac10_0000, 12), (0xc0a8_0000, 16)]
            .iter()
            .any(|&(base, bits)| self.bits >= bits && Net { base, bits }.contains(self.base))
    }
}

impl fmt::Display for Net {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", fmt_ipv4(self.base), self.bits)
    }
}

/// Link and network addresses shared by all requests.
#[derive(Clone, Copy, Debug)]
pub struct Endpoints {
    pub src_mac: Mac,
    pub dst_mac: Mac,
    pub dst_ip: u32,
}

/// Per-request variable fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NtpRequest {
    pub src_ip: u32,
    pub src_port: u16,
    pub ip_id: u16,
    pub origin: u64,
    pub receive: u64,
    pub transmit: u64,
}

/// Adds `data` as big-endian 16-bit words to a ones' complement sum.
pub fn checksum_add(mut sum: u32, data: &[u8]) -> u32 {
    let mut chunks = data.chunks_exact(2);
    for w in &mut chunks {
        sum += u32::from(u16::from_be_bytes([w[0], w[1]]));
    }
    if let [last] = chunks.remainder() {
        sum += u32::from(*last) << 8;
    }
    sum
}

/// Folds a ones' complement sum and complements it.
pub fn checksum_finish(mut sum: u32) -> u16 {
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// The IPv4 header checksum (the checksum field must be zero in `hdr`).
pub fn ipv4_checksum(hdr: &[u8]) -> u16 {
    checksum_finish(checksum_add(0, hdr))
}

/// The UDP checksum over the IPv4 pseudo header and `udp` (header with a zero
/// checksum field, plus payload). Zero is sent as 0xffff (RFC 768).
pub fn udp_checksum(src: u32, dst: u32, udp: &[u8]) -> u16 {
    let mut sum = checksum_add(0, &src.to_be_bytes());
    sum = checksum_add(sum, &dst.to_be_bytes());
    sum += u32::from(IPPROTO_UDP) + udp.len() as u32;
    match checksum_finish(checksum_add(sum, udp)) {
        0 => 0xffff,
        c => c,
    }
}

/// Writes a complete NTPv4 client request frame into `buf`.
pub fn build_request(ep: &Endpoints, req: &NtpRequest, buf: &mut [u8; FRAME_LEN]) {
    buf.fill(0);
    let (eth, rest) = buf.split_at_mut(ETH_HLEN);
    eth[0..6].copy_from_slice(&ep.dst_mac);
    eth[6..12].copy_from_slice(&ep.src_mac);
    eth[12..14].copy_from_slice(&ETHERTYPE_IPV4.to_be_bytes());

    let (ip, udp) = rest.split_at_mut(IPV4_HLEN);
    ip[0] = 0x45; // version 4, IHL 5
    ip[2..4].copy_from_slice(&((IPV4_HLEN + UDP_HLEN + NTP_HLEN) as u16).to_be_bytes());
    ip[4..6].copy_from_slice(&req.ip_id.to_be_bytes());
    ip[6..8].copy_from_slice(&0x4000u16.to_be_bytes()); // DF, no fragment offset
    ip[8] = 64; // TTL
    ip[9] = IPPROTO_UDP;
    ip[12..16].copy_from_slice(&req.src_ip.to_be_bytes());
    ip[16..20].copy_from_slice(&ep.dst_ip.to_be_bytes());
    let csum = ipv4_checksum(ip);
    ip[10..12].copy_from_slice(&csum.to_be_bytes());

    udp[0..2].copy_from_slice(&req.src_port.to_be_bytes());
    udp[2..4].copy_from_slice(&NTP_PORT.to_be_bytes());
    udp[4..6].copy_from_slice(&((UDP_HLEN + NTP_HLEN) as u16).to_be_bytes());
    let ntp = &mut udp[UDP_HLEN..];
    ntp[0] = NTP_CLIENT_LVM;
    ntp[NTP_ORIGIN_OFF..NTP_ORIGIN_OFF + 8].copy_from_slice(&req.origin.to_be_bytes());
    ntp[NTP_RECEIVE_OFF..NTP_RECEIVE_OFF + 8].copy_from_slice(&req.receive.to_be_bytes());
    ntp[NTP_TRANSMIT_OFF..NTP_TRANSMIT_OFF + 8].copy_from_slice(&req.transmit.to_be_bytes());
    let csum = udp_checksum(req.src_ip, ep.dst_ip, udp);
    udp[6..8].copy_from_slice(&csum.to_be_bytes());
}

/// What makes a received frame a response to us.
#[derive(Clone, Copy, Debug)]
pub struct ResponseFilter {
    pub server_mac: Mac,
    pub server_ip: u32,
    pub net: Net,
}

/// The fields of a server response that matter here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NtpResponse {
    /// Our simulated client the response is addressed to.
    pub client_ip: u32,
    pub dst_port: u16,
    pub lvm: u8,
    pub stratum: u8,
    pub origin: u64,
    pub receive: u64,
    pub transmit: u64,
}

fn be16(b: &[u8], off: usize) -> u16 {
    u16::from_be_bytes([b[off], b[off + 1]])
}

fn be32(b: &[u8], off: usize) -> u32 {
    u32::from_be_bytes(b[off..off + 4].try_into().unwrap())
}

fn be64(b: &[u8], off: usize) -> u64 {
    u64::from_be_bytes(b[off..off + 8].try_into().unwrap())
}

/// Returns the NTP server response in `frame`, or `None` when the frame is
/// anything else: not IPv4/UDP, not from the server's MAC and IP and port
/// 123, not to one of our client addresses, fragmented, too short, or not in
/// NTP server mode.
pub fn parse_response(frame: &[u8], f: &ResponseFilter) -> Option<NtpResponse> {
    if frame.len() < FRAME_LEN || frame[6..12] != f.server_mac || be16(frame, 12) != ETHERTYPE_IPV4 {
        return None;
    }
    let ip = &frame[ETH_HLEN..];
    let ihl = usize::from(ip[0] & 0x0f) * 4;
    if ip[0] >> 4 != 4 || ihl < IPV4_HLEN || ip[9] != IPPROTO_UDP || be16(ip, 6) & 0x3fff != 0 {
        return None;
    }
    if usize::from(be16(ip, 2)) < ihl + UDP_HLEN + NTP_HLEN || ip.len() < ihl + UDP_HLEN + NTP_HLEN {
        return None;
    }
    let (src, dst) = (be32(ip, 12), be32(ip, 16));
    if src != f.server_ip || f.net.client_index(dst).is_none() {
        return None;
    }
    let udp = &ip[ihl..];
    if be16(udp, 0) != NTP_PORT {
        return None;
    }
    let ntp = &udp[UDP_HLEN..];
    if ntp[0] & 0x07 != NTP_MODE_SERVER {
        return None;
    }
    Some(NtpResponse {
        client_ip: dst,
        dst_port: be16(udp, 2),
        lvm: ntp[0],
        stratum: ntp[1],
        origin: be64(ntp, NTP_ORIGIN_OFF),
        receive: be64(ntp, NTP_RECEIVE_OFF),
        transmit: be64(ntp, NTP_TRANSMIT_OFF),
    })
}

#[cfg(test)]
pub mod tests {
    use super::*;

    pub const SERVER_MAC: Mac = [0x52, 0x54, 0x00, 0x00, 0x00, 0x01];
    pub const CLIENT_MAC: Mac = [0x52, 0x54, 0x00, 0x00, 0x00, 0x02];
    pub const SERVER_IP: u32 = 0x0a00_0001; // 10.0.0.1

    pub fn net() -> Net {
        Net::parse("172.16.0.0/16").unwrap()
    }

    pub fn filter() -> ResponseFilter {
        ResponseFilter { server_mac: SERVER_MAC, server_ip: SERVER_IP, net: net() }
    }

    /// A server response frame as chronyd would send it to `client_ip`.
    pub fn response_frame(client_ip: u32, origin: u64, receive: u64, transmit: u64) -> [u8; FRAME_LEN] {
        let ep = Endpoints { src_mac: SERVER_MAC, dst_mac: CLIENT_MAC, dst_ip: client_ip };
        let req = NtpRequest { src_ip: SERVER_IP, src_port: NTP_PORT, ip_id: 7, origin, receive, transmit };
        let mut buf = [0u8; FRAME_LEN];
        build_request(&ep, &req, &mut buf);
        // Swap the ports (server 123 -> client 40000) and make it mode 4, stratum 1.
        let udp = ETH_HLEN + IPV4_HLEN;
        buf[udp..udp + 2].copy_from_slice(&NTP_PORT.to_be_bytes());
        buf[udp + 2..udp + 4].copy_from_slice(&40000u16.to_be_bytes());
        buf[udp + 6..udp + 8].copy_from_slice(&[0, 0]);
        buf[udp + UDP_HLEN] = 0x24;
        buf[udp + UDP_HLEN + 1] = 1;
        buf
    }

    #[test]
    fn ipv4_checksum_known_vector() {
        // The classic example header: 192.168.0.1 -> 192.168.0.199, checksum 0xb861.
        let hdr = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8,
            0x00, 0xc7,
        ];
        assert_eq!(ipv4_checksum(&hdr), 0xb861);
        let mut with = hdr;
        with[10..12].copy_from_slice(&0xb861u16.to_be_bytes());
        assert_eq!(ipv4_checksum(&with), 0);
    }

    #[test]
    fn checksum_odd_length() {
        assert_eq!(checksum_finish(checksum_add(0, &[0x12, 0x34, 0x56])), !(0x1234u16 + 0x5600));
    }

    fn sample_request() -> (Endpoints, NtpRequest, [u8; FRAME_LEN]) {
        let ep = Endpoints { src_mac: CLIENT_MAC, dst_mac: SERVER_MAC, dst_ip: SERVER_IP };
        let req = NtpRequest {
            src_ip: 0xac10_0001,
            src_port: 40000,
            ip_id: 0x1234,
            origin: 0x0102_0304_0506_0708,
            receive: 0x1112_1314_1516_1718,
            transmit: 0x1112_1314_1516_1719,
        };
        let mut buf = [0xaau8; FRAME_LEN];
        build_request(&ep, &req, &mut buf);
        (ep, req, buf)
    }

    #[test]
    fn request_layout() {
        let (_, _, f) = sample_request();
        assert_eq!(FRAME_LEN, 90);
        assert_eq!(&f[0..6], &SERVER_MAC);
        assert_eq!(&f[6..12], &CLIENT_MAC);
        assert_eq!(&f[12..14], &[0x08, 0x00]);
        let ip = &f[14..34];
        assert_eq!(ip[0], 0x45);
        assert_eq!(be16(ip, 2), 76); // IP total length
        assert_eq!(be16(ip, 4), 0x1234);
        assert_eq!(be16(ip, 6), 0x4000);
        assert_eq!(ip[8], 64);
        assert_eq!(ip[9], 17);
        assert_eq!(&ip[12..16], &[172, 16, 0, 1]);
        assert_eq!(&ip[16..20], &[10, 0, 0, 1]);
        assert_eq!(ipv4_checksum(ip), 0, "header checksum must verify");
        let udp = &f[34..];
        assert_eq!(be16(udp, 0), 40000);
        assert_eq!(be16(udp, 2), 123);
        assert_eq!(be16(udp, 4), 56); // UDP length
        let ntp = &udp[8..];
        assert_eq!(ntp.len(), 48);
        assert_eq!(ntp[0], 0xe3);
        assert_eq!(ntp[0] >> 6, 3, "LI");
        assert_eq!((ntp[0] >> 3) & 7, 4, "version");
        assert_eq!(ntp[0] & 7, 3, "client mode");
        assert!(ntp[1..24].iter().all(|&b| b == 0), "stratum..reference timestamp are zero");
        assert_eq!(&ntp[24..32], &[1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(&ntp[32..40], &[0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18]);
        assert_eq!(&ntp[40..48], &[0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x19]);
    }

    #[test]
    fn request_udp_checksum_verifies() {
        let (ep, req, f) = sample_request();
        let udp = &f[34..];
        assert_ne!(be16(udp, 6), 0);
        let mut sum = checksum_add(0, &req.src_ip.to_be_bytes());
        sum = checksum_add(sum, &ep.dst_ip.to_be_bytes());
        sum += 17 + udp.len() as u32;
        assert_eq!(checksum_finish(checksum_add(sum, udp)), 0);
    }

    #[test]
    fn parse_crafted_response() {
        let f = response_frame(0xac10_0105, 1, 2, 3);
        let r = parse_response(&f, &filter()).unwrap();
        assert_eq!(r.client_ip, 0xac10_0105);
        assert_eq!(r.dst_port, 40000);
        assert_eq!((r.origin, r.receive, r.transmit), (1, 2, 3));
        assert_eq!(r.stratum, 1);
        // Longer frames (e.g. padded or with extension fields) are fine.
        let mut long = f.to_vec();
        long.extend_from_slice(&[0; 20]);
        assert!(parse_response(&long, &filter()).is_some());
    }

    #[test]
    fn parse_rejects_others() {
        let good = response_frame(0xac10_0105, 1, 2, 3);
        let reject = |mutate: &dyn Fn(&mut [u8; FRAME_LEN])| {
            let mut f = good;
            mutate(&mut f);
            parse_response(&f, &filter())
        };
        assert!(reject(&|_| {}).is_some());
        assert!(reject(&|f| f[34] = 0x01).is_none(), "source port 379 instead of 123");
        assert!(reject(&|f| f[34 + 1] = 124).is_none(), "source port 124");
        assert!(reject(&|f| f[29] = 2).is_none(), "other source IP");
        assert!(reject(&|f| f[30] = 192).is_none(), "destination outside the client network");
        assert!(reject(&|f| f[30..34].copy_from_slice(&[172, 16, 0, 0])).is_none(), "network address");
        assert!(reject(&|f| f[11] = 9).is_none(), "other source MAC");
        assert!(reject(&|f| f[23] = 6).is_none(), "TCP");
        assert!(reject(&|f| f[12] = 0x86).is_none(), "not IPv4 ethertype");
        assert!(reject(&|f| f[20] = 0x20).is_none(), "fragment (MF)");
        assert!(reject(&|f| f[42] = 0x23).is_none(), "client mode, not server");
        assert!(parse_response(&good[..80], &filter()).is_none(), "truncated");
    }

    #[test]
    fn net_mapping() {
        let n = net();
        assert_eq!(n.host_count(), 65534);
        assert_eq!(n.client_ip(0), 0xac10_0001);
        assert_eq!(n.client_ip(999), 0xac10_03e8);
        assert_eq!(n.client_index(0xac10_03e8), Some(999));
        assert_eq!(n.client_index(0xac10_0000), None);
        assert_eq!(n.client_index(0xac10_ffff), None);
        assert_eq!(n.client_index(0xac11_0001), None);
        assert!(n.is_private());
        assert!(!Net::parse("8.8.0.0/16").unwrap().is_private());
        assert!(!Net::parse("172.0.0.0/8").unwrap().is_private());
        assert_eq!(Net::parse("172.16.5.7/16").unwrap(), n);
        assert!(Net::parse("172.16.0.0").is_err());
        assert!(Net::parse("172.16.0.0/31").is_err());
    }

    #[test]
    fn mac_parsing() {
        assert_eq!(parse_mac("52:54:00:00:00:01").unwrap(), SERVER_MAC);
        assert_eq!(fmt_mac(&SERVER_MAC), "52:54:00:00:00:01");
        assert!(parse_mac("52:54:00:00:00").is_err());
        assert!(parse_mac("52:54:00:00:00:zz").is_err());
        assert!(parse_mac("52:54:00:00:00:100").is_err());
    }
}
