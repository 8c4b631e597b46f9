//! The queue of post-game analyses: queued with the end of a game or on request, claimed for
//! a lease by the single writer, done with its notice in one transaction.

use super::notices::insert_notice;
use super::{SqliteDatabase, Write};
use crate::store::{
    ANALYSED_FROM_PLY, ANALYSIS_ATTEMPTS, ANALYSIS_LEASE, AnalysisRow, NewNotice, Result,
};

/// Queues the analysis of a game that just ended in `tx`, when it is a game between people
/// with a result in which both sides moved.
pub(super) async fn enqueue_finished(tx: &mut Write, game_id: i64, now: i64) -> Result<()> {
    sqlx::query(
        "INSERT INTO analyses (game_id, state, created_at) \
         SELECT id, 'queued', ?2 FROM games \
         WHERE id = ?1 AND result IS NOT NULL AND bot_level IS NULL AND ply >= ?3 \
         ON CONFLICT DO NOTHING",
    )
    .bind(game_id)
    .bind(now)
    .bind(ANALYSED_FROM_PLY)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

pub(super) async fn analysis(db: &SqliteDatabase, game_id: i64) -> Result<Option<AnalysisRow>> {
    Ok(sqlx::query_as("SELECT * FROM analyses WHERE game_id = ?1")
        .bind(game_id)
        .fetch_optional(&db.pool)
        .await?)
}

pub(super) async fn request_analysis(
    db: &SqliteDatabase,
    game_id: i64,
    now: i64,
) -> Result<AnalysisRow> {
    let mut tx = db.write().await?;
    sqlx::query(
        "INSERT INTO analyses (game_id, state, created_at) VALUES (?1, 'queued', ?2) \
         ON CONFLICT (game_id) DO UPDATE SET state = 'queued', result = NULL, \
         claimed_until = NULL, attempts = 0, created_at = ?2, finished_at = NULL \
         WHERE analyses.state = 'failed'",
    )
    .bind(game_id)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    let row = sqlx::query_as("SELECT * FROM analyses WHERE game_id = ?1")
        .bind(game_id)
        .fetch_one(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(row)
}

pub(super) async fn claim_analysis(db: &SqliteDatabase, now: i64) -> Result<Option<AnalysisRow>> {
    // Most of the time nothing waits: a read says so without taking the write lock.
    let waiting: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM analyses \
         WHERE state = 'queued' OR (state = 'running' AND claimed_until <= ?1))",
    )
    .bind(now)
    .fetch_one(&db.pool)
    .await?;
    if !waiting {
        return Ok(None);
    }
    let mut tx = db.write().await?;
    // Claimed too often without an end: its processes keep dying on it.
    sqlx::query(
        "UPDATE analyses SET state = 'failed', claimed_until = NULL, finished_at = ?1 \
         WHERE attempts >= ?2 \
         AND (state = 'queued' OR (state = 'running' AND claimed_until <= ?1))",
    )
    .bind(now)
    .bind(ANALYSIS_ATTEMPTS)
    .execute(&mut *tx)
    .await?;
    let row = sqlx::query_as(
        "UPDATE analyses SET state = 'running', claimed_until = ?1 + ?2, \
         attempts = attempts + 1 \
         WHERE game_id = ( \
           SELECT game_id FROM analyses \
           WHERE state = 'queued' OR (state = 'running' AND claimed_until <= ?1) \
           ORDER BY created_at, game_id LIMIT 1) \
         RETURNING *",
    )
    .bind(now)
    .bind(ANALYSIS_LEASE)
    .fetch_optional(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(row)
}

pub(super) async fn finish_analysis(
    db: &SqliteDatabase,
    game_id: i64,
    attempt: i64,
    result: &str,
    now: i64,
    notice: &NewNotice<'_>,
) -> Result<bool> {
    let mut tx = db.write().await?;
    let done = sqlx::query(
        "UPDATE analyses SET state = 'done', result = ?3, finished_at = ?4, \
         claimed_until = NULL \
         WHERE game_id = ?1 AND state = 'running' AND attempts = ?2",
    )
    .bind(game_id)
    .bind(attempt)
    .bind(result)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    if done.rows_affected() != 1 {
        return Ok(false);
    }
    insert_notice(&mut tx, notice).await?;
    tx.commit().await?;
    Ok(true)
}

pub(super) async fn release_analysis(
    db: &SqliteDatabase,
    game_id: i64,
    attempt: i64,
    failed: bool,
    now: i64,
) -> Result<()> {
    sqlx::query(
        "UPDATE analyses SET state = CASE WHEN ?3 THEN 'failed' ELSE 'queued' END, \
         claimed_until = NULL, finished_at = CASE WHEN ?3 THEN ?4 END \
         WHERE game_id = ?1 AND state = 'running' AND attempts = ?2",
    )
    .bind(game_id)
    .bind(attempt)
    .bind(failed)
    .bind(now)
    .execute(&mut *db.alone().await?)
    .await?;
    Ok(())
}

pub(super) async fn renew_analysis(
    db: &SqliteDatabase,
    game_id: i64,
    attempt: i64,
    now: i64,
) -> Result<bool> {
    let renewed = sqlx::query(
        "UPDATE analyses SET claimed_until = ?3 + ?4 \
         WHERE game_id = ?1 AND state = 'running' AND attempts = ?2",
    )
    .bind(game_id)
    .bind(attempt)
    .bind(now)
    .bind(ANALYSIS_LEASE)
    .execute(&mut *db.alone().await?)
    .await?;
    Ok(renewed.rows_affected() == 1)
}
