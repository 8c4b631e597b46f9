//! Evaluations as weighted sums of terms, one set of terms per game, and what the tuner
//! (`pigeon tune`) needs of them.
//!
//! A game's terms are counts from White's side (a White piece counts `+1`, a Black or Green
//! piece `-1`), listed by [`Terms::each_term`] in the game's file (`chak.rs`, `shakti.rs`,
//! `chad.rs`, `chesscala.rs`); its weights, one per term, live in a weights file beside it
//! (`<game>_weights.rs`) that `pigeon tune fit` writes. The value of a position is the dot
//! product of the two, turned to the side to move's view ([`weighted`]). Chak's evaluation
//! computes the same sum faster from tables; a test checks that the two agree.
//!
//! Every game's terms share a frame: a piece of each kind on each square, seen from its own
//! side (material and placement in one table per kind), the side to move (the tempo) and the
//! side to move standing in check; each game adds what wins it.

mod chad;
mod chad_weights;
pub(super) mod chak;
mod chak_weights;
mod chesscala;
mod chesscala_weights;
mod shakti;
mod shakti_weights;

use super::eval::Evaluate;
use crate::rules::chad::Chad;
use crate::rules::chak::Chak;
use crate::rules::chesscala::Chesscala;
use crate::rules::shakti::Shakti;
use crate::rules::{BoardView, Cell, Color, Position, VariantPosition};

/// One group of terms, for printing the weights file: what the terms are, where they start,
/// how many there are and how many a row of the file shows.
#[derive(Debug, Clone, Copy)]
pub(super) struct Group {
    pub name: &'static str,
    pub start: usize,
    pub size: usize,
    pub row: usize,
}

/// A game whose evaluation is a weighted sum of terms that self-play can fit.
pub(super) trait Terms: Evaluate + Sized + Send + Sync + 'static {
    /// The weights compiled in, one per term.
    fn weights() -> &'static [i32];

    /// The groups of terms, in order, covering every term once.
    fn groups() -> Vec<Group>;

    /// Calls `add(term, count)` for the terms of the position that are not zero, with counts
    /// from White's side; a term may come more than once (its counts add up).
    fn each_term(&self, add: &mut impl FnMut(usize, i32));

    /// The position inside a [`VariantPosition`] of this game.
    fn of(pos: &VariantPosition) -> Option<&Self>;

    /// Reads a position text of this game.
    ///
    /// # Errors
    /// Why the text is no position.
    fn read(text: &str) -> Result<Self, String> {
        Self::from_text(text).map_err(|error| error.to_string())
    }
}

/// The value of `pos` for the side to move: its terms weighted by the compiled-in weights.
pub(super) fn weighted<T: Terms>(pos: &T) -> i32 {
    let weights = T::weights();
    let mut white = 0;
    pos.each_term(&mut |term, count| white += weights[term] * count);
    white * side(pos.turn())
}

/// A side's share: `+1` for White, `-1` for its opponent.
pub(super) fn side(color: Color) -> i32 {
    match color {
        Color::White => 1,
        Color::Black => -1,
    }
}

/// A square (index `rank * files + file`) as its own side sees it: the second player's army
/// stands turned half a turn in every game, so its squares are counted from the far corner.
pub(super) fn own_square(square: usize, color: Color, squares: usize) -> usize {
    match color {
        Color::White => square,
        Color::Black => squares - 1 - square,
    }
}

/// King steps between two squares of a board `files` wide.
pub(super) fn steps(a: usize, b: usize, files: usize) -> usize {
    let (af, ar, bf, br) = (a % files, a / files, b % files, b / files);
    af.abs_diff(bf).max(ar.abs_diff(br))
}

/// Every piece on the board: its square index, its side and its letter (a stack's pieces one
/// by one).
pub(super) fn pieces(view: &BoardView) -> impl Iterator<Item = (usize, Color, char)> + '_ {
    view.cells.iter().enumerate().flat_map(|(square, cell)| {
        let list: &[_] = match cell {
            Cell::Pieces(list) => list,
            Cell::Hole | Cell::Empty => &[],
        };
        list.iter()
            .map(move |piece| (square, piece.color, piece.letter))
    })
}

/// Each side's king square, White's first, in a game with one king a side.
pub(super) fn kings(view: &BoardView) -> [Option<usize>; 2] {
    let mut kings = [None; 2];
    for (square, color, letter) in pieces(view) {
        if letter == 'K' {
            kings[color.index()] = Some(square);
        }
    }
    kings
}

/// Terms for a piece one to `len` king steps from a king, the first at `start`, on a board
/// `files` wide.
#[derive(Debug, Clone, Copy)]
pub(super) struct NearKing {
    pub start: usize,
    pub len: usize,
    pub files: usize,
}

impl NearKing {
    /// Adds the term of a piece on `square` for its side (`sign`), if `king` is near enough.
    pub(super) fn add(
        self,
        square: usize,
        king: Option<usize>,
        sign: i32,
        add: &mut impl FnMut(usize, i32),
    ) {
        if let Some(king) = king {
            let steps = steps(square, king, self.files);
            if (1..=self.len).contains(&steps) {
                add(self.start + steps - 1, sign);
            }
        }
    }
}

/// A game's own groups of terms, then the tempo and standing in check, which end every
/// game's terms.
fn with_tempo(own: &[Group]) -> Vec<Group> {
    let tempo = own.last().map_or(0, |group| group.start + group.size);
    let mut groups = own.to_vec();
    groups.push(Group {
        name: "tempo: the side to move",
        start: tempo,
        size: 1,
        row: 1,
    });
    groups.push(Group {
        name: "in check: the side to move stands in check",
        start: tempo + 1,
        size: 1,
        row: 1,
    });
    groups
}

/// The tempo and in-check terms, the last two of every game: `tempo` is the tempo's index.
pub(super) fn tempo_and_check<P: Position>(
    pos: &P,
    tempo: usize,
    add: &mut impl FnMut(usize, i32),
) {
    let mover = side(pos.turn());
    add(tempo, mover);
    if pos.in_check() {
        add(tempo + 1, mover);
    }
}

/// The impl of [`Terms`] for a game: its terms in the module `$terms`, its weights in
/// `$weights`.
macro_rules! terms_of_game {
    ($game:ident, $terms:ident, $weights:ident) => {
        impl Terms for $game {
            fn weights() -> &'static [i32] {
                &$weights::WEIGHTS
            }

            fn groups() -> Vec<Group> {
                with_tempo(&$terms::GROUPS)
            }

            fn each_term(&self, add: &mut impl FnMut(usize, i32)) {
                $terms::each_term(self, add);
            }

            fn of(pos: &VariantPosition) -> Option<&$game> {
                match pos {
                    VariantPosition::$game(pos) => Some(pos),
                    _ => None,
                }
            }
        }
    };
}

terms_of_game!(Chak, chak, chak_weights);
terms_of_game!(Shakti, shakti, shakti_weights);
terms_of_game!(Chad, chad, chad_weights);
terms_of_game!(Chesscala, chesscala, chesscala_weights);

#[cfg(test)]
pub(super) mod tests {
    use std::collections::BTreeMap;

    use super::*;

    /// The terms of `pos`, each with its count.
    pub(in crate::engine) fn terms_of<T: Terms>(pos: &T) -> BTreeMap<usize, i32> {
        let mut terms = BTreeMap::new();
        pos.each_term(&mut |term, count| *terms.entry(term).or_insert(0) += count);
        terms
    }

    /// Plays random games of `T` from its start and checks that the evaluation of every
    /// position met is the weighted sum of its terms, and that every term is in range.
    fn evaluation_is_the_weighted_sum<T: Terms + Clone>(start: &T) {
        let weights = T::weights();
        let mut rng = fastrand::Rng::with_seed(7);
        let mut checked = 0;
        // Random games of some games end early: play until enough positions are seen.
        for _ in 0..400 {
            if checked > 1_000 {
                break;
            }
            let mut pos = start.clone();
            for _ in 0..120 {
                let moves = pos.legal_moves();
                if moves.is_empty() || pos.outcome().is_some() {
                    break;
                }
                pos = pos.play(&moves[rng.usize(..moves.len())]);
                let mut white = 0;
                pos.each_term(&mut |term, count| {
                    assert!(term < weights.len(), "term {term} of {}", pos.to_text());
                    white += weights[term] * count;
                });
                assert_eq!(
                    pos.evaluate(),
                    white * side(pos.turn()),
                    "{}",
                    pos.to_text()
                );
                checked += 1;
            }
        }
        assert!(checked > 1_000, "{checked} positions");
    }

    /// Every game's evaluation is the weighted sum of the terms the tuner fits, for positions
    /// of every kind met in play (captures, promotions, checks, both sides to move), and every
    /// term has a weight (Chak's evaluation reads tables built from the weights, the others
    /// sum the terms).
    #[test]
    fn the_evaluation_is_the_weighted_sum_of_the_terms() {
        evaluation_is_the_weighted_sum(&Chak::start());
        evaluation_is_the_weighted_sum(&Shakti::start());
        evaluation_is_the_weighted_sum(&Chad::start());
        evaluation_is_the_weighted_sum(&Chesscala::start());
    }

    /// The groups of every game cover its weights once, in order.
    #[test]
    fn the_groups_cover_the_weights() {
        fn covers<T: Terms>() {
            let mut next = 0;
            for group in &T::groups() {
                assert_eq!(group.start, next, "{}", group.name);
                assert!(group.row > 0 && group.size > 0, "{}", group.name);
                next += group.size;
            }
            assert_eq!(next, T::weights().len(), "{}", T::VARIANT.key());
        }
        covers::<Chak>();
        covers::<Shakti>();
        covers::<Chad>();
        covers::<Chesscala>();
    }
}
