//! Chad's evaluation terms (see the `terms` module), counted from White's side:
//!
//! - a king, rook or queen on each of the 144 squares, seen from its own side: material and
//!   placement in one table per kind (rooks gain near the enemy castle, where they promote
//!   and from whose wall they capture);
//! - a rook or queen one to three steps from the enemy king: the attack on it;
//! - a rook or queen one or two steps from its own king: the castle's defence;
//! - the tempo, and the side to move standing in check.

use super::{Group, NearKing, kings, own_square, pieces, side, tempo_and_check};
use crate::rules::Position;
use crate::rules::chad::Chad;

const FILES: usize = 12;
const SQUARES: usize = FILES * FILES;
/// King, rook, queen: the letters in order.
const LETTERS: [char; 3] = ['K', 'R', 'Q'];
const KINDS: usize = LETTERS.len();
/// Rook, queen: the kinds the attack and guard terms count.
const FIGHTERS: usize = 2;
const ATTACK_STEPS: usize = 3;
const GUARD_STEPS: usize = 2;

const PLACEMENT: usize = 0;
const ATTACK: usize = PLACEMENT + KINDS * SQUARES;
const GUARD: usize = ATTACK + FIGHTERS * ATTACK_STEPS;
const TEMPO: usize = GUARD + FIGHTERS * GUARD_STEPS;
/// How many terms (and weights) Chad's evaluation has: the last is standing in check.
pub(super) const TERMS: usize = TEMPO + 2;

/// The game's own groups of terms in order, for printing the weights (the tempo and
/// standing in check follow).
pub(super) const GROUPS: [Group; 3] = [
    Group {
        name: "placement: a king, a rook, a queen on each square a1..l12, from its side",
        start: PLACEMENT,
        size: KINDS * SQUARES,
        row: FILES,
    },
    Group {
        name: "attack: a rook, then a queen, 1, 2, 3 steps from the enemy king",
        start: ATTACK,
        size: FIGHTERS * ATTACK_STEPS,
        row: ATTACK_STEPS,
    },
    Group {
        name: "guard: a rook, then a queen, 1, 2 steps from its own king",
        start: GUARD,
        size: FIGHTERS * GUARD_STEPS,
        row: GUARD_STEPS,
    },
];

/// Calls `add(term, count)` for the terms of `pos` that are not zero (see the `terms` module).
pub(super) fn each_term(pos: &Chad, add: &mut impl FnMut(usize, i32)) {
    let view = pos.board_view();
    let kings = kings(&view);
    for (square, color, letter) in pieces(&view) {
        let Some(kind) = LETTERS.iter().position(|&l| l == letter) else {
            continue;
        };
        let sign = side(color);
        add(
            PLACEMENT + kind * SQUARES + own_square(square, color, SQUARES),
            sign,
        );
        if kind == 0 {
            continue;
        }
        let fighter = kind - 1;
        let attack = NearKing {
            start: ATTACK + fighter * ATTACK_STEPS,
            len: ATTACK_STEPS,
            files: FILES,
        };
        let guard = NearKing {
            start: GUARD + fighter * GUARD_STEPS,
            len: GUARD_STEPS,
            files: FILES,
        };
        attack.add(square, kings[color.other().index()], sign, add);
        guard.add(square, kings[color.index()], sign, add);
    }
    tempo_and_check(pos, TEMPO, add);
}

#[cfg(test)]
mod tests {
    use super::super::{Terms, weighted};
    use super::*;
    use crate::rules::Color;

    /// The armies stand alike: the start is worth the tempo to either side.
    #[test]
    fn the_armies_are_valued_alike() {
        let tempo = Chad::weights()[TEMPO];
        assert_eq!(weighted(&Chad::start()), tempo);
        let black = Chad::start().passed();
        assert_eq!(black.turn(), Color::Black);
        assert_eq!(weighted(&black), tempo);
    }

    /// The terms of one position, counted by hand.
    #[test]
    fn a_position_has_the_terms_counted_by_hand() {
        // White: king d4, a rook on d5, a queen on i10 in Black's castle. Black: king i8, a
        // rook on a12.
        let pos =
            Chad::from_text("r11/12/8Q3/12/8k3/12/12/3R8/3K8/12/12/12 b").expect("a position");
        let terms = super::super::tests::terms_of(&pos);
        let square = |file: usize, rank: usize| rank * FILES + file;
        let (d4, d5, i10, i8, a12) = (
            square(3, 3),
            square(3, 4),
            square(8, 9),
            square(8, 7),
            square(0, 11),
        );
        assert_eq!(terms.get(&(PLACEMENT + d4)), Some(&1));
        assert_eq!(terms.get(&(PLACEMENT + SQUARES + d5)), Some(&1));
        assert_eq!(terms.get(&(PLACEMENT + 2 * SQUARES + i10)), Some(&1));
        assert_eq!(terms.get(&(PLACEMENT + SQUARES - 1 - i8)), Some(&-1));
        assert_eq!(
            terms.get(&(PLACEMENT + SQUARES + SQUARES - 1 - a12)),
            Some(&-1)
        );
        // The queen is 2 steps from Black's king; the rook d5 is 1 from its own king.
        assert_eq!(terms.get(&(ATTACK + ATTACK_STEPS + 1)), Some(&1));
        assert_eq!(terms.get(&GUARD), Some(&1));
        // Black to move, and the queen on i10 checks the king on i8 down the file.
        assert_eq!(terms.get(&TEMPO), Some(&-1));
        assert_eq!(terms.get(&(TEMPO + 1)), Some(&-1));
        assert_eq!(terms.len(), 9, "{terms:?}");
    }
}
