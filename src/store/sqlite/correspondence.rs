//! Correspondence features: conditional lines, time one player gives the other, leave (whose
//! clocks stand still while it runs), reminder times and the daily digest.

use super::community::{set_setting, setting};
use super::{SqliteDatabase, Write};
use crate::store::{
    ConditionalRow, DigestRow, LeaveRow, NewNotice, Result, StoreError, exactly_one,
};

pub(super) async fn give_time(
    db: &SqliteDatabase,
    game_id: i64,
    expected_ply: i64,
    expected_deadline: i64,
    deadline: i64,
    now: i64,
) -> Result<()> {
    let done = sqlx::query(
        "UPDATE games SET deadline = ?4, updated_at = ?5 \
         WHERE id = ?1 AND ply = ?2 AND deadline = ?3 AND status = 'active'",
    )
    .bind(game_id)
    .bind(expected_ply)
    .bind(expected_deadline)
    .bind(deadline)
    .bind(now)
    .execute(&mut *db.alone().await?)
    .await?;
    exactly_one(done.rows_affected())
}

pub(super) async fn leaves_of(
    db: &SqliteDatabase,
    player_id: i64,
    since: i64,
) -> Result<Vec<LeaveRow>> {
    Ok(sqlx::query_as(
        "SELECT id, player_id, started_at, ends_at, ended_at FROM leaves \
         WHERE player_id = ?1 AND COALESCE(ended_at, ends_at) > ?2 ORDER BY started_at",
    )
    .bind(player_id)
    .bind(since)
    .fetch_all(&db.pool)
    .await?)
}

pub(super) async fn running_leaves(db: &SqliteDatabase) -> Result<Vec<LeaveRow>> {
    Ok(sqlx::query_as(
        "SELECT id, player_id, started_at, ends_at, ended_at FROM leaves \
         WHERE ended_at IS NULL ORDER BY ends_at",
    )
    .fetch_all(&db.pool)
    .await?)
}

async fn insert_player_notice(
    tx: &mut Write,
    notice: &NewNotice<'_>,
    player_id: i64,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO notices (platform, kind, game_id, ply, left_secs, created_at, player_id) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )
    .bind(notice.platform)
    .bind(notice.kind)
    .bind(notice.game_id)
    .bind(notice.ply)
    .bind(notice.left)
    .bind(notice.now)
    .bind(player_id)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

pub(super) async fn start_leave(
    db: &SqliteDatabase,
    player_id: i64,
    now: i64,
    ends_at: i64,
    notices: &[NewNotice<'_>],
) -> Result<LeaveRow> {
    let mut tx = db.write().await?;
    let row: Option<LeaveRow> = sqlx::query_as(
        "INSERT INTO leaves (player_id, started_at, ends_at) SELECT ?1, ?2, ?3 \
         WHERE NOT EXISTS (SELECT 1 FROM leaves WHERE player_id = ?1 AND ended_at IS NULL) \
         RETURNING id, player_id, started_at, ends_at, ended_at",
    )
    .bind(player_id)
    .bind(now)
    .bind(ends_at)
    .fetch_optional(&mut *tx)
    .await?;
    let row = row.ok_or(StoreError::Conflict)?;
    for notice in notices {
        insert_player_notice(&mut tx, notice, player_id).await?;
    }
    tx.commit().await?;
    Ok(row)
}

pub(super) async fn freeze_clock(
    db: &SqliteDatabase,
    game_id: i64,
    expected_ply: i64,
    expected_deadline: i64,
    player_id: i64,
    now: i64,
) -> Result<()> {
    let mut tx = db.write().await?;
    let done = sqlx::query(
        "UPDATE games SET deadline = NULL, updated_at = ?4 \
         WHERE id = ?1 AND ply = ?2 AND deadline = ?3 AND status = 'active'",
    )
    .bind(game_id)
    .bind(expected_ply)
    .bind(expected_deadline)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    if done.rows_affected() != 1 {
        return Err(StoreError::Conflict);
    }
    sqlx::query(
        "INSERT INTO frozen_clocks (game_id, player_id, left_secs) VALUES (?1, ?2, ?3) \
         ON CONFLICT (game_id) DO UPDATE SET player_id = excluded.player_id, \
         left_secs = excluded.left_secs",
    )
    .bind(game_id)
    .bind(player_id)
    .bind(expected_deadline - now)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}

pub(super) async fn frozen_clock(db: &SqliteDatabase, game_id: i64) -> Result<Option<i64>> {
    Ok(sqlx::query_scalar(
        "SELECT f.left_secs FROM frozen_clocks f JOIN games g ON g.id = f.game_id \
         WHERE f.game_id = ?1 AND g.deadline IS NULL AND g.status = 'active'",
    )
    .bind(game_id)
    .fetch_optional(&db.pool)
    .await?)
}

pub(super) async fn end_leave(
    db: &SqliteDatabase,
    leave_id: i64,
    now: i64,
    notices: &[NewNotice<'_>],
) -> Result<Option<LeaveRow>> {
    let mut tx = db.write().await?;
    let row: Option<LeaveRow> = sqlx::query_as(
        "UPDATE leaves SET ended_at = MIN(ends_at, ?2) WHERE id = ?1 AND ended_at IS NULL \
         RETURNING id, player_id, started_at, ends_at, ended_at",
    )
    .bind(leave_id)
    .bind(now)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(row) = row else {
        return Ok(None);
    };
    // The clocks go on with the time that was left.
    sqlx::query(
        "UPDATE games SET updated_at = ?2, deadline = ?2 + \
           (SELECT f.left_secs FROM frozen_clocks f WHERE f.game_id = games.id) \
         WHERE id IN (SELECT game_id FROM frozen_clocks WHERE player_id = ?1) \
         AND status = 'active' AND deadline IS NULL",
    )
    .bind(row.player_id)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    sqlx::query("DELETE FROM frozen_clocks WHERE player_id = ?1")
        .bind(row.player_id)
        .execute(&mut *tx)
        .await?;
    for notice in notices {
        insert_player_notice(&mut tx, notice, row.player_id).await?;
    }
    tx.commit().await?;
    Ok(Some(row))
}

pub(super) async fn notice_player(db: &SqliteDatabase, notice_id: i64) -> Result<Option<i64>> {
    Ok(
        sqlx::query_scalar("SELECT player_id FROM notices WHERE id = ?1")
            .bind(notice_id)
            .fetch_optional(&db.pool)
            .await?
            .flatten(),
    )
}

pub(super) async fn leave_days(
    db: &SqliteDatabase,
    platform: &str,
    community: &str,
) -> Result<Option<i64>> {
    Ok(
        setting::<Option<i64>>(db, platform, community, "leave_days")
            .await?
            .flatten(),
    )
}

pub(super) async fn set_leave_days(
    db: &SqliteDatabase,
    platform: &str,
    community: &str,
    days: i64,
) -> Result<()> {
    set_setting(db, platform, community, "leave_days", days).await
}

pub(super) async fn reminder_times(db: &SqliteDatabase, player_id: i64) -> Result<Option<String>> {
    Ok(
        sqlx::query_scalar("SELECT reminders FROM correspondence_settings WHERE player_id = ?1")
            .bind(player_id)
            .fetch_optional(&db.pool)
            .await?
            .flatten(),
    )
}

pub(super) async fn set_reminder_times(
    db: &SqliteDatabase,
    player_id: i64,
    times: &str,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO correspondence_settings (player_id, reminders) VALUES (?1, ?2) \
         ON CONFLICT (player_id) DO UPDATE SET reminders = excluded.reminders",
    )
    .bind(player_id)
    .bind(times)
    .execute(&mut *db.alone().await?)
    .await?;
    Ok(())
}

pub(super) async fn digest(db: &SqliteDatabase, player_id: i64) -> Result<Option<DigestRow>> {
    Ok(sqlx::query_as(
        "SELECT player_id, digest_time, digest_zone, digest_next FROM correspondence_settings \
         WHERE player_id = ?1 AND digest_time IS NOT NULL AND digest_zone IS NOT NULL \
         AND digest_next IS NOT NULL",
    )
    .bind(player_id)
    .fetch_optional(&db.pool)
    .await?)
}

pub(super) async fn set_digest(
    db: &SqliteDatabase,
    player_id: i64,
    digest: Option<&DigestRow>,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO correspondence_settings (player_id, digest_time, digest_zone, digest_next) \
         VALUES (?1, ?2, ?3, ?4) ON CONFLICT (player_id) DO UPDATE SET \
         digest_time = excluded.digest_time, digest_zone = excluded.digest_zone, \
         digest_next = excluded.digest_next",
    )
    .bind(player_id)
    .bind(digest.map(|d| d.digest_time.as_str()))
    .bind(digest.map(|d| d.digest_zone.as_str()))
    .bind(digest.map(|d| d.digest_next))
    .execute(&mut *db.alone().await?)
    .await?;
    Ok(())
}

pub(super) async fn digests_due(
    db: &SqliteDatabase,
    now: i64,
    platform: Option<&str>,
) -> Result<Vec<DigestRow>> {
    Ok(sqlx::query_as(
        "SELECT c.player_id, c.digest_time, c.digest_zone, c.digest_next \
         FROM correspondence_settings c JOIN players p ON p.id = c.player_id \
         WHERE c.digest_next <= ?1 AND c.digest_time IS NOT NULL AND c.digest_zone IS NOT NULL \
         AND (?2 IS NULL OR p.platform = ?2) ORDER BY c.digest_next",
    )
    .bind(now)
    .bind(platform)
    .fetch_all(&db.pool)
    .await?)
}

pub(super) async fn claim_digest(
    db: &SqliteDatabase,
    player_id: i64,
    expected_next: i64,
    next: Option<i64>,
    notice: Option<&NewNotice<'_>>,
) -> Result<bool> {
    let mut tx = db.write().await?;
    let done = sqlx::query(
        "UPDATE correspondence_settings SET digest_next = ?3 \
         WHERE player_id = ?1 AND digest_next = ?2",
    )
    .bind(player_id)
    .bind(expected_next)
    .bind(next)
    .execute(&mut *tx)
    .await?;
    if done.rows_affected() != 1 {
        return Ok(false);
    }
    if let Some(notice) = notice {
        insert_player_notice(&mut tx, notice, player_id).await?;
    }
    tx.commit().await?;
    Ok(true)
}

pub(super) async fn next_digest(
    db: &SqliteDatabase,
    platform: &str,
    after: i64,
) -> Result<Option<i64>> {
    Ok(sqlx::query_scalar(
        "SELECT MIN(c.digest_next) FROM correspondence_settings c \
         JOIN players p ON p.id = c.player_id \
         WHERE c.digest_next > ?2 AND c.digest_time IS NOT NULL AND p.platform = ?1",
    )
    .bind(platform)
    .bind(after)
    .fetch_one(&db.pool)
    .await?)
}

pub(super) async fn conditionals(db: &SqliteDatabase, game_id: i64) -> Result<Vec<ConditionalRow>> {
    Ok(sqlx::query_as(
        "SELECT id, game_id, player_id, ply, moves FROM conditionals WHERE game_id = ?1 \
         ORDER BY id",
    )
    .bind(game_id)
    .fetch_all(&db.pool)
    .await?)
}

pub(super) async fn add_conditional(
    db: &SqliteDatabase,
    game_id: i64,
    player_id: i64,
    expected_ply: i64,
    moves: &str,
    now: i64,
) -> Result<()> {
    let done = sqlx::query(
        "INSERT INTO conditionals (game_id, player_id, ply, moves, created_at) \
         SELECT ?1, ?2, ?3, ?4, ?5 WHERE EXISTS \
         (SELECT 1 FROM games WHERE id = ?1 AND ply = ?3 AND status = 'active')",
    )
    .bind(game_id)
    .bind(player_id)
    .bind(expected_ply)
    .bind(moves)
    .bind(now)
    .execute(&mut *db.alone().await?)
    .await?;
    exactly_one(done.rows_affected())
}

pub(super) async fn replace_conditionals(
    db: &SqliteDatabase,
    game_id: i64,
    player_id: i64,
    expected: Option<&[i64]>,
    lines: &[(i64, String)],
    now: i64,
) -> Result<()> {
    let mut tx = db.write().await?;
    if let Some(expected) = expected {
        let current: Vec<i64> = sqlx::query_scalar(
            "SELECT id FROM conditionals WHERE game_id = ?1 AND player_id = ?2 ORDER BY id",
        )
        .bind(game_id)
        .bind(player_id)
        .fetch_all(&mut *tx)
        .await?;
        if current != expected {
            return Err(StoreError::Conflict);
        }
    }
    sqlx::query("DELETE FROM conditionals WHERE game_id = ?1 AND player_id = ?2")
        .bind(game_id)
        .bind(player_id)
        .execute(&mut *tx)
        .await?;
    for (ply, moves) in lines {
        sqlx::query(
            "INSERT INTO conditionals (game_id, player_id, ply, moves, created_at) \
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )
        .bind(game_id)
        .bind(player_id)
        .bind(ply)
        .bind(moves)
        .bind(now)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

pub(super) async fn conditional_games_due(db: &SqliteDatabase) -> Result<Vec<i64>> {
    Ok(sqlx::query_scalar(
        "SELECT DISTINCT c.game_id FROM conditionals c JOIN games g ON g.id = c.game_id \
         WHERE g.ply > c.ply OR g.status <> 'active' ORDER BY c.game_id",
    )
    .fetch_all(&db.pool)
    .await?)
}
