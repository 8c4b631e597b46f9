//! The use cases of correspondence play, independent of any chat platform: challenges, moves,
//! draws, resignations, clocks, post-game analysis. Every call names the platform user acting and the channel they
//! act in; answers are typed results or a [`ServiceError`] whose text is fit for the user.

mod analysis;
mod bot;
mod caps;
mod challenges;
pub mod clock;
mod clocks;
mod conditional;
mod digest;
mod errors;
mod export;
mod games;
mod gifts;
pub mod lease;
mod limits;
pub mod migrate;
mod moves;
mod names;
mod notes;
mod options;
mod pages;
mod pictures;
mod ratings;
mod reading;
mod reminders;
mod resigning;
mod takebacks;
mod timer;
pub mod tournaments;
mod vacation;

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::{Arc, Mutex, RwLock};

use tokio::sync::{Semaphore, broadcast, watch};

use crate::rules::{Color, EndReason, GameRules, Record, RuleSet, Variant};
use crate::store::{Around, ChallengeRow, GameRow, PlayerRow, SettingsRow, Store, StoredGame};

pub use crate::store::LEASE as NOTICE_LEASE;
pub use analysis::{ANALYST_TICK, Analysed, AnalysisStatus, Analyst, PageAnalysis};
pub use bot::{Terms, bot_side};
pub use caps::{Cap, Caps};
pub use challenges::Challenged;
pub use clock::{Clock, DAY, HOUR, ManualClock, SystemClock};
pub use clocks::{EVENT_MEMORY, Notice, Pending, place_of};
pub use conditional::{Answered, LONGEST_LINE, MOST_LINES, position_after_line};
pub use digest::{Digest, DigestRequest};
use errors::internal;
pub use errors::{ServiceError, did_you_mean};
pub use export::{annotations, export, export_annotated};
pub use games::{ColorChoice, DrawAction, DrawDone, Scope, SettingsChange, color_key};
pub use gifts::GIFT;
pub use limits::{RateLimit, RateLimiter, Verdict};
pub use moves::MoveDone;
pub use names::closest;
pub use notes::{NOTE_LIMIT, Note};
pub use options::Tried;
pub use pages::{GameChange, PageGame, PageRating, is_web_id, new_web_id};
pub use pictures::{Image, REPLAY_MOVES, picture_viewer, result_words, viewpoint};
pub use ratings::{HISTORY_SIZE, LEADERBOARD_SIZE, Stats, updated};
pub use reading::ReadMove;
pub use reminders::{DEFAULT_REMINDERS, LONGEST_REMINDER, MOST_REMINDERS, SHORTEST_REMINDER};
pub use resigning::{CONFIRM_WINDOW, Resigning};
pub use takebacks::{TakebackAction, TakebackDone};
pub use timer::Timer;
pub use tournaments::{
    Entrant, Format, Pairing, RoundGames, StandingLine, Standings, StartTime, TournamentError,
    TournamentGame, TournamentInfo, TournamentPage, TournamentRequest, TournamentState, Withdrawal,
};
pub use vacation::{LEAVE_DAYS, LeaveRequest, LeaveStatus, MOST_LEAVE_DAYS, SHORTEST_LEAVE};

/// Shortest and longest time per move, in days.
pub const DAYS_PER_MOVE: std::ops::RangeInclusive<i64> = 1..=14;
/// Time per move when a challenge does not say.
pub const DEFAULT_DAYS: i64 = 3;
/// How long a challenge waits for an answer.
pub const CHALLENGE_LIFETIME: i64 = 7 * DAY;
/// Reminders go out when this much time is left, each once per move.
pub const REMINDERS: [(&str, i64); 2] = [("day", DAY), ("hour", HOUR)];

/// A chat account acting: platform, the platform's id for it, and its display name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct User {
    /// `console`, `discord` or `matrix`.
    pub platform: String,
    /// The platform's id of the account.
    pub id: String,
    /// The name to show.
    pub name: String,
}

impl User {
    /// A user of `platform`.
    #[must_use]
    pub fn new(platform: &str, id: &str, name: &str) -> User {
        User {
            platform: platform.to_owned(),
            id: id.to_owned(),
            name: name.to_owned(),
        }
    }
}

/// Where something is said: a channel or room of a platform.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Place {
    /// `console`, `discord` or `matrix`.
    pub platform: String,
    /// The platform's id of the channel, room or thread.
    pub channel: String,
    /// The community the channel belongs to: a Discord server, a Matrix room, a console
    /// channel. Ratings and leaderboards are kept per community.
    pub community: String,
}

impl Place {
    /// A channel of `platform` that is a community of its own (a Matrix room, a console
    /// channel).
    #[must_use]
    pub fn new(platform: &str, channel: &str) -> Place {
        Place {
            platform: platform.to_owned(),
            channel: channel.to_owned(),
            community: channel.to_owned(),
        }
    }

    /// The place of a stored game or challenge (rows from before communities take their
    /// channel as their community).
    #[must_use]
    pub fn stored(platform: &str, channel: &str, community: Option<&str>) -> Place {
        Place::new(platform, channel).in_community(community.unwrap_or(channel))
    }

    /// Whether a game or challenge stored with these fields may be named from here: it is of
    /// this platform and this community (rows from before communities take their channel).
    #[must_use]
    pub fn holds(&self, platform: &str, community: Option<&str>, channel: &str) -> bool {
        self.platform == platform && community.unwrap_or(channel) == self.community
    }

    /// The same place, in the community `community` (a Discord server).
    #[must_use]
    pub fn in_community(mut self, community: &str) -> Place {
        community.clone_into(&mut self.community);
        self
    }
}

/// A short description of a game, for lists and "which game?" replies.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GameSummary {
    pub id: i64,
    pub variant: Variant,
    pub white: String,
    pub black: String,
    /// The player to move, while the game is on.
    pub to_move: Option<String>,
    /// The result and reason once it is over.
    pub result: Option<String>,
    /// The players' ids, White's then Black's.
    pub players: (i64, i64),
    /// When the player to move runs out of time (none while the bot is to move).
    pub deadline: Option<i64>,
    /// The platform's id of the channel the game is played in.
    pub channel: String,
    /// The address of the game's web page, when the pages are served.
    pub page: Option<String>,
}

impl fmt::Display for GameSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "#{} {}: {} vs {}",
            self.id, self.variant, self.white, self.black
        )?;
        match (&self.to_move, &self.result) {
            (Some(name), _) => write!(f, ", {name} to move"),
            (None, Some(result)) => write!(f, ", {result}"),
            (None, None) => Ok(()),
        }
    }
}

/// A short description of a challenge.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ChallengeSummary {
    pub id: i64,
    pub variant: Variant,
    pub challenger: PlayerRow,
    /// `None` for an open challenge.
    pub challenged: Option<PlayerRow>,
    pub days_per_move: i64,
    /// The challenger's colour choice.
    pub color: ColorChoice,
    pub expires_at: i64,
    pub status: String,
    /// Whether the game will count for ratings.
    pub rated: bool,
}

impl fmt::Display for ChallengeSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "#{} {} from {}",
            self.id, self.variant, self.challenger.display_name
        )?;
        if let Some(challenged) = &self.challenged {
            write!(f, " to {}", challenged.display_name)?;
        }
        Ok(())
    }
}

/// A game loaded and replayed: its row, players and rules record.
#[derive(Debug, Clone)]
pub struct GameState {
    pub row: GameRow,
    pub variant: Variant,
    pub record: Record,
    pub white: PlayerRow,
    pub black: PlayerRow,
    /// The address of the game's web page, when the pages are served.
    pub page: Option<String>,
    /// The players' settings and leave and the game's conditional lines, as they were when
    /// the game was read.
    pub around: Around,
}

impl GameState {
    /// The settings of `player_id` when the game was read (the defaults for anyone else).
    #[must_use]
    pub fn settings_of(&self, player_id: i64) -> SettingsRow {
        match self.color_of(player_id) {
            Some(color) => self.around.settings[color.index()].clone(),
            None => SettingsRow::default(),
        }
    }

    /// Whether `player_id` was on leave when the game was read.
    #[must_use]
    pub fn on_leave(&self, player_id: i64) -> bool {
        self.color_of(player_id)
            .is_some_and(|color| self.around.on_leave[color.index()])
    }

    /// The player of `color`.
    #[must_use]
    pub fn player(&self, color: Color) -> &PlayerRow {
        match color {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }

    /// The colour `player_id` plays, if they play in this game.
    #[must_use]
    pub fn color_of(&self, player_id: i64) -> Option<Color> {
        if self.white.id == player_id {
            Some(Color::White)
        } else if self.black.id == player_id {
            Some(Color::Black)
        } else {
            None
        }
    }

    /// The bot's side, when this is a game against the built-in opponent.
    #[must_use]
    pub fn bot_side(&self) -> Option<Color> {
        bot_side(&self.row)
    }

    /// Whether the game is still being played.
    #[must_use]
    pub fn is_active(&self) -> bool {
        self.row.status == "active"
    }

    /// The side to move.
    #[must_use]
    pub fn turn(&self) -> Color {
        self.record.position().turn()
    }

    /// The player to move, while the game is on.
    #[must_use]
    pub fn to_move(&self) -> Option<&PlayerRow> {
        self.is_active().then(|| self.player(self.turn()))
    }

    /// The move number shown to players: one per pair of plies, starting at 1.
    #[must_use]
    pub fn move_number(&self) -> i64 {
        let number = self.record.move_number(self.record.moves().len());
        i64::try_from(number).unwrap_or(i64::MAX)
    }

    /// The result as words, such as `1-0, White (alice) wins by checkmate`.
    #[must_use]
    pub fn result_text(&self) -> Option<String> {
        let reason = self.row.end_reason.as_deref()?;
        let reason = reason_words(reason);
        Some(match self.row.result.as_deref() {
            Some("1-0") => format!("1-0, {} wins by {reason}", self.side_label(Color::White)),
            Some("0-1") => format!("0-1, {} wins by {reason}", self.side_label(Color::Black)),
            Some(score) => format!("{score}, drawn by {reason}"),
            None if reason == ANNULMENT => String::from(ANNULMENT),
            None => format!("aborted by {reason}").replace("aborted by abort", "aborted"),
        })
    }

    /// `White (alice)`, with the game's own side names (Chak's Green).
    #[must_use]
    pub fn side_label(&self, color: Color) -> String {
        format!(
            "{} ({})",
            self.variant.side_name(color),
            self.player(color).display_name
        )
    }

    /// A one-line summary.
    #[must_use]
    pub fn summary(&self) -> GameSummary {
        GameSummary {
            id: self.row.id,
            variant: self.variant,
            white: self.white.display_name.clone(),
            black: self.black.display_name.clone(),
            to_move: self.to_move().map(|p| p.display_name.clone()),
            result: self.result_text(),
            players: (self.white.id, self.black.id),
            deadline: self.row.deadline.filter(|_| self.is_active()),
            channel: self.row.channel.clone(),
            page: self.page.clone(),
        }
    }
}

/// A game ended by a withdrawal that annulled a player's results, in words.
const ANNULMENT: &str =
    "annulled: a player withdrew from the round robin before playing half of their games";

/// The stored words of an end reason, read back for replies.
fn reason_words(stored: &str) -> &str {
    match stored {
        "checkmate" => "checkmate",
        "stalemate" => "stalemate",
        "altar" => "altar mate",
        "repetition" => "threefold repetition",
        "fifty_moves" => "the fifty-move rule",
        "blocked" => "blockade",
        "attrition" => "attrition",
        "mutual_check" => "mutual check",
        "agreement" => "agreement",
        "resignation" => "resignation",
        "timeout" => "time running out",
        "aborted" => "abort",
        "forfeit" => "forfeit (a player withdrew from the tournament)",
        "adjudication" => "adjudication at the round deadline",
        "annulled" => ANNULMENT,
        other => other,
    }
}

/// How an end reason is stored.
#[must_use]
pub fn reason_key(reason: EndReason) -> &'static str {
    match reason {
        EndReason::Checkmate => "checkmate",
        EndReason::Stalemate => "stalemate",
        EndReason::Altar => "altar",
        EndReason::Repetition => "repetition",
        EndReason::FiftyMoves => "fifty_moves",
        EndReason::Blocked => "blocked",
        EndReason::Attrition => "attrition",
        EndReason::MutualCheck => "mutual_check",
        EndReason::Agreement => "agreement",
        EndReason::Resignation => "resignation",
        EndReason::Timeout => "timeout",
        EndReason::Aborted => "aborted",
    }
}

/// The platform-independent game service over one database.
#[derive(Debug, Clone)]
pub struct Service {
    store: Store,
    clock: Arc<dyn Clock>,
    /// The bot's own account on each platform, as the adapters report it.
    bots: Arc<RwLock<HashMap<String, User>>>,
    /// The per-user limit on chat commands, where one applies.
    limiter: Option<Arc<RateLimiter>>,
    /// The per-user limit on completions asked while typing, where one applies.
    completions: Option<Arc<RateLimiter>>,
    /// One permit per core for CPU-heavy work (engine searches, drawings): more at once would
    /// only wait for a core while holding their memory and delay every other answer.
    heavy: Arc<Semaphore>,
    /// Wakes the timers when a command ended a game whose time had run out.
    wake: Arc<watch::Sender<u64>>,
    /// Wakes this process's analyst when a game ended or an analysis was asked for.
    analyses: Arc<watch::Sender<u64>>,
    /// The platforms whose clocks this process has started (see [`Service::timer`]).
    resumed: Arc<Mutex<HashSet<String>>>,
    /// Resignations asked for and not yet confirmed.
    resigning: Arc<Mutex<resigning::Asked>>,
    /// The public base address of the game pages, when they are served.
    public_url: Option<Arc<str>>,
    /// The changes of games, for the pages that follow them.
    changes: broadcast::Sender<GameChange>,
}

impl Service {
    /// A service over `store` telling time by `clock`.
    #[must_use]
    pub fn new(store: Store, clock: Arc<dyn Clock>) -> Service {
        Service {
            store,
            clock,
            bots: Arc::default(),
            limiter: None,
            completions: None,
            heavy: Arc::new(Semaphore::new(
                std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
            )),
            wake: Arc::new(watch::channel(0).0),
            analyses: Arc::new(watch::channel(0).0),
            resumed: Arc::default(),
            resigning: Arc::default(),
            public_url: None,
            changes: broadcast::channel(pages::CHANGES_KEPT).0,
        }
    }

    /// Runs CPU-heavy work (an engine search, a drawing) on the blocking pool, never on the
    /// async runtime, and at most one such job per core at a time: the rest wait their turn
    /// without holding a thread.
    ///
    /// # Errors
    /// `Internal` when the work panicked.
    async fn heavy<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, ServiceError> {
        let _permit = self.heavy.acquire().await.map_err(|e| internal(&e))?;
        tokio::task::spawn_blocking(work)
            .await
            .map_err(|e| internal(&e))
    }

    /// The same service with a per-user limit on chat commands (the chat bots have one; the
    /// console, where one person types for everyone, has none).
    #[must_use]
    pub fn with_rate_limit(mut self, limit: RateLimit) -> Service {
        self.limiter = Some(Arc::new(RateLimiter::new(limit)));
        self.completions = Some(Arc::new(RateLimiter::new(RateLimit::COMPLETIONS)));
        self
    }

    /// Counts one completion asked by `user` while typing against its own, more generous
    /// limit (an over-limit completion is answered with no choices).
    #[must_use]
    pub fn check_completion_rate(&self, user: &User) -> Verdict {
        self.completions
            .as_ref()
            .map_or(Verdict::Allowed, |limiter| {
                limiter.check(&user.platform, &user.id, self.now())
            })
    }

    /// Counts one chat command of `user` against the rate limit.
    #[must_use]
    pub fn check_rate(&self, user: &User) -> Verdict {
        self.limiter.as_ref().map_or(Verdict::Allowed, |limiter| {
            limiter.check(&user.platform, &user.id, self.now())
        })
    }

    /// Tells the service which account is the bot itself on `bot.platform` (an adapter learns
    /// it when it connects). A challenge to that account is a game against the built-in
    /// opponent.
    pub fn register_bot(&self, bot: &User) {
        self.bots
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(bot.platform.clone(), bot.clone());
    }

    /// The bot's own account on `platform`, once its adapter has registered it.
    #[must_use]
    pub fn bot(&self, platform: &str) -> Option<User> {
        self.bots
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(platform)
            .cloned()
    }

    /// Whether `user` is the bot itself.
    #[must_use]
    pub fn is_bot(&self, user: &User) -> bool {
        self.bot(&user.platform)
            .is_some_and(|bot| bot.id == user.id)
    }

    /// The database.
    #[must_use]
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The current time.
    #[must_use]
    pub fn now(&self) -> i64 {
        self.clock.now()
    }

    /// The stored player for a chat account, created on first sight.
    ///
    /// # Errors
    /// [`ServiceError::Internal`] when the database fails.
    pub async fn player(&self, user: &User) -> Result<PlayerRow, ServiceError> {
        Ok(self
            .store
            .player(&user.platform, &user.id, &user.name, self.now())
            .await?)
    }

    /// Records a chat event as handled; `false` when it already was (a duplicate delivery).
    ///
    /// # Errors
    /// [`ServiceError::Internal`] when the database fails.
    pub async fn first_delivery(
        &self,
        platform: &str,
        event_id: &str,
    ) -> Result<bool, ServiceError> {
        Ok(self
            .store
            .claim_event(platform, event_id, self.now())
            .await?)
    }

    /// Whether a chat event was handled already (read only: `first_delivery` records).
    ///
    /// # Errors
    /// [`ServiceError::Internal`] when the database fails.
    pub async fn handled(&self, platform: &str, event_id: &str) -> Result<bool, ServiceError> {
        Ok(self.store.event_claimed(platform, event_id).await?)
    }

    /// Loads a game and replays it from its start position, checking the stored position.
    ///
    /// # Errors
    /// [`ServiceError::NoSuchGame`], or `Internal` when the stored game does not replay.
    pub async fn load(&self, id: i64) -> Result<GameState, ServiceError> {
        let stored = self
            .store
            .stored_game(id, self.now())
            .await?
            .ok_or(ServiceError::NoSuchGame(id))?;
        self.replayed(stored)
    }

    /// A game's state from its row, players and moves, read together: replayed from its
    /// start position, the stored position checked.
    ///
    /// # Errors
    /// `Internal` when the stored game does not replay.
    pub(super) fn replayed(&self, stored: StoredGame) -> Result<GameState, ServiceError> {
        let StoredGame {
            row,
            white,
            black,
            moves,
            around,
        } = stored;
        let variant = Variant::from_name(&row.game_key).ok_or_else(|| {
            internal(&format!(
                "game #{} has unknown game {}",
                row.id, row.game_key
            ))
        })?;
        let rules = RuleSet::from_key(&row.rules)
            .and_then(|rules| GameRules::new(variant, rules).ok())
            .ok_or_else(|| {
                internal(&format!("game #{} has unknown rules {}", row.id, row.rules))
            })?;
        let start = rules
            .position(&row.start_position)
            .map_err(|e| internal(&format!("game #{} start: {e}", row.id)))?;
        let texts: Vec<&str> = moves.iter().map(|m| m.text.as_str()).collect();
        let record = Record::replay(start, &texts)
            .map_err(|e| internal(&format!("game #{}: {e}", row.id)))?;
        if record.moves().len() as i64 != row.ply || record.position().to_text() != row.position {
            return Err(internal(&format!(
                "game #{} does not match its moves",
                row.id
            )));
        }
        Ok(GameState {
            page: self.page_url(&row),
            row,
            variant,
            record,
            white,
            black,
            around,
        })
    }

    /// Moves a game to `place` (a thread opened for it), so that moves written there find it.
    ///
    /// # Errors
    /// [`ServiceError::NoSuchGame`], or `Internal` when the database fails.
    pub async fn move_game_to(&self, game_id: i64, place: &Place) -> Result<(), ServiceError> {
        let moved = self
            .store
            .set_game_channel(game_id, &place.channel, self.now())
            .await?;
        if moved {
            Ok(())
        } else {
            Err(ServiceError::NoSuchGame(game_id))
        }
    }

    /// Moves everything of a community (games, challenges, tournaments, ratings, settings) to
    /// another: a Matrix room replaced by its upgrade. The active games moved, by number.
    ///
    /// # Errors
    /// `Internal` when the database fails.
    pub async fn move_community(
        &self,
        platform: &str,
        from: &str,
        to: &str,
    ) -> Result<Vec<i64>, ServiceError> {
        Ok(self
            .store
            .move_community(platform, from, to, self.now())
            .await?)
    }

    /// Whether the games of `place`'s community get a thread each.
    ///
    /// # Errors
    /// `Internal` when the database fails.
    pub async fn threads_on(&self, place: &Place) -> Result<bool, ServiceError> {
        Ok(self
            .store
            .threads_on(&place.platform, &place.community)
            .await?)
    }

    /// Turns threads per game on or off for `place`'s community.
    ///
    /// # Errors
    /// `Internal` when the database fails.
    pub async fn set_threads(&self, place: &Place, on: bool) -> Result<(), ServiceError> {
        Ok(self
            .store
            .set_threads(&place.platform, &place.community, on)
            .await?)
    }

    async fn summarise_challenge(
        &self,
        row: ChallengeRow,
    ) -> Result<ChallengeSummary, ServiceError> {
        let variant = Variant::from_name(&row.game_key)
            .ok_or_else(|| internal(&format!("challenge #{} has unknown game", row.id)))?;
        let challenger = self
            .store
            .player_by_id(row.challenger_id)
            .await?
            .ok_or_else(|| internal(&"challenger missing"))?;
        let challenged = match row.challenged_id {
            Some(id) => self.store.player_by_id(id).await?,
            None => None,
        };
        Ok(ChallengeSummary {
            id: row.id,
            variant,
            challenger,
            challenged,
            days_per_move: row.days_per_move,
            color: ColorChoice::from_key(&row.color),
            expires_at: row.expires_at,
            status: row.status,
            rated: row.rated,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn heavy_work_runs_one_job_per_core_at_a_time() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let store = Store::open(&dir.path().join("heavy.db"))
            .await
            .expect("the database opens");
        let service = Service::new(store, Arc::new(ManualClock::new(0)));
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        let (running, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let jobs: Vec<_> = (0..cores * 4)
            .map(|_| {
                let (service, running, most) = (service.clone(), running.clone(), most.clone());
                tokio::spawn(async move {
                    service
                        .heavy(move || {
                            let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                            most.fetch_max(now, Ordering::SeqCst);
                            // Long enough for jobs to overlap if they were let through.
                            std::thread::sleep(Duration::from_millis(20));
                            running.fetch_sub(1, Ordering::SeqCst);
                        })
                        .await
                })
            })
            .collect();
        for job in jobs {
            job.await.expect("no panic").expect("the work runs");
        }
        let most = most.load(Ordering::SeqCst);
        assert!(
            most >= 1 && most <= cores,
            "{most} jobs at once on {cores} cores"
        );
    }
}
