//! A fixed-width unsigned integer of `N` 64-bit words, for the pairing weights: a Dutch weight
//! packs every pairing criterion into its own bit field, which for a large late round needs
//! several hundred bits.

use std::cmp::Ordering;
use std::fmt;

/// An unsigned integer of `64 * N` bits; arithmetic wraps like the primitive types' wrapping
/// operations (the pairing code sizes `N` so that it never does).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Wide<const N: usize>([u64; N]);

impl<const N: usize> Wide<N> {
    /// Zero.
    pub const ZERO: Self = Self([0; N]);

    /// A small value.
    #[must_use]
    pub fn from_u64(value: u64) -> Self {
        let mut words = [0; N];
        words[0] = value;
        Self(words)
    }

    /// The value with only bit `bit` set.
    #[must_use]
    pub fn bit(bit: u32) -> Self {
        let mut words = [0; N];
        words[(bit / 64) as usize] = 1 << (bit % 64);
        Self(words)
    }

    /// All `bits` low bits set.
    #[must_use]
    pub fn ones(bits: u32) -> Self {
        let mut words = [0; N];
        for (index, word) in words.iter_mut().enumerate() {
            let low = 64 * index as u32;
            if bits >= low + 64 {
                *word = u64::MAX;
            } else if bits > low {
                *word = (1 << (bits - low)) - 1;
            }
        }
        Self(words)
    }

    /// Whether the value is zero.
    #[must_use]
    pub fn is_zero(&self) -> bool {
        self.0.iter().fold(0, |any, &word| any | word) == 0
    }

    /// The sum, wrapping.
    #[must_use]
    pub fn add(self, other: Self) -> Self {
        // Word by word with the carry in a 128-bit sum, which compiles to add-with-carry.
        let mut words = [0; N];
        let mut carry = 0;
        for (index, word) in words.iter_mut().enumerate() {
            let sum = u128::from(self.0[index]) + u128::from(other.0[index]) + carry;
            *word = sum as u64;
            carry = sum >> 64;
        }
        Self(words)
    }

    /// The difference, wrapping.
    #[must_use]
    pub fn sub(self, other: Self) -> Self {
        // Word by word, the borrow being whether either subtraction wrapped, which compiles to
        // subtract-with-borrow.
        let mut words = [0; N];
        let mut borrow = false;
        for (index, word) in words.iter_mut().enumerate() {
            let (difference, wrapped) = self.0[index].overflowing_sub(other.0[index]);
            let (difference, wrapped_again) = difference.overflowing_sub(u64::from(borrow));
            *word = difference;
            borrow = wrapped | wrapped_again;
        }
        Self(words)
    }

    /// The value shifted left by `shift` bits (less than `64 * N`).
    #[must_use]
    pub fn shl(self, shift: u32) -> Self {
        let (words_shift, bits) = ((shift / 64) as usize, shift % 64);
        let mut words = [0; N];
        for index in (words_shift..N).rev() {
            let source = index - words_shift;
            let mut word = self.0[source] << bits;
            if bits > 0 && source > 0 {
                word |= self.0[source - 1] >> (64 - bits);
            }
            words[index] = word;
        }
        Self(words)
    }

    /// Half the value, rounded down.
    #[must_use]
    pub fn half(self) -> Self {
        let mut words = [0; N];
        for (index, word) in words.iter_mut().enumerate() {
            let high = self.0.get(index + 1).map_or(0, |next| next << 63);
            *word = (self.0[index] >> 1) | high;
        }
        Self(words)
    }

    /// The bitwise or.
    #[must_use]
    pub fn or(self, other: Self) -> Self {
        let mut words = self.0;
        for (word, other) in words.iter_mut().zip(other.0) {
            *word |= other;
        }
        Self(words)
    }
}

impl<const N: usize> Default for Wide<N> {
    fn default() -> Self {
        Self::ZERO
    }
}

impl<const N: usize> Ord for Wide<N> {
    fn cmp(&self, other: &Self) -> Ordering {
        // From the low word up, each unequal word overriding the ones below: no branches.
        let mut ordering = Ordering::Equal;
        for (word, other) in self.0.iter().zip(&other.0) {
            let here = word.cmp(other);
            if here != Ordering::Equal {
                ordering = here;
            }
        }
        ordering
    }
}

impl<const N: usize> PartialOrd for Wide<N> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<const N: usize> fmt::Debug for Wide<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("0x")?;
        for word in self.0.iter().rev() {
            write!(f, "{word:016x}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Wide;

    type W = Wide<2>;

    fn value(wide: W) -> u128 {
        u128::from(wide.0[0]) | (u128::from(wide.0[1]) << 64)
    }

    #[test]
    fn arithmetic_matches_u128() {
        let samples = [
            0u128,
            1,
            3,
            u128::from(u64::MAX),
            1 << 64,
            (1 << 100) + 12345,
        ];
        let wide = |n: u128| Wide::<2>([n as u64, (n >> 64) as u64]);
        for &a in &samples {
            for &b in &samples {
                assert_eq!(value(wide(a).add(wide(b))), a.wrapping_add(b));
                assert_eq!(value(wide(a).sub(wide(b))), a.wrapping_sub(b));
                assert_eq!(wide(a).cmp(&wide(b)), a.cmp(&b));
                assert_eq!(value(wide(a).or(wide(b))), a | b);
            }
            for shift in [0, 1, 63, 64, 65, 100] {
                assert_eq!(value(wide(a).shl(shift)), a << shift);
            }
            assert_eq!(value(wide(a).half()), a >> 1);
        }
        assert_eq!(value(W::ones(70)), (1 << 70) - 1);
        assert_eq!(value(W::bit(100)), 1 << 100);
        assert!(W::ZERO.is_zero() && !W::from_u64(5).is_zero());
    }
}
