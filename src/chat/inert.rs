//! Words from users that the bot repeats (an unknown command, a move it cannot read, a square,
//! a display name) are made inert first: short, without the invisible characters that reorder
//! or hide text, and without backticks, which in the bot's own texts mark command examples.
//! Each platform then escapes them for its own markup (Discord's markdown, Matrix's HTML).

use crate::rules::MoveError;
use crate::service::{ServiceError, User};

use super::Incoming;

/// The most characters of a user's words the bot repeats, and of a display name (Discord's
/// own limit for names).
pub const MAX_ECHO: usize = 32;

/// `text` fit to be repeated: controls and invisible formatting characters (bidirectional
/// overrides, embeddings, isolates and marks, zero-width spaces and joiners, the byte order
/// mark) removed, other whitespace made a plain space, a backtick made an apostrophe, and cut
/// to [`MAX_ECHO`] characters with an ellipsis.
#[must_use]
pub fn inert(text: &str) -> String {
    let clean = cleaned(text);
    let clean = clean.as_str();
    if clean.chars().count() <= MAX_ECHO {
        return clean.to_owned();
    }
    let cut: String = clean.chars().take(MAX_ECHO - 1).collect();
    format!("{}…", cut.trim_end())
}

/// `text` made inert as [`inert`] does, but whole: for the user's own words shown back to
/// them alone (private notes).
#[must_use]
pub fn cleaned(text: &str) -> String {
    let clean: String = text
        .chars()
        .filter_map(|c| match c {
            '`' => Some('\''),
            c if c.is_whitespace() => Some(' '),
            c if hidden(c) => None,
            c => Some(c),
        })
        .collect();
    clean.trim().to_owned()
}

/// Characters that are not shown but change how text around them is shown or read.
fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
                | '\u{200E}'
                | '\u{200F}'
                | '\u{061C}'
                | '\u{200B}'..='\u{200D}'
                | '\u{2060}'
                | '\u{FEFF}'
        )
}

/// The same user with an inert display name (their id when nothing of the name is left).
#[must_use]
pub fn user(user: &User) -> User {
    let name = match inert(&user.name) {
        name if name.is_empty() => inert(&user.id),
        name => name,
    };
    User {
        name,
        ..user.clone()
    }
}

/// The same message with the names of its author and of the users it mentions made inert.
pub(super) fn incoming(incoming: &Incoming) -> Incoming {
    Incoming {
        user: user(&incoming.user),
        mentions: incoming.mentions.iter().map(user).collect(),
        ..incoming.clone()
    }
}

/// The words of a service error for a reply, with the move text a user typed made inert.
pub(super) fn error_text(error: &ServiceError) -> String {
    match error {
        ServiceError::Move { error, .. } => move_error(error.clone()).to_string(),
        other => other.to_string(),
    }
}

fn move_error(error: MoveError) -> MoveError {
    match error {
        MoveError::Syntax { input, hint } => MoveError::Syntax {
            input: inert(&input),
            hint,
        },
        MoveError::Illegal { input, hint } => MoveError::Illegal {
            input: inert(&input),
            hint,
        },
        MoveError::Ambiguous { input, candidates } => MoveError::Ambiguous {
            input: inert(&input),
            candidates,
        },
        MoveError::GameOver => MoveError::GameOver,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_characters_go_and_backticks_become_apostrophes() {
        assert_eq!(inert("e4"), "e4");
        assert_eq!(inert("\u{202E}kcatta\u{202C} now"), "kcatta now");
        assert_eq!(
            inert("a\u{200B}b\u{200C}c\u{200D}d\u{2060}e\u{FEFF}f"),
            "abcdef"
        );
        assert_eq!(
            inert("\u{2066}x\u{2067}y\u{2068}z\u{2069}\u{200E}\u{200F}\u{061C}"),
            "xyz"
        );
        assert_eq!(inert("`code` and\nmore\u{1b}[31m"), "'code' and more[31m");
        assert_eq!(inert("  [x](https://e.org)  "), "[x](https://e.org)");
    }

    #[test]
    fn long_words_are_cut_with_an_ellipsis() {
        let long = "x".repeat(100);
        let cut = inert(&long);
        assert_eq!(cut.chars().count(), MAX_ECHO);
        assert!(cut.ends_with('…'));
        let exact = "y".repeat(MAX_ECHO);
        assert_eq!(inert(&exact), exact);
        assert_eq!(inert(&"é".repeat(40)).chars().count(), MAX_ECHO);
    }

    #[test]
    fn names_are_made_inert_or_fall_back_to_the_id() {
        let named = user(&User::new("discord", "42", "\u{202E}evil`name"));
        assert_eq!(named.name, "evil'name");
        assert_eq!(named.id, "42");
        let blank = user(&User::new("matrix", "@bob:example.org", "\u{200B}\u{200B}"));
        assert_eq!(blank.name, "@bob:example.org");
    }

    #[test]
    fn move_errors_repeat_inert_input() {
        let error = ServiceError::Move {
            game: 1,
            error: MoveError::Syntax {
                input: format!("\u{202E}{}", "z".repeat(50)),
                hint: String::from("Moves look like e3e4."),
            },
        };
        let text = error_text(&error);
        assert!(!text.contains('\u{202E}'), "{text}");
        assert!(
            text.contains(&format!("{}…", "z".repeat(MAX_ECHO - 1))),
            "{text}"
        );
        assert!(text.ends_with("Moves look like e3e4."), "{text}");
    }
}
