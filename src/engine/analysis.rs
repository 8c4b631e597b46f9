//! Post-game analysis: every position of a game evaluated by the search within a fixed number
//! of nodes, and each move judged by how much it dropped its player's winning chances, the way
//! lichess judges moves.
//!
//! Pure and deterministic like the rest of the engine: a position's evaluation depends only on
//! the game up to it (a table of its own, a seed from the ply, a node budget rather than a
//! time), so analysing a game twice gives the same figures.
//!
//! - Winning chances: `wc(cp) = 2 / (1 + exp(-0.00368208 * cp)) - 1`, from -1 (lost) to 1
//!   (won), with the evaluation capped at ±[`CP_CEILING`] and a mate counted as the cap.
//! - A move's drop is its player's winning chances before it minus after it (the engine's
//!   evaluation of the position before and of the position after). A drop of at least
//!   [`INACCURACY`] (0.1) is an inaccuracy `?!`, [`MISTAKE`] (0.2) a mistake `?`,
//!   [`BLUNDER`] (0.3) a blunder `??`. A move the engine would have played itself, and a move
//!   that was the only legal one (Shakti's forced pass), are never judged.
//! - A move's accuracy: with `win% = 50 + 50 * wc` for its player before and after,
//!   `103.1668 * exp(-0.04354 * (before - after)) - 3.1669`, within 0..100 (100 when the
//!   move did not lose anything). A player's accuracy is the plain mean over their moves
//!   that had a choice; lichess mixes a volatility-weighted and a harmonic mean instead.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{Limits, Score, evaluate};
use crate::rules::{Color, Outcome, Record, RecordError};

/// Positions the search visits for each position of an analysed game. The same for every
/// game and every ply, so an analysis is reproducible; as much as level 4 thinks about a move.
pub const ANALYSIS_NODES: u64 = 30_000;

/// A guard against a position the search cannot finish in any sensible time: a ply that
/// reaches it keeps its last completed iteration. Far beyond what [`ANALYSIS_NODES`] takes
/// (a fraction of a second), so it never decides an analysis on a machine that works.
pub const ANALYSIS_GUARD: Duration = Duration::from_secs(20);

/// Evaluations are capped at this many centipawns either way before they become winning
/// chances (a mate counts as the cap), as lichess does.
pub const CP_CEILING: i32 = 1_000;

/// The drop in winning chances that makes a move an inaccuracy.
pub const INACCURACY: f64 = 0.1;
/// The drop in winning chances that makes a move a mistake.
pub const MISTAKE: f64 = 0.2;
/// The drop in winning chances that makes a move a blunder.
pub const BLUNDER: f64 = 0.3;

/// The slope of the winning-chances curve (lichess's, fitted to its games).
const WC_SLOPE: f64 = 0.003_682_08;

/// A position's evaluation from White's side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Eval {
    /// Centipawns for White, within ±[`CP_CEILING`].
    pub cp: i32,
    /// Moves to mate: positive when White mates, negative when Black does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mate: Option<i32>,
}

impl Eval {
    /// A search's score for the side to move, `mover`, from White's side.
    #[must_use]
    pub fn from_score(score: i32, mover: Color) -> Eval {
        // The mate count reads the score from the mover's side (mated in an even number of
        // plies), so it is turned to White's side after.
        let sign = if mover == Color::White { 1 } else { -1 };
        match Score::of(score) {
            Score::Mate(moves) => Eval {
                cp: CP_CEILING * score.signum() * sign,
                mate: Some(moves * sign),
            },
            Score::Cp(cp) => Eval {
                cp: (cp * sign).clamp(-CP_CEILING, CP_CEILING),
                mate: None,
            },
        }
    }

    /// The evaluation of a finished game's last position: the cap for the winner, 0 for a
    /// draw.
    #[must_use]
    pub fn of_outcome(outcome: Outcome) -> Eval {
        let cp = match outcome.winner {
            Some(Color::White) => CP_CEILING,
            Some(Color::Black) => -CP_CEILING,
            None => 0,
        };
        Eval { cp, mate: None }
    }

    /// White's winning chances, from -1 (lost) to 1 (won).
    #[must_use]
    pub fn winning_chances(self) -> f64 {
        winning_chances(self.cp)
    }

    /// The winning chances of `color`.
    #[must_use]
    pub fn chances_of(self, color: Color) -> f64 {
        match color {
            Color::White => self.winning_chances(),
            Color::Black => -self.winning_chances(),
        }
    }

    /// The evaluation as a PGN `%eval` writes it: pawns with two decimals (`0.35`, `-1.20`),
    /// or a mate in moves (`#3`, `#-2`).
    #[must_use]
    pub fn pgn(self) -> String {
        match self.mate {
            Some(moves) => format!("#{moves}"),
            None => format!("{:.2}", f64::from(self.cp) / 100.0),
        }
    }
}

/// The winning chances of a side `cp` centipawns ahead: `2 / (1 + exp(-0.00368208 * cp)) -
/// 1`, with `cp` capped at ±[`CP_CEILING`].
#[must_use]
pub fn winning_chances(cp: i32) -> f64 {
    let cp = f64::from(cp.clamp(-CP_CEILING, CP_CEILING));
    2.0 / (1.0 + (-WC_SLOPE * cp).exp()) - 1.0
}

/// The accuracy of a move that took its player's winning percentage (`50 + 50 * wc`) from
/// `before` to `after`, from 0 to 100.
#[must_use]
pub fn move_accuracy(before: f64, after: f64) -> f64 {
    if after >= before {
        return 100.0;
    }
    (103.1668 * (-0.04354 * (before - after)).exp() - 3.1669).clamp(0.0, 100.0)
}

/// How bad a move was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Judgement {
    /// `?!`: the winning chances dropped by [`INACCURACY`] or more.
    Inaccuracy,
    /// `?`: by [`MISTAKE`] or more.
    Mistake,
    /// `??`: by [`BLUNDER`] or more.
    Blunder,
}

impl Judgement {
    /// The judgement a drop in winning chances earns, if any.
    #[must_use]
    pub fn of_drop(drop: f64) -> Option<Judgement> {
        if drop >= BLUNDER {
            Some(Judgement::Blunder)
        } else if drop >= MISTAKE {
            Some(Judgement::Mistake)
        } else if drop >= INACCURACY {
            Some(Judgement::Inaccuracy)
        } else {
            None
        }
    }

    /// `?!`, `?` or `??`.
    #[must_use]
    pub const fn symbol(self) -> &'static str {
        match self {
            Judgement::Inaccuracy => "?!",
            Judgement::Mistake => "?",
            Judgement::Blunder => "??",
        }
    }

    /// `Inaccuracy`, `Mistake` or `Blunder`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Judgement::Inaccuracy => "Inaccuracy",
            Judgement::Mistake => "Mistake",
            Judgement::Blunder => "Blunder",
        }
    }
}

/// The engine's view of one position of a game.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PositionEval {
    /// The evaluation from White's side.
    pub eval: Eval,
    /// The engine's move in the interchange notation; `None` once the game is over on the
    /// board.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best: Option<String>,
}

/// Every position of a game as the engine saw it: the start and the position after each ply.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Evaluations {
    /// The nodes searched per position.
    pub nodes: u64,
    /// One per position, the start first: a game of `n` plies has `n + 1`.
    pub positions: Vec<PositionEval>,
}

/// The search budget of each position.
#[must_use]
pub fn analysis_limits() -> Limits {
    Limits {
        nodes: ANALYSIS_NODES,
        time: Some(ANALYSIS_GUARD),
        ..Limits::default()
    }
}

/// The transposition table of one position's search, in megabytes: plenty for
/// [`ANALYSIS_NODES`], and cheap to make for every position.
const TABLE_MB: usize = 2;

/// Evaluates the current position of `record` (a game up to some ply; earlier positions count
/// for repetitions) with a table of its own and `seed`.
#[must_use]
pub fn evaluate_position(record: &Record, seed: u64) -> PositionEval {
    if let Some(outcome) = record.outcome() {
        return PositionEval {
            eval: Eval::of_outcome(outcome),
            best: None,
        };
    }
    let position = record.position();
    let mut table = super::Table::new(TABLE_MB);
    let found = super::think(
        record,
        &analysis_limits(),
        seed,
        &mut table,
        super::Control::default(),
    );
    match found {
        Some(choice) => PositionEval {
            eval: Eval::from_score(choice.score, position.turn()),
            best: Some(position.move_text(&choice.mv)),
        },
        None => PositionEval {
            eval: Eval::from_score(evaluate(position), position.turn()),
            best: None,
        },
    }
}

/// The seed of the search of the position after `ply` plies.
#[must_use]
pub fn seed_of(ply: usize) -> u64 {
    ply as u64
}

/// Evaluates every position of a game, one after another (the service does the same a ply at
/// a time, so other work gets the processor in between).
///
/// # Errors
/// [`RecordError`] when the game's moves do not replay from its start.
pub fn evaluate_game(record: &Record) -> Result<Evaluations, RecordError> {
    let mut positions = Vec::with_capacity(record.moves().len() + 1);
    for (ply, prefix) in prefixes(record)?.into_iter().enumerate() {
        positions.push(evaluate_position(&prefix, seed_of(ply)));
    }
    Ok(Evaluations {
        nodes: ANALYSIS_NODES,
        positions,
    })
}

/// The game after each of its plies, the start first.
///
/// # Errors
/// [`RecordError`] when the game's moves do not replay from its start.
pub fn prefixes(record: &Record) -> Result<Vec<Record>, RecordError> {
    let mut current = Record::new(record.start().clone());
    let mut all = vec![current.clone()];
    for (index, played) in record.moves().iter().enumerate() {
        current.play(&played.text).map_err(|error| RecordError {
            ply: index + 1,
            text: played.text.clone(),
            error,
        })?;
        all.push(current.clone());
    }
    Ok(all)
}

/// One move of an analysed game.
#[derive(Debug, Clone, PartialEq)]
pub struct MoveReport {
    /// The move's ply, from 1.
    pub ply: usize,
    /// The side that played it.
    pub mover: Color,
    /// The move in the display notation, with its check or mate mark.
    pub played: String,
    /// The evaluation before the move.
    pub before: Eval,
    /// The evaluation after it.
    pub after: Eval,
    /// How much the mover's winning chances dropped (negative: they rose).
    pub drop: f64,
    /// The move's accuracy, 0 to 100.
    pub accuracy: f64,
    /// Whether it was the only legal move (it is then neither judged nor counted).
    pub forced: bool,
    /// The judgement, if the move lost enough.
    pub judgement: Option<Judgement>,
    /// The engine's move in its place, in the display notation, for a judged move.
    pub better: Option<String>,
}

/// One player's figures.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SideReport {
    pub inaccuracies: usize,
    pub mistakes: usize,
    pub blunders: usize,
    /// The mean accuracy of the player's moves that had a choice; `None` without any.
    pub accuracy: Option<f64>,
}

/// An analysed game: each move judged, each player's figures, and the evaluation curve.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// Every move, in order.
    pub moves: Vec<MoveReport>,
    /// White's figures, then Black's.
    pub sides: [SideReport; 2],
    /// The evaluation of every position, the start first.
    pub evals: Vec<Eval>,
    /// The nodes searched per position.
    pub nodes: u64,
    /// Whether Black moved first (a game from a position): move numbers count from there.
    pub black_first: bool,
}

/// An analysis that does not fit its game.
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error)]
pub enum AnalysisError {
    /// The game does not replay.
    #[error("{0}")]
    Record(#[from] RecordError),
    /// The analysis has another number of positions than the game.
    #[error("the analysis has {found} positions, the game {expected}")]
    Length { found: usize, expected: usize },
}

impl Report {
    /// Judges the moves of `record` by `evaluations` (one per position of the game).
    ///
    /// # Errors
    /// [`AnalysisError`] when the evaluations do not fit the game.
    pub fn new(record: &Record, evaluations: &Evaluations) -> Result<Report, AnalysisError> {
        let expected = record.moves().len() + 1;
        if evaluations.positions.len() != expected {
            return Err(AnalysisError::Length {
                found: evaluations.positions.len(),
                expected,
            });
        }
        let prefixes = prefixes(record)?;
        let mut moves = Vec::with_capacity(record.moves().len());
        let mut accuracies: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
        let mut sides = [SideReport::default(); 2];
        for (index, played) in record.moves().iter().enumerate() {
            let position = prefixes[index].position();
            let seen = &evaluations.positions[index];
            let (before, after) = (seen.eval, evaluations.positions[index + 1].eval);
            let mover = position.turn();
            let (wc_before, wc_after) = (before.chances_of(mover), after.chances_of(mover));
            let drop = wc_before - wc_after;
            let accuracy = move_accuracy(50.0 + 50.0 * wc_before, 50.0 + 50.0 * wc_after);
            let forced = position.legal_moves().len() <= 1;
            let best = seen
                .best
                .as_deref()
                .and_then(|text| position.parse_move(text).ok());
            let engines_own = best.as_ref() == Some(&played.mv);
            let judgement = if forced || engines_own {
                None
            } else {
                Judgement::of_drop(drop)
            };
            let better = best.filter(|_| judgement.is_some()).map(|mv| {
                let mut text = position.display_move(&mv);
                text.extend(position.play(&mv).mark().map(crate::rules::Mark::symbol));
                text
            });
            let side = &mut sides[mover.index()];
            match judgement {
                Some(Judgement::Inaccuracy) => side.inaccuracies += 1,
                Some(Judgement::Mistake) => side.mistakes += 1,
                Some(Judgement::Blunder) => side.blunders += 1,
                None => {}
            }
            if !forced {
                accuracies[mover.index()].push(accuracy);
            }
            moves.push(MoveReport {
                ply: index + 1,
                mover,
                played: played.display.clone(),
                before,
                after,
                drop,
                accuracy,
                forced,
                judgement,
                better,
            });
        }
        for color in Color::ALL {
            let list = &accuracies[color.index()];
            sides[color.index()].accuracy =
                (!list.is_empty()).then(|| list.iter().sum::<f64>() / list.len() as f64);
        }
        Ok(Report {
            moves,
            sides,
            evals: evaluations.positions.iter().map(|p| p.eval).collect(),
            nodes: evaluations.nodes,
            black_first: record.start().turn() == Color::Black,
        })
    }

    /// The figures of `color`'s player.
    #[must_use]
    pub fn side(&self, color: Color) -> &SideReport {
        &self.sides[color.index()]
    }

    /// The judged moves, in order.
    pub fn judged(&self) -> impl Iterator<Item = &MoveReport> {
        self.moves.iter().filter(|m| m.judgement.is_some())
    }

    /// The move number of a ply as a record writes it before the move: `12.` for the first
    /// side's move, `12...` for the second's (the same count as the game's record).
    #[must_use]
    pub fn move_number(&self, ply: usize) -> String {
        let index = ply.saturating_sub(1) + usize::from(self.black_first);
        if index.is_multiple_of(2) {
            format!("{}.", index / 2 + 1)
        } else {
            format!("{}...", index / 2 + 1)
        }
    }

    /// `12. Qxb7??`: a move with its number and judgement.
    #[must_use]
    pub fn annotated(&self, played: &MoveReport) -> String {
        format!(
            "{} {}{}",
            self.move_number(played.ply),
            played.played,
            played.judgement.map_or("", Judgement::symbol)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{EndReason, GameRules, Variant};

    #[test]
    fn winning_chances_follow_lichess_curve() {
        assert!(winning_chances(0).abs() < 1e-12);
        // lichess: +100 cp is about 18 % more winning chances.
        assert!((winning_chances(100) - 0.1819).abs() < 1e-3);
        assert!((winning_chances(-300) + 0.5023).abs() < 1e-3);
        // Capped: a mate and +5000 weigh like +1000.
        assert_eq!(winning_chances(5_000), winning_chances(CP_CEILING));
        assert!(winning_chances(CP_CEILING) > 0.95);
    }

    #[test]
    fn drops_are_judged_at_the_thresholds() {
        assert_eq!(Judgement::of_drop(0.05), None);
        assert_eq!(Judgement::of_drop(-0.5), None);
        assert_eq!(Judgement::of_drop(0.1), Some(Judgement::Inaccuracy));
        assert_eq!(Judgement::of_drop(0.199), Some(Judgement::Inaccuracy));
        assert_eq!(Judgement::of_drop(0.2), Some(Judgement::Mistake));
        assert_eq!(Judgement::of_drop(0.3), Some(Judgement::Blunder));
        assert_eq!(Judgement::of_drop(1.9), Some(Judgement::Blunder));
        assert_eq!(Judgement::Blunder.symbol(), "??");
        assert_eq!(Judgement::Mistake.symbol(), "?");
        assert_eq!(Judgement::Inaccuracy.symbol(), "?!");
    }

    #[test]
    fn accuracy_falls_with_the_lost_winning_percentage() {
        assert!((move_accuracy(60.0, 60.0) - 100.0).abs() < 1e-9);
        assert!((move_accuracy(40.0, 70.0) - 100.0).abs() < 1e-9);
        // Losing 10 points of winning percentage: about 64 % (lichess's curve).
        let ten = move_accuracy(60.0, 50.0);
        assert!((ten - 63.58).abs() < 0.05, "{ten}");
        assert!(move_accuracy(100.0, 0.0).abs() < 1e-9);
        let mut last = 100.0;
        for lost in 1..=100 {
            let now = move_accuracy(100.0, 100.0 - f64::from(lost));
            assert!(now <= last && (0.0..=100.0).contains(&now));
            last = now;
        }
    }

    #[test]
    fn scores_turn_to_white_view_and_mates_to_the_cap() {
        assert_eq!(
            Eval::from_score(120, Color::Black),
            Eval {
                cp: -120,
                mate: None
            }
        );
        assert_eq!(Eval::from_score(4_000, Color::White).cp, CP_CEILING);
        let mated = Eval::from_score(-(super::super::MATE - 4), Color::White);
        assert_eq!(mated.cp, -CP_CEILING);
        assert_eq!(mated.mate, Some(-2));
        assert_eq!(mated.pgn(), "#-2");
        let mating = Eval::from_score(super::super::MATE - 3, Color::Black);
        assert_eq!((mating.cp, mating.mate), (-CP_CEILING, Some(-2)));
        assert_eq!(Eval { cp: 35, mate: None }.pgn(), "0.35");
        assert_eq!(
            Eval {
                cp: -120,
                mate: None
            }
            .pgn(),
            "-1.20"
        );
        let won = Eval::of_outcome(Outcome::win(Color::Black, EndReason::Checkmate));
        assert_eq!(won.cp, -CP_CEILING);
    }

    /// A record of `moves` in the standard start of `variant`.
    fn game(variant: Variant, moves: &[&str]) -> Record {
        Record::replay(GameRules::standard(variant).start(), moves).expect("the moves replay")
    }

    #[test]
    fn reports_judge_the_move_that_drops_and_name_the_better_one() {
        let record = game(Variant::Chak, &["e3e4", "e7e6"]);
        let eval = |cp| PositionEval {
            eval: Eval { cp, mate: None },
            best: Some(String::from("c3c4")),
        };
        let evaluations = Evaluations {
            nodes: 1,
            positions: vec![eval(20), eval(-400), eval(-390)],
        };
        let report = Report::new(&record, &evaluations).expect("fits");
        let first = &report.moves[0];
        assert_eq!(first.mover, Color::White);
        assert_eq!(first.judgement, Some(Judgement::Blunder));
        assert!(first.better.is_some());
        assert_eq!(report.moves[1].judgement, None);
        assert_eq!(report.side(Color::White).blunders, 1);
        assert_eq!(report.side(Color::Black).blunders, 0);
        assert!(report.side(Color::White).accuracy.expect("moves") < 50.0);
        assert!(report.side(Color::Black).accuracy.expect("moves") > 95.0);
        assert_eq!(report.move_number(1), "1.");
        assert_eq!(report.move_number(2), "1...");
        assert_eq!(report.move_number(3), "2.");
        assert!(report.annotated(first).starts_with("1. "));
        assert!(report.annotated(first).ends_with("??"));
        let short = Evaluations {
            nodes: 1,
            positions: vec![eval(0)],
        };
        assert!(matches!(
            Report::new(&record, &short),
            Err(AnalysisError::Length { .. })
        ));
    }

    #[test]
    fn the_engines_own_move_is_never_judged() {
        let record = game(Variant::Chak, &["e3e4"]);
        let evaluations = Evaluations {
            nodes: 1,
            positions: vec![
                PositionEval {
                    eval: Eval {
                        cp: 300,
                        mate: None,
                    },
                    best: Some(String::from("e3e4")),
                },
                PositionEval {
                    eval: Eval {
                        cp: -300,
                        mate: None,
                    },
                    best: None,
                },
            ],
        };
        let report = Report::new(&record, &evaluations).expect("fits");
        assert_eq!(report.moves[0].judgement, None);
        assert!(report.moves[0].drop > 0.3);
    }

    #[test]
    fn evaluations_round_trip_through_json() {
        let evaluations = Evaluations {
            nodes: ANALYSIS_NODES,
            positions: vec![
                PositionEval {
                    eval: Eval { cp: 12, mate: None },
                    best: Some(String::from("e3e4")),
                },
                PositionEval {
                    eval: Eval {
                        cp: -CP_CEILING,
                        mate: Some(-3),
                    },
                    best: None,
                },
            ],
        };
        let text = serde_json::to_string(&evaluations).expect("serialises");
        assert_eq!(
            serde_json::from_str::<Evaluations>(&text).expect("reads"),
            evaluations
        );
    }

    /// A short Chad game: White's fifth move puts a rook where Black's rook takes it.
    pub(crate) const HANGING_ROOK: [&str; 6] =
        ["Rc5-c9", "Rj8-j6", "Rc9-f9", "Rj6-f6", "Rf9-g9", "Rh9xg9"];

    #[test]
    fn a_rook_left_to_be_taken_is_a_blunder_and_the_engine_names_a_better_move() {
        let record = game(Variant::Chad, &HANGING_ROOK);
        let evaluations = evaluate_game(&record).expect("replays");
        assert_eq!(evaluations.positions.len(), 7);
        assert_eq!(
            evaluations,
            evaluate_game(&record).expect("replays"),
            "reproducible"
        );
        let report = Report::new(&record, &evaluations).expect("fits");
        let blunder = &report.moves[4];
        assert_eq!(blunder.played, "Rf9-g9");
        assert_eq!(blunder.judgement, Some(Judgement::Blunder));
        assert_eq!(blunder.better.as_deref(), Some("Re3-l3"));
        assert!(blunder.after.cp < -300, "{:?}", blunder.after);
        // Taking the rook is the engine's own move, never judged.
        assert_eq!(report.moves[5].judgement, None);
        assert_eq!(report.side(Color::White).blunders, 1);
        assert_eq!(report.side(Color::Black).blunders, 0);
        assert_eq!(report.annotated(blunder), "3. Rf9-g9??");
    }
}
