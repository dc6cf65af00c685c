//! Wall-clock time for oath: one `Timestamp` type, formatted and parsed as ISO 8601 UTC.
//!
//! Owns the only call to the system clock. `OATH_NOW` (an ISO 8601 instant) pins the clock for
//! tests and the demo, so no test depends on the day it runs.

use std::fmt;

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::env;

/// An instant in UTC with millisecond precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(OffsetDateTime);

impl Timestamp {
    /// Returns the current time, or the instant in `OATH_NOW` when it is set and valid.
    pub fn now() -> Self {
        if let Some(pinned) = std::env::var_os(env::OATH_NOW)
            && let Some(ts) = pinned.to_str().and_then(Self::parse)
        {
            return ts;
        }
        Self(OffsetDateTime::now_utc())
    }

    /// Parses an RFC 3339 / ISO 8601 instant such as `2026-02-24T10:00:00Z`.
    pub fn parse(s: &str) -> Option<Self> {
        OffsetDateTime::parse(s.trim(), &Rfc3339)
            .ok()
            .map(|t| Self(t.to_offset(time::UtcOffset::UTC)))
    }

    /// Builds a timestamp from seconds since the Unix epoch.
    pub fn from_unix(secs: i64) -> Self {
        Self(OffsetDateTime::from_unix_timestamp(secs).unwrap_or(OffsetDateTime::UNIX_EPOCH))
    }

    /// Builds a timestamp from milliseconds since the Unix epoch.
    pub fn from_unix_millis(ms: i128) -> Self {
        Self(
            OffsetDateTime::from_unix_timestamp_nanos(ms * 1_000_000)
                .unwrap_or(OffsetDateTime::UNIX_EPOCH),
        )
    }

    /// Returns seconds since the Unix epoch.
    pub fn unix(self) -> i64 {
        self.0.unix_timestamp()
    }

    /// Returns milliseconds since the Unix epoch.
    pub fn unix_millis(self) -> i128 {
        self.0.unix_timestamp_nanos() / 1_000_000
    }

    /// Returns this instant moved by a number of seconds (negative moves back).
    pub fn plus_seconds(self, secs: i64) -> Self {
        Self(self.0 + time::Duration::seconds(secs))
    }

    /// Formats as `YYYY-MM-DDTHH:MM:SSZ` (the seed files' second resolution).
    pub fn iso_seconds(self) -> String {
        let t = self.0;
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
            t.year(),
            u8::from(t.month()),
            t.day(),
            t.hour(),
            t.minute(),
            t.second()
        )
    }

    /// Formats as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    pub fn iso_millis(self) -> String {
        let t = self.0;
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
            t.year(),
            u8::from(t.month()),
            t.day(),
            t.hour(),
            t.minute(),
            t.second(),
            t.millisecond()
        )
    }

    /// Formats the UTC date as `YYYYMMDD` (ids such as `kpt-20260208-001`).
    pub fn date_compact(self) -> String {
        let t = self.0;
        format!("{:04}{:02}{:02}", t.year(), u8::from(t.month()), t.day())
    }

    /// Formats a name-safe stamp `YYYYMMDDTHHMMSSZ` for file suffixes.
    pub fn file_stamp(self) -> String {
        let t = self.0;
        format!(
            "{:04}{:02}{:02}T{:02}{:02}{:02}Z",
            t.year(),
            u8::from(t.month()),
            t.day(),
            t.hour(),
            t.minute(),
            t.second()
        )
    }

    /// Returns whole days elapsed from `earlier` to `self` (0 when `earlier` is later).
    pub fn days_since(self, earlier: Timestamp) -> i64 {
        ((self.unix() - earlier.unix()) / 86_400).max(0)
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.iso_seconds())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_format_round_trip() {
        let t = Timestamp::parse("2026-02-24T10:00:00Z").unwrap();
        assert_eq!(t.iso_seconds(), "2026-02-24T10:00:00Z");
        assert_eq!(t.iso_millis(), "2026-02-24T10:00:00.000Z");
        assert_eq!(t.date_compact(), "20260224");
        let offset = Timestamp::parse("2026-02-24T12:00:00+02:00").unwrap();
        assert_eq!(offset, t);
        let ms = Timestamp::parse("2026-02-24T10:00:00.250Z").unwrap();
        assert_eq!(Timestamp::from_unix_millis(ms.unix_millis()), ms);
    }

    #[test]
    fn days_since_floors_and_never_goes_negative() {
        let a = Timestamp::parse("2026-01-01T00:00:00Z").unwrap();
        let b = Timestamp::parse("2026-01-15T23:59:59Z").unwrap();
        assert_eq!(b.days_since(a), 14);
        assert_eq!(a.days_since(b), 0);
    }
}
