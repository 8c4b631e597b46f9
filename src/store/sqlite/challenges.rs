//! Challenges: created, read, closed, and accepted into a game in one transaction.

use super::SqliteDatabase;
use super::games::insert_game;
use crate::store::{ChallengeRow, GameRow, NewChallenge, NewGame, Result, StoreError};

pub(super) async fn create_challenge(
    db: &SqliteDatabase,
    new: &NewChallenge<'_>,
) -> Result<ChallengeRow> {
    let mut tx = db.write().await?;
    let row = sqlx::query_as(
        "INSERT INTO challenges (platform, channel, challenger_id, challenged_id, game_key, \
         days_per_move, color, status, created_at, expires_at, community, rated, rules, \
         start_position, takebacks) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'open', ?8, ?9, ?10, ?11, \
         ?12, ?13, ?14) RETURNING *",
    )
    .bind(new.platform)
    .bind(new.channel)
    .bind(new.challenger_id)
    .bind(new.challenged_id)
    .bind(new.game_key)
    .bind(new.days_per_move)
    .bind(new.color)
    .bind(new.now)
    .bind(new.expires_at)
    .bind(new.community)
    .bind(new.rated)
    .bind(new.rules)
    .bind(new.start_position)
    .bind(new.takebacks)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(row)
}

pub(super) async fn challenge(db: &SqliteDatabase, id: i64) -> Result<Option<ChallengeRow>> {
    Ok(sqlx::query_as("SELECT * FROM challenges WHERE id = ?1")
        .bind(id)
        .fetch_optional(&db.pool)
        .await?)
}

pub(super) async fn open_challenges(
    db: &SqliteDatabase,
    platform: &str,
    channel: &str,
    player_id: i64,
) -> Result<Vec<ChallengeRow>> {
    Ok(sqlx::query_as(
        "SELECT * FROM challenges WHERE platform = ?1 AND channel = ?2 AND status = 'open' \
         AND (challenger_id = ?3 OR challenged_id = ?3 OR challenged_id IS NULL) \
         ORDER BY id DESC",
    )
    .bind(platform)
    .bind(channel)
    .bind(player_id)
    .fetch_all(&db.pool)
    .await?)
}

pub(super) async fn close_challenge(db: &SqliteDatabase, id: i64, status: &str) -> Result<bool> {
    let done = sqlx::query("UPDATE challenges SET status = ?2 WHERE id = ?1 AND status = 'open'")
        .bind(id)
        .bind(status)
        .execute(&mut *db.alone().await?)
        .await?;
    Ok(done.rows_affected() == 1)
}

pub(super) async fn accept_challenge(
    db: &SqliteDatabase,
    challenge_id: i64,
    game: &NewGame<'_>,
) -> Result<GameRow> {
    let mut tx = db.write().await?;
    let game_row = insert_game(&mut tx, game).await?;
    let done = sqlx::query(
        "UPDATE challenges SET status = 'accepted', game_id = ?2 \
         WHERE id = ?1 AND status = 'open'",
    )
    .bind(challenge_id)
    .bind(game_row.id)
    .execute(&mut *tx)
    .await?;
    if done.rows_affected() != 1 {
        return Err(StoreError::Conflict);
    }
    tx.commit().await?;
    Ok(game_row)
}
