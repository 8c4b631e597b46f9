//! Settings of a community (a Discord server, a Matrix room, a console channel): threads per
//! game and the caps that keep one account from flooding it, with the counts they are checked
//! against.

use sqlx::FromRow;

/// A community's caps as stored; `None` means the default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, FromRow)]
pub struct CapsRow {
    pub max_open_challenges: Option<i64>,
    pub max_active_games: Option<i64>,
    pub max_bot_games: Option<i64>,
    pub max_challenges_per_opponent: Option<i64>,
}

/// What one player has going on, on one platform, for checking the caps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, FromRow)]
pub struct Counts {
    /// Open challenges the player sent.
    pub open_challenges: i64,
    /// Active games the player plays against people.
    pub active_games: i64,
    /// Active games the player plays against the bot.
    pub bot_games: i64,
}
