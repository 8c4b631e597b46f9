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

/// A clock that can be moved: one that stands still until moved (tests, `pigeon console
/// --now`), or one that runs with the machine's clock from wherever it was moved to (the
/// console's `wait` without `--now`). Clones share the time.
#[derive(Debug, Clone, Default)]
pub struct ManualClock {
    /// The time shown when standing still; else the shift from the machine's clock.
    value: Arc<AtomicI64>,
    runs: bool,
}

impl ManualClock {
    /// A clock showing `now`, standing still until moved.
    #[must_use]
    pub fn new(now: i64) -> ManualClock {
        ManualClock {
            value: Arc::new(AtomicI64::new(now)),
            runs: false,
        }
    }

    /// A clock that shows the machine's time until moved, and runs on from there.
    #[must_use]
    pub fn running() -> ManualClock {
        ManualClock {
            value: Arc::new(AtomicI64::new(0)),
            runs: true,
        }
    }

    /// Moves the clock forward by `seconds`.
    pub fn advance(&self, seconds: i64) {
        self.value.fetch_add(seconds, Ordering::SeqCst);
    }

    /// Sets the clock to `now`.
    pub fn set(&self, now: i64) {
        let base = if self.runs { SystemClock.now() } else { 0 };
        self.value.store(now - base, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> i64 {
        let base = if self.runs { SystemClock.now() } else { 0 };
        base + self.value.load(Ordering::SeqCst)
    }
}

/// Reads an instant written the RFC 3339 way, as Unix seconds: `2026-12-01T10:00:00Z`, also
/// without seconds, with a space for the `T`, with an offset such as `+01:00`, or a date alone
/// (midnight UTC). `None` for anything else.
#[must_use]
pub fn parse_utc(text: &str) -> Option<i64> {
    let text = text.trim();
    let number = |s: &str| -> Option<i64> {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    let (date, time) = match text.split_once(['T', 't', ' ']) {
        Some((date, time)) => (date, Some(time)),
        None => (text, None),
    };
    let mut parts = date.splitn(3, '-');
    let (year, month, day) = (
        number(parts.next()?)?,
        number(parts.next()?)?,
        number(parts.next()?)?,
    );
    let days_in_month = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        _ => return None,
    };
    if !(1..=days_in_month).contains(&day) {
        return None;
    }
    let (clock, offset) = match time {
        None => ("00:00", 0),
        Some(time) => {
            if let Some(clock) = time.strip_suffix(['Z', 'z']) {
                (clock, 0)
            } else if let Some(at) = time.rfind(['+', '-']) {
                let (clock, offset) = time.split_at(at);
                let sign = if offset.starts_with('-') { -1 } else { 1 };
                let (h, m) = offset[1..].split_once(':')?;
                let (h, m) = (number(h)?, number(m)?);
                if h > 23 || m > 59 {
                    return None;
                }
                (clock, sign * (h * HOUR + m * 60))
            } else {
                (time, 0)
            }
        }
    };
    let mut fields = clock.split(':');
    let hour = number(fields.next()?)?;
    let minute = number(fields.next()?)?;
    let second = match fields.next() {
        // Fractions of a second are read and dropped.
        Some(s) => number(s.split_once('.').map_or(s, |(whole, _)| whole))?,
        None => 0,
    };
    if fields.next().is_some() || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    // Days-from-civil (Howard Hinnant's algorithm), the inverse of `format_utc`.
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * DAY + hour * HOUR + minute * 60 + second - offset)
}

/// Reads a span of time such as `25h`, `2d 3h`, `1d12h`, `90m` or `45s` (units d, h, m, s,
/// in any combination), as seconds. `None` for anything else, and for nothing at all.
#[must_use]
pub fn parse_span(text: &str) -> Option<i64> {
    let mut total: i64 = 0;
    let mut number = String::new();
    let mut any = false;
    for c in text.chars().filter(|c| !c.is_whitespace()) {
        if c.is_ascii_digit() {
            number.push(c);
            continue;
        }
        let unit = match c.to_ascii_lowercase() {
            'd' => DAY,
            'h' => HOUR,
            'm' => 60,
            's' => 1,
            _ => return None,
        };
        let value: i64 = number.parse().ok()?;
        total = total.checked_add(value.checked_mul(unit)?)?;
        number.clear();
        any = true;
    }
    (any && number.is_empty()).then_some(total)
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

/// A count and its noun, plural unless the count is one: `1 day`, `3 days`, `0 players`.
#[must_use]
pub fn plural(n: impl fmt::Display, noun: &str) -> String {
    let n = n.to_string();
    let s = if n == "1" { "" } else { "s" };
    format!("{n} {noun}{s}")
}

/// Writes a duration in seconds the way people say it: `2 days 3 hours`, `45 minutes`.
#[must_use]
pub fn format_duration(seconds: i64) -> String {
    let seconds = seconds.max(0);
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
    fn counts_take_the_plural_unless_one() {
        assert_eq!(plural(1, "day"), "1 day");
        assert_eq!(plural(0usize, "player"), "0 players");
        assert_eq!(plural(14i64, "day"), "14 days");
        assert_eq!(plural("½", "point"), "½ points");
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
    fn instants_read_back_what_is_written() {
        assert_eq!(parse_utc("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_utc("2000-02-29"), Some(951_782_400));
        assert_eq!(parse_utc("2026-11-22T12:20:00Z"), Some(1_795_350_000));
        assert_eq!(parse_utc("2026-11-22 12:20"), Some(1_795_350_000));
        assert_eq!(parse_utc("2026-11-22T13:20:00+01:00"), Some(1_795_350_000));
        assert_eq!(
            parse_utc("2026-11-22T10:20:00.5-02:00"),
            Some(1_795_350_000)
        );
        for unix in [0, 951_782_400, 1_795_350_000, 4_107_542_400] {
            let written = format_utc(unix).replace(" UTC", "");
            assert_eq!(parse_utc(&written), Some(unix), "{written}");
        }
        for bad in [
            "",
            "tomorrow",
            "2026-02-30",
            "2026-13-01",
            "2026-11-22T25:00Z",
            "2026-11",
        ] {
            assert_eq!(parse_utc(bad), None, "{bad}");
        }
    }

    #[test]
    fn spans_combine_units() {
        assert_eq!(parse_span("25h"), Some(25 * HOUR));
        assert_eq!(parse_span("2d 3h"), Some(2 * DAY + 3 * HOUR));
        assert_eq!(
            parse_span("1d12h30m15s"),
            Some(DAY + 12 * HOUR + 30 * 60 + 15)
        );
        assert_eq!(parse_span("90M"), Some(90 * 60));
        for bad in ["", "25", "h", "2 days", "3w", "-1h"] {
            assert_eq!(parse_span(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_running_clock_moves_with_the_machine_from_where_it_was_set() {
        let clock = ManualClock::running();
        let machine = SystemClock.now();
        assert!((clock.now() - machine).abs() <= 1);
        clock.advance(DAY);
        assert!((clock.now() - machine - DAY).abs() <= 1);
        clock.set(5);
        assert!((clock.now() - 5).abs() <= 1);
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
