//! A per-user rate limit on chat commands, so one account cannot flood a channel or the
//! database. It is the generic cell rate algorithm over the service's clock: each command
//! pushes a user's "theoretical arrival time" forward by one interval, and a burst of commands
//! may run ahead of the clock by a fixed tolerance.

use std::collections::HashMap;
use std::sync::Mutex;

/// How many commands a user may send at once, and how fast the allowance comes back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RateLimit {
    /// Commands allowed in a burst.
    pub burst: u32,
    /// Seconds until one more command is allowed.
    pub interval: i64,
}

impl RateLimit {
    /// The limit of the chat bots: ten commands at once, then one every three seconds.
    pub const CHAT: RateLimit = RateLimit {
        burst: 10,
        interval: 3,
    };

    /// The limit on completions asked while typing (Discord's autocomplete), one per key
    /// press: thirty at once, then one a second.
    pub const COMPLETIONS: RateLimit = RateLimit {
        burst: 30,
        interval: 1,
    };
}

/// Whether a command may go ahead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Within the limit.
    Allowed,
    /// Over the limit: `first` is set for the first refused command of a run (the only one
    /// worth an answer); `wait` is the seconds until the next command is allowed.
    Limited { first: bool, wait: i64 },
}

#[derive(Debug, Clone, Copy)]
struct Cell {
    /// When the user's allowance is fully back.
    arrival: i64,
    /// Whether the user was told about the limit since their last allowed command.
    warned: bool,
}

/// The rate limits of every user, in memory (a restart forgives everyone).
#[derive(Debug)]
pub struct RateLimiter {
    limit: RateLimit,
    cells: Mutex<HashMap<(String, String), Cell>>,
}

/// Above this many tracked users, those whose allowance is fully back are forgotten.
const PRUNE_ABOVE: usize = 10_000;

impl RateLimiter {
    /// A limiter applying `limit` to each user.
    #[must_use]
    pub fn new(limit: RateLimit) -> RateLimiter {
        RateLimiter {
            limit,
            cells: Mutex::default(),
        }
    }

    /// Counts one command of `(platform, user id)` at time `now`.
    pub fn check(&self, platform: &str, user: &str, now: i64) -> Verdict {
        let RateLimit { burst, interval } = self.limit;
        let tolerance = interval * i64::from(burst.saturating_sub(1));
        let mut cells = self
            .cells
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if cells.len() > PRUNE_ABOVE {
            cells.retain(|_, cell| cell.arrival > now);
        }
        let cell = cells
            .entry((platform.to_owned(), user.to_owned()))
            .or_insert(Cell {
                arrival: now,
                warned: false,
            });
        let arrival = cell.arrival.max(now);
        if arrival - now > tolerance {
            let first = !cell.warned;
            cell.warned = true;
            return Verdict::Limited {
                first,
                wait: arrival - now - tolerance,
            };
        }
        cell.arrival = arrival + interval;
        cell.warned = false;
        Verdict::Allowed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_then_one_command_per_interval() {
        let limiter = RateLimiter::new(RateLimit {
            burst: 3,
            interval: 5,
        });
        for _ in 0..3 {
            assert_eq!(limiter.check("p", "alice", 100), Verdict::Allowed);
        }
        assert_eq!(
            limiter.check("p", "alice", 100),
            Verdict::Limited {
                first: true,
                wait: 5
            }
        );
        assert_eq!(
            limiter.check("p", "alice", 102),
            Verdict::Limited {
                first: false,
                wait: 3
            }
        );
        // Others are not held up by alice.
        assert_eq!(limiter.check("p", "bob", 102), Verdict::Allowed);
        assert_eq!(limiter.check("q", "alice", 102), Verdict::Allowed);
        assert_eq!(limiter.check("p", "alice", 105), Verdict::Allowed);
        assert!(matches!(
            limiter.check("p", "alice", 105),
            Verdict::Limited { first: true, .. }
        ));
        // After a quiet spell the whole burst is back.
        for _ in 0..3 {
            assert_eq!(limiter.check("p", "alice", 1000), Verdict::Allowed);
        }
    }

    #[test]
    fn many_users_are_forgotten_once_their_allowance_is_back() {
        let limiter = RateLimiter::new(RateLimit::CHAT);
        for n in 0..=PRUNE_ABOVE {
            limiter.check("p", &n.to_string(), 0);
        }
        limiter.check("p", "late", 1000);
        let cells = limiter.cells.lock().expect("not poisoned");
        assert_eq!(cells.len(), 1);
    }
}
