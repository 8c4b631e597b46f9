//! Static evaluation per game: a score in centipawn-like units from the side to move's view.
//!
//! Each game's score is a weighted sum of terms (`terms`): material and placement in a table
//! per piece kind and square, and what wins that game (Chak: the pieces near each king;
//! Shakti: warriors near the kings and room around them; Chad: rooks and queens near the
//! kings; Chesscala: stacks under control and losses), with weights fitted to self-play games
//! by `pigeon tune`. Everything is read through the rules core's public view of a position,
//! so the engine depends on nothing inside a game's module.
//!
//! Besides the score, each game tells the search what it cheaply knows about moves: what a
//! capture or promotion wins at once (the move order and the quiescence search), whether a
//! pass is a fair question for null-move pruning (not where zugzwang decides games), and a
//! fast key for the transposition table and repetitions.

use crate::rules::chad::{Chad, ChadMove};
use crate::rules::chak::{Chak, ChakMove, Kind as ChakKind};
use crate::rules::chesscala::Chesscala;
use crate::rules::shakti::Shakti;
use std::hash::{DefaultHasher, Hash, Hasher};

use super::table::move_id;
use crate::rules::chesscala::Turn;
use crate::rules::shakti::ShaktiMove;
use crate::rules::{Coord, Outcome, Position};

/// A position the engine can judge without searching.
pub trait Evaluate: Position {
    /// Whether checks are rare and forcing, as in chess: then a side in check is searched a
    /// ply deeper, and near the horizon neither a side in check nor a move that gives check
    /// is pruned. Where checks are common they are searched like any other position and move.
    const FORCING_CHECKS: bool = true;

    /// How many plies the quiescence search may go past the horizon: as far as captures go
    /// where they soon run out.
    const QUIESCENCE_PLIES: u32 = u32::MAX;

    /// The position's value for the side to move (positive: better for the side to move).
    fn evaluate(&self) -> i32;

    /// What `mv` wins at once (a capture, a promotion), or `None` for a quiet move: the move
    /// order's first measure, and the quiescence search's ([`Evaluate::noisy_moves`]).
    fn gain(&self, _mv: &Self::Move) -> Option<i32> {
        None
    }

    /// How the game has ended, asked at every node before anything is pruned or stood on
    /// (a position without legal moves in the full search is also taken as ended). The
    /// whole [`Position::outcome`] unless a game knows a cheaper answer that misses no end.
    fn quick_outcome(&self) -> Option<Outcome> {
        self.outcome()
    }

    /// Where a game's moves join a capture with a quiet part (a Chesscala turn: a capture, then
    /// a sowing), an id of the capture alone: the search counts the first move of each capture
    /// as a capture and the others as quiet moves, and the quiescence search plays only the
    /// first. `None` (the default): every move stands alone.
    fn capture_id(&self, _mv: &Self::Move) -> Option<u32> {
        None
    }

    /// The legal moves the quiescence search plays, each with its [`Evaluate::gain`]: the legal
    /// moves with a gain (the first of each capture), unless a game generates them more
    /// cheaply.
    fn noisy_moves(&self) -> Vec<(Self::Move, i32)> {
        let mut captures = Vec::new();
        self.legal_moves()
            .into_iter()
            .filter_map(|mv| self.gain(&mv).map(|gain| (mv, gain)))
            .filter(|(mv, _)| super::search::first_capture(self, mv, &mut captures))
            .collect()
    }

    /// Whether the quiescence search may stand on the static value here and search only
    /// the noisy moves; where it may not, every legal move is searched. By default: when the
    /// side to move is not in check.
    fn may_stand_pat(&self) -> bool {
        !self.in_check()
    }

    /// A stable, non-zero id of `mv` among this game's moves, for the table, the killer moves
    /// and the history (which keep ids, not a game's move type). By default a hash
    /// ([`move_id`]); a game whose moves fit a small number numbers them.
    fn move_id(mv: &Self::Move) -> u32 {
        move_id(mv)
    }

    /// The position with the other side to move, for null-move pruning; `None` where passing
    /// would be no fair estimate (zugzwang matters, or passing is itself a move).
    fn null_move(&self) -> Option<Self> {
        None
    }

    /// The key of the position for the transposition table and repetitions: equal for
    /// positions that count as the same for repetition (move counters aside).
    fn key(&self) -> u64 {
        let mut hasher = DefaultHasher::new();
        match self.repetition_key() {
            Some(text) => text.hash(&mut hasher),
            None => self.hash(&mut hasher),
        }
        hasher.finish()
    }
}

/// The hash of a whole position, for games whose position type holds nothing beyond what
/// counts for repetition.
fn whole_key<P: Hash>(pos: &P) -> u64 {
    let mut hasher = DefaultHasher::new();
    pos.hash(&mut hasher);
    hasher.finish()
}

/// Whether the side to move has nothing but its king, pawns and offering: the side that gets
/// squeezed in Chak, where a side that cannot move loses (so no passing for it).
fn chak_squeezable(pos: &Chak) -> bool {
    let us = pos.turn();
    !pos.squares().any(|(_, color, kind)| {
        color == us
            && !matches!(
                kind,
                ChakKind::King | ChakKind::Divine | ChakKind::Pawn | ChakKind::Offering
            )
    })
}

/// What capturing a Chesscala piece wins in the move order, by its letter: its material and
/// a loss more for its side (the hand-set values of the evaluation's tables).
fn chesscala_value(letter: char) -> i32 {
    40 + match letter {
        'Q' => 900,
        'H' => 600,
        'R' => 500,
        'B' => 330,
        'O' | 'N' => 300,
        'M' => 200,
        'P' => 100,
        _ => 0,
    }
}

/// What taking the divine king onto the enemy altar wins in the move order: the game.
const ALTAR_MATE: i32 = 100_000;

/// The material value of a Chak piece by its letter.
fn chak_value(letter: char) -> i32 {
    match letter {
        'J' => 700,
        'R' => 500,
        'Q' => 450,
        'D' => 350,
        'V' => 300,
        'W' => 230,
        'S' => 200,
        'P' => 100,
        'O' => 40,
        _ => 0,
    }
}

impl Evaluate for Chak {
    fn evaluate(&self) -> i32 {
        super::terms::chak::evaluate(self)
    }

    fn gain(&self, mv: &ChakMove) -> Option<i32> {
        if self.reaches_altar(*mv) {
            return Some(ALTAR_MATE);
        }
        let captured = self.captured(*mv).map(chak_value);
        match (captured, mv.promotes()) {
            (None, false) => None,
            (captured, promotes) => Some(captured.unwrap_or(0) + if promotes { 150 } else { 0 }),
        }
    }

    fn quick_outcome(&self) -> Option<Outcome> {
        // The altar is read off the board. A side that cannot move has lost too, but that
        // is seen only where the search generates the moves (the search's module doc).
        self.altar_outcome()
    }

    fn noisy_moves(&self) -> Vec<(ChakMove, i32)> {
        Chak::noisy_moves(self)
            .into_iter()
            .map(|mv| (mv, self.gain(&mv).unwrap_or(0)))
            .collect()
    }

    fn move_id(mv: &ChakMove) -> u32 {
        // From and to say which move it is: promotion is never a choice in Chak.
        let square = |coord: Coord| u32::from(coord.rank) * 9 + u32::from(coord.file);
        1 + square(mv.from()) * 81 + square(mv.to())
    }

    fn null_move(&self) -> Option<Chak> {
        (!chak_squeezable(self)).then(|| self.passed())
    }

    fn key(&self) -> u64 {
        self.repetition_hash()
    }
}

impl Evaluate for Shakti {
    fn evaluate(&self) -> i32 {
        super::terms::weighted(self)
    }

    fn gain(&self, mv: &ShaktiMove) -> Option<i32> {
        self.captures(*mv).then_some(500)
    }

    fn key(&self) -> u64 {
        whole_key(self)
    }
}

impl Evaluate for Chad {
    fn evaluate(&self) -> i32 {
        super::terms::weighted(self)
    }

    fn gain(&self, mv: &ChadMove) -> Option<i32> {
        let captured = if mv.is_capture() { 500 } else { 0 };
        let promoted = if mv.is_promotion() { 450 } else { 0 };
        (mv.is_capture() || mv.is_promotion()).then_some(captured + promoted)
    }

    fn null_move(&self) -> Option<Chad> {
        Some(self.passed())
    }

    fn key(&self) -> u64 {
        whole_key(self)
    }
}

impl Evaluate for Chesscala {
    // Most Chesscala positions have a king in check (sowing moves both sides' pieces, and a
    // side may leave its own king in check), so extending checks would extend nearly
    // everything, and sparing them from pruning would spare nearly everything; captures go
    // on until twelve losses end the game, so the capture search is cut short.
    const FORCING_CHECKS: bool = false;
    const QUIESCENCE_PLIES: u32 = 4;

    fn evaluate(&self) -> i32 {
        super::terms::weighted(self)
    }

    fn gain(&self, turn: &Turn) -> Option<i32> {
        turn.captured().map(chesscala_value)
    }

    fn capture_id(&self, turn: &Turn) -> Option<u32> {
        turn.capture().map(|capture| move_id(&capture))
    }

    fn may_stand_pat(&self) -> bool {
        // A side in check has a whole turn to get out of it (CC-K3), and thousands of turns
        // under more than one check: it stands on the static value (which counts the check)
        // when some turn escapes. A final turn decides the game, so it is always played out.
        self.final_turn().is_none() && (!self.in_check() || self.can_escape())
    }

    fn key(&self) -> u64 {
        whole_key(self)
    }
}
