//! The service's own timer: each bot runs one for its platform, and it makes everything timed
//! happen on time whether or not anyone writes: right after start-up, then every few seconds,
//! and at once when a command found a game whose time had run out.
//!
//! The first run after a start moves on the deadlines that fell while Pigeon was not running
//! on that platform (nobody could move then) by the length of the outage; a deadline that had
//! passed before the outage still ends its game.

use std::time::Duration;

use tokio::sync::watch;
use tracing::{info, warn};

use super::{DAY, HOUR, Pending, Service, ServiceError};
use crate::store::Resumed;

/// The timer of one platform's bot. [`Timer::next`] gives what fell due since the last call.
#[derive(Debug)]
pub struct Timer {
    service: Service,
    platform: String,
    interval: tokio::time::Interval,
    wake: watch::Receiver<u64>,
}

impl Timer {
    /// Waits for the next run (the first is at once) and gives the notices to deliver: each
    /// is reported back with [`Service::delivered`] or [`Service::not_delivered`].
    pub async fn next(&mut self) -> Vec<Pending> {
        self.wait().await;
        self.run().await
    }

    /// Waits until the next run is due: the interval came round, or a command woke the
    /// timers. Safe to cancel (in a `select!`).
    pub async fn wait(&mut self) {
        tokio::select! {
            _ = self.interval.tick() => {}
            Ok(()) = self.wake.changed() => {}
        }
        self.wake.borrow_and_update();
    }

    /// Runs the clocks now and gives the notices to deliver. A failed run is logged and gives
    /// nothing; the next one tries again.
    pub async fn run(&mut self) -> Vec<Pending> {
        match self.service.tick_platform(&self.platform).await {
            Ok(pending) => pending,
            Err(error) => {
                warn!(platform = %self.platform, %error, "looking at the clocks failed");
                Vec::new()
            }
        }
    }
}

impl Service {
    /// The timer of `platform`, running every `every` (and at once when woken).
    #[must_use]
    pub fn timer(&self, platform: &str, every: Duration) -> Timer {
        let mut interval = tokio::time::interval(every);
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        Timer {
            service: self.clone(),
            platform: platform.to_owned(),
            interval,
            wake: self.wake.subscribe(),
        }
    }

    /// Wakes every timer: something fell due that its players should hear of now.
    pub(super) fn wake_timers(&self) {
        self.wake.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// The first time after now at which something timed falls due on `platform`, for a
    /// driven clock to stop at (the console's `wait`). `None` when nothing is waiting.
    ///
    /// # Errors
    /// [`ServiceError::CannotSave`] or `Internal` when the database fails.
    pub async fn next_due(&self, platform: &str) -> Result<Option<i64>, ServiceError> {
        let now = self.now();
        let due = self.store.next_due(platform, now, (DAY, HOUR)).await?;
        let leave = self.next_leave_end(now).await?;
        let reminder = self.next_reminder(platform, now).await?;
        let digest = self.next_digest(platform, now).await?;
        let tournament = self.next_tournament_due(platform).await?;
        Ok(due
            .into_iter()
            .chain([leave, reminder, digest, tournament].into_iter().flatten())
            .min())
    }

    /// Starts the clocks of `platform` once per process: the first call moves on the
    /// deadlines that fell inside the outage before it (see the module's documentation);
    /// later calls only record that the clocks ran.
    pub(super) async fn heartbeat(&self, platform: &str, now: i64) -> Result<(), ServiceError> {
        let first = self
            .resumed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(platform.to_owned());
        if !first {
            return Ok(self.store.heartbeat(platform, now).await?);
        }
        match self.store.resume_clocks(platform, now).await {
            Ok(Resumed { outage, moved }) => {
                if let Some((from, until)) = outage
                    && !moved.is_empty()
                {
                    info!(platform, from, until, games = ?moved, "deadlines moved on after an outage");
                }
                Ok(())
            }
            Err(error) => {
                // Not started after all: the next run tries again.
                self.resumed
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .remove(platform);
                Err(error.into())
            }
        }
    }
}
