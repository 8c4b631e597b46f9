//! The built-in opponent: an alpha-beta engine for every game, at five levels.
//!
//! Pure and synchronous like the rules core: no I/O and no async. It reads the clock only for
//! its time budget, and its randomness comes from a seed passed in, so a game against it can be
//! replayed. It only ever plays a move from the position's legal moves.
//!
//! - [`eval`]: the static evaluation of each game, and what it knows of moves; each game's is
//!   a weighted sum of terms (`terms`) whose weights are fitted to self-play games by
//!   [`tune`] (`pigeon tune`).
//! - [`analysis`]: post-game analysis: every position evaluated within a fixed node budget,
//!   moves judged by the winning chances they lost (`?!`, `?`, `??`), accuracy per player.
//! - `search`: iterative deepening principal-variation search with quiescence, null-move
//!   pruning, late-move reductions, killer and history move order and aspiration windows,
//!   generic over [`Position`](crate::rules::Position).
//! - [`Table`]: the transposition table, sized in megabytes.
//!
//! The chat opponent and `pigeon uci` run the same search: a [`Level`] is only a set of
//! [`Limits`], and [`think`] takes a table and a [`Control`] (a stop flag, a report of each
//! iteration) from whoever runs it.
//!
//! Levels: searches within a node budget per game (in Chak 3,000, 5,000, 12,000, 30,000 and
//! 90,000 positions), so their games are reproducible, set so that each level scores about
//! 75 % against the one below (measured with `pigeon match`, in the README). Where budgets
//! alone step less, the lower levels also misjudge positions ([`Limits::noise`], Shakti), or
//! look fewer turns ahead ([`Limits::depth`]) and play random moves ([`Limits::blunders`])
//! (Chesscala, whose top step stays narrower: the time limit bounds how far level 5 looks).
//! Every level stops by 1.5 seconds.

pub mod analysis;
pub mod eval;
mod search;
mod table;
mod terms;
pub mod tune;

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use crate::rules::{Position, Record, Variant, VariantMove, VariantPosition};

use self::eval::Evaluate;
pub use self::table::Table;

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

    /// The search budget of this level in `variant`: a number of nodes, the same on every
    /// machine, and [`TIME_LIMIT`] on a slow one.
    #[must_use]
    pub fn limits(self, variant: Variant) -> Limits {
        let index = usize::from(self.0 - 1);
        Limits {
            depth: level_depth(variant)[index],
            nodes: level_nodes(variant)[index],
            time: Some(TIME_LIMIT),
            noise: level_noise(variant)[index],
            blunders: level_blunders(variant)[index],
            ..Limits::default()
        }
    }
}

/// The nodes a move of levels 1 to 5 in `variant`, set by matches between neighbouring
/// levels (the README's "The levels"): each level should beat the one below by about 75 %,
/// or as nearly as the game's search allows within [`TIME_LIMIT`] (in Chesscala and Shakti
/// a budget three times larger gains less than in Chak, so Shakti's budgets lie further
/// apart, and Chesscala's levels share one budget and differ by their depth,
/// [`level_depth`], and their blunders, [`level_blunders`]).
const fn level_nodes(variant: Variant) -> [u64; 5] {
    match variant {
        Variant::Chak => [3_000, 5_000, 12_000, 30_000, 90_000],
        Variant::Chad => [2_000, 5_000, 12_000, 30_000, 90_000],
        Variant::Shakti => [3_000, 12_000, 30_000, 90_000, 270_000],
        Variant::Chesscala => [90_000; 5],
    }
}

/// The deepest iteration of levels 1 to 5 in `variant`: as deep as their budgets go, but in
/// Chesscala levels 1 to 3 look one turn ahead (and at the captures after it) and level 4
/// two. Chesscala is won and lost by the ends a turn or two shows (checkmates, the race to
/// twelve losses): a search that looks a turn further scores about 75 % against one that
/// does not, where more nodes at the same depth gain less and a misjudged position nothing.
const fn level_depth(variant: Variant) -> [u32; 5] {
    match variant {
        Variant::Chak | Variant::Chad | Variant::Shakti => [MAX_DEPTH; 5],
        Variant::Chesscala => [1, 1, 1, 2, MAX_DEPTH],
    }
}

/// How far off levels 1 to 5 in `variant` judge positions ([`Limits::noise`]): none in Chak
/// and Chad, whose budgets alone step by about 75 %; in Shakti, where a budget three times
/// larger gains less, as much more at each lower level as makes the steps about as wide
/// (measured like the budgets, the README's "Measured strength").
const fn level_noise(variant: Variant) -> [i32; 5] {
    match variant {
        Variant::Chak | Variant::Chad | Variant::Chesscala => [0; 5],
        Variant::Shakti => [600, 300, 150, 100, 0],
    }
}

/// The chance (thousandths) that levels 1 to 5 in `variant` play a random move
/// ([`Limits::blunders`]): only Chesscala's levels 1 and 2, below the shallowest search
/// (level 3). Chesscala is decided by the wins and losses one turn shows, which even a
/// small search sees (noise changes little there), so its weakest levels err by moves
/// picked at random: a search that punishes them scores about 75 % against one that plays
/// three moves in ten at random, which scores as much against one that plays eight in ten.
const fn level_blunders(variant: Variant) -> [u16; 5] {
    match variant {
        Variant::Chak | Variant::Chad | Variant::Shakti => [0; 5],
        Variant::Chesscala => [800, 300, 0, 0, 0],
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

/// The deepest iteration any search goes to.
pub const MAX_DEPTH: u32 = 64;

/// A search budget. The search stops at whichever limit it reaches first and plays the best
/// move of the last completed depth.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Limits {
    /// The deepest iteration, in plies.
    pub depth: u32,
    /// The most positions to visit.
    pub nodes: u64,
    /// The most time to take, if limited: the search stops when it is up.
    pub time: Option<Duration>,
    /// After this much time no new iteration starts (time management on a clock).
    pub soft_time: Option<Duration>,
    /// How far off, at most, the search's judgement of a position may be (in evaluation
    /// points; 0: not at all): an error of up to this much either way, the same every time a
    /// position is met, is added to each static value. How the weaker levels of games where
    /// a smaller budget alone plays too well misjudge positions, as a weaker player does.
    pub noise: i32,
    /// The chance, in thousandths, that a move is picked at random among the legal moves
    /// instead of searched (0: never), though a move that wins on the spot is always taken:
    /// the seed decides, so a game still replays the same way. How the lowest levels of a
    /// game whose searches draw most games between them (Chesscala) lose games, as beginners
    /// do.
    pub blunders: u16,
}

impl Default for Limits {
    /// No limit at all: the search runs until it is stopped (or finds a mate).
    fn default() -> Limits {
        Limits {
            depth: MAX_DEPTH,
            nodes: u64::MAX,
            time: None,
            soft_time: None,
            noise: 0,
            blunders: 0,
        }
    }
}

impl Limits {
    /// The budget for one move on a clock: `remaining` for the rest of the game (or for the
    /// next `moves_to_go` moves), `increment` added after each move. About a thirtieth of the
    /// remaining time plus most of the increment, never more than a third of what is left.
    #[must_use]
    pub fn for_clock(remaining: Duration, increment: Duration, moves_to_go: Option<u32>) -> Limits {
        // Time lost between the engine and whoever runs the clock.
        let overhead = Duration::from_millis(30);
        let usable = remaining.saturating_sub(overhead);
        let moves = moves_to_go.unwrap_or(30).clamp(1, 30);
        let share = usable / moves + increment * 3 / 4;
        let hard = share.min(usable / 3).max(Duration::from_millis(5));
        Limits {
            time: Some(hard),
            // An iteration started after half the budget would rarely finish in time.
            soft_time: Some(hard / 2),
            ..Limits::default()
        }
    }
}

/// A score as the UCI protocol reports it: centipawns, or mate in so many moves (negative: the
/// side to move is mated).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Score {
    /// An evaluation in centipawn-like points.
    Cp(i32),
    /// Mate in this many moves (of the side to move: plies rounded up to moves).
    Mate(i32),
}

impl Score {
    /// The reported form of a search score.
    #[must_use]
    pub fn of(score: i32) -> Score {
        if score > search::MATE_BOUND {
            Score::Mate((MATE - score + 1) / 2)
        } else if score < -search::MATE_BOUND {
            Score::Mate(-(MATE + score) / 2)
        } else {
            Score::Cp(score)
        }
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Cp(points) => write!(f, "cp {points}"),
            Score::Mate(moves) => write!(f, "mate {moves}"),
        }
    }
}

/// One completed iteration of a search, as reported while it runs.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Progress {
    /// The depth completed.
    pub depth: u32,
    /// The deepest ply reached (quiescence included).
    pub seldepth: u32,
    /// The score for the side to move.
    pub score: Score,
    /// Positions visited so far.
    pub nodes: u64,
    /// Time since the search started.
    pub elapsed: Duration,
    /// The principal variation in the interchange notation, best move first.
    pub pv: Vec<String>,
}

/// What steers a search from outside: a flag that stops it when set (from another thread),
/// and a callback for each completed iteration.
#[derive(Default)]
pub struct Control<'a> {
    /// Set to stop the search; it then plays the best move found so far.
    pub stop: Option<&'a AtomicBool>,
    /// Told of every completed iteration.
    pub report: Option<&'a mut dyn FnMut(&Progress)>,
}

impl fmt::Debug for Control<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Control")
            .field("stop", &self.stop)
            .field("report", &self.report.is_some())
            .finish()
    }
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
    search(record, &level.limits(record.position().variant()), seed)
}

/// Searches the current position of `record` within `limits`, with a table of its own.
#[must_use]
pub fn search(record: &Record, limits: &Limits, seed: u64) -> Option<Choice> {
    think(
        record,
        limits,
        seed,
        &mut Table::default(),
        Control::default(),
    )
}

/// Searches the current position of `record` within `limits`, using and filling `table`
/// (kept between the moves of a game), stopped and reported to through `control`. `None`
/// when the position has no legal move.
#[must_use]
pub fn think(
    record: &Record,
    limits: &Limits,
    seed: u64,
    table: &mut Table,
    control: Control<'_>,
) -> Option<Choice> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let history = history(record);
    let mut context = Context {
        history: &history,
        limits,
        rng: &mut rng,
        table,
    };
    match record.position() {
        VariantPosition::Chak(pos) => run(pos, VariantMove::Chak, &mut context, control),
        VariantPosition::Shakti(pos) => run(pos, VariantMove::Shakti, &mut context, control),
        VariantPosition::Chad(pos) => run(pos, VariantMove::Chad, &mut context, control),
        VariantPosition::Chesscala(pos) => run(pos, VariantMove::Chesscala, &mut context, control),
    }
}

/// One search's inputs besides the position and its control.
struct Context<'a> {
    history: &'a [u64],
    limits: &'a Limits,
    rng: &'a mut fastrand::Rng,
    table: &'a mut Table,
}

fn run<P: Evaluate>(
    pos: &P,
    wrap: fn(P::Move) -> VariantMove,
    context: &mut Context<'_>,
    control: Control<'_>,
) -> Option<Choice> {
    let mut outer = control.report;
    let mut report = |iteration: &search::Iteration<P::Move>| {
        if let Some(outer) = outer.as_mut() {
            outer(&Progress {
                depth: iteration.depth,
                seldepth: iteration.seldepth,
                score: Score::of(iteration.score),
                nodes: iteration.nodes,
                elapsed: iteration.elapsed,
                pv: line_texts(pos, &iteration.pv),
            });
        }
    };
    let control = search::Control {
        stop: control.stop,
        report: Some(&mut report),
    };
    search::search(
        pos,
        context.history,
        context.limits,
        context.rng,
        context.table,
        control,
    )
    .map(|found| Choice {
        mv: wrap(found.mv),
        score: found.score,
        depth: found.depth,
        nodes: found.nodes,
    })
}

/// A line of moves from `pos` in the interchange notation.
fn line_texts<P: Position>(pos: &P, line: &[P::Move]) -> Vec<String> {
    let mut current = pos.clone();
    line.iter()
        .map(|mv| {
            let text = current.move_text(mv);
            current = current.play(mv);
            text
        })
        .collect()
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
        VariantPosition::Chak(p) => p.key(),
        VariantPosition::Shakti(p) => p.key(),
        VariantPosition::Chad(p) => p.key(),
        VariantPosition::Chesscala(p) => p.key(),
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
        ..Limits::default()
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
