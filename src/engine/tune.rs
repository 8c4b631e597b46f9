//! Fitting a game's evaluation, a weighted sum of terms (`terms`), to self-play games
//! (`pigeon tune`), in two steps:
//!
//! 1. [`self_play`]: the engine plays itself at a fixed node budget from the stored openings,
//!    each followed by a few random plies so that no two games are alike, and writes each
//!    quiet position it met (the side to move may stand on the static value and the capture
//!    search finds nothing better, the score not a mate: the static value is then what the
//!    position is worth) with the game's result: `FEN;1` (White won), `FEN;0.5` or `FEN;0`.
//!    Games still running after 300 plies count as draws.
//! 2. [`fit`]: the weights that best predict those results (Texel's method): a position's
//!    predicted score is `1 / (1 + 10^(-k * value / 400))`, with `value` the evaluation from
//!    White's side and `k` chosen first so that the current weights predict best; then every
//!    weight moves (Adam on the mean squared error, a little pull towards the starting weights so
//!    that terms seen rarely stay near them) and the result is printed as the weights file.
//!    The last tenth of the positions (whole games) is kept out of the fit and its error
//!    reported, to show the fit generalises to games it did not see.

use std::io::{self, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::search::is_quiet;
use super::terms::Terms;
use super::{Control, Limits, Table, think};
use crate::arena::openings;
use crate::rules::chad::Chad;
use crate::rules::chak::Chak;
use crate::rules::chesscala::Chesscala;
use crate::rules::shakti::Shakti;
use crate::rules::{Color, Record, Variant, VariantPosition};

/// Calls the generic function `$f` for the game `$variant` names.
macro_rules! for_game {
    ($variant:expr, $f:ident($($arg:expr),*)) => {
        match $variant {
            Variant::Chak => $f::<Chak>($($arg),*),
            Variant::Shakti => $f::<Shakti>($($arg),*),
            Variant::Chad => $f::<Chad>($($arg),*),
            Variant::Chesscala => $f::<Chesscala>($($arg),*),
        }
    };
}

/// Games still running after this many plies are counted as draws.
const MAX_PLIES: usize = 300;
/// Positions whose search score is beyond this are left out (the game is decided).
const DECIDED: i32 = 3_000;
/// A position whose capture search takes more nodes than this is not quiet.
const QUIET_NODES: u64 = 10_000;

/// How the self-play games are played.
#[derive(Debug, Clone)]
pub struct SelfPlay {
    /// The game.
    pub variant: Variant,
    /// How many games.
    pub games: usize,
    /// Nodes a move.
    pub nodes: u64,
    /// Random plies after the opening.
    pub random_plies: usize,
    /// Games played at once, one a thread.
    pub threads: usize,
    /// Makes the random plies (and so the games) reproducible.
    pub seed: u64,
}

/// One game's quiet positions and its result for White (1, 0.5 or 0).
fn play_one<T: Terms>(
    opening: &[String],
    config: &SelfPlay,
    game: usize,
    table: &mut Table,
) -> String {
    let mut rng = fastrand::Rng::with_seed(config.seed ^ (game as u64).wrapping_mul(0x9E37_79B9));
    let start = VariantPosition::start(T::VARIANT);
    let Ok(mut record) = Record::replay(start, opening) else {
        return String::new();
    };
    for _ in 0..config.random_plies {
        let moves = record.position().legal_move_texts();
        if moves.is_empty() || record.outcome().is_some() {
            return String::new();
        }
        let pick = &moves[rng.usize(..moves.len())];
        if record.play(pick).is_err() {
            return String::new();
        }
    }
    table.clear();
    let limits = Limits {
        nodes: config.nodes,
        ..Limits::default()
    };
    let mut quiet = Vec::new();
    let white = loop {
        if let Some(outcome) = record.outcome() {
            break match outcome.winner {
                Some(Color::White) => "1",
                Some(Color::Black) => "0",
                None => "0.5",
            };
        }
        if record.draw_claim().is_some() || record.moves().len() >= MAX_PLIES {
            break "0.5";
        }
        let seed = rng.u64(..);
        let Some(choice) = think(&record, &limits, seed, table, Control::default()) else {
            break "0.5";
        };
        let Some(pos) = T::of(record.position()) else {
            return String::new();
        };
        if choice.score.abs() < DECIDED && is_quiet(pos, QUIET_NODES, table) {
            quiet.push(pos.to_text());
        }
        let text = record.position().move_text(&choice.mv);
        if record.play(&text).is_err() {
            break "0.5";
        }
    };
    quiet.iter().map(|fen| format!("{fen};{white}\n")).collect()
}

/// Plays the self-play games and writes their quiet positions to `out`; `progress` is told
/// the number of games finished after each one. Returns how many positions were written.
///
/// # Errors
/// Writing to `out` failed.
pub fn self_play(
    config: &SelfPlay,
    out: &mut (dyn Write + Send),
    progress: &(dyn Fn(usize) + Sync),
) -> io::Result<usize> {
    for_game!(config.variant, self_play_of(config, out, progress))
}

fn self_play_of<T: Terms>(
    config: &SelfPlay,
    out: &mut (dyn Write + Send),
    progress: &(dyn Fn(usize) + Sync),
) -> io::Result<usize> {
    let openings = openings(T::VARIANT).unwrap_or_default();
    if openings.is_empty() {
        return Ok(0);
    }
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let written = AtomicUsize::new(0);
    let out = Mutex::new(out);
    let failure: Mutex<Option<io::Error>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..config.threads.max(1) {
            scope.spawn(|| {
                let mut table = Table::new(8);
                loop {
                    let game = next.fetch_add(1, Ordering::Relaxed);
                    if game >= config.games {
                        break;
                    }
                    let lines =
                        play_one::<T>(&openings[game % openings.len()], config, game, &mut table);
                    written.fetch_add(lines.lines().count(), Ordering::Relaxed);
                    let mut out = out
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    if let Err(error) = out.write_all(lines.as_bytes()) {
                        failure
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner)
                            .get_or_insert(error);
                        next.store(config.games, Ordering::Relaxed);
                    }
                    drop(out);
                    progress(done.fetch_add(1, Ordering::Relaxed) + 1);
                }
            });
        }
    });
    match failure
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
    {
        Some(error) => Err(error),
        None => Ok(written.into_inner()),
    }
}

/// How the weights are fitted.
#[derive(Debug, Clone)]
pub struct Fit {
    /// Steps of the optimiser.
    pub iterations: usize,
    /// How far a step may move a weight, in points.
    pub rate: f64,
    /// The pull of each weight towards its starting value (per point squared).
    pub pull: f64,
}

impl Default for Fit {
    fn default() -> Fit {
        Fit {
            iterations: 600,
            rate: 1.0,
            pull: 1e-9,
        }
    }
}

/// Positions as their terms, packed: position `i`'s terms are `terms[offsets[i]..offsets[i+1]]`.
struct Samples {
    offsets: Vec<usize>,
    terms: Vec<(u16, i8)>,
    results: Vec<f64>,
}

impl Samples {
    fn new() -> Samples {
        Samples {
            offsets: vec![0],
            terms: Vec::new(),
            results: Vec::new(),
        }
    }

    fn len(&self) -> usize {
        self.results.len()
    }

    fn push<T: Terms>(&mut self, pos: &T, result: f64) {
        let terms = &mut self.terms;
        pos.each_term(&mut |term, count| {
            terms.push((term as u16, count.clamp(-128, 127) as i8));
        });
        self.offsets.push(self.terms.len());
        self.results.push(result);
    }

    fn terms_of(&self, index: usize) -> &[(u16, i8)] {
        &self.terms[self.offsets[index]..self.offsets[index + 1]]
    }

    fn value(&self, index: usize, weights: &[f64]) -> f64 {
        self.terms_of(index)
            .iter()
            .map(|&(term, count)| weights[usize::from(term)] * f64::from(count))
            .sum()
    }

    /// The mean squared error of the predicted scores.
    fn error(&self, weights: &[f64], k: f64) -> f64 {
        let total: f64 = (0..self.len())
            .map(|i| (self.results[i] - predicted(self.value(i, weights), k)).powi(2))
            .sum();
        total / self.len().max(1) as f64
    }

    /// The gradient of the mean squared error over the positions in `range`.
    fn gradient(&self, weights: &[f64], k: f64, range: std::ops::Range<usize>) -> Vec<f64> {
        let mut gradient = vec![0.0; weights.len()];
        let slope = k * std::f64::consts::LN_10 / 400.0;
        for i in range {
            let p = predicted(self.value(i, weights), k);
            let factor = 2.0 * (p - self.results[i]) * p * (1.0 - p) * slope;
            for &(term, count) in self.terms_of(i) {
                gradient[usize::from(term)] += factor * f64::from(count);
            }
        }
        gradient
    }
}

fn predicted(value: f64, k: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-k * value / 400.0))
}

/// Reads `FEN;result` lines: the last tenth into the held-out set (whole games but one, as
/// a game's positions are written together, so that it measures play the fit never saw).
///
/// # Errors
/// The first line that does not read, with its number.
fn read_samples<T: Terms>(text: &str) -> Result<(Samples, Samples), String> {
    let (mut fit, mut held) = (Samples::new(), Samples::new());
    let lines = text.lines().count();
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = || format!("line {}: expected `FEN;result`, got `{line}`", number + 1);
        let (fen, result) = line.rsplit_once(';').ok_or_else(bad)?;
        let result: f64 = result.trim().parse().map_err(|_| bad())?;
        let pos = T::read(fen.trim()).map_err(|error| format!("{}: {error}", bad()))?;
        let set = if number >= lines - lines / 10 {
            &mut held
        } else {
            &mut fit
        };
        set.push(&pos, result);
    }
    Ok((fit, held))
}

/// The `k` that makes `weights` predict `samples` best (a golden-section search).
fn best_k(samples: &Samples, weights: &[f64]) -> f64 {
    let (mut low, mut high) = (0.05, 4.0);
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..40 {
        let a = high - ratio * (high - low);
        let b = low + ratio * (high - low);
        if samples.error(weights, a) < samples.error(weights, b) {
            high = b;
        } else {
            low = a;
        }
    }
    f64::midpoint(low, high)
}

/// Fits the weights of `variant` to the positions in `text` (lines written by
/// [`self_play`]), starting from the current ones, reporting progress to `log`; returns the
/// weights, rounded ([`weights_file`] prints them).
///
/// # Errors
/// A line that does not read, no positions, or writing to `log` failed.
pub fn fit(
    variant: Variant,
    text: &str,
    config: &Fit,
    log: &mut dyn Write,
) -> Result<Vec<i32>, String> {
    for_game!(variant, fit_of(text, config, log))
}

fn fit_of<T: Terms>(text: &str, config: &Fit, log: &mut dyn Write) -> Result<Vec<i32>, String> {
    let (samples, held) = read_samples::<T>(text)?;
    if samples.len() == 0 {
        return Err(String::from("no positions to fit"));
    }
    let start: Vec<f64> = T::weights().iter().map(|&w| f64::from(w)).collect();
    let terms = start.len();
    let k = best_k(&samples, &start);
    let io = |error: io::Error| error.to_string();
    writeln!(
        log,
        "{} positions ({} held out); k = {k:.4}; error {:.6}, held out {:.6}",
        samples.len(),
        held.len(),
        samples.error(&start, k),
        held.error(&start, k)
    )
    .map_err(io)?;
    let mut weights = start.clone();
    let (mut first, mut second) = (vec![0.0; terms], vec![0.0; terms]);
    let (beta1, beta2) = (0.9f64, 0.999f64);
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let chunk = samples.len().div_ceil(threads);
    for step in 1..=config.iterations {
        let parts: Vec<Vec<f64>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let range =
                        (t * chunk).min(samples.len())..((t + 1) * chunk).min(samples.len());
                    let weights = &weights;
                    let samples = &samples;
                    scope.spawn(move || samples.gradient(weights, k, range))
                })
                .collect();
            handles
                .into_iter()
                .map(|handle| handle.join().unwrap_or_default())
                .collect()
        });
        let n = samples.len() as f64;
        for term in 0..terms {
            let gradient = parts
                .iter()
                .map(|part| part.get(term).copied().unwrap_or(0.0))
                .sum::<f64>()
                / n
                + 2.0 * config.pull * (weights[term] - start[term]);
            first[term] = beta1 * first[term] + (1.0 - beta1) * gradient;
            second[term] = beta2 * second[term] + (1.0 - beta2) * gradient * gradient;
            let m = first[term] / (1.0 - beta1.powi(step as i32));
            let v = second[term] / (1.0 - beta2.powi(step as i32));
            weights[term] -= config.rate * m / (v.sqrt() + 1e-12);
        }
        if step % 50 == 0 || step == config.iterations {
            writeln!(
                log,
                "step {step}: error {:.6}, held out {:.6}",
                samples.error(&weights, k),
                held.error(&weights, k)
            )
            .map_err(io)?;
        }
    }
    Ok(weights.iter().map(|w| w.round() as i32).collect())
}

/// The weights file of `variant` (`src/engine/terms/<game>_weights.rs`) for `weights`.
#[must_use]
pub fn weights_file(variant: Variant, weights: &[i32]) -> String {
    for_game!(variant, weights_file_of(weights))
}

fn weights_file_of<T: Terms>(weights: &[i32]) -> String {
    let key = T::VARIANT.key();
    let mut text = format!(
        "//! {}'s evaluation weights, one per term of `{key}.rs` (in its order).\n\
         //! Written by `pigeon tune fit`; the README's Engine section says which are fitted.\n\
         \n\
         use super::{key}::TERMS;\n\
         \n\
         /// The weight of each term, in centipawn-like points.\n\
         #[rustfmt::skip]\n\
         pub(super) const WEIGHTS: [i32; TERMS] = [\n",
        T::VARIANT.name()
    );
    for group in T::groups() {
        text.push_str(&format!("    // {}\n", group.name));
        let values = weights
            .get(group.start..group.start + group.size)
            .unwrap_or_default();
        for line in values.chunks(group.row) {
            let cells: Vec<String> = line
                .iter()
                .map(|w| format!("{:>5}", format!("{w},")))
                .collect();
            text.push_str(&format!("    {}\n", cells.join(" ").trim_end()));
        }
    }
    text.push_str("];\n");
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Position;

    /// The printed weights file is the one compiled in, for the weights compiled in: the file
    /// the tuner writes is the file the engine reads.
    #[test]
    fn the_weights_files_are_printed_as_they_are_read() {
        let files = [
            (
                Variant::Chak,
                include_str!("terms/chak_weights.rs"),
                Chak::weights(),
            ),
            (
                Variant::Shakti,
                include_str!("terms/shakti_weights.rs"),
                Shakti::weights(),
            ),
            (
                Variant::Chad,
                include_str!("terms/chad_weights.rs"),
                Chad::weights(),
            ),
            (
                Variant::Chesscala,
                include_str!("terms/chesscala_weights.rs"),
                Chesscala::weights(),
            ),
        ];
        for (variant, file, weights) in files {
            assert_eq!(weights_file(variant, weights), file, "{variant}");
        }
    }

    /// Self-play keeps a position only where captures change nothing: the starts of Chak and
    /// Chesscala are quiet; a Chak queen that a rook takes, the rook's side to move, is not.
    #[test]
    fn a_position_is_quiet_only_where_captures_change_nothing() {
        let mut table = Table::new(1);
        assert!(is_quiet(&Chak::start(), QUIET_NODES, &mut table));
        let hanging = "rvs1kjsvr/4o4/p1p1p1p1p/9/9/q8/2P1P1P1P/4O4/RVSJKQSVR w - - 0 1";
        let hanging = Chak::from_text(hanging).expect("a position");
        assert!(!is_quiet(&hanging, QUIET_NODES, &mut table));
        assert!(is_quiet(&Chesscala::start(), QUIET_NODES, &mut table));
    }

    /// A fit moves the weights towards what decides the games: an extra pawn and an extra
    /// serpent that each won half their games and drew the others are worth the same, so the
    /// pawn gains value and the serpent loses some.
    #[test]
    fn fitting_raises_the_value_of_what_wins() {
        let pawn_up = "rvsqkjsvr/4o4/2p1p1p1p/9/9/9/P1P1P1P1P/4O4/RVSJKQSVR w - - 0 1";
        let serpent_up = "rvsqkjsv1/4o4/p1p1p1p1p/9/9/9/P1P1P1P1P/4O4/RVSJKQSVR w - - 0 1";
        let even = "rvsqkjsvr/4o4/p1p1p1p1p/9/9/9/P1P1P1P1P/4O4/RVSJKQSVR w - - 0 1";
        let lines = [
            format!("{pawn_up};1\n"),
            format!("{pawn_up};0.5\n"),
            format!("{serpent_up};1\n"),
            format!("{serpent_up};0.5\n"),
            format!("{even};0.5\n"),
        ];
        let text = lines.concat().repeat(20);
        let config = Fit {
            iterations: 100,
            ..Fit::default()
        };
        let weights = fit(Variant::Chak, &text, &config, &mut io::sink()).expect("fits");
        // Green's a7 pawn stands on i3 as its side sees it, its i9 serpent on a1.
        let (pawn, serpent) = (7 * 81 + 26, 6 * 81);
        let start = Chak::weights();
        assert!(weights[pawn] > start[pawn] + 20, "{}", weights[pawn]);
        assert!(
            weights[serpent] < start[serpent] - 20,
            "{}",
            weights[serpent]
        );
    }
}
