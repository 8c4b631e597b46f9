//! Heartbeats of each platform's clocks, deadlines moved on after an outage, and the next timed event.

use super::notices::insert_notice;
use super::{SqliteDatabase, Write};
use crate::store::{NewNotice, Result, Resumed};

pub(super) async fn resume_clocks(
    db: &SqliteDatabase,
    platform: &str,
    now: i64,
) -> Result<Resumed> {
    let mut tx = db.write().await?;
    let seen: Option<(i64,)> = sqlx::query_as("SELECT seen_at FROM heartbeats WHERE platform = ?1")
        .bind(platform)
        .fetch_optional(&mut *tx)
        .await?;
    let mut resumed = Resumed::default();
    if let Some((seen,)) = seen
        && now > seen
    {
        let gap = now - seen;
        let moved: Vec<(i64, i64)> = sqlx::query_as(
            "UPDATE games SET deadline = deadline + ?4 \
             WHERE status = 'active' AND platform = ?1 AND deadline > ?2 AND deadline <= ?3 \
             RETURNING id, ply",
        )
        .bind(platform)
        .bind(seen)
        .bind(now)
        .bind(gap)
        .fetch_all(&mut *tx)
        .await?;
        for &(game, ply) in &moved {
            let notice = NewNotice {
                platform,
                kind: "deadline_moved",
                game_id: Some(game),
                challenge_id: None,
                ply: Some(ply),
                left: Some(gap),
                now,
            };
            insert_notice(&mut tx, &notice).await?;
        }
        resumed.outage = Some((seen, now));
        resumed.moved = moved.into_iter().map(|(game, _)| game).collect();
        resumed.moved.sort_unstable();
    }
    record_heartbeat(&mut tx, platform, now).await?;
    tx.commit().await?;
    Ok(resumed)
}

pub(super) async fn heartbeat(db: &SqliteDatabase, platform: &str, now: i64) -> Result<()> {
    let mut tx = db.write().await?;
    record_heartbeat(&mut tx, platform, now).await?;
    tx.commit().await?;
    Ok(())
}

pub(super) async fn next_due(
    db: &SqliteDatabase,
    platform: &str,
    after: i64,
    reminders: (i64, i64),
) -> Result<Option<i64>> {
    let (next,): (Option<i64>,) = sqlx::query_as(
        "SELECT MIN(t) FROM ( \
           SELECT deadline - ?3 AS t FROM games WHERE status = 'active' AND platform = ?1 \
             AND attention IS NULL AND deadline IS NOT NULL AND days_per_move > 1 \
           UNION ALL \
           SELECT deadline - ?4 FROM games WHERE status = 'active' AND platform = ?1 \
             AND attention IS NULL AND deadline IS NOT NULL \
           UNION ALL \
           SELECT deadline FROM games WHERE status = 'active' AND platform = ?1 \
             AND attention IS NULL AND deadline IS NOT NULL \
           UNION ALL \
           SELECT expires_at FROM challenges WHERE status = 'open' AND platform = ?1 \
         ) WHERE t > ?2",
    )
    .bind(platform)
    .bind(after)
    .bind(reminders.0)
    .bind(reminders.1)
    .fetch_one(&db.pool)
    .await?;
    Ok(next)
}

async fn record_heartbeat(tx: &mut Write, platform: &str, now: i64) -> Result<()> {
    sqlx::query(
        "INSERT INTO heartbeats (platform, seen_at) VALUES (?1, ?2) \
         ON CONFLICT (platform) DO UPDATE SET seen_at = excluded.seen_at",
    )
    .bind(platform)
    .bind(now)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Takes or renews the lease `name` for `holder` until `until`: `true` when `holder` has it
/// now (it was free, had lapsed at `now`, or was already `holder`'s).
pub(super) async fn take_lease(
    db: &SqliteDatabase,
    name: &str,
    holder: &str,
    now: i64,
    until: i64,
) -> Result<bool> {
    let taken = sqlx::query(
        "INSERT INTO leases (name, holder, expires_at) VALUES (?1, ?2, ?4) \
         ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, \
         expires_at = excluded.expires_at \
         WHERE leases.holder = excluded.holder OR leases.expires_at <= ?3",
    )
    .bind(name)
    .bind(holder)
    .bind(now)
    .bind(until)
    .execute(&mut *db.alone().await?)
    .await?;
    Ok(taken.rows_affected() == 1)
}

/// Lets the lease `name` go, if `holder` has it.
pub(super) async fn release_lease(db: &SqliteDatabase, name: &str, holder: &str) -> Result<()> {
    sqlx::query("DELETE FROM leases WHERE name = ?1 AND holder = ?2")
        .bind(name)
        .bind(holder)
        .execute(&mut *db.alone().await?)
        .await?;
    Ok(())
}

/// The account's first start: `at` recorded when none is, or when earlier than the one that
/// is; the time kept is returned.
pub(super) async fn first_start(
    db: &SqliteDatabase,
    platform: &str,
    account: &str,
    at: i64,
) -> Result<i64> {
    let kept = sqlx::query_scalar(
        "INSERT INTO first_starts (platform, account, started_at) VALUES (?1, ?2, ?3) \
         ON CONFLICT (platform, account) DO UPDATE \
         SET started_at = MIN(first_starts.started_at, excluded.started_at) \
         RETURNING started_at",
    )
    .bind(platform)
    .bind(account)
    .bind(at)
    .fetch_one(&mut *db.alone().await?)
    .await?;
    Ok(kept)
}
