//! Straight lines and leaps on a rectangular board as bitboard tables, for the games whose
//! engines use bitboards: Shakti (7x7 in a `u64`) and Chad (12x12 in 144 bits). A square is
//! numbered `rank * files + file`, so a1 is 0. The tables are built at compile time as [`Wide`]
//! sets, which each game narrows to its own bitboard type.

/// A set of up to 192 squares: square `n` is bit `n % 64` of word `n / 64`.
pub(crate) type Wide = [u64; 3];

const fn with(mut set: Wide, sq: usize) -> Wide {
    set[sq / 64] |= 1 << (sq % 64);
    set
}

/// The eight directions as (file step, rank step). The first four increase the square number,
/// so the nearest square of a ray is its lowest bit; the last four are their opposites in the
/// same order, so `d` and `d ^ 4` are opposite. Even directions are orthogonal.
pub(crate) const DIRECTIONS: [(i8, i8); 8] = [
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
    (-1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
];

/// The square `(file + df, rank + dr)` if it is on the board.
const fn offset(sq: usize, files: usize, ranks: usize, df: i8, dr: i8) -> Option<usize> {
    let file = (sq % files) as isize + df as isize;
    let rank = (sq / files) as isize + dr as isize;
    if file < 0 || rank < 0 || file >= files as isize || rank >= ranks as isize {
        None
    } else {
        Some(rank as usize * files + file as usize)
    }
}

/// `rays(..)[sq][d]`: the squares from `sq` (excluded) to the board's edge in direction `d`.
pub(crate) const fn rays<const N: usize>(files: usize, ranks: usize) -> [[Wide; 8]; N] {
    let mut out = [[[0; 3]; 8]; N];
    let mut sq = 0;
    while sq < N {
        let mut d = 0;
        while d < 8 {
            let (df, dr) = DIRECTIONS[d];
            let mut at = offset(sq, files, ranks, df, dr);
            while let Some(next) = at {
                out[sq][d] = with(out[sq][d], next);
                at = offset(next, files, ranks, df, dr);
            }
            d += 1;
        }
        sq += 1;
    }
    out
}

/// The squares a leap of `(df, dr)` and its mirror images reach from each square: with
/// `(1, 0)` and `(1, 1)` the adjacent squares, with `(1, 2)` the knight's squares.
pub(crate) const fn leaps<const N: usize>(files: usize, ranks: usize, df: i8, dr: i8) -> [Wide; N] {
    let jumps = [
        (df, dr),
        (-df, dr),
        (df, -dr),
        (-df, -dr),
        (dr, df),
        (-dr, df),
        (dr, -df),
        (-dr, -df),
    ];
    let mut out = [[0; 3]; N];
    let mut sq = 0;
    while sq < N {
        let mut j = 0;
        while j < jumps.len() {
            if let Some(to) = offset(sq, files, ranks, jumps[j].0, jumps[j].1) {
                out[sq] = with(out[sq], to);
            }
            j += 1;
        }
        sq += 1;
    }
    out
}

/// Bit tricks shared by the bitboard types.
pub(crate) trait Bits: Copy {
    /// The square of a non-empty part `self` of a ray in direction `d` that is nearest to the
    /// ray's origin.
    fn nearest(self, d: usize) -> u8;

    /// The set squares, lowest first.
    fn squares(self) -> Self::Squares;

    /// The iterator of [`Bits::squares`].
    type Squares: Iterator<Item = u8>;
}

/// An iterator over the set squares of a bitboard, lowest first.
#[derive(Debug, Clone)]
pub(crate) struct Squares<T>(pub(crate) T);

impl Bits for u64 {
    type Squares = Squares<u64>;

    #[inline]
    fn nearest(self, d: usize) -> u8 {
        if d < 4 {
            self.trailing_zeros() as u8
        } else {
            (63 - self.leading_zeros()) as u8
        }
    }

    #[inline]
    fn squares(self) -> Squares<u64> {
        Squares(self)
    }
}

impl Bits for u16 {
    type Squares = Squares<u16>;

    #[inline]
    fn nearest(self, d: usize) -> u8 {
        u64::from(self).nearest(d)
    }

    #[inline]
    fn squares(self) -> Squares<u16> {
        Squares(self)
    }
}

/// Pops the lowest set square of each word type in turn.
macro_rules! squares_iterator {
    ($($word:ty),+) => {$(
        impl Iterator for Squares<$word> {
            type Item = u8;

            #[inline]
            fn next(&mut self) -> Option<u8> {
                if self.0 == 0 {
                    return None;
                }
                let sq = self.0.trailing_zeros() as u8;
                self.0 &= self.0 - 1;
                Some(sq)
            }
        }
    )+};
}

squares_iterator!(u16, u64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rays_and_leaps_on_a_small_board() {
        let rays = rays::<9>(3, 3);
        // From b2 (4): east is c2 (5), north-east c3 (8), south-west a1 (0).
        assert_eq!(rays[4][0][0], 1 << 5);
        assert_eq!(rays[4][3][0], 1 << 8);
        assert_eq!(rays[4][7][0], 1);
        assert_eq!(rays[0][2][0], (1 << 3) | (1 << 6));
        assert_eq!(rays[0][2][0].nearest(2), 3);
        assert_eq!(rays[8][6][0].nearest(6), 5);
        let adjacent = leaps::<9>(3, 3, 1, 0);
        assert_eq!(adjacent[4][0], (1 << 1) | (1 << 3) | (1 << 5) | (1 << 7));
        assert_eq!(super::rays::<144>(12, 12)[0][2][2], 1 << (132 - 128));
        assert_eq!(0b1010u64.squares().collect::<Vec<_>>(), [1, 3]);
    }
}
