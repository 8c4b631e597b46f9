//! What the bot says: text with mentions, an optional picture, and whether only the asker
//! should see it. Adapters turn this into their platform's messages.

use crate::service::User;

/// A piece of a reply's text.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Part {
    /// Plain text. Its backticks are the bot's own: they mark command examples (`draw
    /// accept`), which a platform may show as code. Words and names from users never hold any
    /// (they are made [`inert`](super::inert::inert) first), so every other character is
    /// meant literally and a platform with markup escapes it.
    Text(String),
    /// A mention of a user (a ping on platforms that have them). The name is meant literally.
    Mention(User),
    /// A user's name without a ping (their turn pings are off), meant literally.
    Name(User),
    /// A channel of the platform, by its id (a Discord channel or thread, a Matrix room, a
    /// console channel): each platform shows it as a link or a name.
    Channel(String),
}

impl Part {
    /// The part as plain text: mentions written `@name`, channels `#channel`.
    #[must_use]
    pub fn plain(&self) -> String {
        match self {
            Part::Text(text) => text.clone(),
            Part::Mention(user) => format!("@{}", user.name),
            Part::Name(user) => user.name.clone(),
            Part::Channel(channel) => format!("#{channel}"),
        }
    }
}

/// The longest reply text, in characters: Discord's limit of 2,000 with room for the escapes
/// of its markdown. Longer replies are split into several messages.
pub const MAX_REPLY: usize = 1800;

/// A board picture or an animated replay.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Picture {
    /// A file name for the attachment, such as `game-12-ply-7.png`.
    pub name: String,
    /// The encoded image.
    pub data: Vec<u8>,
    /// `image/png` or `image/gif`.
    pub mime: &'static str,
    /// Width and height in pixels.
    pub size: (u32, u32),
}

/// How prominent an action is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Style {
    /// The expected answer.
    Primary,
    /// Another answer.
    Secondary,
    /// An answer that cannot be taken back (resigning).
    Danger,
}

/// An answer offered with a reply: platforms with buttons show one per action. Pressing it
/// runs `command` as if the presser had typed it, so the service decides who may use it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Action {
    /// The button's words.
    pub label: String,
    /// The command text it stands for, such as `accept 12`.
    pub command: String,
    /// How prominent it is.
    pub style: Style,
}

impl Action {
    /// An action running `command`.
    #[must_use]
    pub fn new(label: &str, command: String, style: Style) -> Action {
        Action {
            label: label.to_owned(),
            command,
            style,
        }
    }
}

/// What a reply's answers (its buttons) are about. A later reply about the same thing, or one
/// that settles it, makes them stale: a platform with buttons takes them away.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Topic {
    /// An open challenge: accept, decline.
    Challenge(i64),
    /// A game: its moves, a draw offer, resigning; once it is over, a rematch and the replay.
    Game(i64),
    /// A draw offered in a game: accept, decline.
    DrawOffer(i64),
    /// A takeback asked in a game: accept, decline.
    Takeback(i64),
}

/// What people can answer the bot with where they wrote, so that the hints in replies name
/// only what works there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Means {
    /// Slash commands and buttons (Discord): hints name `/accept` and the buttons.
    pub slash_commands: bool,
    /// Whether messages not addressed to the bot are read, so a move typed alone in a game's
    /// channel is played (on Discord only with the Message Content intent).
    pub reads_chatter: bool,
}

impl Means {
    /// Commands typed to the bot, and moves typed alone read (the console, Matrix).
    pub const TYPED: Means = Means {
        slash_commands: false,
        reads_chatter: true,
    };

    /// A command to name in a hint: as typed (`typed`), or as the slash command (`slash`).
    #[must_use]
    pub fn command(self, typed: &str, slash: &str) -> String {
        if self.slash_commands {
            format!("`{slash}`")
        } else {
            format!("`{typed}`")
        }
    }
}

/// One message from the bot.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Reply {
    /// The text, in parts.
    pub parts: Vec<Part>,
    /// A board picture to attach.
    pub picture: Option<Picture>,
    /// Whether only the user who asked should see it (errors, private information).
    pub private: bool,
    /// Whether it must never be shown where others read (private notes, the sandbox): a
    /// platform without messages only one member sees sends it to the asker's direct chat.
    pub secret: bool,
    /// Answers offered with it (buttons on Discord).
    pub actions: Vec<Action>,
    /// The game this reply announces the start of (Discord opens a thread for it).
    pub started: Option<i64>,
    /// The player this reply tells it is their move, when they take turn pings. A platform
    /// that can reach them privately may ping them there instead of in the channel.
    pub turn: Option<User>,
    /// What its answers are about.
    pub topic: Option<Topic>,
    /// The earlier answers it makes stale (a challenge accepted, a draw offer answered).
    pub settles: Vec<Topic>,
    /// The game this reply announces the end of (Discord closes its thread).
    pub ended: Option<i64>,
    /// The tournament this reply announces the creation of (Discord opens a thread for it).
    pub tournament: Option<i64>,
}

impl Reply {
    /// A reply of plain text.
    #[must_use]
    pub fn text(text: impl Into<String>) -> Reply {
        Reply {
            parts: vec![Part::Text(text.into())],
            ..Reply::default()
        }
    }

    /// A private reply of plain text (an error or something only the asker needs).
    #[must_use]
    pub fn private(text: impl Into<String>) -> Reply {
        Reply {
            private: true,
            ..Reply::text(text)
        }
    }

    /// A reply only the asker may ever see, even where a platform shows private replies in
    /// the channel: private notes and the sandbox.
    #[must_use]
    pub fn secret(text: impl Into<String>) -> Reply {
        Reply {
            secret: true,
            ..Reply::private(text)
        }
    }

    /// Appends text.
    #[must_use]
    pub fn and(mut self, text: impl Into<String>) -> Reply {
        self.parts.push(Part::Text(text.into()));
        self
    }

    /// Appends a mention.
    #[must_use]
    pub fn mention(mut self, user: User) -> Reply {
        self.parts.push(Part::Mention(user));
        self
    }

    /// Appends a name, as a mention when `ping` is set.
    #[must_use]
    pub fn name(mut self, user: User, ping: bool) -> Reply {
        self.parts.push(if ping {
            Part::Mention(user)
        } else {
            Part::Name(user)
        });
        self
    }

    /// Appends the name of the player to move, pinging them (and marking the reply as their
    /// turn ping) when `ping` is set.
    #[must_use]
    pub fn to_move(mut self, user: User, ping: bool) -> Reply {
        if ping {
            self.turn = Some(user.clone());
        }
        self.name(user, ping)
    }

    /// Appends a channel.
    #[must_use]
    pub fn channel(mut self, channel: &str) -> Reply {
        self.parts.push(Part::Channel(channel.to_owned()));
        self
    }

    /// Attaches a picture.
    #[must_use]
    pub fn with_picture(mut self, picture: Option<Picture>) -> Reply {
        self.picture = picture;
        self
    }

    /// Offers an answer.
    #[must_use]
    pub fn with_action(mut self, action: Action) -> Reply {
        self.actions.push(action);
        self
    }

    /// Marks the earlier answers about `topic` as stale.
    #[must_use]
    pub fn settling(mut self, topic: Topic) -> Reply {
        if !self.settles.contains(&topic) {
            self.settles.push(topic);
        }
        self
    }

    /// The users this reply pings.
    #[must_use]
    pub fn mentions(&self) -> Vec<&User> {
        self.parts
            .iter()
            .filter_map(|part| match part {
                Part::Mention(user) => Some(user),
                _ => None,
            })
            .collect()
    }

    /// The text with mentions written `@name`, as the console shows it.
    #[must_use]
    pub fn plain(&self) -> String {
        self.parts.iter().map(Part::plain).collect()
    }

    /// The reply as messages of at most `limit` characters each: cut at line breaks where it
    /// can, else between words. The first message keeps the picture, the answers offered, the
    /// start of a game and the turn, what it is about and settles; the last keeps the end of a
    /// game; every one keeps the reply's privacy.
    #[must_use]
    pub fn split(self, limit: usize) -> Vec<Reply> {
        let length = |part: &Part| part.plain().chars().count();
        if self.parts.iter().map(length).sum::<usize>() <= limit {
            return vec![self];
        }
        let mut chunks: Vec<Vec<Part>> = vec![Vec::new()];
        let mut size = 0;
        for part in self.parts {
            let pieces = match part {
                Part::Text(text) => cut(&text, limit).into_iter().map(Part::Text).collect(),
                other => vec![other],
            };
            for piece in pieces {
                let len = length(&piece);
                if size > 0 && size + len > limit {
                    chunks.push(Vec::new());
                    size = 0;
                }
                size += len;
                chunks.last_mut().expect("one chunk at least").push(piece);
            }
        }
        let mut first = Some((
            self.picture,
            self.actions,
            self.started,
            self.turn,
            self.topic,
            self.settles,
        ));
        let mut replies: Vec<Reply> = chunks
            .into_iter()
            .filter(|parts| !parts.is_empty())
            .map(|mut parts| {
                if let Some(Part::Text(text)) = parts.first_mut() {
                    *text = text.trim_start().to_owned();
                }
                let (picture, actions, started, turn, topic, settles) =
                    first.take().unwrap_or_default();
                Reply {
                    parts,
                    picture,
                    private: self.private,
                    secret: self.secret,
                    actions,
                    started,
                    turn,
                    topic,
                    settles,
                    ended: None,
                    tournament: None,
                }
            })
            .collect();
        if let Some(last) = replies.last_mut() {
            last.ended = self.ended;
        }
        // The thread opens from the first message, like a game's.
        if let Some(first) = replies.first_mut() {
            first.tournament = self.tournament;
        }
        replies
    }
}

/// `text` in pieces of at most `limit` characters, cut after the last line break in each, or
/// else the last space, or else at the limit.
fn cut(text: &str, limit: usize) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut rest = text;
    while rest.chars().count() > limit {
        let end = rest
            .char_indices()
            .nth(limit)
            .map_or(rest.len(), |(at, _)| at);
        let head = &rest[..end];
        let at = head
            .rfind('\n')
            .or_else(|| head.rfind(' '))
            .filter(|&at| at > 0)
            .map_or(end, |at| at + 1);
        pieces.push(rest[..at].to_owned());
        rest = &rest[at..];
    }
    pieces.push(rest.to_owned());
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_replies_split_at_lines_and_keep_their_picture_first() {
        let line = "x".repeat(30);
        let text = vec![line.as_str(); 100].join("\n");
        let picture = Picture {
            name: String::from("p.png"),
            data: Vec::new(),
            mime: "image/png",
            size: (1, 1),
        };
        let reply = Reply::private(text.clone()).with_picture(Some(picture));
        let parts = reply.split(200);
        assert!(parts.len() > 10);
        assert!(
            parts
                .iter()
                .all(|r| r.plain().chars().count() <= 200 && r.private)
        );
        assert!(parts[0].picture.is_some() && parts[1].picture.is_none());
        let joined: Vec<String> = parts.iter().map(Reply::plain).collect();
        assert_eq!(joined.concat().replace('\n', ""), text.replace('\n', ""));
        let words = Reply::text("word ".repeat(100)).split(42);
        assert!(
            words
                .iter()
                .all(|r| r.plain().len() <= 42 && !r.plain().starts_with(' '))
        );
        assert_eq!(Reply::text("short").split(42).len(), 1);
    }
}
