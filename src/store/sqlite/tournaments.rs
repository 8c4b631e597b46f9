//! Tournaments: created, joined, started and paired round by round, each start and round
//! claimed by the single writer's `BEGIN IMMEDIATE` transaction that records it.

use super::games::insert_game;
use super::{SqliteDatabase, Write};
use crate::store::{
    EntrantRow, GameRow, NOTICE_OVER, NOTICE_POSTPONED, NOTICE_ROUND, NOTICE_STANDINGS, NewRound,
    NewTournament, Result, TournamentRow,
};

/// Records a tournament notice (the round in `ply`) in the transaction of its change.
async fn insert_notice(
    tx: &mut Write,
    tournament: &TournamentRow,
    kind: &str,
    round: i64,
    now: i64,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO notices (platform, kind, ply, created_at, tournament_id) \
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )
    .bind(&tournament.platform)
    .bind(kind)
    .bind(round)
    .bind(now)
    .bind(tournament.id)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

pub(super) async fn create_tournament(
    db: &SqliteDatabase,
    new: &NewTournament<'_>,
) -> Result<TournamentRow> {
    let mut tx = db.write().await?;
    let row = sqlx::query_as(
        "INSERT INTO tournaments (platform, channel, community, name, game_key, format, rounds, \
         days_per_move, rated, max_players, starts_at, round_days, state, organiser_id, \
         created_at, web_id) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, 'open', ?13, ?14, ?15) \
         RETURNING *",
    )
    .bind(new.platform)
    .bind(new.channel)
    .bind(new.community)
    .bind(new.name)
    .bind(new.game_key)
    .bind(new.format)
    .bind(new.rounds)
    .bind(new.days_per_move)
    .bind(new.rated)
    .bind(new.max_players)
    .bind(new.starts_at)
    .bind(new.round_days)
    .bind(new.organiser_id)
    .bind(new.now)
    .bind(new.web_id)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(row)
}

pub(super) async fn tournament(db: &SqliteDatabase, id: i64) -> Result<Option<TournamentRow>> {
    Ok(sqlx::query_as("SELECT * FROM tournaments WHERE id = ?1")
        .bind(id)
        .fetch_optional(&db.pool)
        .await?)
}

pub(super) async fn tournament_by_web_id(
    db: &SqliteDatabase,
    web_id: &str,
) -> Result<Option<TournamentRow>> {
    Ok(
        sqlx::query_as("SELECT * FROM tournaments WHERE web_id = ?1")
            .bind(web_id)
            .fetch_optional(&db.pool)
            .await?,
    )
}

pub(super) async fn tournaments_in(
    db: &SqliteDatabase,
    platform: &str,
    community: &str,
    limit: i64,
) -> Result<Vec<TournamentRow>> {
    Ok(sqlx::query_as(
        "SELECT * FROM tournaments WHERE platform = ?1 AND community = ?2 \
         ORDER BY state IN ('open', 'running') DESC, id DESC LIMIT ?3",
    )
    .bind(platform)
    .bind(community)
    .bind(limit)
    .fetch_all(&db.pool)
    .await?)
}

pub(super) async fn live_tournaments(
    db: &SqliteDatabase,
    platform: Option<&str>,
) -> Result<Vec<TournamentRow>> {
    Ok(sqlx::query_as(
        "SELECT * FROM tournaments WHERE state IN ('open', 'running') \
         AND (?1 IS NULL OR platform = ?1) ORDER BY id",
    )
    .bind(platform)
    .fetch_all(&db.pool)
    .await?)
}

pub(super) async fn entrants(db: &SqliteDatabase, tournament_id: i64) -> Result<Vec<EntrantRow>> {
    Ok(sqlx::query_as(
        "SELECT t.player_id, p.platform_id, p.display_name, t.joined_at, t.seed, t.rating, \
         t.withdrawn_at, t.withdrawn_round, t.annulled \
         FROM tournament_players t JOIN players p ON p.id = t.player_id \
         WHERE t.tournament_id = ?1 \
         ORDER BY t.seed IS NULL, t.seed, t.joined_at, t.player_id",
    )
    .bind(tournament_id)
    .fetch_all(&db.pool)
    .await?)
}

pub(super) async fn join_tournament(
    db: &SqliteDatabase,
    tournament_id: i64,
    player_id: i64,
    now: i64,
) -> Result<bool> {
    let mut tx = db.write().await?;
    let done = sqlx::query(
        "INSERT INTO tournament_players (tournament_id, player_id, joined_at) \
         SELECT id, ?2, ?3 FROM tournaments WHERE id = ?1 AND state = 'open' \
         AND (max_players IS NULL OR max_players > \
              (SELECT count(*) FROM tournament_players WHERE tournament_id = ?1)) \
         ON CONFLICT DO NOTHING",
    )
    .bind(tournament_id)
    .bind(player_id)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(done.rows_affected() == 1)
}

pub(super) async fn leave_tournament(
    db: &SqliteDatabase,
    tournament_id: i64,
    player_id: i64,
) -> Result<bool> {
    let done = sqlx::query(
        "DELETE FROM tournament_players WHERE tournament_id = ?1 AND player_id = ?2 \
         AND EXISTS (SELECT 1 FROM tournaments WHERE id = ?1 AND state = 'open')",
    )
    .bind(tournament_id)
    .bind(player_id)
    .execute(&mut *db.alone().await?)
    .await?;
    Ok(done.rows_affected() == 1)
}

pub(super) async fn record_round(db: &SqliteDatabase, round: &NewRound<'_>) -> Result<bool> {
    let mut tx = db.write().await?;
    let state = if round.start.is_some() {
        "open"
    } else {
        "running"
    };
    // The claim: the tournament is still in the state and at the round this was made for.
    let claimed: Option<TournamentRow> = sqlx::query_as(
        "UPDATE tournaments SET state = 'running', current_round = ?3, round_deadline = ?4 \
         WHERE id = ?1 AND state = ?2 AND current_round = ?5 RETURNING *",
    )
    .bind(round.tournament_id)
    .bind(state)
    .bind(round.round)
    .bind(round.round_deadline)
    .bind(round.expected_round)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(tournament) = claimed else {
        return Ok(false);
    };
    if let Some(start) = &round.start {
        // The start is made for the players it seeded: a join or a leave since refuses it
        // (rolled back), and the caller seeds again.
        let players: Vec<i64> = sqlx::query_scalar(
            "SELECT player_id FROM tournament_players WHERE tournament_id = ?1 ORDER BY player_id",
        )
        .bind(round.tournament_id)
        .fetch_all(&mut *tx)
        .await?;
        if players != start.player_ids() {
            return Ok(false);
        }
        sqlx::query(
            "UPDATE tournaments SET started_at = ?2, top_seed_white = ?3, rounds = ?4, \
             standings_next = ?5, starts_at = NULL WHERE id = ?1",
        )
        .bind(round.tournament_id)
        .bind(round.now)
        .bind(start.top_seed_white)
        .bind(start.rounds)
        .bind(start.standings_next)
        .execute(&mut *tx)
        .await?;
        for &(player, seed, rating) in start.seeds {
            sqlx::query(
                "UPDATE tournament_players SET seed = ?3, rating = ?4 \
                 WHERE tournament_id = ?1 AND player_id = ?2",
            )
            .bind(round.tournament_id)
            .bind(player)
            .bind(seed)
            .bind(rating as f64)
            .execute(&mut *tx)
            .await?;
        }
    }
    for game in &round.games {
        let row = insert_game(&mut tx, &game.game).await?;
        sqlx::query("UPDATE games SET tournament_id = ?2, tournament_round = ?3 WHERE id = ?1")
            .bind(row.id)
            .bind(round.tournament_id)
            .bind(game.round)
            .execute(&mut *tx)
            .await?;
    }
    for &(bye_round, player) in &round.byes {
        sqlx::query(
            "INSERT INTO tournament_byes (tournament_id, round, player_id) VALUES (?1, ?2, ?3)",
        )
        .bind(round.tournament_id)
        .bind(bye_round)
        .bind(player)
        .execute(&mut *tx)
        .await?;
    }
    insert_notice(&mut tx, &tournament, NOTICE_ROUND, round.round, round.now).await?;
    tx.commit().await?;
    Ok(true)
}

pub(super) async fn finish_tournament(
    db: &SqliteDatabase,
    tournament_id: i64,
    state: &str,
    now: i64,
) -> Result<bool> {
    let mut tx = db.write().await?;
    let done: Option<TournamentRow> = sqlx::query_as(
        "UPDATE tournaments SET state = ?2, finished_at = ?3, round_deadline = NULL, \
         standings_next = NULL WHERE id = ?1 AND state IN ('open', 'running') RETURNING *",
    )
    .bind(tournament_id)
    .bind(state)
    .bind(now)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(tournament) = done else {
        return Ok(false);
    };
    if state == "finished" {
        insert_notice(
            &mut tx,
            &tournament,
            NOTICE_OVER,
            tournament.current_round,
            now,
        )
        .await?;
    }
    tx.commit().await?;
    Ok(true)
}

pub(super) async fn postpone_tournament(
    db: &SqliteDatabase,
    tournament_id: i64,
    starts_at: i64,
    now: i64,
) -> Result<bool> {
    let mut tx = db.write().await?;
    let done: Option<TournamentRow> = sqlx::query_as(
        "UPDATE tournaments SET starts_at = NULL \
         WHERE id = ?1 AND state = 'open' AND starts_at = ?2 RETURNING *",
    )
    .bind(tournament_id)
    .bind(starts_at)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(tournament) = done else {
        return Ok(false);
    };
    insert_notice(&mut tx, &tournament, NOTICE_POSTPONED, 0, now).await?;
    tx.commit().await?;
    Ok(true)
}

pub(super) async fn withdraw(
    db: &SqliteDatabase,
    tournament_id: i64,
    player_id: i64,
    round: i64,
    annulled: bool,
    now: i64,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE tournament_players SET withdrawn_at = ?3, withdrawn_round = ?4, annulled = ?5 \
         WHERE tournament_id = ?1 AND player_id = ?2 AND withdrawn_at IS NULL",
    )
    .bind(tournament_id)
    .bind(player_id)
    .bind(now)
    .bind(round)
    .bind(annulled)
    .execute(&mut *db.alone().await?)
    .await?;
    Ok(done.rows_affected() == 1)
}

pub(super) async fn end_tournament_game(
    db: &SqliteDatabase,
    game_id: i64,
    result: Option<&str>,
    reason: &str,
    now: i64,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE games SET status = 'finished', result = ?2, end_reason = ?3, rated = 0, \
         finished_at = ?4, updated_at = ?4, deadline = NULL, draw_offer = NULL, \
         takeback_offer = NULL, revision = revision + 1 \
         WHERE id = ?1 AND status = 'active'",
    )
    .bind(game_id)
    .bind(result)
    .bind(reason)
    .bind(now)
    .execute(&mut *db.alone().await?)
    .await?;
    Ok(done.rows_affected() == 1)
}

pub(super) async fn tournament_games(
    db: &SqliteDatabase,
    tournament_id: i64,
) -> Result<Vec<GameRow>> {
    Ok(
        sqlx::query_as(
            "SELECT * FROM games WHERE tournament_id = ?1 ORDER BY tournament_round, id",
        )
        .bind(tournament_id)
        .fetch_all(&db.pool)
        .await?,
    )
}

pub(super) async fn tournament_byes(
    db: &SqliteDatabase,
    tournament_id: i64,
) -> Result<Vec<(i64, i64)>> {
    Ok(sqlx::query_as(
        "SELECT round, player_id FROM tournament_byes WHERE tournament_id = ?1 ORDER BY round",
    )
    .bind(tournament_id)
    .fetch_all(&db.pool)
    .await?)
}

pub(super) async fn claim_standings(
    db: &SqliteDatabase,
    tournament_id: i64,
    due: i64,
    next: i64,
    notice: bool,
) -> Result<bool> {
    let mut tx = db.write().await?;
    let done: Option<TournamentRow> = sqlx::query_as(
        "UPDATE tournaments SET standings_next = ?3 \
         WHERE id = ?1 AND state = 'running' AND standings_next = ?2 RETURNING *",
    )
    .bind(tournament_id)
    .bind(due)
    .bind(next)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(tournament) = done else {
        return Ok(false);
    };
    if notice {
        let round = tournament.current_round;
        insert_notice(&mut tx, &tournament, NOTICE_STANDINGS, round, due).await?;
    }
    tx.commit().await?;
    Ok(true)
}

pub(super) async fn set_tournament_thread(
    db: &SqliteDatabase,
    tournament_id: i64,
    thread: &str,
) -> Result<()> {
    sqlx::query("UPDATE tournaments SET thread = ?2 WHERE id = ?1")
        .bind(tournament_id)
        .bind(thread)
        .execute(&mut *db.alone().await?)
        .await?;
    Ok(())
}

pub(super) async fn notice_tournament(db: &SqliteDatabase, notice_id: i64) -> Result<Option<i64>> {
    let row: Option<(Option<i64>,)> =
        sqlx::query_as("SELECT tournament_id FROM notices WHERE id = ?1")
            .bind(notice_id)
            .fetch_optional(&db.pool)
            .await?;
    Ok(row.and_then(|(id,)| id))
}

pub(super) async fn tournament_creators(
    db: &SqliteDatabase,
    platform: &str,
    community: &str,
) -> Result<String> {
    let row: Option<(Option<String>,)> = sqlx::query_as(
        "SELECT tournament_creators FROM community_settings \
         WHERE platform = ?1 AND community = ?2",
    )
    .bind(platform)
    .bind(community)
    .fetch_optional(&db.pool)
    .await?;
    Ok(row
        .and_then(|(who,)| who)
        .unwrap_or_else(|| String::from("managers")))
}

pub(super) async fn set_tournament_creators(
    db: &SqliteDatabase,
    platform: &str,
    community: &str,
    who: &str,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO community_settings (platform, community, tournament_creators) \
         VALUES (?1, ?2, ?3) ON CONFLICT (platform, community) \
         DO UPDATE SET tournament_creators = excluded.tournament_creators",
    )
    .bind(platform)
    .bind(community)
    .bind(who)
    .execute(&mut *db.alone().await?)
    .await?;
    Ok(())
}
