//! Chak's evaluation as a weighted sum of terms, and the terms of a position for tuning.
//!
//! Every term is a count from White's side (a White piece counts `+1`, a Green piece `-1`):
//!
//! - a piece of each kind on each square, seen from its own side (Green's squares turned half
//!   a turn, as its army stands): material and placement in one table per kind;
//! - a piece of each kind one, two or three steps (king steps) from the enemy king or divine
//!   king: the attack on it;
//! - a piece of each kind one or two steps from its own king or divine king: its guard;
//! - how many enemy pieces (pawns and offerings aside) stand within two steps of a king, from
//!   none to six or more: the crowd that mates, worth more than its pieces one by one;
//! - the side to move (the tempo), and the side to move standing in check (not fitted: the
//!   self-play data leaves positions in check out, and the search never stands on their value).
//!
//! The value of a position is the dot product of its terms with [`WEIGHTS`], which `pigeon
//! tune` fits to self-play games (the README's Engine section says how). [`evaluate`] computes
//! the same sum from tables built once from the weights; a test checks the two agree.

use std::sync::LazyLock;

use super::chak_weights::WEIGHTS;
use super::{Group, side, steps as king_steps, tempo_and_check};
use crate::rules::chak::{Chak, Kind};
use crate::rules::{Color, Position};

/// Piece kinds, squares and the distances the attack and guard terms count.
const KINDS: usize = Kind::ALL.len();
const SQUARES: usize = 81;
const ATTACK_STEPS: usize = 3;
const GUARD_STEPS: usize = 2;
/// The crowd around a king is counted within these steps, up to this many pieces.
const CROWD_STEPS: u8 = 2;
const CROWD_MAX: usize = 6;

/// Where each group of terms starts among the weights.
const PLACEMENT: usize = 0;
const ATTACK: usize = PLACEMENT + KINDS * SQUARES;
const GUARD: usize = ATTACK + KINDS * ATTACK_STEPS;
const CROWD: usize = GUARD + KINDS * GUARD_STEPS;
const TEMPO: usize = CROWD + CROWD_MAX + 1;
const IN_CHECK: usize = TEMPO + 1;
/// How many terms (and weights) Chak's evaluation has.
pub const TERMS: usize = IN_CHECK + 1;

/// The game's own groups of terms in order, for printing the weights (the tempo and
/// standing in check follow).
pub(super) const GROUPS: [Group; 4] = [
    Group {
        name: "placement: a piece of each kind (K D J Q S V R P W O) on each square a1..i9, from its side",
        start: PLACEMENT,
        size: KINDS * SQUARES,
        row: 9,
    },
    Group {
        name: "attack: a piece of each kind 1, 2, 3 steps from the enemy king",
        start: ATTACK,
        size: KINDS * ATTACK_STEPS,
        row: ATTACK_STEPS,
    },
    Group {
        name: "guard: a piece of each kind 1, 2 steps from its own king",
        start: GUARD,
        size: KINDS * GUARD_STEPS,
        row: GUARD_STEPS,
    },
    Group {
        name: "crowd: 0, 1, ... 6 or more enemy pieces (not pawns or offerings) within 2 steps of a king",
        start: CROWD,
        size: CROWD_MAX + 1,
        row: CROWD_MAX + 1,
    },
];

/// A square as its own side sees it.
fn own_square(sq: usize, color: Color) -> usize {
    super::own_square(sq, color, SQUARES)
}

/// King steps between two squares.
fn steps(a: usize, b: usize) -> usize {
    king_steps(a, b, 9)
}

fn kind_index(kind: Kind) -> usize {
    kind as usize - 1
}

/// Whether a piece of this kind counts in the crowd around the enemy king.
fn crowds(kind: Kind) -> bool {
    !matches!(kind, Kind::Pawn | Kind::Offering)
}

/// The weights spread into what the evaluation looks up: per side (signed from White's
/// view), kind and square; per side, kind and steps to a king.
struct Tables {
    placement: [[[i32; SQUARES]; KINDS]; 2],
    attack: [[[i32; 9]; KINDS]; 2],
    guard: [[[i32; 9]; KINDS]; 2],
    steps: Vec<[u8; SQUARES]>,
}

static TABLES: LazyLock<Tables> = LazyLock::new(|| {
    let mut tables = Tables {
        placement: [[[0; SQUARES]; KINDS]; 2],
        attack: [[[0; 9]; KINDS]; 2],
        guard: [[[0; 9]; KINDS]; 2],
        steps: (0..SQUARES)
            .map(|a| std::array::from_fn(|b| steps(a, b) as u8))
            .collect(),
    };
    for color in [Color::White, Color::Black] {
        let (c, sign) = (color.index(), side(color));
        for kind in 0..KINDS {
            for sq in 0..SQUARES {
                tables.placement[c][kind][sq] =
                    sign * WEIGHTS[PLACEMENT + kind * SQUARES + own_square(sq, color)];
            }
            for step in 1..=ATTACK_STEPS {
                tables.attack[c][kind][step] =
                    sign * WEIGHTS[ATTACK + kind * ATTACK_STEPS + step - 1];
            }
            for step in 1..=GUARD_STEPS {
                tables.guard[c][kind][step] = sign * WEIGHTS[GUARD + kind * GUARD_STEPS + step - 1];
            }
        }
    }
    tables
});

/// The value of `pos` for the side to move.
pub(in crate::engine) fn evaluate(pos: &Chak) -> i32 {
    let tables = &*TABLES;
    let royal = [
        pos.royal_square(Color::White),
        pos.royal_square(Color::Black),
    ];
    let mut white = 0;
    // Enemy pieces near each side's king.
    let mut crowd = [0usize; 2];
    for (sq, color, kind) in pos.squares() {
        let (c, k) = (color.index(), kind_index(kind));
        let steps = &tables.steps[sq];
        let to_enemy = steps[royal[1 - c]];
        white += tables.placement[c][k][sq]
            + tables.attack[c][k][usize::from(to_enemy)]
            + tables.guard[c][k][usize::from(steps[royal[c]])];
        crowd[1 - c] += usize::from(to_enemy <= CROWD_STEPS && crowds(kind));
    }
    white += WEIGHTS[CROWD + crowd[0].min(CROWD_MAX)] - WEIGHTS[CROWD + crowd[1].min(CROWD_MAX)];
    let mover = match pos.turn() {
        Color::White => white,
        Color::Black => -white,
    };
    let check = if pos.in_check() { WEIGHTS[IN_CHECK] } else { 0 };
    mover + WEIGHTS[TEMPO] + check
}

/// Calls `add(term, count)` for the terms of `pos` that are not zero, counts from White's
/// side (see [`super::Terms::each_term`]).
pub(super) fn each_term(pos: &Chak, add: &mut impl FnMut(usize, i32)) {
    let royal = [
        pos.royal_square(Color::White),
        pos.royal_square(Color::Black),
    ];
    let mut crowd = [0usize; 2];
    for (sq, color, kind) in pos.squares() {
        let (c, k, sign) = (color.index(), kind_index(kind), side(color));
        add(PLACEMENT + k * SQUARES + own_square(sq, color), sign);
        let to_enemy = steps(sq, royal[1 - c]);
        if (1..=ATTACK_STEPS).contains(&to_enemy) {
            add(ATTACK + k * ATTACK_STEPS + to_enemy - 1, sign);
        }
        let to_own = steps(sq, royal[c]);
        if (1..=GUARD_STEPS).contains(&to_own) {
            add(GUARD + k * GUARD_STEPS + to_own - 1, sign);
        }
        if to_enemy <= usize::from(CROWD_STEPS) && crowds(kind) {
            crowd[1 - c] += 1;
        }
    }
    add(CROWD + crowd[0].min(CROWD_MAX), 1);
    add(CROWD + crowd[1].min(CROWD_MAX), -1);
    tempo_and_check(pos, TEMPO, add);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Position;

    /// A side's value does not depend on which side it is: the start position, where the armies
    /// stand turned half a turn from each other, is worth the tempo to either side.
    #[test]
    fn the_armies_are_valued_alike() {
        assert_eq!(evaluate(&Chak::start()), WEIGHTS[TEMPO]);
        assert_eq!(evaluate(&Chak::start().passed()), WEIGHTS[TEMPO]);
    }
}
