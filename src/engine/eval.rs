//! Static evaluation per game: a score in centipawn-like units from the side to move's view.
//!
//! Each game's terms are few and deliberate: material with piece values from the game's rules,
//! and one or two terms for what wins that game (Chak: a table per piece kind and square and
//! the pieces near each king, fitted to self-play games, in `chak_terms`; Shakti: room around
//! the kings; Chad: rooks nearing the enemy castle; Chesscala: stacks under control). Everything is read through the rules core's
//! public view of a position, so the engine depends on nothing inside a game's module.
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
use crate::rules::{BoardView, Cell, Color, Coord, Outcome, Position};

/// A position the engine can judge without searching.
pub trait Evaluate: Position {
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

    /// The legal moves the quiescence search plays, each with its [`Evaluate::gain`]. The
    /// legal moves with a gain unless a game generates them more cheaply.
    fn noisy_moves(&self) -> Vec<(Self::Move, i32)> {
        self.legal_moves()
            .into_iter()
            .filter_map(|mv| self.gain(&mv).map(|gain| (mv, gain)))
            .collect()
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

/// A side's share of a score: `+1` for `color == us`, `-1` otherwise.
fn sign(color: Color, us: Color) -> i32 {
    if color == us { 1 } else { -1 }
}

/// Every piece on the board with its square (file, rank) and its index in its cell.
fn pieces(view: &BoardView) -> impl Iterator<Item = (u8, u8, Color, char)> + '_ {
    view.cells
        .iter()
        .enumerate()
        .flat_map(move |(index, cell)| {
            let file = (index % usize::from(view.files)) as u8;
            let rank = (index / usize::from(view.files)) as u8;
            let list: &[_] = match cell {
                Cell::Pieces(list) => list,
                Cell::Hole | Cell::Empty => &[],
            };
            list.iter()
                .map(move |piece| (file, rank, piece.color, piece.letter))
        })
}

fn distance(a: (u8, u8), b: (u8, u8)) -> i32 {
    i32::from(a.0.abs_diff(b.0).max(a.1.abs_diff(b.1)))
}

/// The side to move pays a little for standing in check.
fn check_penalty<P: Position>(pos: &P, penalty: i32) -> i32 {
    if pos.in_check() { -penalty } else { 0 }
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
        super::chak_terms::evaluate(self)
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
        let us = self.turn();
        let view = self.board_view();
        let tile = |file: i32, rank: i32| {
            (0..i32::from(view.files)).contains(&file)
                && (0..i32::from(view.ranks)).contains(&rank)
                && !matches!(
                    view.cells[(rank * i32::from(view.files) + file) as usize],
                    Cell::Hole
                )
        };
        let mut kings = [(0, 0); 2];
        let mut score = 0;
        for (file, rank, color, letter) in pieces(&view) {
            if letter == 'K' {
                kings[color.index()] = (file, rank);
                // Room around a king: the tiles next to it are its only escapes from check.
                let room = (-1..=1)
                    .flat_map(|df| (-1..=1).map(move |dr| (df, dr)))
                    .filter(|&(df, dr)| {
                        (df, dr) != (0, 0) && tile(i32::from(file) + df, i32::from(rank) + dr)
                    })
                    .count() as i32;
                score += sign(color, us) * 25 * room;
            } else {
                score += sign(color, us) * 500;
            }
        }
        // Warriors close to the enemy king hunt it.
        for (file, rank, color, letter) in pieces(&view) {
            if letter != 'K' {
                let target = kings[color.other().index()];
                score += sign(color, us) * 6 * (6 - distance((file, rank), target));
            }
        }
        score + check_penalty(self, 30)
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
        let us = self.turn();
        let view = self.board_view();
        let mut score = 0;
        for (file, rank, color, letter) in pieces(&view) {
            // The centre of the enemy castle: i9 for White, d4 for Black.
            let castle = if color == Color::White {
                (8, 8)
            } else {
                (3, 3)
            };
            let value = match letter {
                'Q' => 950,
                'R' => 500 + 6 * (11 - distance((file, rank), castle)),
                _ => 0,
            };
            score += sign(color, us) * value;
        }
        score + check_penalty(self, 30)
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
    fn evaluate(&self) -> i32 {
        let us = self.turn();
        let view = self.board_view();
        let mut score = 0;
        for cell in &view.cells {
            let Cell::Pieces(stack) = cell else { continue };
            let mut count = 0;
            for piece in stack {
                let value = match piece.letter {
                    'Q' => 900,
                    'H' => 600,
                    'R' => 500,
                    'B' => 330,
                    'O' | 'N' => 300,
                    'M' => 200,
                    'P' => 100,
                    _ => 0,
                };
                score += sign(piece.color, us) * value;
                count += sign(piece.color, us);
            }
            // A stack is sown by the side that controls it.
            score += 15 * count.signum();
        }
        // Twelve losses end the game: every loss brings that end nearer.
        score += 40 * (i32::from(self.losses(us.other())) - i32::from(self.losses(us)));
        score + check_penalty(self, 60)
    }

    fn gain(&self, turn: &Turn) -> Option<i32> {
        turn.captures().then_some(300)
    }

    fn key(&self) -> u64 {
        whole_key(self)
    }
}
