//! The built-in opponent: an alpha-beta engine for every game, at five levels.
//!
//! Pure and synchronous like the rules core: no I/O and no async. It reads the clock only for
//! its time budget, and its randomness comes from a seed passed in, so a game against it can be
//! replayed. It only ever plays a move from the position's legal moves.
//!
//! - [`eval`]: the static evaluation of each game.
//! - `search`: iterative deepening negamax with alpha-beta, move ordering and a transposition
//!   table, generic over [`Position`](crate::rules::Position).
//!
//! Levels: 1 looks one ply ahead with a lot of noise, 2 two plies with some, 3 three plies
//! within a fixed node budget (so its games are reproducible), 4 and 5 deepen until about 0.8
//! and 1.5 seconds have passed. Every level stops by 1.5 seconds.

pub mod eval;
mod search;

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use crate::rules::{Record, VariantMove, VariantPosition};

use self::eval::Evaluate;

/// The score of a mate on the board; a mate in `n` plies scores `MATE - n`.
pub const MATE: i32 = 1_000_000;

/// The longest any level thinks about one move.
pub const TIME_LIMIT: Duration = Duration::from_millis(1_500);

/// How strong the engine plays: 1 (weakest) to 5 (strongest).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Level(u8);

impl Level {
    /// The weakest level.
    pub const MIN: Level = Level(1);
    /// The strongest level.
    pub const MAX: Level = Level(5);
    /// The level of a challenge that names none.
    pub const DEFAULT: Level = Level(3);

    /// The level `number`, if it is 1 to 5.
    #[must_use]
    pub const fn new(number: u8) -> Option<Level> {
        if number >= Level::MIN.0 && number <= Level::MAX.0 {
            Some(Level(number))
        } else {
            None
        }
    }

    /// The level's number, 1 to 5.
    #[must_use]
    pub const fn number(self) -> u8 {
        self.0
    }

    /// The search budget of this level.
    #[must_use]
    pub fn limits(self) -> Limits {
        let (depth, nodes, time, noise) = match self.0 {
            1 => (1, 50_000, TIME_LIMIT, 250),
            2 => (2, 100_000, TIME_LIMIT, 80),
            3 => (3, 12_000, TIME_LIMIT, 0),
            4 => (64, u64::MAX, Duration::from_millis(800), 0),
            _ => (64, u64::MAX, TIME_LIMIT, 0),
        };
        Limits {
            depth,
            nodes,
            time: Some(time),
            noise,
        }
    }
}

impl Default for Level {
    fn default() -> Level {
        Level::DEFAULT
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A level number outside 1 to 5.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("The level is a number from 1 (weakest) to 5 (strongest).")]
pub struct BadLevel;

impl FromStr for Level {
    type Err = BadLevel;

    fn from_str(text: &str) -> Result<Level, BadLevel> {
        text.trim()
            .parse::<u8>()
            .ok()
            .and_then(Level::new)
            .ok_or(BadLevel)
    }
}

/// A search budget. The search stops at whichever limit it reaches first and plays the best
/// move of the last completed depth.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Limits {
    /// The deepest iteration, in plies.
    pub depth: u32,
    /// The most positions to visit.
    pub nodes: u64,
    /// The most time to take, if limited.
    pub time: Option<Duration>,
    /// Random noise of up to this many points on each move's score (weak levels).
    pub noise: i32,
}

/// The engine's choice in a position.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Choice {
    /// The move, one of the position's legal moves.
    pub mv: VariantMove,
    /// Its score for the side to move (mates near [`MATE`]).
    pub score: i32,
    /// The deepest completed iteration.
    pub depth: u32,
    /// Positions visited.
    pub nodes: u64,
}

/// The engine's move for the side to move in `record` at `level`, or `None` when the game is
/// over. The game's earlier positions count for repetitions.
#[must_use]
pub fn choose(record: &Record, level: Level, seed: u64) -> Option<Choice> {
    if record.outcome().is_some() {
        return None;
    }
    search(record, &level.limits(), seed)
}

/// Searches the current position of `record` within `limits`.
#[must_use]
pub fn search(record: &Record, limits: &Limits, seed: u64) -> Option<Choice> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let history = history(record);
    match record.position() {
        VariantPosition::Chak(pos) => run(pos, &history, limits, &mut rng, VariantMove::Chak),
        VariantPosition::Shakti(pos) => run(pos, &history, limits, &mut rng, VariantMove::Shakti),
        VariantPosition::Chad(pos) => run(pos, &history, limits, &mut rng, VariantMove::Chad),
        VariantPosition::Chesscala(pos) => {
            run(pos, &history, limits, &mut rng, VariantMove::Chesscala)
        }
    }
}

fn run<P: Evaluate>(
    pos: &P,
    history: &[u64],
    limits: &Limits,
    rng: &mut fastrand::Rng,
    wrap: fn(P::Move) -> VariantMove,
) -> Option<Choice> {
    search::search(pos, history, limits, rng).map(|found| Choice {
        mv: wrap(found.mv),
        score: found.score,
        depth: found.depth,
        nodes: found.nodes,
    })
}

/// The keys of the positions before the current one (for repetitions).
fn history(record: &Record) -> Vec<u64> {
    let mut pos = record.start().clone();
    let mut keys = Vec::with_capacity(record.moves().len());
    for played in record.moves() {
        keys.push(variant_key(&pos));
        pos = pos.play(&played.mv);
    }
    keys
}

fn variant_key(pos: &VariantPosition) -> u64 {
    match pos {
        VariantPosition::Chak(p) => search::key(p),
        VariantPosition::Shakti(p) => search::key(p),
        VariantPosition::Chad(p) => search::key(p),
        VariantPosition::Chesscala(p) => search::key(p),
    }
}

/// The static evaluation of `pos` for the side to move.
#[must_use]
pub fn evaluate(pos: &VariantPosition) -> i32 {
    match pos {
        VariantPosition::Chak(p) => p.evaluate(),
        VariantPosition::Shakti(p) => p.evaluate(),
        VariantPosition::Chad(p) => p.evaluate(),
        VariantPosition::Chesscala(p) => p.evaluate(),
    }
}

/// How far behind (in evaluation points) the engine must be to accept a draw offer.
pub const DRAW_MARGIN: i32 = 300;

/// Whether the engine, to move or not, accepts a draw in `record`: only when a short search
/// says its side is clearly worse.
#[must_use]
pub fn accepts_draw(record: &Record, engine: crate::rules::Color, seed: u64) -> bool {
    let limits = Limits {
        depth: 2,
        nodes: 20_000,
        time: Some(TIME_LIMIT),
        noise: 0,
    };
    let for_mover = search(record, &limits, seed)
        .map_or_else(|| evaluate(record.position()), |choice| choice.score);
    let for_engine = if record.position().turn() == engine {
        for_mover
    } else {
        -for_mover
    };
    for_engine < -DRAW_MARGIN
}
