//! Upkeep of the file: durability settings, closing, backups and the integrity check.

use std::path::Path;

use super::{MAX_CONNECTIONS, SqliteDatabase};
use crate::store::Result;

pub(super) async fn synchronous_settings(db: &SqliteDatabase) -> Result<Vec<String>> {
    let mut held = Vec::new();
    for _ in 0..MAX_CONNECTIONS {
        held.push(db.pool.acquire().await?);
    }
    let mut settings = Vec::new();
    for connection in &mut held {
        let level: i64 = sqlx::query_scalar("PRAGMA synchronous")
            .fetch_one(&mut **connection)
            .await?;
        let name = match level {
            0 => "off",
            1 => "normal",
            2 => "full",
            3 => "extra",
            _ => "unknown",
        };
        settings.push(name.to_owned());
    }
    Ok(settings)
}

pub(super) async fn close(db: &SqliteDatabase) {
    db.pool.close().await;
}

pub(super) async fn hold_for_serving(db: &SqliteDatabase) -> Result<()> {
    db.lock_for_serving()
}

pub(super) async fn backup(db: &SqliteDatabase, path: &Path) -> Result<()> {
    sqlx::query("VACUUM INTO ?1")
        .bind(path.to_string_lossy().into_owned())
        .execute(&db.pool)
        .await?;
    Ok(())
}

pub(super) async fn integrity_check(db: &SqliteDatabase) -> Result<String> {
    Ok(sqlx::query_scalar("PRAGMA integrity_check")
        .fetch_one(&db.pool)
        .await?)
}
