//! The lines a UCI front end sends, read into [`Command`]s. Reading never fails silently: a line
//! that is no command gives a [`BadLine`] with the explanation the engine prints.

use std::time::Duration;

use super::shown;

/// One line from the front end.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Command {
    /// `uci`: identify, list the options, then `uciok`.
    Uci,
    /// `isready`: answered with `readyok`, even while searching.
    IsReady,
    /// `ucinewgame`: forget what the table learned.
    NewGame,
    /// `setoption name <name> [value <value>]`.
    SetOption {
        /// The option's name, as given.
        name: String,
        /// Its value; none for a button.
        value: Option<String>,
    },
    /// `position startpos|fen <position> [moves <move>...]`.
    Position {
        /// The position text, or `None` for the start position.
        fen: Option<String>,
        /// The moves played from it, in the interchange notation.
        moves: Vec<String>,
    },
    /// `go` with its limits.
    Go(Go),
    /// `stop`: end the search and answer with its best move.
    Stop,
    /// `ponderhit`, `debug`, `register`: understood, nothing to do.
    Ignored,
    /// `quit`.
    Quit,
}

/// The limits of a `go` command; every one is optional.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Go {
    /// `depth`: plies.
    pub depth: Option<u32>,
    /// `nodes`.
    pub nodes: Option<u64>,
    /// `movetime`: exactly this long.
    pub movetime: Option<Duration>,
    /// `wtime`: White's clock.
    pub wtime: Option<Duration>,
    /// `btime`: Black's clock.
    pub btime: Option<Duration>,
    /// `winc`: White's increment.
    pub winc: Option<Duration>,
    /// `binc`: Black's increment.
    pub binc: Option<Duration>,
    /// `movestogo`: moves until the next time control.
    pub movestogo: Option<u32>,
    /// `infinite`: search until `stop`.
    pub infinite: bool,
}

/// A line that is no UCI command, with why.
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error)]
#[error("{0}")]
pub struct BadLine(pub String);

/// Reads one line; `Ok(None)` for a blank one.
///
/// # Errors
/// [`BadLine`] when the line is not a command this engine knows, or its arguments do not read.
pub fn parse(line: &str) -> Result<Option<Command>, BadLine> {
    let mut words = line.split_whitespace();
    let Some(first) = words.next() else {
        return Ok(None);
    };
    let rest: Vec<&str> = words.collect();
    let command = match first {
        "uci" => Command::Uci,
        "isready" => Command::IsReady,
        "ucinewgame" => Command::NewGame,
        "setoption" => set_option(&rest)?,
        "position" => position(&rest)?,
        "go" => Command::Go(go(&rest)?),
        "stop" => Command::Stop,
        "quit" => Command::Quit,
        "ponderhit" | "debug" | "register" => Command::Ignored,
        other => {
            return Err(BadLine(format!(
                "unknown command \"{}\"; commands: uci, isready, ucinewgame, setoption, \
                 position, go, stop, quit",
                shown(other)
            )));
        }
    };
    Ok(Some(command))
}

fn set_option(words: &[&str]) -> Result<Command, BadLine> {
    let usage = || BadLine(String::from("write setoption name <name> [value <value>]"));
    let [first, rest @ ..] = words else {
        return Err(usage());
    };
    if *first != "name" {
        return Err(usage());
    }
    let split = rest.iter().position(|word| *word == "value");
    let (name, value) = match split {
        Some(at) => (&rest[..at], Some(rest[at + 1..].join(" "))),
        None => (rest, None),
    };
    if name.is_empty() {
        return Err(usage());
    }
    Ok(Command::SetOption {
        name: name.join(" "),
        value,
    })
}

fn position(words: &[&str]) -> Result<Command, BadLine> {
    let split = words.iter().position(|word| *word == "moves");
    let (setup, moves) = match split {
        Some(at) => (&words[..at], &words[at + 1..]),
        None => (words, &[][..]),
    };
    let fen = match setup {
        ["startpos"] => None,
        ["fen", text @ ..] if !text.is_empty() => Some(text.join(" ")),
        _ => {
            return Err(BadLine(String::from(
                "write position startpos [moves ...] or position fen <position> [moves ...]",
            )));
        }
    };
    Ok(Command::Position {
        fen,
        moves: moves.iter().map(|word| (*word).to_owned()).collect(),
    })
}

fn go(words: &[&str]) -> Result<Go, BadLine> {
    let mut go = Go::default();
    let mut words = words.iter();
    while let Some(&word) = words.next() {
        if word == "infinite" {
            go.infinite = true;
            continue;
        }
        if word == "ponder" {
            continue;
        }
        if word == "searchmoves" {
            // Restricting the root moves is not offered; the search looks at every move.
            break;
        }
        let value = words
            .next()
            .ok_or_else(|| BadLine(format!("go {}: a number must follow", shown(word))))?;
        let number: u64 = value.parse().map_err(|_| {
            BadLine(format!(
                "go {}: \"{}\" is not a whole number",
                shown(word),
                shown(value)
            ))
        })?;
        let millis = Duration::from_millis(number);
        let small = u32::try_from(number).unwrap_or(u32::MAX);
        match word {
            "depth" => go.depth = Some(small),
            "nodes" => go.nodes = Some(number),
            "movetime" => go.movetime = Some(millis),
            "wtime" => go.wtime = Some(millis),
            "btime" => go.btime = Some(millis),
            "winc" => go.winc = Some(millis),
            "binc" => go.binc = Some(millis),
            "movestogo" => go.movestogo = Some(small),
            // A mate search is an ordinary search here.
            "mate" => {}
            other => {
                return Err(BadLine(format!(
                    "go: unknown limit \"{}\"; limits: depth, nodes, movetime, wtime, btime, \
                     winc, binc, movestogo, infinite",
                    shown(other)
                )));
            }
        }
    }
    Ok(go)
}
