//! The queue of post-game analyses: one row per game, queued when a game between people ends
//! (in the transaction that ends it) or when someone asks, claimed by one process at a time
//! for [`ANALYSIS_LEASE`], and done with its result, whose notice is recorded in the same
//! transaction. A process that dies mid-way leaves its claim to lapse; another takes it over.

use async_trait::async_trait;
use sqlx::FromRow;

use super::{NewNotice, Result};

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

/// The part of the [`super::Database`] interface about post-game analyses (a supertrait, so
/// `Database` stays one object the service holds). Each backend answers it with the
/// functions of its `analysis.rs`.
#[async_trait]
pub trait AnalysisDatabase {
    /// The analysis of a game, if one was queued.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn analysis(&self, game_id: i64) -> Result<Option<AnalysisRow>>;

    /// Queues the analysis of a finished game unless it has one queued, running or done (a
    /// failed one is queued afresh), and gives it as it stands. (A game between people is
    /// queued by itself in the transaction that ends it; see [`super::Database::finish_game`].)
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn request_analysis(&self, game_id: i64, now: i64) -> Result<AnalysisRow>;

    /// Claims the analysis that has waited longest, for [`ANALYSIS_LEASE`]: a queued
    /// one, or a running one whose claim lapsed at `now` (its process stopped). Each claim
    /// goes to one process (on PostgreSQL, `FOR UPDATE SKIP LOCKED`); its number is the row's
    /// `attempts`. One claimed [`ANALYSIS_ATTEMPTS`] times is given up. `None` when
    /// nothing waits.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn claim_analysis(&self, now: i64) -> Result<Option<AnalysisRow>>;

    /// Records a claimed analysis done with its `result`, and `notice`, in one transaction
    /// guarded by the claim (`attempt`): `false` when the claim was lost (it lapsed and
    /// another process took the analysis over), and nothing is recorded.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn finish_analysis(
        &self,
        game_id: i64,
        attempt: i64,
        result: &str,
        now: i64,
        notice: &NewNotice<'_>,
    ) -> Result<bool>;

    /// Renews a claimed analysis's lease from `now`, while the claim (`attempt`) is still
    /// this process's: `false` when it lapsed and another process took it over.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn renew_analysis(&self, game_id: i64, attempt: i64, now: i64) -> Result<bool>;

    /// Gives back a claimed analysis: to the queue (a process stopping), or up for good when
    /// `failed` (the game cannot be analysed).
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn release_analysis(
        &self,
        game_id: i64,
        attempt: i64,
        failed: bool,
        now: i64,
    ) -> Result<()>;
}
