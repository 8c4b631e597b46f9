//! Game options: private notes and takebacks (asked, answered, and applied with their history).

use super::SqliteDatabase;
use super::community::{set_setting, setting};
use crate::store::{NoteRow, Result, StoreError, TakeBack, exactly_one};

pub(super) async fn add_note(
    db: &SqliteDatabase,
    game_id: i64,
    player_id: i64,
    text: &str,
    now: i64,
) -> Result<NoteRow> {
    let mut tx = db.write().await?;
    let row = sqlx::query_as(
        "INSERT INTO notes (game_id, player_id, text, created_at) VALUES (?1, ?2, ?3, ?4) \
         RETURNING id, text, created_at",
    )
    .bind(game_id)
    .bind(player_id)
    .bind(text)
    .bind(now)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(row)
}

pub(super) async fn notes(
    db: &SqliteDatabase,
    game_id: i64,
    player_id: i64,
) -> Result<Vec<NoteRow>> {
    Ok(sqlx::query_as(
        "SELECT id, text, created_at FROM notes WHERE game_id = ?1 AND player_id = ?2 ORDER BY id",
    )
    .bind(game_id)
    .bind(player_id)
    .fetch_all(&db.pool)
    .await?)
}

pub(super) async fn clear_notes(db: &SqliteDatabase, game_id: i64, player_id: i64) -> Result<u64> {
    let done = sqlx::query("DELETE FROM notes WHERE game_id = ?1 AND player_id = ?2")
        .bind(game_id)
        .bind(player_id)
        .execute(&mut *db.alone().await?)
        .await?;
    Ok(done.rows_affected())
}

pub(super) async fn set_takeback_offer(
    db: &SqliteDatabase,
    game_id: i64,
    expected_revision: i64,
    offer: Option<&str>,
    now: i64,
) -> Result<()> {
    let done = sqlx::query(
        "UPDATE games SET takeback_offer = ?3, updated_at = ?4 \
         WHERE id = ?1 AND revision = ?2 AND status = 'active'",
    )
    .bind(game_id)
    .bind(expected_revision)
    .bind(offer)
    .bind(now)
    .execute(&mut *db.alone().await?)
    .await?;
    exactly_one(done.rows_affected())
}

pub(super) async fn take_back(db: &SqliteDatabase, back: &TakeBack<'_>) -> Result<()> {
    let mut tx = db.write().await?;
    let done = sqlx::query(
        "UPDATE games SET ply = ?4, position = ?5, deadline = ?6, updated_at = ?7, \
         draw_offer = NULL, takeback_offer = NULL, revision = revision + 1 \
         WHERE id = ?1 AND ply = ?2 AND revision = ?3 AND status = 'active'",
    )
    .bind(back.game_id)
    .bind(back.expected_ply)
    .bind(back.expected_revision)
    .bind(back.to_ply)
    .bind(back.position)
    .bind(back.deadline)
    .bind(back.now)
    .execute(&mut *tx)
    .await?;
    if done.rows_affected() != 1 {
        return Err(StoreError::Conflict);
    }
    let taken: Vec<String> =
        sqlx::query_scalar("SELECT text FROM moves WHERE game_id = ?1 AND ply > ?2 ORDER BY ply")
            .bind(back.game_id)
            .bind(back.to_ply)
            .fetch_all(&mut *tx)
            .await?;
    sqlx::query(
        "INSERT INTO takebacks (game_id, asked_by, from_ply, to_ply, moves, taken_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )
    .bind(back.game_id)
    .bind(back.asked_by)
    .bind(back.to_ply)
    .bind(back.expected_ply)
    .bind(taken.join(" "))
    .bind(back.now)
    .execute(&mut *tx)
    .await?;
    sqlx::query("DELETE FROM moves WHERE game_id = ?1 AND ply > ?2")
        .bind(back.game_id)
        .bind(back.to_ply)
        .execute(&mut *tx)
        .await?;
    // Conditional lines were entered on the game as it was: none of them stands after it.
    sqlx::query("DELETE FROM conditionals WHERE game_id = ?1")
        .bind(back.game_id)
        .execute(&mut *tx)
        .await?;
    // Reminders are kept once per ply: the plies played again get theirs afresh.
    sqlx::query("DELETE FROM reminders WHERE game_id = ?1 AND ply >= ?2")
        .bind(back.game_id)
        .bind(back.to_ply)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(())
}

pub(super) async fn rated_setups(
    db: &SqliteDatabase,
    platform: &str,
    community: &str,
) -> Result<bool> {
    Ok(setting(db, platform, community, "rated_setups")
        .await?
        .unwrap_or(false))
}

pub(super) async fn set_rated_setups(
    db: &SqliteDatabase,
    platform: &str,
    community: &str,
    on: bool,
) -> Result<()> {
    set_setting(db, platform, community, "rated_setups", on).await
}
