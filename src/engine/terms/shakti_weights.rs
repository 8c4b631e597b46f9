//! Shakti's evaluation weights, one per term of `shakti.rs` (in its order).
//! Written by `pigeon tune fit`; the README's Engine section says which are fitted.

use super::shakti::TERMS;

/// The weight of each term, in centipawn-like points.
#[rustfmt::skip]
pub(super) const WEIGHTS: [i32; TERMS] = [
    // placement: a king, then a warrior, on each square a1..g7, from its side
       0,    0,    0,    0,    0,    0,    0,
       0,    0,    0,    0,    0,    0,    0,
       0,    0,    0,    0,    0,    0,    0,
       0,    0,    0,    0,    0,    0,    0,
       0,    0,    0,    0,    0,    0,    0,
       0,    0,    0,    0,    0,    0,    0,
       0,    0,    0,    0,    0,    0,    0,
     500,  500,  500,  500,  500,  500,  500,
     500,  500,  500,  500,  500,  500,  500,
     500,  500,  500,  500,  500,  500,  500,
     500,  500,  500,  500,  500,  500,  500,
     500,  500,  500,  500,  500,  500,  500,
     500,  500,  500,  500,  500,  500,  500,
     500,  500,  500,  500,  500,  500,  500,
    // hunt: a warrior 1, 2, ... 6 steps from the enemy king
      30,   24,   18,   12,    6,    0,
    // guard: a warrior 1, 2 steps from its own king
       0,    0,
    // room: a king with 0, 1, ... 8 tiles next to it
       0,   25,   50,   75,  100,  125,  150,  175,  200,
    // tempo: the side to move
       0,
    // in check: the side to move stands in check
     -30,
];
