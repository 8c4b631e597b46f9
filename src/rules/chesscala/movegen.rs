//! Move generation, making moves, checks and the end-of-turn rules.
//!
//! One generator ([`Chesscala::generate`]) enumerates the legal turns into a [`Sink`]. Listing
//! turns, playing perft and bulk counting at the last perft level are three sinks over the same
//! generator, so they cannot disagree. Sowings are handed to the sink as whole groups (origin,
//! lifted pieces, drop squares): a listing sink expands every distinct order, a counting sink
//! uses the multiset-permutation count. The sowings that may follow a first move are handed
//! over with the position before and after it, so that the counting sink can recount only the
//! stacks that move changed; it uses the same per-stack rule ([`Chesscala::orders_at`]).

use super::board::{
    self, BISHOP, BOMB, DIRECTIONS, FULL, HAMMER, KING, KNIGHT, KNIGHT_VECTORS, LETTERS, MAN, PAWN,
    QUEEN, ROOK, Stack, code, color_of, field_partner, kind_of, offset,
};
use super::{Chesscala, GameResult};
use crate::rules::Color;

/// Files a sowing may start from on White's first turn (CC-T3: b, d, e, f). Recommendation
/// (CC-A10): a king step and a double move count as sowing from their file.
const FIRST_TURN_FILES: [bool; 6] = [false, true, false, true, true, true];

/// Whether a sowing move may start on `sq` this turn (the CC-T3 first-turn restriction).
pub(super) fn may_start_on(pos: &Chesscala, sq: u8) -> bool {
    !pos.first || FIRST_TURN_FILES[usize::from(board::file(sq))]
}

/// Recommendation (CC-T4): the (attacking piece, own king) pairs that make "multiple checks".
pub const MULTIPLE_CHECKS: u32 = 2;

/// Recommendation (CC-S5, CC-A9): a pawn capturing onto its last rank promotes too.
const PROMOTE_ON_CAPTURE: bool = true;

/// Recommendation (CC-S4): the double move needs control of the pawn's stack.
const DOUBLE_MOVE_NEEDS_CONTROL: bool = true;

/// One move of a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mv {
    /// No move (the missing second move of a one-move turn).
    None,
    /// CC-T5: nothing to sow at the start of the turn.
    Pass,
    /// A sowing (CC-S1/S2): the lifted pieces in drop order.
    Sow { from: u8, order: [u8; FULL], n: u8 },
    /// A king step to the other square of its field (CC-S3).
    Step { from: u8, to: u8 },
    /// A pawn double move (CC-S4).
    Double { from: u8, to: u8 },
    /// A capture: `landing` is where the capturer ends (the target except for the Hammer and
    /// the Bomb, which stays on `from` = `target`).
    Capture {
        piece: u8,
        from: u8,
        target: u8,
        captured: u8,
        landing: u8,
    },
}

/// A sowing with every order at once: the origin, the lifted pieces (sorted) and where they drop.
#[derive(Debug, Clone, Copy)]
pub struct Group {
    pub from: u8,
    pub pieces: [u8; FULL],
    pub n: usize,
    pub drops: [u8; FULL],
}

/// One whole turn: one or two moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Turn {
    pub(super) first: Mv,
    pub(super) second: Mv,
}

impl Turn {
    pub(super) const fn one(mv: Mv) -> Turn {
        Turn {
            first: mv,
            second: Mv::None,
        }
    }

    /// `mv` after `prefix`, or alone when `prefix` is [`Mv::None`].
    pub(super) const fn after(prefix: Mv, mv: Mv) -> Turn {
        match prefix {
            Mv::None => Turn::one(mv),
            _ => Turn {
                first: prefix,
                second: mv,
            },
        }
    }

    /// The turn's capture alone, as a turn of one move: two turns that make the same capture
    /// (and differ in the sowing around it) give the same one.
    #[must_use]
    pub fn capture(&self) -> Option<Turn> {
        self.moves()
            .find(|mv| matches!(mv, Mv::Capture { .. }))
            .map(Turn::one)
    }

    /// The letter (upper case) of the first piece the turn captures.
    #[must_use]
    pub fn captured(&self) -> Option<char> {
        self.moves().find_map(|mv| match mv {
            Mv::Capture { captured, .. } => {
                Some(char::from(LETTERS[usize::from(kind_of(captured))]))
            }
            _ => None,
        })
    }

    /// The moves of the turn in order.
    pub(super) fn moves(&self) -> impl Iterator<Item = Mv> {
        [self.first, self.second]
            .into_iter()
            .filter(|m| *m != Mv::None)
    }
}

/// Receives the legal turns from the generator.
pub trait Sink {
    /// One turn.
    fn turn(&mut self, turn: Turn);

    /// Every order of a sowing group, after `prefix` (or alone).
    fn sowing(&mut self, prefix: Mv, group: &Group) {
        for_each_order(group, |mv| self.turn(Turn::after(prefix, mv)));
    }

    /// Every sowing move of `child`, the position after the move `first` in `parent`, as the
    /// turn's second move; returns whether there was any.
    fn sowings_after(&mut self, parent: &Chesscala, child: &Chesscala, first: Mv) -> bool
    where
        Self: Sized,
    {
        let _ = parent;
        child.sowing_moves(first, self, false)
    }

    /// Every CC-T2 turn: an order of `group` (which lifts an own Bomb), then a sown Bomb
    /// capturing in its landing stack. `pos` is the position before the sowing.
    fn bomb_followups(&mut self, pos: &Chesscala, group: &Group) {
        let bomb = code(pos.side, BOMB);
        let enemy = pos.side.other();
        for_each_order(group, |sow| {
            let Mv::Sow { order, .. } = sow else { return };
            for (&piece, &at) in order[..group.n].iter().zip(&group.drops) {
                if piece != bomb {
                    continue;
                }
                for captured in pos.board[usize::from(at)].capturable(enemy) {
                    let capture = Mv::Capture {
                        piece: bomb,
                        from: at,
                        target: at,
                        captured,
                        landing: at,
                    };
                    self.turn(Turn {
                        first: sow,
                        second: capture,
                    });
                }
            }
        });
    }
}

/// Calls `f` with every distinct drop order of `group` (lexicographic next permutation, which
/// skips repeated orders of identical pieces).
pub fn for_each_order(group: &Group, mut f: impl FnMut(Mv)) {
    let n = group.n;
    let mut order = group.pieces;
    loop {
        f(Mv::Sow {
            from: group.from,
            order,
            n: n as u8,
        });
        // Next permutation of order[..n].
        let s = &mut order[..n];
        let Some(i) = (1..n).rev().find(|&i| s[i - 1] < s[i]) else {
            return;
        };
        let j = (i..n)
            .rev()
            .find(|&j| s[j] > s[i - 1])
            .expect("s[i] > s[i-1] exists");
        s.swap(i - 1, j);
        s[i..].reverse();
    }
}

/// The number of distinct orders of `pieces` (sorted): n! / Π multiplicity!.
pub fn orders(pieces: &[u8]) -> u64 {
    const FACT: [u64; 5] = [1, 1, 2, 6, 24];
    let mut total = FACT[pieces.len()];
    let mut run = 1;
    for i in 1..=pieces.len() {
        if i < pieces.len() && pieces[i] == pieces[i - 1] {
            run += 1;
        } else {
            total /= FACT[run];
            run = 1;
        }
    }
    total
}

/// Collects the turns into a list.
pub struct Collect(pub Vec<Turn>);

impl Sink for Collect {
    fn turn(&mut self, turn: Turn) {
        self.0.push(turn);
    }
}

/// Counts the turns without building them.
pub struct Count {
    pub total: u64,
    /// The side to move's sowing orders in the position being counted: the generator hands
    /// them over (without a prefix) before any capture.
    orders_here: u64,
    /// The same per origin square.
    orders_from: [u64; board::SQUARES],
    /// Whether every circuit has five non-full squares in the position being counted.
    roomy_here: Option<bool>,
}

impl Default for Count {
    fn default() -> Count {
        Count {
            total: 0,
            orders_here: 0,
            orders_from: [0; board::SQUARES],
            roomy_here: None,
        }
    }
}

impl Sink for Count {
    fn turn(&mut self, _: Turn) {
        self.total += 1;
    }

    fn sowings_after(&mut self, parent: &Chesscala, child: &Chesscala, first: Mv) -> bool {
        // A move changes the stacks on a few squares only. The other stacks keep their sowing
        // orders unless a change of fullness decides whether their drops still fit, which it
        // cannot while every circuit keeps five non-full squares (a sowing needs at most four).
        let (changed, n) = changed_squares(parent, first);
        let changed = &changed[..n];
        let roomy = *self.roomy_here.get_or_insert_with(|| parent.roomy());
        let fullness_changed = changed
            .iter()
            .any(|&sq| parent.stack(sq).is_full() != child.stack(sq).is_full());
        if !roomy || (fullness_changed && !child.roomy()) {
            let before = self.total;
            child.sowing_moves(first, self, false);
            return self.total > before;
        }
        let mut orders = self.orders_here;
        for (i, &sq) in changed.iter().enumerate() {
            if !changed[..i].contains(&sq) {
                orders = orders + child.orders_at(sq) - self.orders_from[usize::from(sq)];
            }
        }
        let mut singles = 0;
        child.single_sowing_moves(|_| singles += 1);
        self.total += orders + singles;
        orders + singles > 0
    }

    fn sowing(&mut self, prefix: Mv, group: &Group) {
        let n = orders(&group.pieces[..group.n]);
        if prefix == Mv::None {
            self.orders_here += n;
            self.orders_from[usize::from(group.from)] = n;
        }
        self.total += n;
    }

    fn bomb_followups(&mut self, pos: &Chesscala, group: &Group) {
        // Every position j of the order holds the Bomb in orders(pieces - Bomb) orders, so the
        // follow-ups sum to that count times the capture choices over all drop squares.
        let bomb = code(pos.side, BOMB);
        let pieces = &group.pieces[..group.n];
        let Some(at) = pieces.iter().position(|&p| p == bomb) else {
            return;
        };
        let mut rest = [0; FULL];
        rest[..at].copy_from_slice(&pieces[..at]);
        rest[at..group.n - 1].copy_from_slice(&pieces[at + 1..]);
        let enemy = pos.side.other();
        let choices: u64 = group.drops[..group.n]
            .iter()
            .map(|&d| pos.board[usize::from(d)].capturable(enemy).count() as u64)
            .sum();
        self.total += orders(&rest[..group.n - 1]) * choices;
    }
}

/// The squares whose stacks `mv` (a move of `pos`'s side to move) changes, and their number.
fn changed_squares(pos: &Chesscala, mv: Mv) -> ([u8; FULL + 1], usize) {
    let mut squares = [0; FULL + 1];
    let n = match mv {
        Mv::None | Mv::Pass => 0,
        Mv::Sow { from, n, .. } => {
            let n = usize::from(n);
            squares[0] = from;
            let drops = pos
                .drops(from, n)
                .expect("a legal sowing has its drop squares");
            squares[1..=n].copy_from_slice(&drops[..n]);
            n + 1
        }
        Mv::Step { from, to } | Mv::Double { from, to } => {
            squares[..2].copy_from_slice(&[from, to]);
            2
        }
        Mv::Capture {
            from,
            target,
            landing,
            ..
        } => {
            squares[..3].copy_from_slice(&[from, target, landing]);
            3
        }
    };
    (squares, n)
}

/// Passes on to `sink` only the turns after which the mover has no king in check (CC-K7). Its
/// bulk methods are the trait's defaults, so every turn is built and tested.
struct KingSafe<'a, S: Sink> {
    pos: &'a Chesscala,
    sink: &'a mut S,
}

impl<S: Sink> Sink for KingSafe<'_, S> {
    fn turn(&mut self, turn: Turn) {
        let mut next = self.pos.clone();
        for mv in turn.moves() {
            next.apply(mv);
        }
        if next.check_pairs(self.pos.side) == 0 {
            self.sink.turn(turn);
        }
    }
}

/// Hands every turn to a closure (perft's inner levels, without building a list).
pub struct Visit<F: FnMut(Turn)>(pub F);

impl<F: FnMut(Turn)> Sink for Visit<F> {
    fn turn(&mut self, turn: Turn) {
        (self.0)(turn);
    }
}

const fn sign(v: i8) -> i8 {
    if v > 0 {
        1
    } else if v < 0 {
        -1
    } else {
        0
    }
}

impl Chesscala {
    fn stack(&self, sq: u8) -> &Stack {
        &self.board[usize::from(sq)]
    }

    /// Enumerates every legal turn into `sink`: under the rule without draws (CC-K7) only the
    /// turns that leave the mover's kings out of check, tested one by one at the end.
    pub(super) fn generate<S: Sink>(&self, sink: &mut S) {
        if self.no_draws {
            self.generate_all(&mut KingSafe { pos: self, sink });
        } else {
            self.generate_all(sink);
        }
    }

    /// Perft under the rule without draws: every turn of the standard generator is played once
    /// and kept only when it leaves the mover out of check, so the test costs no second copy.
    pub(super) fn perft_no_draws(&self, depth: u32) -> u64 {
        match depth {
            0 => 1,
            1 => self.count_turns(),
            _ => {
                let me = self.side;
                let mut total = 0;
                self.generate_all(&mut Visit(|turn: Turn| {
                    let next = self.after_turn(&turn, false);
                    if next.checks(me) == 0 {
                        total += next.perft_no_draws(depth - 1);
                    }
                }));
                total
            }
        }
    }

    /// Enumerates every turn of the standard rules into `sink`.
    fn generate_all<S: Sink>(&self, sink: &mut S) {
        if self.result.is_some() {
            return;
        }
        let multi = self.checks(self.side) >= MULTIPLE_CHECKS;
        // Under multiple checks, S+C covers the CC-T2 Bomb follow-ups as ordinary captures.
        if !self.sowing_moves(Mv::None, sink, !multi) {
            sink.turn(Turn::one(Mv::Pass));
        }
        self.captures(|capture| {
            let mut child = self.clone();
            child.apply(capture);
            if !sink.sowings_after(self, &child, capture) {
                // CC-T5: no sowing is due when none exists after the capture.
                sink.turn(Turn::one(capture));
            }
            if multi {
                child.captures(|second| {
                    sink.turn(Turn {
                        first: capture,
                        second,
                    });
                });
            }
        });
        if multi {
            self.each_sowing_move(|sow| {
                let mut child = self.clone();
                child.apply(sow);
                sink.sowings_after(self, &child, sow);
                child.captures(|second| sink.turn(Turn { first: sow, second }));
            });
        }
    }

    /// The sowing groups the side to move may sow (CC-S1, CC-S2, CC-T3).
    fn sowing_groups(&self, mut f: impl FnMut(Group)) {
        for from in 0..board::SQUARES as u8 {
            if let Some(group) = self.group_at(from) {
                f(group);
            }
        }
    }

    /// The sowing of the stack on `from`, if the side to move may sow it.
    fn group_at(&self, from: u8) -> Option<Group> {
        let stack = self.stack(from);
        if stack.is_empty() || !may_start_on(self, from) || !stack.controlled_by(self.side) {
            return None;
        }
        let (pieces, n) = stack.non_kings();
        if n == 0 {
            return None;
        }
        let drops = self.drops(from, n)?;
        Some(Group {
            from,
            pieces,
            n,
            drops,
        })
    }

    /// Whether every circuit has at least five non-full squares, so that any sowing's drops fit.
    fn roomy(&self) -> bool {
        let mut non_full = [0u8; 3];
        for (sq, stack) in self.board.iter().enumerate() {
            if !stack.is_full() {
                non_full[sq % 6 / 2] += 1;
            }
        }
        non_full.iter().all(|&n| n >= 5)
    }

    /// The number of sowing orders of the stack on `from` (0 if it cannot be sown).
    fn orders_at(&self, from: u8) -> u64 {
        self.group_at(from).map_or(0, |g| orders(&g.pieces[..g.n]))
    }

    /// The first `n` non-full squares after `from` on its circuit, or `None` when the drops
    /// would come back round to the origin (§3.8 item 9).
    pub(super) fn drops(&self, from: u8, n: usize) -> Option<[u8; FULL]> {
        let mut drops = [0; FULL];
        let mut found = 0;
        let mut sq = board::next(from);
        while found < n {
            if sq == from {
                return None;
            }
            if !self.stack(sq).is_full() {
                drops[found] = sq;
                found += 1;
            }
            sq = board::next(sq);
        }
        Some(drops)
    }

    /// King steps (CC-S3) and pawn double moves (CC-S4) of the side to move.
    fn single_sowing_moves(&self, mut f: impl FnMut(Mv)) {
        let me = self.side;
        let king = code(me, KING);
        for from in board::fields(me) {
            if !self.stack(from).has(king) {
                continue;
            }
            if !may_start_on(self, from) {
                continue;
            }
            if let Some(to) = field_partner(me, from)
                && !self.stack(to).is_full()
            {
                f(Mv::Step { from, to });
            }
        }
        for mancala in 0..3 {
            if !self.has_right(me, mancala) {
                continue;
            }
            let from = board::double_start(me, mancala);
            let to = match me {
                Color::White => from + 2 * board::FILES,
                Color::Black => from - 2 * board::FILES,
            };
            if !may_start_on(self, from) {
                continue;
            }
            if self.stack(from).has(code(me, PAWN))
                && (!DOUBLE_MOVE_NEEDS_CONTROL || self.stack(from).controlled_by(me))
                && !self.stack(to).is_full()
            {
                f(Mv::Double { from, to });
            }
        }
    }

    /// Hands every sowing move after `prefix` to `sink` (with the CC-T2 Bomb follow-ups when
    /// `bomb_followups`); returns whether there was any.
    fn sowing_moves<S: Sink>(&self, prefix: Mv, sink: &mut S, bomb_followups: bool) -> bool {
        let mut any = false;
        let bomb = code(self.side, BOMB);
        self.sowing_groups(|group| {
            any = true;
            sink.sowing(prefix, &group);
            if bomb_followups && group.pieces[..group.n].contains(&bomb) {
                sink.bomb_followups(self, &group);
            }
        });
        self.single_sowing_moves(|mv| {
            any = true;
            sink.turn(Turn::after(prefix, mv));
        });
        any
    }

    /// Every sowing move one by one, orders expanded.
    fn each_sowing_move(&self, mut f: impl FnMut(Mv)) {
        self.sowing_groups(|group| for_each_order(&group, &mut f));
        self.single_sowing_moves(f);
    }

    /// Every capturing move of the side to move (CC-C1..C10).
    pub(super) fn captures(&self, mut f: impl FnMut(Mv)) {
        let me = self.side;
        let enemy = me.other();
        // The squares holding a capturable enemy piece and the squares holding a piece of the
        // mover: most geometric targets are rejected by one bit test.
        let enemy_king = code(enemy, KING);
        let (mut targets, mut mine) = (0u64, 0u64);
        for (sq, stack) in self.board.iter().enumerate() {
            for &p in &stack.0 {
                if p != 0 && color_of(p) == enemy && p != enemy_king {
                    targets |= 1 << sq;
                } else if p != 0 && color_of(p) == me {
                    mine |= 1 << sq;
                }
            }
        }
        if targets == 0 {
            return;
        }
        while mine != 0 {
            let from = mine.trailing_zeros() as u8;
            mine &= mine - 1;
            let stack = *self.stack(from);
            for (i, &piece) in stack.pieces().iter().enumerate() {
                if color_of(piece) != me || (i > 0 && stack.0[i - 1] == piece) {
                    continue;
                }
                let mut emit = |target: u8, landing: u8| {
                    if targets & (1 << target) == 0 {
                        return;
                    }
                    for captured in self.stack(target).capturable(enemy) {
                        f(Mv::Capture {
                            piece,
                            from,
                            target,
                            captured,
                            landing,
                        });
                    }
                };
                match kind_of(piece) {
                    QUEEN | ROOK | BISHOP => {
                        let dirs = match kind_of(piece) {
                            QUEEN => 0..8,
                            ROOK => 0..4,
                            _ => 4..8,
                        };
                        for dir in dirs {
                            if let Some((target, _)) = self.ray(from, dir) {
                                emit(target, target);
                            }
                        }
                    }
                    KNIGHT => {
                        for v in 0..8 {
                            if let Some(target) = board::leap(from, v) {
                                emit(target, target);
                            }
                        }
                    }
                    PAWN => {
                        let dr = if me == Color::White { 1 } else { -1 };
                        for df in [-1, 1] {
                            if let Some(target) = offset(from, df, dr) {
                                emit(target, target);
                            }
                        }
                    }
                    MAN => {
                        for dir in 0..8 {
                            if let Some(target) = board::step(from, dir) {
                                emit(target, target);
                            }
                        }
                    }
                    BOMB => emit(from, from),
                    KING => {
                        if let Some(target) = field_partner(me, from) {
                            emit(target, target);
                        }
                    }
                    HAMMER => {
                        self.hammer_targets(from, me, &mut emit);
                    }
                    _ => {}
                }
            }
        }
    }

    /// The first occupied square from `from` in direction `dir` and its distance.
    fn ray(&self, from: u8, dir: usize) -> Option<(u8, u8)> {
        let mut sq = from;
        let mut dist = 0;
        loop {
            sq = board::step(sq, dir)?;
            dist += 1;
            if !self.stack(sq).is_empty() {
                return Some((sq, dist));
            }
        }
    }

    /// The Hammer's capture geometries (CC-C6..C8) from `from` for `me`: (target, landing).
    /// Whether the target holds an enemy piece is up to the caller.
    fn hammer_targets(&self, from: u8, me: Color, mut f: impl FnMut(u8, u8)) {
        for (dir, &(df, dr)) in DIRECTIONS.iter().enumerate() {
            if let Some((target, dist)) = self.ray(from, dir)
                && dist >= 2
            {
                let landing =
                    offset(target, -df, -dr).expect("the square before the target is on the ray");
                f(target, landing);
            }
        }
        for &(vx, vy) in &KNIGHT_VECTORS {
            if let Some(target) = offset(from, vx, vy) {
                let landing = offset(from, sign(vx), sign(vy)).expect("between origin and target");
                if !self.stack(landing).is_full() {
                    f(target, landing);
                }
            }
            if let Some(target) = offset(from, 2 * vx, 2 * vy) {
                let mid = offset(from, vx, vy).expect("between origin and target");
                let landing = offset(mid, sign(vx), sign(vy)).expect("between mid and target");
                let mid_stack = self.stack(mid);
                if mid_stack.controlled_by(me)
                    && !mid_stack.is_full()
                    && !self.stack(landing).is_full()
                {
                    f(target, landing);
                }
            }
        }
    }

    /// Plays one move of a turn for the side to move (no end-of-turn rules).
    pub(super) fn apply(&mut self, mv: Mv) {
        let me = self.side;
        match mv {
            Mv::None | Mv::Pass => return,
            Mv::Sow { from, order, n } => {
                let (_, count) = self.board[usize::from(from)].lift();
                let drops = self
                    .drops(from, count)
                    .expect("a legal sowing has its drop squares");
                for (&piece, &to) in order[..usize::from(n)].iter().zip(&drops) {
                    self.board[usize::from(to)].push(promoted(piece, to));
                }
                self.clear_right(me, board::mancala(from));
            }
            Mv::Step { from, to } | Mv::Double { from, to } => {
                let piece = if matches!(mv, Mv::Step { .. }) {
                    code(me, KING)
                } else {
                    code(me, PAWN)
                };
                self.board[usize::from(from)].remove(piece);
                self.board[usize::from(to)].push(piece);
                self.clear_right(me, board::mancala(from));
            }
            Mv::Capture {
                piece,
                from,
                target,
                captured,
                landing,
            } => {
                self.board[usize::from(target)].remove(captured);
                let lost = &mut self.losses[me.other().index()];
                *lost = lost.saturating_add(1);
                if kind_of(piece) != BOMB {
                    self.board[usize::from(from)].remove(piece);
                    let arrived = if PROMOTE_ON_CAPTURE {
                        promoted(piece, landing)
                    } else {
                        piece
                    };
                    self.board[usize::from(landing)].push(arrived);
                }
            }
        }
        // A right also ends when its start square has held no own pawn for a moment (§3.8 item 4).
        for color in Color::ALL {
            for mancala in 0..3 {
                if !self
                    .stack(board::double_start(color, mancala))
                    .has(code(color, PAWN))
                {
                    self.clear_right(color, mancala);
                }
            }
        }
    }

    /// The position after a whole legal turn; `in_check_at_start` is whether the side to move
    /// is in check now (passed in so perft computes it once per node).
    pub(super) fn after_turn(&self, turn: &Turn, in_check_at_start: bool) -> Chesscala {
        let mut next = self.clone();
        for mv in turn.moves() {
            next.apply(mv);
        }
        next.end_turn(in_check_at_start);
        next
    }

    /// The end-of-turn rules: escape (CC-K3), attrition (CC-K4), final turns (§3.8 items 6-8);
    /// without draws (CC-K7) twelve enemy losses win at once (a mate is found by
    /// [`Chesscala::outcome`], since it needs the opponent's turns).
    fn end_turn(&mut self, was_in_check: bool) {
        let me = self.side;
        let opp = me.other();
        self.count_checks();
        if self.no_draws {
            if self.losses[opp.index()] >= board::ATTRITION_LOSSES {
                self.result = Some(GameResult::Win(me));
            }
            if me == Color::White {
                self.first = false;
            }
            self.side = opp;
            return;
        }
        let me_checked = self.checks(me) > 0;
        let failed = was_in_check && me_checked;
        if self.pending_mate || self.pending_attrition {
            // A final turn: collect every claim.
            let mut wins = [false; 2];
            let mut draw = false;
            if self.pending_mate {
                if me_checked {
                    draw = true;
                } else {
                    wins[me.index()] = true;
                }
            }
            if self.pending_attrition {
                if self.losses[opp.index()] >= board::ATTRITION_LOSSES {
                    draw = true;
                } else {
                    wins[opp.index()] = true;
                }
                if failed {
                    wins[opp.index()] = true;
                }
            }
            self.result = Some(if draw || (wins[0] && wins[1]) {
                GameResult::Draw
            } else if wins[me.index()] {
                GameResult::Win(me)
            } else {
                GameResult::Win(opp)
            });
            self.pending_mate = false;
            self.pending_attrition = false;
        } else if failed && self.checks(opp) == 0 {
            // Failure to escape while the opponent is not in check loses at once; attrition
            // reached in the same turn does not count (§3.8 item 6).
            self.result = Some(GameResult::Win(opp));
        } else {
            self.pending_mate = failed;
            self.pending_attrition = self.losses[opp.index()] >= board::ATTRITION_LOSSES
                && self.losses[me.index()] < board::ATTRITION_LOSSES;
        }
        if me == Color::White {
            self.first = false;
        }
        self.side = opp;
    }

    /// Counts the check pairs against both sides afresh ([`Chesscala::checks`]).
    pub(super) fn count_checks(&mut self) {
        self.checks = [
            self.check_pairs(Color::White),
            self.check_pairs(Color::Black),
        ];
    }

    /// The number of (attacking enemy piece, own king) pairs against `color` (CC-K1, §3.8
    /// item 2), counted on the board as it stands (also part way through a turn).
    pub(super) fn check_pairs(&self, color: Color) -> u32 {
        let king = code(color, KING);
        let mut total = 0;
        for sq in board::fields(color) {
            let kings = self.stack(sq).count(king);
            if kings > 0 {
                total += u32::from(kings) * self.attackers(sq, color.other());
            }
        }
        total
    }

    /// The squares of kings of `color` that are attacked.
    pub(super) fn checked_king_squares(&self, color: Color) -> impl Iterator<Item = u8> + '_ {
        let king = code(color, KING);
        board::fields(color)
            .into_iter()
            .filter(move |&sq| self.stack(sq).has(king) && self.attackers(sq, color.other()) > 0)
    }

    /// How many pieces of `enemy` attack a king standing on `ks` (CC-K1 a-c).
    fn attackers(&self, ks: u8, enemy: Color) -> u32 {
        let count = |sq: u8, kind: u8| u32::from(self.stack(sq).count(code(enemy, kind)));
        let mut n = 0;
        let forward: i8 = if enemy == Color::White { 1 } else { -1 };
        for (i, &(_, dr)) in DIRECTIONS.iter().enumerate() {
            let Some((sq, dist)) = self.ray(ks, i) else {
                continue;
            };
            n += count(sq, QUEEN) + count(sq, if i < 4 { ROOK } else { BISHOP });
            if dist >= 2 {
                // A Hammer there advances towards the king and stops next to it.
                n += count(sq, HAMMER);
            } else {
                n += count(sq, MAN);
                // A pawn attacks one square diagonally forward, so it sits diagonally behind.
                if i >= 4 && dr == -forward {
                    n += count(sq, PAWN);
                }
                if field_partner(enemy, sq) == Some(ks) {
                    n += count(sq, KING);
                }
            }
        }
        for &(vx, vy) in &KNIGHT_VECTORS {
            // A knight or knight-advancing Hammer at ks - v.
            if let Some(sq) = offset(ks, -vx, -vy) {
                n += count(sq, KNIGHT);
                let landing = offset(sq, sign(vx), sign(vy)).expect("between attacker and king");
                if !self.stack(landing).is_full() {
                    n += count(sq, HAMMER);
                }
            }
            // A double-knight Hammer at ks - 2v.
            if let Some(sq) = offset(ks, -2 * vx, -2 * vy) {
                let mid = offset(ks, -vx, -vy).expect("between attacker and king");
                let landing = offset(mid, sign(vx), sign(vy)).expect("between mid and king");
                let mid_stack = self.stack(mid);
                if mid_stack.controlled_by(enemy)
                    && !mid_stack.is_full()
                    && !self.stack(landing).is_full()
                {
                    n += count(sq, HAMMER);
                }
            }
        }
        // Bombs in the king's own stack (CC-K1b).
        n += count(ks, BOMB);
        // Bombs that some sowing order drops on the king (CC-K1c).
        if !self.stack(ks).is_full() {
            let bomb = code(enemy, BOMB);
            let mut sq = board::next(ks);
            while sq != ks {
                let stack = self.stack(sq);
                if stack.has(bomb) && stack.controlled_by(enemy) {
                    let lifted = stack
                        .pieces()
                        .iter()
                        .filter(|&&p| kind_of(p) != KING)
                        .count();
                    if let Some(drops) = self.drops(sq, lifted)
                        && drops[..lifted].contains(&ks)
                    {
                        n += u32::from(stack.count(bomb));
                    }
                }
                sq = board::next(sq);
            }
        }
        n
    }

    fn has_right(&self, color: Color, mancala: u8) -> bool {
        self.rights & right_bit(color, mancala) != 0
    }

    fn clear_right(&mut self, color: Color, mancala: u8) {
        self.rights &= !right_bit(color, mancala);
    }
}

/// The bit of `color`'s double-move right in `mancala`: bits 0-2 White, 3-5 Black.
pub const fn right_bit(color: Color, mancala: u8) -> u8 {
    1 << (color as u8 * 3 + mancala)
}

/// The piece as it stands on `sq`: a pawn placed on its last rank becomes a Man (CC-S5).
fn promoted(piece: u8, sq: u8) -> u8 {
    let color = color_of(piece);
    if kind_of(piece) == PAWN && board::rank(sq) == board::last_rank(color) {
        code(color, MAN)
    } else {
        piece
    }
}
