//! A community's settings (threads per game, caps) and the counts the caps are checked against.

use sqlx::AssertSqlSafe;

use super::SqliteDatabase;
use crate::store::{CapsRow, Counts, PlayerRow, Result};

pub(super) async fn threads_on(
    db: &SqliteDatabase,
    platform: &str,
    community: &str,
) -> Result<bool> {
    Ok(setting(db, platform, community, "threads")
        .await?
        .unwrap_or(true))
}

pub(super) async fn set_threads(
    db: &SqliteDatabase,
    platform: &str,
    community: &str,
    on: bool,
) -> Result<()> {
    set_setting(db, platform, community, "threads", on).await
}

/// One column of a community's settings row; `None` when the community has no row yet.
/// `column` is a name written in this backend's code, never words from a user.
pub(super) async fn setting<T>(
    db: &SqliteDatabase,
    platform: &str,
    community: &str,
    column: &'static str,
) -> Result<Option<T>>
where
    T: for<'r> sqlx::Decode<'r, sqlx::Sqlite> + sqlx::Type<sqlx::Sqlite> + Send + Unpin,
{
    let sql =
        format!("SELECT {column} FROM community_settings WHERE platform = ?1 AND community = ?2");
    Ok(sqlx::query_scalar(AssertSqlSafe(sql))
        .bind(platform)
        .bind(community)
        .fetch_optional(&db.pool)
        .await?)
}

/// Sets one column of a community's settings row, making the row when there is none.
/// `column` is a name written in this backend's code, never words from a user.
pub(super) async fn set_setting<T>(
    db: &SqliteDatabase,
    platform: &str,
    community: &str,
    column: &'static str,
    value: T,
) -> Result<()>
where
    T: for<'q> sqlx::Encode<'q, sqlx::Sqlite> + sqlx::Type<sqlx::Sqlite> + Send + 'static,
{
    let sql = format!(
        "INSERT INTO community_settings (platform, community, {column}) VALUES (?1, ?2, ?3) \
         ON CONFLICT (platform, community) DO UPDATE SET {column} = excluded.{column}"
    );
    sqlx::query(AssertSqlSafe(sql))
        .bind(platform)
        .bind(community)
        .bind(value)
        .execute(&mut *db.alone().await?)
        .await?;
    Ok(())
}

pub(super) async fn caps(db: &SqliteDatabase, platform: &str, community: &str) -> Result<CapsRow> {
    let row: Option<CapsRow> = sqlx::query_as(
        "SELECT max_open_challenges, max_active_games, max_bot_games, \
         max_challenges_per_opponent FROM community_settings \
         WHERE platform = ?1 AND community = ?2",
    )
    .bind(platform)
    .bind(community)
    .fetch_optional(&db.pool)
    .await?;
    Ok(row.unwrap_or_default())
}

pub(super) async fn set_caps(
    db: &SqliteDatabase,
    platform: &str,
    community: &str,
    caps: &CapsRow,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO community_settings (platform, community, max_open_challenges, \
         max_active_games, max_bot_games, max_challenges_per_opponent) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6) \
         ON CONFLICT (platform, community) DO UPDATE SET \
         max_open_challenges = excluded.max_open_challenges, \
         max_active_games = excluded.max_active_games, \
         max_bot_games = excluded.max_bot_games, \
         max_challenges_per_opponent = excluded.max_challenges_per_opponent",
    )
    .bind(platform)
    .bind(community)
    .bind(caps.max_open_challenges)
    .bind(caps.max_active_games)
    .bind(caps.max_bot_games)
    .bind(caps.max_challenges_per_opponent)
    .execute(&mut *db.alone().await?)
    .await?;
    Ok(())
}

pub(super) async fn counts(db: &SqliteDatabase, player_id: i64, now: i64) -> Result<Counts> {
    Ok(sqlx::query_as(
        "SELECT \
         (SELECT COUNT(*) FROM challenges WHERE challenger_id = ?1 AND status = 'open' \
          AND expires_at > ?2) AS open_challenges, \
         (SELECT COUNT(*) FROM games WHERE (white_id = ?1 OR black_id = ?1) \
          AND status = 'active' AND bot_level IS NULL) AS active_games, \
         (SELECT COUNT(*) FROM games WHERE (white_id = ?1 OR black_id = ?1) \
          AND status = 'active' AND bot_level IS NOT NULL) AS bot_games",
    )
    .bind(player_id)
    .bind(now)
    .fetch_one(&db.pool)
    .await?)
}

pub(super) async fn open_challenges_between(
    db: &SqliteDatabase,
    challenger: i64,
    challenged: i64,
    game_key: &str,
    now: i64,
) -> Result<Vec<i64>> {
    Ok(sqlx::query_scalar(
        "SELECT id FROM challenges WHERE challenger_id = ?1 AND challenged_id = ?2 \
         AND game_key = ?3 AND status = 'open' AND expires_at > ?4 ORDER BY id",
    )
    .bind(challenger)
    .bind(challenged)
    .bind(game_key)
    .bind(now)
    .fetch_all(&db.pool)
    .await?)
}

pub(super) async fn players_in(
    db: &SqliteDatabase,
    platform: &str,
    community: &str,
) -> Result<Vec<PlayerRow>> {
    Ok(sqlx::query_as(
        "SELECT id, platform, platform_id, display_name FROM players \
         WHERE platform = ?1 AND id IN ( \
         SELECT white_id FROM games WHERE platform = ?1 AND COALESCE(community, channel) = ?2 \
         UNION SELECT black_id FROM games WHERE platform = ?1 \
         AND COALESCE(community, channel) = ?2 \
         UNION SELECT challenger_id FROM challenges WHERE platform = ?1 \
         AND COALESCE(community, channel) = ?2 \
         UNION SELECT challenged_id FROM challenges WHERE platform = ?1 \
         AND COALESCE(community, channel) = ?2) \
         ORDER BY display_name COLLATE NOCASE LIMIT 1000",
    )
    .bind(platform)
    .bind(community)
    .fetch_all(&db.pool)
    .await?)
}

/// Moves everything of a community to another (a Matrix room replaced by its upgrade): its
/// games, challenges and tournaments (a thread's channel becomes the new room itself:
/// threads do not move across rooms), its ratings and their history, and its settings. The
/// active games moved, by number.
pub(super) async fn move_community(
    db: &SqliteDatabase,
    platform: &str,
    from: &str,
    to: &str,
    now: i64,
) -> Result<Vec<i64>> {
    let mut tx = db.write().await?;
    let moved: Vec<i64> = sqlx::query_scalar(
        "SELECT id FROM games WHERE platform = ?1 AND community = ?2 AND status = 'active' \
         ORDER BY id",
    )
    .bind(platform)
    .bind(from)
    .fetch_all(&mut *tx)
    .await?;
    sqlx::query(
        "UPDATE games SET channel = ?3, community = ?3, updated_at = ?4 \
         WHERE platform = ?1 AND community = ?2",
    )
    .bind(platform)
    .bind(from)
    .bind(to)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "UPDATE challenges SET channel = ?3, community = ?3 \
         WHERE platform = ?1 AND community = ?2",
    )
    .bind(platform)
    .bind(from)
    .bind(to)
    .execute(&mut *tx)
    .await?;
    // A tournament's thread stays behind in the old room: its news goes to the new room.
    sqlx::query(
        "UPDATE tournaments SET channel = ?3, community = ?3, thread = NULL \
         WHERE platform = ?1 AND community = ?2",
    )
    .bind(platform)
    .bind(from)
    .bind(to)
    .execute(&mut *tx)
    .await?;
    for sql in [
        "UPDATE ratings SET community = ?3 WHERE community = ?2 AND player_id IN \
         (SELECT id FROM players WHERE platform = ?1)",
        "UPDATE rating_changes SET community = ?3 WHERE community = ?2 AND player_id IN \
         (SELECT id FROM players WHERE platform = ?1)",
    ] {
        sqlx::query(sql)
            .bind(platform)
            .bind(from)
            .bind(to)
            .execute(&mut *tx)
            .await?;
    }
    sqlx::query(
        "UPDATE community_settings SET community = ?3 WHERE platform = ?1 AND community = ?2 \
         AND NOT EXISTS (SELECT 1 FROM community_settings WHERE platform = ?1 AND community = ?3)",
    )
    .bind(platform)
    .bind(from)
    .bind(to)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(moved)
}
