//! Chesscala's evaluation terms (see the `terms` module), counted from White's side:
//!
//! - a piece of each kind on each of the 48 squares, seen from its own side (a stack's pieces
//!   one by one): material and placement in one table per kind;
//! - a stack its side controls (more of its pieces than the enemy's): the stacks it sows;
//! - a side with none to twelve losses: twelve end the game, so a loss costs more as the
//!   count grows;
//! - the tempo, and the side to move standing in check.

use super::{Group, own_square, pieces, side, tempo_and_check};
use crate::rules::chesscala::Chesscala;
use crate::rules::{Cell, Color, Position};

const FILES: usize = 6;
const SQUARES: usize = FILES * 8;
/// The kinds in order, by letter.
const LETTERS: [char; 9] = ['K', 'H', 'O', 'Q', 'R', 'B', 'N', 'M', 'P'];
const KINDS: usize = LETTERS.len();
/// Losses that end the game.
const LOSSES_MAX: usize = 12;

const PLACEMENT: usize = 0;
const CONTROL: usize = PLACEMENT + KINDS * SQUARES;
const LOSSES: usize = CONTROL + 1;
const TEMPO: usize = LOSSES + LOSSES_MAX + 1;
/// How many terms (and weights) Chesscala's evaluation has: the last is standing in check.
pub(super) const TERMS: usize = TEMPO + 2;

/// The game's own groups of terms in order, for printing the weights (the tempo and
/// standing in check follow).
pub(super) const GROUPS: [Group; 3] = [
    Group {
        name: "placement: a piece of each kind (K H O Q R B N M P) on each square a1..f8, from its side",
        start: PLACEMENT,
        size: KINDS * SQUARES,
        row: FILES,
    },
    Group {
        name: "control: a stack with more of the side's pieces than the enemy's",
        start: CONTROL,
        size: 1,
        row: 1,
    },
    Group {
        name: "losses: a side that has lost 0, 1, ... 12 pieces",
        start: LOSSES,
        size: LOSSES_MAX + 1,
        row: LOSSES_MAX + 1,
    },
];

/// Calls `add(term, count)` for the terms of `pos` that are not zero (see the `terms` module).
pub(super) fn each_term(pos: &Chesscala, add: &mut impl FnMut(usize, i32)) {
    let view = pos.board_view();
    for (square, color, letter) in pieces(&view) {
        if let Some(kind) = LETTERS.iter().position(|&l| l == letter) {
            add(
                PLACEMENT + kind * SQUARES + own_square(square, color, SQUARES),
                side(color),
            );
        }
    }
    for cell in &view.cells {
        if let Cell::Pieces(stack) = cell {
            let white: i32 = stack.iter().map(|piece| side(piece.color)).sum();
            if white != 0 {
                add(CONTROL, white.signum());
            }
        }
    }
    for color in Color::ALL {
        let lost = usize::from(pos.losses(color)).min(LOSSES_MAX);
        add(LOSSES + lost, side(color));
    }
    tempo_and_check(pos, TEMPO, add);
}

#[cfg(test)]
mod tests {
    use super::super::{Terms, weighted};
    use super::*;

    /// The armies stand alike: the start turned half round, colours swapped (Black to
    /// move), is worth the same to the side to move.
    #[test]
    fn the_armies_are_valued_alike() {
        let start = Chesscala::start();
        let turned = start.rotated();
        assert_eq!(turned.turn(), Color::Black);
        assert_eq!(weighted(&turned), weighted(&start));
        assert_eq!(weighted(&start), Chesscala::weights()[TEMPO]);
    }

    /// The terms of one position, counted by hand.
    #[test]
    fn a_position_has_the_terms_counted_by_hand() {
        // White: kings d1 and f1, a stack of a White pawn and a Black man on c3 (tied), a
        // stack of two White rooks and a Black pawn on d4. Black: kings a8 and c8. White has
        // lost 3 pieces, Black 11.
        let text = "k,-,k,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,RRp,-,-/-,-,Pm,-,-,-/\
                    -,-,-,-,-,-/-,-,-,K,-,K b - - 3,11 - *";
        let pos = Chesscala::from_text(text).expect("a position");
        let terms = super::super::tests::terms_of(&pos);
        let square = |file: usize, rank: usize| rank * FILES + file;
        let kind = |letter: char| LETTERS.iter().position(|&l| l == letter).unwrap() * SQUARES;
        // The kings: White's d1 and f1; Black's c8 and a8 are d1 and f1 from its side.
        assert_eq!(terms.get(&(PLACEMENT + square(3, 0))), Some(&0));
        assert_eq!(terms.get(&(PLACEMENT + square(5, 0))), Some(&0));
        assert_eq!(terms.get(&(kind('R') + square(3, 3))), Some(&2));
        assert_eq!(terms.get(&(kind('P') + square(2, 2))), Some(&1));
        assert_eq!(
            terms.get(&(kind('P') + SQUARES - 1 - square(3, 3))),
            Some(&-1)
        );
        assert_eq!(
            terms.get(&(kind('M') + SQUARES - 1 - square(2, 2))),
            Some(&-1)
        );
        // One stack controlled (d4, White's); c3 is tied.
        assert_eq!(terms.get(&CONTROL), Some(&1));
        assert_eq!(terms.get(&(LOSSES + 3)), Some(&1));
        assert_eq!(terms.get(&(LOSSES + 11)), Some(&-1));
        assert_eq!(terms.get(&TEMPO), Some(&-1));
    }
}
