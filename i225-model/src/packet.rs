// SPDX-License-Identifier: GPL-2.0

//! Packet helpers: Internet checksums, CRCs, a minimal header parser and
//! the Toeplitz RSS hash.

pub const ETH_HLEN: usize = 14;
pub const ETH_ALEN: usize = 6;
pub const ETH_P_IPV4: u16 = 0x0800;
pub const ETH_P_IPV6: u16 = 0x86DD;
pub const IPPROTO_TCP: u8 = 6;
pub const IPPROTO_UDP: u8 = 17;
pub const IPPROTO_SCTP: u8 = 132;
/// Minimum frame length without FCS.
pub const ETH_ZLEN: usize = 60;
pub const FCS_LEN: usize = 4;

pub fn be16(b: &[u8], off: usize) -> u16 {
    u16::from_be_bytes([b[off], b[off + 1]])
}

pub fn put_be16(b: &mut [u8], off: usize, v: u16) {
    b[off..off + 2].copy_from_slice(&v.to_be_bytes());
}

pub fn be32(b: &[u8], off: usize) -> u32 {
    u32::from_be_bytes(b[off..off + 4].try_into().unwrap())
}

pub fn put_be32(b: &mut [u8], off: usize, v: u32) {
    b[off..off + 4].copy_from_slice(&v.to_be_bytes());
}

/// Ones'-complement sum of `data` (big-endian 16-bit words) added to `init`,
/// not yet folded.
pub fn sum16(data: &[u8], init: u32) -> u32 {
    let mut sum = u64::from(init);
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        sum += u64::from(u16::from_be_bytes([c[0], c[1]]));
    }
    if let [last] = chunks.remainder() {
        sum += u64::from(*last) << 8;
    }
    while sum > 0xFFFF_FFFF {
        sum = (sum & 0xFFFF_FFFF) + (sum >> 32);
    }
    sum as u32
}

/// Folds a 32-bit ones'-complement sum to 16 bits.
pub fn fold(mut sum: u32) -> u16 {
    while sum > 0xFFFF {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    sum as u16
}

/// The Internet checksum (complemented folded sum).
pub fn checksum(data: &[u8], init: u32) -> u16 {
    !fold(sum16(data, init))
}

const fn crc_table(poly: u32) -> [u32; 256] {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { poly ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
}

static CRC32_TABLE: [u32; 256] = crc_table(0xEDB8_8320);
static CRC32C_TABLE: [u32; 256] = crc_table(0x82F6_3B78);

fn crc(table: &[u32; 256], data: &[u8]) -> u32 {
    !data.iter().fold(!0u32, |c, &b| table[((c ^ u32::from(b)) & 0xFF) as usize] ^ (c >> 8))
}

/// IEEE 802.3 CRC-32 (the Ethernet FCS).
pub fn crc32(data: &[u8]) -> u32 {
    crc(&CRC32_TABLE, data)
}

/// CRC-32C (Castagnoli), used by SCTP.
pub fn crc32c(data: &[u8]) -> u32 {
    crc(&CRC32C_TABLE, data)
}

/// Layer 3 of a parsed frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum L3 {
    Ipv4 { hdr_len: usize, fragment: bool },
    Ipv6 { ext_hdrs: bool },
    Other,
}

/// Offsets found in an (untagged or single-tagged) Ethernet frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parsed {
    pub l3_off: usize,
    pub l3: L3,
    /// L4 protocol number and offset, when the parser got that far.
    pub l4: Option<(u8, usize)>,
}

/// Parses Ethernet (optionally one 802.1Q tag with TPID `vlan_tpid`),
/// IPv4/IPv6 (IPv6 extension headers are skipped for the common ones) and
/// locates L4.
pub fn parse(frame: &[u8], vlan_tpid: u16) -> Option<Parsed> {
    if frame.len() < ETH_HLEN {
        return None;
    }
    let mut off = 12;
    let mut ethertype = be16(frame, off);
    if ethertype == vlan_tpid || ethertype == 0x8100 {
        off += 4;
        if frame.len() < off + 2 {
            return None;
        }
        ethertype = be16(frame, off);
    }
    let l3_off = off + 2;
    let ip = &frame[l3_off..];
    match ethertype {
        ETH_P_IPV4 if ip.len() >= 20 && ip[0] >> 4 == 4 => {
            let hdr_len = usize::from(ip[0] & 0xF) * 4;
            let fragment = be16(ip, 6) & 0x3FFF != 0;
            let l4 = (!fragment && hdr_len >= 20 && ip.len() >= hdr_len).then_some((ip[9], l3_off + hdr_len));
            Some(Parsed { l3_off, l3: L3::Ipv4 { hdr_len, fragment }, l4 })
        }
        ETH_P_IPV6 if ip.len() >= 40 && ip[0] >> 4 == 6 => {
            let mut next = ip[6];
            let mut o = 40;
            let mut ext_hdrs = false;
            // Hop-by-hop, routing, destination options.
            while matches!(next, 0 | 43 | 60) && ip.len() >= o + 8 {
                ext_hdrs = true;
                let len = (usize::from(ip[o + 1]) + 1) * 8;
                next = ip[o];
                o += len;
            }
            let l4 = (ip.len() >= o && next != 44).then_some((next, l3_off + o));
            Some(Parsed { l3_off, l3: L3::Ipv6 { ext_hdrs }, l4 })
        }
        _ => Some(Parsed { l3_off, l3: L3::Other, l4: None }),
    }
}

/// Pseudo-header sum for an L4 checksum over `l4_len` bytes.
pub fn pseudo_header_sum(frame: &[u8], p: &Parsed, proto: u8, l4_len: usize) -> u32 {
    let ip = &frame[p.l3_off..];
    let addrs = match p.l3 {
        L3::Ipv4 { .. } => &ip[12..20],
        L3::Ipv6 { .. } => &ip[8..40],
        L3::Other => return 0,
    };
    let mut sum = sum16(addrs, 0);
    sum = sum16(&(l4_len as u32).to_be_bytes(), sum);
    sum16(&[0, proto], sum)
}

/// Verifies the L4 checksum of a TCP/UDP segment in `frame`.
pub fn l4_checksum_ok(frame: &[u8], p: &Parsed) -> Option<bool> {
    let (proto, off) = p.l4?;
    if !matches!(proto, IPPROTO_TCP | IPPROTO_UDP) || off > frame.len() {
        return None;
    }
    let l4_len = match p.l3 {
        L3::Ipv4 { .. } => usize::from(be16(frame, p.l3_off + 2)).checked_sub(off - p.l3_off)?,
        L3::Ipv6 { .. } => usize::from(be16(frame, p.l3_off + 4)).checked_sub(off - p.l3_off - 40)?,
        L3::Other => return None,
    };
    let seg = frame.get(off..off + l4_len)?;
    if proto == IPPROTO_UDP && seg.len() >= 8 && be16(seg, 6) == 0 && matches!(p.l3, L3::Ipv4 { .. }) {
        return Some(true); // no checksum
    }
    let sum = sum16(seg, pseudo_header_sum(frame, p, proto, l4_len));
    Some(fold(sum) == 0xFFFF)
}

/// The Microsoft RSS Toeplitz hash of `input` under `key` (40 bytes).
pub fn toeplitz(key: &[u8; 40], input: &[u8]) -> u32 {
    let mut hash = 0u32;
    let mut window = u32::from_be_bytes(key[0..4].try_into().unwrap());
    for (next_key_byte, &byte) in (4..).zip(input) {
        for bit in (0..8).rev() {
            if byte & (1 << bit) != 0 {
                hash ^= window;
            }
            let kb = key.get(next_key_byte).copied().unwrap_or(0);
            window = (window << 1) | u32::from((kb >> bit) & 1);
        }
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_check_values() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
    }

    #[test]
    fn ipv4_header_checksum() {
        // Example header from RFC 1071 discussions (checksum 0xB861).
        let mut h = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xC0, 0xA8, 0x00, 0x01, 0xC0, 0xA8,
            0x00, 0xC7,
        ];
        assert_eq!(checksum(&h, 0), 0xB861);
        put_be16(&mut h, 10, 0xB861);
        assert_eq!(checksum(&h, 0), 0);
    }

    #[test]
    fn toeplitz_reference_vector() {
        // The verification suite key and its first IPv4/TCP vector:
        // 66.9.149.187:2794 -> 161.142.100.80:1766 hashes to 0x51ccc178.
        let key: [u8; 40] = [
            0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca,
            0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b,
            0xbe, 0xac, 0x01, 0xfa,
        ];
        let input = [66, 9, 149, 187, 161, 142, 100, 80, 0x0a, 0xea, 0x06, 0xe6];
        assert_eq!(toeplitz(&key, &input), 0x51cc_c178);
        assert_eq!(toeplitz(&key, &input[..8]), 0x323e_8fc2);
    }
}
