//! Chak's board: piece codes, precomputed geometry, attack detection and move generation.
//!
//! Squares are indices `rank * 9 + file` (a1 = 0, i9 = 80). The board is a mailbox of piece
//! codes; geometry (rays, knight leaps) and the Zobrist keys are computed at compile time.

use crate::rules::Color;
use crate::rules::square::KNIGHT_VECTORS;

/// Files and ranks of the board.
pub const SIZE: usize = 9;
/// Number of squares.
pub const SQUARES: usize = SIZE * SIZE;

/// A piece kind. The code of a piece on the board is `kind as u8 | color << 4`; 0 is empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Kind {
    King = 1,
    Divine = 2,
    Jaguar = 3,
    Quetzal = 4,
    Shaman = 5,
    Vulture = 6,
    Serpent = 7,
    Pawn = 8,
    Warrior = 9,
    Offering = 10,
}

impl Kind {
    /// Every kind, in code order.
    pub const ALL: [Kind; 10] = [
        Kind::King,
        Kind::Divine,
        Kind::Jaguar,
        Kind::Quetzal,
        Kind::Shaman,
        Kind::Vulture,
        Kind::Serpent,
        Kind::Pawn,
        Kind::Warrior,
        Kind::Offering,
    ];

    /// The kind of a non-empty piece code.
    pub fn of(code: u8) -> Kind {
        Kind::ALL[usize::from((code & 15).saturating_sub(1)).min(9)]
    }

    /// The FEN letter (upper case).
    pub const fn letter(self) -> char {
        match self {
            Kind::King => 'K',
            Kind::Divine => 'D',
            Kind::Jaguar => 'J',
            Kind::Quetzal => 'Q',
            Kind::Shaman => 'S',
            Kind::Vulture => 'V',
            Kind::Serpent => 'R',
            Kind::Pawn => 'P',
            Kind::Warrior => 'W',
            Kind::Offering => 'O',
        }
    }

    /// The kind for a FEN letter of either case.
    pub fn from_letter(letter: char) -> Option<Kind> {
        Kind::ALL
            .into_iter()
            .find(|kind| kind.letter() == letter.to_ascii_uppercase())
    }

    /// The piece's English name, for chat.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::King => "king",
            Kind::Divine => "divine king",
            Kind::Jaguar => "jaguar",
            Kind::Quetzal => "quetzal",
            Kind::Shaman => "shaman",
            Kind::Vulture => "vulture",
            Kind::Serpent => "serpent",
            Kind::Pawn => "pawn",
            Kind::Warrior => "warrior",
            Kind::Offering => "offering",
        }
    }

    /// The kind a king or pawn becomes on reaching its promotion zone.
    pub const fn promoted(self) -> Option<Kind> {
        match self {
            Kind::King => Some(Kind::Divine),
            Kind::Pawn => Some(Kind::Warrior),
            _ => None,
        }
    }

    /// Whether the kind is limited to its own side of the river (K2).
    pub const fn river_bound(self) -> bool {
        matches!(self, Kind::Divine | Kind::Warrior)
    }

    /// Whether the kind is royal (K3).
    pub const fn royal(self) -> bool {
        matches!(self, Kind::King | Kind::Divine)
    }
}

/// The code of a piece of `kind` and `color`.
pub const fn code(kind: Kind, color: Color) -> u8 {
    kind as u8 | (color as u8) << 4
}

/// The colour of a non-empty piece code.
pub const fn color_of(code: u8) -> Color {
    if code >> 4 == 0 {
        Color::White
    } else {
        Color::Black
    }
}

/// The rank (0-based) of a square.
pub const fn rank_of(sq: usize) -> usize {
    sq / SIZE
}

/// The file (0-based) of a square.
pub const fn file_of(sq: usize) -> usize {
    sq % SIZE
}

/// The river rank (rank 5).
pub const RIVER: usize = 4;

/// Whether `sq` is in `color`'s promotion zone: the river and beyond.
pub const fn in_zone(sq: usize, color: Color) -> bool {
    match color {
        Color::White => rank_of(sq) >= RIVER,
        Color::Black => rank_of(sq) <= RIVER,
    }
}

/// Whether a divine king or warrior of `color` may stand on `sq` (K2: never behind its river).
pub const fn river_allows(sq: usize, color: Color) -> bool {
    in_zone(sq, color)
}

/// Each side's altar: White's e2, Green's e8 (K4).
pub const ALTAR: [usize; 2] = [SIZE + 4, 7 * SIZE + 4];

/// The 8 directions as (file, rank) steps: 0–3 orthogonal (N, S, E, W), 4–7 diagonal.
const DIRS: [(i32, i32); 8] = [
    (0, 1),
    (0, -1),
    (1, 0),
    (-1, 0),
    (1, 1),
    (-1, 1),
    (1, -1),
    (-1, -1),
];
/// Direction indices that are vertical (the shaman's straight steps).
pub const fn vertical(dir: usize) -> bool {
    dir < 2
}
/// Direction indices that are orthogonal (the serpent's lines).
pub const fn orthogonal(dir: usize) -> bool {
    dir < 4
}
/// Direction indices that are diagonal.
pub const fn diagonal(dir: usize) -> bool {
    dir >= 4
}
/// The direction index pointing "forward" for `color`.
pub const fn forward(color: Color) -> usize {
    match color {
        Color::White => 0,
        Color::Black => 1,
    }
}

/// A list of up to 8 squares with its length, for compile-time tables.
#[derive(Debug, Clone, Copy)]
pub struct Squares {
    pub len: u8,
    pub sq: [u8; 8],
}

impl Squares {
    pub fn as_slice(&self) -> &[u8] {
        &self.sq[..usize::from(self.len)]
    }
}

const fn offset(sq: usize, df: i32, dr: i32) -> Option<usize> {
    let f = file_of(sq) as i32 + df;
    let r = rank_of(sq) as i32 + dr;
    if f < 0 || r < 0 || f >= SIZE as i32 || r >= SIZE as i32 {
        None
    } else {
        Some(r as usize * SIZE + f as usize)
    }
}

const fn make_rays() -> [[Squares; 8]; SQUARES] {
    let mut table = [[Squares { len: 0, sq: [0; 8] }; 8]; SQUARES];
    let mut sq = 0;
    while sq < SQUARES {
        let mut d = 0;
        while d < 8 {
            let mut cur = sq;
            while let Some(next) = offset(cur, DIRS[d].0, DIRS[d].1) {
                let ray = &mut table[sq][d];
                ray.sq[ray.len as usize] = next as u8;
                ray.len += 1;
                cur = next;
            }
            d += 1;
        }
        sq += 1;
    }
    table
}

const fn make_knights() -> [Squares; SQUARES] {
    let mut table = [Squares { len: 0, sq: [0; 8] }; SQUARES];
    let mut sq = 0;
    while sq < SQUARES {
        let mut i = 0;
        while i < 8 {
            if let Some(to) = offset(sq, KNIGHT_VECTORS[i].0 as i32, KNIGHT_VECTORS[i].1 as i32) {
                let list = &mut table[sq];
                list.sq[list.len as usize] = to as u8;
                list.len += 1;
            }
            i += 1;
        }
        sq += 1;
    }
    table
}

/// The squares along each of the 8 directions from each square, nearest first.
pub static RAYS: [[Squares; 8]; SQUARES] = make_rays();
/// The knight leaps from each square.
pub static KNIGHT: [Squares; SQUARES] = make_knights();

/// One step of the SplitMix64 generator: the Zobrist keys' source, at compile time.
const fn split_mix(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

/// Piece codes below this bound (`Kind` in the low four bits, the colour above them).
const CODES: usize = 32;

const fn make_zobrist() -> ([[u64; CODES]; SQUARES], u64) {
    let mut table = [[0; CODES]; SQUARES];
    let mut state = 2021;
    let mut sq = 0;
    while sq < SQUARES {
        let mut code = 1;
        while code < CODES {
            let (next, key) = split_mix(state);
            state = next;
            table[sq][code] = key;
            code += 1;
        }
        sq += 1;
    }
    let (_, turn) = split_mix(state);
    (table, turn)
}

const ZOBRIST_KEYS: ([[u64; CODES]; SQUARES], u64) = make_zobrist();
/// A random key per piece code and square (0 for an empty square), XORed into a position's
/// hash.
pub static ZOBRIST: [[u64; CODES]; SQUARES] = ZOBRIST_KEYS.0;
/// The key XORed into a position's hash when Green is to move.
pub const ZOBRIST_GREEN: u64 = ZOBRIST_KEYS.1;

/// The Zobrist hash of `board` with `turn` to move.
pub fn zobrist(board: &Board, turn: Color) -> u64 {
    let pieces = board
        .iter()
        .enumerate()
        .fold(0, |hash, (sq, &p)| hash ^ ZOBRIST[sq][usize::from(p)]);
    match turn {
        Color::White => pieces,
        Color::Black => pieces ^ ZOBRIST_GREEN,
    }
}

/// A board: one piece code per square.
pub type Board = [u8; SQUARES];

/// Whether `sq` is attacked by a piece of `by`: some piece of `by` could capture on it under
/// its own movement rules (K3), the quetzal with its screen and K2's river included.
pub fn attacked(board: &Board, sq: usize, by: Color) -> bool {
    let enemy = |kind: Kind| code(kind, by);
    let river_ok = river_allows(sq, by);
    for &from in KNIGHT[sq].as_slice() {
        let p = board[usize::from(from)];
        if p == enemy(Kind::Vulture) || p == enemy(Kind::Jaguar) {
            return true;
        }
    }
    // A pawn of `by` attacks diagonally forward, so it stands diagonally behind `sq`.
    let pawn_dirs = match by {
        Color::White => [6, 7],
        Color::Black => [4, 5],
    };
    for (dir, ray) in RAYS[sq].iter().enumerate() {
        let squares = ray.as_slice();
        let mut i = 0;
        while i < squares.len() && board[usize::from(squares[i])] == 0 {
            i += 1;
        }
        let Some(&first) = squares.get(i) else {
            continue;
        };
        let p = board[usize::from(first)];
        if p != 0 && color_of(p) == by {
            let hit = match Kind::of(p) {
                Kind::Serpent => orthogonal(dir),
                Kind::Divine => i <= 1 && river_ok,
                Kind::King | Kind::Jaguar => i == 0,
                Kind::Shaman => i == 0 && (vertical(dir) || diagonal(dir)),
                Kind::Warrior => i == 0 && (vertical(dir) || diagonal(dir)) && river_ok,
                Kind::Pawn => i == 0 && pawn_dirs.contains(&dir),
                Kind::Quetzal | Kind::Vulture | Kind::Offering => false,
            };
            if hit {
                return true;
            }
        }
        // `first` is a screen: a quetzal of `by` behind it, with nothing in between, attacks.
        let mut j = i + 1;
        while j < squares.len() && board[usize::from(squares[j])] == 0 {
            j += 1;
        }
        if squares
            .get(j)
            .is_some_and(|&q| board[usize::from(q)] == enemy(Kind::Quetzal))
        {
            return true;
        }
    }
    false
}

/// A move: from, to, and whether it promotes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RawMove {
    pub from: u8,
    pub to: u8,
    pub promote: bool,
}

/// A fixed-capacity list of moves, so generation allocates nothing.
#[derive(Debug, Clone)]
pub struct MoveList {
    len: usize,
    moves: [RawMove; MoveList::CAPACITY],
}

impl MoveList {
    /// More than any Chak position can have: at most 20 pieces of one side each reach at most
    /// 16 squares except the serpents (16) and quetzals (16) — well under 256.
    const CAPACITY: usize = 256;

    pub fn new() -> MoveList {
        MoveList {
            len: 0,
            moves: [RawMove {
                from: 0,
                to: 0,
                promote: false,
            }; Self::CAPACITY],
        }
    }

    fn push(&mut self, mv: RawMove) {
        if self.len < Self::CAPACITY {
            self.moves[self.len] = mv;
            self.len += 1;
        }
    }

    pub fn as_slice(&self) -> &[RawMove] {
        &self.moves[..self.len]
    }

    pub fn len(&self) -> usize {
        self.len
    }
}

/// Visits the squares of `squares` a slider reaches: empty ones, then the first occupied one
/// if it holds an enemy piece.
fn slide(board: &Board, them: Color, squares: &[u8], mut visit: impl FnMut(usize)) {
    for &to in squares {
        let to = usize::from(to);
        if board[to] == 0 {
            visit(to);
        } else {
            if color_of(board[to]) == them {
                visit(to);
            }
            break;
        }
    }
}

/// The squares of the lines from `royal` on which a piece of `by` could attack it through
/// other squares: a line holding a quetzal of `by` (it attacks over a screen), a divine king
/// (over an empty square), or, on a rank or file, a serpent. Every other attack (a neighbour,
/// a leap) depends on no square but the attacker's and the target's.
fn exposed_lines(board: &Board, royal: usize, by: Color) -> u128 {
    let mut lines = 0;
    for (dir, ray) in RAYS[royal].iter().enumerate() {
        let squares = ray.as_slice();
        let threat = squares.iter().any(|&sq| {
            let p = board[usize::from(sq)];
            p != 0
                && color_of(p) == by
                && match Kind::of(p) {
                    Kind::Quetzal | Kind::Divine => true,
                    Kind::Serpent => orthogonal(dir),
                    _ => false,
                }
        });
        if threat {
            lines |= squares.iter().fold(0, |set, &sq| set | 1u128 << sq);
        }
    }
    lines
}

/// Which moves [`generate`] lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wanted {
    /// Every legal move.
    All,
    /// Only the legal moves that capture, promote, or take the divine king onto the enemy
    /// altar: what an engine searches past its horizon.
    Noisy,
}

/// Generates the legal moves of `us` on `board`, whose royal piece stands on `royal`.
pub fn generate(board: &Board, us: Color, royal: usize, wanted: Wanted, list: &mut MoveList) {
    let them = us.other();
    let in_check = attacked(board, royal, them);
    let lines = exposed_lines(board, royal, them);
    let enemy_altar = ALTAR[them.index()];
    let mut add = |from: usize, to: usize, kind: Kind| {
        let promote = kind.promoted().is_some() && in_zone(to, us);
        if wanted == Wanted::Noisy
            && board[to] == 0
            && !promote
            && !(kind == Kind::Divine && to == enemy_altar)
        {
            return;
        }
        // Only a royal move, an evasion, or a move on a line through the royal piece that
        // holds a piece attacking through other squares can expose it.
        let safe = !in_check
            && !kind.royal()
            && lines & (1u128 << from) == 0
            && lines & (1u128 << to) == 0;
        if safe || {
            let mut after = *board;
            let moved = if promote {
                kind.promoted().unwrap_or(kind)
            } else {
                kind
            };
            after[to] = code(moved, us);
            after[from] = 0;
            let target = if kind.royal() { to } else { royal };
            !attacked(&after, target, them)
        } {
            list.push(RawMove {
                from: from as u8,
                to: to as u8,
                promote,
            });
        }
    };
    let free_or_enemy = |sq: usize| board[sq] == 0 || color_of(board[sq]) == them;
    for from in 0..SQUARES {
        let p = board[from];
        if p == 0 || color_of(p) != us {
            continue;
        }
        let kind = Kind::of(p);
        let rays = &RAYS[from];
        match kind {
            Kind::King | Kind::Jaguar | Kind::Shaman | Kind::Warrior => {
                for (dir, ray) in rays.iter().enumerate() {
                    let Some(&to) = ray.as_slice().first() else {
                        continue;
                    };
                    let to = usize::from(to);
                    let allowed = match kind {
                        Kind::Shaman => vertical(dir) || diagonal(dir),
                        Kind::Warrior => (vertical(dir) || diagonal(dir)) && river_allows(to, us),
                        _ => true,
                    };
                    if allowed && free_or_enemy(to) {
                        add(from, to, kind);
                    }
                }
            }
            Kind::Divine => {
                for ray in rays {
                    let squares = ray.as_slice();
                    let Some(&first) = squares.first() else {
                        continue;
                    };
                    let first = usize::from(first);
                    if !river_allows(first, us) {
                        continue;
                    }
                    if board[first] != 0 {
                        if color_of(board[first]) == them {
                            add(from, first, kind);
                        }
                        continue;
                    }
                    add(from, first, kind);
                    if let Some(&second) = squares.get(1) {
                        let second = usize::from(second);
                        if river_allows(second, us) && free_or_enemy(second) {
                            add(from, second, kind);
                        }
                    }
                }
            }
            Kind::Pawn => {
                let fwd = forward(us);
                for dir in [fwd, 2, 3] {
                    if let Some(&to) = rays[dir].as_slice().first()
                        && board[usize::from(to)] == 0
                    {
                        add(from, usize::from(to), kind);
                    }
                }
                let captures = match us {
                    Color::White => [4, 5],
                    Color::Black => [6, 7],
                };
                for dir in captures {
                    if let Some(&to) = rays[dir].as_slice().first() {
                        let to = usize::from(to);
                        if board[to] != 0 && color_of(board[to]) == them {
                            add(from, to, kind);
                        }
                    }
                }
            }
            Kind::Serpent => {
                for ray in &rays[..4] {
                    slide(board, them, ray.as_slice(), |to| add(from, to, kind));
                }
            }
            Kind::Quetzal => {
                for ray in rays {
                    let squares = ray.as_slice();
                    let Some(screen) = squares.iter().position(|&s| board[usize::from(s)] != 0)
                    else {
                        continue;
                    };
                    slide(board, them, &squares[screen + 1..], |to| {
                        add(from, to, kind);
                    });
                }
            }
            Kind::Vulture => {
                for &to in KNIGHT[from].as_slice() {
                    if free_or_enemy(usize::from(to)) {
                        add(from, usize::from(to), kind);
                    }
                }
            }
            Kind::Offering => {}
        }
        if kind == Kind::Jaguar {
            for &to in KNIGHT[from].as_slice() {
                if free_or_enemy(usize::from(to)) {
                    add(from, usize::from(to), kind);
                }
            }
        }
    }
}
