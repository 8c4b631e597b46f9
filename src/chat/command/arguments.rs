//! The words of `challenge` and `settings`, said in any order: each choice once, filler
//! words skipped, an unknown word answered with the nearest ones that mean something.

use super::super::inert::inert;
use super::Command;
use crate::engine::Level;
use crate::rules::{GameRules, RuleSet, Variant};
use crate::service::{ColorChoice, DAYS_PER_MOVE, SettingsChange, clock};

/// Words a challenge may hold around its options.
const FILLERS: &[&str] = &[
    "days", "day", "d", "per", "move", "a", "to", "of", "game", "with", "vs", "against", "for",
    "please",
];

/// One choice of a challenge, said once (or the same way twice): a second, different value is
/// a conflict, refused with both values named.
fn choose<T: PartialEq>(
    slot: &mut Option<T>,
    value: T,
    what: &str,
    shown: impl Fn(&T) -> String,
) -> Result<(), String> {
    match slot {
        Some(old) if *old != value => Err(format!(
            "You asked for {} and {}: choose one {what}.",
            shown(old),
            shown(&value)
        )),
        _ => {
            *slot = Some(value);
            Ok(())
        }
    }
}

pub(super) fn parse_challenge(args: &[&str]) -> Result<Command, String> {
    let (mut opponent, mut variant, mut days, mut color, mut rated, mut level) =
        (None, None, None, None, None, None);
    let (mut rules, mut takebacks) = (None, None);
    // `from` and the position come last: positions hold spaces.
    let (args, from) = match args
        .iter()
        .position(|word| word.eq_ignore_ascii_case("from"))
    {
        Some(at) => {
            let position = args[at + 1..].join(" ");
            if position.is_empty() {
                return Err(String::from(
                    "Give the position after `from`, for example `from start`.",
                ));
            }
            (&args[..at], Some(position))
        }
        None => (args, None),
    };
    let words: Vec<String> = args.iter().map(|w| w.to_ascii_lowercase()).collect();
    let mut words = words.iter().map(|w| w.trim_end_matches(','));
    let mut original = args.iter().map(|w| w.trim_end_matches(','));
    while let Some(word) = words.next() {
        let typed = original.next().unwrap_or(word);
        if let Some(found) = Variant::from_name(word) {
            choose(&mut variant, found, "game", |v: &Variant| {
                v.name().to_owned()
            })?;
            continue;
        }
        if let Ok(found) = word.parse::<GameRules>() {
            choose(&mut variant, found.variant(), "game", |v: &Variant| {
                v.name().to_owned()
            })?;
            choose(&mut rules, found.rules(), "rule set", |r: &RuleSet| {
                r.key().to_owned()
            })?;
            continue;
        }
        if let Some(found) = RuleSet::from_key(word).filter(|r| *r != RuleSet::Standard) {
            choose(&mut rules, found, "rule set", |r: &RuleSet| {
                r.key().to_owned()
            })?;
            continue;
        }
        if let Some(number) = word
            .strip_prefix("level")
            .or_else(|| word.strip_prefix("lvl"))
        {
            let number = if number.is_empty() {
                original.next();
                words.next().unwrap_or_default()
            } else {
                number
            };
            let found = number.parse::<Level>().map_err(|error| error.to_string())?;
            choose(&mut level, found, "level", |l: &Level| {
                format!("level {}", l.number())
            })?;
            continue;
        }
        let side = |c: &ColorChoice| c.key().to_owned();
        let kind = |r: &bool| String::from(if *r { "rated" } else { "casual" });
        match word {
            "rated" => choose(&mut rated, true, "kind of game", kind)?,
            "casual" | "unrated" => choose(&mut rated, false, "kind of game", kind)?,
            "white" | "w" => choose(&mut color, ColorChoice::White, "side", side)?,
            "black" | "b" | "green" => choose(&mut color, ColorChoice::Black, "side", side)?,
            "random" => choose(&mut color, ColorChoice::Random, "side", side)?,
            "takebacks" | "takeback" | "undo" => {
                choose(&mut takebacks, true, "takeback rule", takeback_word)?;
            }
            "notakebacks" | "notakeback" | "no-takebacks" => {
                choose(&mut takebacks, false, "takeback rule", takeback_word)?;
            }
            word if FILLERS.contains(&word) => {}
            _ => {
                let number = word.trim_end_matches("days").trim_end_matches("day");
                let number = number.trim_end_matches('d');
                match number.parse::<i64>() {
                    Ok(n) if DAYS_PER_MOVE.contains(&n) => {
                        let shown = |n: &i64| clock::plural(n, "day");
                        choose(&mut days, n, "time per move", shown)?;
                    }
                    Ok(_) => {
                        return Err(format!(
                            "Days per move must be from {} to {}.",
                            DAYS_PER_MOVE.start(),
                            DAYS_PER_MOVE.end()
                        ));
                    }
                    Err(_) => {
                        let name = inert(typed);
                        choose(
                            &mut opponent,
                            name,
                            "opponent (one person at a time)",
                            |n: &String| n.clone(),
                        )?;
                    }
                }
            }
        }
    }
    Ok(Command::Challenge {
        opponent,
        variant,
        days,
        color: color.unwrap_or(ColorChoice::Random),
        rated,
        level,
        rules: rules.unwrap_or_default(),
        from,
        takebacks,
    })
}

fn takeback_word(on: &bool) -> String {
    String::from(if *on { "takebacks" } else { "notakebacks" })
}

/// The closest game names and challenge words to an unknown word, for "did you mean".
#[must_use]
pub fn challenge_words_near(word: &str) -> Vec<String> {
    let options = Variant::ALL.iter().map(|v| v.key()).chain([
        "rated",
        "casual",
        "white",
        "black",
        "random",
        "level",
        "days",
        "nodraws",
        "takebacks",
        "notakebacks",
        "from",
    ]);
    crate::service::closest(word, options, 3)
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// What `settings` can change, with its values, for replies.
const SETTINGS_USAGE: &str = "`settings pings on|off`, `settings view mine|mover|white|black`";

/// Reads `settings` in the words people use: `pings off`, `ping: off`, `turn pings=off`,
/// `notifications off`, `view white`, `board view: white`, `viewpoint black`, or a value alone
/// (`off`, `white`).
pub(super) fn parse_settings(rest: &[&str]) -> Result<Command, String> {
    let mut change = SettingsChange::default();
    let text = rest
        .join(" ")
        .to_ascii_lowercase()
        .replace([':', '=', ',', ';'], " ");
    let words: Vec<&str> = text
        .split_whitespace()
        .filter(|w| {
            !matches!(
                *w,
                "turn" | "my" | "the" | "to" | "from" | "set" | "is" | "and"
            )
        })
        .collect();
    let mut words = words.into_iter().peekable();
    while let Some(word) = words.next() {
        let (setting, value) = match word {
            "pings" | "ping" | "notifications" | "notification" | "notify" | "mentions"
            | "alerts" => ("pings", words.next()),
            "view" | "viewpoint" | "board" | "perspective" | "orientation" | "side" => {
                // `board view white`: the second word names the same setting.
                if words.peek() == Some(&"view") {
                    words.next();
                }
                ("view", words.next())
            }
            "on" | "off" | "yes" | "no" | "true" | "false" => ("pings", Some(word)),
            "mine" | "mover" | "white" | "black" => ("view", Some(word)),
            other => {
                return Err(format!(
                    "\"{}\" is not a setting. You can change {SETTINGS_USAGE}.",
                    inert(other)
                ));
            }
        };
        match (setting, value) {
            ("pings", Some("on" | "yes" | "true")) => change.turn_pings = Some(true),
            ("pings", Some("off" | "no" | "false")) => change.turn_pings = Some(false),
            ("view", Some(v @ ("mine" | "mover" | "white" | "black"))) => {
                change.viewpoint = Some(v.to_owned());
            }
            ("pings", value) => {
                return Err(format!(
                    "{}Turn pings are on or off: `settings pings off`.",
                    value.map_or_else(String::new, |v| format!(
                        "\"{}\" is not on or off. ",
                        inert(v)
                    ))
                ));
            }
            (_, value) => {
                return Err(format!(
                    "{}The board view is mine, mover, white or black: `settings view white`.",
                    value.map_or_else(String::new, |v| format!(
                        "\"{}\" is not a board view. ",
                        inert(v)
                    ))
                ));
            }
        }
    }
    Ok(Command::Settings(change))
}
