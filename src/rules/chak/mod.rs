//! Chak (Couch Tomato, 2021): chess on a 9x9 board with a Maya theme.
//!
//! Rules summary (the product's specification, rules K1–K9): White and Green play on 9x9 with a
//! river on rank 5. Kings and pawns that end a move on the river or beyond promote at once to a
//! divine king (slides one or two squares) or a warrior (moves like a shaman); promoted pieces
//! never go back behind the river. The quetzal moves only by hopping exactly one screen. The
//! royal piece may never be left attacked. A divine king that reaches the enemy altar wins at
//! once; a side with no legal move loses, in check or not. Threefold repetition draws; after a
//! hundred plies without capture or promotion a draw may be claimed.
//!
//! Source: the rules text by Couch Tomato and Fairy-Stockfish's `[chak]` definition, which
//! settles the text's ambiguities (the jaguar steps backwards too; K2 limits attacks as well as
//! moves). Positions are written in Fairy-Stockfish's FEN.

mod board;
mod notation;

pub use board::Kind;

use std::hash::Hash;

use board::{
    ALTAR, Board, MoveList, RawMove, SQUARES, Wanted, ZOBRIST, ZOBRIST_GREEN, attacked, code,
    color_of, file_of, generate, rank_of,
};

use super::square::Coord;
use super::{
    BoardView, Cell, Color, EndReason, MoveError, MoveMarks, Outcome, PieceView, Position,
    PositionError, Variant,
};

/// A Chak move: from, to, and whether the moving king or pawn promotes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ChakMove(RawMove);

impl ChakMove {
    /// The square the piece leaves, `(file, rank)` zero-based.
    #[must_use]
    pub fn from(self) -> Coord {
        coord(usize::from(self.0.from))
    }

    /// The square the piece reaches.
    #[must_use]
    pub fn to(self) -> Coord {
        coord(usize::from(self.0.to))
    }

    /// Whether the move promotes a king or pawn.
    #[must_use]
    pub fn promotes(self) -> bool {
        self.0.promote
    }
}

fn coord(sq: usize) -> Coord {
    Coord::new(file_of(sq) as u8, rank_of(sq) as u8)
}

/// A Chak position: board, side to move, and the move counters of its FEN.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Chak {
    board: Board,
    turn: Color,
    /// The square of each side's king or divine king.
    royal: [u8; 2],
    /// Plies since the last capture or promotion (K7).
    halfmove: u32,
    /// Starts at 1 and goes up after each Green move.
    fullmove: u32,
    /// The Zobrist hash of the board and the side to move, kept up to date by each move.
    hash: u64,
}

/// Plies without capture or promotion after which a draw may be claimed (K7).
pub const FIFTY_MOVE_PLIES: u32 = 100;

/// The start position.
pub const START_FEN: &str = "rvsqkjsvr/4o4/p1p1p1p1p/9/9/9/P1P1P1P1P/4O4/RVSJKQSVR w - - 0 1";

impl Chak {
    /// Whether the side to move has lost by altar mate: the enemy divine king stands on its
    /// altar (K4). Such a position has no legal moves.
    fn altar_lost(&self) -> bool {
        let us = self.turn;
        self.board[ALTAR[us.index()]] == code(Kind::Divine, us.other())
    }

    /// The square (`rank * 9 + file`) of `color`'s king or divine king.
    #[must_use]
    pub fn royal_square(&self, color: Color) -> usize {
        usize::from(self.royal[color.index()])
    }

    fn generate(&self, wanted: Wanted, list: &mut MoveList) {
        if !self.altar_lost() {
            generate(
                &self.board,
                self.turn,
                self.royal_square(self.turn),
                wanted,
                list,
            );
        }
    }

    fn perft_fast(&self, depth: u32) -> u64 {
        let mut list = MoveList::new();
        self.generate(Wanted::All, &mut list);
        if depth <= 1 {
            return list.len() as u64;
        }
        list.as_slice()
            .iter()
            .map(|&mv| self.apply(mv).perft_fast(depth - 1))
            .sum()
    }

    fn apply(&self, mv: RawMove) -> Chak {
        let (from, to) = (usize::from(mv.from), usize::from(mv.to));
        let us = self.turn;
        let kind = Kind::of(self.board[from]);
        let kind_after = if mv.promote {
            kind.promoted().unwrap_or(kind)
        } else {
            kind
        };
        let capture = self.board[to] != 0;
        let mut next = self.clone();
        let moved = code(kind_after, us);
        next.hash ^= ZOBRIST[from][usize::from(self.board[from])]
            ^ ZOBRIST[to][usize::from(self.board[to])]
            ^ ZOBRIST[to][usize::from(moved)]
            ^ ZOBRIST_GREEN;
        next.board[to] = moved;
        next.board[from] = 0;
        if kind.royal() {
            next.royal[us.index()] = mv.to;
        }
        next.halfmove = if capture || mv.promote {
            0
        } else {
            self.halfmove + 1
        };
        if us == Color::Black {
            next.fullmove += 1;
        }
        next.turn = us.other();
        next
    }

    /// The kind of piece standing on `sq`, if any, with its colour.
    fn piece_at(&self, sq: usize) -> Option<(Kind, Color)> {
        let p = self.board[sq];
        (p != 0).then(|| (Kind::of(p), color_of(p)))
    }

    fn legal_raw(&self) -> Vec<RawMove> {
        let mut list = MoveList::new();
        self.generate(Wanted::All, &mut list);
        list.as_slice().to_vec()
    }

    /// The legal moves that capture, promote, or take the divine king onto the enemy altar
    /// (which wins at once): what an engine looks at past its horizon.
    #[must_use]
    pub fn noisy_moves(&self) -> Vec<ChakMove> {
        let mut list = MoveList::new();
        self.generate(Wanted::Noisy, &mut list);
        list.as_slice().iter().copied().map(ChakMove).collect()
    }

    /// Whether `mv` takes the divine king onto the enemy altar, which wins at once (K4).
    #[must_use]
    pub fn reaches_altar(&self, mv: ChakMove) -> bool {
        usize::from(mv.0.to) == ALTAR[self.turn.other().index()]
            && self.piece_at(usize::from(mv.0.from)) == Some((Kind::Divine, self.turn))
    }

    /// The win by altar mate, if the enemy divine king stands on the side to move's altar:
    /// the one end of Chak that is known without generating moves.
    #[must_use]
    pub fn altar_outcome(&self) -> Option<Outcome> {
        self.altar_lost()
            .then(|| Outcome::win(self.turn.other(), EndReason::Altar))
    }

    /// `mv` in Fairy-Stockfish's SAN (`Pe4`, `Vd8`, `Pe5=W`), the notation pychess.org reads
    /// when it imports a game.
    #[must_use]
    pub fn fairy_san(&self, mv: &ChakMove) -> String {
        notation::fairy_san(self, mv.0)
    }

    /// The halfmove clock: plies since the last capture or promotion.
    #[must_use]
    pub fn halfmove_clock(&self) -> u32 {
        self.halfmove
    }

    /// The fullmove number of the FEN.
    #[must_use]
    pub fn fullmove_number(&self) -> u32 {
        self.fullmove
    }

    /// The letter of the piece `mv` captures (upper case), if it captures.
    #[must_use]
    pub fn captured(&self, mv: ChakMove) -> Option<char> {
        self.piece_at(usize::from(mv.0.to))
            .map(|(kind, _)| kind.letter())
    }

    /// A hash of what counts for repetition (the board and the side to move), for engines'
    /// tables: the same for equal [`Position::repetition_key`]s.
    #[must_use]
    pub fn repetition_hash(&self) -> u64 {
        self.hash
    }

    /// Every piece on the board as its square's index (`rank * 9 + file`, a1 = 0), side and
    /// kind: the cheapest full read of the board, for engines' evaluations.
    pub fn squares(&self) -> impl Iterator<Item = (usize, Color, Kind)> + '_ {
        self.board
            .iter()
            .enumerate()
            .filter(|&(_, &p)| p != 0)
            .map(|(sq, &p)| (sq, color_of(p), Kind::of(p)))
    }

    /// The same board with the other side to move: no legal move, but what an engine's
    /// null-move pruning asks about ("what if I could pass?"). Only sound when the side to move
    /// is not in check.
    #[must_use]
    pub fn passed(&self) -> Chak {
        Chak {
            turn: self.turn.other(),
            hash: self.hash ^ ZOBRIST_GREEN,
            ..self.clone()
        }
    }
}

impl Position for Chak {
    type Move = ChakMove;

    const VARIANT: Variant = Variant::Chak;

    fn start() -> Chak {
        notation::parse_fen(START_FEN).expect("the start position is a valid FEN")
    }

    fn from_text(text: &str) -> Result<Chak, PositionError> {
        notation::parse_fen(text)
    }

    fn to_text(&self) -> String {
        notation::write_fen(self)
    }

    fn turn(&self) -> Color {
        self.turn
    }

    fn legal_moves(&self) -> Vec<ChakMove> {
        self.legal_raw().into_iter().map(ChakMove).collect()
    }

    fn play(&self, mv: &ChakMove) -> Chak {
        self.apply(mv.0)
    }

    fn in_check(&self) -> bool {
        attacked(&self.board, self.royal_square(self.turn), self.turn.other())
    }

    fn checked_kings(&self) -> Vec<Coord> {
        if self.in_check() {
            vec![coord(self.royal_square(self.turn))]
        } else {
            Vec::new()
        }
    }

    fn board_view(&self) -> BoardView {
        let cells = (0..SQUARES)
            .map(|sq| match self.piece_at(sq) {
                None => Cell::Empty,
                Some((kind, color)) => Cell::Pieces(vec![PieceView {
                    color,
                    letter: kind.letter(),
                }]),
            })
            .collect();
        BoardView {
            files: 9,
            ranks: 9,
            cells,
        }
    }

    fn move_marks(&self, mv: &ChakMove) -> MoveMarks {
        let to = usize::from(mv.0.to);
        MoveMarks {
            from: vec![mv.from()],
            to: vec![mv.to()],
            captures: if self.board[to] == 0 {
                Vec::new()
            } else {
                vec![mv.to()]
            },
            removed: Vec::new(),
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        let them = self.turn.other();
        if let Some(outcome) = self.altar_outcome() {
            return Some(outcome);
        }
        let mut list = MoveList::new();
        self.generate(Wanted::All, &mut list);
        if list.len() > 0 {
            return None;
        }
        let reason = if self.in_check() {
            EndReason::Checkmate
        } else {
            EndReason::Stalemate
        };
        Some(Outcome::win(them, reason))
    }

    fn repetition_key(&self) -> Option<String> {
        let fen = notation::write_fen(self);
        let mut fields = fen.split(' ');
        Some(format!(
            "{} {}",
            fields.next().unwrap_or(""),
            fields.next().unwrap_or("")
        ))
    }

    fn draw_claim(&self) -> Option<EndReason> {
        (self.halfmove >= FIFTY_MOVE_PLIES && self.outcome().is_none())
            .then_some(EndReason::FiftyMoves)
    }

    fn move_text(&self, mv: &ChakMove) -> String {
        notation::interchange(mv.0)
    }

    fn display_move(&self, mv: &ChakMove) -> String {
        notation::display(self, mv.0)
    }

    fn parse_move(&self, text: &str) -> Result<ChakMove, MoveError> {
        notation::parse_move(self, text).map(ChakMove)
    }

    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            1
        } else {
            self.perft_fast(depth)
        }
    }
}
