//! Shakti's evaluation terms (see the `terms` module), counted from White's side:
//!
//! - a king or warrior on each of the 49 squares, seen from its own side: material (warriors
//!   are lost only to the king) and placement in one table per kind;
//! - a warrior one to six steps from the enemy king: the hunt, since warriors win by the
//!   checks they give and the tiles they take from around the king;
//! - a warrior one or two steps from its own king: its guard;
//! - a king with none to eight tiles next to it: its room, the only escapes it has in check;
//! - the tempo, and the side to move standing in check.

use super::{Group, NearKing, kings, own_square, pieces, side, tempo_and_check};
use crate::rules::shakti::Shakti;
use crate::rules::{Cell, Position};

const FILES: usize = 7;
const SQUARES: usize = FILES * FILES;
/// King, warrior.
const KINDS: usize = 2;
const HUNT_STEPS: usize = FILES - 1;
const GUARD_STEPS: usize = 2;
const ROOM_MAX: usize = 8;

const PLACEMENT: usize = 0;
const HUNT: usize = PLACEMENT + KINDS * SQUARES;
const GUARD: usize = HUNT + HUNT_STEPS;
const ROOM: usize = GUARD + GUARD_STEPS;
const TEMPO: usize = ROOM + ROOM_MAX + 1;
/// How many terms (and weights) Shakti's evaluation has: the last is standing in check.
pub(super) const TERMS: usize = TEMPO + 2;

/// The game's own groups of terms in order, for printing the weights (the tempo and
/// standing in check follow).
pub(super) const GROUPS: [Group; 4] = [
    Group {
        name: "placement: a king, then a warrior, on each square a1..g7, from its side",
        start: PLACEMENT,
        size: KINDS * SQUARES,
        row: FILES,
    },
    Group {
        name: "hunt: a warrior 1, 2, ... 6 steps from the enemy king",
        start: HUNT,
        size: HUNT_STEPS,
        row: HUNT_STEPS,
    },
    Group {
        name: "guard: a warrior 1, 2 steps from its own king",
        start: GUARD,
        size: GUARD_STEPS,
        row: GUARD_STEPS,
    },
    Group {
        name: "room: a king with 0, 1, ... 8 tiles next to it",
        start: ROOM,
        size: ROOM_MAX + 1,
        row: ROOM_MAX + 1,
    },
];

/// Calls `add(term, count)` for the terms of `pos` that are not zero (see the `terms` module).
pub(super) fn each_term(pos: &Shakti, add: &mut impl FnMut(usize, i32)) {
    let view = pos.board_view();
    let tile = |file: usize, rank: usize, df: isize, dr: isize| {
        let (Some(file), Some(rank)) = (file.checked_add_signed(df), rank.checked_add_signed(dr))
        else {
            return false;
        };
        file < FILES && rank < FILES && !matches!(view.cells[rank * FILES + file], Cell::Hole)
    };
    let kings = kings(&view);
    let hunt = NearKing {
        start: HUNT,
        len: HUNT_STEPS,
        files: FILES,
    };
    let guard = NearKing {
        start: GUARD,
        len: GUARD_STEPS,
        files: FILES,
    };
    for (square, color, letter) in pieces(&view) {
        let sign = side(color);
        let warrior = letter != 'K';
        let kind = usize::from(warrior);
        add(
            PLACEMENT + kind * SQUARES + own_square(square, color, SQUARES),
            sign,
        );
        if warrior {
            hunt.add(square, kings[color.other().index()], sign, add);
            guard.add(square, kings[color.index()], sign, add);
        } else {
            let (file, rank) = (square % FILES, square / FILES);
            let room = (-1..=1)
                .flat_map(|df| (-1..=1).map(move |dr| (df, dr)))
                .filter(|&(df, dr)| (df, dr) != (0, 0) && tile(file, rank, df, dr))
                .count();
            add(ROOM + room, sign);
        }
    }
    tempo_and_check(pos, TEMPO, add);
}

#[cfg(test)]
mod tests {
    use super::super::{Terms, weighted};
    use super::*;
    use crate::rules::Color;

    /// The terms of one position, counted by hand.
    #[test]
    fn a_position_has_the_terms_counted_by_hand() {
        // White: king b1, warrior d1. Black: king d7, warrior c2, checking White's king.
        let pos = Shakti::from_text("#..k..#/......./......./......./......./..w..../#K.W..# w")
            .expect("a position");
        let terms = super::super::tests::terms_of(&pos);
        let (b1, d1, c2) = (1, 3, 7 + 2);
        // Black's pieces from its side: d7 is d1, c2 is e6 (square 48 - c2).
        assert_eq!(terms.get(&(PLACEMENT + b1)), Some(&1));
        assert_eq!(terms.get(&(PLACEMENT + SQUARES + d1)), Some(&1));
        assert_eq!(terms.get(&(PLACEMENT + d1)), Some(&-1));
        assert_eq!(terms.get(&(PLACEMENT + SQUARES + 48 - c2)), Some(&-1));
        // White's warrior d1 is 2 steps from its king b1 and 6 from d7; Black's c2 is 1 step
        // from b1 and 5 from d7.
        assert_eq!(terms.get(&(GUARD + 1)), Some(&1));
        assert_eq!(terms.get(&(HUNT + 5)), Some(&1));
        assert_eq!(terms.get(&(HUNT)), Some(&-1));
        // Room: b1 has a2 b2 c2 c1 (a1 is a hole) = 4; d7 has c7 e7 c6 d6 e6 = 5.
        assert_eq!(terms.get(&(ROOM + 4)), Some(&1));
        assert_eq!(terms.get(&(ROOM + 5)), Some(&-1));
        // White to move, in check from c2.
        assert_eq!(terms.get(&TEMPO), Some(&1));
        assert_eq!(terms.get(&(TEMPO + 1)), Some(&1));
        assert!(pos.in_check());
    }

    /// The armies stand alike: the start is worth the tempo to either side.
    #[test]
    fn the_armies_are_valued_alike() {
        let tempo = Shakti::weights()[TEMPO];
        assert_eq!(weighted(&Shakti::start()), tempo);
        let black = Shakti::from_text(&Shakti::start().to_text().replace(" w", " b"))
            .expect("the start with Black to move");
        assert_eq!(black.turn(), Color::Black);
        assert_eq!(weighted(&black), tempo);
    }
}
