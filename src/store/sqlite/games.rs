//! Games and their moves: created, read, moved and ended, each change guarded by the ply.

use super::analysis::enqueue_finished;
use super::group::{Grouped, Value};
use super::notices::insert_notice;
use super::{SqliteDatabase, Write};
use crate::store::ANALYSED_FROM_PLY;
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

pub(super) async fn stored_game(
    db: &SqliteDatabase,
    id: i64,
    now: i64,
) -> Result<Option<StoredGame>> {
    // One statement, so one snapshot: the moves and what is around the game are the game
    // row's. A leave counts from its start until it ends or its end passes, as `on_leave`.
    let game: Option<GamePlayersRow> = sqlx::query_as(
        "SELECT g.*, w.platform AS white_platform, w.platform_id AS white_platform_id, \
         w.display_name AS white_name, b.platform AS black_platform, \
         b.platform_id AS black_platform_id, b.display_name AS black_name, \
         (SELECT json_group_array(json_array(m.ply, m.text, m.player_id, m.played_at) \
          ORDER BY m.ply) FROM moves m WHERE m.game_id = g.id) AS moves, \
         ws.turn_pings AS white_turn_pings, ws.viewpoint AS white_viewpoint, \
         bs.turn_pings AS black_turn_pings, bs.viewpoint AS black_viewpoint, \
         EXISTS (SELECT 1 FROM leaves l WHERE l.player_id = g.white_id AND l.ended_at IS NULL \
          AND l.started_at <= ?2 AND l.ends_at > ?2) AS white_on_leave, \
         EXISTS (SELECT 1 FROM leaves l WHERE l.player_id = g.black_id AND l.ended_at IS NULL \
          AND l.started_at <= ?2 AND l.ends_at > ?2) AS black_on_leave, \
         EXISTS (SELECT 1 FROM conditionals c WHERE c.game_id = g.id) AS conditionals \
         FROM games g JOIN players w ON w.id = g.white_id JOIN players b ON b.id = g.black_id \
         LEFT JOIN settings ws ON ws.player_id = g.white_id \
         LEFT JOIN settings bs ON bs.player_id = g.black_id \
         WHERE g.id = ?1",
    )
    .bind(id)
    .bind(now)
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

/// The statements of a move, committed in a group (see [`SqliteDatabase::grouped`]): the
/// guarded update of the game, then its moves from a JSON array of `[text, player]`, each
/// statement after the update applying only when the one before it changed rows, so a move
/// that lost its race changes nothing. The update's count says which happened. The
/// parameters are plain `?`, bound in the order they appear.
macro_rules! append_statements {
    ($($then:expr),*) => {
        concat!(
            "UPDATE games SET ply = ?, position = ?, deadline = ?, status = ?, result = ?, \
             end_reason = ?, finished_at = ?, updated_at = ?, \
             draw_offer = CASE WHEN draw_offer = ? THEN draw_offer END, \
             takeback_offer = NULL, revision = revision + 1 \
             WHERE id = ? AND ply = ? AND revision = ? AND status = 'active' \
             AND (deadline IS NULL OR deadline > ?); \
             INSERT INTO moves (game_id, ply, text, player_id, played_at) \
             SELECT ?, ? + 1 + key, value ->> 0, value ->> 1, ? FROM json_each(?) \
             WHERE changes() = 1;",
            $(" ", $then,)*
        )
    };
}

/// The notice recorded with a move (a bot move the clocks played).
macro_rules! notice_after_move {
    () => {
        "INSERT INTO notices (platform, kind, game_id, challenge_id, ply, left_secs, created_at) \
         SELECT ?, ?, ?, ?, ?, ?, ? WHERE changes() > 0;"
    };
}

/// The analysis queued by a move that ends a game between people (see `enqueue_finished`).
macro_rules! analysis_after_move {
    () => {
        "INSERT INTO analyses (game_id, state, created_at) \
         SELECT id, 'queued', ? FROM games \
         WHERE changes() > 0 AND id = ? AND result IS NOT NULL AND bot_level IS NULL \
         AND ply >= ? ON CONFLICT DO NOTHING;"
    };
}

/// The statements of a move, by what it records besides: nothing, a notice, the analysis of
/// the game it ends, both.
const APPEND: [&str; 4] = [
    append_statements!(),
    append_statements!(notice_after_move!()),
    append_statements!(analysis_after_move!()),
    append_statements!(notice_after_move!(), analysis_after_move!()),
];

/// Where the update's count is among a move's statements.
const UPDATE_RESULT: usize = 0;

pub(super) async fn append_moves(db: &SqliteDatabase, append: &AppendMoves<'_>) -> Result<()> {
    append.check()?;
    let moves = serde_json::to_string(append.moves)
        .map_err(|error| StoreError::Database(sqlx::Error::Encode(error.into())))?;
    let changes = db.grouped(append_write(append, moves)).await?;
    exactly_one(changes.get(UPDATE_RESULT).copied().unwrap_or_default())
}

/// The statements of `append` with the values of their parameters in order; `moves` is the
/// moves as a JSON array of `[text, player]`.
fn append_write(append: &AppendMoves<'_>, moves: String) -> Grouped {
    let new_ply = append.expected_ply + append.moves.len() as i64;
    let (status, result, reason, finished_at) = match append.finish {
        Some((result, reason)) => ("finished", Some(result), Some(reason), Some(append.now)),
        None => ("active", None, None, None),
    };
    let notice = append.notice.as_ref();
    let statements =
        APPEND[usize::from(notice.is_some()) + 2 * usize::from(append.finish.is_some())];
    let mut values: Vec<Value> = vec![
        new_ply.into(),
        append.position.into(),
        append.deadline.into(),
        status.into(),
        result.into(),
        reason.into(),
        finished_at.into(),
        append.now.into(),
        append.mover.into(),
        append.game_id.into(),
        append.expected_ply.into(),
        append.expected_revision.into(),
        append.now.into(),
        append.game_id.into(),
        append.expected_ply.into(),
        append.now.into(),
        moves.into(),
    ];
    if let Some(notice) = notice {
        let (platform, kind, game_id, challenge_id, ply, left, now) = notice.columns();
        values.extend([
            platform.into(),
            kind.into(),
            game_id.into(),
            challenge_id.into(),
            ply.into(),
            left.into(),
            now.into(),
        ]);
    }
    if append.finish.is_some() {
        values.extend([
            append.now.into(),
            append.game_id.into(),
            ANALYSED_FROM_PLY.into(),
        ]);
    }
    Grouped { statements, values }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// sqlx binds NULL to a `?` it was given no value for, and ignores values left over: a
    /// miscounted write would store NULLs without an error. Every kind of move has one value
    /// for each `?` of its statements.
    #[test]
    fn every_move_has_a_value_for_each_parameter() {
        let moves = [(String::from("e3e4"), Some(1))];
        for (notice, finish) in [(false, false), (true, false), (false, true), (true, true)] {
            let append = AppendMoves {
                game_id: 1,
                expected_ply: 0,
                expected_revision: 0,
                moves: &moves,
                position: "after e3e4",
                deadline: None,
                finish: finish.then_some(("1-0", "checkmate")),
                mover: "white",
                now: 60,
                notice: notice.then_some(NewNotice {
                    platform: "console",
                    kind: "bot_move",
                    game_id: Some(1),
                    challenge_id: None,
                    ply: Some(0),
                    left: None,
                    now: 60,
                }),
            };
            let write = append_write(&append, String::from("[]"));
            assert_eq!(
                write.values.len(),
                write.statements.matches('?').count(),
                "notice {notice}, finish {finish}"
            );
        }
    }
}
