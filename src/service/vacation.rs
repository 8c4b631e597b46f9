//! Leave (vacation): while a player is on leave, the clocks of their games where it is their
//! move stand still, and go on with the time that was left when the leave ends (early with
//! `vacation end`, or by itself through the clocks). Each player has an allowance of days
//! per calendar year (UTC), counted to the hour; a community's managers may change it.
//!
//! A leave cannot save a game whose deadline has passed: overdue games are ended first. The
//! opponents are told once, in each game's place, when a leave starts and when it ends.

use jiff::Timestamp;
use jiff::civil::date;
use jiff::tz::TimeZone;
use tracing::{info, instrument, warn};

use super::clocks::place_of;
use super::games::awaits;
use super::{DAY, GameState, HOUR, Notice, Place, Service, ServiceError, User};
use crate::store::{GameRow, LeaveRow, NewNotice, NoticeRow, StoreError};

/// Days of leave per calendar year when a community has not said otherwise.
pub const LEAVE_DAYS: i64 = 30;
/// The most days of leave a community may allow per year.
pub const MOST_LEAVE_DAYS: i64 = 366;
/// The shortest leave.
pub const SHORTEST_LEAVE: i64 = DAY;

/// What `vacation` asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LeaveRequest {
    /// The running leave and the days left.
    Show,
    /// A leave of this many seconds, from now.
    Start(i64),
    /// The end of the running leave, now.
    End,
    /// The community's allowance, in days per calendar year (managers only).
    Allowance(i64),
}

/// A player's leave as they see it: the running one, and the allowance of this year.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LeaveStatus {
    /// The leave running now, if any.
    pub current: Option<LeaveRow>,
    /// The allowance per calendar year, in days.
    pub allowance: i64,
    /// Seconds of leave taken (or planned by the running leave) this calendar year, whole
    /// hours.
    pub used: i64,
}

impl LeaveStatus {
    /// Seconds of leave left this year.
    #[must_use]
    pub fn left(&self) -> i64 {
        (self.allowance * DAY - self.used).max(0)
    }
}

/// The bounds of the UTC calendar year holding `now`: its first second and the first of the
/// next year.
fn year_of(now: i64) -> (i64, i64) {
    let year =
        Timestamp::from_second(now).map_or(1970, |t| t.to_zoned_datetime(TimeZone::UTC).year());
    let start = |year: i16| {
        date(year, 1, 1)
            .to_zoned_datetime(TimeZone::UTC)
            .map_or(0, |z| z.timestamp().as_second())
    };
    (start(year), start(year.saturating_add(1)))
}

/// Seconds of the leaves inside the year `(from, until)`, each rounded up to whole hours.
fn used_in(leaves: &[LeaveRow], (from, until): (i64, i64)) -> i64 {
    leaves
        .iter()
        .map(|leave| {
            let inside = leave.end().min(until) - leave.started_at.max(from);
            if inside <= 0 {
                0
            } else {
                (inside + HOUR - 1) / HOUR * HOUR
            }
        })
        .sum()
}

impl Service {
    /// A player's leave: the running one and what is left of this year's allowance in the
    /// community of `place`.
    ///
    /// # Errors
    /// `Internal` when the database fails.
    pub async fn leave(&self, place: &Place, user: &User) -> Result<LeaveStatus, ServiceError> {
        let me = self.player(user).await?;
        self.leave_of(place, me.id).await
    }

    async fn leave_of(&self, place: &Place, player_id: i64) -> Result<LeaveStatus, ServiceError> {
        let now = self.now();
        let year = year_of(now);
        let leaves = self.store.leaves_of(player_id, year.0).await?;
        let current = leaves
            .iter()
            .find(|leave| leave.ended_at.is_none() && leave.started_at <= now)
            .cloned();
        Ok(LeaveStatus {
            current,
            allowance: self.leave_days(place).await?,
            used: used_in(&leaves, year),
        })
    }

    /// When the leave of `user` ends, while they are on leave.
    ///
    /// # Errors
    /// `Internal` when the database fails.
    pub async fn leave_until(&self, user: &User) -> Result<Option<i64>, ServiceError> {
        let Some(player) = self
            .store
            .player_by_platform_id(&user.platform, &user.id)
            .await?
        else {
            return Ok(None);
        };
        Ok(self.on_leave(player.id).await?.map(|leave| leave.ends_at))
    }

    /// The time left on a game's clock while it stands still for a leave, if it does.
    ///
    /// # Errors
    /// `Internal` when the database fails.
    pub async fn frozen_left(&self, state: &GameState) -> Result<Option<i64>, ServiceError> {
        if !state.is_active() || state.row.deadline.is_some() {
            return Ok(None);
        }
        Ok(self.store.frozen_clock(state.row.id).await?)
    }

    /// The running leave of a player, if any.
    pub(super) async fn on_leave(&self, player_id: i64) -> Result<Option<LeaveRow>, ServiceError> {
        let now = self.now();
        Ok(self
            .store
            .leaves_of(player_id, now)
            .await?
            .into_iter()
            .find(|leave| leave.ended_at.is_none() && leave.started_at <= now))
    }

    /// The leave allowance of `place`'s community, in days per calendar year.
    ///
    /// # Errors
    /// `Internal` when the database fails.
    pub async fn leave_days(&self, place: &Place) -> Result<i64, ServiceError> {
        Ok(self
            .store
            .leave_days(&place.platform, &place.community)
            .await?
            .unwrap_or(LEAVE_DAYS))
    }

    /// Sets the leave allowance of `place`'s community (the caller checks that the user may).
    ///
    /// # Errors
    /// [`ServiceError::BadLeaveDays`] out of range; `Internal` when the database fails.
    pub async fn set_leave_days(&self, place: &Place, days: i64) -> Result<i64, ServiceError> {
        if !(0..=MOST_LEAVE_DAYS).contains(&days) {
            return Err(ServiceError::BadLeaveDays);
        }
        self.store
            .set_leave_days(&place.platform, &place.community, days)
            .await?;
        Ok(days)
    }

    /// Starts a leave of `length` seconds for `user` now: the clocks of their games where it
    /// is their move stand still until it ends.
    ///
    /// # Errors
    /// Shorter than a day, longer than the allowance left, already on leave, or the database
    /// failing.
    #[instrument(skip_all, fields(platform = %place.platform))]
    pub async fn start_leave(
        &self,
        place: &Place,
        user: &User,
        length: i64,
    ) -> Result<LeaveStatus, ServiceError> {
        if length < SHORTEST_LEAVE {
            return Err(ServiceError::LeaveTooShort);
        }
        let me = self.player(user).await?;
        // A deadline that passed before the leave ends its game first.
        self.settle_overdue(&place.platform).await;
        let status = self.leave_of(place, me.id).await?;
        if let Some(current) = &status.current {
            return Err(ServiceError::OnLeaveAlready {
                until: current.ends_at,
            });
        }
        let rounded = (length + HOUR - 1) / HOUR * HOUR;
        if rounded > status.left() {
            return Err(ServiceError::NotEnoughLeave {
                left: status.left(),
                allowance: status.allowance,
            });
        }
        let now = self.now();
        let ends_at = now + length;
        let games = self.people_games(me.id).await?;
        let notices: Vec<NewNotice<'_>> = games
            .iter()
            .map(|row| leave_notice(row, "leave_started", Some(ends_at), now))
            .collect();
        let leave = match self.store.start_leave(me.id, now, ends_at, &notices).await {
            Err(StoreError::Conflict) => {
                return Err(ServiceError::OnLeaveAlready { until: ends_at });
            }
            other => other?,
        };
        info!(player = me.id, until = ends_at, "leave started");
        for row in &games {
            self.freeze_if_waiting(row, me.id).await;
        }
        self.wake_timers();
        self.leave_of(place, me.id).await.map(|status| LeaveStatus {
            current: status.current.or(Some(leave)),
            ..status
        })
    }

    /// Ends the running leave of `user` now; gives their leave as it is afterwards.
    ///
    /// # Errors
    /// [`ServiceError::NotOnLeave`], or the database failing.
    #[instrument(skip_all, fields(platform = %place.platform))]
    pub async fn end_leave(&self, place: &Place, user: &User) -> Result<LeaveStatus, ServiceError> {
        let me = self.player(user).await?;
        let current = self
            .on_leave(me.id)
            .await?
            .ok_or(ServiceError::NotOnLeave)?;
        self.finish_leave(&current).await?;
        self.leave_of(place, me.id).await
    }

    /// Ends a leave once (another process may have ended it already), starting the player's
    /// clocks again and telling the opponents.
    async fn finish_leave(&self, leave: &LeaveRow) -> Result<bool, ServiceError> {
        let now = self.now();
        let games = self.people_games(leave.player_id).await?;
        let notices: Vec<NewNotice<'_>> = games
            .iter()
            .map(|row| leave_notice(row, "leave_ended", None, now))
            .collect();
        let ended = self.store.end_leave(leave.id, now, &notices).await?;
        if ended.is_some() {
            info!(player = leave.player_id, "leave ended");
            self.wake_timers();
        }
        Ok(ended.is_some())
    }

    /// The active games of a player against people.
    async fn people_games(&self, player_id: i64) -> Result<Vec<GameRow>, ServiceError> {
        Ok(self
            .store
            .games_of(player_id, i64::MAX)
            .await?
            .into_iter()
            .filter(|row| row.status == "active" && super::bot_side(row).is_none())
            .collect())
    }

    /// Stops the clock of a game that waits for `player_id`, on leave; a game that changed
    /// meanwhile is left as it is. `true` when the clock stopped.
    async fn freeze_if_waiting(&self, row: &GameRow, player_id: i64) -> bool {
        let Some(deadline) = row.deadline else {
            return false;
        };
        let now = self.now();
        if row.status != "active" || !awaits(row, player_id) || deadline <= now {
            return false;
        }
        match self
            .store
            .freeze_clock(row.id, row.ply, deadline, player_id, now)
            .await
        {
            Ok(()) => true,
            Err(StoreError::Conflict) => false,
            Err(error) => {
                warn!(game = row.id, %error, "stopping a clock for leave failed");
                false
            }
        }
    }

    /// After a move: when the player now to move is on leave, their clock stands still.
    ///
    /// Whether they are is known from when the game was read for the move. A leave that
    /// starts between that read and the move's write finds the game still waiting for the
    /// mover, so neither stops the clock then; the clocks' next pass does
    /// ([`Service::run_leaves`]).
    pub(super) async fn hold_for_leave(&self, state: &mut GameState) {
        let Some(player) = state.to_move().map(|p| p.id) else {
            return;
        };
        if state.on_leave(player) && self.freeze_if_waiting(&state.row, player).await {
            state.row.deadline = None;
        }
    }

    /// The clocks' part of leave: ends the leaves that are over, and stops the clocks that
    /// wait for a player on leave and still run (a move arrived while the process stopped).
    pub(super) async fn run_leaves(&self, now: i64) {
        let leaves = match self.store.running_leaves().await {
            Ok(leaves) => leaves,
            Err(error) => {
                warn!(%error, "reading the leaves failed");
                return;
            }
        };
        for leave in leaves {
            if leave.ends_at <= now {
                if let Err(error) = self.finish_leave(&leave).await {
                    warn!(player = leave.player_id, %error, "ending a leave failed");
                }
                continue;
            }
            match self.people_games(leave.player_id).await {
                Ok(games) => {
                    for row in &games {
                        self.freeze_if_waiting(row, leave.player_id).await;
                    }
                }
                Err(error) => warn!(player = leave.player_id, %error, "reading games failed"),
            }
        }
    }

    /// The first end of a running leave after `after`.
    pub(super) async fn next_leave_end(&self, after: i64) -> Result<Option<i64>, ServiceError> {
        Ok(self
            .store
            .running_leaves()
            .await?
            .into_iter()
            .map(|leave| leave.ends_at)
            .filter(|&end| end > after)
            .min())
    }

    /// Builds a leave notice: `None` when the game is gone.
    pub(super) async fn leave_notice(
        &self,
        row: &NoticeRow,
        game: GameState,
    ) -> Result<Option<Notice>, ServiceError> {
        let Some(player) = self.store.notice_player(row.id).await? else {
            return Ok(None);
        };
        let name = self.name_of(player).await?;
        let place = place_of(&game.row);
        Ok(Some(match row.left_secs {
            Some(until) if row.kind == "leave_started" => Notice::LeaveStarted {
                place,
                game,
                player: name,
                until,
            },
            _ => Notice::LeaveEnded {
                place,
                game,
                player: name,
            },
        }))
    }
}

/// The notice of a leave starting (`until` its end) or ending, in a game's place.
fn leave_notice<'a>(
    row: &'a GameRow,
    kind: &'a str,
    until: Option<i64>,
    now: i64,
) -> NewNotice<'a> {
    NewNotice {
        platform: &row.platform,
        kind,
        game_id: Some(row.id),
        challenge_id: None,
        ply: Some(row.ply),
        left: until,
        now,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn years_are_utc_calendar_years() {
        // 2026-01-01 09:00 UTC
        let (from, until) = year_of(1_767_258_000);
        assert_eq!(from, 1_767_225_600);
        assert_eq!(until - from, 365 * DAY);
    }

    #[test]
    fn leave_is_counted_to_the_hour_inside_the_year() {
        let leave = |started_at, end| LeaveRow {
            id: 1,
            player_id: 1,
            started_at,
            ends_at: end,
            ended_at: None,
        };
        let year = (1_000 * DAY, 1_365 * DAY);
        assert_eq!(used_in(&[leave(1_010 * DAY, 1_010 * DAY + 61)], year), HOUR);
        assert_eq!(
            used_in(&[leave(999 * DAY, 1_002 * DAY + HOUR)], year),
            2 * DAY + HOUR
        );
        assert_eq!(used_in(&[leave(1_366 * DAY, 1_367 * DAY)], year), 0);
    }
}
