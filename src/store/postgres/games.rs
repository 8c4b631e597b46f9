//! Games and their moves: created, read, moved and ended, each change guarded by the ply.

use super::PostgresDatabase;
use super::analysis::enqueue_finished;
use super::notices::insert_notice;
use crate::store::{
    AppendMoves, GamePlayersRow, GameRow, MoveRow, NewGame, NewNotice, Result, StoreError,
    StoredGame, exactly_one,
};

pub(super) async fn set_game_channel(
    db: &PostgresDatabase,
    game_id: i64,
    channel: &str,
    now: i64,
) -> Result<bool> {
    let done = sqlx::query("UPDATE games SET channel = $2, updated_at = $3 WHERE id = $1")
        .bind(game_id)
        .bind(channel)
        .bind(now)
        .execute(&db.pool)
        .await?;
    Ok(done.rows_affected() == 1)
}

pub(super) async fn create_game(db: &PostgresDatabase, game: &NewGame<'_>) -> Result<GameRow> {
    let mut tx = db.write().await?;
    let row = insert_game(&mut tx, game).await?;
    tx.commit().await?;
    Ok(row)
}

pub(super) async fn game(db: &PostgresDatabase, id: i64) -> Result<Option<GameRow>> {
    Ok(sqlx::query_as("SELECT * FROM games WHERE id = $1")
        .bind(id)
        .fetch_optional(&db.pool)
        .await?)
}

pub(super) async fn game_by_web_id(db: &PostgresDatabase, web_id: &str) -> Result<Option<GameRow>> {
    Ok(sqlx::query_as("SELECT * FROM games WHERE web_id = $1")
        .bind(web_id)
        .fetch_optional(&db.pool)
        .await?)
}

pub(super) async fn stored_game(
    db: &PostgresDatabase,
    id: i64,
    now: i64,
) -> Result<Option<StoredGame>> {
    // One statement, so one snapshot: the moves and what is around the game are the game
    // row's. A leave counts from its start until it ends or its end passes, as `on_leave`.
    let game: Option<GamePlayersRow> = sqlx::query_as(
        "SELECT g.*, w.platform AS white_platform, w.platform_id AS white_platform_id, \
         w.display_name AS white_name, b.platform AS black_platform, \
         b.platform_id AS black_platform_id, b.display_name AS black_name, \
         (SELECT COALESCE(json_agg(json_build_array(m.ply, m.text, m.player_id, m.played_at) \
          ORDER BY m.ply), '[]')::text FROM moves m WHERE m.game_id = g.id) AS moves, \
         ws.turn_pings AS white_turn_pings, ws.viewpoint AS white_viewpoint, \
         bs.turn_pings AS black_turn_pings, bs.viewpoint AS black_viewpoint, \
         EXISTS (SELECT 1 FROM leaves l WHERE l.player_id = g.white_id AND l.ended_at IS NULL \
          AND l.started_at <= $2 AND l.ends_at > $2) AS white_on_leave, \
         EXISTS (SELECT 1 FROM leaves l WHERE l.player_id = g.black_id AND l.ended_at IS NULL \
          AND l.started_at <= $2 AND l.ends_at > $2) AS black_on_leave, \
         EXISTS (SELECT 1 FROM conditionals c WHERE c.game_id = g.id) AS conditionals \
         FROM games g JOIN players w ON w.id = g.white_id JOIN players b ON b.id = g.black_id \
         LEFT JOIN settings ws ON ws.player_id = g.white_id \
         LEFT JOIN settings bs ON bs.player_id = g.black_id \
         WHERE g.id = $1",
    )
    .bind(id)
    .bind(now)
    .fetch_optional(&db.pool)
    .await?;
    game.map(GamePlayersRow::into_stored).transpose()
}

pub(super) async fn moves(db: &PostgresDatabase, game_id: i64) -> Result<Vec<MoveRow>> {
    Ok(sqlx::query_as(
        "SELECT ply, text, player_id, played_at FROM moves WHERE game_id = $1 ORDER BY ply",
    )
    .bind(game_id)
    .fetch_all(&db.pool)
    .await?)
}

pub(super) async fn games_of(
    db: &PostgresDatabase,
    player_id: i64,
    limit: i64,
) -> Result<Vec<GameRow>> {
    Ok(sqlx::query_as(
        "SELECT * FROM games WHERE white_id = $1 OR black_id = $1 \
         ORDER BY status = 'active' DESC, updated_at DESC, id DESC LIMIT $2",
    )
    .bind(player_id)
    .bind(limit)
    .fetch_all(&db.pool)
    .await?)
}

pub(super) async fn active_games_in(
    db: &PostgresDatabase,
    platform: &str,
    channel: &str,
    player_id: i64,
) -> Result<Vec<GameRow>> {
    Ok(sqlx::query_as(
        "SELECT * FROM games WHERE platform = $1 AND channel = $2 \
         AND status = 'active' AND (white_id = $3 OR black_id = $3) ORDER BY id",
    )
    .bind(platform)
    .bind(channel)
    .bind(player_id)
    .fetch_all(&db.pool)
    .await?)
}

pub(super) async fn games_in_channel(
    db: &PostgresDatabase,
    platform: &str,
    channel: &str,
    limit: i64,
) -> Result<Vec<GameRow>> {
    Ok(sqlx::query_as(
        "SELECT * FROM games WHERE platform = $1 AND channel = $2 \
         ORDER BY status = 'active' DESC, updated_at DESC, id DESC LIMIT $3",
    )
    .bind(platform)
    .bind(channel)
    .bind(limit)
    .fetch_all(&db.pool)
    .await?)
}

/// Locks an active game at the ply the caller saw for a change in `tx`. A change the clocks
/// make (`skip`: one with a notice) skips a game another transaction holds, which is acting on
/// it now; a player's change waits for it. Either way a game that moved on or ended is a
/// [`StoreError::Conflict`].
async fn lock_game(
    tx: &mut sqlx::Transaction<'_, sqlx::Postgres>,
    game_id: i64,
    expected_ply: i64,
    skip: bool,
) -> Result<()> {
    let sql = if skip {
        "SELECT id FROM games WHERE id = $1 AND ply = $2 AND status = 'active' \
         FOR UPDATE SKIP LOCKED"
    } else {
        "SELECT id FROM games WHERE id = $1 AND ply = $2 AND status = 'active' FOR UPDATE"
    };
    let locked: Option<i64> = sqlx::query_scalar(sql)
        .bind(game_id)
        .bind(expected_ply)
        .fetch_optional(&mut **tx)
        .await?;
    locked.map(|_| ()).ok_or(StoreError::Conflict)
}

pub(super) async fn append_moves(db: &PostgresDatabase, append: &AppendMoves<'_>) -> Result<()> {
    append.check()?;
    let mut tx = db.write().await?;
    lock_game(
        &mut tx,
        append.game_id,
        append.expected_ply,
        append.notice.is_some(),
    )
    .await?;
    let new_ply = append.expected_ply + append.moves.len() as i64;
    let (status, result, reason, finished_at) = match append.finish {
        Some((result, reason)) => ("finished", Some(result), Some(reason), Some(append.now)),
        None => ("active", None, None, None),
    };
    let updated = sqlx::query(
        "UPDATE games SET ply = $2, position = $3, deadline = $4, status = $5, result = $6, \
         end_reason = $7, finished_at = $8, updated_at = $9, \
         draw_offer = CASE WHEN draw_offer = $10 THEN draw_offer END, \
         takeback_offer = NULL, revision = revision + 1 \
         WHERE id = $1 AND revision = $11 AND (deadline IS NULL OR deadline > $9)",
    )
    .bind(append.game_id)
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
    if updated.rows_affected() != 1 {
        return Err(StoreError::Conflict);
    }
    let plies: Vec<i64> = (1..=append.moves.len() as i64)
        .map(|index| append.expected_ply + index)
        .collect();
    let (texts, players): (Vec<&str>, Vec<Option<i64>>) = append
        .moves
        .iter()
        .map(|(text, player)| (text.as_str(), *player))
        .unzip();
    sqlx::query(
        "INSERT INTO moves (game_id, ply, text, player_id, played_at) \
         SELECT $1, ply, text, player_id, $5 \
         FROM UNNEST($2::BIGINT[], $3::TEXT[], $4::BIGINT[]) AS m (ply, text, player_id)",
    )
    .bind(append.game_id)
    .bind(&plies)
    .bind(&texts)
    .bind(&players)
    .bind(append.now)
    .execute(&mut *tx)
    .await?;
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
    db: &PostgresDatabase,
    game_id: i64,
    expected_ply: i64,
    result: Option<&str>,
    reason: &str,
    now: i64,
    notice: Option<&NewNotice<'_>>,
) -> Result<()> {
    let mut tx = db.write().await?;
    lock_game(&mut tx, game_id, expected_ply, notice.is_some()).await?;
    // A game lost on time ends at its deadline: if another process moved the deadline on
    // meanwhile (after an outage), the game goes on.
    let done = sqlx::query(
        "UPDATE games SET status = 'finished', result = $2, end_reason = $3, \
         finished_at = $4, updated_at = $4, deadline = NULL, draw_offer = NULL \
         WHERE id = $1 AND ($3 <> 'timeout' OR deadline <= $4)",
    )
    .bind(game_id)
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
    db: &PostgresDatabase,
    game_id: i64,
    expected_ply: i64,
    offer: Option<&str>,
    now: i64,
) -> Result<()> {
    let done = sqlx::query(
        "UPDATE games SET draw_offer = $3, updated_at = $4 \
         WHERE id = $1 AND ply = $2 AND status = 'active'",
    )
    .bind(game_id)
    .bind(expected_ply)
    .bind(offer)
    .bind(now)
    .execute(&db.pool)
    .await?;
    exactly_one(done.rows_affected())
}

pub(super) async fn games_due(
    db: &PostgresDatabase,
    until: i64,
    platform: Option<&str>,
) -> Result<Vec<GameRow>> {
    Ok(sqlx::query_as(
        "SELECT * FROM games WHERE status = 'active' AND deadline <= $1 \
         AND attention IS NULL AND ($2::TEXT IS NULL OR platform = $2) ORDER BY deadline",
    )
    .bind(until)
    .bind(platform)
    .fetch_all(&db.pool)
    .await?)
}

pub(super) async fn active_bot_games(
    db: &PostgresDatabase,
    platform: Option<&str>,
) -> Result<Vec<GameRow>> {
    Ok(sqlx::query_as(
        "SELECT * FROM games WHERE status = 'active' AND bot_level IS NOT NULL \
         AND attention IS NULL AND ($1::TEXT IS NULL OR platform = $1) ORDER BY id",
    )
    .bind(platform)
    .fetch_all(&db.pool)
    .await?)
}

pub(super) async fn insert_game(
    tx: &mut sqlx::Transaction<'_, sqlx::Postgres>,
    game: &NewGame<'_>,
) -> Result<GameRow> {
    Ok(sqlx::query_as(
        "INSERT INTO games (platform, channel, game_key, start_position, white_id, black_id, \
         days_per_move, ply, position, status, deadline, rematch_of, created_at, updated_at, \
         community, rated, bot_level, bot_side, rules, takebacks, web_id) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, 0, $4, 'active', $8, $9, $10, $10, $11, $12, $13, $14, \
         $15, $16, $17) \
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
