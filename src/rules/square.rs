//! Square names shared by every board: a file letter from `a` and a rank number from 1
//! (`a1`, `h10`). Boards are at most 12 files by 12 ranks.

/// The eight knight leaps as (file, rank) steps, shared by every board with knights.
pub const KNIGHT_VECTORS: [(i8, i8); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];

/// Writes the name of the square at zero-based `file` and `rank` (`(0, 0)` is `a1`).
#[must_use]
pub fn name(file: u8, rank: u8) -> String {
    format!("{}{}", char::from(b'a' + file), rank + 1)
}

/// Reads a square name at the start of `text`, case-insensitively, on a board of `files` by
/// `ranks`. Returns the zero-based file and rank and the number of bytes read.
///
/// Two-digit ranks are read greedily only when they exist on the board, so `a10` reads as a10
/// on a 12-rank board but as a1 followed by `0` on a 9-rank board.
#[must_use]
pub fn parse_prefix(text: &str, files: u8, ranks: u8) -> Option<(u8, u8, usize)> {
    let bytes = text.as_bytes();
    let file = bytes.first()?.to_ascii_lowercase().checked_sub(b'a')?;
    if file >= files {
        return None;
    }
    let digit = |i: usize| {
        bytes
            .get(i)
            .filter(|b| b.is_ascii_digit())
            .map(|b| b - b'0')
    };
    let first = digit(1)?;
    if first == 0 {
        return None;
    }
    if let Some(second) = digit(2) {
        let two = first * 10 + second;
        if two <= ranks {
            return Some((file, two - 1, 3));
        }
    }
    (first <= ranks).then_some((file, first - 1, 2))
}

/// Reads a whole text as one square name (see [`parse_prefix`]).
#[must_use]
pub fn parse(text: &str, files: u8, ranks: u8) -> Option<(u8, u8)> {
    match parse_prefix(text, files, ranks)? {
        (file, rank, len) if len == text.len() => Some((file, rank)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_on_every_board_size() {
        for size in [6u8, 7, 8, 9, 12] {
            for file in 0..size {
                for rank in 0..size {
                    assert_eq!(parse(&name(file, rank), size, size), Some((file, rank)));
                }
            }
        }
    }

    #[test]
    fn two_digit_ranks_only_where_they_exist() {
        assert_eq!(parse_prefix("a10", 12, 12), Some((0, 9, 3)));
        assert_eq!(parse_prefix("a10", 9, 9), Some((0, 0, 2)));
        assert_eq!(parse("A12", 12, 12), Some((0, 11)));
        assert_eq!(parse("m1", 12, 12), None);
        assert_eq!(parse("a0", 9, 9), None);
        assert_eq!(parse("a13", 12, 12), None);
        assert_eq!(parse("", 9, 9), None);
    }
}

/// A square by zero-based file and rank, for code that works on every board (pictures).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Coord {
    /// Zero-based file: 0 is `a`.
    pub file: u8,
    /// Zero-based rank: 0 is rank 1.
    pub rank: u8,
}

impl Coord {
    /// The square at `file` and `rank`.
    #[must_use]
    pub const fn new(file: u8, rank: u8) -> Coord {
        Coord { file, rank }
    }

    /// The square's name, such as `e4`.
    #[must_use]
    pub fn name(self) -> String {
        name(self.file, self.rank)
    }
}
