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
}

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

/// One message from the bot.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Reply {
    /// The text, in parts.
    pub parts: Vec<Part>,
    /// A board picture to attach.
    pub picture: Option<Picture>,
    /// Whether only the user who asked should see it (errors, private information).
    pub private: bool,
    /// Answers offered with it (buttons on Discord).
    pub actions: Vec<Action>,
    /// The game this reply announces the start of (Discord opens a thread for it).
    pub started: Option<i64>,
    /// The player this reply tells it is their move, when they take turn pings. A platform
    /// that can reach them privately may ping them there instead of in the channel.
    pub turn: Option<User>,
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
        self.parts
            .iter()
            .map(|part| match part {
                Part::Text(text) => text.clone(),
                Part::Mention(user) => format!("@{}", user.name),
                Part::Name(user) => user.name.clone(),
            })
            .collect()
    }
}
