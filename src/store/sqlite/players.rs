//! Players, their settings and processed chat events.

use super::SqliteDatabase;
use crate::store::{PlayerRow, Result, SettingsRow};

pub(super) async fn player(
    db: &SqliteDatabase,
    platform: &str,
    platform_id: &str,
    display_name: &str,
    now: i64,
) -> Result<PlayerRow> {
    let known = player_by_platform_id(db, platform, platform_id).await?;
    if let Some(player) = known.filter(|p| p.display_name == display_name) {
        return Ok(player);
    }
    // Committed before it is returned: a row read back from an uncommitted statement
    // could be lost at commit (a full disk) after the caller has used its id.
    let mut tx = db.write().await?;
    let player = sqlx::query_as(
        "INSERT INTO players (platform, platform_id, display_name, created_at) \
         VALUES (?1, ?2, ?3, ?4) \
         ON CONFLICT (platform, platform_id) DO UPDATE SET display_name = excluded.display_name \
         RETURNING id, platform, platform_id, display_name",
    )
    .bind(platform)
    .bind(platform_id)
    .bind(display_name)
    .bind(now)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(player)
}

pub(super) async fn player_by_id(db: &SqliteDatabase, id: i64) -> Result<Option<PlayerRow>> {
    Ok(
        sqlx::query_as("SELECT id, platform, platform_id, display_name FROM players WHERE id = ?1")
            .bind(id)
            .fetch_optional(&db.pool)
            .await?,
    )
}

pub(super) async fn player_by_platform_id(
    db: &SqliteDatabase,
    platform: &str,
    platform_id: &str,
) -> Result<Option<PlayerRow>> {
    Ok(sqlx::query_as(
        "SELECT id, platform, platform_id, display_name FROM players \
         WHERE platform = ?1 AND platform_id = ?2",
    )
    .bind(platform)
    .bind(platform_id)
    .fetch_optional(&db.pool)
    .await?)
}

pub(super) async fn settings(db: &SqliteDatabase, player_id: i64) -> Result<SettingsRow> {
    let row: Option<SettingsRow> =
        sqlx::query_as("SELECT turn_pings, viewpoint FROM settings WHERE player_id = ?1")
            .bind(player_id)
            .fetch_optional(&db.pool)
            .await?;
    Ok(row.unwrap_or_default())
}

pub(super) async fn set_settings(
    db: &SqliteDatabase,
    player_id: i64,
    settings: &SettingsRow,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO settings (player_id, turn_pings, viewpoint) VALUES (?1, ?2, ?3) \
         ON CONFLICT (player_id) DO UPDATE SET turn_pings = excluded.turn_pings, \
         viewpoint = excluded.viewpoint",
    )
    .bind(player_id)
    .bind(settings.turn_pings)
    .bind(&settings.viewpoint)
    .execute(&mut *db.alone().await?)
    .await?;
    Ok(())
}

pub(super) async fn claim_event(
    db: &SqliteDatabase,
    platform: &str,
    event_id: &str,
    now: i64,
) -> Result<bool> {
    let done = sqlx::query(
        "INSERT INTO events (platform, event_id, received_at) VALUES (?1, ?2, ?3) \
         ON CONFLICT DO NOTHING",
    )
    .bind(platform)
    .bind(event_id)
    .bind(now)
    .execute(&mut *db.alone().await?)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Whether the platform event was recorded as processed.
pub(super) async fn event_claimed(
    db: &SqliteDatabase,
    platform: &str,
    event_id: &str,
) -> Result<bool> {
    let claimed = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM events WHERE platform = ?1 AND event_id = ?2)",
    )
    .bind(platform)
    .bind(event_id)
    .fetch_one(&db.pool)
    .await?;
    Ok(claimed)
}
