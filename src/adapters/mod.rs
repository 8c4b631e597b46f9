//! Thin adapters between chat platforms and the [`chat`](crate::chat) layer: they turn
//! platform events into [`Incoming`](crate::chat::Incoming) messages and
//! [`Reply`](crate::chat::Reply)s into platform messages, and nothing else. Each chat bot
//! (behind its cargo feature) has one entry point, `run(service, config, shutdown)`, that runs
//! until the `shutdown` watch turns true, so `pigeon serve` can run several in one process.

pub mod console;
#[cfg(feature = "discord")]
pub mod discord;
#[cfg(feature = "matrix")]
pub mod matrix;

use std::fmt;

/// The text of an error for the logs, with every URL in it cut to its scheme and host.
///
/// HTTP errors (reqwest's, and so matrix-sdk's) name the URL they failed on, and URLs can hold
/// secrets: a Discord interaction's URL holds its token, a query may hold an access token.
/// `https://discord.com/api/v10/webhooks/1/TOKEN/messages/@original` is logged as
/// `https://discord.com/…`.
#[must_use]
pub fn redacted(error: &dyn fmt::Display) -> String {
    let text = error.to_string();
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(separator) = rest.find("://") {
        let scheme = rest[..separator]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
            .map_or(0, |at| at + 1);
        out.push_str(&rest[..separator + 3]);
        let after = &rest[separator + 3..];
        if scheme == separator {
            // No scheme before `://`: no URL.
            rest = after;
            continue;
        }
        let end = after
            .find(|c: char| c.is_whitespace() || matches!(c, ')' | ']' | '>' | '<' | '"' | '\''))
            .unwrap_or(after.len());
        let url = &after[..end];
        let authority = url.find(['/', '?', '#']).unwrap_or(url.len());
        // Without the user and password some URLs carry before the host.
        let host = url[..authority].rsplit('@').next().unwrap_or_default();
        out.push_str(host);
        if authority < url.len() {
            out.push_str("/…");
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::redacted;

    #[test]
    fn urls_in_errors_keep_only_their_scheme_and_host() {
        let interaction = "error sending request for url \
            (https://discord.com/api/v10/webhooks/99/aW50ZXJhY3Rpb246c2VjcmV0/messages/@original)";
        assert_eq!(
            redacted(&interaction),
            "error sending request for url (https://discord.com/…)"
        );
        assert_eq!(
            redacted(&"GET http://user:pw@127.0.0.1:8008/_matrix/sync?access_token=s3cret failed"),
            "GET http://127.0.0.1:8008/… failed"
        );
        assert_eq!(
            redacted(&"two: https://a.org and wss://b.org/x?y, then https://c.org"),
            "two: https://a.org and wss://b.org/… then https://c.org"
        );
        assert_eq!(redacted(&"no url :// here"), "no url :// here");
        assert_eq!(redacted(&"database is locked"), "database is locked");
    }
}
