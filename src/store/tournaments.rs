//! Tournaments in the store: their rows, and [`TournamentDatabase`], the part of the
//! [`super::Database`] interface about them (a supertrait, so `Database` stays one object the
//! service holds). Starting a tournament and pairing a round are claimed in the transaction
//! that records them, like every other piece of work that falls due: on PostgreSQL the
//! tournament row is locked `FOR UPDATE` and its state or round re-checked, on SQLite the
//! single writer's `BEGIN IMMEDIATE` does the same.

use async_trait::async_trait;
use sqlx::FromRow;

use super::{GameRow, NewGame, Result};

/// A tournament as stored.
#[derive(Debug, Clone, PartialEq, Eq, Hash, FromRow)]
pub struct TournamentRow {
    pub id: i64,
    pub platform: String,
    /// Where it was created.
    pub channel: String,
    pub community: String,
    /// Its own thread (Discord) or room thread (Matrix), once the adapter opened one.
    pub thread: Option<String>,
    pub name: String,
    pub game_key: String,
    /// `roundrobin`, `double` or `swiss`.
    pub format: String,
    /// Swiss: the rounds planned; round robins: the rounds of the table (set at the start).
    pub rounds: i64,
    pub days_per_move: i64,
    pub rated: bool,
    pub max_players: Option<i64>,
    /// When it starts by itself; `None` for a start by the organiser.
    pub starts_at: Option<i64>,
    /// Swiss: how many days a round may last.
    pub round_days: Option<i64>,
    /// `open`, `running`, `finished` or `cancelled`.
    pub state: String,
    pub organiser_id: i64,
    /// The colour drawn for the top seed in round 1.
    pub top_seed_white: Option<bool>,
    pub current_round: i64,
    /// Swiss: when the current round's unfinished games are adjudicated.
    pub round_deadline: Option<i64>,
    /// Round robin: when the next daily standings are due.
    pub standings_next: Option<i64>,
    pub created_at: i64,
    pub started_at: Option<i64>,
    pub finished_at: Option<i64>,
    /// The address of its web page, `/t/<web_id>` (unguessable; given at creation).
    pub web_id: Option<String>,
}

/// A new tournament.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NewTournament<'a> {
    pub platform: &'a str,
    pub channel: &'a str,
    pub community: &'a str,
    pub name: &'a str,
    pub game_key: &'a str,
    pub format: &'a str,
    pub rounds: i64,
    pub days_per_move: i64,
    pub rated: bool,
    pub max_players: Option<i64>,
    pub starts_at: Option<i64>,
    pub round_days: Option<i64>,
    pub organiser_id: i64,
    /// The address of its web page (see [`TournamentRow::web_id`]).
    pub web_id: &'a str,
    pub now: i64,
}

/// A player who joined a tournament, with their display name.
#[derive(Debug, Clone, PartialEq, FromRow)]
pub struct EntrantRow {
    pub player_id: i64,
    pub platform_id: String,
    pub display_name: String,
    pub joined_at: i64,
    /// The start rank, from the start on (0 the top seed).
    pub seed: Option<i64>,
    /// The rating the seeding used.
    pub rating: Option<f64>,
    pub withdrawn_at: Option<i64>,
    pub withdrawn_round: Option<i64>,
    /// A round-robin withdrawal that annulled all their results.
    pub annulled: bool,
}

/// One game of a round to create, by player ids.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RoundGame<'a> {
    pub round: i64,
    pub game: NewGame<'a>,
}

/// A round (or, in a round robin, every round at once) to record: its games, its byes and
/// the notice that announces it, claimed by the tournament's state and round.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NewRound<'a> {
    pub tournament_id: i64,
    /// The round the tournament must be at (0 to start it): the claim.
    pub expected_round: i64,
    /// The round it is at afterwards.
    pub round: i64,
    pub games: Vec<RoundGame<'a>>,
    /// Pairing-allocated byes: (round, player).
    pub byes: Vec<(i64, i64)>,
    /// Swiss: when the round's unfinished games are adjudicated.
    pub round_deadline: Option<i64>,
    /// At the start only: the seeds (player, start rank, rating), the colour drawn, the number of
    /// rounds and the first daily standings (round robin).
    pub start: Option<StartRecord<'a>>,
    pub now: i64,
}

/// What the start of a tournament records besides its first round.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StartRecord<'a> {
    pub seeds: &'a [(i64, i64, i64)],
    pub top_seed_white: bool,
    pub rounds: i64,
    pub standings_next: Option<i64>,
}

impl StartRecord<'_> {
    /// The ids of the players seeded, in increasing order.
    #[must_use]
    pub fn player_ids(&self) -> Vec<i64> {
        let mut ids: Vec<i64> = self.seeds.iter().map(|&(id, _, _)| id).collect();
        ids.sort_unstable();
        ids
    }
}

/// The tournaments part of the game database (see [`super::Database`]).
#[async_trait]
pub trait TournamentDatabase: Send + Sync {
    /// Creates a tournament, open for joining, and returns it.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn create_tournament(&self, new: &NewTournament<'_>) -> Result<TournamentRow>;

    /// The tournament with this id.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn tournament(&self, id: i64) -> Result<Option<TournamentRow>>;

    /// The tournament whose web page is `/t/<web_id>`.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn tournament_by_web_id(&self, web_id: &str) -> Result<Option<TournamentRow>>;

    /// The tournaments of a community, the open and running ones first, newest first, at
    /// most `limit`.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn tournaments_in(
        &self,
        platform: &str,
        community: &str,
        limit: i64,
    ) -> Result<Vec<TournamentRow>>;

    /// The tournaments open or running, on one platform or all: the clocks look at each.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn live_tournaments(&self, platform: Option<&str>) -> Result<Vec<TournamentRow>>;

    /// The players of a tournament, by seed once it started, else by joining.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn entrants(&self, tournament_id: i64) -> Result<Vec<EntrantRow>>;

    /// Adds a player to an open tournament that has room. `false` when the tournament is no
    /// longer open, is full or the player is in it already.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn join_tournament(&self, tournament_id: i64, player_id: i64, now: i64) -> Result<bool>;

    /// Takes a player out of an open tournament. `false` when it is no longer open or they
    /// were not in it.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn leave_tournament(&self, tournament_id: i64, player_id: i64) -> Result<bool>;

    /// Records a round (at the start, every round of a round robin) in one transaction,
    /// claimed by the tournament's state (`open` to start it, else `running`) and its
    /// current round being `expected_round`: two processes pairing at once get one round,
    /// the other `false`.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn record_round(&self, round: &NewRound<'_>) -> Result<bool>;

    /// Ends a running tournament, with its notice, claimed by its state. `false` when it was
    /// no longer running.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn finish_tournament(&self, tournament_id: i64, state: &str, now: i64) -> Result<bool>;

    /// Clears the start time of an open tournament that could not start then (too few
    /// players), with a notice; `false` when another process did first.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn postpone_tournament(
        &self,
        tournament_id: i64,
        starts_at: i64,
        now: i64,
    ) -> Result<bool>;

    /// Records a player's withdrawal during `round`, with their results `annulled` (a round
    /// robin left before half of their games were played). `false` when they had withdrawn
    /// already.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn withdraw(
        &self,
        tournament_id: i64,
        player_id: i64,
        round: i64,
        annulled: bool,
        now: i64,
    ) -> Result<bool>;

    /// Ends an active tournament game off the board, unrated, with `result` (none for a game
    /// annulled) and `reason` (`forfeit`, `adjudication`, `annulled`). `false` when it had
    /// ended already.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn end_tournament_game(
        &self,
        game_id: i64,
        result: Option<&str>,
        reason: &str,
        now: i64,
    ) -> Result<bool>;

    /// Every game of a tournament, by round and id.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn tournament_games(&self, tournament_id: i64) -> Result<Vec<GameRow>>;

    /// The pairing-allocated byes of a tournament: (round, player).
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn tournament_byes(&self, tournament_id: i64) -> Result<Vec<(i64, i64)>>;

    /// Claims the daily standings of a round robin due at `due`: moves them on to `next`,
    /// with a standings notice when `notice` says so. `false` when another process did first.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn claim_standings(
        &self,
        tournament_id: i64,
        due: i64,
        next: i64,
        notice: bool,
    ) -> Result<bool>;

    /// Gives a tournament its own thread: its notices and new games go there.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn set_tournament_thread(&self, tournament_id: i64, thread: &str) -> Result<()>;

    /// The tournament a notice is about, with the round (for `tournament_*` notices).
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn notice_tournament(&self, notice_id: i64) -> Result<Option<i64>>;

    /// Who may create tournaments in a community: `managers` (the default) or `anyone`.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn tournament_creators(&self, platform: &str, community: &str) -> Result<String>;

    /// Sets who may create tournaments in a community.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    async fn set_tournament_creators(
        &self,
        platform: &str,
        community: &str,
        who: &str,
    ) -> Result<()>;
}

/// The kinds of tournament notices, stored in `notices.kind` with the round in `ply`.
pub const NOTICE_ROUND: &str = "tournament_round";
/// Daily (round robin) standings.
pub const NOTICE_STANDINGS: &str = "tournament_standings";
/// The end, with the winner.
pub const NOTICE_OVER: &str = "tournament_over";
/// A start time that passed with too few players.
pub const NOTICE_POSTPONED: &str = "tournament_postponed";

/// Implements [`TournamentDatabase`] for a backend by the functions of its `tournaments.rs`.
macro_rules! tournaments_answered_by {
    ($db:ty) => {
        #[async_trait::async_trait]
        impl $crate::store::TournamentDatabase for $db {
            async fn create_tournament(
                &self,
                new: &$crate::store::NewTournament<'_>,
            ) -> Result<$crate::store::TournamentRow> {
                tournaments::create_tournament(self, new).await
            }
            async fn tournament(&self, id: i64) -> Result<Option<$crate::store::TournamentRow>> {
                tournaments::tournament(self, id).await
            }
            async fn tournament_by_web_id(
                &self,
                web_id: &str,
            ) -> Result<Option<$crate::store::TournamentRow>> {
                tournaments::tournament_by_web_id(self, web_id).await
            }
            async fn tournaments_in(
                &self,
                platform: &str,
                community: &str,
                limit: i64,
            ) -> Result<Vec<$crate::store::TournamentRow>> {
                tournaments::tournaments_in(self, platform, community, limit).await
            }
            async fn live_tournaments(
                &self,
                platform: Option<&str>,
            ) -> Result<Vec<$crate::store::TournamentRow>> {
                tournaments::live_tournaments(self, platform).await
            }
            async fn entrants(&self, tournament_id: i64) -> Result<Vec<$crate::store::EntrantRow>> {
                tournaments::entrants(self, tournament_id).await
            }
            async fn join_tournament(
                &self,
                tournament_id: i64,
                player_id: i64,
                now: i64,
            ) -> Result<bool> {
                tournaments::join_tournament(self, tournament_id, player_id, now).await
            }
            async fn leave_tournament(&self, tournament_id: i64, player_id: i64) -> Result<bool> {
                tournaments::leave_tournament(self, tournament_id, player_id).await
            }
            async fn record_round(&self, round: &$crate::store::NewRound<'_>) -> Result<bool> {
                tournaments::record_round(self, round).await
            }
            async fn finish_tournament(
                &self,
                tournament_id: i64,
                state: &str,
                now: i64,
            ) -> Result<bool> {
                tournaments::finish_tournament(self, tournament_id, state, now).await
            }
            async fn postpone_tournament(
                &self,
                tournament_id: i64,
                starts_at: i64,
                now: i64,
            ) -> Result<bool> {
                tournaments::postpone_tournament(self, tournament_id, starts_at, now).await
            }
            async fn withdraw(
                &self,
                tournament_id: i64,
                player_id: i64,
                round: i64,
                annulled: bool,
                now: i64,
            ) -> Result<bool> {
                tournaments::withdraw(self, tournament_id, player_id, round, annulled, now).await
            }
            async fn end_tournament_game(
                &self,
                game_id: i64,
                result: Option<&str>,
                reason: &str,
                now: i64,
            ) -> Result<bool> {
                tournaments::end_tournament_game(self, game_id, result, reason, now).await
            }
            async fn tournament_games(
                &self,
                tournament_id: i64,
            ) -> Result<Vec<$crate::store::GameRow>> {
                tournaments::tournament_games(self, tournament_id).await
            }
            async fn tournament_byes(&self, tournament_id: i64) -> Result<Vec<(i64, i64)>> {
                tournaments::tournament_byes(self, tournament_id).await
            }
            async fn claim_standings(
                &self,
                tournament_id: i64,
                due: i64,
                next: i64,
                notice: bool,
            ) -> Result<bool> {
                tournaments::claim_standings(self, tournament_id, due, next, notice).await
            }
            async fn set_tournament_thread(&self, tournament_id: i64, thread: &str) -> Result<()> {
                tournaments::set_tournament_thread(self, tournament_id, thread).await
            }
            async fn notice_tournament(&self, notice_id: i64) -> Result<Option<i64>> {
                tournaments::notice_tournament(self, notice_id).await
            }
            async fn tournament_creators(&self, platform: &str, community: &str) -> Result<String> {
                tournaments::tournament_creators(self, platform, community).await
            }
            async fn set_tournament_creators(
                &self,
                platform: &str,
                community: &str,
                who: &str,
            ) -> Result<()> {
                tournaments::set_tournament_creators(self, platform, community, who).await
            }
        }
    };
}

pub(super) use tournaments_answered_by;
