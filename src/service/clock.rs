//! Time for the service, injected so tests can move it.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// Seconds in an hour and a day.
pub const HOUR: i64 = 3600;
/// Seconds in a day.
pub const DAY: i64 = 24 * HOUR;

/// The current time as Unix seconds.
pub trait Clock: Send + Sync + fmt::Debug {
    /// Seconds since 1970-01-01 UTC.
    fn now(&self) -> i64;
}

/// The machine's clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> i64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64)
    }
}

/// A clock that stands still until moved: for tests and scripted sessions.
#[derive(Debug, Clone, Default)]
pub struct ManualClock(Arc<AtomicI64>);

impl ManualClock {
    /// A clock showing `now`.
    #[must_use]
    pub fn new(now: i64) -> ManualClock {
        ManualClock(Arc::new(AtomicI64::new(now)))
    }

    /// Moves the clock forward by `seconds`.
    pub fn advance(&self, seconds: i64) {
        self.0.fetch_add(seconds, Ordering::SeqCst);
    }

    /// Sets the clock to `now`.
    pub fn set(&self, now: i64) {
        self.0.store(now, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }
}

/// Writes a Unix time as `YYYY-MM-DD HH:MM UTC`.
#[must_use]
pub fn format_utc(unix: i64) -> String {
    let days = unix.div_euclid(DAY);
    let secs = unix.rem_euclid(DAY);
    // Civil-from-days (Howard Hinnant's algorithm), proleptic Gregorian calendar.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        secs / HOUR,
        secs % HOUR / 60
    )
}

/// Writes a duration in seconds the way people say it: `2 days 3 hours`, `45 minutes`.
#[must_use]
pub fn format_duration(seconds: i64) -> String {
    let seconds = seconds.max(0);
    let plural = |n: i64, unit: &str| format!("{n} {unit}{}", if n == 1 { "" } else { "s" });
    let (days, hours, minutes) = (seconds / DAY, seconds % DAY / HOUR, seconds % HOUR / 60);
    match (days, hours) {
        (0, 0) => plural(minutes.max(1), "minute"),
        (0, h) => plural(h, "hour"),
        (d, 0) => plural(d, "day"),
        (d, h) => format!("{} {}", plural(d, "day"), plural(h, "hour")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates_are_civil_dates() {
        assert_eq!(format_utc(0), "1970-01-01 00:00 UTC");
        assert_eq!(format_utc(951_782_400), "2000-02-29 00:00 UTC");
        assert_eq!(format_utc(1_795_350_000), "2026-11-22 12:20 UTC");
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(format_duration(3 * DAY), "3 days");
        assert_eq!(format_duration(DAY + 2 * HOUR + 59), "1 day 2 hours");
        assert_eq!(format_duration(HOUR), "1 hour");
        assert_eq!(format_duration(20), "1 minute");
        assert_eq!(format_duration(-5), "1 minute");
    }

    #[test]
    fn the_manual_clock_moves_only_when_told() {
        let clock = ManualClock::new(100);
        assert_eq!(clock.now(), 100);
        clock.advance(HOUR);
        assert_eq!(clock.now(), 100 + HOUR);
        clock.set(5);
        assert_eq!(clock.now(), 5);
    }
}
