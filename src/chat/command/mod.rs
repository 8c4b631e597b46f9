//! The command grammar: chat text -> [`Command`], read along the command table of
//! [`super::table`], from which the help text comes too. The free-order words of `challenge`
//! and `settings` are read in `arguments`.

mod arguments;

pub use self::arguments::challenge_words_near;
use self::arguments::{parse_challenge, parse_settings};
use super::inert::{cleaned, inert};
use super::table::{Spec, spec};
use crate::engine::Level;
use crate::rules::{GameRules, RuleSet, Variant};
use crate::service::{
    Cap, ColorChoice, DigestRequest, DrawAction, LeaveRequest, Scope, SettingsChange,
    TakebackAction,
};

/// A request to the bot.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Command {
    /// Challenge the first mentioned user, or anyone here when nobody is mentioned.
    Challenge {
        /// A name typed without `@`, for the player it means here.
        opponent: Option<String>,
        variant: Option<Variant>,
        days: Option<i64>,
        color: ColorChoice,
        /// `rated` or `casual`, when said.
        rated: Option<bool>,
        /// The bot's level, when said.
        level: Option<Level>,
        /// The rule set (`nodraws`).
        rules: RuleSet,
        /// The position after `from`, to start the game from.
        from: Option<String>,
        /// `takebacks` or `notakebacks`, when said.
        takebacks: Option<bool>,
    },
    /// Ask for a takeback, or answer one.
    Takeback {
        game: Option<i64>,
        action: TakebackAction,
    },
    /// Keep a private note on a game.
    Note {
        game: Option<i64>,
        text: String,
    },
    /// List the private notes on a game, or delete them.
    Notes {
        game: Option<i64>,
        clear: bool,
    },
    /// Try moves on a private copy of a game's position.
    Try {
        game: Option<i64>,
        moves: Vec<String>,
    },
    /// Try moves on a position given in the command: its words, the position's first.
    TryPosition {
        rules: GameRules,
        words: Vec<String>,
    },
    /// Whether games from a position may be rated here, or a change of it (managers only).
    Setups(Option<bool>),
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
    /// Resign, once confirmed: `confirmed` when the command says so (`resign confirm`, a
    /// platform's confirmation button).
    Resign {
        game: Option<i64>,
        confirmed: bool,
    },
    Draw {
        game: Option<i64>,
        action: DrawAction,
    },
    Abort(Option<i64>),
    /// One more day for the opponent (`give time`).
    GiveTime(Option<i64>),
    /// Conditional moves in a game: a line added, listed, or all dropped.
    Conditional {
        game: Option<i64>,
        action: ConditionalAction,
    },
    /// The reminders before a deadline: shown, or changed (none: off).
    Reminders(Option<Vec<i64>>),
    /// The daily digest: shown, set or stopped.
    Digest(DigestRequest),
    /// Leave: shown, started, ended, or the community's allowance changed.
    Vacation(LeaveRequest),
    Rematch(Option<i64>),
    Games(Scope),
    Info(Option<i64>),
    History(Option<i64>),
    Export(Option<i64>),
    Gif(Option<i64>),
    /// The analysis of a finished game: asked for, or shown again.
    Analyse(Option<i64>),
    Rules(Option<Variant>),
    Settings(SettingsChange),
    /// The best rated players here, of one game or of every game.
    Leaderboard(Option<Variant>),
    /// A player's results and ratings here: the first mentioned user, a name typed without
    /// `@`, or the writer.
    Stats(Option<String>),
    /// The community's caps, or a change of one (managers only).
    Limits(Option<(Cap, i64)>),
    /// Whether games started here get a thread each, or a change of it (managers only).
    Threads(Option<bool>),
    /// A tournament command (`tournament …`, `tournaments`).
    Tournament(super::tournaments::TournamentCommand),
    Help(Option<String>),
}

impl Command {
    /// The command as typed again with the number `id` of a game or challenge, for "which
    /// one?" replies: `resign #7`, `draw #7 accept`, `cancel 4`.
    #[must_use]
    pub fn with_number(&self, id: i64) -> String {
        let draw_word = |action: &DrawAction| match action {
            DrawAction::Offer => "offer",
            DrawAction::Accept => "accept",
            DrawAction::Decline => "decline",
            DrawAction::Claim => "claim",
        };
        match self {
            Command::Accept(_) => format!("accept {id}"),
            Command::Decline(_) => format!("decline {id}"),
            Command::Cancel(_) => format!("cancel {id}"),
            Command::Move { text, .. } => format!("move #{id} {text}"),
            Command::Moves {
                square: Some(square),
                ..
            } => format!("moves #{id} {square}"),
            Command::Moves { .. } => format!("moves #{id}"),
            Command::Draw { action, .. } => format!("draw #{id} {}", draw_word(action)),
            Command::Resign { .. } => format!("resign #{id}"),
            Command::Abort(_) => format!("abort #{id}"),
            Command::GiveTime(_) => format!("give time #{id}"),
            Command::Conditional {
                action: ConditionalAction::Add(line),
                ..
            } => format!("if #{id} {line}"),
            Command::Conditional {
                action: ConditionalAction::List,
                ..
            } => format!("conditional #{id} list"),
            Command::Conditional {
                action: ConditionalAction::Clear,
                ..
            } => format!("conditional #{id} clear"),
            Command::Rematch(_) => format!("rematch #{id}"),
            Command::Info(_) => format!("info #{id}"),
            Command::History(_) => format!("history #{id}"),
            Command::Export(_) => format!("export #{id}"),
            Command::Gif(_) => format!("gif #{id}"),
            Command::Analyse(_) => format!("analyse #{id}"),
            Command::Takeback {
                action: TakebackAction::Ask,
                ..
            } => format!("takeback #{id}"),
            Command::Takeback {
                action: TakebackAction::Accept,
                ..
            } => format!("takeback #{id} accept"),
            Command::Takeback {
                action: TakebackAction::Decline,
                ..
            } => format!("takeback #{id} decline"),
            Command::Note { text, .. } => format!("note #{id} {text}"),
            Command::Notes { clear: true, .. } => format!("notes #{id} clear"),
            Command::Notes { .. } => format!("notes #{id}"),
            Command::Try { moves, .. } => format!("try #{id} {}", moves.join(" ")),
            _ => format!("board #{id}"),
        }
    }
}

/// What `conditional` (or `if`) does.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ConditionalAction {
    /// Adds a line: the opponent's move, the reply, and so on.
    Add(String),
    /// Lists the lines.
    List,
    /// Drops every line.
    Clear,
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
    match spec.name {
        "challenge" => return parse_challenge(args).map_err(fail),
        "note" | "try" => return parse_free(spec.name, args).map_err(fail),
        "tournament" => {
            return super::tournaments::parse(args)
                .map(Command::Tournament)
                .map_err(fail);
        }
        _ => {}
    }
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
        "resign" => {
            let confirmed = match rest.first().map(|w| w.to_ascii_lowercase()).as_deref() {
                None => false,
                Some("confirm" | "yes" | "sure") => true,
                Some(other) => {
                    return Err(fail(format!(
                        "I don't understand \"{}\" here.",
                        inert(other)
                    )));
                }
            };
            no_more(rest.get(1..).unwrap_or_default())?;
            return Ok(Command::Resign {
                game: number,
                confirmed,
            });
        }
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
        "takeback" => {
            let action = match rest.first().map(|w| w.to_ascii_lowercase()).as_deref() {
                None | Some("ask" | "please") => TakebackAction::Ask,
                Some("accept" | "yes" | "agree") => TakebackAction::Accept,
                Some("decline" | "no" | "refuse") => TakebackAction::Decline,
                Some(other) => {
                    return Err(fail(format!(
                        "\"{}\" is not accept or decline.",
                        inert(other)
                    )));
                }
            };
            no_more(rest.get(1..).unwrap_or_default())?;
            return Ok(Command::Takeback {
                game: number,
                action,
            });
        }
        "notes" => {
            let clear = match rest.first().map(|w| w.to_ascii_lowercase()).as_deref() {
                None => false,
                Some("clear" | "delete" | "forget") => true,
                Some(other) => {
                    return Err(fail(format!("\"{}\" is not clear.", inert(other))));
                }
            };
            no_more(rest.get(1..).unwrap_or_default())?;
            return Ok(Command::Notes {
                game: number,
                clear,
            });
        }
        "setups" => {
            let rated = match rest.first().map(|w| w.to_ascii_lowercase()).as_deref() {
                None => None,
                Some("rated" | "on" | "yes") => Some(true),
                Some("casual" | "off" | "no") => Some(false),
                Some(other) => {
                    return Err(fail(format!(
                        "\"{}\" is not rated or casual.",
                        inert(other)
                    )));
                }
            };
            no_more(rest.get(1..).unwrap_or_default())?;
            return Ok(Command::Setups(rated));
        }
        "abort" => Command::Abort(number),
        "conditional" => {
            let first = rest.first().map(|w| w.to_ascii_lowercase());
            let action = match (rest.len(), first.as_deref()) {
                (0, _) | (1, Some("list" | "show")) => ConditionalAction::List,
                (1, Some("clear" | "drop" | "delete" | "none")) => ConditionalAction::Clear,
                _ => ConditionalAction::Add(rest.join(" ")),
            };
            return Ok(Command::Conditional {
                game: number,
                action,
            });
        }
        "vacation" => {
            return super::correspondence::parse_vacation(&rest, number)
                .map(Command::Vacation)
                .map_err(fail);
        }
        "give" => {
            match rest.first().map(|w| w.to_ascii_lowercase()).as_deref() {
                None | Some("time" | "day") => {}
                Some(other) => {
                    return Err(fail(format!(
                        "I can give time only: `give time`, not \"{}\".",
                        inert(other)
                    )));
                }
            }
            no_more(rest.get(1..).unwrap_or_default())?;
            return Ok(Command::GiveTime(number));
        }
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
        "analyse" => Command::Analyse(number),
        "rules" => {
            return optional_variant(&rest).map(Command::Rules).map_err(fail);
        }
        "settings" => {
            let first = rest.first().map(|w| w.to_ascii_lowercase());
            let after = rest.get(1..).unwrap_or_default();
            match first.as_deref() {
                Some("reminders" | "reminder") => {
                    return super::correspondence::parse_reminders(after)
                        .map(Command::Reminders)
                        .map_err(fail);
                }
                Some("digest") => {
                    return super::correspondence::parse_digest(after)
                        .map(Command::Digest)
                        .map_err(fail);
                }
                _ => {}
            }
            return parse_settings(&rest).map_err(fail);
        }
        "leaderboard" => {
            return optional_variant(&rest)
                .map(Command::Leaderboard)
                .map_err(fail);
        }
        "stats" => {
            if rest.len() > 1 {
                return Err(fail(String::from("Name one player.")));
            }
            return Ok(Command::Stats(rest.first().map(|name| (*name).to_owned())));
        }
        "limits" => return parse_limits(&rest, number).map_err(fail),
        "threads" => {
            let on = match rest.first().map(|w| w.to_ascii_lowercase()).as_deref() {
                None => None,
                Some("on" | "yes") => Some(true),
                Some("off" | "no") => Some(false),
                Some(other) => return Err(fail(format!("\"{}\" is not on or off.", inert(other)))),
            };
            no_more(rest.get(1..).unwrap_or_default())?;
            return Ok(Command::Threads(on));
        }
        _ => {
            let topic = (!rest.is_empty()).then(|| rest.join(" ").to_ascii_lowercase());
            return Ok(Command::Help(topic));
        }
    };
    no_more(&rest)?;
    Ok(command)
}

/// `note [#game] <text>` and `try [#game] <moves…>` / `try <game> <position> <moves…>`:
/// free words after an optional game number, which only the first word may be.
fn parse_free(name: &str, args: &[&str]) -> Result<Command, String> {
    let (game, rest) = match args.split_first() {
        Some((first, rest))
            if (first.starts_with('#') || first.chars().all(|c| c.is_ascii_digit()))
                && game_number(first).is_some() =>
        {
            (game_number(first), rest)
        }
        _ => (None, args),
    };
    if name == "note" {
        return Ok(Command::Note {
            game,
            text: cleaned(&rest.join(" ")),
        });
    }
    if game.is_none()
        && let Some((first, words)) = rest.split_first()
        && let Ok(rules) = first.parse::<GameRules>()
    {
        if words.is_empty() {
            return Err(format!(
                "Give a position of {} (or `start`) and the moves to try.",
                rules.variant()
            ));
        }
        return Ok(Command::TryPosition {
            rules,
            words: words.iter().map(|w| (*w).to_owned()).collect(),
        });
    }
    Ok(Command::Try {
        game,
        moves: rest.iter().map(|w| (*w).to_owned()).collect(),
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::table::{COMMANDS, help};

    fn ok(text: &str) -> Command {
        parse(text).expect("a command").expect("parses")
    }

    #[test]
    fn challenges_read_in_any_order() {
        assert_eq!(
            ok("challenge @bob CHAK 5 days white"),
            Command::Challenge {
                opponent: None,
                variant: Some(Variant::Chak),
                days: Some(5),
                color: ColorChoice::White,
                rated: None,
                level: None,
                rules: RuleSet::Standard,
                from: None,
                takebacks: None,
            }
        );
        assert_eq!(
            ok("Challenge 2d black casual"),
            Command::Challenge {
                opponent: None,
                variant: None,
                days: Some(2),
                color: ColorChoice::Black,
                rated: Some(false),
                level: None,
                rules: RuleSet::Standard,
                from: None,
                takebacks: None,
            }
        );
        assert_eq!(
            ok("challenge @pigeon shakti level 2 rated"),
            Command::Challenge {
                opponent: None,
                variant: Some(Variant::Shakti),
                days: None,
                color: ColorChoice::Random,
                rated: Some(true),
                level: Level::new(2),
                rules: RuleSet::Standard,
                from: None,
                takebacks: None,
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
        assert!(matches!(
            ok("challenge @bob Chesscala nodraws notakebacks from k,-,-,r,-,- w  - *"),
            Command::Challenge {
                variant: Some(Variant::Chesscala),
                rules: RuleSet::NoDraws,
                takebacks: Some(false),
                from: Some(position),
                ..
            } if position == "k,-,-,r,-,- w - *"
        ));
        assert!(matches!(
            ok("challenge chesscala-nodraws"),
            Command::Challenge {
                rules: RuleSet::NoDraws,
                ..
            }
        ));
        assert!(parse("challenge chak from").expect("command").is_err());
        assert!(matches!(
            ok("note #4 keep `calm` 3 moves"),
            Command::Note { game: Some(4), text } if text == "keep 'calm' 3 moves"
        ));
        assert!(matches!(
            ok("try chak start e4 e6"),
            Command::TryPosition { words, .. } if words == ["start", "e4", "e6"]
        ));
        assert!(matches!(
            ok("try 2 e4"),
            Command::Try { game: Some(2), moves } if moves == ["e4"]
        ));
        assert!(matches!(
            ok("takeback #2 accept"),
            Command::Takeback {
                game: Some(2),
                action: TakebackAction::Accept
            }
        ));
        assert!(matches!(
            ok("notes clear"),
            Command::Notes {
                game: None,
                clear: true
            }
        ));
        assert_eq!(
            ok("leaderboard shakti"),
            Command::Leaderboard(Some(Variant::Shakti))
        );
        assert_eq!(ok("top"), Command::Leaderboard(None));
        assert_eq!(ok("stats @bob"), Command::Stats(None));
        assert_eq!(ok("stats tom"), Command::Stats(Some("tom".into())));
        assert!(parse("challenge 30 days").expect("command").is_err());
        assert!(matches!(
            ok("challenge Uma chak"),
            Command::Challenge { opponent: Some(name), .. } if name == "Uma"
        ));
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
    fn conflicting_challenge_options_are_refused_by_name() {
        for (text, conflict) in [
            (
                "challenge chak chad",
                "You asked for Chak and Chad: choose one game.",
            ),
            (
                "challenge white black",
                "You asked for white and black: choose one side.",
            ),
            ("challenge 3 days 5 days", "You asked for 3 days and 5 days"),
            ("challenge rated casual", "You asked for rated and casual"),
            ("challenge uma vic", "You asked for uma and vic"),
            (
                "challenge @pigeon level 2 level 4",
                "You asked for level 2 and level 4",
            ),
        ] {
            let error = parse(text).expect("command").expect_err(text);
            assert!(error.problem.starts_with(conflict), "{text}: {error}");
        }
        // The same choice twice is no conflict.
        assert!(
            parse("challenge chak maya white w")
                .expect("command")
                .is_ok()
        );
    }

    #[test]
    fn settings_and_help() {
        let Command::Settings(change) = ok("settings pings off view white") else {
            panic!()
        };
        assert_eq!(change.turn_pings, Some(false));
        assert_eq!(change.viewpoint.as_deref(), Some("white"));
        assert!(parse("settings colour pink").expect("command").is_err());
        for wording in ["pings: off", "turn pings=off", "notifications off", "off"] {
            let Command::Settings(change) = ok(&format!("settings {wording}")) else {
                panic!("{wording}")
            };
            assert_eq!(change.turn_pings, Some(false), "{wording}");
        }
        for wording in [
            "view: white",
            "board view white",
            "viewpoint white",
            "white",
        ] {
            let Command::Settings(change) = ok(&format!("settings {wording}")) else {
                panic!("{wording}")
            };
            assert_eq!(change.viewpoint.as_deref(), Some("white"), "{wording}");
        }
        let sideways = parse("settings view sideways")
            .expect("command")
            .expect_err("refused");
        assert!(
            sideways
                .problem
                .starts_with("\"sideways\" is not a board view."),
            "{sideways}"
        );
        let text = help(None);
        for spec in COMMANDS {
            assert!(text.contains(spec.name), "{}", spec.name);
        }
        assert!(help(Some("draw")).contains("claim"));
    }
}
