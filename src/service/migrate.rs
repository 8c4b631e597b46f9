//! Moving the game data to another database (`pigeon migrate-db`): copied table by table,
//! counted, and every game replayed from its moves in the new database and compared with
//! the old.

use super::{Service, ServiceError};
use crate::store::copy::{self, Copied};
use crate::store::{Store, StoreError};

/// What a move to another database did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Migrated {
    /// Each table with its rows copied.
    pub tables: Vec<(String, u64)>,
    /// The games replayed in the target, all found equal to the source's.
    pub games: usize,
}

/// Why a move to another database failed.
#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    /// The copy itself failed or was refused (a target with data in it).
    #[error("{0}")]
    Copy(#[from] StoreError),
    /// A game does not replay to the same position in the target.
    #[error("game #{game} does not replay to the same game in the target: {why}")]
    Replay { game: i64, why: String },
}

/// Copies everything in `from` to the empty database `to` and replays every game in `to`.
///
/// # Errors
/// [`MigrateError`] when the copy is refused or fails, or a game differs after it.
pub async fn migrate(from: &Store, to: &Store) -> Result<Migrated, MigrateError> {
    let Copied { tables, games } = copy::copy(from, to).await?;
    // Only loading is asked of these services: no clock is read.
    let (old, new) = (
        Service::new(from.clone(), std::sync::Arc::new(super::SystemClock)),
        Service::new(to.clone(), std::sync::Arc::new(super::SystemClock)),
    );
    for &game in &games {
        let replay = |error: ServiceError| MigrateError::Replay {
            game,
            why: error.to_string(),
        };
        let before = old.load(game).await.map_err(replay)?;
        let after = new.load(game).await.map_err(replay)?;
        if after.record.position() != before.record.position()
            || after.record.moves() != before.record.moves()
            || after.row != before.row
        {
            return Err(MigrateError::Replay {
                game,
                why: String::from("its position or moves differ"),
            });
        }
    }
    Ok(Migrated {
        tables,
        games: games.len(),
    })
}
