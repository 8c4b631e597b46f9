//! Iterative deepening principal-variation search over any game's [`Position`].
//!
//! - Each iteration searches the root moves best first; from depth 4 on it starts with an
//!   aspiration window around the last score and widens it when the score falls outside.
//! - Inside the tree: principal-variation search (null windows after the first move, re-searched
//!   when they beat alpha), a transposition table ([`Table`]), checks extended by a ply,
//!   reverse futility and null-move pruning where the game allows a pass as an estimate
//!   ([`Evaluate::null_move`]); near the horizon, late quiet moves and quiet moves that cannot
//!   lift a position far below alpha are skipped unless they give check; late quiet moves are
//!   searched shallower (logarithmic late-move reductions) and again at full depth if they
//!   beat alpha; at the horizon a quiescence search of captures and promotions
//!   ([`Evaluate::noisy_moves`]), or of every legal move where the side to move may not stand
//!   on the static value (in check, by default: [`Evaluate::may_stand_pat`]).
//! - Two settings per game: whether checks are forcing ([`Evaluate::FORCING_CHECKS`]: extended,
//!   and never pruned near the horizon, neither a side in check nor a move that gives check)
//!   and how deep the quiescence search goes ([`Evaluate::QUIESCENCE_PLIES`]).
//! - Move order: the table's move, then captures and promotions by what they win, the two killer
//!   moves of the ply, then quiet moves by their history (raised for a quiet move that cuts
//!   off, lowered for the quiet moves tried before it).
//! - Ends: [`Evaluate::quick_outcome`] is asked at every node, before anything is pruned or
//!   stood on; in the full search a position without legal moves is scored by its end too.
//!   Chak's is its altar alone, so a Chak node generates its moves once; a Chak side that
//!   cannot move (and so has lost) is seen only where its moves are generated, not by a
//!   pruning decision or a quiescence stand-pat. Other games' ends are their whole `outcome`.
//! - The budget (depth, nodes, time, a stop flag) is checked inside the search; completed
//!   iterations count, and of an unfinished one only a root move searched to the end that beat
//!   the last best move (or, when the first iteration did not complete, the best root move so
//!   far).
//!
//! Every choice depends only on the position, the history, the limits and the seed, so a search
//! bounded by depth or nodes is reproducible.
//!
//! [`Position`]: crate::rules::Position

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::eval::Evaluate;
use super::table::{Bound, Entry, Table};
use super::{Limits, MATE};
use crate::rules::Outcome;

/// Scores beyond this are mates.
pub(super) const MATE_BOUND: i32 = MATE - 1_000;
const INFINITY: i32 = MATE + 1;
/// How often (in nodes) the clock and the stop flag are read.
const CHECK_EVERY: u64 = 512;
/// The deepest ply the search goes to, quiescence included.
const MAX_PLY: usize = 96;
/// Slots of the history table per side.
const HISTORY: usize = 8192;
/// The first aspiration window's half width.
const ASPIRATION: i32 = 40;
/// Quiet moves that need not be searched at full depth: after this many moves, reduced.
const LMR_AFTER: usize = 3;
/// The bound of a history score either way.
const HISTORY_MAX: i32 = 1 << 20;
/// The deepest remaining depth at which late quiet moves are pruned.
const PRUNE_DEPTH: i32 = 3;
/// Futility: how far below alpha, per ply of remaining depth, a position's static value
/// leaves a quiet move no hope of reaching it.
const FUTILITY_MARGIN: i32 = 110;

/// How many plies a late quiet move is reduced by: more the deeper the search and the later
/// the move (the usual logarithmic formula).
fn reduction(depth: i32, index: usize) -> i32 {
    let depth = f64::from(depth.max(1));
    let index = index.max(1) as f64;
    (0.75 + depth.ln() * index.ln() / 2.25) as i32
}

/// One completed iteration, as reported while searching.
#[derive(Debug, Clone)]
pub(super) struct Iteration<M> {
    pub depth: u32,
    pub seldepth: u32,
    pub score: i32,
    pub nodes: u64,
    pub elapsed: Duration,
    /// The principal variation, starting with the best move.
    pub pv: Vec<M>,
}

/// What a search found: the move, its score for the side to move, the depth reached.
#[derive(Debug, Clone)]
pub(super) struct Found<M> {
    pub mv: M,
    pub score: i32,
    pub depth: u32,
    pub nodes: u64,
}

/// What steers a search from outside: a flag another thread sets to stop it, and a callback
/// for each completed iteration.
pub(super) struct Control<'a, M> {
    pub stop: Option<&'a AtomicBool>,
    pub report: Option<Report<'a, M>>,
}

/// The callback told of each completed iteration.
pub(super) type Report<'a, M> = &'a mut dyn FnMut(&Iteration<M>);

struct Root<P: Evaluate> {
    mv: P::Move,
    next: P,
}

struct Searcher<'a, P: Evaluate> {
    limits: &'a Limits,
    started: Instant,
    deadline: Option<Instant>,
    stop: Option<&'a AtomicBool>,
    nodes: u64,
    stopped: bool,
    table: &'a mut Table,
    /// Keys of the game's earlier positions and of the current search path: a position met
    /// again counts as a draw (the game has a repetition rule whenever `repeats` is true).
    path: Vec<u64>,
    repeats: bool,
    killers: Vec<[u32; 2]>,
    history: Vec<i32>,
    seldepth: usize,
    _game: std::marker::PhantomData<P>,
}

/// How far a search with [`Limits::noise`] `noise` misjudges the position with key `key`:
/// from `-noise` to `noise`, most often near 0 (the sum of two even draws), always the same
/// for the same position and noise, so a search stays reproducible and its table consistent;
/// different noises err differently.
fn misjudgement(key: u64, noise: i32) -> i32 {
    let noise = noise.unsigned_abs();
    let bits = mix(key ^ u64::from(noise).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let span = u64::from(noise) + 1;
    let low = (bits & 0xFFFF_FFFF) % span;
    let high = (bits >> 32) % span;
    // Both below `span`, which is at most 2^31: the sum fits.
    (low + high) as i32 - noise as i32
}

/// splitmix64's finaliser: every bit of the result depends on every bit of `bits`.
fn mix(mut bits: u64) -> u64 {
    bits = (bits ^ (bits >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    bits = (bits ^ (bits >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    bits ^ (bits >> 31)
}

/// The value of an ended game for the side to move at `ply`.
fn ended<P: Evaluate>(pos: &P, outcome: &Outcome, ply: usize) -> i32 {
    let mate = MATE - ply as i32;
    match outcome.winner {
        None => 0,
        Some(winner) if winner == pos.turn() => mate,
        Some(_) => -mate,
    }
}

impl<'a, P: Evaluate> Searcher<'a, P> {
    /// A search from `pos`, after the game's earlier positions `history`.
    fn new(
        pos: &P,
        history: &[u64],
        limits: &'a Limits,
        table: &'a mut Table,
        stop: Option<&'a AtomicBool>,
    ) -> Searcher<'a, P> {
        let started = Instant::now();
        let mut path = history.to_vec();
        path.push(pos.key());
        Searcher {
            limits,
            started,
            deadline: limits.time.map(|time| started + time),
            stop,
            nodes: 0,
            stopped: false,
            table,
            path,
            repeats: pos.repetition_key().is_some(),
            killers: vec![[0; 2]; MAX_PLY + 2],
            history: vec![0; 2 * HISTORY],
            seldepth: 0,
            _game: std::marker::PhantomData,
        }
    }

    /// The static value of `pos` as this search judges it: the game's evaluation, off by the
    /// limits' [`Limits::noise`] at most.
    fn evaluate(&self, pos: &P) -> i32 {
        let value = pos.evaluate();
        match self.limits.noise {
            0 => value,
            noise => value + misjudgement(pos.key(), noise),
        }
    }

    /// The static value of a position: its end if it ended, else its judgement (also what a
    /// position without legal moves is worth: it has always ended).
    fn leaf(&self, pos: &P, ply: usize) -> i32 {
        pos.outcome()
            .map_or_else(|| self.evaluate(pos), |outcome| ended(pos, &outcome, ply))
    }

    fn out_of_budget(&mut self) -> bool {
        if !self.stopped {
            if self.nodes >= self.limits.nodes {
                self.stopped = true;
            } else if self.nodes.is_multiple_of(CHECK_EVERY) {
                let flagged = self.stop.is_some_and(|stop| stop.load(Ordering::Relaxed));
                let late = self
                    .deadline
                    .is_some_and(|deadline| Instant::now() >= deadline);
                self.stopped = flagged || late;
            }
        }
        self.stopped
    }

    /// Counts a visited node: its score when the search need look no further (the budget ran
    /// out, or the game is known to have ended there without generating moves).
    fn enter(&mut self, pos: &P, ply: usize) -> Option<i32> {
        self.nodes += 1;
        if self.out_of_budget() {
            return Some(0);
        }
        self.seldepth = self.seldepth.max(ply);
        pos.quick_outcome().map(|outcome| ended(pos, &outcome, ply))
    }

    fn history_slot(turn_index: usize, id: u32) -> usize {
        turn_index * HISTORY + (id as usize % HISTORY)
    }

    /// The moves best first, each with what it wins at once (`None`: a quiet move).
    fn order(
        &self,
        pos: &P,
        moves: Vec<P::Move>,
        hint: u32,
        ply: usize,
    ) -> Vec<(P::Move, u32, Option<i32>)> {
        let side = pos.turn().index();
        let killers = self.killers[ply];
        let mut captures = Vec::new();
        let mut scored: Vec<(i64, P::Move, u32, Option<i32>)> = moves
            .into_iter()
            .map(|mv| {
                let id = P::move_id(&mv);
                // A capture met again with another quiet part is a quiet move.
                let gain = pos
                    .gain(&mv)
                    .filter(|_| first_capture(pos, &mv, &mut captures));
                let rank = if id == hint {
                    i64::MAX
                } else if let Some(gain) = gain {
                    1 << 40 | i64::from(gain)
                } else if id == killers[0] {
                    1 << 39
                } else if id == killers[1] {
                    1 << 38
                } else {
                    i64::from(self.history[Self::history_slot(side, id)])
                };
                (rank, mv, id, gain)
            })
            .collect();
        // A stable sort: equal moves keep the rules core's order, so the search is reproducible.
        scored.sort_by_key(|&(rank, ..)| std::cmp::Reverse(rank));
        scored
            .into_iter()
            .map(|(_, mv, id, gain)| (mv, id, gain))
            .collect()
    }

    /// A quiet move cut off the search: it becomes a killer of the ply and gains history,
    /// and the quiet moves tried before it in vain lose as much.
    fn remember_quiet_cut(&mut self, side: usize, id: u32, tried: &[u32], depth: i32, ply: usize) {
        let killers = &mut self.killers[ply];
        if killers[0] != id {
            killers[1] = killers[0];
            killers[0] = id;
        }
        let bonus = depth * depth;
        let slot = &mut self.history[Self::history_slot(side, id)];
        *slot = (*slot + bonus).min(HISTORY_MAX);
        for &other in tried {
            let slot = &mut self.history[Self::history_slot(side, other)];
            *slot = (*slot - bonus).max(-HISTORY_MAX);
        }
    }

    #[allow(clippy::too_many_lines)]
    fn negamax(
        &mut self,
        pos: &P,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
        null_ok: bool,
    ) -> i32 {
        if depth <= 0 {
            return self.quiesce(pos, alpha, beta, ply, 0);
        }
        if let Some(score) = self.enter(pos, ply) {
            return score;
        }
        let key = pos.key();
        if self.repeats && self.path.contains(&key) {
            return 0;
        }
        if ply >= MAX_PLY {
            return self.evaluate(pos);
        }
        // No mate found deeper can beat one already known nearer the root.
        let alpha = alpha.max(-MATE + ply as i32);
        let beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }
        let pv_node = beta - alpha > 1;
        let entry = self.table.probe(key);
        if let Some(entry) = entry
            && !pv_node
            && i32::from(entry.depth) >= depth
        {
            let score = from_table(entry.score, ply);
            match entry.bound {
                Bound::Exact => return score,
                Bound::Lower if score >= beta => return score,
                Bound::Upper if score <= alpha => return score,
                _ => {}
            }
        }
        let hint = entry.map_or(0, |entry| entry.best);
        let in_check = pos.in_check();
        let depth = if in_check && P::FORCING_CHECKS {
            depth + 1
        } else {
            depth
        };
        // The static value, where pruning may use it: a side in check is pruned only where
        // checks are not forcing, and then only move by move.
        let eval = (!pv_node && (!in_check || !P::FORCING_CHECKS)).then(|| self.evaluate(pos));
        if let Some(eval) = eval
            && !in_check
            && beta.abs() < MATE_BOUND
        {
            // Far above beta near the horizon: one quiet move will not undo that.
            if depth <= 3 && eval - 120 * depth >= beta {
                return eval;
            }
            // If passing still holds beta, a real move will too (where passing is fair).
            if null_ok
                && depth >= 3
                && eval >= beta
                && let Some(passed) = pos.null_move()
            {
                let reduction = 2 + depth / 4;
                self.path.push(key);
                let score = -self.negamax(
                    &passed,
                    depth - 1 - reduction,
                    -beta,
                    -beta + 1,
                    ply + 1,
                    false,
                );
                self.path.pop();
                if self.stopped {
                    return 0;
                }
                if score >= beta {
                    return if score >= MATE_BOUND { beta } else { score };
                }
            }
        }
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return self.leaf(pos, ply);
        }
        let moves = self.order(pos, moves, hint, ply);
        let side = pos.turn().index();
        let original_alpha = alpha;
        let mut alpha = alpha;
        let mut best_score = -INFINITY;
        let mut best_id = 0;
        // The quiet moves searched so far, which lose history if a later quiet move cuts off.
        let mut quiets: Vec<u32> = Vec::new();
        self.path.push(key);
        for (index, (mv, id, gain)) in moves.into_iter().enumerate() {
            let child = pos.play(&mv);
            let quiet = gain.is_none() && !self.killers[ply].contains(&id);
            // Near the horizon, far from the principal variation, with a line that holds
            // already: late quiet moves, and quiet moves that cannot lift a position far below
            // alpha, are not searched unless they give a forcing check.
            if let Some(eval) = eval
                && quiet
                && depth <= PRUNE_DEPTH
                && best_score > -MATE_BOUND
                && (index >= 3 + (depth * depth) as usize
                    || eval + FUTILITY_MARGIN * depth <= alpha)
                && !(P::FORCING_CHECKS && child.in_check())
            {
                continue;
            }
            let score = if index == 0 {
                -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1, true)
            } else {
                let reduction = if depth >= 3 && index >= LMR_AFTER && quiet && !in_check {
                    reduction(depth, index).clamp(0, depth - 2)
                } else {
                    0
                };
                let mut score = -self.negamax(
                    &child,
                    depth - 1 - reduction,
                    -alpha - 1,
                    -alpha,
                    ply + 1,
                    true,
                );
                if score > alpha && reduction > 0 {
                    score = -self.negamax(&child, depth - 1, -alpha - 1, -alpha, ply + 1, true);
                }
                if score > alpha && score < beta {
                    score = -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1, true);
                }
                score
            };
            if self.stopped {
                self.path.pop();
                return 0;
            }
            if score > best_score {
                best_score = score;
                best_id = id;
            }
            alpha = alpha.max(score);
            if alpha >= beta {
                if gain.is_none() {
                    self.remember_quiet_cut(side, id, &quiets, depth, ply);
                }
                break;
            }
            if gain.is_none() {
                quiets.push(id);
            }
        }
        self.path.pop();
        let bound = if best_score <= original_alpha {
            Bound::Upper
        } else if best_score >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.table.store(Entry {
            key,
            score: to_table(best_score, ply),
            best: if bound == Bound::Upper { 0 } else { best_id },
            depth: depth.clamp(0, i32::from(u8::MAX)) as u8,
            bound,
        });
        best_score
    }

    /// Captures and promotions only ([`Evaluate::noisy_moves`]), until the position is quiet
    /// or `depth` plies reach the game's [`Evaluate::QUIESCENCE_PLIES`]: the side to move may
    /// also stand on the static value. Where it may not ([`Evaluate::may_stand_pat`]: in check,
    /// by default) every legal move is searched, and none means the game ended.
    fn quiesce(&mut self, pos: &P, mut alpha: i32, beta: i32, ply: usize, depth: u32) -> i32 {
        if let Some(score) = self.enter(pos, ply) {
            return score;
        }
        if ply >= MAX_PLY || depth >= P::QUIESCENCE_PLIES {
            return self.evaluate(pos);
        }
        // The static value the side to move may stand on, where it may.
        let stand = pos.may_stand_pat().then(|| self.evaluate(pos));
        let mut moves: Vec<(i32, P::Move)> = match stand {
            Some(stand) if stand >= beta => return stand,
            Some(_) => pos
                .noisy_moves()
                .into_iter()
                .map(|(mv, gain)| (gain, mv))
                .collect(),
            None => {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    return self.leaf(pos, ply);
                }
                moves
                    .into_iter()
                    .map(|mv| (pos.gain(&mv).unwrap_or(0), mv))
                    .collect()
            }
        };
        let mut best = stand.unwrap_or(-INFINITY);
        alpha = alpha.max(best);
        moves.sort_by_key(|&(gain, _)| std::cmp::Reverse(gain));
        for (gain, mv) in moves {
            // Even winning this much for nothing would not reach alpha.
            if stand.is_some_and(|stand| stand + gain + 200 <= alpha) {
                continue;
            }
            let score = -self.quiesce(&pos.play(&mv), -beta, -alpha, ply + 1, depth + 1);
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                if score >= beta {
                    return score;
                }
                alpha = alpha.max(score);
            }
        }
        best
    }

    /// One pass over the root moves within (`alpha`, `beta`): the best score and its move's
    /// index, or `None` when the budget ran out before the first move was searched.
    fn root(
        &mut self,
        roots: &[Root<P>],
        depth: i32,
        mut alpha: i32,
        beta: i32,
    ) -> Option<(i32, usize)> {
        let mut best: Option<(i32, usize)> = None;
        for (index, root) in roots.iter().enumerate() {
            let score = if index == 0 {
                -self.negamax(&root.next, depth - 1, -beta, -alpha, 1, true)
            } else {
                let score = -self.negamax(&root.next, depth - 1, -alpha - 1, -alpha, 1, true);
                if score > alpha && score < beta {
                    -self.negamax(&root.next, depth - 1, -beta, -alpha, 1, true)
                } else {
                    score
                }
            };
            if self.stopped {
                break;
            }
            if best.is_none_or(|(best_score, _)| score > best_score) {
                best = Some((score, index));
            }
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        best
    }

    /// The principal variation from the table, starting with `first` played from `pos`.
    fn pv(&self, pos: &P, first: &P::Move, depth: u32) -> Vec<P::Move> {
        let mut line = vec![first.clone()];
        let mut current = pos.play(first);
        let mut seen = vec![pos.key(), current.key()];
        while line.len() < depth as usize && current.outcome().is_none() {
            let Some(entry) = self.table.probe(current.key()) else {
                break;
            };
            let Some(mv) = current
                .legal_moves()
                .into_iter()
                .find(|mv| entry.best != 0 && P::move_id(mv) == entry.best)
            else {
                break;
            };
            current = current.play(&mv);
            line.push(mv);
            let key = current.key();
            if seen.contains(&key) {
                break;
            }
            seen.push(key);
        }
        line
    }
}

/// Whether `mv` is the first move of its capture in `seen` (which it joins), where the game's
/// moves join a capture with a quiet part ([`Evaluate::capture_id`]); always for other moves.
pub(super) fn first_capture<P: Evaluate>(pos: &P, mv: &P::Move, seen: &mut Vec<u32>) -> bool {
    match pos.capture_id(mv) {
        Some(capture) if seen.contains(&capture) => false,
        Some(capture) => {
            seen.push(capture);
            true
        }
        None => true,
    }
}

/// Mate scores are stored relative to the node, so a table hit at another ply stays correct.
/// Whether `pos` is quiet: the side to move may stand on its static value, and the capture
/// search ([`Searcher::quiesce`]) finds nothing better for either side. Its static value is
/// then what the position is worth as far as captures go (the positions an evaluation is
/// fitted to). A capture search longer than `nodes` counts as not quiet.
pub(super) fn is_quiet<P: Evaluate>(pos: &P, nodes: u64, table: &mut Table) -> bool {
    if pos.outcome().is_some() || !pos.may_stand_pat() {
        return false;
    }
    let limits = Limits {
        nodes,
        ..Limits::default()
    };
    let mut searcher = Searcher::new(pos, &[], &limits, table, None);
    let value = searcher.quiesce(pos, -INFINITY, INFINITY, 0, 0);
    !searcher.stopped && value == pos.evaluate()
}

fn to_table(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score + ply as i32
    } else if score < -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn from_table(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score - ply as i32
    } else if score < -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// Searches `pos` within `limits`; `history` holds the keys of the game's earlier positions.
/// The root moves are shuffled by `rng` first, so equal moves are chosen among at random.
pub(super) fn search<P: Evaluate>(
    pos: &P,
    history: &[u64],
    limits: &Limits,
    rng: &mut fastrand::Rng,
    table: &mut Table,
    control: Control<'_, P::Move>,
) -> Option<Found<P::Move>> {
    let mut moves = pos.legal_moves();
    if moves.is_empty() || pos.outcome().is_some() {
        return None;
    }
    rng.shuffle(&mut moves);
    if limits.blunders > 0 && rng.u16(0..1_000) < limits.blunders {
        // A move picked at random (the first of the shuffled moves), though never in place of
        // a win on the spot.
        let mover = pos.turn();
        let win = moves.iter().position(|mv| {
            pos.play(mv)
                .outcome()
                .is_some_and(|outcome| outcome.winner == Some(mover))
        });
        return Some(Found {
            mv: moves.swap_remove(win.unwrap_or(0)),
            score: if win.is_some() { MATE - 1 } else { 0 },
            depth: 0,
            nodes: 0,
        });
    }
    let mut roots: Vec<Root<P>> = moves
        .into_iter()
        .map(|mv| {
            let next = pos.play(&mv);
            Root { mv, next }
        })
        .collect();
    let mut searcher = Searcher::new(pos, history, limits, table, control.stop);
    // Static order for the first iteration.
    roots.sort_by_cached_key(|root| searcher.leaf(&root.next, 1));
    let mut report = control.report;
    let mut found: Option<Found<P::Move>> = None;
    for depth in 1..=limits.depth.clamp(1, MAX_PLY as u32 - 1) {
        if found.is_some()
            && limits
                .soft_time
                .is_some_and(|soft| searcher.started.elapsed() >= soft)
        {
            break;
        }
        let last = found.as_ref().map_or(0, |found| found.score);
        let mut window = ASPIRATION;
        let (mut alpha, mut beta) = if depth >= 4 && last.abs() < MATE_BOUND {
            (last - window, last + window)
        } else {
            (-INFINITY, INFINITY)
        };
        let result = loop {
            let result = searcher.root(&roots, depth as i32, alpha, beta);
            if searcher.stopped {
                // An unfinished iteration still counts where a root move other than the last
                // best one was searched to the end and beat it (a score above alpha is exact
                // or a lower bound): that move is better at this depth.
                break result
                    .filter(|&(score, index)| found.is_none() || (index != 0 && score > alpha));
            }
            let Some((score, index)) = result else {
                break None;
            };
            if score <= alpha && alpha > -INFINITY {
                alpha = (alpha - window).max(-INFINITY);
            } else if score >= beta && beta < INFINITY {
                beta = (beta + window).min(INFINITY);
            } else {
                break Some((score, index));
            }
            window *= 3;
        };
        let Some((score, index)) = result else {
            break;
        };
        let complete = !searcher.stopped;
        // The best move first for the next iteration; the others keep their order.
        let best = roots.remove(index);
        roots.insert(0, best);
        let root = &roots[0];
        found = Some(Found {
            mv: root.mv.clone(),
            score,
            depth: if complete { depth } else { depth - 1 },
            nodes: searcher.nodes,
        });
        if !complete {
            break;
        }
        if let Some(report) = report.as_mut() {
            report(&Iteration {
                depth,
                seldepth: searcher.seldepth as u32,
                score,
                nodes: searcher.nodes,
                elapsed: searcher.started.elapsed(),
                pv: searcher.pv(pos, &root.mv, depth),
            });
        }
        if score.abs() > MATE_BOUND {
            break;
        }
    }
    if found.is_none() {
        // Not even one root move finished (a budget of almost nothing): play the first in the
        // static order, which is still a legal move.
        found = roots.into_iter().next().map(|root| Found {
            mv: root.mv,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A misjudgement stays within the noise either way, is the same every time for a
    /// position, differs between positions and between noises, and centres on none.
    #[test]
    fn a_misjudgement_is_bounded_repeatable_and_centred() {
        for noise in [1, 7, 100, 1_000] {
            let errors: Vec<i32> = (0..10_000u64)
                .map(|key| misjudgement(key.wrapping_mul(0x2545_F491_4F6C_DD1D), noise))
                .collect();
            assert!(errors.iter().all(|error| error.abs() <= noise), "{noise}");
            // The extremes are rare (one in (noise + 1)^2 each): near them is reached.
            let (least, most) = (errors.iter().min(), errors.iter().max());
            assert!(
                least <= Some(&(-noise * 9 / 10)) && most >= Some(&(noise * 9 / 10)),
                "{noise}: {least:?} to {most:?}"
            );
            let mean = errors.iter().map(|&e| f64::from(e)).sum::<f64>() / errors.len() as f64;
            assert!(
                mean.abs() < f64::from(noise) / 20.0 + 0.1,
                "{noise}: mean {mean}"
            );
            // Small errors are commoner than large ones (the sum of two even draws: three in
            // four within half the noise, where evenly drawn errors would be one in two).
            let small = errors.iter().filter(|e| e.abs() <= noise / 2).count();
            assert!(
                noise < 7 || small > errors.len() * 13 / 20,
                "{noise}: {small}"
            );
        }
        assert_eq!(misjudgement(42, 100), misjudgement(42, 100));
        assert_ne!(
            (0..50)
                .map(|key| misjudgement(key, 100))
                .collect::<Vec<_>>(),
            (0..50)
                .map(|key| misjudgement(key, 101))
                .collect::<Vec<_>>()
        );
    }
}
