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
pub(super) const PLACEMENT: usize = 0;
pub(super) const ATTACK: usize = PLACEMENT + KINDS * SQUARES;
pub(super) const GUARD: usize = ATTACK + KINDS * ATTACK_STEPS;
pub(super) const CROWD: usize = GUARD + KINDS * GUARD_STEPS;
pub(super) const TEMPO: usize = CROWD + CROWD_MAX + 1;
pub(super) const IN_CHECK: usize = TEMPO + 1;
/// How many terms (and weights) Chak's evaluation has.
pub const TERMS: usize = IN_CHECK + 1;

/// The groups of terms in order, with their sizes, for printing the weights.
pub(super) const GROUPS: [(&str, usize, usize); 6] = [
    (
        "placement: a piece of each kind (K D J Q S V R P W O) on each square a1..i9, from its side",
        PLACEMENT,
        KINDS * SQUARES,
    ),
    (
        "attack: a piece of each kind 1, 2, 3 steps from the enemy king",
        ATTACK,
        KINDS * ATTACK_STEPS,
    ),
    (
        "guard: a piece of each kind 1, 2 steps from its own king",
        GUARD,
        KINDS * GUARD_STEPS,
    ),
    (
        "crowd: 0, 1, ... 6 or more enemy pieces (not pawns or offerings) within 2 steps of a king",
        CROWD,
        CROWD_MAX + 1,
    ),
    ("tempo: the side to move", TEMPO, 1),
    ("in check: the side to move stands in check", IN_CHECK, 1),
];

fn kind_index(kind: Kind) -> usize {
    kind as usize - 1
}

/// Whether a piece of this kind counts in the crowd around the enemy king.
fn crowds(kind: Kind) -> bool {
    !matches!(kind, Kind::Pawn | Kind::Offering)
}

/// A square as its own side sees it: Green's army stands turned half a turn.
fn own_square(sq: usize, color: Color) -> usize {
    match color {
        Color::White => sq,
        Color::Black => SQUARES - 1 - sq,
    }
}

/// King steps between two squares.
fn steps(a: usize, b: usize) -> usize {
    let (af, ar, bf, br) = (a % 9, a / 9, b % 9, b / 9);
    af.abs_diff(bf).max(ar.abs_diff(br))
}

/// A side's share: `+1` for White, `-1` for Green.
fn side(color: Color) -> i32 {
    match color {
        Color::White => 1,
        Color::Black => -1,
    }
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
pub(super) fn evaluate(pos: &Chak) -> i32 {
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

/// The terms of `pos` that are not zero, as (term, count from White's side) pairs; a term may
/// appear more than once (its counts add up).
pub(super) fn terms(pos: &Chak, out: &mut Vec<(u16, i8)>) {
    let royal = [
        pos.royal_square(Color::White),
        pos.royal_square(Color::Black),
    ];
    let mut push = |term: usize, count: i32| out.push((term as u16, count as i8));
    let mut crowd = [0usize; 2];
    for (sq, color, kind) in pos.squares() {
        let (c, k, sign) = (color.index(), kind_index(kind), side(color));
        push(PLACEMENT + k * SQUARES + own_square(sq, color), sign);
        let to_enemy = steps(sq, royal[1 - c]);
        if (1..=ATTACK_STEPS).contains(&to_enemy) {
            push(ATTACK + k * ATTACK_STEPS + to_enemy - 1, sign);
        }
        let to_own = steps(sq, royal[c]);
        if (1..=GUARD_STEPS).contains(&to_own) {
            push(GUARD + k * GUARD_STEPS + to_own - 1, sign);
        }
        if to_enemy <= usize::from(CROWD_STEPS) && crowds(kind) {
            crowd[1 - c] += 1;
        }
    }
    push(CROWD + crowd[0].min(CROWD_MAX), 1);
    push(CROWD + crowd[1].min(CROWD_MAX), -1);
    let mover = side(pos.turn());
    push(TEMPO, mover);
    if pos.in_check() {
        push(IN_CHECK, mover);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Position;

    /// The evaluation is exactly the weighted sum of the terms the tuner fits, for positions
    /// of every kind met in play (promotions, checks, both sides to move).
    #[test]
    fn the_evaluation_is_the_weighted_sum_of_the_terms() {
        let mut rng = fastrand::Rng::with_seed(7);
        let mut checked = 0;
        for _ in 0..40 {
            let mut pos = Chak::start();
            for _ in 0..120 {
                let moves = pos.legal_moves();
                if moves.is_empty() || pos.outcome().is_some() {
                    break;
                }
                pos = pos.play(&moves[rng.usize(..moves.len())]);
                let mut terms_of = Vec::new();
                terms(&pos, &mut terms_of);
                let white: i32 = terms_of
                    .iter()
                    .map(|&(term, count)| WEIGHTS[usize::from(term)] * i32::from(count))
                    .sum();
                let mover = if pos.turn() == Color::White {
                    white
                } else {
                    -white
                };
                assert_eq!(evaluate(&pos), mover, "{}", pos.to_text());
                checked += 1;
            }
        }
        assert!(checked > 1_000);
    }

    /// A side's value does not depend on which side it is: the start position, where the armies
    /// stand turned half a turn from each other, is worth the tempo to either side.
    #[test]
    fn the_armies_are_valued_alike() {
        assert_eq!(evaluate(&Chak::start()), WEIGHTS[TEMPO]);
        assert_eq!(evaluate(&Chak::start().passed()), WEIGHTS[TEMPO]);
    }
}
