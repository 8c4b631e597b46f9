//! `pigeon match`: two UCI engines play each other over the stored openings, each opening with
//! colours swapped, and the rules core referees. An illegal or missing move loses, with a
//! message; the fifty-move rule and an optional ply limit end games as draws. The report is
//! the score, the Elo difference with its 95% interval and, when asked, an SPRT verdict; the
//! games can be written as Pigeon's game records, each as it ends, so a match that is stopped
//! keeps the games it finished and can go on from the next one.
//!
//! - `player`: one engine process spoken to in UCI.
//! - `openings`: the balanced openings of each game.
//! - `stats`: score, Elo and SPRT.

mod openings;
mod player;
mod stats;

use std::collections::BTreeSet;
use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::ops::RangeInclusive;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::thread;
use std::time::Duration;

pub use self::openings::openings;
pub use self::player::{Answer, Player};
pub use self::stats::{Elo, Sprt, Tally, Verdict};
use crate::rules::{Color, EndReason, Record, Variant, VariantPosition};
use crate::uci::{unwire, wire};

/// A failure that stops a match.
#[derive(Debug, thiserror::Error)]
pub enum ArenaError {
    /// An engine could not be started or stopped answering.
    #[error("engine \"{command}\": {problem}")]
    Engine {
        /// The engine's command.
        command: String,
        /// What went wrong.
        problem: String,
    },
    /// A stored opening does not replay.
    #[error("assets/openings/{variant}.txt line {line}: {problem}")]
    Opening {
        /// The game's key.
        variant: &'static str,
        /// The line of the opening.
        line: usize,
        /// Why it does not replay.
        problem: String,
    },
    /// `--first-game` is past the match's last game.
    #[error("--first-game {first}: the match has {total} games; give a number from 1 to {total}")]
    FirstGame {
        /// The game asked for.
        first: usize,
        /// How many games the match has.
        total: usize,
    },
    /// The records file could not be opened or written.
    #[error("{path}: {problem}; give --records a file in a folder you can write to")]
    Records {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        problem: std::io::Error,
    },
}

/// How much each move may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MoveLimit {
    /// `go nodes N`.
    Nodes(u64),
    /// `go depth N`.
    Depth(u32),
    /// `go movetime MS`.
    MoveTime(Duration),
    /// A clock per side: a base time and an increment per move (`go wtime … btime …`).
    Clock {
        /// Each side's time at the start.
        base: Duration,
        /// Added after each move.
        increment: Duration,
    },
}

impl MoveLimit {
    /// Reads a time control `SECONDS[+INCREMENT]`, such as `10+0.1`.
    ///
    /// # Errors
    /// A message when the text is no time control.
    pub fn clock(text: &str) -> Result<MoveLimit, String> {
        let seconds = |part: &str| {
            part.trim()
                .parse::<f64>()
                .ok()
                .filter(|value| value.is_finite() && *value >= 0.0 && *value < 1e7)
                .map(Duration::from_secs_f64)
                .ok_or_else(|| format!("\"{text}\" is no time control; write it like 10+0.1"))
        };
        let (base, increment) = text.split_once('+').unwrap_or((text, "0"));
        Ok(MoveLimit::Clock {
            base: seconds(base)?,
            increment: seconds(increment)?,
        })
    }
}

/// What a match is.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchConfig {
    /// The two engines' commands: the first is the one the score is for.
    pub engines: [String; 2],
    /// The game.
    pub variant: Variant,
    /// How many games (rounded up to pairs, each opening with colours swapped).
    pub games: usize,
    /// The first game to play, from 1: the ones before are left out, each later one keeps the
    /// opening and colours it has in the whole match.
    pub first_game: usize,
    /// Each move's budget.
    pub limit: MoveLimit,
    /// Games still running after this many plies are drawn.
    pub max_plies: Option<usize>,
    /// Stop when this test reaches a verdict.
    pub sprt: Option<Sprt>,
    /// How many games run at once.
    pub concurrency: usize,
    /// Where the games are written as records as they end: a new file for a match from its
    /// first game, added to for one that goes on from a later game.
    pub records: Option<PathBuf>,
}

/// One finished game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Game {
    /// Its number, from 1.
    pub number: usize,
    /// Which engine (0 or 1) played White.
    pub white: usize,
    /// The engines' names, White first.
    pub names: [String; 2],
    /// The moves, with the opening.
    pub record: Record,
    /// The winner, or `None` for a draw.
    pub winner: Option<Color>,
    /// How it ended, in words.
    pub reason: String,
}

impl Game {
    /// `1-0`, `0-1` or `1/2-1/2`.
    #[must_use]
    pub fn result(&self) -> &'static str {
        match self.winner {
            Some(Color::White) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        }
    }

    /// The game as a record in Pigeon's export format.
    #[must_use]
    pub fn export(&self, config: &MatchConfig) -> String {
        let control = match config.limit {
            MoveLimit::Nodes(nodes) => format!("nodes {nodes}"),
            MoveLimit::Depth(depth) => format!("depth {depth}"),
            MoveLimit::MoveTime(time) => format!("{}ms/move", time.as_millis()),
            MoveLimit::Clock { base, increment } => {
                format!("{}+{}", base.as_secs_f64(), increment.as_secs_f64())
            }
        };
        let mut tags = vec![
            ("Event", format!("Engine match ({control})")),
            ("Site", String::from("pigeon match")),
            ("Round", self.number.to_string()),
            ("White", self.names[0].clone()),
            ("Black", self.names[1].clone()),
            ("Result", self.result().to_owned()),
        ];
        tags.extend(self.record.setup_tags());
        self.record.export(&tags, Some(&self.reason), self.result())
    }
}

/// A whole match's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The games in order of their numbers.
    pub games: Vec<Game>,
    /// The first engine's wins, draws and losses.
    pub tally: Tally,
    /// The engines' names, the first engine first.
    pub names: [String; 2],
    /// What stopped the match before its last game, after some games were played.
    pub stopped: Option<Stopped>,
}

/// A failure that stopped a match part way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stopped {
    /// What went wrong.
    pub problem: String,
    /// The first game not played: `--first-game` goes on from it.
    pub next_game: usize,
}

impl fmt::Display for Stopped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "The match stopped before game {}: {}. Fix that, then go on with --first-game {} \
             (and the same --games, and --records to add to the same file).",
            self.next_game, self.problem, self.next_game
        )
    }
}

impl Report {
    /// The closing lines: score, Elo, SPRT.
    #[must_use]
    pub fn summary(&self, sprt: Option<&Sprt>) -> Vec<String> {
        let mut lines = vec![
            format!(
                "Score of {} vs {}: {}",
                self.names[0], self.names[1], self.tally
            ),
            match self.tally.elo() {
                Some(elo) => format!("Elo difference: {elo}"),
                None => format!(
                    "Elo difference: unbounded (a score of {:.3})",
                    self.tally.score()
                ),
            },
        ];
        if let Some(sprt) = sprt {
            lines.push(sprt.line(&self.tally));
        }
        lines
    }
}

/// Plays the match, writing a line per finished game to `log`.
///
/// # Errors
/// [`ArenaError`] when an engine cannot be started or an opening does not replay before any
/// game was played; such a failure later stops the match with the games played so far, and
/// says so in [`Report::stopped`]. An engine that fails during a game loses that game, and is
/// started afresh for the next if it no longer answers.
pub fn play_match(
    config: &MatchConfig,
    log: &mut (dyn Write + Send),
) -> Result<Report, ArenaError> {
    let openings = openings(config.variant).map_err(|(line, error)| ArenaError::Opening {
        variant: config.variant.key(),
        line,
        problem: error.to_string(),
    })?;
    let openings = if openings.is_empty() {
        vec![Vec::new()]
    } else {
        openings
    };
    let pairs = config.games.div_ceil(2).max(1);
    let total = pairs * 2;
    let first = config.first_game.max(1) - 1;
    if first >= total {
        return Err(ArenaError::FirstGame {
            first: first + 1,
            total,
        });
    }
    let records = config
        .records
        .as_ref()
        .map(|path| RecordsFile::open(path, first > 0))
        .transpose()?;
    let recorded = match &records {
        Some(records) if first > 0 => records.rounds(first + 1..=total)?,
        _ => BTreeSet::new(),
    };
    if let (Some(records), false) = (&records, recorded.is_empty()) {
        let numbers: Vec<String> = recorded.iter().map(ToString::to_string).collect();
        // The log is a convenience; the report is what counts.
        let _ = writeln!(
            log,
            "Already in {}, not played again: game {}",
            records.path.display(),
            numbers.join(", ")
        );
    }
    let next = AtomicUsize::new(first);
    let done = AtomicBool::new(false);
    let shared = Mutex::new(Shared {
        games: Vec::new(),
        tally: Tally::default(),
        names: [config.engines[0].clone(), config.engines[1].clone()],
        log,
        records,
        failure: None,
    });
    thread::scope(|scope| {
        for _ in 0..config.concurrency.clamp(1, total - first) {
            scope.spawn(|| {
                let worker = Worker {
                    config,
                    openings: &openings,
                    total,
                    recorded: &recorded,
                    next: &next,
                    done: &done,
                    shared: &shared,
                };
                if let Err(error) = worker.run() {
                    done.store(true, Ordering::Relaxed);
                    let mut shared = shared.lock().unwrap_or_else(PoisonError::into_inner);
                    shared.failure.get_or_insert(error);
                }
            });
        }
    });
    let shared = shared.into_inner().unwrap_or_else(PoisonError::into_inner);
    if shared.games.is_empty()
        && let Some(error) = shared.failure
    {
        return Err(error);
    }
    let mut games = shared.games;
    games.sort_by_key(|game| game.number);
    let stopped = shared.failure.map(|error| Stopped {
        problem: error.to_string(),
        // The games run in parallel: the first number missing counts.
        next_game: (first + 1..)
            .find(|number| {
                !recorded.contains(number) && !games.iter().any(|game| game.number == *number)
            })
            .unwrap_or(total),
    });
    Ok(Report {
        games,
        tally: shared.tally,
        names: shared.names,
        stopped,
    })
}

/// What the match's threads share.
struct Shared<'a> {
    games: Vec<Game>,
    tally: Tally,
    names: [String; 2],
    log: &'a mut (dyn Write + Send),
    records: Option<RecordsFile>,
    failure: Option<ArenaError>,
}

/// The records file, written a game at a time: records are separated by a blank line.
struct RecordsFile {
    path: PathBuf,
    file: File,
    empty: bool,
}

impl RecordsFile {
    /// Opens `path`, emptied unless `add` (a match going on from a later game).
    fn open(path: &std::path::Path, add: bool) -> Result<RecordsFile, ArenaError> {
        let failed = |problem| ArenaError::Records {
            path: path.to_owned(),
            problem,
        };
        let file = OpenOptions::new()
            .create(true)
            .write(true)
            .append(add)
            .truncate(!add)
            .open(path)
            .map_err(failed)?;
        let empty = file.metadata().map_err(failed)?.len() == 0;
        Ok(RecordsFile {
            path: path.to_owned(),
            file,
            empty,
        })
    }

    /// The failure to read or write the file.
    fn failed(&self, problem: std::io::Error) -> ArenaError {
        ArenaError::Records {
            path: self.path.clone(),
            problem,
        }
    }

    /// The numbers in `range` of the games the file already holds (its `Round` tags), which
    /// a match that goes on does not play again: with several games at a time, games after
    /// the first one missing may have finished before the match stopped.
    fn rounds(&self, range: RangeInclusive<usize>) -> Result<BTreeSet<usize>, ArenaError> {
        let text = std::fs::read_to_string(&self.path).map_err(|problem| self.failed(problem))?;
        Ok(text
            .lines()
            .filter_map(|line| line.strip_prefix("[Round \"")?.strip_suffix("\"]"))
            .filter_map(|round| round.parse().ok())
            .filter(|round| range.contains(round))
            .collect())
    }

    /// Adds one game's record and flushes it to the file.
    fn add(&mut self, record: &str) -> Result<(), ArenaError> {
        let separator = if self.empty { "" } else { "\n" };
        writeln!(self.file, "{separator}{record}")
            .and_then(|()| self.file.sync_data())
            .map_err(|problem| self.failed(problem))?;
        self.empty = false;
        Ok(())
    }
}

/// One thread of a match: its own two engine processes, playing the next game until none is
/// left.
struct Worker<'a, 'log> {
    config: &'a MatchConfig,
    openings: &'a [Vec<String>],
    total: usize,
    /// Games the records file already holds, by number.
    recorded: &'a BTreeSet<usize>,
    next: &'a AtomicUsize,
    done: &'a AtomicBool,
    shared: &'a Mutex<Shared<'log>>,
}

impl Worker<'_, '_> {
    fn run(&self) -> Result<(), ArenaError> {
        let mut players = [
            Player::start(&self.config.engines[0], self.config.variant)?,
            Player::start(&self.config.engines[1], self.config.variant)?,
        ];
        {
            let mut shared = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
            shared.names = [players[0].name.clone(), players[1].name.clone()];
        }
        loop {
            let index = self.next.fetch_add(1, Ordering::Relaxed);
            if index >= self.total || self.done.load(Ordering::Relaxed) {
                return Ok(());
            }
            if self.recorded.contains(&(index + 1)) {
                continue;
            }
            let opening = &self.openings[(index / 2) % self.openings.len()];
            for (player, command) in players.iter_mut().zip(&self.config.engines) {
                // An engine that stopped answering in the last game is started afresh.
                if player.new_game().is_err() {
                    *player = Player::start(command, self.config.variant)?;
                    player.new_game()?;
                }
            }
            let white = index % 2;
            let game = play_game(&mut players, white, opening, self.config, index + 1)?;
            self.finish(game);
        }
    }

    /// Writes a finished game's record, then counts it, logs it and checks the SPRT. A game
    /// whose record cannot be written stops the match uncounted, so the match goes on from it.
    fn finish(&self, game: Game) {
        let mut shared = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
        let written = match shared.records.as_mut() {
            Some(records) => records.add(&game.export(self.config)),
            None => Ok(()),
        };
        if let Err(error) = written {
            self.done.store(true, Ordering::Relaxed);
            shared.failure.get_or_insert(error);
            return;
        }
        let first = if game.white == 0 {
            Color::White
        } else {
            Color::Black
        };
        match game.winner {
            None => shared.tally.draws += 1,
            Some(winner) if winner == first => shared.tally.wins += 1,
            Some(_) => shared.tally.losses += 1,
        }
        let line = format!(
            "Game {} ({} vs {}): {} {{{}}}  score {}",
            game.number,
            game.names[0],
            game.names[1],
            game.result(),
            game.reason,
            shared.tally
        );
        // The log is a convenience; the report is what counts.
        let _ = writeln!(shared.log, "{line}").and_then(|()| shared.log.flush());
        if let Some(sprt) = &self.config.sprt
            && sprt.verdict(&shared.tally) != Verdict::Continue
        {
            self.done.store(true, Ordering::Relaxed);
        }
        shared.games.push(game);
    }
}

/// How long an engine may take beyond its budget before it loses for not answering.
fn patience(limit: MoveLimit, left: Option<Duration>) -> Duration {
    let grace = Duration::from_secs(5);
    match limit {
        MoveLimit::Nodes(_) | MoveLimit::Depth(_) => Duration::from_secs(120),
        MoveLimit::MoveTime(time) => time * 4 + grace,
        MoveLimit::Clock { .. } => left.unwrap_or_default() + grace,
    }
}

/// Plays one game between engines ready for it: engine `white` has White.
fn play_game(
    players: &mut [Player; 2],
    white: usize,
    opening: &[String],
    config: &MatchConfig,
    number: usize,
) -> Result<Game, ArenaError> {
    let start = VariantPosition::start(config.variant);
    let mut record =
        Record::replay(start.clone(), opening).map_err(|error| ArenaError::Opening {
            variant: config.variant.key(),
            line: 0,
            problem: error.to_string(),
        })?;
    let names = [players[white].name.clone(), players[1 - white].name.clone()];
    let mut clocks = match config.limit {
        MoveLimit::Clock { base, .. } => Some([base, base]),
        _ => None,
    };
    let (winner, reason) = loop {
        record.play_forced_pass();
        if let Some(outcome) = record.outcome() {
            break (outcome.winner, outcome.reason.describe().to_owned());
        }
        if record.draw_claim() == Some(EndReason::FiftyMoves) {
            break (None, String::from("fifty-move rule"));
        }
        if config
            .max_plies
            .is_some_and(|max| record.moves().len() >= max)
        {
            break (None, String::from("adjudicated: ply limit"));
        }
        let side = record.position().turn();
        let mover = if side == Color::White {
            white
        } else {
            1 - white
        };
        let moves: Vec<String> = record.moves().iter().map(|m| wire(&m.text)).collect();
        let position = if moves.is_empty() {
            format!("position fen {}", start.to_text())
        } else {
            format!("position fen {} moves {}", start.to_text(), moves.join(" "))
        };
        let go = match (config.limit, clocks) {
            (MoveLimit::Nodes(nodes), _) => format!("go nodes {nodes}"),
            (MoveLimit::Depth(depth), _) => format!("go depth {depth}"),
            (MoveLimit::MoveTime(time), _) => format!("go movetime {}", time.as_millis()),
            (MoveLimit::Clock { increment, .. }, Some([w, b])) => format!(
                "go wtime {} btime {} winc {} binc {}",
                w.as_millis(),
                b.as_millis(),
                increment.as_millis(),
                increment.as_millis()
            ),
            (MoveLimit::Clock { .. }, None) => String::from("go"),
        };
        let left = clocks.map(|clocks| clocks[side.index()]);
        let name = players[mover].name.clone();
        let answer = match players[mover].best_move(&position, &go, patience(config.limit, left)) {
            Ok(answer) => answer,
            Err(error) => break (Some(side.other()), format!("{name} failed: {error}")),
        };
        if let (MoveLimit::Clock { increment, .. }, Some(clocks)) = (config.limit, clocks.as_mut())
        {
            let clock = &mut clocks[side.index()];
            if answer.took > *clock {
                break (Some(side.other()), format!("{name} lost on time"));
            }
            *clock = *clock - answer.took + increment;
        }
        if answer.mv == "(none)" {
            break (
                Some(side.other()),
                format!("{name} gave no move in a game that goes on"),
            );
        }
        if let Err(error) = record.play(&unwire(&answer.mv)) {
            break (
                Some(side.other()),
                format!("{name} played an illegal move {}: {error}", answer.mv),
            );
        }
    };
    if record.outcome().is_none() {
        let outcome = match winner {
            Some(color) => crate::rules::Outcome::win(color, EndReason::Resignation),
            None => crate::rules::Outcome::draw(EndReason::Agreement),
        };
        record.finish(outcome);
    }
    Ok(Game {
        number,
        white,
        names,
        record,
        winner,
        reason,
    })
}
