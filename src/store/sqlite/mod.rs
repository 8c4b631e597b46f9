//! The SQLite backend: one file through a small sqlx pool, in WAL mode with
//! `synchronous=FULL`, foreign keys and a busy timeout; its migrations are in
//! `migrations/sqlite`. The queries are split by what they touch, one file each; the
//! transactions they share (`&mut sqlx::Transaction<'_, Sqlite>`) stay inside this module.

use std::fs::{File, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Connection, SqlitePool};

use super::{
    AppendMoves, CapsRow, ChallengeRow, Counts, Database, GameRow, MoveRow, NewChallenge, NewGame,
    NewNotice, NoticeRow, PlayerRow, RatingChangeRow, RatingFn, RatingRow, Result, ResultsRow,
    Resumed, SettingsRow, StoreError,
};

mod challenges;
mod community;
mod games;
mod notices;
mod players;
mod ratings;
mod timing;
mod upkeep;

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

/// Connections in the pool: SQLite has one writer, a few readers are plenty.
const MAX_CONNECTIONS: u32 = 4;

/// A game database in one SQLite file.
#[derive(Debug, Clone)]
pub struct SqliteDatabase {
    pool: SqlitePool,
    /// The database file.
    path: PathBuf,
    /// The lock file held while this process serves the database.
    serving: Arc<Mutex<Option<File>>>,
}

impl SqliteDatabase {
    /// Opens (creating if missing) the database file at `path` and applies the migrations.
    ///
    /// # Errors
    /// [`StoreError`] when the file cannot be opened or migrated, [`StoreError::ReadOnly`]
    /// when it can be read but not written.
    pub async fn open(path: &Path) -> Result<SqliteDatabase> {
        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            // FULL: in WAL mode NORMAL may lose commits already acknowledged to players when
            // the machine loses power.
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(10));
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
        let database = SqliteDatabase {
            pool,
            path: path.to_owned(),
            serving: Arc::default(),
        };
        database.check_writable().await?;
        Ok(database)
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

    /// Takes the serving lock: an exclusive lock on the file `<database>.lock`, which the
    /// operating system lets go when the process ends however it ends (even killed), with the
    /// holder's process id written in it for the refusal of a second process.
    fn lock_for_serving(&self) -> Result<()> {
        let mut serving = self.serving.lock().unwrap_or_else(PoisonError::into_inner);
        if serving.is_some() {
            return Ok(());
        }
        let mut name = self.path.clone().into_os_string();
        name.push(".lock");
        let cannot = |error: std::io::Error| StoreError::Lock {
            path: PathBuf::from(&name),
            error,
        };
        let mut file = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&name)
            .map_err(cannot)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                return Err(StoreError::InUse {
                    path: self.path.clone(),
                    pid: holder.trim().parse().ok(),
                });
            }
            Err(TryLockError::Error(error)) => return Err(cannot(error)),
        }
        file.set_len(0).map_err(cannot)?;
        file.rewind().map_err(cannot)?;
        writeln!(file, "{}", std::process::id()).map_err(cannot)?;
        *serving = Some(file);
        Ok(())
    }

    /// Starts a write transaction. `BEGIN IMMEDIATE` takes the write lock at once (waiting out
    /// the busy timeout), so a transaction that reads before it writes can never fail on a
    /// snapshot another writer made stale.
    async fn write(&self) -> Result<sqlx::Transaction<'static, sqlx::Sqlite>> {
        Ok(self.pool.begin_with("BEGIN IMMEDIATE").await?)
    }
}

/// The trait's methods, each answered by the function of the same name in the module that
/// holds its SQL.
macro_rules! answered_by {
    ($($module:ident::$name:ident($($arg:ident: $type:ty),* $(,)?) $(-> $result:ty)?;)*) => {
        #[async_trait]
        impl Database for SqliteDatabase {
            $(
                async fn $name(&self, $($arg: $type),*) $(-> $result)? {
                    $module::$name(self, $($arg),*).await
                }
            )*
        }
    };
}

answered_by! {
    upkeep::synchronous_settings() -> Result<Vec<i64>>;
    upkeep::close();
    upkeep::hold_for_serving() -> Result<()>;
    upkeep::backup(path: &Path) -> Result<()>;
    upkeep::integrity_check() -> Result<String>;

    players::player(
        platform: &str,
        platform_id: &str,
        display_name: &str,
        now: i64,
    ) -> Result<PlayerRow>;
    players::player_by_id(id: i64) -> Result<Option<PlayerRow>>;
    players::player_by_platform_id(platform: &str, platform_id: &str) -> Result<Option<PlayerRow>>;
    players::settings(player_id: i64) -> Result<SettingsRow>;
    players::set_settings(player_id: i64, settings: &SettingsRow) -> Result<()>;
    players::claim_event(platform: &str, event_id: &str, now: i64) -> Result<bool>;

    challenges::create_challenge(new: &NewChallenge<'_>) -> Result<ChallengeRow>;
    challenges::challenge(id: i64) -> Result<Option<ChallengeRow>>;
    challenges::open_challenges(
        platform: &str,
        channel: &str,
        player_id: i64,
    ) -> Result<Vec<ChallengeRow>>;
    challenges::close_challenge(id: i64, status: &str) -> Result<bool>;
    challenges::accept_challenge(challenge_id: i64, game: &NewGame<'_>) -> Result<GameRow>;

    games::set_game_channel(game_id: i64, channel: &str, now: i64) -> Result<bool>;
    games::create_game(game: &NewGame<'_>) -> Result<GameRow>;
    games::game(id: i64) -> Result<Option<GameRow>>;
    games::game_with_moves(id: i64) -> Result<Option<(GameRow, Vec<MoveRow>)>>;
    games::moves(game_id: i64) -> Result<Vec<MoveRow>>;
    games::games_of(player_id: i64, limit: i64) -> Result<Vec<GameRow>>;
    games::active_games_in(platform: &str, channel: &str, player_id: i64) -> Result<Vec<GameRow>>;
    games::games_in_channel(platform: &str, channel: &str, limit: i64) -> Result<Vec<GameRow>>;
    games::append_moves(append: &AppendMoves<'_>) -> Result<()>;
    games::finish_game(
        game_id: i64,
        expected_ply: i64,
        result: Option<&str>,
        reason: &str,
        now: i64,
        notice: Option<&NewNotice<'_>>,
    ) -> Result<()>;
    games::set_draw_offer(
        game_id: i64,
        expected_ply: i64,
        offer: Option<&str>,
        now: i64,
    ) -> Result<()>;
    games::games_due(until: i64, platform: Option<&str>) -> Result<Vec<GameRow>>;
    games::active_bot_games(platform: Option<&str>) -> Result<Vec<GameRow>>;

    ratings::unrated_games() -> Result<Vec<i64>>;
    ratings::rate_game(game_id: i64, now: i64, update: RatingFn) -> Result<bool>;
    ratings::leaderboard(community: &str, game_key: &str, limit: i64) -> Result<Vec<RatingRow>>;
    ratings::ratings_of(player_id: i64, community: &str) -> Result<Vec<RatingRow>>;
    ratings::game_rating_changes(game_id: i64) -> Result<Vec<(i64, f64, f64)>>;
    ratings::rating_history(
        player_id: i64,
        community: &str,
        game_key: &str,
        limit: i64,
    ) -> Result<Vec<RatingChangeRow>>;
    ratings::results_of(player_id: i64, community: &str) -> Result<Vec<ResultsRow>>;

    community::threads_on(platform: &str, community: &str) -> Result<bool>;
    community::set_threads(platform: &str, community: &str, on: bool) -> Result<()>;
    community::caps(platform: &str, community: &str) -> Result<CapsRow>;
    community::set_caps(platform: &str, community: &str, caps: &CapsRow) -> Result<()>;
    community::counts(player_id: i64, now: i64) -> Result<Counts>;
    community::open_challenges_between(
        challenger: i64,
        challenged: i64,
        game_key: &str,
        now: i64,
    ) -> Result<Vec<i64>>;
    community::players_in(platform: &str, community: &str) -> Result<Vec<PlayerRow>>;

    notices::claim_reminder(notice: &NewNotice<'_>, kind: &str) -> Result<bool>;
    notices::expire_challenges(now: i64, platform: Option<&str>) -> Result<Vec<ChallengeRow>>;
    notices::claim_notices(platform: Option<&str>, now: i64) -> Result<Vec<NoticeRow>>;
    notices::notice_delivered(id: i64, now: i64) -> Result<()>;
    notices::notice_failed(id: i64, now: i64, give_up: bool) -> Result<bool>;
    notices::mark_attention(game_id: i64, reason: &str) -> Result<()>;
    notices::games_needing_attention() -> Result<Vec<(i64, String)>>;
    notices::prune_events(before: i64) -> Result<u64>;

    timing::resume_clocks(platform: &str, now: i64) -> Result<Resumed>;
    timing::heartbeat(platform: &str, now: i64) -> Result<()>;
    timing::next_due(platform: &str, after: i64, reminders: (i64, i64)) -> Result<Option<i64>>;
}
