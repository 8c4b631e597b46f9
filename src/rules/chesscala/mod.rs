//! Chesscala (Francois Tremblay and David Mustoe, 2011): chess pieces moving by mancala sowing.
//!
//! Source: the inventors' page on the Chess Variant Pages, as specified in the product's rules
//! (`rules/chesscala.md`, §3.1-3.9) with the reference vectors' readings of its open points.
//!
//! - 6 files by 8 ranks; files (a,b), (c,d), (e,f) form three circuits of 16 squares
//!   (up b, across at rank 8, down a, across at rank 1). A square holds a stack of up to four
//!   pieces of either colour; the side with more pieces in it controls it (both on a tie).
//! - A turn is an optional capture then a mandatory sowing move: lift every non-king piece of a
//!   stack you control and drop them one per square along its circuit in an order you choose,
//!   skipping full stacks; or step a king to the other square of its King's field; or move the
//!   start pawn of an attacking line two squares while you have not yet moved in that mancala.
//!   A sown Bomb may capture in its landing stack; a side under two or more checks may play any
//!   two moves. White's first sowing must start on file b, d, e or f.
//! - Pieces capture as in chess (no en passant), the Man (promoted pawn) like a king, the Bomb in
//!   its own stack, the Hammer as an advancer (queen lines, knight, double knight), a king only
//!   onto the other square of its field. Kings are never captured; self-check is legal.
//! - A side in check at the start of its turn and at its end is mated (a draw if it mated the
//!   opponent too and he cannot escape). Twelve losses end the game by attrition after one
//!   extra turn. There is no repetition rule.
//!
//! The standard setup is a reconstruction (the published diagrams are lost): [`START`].

mod board;
mod chat;
mod movegen;
mod text;

use self::board::Stack;
use self::movegen::{Collect, Count, Mv, Visit};
use crate::rules::{
    BoardView, Cell, Color, Coord, EndReason, Mark, MoveError, MoveMarks, Outcome, PieceView,
    Position, PositionError, RuleSet, Variant,
};

pub use self::movegen::Turn;

/// The reconstructed standard setup (§3.2; RECONSTRUCTED, not sourced), White's first turn.
pub const START: &str = "khob,qrb,kobn,qrn,rbn,qrn/pp,pp,pp,pp,pp,pp/-,-,-,-,-,-/-,-,-,-,-,-/\
-,-,-,-,-,-/-,-,-,-,-,-/PP,PP,PP,PP,PP,PP/QRN,RBN,QRN,KOBN,QRB,KHOB w F BDFace 0,0 - *";

/// A final turn of the side to move (CC-K3, CC-K4, §3.8 item 7): after it the game ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FinalTurn {
    /// The opponent failed to escape check while the side to move is in check: the side to move
    /// wins if it ends the turn out of check, else the game is drawn.
    pub escape: bool,
    /// The side to move has lost twelve pieces: the opponent wins after this turn, unless the
    /// opponent has lost twelve by then too (a draw).
    pub attrition: bool,
}

/// A finished game's result (the position text's last field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum GameResult {
    Win(Color),
    Draw,
}

/// A Chesscala position: the stacks and the whole state of the turn order (§3.3, §3.9).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Chesscala {
    board: [Stack; board::SQUARES],
    side: Color,
    /// White's first turn: the CC-T3 file restriction applies.
    first: bool,
    /// Double-move rights, see [`movegen::right_bit`].
    rights: u8,
    /// Pieces lost by White and Black.
    losses: [u8; 2],
    /// The side that just moved failed to escape check while the side to move is in check: this
    /// is the side to move's final escape turn.
    pending_mate: bool,
    /// The side to move has lost twelve pieces: this is its final extra turn.
    pending_attrition: bool,
    result: Option<GameResult>,
    /// The (attacking enemy piece, own king) pairs against White and Black (CC-K1), counted
    /// once at the end of each turn: every turn played and every engine node asks for them.
    /// Derived from the board, so positions that are equal otherwise have equal counts.
    checks: [u32; 2],
    /// The optional rule without draws (CC-K7): a turn may not end with the mover's own king
    /// in check, and mating or reaching twelve enemy losses wins at once. Not part of the
    /// position text: the game's [`RuleSet`] sets it.
    no_draws: bool,
}

impl Chesscala {
    /// The rule set this position is played under.
    #[must_use]
    pub const fn rules(&self) -> RuleSet {
        if self.no_draws {
            RuleSet::NoDraws
        } else {
            RuleSet::Standard
        }
    }

    /// The same position under `rules`.
    #[must_use]
    pub fn under(mut self, rules: RuleSet) -> Chesscala {
        self.no_draws = rules == RuleSet::NoDraws;
        self
    }

    /// The number of (attacking enemy piece, own king) pairs against `color` (§3.8 item 2).
    #[must_use]
    pub fn checks(&self, color: Color) -> u32 {
        self.checks[color.index()]
    }

    /// Pieces `color` has lost so far.
    #[must_use]
    pub fn losses(&self, color: Color) -> u8 {
        self.losses[color.index()]
    }

    /// The number of legal turns, counted without listing them.
    #[must_use]
    pub fn count_turns(&self) -> u64 {
        let mut count = Count::default();
        self.generate(&mut count);
        count.total
    }

    /// Whether the side to move has a legal turn.
    fn has_turn(&self) -> bool {
        self.count_turns() > 0
    }

    /// Whether some legal turn of the side to move ends with none of its kings in check.
    #[must_use]
    pub fn can_escape(&self) -> bool {
        self.legal_moves()
            .iter()
            .any(|turn| self.play(turn).checks(self.side) == 0)
    }

    /// What is decided to happen after the side to move's turn, if this is a final turn.
    #[must_use]
    pub fn final_turn(&self) -> Option<FinalTurn> {
        (self.pending_mate || self.pending_attrition).then_some(FinalTurn {
            escape: self.pending_mate,
            attrition: self.pending_attrition,
        })
    }

    /// The board turned half round with the colours swapped (White's pieces become Black's on
    /// the rotated squares), with the side to move, rights, losses and result swapped to match.
    /// The first-turn flag is dropped, since only White has a first turn. The rules are
    /// symmetric under this map, which the tests use.
    #[must_use]
    pub fn rotated(&self) -> Chesscala {
        let mut board = [Stack::default(); board::SQUARES];
        for (sq, stack) in self.board.iter().enumerate() {
            for &p in stack.pieces() {
                board[board::SQUARES - 1 - sq].push(swap_color(p));
            }
        }
        let mut rights = 0;
        for color in Color::ALL {
            // Mancala m turns into mancala 2 - m (files a/b into f/e).
            for m in 0..3 {
                if self.rights & movegen::right_bit(color, m) != 0 {
                    rights |= movegen::right_bit(color.other(), 2 - m);
                }
            }
        }
        Chesscala {
            board,
            side: self.side.other(),
            first: false,
            rights,
            losses: [self.losses[1], self.losses[0]],
            pending_mate: self.pending_mate,
            pending_attrition: self.pending_attrition,
            result: self.result.map(|r| match r {
                GameResult::Win(c) => GameResult::Win(c.other()),
                GameResult::Draw => GameResult::Draw,
            }),
            no_draws: self.no_draws,
            checks: [self.checks[1], self.checks[0]],
        }
    }
}

/// The same piece of the other colour.
fn swap_color(code: u8) -> u8 {
    board::code(board::color_of(code).other(), board::kind_of(code))
}

impl Position for Chesscala {
    type Move = Turn;

    const VARIANT: Variant = Variant::Chesscala;

    fn start() -> Self {
        text::parse(START).expect("the start position text is valid (checked by a test)")
    }

    fn from_text(text: &str) -> Result<Self, PositionError> {
        text::parse(text)
    }

    fn to_text(&self) -> String {
        text::write(self)
    }

    fn turn(&self) -> Color {
        self.side
    }

    fn legal_moves(&self) -> Vec<Turn> {
        let mut turns = Collect(Vec::new());
        self.generate(&mut turns);
        turns.0
    }

    fn play(&self, turn: &Turn) -> Self {
        self.after_turn(turn, self.in_check())
    }

    fn in_check(&self) -> bool {
        self.checks(self.side) > 0
    }

    fn checked_kings(&self) -> Vec<Coord> {
        Color::ALL
            .iter()
            .flat_map(|&color| self.checked_king_squares(color))
            .map(coord)
            .collect()
    }

    fn board_view(&self) -> BoardView {
        let cells = self
            .board
            .iter()
            .map(|stack| {
                if stack.is_empty() {
                    Cell::Empty
                } else {
                    Cell::Pieces(
                        stack
                            .pieces()
                            .iter()
                            .map(|&p| PieceView {
                                color: board::color_of(p),
                                letter: char::from(board::LETTERS[usize::from(board::kind_of(p))]),
                            })
                            .collect(),
                    )
                }
            })
            .collect();
        BoardView {
            files: board::FILES,
            ranks: board::RANKS,
            cells,
        }
    }

    fn move_marks(&self, turn: &Turn) -> MoveMarks {
        let mut marks = MoveMarks::default();
        let mut pos = self.clone();
        for mv in turn.moves() {
            match mv {
                Mv::None | Mv::Pass => {}
                Mv::Sow { from, n, .. } => {
                    marks.from.push(coord(from));
                    if let Some(drops) = pos.drops(from, usize::from(n)) {
                        marks
                            .to
                            .extend(drops[..usize::from(n)].iter().map(|&sq| coord(sq)));
                    }
                }
                Mv::Step { from, to } | Mv::Double { from, to } => {
                    marks.from.push(coord(from));
                    marks.to.push(coord(to));
                }
                Mv::Capture {
                    piece,
                    from,
                    target,
                    landing,
                    ..
                } => {
                    if board::kind_of(piece) != board::BOMB {
                        marks.from.push(coord(from));
                        marks.to.push(coord(landing));
                    }
                    marks.captures.push(coord(target));
                }
            }
            pos.apply(mv);
        }
        marks
    }

    fn outcome(&self) -> Option<Outcome> {
        if self.no_draws && self.result.is_none() && !self.has_turn() {
            // CC-K7: no turn keeps the side to move out of check. In check that is checkmate;
            // out of it, a side that cannot move loses too, since this rule set has no draws.
            let reason = if self.in_check() {
                EndReason::Checkmate
            } else {
                EndReason::Stalemate
            };
            return Some(Outcome::win(self.side.other(), reason));
        }
        let attrition = |c: Color| self.losses[c.index()] >= board::ATTRITION_LOSSES;
        Some(match self.result? {
            GameResult::Win(winner) if attrition(winner.other()) => {
                Outcome::win(winner, EndReason::Attrition)
            }
            GameResult::Win(winner) => Outcome::win(winner, EndReason::Checkmate),
            GameResult::Draw if attrition(Color::White) && attrition(Color::Black) => {
                Outcome::draw(EndReason::Attrition)
            }
            GameResult::Draw => Outcome::draw(EndReason::MutualCheck),
        })
    }

    /// Check when the side to move has a king in check; mate when no turn of theirs gets
    /// every king out of it (CC-K7's checkmate), which costs a search of their turns. On a final
    /// turn (something pending) a check is only a check: the end is already decided otherwise.
    fn mark(&self) -> Option<Mark> {
        match self.outcome() {
            Some(outcome) => super::mated(outcome, self.side).then_some(Mark::Mate),
            None if !self.in_check() => None,
            // CC-K7: a mate is already the outcome.
            None if self.no_draws => Some(Mark::Check),
            None if self.pending_mate || self.pending_attrition || self.can_escape() => {
                Some(Mark::Check)
            }
            None => Some(Mark::Mate),
        }
    }

    fn repetition_key(&self) -> Option<String> {
        // CC-K6: the source has no repetition rule.
        None
    }

    fn is_pass(&self, turn: &Turn) -> bool {
        turn.first == Mv::Pass
    }

    fn move_text(&self, turn: &Turn) -> String {
        text::write_turn(self.side, turn)
    }

    fn display_move(&self, turn: &Turn) -> String {
        text::write_turn(self.side, turn)
    }

    fn parse_move(&self, input: &str) -> Result<Turn, MoveError> {
        chat::parse_turn(self, input)
    }

    fn perft(&self, depth: u32) -> u64 {
        if self.no_draws {
            return self.perft_no_draws(depth);
        }
        match depth {
            0 => 1,
            1 => self.count_turns(),
            _ => {
                let in_check = self.in_check();
                let mut total = 0;
                self.generate(&mut Visit(|turn: Turn| {
                    total += self.after_turn(&turn, in_check).perft(depth - 1);
                }));
                total
            }
        }
    }
}

/// The shared coordinate of a square.
fn coord(sq: u8) -> Coord {
    Coord::new(board::file(sq), board::rank(sq))
}
