//! Games and their moves: created, read, moved and ended, each change guarded by the ply.

use super::analysis::enqueue_finished;
use super::notices::insert_notice;
use super::{SqliteDatabase, Write};
use crate::store::{
    AppendMoves, GamePlayersRow, GameRow, MoveRow, NewGame, NewNotice, Result, StoreError,
    StoredGame, exactly_one,
};

pub(super) async fn set_game_channel(
    db: &SqliteDatabase,
    game_id: i64,
    channel: &str,
    now: i64,
) -> Result<bool> {
    let done = sqlx::query("UPDATE games SET channel = ?2, updated_at = ?3 WHERE id = ?1")
        .bind(game_id)
        .bind(channel)
        .bind(now)
        .execute(&mut *db.alone().await?)
        .await?;
    Ok(done.rows_affected() == 1)
}

pub(super) async fn create_game(db: &SqliteDatabase, game: &NewGame<'_>) -> Result<GameRow> {
    let mut tx = db.write().await?;
    let row = insert_game(&mut tx, game).await?;
    tx.commit().await?;
    Ok(row)
}

pub(super) async fn game(db: &SqliteDatabase, id: i64) -> Result<Option<GameRow>> {
    Ok(sqlx::query_as("SELECT * FROM games WHERE id = ?1")
        .bind(id)
        .fetch_optional(&db.pool)
        .await?)
}

pub(super) async fn game_by_web_id(db: &SqliteDatabase, web_id: &str) -> Result<Option<GameRow>> {
    Ok(sqlx::query_as("SELECT * FROM games WHERE web_id = ?1")
        .bind(web_id)
        .fetch_optional(&db.pool)
        .await?)
}

pub(super) async fn stored_game(db: &SqliteDatabase, id: i64) -> Result<Option<StoredGame>> {
    // One statement, so one snapshot: the moves are the game row's.
    let game: Option<GamePlayersRow> = sqlx::query_as(
        "SELECT g.*, w.platform AS white_platform, w.platform_id AS white_platform_id, \
         w.display_name AS white_name, b.platform AS black_platform, \
         b.platform_id AS black_platform_id, b.display_name AS black_name, \
         (SELECT json_group_array(json_array(m.ply, m.text, m.player_id, m.played_at) \
          ORDER BY m.ply) FROM moves m WHERE m.game_id = g.id) AS moves \
         FROM games g JOIN players w ON w.id = g.white_id JOIN players b ON b.id = g.black_id \
         WHERE g.id = ?1",
    )
    .bind(id)
    .fetch_optional(&db.pool)
    .await?;
    game.map(GamePlayersRow::into_stored).transpose()
}

pub(super) async fn moves(db: &SqliteDatabase, game_id: i64) -> Result<Vec<MoveRow>> {
    Ok(sqlx::query_as(
        "SELECT ply, text, player_id, played_at FROM moves WHERE game_id = ?1 ORDER BY ply",
    )
    .bind(game_id)
    .fetch_all(&db.pool)
    .await?)
}

pub(super) async fn games_of(
    db: &SqliteDatabase,
    player_id: i64,
    limit: i64,
) -> Result<Vec<GameRow>> {
    Ok(sqlx::query_as(
        "SELECT * FROM games WHERE white_id = ?1 OR black_id = ?1 \
         ORDER BY status = 'active' DESC, updated_at DESC, id DESC LIMIT ?2",
    )
    .bind(player_id)
    .bind(limit)
    .fetch_all(&db.pool)
    .await?)
}

pub(super) async fn active_games_in(
    db: &SqliteDatabase,
    platform: &str,
    channel: &str,
    player_id: i64,
) -> Result<Vec<GameRow>> {
    Ok(sqlx::query_as(
        "SELECT * FROM games WHERE platform = ?1 AND channel = ?2 \
         AND status = 'active' AND (white_id = ?3 OR black_id = ?3) ORDER BY id",
    )
    .bind(platform)
    .bind(channel)
    .bind(player_id)
    .fetch_all(&db.pool)
    .await?)
}

pub(super) async fn games_in_channel(
    db: &SqliteDatabase,
    platform: &str,
    channel: &str,
    limit: i64,
) -> Result<Vec<GameRow>> {
    Ok(sqlx::query_as(
        "SELECT * FROM games WHERE platform = ?1 AND channel = ?2 \
         ORDER BY status = 'active' DESC, updated_at DESC, id DESC LIMIT ?3",
    )
    .bind(platform)
    .bind(channel)
    .bind(limit)
    .fetch_all(&db.pool)
    .await?)
}

pub(super) async fn append_moves(db: &SqliteDatabase, append: &AppendMoves<'_>) -> Result<()> {
    let mut tx = db.write().await?;
    let new_ply = append.expected_ply + append.moves.len() as i64;
    let (status, result, reason, finished_at) = match append.finish {
        Some((result, reason)) => ("finished", Some(result), Some(reason), Some(append.now)),
        None => ("active", None, None, None),
    };
    let done = sqlx::query(
        "UPDATE games SET ply = ?3, position = ?4, deadline = ?5, status = ?6, result = ?7, \
         end_reason = ?8, finished_at = ?9, updated_at = ?10, \
         draw_offer = CASE WHEN draw_offer = ?11 THEN draw_offer END, \
         takeback_offer = NULL, revision = revision + 1 \
         WHERE id = ?1 AND ply = ?2 AND revision = ?12 AND status = 'active' \
         AND (deadline IS NULL OR deadline > ?10)",
    )
    .bind(append.game_id)
    .bind(append.expected_ply)
    .bind(new_ply)
    .bind(append.position)
    .bind(append.deadline)
    .bind(status)
    .bind(result)
    .bind(reason)
    .bind(finished_at)
    .bind(append.now)
    .bind(append.mover)
    .bind(append.expected_revision)
    .execute(&mut *tx)
    .await?;
    if done.rows_affected() != 1 {
        return Err(StoreError::Conflict);
    }
    for (index, (text, player)) in append.moves.iter().enumerate() {
        sqlx::query(
            "INSERT INTO moves (game_id, ply, text, player_id, played_at) \
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )
        .bind(append.game_id)
        .bind(append.expected_ply + index as i64 + 1)
        .bind(text)
        .bind(player)
        .bind(append.now)
        .execute(&mut *tx)
        .await?;
    }
    if append.finish.is_some() {
        enqueue_finished(&mut tx, append.game_id, append.now).await?;
    }
    if let Some(notice) = &append.notice {
        insert_notice(&mut tx, notice).await?;
    }
    tx.commit().await?;
    Ok(())
}

pub(super) async fn finish_game(
    db: &SqliteDatabase,
    game_id: i64,
    expected_ply: i64,
    result: Option<&str>,
    reason: &str,
    now: i64,
    notice: Option<&NewNotice<'_>>,
) -> Result<()> {
    let mut tx = db.write().await?;
    let done = sqlx::query(
        "UPDATE games SET status = 'finished', result = ?3, end_reason = ?4, \
         finished_at = ?5, updated_at = ?5, deadline = NULL, draw_offer = NULL \
         WHERE id = ?1 AND ply = ?2 AND status = 'active' \
         AND (?4 <> 'timeout' OR deadline <= ?5)",
    )
    .bind(game_id)
    .bind(expected_ply)
    .bind(result)
    .bind(reason)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    if done.rows_affected() != 1 {
        return Err(StoreError::Conflict);
    }
    enqueue_finished(&mut tx, game_id, now).await?;
    if let Some(notice) = notice {
        insert_notice(&mut tx, notice).await?;
    }
    tx.commit().await?;
    Ok(())
}

pub(super) async fn set_draw_offer(
    db: &SqliteDatabase,
    game_id: i64,
    expected_ply: i64,
    offer: Option<&str>,
    now: i64,
) -> Result<()> {
    let done = sqlx::query(
        "UPDATE games SET draw_offer = ?3, updated_at = ?4 \
         WHERE id = ?1 AND ply = ?2 AND status = 'active'",
    )
    .bind(game_id)
    .bind(expected_ply)
    .bind(offer)
    .bind(now)
    .execute(&mut *db.alone().await?)
    .await?;
    exactly_one(done.rows_affected())
}

pub(super) async fn games_due(
    db: &SqliteDatabase,
    until: i64,
    platform: Option<&str>,
) -> Result<Vec<GameRow>> {
    Ok(sqlx::query_as(
        "SELECT * FROM games WHERE status = 'active' AND deadline <= ?1 \
         AND attention IS NULL AND (?2 IS NULL OR platform = ?2) ORDER BY deadline",
    )
    .bind(until)
    .bind(platform)
    .fetch_all(&db.pool)
    .await?)
}

pub(super) async fn active_bot_games(
    db: &SqliteDatabase,
    platform: Option<&str>,
) -> Result<Vec<GameRow>> {
    Ok(sqlx::query_as(
        "SELECT * FROM games WHERE status = 'active' AND bot_level IS NOT NULL \
         AND attention IS NULL AND (?1 IS NULL OR platform = ?1) ORDER BY id",
    )
    .bind(platform)
    .fetch_all(&db.pool)
    .await?)
}

pub(super) async fn insert_game(tx: &mut Write, game: &NewGame<'_>) -> Result<GameRow> {
    Ok(sqlx::query_as(
        "INSERT INTO games (platform, channel, game_key, start_position, white_id, black_id, \
         days_per_move, ply, position, status, deadline, rematch_of, created_at, updated_at, \
         community, rated, bot_level, bot_side, rules, takebacks, web_id) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 0, ?4, 'active', ?8, ?9, ?10, ?10, ?11, ?12, ?13, ?14, \
         ?15, ?16, ?17) \
         RETURNING *",
    )
    .bind(game.platform)
    .bind(game.channel)
    .bind(game.game_key)
    .bind(game.start_position)
    .bind(game.white_id)
    .bind(game.black_id)
    .bind(game.days_per_move)
    .bind(game.deadline)
    .bind(game.rematch_of)
    .bind(game.now)
    .bind(game.community)
    .bind(game.rated)
    .bind(game.bot.map(|(level, _)| level))
    .bind(game.bot.map(|(_, side)| side))
    .bind(game.rules)
    .bind(game.takebacks)
    .bind(&game.web_id)
    .fetch_one(&mut **tx)
    .await?)
}
