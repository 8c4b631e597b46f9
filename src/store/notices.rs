//! The clocks' outbox: what a deadline, a reminder, an expired challenge or a due bot move
//! made happen is written in the transaction that makes it happen, and stays pending until a
//! bot has handed it to its platform. A bot claims pending notices for a while (a lease), so a
//! delivery that never reports back is tried again later, and one that keeps failing is given
//! up after a few attempts.

use sqlx::FromRow;

/// How many times a notice is tried before it is given up.
pub const MAX_ATTEMPTS: i64 = 5;

/// How long a claim on a notice lasts before another delivery may take it.
pub const LEASE: i64 = 5 * 60;

/// The most notices one claim takes: a long outage's backlog is delivered a batch at a time,
/// each well within its lease, and the next batch is claimed as soon as one is done.
pub const NOTICE_BATCH: i64 = 100;

/// A notice to record with the change that causes it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NewNotice<'a> {
    pub platform: &'a str,
    /// `reminder`, `timeout`, `bot_move`, `challenge_expired`, `analysed`, …
    pub kind: &'a str,
    pub game_id: Option<i64>,
    pub challenge_id: Option<i64>,
    /// The game's ply the notice is about (for a bot move, the ply before it).
    pub ply: Option<i64>,
    /// For a reminder, the seconds left when it fell due.
    pub left: Option<i64>,
    pub now: i64,
}

impl<'a> NewNotice<'a> {
    /// The notice's columns: `platform, kind, game_id, challenge_id, ply, left_secs,
    /// created_at`.
    #[expect(
        clippy::type_complexity,
        reason = "a row's columns, named by the caller"
    )]
    pub(crate) fn columns(
        &self,
    ) -> (
        &'a str,
        &'a str,
        Option<i64>,
        Option<i64>,
        Option<i64>,
        Option<i64>,
        i64,
    ) {
        (
            self.platform,
            self.kind,
            self.game_id,
            self.challenge_id,
            self.ply,
            self.left,
            self.now,
        )
    }

    /// Binds the notice's columns to `query`, in the order of [`NewNotice::columns`].
    pub(crate) fn bind<DB: sqlx::Database>(
        &self,
        query: sqlx::query::Query<'a, DB, <DB as sqlx::Database>::Arguments>,
    ) -> sqlx::query::Query<'a, DB, <DB as sqlx::Database>::Arguments>
    where
        &'a str: sqlx::Encode<'a, DB> + sqlx::Type<DB>,
        Option<i64>: sqlx::Encode<'a, DB> + sqlx::Type<DB>,
        i64: sqlx::Encode<'a, DB> + sqlx::Type<DB>,
    {
        let (platform, kind, game_id, challenge_id, ply, left, now) = self.columns();
        query
            .bind(platform)
            .bind(kind)
            .bind(game_id)
            .bind(challenge_id)
            .bind(ply)
            .bind(left)
            .bind(now)
    }
}

/// A pending notice.
#[derive(Debug, Clone, PartialEq, Eq, Hash, FromRow)]
pub struct NoticeRow {
    pub id: i64,
    pub platform: String,
    pub kind: String,
    pub game_id: Option<i64>,
    pub challenge_id: Option<i64>,
    pub ply: Option<i64>,
    pub left_secs: Option<i64>,
    pub created_at: i64,
    pub attempts: i64,
}
