//! A 144-square bitboard: the 12x12 Chad board does not fit in a `u128`, so the last 16 squares
//! (ranks 11 and 12 from c11 on) live in a second word.

use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, Not};

use crate::rules::lines::{Bits, Squares, Wide};

/// A set of squares of the 12x12 board; square `n` is bit `n` of `lo` below 128, else bit
/// `n - 128` of `hi`. Packed to 18 bytes, which keeps positions and ray tables small.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(C, packed)]
pub(crate) struct Bb {
    lo: u128,
    hi: u16,
}

impl Bb {
    pub(crate) const EMPTY: Bb = Bb { lo: 0, hi: 0 };
    pub(crate) const FULL: Bb = Bb { lo: !0, hi: !0 };

    /// The set holding just `sq`.
    #[inline]
    pub(crate) const fn square(sq: u8) -> Bb {
        if sq < 128 {
            Bb { lo: 1 << sq, hi: 0 }
        } else {
            Bb {
                lo: 0,
                hi: 1 << (sq - 128),
            }
        }
    }

    /// The squares of rank `rank` (zero-based) whose files are the bits of `files`.
    #[inline]
    pub(crate) fn rank(rank: usize, files: u16) -> Bb {
        let shift = rank * 12;
        let bits = u128::from(files);
        if shift + 12 <= 128 {
            Bb {
                lo: bits << shift,
                hi: 0,
            }
        } else if shift >= 128 {
            Bb {
                lo: 0,
                hi: files << (shift - 128),
            }
        } else {
            Bb {
                lo: bits << shift,
                hi: files >> (128 - shift),
            }
        }
    }

    /// The squares of file `file` (zero-based) whose ranks are the bits of `ranks`.
    #[inline]
    pub(crate) fn file(file: usize, ranks: u16) -> Bb {
        ranks.squares().fold(Bb::EMPTY, |set, rank| {
            set.or(Bb::square((usize::from(rank) * 12 + file) as u8))
        })
    }

    /// The first 144 squares of a compile-time table entry.
    pub(crate) const fn from_wide(wide: Wide) -> Bb {
        Bb {
            lo: wide[0] as u128 | (wide[1] as u128) << 64,
            hi: wide[2] as u16,
        }
    }

    #[inline]
    pub(crate) const fn or(self, other: Bb) -> Bb {
        Bb {
            lo: self.lo | other.lo,
            hi: self.hi | other.hi,
        }
    }

    #[inline]
    pub(crate) const fn and(self, other: Bb) -> Bb {
        Bb {
            lo: self.lo & other.lo,
            hi: self.hi & other.hi,
        }
    }

    #[inline]
    pub(crate) const fn not(self) -> Bb {
        Bb {
            lo: !self.lo,
            hi: !self.hi,
        }
    }

    /// Whether the set holds any square.
    #[inline]
    pub(crate) const fn any(self) -> bool {
        self.lo != 0 || self.hi != 0
    }

    /// Whether the set holds `sq`.
    #[inline]
    pub(crate) const fn has(self, sq: u8) -> bool {
        if sq < 128 {
            (self.lo >> sq) & 1 != 0
        } else {
            (self.hi >> (sq - 128)) & 1 != 0
        }
    }

    /// The square of `self & occupied` nearest along a ray in direction `d`, for a ray known
    /// to hold a piece of `occupied`.
    #[inline]
    pub(crate) fn nearest_in(self, occupied: Bb, d: usize) -> u8 {
        self.and(occupied).nearest(d)
    }

    /// How many squares the set holds.
    #[inline]
    pub(crate) const fn count(self) -> u32 {
        self.lo.count_ones() + self.hi.count_ones()
    }
}

impl BitAnd for Bb {
    type Output = Bb;

    #[inline]
    fn bitand(self, other: Bb) -> Bb {
        self.and(other)
    }
}

impl BitOr for Bb {
    type Output = Bb;

    #[inline]
    fn bitor(self, other: Bb) -> Bb {
        self.or(other)
    }
}

impl BitXor for Bb {
    type Output = Bb;

    #[inline]
    fn bitxor(self, other: Bb) -> Bb {
        Bb {
            lo: self.lo ^ other.lo,
            hi: self.hi ^ other.hi,
        }
    }
}

impl Not for Bb {
    type Output = Bb;

    #[inline]
    fn not(self) -> Bb {
        Bb::not(self)
    }
}

impl BitAndAssign for Bb {
    #[inline]
    fn bitand_assign(&mut self, other: Bb) {
        *self = self.and(other);
    }
}

impl BitOrAssign for Bb {
    #[inline]
    fn bitor_assign(&mut self, other: Bb) {
        *self = self.or(other);
    }
}

impl Bits for Bb {
    type Squares = Squares<(u128, u16)>;

    #[inline]
    fn nearest(self, d: usize) -> u8 {
        if d < 4 {
            if self.lo != 0 {
                self.lo.trailing_zeros() as u8
            } else {
                128 + self.hi.trailing_zeros() as u8
            }
        } else if self.hi != 0 {
            143 - self.hi.leading_zeros() as u8
        } else {
            127 - self.lo.leading_zeros() as u8
        }
    }

    #[inline]
    fn squares(self) -> Squares<(u128, u16)> {
        // Unpacked, so that the loop keeps the words in registers.
        Squares((self.lo, self.hi))
    }
}

impl Iterator for Squares<(u128, u16)> {
    type Item = u8;

    #[inline]
    fn next(&mut self) -> Option<u8> {
        let (lo, hi) = &mut self.0;
        if *lo != 0 {
            let sq = lo.trailing_zeros() as u8;
            *lo &= *lo - 1;
            Some(sq)
        } else if *hi != 0 {
            let sq = 128 + hi.trailing_zeros() as u8;
            *hi &= *hi - 1;
            Some(sq)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_on_both_words() {
        let set = Bb::square(3) | Bb::square(127) | Bb::square(128) | Bb::square(143);
        assert_eq!(set.squares().collect::<Vec<_>>(), [3, 127, 128, 143]);
        assert_eq!(set.count(), 4);
        assert_eq!(set.nearest(0), 3);
        assert_eq!(set.nearest(4), 143);
        assert_eq!((Bb::square(127) | Bb::square(5)).nearest(4), 127);
        assert_eq!(Bb::square(130).nearest(0), 130);
        assert!(!(set & !set).any());
        assert!(set.has(128) && !set.has(129));
        for rank in 0..12 {
            let row = Bb::rank(rank, 0b1000_0000_0001);
            assert_eq!(
                row.squares().collect::<Vec<_>>(),
                [rank as u8 * 12, rank as u8 * 12 + 11]
            );
        }
        assert_eq!(Bb::file(2, 0b101).squares().collect::<Vec<_>>(), [2, 26]);
    }
}
