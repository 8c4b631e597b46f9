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

#[cfg(test)]
mod tests {
    use super::*;

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
