//! The console chat: each input line is `name: text`, as if user `name` wrote `text` in one
//! channel (`#channel name: text` for another channel). Replies are printed; board pictures
//! are written to a folder and their paths printed. No accounts or tokens are needed.
//!
//! The console's clock can be driven: a line `wait 25h` (units d, h, m, s, combinable as in
//! `2d 3h`) moves it on, and everything that falls due meanwhile happens in time order, with
//! its output. `pigeon console --now` starts it at a given instant, standing still but for
//! `wait` lines.
//!
//! Post-game analyses run right after the clocks, one game after another, before the next
//! line is read (the chat bots run them beside their clocks instead), so a script's output
//! always comes in the same order.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};

use crate::chat::{self, Incoming, Reply};
use crate::service::clock::{format_utc, parse_span};
use crate::service::{ManualClock, Pending, Place, Service, User};

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

/// What a `wait` line asks for: `Some(Ok(seconds))`, `Some(Err(()))` when the span does not
/// read, `None` when the line is no `wait` line.
#[must_use]
pub fn parse_wait(line: &str) -> Option<Result<i64, ()>> {
    let line = line.trim();
    let rest = line.strip_prefix("wait")?;
    if !(rest.is_empty() || rest.starts_with(char::is_whitespace)) || rest.contains(':') {
        return None;
    }
    Some(parse_span(rest).filter(|&span| span > 0).ok_or(()))
}

/// The console session: reads lines from `input` until it ends, prints to `output`, writes
/// pictures to `boards`; `clock` is the service's clock, moved by `wait` lines.
///
/// # Errors
/// When reading input, writing output or writing a picture fails.
pub async fn run(
    service: &Service,
    clock: &ManualClock,
    input: impl AsyncBufRead + Unpin,
    mut output: impl AsyncWrite + Unpin,
    boards: &Path,
) -> std::io::Result<()> {
    service.register_bot(&bot());
    let mut lines = input.lines();
    let mut timer = service.timer(PLATFORM, TICK);
    // The first run is at once: what fell due while Pigeon was stopped happens before any line.
    let mut session = Session {
        service,
        output: &mut output,
        boards,
        ran_at: service.now(),
    };
    timer.wait().await;
    session.clocks().await?;
    loop {
        tokio::select! {
            biased;
            line = lines.next_line() => {
                let Some(line) = line? else { break };
                session.line(clock, line.trim()).await?;
            }
            () = timer.wait() => session.clocks().await?,
        }
        session.output.flush().await?;
    }
    output.flush().await
}

/// A running console: where it writes, and when its clocks last ran.
struct Session<'a, W> {
    service: &'a Service,
    output: &'a mut W,
    boards: &'a Path,
    ran_at: i64,
}

impl<W: AsyncWrite + Unpin> Session<'_, W> {
    /// Acts on one input line.
    async fn line(&mut self, clock: &ManualClock, line: &str) -> std::io::Result<()> {
        if line.is_empty() || line.starts_with("//") {
            return Ok(());
        }
        if let Some(wait) = parse_wait(line) {
            return match wait {
                Ok(span) => self.wait(clock, span).await,
                Err(()) => {
                    self.say("Write `wait` with a span of time, like `wait 25h` or `wait 2d 3h` (units d, h, m, s).")
                        .await
                }
            };
        }
        let Some(parsed) = parse_line(line) else {
            return self
                .say(
                    "Write lines as `name: text`, for example `alice: challenge @bob chak`, \
                     or `#channel name: text`; `wait 25h` moves the clock on.",
                )
                .await;
        };
        // On a chat the bot never reads its own messages; here its name is simply refused.
        if user(&parsed.name).id == bot().id {
            return self
                .say(
                    "Pigeon is my own name: write as a player, for example `alice: challenge \
                     @pigeon chak` to play me.",
                )
                .await;
        }
        // Whatever fell due since the clocks last ran happens before the line is read.
        if self.service.now() > self.ran_at {
            self.clocks().await?;
        }
        let incoming = incoming(&parsed);
        for reply in chat::handle(self.service, &incoming).await {
            print(self.output, self.boards, &reply, Some(&incoming.user), None).await?;
        }
        self.clocks().await
    }

    /// Moves the clock on by `span` seconds, stopping at each moment something falls due on
    /// the way, so that everything happens in time order.
    async fn wait(&mut self, clock: &ManualClock, span: i64) -> std::io::Result<()> {
        let until = self.service.now().saturating_add(span);
        loop {
            match self.service.next_due(PLATFORM).await {
                Ok(Some(due)) if due <= until => {
                    clock.set(due);
                    self.clocks().await?;
                }
                Ok(_) => break,
                Err(error) => return self.say(&error.to_string()).await,
            }
        }
        clock.set(until);
        self.clocks().await?;
        self.say(&format!("It is now {}.", format_utc(until))).await
    }

    /// Runs the clocks and prints what they made happen, then does every analysis waiting
    /// and prints it.
    async fn clocks(&mut self) -> std::io::Result<()> {
        self.ran_at = self.service.now();
        // A claim takes a batch of notices: the clocks run until nothing more is pending.
        loop {
            match self.service.tick_platform(PLATFORM).await {
                Ok(pending) if pending.is_empty() => break,
                Ok(pending) => self.deliver(pending).await?,
                Err(error) => return self.say(&error.to_string()).await,
            }
        }
        loop {
            match self.service.analyse_next().await {
                Ok(Some(_)) => match self.service.tick_platform(PLATFORM).await {
                    Ok(pending) => self.deliver(pending).await?,
                    Err(error) => return self.say(&error.to_string()).await,
                },
                Ok(None) => return Ok(()),
                // Nobody asked: the analyses wait for the next line.
                Err(error) => {
                    tracing::warn!(%error, "the analysis queue cannot be read");
                    return Ok(());
                }
            }
        }
    }

    /// Prints notices, each in its channel, and reports them delivered.
    async fn deliver(&mut self, pending: Vec<Pending>) -> std::io::Result<()> {
        for pending in pending {
            let (place, reply) = chat::notice_reply(self.service, &pending.notice).await;
            print(self.output, self.boards, &reply, None, Some(&place.channel)).await?;
            self.service.delivered(pending.id).await;
        }
        Ok(())
    }

    async fn say(&mut self, text: &str) -> std::io::Result<()> {
        self.output
            .write_all(format!("pigeon: {text}\n").as_bytes())
            .await
    }
}

/// How the console shows a reply: `pigeon: text`, `pigeon (to alice): text` for a private
/// reply, `pigeon [#den]: text` for a notice in another channel.
#[must_use]
pub fn format_reply(reply: &Reply, asker: Option<&User>, channel: Option<&str>) -> String {
    let who = match (reply.private, asker, channel) {
        (true, Some(user), _) => format!("pigeon (to {})", user.name),
        // A private notice (the daily digest) goes to the player its place names.
        (true, None, Some(to)) => format!("pigeon (to {to})"),
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
        means: chat::Means::TYPED,
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
    fn wait_lines_read_a_span() {
        assert_eq!(parse_wait("wait 25h"), Some(Ok(25 * 3600)));
        assert_eq!(parse_wait("wait 2d 3h"), Some(Ok(2 * 86_400 + 3 * 3600)));
        assert_eq!(parse_wait("  wait 90m "), Some(Ok(90 * 60)));
        assert_eq!(parse_wait("wait"), Some(Err(())));
        assert_eq!(parse_wait("wait soon"), Some(Err(())));
        assert_eq!(parse_wait("wait 0h"), Some(Err(())));
        assert_eq!(parse_wait("wait: hello"), None);
        assert_eq!(parse_wait("waiter: e4"), None);
        assert_eq!(parse_wait("alice: wait 2h"), None);
    }

    #[test]
    fn mentions_are_at_words() {
        let found = mentions("challenge @Bob, @carol chak");
        let names: Vec<&str> = found.iter().map(|u| u.name.as_str()).collect();
        assert_eq!(names, ["Bob", "carol"]);
        assert_eq!(found[0].id, "bob");
    }
}
