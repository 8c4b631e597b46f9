//! The SQLite backend: one file through a small sqlx pool, in WAL mode with
//! `synchronous=FULL`, foreign keys and a busy timeout; its migrations are in
//! `migrations/sqlite`. The queries are split by what they touch, one file each; the
//! transactions they share ([`Write`]) stay inside this module. The writers of this process
//! take turns in order before they ask SQLite for its write lock (see [`InTurn`]).

use std::fs::{File, TryLockError};
use std::io::{Read, Seek, Write as _};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use sqlx::error::DatabaseError;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteConnection, SqliteError, SqliteJournalMode, SqlitePoolOptions,
    SqliteSynchronous,
};
use sqlx::{Connection, SqlitePool};
use tokio::sync::OwnedMutexGuard;

use super::{Result, StoreError};

mod analysis;
mod challenges;
mod community;
mod copying;
mod correspondence;
mod games;
mod group;
mod notices;
mod options;
mod players;
mod ratings;
mod timing;
mod tournaments;
mod upkeep;

/// Whether a database error means the database cannot write now, rather than a fault in a
/// query: SQLite's busy (5), locked (6), read-only (8), I/O error (10), full (13) and
/// cannot-open (14) results, in their extended forms too.
pub(super) fn cannot_write(error: &dyn DatabaseError) -> bool {
    error.try_downcast_ref::<SqliteError>().is_some()
        && error
            .code()
            .and_then(|code| code.parse::<i32>().ok())
            .is_some_and(|code| matches!(code & 0xff, 5 | 6 | 8 | 10 | 13 | 14))
}

/// SQLite has one writer, whose transactions never lose a race to another: none of its errors
/// is a lost race.
pub(super) fn lost_race(_error: &dyn DatabaseError) -> bool {
    false
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

/// A connection used for writing, holding this process's turn to write.
///
/// SQLite has one writer at a time; a connection that finds the write lock taken waits in
/// its busy handler, which sleeps 1, 2, 5, 10, 15 ms and so on between tries. Within the
/// process writers queue instead, first come first served, and the lock is free when a
/// writer's turn comes: the busy timeout is left only for other processes (a `pigeon`
/// command run beside the server).
pub(super) struct InTurn<C> {
    connection: C,
    _turn: OwnedMutexGuard<()>,
}

/// A write transaction in this process's turn to write.
pub(super) type Write = InTurn<sqlx::Transaction<'static, sqlx::Sqlite>>;

/// A connection for one statement that writes, in this process's turn to write.
pub(super) type Alone = InTurn<sqlx::pool::PoolConnection<sqlx::Sqlite>>;

impl Write {
    async fn commit(self) -> Result<()> {
        Ok(self.connection.commit().await?)
    }

    async fn rollback(self) -> Result<()> {
        Ok(self.connection.rollback().await?)
    }
}

impl<C: std::ops::Deref<Target = SqliteConnection>> std::ops::Deref for InTurn<C> {
    type Target = SqliteConnection;

    fn deref(&self) -> &SqliteConnection {
        &self.connection
    }
}

impl<C: std::ops::DerefMut<Target = SqliteConnection>> std::ops::DerefMut for InTurn<C> {
    fn deref_mut(&mut self) -> &mut SqliteConnection {
        &mut self.connection
    }
}

impl<C> std::fmt::Debug for InTurn<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("InTurn")
    }
}

/// A game database in one SQLite file.
#[derive(Debug, Clone)]
pub struct SqliteDatabase {
    pool: SqlitePool,
    /// The turn to write, taken before SQLite's write lock (see [`InTurn`]).
    writer: Arc<tokio::sync::Mutex<()>>,
    /// The writes waiting to be committed together (see [`SqliteDatabase::grouped`]).
    waiting: Arc<Mutex<Vec<group::Waiting>>>,
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
            writer: Arc::default(),
            waiting: Arc::default(),
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
    async fn write(&self) -> Result<Write> {
        let turn = Arc::clone(&self.writer).lock_owned().await;
        Ok(InTurn {
            connection: self.pool.begin_with("BEGIN IMMEDIATE").await?,
            _turn: turn,
        })
    }

    /// A connection for one statement that writes, in this process's turn (see [`InTurn`]).
    async fn alone(&self) -> Result<Alone> {
        let turn = Arc::clone(&self.writer).lock_owned().await;
        Ok(InTurn {
            connection: self.pool.acquire().await?,
            _turn: turn,
        })
    }
}

super::answered::answered_by!(SqliteDatabase);
super::tournaments::tournaments_answered_by!(SqliteDatabase);
