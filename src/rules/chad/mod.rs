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

use std::fmt;
use std::str::FromStr;

use bitboard::Bb;

use super::lines::{self, Bits};
use super::notation::{self, Describe, Shape, Sq};
use super::{
    BoardView, Cell, Color, Coord, EndReason, MoveError, MoveMarks, Outcome, Position,
    PositionError, Variant,
};

const FILES: usize = 12;
const RANKS: usize = 12;
const SQUARES: usize = FILES * RANKS;

/// The start position (spec §2.3).
pub const START: &str = "12/12/7rrr2/7rkr2/7rrr2/12/12/2RRR7/2RKR7/2RRR7/12/12 w";

/// The most rooks and queens a side can have: eight rooks start and none are ever added.
pub const MAX_MEN: u32 = 8;

/// C12 (Recommendation): a stalemate is a draw. With `false` the stalemated side loses.
pub const STALEMATE_IS_DRAW: bool = true;

static RAYS: [[Bb; 8]; SQUARES] = {
    let wide = lines::rays::<SQUARES>(FILES, RANKS);
    let mut out = [[Bb::EMPTY; 8]; SQUARES];
    let mut sq = 0;
    while sq < SQUARES {
        let mut d = 0;
        while d < 8 {
            out[sq][d] = Bb::from_wide(wide[sq][d]);
            d += 1;
        }
        sq += 1;
    }
    out
};

/// The lower-left corner (file, rank) of each side's castle (C-A1: coordinates are data).
const CASTLE_CORNER: [(usize, usize); 2] = [(2, 2), (7, 7)];

/// A rectangle of squares, corners included, as a bitboard.
const fn block(file: usize, rank: usize, width: usize, height: usize) -> Bb {
    let mut out = Bb::EMPTY;
    let mut r = rank;
    while r < rank + height {
        let mut f = file;
        while f < file + width {
            out = out.or(Bb::square((r * FILES + f) as u8));
            f += 1;
        }
        r += 1;
    }
    out
}

const fn castle(color: usize) -> Bb {
    block(CASTLE_CORNER[color].0, CASTLE_CORNER[color].1, 3, 3)
}

/// The 5x5 ring around a castle without its corners: twelve squares.
const fn wall(color: usize) -> Bb {
    let (file, rank) = CASTLE_CORNER[color];
    block(file - 1, rank, 5, 3)
        .or(block(file, rank - 1, 3, 5))
        .and(castle(color).not())
}

/// Each side's castle.
const CASTLE: [Bb; 2] = [castle(0), castle(1)];

/// Each side's wall.
const WALL: [Bb; 2] = [wall(0), wall(1)];

/// `KING_STEPS[local]`: where a king may go inside its castle (C2: a step or a knight's leap),
/// with the castle's squares numbered 0 to 8 from its lower-left corner, rank by rank.
const KING_STEPS: [u16; 9] = {
    let mut out = [0; 9];
    let mut from: usize = 0;
    while from < 9 {
        let mut to: usize = 0;
        while to < 9 {
            let df = (from % 3).abs_diff(to % 3);
            let dr = (from / 3).abs_diff(to / 3);
            if (df <= 1 && dr <= 1 && to != from) || (df == 1 && dr == 2) || (df == 2 && dr == 1) {
                out[from] |= 1 << to;
            }
            to += 1;
        }
        from += 1;
    }
    out
};

/// `CAPTURE_ZONE[side][sq]`: where a rook or queen of `side` on `sq` may capture (C7): into
/// the enemy castle from the enemy wall, onto the own wall from the own castle, else nowhere.
const CAPTURE_ZONE: [[Bb; SQUARES]; 2] = {
    let mut out = [[Bb::EMPTY; SQUARES]; 2];
    let mut side = 0;
    while side < 2 {
        let mut sq = 0;
        while sq < SQUARES {
            if WALL[1 - side].has(sq as u8) {
                out[side][sq] = CASTLE[1 - side];
            } else if CASTLE[side].has(sq as u8) {
                out[side][sq] = WALL[side];
            }
            sq += 1;
        }
        side += 1;
    }
    out
};

#[inline]
const fn bit(sq: u8) -> Bb {
    Bb::square(sq)
}

const fn coord(sq: u8) -> Sq {
    (sq % FILES as u8, sq / FILES as u8)
}

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

/// Where the pieces other than the king may go: anywhere, or in check only to block or
/// capture the checker (`evasion`), and a pinned piece only along its pin line.
struct Restriction<'a> {
    checked: bool,
    evasion: Bb,
    /// Each pinned piece's square and the line from the king it must stay on.
    pins: &'a [(u8, Bb)],
}

/// Receives generated moves: a list for [`Position::legal_moves`], a counter for perft's last
/// ply. Both go through the one generator, so they cannot disagree.
trait Sink {
    /// Moves of the `piece` on `from` to the `quiet` and `captures` squares; a rook promotes on
    /// the `promote` squares.
    fn moves(&mut self, piece: char, from: u8, quiet: Bb, captures: Bb, promote: Bb);

    /// The running count, for a sink that only counts: the generator may then add a piece's
    /// number of moves without listing their squares.
    fn total(&mut self) -> Option<&mut u64> {
        None
    }
}

struct Counter(u64);

impl Sink for Counter {
    #[inline]
    fn moves(&mut self, _piece: char, _from: u8, quiet: Bb, captures: Bb, _promote: Bb) {
        self.0 += u64::from((quiet | captures).count());
    }

    #[inline]
    fn total(&mut self) -> Option<&mut u64> {
        Some(&mut self.0)
    }
}

/// More than the most moves a side can have: eight queens of at most 44 moves and a king.
const MAX_MOVES: usize = 384;

/// A fixed-size move list, so perft allocates nothing.
struct MoveList {
    moves: [ChadMove; MAX_MOVES],
    len: usize,
}

impl MoveList {
    fn new() -> MoveList {
        let none = ChadMove {
            from: 0,
            to: 0,
            piece: 'K',
            capture: false,
            promotion: false,
        };
        MoveList {
            moves: [none; MAX_MOVES],
            len: 0,
        }
    }

    fn as_slice(&self) -> &[ChadMove] {
        &self.moves[..self.len]
    }
}

impl Sink for MoveList {
    #[inline]
    fn moves(&mut self, piece: char, from: u8, quiet: Bb, captures: Bb, promote: Bb) {
        for (targets, capture) in [(quiet, false), (captures, true)] {
            for to in targets.squares() {
                self.moves[self.len] = ChadMove {
                    from,
                    to,
                    piece,
                    capture,
                    promotion: promote.has(to),
                };
                self.len += 1;
            }
        }
    }
}

/// The squares a queen on `from` reaches diagonally, up to and including the first piece in
/// each direction.
#[inline]
fn diagonal_reach(from: u8, occupied: Bb) -> Bb {
    ray_reach(from, 1, occupied)
        | ray_reach(from, 3, occupied)
        | ray_reach(from, 5, occupied)
        | ray_reach(from, 7, occupied)
}

/// `LINE_REACH[pos][inner]`: on a line of 12 squares (a rank or a file) whose occupancy has
/// the inner ten bits `inner` (squares 1 to 10; the end squares never block anything), the
/// squares a rook on `pos` reaches, up to and including the first piece each way.
static LINE_REACH: [[u16; 1024]; FILES] = {
    let mut out = [[0; 1024]; FILES];
    let mut pos = 0;
    while pos < FILES {
        let mut inner = 0;
        while inner < 1024 {
            let occupied = inner << 1;
            let mut reach = 0u16;
            let mut up = pos + 1;
            while up < FILES {
                reach |= 1 << up;
                if occupied & 1 << up != 0 {
                    break;
                }
                up += 1;
            }
            let mut down = pos;
            while down > 0 {
                down -= 1;
                reach |= 1 << down;
                if occupied & 1 << down != 0 {
                    break;
                }
            }
            out[pos][inner] = reach;
            inner += 1;
        }
        pos += 1;
    }
    out
};

/// The squares a rook on `pos` of a line with occupancy `occupied` reaches along it.
#[inline]
fn line_reach(pos: usize, occupied: u16) -> u16 {
    LINE_REACH[pos][usize::from((occupied >> 1) & 0x3FF)]
}

/// `LINE_COUNT[bits]`: how many of the 12 bits of a line are set (a table, because the
/// portable x86-64 target has no population count instruction).
static LINE_COUNT: [u8; 1 << FILES] = {
    let mut out = [0; 1 << FILES];
    let mut bits = 0;
    while bits < out.len() {
        out[bits] = bits.count_ones() as u8;
        bits += 1;
    }
    out
};

/// The number of squares in a set of a line's squares.
#[inline]
fn line_count(bits: u16) -> u32 {
    u32::from(LINE_COUNT[usize::from(bits & 0xFFF)])
}

/// `FILE_RANK[sq]`: the zero-based file and rank of each square (a table lookup is cheaper
/// than dividing by 12 in the generator's inner loop).
const FILE_RANK: [(u8, u8); SQUARES] = {
    let mut out = [(0, 0); SQUARES];
    let mut sq = 0;
    while sq < SQUARES {
        out[sq] = ((sq % FILES) as u8, (sq / FILES) as u8);
        sq += 1;
    }
    out
};

/// The zero-based file and rank of a square.
#[inline]
fn file_rank(sq: u8) -> (usize, usize) {
    let (file, rank) = FILE_RANK[usize::from(sq)];
    (usize::from(file), usize::from(rank))
}

/// `AREA[sq]`: 1 and 2 for White's castle and wall, 3 and 4 for Black's, 0 elsewhere.
const AREA: [u8; SQUARES] = {
    let mut out = [0; SQUARES];
    let mut sq = 0;
    while sq < SQUARES {
        let mut side = 0;
        while side < 2 {
            if CASTLE[side].has(sq as u8) {
                out[sq] = 1 + 2 * side as u8;
            } else if WALL[side].has(sq as u8) {
                out[sq] = 2 + 2 * side as u8;
            }
            side += 1;
        }
        sq += 1;
    }
    out
};

/// `CAPTURE_AREA[side][sq]`: the [`AREA`] a rook or queen of `side` on `sq` may capture in
/// (C7), or 0. The same rule as [`CAPTURE_ZONE`], as a number for the line lookups.
const CAPTURE_AREA: [[u8; SQUARES]; 2] = {
    let mut out = [[0; SQUARES]; 2];
    let mut side = 0;
    while side < 2 {
        let mut sq = 0;
        while sq < SQUARES {
            let own_castle = 1 + 2 * side as u8;
            let enemy_castle = 3 - 2 * side as u8;
            if AREA[sq] == enemy_castle + 1 {
                out[side][sq] = enemy_castle;
            } else if AREA[sq] == own_castle {
                out[side][sq] = own_castle + 1;
            }
            sq += 1;
        }
        side += 1;
    }
    out
};

/// The square number of `file` and `rank`.
#[inline]
fn square(file: impl Into<usize>, rank: impl Into<usize>) -> u8 {
    (rank.into() * FILES + file.into()) as u8
}

/// A square beyond the far end of every ray in each direction: l12 for the directions that
/// go up the square numbers, a1 for the others. Rays from it in that direction are empty.
const SENTINEL: [u8; 8] = [143, 143, 143, 143, 0, 0, 0, 0];

/// The first piece of `occupied` on ray `d` from `from`, or the direction's sentinel square
/// when the ray is open. Adding the sentinel avoids a branch in the hottest loop.
#[inline(always)]
fn first_stop(from: u8, d: usize, occupied: Bb) -> u8 {
    (RAYS[usize::from(from)][d] & occupied | bit(SENTINEL[d])).nearest(d)
}

/// The squares of ray `d` from `from` up to and including its first piece.
#[inline(always)]
fn ray_reach(from: u8, d: usize, occupied: Bb) -> Bb {
    RAYS[usize::from(from)][d] ^ RAYS[usize::from(first_stop(from, d, occupied))][d]
}

impl Chad {
    /// Flips the occupancy of `sq` by `side` in the rank and file lines.
    #[inline]
    fn toggle_line_bit(&mut self, side: usize, sq: u8) {
        let (file, rank) = file_rank(sq);
        self.ranks[side][rank] ^= 1 << file;
        self.files[side][file] ^= 1 << rank;
    }

    /// The squares of `owner`'s castle occupied by `side`, numbered as in [`KING_STEPS`].
    #[inline]
    fn castle_bits(&self, owner: usize, side: usize) -> u16 {
        let (file, rank) = CASTLE_CORNER[owner];
        (0..3).fold(0, |bits, row| {
            bits | ((self.ranks[side][rank + row] >> file) & 7) << (3 * row)
        })
    }

    /// The occupied squares of rank `rank`, both sides.
    #[inline]
    fn rank_line(&self, rank: usize) -> u16 {
        self.ranks[0][rank] | self.ranks[1][rank]
    }

    /// The occupied squares of file `file`, both sides.
    #[inline]
    fn file_line(&self, file: usize) -> u16 {
        self.files[0][file] | self.files[1][file]
    }

    /// Whether an enemy rook or queen (of `them`) attacks `sq` along its rank or file, with
    /// the square `lifted` treated as empty. Enemy kings never share a rank or file with a
    /// square of the other castle, so every enemy piece on these lines is a rook or queen.
    #[inline]
    fn attacked_on_lines(&self, them: usize, sq: u8, lifted: u8) -> bool {
        let (file, rank) = file_rank(sq);
        let (lifted_file, lifted_rank) = file_rank(lifted);
        let mut rank_line = self.rank_line(rank);
        let mut file_line = self.file_line(file);
        if lifted_rank == rank {
            rank_line &= !(1 << lifted_file);
        }
        if lifted_file == file {
            file_line &= !(1 << lifted_rank);
        }
        line_reach(file, rank_line) & self.ranks[them][rank] != 0
            || line_reach(rank, file_line) & self.files[them][file] != 0
    }

    #[inline]
    fn men(&self, side: usize) -> Bb {
        self.rooks[side] | self.queens[side]
    }

    #[inline]
    fn pieces(&self, side: usize) -> Bb {
        self.men(side) | bit(self.kings[side])
    }

    /// Whether a square of the castles is attacked by `them` with the square `lifted` treated
    /// as empty (C9: walls and castles never block; only rooks and queens attack).
    #[inline]
    fn attacked(&self, them: usize, sq: u8, lifted: u8) -> bool {
        self.attacked_on_lines(them, sq, lifted)
            || (self.queens[them].any() && {
                let occupied = (self.pieces(0) | self.pieces(1)) & !bit(lifted);
                let rays = &RAYS[usize::from(sq)];
                [1, 3, 5, 7]
                    .into_iter()
                    .any(|d| (rays[d] & self.queens[them]).has(first_stop(sq, d, occupied)))
            })
    }

    fn king_in_check(&self, color: Color) -> bool {
        let king = self.kings[color.index()];
        self.attacked(color.other().index(), king, king)
    }

    /// Generates every legal move into `sink` and returns whether the side to move is in check.
    ///
    /// Lines from the own king find the checkers and the pinned pieces first. A king move is
    /// legal when its target is not attacked with the king lifted off its square. Any other
    /// move must stay on its pin line, and in check must capture the checker or block it;
    /// against two checkers only the king moves.
    fn generate(&self, sink: &mut impl Sink) -> bool {
        let us = self.turn.index();
        let them = 1 - us;
        let king = self.kings[us];
        let diagonal = self.queens[them];
        // The whole-board sets are only needed off the common path (checks, pins, queens,
        // listing), so they are computed where used.
        let occupied = || self.pieces(us) | self.pieces(them);

        let mut checkers = 0;
        let mut evasion = Bb::FULL;
        let mut pins = [(0u8, Bb::EMPTY); 8];
        let mut pinned = 0;
        let (king_file, king_rank) = file_rank(king);
        let lines = [
            (
                king_file,
                self.rank_line(king_rank),
                self.ranks[them][king_rank],
                [0, 4],
            ),
            (
                king_rank,
                self.file_line(king_file),
                self.files[them][king_file],
                [2, 6],
            ),
        ];
        for (pos, line, enemies, [up, down]) in lines {
            let blockers = line_reach(pos, line) & line;
            for first in blockers.squares() {
                let d = if usize::from(first) > pos { up } else { down };
                if enemies & 1 << first != 0 {
                    checkers += 1;
                    let checker = RAYS[usize::from(king)][d].nearest_in(occupied(), d);
                    evasion = RAYS[usize::from(king)][d] ^ RAYS[usize::from(checker)][d];
                    continue;
                }
                // An own piece: pinned if the next piece behind it is an enemy rook or queen.
                let behind = line_reach(usize::from(first), line) & line & !(1 << pos);
                let beyond = if d == up {
                    behind & !((2 << first) - 1)
                } else {
                    behind & ((1 << first) - 1)
                };
                if beyond & enemies != 0 {
                    let ray = RAYS[usize::from(king)][d];
                    pins[pinned] = (ray.nearest_in(occupied(), d), ray);
                    pinned += 1;
                }
            }
        }
        if diagonal.any() {
            let (own, occupied) = (self.pieces(us), occupied());
            for d in [1, 3, 5, 7] {
                let ray = RAYS[usize::from(king)][d];
                let blockers = ray & occupied;
                if !blockers.any() {
                    continue;
                }
                let first = blockers.nearest(d);
                if diagonal.has(first) {
                    checkers += 1;
                    evasion = ray ^ RAYS[usize::from(first)][d];
                } else if own.has(first) {
                    let beyond = RAYS[usize::from(first)][d] & occupied;
                    if beyond.any() && diagonal.has(beyond.nearest(d)) {
                        pins[pinned] = (first, ray);
                        pinned += 1;
                    }
                }
            }
        }

        // King moves, on the nine squares of the castle.
        let (corner_file, corner_rank) = CASTLE_CORNER[us];
        let castle_square = |local: u8| {
            square(
                corner_file + usize::from(local % 3),
                corner_rank + usize::from(local / 3),
            )
        };
        let local = (king_rank - corner_rank) * 3 + king_file - corner_file;
        let safe = (KING_STEPS[local] & !self.castle_bits(us, us))
            .squares()
            .filter(|&to| !self.attacked(them, castle_square(to), king))
            .fold(0u16, |safe, to| safe | 1 << to);
        if let Some(total) = sink.total() {
            *total += u64::from(line_count(safe));
        } else {
            let prey = self.castle_bits(us, them);
            let squares = |locals: u16| {
                locals
                    .squares()
                    .fold(Bb::EMPTY, |set, local| set | bit(castle_square(local)))
            };
            sink.moves(
                'K',
                king,
                squares(safe & !prey),
                squares(safe & prey),
                Bb::EMPTY,
            );
        }
        if checkers >= 2 {
            return true;
        }

        let restriction = Restriction {
            checked: checkers > 0,
            evasion,
            pins: &pins[..pinned],
        };
        for from in self.rooks[us].squares() {
            self.man_moves(sink, 'R', from, &restriction);
        }
        for from in self.queens[us].squares() {
            self.man_moves(sink, 'Q', from, &restriction);
        }
        checkers > 0
    }

    /// The moves of the rook or queen `piece` on `from` (see [`Chad::generate`]).
    #[inline(always)]
    fn man_moves(&self, sink: &mut impl Sink, piece: char, from: u8, restriction: &Restriction) {
        let us = self.turn.index();
        let them = 1 - us;
        let occupied = || self.pieces(us) | self.pieces(them);
        let promote = if piece == 'R' {
            CASTLE[them]
        } else {
            Bb::EMPTY
        };
        let (file, rank) = file_rank(from);
        let (rank_occupied, file_occupied) = (self.rank_line(rank), self.file_line(file));
        let along_rank = line_reach(file, rank_occupied);
        let along_file = line_reach(rank, file_occupied);
        let (rank_quiet, file_quiet) = (along_rank & !rank_occupied, along_file & !file_occupied);
        let (mut rank_prey, mut file_prey) = (0u16, 0u16);
        // The line boards hold the enemy king too, but it can never be prey here: in
        // its castle it would be in check with us to move, and it never stands on a wall.
        let zone = CAPTURE_AREA[us][usize::from(from)];
        if zone != 0 {
            for f in (along_rank & self.ranks[them][rank]).squares() {
                rank_prey |= u16::from(AREA[usize::from(square(f, rank))] == zone) << f;
            }
            for r in (along_file & self.files[them][file]).squares() {
                file_prey |= u16::from(AREA[usize::from(square(file, r))] == zone) << r;
            }
        }
        let queen = piece == 'Q';
        let prey = || CAPTURE_ZONE[us][usize::from(from)] & self.men(them);
        let diagonals = if queen {
            diagonal_reach(from, occupied())
        } else {
            Bb::EMPTY
        };
        let restricted =
            restriction.checked || restriction.pins.iter().any(|&(man, _)| man == from);
        if !restricted && let Some(total) = sink.total() {
            // The common case at perft's last ply: count without listing squares.
            let mut count = line_count(rank_quiet | rank_prey) + line_count(file_quiet | file_prey);
            if queen {
                count += (diagonals & (!occupied() | prey())).count();
            }
            *total += u64::from(count);
            return;
        }
        let mut allowed = restriction.evasion;
        for &(man, line) in restriction.pins {
            if man == from {
                allowed &= line;
            }
        }
        let quiet =
            Bb::rank(rank, rank_quiet) | Bb::file(file, file_quiet) | (diagonals & !occupied());
        let captures = Bb::rank(rank, rank_prey) | Bb::file(file, file_prey) | (diagonals & prey());
        sink.moves(piece, from, quiet & allowed, captures & allowed, promote);
    }

    fn has_move(&self) -> bool {
        let mut counter = Counter(0);
        self.generate(&mut counter);
        counter.0 > 0
    }

    /// The position after a legal move.
    fn after(&self, mv: ChadMove) -> Chad {
        let us = self.turn.index();
        let them = 1 - us;
        let mut next = Chad {
            turn: self.turn.other(),
            ..*self
        };
        let (from, to) = (bit(mv.from), bit(mv.to));
        next.toggle_line_bit(us, mv.from);
        next.toggle_line_bit(us, mv.to);
        if mv.capture {
            next.toggle_line_bit(them, mv.to);
            next.rooks[them] &= !to;
            next.queens[them] &= !to;
        }
        match mv.piece {
            'K' => next.kings[us] = mv.to,
            'R' if mv.promotion => {
                next.rooks[us] &= !from;
                next.queens[us] |= to;
            }
            'R' => next.rooks[us] = next.rooks[us] ^ (from | to),
            _ => next.queens[us] = next.queens[us] ^ (from | to),
        }
        next
    }

    /// Perft with bulk counting at the last ply.
    fn count(&self, depth: u32) -> u64 {
        match depth {
            0 => 1,
            1 => {
                let mut counter = Counter(0);
                self.generate(&mut counter);
                counter.0
            }
            _ => {
                let mut list = MoveList::new();
                self.generate(&mut list);
                list.as_slice()
                    .iter()
                    .map(|&mv| self.after(mv).count(depth - 1))
                    .sum()
            }
        }
    }

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
