//! The rows of the correspondence features: conditional lines, leave, the daily digest.

use sqlx::FromRow;

/// A player's leave (vacation): from `started_at` until `ends_at` as asked, or until
/// `ended_at` once it ended (early, or by itself at `ends_at`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, FromRow)]
pub struct LeaveRow {
    pub id: i64,
    pub player_id: i64,
    pub started_at: i64,
    pub ends_at: i64,
    pub ended_at: Option<i64>,
}

impl LeaveRow {
    /// When the leave ends or ended.
    #[must_use]
    pub fn end(&self) -> i64 {
        self.ended_at.unwrap_or(self.ends_at)
    }
}

/// A player's daily digest: its local time (`HH:MM`), IANA time zone and next time due.
#[derive(Debug, Clone, PartialEq, Eq, Hash, FromRow)]
pub struct DigestRow {
    pub player_id: i64,
    pub digest_time: String,
    pub digest_zone: String,
    pub digest_next: i64,
}

/// A player's conditional line in a game: from the game's ply `ply` (the opponent to move),
/// the expected moves and the replies, alternating, in the interchange notation separated
/// by `;`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, FromRow)]
pub struct ConditionalRow {
    pub id: i64,
    pub game_id: i64,
    pub player_id: i64,
    pub ply: i64,
    pub moves: String,
}
