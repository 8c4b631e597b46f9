//! The interface every database backend implements: one method per question or change the
//! service asks of its storage, with the row types of [`super`] in and out, so the service
//! never sees a pool, a transaction or SQL.

use std::fmt::Debug;
use std::path::Path;

use async_trait::async_trait;

use super::copy::TableRows;
use super::{
    AppendMoves, CapsRow, ChallengeRow, ConditionalRow, Counts, DigestRow, GameRow, Glicko,
    LeaveRow, MoveRow, NewChallenge, NewGame, NewNotice, NoteRow, NoticeRow, PlayerRow,
    RatingChangeRow, RatingRow, RatingUpdate, Result, ResultsRow, Resumed, SettingsRow, StoredGame,
    TakeBack,
};

/// How [`Database::rate_game`] computes both players' new ratings from their ratings before.
pub type RatingFn = Box<dyn FnOnce(&RatingUpdate) -> [Glicko; 2] + Send>;

/// A game database. Each backend (`sqlite::SqliteDatabase`, `postgres::PostgresDatabase`) implements every method with SQL
/// written for its database and its own migrations; every write a method makes is committed
/// before it returns, and the methods that say so run in one transaction.
///
/// Besides the game data, a backend answers for its own upkeep: [`Database::close`],
/// [`Database::backup`], [`Database::integrity_check`] and [`Database::synchronous_settings`],
/// each described in the database's own terms. Tournaments and post-game analyses are the
/// supertraits [`super::TournamentDatabase`] (`store/tournaments.rs`) and
/// [`super::AnalysisDatabase`] (`store/analysis.rs`).
#[async_trait]
pub trait Database:
    Debug + Send + Sync + super::TournamentDatabase + super::AnalysisDatabase
{
    /// The durability setting of every connection the backend may hand out, read while all of
    /// them are held at once. On SQLite: the `synchronous` pragma by name (`full` keeps an
    /// acknowledged move through a power loss); on PostgreSQL: `synchronous_commit` (`on`).
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn synchronous_settings(&self) -> Result<Vec<String>>;

    /// Closes every connection (on SQLite, checkpointing the WAL).
    async fn close(&self);

    /// Claims the database for this process's chat bots (or console) until the process
    /// ends. SQLite serves one process at a time and refuses a second; PostgreSQL, where
    /// processes coordinate through the rows they claim, has nothing to hold.
    ///
    /// # Errors
    /// [`super::StoreError::InUse`] when another process serves the database.
    async fn hold_for_serving(&self) -> Result<()>;

    /// Writes a consistent copy of the database to the file `path` while it stays in use (on
    /// SQLite, `VACUUM INTO`: one read transaction, so the copy is a snapshot). Refuses to
    /// overwrite an existing file.
    ///
    /// # Errors
    /// [`super::StoreError`] when the copy cannot be written, for example because `path` exists.
    async fn backup(&self, path: &Path) -> Result<()>;

    /// The database's own consistency check: `ok` when it is sound (on SQLite,
    /// `PRAGMA integrity_check`).
    ///
    /// # Errors
    /// [`super::StoreError`] when the check fails to run.
    async fn integrity_check(&self) -> Result<String>;

    /// Every table of the game data (not the migrations' bookkeeping) with its number of
    /// rows, by name.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn table_counts(&self) -> Result<Vec<(String, u64)>>;

    /// The tables of the game data in an order that loads every row after the rows its
    /// foreign keys point to.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn tables_in_copy_order(&self) -> Result<Vec<String>>;

    /// Every row of a table (one of [`Database::table_counts`]).
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn table_rows(&self, table: &str) -> Result<TableRows>;

    /// Inserts the rows of each table, in the order given, in one transaction, keeping their
    /// ids (and moving id sequences past them).
    ///
    /// # Errors
    /// [`super::StoreError::Copy`] when a column has no match in this database; other
    /// [`super::StoreError`]s when the database fails.
    async fn load_tables(&self, tables: &[TableRows]) -> Result<()>;

    /// The player with this platform id, created or renamed to `display_name` as needed.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn player(
        &self,
        platform: &str,
        platform_id: &str,
        display_name: &str,
        now: i64,
    ) -> Result<PlayerRow>;

    /// The player with this database id.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn player_by_id(&self, id: i64) -> Result<Option<PlayerRow>>;

    /// The player with this platform id, if known.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn player_by_platform_id(
        &self,
        platform: &str,
        platform_id: &str,
    ) -> Result<Option<PlayerRow>>;

    /// A player's settings (the defaults when never changed).
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn settings(&self, player_id: i64) -> Result<SettingsRow>;

    /// Stores a player's settings.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn set_settings(&self, player_id: i64, settings: &SettingsRow) -> Result<()>;

    /// Moves a game to another channel of its platform (a Discord thread opened for it).
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn set_game_channel(&self, game_id: i64, channel: &str, now: i64) -> Result<bool>;

    /// Records a platform event as processed. `false` when it was already: the same chat
    /// event delivered twice is acted on once.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn claim_event(&self, platform: &str, event_id: &str, now: i64) -> Result<bool>;

    /// Whether a platform event was recorded as processed (read only: `claim_event` records).
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn event_claimed(&self, platform: &str, event_id: &str) -> Result<bool>;

    /// Creates a challenge and returns it.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn create_challenge(&self, new: &NewChallenge<'_>) -> Result<ChallengeRow>;

    /// The challenge with this id.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn challenge(&self, id: i64) -> Result<Option<ChallengeRow>>;

    /// Open challenges in a channel that involve `player_id` (made by them, to them, or open
    /// to anyone), newest first.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn open_challenges(
        &self,
        platform: &str,
        channel: &str,
        player_id: i64,
    ) -> Result<Vec<ChallengeRow>>;

    /// Closes an open challenge with `status` (`declined`, `cancelled`). `false` when it was
    /// no longer open.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn close_challenge(&self, id: i64, status: &str) -> Result<bool>;

    /// Accepts an open challenge by creating its game, in one transaction. Two people
    /// accepting at once: one gets the game, the other [`super::StoreError::Conflict`].
    ///
    /// # Errors
    /// [`super::StoreError::Conflict`] when the challenge is no longer open.
    async fn accept_challenge(&self, challenge_id: i64, game: &NewGame<'_>) -> Result<GameRow>;

    /// Creates a game directly (a rematch).
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn create_game(&self, game: &NewGame<'_>) -> Result<GameRow>;

    /// The game with this id.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn game(&self, id: i64) -> Result<Option<GameRow>>;

    /// The game whose web page is `/g/<web_id>`.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn game_by_web_id(&self, web_id: &str) -> Result<Option<GameRow>>;

    /// A game with its players, moves and what is around it at `now` (see
    /// [`super::Around`]), read in one statement so that they agree even while moves are
    /// being written.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn stored_game(&self, id: i64, now: i64) -> Result<Option<StoredGame>>;

    /// The moves of a game in order.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn moves(&self, game_id: i64) -> Result<Vec<MoveRow>>;

    /// A player's games on a platform, active ones first then the latest finished, at most
    /// `limit`.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn games_of(&self, player_id: i64, limit: i64) -> Result<Vec<GameRow>>;

    /// A player's active games in one channel.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn active_games_in(
        &self,
        platform: &str,
        channel: &str,
        player_id: i64,
    ) -> Result<Vec<GameRow>>;

    /// The games of a channel, active ones first, at most `limit`.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn games_in_channel(
        &self,
        platform: &str,
        channel: &str,
        limit: i64,
    ) -> Result<Vec<GameRow>>;

    /// Appends moves to a game in one transaction, guarded by the ply the mover saw and by
    /// the game's deadline: a move at or after it (`append.now`) does not land. Moves
    /// that end a game between people in which both sides moved queue its analysis in the
    /// same transaction.
    ///
    /// # Errors
    /// [`super::StoreError::Conflict`] when the game moved on (or ended) in the meantime, or
    /// its deadline has passed.
    async fn append_moves(&self, append: &AppendMoves<'_>) -> Result<()>;

    /// Ends an active game off the board (resignation, agreement, claim, timeout, abort),
    /// guarded by the ply the caller saw, with a notice of the end recorded in the same
    /// transaction when one is given (a game the clock ended). An aborted game has no result.
    /// A loss on time (`reason` `timeout`, `now` its deadline) lands only while the stored
    /// deadline is still at or before `now`: one moved on meanwhile keeps the game going.
    /// A game between people with a result, in which both sides moved, gets its analysis
    /// queued in the same transaction.
    ///
    /// # Errors
    /// [`super::StoreError::Conflict`] when the game moved on or already ended, or its deadline
    /// moved on.
    async fn finish_game(
        &self,
        game_id: i64,
        expected_ply: i64,
        result: Option<&str>,
        reason: &str,
        now: i64,
        notice: Option<&NewNotice<'_>>,
    ) -> Result<()>;

    /// Sets or clears the standing draw offer of an active game, guarded by the ply.
    ///
    /// # Errors
    /// [`super::StoreError::Conflict`] when the game moved on or ended.
    async fn set_draw_offer(
        &self,
        game_id: i64,
        expected_ply: i64,
        offer: Option<&str>,
        now: i64,
    ) -> Result<()>;

    /// Keeps a private note of `player_id` on a game.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn add_note(&self, game_id: i64, player_id: i64, text: &str, now: i64)
    -> Result<NoteRow>;

    /// The notes of `player_id` on a game, oldest first.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn notes(&self, game_id: i64, player_id: i64) -> Result<Vec<NoteRow>>;

    /// Deletes the notes of `player_id` on a game; how many there were.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn clear_notes(&self, game_id: i64, player_id: i64) -> Result<u64>;

    /// Sets or clears the standing takeback request of an active game, guarded by the
    /// game's revision.
    ///
    /// # Errors
    /// [`super::StoreError::Conflict`] when the game changed or ended.
    async fn set_takeback_offer(
        &self,
        game_id: i64,
        expected_revision: i64,
        offer: Option<&str>,
        now: i64,
    ) -> Result<()>;

    /// Takes moves back in one transaction guarded by the ply and revision: the game goes
    /// back to `to_ply`, the moves after it go to the takeback history, draw offers and the
    /// takeback request end, the reminders of those plies are forgotten.
    ///
    /// # Errors
    /// [`super::StoreError::Conflict`] when the game changed or ended.
    async fn take_back(&self, back: &TakeBack<'_>) -> Result<()>;

    /// Whether games from a position may be rated in a community (default no).
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn rated_setups(&self, platform: &str, community: &str) -> Result<bool>;

    /// Allows or forbids rated games from a position in a community.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn set_rated_setups(&self, platform: &str, community: &str, on: bool) -> Result<()>;
    /// Moves the deadline of an active game on to `deadline` (time one player gives the
    /// other), guarded by the ply and the deadline the caller saw, so two gifts at once give
    /// one day.
    ///
    /// # Errors
    /// [`super::StoreError::Conflict`] when the game moved on, ended or its deadline changed.
    async fn give_time(
        &self,
        game_id: i64,
        expected_ply: i64,
        expected_deadline: i64,
        deadline: i64,
        now: i64,
    ) -> Result<()>;

    /// A player's leaves that end (or ended) after `since`, oldest first.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn leaves_of(&self, player_id: i64, since: i64) -> Result<Vec<LeaveRow>>;

    /// Every leave still running, the soonest to end first.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn running_leaves(&self) -> Result<Vec<LeaveRow>>;

    /// Starts a player's leave from `now` to `ends_at`, with `notices` (about the player) in
    /// the same transaction.
    ///
    /// # Errors
    /// [`super::StoreError::Conflict`] when the player is on leave already.
    async fn start_leave(
        &self,
        player_id: i64,
        now: i64,
        ends_at: i64,
        notices: &[NewNotice<'_>],
    ) -> Result<LeaveRow>;

    /// Stops the clock of a game whose player to move, `player_id`, is on leave: the game has
    /// no deadline meanwhile, and the time left is kept. Guarded by the ply and the deadline
    /// the caller saw.
    ///
    /// # Errors
    /// [`super::StoreError::Conflict`] when the game moved on, ended or its deadline changed.
    async fn freeze_clock(
        &self,
        game_id: i64,
        expected_ply: i64,
        expected_deadline: i64,
        player_id: i64,
        now: i64,
    ) -> Result<()>;

    /// The time left on a game's clock while it stands still, if it does.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn frozen_clock(&self, game_id: i64) -> Result<Option<i64>>;

    /// Ends a running leave at `now` (at its planned end at the latest), once: in one
    /// transaction that claims it, starts the player's stopped clocks again with the time
    /// that was left, and records `notices`. `None` when it had ended already.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn end_leave(
        &self,
        leave_id: i64,
        now: i64,
        notices: &[NewNotice<'_>],
    ) -> Result<Option<LeaveRow>>;

    /// The player a notice is about, for the notices that name one (leave).
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn notice_player(&self, notice_id: i64) -> Result<Option<i64>>;

    /// A community's leave allowance in days per calendar year, when set.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn leave_days(&self, platform: &str, community: &str) -> Result<Option<i64>>;

    /// Sets a community's leave allowance.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn set_leave_days(&self, platform: &str, community: &str, days: i64) -> Result<()>;

    /// A player's reminder times as stored (seconds before a deadline, separated by spaces),
    /// `None` when never chosen.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn reminder_times(&self, player_id: i64) -> Result<Option<String>>;

    /// Stores a player's reminder times.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn set_reminder_times(&self, player_id: i64, times: &str) -> Result<()>;

    /// A player's daily digest, if they have one.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn digest(&self, player_id: i64) -> Result<Option<DigestRow>>;

    /// Sets (or, with `None`, stops) a player's daily digest.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn set_digest(&self, player_id: i64, digest: Option<&DigestRow>) -> Result<()>;

    /// The digests due at `now`, of the players of `platform` (or of all).
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn digests_due(&self, now: i64, platform: Option<&str>) -> Result<Vec<DigestRow>>;

    /// Claims a due digest by moving its time from `expected_next` on to `next`, recording
    /// `notice` (about the player) in the same transaction. `false` when another process
    /// claimed it first (or the player changed it).
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn claim_digest(
        &self,
        player_id: i64,
        expected_next: i64,
        next: Option<i64>,
        notice: Option<&NewNotice<'_>>,
    ) -> Result<bool>;

    /// The first digest due after `after` on `platform`.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn next_digest(&self, platform: &str, after: i64) -> Result<Option<i64>>;

    /// The conditional lines of a game, of both players, oldest first.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn conditionals(&self, game_id: i64) -> Result<Vec<ConditionalRow>>;

    /// Adds a player's conditional line to an active game, guarded by the ply the player saw.
    ///
    /// # Errors
    /// [`super::StoreError::Conflict`] when the game moved on or ended.
    async fn add_conditional(
        &self,
        game_id: i64,
        player_id: i64,
        expected_ply: i64,
        moves: &str,
        now: i64,
    ) -> Result<()>;

    /// Replaces a player's conditional lines in a game by `lines` (`(ply, moves)` each; none:
    /// all gone), in one transaction. With `expected` (the ids of the lines the new ones were
    /// worked out from), only while those are still exactly the player's lines: another
    /// process answering the same lines, or the player changing them, wins.
    ///
    /// # Errors
    /// [`super::StoreError::Conflict`] when the lines are no longer the `expected` ones;
    /// [`super::StoreError`] when the database fails.
    async fn replace_conditionals(
        &self,
        game_id: i64,
        player_id: i64,
        expected: Option<&[i64]>,
        lines: &[(i64, String)],
        now: i64,
    ) -> Result<()>;

    /// The games whose conditional lines the game has gone past (a move was played since, or
    /// it ended): they are due to be answered or dropped.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn conditional_games_due(&self) -> Result<Vec<i64>>;

    /// Active games whose deadline is at or before `until`, soonest first; only those of
    /// `platform` when one is given.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn games_due(&self, until: i64, platform: Option<&str>) -> Result<Vec<GameRow>>;

    /// Active games against the built-in opponent, of one platform or of all.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn active_bot_games(&self, platform: Option<&str>) -> Result<Vec<GameRow>>;

    /// Finished rated games whose ratings were not updated yet (the process stopped between
    /// ending a game and rating it).
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn unrated_games(&self) -> Result<Vec<i64>>;

    /// Updates the ratings of both players of a finished rated game, once: in one transaction
    /// that reads both current ratings, asks `update` for the new ones and records a
    /// `rating_changes` row per player, whose key makes a second call a no-op. `false` when
    /// the game is not a finished rated game with a result, or was rated already.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn rate_game(&self, game_id: i64, now: i64, update: RatingFn) -> Result<bool>;

    /// The rated players of one game in one community, best first, at most `limit`.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn leaderboard(
        &self,
        community: &str,
        game_key: &str,
        limit: i64,
    ) -> Result<Vec<RatingRow>>;

    /// A player's current ratings in a community, one per game played rated.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn ratings_of(&self, player_id: i64, community: &str) -> Result<Vec<RatingRow>>;

    /// How one rated game changed its players' ratings: `(player id, before, after)`, empty
    /// before its ratings were updated (and for casual games).
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn game_rating_changes(&self, game_id: i64) -> Result<Vec<(i64, f64, f64)>>;

    /// A player's latest rating changes in one game and community, newest first.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn rating_history(
        &self,
        player_id: i64,
        community: &str,
        game_key: &str,
        limit: i64,
    ) -> Result<Vec<RatingChangeRow>>;

    /// A player's wins, losses and draws per game in a community (finished games with a
    /// result, rated or not).
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn results_of(&self, player_id: i64, community: &str) -> Result<Vec<ResultsRow>>;

    /// Whether games in a community get a thread each (on unless turned off).
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn threads_on(&self, platform: &str, community: &str) -> Result<bool>;

    /// Turns threads per game on or off in a community.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn set_threads(&self, platform: &str, community: &str, on: bool) -> Result<()>;

    /// Moves everything of a community to another (a Matrix room replaced by its upgrade):
    /// games, challenges, tournaments, ratings and settings. The active games moved.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn move_community(
        &self,
        platform: &str,
        from: &str,
        to: &str,
        now: i64,
    ) -> Result<Vec<i64>>;

    /// A community's caps (all defaults when never set).
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn caps(&self, platform: &str, community: &str) -> Result<CapsRow>;

    /// Stores a community's caps.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn set_caps(&self, platform: &str, community: &str, caps: &CapsRow) -> Result<()>;

    /// What a player has going on: open challenges sent (not yet expired at `now`), active
    /// games against people and against the bot.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn counts(&self, player_id: i64, now: i64) -> Result<Counts>;

    /// The open challenges (not yet expired at `now`) from `challenger` to `challenged` of
    /// one game, oldest first.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn open_challenges_between(
        &self,
        challenger: i64,
        challenged: i64,
        game_key: &str,
        now: i64,
    ) -> Result<Vec<i64>>;

    /// The players of `platform` who have played or been challenged in `community`, by
    /// name: the people a name typed without `@` may mean there.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn players_in(&self, platform: &str, community: &str) -> Result<Vec<PlayerRow>>;

    /// Records that a reminder fell due, with its notice. `false` when it had been already
    /// (each reminder goes out once per move, also across restarts).
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn claim_reminder(&self, notice: &NewNotice<'_>, kind: &str) -> Result<bool>;

    /// The open challenges whose time ran out before `now`, marked expired with a notice
    /// each, in one transaction; only those of `platform` when one is given.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn expire_challenges(
        &self,
        now: i64,
        platform: Option<&str>,
    ) -> Result<Vec<ChallengeRow>>;

    /// Takes the pending notices of `platform` (or of all) for delivery, oldest first and at
    /// most [`super::NOTICE_BATCH`]: those never claimed and those whose claim lapsed. The
    /// claim is committed before they are returned.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn claim_notices(&self, platform: Option<&str>, now: i64) -> Result<Vec<NoticeRow>>;

    /// Marks a notice as handed to its platform.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn notice_delivered(&self, id: i64, now: i64) -> Result<()>;

    /// Counts a failed delivery: the notice is released to be tried again, or given up after
    /// [`super::MAX_ATTEMPTS`] (or at once when `give_up`). `true` when it was given up.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn notice_failed(&self, id: i64, now: i64, give_up: bool) -> Result<bool>;

    /// Marks a game as needing an operator's attention (it no longer replays, or its clock
    /// failed): the clocks skip it from now on.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn mark_attention(&self, game_id: i64, reason: &str) -> Result<()>;

    /// The ids of games marked as needing attention.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn games_needing_attention(&self) -> Result<Vec<(i64, String)>>;

    /// Forgets processed chat events received before `before`: duplicates come within
    /// minutes, so a week's record is plenty. Returns how many were removed.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn prune_events(&self, before: i64) -> Result<u64>;

    /// Starts the clocks of `platform` at `now`: when they last ran at some earlier time, every
    /// deadline of an active game there that fell inside the gap is moved on by the gap's
    /// length, with a `deadline_moved` notice each; a deadline that passed before the gap is
    /// left to end its game. Records `now` as the clocks' last run, all in one transaction.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn resume_clocks(&self, platform: &str, now: i64) -> Result<Resumed>;

    /// Takes or renews the lease `name` (work one process does at a time) for `holder` until
    /// `until`: `true` when `holder` holds it now, because it was free, had lapsed at `now`,
    /// or was `holder`'s already. One statement, so two processes never both get it.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn take_lease(&self, name: &str, holder: &str, now: i64, until: i64) -> Result<bool>;

    /// Lets the lease `name` go when `holder` has it (a clean stop: another process may take
    /// it at once).
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn release_lease(&self, name: &str, holder: &str) -> Result<()>;

    /// When the chat account `account` of `platform` first started: `at` is recorded when
    /// nothing is yet, or when it is earlier than what is (an older record brought in);
    /// returns the time kept. One statement, so processes starting together agree.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn first_start(&self, platform: &str, account: &str, at: i64) -> Result<i64>;

    /// Records that the clocks of `platform` ran at `now`.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn heartbeat(&self, platform: &str, now: i64) -> Result<()>;

    /// The first time after `after` at which something timed falls due on `platform`: a
    /// reminder (`reminders.0` before a deadline, in games of more than a day per move, and
    /// `reminders.1` before any deadline), a deadline, or an open challenge's expiry. `None`
    /// when nothing is waiting.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn next_due(
        &self,
        platform: &str,
        after: i64,
        reminders: (i64, i64),
    ) -> Result<Option<i64>>;
}
