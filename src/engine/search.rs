//! Iterative deepening negamax with alpha-beta, over any game's [`Position`].
//!
//! Moves are ordered by the previous best move (from the transposition table), then by the
//! static value of the position they lead to, which puts captures, promotions and mates first
//! without any game-specific move knowledge. Only whole iterations count: when the budget runs
//! out mid-iteration, the best move of the last completed depth is played (or, in the first
//! iteration, the best of the root moves searched so far).

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::time::Instant;

use super::eval::Evaluate;
use super::{Limits, MATE};

/// Scores beyond this are mates.
const MATE_BOUND: i32 = MATE - 1_000;
const INFINITY: i32 = MATE + 1;
/// The transposition table is cleared when it grows beyond this many entries.
const TABLE_LIMIT: usize = 1 << 20;
/// How often (in nodes) the clock is read.
const CLOCK_EVERY: u64 = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Debug, Clone)]
struct Entry<M> {
    depth: u32,
    score: i32,
    bound: Bound,
    best: Option<M>,
}

/// What a search found: the move, its score for the side to move, the depth reached.
#[derive(Debug, Clone)]
pub(super) struct Found<M> {
    pub mv: M,
    pub score: i32,
    pub depth: u32,
    pub nodes: u64,
}

/// A position's key for the table and for repetitions: its repetition key where the game has
/// one (so move counters don't split equal positions), else the whole position.
pub(super) fn key<P: Evaluate>(pos: &P) -> u64 {
    let mut hasher = DefaultHasher::new();
    match pos.repetition_key() {
        Some(text) => text.hash(&mut hasher),
        None => pos.hash(&mut hasher),
    }
    hasher.finish()
}

struct Searcher<'a, P: Evaluate> {
    limits: &'a Limits,
    deadline: Option<Instant>,
    nodes: u64,
    stopped: bool,
    table: HashMap<u64, Entry<P::Move>>,
    /// Keys of the game's earlier positions and of the current search path: a position met
    /// again counts as a draw (the game has a repetition rule whenever `repeats` is true).
    path: Vec<u64>,
    repeats: bool,
}

impl<P: Evaluate> Searcher<'_, P> {
    fn out_of_budget(&mut self) -> bool {
        if !self.stopped {
            let clock = self.nodes.is_multiple_of(CLOCK_EVERY)
                && self
                    .deadline
                    .is_some_and(|deadline| Instant::now() >= deadline);
            self.stopped = self.nodes >= self.limits.nodes || clock;
        }
        self.stopped
    }

    /// The value of a position that ended, or `None` while it goes on.
    fn terminal(pos: &P, ply: u32) -> Option<i32> {
        let outcome = pos.outcome()?;
        let mate = MATE - ply as i32;
        Some(match outcome.winner {
            None => 0,
            Some(winner) if winner == pos.turn() => mate,
            Some(_) => -mate,
        })
    }

    /// The static value of a position: its end if it ended, else the evaluation.
    fn leaf(pos: &P, ply: u32) -> i32 {
        Self::terminal(pos, ply).unwrap_or_else(|| pos.evaluate())
    }

    /// The children of `pos`, best first by their static value, the table's move first of all.
    /// Each child counts as a visited position; when the budget runs out the list is cut short
    /// and the search is stopped.
    fn ordered(
        &mut self,
        pos: &P,
        ply: u32,
        moves: Vec<P::Move>,
        hint: Option<&P::Move>,
    ) -> Vec<Child<P>> {
        let mut children = Vec::with_capacity(moves.len());
        for mv in moves {
            self.nodes += 1;
            if self.out_of_budget() {
                break;
            }
            let next = pos.play(&mv);
            let value = -Self::leaf(&next, ply + 1);
            let first = hint == Some(&mv);
            children.push(Child {
                mv,
                next,
                value,
                first,
            });
        }
        children.sort_by_key(|child| (!child.first, -child.value));
        children
    }

    fn negamax(&mut self, pos: &P, depth: u32, mut alpha: i32, beta: i32, ply: u32) -> i32 {
        self.nodes += 1;
        if self.out_of_budget() {
            return 0;
        }
        if let Some(score) = Self::terminal(pos, ply) {
            return score;
        }
        let key = key(pos);
        if self.repeats && self.path.contains(&key) {
            return 0;
        }
        if depth == 0 {
            return pos.evaluate();
        }
        let hint = match self.table.get(&key) {
            Some(entry) if entry.depth >= depth => {
                let score = from_table(entry.score, ply);
                match entry.bound {
                    Bound::Exact => return score,
                    Bound::Lower if score >= beta => return score,
                    Bound::Upper if score <= alpha => return score,
                    _ => entry.best.clone(),
                }
            }
            Some(entry) => entry.best.clone(),
            None => None,
        };
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return pos.evaluate();
        }
        let children = self.ordered(pos, ply, moves, hint.as_ref());
        let original_alpha = alpha;
        let mut best_score = -INFINITY;
        let mut best_move = None;
        self.path.push(key);
        for child in children {
            let score = if depth == 1 {
                child.value
            } else {
                -self.negamax(&child.next, depth - 1, -beta, -alpha, ply + 1)
            };
            if self.stopped {
                break;
            }
            if score > best_score {
                best_score = score;
                best_move = Some(child.mv);
            }
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        self.path.pop();
        if self.stopped {
            return 0;
        }
        let bound = if best_score <= original_alpha {
            Bound::Upper
        } else if best_score >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        if self.table.len() >= TABLE_LIMIT {
            self.table.clear();
        }
        self.table.insert(
            key,
            Entry {
                depth,
                score: to_table(best_score, ply),
                bound,
                best: best_move,
            },
        );
        best_score
    }
}

struct Child<P: Evaluate> {
    mv: P::Move,
    next: P,
    /// The child's static value for the side moving into it.
    value: i32,
    /// Whether this was the best move of an earlier search.
    first: bool,
}

/// Mate scores are stored relative to the node, so a table hit at another ply stays correct.
fn to_table(score: i32, ply: u32) -> i32 {
    if score > MATE_BOUND {
        score + ply as i32
    } else if score < -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn from_table(score: i32, ply: u32) -> i32 {
    if score > MATE_BOUND {
        score - ply as i32
    } else if score < -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// Searches `pos` within `limits`; `history` holds the keys of the game's earlier positions.
/// The root moves are shuffled by `rng` first, so equal moves are chosen among at random, and
/// each root score gets up to `limits.noise` of random noise (the weak levels).
pub(super) fn search<P: Evaluate>(
    pos: &P,
    history: &[u64],
    limits: &Limits,
    rng: &mut fastrand::Rng,
) -> Option<Found<P::Move>> {
    let mut moves = pos.legal_moves();
    if moves.is_empty() || pos.outcome().is_some() {
        return None;
    }
    rng.shuffle(&mut moves);
    let noise: Vec<i32> = moves
        .iter()
        .map(|_| {
            if limits.noise > 0 {
                rng.i32(-limits.noise..=limits.noise)
            } else {
                0
            }
        })
        .collect();
    let mut roots: Vec<(P::Move, P, i32)> = moves
        .into_iter()
        .zip(noise)
        .map(|(mv, noise)| {
            let next = pos.play(&mv);
            (mv, next, noise)
        })
        .collect();
    let mut searcher = Searcher::<P> {
        limits,
        deadline: limits.time.map(|time| Instant::now() + time),
        nodes: 0,
        stopped: false,
        table: HashMap::new(),
        path: history.to_vec(),
        repeats: pos.repetition_key().is_some(),
    };
    searcher.path.push(key(pos));
    // Static order for the first iteration.
    roots.sort_by_cached_key(|(_, next, noise)| -(noise - Searcher::<P>::leaf(next, 1)));
    let mut found: Option<Found<P::Move>> = None;
    for depth in 1..=limits.depth.max(1) {
        let mut alpha = -INFINITY;
        let mut scores: Vec<(usize, i32)> = Vec::with_capacity(roots.len());
        for (index, (_, next, noise)) in roots.iter().enumerate() {
            // With noise every root move needs its own exact score; without, a null window
            // around the best so far is enough.
            let floor = if limits.noise > 0 { -INFINITY } else { alpha };
            let score = noise - searcher.negamax(next, depth - 1, -INFINITY, -floor, 1);
            if searcher.stopped {
                break;
            }
            scores.push((index, score));
            alpha = alpha.max(score);
        }
        let complete = scores.len() == roots.len();
        if (complete || found.is_none())
            && let Some(&(index, score)) = scores
                .iter()
                .max_by_key(|&&(index, score)| (score, -(index as i64)))
        {
            found = Some(Found {
                mv: roots[index].0.clone(),
                score: score - roots[index].2,
                depth: if complete { depth } else { depth - 1 },
                nodes: searcher.nodes,
            });
        }
        if !complete {
            break;
        }
        // Best first for the next iteration; a stable sort keeps earlier order among equals.
        let mut order: Vec<(usize, i32)> = scores;
        order.sort_by_key(|&(_, score)| -score);
        let mut taken: Vec<Option<(P::Move, P, i32)>> = roots.into_iter().map(Some).collect();
        roots = order
            .into_iter()
            .filter_map(|(index, _)| taken[index].take())
            .collect();
        let best = found.as_ref().map_or(0, |found| found.score);
        if best.abs() > MATE_BOUND {
            break;
        }
    }
    if found.is_none() {
        // Not even one root move finished (a budget of almost nothing): play the first in the
        // static order, which is still a legal move.
        found = roots.into_iter().next().map(|(mv, _, _)| Found {
            mv,
            score: 0,
            depth: 0,
            nodes: searcher.nodes,
        });
    }
    if let Some(found) = &mut found {
        found.nodes = searcher.nodes;
    }
    found
}
