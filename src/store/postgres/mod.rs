//! The PostgreSQL backend: a pool of connections to one database that several Pigeon processes
//! may share, with `synchronous_commit` on; its migrations are in `migrations/postgres`. The
//! queries are split by what they touch, one file each, as on SQLite.
//!
//! Transactions run at READ COMMITTED. Work that falls due (notices to deliver, challenges to
//! expire, deadlines moved after an outage) is claimed with `SELECT … FOR UPDATE SKIP LOCKED`
//! in the transaction that records it done: a second process skips the rows the first holds
//! and finds them done once it commits. A change of a game is an `UPDATE` guarded by the ply
//! and the status the caller saw; PostgreSQL re-checks that guard on the row as committed by
//! a concurrent writer, so of two racing changes one applies and the other finds no row
//! ([`StoreError::Conflict`]).

use std::str::FromStr;
use std::time::Duration;

use sqlx::error::DatabaseError;
use sqlx::postgres::{PgConnectOptions, PgDatabaseError, PgPool, PgPoolOptions};

use super::{DatabaseUrl, Result, StoreError};

mod analysis;
mod challenges;
mod community;
mod copying;
mod correspondence;
mod games;
mod notices;
mod options;
mod players;
mod ratings;
mod timing;
mod tournaments;
mod upkeep;

/// Whether a database error means the database cannot write now: a lost or refused connection
/// (SQLSTATE class 08), too few resources (class 53: a full disk, no memory, too many
/// connections), a server shutting down (57P01-57P03), a read-only server (25006: a standby)
/// or an I/O error (58030).
pub(super) fn cannot_write(error: &dyn DatabaseError) -> bool {
    error
        .try_downcast_ref::<PgDatabaseError>()
        .is_some_and(|error| {
            let code = error.code();
            code.starts_with("08")
                || code.starts_with("53")
                || matches!(code, "57P01" | "57P02" | "57P03" | "25006" | "58030")
        })
}

/// Whether a database error means the transaction lost a race to another and changed nothing:
/// a serialization failure (40001) or a deadlock (40P01).
pub(super) fn lost_race(error: &dyn DatabaseError) -> bool {
    error
        .try_downcast_ref::<PgDatabaseError>()
        .is_some_and(|error| matches!(error.code(), "40001" | "40P01"))
}

/// Connections in the pool of one process.
const MAX_CONNECTIONS: u32 = 8;

/// A game database in PostgreSQL.
#[derive(Debug, Clone)]
pub struct PostgresDatabase {
    pool: PgPool,
}

impl PostgresDatabase {
    /// Connects to the database a `postgres://` URL names and applies the migrations (once,
    /// however many processes start together: the migrator holds an advisory lock).
    ///
    /// # Errors
    /// [`StoreError::Url`] for a URL PostgreSQL cannot read, [`StoreError::Unavailable`] when
    /// the server cannot be reached, [`StoreError::Migrate`] when the migrations fail.
    pub async fn connect(url: &str) -> Result<PostgresDatabase> {
        let options = PgConnectOptions::from_str(url)
            .map_err(|error| {
                let url = DatabaseUrl::Postgres(url.to_owned());
                StoreError::Url(format!("`{url}` is no PostgreSQL URL ({error})"))
            })?
            .application_name("pigeon")
            // An acknowledged move must survive a crash of the server: never let a server
            // default of `off` apply to Pigeon's commits.
            .options([("synchronous_commit", "on")]);
        let pool = PgPoolOptions::new()
            .max_connections(MAX_CONNECTIONS)
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(options)
            .await?;
        sqlx::migrate!("migrations/postgres").run(&pool).await?;
        Ok(PostgresDatabase { pool })
    }

    /// Starts a write transaction (READ COMMITTED).
    async fn write(&self) -> Result<sqlx::Transaction<'static, sqlx::Postgres>> {
        Ok(self.pool.begin().await?)
    }
}

super::answered::answered_by!(PostgresDatabase);
super::tournaments::tournaments_answered_by!(PostgresDatabase);
