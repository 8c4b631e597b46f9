//! The store's side of time: when each platform's clocks last ran (heartbeats), deadlines
//! moved on after an outage, and when the next timed event falls due.

use super::notices::insert_notice;
use super::{NewNotice, Result, Store};

/// What starting the clocks of a platform found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Resumed {
    /// The outage, `(from, until)`, when the clocks had run before and time passed since.
    pub outage: Option<(i64, i64)>,
    /// The games whose deadline fell inside the outage and was moved on by its length.
    pub moved: Vec<i64>,
}

impl Store {
    /// Starts the clocks of `platform` at `now`: when they last ran at some earlier time, every
    /// deadline of an active game there that fell inside the gap is moved on by the gap's
    /// length, with a `deadline_moved` notice each; a deadline that passed before the gap is
    /// left to end its game. Records `now` as the clocks' last run, all in one transaction.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    pub async fn resume_clocks(&self, platform: &str, now: i64) -> Result<Resumed> {
        let mut tx = self.write().await?;
        let seen: Option<(i64,)> =
            sqlx::query_as("SELECT seen_at FROM heartbeats WHERE platform = ?1")
                .bind(platform)
                .fetch_optional(&mut *tx)
                .await?;
        let mut resumed = Resumed::default();
        if let Some((seen,)) = seen
            && now > seen
        {
            let gap = now - seen;
            let moved: Vec<(i64, i64)> = sqlx::query_as(
                "UPDATE games SET deadline = deadline + ?4 \
                 WHERE status = 'active' AND platform = ?1 AND deadline > ?2 AND deadline <= ?3 \
                 RETURNING id, ply",
            )
            .bind(platform)
            .bind(seen)
            .bind(now)
            .bind(gap)
            .fetch_all(&mut *tx)
            .await?;
            for &(game, ply) in &moved {
                let notice = NewNotice {
                    platform,
                    kind: "deadline_moved",
                    game_id: Some(game),
                    challenge_id: None,
                    ply: Some(ply),
                    left: Some(gap),
                    now,
                };
                insert_notice(&mut tx, &notice).await?;
            }
            resumed.outage = Some((seen, now));
            resumed.moved = moved.into_iter().map(|(game, _)| game).collect();
            resumed.moved.sort_unstable();
        }
        heartbeat(&mut tx, platform, now).await?;
        tx.commit().await?;
        Ok(resumed)
    }

    /// Records that the clocks of `platform` ran at `now`.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    pub async fn heartbeat(&self, platform: &str, now: i64) -> Result<()> {
        let mut tx = self.write().await?;
        heartbeat(&mut tx, platform, now).await?;
        tx.commit().await?;
        Ok(())
    }

    /// The first time after `after` at which something timed falls due on `platform`: a
    /// reminder (`reminders.0` before a deadline, in games of more than a day per move, and
    /// `reminders.1` before any deadline), a deadline, or an open challenge's expiry. `None`
    /// when nothing is waiting.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    pub async fn next_due(
        &self,
        platform: &str,
        after: i64,
        reminders: (i64, i64),
    ) -> Result<Option<i64>> {
        let (next,): (Option<i64>,) = sqlx::query_as(
            "SELECT MIN(t) FROM ( \
               SELECT deadline - ?3 AS t FROM games WHERE status = 'active' AND platform = ?1 \
                 AND attention IS NULL AND deadline IS NOT NULL AND days_per_move > 1 \
               UNION ALL \
               SELECT deadline - ?4 FROM games WHERE status = 'active' AND platform = ?1 \
                 AND attention IS NULL AND deadline IS NOT NULL \
               UNION ALL \
               SELECT deadline FROM games WHERE status = 'active' AND platform = ?1 \
                 AND attention IS NULL AND deadline IS NOT NULL \
               UNION ALL \
               SELECT expires_at FROM challenges WHERE status = 'open' AND platform = ?1 \
             ) WHERE t > ?2",
        )
        .bind(platform)
        .bind(after)
        .bind(reminders.0)
        .bind(reminders.1)
        .fetch_one(&self.pool)
        .await?;
        Ok(next)
    }
}

async fn heartbeat(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    platform: &str,
    now: i64,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO heartbeats (platform, seen_at) VALUES (?1, ?2) \
         ON CONFLICT (platform) DO UPDATE SET seen_at = excluded.seen_at",
    )
    .bind(platform)
    .bind(now)
    .execute(&mut **tx)
    .await?;
    Ok(())
}
