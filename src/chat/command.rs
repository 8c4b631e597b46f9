//! The command grammar: chat text -> [`Command`]. One table describes every command; the
//! parser and the help text both come from it.

use super::inert::inert;
use crate::engine::Level;
use crate::rules::Variant;
use crate::service::{Cap, ColorChoice, DAYS_PER_MOVE, DrawAction, Scope, SettingsChange};

/// A request to the bot.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Command {
    /// Challenge the first mentioned user, or anyone here when nobody is mentioned.
    Challenge {
        variant: Option<Variant>,
        days: Option<i64>,
        color: ColorChoice,
        /// `rated` or `casual`, when said.
        rated: Option<bool>,
        /// The bot's level, when said.
        level: Option<Level>,
    },
    Accept(Option<i64>),
    Decline(Option<i64>),
    Cancel(Option<i64>),
    /// Play a move (`move e4`, or a bare move).
    Move {
        game: Option<i64>,
        text: String,
    },
    Board(Option<i64>),
    /// Legal moves, optionally of the piece on one square.
    Moves {
        game: Option<i64>,
        square: Option<String>,
    },
    Resign(Option<i64>),
    Draw {
        game: Option<i64>,
        action: DrawAction,
    },
    Abort(Option<i64>),
    Rematch(Option<i64>),
    Games(Scope),
    Info(Option<i64>),
    History(Option<i64>),
    Export(Option<i64>),
    Gif(Option<i64>),
    Rules(Option<Variant>),
    Settings(SettingsChange),
    /// The best rated players here, of one game or of every game.
    Leaderboard(Option<Variant>),
    /// A player's results and ratings here: the first mentioned user, or the writer.
    Stats,
    /// The community's caps, or a change of one (managers only).
    Limits(Option<(Cap, i64)>),
    Help(Option<String>),
}

/// One row of the command table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Spec {
    /// The command word.
    pub name: &'static str,
    /// Other words for it.
    pub aliases: &'static [&'static str],
    /// Its arguments, as shown in help.
    pub usage: &'static str,
    /// What it does, in one line.
    pub summary: &'static str,
}

/// Every command, in the order help lists them.
pub const COMMANDS: &[Spec] = &[
    Spec {
        name: "challenge",
        aliases: &["play", "new"],
        usage: "[@user] [game] [N days] [white|black|random] [rated|casual] [level 1-5]",
        summary: "challenge someone (or anyone here) to a game; default Chak, 3 days per move, \
                  rated; challenge me to play the built-in opponent (level 1-5, default 3, casual)",
    },
    Spec {
        name: "accept",
        aliases: &[],
        usage: "[#challenge]",
        summary: "accept a challenge",
    },
    Spec {
        name: "decline",
        aliases: &[],
        usage: "[#challenge]",
        summary: "decline a challenge",
    },
    Spec {
        name: "cancel",
        aliases: &[],
        usage: "[#challenge]",
        summary: "take back your challenge",
    },
    Spec {
        name: "move",
        aliases: &["m", "mv"],
        usage: "[#game] <move>",
        summary: "play a move (you can also just type the move)",
    },
    Spec {
        name: "board",
        aliases: &["b", "show"],
        usage: "[#game]",
        summary: "show the board",
    },
    Spec {
        name: "moves",
        aliases: &["legal"],
        usage: "[#game] [square]",
        summary: "list the legal moves, or those of the piece on a square",
    },
    Spec {
        name: "resign",
        aliases: &[],
        usage: "[#game]",
        summary: "resign the game",
    },
    Spec {
        name: "draw",
        aliases: &[],
        usage: "[#game] [offer|accept|decline|claim]",
        summary: "offer, accept or decline a draw, or claim one the rules allow",
    },
    Spec {
        name: "abort",
        aliases: &[],
        usage: "[#game]",
        summary: "call the game off before both sides have moved",
    },
    Spec {
        name: "rematch",
        aliases: &[],
        usage: "[#game]",
        summary: "offer a new game with colours swapped",
    },
    Spec {
        name: "games",
        aliases: &["list"],
        usage: "[here]",
        summary: "list your games, or this channel's",
    },
    Spec {
        name: "info",
        aliases: &["game"],
        usage: "[#game]",
        summary: "players, clock and state",
    },
    Spec {
        name: "history",
        aliases: &["pgn"],
        usage: "[#game]",
        summary: "the moves so far",
    },
    Spec {
        name: "export",
        aliases: &[],
        usage: "[#game]",
        summary: "the game record with headers",
    },
    Spec {
        name: "gif",
        aliases: &["replay"],
        usage: "[#game]",
        summary: "an animated replay",
    },
    Spec {
        name: "rules",
        aliases: &["games?"],
        usage: "[game]",
        summary: "the rules of a game",
    },
    Spec {
        name: "settings",
        aliases: &["set"],
        usage: "[pings on|off] [view mine|mover|white|black]",
        summary: "your turn pings and board viewpoint",
    },
    Spec {
        name: "leaderboard",
        aliases: &["top", "ratings"],
        usage: "[game]",
        summary: "the best rated players here",
    },
    Spec {
        name: "stats",
        aliases: &["rating"],
        usage: "[@user]",
        summary: "wins, losses, draws and ratings here, with the latest rating changes",
    },
    Spec {
        name: "limits",
        aliases: &["caps"],
        usage: "[challenges|games|bot|opponent N]",
        summary: "this community's caps per player; its managers can change them",
    },
    Spec {
        name: "help",
        aliases: &["?", "commands"],
        usage: "[command | game pieces]",
        summary: "this help, one command in detail, or a game's pieces (`help chak pieces`)",
    },
];

/// The table row for a command word, if it is one.
#[must_use]
pub fn spec(word: &str) -> Option<&'static Spec> {
    let word = word.to_ascii_lowercase();
    COMMANDS
        .iter()
        .find(|spec| spec.name == word || spec.aliases.contains(&word.as_str()))
}

/// A command that did not parse, with what to do instead.
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error)]
#[error("{problem} Usage: `{name} {usage}`")]
pub struct UsageError {
    pub problem: String,
    pub name: &'static str,
    pub usage: &'static str,
}

/// Reads a game number: `#12`, `12` or `game12`.
fn game_number(word: &str) -> Option<i64> {
    let digits = word.strip_prefix('#').unwrap_or(word);
    digits.parse().ok().filter(|n| *n > 0)
}

/// Parses a command line whose first word is a command (mention tokens, starting with `@`,
/// are left to the adapter and skipped). `None` when the first word is no command.
///
/// # Errors
/// [`UsageError`] when the arguments do not fit the command.
pub fn parse(text: &str) -> Option<Result<Command, UsageError>> {
    let mut words = text.split_whitespace();
    let first = words.next()?;
    let spec = spec(first)?;
    let args: Vec<&str> = words.filter(|w| !w.starts_with('@')).collect();
    Some(parse_args(spec, &args))
}

fn parse_args(spec: &'static Spec, args: &[&str]) -> Result<Command, UsageError> {
    let fail = |problem: String| UsageError {
        problem,
        name: spec.name,
        usage: spec.usage,
    };
    // Every command may name its game (or challenge) by number.
    let mut number = None;
    let mut rest: Vec<&str> = Vec::new();
    for &word in args {
        let numeric = word.starts_with('#') || word.chars().all(|c| c.is_ascii_digit());
        if number.is_none()
            && numeric
            && let Some(n) = game_number(word)
        {
            number = Some(n);
            continue;
        }
        if word.eq_ignore_ascii_case("game") && spec.name != "rules" {
            continue;
        }
        rest.push(word);
    }
    let no_more = |rest: &[&str]| -> Result<(), UsageError> {
        match rest.first() {
            None => Ok(()),
            Some(word) => Err(fail(format!(
                "I don't understand \"{}\" here.",
                inert(word)
            ))),
        }
    };
    let command = match spec.name {
        "challenge" => return parse_challenge(args).map_err(fail),
        "accept" => Command::Accept(number),
        "decline" => Command::Decline(number),
        "cancel" => Command::Cancel(number),
        "move" => {
            if rest.is_empty() {
                return Err(fail(String::from("Which move?")));
            }
            return Ok(Command::Move {
                game: number,
                text: rest.join(" "),
            });
        }
        "board" => Command::Board(number),
        "moves" => {
            let square = rest.first().map(|s| s.to_ascii_lowercase());
            if rest.len() > 1 {
                return Err(fail(String::from("Name at most one square.")));
            }
            return Ok(Command::Moves {
                game: number,
                square,
            });
        }
        "resign" => Command::Resign(number),
        "draw" => {
            let action = match rest.first().map(|w| w.to_ascii_lowercase()).as_deref() {
                None | Some("offer") => DrawAction::Offer,
                Some("accept" | "yes" | "agree") => DrawAction::Accept,
                Some("decline" | "no" | "refuse") => DrawAction::Decline,
                Some("claim") => DrawAction::Claim,
                Some(other) => {
                    return Err(fail(format!(
                        "\"{}\" is not offer, accept, decline or claim.",
                        inert(other)
                    )));
                }
            };
            no_more(rest.get(1..).unwrap_or_default())?;
            return Ok(Command::Draw {
                game: number,
                action,
            });
        }
        "abort" => Command::Abort(number),
        "rematch" => Command::Rematch(number),
        "games" => {
            let scope = match rest.first().map(|w| w.to_ascii_lowercase()).as_deref() {
                None | Some("mine" | "my") => Scope::Mine,
                Some("here" | "channel" | "all" | "room") => Scope::Channel,
                Some(other) => {
                    return Err(fail(format!("\"{}\" is not mine or here.", inert(other))));
                }
            };
            return Ok(Command::Games(scope));
        }
        "info" => Command::Info(number),
        "history" => Command::History(number),
        "export" => Command::Export(number),
        "gif" => Command::Gif(number),
        "rules" => {
            return optional_variant(&rest).map(Command::Rules).map_err(fail);
        }
        "settings" => return parse_settings(&rest).map_err(fail),
        "leaderboard" => {
            return optional_variant(&rest)
                .map(Command::Leaderboard)
                .map_err(fail);
        }
        "stats" => Command::Stats,
        "limits" => return parse_limits(&rest, number).map_err(fail),
        _ => {
            let topic = (!rest.is_empty()).then(|| rest.join(" ").to_ascii_lowercase());
            return Ok(Command::Help(topic));
        }
    };
    no_more(&rest)?;
    Ok(command)
}

/// `limits`, or `limits <cap> <N>` (the number was read as the command's number).
fn parse_limits(rest: &[&str], number: Option<i64>) -> Result<Command, String> {
    let word = match rest {
        [] if number.is_none() => return Ok(Command::Limits(None)),
        [word] | [word, "to"] => word,
        _ => return Err(String::from("Name one cap and its new value.")),
    };
    let cap = Cap::from_word(word).ok_or_else(|| {
        format!("\"{word}\" is not a cap: say challenges, games, bot or opponent.")
    })?;
    let value = number.ok_or_else(|| format!("Give the new value of the {cap} cap."))?;
    Ok(Command::Limits(Some((cap, value))))
}

/// The game the words name, if any.
fn optional_variant(rest: &[&str]) -> Result<Option<Variant>, String> {
    let name = rest.join(" ");
    if name.is_empty() {
        return Ok(None);
    }
    Variant::from_name(&name)
        .map(Some)
        .ok_or_else(|| crate::rules::UnknownVariant(inert(&name)).to_string())
}

fn parse_challenge(args: &[&str]) -> Result<Command, String> {
    let mut variant = None;
    let mut days = None;
    let mut color = ColorChoice::Random;
    let mut rated = None;
    let mut level = None;
    let words: Vec<String> = args.iter().map(|w| w.to_ascii_lowercase()).collect();
    let mut words = words.iter().map(|w| w.trim_end_matches(','));
    while let Some(word) = words.next() {
        if let Some(found) = Variant::from_name(word) {
            variant = Some(found);
            continue;
        }
        if let Some(number) = word
            .strip_prefix("level")
            .or_else(|| word.strip_prefix("lvl"))
        {
            let number = if number.is_empty() {
                words.next().unwrap_or_default()
            } else {
                number
            };
            level = Some(number.parse::<Level>().map_err(|error| error.to_string())?);
            continue;
        }
        match word {
            "rated" => rated = Some(true),
            "casual" | "unrated" => rated = Some(false),
            "white" | "w" => color = ColorChoice::White,
            "black" | "b" | "green" => color = ColorChoice::Black,
            "random" => color = ColorChoice::Random,
            "days" | "day" | "d" | "per" | "move" | "a" | "to" | "of" | "game" => {}
            _ => {
                let number = word.trim_end_matches("days").trim_end_matches("day");
                let number = number.trim_end_matches('d');
                match number.parse::<i64>() {
                    Ok(n) if DAYS_PER_MOVE.contains(&n) => days = Some(n),
                    Ok(_) => {
                        return Err(format!(
                            "Days per move must be from {} to {}.",
                            DAYS_PER_MOVE.start(),
                            DAYS_PER_MOVE.end()
                        ));
                    }
                    Err(_) => {
                        return Err(format!(
                            "I don't know a game or option called \"{}\". Games: {}.",
                            inert(word),
                            game_list()
                        ));
                    }
                }
            }
        }
    }
    Ok(Command::Challenge {
        variant,
        days,
        color,
        rated,
        level,
    })
}

/// Every game as its display name and stored key, for pickers such as slash-command choices.
pub fn games() -> impl Iterator<Item = (&'static str, &'static str)> {
    Variant::ALL.iter().map(|v| (v.name(), v.key()))
}

/// The games' names, for replies.
#[must_use]
pub fn game_list() -> String {
    Variant::ALL
        .iter()
        .map(|v| v.name())
        .collect::<Vec<_>>()
        .join(", ")
}

fn parse_settings(rest: &[&str]) -> Result<Command, String> {
    let mut change = SettingsChange::default();
    let words: Vec<String> = rest.iter().map(|w| w.to_ascii_lowercase()).collect();
    let mut i = 0;
    while i < words.len() {
        let value = words.get(i + 1).map(String::as_str);
        match (words[i].as_str(), value) {
            ("pings" | "ping" | "pings:", Some("on" | "yes" | "true")) => {
                change.turn_pings = Some(true);
            }
            ("pings" | "ping" | "pings:", Some("off" | "no" | "false")) => {
                change.turn_pings = Some(false);
            }
            ("view" | "viewpoint" | "board", Some(v @ ("mine" | "mover" | "white" | "black"))) => {
                change.viewpoint = Some(v.to_owned());
            }
            (word, _) => {
                return Err(format!(
                    "\"{}\" is not a setting I can change.",
                    inert(word)
                ));
            }
        }
        i += 2;
    }
    Ok(Command::Settings(change))
}

/// The help text: every command with its usage, or one command in detail.
#[must_use]
pub fn help(topic: Option<&str>) -> String {
    let mut words = topic.unwrap_or_default().split_whitespace();
    let first = words.next();
    if let Some(variant) = first.and_then(Variant::from_name) {
        return match words.next() {
            Some("pieces" | "piece" | "legend") | None => super::text::pieces(variant),
            Some(other) => format!(
                "I can tell about {}'s pieces: `help {} pieces`. \"{other}\" I don't know.",
                variant.name(),
                variant.key()
            ),
        };
    }
    if let Some(spec) = first.and_then(spec) {
        let aliases = if spec.aliases.is_empty() {
            String::new()
        } else {
            format!(" (also: {})", spec.aliases.join(", "))
        };
        return format!("`{} {}`: {}{aliases}.", spec.name, spec.usage, spec.summary);
    }
    let mut text =
        String::from("Commands (a game or challenge can be named by number, like #12):\n");
    for spec in COMMANDS {
        text.push_str(&format!(
            "  {} {} - {}\n",
            spec.name, spec.usage, spec.summary
        ));
    }
    text.push_str(&format!(
        "Games: {}. A move typed on its own is played when it can only mean one game.",
        game_list()
    ));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> Command {
        parse(text).expect("a command").expect("parses")
    }

    #[test]
    fn challenges_read_in_any_order() {
        assert_eq!(
            ok("challenge @bob CHAK 5 days white"),
            Command::Challenge {
                variant: Some(Variant::Chak),
                days: Some(5),
                color: ColorChoice::White,
                rated: None,
                level: None,
            }
        );
        assert_eq!(
            ok("Challenge 2d black casual"),
            Command::Challenge {
                variant: None,
                days: Some(2),
                color: ColorChoice::Black,
                rated: Some(false),
                level: None,
            }
        );
        assert_eq!(
            ok("challenge @pigeon shakti level 2 rated"),
            Command::Challenge {
                variant: Some(Variant::Shakti),
                days: None,
                color: ColorChoice::Random,
                rated: Some(true),
                level: Level::new(2),
            }
        );
        assert!(matches!(
            ok("challenge @pigeon level5"),
            Command::Challenge { level: Some(level), .. } if level.number() == 5
        ));
        assert!(
            parse("challenge @pigeon level 6")
                .expect("command")
                .is_err()
        );
        assert!(parse("challenge @pigeon level").expect("command").is_err());
        assert_eq!(
            ok("leaderboard shakti"),
            Command::Leaderboard(Some(Variant::Shakti))
        );
        assert_eq!(ok("top"), Command::Leaderboard(None));
        assert_eq!(ok("stats @bob"), Command::Stats);
        assert!(parse("challenge 30 days").expect("command").is_err());
        assert!(parse("challenge checkers").expect("command").is_err());
    }

    #[test]
    fn game_numbers_and_actions() {
        assert_eq!(
            ok("move #3 e3e4"),
            Command::Move {
                game: Some(3),
                text: "e3e4".into()
            }
        );
        assert_eq!(
            ok("m e4"),
            Command::Move {
                game: None,
                text: "e4".into()
            }
        );
        assert_eq!(ok("board 7"), Command::Board(Some(7)));
        assert_eq!(
            ok("draw #2 accept"),
            Command::Draw {
                game: Some(2),
                action: DrawAction::Accept
            }
        );
        assert_eq!(
            ok("draw"),
            Command::Draw {
                game: None,
                action: DrawAction::Offer
            }
        );
        assert_eq!(
            ok("moves e3"),
            Command::Moves {
                game: None,
                square: Some("e3".into())
            }
        );
        assert_eq!(ok("games here"), Command::Games(Scope::Channel));
        assert_eq!(ok("rules maya"), Command::Rules(Some(Variant::Chak)));
        assert!(parse("resign now please").expect("command").is_err());
        assert!(parse("e3e4").is_none());
    }

    #[test]
    fn settings_and_help() {
        let Command::Settings(change) = ok("settings pings off view white") else {
            panic!()
        };
        assert_eq!(change.turn_pings, Some(false));
        assert_eq!(change.viewpoint.as_deref(), Some("white"));
        assert!(parse("settings colour pink").expect("command").is_err());
        let text = help(None);
        for spec in COMMANDS {
            assert!(text.contains(spec.name), "{}", spec.name);
        }
        assert!(help(Some("draw")).contains("claim"));
    }
}
