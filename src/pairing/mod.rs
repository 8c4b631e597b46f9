//! Tournament pairings: Swiss rounds by the FIDE Dutch system and round robins by the FIDE
//! Berger tables. Pure: no I/O, no clock, no randomness (the colour of the top seed in round
//! 1 is an input).
//!
//! - [`trf`] reads a tournament so far from TRF (FIDE's Tournament Report File).
//! - [`pair_dutch`] pairs its next round by the Dutch system (C.04.3, 2025 rules), following
//!   FIDE C.04.3 as bbpPairings implements it; [`format_pairs`] writes the pairs in
//!   bbpPairings' output format.
//! - [`berger`] gives the round-robin schedule of FIDE C.05 Annex 1 for any number of players.

pub mod berger;
mod dutch;
mod matching;
pub mod tournament;
pub mod trf;
mod wide;

use std::fmt::Write as _;

pub use tournament::{Color, Tournament};
pub use trf::TrfError;

/// One pair of a round, by start rank index (0 for the top seed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Pair {
    /// The player with White, or the player with the bye.
    pub white: usize,
    /// The player with Black; `None` for the pairing-allocated bye.
    pub black: Option<usize>,
}

impl Pair {
    /// A game.
    #[must_use]
    pub fn game(white: usize, black: usize) -> Self {
        Self {
            white,
            black: Some(black),
        }
    }

    /// The pairing-allocated bye.
    #[must_use]
    pub fn bye(player: usize) -> Self {
        Self {
            white: player,
            black: None,
        }
    }
}

/// Why a round cannot be paired.
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error)]
pub enum PairingError {
    /// Nobody is left to pair.
    #[error("there are no players to pair")]
    NoPlayers,
    /// The absolute criteria leave no pairing (everyone has met, or colours forbid it).
    #[error(
        "no pairing satisfies the absolute criteria: the players cannot all be paired without \
         a rematch, two players with the same absolute colour preference meeting, or a second \
         bye"
    )]
    NoValidPairing,
    /// The tournament is too large for the weights.
    #[error("the tournament is too large to pair")]
    TooLarge,
}

/// Pairs the next round of `tournament` by the FIDE Dutch system, in the order pairings are
/// published: by the score of the higher player, then the lower one, then pairing number; the
/// bye last.
///
/// # Errors
/// [`PairingError`] when no pairing satisfies the absolute criteria.
pub fn pair_dutch(tournament: &Tournament) -> Result<Vec<Pair>, PairingError> {
    let mut pairs = dutch::pair(tournament)?;
    let players = &tournament.players;
    pairs.sort_by_key(|pair| {
        let (a, b) = (
            &players[pair.white],
            &players[pair.black.unwrap_or(pair.white)],
        );
        let (higher, lower) = if (a.score, b.rank) < (b.score, a.rank) {
            (b, a)
        } else {
            (a, b)
        };
        (
            pair.black.is_none(),
            std::cmp::Reverse(higher.score),
            std::cmp::Reverse(lower.score),
            higher.rank,
        )
    });
    Ok(pairs)
}

/// The pairs as bbpPairings prints them: the number of pairs, then one line per pair `WHITE
/// BLACK` by start rank, the bye as `N 0`.
#[must_use]
pub fn format_pairs(pairs: &[Pair]) -> String {
    let mut out = format!("{}\n", pairs.len());
    for pair in pairs {
        let black = pair.black.map_or(0, |black| black + 1);
        let _ = writeln!(out, "{} {black}", pair.white + 1);
    }
    out
}
