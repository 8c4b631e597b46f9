//! The game database: SQLite through sqlx. The only module with SQL.
//!
//! A game is stored as its start position plus its move list; `games.position` and `games.ply`
//! cache the replayed state. A move is one transaction whose update of the game is guarded by
//! the ply the mover saw, so two racing moves give one applied move and one [`StoreError::Conflict`].

use std::path::Path;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Connection, FromRow, SqlitePool};

mod community;
mod notices;
mod timing;

pub use community::{CapsRow, Counts};
pub use notices::{LEASE, MAX_ATTEMPTS, NewNotice, NoticeRow};
pub use timing::Resumed;

/// A failure of the database.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Another write changed the row first (a lost race): the caller should reload and retry
    /// or tell the user.
    #[error("the game changed while this was being done")]
    Conflict,
    /// The database cannot write now (a full disk, a read-only file, an I/O error, a lock held
    /// too long): nothing was changed, and trying later may work.
    #[error("the database cannot save now: {0}")]
    Unavailable(#[source] sqlx::Error),
    /// The database can be read but not written (found when it is opened).
    #[error(
        "the game database can be read but not written: check the permissions of the file and \
         of its folder, and that the disk has room ({0})"
    )]
    ReadOnly(#[source] sqlx::Error),
    /// SQLite or the connection failed.
    #[error("database error: {0}")]
    Database(#[source] sqlx::Error),
    /// The migrations could not be applied.
    #[error("database migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
}

impl From<sqlx::Error> for StoreError {
    fn from(error: sqlx::Error) -> StoreError {
        if cannot_write(&error) {
            StoreError::Unavailable(error)
        } else {
            StoreError::Database(error)
        }
    }
}

/// Whether an error means the database cannot write now, rather than a fault in a query:
/// SQLite's busy (5), locked (6), read-only (8), I/O error (10), full (13) and cannot-open
/// (14) results, in their extended forms too, and lost connections.
fn cannot_write(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Database(database) => database
            .code()
            .and_then(|code| code.parse::<i32>().ok())
            .is_some_and(|code| matches!(code & 0xff, 5 | 6 | 8 | 10 | 13 | 14)),
        sqlx::Error::Io(_) | sqlx::Error::PoolTimedOut => true,
        _ => false,
    }
}

/// A failure to write found when the database is opened, as [`StoreError::ReadOnly`].
fn read_only(error: StoreError) -> StoreError {
    match error {
        StoreError::Unavailable(error) => StoreError::ReadOnly(error),
        other => other,
    }
}

type Result<T> = std::result::Result<T, StoreError>;

/// Connections in the pool: SQLite has one writer, a few readers are plenty.
const MAX_CONNECTIONS: u32 = 4;

/// A player: one account on one platform.
#[derive(Debug, Clone, PartialEq, Eq, Hash, FromRow)]
pub struct PlayerRow {
    /// The database id.
    pub id: i64,
    /// `console`, `discord` or `matrix`.
    pub platform: String,
    /// The platform's id of the account.
    pub platform_id: String,
    /// The name shown in replies.
    pub display_name: String,
}

/// A player's settings.
#[derive(Debug, Clone, PartialEq, Eq, Hash, FromRow)]
pub struct SettingsRow {
    /// Whether the player is mentioned when it is their turn.
    pub turn_pings: bool,
    /// How the player likes boards turned: `mine`, `mover`, `white` or `black`.
    pub viewpoint: String,
}

/// A game as stored.
#[derive(Debug, Clone, PartialEq, Eq, Hash, FromRow)]
pub struct GameRow {
    pub id: i64,
    pub platform: String,
    pub channel: String,
    pub game_key: String,
    pub start_position: String,
    pub white_id: i64,
    pub black_id: i64,
    pub days_per_move: i64,
    pub ply: i64,
    pub position: String,
    pub status: String,
    pub result: Option<String>,
    pub end_reason: Option<String>,
    pub draw_offer: Option<String>,
    pub deadline: Option<i64>,
    pub rematch_of: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
    pub finished_at: Option<i64>,
    /// The community the game counts in (ratings, leaderboards).
    pub community: Option<String>,
    /// Whether the game counts for ratings.
    pub rated: bool,
    /// The built-in opponent's level, when one side is the bot.
    pub bot_level: Option<i64>,
    /// The bot's side (`white` or `black`), when one side is the bot.
    pub bot_side: Option<String>,
    /// Why the game needs an operator's attention (the clocks skip it), if it does.
    pub attention: Option<String>,
}

/// One stored move.
#[derive(Debug, Clone, PartialEq, Eq, Hash, FromRow)]
pub struct MoveRow {
    pub ply: i64,
    pub text: String,
    pub player_id: Option<i64>,
    pub played_at: i64,
}

/// A challenge as stored.
#[derive(Debug, Clone, PartialEq, Eq, Hash, FromRow)]
pub struct ChallengeRow {
    pub id: i64,
    pub platform: String,
    pub channel: String,
    pub challenger_id: i64,
    pub challenged_id: Option<i64>,
    pub game_key: String,
    pub days_per_move: i64,
    pub color: String,
    pub status: String,
    pub game_id: Option<i64>,
    pub created_at: i64,
    pub expires_at: i64,
    /// The community the challenge's game will count in.
    pub community: Option<String>,
    /// Whether the game will count for ratings.
    pub rated: bool,
}

/// A new challenge.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NewChallenge<'a> {
    pub platform: &'a str,
    pub channel: &'a str,
    pub challenger_id: i64,
    pub challenged_id: Option<i64>,
    pub game_key: &'a str,
    pub days_per_move: i64,
    pub color: &'a str,
    pub now: i64,
    pub expires_at: i64,
    pub community: &'a str,
    pub rated: bool,
}

/// A new game.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NewGame<'a> {
    pub platform: &'a str,
    pub channel: &'a str,
    pub game_key: &'a str,
    pub start_position: &'a str,
    pub white_id: i64,
    pub black_id: i64,
    pub days_per_move: i64,
    pub deadline: i64,
    pub rematch_of: Option<i64>,
    pub now: i64,
    pub community: &'a str,
    pub rated: bool,
    /// The bot's level and side (`white` or `black`) in a game against the built-in opponent.
    pub bot: Option<(i64, &'a str)>,
}

/// One or more moves to append to a game in one transaction (a move, and a pass the product
/// plays right after it for a player who cannot move).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AppendMoves<'a> {
    pub game_id: i64,
    /// The ply the mover saw; the write fails with [`StoreError::Conflict`] if it changed.
    pub expected_ply: i64,
    /// The moves in order, each with the player who made it (`None` for an automatic pass).
    pub moves: &'a [(String, Option<i64>)],
    /// The position after the moves.
    pub position: &'a str,
    /// The new deadline, or `None` when the game ended.
    pub deadline: Option<i64>,
    /// The result and reason when the moves ended the game.
    pub finish: Option<(&'a str, &'a str)>,
    /// The mover's colour (`white` or `black`): their own standing draw offer stays, the
    /// opponent's is declined by the move.
    pub mover: &'a str,
    pub now: i64,
    /// A notice of the moves to record with them (a bot move the clocks played).
    pub notice: Option<NewNotice<'a>>,
}

/// The game database.
#[derive(Debug, Clone)]
pub struct Store {
    pool: SqlitePool,
}

impl Store {
    /// Opens (creating if missing) the database file at `path` and applies the migrations.
    ///
    /// # Errors
    /// [`StoreError`] when the file cannot be opened or migrated.
    pub async fn open(path: &Path) -> Result<Store> {
        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            // FULL: in WAL mode NORMAL may lose commits already acknowledged to players when
            // the machine loses power.
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(10));
        Store::connect(options).await
    }

    async fn connect(options: SqliteConnectOptions) -> Result<Store> {
        let pool = SqlitePoolOptions::new()
            .max_connections(MAX_CONNECTIONS)
            // A COMMIT that failed (a full disk) leaves a transaction SQLite may already have
            // rolled back itself; such a connection is closed rather than handed out again.
            // The ping lets a rollback queued by a dropped transaction finish first.
            .after_release(|connection, _| {
                Box::pin(async move {
                    if connection.is_in_transaction() {
                        connection.ping().await?;
                    }
                    Ok(!connection.is_in_transaction())
                })
            })
            .connect_with(options)
            .await
            .map_err(|error| read_only(error.into()))?;
        sqlx::migrate!("migrations/sqlite")
            .run(&pool)
            .await
            .map_err(|error| match error {
                sqlx::migrate::MigrateError::Execute(error) => read_only(error.into()),
                other => other.into(),
            })?;
        let store = Store { pool };
        store.check_writable().await?;
        Ok(store)
    }

    /// Refuses a database Pigeon could read but not write (a read-only file or folder): a
    /// write is tried and rolled back, so every later command does not fail one by one.
    async fn check_writable(&self) -> Result<()> {
        let mut tx = self.write().await.map_err(read_only)?;
        sqlx::query("INSERT INTO events (platform, event_id, received_at) VALUES ('', '', 0)")
            .execute(&mut *tx)
            .await
            .map_err(|error| read_only(error.into()))?;
        tx.rollback().await?;
        Ok(())
    }

    /// Starts a write transaction. `BEGIN IMMEDIATE` takes the write lock at once (waiting out
    /// the busy timeout), so a transaction that reads before it writes can never fail on a
    /// snapshot another writer made stale.
    async fn write(&self) -> Result<sqlx::Transaction<'static, sqlx::Sqlite>> {
        Ok(self.pool.begin_with("BEGIN IMMEDIATE").await?)
    }

    /// The `synchronous` setting of every connection the pool may hand out (2 is FULL), read
    /// while all of them are held at once.
    ///
    /// # Errors
    /// [`StoreError`] when the database fails.
    pub async fn synchronous_settings(&self) -> Result<Vec<i64>> {
        let mut held = Vec::new();
        for _ in 0..MAX_CONNECTIONS {
            held.push(self.pool.acquire().await?);
        }
        let mut settings = Vec::new();
        for connection in &mut held {
            settings.push(
                sqlx::query_scalar("PRAGMA synchronous")
                    .fetch_one(&mut **connection)
                    .await?,
            );
        }
        Ok(settings)
    }

    /// Closes every connection (checkpointing the WAL).
    pub async fn close(&self) {
        self.pool.close().await;
    }

    /// Writes a consistent copy of the database to `path` while it stays in use (SQLite's
    /// `VACUUM INTO`: one read transaction, so the copy is a snapshot). Refuses to overwrite an
    /// existing file.
    ///
    /// # Errors
    /// [`StoreError`] when the copy cannot be written, for example because `path` exists.
    pub async fn backup(&self, path: &Path) -> Result<()> {
        sqlx::query("VACUUM INTO ?1")
            .bind(path.to_string_lossy().into_owned())
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// SQLite's own consistency check: `ok` when the file is sound.
    ///
    /// # Errors
    /// [`StoreError`] when the query fails.
    pub async fn integrity_check(&self) -> Result<String> {
        Ok(sqlx::query_scalar("PRAGMA integrity_check")
            .fetch_one(&self.pool)
            .await?)
    }

    /// The player with this platform id, created or renamed to `display_name` as needed.
    ///
    /// # Errors
    /// [`StoreError`] when the database fails.
    pub async fn player(
        &self,
        platform: &str,
        platform_id: &str,
        display_name: &str,
        now: i64,
    ) -> Result<PlayerRow> {
        let known = self.player_by_platform_id(platform, platform_id).await?;
        if let Some(player) = known.filter(|p| p.display_name == display_name) {
            return Ok(player);
        }
        // Committed before it is returned: a row read back from an uncommitted statement
        // could be lost at commit (a full disk) after the caller has used its id.
        let mut tx = self.write().await?;
        let player = sqlx::query_as(
            "INSERT INTO players (platform, platform_id, display_name, created_at) \
             VALUES (?1, ?2, ?3, ?4) \
             ON CONFLICT (platform, platform_id) DO UPDATE SET display_name = excluded.display_name \
             RETURNING id, platform, platform_id, display_name",
        )
        .bind(platform)
        .bind(platform_id)
        .bind(display_name)
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(player)
    }

    /// The player with this database id.
    ///
    /// # Errors
    /// [`StoreError`] when the database fails.
    pub async fn player_by_id(&self, id: i64) -> Result<Option<PlayerRow>> {
        Ok(sqlx::query_as(
            "SELECT id, platform, platform_id, display_name FROM players WHERE id = ?1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?)
    }

    /// The player with this platform id, if known.
    ///
    /// # Errors
    /// [`StoreError`] when the database fails.
    pub async fn player_by_platform_id(
        &self,
        platform: &str,
        platform_id: &str,
    ) -> Result<Option<PlayerRow>> {
        Ok(sqlx::query_as(
            "SELECT id, platform, platform_id, display_name FROM players \
             WHERE platform = ?1 AND platform_id = ?2",
        )
        .bind(platform)
        .bind(platform_id)
        .fetch_optional(&self.pool)
        .await?)
    }

    /// A player's settings (the defaults when never changed).
    ///
    /// # Errors
    /// [`StoreError`] when the database fails.
    pub async fn settings(&self, player_id: i64) -> Result<SettingsRow> {
        let row: Option<SettingsRow> =
            sqlx::query_as("SELECT turn_pings, viewpoint FROM settings WHERE player_id = ?1")
                .bind(player_id)
                .fetch_optional(&self.pool)
                .await?;
        Ok(row.unwrap_or(SettingsRow {
            turn_pings: true,
            viewpoint: String::from("mine"),
        }))
    }

    /// Stores a player's settings.
    ///
    /// # Errors
    /// [`StoreError`] when the database fails.
    pub async fn set_settings(&self, player_id: i64, settings: &SettingsRow) -> Result<()> {
        sqlx::query(
            "INSERT INTO settings (player_id, turn_pings, viewpoint) VALUES (?1, ?2, ?3) \
             ON CONFLICT (player_id) DO UPDATE SET turn_pings = excluded.turn_pings, \
             viewpoint = excluded.viewpoint",
        )
        .bind(player_id)
        .bind(settings.turn_pings)
        .bind(&settings.viewpoint)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Moves a game to another channel of its platform (a Discord thread opened for it).
    ///
    /// # Errors
    /// [`StoreError`] when the database fails.
    pub async fn set_game_channel(&self, game_id: i64, channel: &str, now: i64) -> Result<bool> {
        let done = sqlx::query("UPDATE games SET channel = ?2, updated_at = ?3 WHERE id = ?1")
            .bind(game_id)
            .bind(channel)
            .bind(now)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Records a platform event as processed. `false` when it was already: the same chat
    /// event delivered twice is acted on once.
    ///
    /// # Errors
    /// [`StoreError`] when the database fails.
    pub async fn claim_event(&self, platform: &str, event_id: &str, now: i64) -> Result<bool> {
        let done = sqlx::query(
            "INSERT INTO events (platform, event_id, received_at) VALUES (?1, ?2, ?3) \
             ON CONFLICT DO NOTHING",
        )
        .bind(platform)
        .bind(event_id)
        .bind(now)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Creates a challenge and returns it.
    ///
    /// # Errors
    /// [`StoreError`] when the database fails.
    pub async fn create_challenge(&self, new: &NewChallenge<'_>) -> Result<ChallengeRow> {
        let mut tx = self.write().await?;
        let row = sqlx::query_as(
            "INSERT INTO challenges (platform, channel, challenger_id, challenged_id, game_key, \
             days_per_move, color, status, created_at, expires_at, community, rated) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'open', ?8, ?9, ?10, ?11) RETURNING *",
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
        .fetch_one(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(row)
    }

    /// The challenge with this id.
    ///
    /// # Errors
    /// [`StoreError`] when the database fails.
    pub async fn challenge(&self, id: i64) -> Result<Option<ChallengeRow>> {
        Ok(sqlx::query_as("SELECT * FROM challenges WHERE id = ?1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?)
    }

    /// Open challenges in a channel that involve `player_id` (made by them, to them, or open
    /// to anyone), newest first.
    ///
    /// # Errors
    /// [`StoreError`] when the database fails.
    pub async fn open_challenges(
        &self,
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
        .fetch_all(&self.pool)
        .await?)
    }

    /// Closes an open challenge with `status` (`declined`, `cancelled`). `false` when it was
    /// no longer open.
    ///
    /// # Errors
    /// [`StoreError`] when the database fails.
    pub async fn close_challenge(&self, id: i64, status: &str) -> Result<bool> {
        let done =
            sqlx::query("UPDATE challenges SET status = ?2 WHERE id = ?1 AND status = 'open'")
                .bind(id)
                .bind(status)
                .execute(&self.pool)
                .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Accepts an open challenge by creating its game, in one transaction. Two people
    /// accepting at once: one gets the game, the other [`StoreError::Conflict`].
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when the challenge is no longer open.
    pub async fn accept_challenge(&self, challenge_id: i64, game: &NewGame<'_>) -> Result<GameRow> {
        let mut tx = self.write().await?;
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

    /// Creates a game directly (a rematch).
    ///
    /// # Errors
    /// [`StoreError`] when the database fails.
    pub async fn create_game(&self, game: &NewGame<'_>) -> Result<GameRow> {
        let mut tx = self.write().await?;
        let row = insert_game(&mut tx, game).await?;
        tx.commit().await?;
        Ok(row)
    }

    /// The game with this id.
    ///
    /// # Errors
    /// [`StoreError`] when the database fails.
    pub async fn game(&self, id: i64) -> Result<Option<GameRow>> {
        Ok(sqlx::query_as("SELECT * FROM games WHERE id = ?1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?)
    }

    /// A game and its moves, read in one transaction so that they agree even while moves
    /// are being written.
    ///
    /// # Errors
    /// [`StoreError`] when the database fails.
    pub async fn game_with_moves(&self, id: i64) -> Result<Option<(GameRow, Vec<MoveRow>)>> {
        let mut tx = self.pool.begin().await?;
        let row: Option<GameRow> = sqlx::query_as("SELECT * FROM games WHERE id = ?1")
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?;
        let Some(row) = row else { return Ok(None) };
        let moves = sqlx::query_as(
            "SELECT ply, text, player_id, played_at FROM moves WHERE game_id = ?1 ORDER BY ply",
        )
        .bind(id)
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Some((row, moves)))
    }

    /// The moves of a game in order.
    ///
    /// # Errors
    /// [`StoreError`] when the database fails.
    pub async fn moves(&self, game_id: i64) -> Result<Vec<MoveRow>> {
        Ok(sqlx::query_as(
            "SELECT ply, text, player_id, played_at FROM moves WHERE game_id = ?1 ORDER BY ply",
        )
        .bind(game_id)
        .fetch_all(&self.pool)
        .await?)
    }

    /// A player's games on a platform, active ones first then the latest finished, at most
    /// `limit`.
    ///
    /// # Errors
    /// [`StoreError`] when the database fails.
    pub async fn games_of(&self, player_id: i64, limit: i64) -> Result<Vec<GameRow>> {
        Ok(sqlx::query_as(
            "SELECT * FROM games WHERE white_id = ?1 OR black_id = ?1 \
             ORDER BY status = 'active' DESC, updated_at DESC, id DESC LIMIT ?2",
        )
        .bind(player_id)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?)
    }

    /// A player's active games in one channel.
    ///
    /// # Errors
    /// [`StoreError`] when the database fails.
    pub async fn active_games_in(
        &self,
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
        .fetch_all(&self.pool)
        .await?)
    }

    /// The games of a channel, active ones first, at most `limit`.
    ///
    /// # Errors
    /// [`StoreError`] when the database fails.
    pub async fn games_in_channel(
        &self,
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
        .fetch_all(&self.pool)
        .await?)
    }

    /// Appends moves to a game in one transaction, guarded by the ply the mover saw.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when the game moved on (or ended) in the meantime.
    pub async fn append_moves(&self, append: &AppendMoves<'_>) -> Result<()> {
        let mut tx = self.write().await?;
        let new_ply = append.expected_ply + append.moves.len() as i64;
        let (status, result, reason, finished_at) = match append.finish {
            Some((result, reason)) => ("finished", Some(result), Some(reason), Some(append.now)),
            None => ("active", None, None, None),
        };
        let done = sqlx::query(
            "UPDATE games SET ply = ?3, position = ?4, deadline = ?5, status = ?6, result = ?7, \
             end_reason = ?8, finished_at = ?9, updated_at = ?10, \
             draw_offer = CASE WHEN draw_offer = ?11 THEN draw_offer END \
             WHERE id = ?1 AND ply = ?2 AND status = 'active'",
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
        if let Some(notice) = &append.notice {
            notices::insert_notice(&mut tx, notice).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Ends an active game off the board (resignation, agreement, claim, timeout, abort),
    /// guarded by the ply the caller saw, with a notice of the end recorded in the same
    /// transaction when one is given (a game the clock ended). An aborted game has no result.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when the game moved on or already ended.
    pub async fn finish_game(
        &self,
        game_id: i64,
        expected_ply: i64,
        result: Option<&str>,
        reason: &str,
        now: i64,
        notice: Option<&NewNotice<'_>>,
    ) -> Result<()> {
        let mut tx = self.write().await?;
        let done = sqlx::query(
            "UPDATE games SET status = 'finished', result = ?3, end_reason = ?4, \
             finished_at = ?5, updated_at = ?5, deadline = NULL, draw_offer = NULL \
             WHERE id = ?1 AND ply = ?2 AND status = 'active'",
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
        if let Some(notice) = notice {
            notices::insert_notice(&mut tx, notice).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Sets or clears the standing draw offer of an active game, guarded by the ply.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when the game moved on or ended.
    pub async fn set_draw_offer(
        &self,
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
        .execute(&self.pool)
        .await?;
        if done.rows_affected() == 1 {
            Ok(())
        } else {
            Err(StoreError::Conflict)
        }
    }

    /// Active games whose deadline is at or before `until`, soonest first; only those of
    /// `platform` when one is given.
    ///
    /// # Errors
    /// [`StoreError`] when the database fails.
    pub async fn games_due(&self, until: i64, platform: Option<&str>) -> Result<Vec<GameRow>> {
        Ok(sqlx::query_as(
            "SELECT * FROM games WHERE status = 'active' AND deadline <= ?1 \
             AND attention IS NULL AND (?2 IS NULL OR platform = ?2) ORDER BY deadline",
        )
        .bind(until)
        .bind(platform)
        .fetch_all(&self.pool)
        .await?)
    }

    /// Active games against the built-in opponent, of one platform or of all.
    ///
    /// # Errors
    /// [`StoreError`] when the database fails.
    pub async fn active_bot_games(&self, platform: Option<&str>) -> Result<Vec<GameRow>> {
        Ok(sqlx::query_as(
            "SELECT * FROM games WHERE status = 'active' AND bot_level IS NOT NULL \
             AND attention IS NULL AND (?1 IS NULL OR platform = ?1) ORDER BY id",
        )
        .bind(platform)
        .fetch_all(&self.pool)
        .await?)
    }

    /// Finished rated games whose ratings were not updated yet (the process stopped between
    /// ending a game and rating it).
    ///
    /// # Errors
    /// [`StoreError`] when the database fails.
    pub async fn unrated_games(&self) -> Result<Vec<i64>> {
        Ok(sqlx::query_scalar(
            "SELECT id FROM games WHERE status = 'finished' AND rated = 1 AND result IS NOT NULL \
             AND NOT EXISTS (SELECT 1 FROM rating_changes WHERE game_id = games.id) ORDER BY id",
        )
        .fetch_all(&self.pool)
        .await?)
    }

    /// Updates the ratings of both players of a finished rated game, once: in one transaction
    /// that reads both current ratings, asks `update` for the new ones and records a
    /// `rating_changes` row per player, whose key makes a second call a no-op. `false` when
    /// the game is not a finished rated game with a result, or was rated already.
    ///
    /// # Errors
    /// [`StoreError`] when the database fails.
    pub async fn rate_game(
        &self,
        game_id: i64,
        now: i64,
        update: impl FnOnce(&RatingUpdate) -> [Glicko; 2],
    ) -> Result<bool> {
        let mut tx = self.write().await?;
        let game: Option<GameRow> = sqlx::query_as(
            "SELECT * FROM games WHERE id = ?1 AND status = 'finished' AND rated = 1 \
             AND result IS NOT NULL \
             AND NOT EXISTS (SELECT 1 FROM rating_changes WHERE game_id = ?1)",
        )
        .bind(game_id)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(game) = game else { return Ok(false) };
        let white_score = match game.result.as_deref() {
            Some("1-0") => 1.0,
            Some("0-1") => 0.0,
            _ => 0.5,
        };
        let community = game
            .community
            .clone()
            .unwrap_or_else(|| game.channel.clone());
        let mut before = [None, None];
        for (slot, player) in before.iter_mut().zip([game.white_id, game.black_id]) {
            *slot = sqlx::query_as(
                "SELECT rating, deviation, volatility FROM ratings \
                 WHERE player_id = ?1 AND game_key = ?2 AND community = ?3",
            )
            .bind(player)
            .bind(&game.game_key)
            .bind(&community)
            .fetch_optional(&mut *tx)
            .await?;
        }
        let after = update(&RatingUpdate {
            white: before[0],
            black: before[1],
            white_score,
        });
        let players = [game.white_id, game.black_id];
        for index in 0..2 {
            let old = before[index].map_or(DEFAULT_RATING, |old: Glicko| old.rating);
            let new = after[index];
            let score = if index == 0 {
                white_score
            } else {
                1.0 - white_score
            };
            sqlx::query(
                "INSERT INTO ratings (player_id, game_key, community, rating, deviation, \
                 volatility, games, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 1, ?7) \
                 ON CONFLICT (player_id, game_key, community) DO UPDATE SET \
                 rating = excluded.rating, deviation = excluded.deviation, \
                 volatility = excluded.volatility, games = games + 1, \
                 updated_at = excluded.updated_at",
            )
            .bind(players[index])
            .bind(&game.game_key)
            .bind(&community)
            .bind(new.rating)
            .bind(new.deviation)
            .bind(new.volatility)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            sqlx::query(
                "INSERT INTO rating_changes (game_id, player_id, game_key, community, score, \
                 before, after, deviation, changed_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )
            .bind(game_id)
            .bind(players[index])
            .bind(&game.game_key)
            .bind(&community)
            .bind(score)
            .bind(old)
            .bind(new.rating)
            .bind(new.deviation)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(true)
    }

    /// The rated players of one game in one community, best first, at most `limit`.
    ///
    /// # Errors
    /// [`StoreError`] when the database fails.
    pub async fn leaderboard(
        &self,
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
        .fetch_all(&self.pool)
        .await?)
    }

    /// A player's current ratings in a community, one per game played rated.
    ///
    /// # Errors
    /// [`StoreError`] when the database fails.
    pub async fn ratings_of(&self, player_id: i64, community: &str) -> Result<Vec<RatingRow>> {
        Ok(sqlx::query_as(
            "SELECT r.player_id, p.display_name, r.game_key, r.rating, r.deviation, \
             r.volatility, r.games FROM ratings r JOIN players p ON p.id = r.player_id \
             WHERE r.player_id = ?1 AND r.community = ?2 ORDER BY r.game_key",
        )
        .bind(player_id)
        .bind(community)
        .fetch_all(&self.pool)
        .await?)
    }
    /// How one rated game changed its players' ratings: `(player id, before, after)`, empty
    /// before its ratings were updated (and for casual games).
    ///
    /// # Errors
    /// [`StoreError`] when the database fails.
    pub async fn game_rating_changes(&self, game_id: i64) -> Result<Vec<(i64, f64, f64)>> {
        Ok(sqlx::query_as(
            "SELECT player_id, before, after FROM rating_changes WHERE game_id = ?1 \
             ORDER BY player_id",
        )
        .bind(game_id)
        .fetch_all(&self.pool)
        .await?)
    }

    /// A player's latest rating changes in one game and community, newest first.
    ///
    /// # Errors
    /// [`StoreError`] when the database fails.
    pub async fn rating_history(
        &self,
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
        .fetch_all(&self.pool)
        .await?)
    }

    /// A player's wins, losses and draws per game in a community (finished games with a
    /// result, rated or not).
    ///
    /// # Errors
    /// [`StoreError`] when the database fails.
    pub async fn results_of(&self, player_id: i64, community: &str) -> Result<Vec<ResultsRow>> {
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
        .fetch_all(&self.pool)
        .await?)
    }
}

/// The rating a player has before their first rated game.
pub const DEFAULT_RATING: f64 = 1500.0;

/// A Glicko-2 rating as stored.
#[derive(Debug, Clone, Copy, PartialEq, FromRow)]
pub struct Glicko {
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
}

/// What a rating update needs: both players' ratings before (`None` before their first
/// rated game here) and White's score (1, ½ or 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RatingUpdate {
    pub white: Option<Glicko>,
    pub black: Option<Glicko>,
    pub white_score: f64,
}

/// A player's current rating in one game.
#[derive(Debug, Clone, PartialEq, FromRow)]
pub struct RatingRow {
    pub player_id: i64,
    pub display_name: String,
    pub game_key: String,
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
    /// Rated games played.
    pub games: i64,
}

/// One rated game's change of a player's rating.
#[derive(Debug, Clone, PartialEq, FromRow)]
pub struct RatingChangeRow {
    pub game_id: i64,
    /// 1 win, 0.5 draw, 0 loss.
    pub score: f64,
    pub before: f64,
    pub after: f64,
    pub changed_at: i64,
}

/// A player's results in one game.
#[derive(Debug, Clone, PartialEq, Eq, Hash, FromRow)]
pub struct ResultsRow {
    pub game_key: String,
    pub wins: i64,
    pub losses: i64,
    pub draws: i64,
}

async fn insert_game(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    game: &NewGame<'_>,
) -> Result<GameRow> {
    Ok(sqlx::query_as(
        "INSERT INTO games (platform, channel, game_key, start_position, white_id, black_id, \
         days_per_move, ply, position, status, deadline, rematch_of, created_at, updated_at, \
         community, rated, bot_level, bot_side) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 0, ?4, 'active', ?8, ?9, ?10, ?10, ?11, ?12, ?13, ?14) \
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
    .fetch_one(&mut **tx)
    .await?)
}
