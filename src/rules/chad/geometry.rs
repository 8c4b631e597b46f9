//! The board's fixed facts: squares, rays, castles and walls, and the lookup tables of
//! rook and queen lines.

use super::bitboard::Bb;
use super::lines;
use crate::rules::lines::Bits;
use crate::rules::notation::Sq;

pub(super) const FILES: usize = 12;
pub(super) const RANKS: usize = 12;
pub(super) const SQUARES: usize = FILES * RANKS;

pub(super) static RAYS: [[Bb; 8]; SQUARES] = {
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
pub(super) const CASTLE_CORNER: [(usize, usize); 2] = [(2, 2), (7, 7)];

/// A rectangle of squares, corners included, as a bitboard.
pub(super) const fn block(file: usize, rank: usize, width: usize, height: usize) -> Bb {
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

pub(super) const fn castle(color: usize) -> Bb {
    block(CASTLE_CORNER[color].0, CASTLE_CORNER[color].1, 3, 3)
}

/// The 5x5 ring around a castle without its corners: twelve squares.
pub(super) const fn wall(color: usize) -> Bb {
    let (file, rank) = CASTLE_CORNER[color];
    block(file - 1, rank, 5, 3)
        .or(block(file, rank - 1, 3, 5))
        .and(castle(color).not())
}

/// Each side's castle.
pub(super) const CASTLE: [Bb; 2] = [castle(0), castle(1)];

/// Each side's wall.
pub(super) const WALL: [Bb; 2] = [wall(0), wall(1)];

/// `KING_STEPS[local]`: where a king may go inside its castle (C2: a step or a knight's leap),
/// with the castle's squares numbered 0 to 8 from its lower-left corner, rank by rank.
pub(super) const KING_STEPS: [u16; 9] = {
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
pub(super) const CAPTURE_ZONE: [[Bb; SQUARES]; 2] = {
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
pub(super) const fn bit(sq: u8) -> Bb {
    Bb::square(sq)
}

pub(super) const fn coord(sq: u8) -> Sq {
    (sq % FILES as u8, sq / FILES as u8)
}

/// The squares a queen on `from` reaches diagonally, up to and including the first piece in
/// each direction.
#[inline]
pub(super) fn diagonal_reach(from: u8, occupied: Bb) -> Bb {
    ray_reach(from, 1, occupied)
        | ray_reach(from, 3, occupied)
        | ray_reach(from, 5, occupied)
        | ray_reach(from, 7, occupied)
}

/// `LINE_REACH[pos][inner]`: on a line of 12 squares (a rank or a file) whose occupancy has
/// the inner ten bits `inner` (squares 1 to 10; the end squares never block anything), the
/// squares a rook on `pos` reaches, up to and including the first piece each way.
pub(super) static LINE_REACH: [[u16; 1024]; FILES] = {
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
pub(super) fn line_reach(pos: usize, occupied: u16) -> u16 {
    LINE_REACH[pos][usize::from((occupied >> 1) & 0x3FF)]
}

/// `LINE_COUNT[bits]`: how many of the 12 bits of a line are set (a table, because the
/// portable x86-64 target has no population count instruction).
pub(super) static LINE_COUNT: [u8; 1 << FILES] = {
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
pub(super) fn line_count(bits: u16) -> u32 {
    u32::from(LINE_COUNT[usize::from(bits & 0xFFF)])
}

/// `FILE_RANK[sq]`: the zero-based file and rank of each square (a table lookup is cheaper
/// than dividing by 12 in the generator's inner loop).
pub(super) const FILE_RANK: [(u8, u8); SQUARES] = {
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
pub(super) fn file_rank(sq: u8) -> (usize, usize) {
    let (file, rank) = FILE_RANK[usize::from(sq)];
    (usize::from(file), usize::from(rank))
}

/// `AREA[sq]`: 1 and 2 for White's castle and wall, 3 and 4 for Black's, 0 elsewhere.
pub(super) const AREA: [u8; SQUARES] = {
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
pub(super) const CAPTURE_AREA: [[u8; SQUARES]; 2] = {
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
pub(super) fn square(file: impl Into<usize>, rank: impl Into<usize>) -> u8 {
    (rank.into() * FILES + file.into()) as u8
}

/// A square beyond the far end of every ray in each direction: l12 for the directions that
/// go up the square numbers, a1 for the others. Rays from it in that direction are empty.
pub(super) const SENTINEL: [u8; 8] = [143, 143, 143, 143, 0, 0, 0, 0];

/// The first piece of `occupied` on ray `d` from `from`, or the direction's sentinel square
/// when the ray is open. Adding the sentinel avoids a branch in the hottest loop.
#[inline(always)]
pub(super) fn first_stop(from: u8, d: usize, occupied: Bb) -> u8 {
    (RAYS[usize::from(from)][d] & occupied | bit(SENTINEL[d])).nearest(d)
}

/// The squares of ray `d` from `from` up to and including its first piece.
#[inline(always)]
pub(super) fn ray_reach(from: u8, d: usize, occupied: Bb) -> Bb {
    RAYS[usize::from(from)][d] ^ RAYS[usize::from(first_stop(from, d, occupied))][d]
}
