// SPDX-License-Identifier: GPL-2.0

//! NTP timestamp helpers: 64-bit NTP timestamps (32.32 fixed point, seconds
//! since 1900) to and from nanoseconds since the Unix epoch.

/// Seconds from 1900-01-01 (NTP era 0) to 1970-01-01 (Unix epoch).
pub const NTP_UNIX_OFFSET: i64 = 2_208_988_800;

const NSEC_PER_SEC: i64 = 1_000_000_000;

/// Converts an NTP timestamp to nanoseconds since the Unix epoch.
///
/// A zero timestamp means "not set" in NTP and gives `None`. The era is
/// chosen so that the result lies between 1968 and 2104: seconds values
/// below 2^31 are taken to be in era 1 (after 2036-02-07).
pub fn ntp_to_unix_ns(ts: u64) -> Option<i64> {
    if ts == 0 {
        return None;
    }
    let mut secs = (ts >> 32) as i64;
    if secs < 0x8000_0000 {
        secs += 1 << 32;
    }
    let frac = ts & 0xffff_ffff;
    // Round to the nearest nanosecond; the result may be exactly 1e9, which
    // simply carries into the seconds when added below.
    let nsec = ((frac * NSEC_PER_SEC as u64 + (1 << 31)) >> 32) as i64;
    Some((secs - NTP_UNIX_OFFSET) * NSEC_PER_SEC + nsec)
}

/// Converts nanoseconds since the Unix epoch to an NTP timestamp (the
/// seconds wrap at the era boundary, as on the wire). Requests carry random
/// values instead, so only the tests need this.
#[cfg(test)]
pub fn unix_ns_to_ntp(ns: i64) -> u64 {
    let mut secs = ns.div_euclid(NSEC_PER_SEC) + NTP_UNIX_OFFSET;
    let nsec = ns.rem_euclid(NSEC_PER_SEC) as u64;
    let mut frac = ((nsec << 32) + NSEC_PER_SEC as u64 / 2) / NSEC_PER_SEC as u64;
    if frac >= 1 << 32 {
        frac -= 1 << 32;
        secs += 1;
    }
    ((secs as u64 & 0xffff_ffff) << 32) | frac
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unix_epoch() {
        assert_eq!(unix_ns_to_ntp(0), 0x83aa_7e80_0000_0000);
        assert_eq!(ntp_to_unix_ns(0x83aa_7e80_0000_0000), Some(0));
    }

    #[test]
    fn fractions() {
        // 0.5 s and 0.25 s are exact in both representations.
        assert_eq!(ntp_to_unix_ns(0x83aa_7e81_8000_0000), Some(1_500_000_000));
        assert_eq!(ntp_to_unix_ns(0x83aa_7e80_4000_0000), Some(250_000_000));
        assert_eq!(unix_ns_to_ntp(1_500_000_000), 0x83aa_7e81_8000_0000);
        // One NTP fraction unit is ~0.233 ns: rounds to 0, four units to 1 ns.
        assert_eq!(ntp_to_unix_ns(0x83aa_7e80_0000_0001), Some(0));
        assert_eq!(ntp_to_unix_ns(0x83aa_7e80_0000_0005), Some(1));
        // Just below a full second rounds up into the next second.
        assert_eq!(ntp_to_unix_ns(0x83aa_7e80_ffff_ffff), Some(1_000_000_000));
    }

    #[test]
    fn known_date() {
        // 2024-01-01T00:00:00Z = Unix 1704067200 = NTP 3913056000.
        let unix = 1_704_067_200i64;
        let ntp_secs = (unix + NTP_UNIX_OFFSET) as u64;
        assert_eq!(ntp_secs, 3_913_056_000);
        assert_eq!(ntp_to_unix_ns(ntp_secs << 32), Some(unix * NSEC_PER_SEC));
    }

    #[test]
    fn zero_is_unset() {
        assert_eq!(ntp_to_unix_ns(0), None);
    }

    #[test]
    fn era_one() {
        // NTP seconds 0 with a non-zero fraction is 2036-02-07T06:28:16Z.
        assert_eq!(ntp_to_unix_ns(0x0000_0000_8000_0000), Some(2_085_978_496 * NSEC_PER_SEC + 500_000_000));
        assert_eq!(unix_ns_to_ntp(2_085_978_496 * NSEC_PER_SEC + 500_000_000), 0x0000_0000_8000_0000);
    }

    #[test]
    fn round_trip() {
        for &ns in &[1, 999_999_999, 1_700_000_000_123_456_789, 1_234_567_890_987_654_321, 2_100_000_000_000_000_001] {
            let back = ntp_to_unix_ns(unix_ns_to_ntp(ns)).unwrap();
            assert!((back - ns).abs() <= 1, "{ns} -> {back}");
        }
    }
}
