//! The console chat: each input line is `name: text`, as if user `name` wrote `text` in one
//! channel (`#channel name: text` for another channel). Replies are printed; board pictures
//! are written to a folder and their paths printed. No accounts or tokens are needed.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};

use crate::chat::{self, Incoming, Reply};
use crate::service::{Place, Service, User};

/// The platform name of the console.
pub const PLATFORM: &str = "console";
/// The channel lines without `#channel` are written in.
pub const DEFAULT_CHANNEL: &str = "general";
/// How often the clocks are looked at while waiting for input.
const TICK: Duration = Duration::from_secs(30);

/// One input line, read.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Line {
    pub channel: String,
    pub name: String,
    pub text: String,
}

/// Reads `name: text` or `#channel name: text`. `None` for anything else.
#[must_use]
pub fn parse_line(line: &str) -> Option<Line> {
    let line = line.trim();
    let (channel, rest) = match line.strip_prefix('#') {
        Some(rest) => {
            let (channel, rest) = rest.split_once(char::is_whitespace)?;
            (channel.to_owned(), rest.trim_start())
        }
        None => (DEFAULT_CHANNEL.to_owned(), line),
    };
    let (name, text) = rest.split_once(':')?;
    let name = name.trim().trim_start_matches('@');
    let valid = !name.is_empty()
        && name.len() <= 32
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '.');
    valid.then(|| Line {
        channel,
        name: name.to_owned(),
        text: text.trim().to_owned(),
    })
}

/// The bot's own console account: `@pigeon` challenges the built-in opponent.
#[must_use]
pub fn bot() -> User {
    User::new(PLATFORM, "pigeon", "Pigeon")
}

/// A console user: the name is the id.
#[must_use]
pub fn user(name: &str) -> User {
    User::new(PLATFORM, &name.to_lowercase(), name)
}

/// The users a text mentions with `@name`.
#[must_use]
pub fn mentions(text: &str) -> Vec<User> {
    text.split_whitespace()
        .filter_map(|word| word.strip_prefix('@'))
        .map(|name| name.trim_end_matches([',', '.', '!', '?', ':']))
        .filter(|name| !name.is_empty())
        .map(user)
        .collect()
}

/// The console session: reads lines from `input` until it ends, prints to `output`, writes
/// pictures to `boards`.
///
/// # Errors
/// When reading input, writing output or writing a picture fails.
pub async fn run(
    service: &Service,
    input: impl AsyncBufRead + Unpin,
    mut output: impl AsyncWrite + Unpin,
    boards: &Path,
) -> std::io::Result<()> {
    service.register_bot(&bot());
    let mut lines = input.lines();
    let mut ticker = tokio::time::interval(TICK);
    ticker.tick().await;
    loop {
        tokio::select! {
            line = lines.next_line() => {
                let Some(line) = line? else { break };
                let trimmed = line.trim();
                if trimmed.is_empty() || trimmed.starts_with("//") {
                    continue;
                }
                let Some(parsed) = parse_line(trimmed) else {
                    let help = "pigeon: Write lines as `name: text`, for example \
                                `alice: challenge @bob chak`, or `#channel name: text`.\n";
                    output.write_all(help.as_bytes()).await?;
                    continue;
                };
                let incoming = incoming(&parsed);
                for reply in chat::handle(service, &incoming).await {
                    print(&mut output, boards, &reply, Some(&incoming.user), None).await?;
                }
                clocks(service, &mut output, boards).await?;
            }
            _ = ticker.tick() => clocks(service, &mut output, boards).await?,
        }
        output.flush().await?;
    }
    output.flush().await
}

async fn clocks(
    service: &Service,
    output: &mut (impl AsyncWrite + Unpin),
    boards: &Path,
) -> std::io::Result<()> {
    match service.tick_platform(PLATFORM).await {
        Ok(notices) => {
            for pending in notices {
                let (place, reply) = chat::notice_reply(service, &pending.notice).await;
                print(output, boards, &reply, None, Some(&place.channel)).await?;
                service.delivered(pending.id).await;
            }
        }
        Err(error) => {
            output
                .write_all(format!("pigeon: {error}\n").as_bytes())
                .await?;
        }
    }
    Ok(())
}

/// How the console shows a reply: `pigeon: text`, `pigeon (to alice): text` for a private
/// reply, `pigeon [#den]: text` for a notice in another channel.
#[must_use]
pub fn format_reply(reply: &Reply, asker: Option<&User>, channel: Option<&str>) -> String {
    let who = match (reply.private, asker, channel) {
        (true, Some(user), _) => format!("pigeon (to {})", user.name),
        (_, _, Some(channel)) if channel != DEFAULT_CHANNEL => format!("pigeon [#{channel}]"),
        _ => String::from("pigeon"),
    };
    format!("{who}: {}\n", reply.plain())
}

async fn print(
    output: &mut (impl AsyncWrite + Unpin),
    boards: &Path,
    reply: &Reply,
    asker: Option<&User>,
    channel: Option<&str>,
) -> std::io::Result<()> {
    let mut text = format_reply(reply, asker, channel);
    if let Some(picture) = &reply.picture {
        tokio::fs::create_dir_all(boards).await?;
        let path: PathBuf = boards.join(&picture.name);
        tokio::fs::write(&path, &picture.data).await?;
        text.push_str(&format!("  board: {}\n", path.display()));
    }
    output.write_all(text.as_bytes()).await
}

/// The message a console line stands for.
#[must_use]
pub fn incoming(line: &Line) -> Incoming {
    Incoming {
        place: Place::new(PLATFORM, &line.channel),
        user: user(&line.name),
        mentions: mentions(&line.text),
        text: line.text.clone(),
        event_id: None,
        addressed: true,
        manager: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_name_a_user_and_maybe_a_channel() {
        let line = parse_line("alice: challenge @bob chak").expect("reads");
        assert_eq!(line.name, "alice");
        assert_eq!(line.channel, "general");
        assert_eq!(line.text, "challenge @bob chak");
        let line = parse_line("#den bob: e3e4").expect("reads");
        assert_eq!((line.channel.as_str(), line.name.as_str()), ("den", "bob"));
        assert!(parse_line("no colon here").is_none());
        assert!(parse_line(": nobody").is_none());
        assert!(parse_line("two words: hi").is_none());
    }

    #[test]
    fn mentions_are_at_words() {
        let found = mentions("challenge @Bob, @carol chak");
        let names: Vec<&str> = found.iter().map(|u| u.name.as_str()).collect();
        assert_eq!(names, ["Bob", "carol"]);
        assert_eq!(found[0].id, "bob");
    }
}
