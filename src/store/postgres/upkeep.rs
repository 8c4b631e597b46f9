//! Upkeep in PostgreSQL's terms: durability settings, closing, backups (`pg_dump`'s job) and
//! a consistency check of the games.

use std::path::Path;

use super::{MAX_CONNECTIONS, PostgresDatabase};
use crate::store::{Result, StoreError};

pub(super) async fn synchronous_settings(db: &PostgresDatabase) -> Result<Vec<String>> {
    let mut held = Vec::new();
    for _ in 0..MAX_CONNECTIONS {
        held.push(db.pool.acquire().await?);
    }
    let mut settings = Vec::new();
    for connection in &mut held {
        settings.push(
            sqlx::query_scalar("SHOW synchronous_commit")
                .fetch_one(&mut **connection)
                .await?,
        );
    }
    Ok(settings)
}

pub(super) async fn close(db: &PostgresDatabase) {
    db.pool.close().await;
}

/// Any number of processes serve one PostgreSQL database: due work is claimed row by row
/// (`FOR UPDATE SKIP LOCKED`), so there is nothing to hold.
pub(super) async fn hold_for_serving(_db: &PostgresDatabase) -> Result<()> {
    Ok(())
}

pub(super) async fn backup(_db: &PostgresDatabase, _path: &Path) -> Result<()> {
    Err(StoreError::Unsupported(
        "a PostgreSQL database is backed up with PostgreSQL's own tools, which take a \
         consistent snapshot while Pigeon runs: pg_dump --format=custom --file=pigeon.dump \
         DATABASE (pg_restore reads it back)",
    ))
}

/// PostgreSQL keeps its own storage consistent; what is checked here is the games: each
/// game's cached ply is the number of its moves, numbered 1, 2, … without a gap.
pub(super) async fn integrity_check(db: &PostgresDatabase) -> Result<String> {
    let broken: Vec<i64> = sqlx::query_scalar(
        "SELECT g.id FROM games g LEFT JOIN moves m ON m.game_id = g.id \
         GROUP BY g.id, g.ply \
         HAVING g.ply <> COUNT(m.ply) OR g.ply <> COALESCE(MAX(m.ply), 0) \
         ORDER BY g.id LIMIT 100",
    )
    .fetch_all(&db.pool)
    .await?;
    if broken.is_empty() {
        return Ok(String::from("ok"));
    }
    let ids: Vec<String> = broken.iter().map(|id| format!("#{id}")).collect();
    Ok(format!(
        "games whose moves do not match their ply: {}",
        ids.join(", ")
    ))
}
