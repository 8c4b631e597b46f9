//! The daily digest: once a day at a local time the player chose (`settings digest 08:00
//! Europe/Berlin`), a direct message listing every game awaiting their move. Nothing is sent
//! when nothing waits. The next digest's time is stored, and moving it on is the claim (in
//! the transaction that records the digest), so each local day gets one digest however many
//! processes run and however long one was stopped. Local times follow the time zone's rules
//! (the `jiff` crate with its own copy of the IANA database): a time skipped when clocks go
//! forward is read as the same time after the change, and a time that comes twice when they go
//! back counts once.

use jiff::civil::Time;
use jiff::tz::TimeZone;
use jiff::{Timestamp, ToSpan};
use tracing::{info, warn};

use super::games::awaits;
use super::{GameSummary, Notice, Service, ServiceError, User};
use crate::store::{DigestRow, GameRow, NewNotice, NoticeRow};

/// What `settings digest` asks.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum DigestRequest {
    /// The digest as set.
    Show,
    /// No digest.
    Off,
    /// A digest every day at `time` (`HH:MM`) in the IANA time zone `zone`.
    At { time: String, zone: String },
}

/// A player's digest: its local time, time zone and next time.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Digest {
    /// `HH:MM`.
    pub time: String,
    /// The IANA time zone.
    pub zone: String,
    /// When it is next due.
    pub next: i64,
}

/// Reads `HH:MM` (or `H:MM`, `HH`, `8am`-free 24-hour times).
fn read_time(text: &str) -> Option<Time> {
    let (hours, minutes) = text.split_once(':').unwrap_or((text, "0"));
    let hours: i8 = hours.parse().ok()?;
    let minutes: i8 = minutes.parse().ok()?;
    Time::new(hours, minutes, 0, 0).ok()
}

/// The first moment strictly after `after` at which the local clock of `zone` shows `time`.
/// A time skipped by a change to summer time is read as the same time after the change; a
/// time shown twice by the change back is its first showing.
pub(super) fn next_at(time: Time, zone: &TimeZone, after: i64) -> Option<i64> {
    let now = Timestamp::from_second(after)
        .ok()?
        .to_zoned_datetime(zone.clone());
    let mut day = now.date();
    for _ in 0..3 {
        let at = day.to_datetime(time).to_zoned_datetime(zone.clone()).ok()?;
        let at = at.timestamp().as_second();
        if at > after {
            return Some(at);
        }
        day = day.checked_add(1.day()).ok()?;
    }
    None
}

/// The next time a stored digest falls due after `after`.
fn next_of(time: &str, zone: &str, after: i64) -> Option<i64> {
    next_at(read_time(time)?, &TimeZone::get(zone).ok()?, after)
}

impl Service {
    /// The digest of `user`, if they have one.
    ///
    /// # Errors
    /// `Internal` when the database fails.
    pub async fn digest(&self, user: &User) -> Result<Option<Digest>, ServiceError> {
        let me = self.player(user).await?;
        Ok(self.store.digest(me.id).await?.map(|row| Digest {
            time: row.digest_time,
            zone: row.digest_zone,
            next: row.digest_next,
        }))
    }

    /// Sets or stops the digest of `user`; gives it as it is afterwards.
    ///
    /// # Errors
    /// [`ServiceError::BadDigestTime`], [`ServiceError::UnknownTimeZone`], or the database
    /// failing.
    pub async fn set_digest(
        &self,
        user: &User,
        request: &DigestRequest,
    ) -> Result<Option<Digest>, ServiceError> {
        let me = self.player(user).await?;
        match request {
            DigestRequest::Show => {}
            DigestRequest::Off => self.store.set_digest(me.id, None).await?,
            DigestRequest::At { time, zone } => {
                let at = read_time(time).ok_or(ServiceError::BadDigestTime)?;
                let tz = TimeZone::get(zone).map_err(|_| ServiceError::UnknownTimeZone)?;
                let time = format!("{:02}:{:02}", at.hour(), at.minute());
                // The zone's own spelling (`europe/berlin` is `Europe/Berlin`).
                let zone = tz.iana_name().unwrap_or(zone).to_owned();
                let next = next_at(at, &tz, self.now()).ok_or(ServiceError::BadDigestTime)?;
                let row = DigestRow {
                    player_id: me.id,
                    digest_time: time,
                    digest_zone: zone,
                    digest_next: next,
                };
                self.store.set_digest(me.id, Some(&row)).await?;
            }
        }
        self.digest(user).await
    }

    /// The games of a player that await their move.
    async fn awaiting(&self, player_id: i64) -> Result<Vec<GameRow>, ServiceError> {
        Ok(self
            .store
            .games_of(player_id, i64::MAX)
            .await?
            .into_iter()
            .filter(|row| row.status == "active" && awaits(row, player_id))
            .collect())
    }

    /// The clocks' part of the digest: each digest due is claimed by moving its time on to
    /// the next day, with its notice when games wait, in one transaction.
    pub(super) async fn run_digests(&self, platform: Option<&str>, now: i64) {
        let due = match self.store.digests_due(now, platform).await {
            Ok(due) => due,
            Err(error) => {
                warn!(%error, "reading the digests due failed");
                return;
            }
        };
        for row in due {
            if let Err(error) = self.claim_digest(&row, now).await {
                warn!(player = row.player_id, %error, "a digest failed");
            }
        }
    }

    async fn claim_digest(&self, row: &DigestRow, now: i64) -> Result<(), ServiceError> {
        let Some(player) = self.store.player_by_id(row.player_id).await? else {
            return Ok(());
        };
        let next = next_of(&row.digest_time, &row.digest_zone, now);
        let waiting = !self.awaiting(player.id).await?.is_empty();
        let notice = waiting.then(|| NewNotice {
            platform: &player.platform,
            kind: "digest",
            game_id: None,
            challenge_id: None,
            ply: None,
            left: None,
            now,
        });
        let claimed = self
            .store
            .claim_digest(player.id, row.digest_next, next, notice.as_ref())
            .await?;
        if claimed {
            info!(player = player.id, sent = waiting, "digest");
        }
        Ok(())
    }

    /// The first digest due after `after` on `platform`.
    pub(super) async fn next_digest(
        &self,
        platform: &str,
        after: i64,
    ) -> Result<Option<i64>, ServiceError> {
        Ok(self.store.next_digest(platform, after).await?)
    }

    /// Builds a digest notice: the games awaiting the player now (`None` when none does
    /// any more).
    pub(super) async fn digest_notice(
        &self,
        row: &NoticeRow,
    ) -> Result<Option<Notice>, ServiceError> {
        let Some(player_id) = self.store.notice_player(row.id).await? else {
            return Ok(None);
        };
        let Some(player) = self.store.player_by_id(player_id).await? else {
            return Ok(None);
        };
        let games: Vec<GameSummary> = self.summaries(&self.awaiting(player_id).await?).await?;
        if games.is_empty() {
            return Ok(None);
        }
        Ok(Some(Notice::Digest {
            player: User::new(&player.platform, &player.platform_id, &player.display_name),
            player_id,
            games,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn berlin() -> TimeZone {
        TimeZone::get("Europe/Berlin").expect("the bundled database knows Berlin")
    }

    fn at(text: &str) -> i64 {
        text.parse::<Timestamp>().expect("a time").as_second()
    }

    #[test]
    fn the_digest_follows_local_time_across_daylight_saving() {
        let eight = Time::new(8, 0, 0, 0).expect("a time");
        // Winter: 08:00 in Berlin is 07:00 UTC.
        assert_eq!(
            next_at(eight, &berlin(), at("2026-03-28T07:00:00Z")),
            Some(at("2026-03-29T06:00:00Z")),
            "the day clocks go forward, 08:00 is 06:00 UTC"
        );
        assert_eq!(
            next_at(eight, &berlin(), at("2026-10-24T06:00:00Z")),
            Some(at("2026-10-25T07:00:00Z")),
            "the day clocks go back, 08:00 is 07:00 UTC"
        );
    }

    #[test]
    fn skipped_and_repeated_times_come_once_a_day() {
        let half_two = Time::new(2, 30, 0, 0).expect("a time");
        // 02:30 does not exist in Berlin on 2026-03-29: it is read as 03:30 summer time.
        let skipped = next_at(half_two, &berlin(), at("2026-03-28T12:00:00Z"));
        assert_eq!(skipped, Some(at("2026-03-29T01:30:00Z")));
        // 02:30 comes twice on 2026-10-25: the first one, then the next day's.
        let first = next_at(half_two, &berlin(), at("2026-10-24T12:00:00Z")).expect("a time");
        assert_eq!(first, at("2026-10-25T00:30:00Z"));
        assert_eq!(
            next_at(half_two, &berlin(), first),
            Some(at("2026-10-26T01:30:00Z"))
        );
    }

    #[test]
    fn times_read_as_people_write_them() {
        assert_eq!(read_time("08:00"), Time::new(8, 0, 0, 0).ok());
        assert_eq!(read_time("8:05"), Time::new(8, 5, 0, 0).ok());
        assert_eq!(read_time("21"), Time::new(21, 0, 0, 0).ok());
        assert_eq!(read_time("25:00"), None);
        assert_eq!(read_time("noon"), None);
    }
}
