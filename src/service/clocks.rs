//! The clocks: deadlines, reminders, expired challenges and bot moves that fell due.
//!
//! Each due item is handled on its own: what it changes and the notice that tells about it are
//! written in one transaction (the store's outbox), and a failure of one item is logged (the
//! game marked as needing attention when it is the game that is broken) without stopping the
//! others. Notices are then handed out for delivery and stay pending until the bot that sends
//! them reports them delivered: a notice that could not be sent is tried again at a later tick.

use tracing::{error, info, instrument, warn};

use super::games::{awaits_color, score};
use super::moves::MoveDone;
use super::reminders::{LONGEST_REMINDER, due_reminder, reminder_kind, waiting_player};
use super::tournaments::{RoundGames, Standings, TournamentInfo};
use super::{
    Analysed, ChallengeSummary, DAY, GameState, GameSummary, Place, Service, ServiceError, User,
    bot_side, reason_key,
};
use crate::rules::{EndReason, Outcome};
use crate::store::{ChallengeRow, GameRow, NOTICE_BATCH, NewNotice, NoticeRow};

/// How long processed chat events are remembered (duplicates arrive within minutes).
pub const EVENT_MEMORY: i64 = 7 * DAY;

/// Something the clock made happen, to be told in the game's channel.
#[derive(Debug, Clone)]
pub enum Notice {
    /// The player to move has this much time left.
    Reminder {
        place: Place,
        game: GameState,
        left: i64,
    },
    /// The player to move ran out of time and lost.
    Timeout { place: Place, game: GameState },
    /// The bot played a move that was due (after a restart, for instance).
    BotMoved { place: Place, done: Box<MoveDone> },
    /// Pigeon was not running when the player's deadline fell, so it moved on by `by`
    /// seconds, the length of the outage.
    DeadlineMoved {
        place: Place,
        game: GameState,
        by: i64,
    },
    /// A player's leave started: their clock stands still in this game while it is their
    /// move, until `until` at the latest.
    LeaveStarted {
        place: Place,
        game: GameState,
        player: String,
        until: i64,
    },
    /// A player's leave ended: their clock in this game goes on.
    LeaveEnded {
        place: Place,
        game: GameState,
        player: String,
    },
    /// The daily digest of a player: the games awaiting their move, for a direct message.
    Digest {
        player: User,
        player_id: i64,
        games: Vec<GameSummary>,
    },
    /// Nobody answered a challenge in time.
    ChallengeExpired {
        place: Place,
        challenge: ChallengeSummary,
    },
    /// A finished game was analysed.
    Analysed {
        place: Place,
        analysed: Box<Analysed>,
    },
    /// A tournament started or paired a round: its games (a round robin's all at once), with
    /// the standings before the round in a Swiss after round 1.
    TournamentRound {
        place: Place,
        tournament: Box<TournamentInfo>,
        pairings: Vec<RoundGames>,
        standings: Option<Box<Standings>>,
    },
    /// The daily standings of a round robin on a day games finished.
    TournamentStandings {
        place: Place,
        standings: Box<Standings>,
    },
    /// A tournament ended: the final standings and the winner.
    TournamentOver {
        place: Place,
        standings: Box<Standings>,
    },
    /// A tournament's start time came with too few players: it waits for its organiser.
    TournamentPostponed {
        place: Place,
        tournament: Box<TournamentInfo>,
    },
}

/// A notice handed out for delivery. The bot that sends it reports back with
/// [`Service::delivered`] or [`Service::not_delivered`]; until then it stays pending, and is
/// handed out again once its claim lapses.
#[derive(Debug, Clone)]
pub struct Pending {
    /// The notice's id in the outbox.
    pub id: i64,
    pub notice: Notice,
}

/// Whether the clocks would end a stored game at `now` (what [`Service::clock_game`] then
/// does with it): active, its deadline passed, not set aside for an operator's attention, as
/// `games_due` reads the games due.
pub(super) fn clocked_out(row: &GameRow, now: i64) -> bool {
    row.status == "active" && row.attention.is_none() && row.deadline.is_some_and(|d| d <= now)
}

/// Where a stored game is played, in its community.
#[must_use]
pub fn place_of(row: &GameRow) -> Place {
    Place::stored(&row.platform, &row.channel, row.community.as_deref())
}

pub(super) fn challenge_place(row: &ChallengeRow) -> Place {
    Place::stored(&row.platform, &row.channel, row.community.as_deref())
}

impl Service {
    /// Runs the clocks of every platform: plays due bot moves, expires old challenges, records
    /// each reminder once (24 hours and 1 hour before a deadline) and ends games whose time ran
    /// out as a loss for the player to move; then hands out every pending notice.
    ///
    /// # Errors
    /// [`ServiceError::CannotSave`] or `Internal` when the pending notices cannot be read;
    /// a failure of one due item is logged and does not stop the others.
    pub async fn tick(&self) -> Result<Vec<Pending>, ServiceError> {
        self.tick_on(None).await
    }

    /// Runs the clocks of one platform's games and challenges only, for a bot that runs beside
    /// other platforms' bots (`pigeon serve`): each takes only the notices it can deliver.
    ///
    /// # Errors
    /// As [`Service::tick`].
    pub async fn tick_platform(&self, platform: &str) -> Result<Vec<Pending>, ServiceError> {
        self.tick_on(Some(platform)).await
    }

    /// Reports a notice handed to its platform: it is never sent again.
    pub async fn delivered(&self, id: i64) {
        if let Err(error) = self.store.notice_delivered(id, self.now()).await {
            error!(notice = id, %error, "recording a delivered notice failed");
        }
    }

    /// Reports a notice the platform did not take: it is tried again at a later tick, and
    /// given up after a few attempts.
    pub async fn not_delivered(&self, id: i64) {
        match self.store.notice_failed(id, self.now(), false).await {
            Ok(true) => warn!(notice = id, "a notice could not be delivered; given up"),
            Ok(false) => info!(
                notice = id,
                "a notice could not be delivered; it will be retried"
            ),
            Err(error) => error!(notice = id, %error, "recording a failed notice failed"),
        }
    }

    #[instrument(skip_all, fields(platform = platform.unwrap_or("all")))]
    async fn tick_on(&self, platform: Option<&str>) -> Result<Vec<Pending>, ServiceError> {
        let now = self.now();
        if let Some(platform) = platform {
            // A platform's first run in this process also moves on the deadlines that fell
            // while it was not running; it must come before any deadline is acted on.
            self.heartbeat(platform, now).await?;
        }
        self.run_clocks(platform, now).await;
        self.pending_notices(platform, now).await
    }

    /// Ends every game of `platform` whose time has run out, before a command acts on all of
    /// a player's games (a leave): an action never lands after its deadline. Its players hear
    /// of it from the timers, which are woken; a failure is logged and left to the timers.
    pub(super) async fn settle_overdue(&self, platform: &str) {
        let now = self.now();
        if self.clock_games(now, Some(platform), now).await > 0 {
            self.wake_timers();
        }
    }

    /// Ends the games among `rows` (as read for a command) whose time has run out, as the
    /// clocks would, before the command acts on them: an action never lands after its
    /// deadline. Gives whether any had, so that the caller reads them again; their players
    /// hear of it from the timers, which are woken.
    pub(super) async fn settle_rows<'a>(
        &self,
        rows: impl IntoIterator<Item = &'a GameRow>,
    ) -> bool {
        let now = self.now();
        let overdue: Vec<&GameRow> = rows
            .into_iter()
            .filter(|row| clocked_out(row, now))
            .collect();
        if overdue.is_empty() {
            return false;
        }
        self.clock_rows(overdue, now).await;
        self.wake_timers();
        true
    }

    /// Records the reminder or the timeout of every game with a deadline until `until`, each
    /// on its own; gives how many there were.
    async fn clock_games(&self, until: i64, platform: Option<&str>, now: i64) -> usize {
        let rows = match self.store.games_due(until, platform).await {
            Ok(rows) => rows,
            Err(error) => {
                warn!(%error, "reading the games due failed");
                return 0;
            }
        };
        self.clock_rows(&rows, now).await;
        rows.len()
    }

    /// Records the reminder or the timeout each game is due for, each on its own.
    async fn clock_rows<'a>(&self, rows: impl IntoIterator<Item = &'a GameRow>, now: i64) {
        for row in rows {
            if let Err(error) = self.clock_game(row, now).await {
                self.trouble(row.id, &error).await;
            }
        }
    }

    /// Makes everything due happen, each item on its own.
    async fn run_clocks(&self, platform: Option<&str>, now: i64) {
        self.pending_bot_moves(platform).await;
        if let Err(error) = self.rate_pending().await {
            warn!(%error, "rating finished games failed");
        }
        if let Err(error) = self.store.expire_challenges(now, platform).await {
            warn!(%error, "expiring challenges failed");
        }
        self.run_conditionals().await;
        self.run_leaves(now).await;
        self.run_digests(platform, now).await;
        self.clock_games(now + LONGEST_REMINDER, platform, now)
            .await;
        // After the games' clocks: a game that just timed out may end a round.
        self.run_tournaments(platform, now).await;
        if let Err(error) = self.store.prune_events(now - EVENT_MEMORY).await {
            warn!(%error, "forgetting old chat events failed");
        }
    }

    /// Logs a failure of one game's clock; when it is the game itself that is broken (not the
    /// database being unavailable for a while), marks it as needing attention so that the
    /// clocks skip it from now on.
    pub(super) async fn trouble(&self, game: i64, error: &ServiceError) {
        if matches!(error, ServiceError::CannotSave) {
            warn!(game, "the database is unavailable; the game's clock waits");
            return;
        }
        error!(game, %error, "a game's clock failed; the game is marked as needing attention");
        if let Err(error) = self.store.mark_attention(game, &error.to_string()).await {
            error!(game, %error, "marking the game failed");
        }
    }

    /// Records the reminder or the timeout one game is due for.
    async fn clock_game(&self, row: &GameRow, now: i64) -> Result<(), ServiceError> {
        let Some(deadline) = row.deadline else {
            return Ok(());
        };
        if bot_side(row).is_some_and(|bot| awaits_color(row) == Some(bot)) {
            return Ok(()); // the bot has no clock
        }
        let left = deadline - now;
        let notice = |kind| NewNotice {
            platform: &row.platform,
            kind,
            game_id: Some(row.id),
            challenge_id: None,
            ply: Some(row.ply),
            left: Some(left),
            now,
        };
        if left > 0 {
            let Some(player) = waiting_player(row) else {
                return Ok(());
            };
            let times = self.reminders_of(player).await?;
            if let Some(before) = due_reminder(&times, left, row.days_per_move * DAY) {
                let kind = reminder_kind(before);
                self.store
                    .claim_reminder(&notice("reminder"), &kind)
                    .await?;
            }
            return Ok(());
        }
        let state = self.load(row.id).await?;
        let outcome = Outcome::win(state.turn().other(), EndReason::Timeout);
        let timeout = notice("timeout");
        match self
            .finish_with(state, Some(outcome), EndReason::Timeout, Some(&timeout))
            .await
        {
            Ok(_) | Err(ServiceError::Changed) => Ok(()), // or a move arrived just in time
            Err(other) => Err(other),
        }
    }

    /// Takes the pending notices and builds each; one that can no longer be built is logged
    /// and given up, one that has nothing left to say (a reminder for a move already made) is
    /// closed quietly.
    async fn pending_notices(
        &self,
        platform: Option<&str>,
        now: i64,
    ) -> Result<Vec<Pending>, ServiceError> {
        let mut pending = Vec::new();
        let rows = self.store.claim_notices(platform, now).await?;
        if i64::try_from(rows.len()).is_ok_and(|n| n >= NOTICE_BATCH) {
            // More may wait: the timers run again as soon as this batch is delivered.
            self.wake_timers();
        }
        for row in rows {
            match self.build_notice(&row, now).await {
                Ok(Some(notice)) => pending.push(Pending { id: row.id, notice }),
                Ok(None) => self.delivered(row.id).await,
                Err(ServiceError::CannotSave) => {}
                Err(error) => {
                    error!(notice = row.id, %error, "a notice could not be built; given up");
                    if let Err(error) = self.store.notice_failed(row.id, now, true).await {
                        error!(notice = row.id, %error, "recording a failed notice failed");
                    }
                    if let Some(game) = row.game_id {
                        self.trouble(game, &error).await;
                    }
                }
            }
        }
        Ok(pending)
    }

    async fn build_notice(
        &self,
        row: &NoticeRow,
        now: i64,
    ) -> Result<Option<Notice>, ServiceError> {
        if row.kind == "challenge_expired" {
            let Some(id) = row.challenge_id else {
                return Ok(None);
            };
            let Some(challenge) = self.store.challenge(id).await? else {
                return Ok(None);
            };
            let place = challenge_place(&challenge);
            let challenge = self.summarise_challenge(challenge).await?;
            return Ok(Some(Notice::ChallengeExpired { place, challenge }));
        }
        if row.kind == "digest" {
            return self.digest_notice(row).await;
        }
        if row.kind == "analysed" {
            return self.analysed_notice(row).await;
        }
        if row.kind.starts_with("tournament_") {
            return self.tournament_notice(row).await;
        }
        let Some(id) = row.game_id else {
            return Ok(None);
        };
        let game = self.load(id).await?;
        if row.kind == "deadline_moved" {
            let by = row.left_secs.unwrap_or(0);
            let place = place_of(&game.row);
            let current = game.is_active() && Some(game.row.ply) == row.ply;
            return Ok(current.then_some(Notice::DeadlineMoved { place, game, by }));
        }
        if row.kind.starts_with("leave_") {
            return self.leave_notice(row, game).await;
        }
        let place = place_of(&game.row);
        let ply = row.ply.unwrap_or(game.row.ply);
        Ok(match row.kind.as_str() {
            "reminder" => {
                let left = game.row.deadline.map_or(0, |deadline| deadline - now);
                (game.is_active() && game.row.ply == ply && left > 0).then_some(Notice::Reminder {
                    place,
                    game,
                    left,
                })
            }
            "timeout" => Some(Notice::Timeout { place, game }),
            "bot_move" => usize::try_from(ply)
                .ok()
                .and_then(|ply| MoveDone::at(game, ply))
                .map(|done| Notice::BotMoved {
                    place,
                    done: Box::new(done),
                }),
            _ => None,
        })
    }

    /// Ends a game off the board and returns it as stored, with a notice of the end recorded
    /// in the same transaction when one is given (a game the clock ended).
    pub(super) async fn finish_with(
        &self,
        mut state: GameState,
        outcome: Option<Outcome>,
        reason: EndReason,
        notice: Option<&NewNotice<'_>>,
    ) -> Result<GameState, ServiceError> {
        // Time runs out at the deadline, however late the clocks noticed.
        let now = match (reason, state.row.deadline) {
            (EndReason::Timeout, Some(deadline)) => deadline.min(self.now()),
            _ => self.now(),
        };
        let result = outcome.map(score);
        let key = reason_key(reason);
        self.store
            .finish_game(state.row.id, state.row.ply, result, key, now, notice)
            .await?;
        if let Some(outcome) = outcome {
            state.record.finish(outcome);
        }
        info!(game = state.row.id, reason = key, "game ended");
        if state.row.rated {
            self.rate_finished(state.row.id).await;
        }
        let row = &mut state.row;
        row.status = String::from("finished");
        row.result = result.map(str::to_owned);
        row.end_reason = Some(key.to_owned());
        row.finished_at = Some(now);
        row.deadline = None;
        row.draw_offer = None;
        self.publish(&state);
        self.tournament_game_ended(&state.row);
        Ok(state)
    }

    /// A tournament game ended: the timers look at its tournament now (a Swiss round that
    /// ended is paired, a round robin that ended is over) rather than at their next turn.
    pub(super) fn tournament_game_ended(&self, row: &GameRow) {
        if row.tournament_id.is_some() {
            self.wake_timers();
        }
    }
}
