//! Ratings: one transaction per rated game, and the tables and histories read from them.

use super::SqliteDatabase;
use crate::store::{GameRow, RatingChangeRow, RatingFn, RatingRow, Result, ResultsRow};

pub(super) async fn unrated_games(db: &SqliteDatabase) -> Result<Vec<i64>> {
    Ok(sqlx::query_scalar(
        "SELECT id FROM games WHERE status = 'finished' AND rated = 1 AND result IS NOT NULL \
         AND NOT EXISTS (SELECT 1 FROM rating_changes WHERE game_id = games.id) ORDER BY id",
    )
    .fetch_all(&db.pool)
    .await?)
}

pub(super) async fn rate_game(
    db: &SqliteDatabase,
    game_id: i64,
    now: i64,
    update: RatingFn,
) -> Result<bool> {
    let mut tx = db.write().await?;
    let game: Option<GameRow> = sqlx::query_as(
        "SELECT * FROM games WHERE id = ?1 AND status = 'finished' AND rated = 1 \
         AND result IS NOT NULL \
         AND NOT EXISTS (SELECT 1 FROM rating_changes WHERE game_id = ?1)",
    )
    .bind(game_id)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(game) = game else { return Ok(false) };
    let community = game.rating_community();
    let mut before = [None, None];
    for (slot, player) in before.iter_mut().zip([game.white_id, game.black_id]) {
        *slot = sqlx::query_as(
            "SELECT rating, deviation, volatility FROM ratings \
             WHERE player_id = ?1 AND game_key = ?2 AND community = ?3",
        )
        .bind(player)
        .bind(&game.game_key)
        .bind(community)
        .fetch_optional(&mut *tx)
        .await?;
    }
    for change in game.rating_changes(before, update) {
        sqlx::query(
            "INSERT INTO ratings (player_id, game_key, community, rating, deviation, \
             volatility, games, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 1, ?7) \
             ON CONFLICT (player_id, game_key, community) DO UPDATE SET \
             rating = excluded.rating, deviation = excluded.deviation, \
             volatility = excluded.volatility, games = games + 1, \
             updated_at = excluded.updated_at",
        )
        .bind(change.player_id)
        .bind(&game.game_key)
        .bind(community)
        .bind(change.after.rating)
        .bind(change.after.deviation)
        .bind(change.after.volatility)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "INSERT INTO rating_changes (game_id, player_id, game_key, community, score, \
             before, after, deviation, changed_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )
        .bind(game_id)
        .bind(change.player_id)
        .bind(&game.game_key)
        .bind(community)
        .bind(change.score)
        .bind(change.before)
        .bind(change.after.rating)
        .bind(change.after.deviation)
        .bind(now)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(true)
}

pub(super) async fn leaderboard(
    db: &SqliteDatabase,
    community: &str,
    game_key: &str,
    limit: i64,
) -> Result<Vec<RatingRow>> {
    Ok(sqlx::query_as(
        "SELECT r.player_id, p.display_name, r.game_key, r.rating, r.deviation, \
         r.volatility, r.games FROM ratings r JOIN players p ON p.id = r.player_id \
         WHERE r.community = ?1 AND r.game_key = ?2 \
         ORDER BY r.rating DESC, r.games DESC, p.display_name LIMIT ?3",
    )
    .bind(community)
    .bind(game_key)
    .bind(limit)
    .fetch_all(&db.pool)
    .await?)
}

pub(super) async fn ratings_of(
    db: &SqliteDatabase,
    player_id: i64,
    community: &str,
) -> Result<Vec<RatingRow>> {
    Ok(sqlx::query_as(
        "SELECT r.player_id, p.display_name, r.game_key, r.rating, r.deviation, \
         r.volatility, r.games FROM ratings r JOIN players p ON p.id = r.player_id \
         WHERE r.player_id = ?1 AND r.community = ?2 ORDER BY r.game_key",
    )
    .bind(player_id)
    .bind(community)
    .fetch_all(&db.pool)
    .await?)
}

pub(super) async fn game_rating_changes(
    db: &SqliteDatabase,
    game_id: i64,
) -> Result<Vec<(i64, f64, f64)>> {
    Ok(sqlx::query_as(
        "SELECT player_id, before, after FROM rating_changes WHERE game_id = ?1 \
         ORDER BY player_id",
    )
    .bind(game_id)
    .fetch_all(&db.pool)
    .await?)
}

pub(super) async fn rating_history(
    db: &SqliteDatabase,
    player_id: i64,
    community: &str,
    game_key: &str,
    limit: i64,
) -> Result<Vec<RatingChangeRow>> {
    Ok(sqlx::query_as(
        "SELECT game_id, score, before, after, changed_at FROM rating_changes \
         WHERE player_id = ?1 AND community = ?2 AND game_key = ?3 \
         ORDER BY changed_at DESC, game_id DESC LIMIT ?4",
    )
    .bind(player_id)
    .bind(community)
    .bind(game_key)
    .bind(limit)
    .fetch_all(&db.pool)
    .await?)
}

pub(super) async fn results_of(
    db: &SqliteDatabase,
    player_id: i64,
    community: &str,
) -> Result<Vec<ResultsRow>> {
    Ok(sqlx::query_as(
        "SELECT game_key, \
         SUM((white_id = ?1 AND result = '1-0') OR (black_id = ?1 AND result = '0-1')) AS wins, \
         SUM((white_id = ?1 AND result = '0-1') OR (black_id = ?1 AND result = '1-0')) AS losses, \
         SUM(result = '1/2-1/2') AS draws \
         FROM games WHERE status = 'finished' AND result IS NOT NULL \
         AND (white_id = ?1 OR black_id = ?1) AND community = ?2 \
         GROUP BY game_key ORDER BY game_key",
    )
    .bind(player_id)
    .bind(community)
    .fetch_all(&db.pool)
    .await?)
}
