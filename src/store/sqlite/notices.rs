//! The clocks' outbox: notices recorded with the change that causes them, claimed for a lease, delivered or given up.

use super::{SqliteDatabase, Write};
use crate::store::{ChallengeRow, LEASE, MAX_ATTEMPTS, NOTICE_BATCH, NewNotice, NoticeRow, Result};

pub(super) async fn claim_reminder(
    db: &SqliteDatabase,
    notice: &NewNotice<'_>,
    kind: &str,
) -> Result<bool> {
    let mut tx = db.write().await?;
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

pub(super) async fn expire_challenges(
    db: &SqliteDatabase,
    now: i64,
    platform: Option<&str>,
) -> Result<Vec<ChallengeRow>> {
    let mut tx = db.write().await?;
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

pub(super) async fn claim_notices(
    db: &SqliteDatabase,
    platform: Option<&str>,
    now: i64,
) -> Result<Vec<NoticeRow>> {
    let mut tx = db.write().await?;
    let rows = sqlx::query_as(
        "UPDATE notices SET claimed_at = ?2 WHERE id IN ( \
           SELECT id FROM notices WHERE delivered_at IS NULL AND failed_at IS NULL \
           AND (claimed_at IS NULL OR claimed_at <= ?2 - ?3) \
           AND (?1 IS NULL OR platform = ?1) \
           ORDER BY id LIMIT ?4) \
         RETURNING id, platform, kind, game_id, challenge_id, ply, left_secs, created_at, \
         attempts",
    )
    .bind(platform)
    .bind(now)
    .bind(LEASE)
    .bind(NOTICE_BATCH)
    .fetch_all(&mut *tx)
    .await?;
    tx.commit().await?;
    let mut rows: Vec<NoticeRow> = rows;
    rows.sort_by_key(|row| row.id);
    Ok(rows)
}

pub(super) async fn notice_delivered(db: &SqliteDatabase, id: i64, now: i64) -> Result<()> {
    sqlx::query("UPDATE notices SET delivered_at = ?2 WHERE id = ?1")
        .bind(id)
        .bind(now)
        .execute(&mut *db.alone().await?)
        .await?;
    Ok(())
}

pub(super) async fn notice_failed(
    db: &SqliteDatabase,
    id: i64,
    now: i64,
    give_up: bool,
) -> Result<bool> {
    let given_up: Option<(Option<i64>,)> = sqlx::query_as(
        "UPDATE notices SET attempts = attempts + 1, claimed_at = NULL, \
         failed_at = CASE WHEN ?3 OR attempts + 1 >= ?4 THEN ?2 END \
         WHERE id = ?1 RETURNING failed_at",
    )
    .bind(id)
    .bind(now)
    .bind(give_up)
    .bind(MAX_ATTEMPTS)
    .fetch_optional(&mut *db.alone().await?)
    .await?;
    Ok(given_up.is_some_and(|(failed,)| failed.is_some()))
}

pub(super) async fn mark_attention(db: &SqliteDatabase, game_id: i64, reason: &str) -> Result<()> {
    sqlx::query("UPDATE games SET attention = ?2 WHERE id = ?1")
        .bind(game_id)
        .bind(reason)
        .execute(&mut *db.alone().await?)
        .await?;
    Ok(())
}

pub(super) async fn games_needing_attention(db: &SqliteDatabase) -> Result<Vec<(i64, String)>> {
    Ok(
        sqlx::query_as("SELECT id, attention FROM games WHERE attention IS NOT NULL ORDER BY id")
            .fetch_all(&db.pool)
            .await?,
    )
}

pub(super) async fn prune_events(db: &SqliteDatabase, before: i64) -> Result<u64> {
    let done = sqlx::query("DELETE FROM events WHERE received_at < ?1")
        .bind(before)
        .execute(&mut *db.alone().await?)
        .await?;
    Ok(done.rows_affected())
}

pub(super) async fn insert_notice(tx: &mut Write, notice: &NewNotice<'_>) -> Result<()> {
    notice
        .bind(sqlx::query(
            "INSERT INTO notices (platform, kind, game_id, challenge_id, ply, left_secs, \
             created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        ))
        .execute(&mut **tx)
        .await?;
    Ok(())
}
