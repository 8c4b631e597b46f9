//! The game database: the only module with SQL.
//!
//! The service holds a [`Store`], a cheap handle over a [`Database`]: the trait every backend
//! implements, with the row types of this module in and out. There are two backends, each with
//! SQL written for its database and its own migrations: SQLite ([`sqlite::SqliteDatabase`],
//! `migrations/sqlite`), one file for one process, and PostgreSQL
//! ([`postgres::PostgresDatabase`], `migrations/postgres`), which several processes may share.
//! [`Store::connect`] picks the backend from a database URL.
//!
//! Work that falls due (a deadline, a reminder, an expired challenge, a notice to deliver) is
//! claimed in the transaction that records it done: on PostgreSQL with `FOR UPDATE SKIP
//! LOCKED`, on SQLite by its single writer, so however many processes run the clocks, each
//! event happens once. Work that takes long (a post-game analysis) is claimed the same way
//! for a lease, and its result is recorded guarded by that claim.
//!
//! A game is stored as its start position plus its move list; `games.position` and `games.ply`
//! cache the replayed state. A move is one transaction whose update of the game is guarded by
//! the ply the mover saw, so two racing moves give one applied move and one [`StoreError::Conflict`].

use std::ops::Deref;
use std::path::Path;
use std::sync::Arc;

use sqlx::FromRow;

mod analysis;
mod answered;
mod community;
pub mod copy;
mod correspondence;
mod database;
mod notices;
pub mod postgres;
pub mod sqlite;
mod timing;
mod tournaments;
mod url;

pub use analysis::{
    ANALYSED_FROM_PLY, ANALYSIS_ATTEMPTS, ANALYSIS_LEASE, AnalysisDatabase, AnalysisRow,
};
pub use community::{CapsRow, Counts};
pub use correspondence::{ConditionalRow, DigestRow, LeaveRow};
pub use database::{Database, RatingFn};
pub use notices::{LEASE, MAX_ATTEMPTS, NOTICE_BATCH, NewNotice, NoticeRow};
use postgres::PostgresDatabase;
use sqlite::SqliteDatabase;
pub use timing::Resumed;
pub use tournaments::{
    EntrantRow, NOTICE_OVER, NOTICE_POSTPONED, NOTICE_ROUND, NOTICE_STANDINGS, NewRound,
    NewTournament, RoundGame, StartRecord, TournamentDatabase, TournamentRow,
};
pub use url::DatabaseUrl;

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
    /// The database or the connection failed.
    #[error("database error: {0}")]
    Database(#[source] sqlx::Error),
    /// The migrations could not be applied.
    #[error("database migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// Another process is serving this database, which serves one process at a time.
    #[error(
        "another Pigeon{} is already serving {}: SQLite serves one process at a time. Stop the \
         other one first, or move to PostgreSQL to run several processes (see \"Running \
         several processes\" in README.md)",
        .pid.map(|pid| format!(" (process {pid})")).unwrap_or_default(),
        .path.display()
    )]
    InUse {
        /// The database file.
        path: std::path::PathBuf,
        /// The serving process, when it said.
        pid: Option<u32>,
    },
    /// The lock file that marks the database as served could not be used.
    #[error("cannot use the lock file {}: {error}", .path.display())]
    Lock {
        /// The lock file.
        path: std::path::PathBuf,
        /// What went wrong.
        #[source]
        error: std::io::Error,
    },
    /// The database URL names no database Pigeon can open.
    #[error("{0}; use sqlite://FILE, a file path or postgres://USER@HOST/DATABASE")]
    Url(String),
    /// The backend does not do this; the message says what does.
    #[error("{0}")]
    Unsupported(&'static str),
    /// A copy of a database to another could not be made as it should (see [`copy::copy`]).
    #[error("{0}")]
    Copy(String),
}

/// The end of a change guarded by what it expects (a ply, a deadline, lines not changed
/// since read): `Ok` when it touched its one row, [`StoreError::Conflict`] when something
/// else changed that row first.
pub(crate) fn exactly_one(rows_affected: u64) -> Result<()> {
    if rows_affected == 1 {
        Ok(())
    } else {
        Err(StoreError::Conflict)
    }
}

impl From<sqlx::Error> for StoreError {
    fn from(error: sqlx::Error) -> StoreError {
        match &error {
            sqlx::Error::Database(database)
                if sqlite::lost_race(&**database) || postgres::lost_race(&**database) =>
            {
                StoreError::Conflict
            }
            sqlx::Error::Database(database)
                if sqlite::cannot_write(&**database) || postgres::cannot_write(&**database) =>
            {
                StoreError::Unavailable(error)
            }
            sqlx::Error::Io(_) | sqlx::Error::PoolTimedOut => StoreError::Unavailable(error),
            _ => StoreError::Database(error),
        }
    }
}

type Result<T> = std::result::Result<T, StoreError>;

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

/// The settings of a player who never changed them.
impl Default for SettingsRow {
    fn default() -> SettingsRow {
        SettingsRow {
            turn_pings: true,
            viewpoint: String::from("mine"),
        }
    }
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
    /// The rule set (`standard`, `nodraws`).
    pub rules: String,
    /// Whether takebacks may be asked.
    pub takebacks: bool,
    /// The side (`white` or `black`) asking to take back its last move, while it asks.
    pub takeback_offer: Option<String>,
    /// Bumped by every move and takeback: the guard against a change prepared on another
    /// state of the game with the same ply.
    pub revision: i64,
    /// The unguessable address of the game's web page (`/g/<web_id>`).
    pub web_id: Option<String>,
    /// The tournament the game is played in, if any.
    pub tournament_id: Option<i64>,
    /// Its round in that tournament.
    pub tournament_round: Option<i64>,
}

/// A game as the service loads it: its row, both players, its moves and what the answer to
/// a move needs to know around it, read in one snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StoredGame {
    pub row: GameRow,
    pub white: PlayerRow,
    pub black: PlayerRow,
    pub moves: Vec<MoveRow>,
    pub around: Around,
}

/// What a game's snapshot holds besides the game: its players' settings and leave, and
/// whether conditional lines wait in it, as they were when it was read. A move is answered
/// from them without reading them again.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Around {
    /// White's settings, then Black's.
    pub settings: [SettingsRow; 2],
    /// Whether White, then Black, was on leave (a leave started and neither over nor ended).
    pub on_leave: [bool; 2],
    /// Whether the game had conditional lines.
    pub conditionals: bool,
}

/// A game's row with both its players and its moves, read by one statement: `games` joined
/// twice with `players`, the players' columns named `white_…` and `black_…`, the moves in
/// order as a JSON array of `[ply, text, player_id, played_at]` arrays named `moves`, and
/// what is [`Around`] it: the players' settings (`white_turn_pings`, `white_viewpoint`, …,
/// null without a row of them), whether each is on leave (`white_on_leave`, …) and whether
/// the game has `conditionals`.
#[derive(FromRow)]
struct GamePlayersRow {
    #[sqlx(flatten)]
    game: GameRow,
    white_platform: String,
    white_platform_id: String,
    white_name: String,
    black_platform: String,
    black_platform_id: String,
    black_name: String,
    moves: String,
    white_turn_pings: Option<bool>,
    white_viewpoint: Option<String>,
    black_turn_pings: Option<bool>,
    black_viewpoint: Option<String>,
    white_on_leave: bool,
    black_on_leave: bool,
    conditionals: bool,
}

impl GamePlayersRow {
    /// The game with its players and moves.
    ///
    /// # Errors
    /// [`StoreError::Database`] when the moves do not read.
    fn into_stored(self) -> Result<StoredGame> {
        let moves = serde_json::from_str(&self.moves)
            .map_err(|error| StoreError::Database(sqlx::Error::Decode(Box::new(error))))?;
        let white = PlayerRow {
            id: self.game.white_id,
            platform: self.white_platform,
            platform_id: self.white_platform_id,
            display_name: self.white_name,
        };
        let black = PlayerRow {
            id: self.game.black_id,
            platform: self.black_platform,
            platform_id: self.black_platform_id,
            display_name: self.black_name,
        };
        // A player who never changed their settings has no row of them.
        let settings = |turn_pings: Option<bool>, viewpoint: Option<String>| {
            let default = SettingsRow::default();
            SettingsRow {
                turn_pings: turn_pings.unwrap_or(default.turn_pings),
                viewpoint: viewpoint.unwrap_or(default.viewpoint),
            }
        };
        Ok(StoredGame {
            row: self.game,
            white,
            black,
            moves,
            around: Around {
                settings: [
                    settings(self.white_turn_pings, self.white_viewpoint),
                    settings(self.black_turn_pings, self.black_viewpoint),
                ],
                on_leave: [self.white_on_leave, self.black_on_leave],
                conditionals: self.conditionals,
            },
        })
    }
}

/// A private note on a game.
#[derive(Debug, Clone, PartialEq, Eq, Hash, FromRow)]
pub struct NoteRow {
    pub id: i64,
    pub text: String,
    pub created_at: i64,
}

/// A takeback to store: the game goes back to `to_ply`, guarded by the ply and revision the
/// players saw; the moves after it move to the history of takebacks.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TakeBack<'a> {
    pub game_id: i64,
    pub expected_ply: i64,
    pub expected_revision: i64,
    /// The ply the game goes back to.
    pub to_ply: i64,
    /// The player who asked.
    pub asked_by: i64,
    /// The position at `to_ply`.
    pub position: &'a str,
    /// The fresh deadline of the side to move, or `None` when the bot is to move.
    pub deadline: Option<i64>,
    pub now: i64,
}

/// One stored move; from JSON, an array `[ply, text, player_id, played_at]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, FromRow, serde::Deserialize)]
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
    /// The rule set of the game.
    pub rules: String,
    /// The position the game will start from, when not the standard start.
    pub start_position: Option<String>,
    /// Whether the game will allow takebacks.
    pub takebacks: bool,
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
    /// The rule set (`standard`, `nodraws`).
    pub rules: &'a str,
    /// The position the game will start from, when not the standard start.
    pub start_position: Option<&'a str>,
    pub takebacks: bool,
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
    /// The rule set (`standard`, `nodraws`).
    pub rules: &'a str,
    /// Whether takebacks may be asked.
    pub takebacks: bool,
    /// The unguessable address of the game's web page (`/g/<web_id>`).
    pub web_id: String,
}

/// One or more moves to append to a game in one transaction (a move, and a pass the product
/// plays right after it for a player who cannot move).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AppendMoves<'a> {
    pub game_id: i64,
    /// The ply the mover saw; the write fails with [`StoreError::Conflict`] if it changed.
    pub expected_ply: i64,
    /// The revision the mover saw, guarded like the ply (a takeback and a replay can bring
    /// the ply back).
    pub expected_revision: i64,
    /// The moves in order, each with the player who made it (`None` for an automatic pass);
    /// at least one.
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
    /// When the moves are played: the write fails with [`StoreError::Conflict`] once the
    /// game's deadline is not after it (the clocks end such a game on time).
    pub now: i64,
    /// A notice of the moves to record with them (a bot move the clocks played).
    pub notice: Option<NewNotice<'a>>,
}

impl AppendMoves<'_> {
    /// Refuses an append without moves, which would change the game's row and record no
    /// move (no caller makes one: a turn is at least one move).
    pub(crate) fn check(&self) -> Result<()> {
        if self.moves.is_empty() {
            return Err(StoreError::Database(sqlx::Error::Protocol(String::from(
                "an append of no moves",
            ))));
        }
        Ok(())
    }
}

/// The game database the service holds: a cheap, cloneable handle over one backend. Every
/// [`Database`] method is called on it directly (`store.game(id)`).
#[derive(Debug, Clone)]
pub struct Store {
    database: Arc<dyn Database>,
}

impl Store {
    /// A handle over `database`.
    pub fn new(database: impl Database + 'static) -> Store {
        Store {
            database: Arc::new(database),
        }
    }

    /// Opens (creating if missing) the SQLite database file at `path` and applies the
    /// migrations.
    ///
    /// # Errors
    /// [`StoreError`] when the file cannot be opened or migrated, [`StoreError::ReadOnly`]
    /// when it can be read but not written.
    pub async fn open(path: &Path) -> Result<Store> {
        Ok(Store::new(SqliteDatabase::open(path).await?))
    }

    /// Opens the database a URL names (see [`DatabaseUrl`]): `sqlite://FILE`, `sqlite:FILE` or a
    /// plain file path for SQLite, `postgres://…` or `postgresql://…` for PostgreSQL; the
    /// migrations are applied either way.
    ///
    /// # Errors
    /// [`StoreError::Url`] for any other scheme, for options in a SQLite URL (`?mode=ro`) and
    /// for an in-memory database; otherwise as [`Store::open`] and [`PostgresDatabase::connect`].
    pub async fn connect(url: &str) -> Result<Store> {
        match DatabaseUrl::parse(url)? {
            DatabaseUrl::Sqlite(path) => Store::open(&path).await,
            DatabaseUrl::Postgres(url) => Ok(Store::new(PostgresDatabase::connect(&url).await?)),
        }
    }

    /// Updates the ratings of both players of a finished rated game, once (see
    /// [`Database::rate_game`]); `update` computes the new ratings from those before.
    ///
    /// # Errors
    /// [`StoreError`] when the database fails.
    pub async fn rate_game(
        &self,
        game_id: i64,
        now: i64,
        update: impl FnOnce(&RatingUpdate) -> [Glicko; 2] + Send + 'static,
    ) -> Result<bool> {
        self.database
            .rate_game(game_id, now, Box::new(update))
            .await
    }
}

impl Deref for Store {
    type Target = dyn Database;

    fn deref(&self) -> &(dyn Database + 'static) {
        &*self.database
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

/// One player's side of a rated game's rating update, as recorded.
#[derive(Debug, Clone, Copy, PartialEq)]
struct RatingChange {
    player_id: i64,
    /// 1 win, 0.5 draw, 0 loss.
    score: f64,
    /// The rating before ([`DEFAULT_RATING`] before the first rated game).
    before: f64,
    after: Glicko,
}

impl GameRow {
    /// The community the game's ratings are kept in (older games: their channel).
    fn rating_community(&self) -> &str {
        self.community.as_deref().unwrap_or(&self.channel)
    }

    /// Both players' rating changes for this finished game, White's first, given their
    /// ratings before (`None` before their first rated game) and how to compute the new ones.
    fn rating_changes(&self, before: [Option<Glicko>; 2], update: RatingFn) -> [RatingChange; 2] {
        let white_score = match self.result.as_deref() {
            Some("1-0") => 1.0,
            Some("0-1") => 0.0,
            _ => 0.5,
        };
        let after = update(&RatingUpdate {
            white: before[0],
            black: before[1],
            white_score,
        });
        let change = |index: usize, player_id, score| RatingChange {
            player_id,
            score,
            before: before[index].map_or(DEFAULT_RATING, |old| old.rating),
            after: after[index],
        };
        [
            change(0, self.white_id, white_score),
            change(1, self.black_id, 1.0 - white_score),
        ]
    }
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
