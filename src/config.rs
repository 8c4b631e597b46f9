//! Configuration pieces shared by the chat adapters.

use std::fmt;
use std::str::FromStr;

/// A secret from the environment (a token or a password). Its `Debug` and `Display` print
/// `***`, so it can sit in a config struct that is logged or printed without leaking.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    #[must_use]
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }

    /// The value itself, for the one call that needs it (a login). Never log it.
    #[must_use]
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl FromStr for Secret {
    type Err = std::convert::Infallible;

    fn from_str(value: &str) -> Result<Secret, Self::Err> {
        Ok(Secret::new(value))
    }
}

/// The Discord shards one process runs: `first` to `last` (both included) of `total`, as
/// `DISCORD_SHARDS=0-3/8` writes it (`2/8` is shard 2 alone).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ShardRange {
    /// The first shard this process runs.
    pub first: u32,
    /// The last shard this process runs.
    pub last: u32,
    /// How many shards the bot has in all, over every process.
    pub total: u32,
}

/// Why a shard range does not read.
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error)]
pub enum ShardRangeError {
    /// Not of the form `first-last/total`.
    #[error(
        "\"{0}\" is not a shard range: write FIRST-LAST/TOTAL, such as 0-3/8 (shards 0 to 3 of 8), or SHARD/TOTAL"
    )]
    Form(String),
    /// The numbers do not fit together.
    #[error(
        "shards {first} to {last} of {total} do not fit: shards are numbered 0 to {max}, and the first is not after the last",
        max = total.saturating_sub(1)
    )]
    Bounds {
        /// The first shard asked for.
        first: u32,
        /// The last shard asked for.
        last: u32,
        /// The total asked for.
        total: u32,
    },
}

impl FromStr for ShardRange {
    type Err = ShardRangeError;

    fn from_str(text: &str) -> Result<ShardRange, ShardRangeError> {
        let form = || ShardRangeError::Form(text.to_owned());
        let number = |part: &str| part.trim().parse::<u32>().map_err(|_| form());
        let (shards, total) = text.split_once('/').ok_or_else(form)?;
        let (first, last) = match shards.split_once('-') {
            Some((first, last)) => (number(first)?, number(last)?),
            None => (number(shards)?, number(shards)?),
        };
        let total = number(total)?;
        if total == 0 || first > last || last >= total {
            return Err(ShardRangeError::Bounds { first, last, total });
        }
        Ok(ShardRange { first, last, total })
    }
}

impl fmt::Display for ShardRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}/{}", self.first, self.last, self.total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_ranges_read_as_written() {
        let range = |first, last, total| ShardRange { first, last, total };
        assert_eq!("0-3/8".parse(), Ok(range(0, 3, 8)));
        assert_eq!(" 4 - 7 / 8".parse(), Ok(range(4, 7, 8)));
        assert_eq!("2/8".parse(), Ok(range(2, 2, 8)));
        assert_eq!(range(0, 3, 8).to_string(), "0-3/8");
        for bad in ["", "0-3", "a-b/8", "3-0/8", "0-8/8", "0/0", "-1/4"] {
            let error = bad.parse::<ShardRange>().expect_err(bad).to_string();
            assert!(error.contains("shard"), "{bad}: {error}");
        }
    }

    #[test]
    fn secrets_never_print() {
        let secret = Secret::new("hunter2-token");
        assert_eq!(format!("{secret}"), "***");
        assert_eq!(format!("{secret:?}"), "***");
        #[derive(Debug)]
        #[allow(dead_code)]
        struct Config {
            token: Secret,
        }
        let shown = format!(
            "{:?}",
            Config {
                token: secret.clone()
            }
        );
        assert!(!shown.contains("hunter2"), "{shown}");
        assert_eq!(secret.expose(), "hunter2-token");
    }
}
