//! The queue of post-game analyses: one row per game, queued when a game between people ends
//! (in the transaction that ends it) or when someone asks, claimed by one process at a time
//! for [`ANALYSIS_LEASE`], and done with its result, whose notice is recorded in the same
//! transaction. A process that dies mid-way leaves its claim to lapse; another takes it over.

use sqlx::FromRow;

/// How long a claim on an analysis lasts: far longer than an analysis takes (seconds, a
/// minute for a very long game), so a claim lapses only when its process stopped.
pub const ANALYSIS_LEASE: i64 = 30 * 60;

/// How many times an analysis is claimed before it is given up (its processes kept dying
/// before they finished it).
pub const ANALYSIS_ATTEMPTS: i64 = 5;

/// A game's analysis as stored.
#[derive(Debug, Clone, PartialEq, Eq, Hash, FromRow)]
pub struct AnalysisRow {
    pub game_id: i64,
    /// `queued`, `running`, `done` or `failed`.
    pub state: String,
    /// The engine's evaluations (JSON), once done.
    pub result: Option<String>,
    /// While running: when the claim lapses.
    pub claimed_until: Option<i64>,
    /// How many times it was claimed; a claim's number guards its result.
    pub attempts: i64,
    pub created_at: i64,
    pub finished_at: Option<i64>,
}

/// Both sides must have moved for a finished game to be analysed by itself.
pub const ANALYSED_FROM_PLY: i64 = 2;
