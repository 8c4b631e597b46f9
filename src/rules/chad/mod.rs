//! Chad (Christian Freeling, 1979), as specified in the product's `rules/chad.md` (C1–C14).
//!
//! A 12x12 board. Each side has a king and eight rooks, which start on the king's 3x3 castle
//! (White c3–e5, Black h8–j10); the twelve squares around a castle are its wall. A king never
//! leaves its castle: it moves one step or a knight's leap inside it and captures any enemy
//! piece there. Rooks move as in chess and become queens as soon as a move ends in the enemy
//! castle. A rook or queen may only capture from the enemy wall into the enemy castle, or from
//! its own castle onto its own wall; everywhere else pieces just block each other. Rooks and
//! queens give check along open lines, and no move may leave the own king in check.
//! Checkmate wins; stalemate is a draw (C12, Recommendation); threefold repetition draws
//! (C13, Recommendation); there is no fifty-move rule.
//!
//! Sources: Freeling's rules at mindsports.nl and the Chad applet's text, Wikipedia's article,
//! and two independent implementations for the coordinates, as summarised in the spec.
//!
//! The engine keeps each side's rooks and queens as 144-square bitboards and finds
//! checks and pins from the king outwards, so legal moves need no trial moves: see
//! `Chad::generate`.

mod bitboard;
mod geometry;
mod movegen;

use std::fmt;
use std::str::FromStr;

use bitboard::Bb;
use geometry::*;
use movegen::MoveList;

use super::lines::{self, Bits};
use super::notation::{self, Describe, Shape, Sq};
use super::{
    BoardView, Cell, Color, Coord, EndReason, MoveError, MoveMarks, Outcome, Position,
    PositionError, Variant,
};

/// The start position (spec §2.3).
pub const START: &str = "12/12/7rrr2/7rkr2/7rrr2/12/12/2RRR7/2RKR7/2RRR7/12/12 w";

/// The most rooks and queens a side can have: eight rooks start and none are ever added.
pub const MAX_MEN: u32 = 8;

/// C12 (Recommendation): a stalemate is a draw. With `false` the stalemated side loses.
pub const STALEMATE_IS_DRAW: bool = true;

fn square_name(sq: u8) -> String {
    let (file, rank) = coord(sq);
    super::square::name(file, rank)
}

/// A Chad position: where the kings, rooks and queens stand and who moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Chad {
    kings: [u8; 2],
    rooks: [Bb; 2],
    queens: [Bb; 2],
    turn: Color,
    /// Each side's occupied squares of each rank, bit `file`: the same facts as the piece
    /// boards, kept for the rank and file lookups of rook lines.
    ranks: [[u16; RANKS]; 2],
    /// Each side's occupied squares of each file, bit `rank`.
    files: [[u16; FILES]; 2],
}

/// A Chad move. It records the moving piece, whether it captures and whether a rook promotes,
/// because the interchange notation shows all three.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ChadMove {
    from: u8,
    to: u8,
    piece: char,
    capture: bool,
    promotion: bool,
}

impl ChadMove {
    /// The square the piece leaves.
    #[must_use]
    pub fn from(self) -> Coord {
        let (file, rank) = coord(self.from);
        Coord::new(file, rank)
    }

    /// The square the piece goes to.
    #[must_use]
    pub fn to(self) -> Coord {
        let (file, rank) = coord(self.to);
        Coord::new(file, rank)
    }

    /// The moving piece's upper-case letter before the move: `K`, `R` or `Q`.
    #[must_use]
    pub fn piece(self) -> char {
        self.piece
    }

    /// Whether the move captures.
    #[must_use]
    pub fn is_capture(self) -> bool {
        self.capture
    }

    /// Whether a rook becomes a queen (C6).
    #[must_use]
    pub fn is_promotion(self) -> bool {
        self.promotion
    }
}

impl Chad {
    fn piece_letter(&self, sq: u8) -> Option<char> {
        let letter = if self.kings.contains(&sq) {
            'K'
        } else if (self.rooks[0] | self.rooks[1]).has(sq) {
            'R'
        } else if (self.queens[0] | self.queens[1]).has(sq) {
            'Q'
        } else {
            return None;
        };
        Some(if self.pieces(1).has(sq) {
            letter.to_ascii_lowercase()
        } else {
            letter
        })
    }

    fn validate(&self) -> Result<(), PositionError> {
        let invalid = |why: &str| Err(PositionError::Invalid(why.to_owned()));
        for side in 0..2 {
            if !CASTLE[side].has(self.kings[side]) {
                return invalid("a king never leaves its castle");
            }
            if self.men(side).count() > MAX_MEN {
                return invalid("a side has at most eight rooks and queens");
            }
            if (self.rooks[side] & CASTLE[1 - side]).any() {
                return invalid("a rook in the enemy castle would have become a queen");
            }
        }
        if self.king_in_check(self.turn.other()) {
            return invalid("the side that just moved is in check");
        }
        Ok(())
    }

    fn parse(text: &str) -> Result<Chad, PositionError> {
        let (rows, turn) = FRAME.split(text)?;
        let mut kings = [Vec::new(), Vec::new()];
        let mut rooks = [Bb::EMPTY; 2];
        let mut queens = [Bb::EMPTY; 2];
        for (row, text) in rows.iter().enumerate() {
            let rank = RANKS - 1 - row;
            let mut file = 0;
            let mut empty = 0;
            let too_long = || FRAME.syntax(&format!("rank {} has more than 12 squares", rank + 1));
            for c in text.chars() {
                if let Some(digit) = c.to_digit(10) {
                    empty = empty * 10 + digit as usize;
                    if empty == 0 || file + empty > FILES {
                        return Err(too_long());
                    }
                    continue;
                }
                file += empty;
                empty = 0;
                if file >= FILES {
                    return Err(too_long());
                }
                let sq = (rank * FILES + file) as u8;
                let side = usize::from(c.is_ascii_lowercase());
                match c {
                    'K' | 'k' => kings[side].push(sq),
                    'R' | 'r' => rooks[side] |= bit(sq),
                    'Q' | 'q' => queens[side] |= bit(sq),
                    _ => return Err(FRAME.syntax(&format!("unknown piece '{c}'"))),
                }
                file += 1;
            }
            if file + empty != FILES {
                return Err(FRAME.syntax(&format!("rank {} must have 12 squares", rank + 1)));
            }
        }
        let kings = notation::one_king_each(&kings)?;
        let mut position = Chad {
            kings,
            rooks,
            queens,
            turn,
            ranks: [[0; RANKS]; 2],
            files: [[0; FILES]; 2],
        };
        for side in 0..2 {
            for sq in position.pieces(side).squares() {
                position.toggle_line_bit(side, sq);
            }
        }
        position.validate()?;
        Ok(position)
    }
}

impl Chad {
    /// The same board with the other side to move: no legal move, but what an engine's
    /// null-move pruning asks about. Only sound when the side to move is not in check.
    #[must_use]
    pub fn passed(&self) -> Chad {
        Chad {
            turn: self.turn.other(),
            ..*self
        }
    }
}

impl Position for Chad {
    type Move = ChadMove;

    const VARIANT: Variant = Variant::Chad;

    fn start() -> Chad {
        Chad::parse(START).expect("the start position text is valid")
    }

    fn from_text(text: &str) -> Result<Chad, PositionError> {
        Chad::parse(text)
    }

    fn to_text(&self) -> String {
        let mut text = String::with_capacity(64);
        for rank in (0..RANKS).rev() {
            let mut empty = 0;
            for file in 0..FILES {
                match self.piece_letter((rank * FILES + file) as u8) {
                    Some(letter) => {
                        if empty > 0 {
                            text.push_str(&empty.to_string());
                            empty = 0;
                        }
                        text.push(letter);
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                text.push_str(&empty.to_string());
            }
            text.push(if rank == 0 { ' ' } else { '/' });
        }
        text.push(self.turn.letter());
        text
    }

    fn turn(&self) -> Color {
        self.turn
    }

    fn legal_moves(&self) -> Vec<ChadMove> {
        let mut list = MoveList::new();
        self.generate(&mut list);
        list.as_slice().to_vec()
    }

    fn play(&self, mv: &ChadMove) -> Chad {
        self.after(*mv)
    }

    fn in_check(&self) -> bool {
        self.king_in_check(self.turn)
    }

    fn checked_kings(&self) -> Vec<Coord> {
        Color::ALL
            .into_iter()
            .filter(|&color| self.king_in_check(color))
            .map(|color| {
                let (file, rank) = coord(self.kings[color.index()]);
                Coord::new(file, rank)
            })
            .collect()
    }

    fn board_view(&self) -> BoardView {
        let cells = (0..SQUARES as u8)
            .map(|sq| match self.piece_letter(sq) {
                Some(letter) => notation::piece_cell(letter),
                None => Cell::Empty,
            })
            .collect();
        BoardView {
            files: FILES as u8,
            ranks: RANKS as u8,
            cells,
        }
    }

    fn move_marks(&self, mv: &ChadMove) -> MoveMarks {
        MoveMarks {
            from: vec![mv.from()],
            to: vec![mv.to()],
            captures: if mv.capture {
                vec![mv.to()]
            } else {
                Vec::new()
            },
            removed: Vec::new(),
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        if self.has_move() {
            None
        } else if self.in_check() {
            Some(Outcome::win(self.turn.other(), EndReason::Checkmate))
        } else if STALEMATE_IS_DRAW {
            Some(Outcome::draw(EndReason::Stalemate))
        } else {
            Some(Outcome::win(self.turn.other(), EndReason::Stalemate))
        }
    }

    fn repetition_key(&self) -> Option<String> {
        // C13: placement (rooks and queens told apart) and side to move: the position text.
        Some(self.to_text())
    }

    fn move_text(&self, mv: &ChadMove) -> String {
        format!(
            "{}{}{}{}{}",
            mv.piece,
            square_name(mv.from),
            if mv.capture { 'x' } else { '-' },
            square_name(mv.to),
            if mv.promotion { "=Q" } else { "" }
        )
    }

    fn display_move(&self, mv: &ChadMove) -> String {
        self.move_text(mv)
    }

    fn parse_move(&self, text: &str) -> Result<ChadMove, MoveError> {
        let legal = self.legal_moves();
        if legal.is_empty() {
            return Err(MoveError::GameOver);
        }
        notation::resolve(&BOARD, self, &legal, text)
    }

    fn perft(&self, depth: u32) -> u64 {
        self.count(depth)
    }
}

const FRAME: notation::PositionFrame = notation::PositionFrame {
    game: "Chad",
    ranks: RANKS,
    example: START,
};

const BOARD: notation::Board = notation::Board {
    files: FILES as u8,
    ranks: RANKS as u8,
    pieces: "KRQ",
};

impl Describe<ChadMove> for Chad {
    fn shape(&self, mv: &ChadMove) -> Option<Shape> {
        Some(Shape {
            piece: mv.piece,
            from: coord(mv.from),
            to: coord(mv.to),
            removed: None,
        })
    }

    fn display(&self, mv: &ChadMove) -> String {
        self.display_move(mv)
    }

    fn own_piece(&self, (file, rank): Sq) -> Option<&'static str> {
        let sq = rank * FILES as u8 + file;
        let us = self.turn.index();
        if self.kings[us] == sq {
            Some("king")
        } else if self.rooks[us].has(sq) {
            Some("rook")
        } else if self.queens[us].has(sq) {
            Some("queen")
        } else {
            None
        }
    }

    fn side(&self) -> &'static str {
        Variant::Chad.side_name(self.turn)
    }

    fn syntax_hint(&self) -> &'static str {
        "Write a move as piece, from and to, like Rg9-h9 or Kd4-e5, or shorter: g9h9, Rgh9, or \
         Rh9 when only one rook can go there. Captures may have an x (Rg9xh9=Q)."
    }
}

impl fmt::Display for Chad {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text())
    }
}

impl FromStr for Chad {
    type Err = PositionError;

    fn from_str(text: &str) -> Result<Chad, PositionError> {
        Chad::parse(text)
    }
}
