//! Board geometry and stacks: squares, circuits, king's fields and the piece codes.
//!
//! A square is `rank * 6 + file` (a1 = 0, f8 = 47). A stack is at most four piece codes kept
//! sorted, so equal stacks compare equal and print in the position text's order.

use crate::rules::Color;

/// Files on the board.
pub const FILES: u8 = 6;
/// Ranks on the board.
pub const RANKS: u8 = 8;
/// Squares on the board.
pub const SQUARES: usize = 48;
/// Pieces a stack can hold; a stack holding this many is full.
pub const FULL: usize = 4;
/// Recommendation (CC-A3): kings count towards stack control.
pub const KINGS_COUNT_FOR_CONTROL: bool = true;
/// Losses at which a side has lost by attrition (CC-K4).
pub const ATTRITION_LOSSES: u8 = 12;

/// Piece kinds in the position text's output order.
pub const KING: u8 = 0;
pub const HAMMER: u8 = 1;
pub const BOMB: u8 = 2;
pub const QUEEN: u8 = 3;
pub const ROOK: u8 = 4;
pub const BISHOP: u8 = 5;
pub const KNIGHT: u8 = 6;
pub const MAN: u8 = 7;
pub const PAWN: u8 = 8;

/// The upper-case letter of each kind, indexed by kind.
pub const LETTERS: &[u8; 9] = b"KHOQRBNMP";

/// A piece code: `1 + colour * 9 + kind`, so 0 means "no piece" and ascending codes give
/// White's pieces first, each side in the order K H O Q R B N M P.
pub const fn code(color: Color, kind: u8) -> u8 {
    1 + color as u8 * 9 + kind
}

/// The colour of a (non-zero) piece code.
pub const fn color_of(code: u8) -> Color {
    if code <= 9 {
        Color::White
    } else {
        Color::Black
    }
}

/// The kind of a (non-zero) piece code.
pub const fn kind_of(code: u8) -> u8 {
    (code - 1) % 9
}

/// The letter of a piece code, upper case for White.
pub fn letter(code: u8) -> char {
    let upper = char::from(LETTERS[usize::from(kind_of(code))]);
    match color_of(code) {
        Color::White => upper,
        Color::Black => upper.to_ascii_lowercase(),
    }
}

/// Reads a piece letter (case gives the colour).
pub fn from_letter(letter: char) -> Option<u8> {
    let kind = LETTERS
        .iter()
        .position(|&l| char::from(l) == letter.to_ascii_uppercase())?;
    let color = if letter.is_ascii_uppercase() {
        Color::White
    } else {
        Color::Black
    };
    Some(code(color, u8::try_from(kind).ok()?))
}

pub const fn file(sq: u8) -> u8 {
    sq % FILES
}

pub const fn rank(sq: u8) -> u8 {
    sq / FILES
}

/// No square: off the board in a step table.
const OFF: u8 = u8::MAX;

/// The square one step in each of [`DIRECTIONS`] from each square ([`OFF`] off the board).
const STEPS: [[u8; SQUARES]; 8] = step_table(&DIRECTIONS);
/// The square a knight's leap along each of [`KNIGHT_VECTORS`] away from each square.
const LEAPS: [[u8; SQUARES]; 8] = step_table(&KNIGHT_VECTORS);

const fn step_table(vectors: &[(i8, i8); 8]) -> [[u8; SQUARES]; 8] {
    let mut table = [[OFF; SQUARES]; 8];
    let mut v = 0;
    while v < 8 {
        let mut sq = 0;
        while sq < SQUARES {
            if let Some(to) = offset_slow(sq as u8, vectors[v].0, vectors[v].1) {
                table[v][sq] = to;
            }
            sq += 1;
        }
        v += 1;
    }
    table
}

/// The square one step from `sq` in direction `dir` (an index into [`DIRECTIONS`]).
pub fn step(sq: u8, dir: usize) -> Option<u8> {
    let to = STEPS[dir][usize::from(sq)];
    (to != OFF).then_some(to)
}

/// The square a knight's leap `leap` (an index into [`KNIGHT_VECTORS`]) away from `sq`.
pub fn leap(sq: u8, leap: usize) -> Option<u8> {
    let to = LEAPS[leap][usize::from(sq)];
    (to != OFF).then_some(to)
}

/// The square `df` files and `dr` ranks away from `sq`, if it is on the board.
pub const fn offset(sq: u8, df: i8, dr: i8) -> Option<u8> {
    offset_slow(sq, df, dr)
}

const fn offset_slow(sq: u8, df: i8, dr: i8) -> Option<u8> {
    let f = file(sq) as i8 + df;
    let r = rank(sq) as i8 + dr;
    if f < 0 || f >= FILES as i8 || r < 0 || r >= RANKS as i8 {
        None
    } else {
        Some((r * FILES as i8 + f) as u8)
    }
}

/// The square's name, such as `b1`.
pub fn name(sq: u8) -> String {
    crate::rules::square::name(file(sq), rank(sq))
}

/// The mancala (circuit) a square belongs to: 0 for files a/b, 1 for c/d, 2 for e/f.
pub const fn mancala(sq: u8) -> u8 {
    file(sq) / 2
}

/// The next square of the square's circuit (see [`next_square`]).
pub const fn next(sq: u8) -> u8 {
    NEXT[sq as usize]
}

const NEXT: [u8; SQUARES] = {
    let mut table = [0; SQUARES];
    let mut sq = 0;
    while sq < SQUARES {
        table[sq] = next_square(sq as u8);
        sq += 1;
    }
    table
};

/// The next square of the square's circuit: up the right-hand file, across at rank 8, down the
/// left-hand file, across at rank 1 (§3.2).
const fn next_square(sq: u8) -> u8 {
    let (f, r) = (file(sq), rank(sq));
    if f % 2 == 1 {
        if r < RANKS - 1 { sq + FILES } else { sq - 1 }
    } else if r > 0 {
        sq - FILES
    } else {
        sq + 1
    }
}

/// The other square of the King's field `sq` belongs to, for `color`'s kings (§3.2): White
/// c1/d1 and e1/f1, Black c8/d8 and a8/b8.
pub const fn field_partner(color: Color, sq: u8) -> Option<u8> {
    match (color, sq) {
        (Color::White, 2) => Some(3),
        (Color::White, 3) => Some(2),
        (Color::White, 4) => Some(5),
        (Color::White, 5) => Some(4),
        (Color::Black, 42) => Some(43),
        (Color::Black, 43) => Some(42),
        (Color::Black, 44) => Some(45),
        (Color::Black, 45) => Some(44),
        _ => None,
    }
}

/// The four squares of `color`'s King's fields, the only squares its kings may stand on.
pub const fn fields(color: Color) -> [u8; 4] {
    match color {
        Color::White => [2, 3, 4, 5],
        Color::Black => [42, 43, 44, 45],
    }
}

/// The start square of `color`'s double-move pawn in `mancala` (White b2 d2 f2, Black a7 c7 e7).
pub const fn double_start(color: Color, mancala: u8) -> u8 {
    match color {
        Color::White => FILES + 2 * mancala + 1,
        Color::Black => 6 * FILES + 2 * mancala,
    }
}

/// The rank on which `color`'s pawns promote.
pub const fn last_rank(color: Color) -> u8 {
    match color {
        Color::White => RANKS - 1,
        Color::Black => 0,
    }
}

/// The eight king directions; the first four are orthogonal.
pub const DIRECTIONS: [(i8, i8); 8] = [
    (0, 1),
    (1, 0),
    (0, -1),
    (-1, 0),
    (1, 1),
    (1, -1),
    (-1, -1),
    (-1, 1),
];

pub use crate::rules::square::KNIGHT_VECTORS;

/// A stack: up to four piece codes, sorted ascending, zeros after the pieces.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Stack(pub [u8; FULL]);

impl Stack {
    /// The pieces, in output order.
    pub fn pieces(&self) -> &[u8] {
        &self.0[..self.len()]
    }

    pub fn len(&self) -> usize {
        self.0.iter().take_while(|&&p| p != 0).count()
    }

    pub fn is_empty(&self) -> bool {
        self.0[0] == 0
    }

    pub fn is_full(&self) -> bool {
        self.0[FULL - 1] != 0
    }

    /// How many of this piece the stack holds.
    pub fn count(&self, code: u8) -> u8 {
        self.0.iter().map(|&p| u8::from(p == code)).sum()
    }

    pub fn has(&self, code: u8) -> bool {
        self.0.contains(&code)
    }

    /// Whether `color` controls the stack: at least as many pieces as the opponent (CC-A3:
    /// kings count). An empty square is controlled by both.
    pub fn controlled_by(&self, color: Color) -> bool {
        let counts = |p: u8| p != 0 && (KINGS_COUNT_FOR_CONTROL || kind_of(p) != KING);
        let white: i8 = self.0.iter().map(|&p| i8::from(p <= 9 && counts(p))).sum();
        let black: i8 = self.0.iter().map(|&p| i8::from(p > 9 && counts(p))).sum();
        match color {
            Color::White => white >= black,
            Color::Black => black >= white,
        }
    }

    /// The distinct non-king pieces of `color` in the stack (what a capture may take).
    pub fn capturable(&self, color: Color) -> impl Iterator<Item = u8> + '_ {
        let king = code(color, KING);
        self.pieces()
            .iter()
            .enumerate()
            .filter(move |&(i, &p)| {
                color_of(p) == color && p != king && (i == 0 || self.0[i - 1] != p)
            })
            .map(|(_, &p)| p)
    }

    /// Adds a piece; the stack must not be full.
    pub fn push(&mut self, code: u8) {
        let mut i = self.len();
        debug_assert!(i < FULL, "pushing onto a full stack");
        if i >= FULL {
            return;
        }
        while i > 0 && self.0[i - 1] > code {
            self.0[i] = self.0[i - 1];
            i -= 1;
        }
        self.0[i] = code;
    }

    /// Removes one piece with this code; the stack must hold it.
    pub fn remove(&mut self, code: u8) {
        if let Some(i) = self.0.iter().position(|&p| p == code) {
            self.0.copy_within(i + 1.., i);
            self.0[FULL - 1] = 0;
        }
    }

    /// The non-king pieces (sorted) and their number: what a sowing lifts.
    pub fn non_kings(&self) -> ([u8; FULL], usize) {
        let mut lifted = [0; FULL];
        let mut n = 0;
        for &p in &self.0 {
            if p != 0 && kind_of(p) != KING {
                lifted[n] = p;
                n += 1;
            }
        }
        (lifted, n)
    }

    /// Splits the stack into its kings (which stay) and the sorted non-king pieces (lifted by a
    /// sowing), returning the lifted pieces and their number.
    pub fn lift(&mut self) -> ([u8; FULL], usize) {
        let mut kings = Stack::default();
        let mut lifted = [0; FULL];
        let mut n = 0;
        for &p in self.pieces() {
            if kind_of(p) == KING {
                kings.push(p);
            } else {
                lifted[n] = p;
                n += 1;
            }
        }
        *self = kings;
        (lifted, n)
    }
}
