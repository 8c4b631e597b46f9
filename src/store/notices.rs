//! The clocks' outbox: what a deadline, a reminder, an expired challenge or a due bot move
//! made happen is written in the transaction that makes it happen, and stays pending until a
//! bot has handed it to its platform. A bot claims pending notices for a while (a lease), so a
//! delivery that never reports back is tried again later, and one that keeps failing is given
//! up after a few attempts.

use sqlx::FromRow;

use super::{ChallengeRow, Result, Store};

/// How many times a notice is tried before it is given up.
pub const MAX_ATTEMPTS: i64 = 5;

/// How long a claim on a notice lasts before another delivery may take it.
pub const LEASE: i64 = 5 * 60;

/// A notice to record with the change that causes it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NewNotice<'a> {
    pub platform: &'a str,
    /// `reminder`, `timeout`, `bot_move` or `challenge_expired`.
    pub kind: &'a str,
    pub game_id: Option<i64>,
    pub challenge_id: Option<i64>,
    /// The game's ply the notice is about (for a bot move, the ply before it).
    pub ply: Option<i64>,
    /// For a reminder, the seconds left when it fell due.
    pub left: Option<i64>,
    pub now: i64,
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

pub(super) async fn insert_notice(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    notice: &NewNotice<'_>,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO notices (platform, kind, game_id, challenge_id, ply, left_secs, created_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )
    .bind(notice.platform)
    .bind(notice.kind)
    .bind(notice.game_id)
    .bind(notice.challenge_id)
    .bind(notice.ply)
    .bind(notice.left)
    .bind(notice.now)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

impl Store {
    /// Records that a reminder fell due, with its notice. `false` when it had been already
    /// (each reminder goes out once per move, also across restarts).
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    pub async fn claim_reminder(&self, notice: &NewNotice<'_>, kind: &str) -> Result<bool> {
        let mut tx = self.write().await?;
        let done = sqlx::query(
            "INSERT INTO reminders (game_id, ply, kind, sent_at) VALUES (?1, ?2, ?3, ?4) \
             ON CONFLICT DO NOTHING",
        )
        .bind(notice.game_id)
        .bind(notice.ply)
        .bind(kind)
        .bind(notice.now)
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() != 1 {
            return Ok(false);
        }
        insert_notice(&mut tx, notice).await?;
        tx.commit().await?;
        Ok(true)
    }

    /// The open challenges whose time ran out before `now`, marked expired with a notice
    /// each, in one transaction; only those of `platform` when one is given.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    pub async fn expire_challenges(
        &self,
        now: i64,
        platform: Option<&str>,
    ) -> Result<Vec<ChallengeRow>> {
        let mut tx = self.write().await?;
        let rows: Vec<ChallengeRow> = sqlx::query_as(
            "UPDATE challenges SET status = 'expired' WHERE status = 'open' AND expires_at <= ?1 \
             AND (?2 IS NULL OR platform = ?2) RETURNING *",
        )
        .bind(now)
        .bind(platform)
        .fetch_all(&mut *tx)
        .await?;
        for row in &rows {
            let notice = NewNotice {
                platform: &row.platform,
                kind: "challenge_expired",
                game_id: None,
                challenge_id: Some(row.id),
                ply: None,
                left: None,
                now,
            };
            insert_notice(&mut tx, &notice).await?;
        }
        tx.commit().await?;
        Ok(rows)
    }

    /// Takes the pending notices of `platform` (or of all) for delivery, oldest first: those
    /// never claimed and those whose claim lapsed. The claim is committed before they are
    /// returned.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    pub async fn claim_notices(&self, platform: Option<&str>, now: i64) -> Result<Vec<NoticeRow>> {
        let mut tx = self.write().await?;
        let rows = sqlx::query_as(
            "UPDATE notices SET claimed_at = ?2 \
             WHERE delivered_at IS NULL AND failed_at IS NULL \
             AND (claimed_at IS NULL OR claimed_at <= ?2 - ?3) \
             AND (?1 IS NULL OR platform = ?1) \
             RETURNING id, platform, kind, game_id, challenge_id, ply, left_secs, created_at, \
             attempts",
        )
        .bind(platform)
        .bind(now)
        .bind(LEASE)
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        let mut rows: Vec<NoticeRow> = rows;
        rows.sort_by_key(|row| row.id);
        Ok(rows)
    }

    /// Marks a notice as handed to its platform.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    pub async fn notice_delivered(&self, id: i64, now: i64) -> Result<()> {
        sqlx::query("UPDATE notices SET delivered_at = ?2 WHERE id = ?1")
            .bind(id)
            .bind(now)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Counts a failed delivery: the notice is released to be tried again, or given up after
    /// [`MAX_ATTEMPTS`] (or at once when `give_up`). `true` when it was given up.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    pub async fn notice_failed(&self, id: i64, now: i64, give_up: bool) -> Result<bool> {
        let given_up: Option<(Option<i64>,)> = sqlx::query_as(
            "UPDATE notices SET attempts = attempts + 1, claimed_at = NULL, \
             failed_at = CASE WHEN ?3 OR attempts + 1 >= ?4 THEN ?2 END \
             WHERE id = ?1 RETURNING failed_at",
        )
        .bind(id)
        .bind(now)
        .bind(give_up)
        .bind(MAX_ATTEMPTS)
        .fetch_optional(&self.pool)
        .await?;
        Ok(given_up.is_some_and(|(failed,)| failed.is_some()))
    }

    /// Marks a game as needing an operator's attention (it no longer replays, or its clock
    /// failed): the clocks skip it from now on.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    pub async fn mark_attention(&self, game_id: i64, reason: &str) -> Result<()> {
        sqlx::query("UPDATE games SET attention = ?2 WHERE id = ?1")
            .bind(game_id)
            .bind(reason)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The ids of games marked as needing attention.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    pub async fn games_needing_attention(&self) -> Result<Vec<(i64, String)>> {
        Ok(sqlx::query_as(
            "SELECT id, attention FROM games WHERE attention IS NOT NULL ORDER BY id",
        )
        .fetch_all(&self.pool)
        .await?)
    }

    /// Forgets processed chat events received before `before`: duplicates come within
    /// minutes, so a week's record is plenty. Returns how many were removed.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    pub async fn prune_events(&self, before: i64) -> Result<u64> {
        let done = sqlx::query("DELETE FROM events WHERE received_at < ?1")
            .bind(before)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected())
    }
}
