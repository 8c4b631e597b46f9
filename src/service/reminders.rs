//! Reminders before a deadline, at the times each player chose (`settings reminders 24h 4h
//! 1h`; by default a day and an hour before). Each is sent once per move: it is claimed by its
//! key (game, ply, time). A reminder is sent only when the time per move is longer than it,
//! and a process that was not running sends only the latest one that fell due meanwhile.

use super::games::awaits_color;
use super::{DAY, HOUR, Service, ServiceError, User};
use crate::rules::Color;
use crate::store::GameRow;

/// The reminders of a player who never chose: a day and an hour before the deadline.
pub const DEFAULT_REMINDERS: [i64; 2] = [DAY, HOUR];
/// The most reminders a player may choose.
pub const MOST_REMINDERS: usize = 5;
/// The earliest reminder: a week before the deadline.
pub const LONGEST_REMINDER: i64 = 7 * DAY;
/// The latest reminder: a minute before the deadline.
pub const SHORTEST_REMINDER: i64 = 60;

/// The claim key of a reminder given so long before the deadline (the day and hour reminders
/// keep the keys they always had).
pub(super) fn reminder_kind(before: i64) -> String {
    match before {
        DAY => String::from("day"),
        HOUR => String::from("hour"),
        other => format!("{other}s"),
    }
}

/// The reminder due with `left` seconds to go in a game of `full` seconds per move: the
/// latest of the chosen times that has come (an earlier one missed meanwhile is not sent).
pub(super) fn due_reminder(times: &[i64], left: i64, full: i64) -> Option<i64> {
    times
        .iter()
        .copied()
        .filter(|&before| before < full && left <= before)
        .min()
}

/// The first moment after `after` at which one of `times` falls due before `deadline`.
pub(super) fn next_reminder(times: &[i64], deadline: i64, full: i64, after: i64) -> Option<i64> {
    times
        .iter()
        .filter(|&&before| before < full)
        .map(|before| deadline - before)
        .filter(|&at| at > after)
        .min()
}

/// Reads stored reminder times (seconds, separated by spaces); `None` stored means the default.
fn stored_times(stored: Option<&str>) -> Vec<i64> {
    stored.map_or_else(
        || DEFAULT_REMINDERS.to_vec(),
        |text| {
            text.split_whitespace()
                .filter_map(|word| word.parse().ok())
                .collect()
        },
    )
}

/// The player a stored game waits for.
pub(super) fn waiting_player(row: &GameRow) -> Option<i64> {
    match awaits_color(row)? {
        Color::White => Some(row.white_id),
        Color::Black => Some(row.black_id),
    }
}

impl Service {
    /// A player's reminder times, in seconds before a deadline, earliest first.
    ///
    /// # Errors
    /// `Internal` when the database fails.
    pub async fn reminders(&self, user: &User) -> Result<Vec<i64>, ServiceError> {
        let me = self.player(user).await?;
        self.reminders_of(me.id).await
    }

    pub(super) async fn reminders_of(&self, player_id: i64) -> Result<Vec<i64>, ServiceError> {
        let stored = self.store.reminder_times(player_id).await?;
        Ok(stored_times(stored.as_deref()))
    }

    /// Sets a player's reminder times (none: no reminders); gives them as stored.
    ///
    /// # Errors
    /// [`ServiceError::BadReminders`] for too many or out of range; `Internal` when the
    /// database fails.
    pub async fn set_reminders(
        &self,
        user: &User,
        times: &[i64],
    ) -> Result<Vec<i64>, ServiceError> {
        let mut times = times.to_vec();
        times.sort_unstable_by(|a, b| b.cmp(a));
        times.dedup();
        let in_range = times
            .iter()
            .all(|t| (SHORTEST_REMINDER..=LONGEST_REMINDER).contains(t));
        if times.len() > MOST_REMINDERS || !in_range {
            return Err(ServiceError::BadReminders);
        }
        let me = self.player(user).await?;
        let text = times
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" ");
        self.store.set_reminder_times(me.id, &text).await?;
        Ok(times)
    }

    /// The first reminder after `after` of the games of `platform`, at their players' times.
    pub(super) async fn next_reminder(
        &self,
        platform: &str,
        after: i64,
    ) -> Result<Option<i64>, ServiceError> {
        let mut first: Option<i64> = None;
        for row in self.store.games_due(i64::MAX, Some(platform)).await? {
            let (Some(deadline), Some(player)) = (row.deadline, waiting_player(&row)) else {
                continue;
            };
            if super::bot_side(&row).is_some_and(|bot| awaits_color(&row) == Some(bot)) {
                continue;
            }
            let times = self.reminders_of(player).await?;
            let full = row.days_per_move * DAY;
            if let Some(at) = next_reminder(&times, deadline, full, after) {
                first = Some(first.map_or(at, |f| f.min(at)));
            }
        }
        Ok(first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latest_reminder_that_came_is_due() {
        let times = [DAY, 4 * HOUR, HOUR];
        assert_eq!(due_reminder(&times, 2 * DAY, 3 * DAY), None);
        assert_eq!(due_reminder(&times, 23 * HOUR, 3 * DAY), Some(DAY));
        assert_eq!(due_reminder(&times, 3 * HOUR, 3 * DAY), Some(4 * HOUR));
        assert_eq!(due_reminder(&times, 30 * 60, 3 * DAY), Some(HOUR));
        // A day-long game has no day reminder.
        assert_eq!(due_reminder(&times, 23 * HOUR, DAY), None);
    }

    #[test]
    fn the_next_reminder_is_the_first_after_now() {
        let times = [DAY, 4 * HOUR, HOUR];
        let deadline = 10 * DAY;
        assert_eq!(
            next_reminder(&times, deadline, 3 * DAY, 0),
            Some(deadline - DAY)
        );
        assert_eq!(
            next_reminder(&times, deadline, 3 * DAY, deadline - DAY),
            Some(deadline - 4 * HOUR)
        );
        assert_eq!(next_reminder(&times, deadline, 3 * DAY, deadline), None);
    }

    #[test]
    fn stored_reminders_read_back() {
        assert_eq!(stored_times(None), DEFAULT_REMINDERS);
        assert_eq!(stored_times(Some("")), Vec::<i64>::new());
        assert_eq!(stored_times(Some("86400 14400")), [DAY, 4 * HOUR]);
        assert_eq!(reminder_kind(DAY), "day");
        assert_eq!(reminder_kind(4 * HOUR), "14400s");
    }
}
