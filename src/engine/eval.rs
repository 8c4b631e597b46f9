//! Static evaluation per game: a score in centipawn-like units from the side to move's view.
//!
//! Each game's terms are few and deliberate: material with piece values from the game's rules,
//! and one or two terms for what wins that game (Chak: the divine king's road to the altar and
//! pawns nearing the river; Shakti: room around the kings; Chad: rooks nearing the enemy
//! castle; Chesscala: stacks under control). Everything is read through the rules core's
//! public view of a position, so the engine depends on nothing inside a game's module.

use crate::rules::chad::Chad;
use crate::rules::chak::Chak;
use crate::rules::chesscala::Chesscala;
use crate::rules::shakti::Shakti;
use crate::rules::{BoardView, Cell, Color, Position};

/// A position the engine can judge without searching.
pub trait Evaluate: Position {
    /// The position's value for the side to move (positive: better for the side to move).
    fn evaluate(&self) -> i32;
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

/// Ranks a piece of `color` has advanced from its own first rank, on a board of `ranks`.
fn advance(rank: u8, color: Color, ranks: u8) -> i32 {
    i32::from(match color {
        Color::White => rank,
        Color::Black => ranks - 1 - rank,
    })
}

fn distance(a: (u8, u8), b: (u8, u8)) -> i32 {
    i32::from(a.0.abs_diff(b.0).max(a.1.abs_diff(b.1)))
}

/// The side to move pays a little for standing in check.
fn check_penalty<P: Position>(pos: &P, penalty: i32) -> i32 {
    if pos.in_check() { -penalty } else { 0 }
}

impl Evaluate for Chak {
    fn evaluate(&self) -> i32 {
        let us = self.turn();
        let view = self.board_view();
        let mut score = 0;
        for (file, rank, color, letter) in pieces(&view) {
            // The enemy altar: e8 for White, e2 for Green.
            let altar = (4, if color == Color::White { 7 } else { 1 });
            let value = match letter {
                'J' => 700,
                'R' => 500,
                'Q' => 450,
                'V' => 300,
                'W' => 230,
                'S' => 200,
                'P' => 100 + 12 * advance(rank, color, 9).min(4),
                'D' => 350 + 30 * (8 - distance((file, rank), altar)),
                'O' => 40,
                _ => 0,
            };
            score += sign(color, us) * value;
        }
        score + check_penalty(self, 40)
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
}
