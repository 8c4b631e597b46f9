//! Settings of a community (a Discord server, a Matrix room, a console channel): threads per
//! game and the caps that keep one account from flooding it, with the counts they are checked
//! against, and the players known there.

use sqlx::FromRow;

use super::{PlayerRow, Result, Store};

/// A community's caps as stored; `None` means the default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, FromRow)]
pub struct CapsRow {
    pub max_open_challenges: Option<i64>,
    pub max_active_games: Option<i64>,
    pub max_bot_games: Option<i64>,
    pub max_challenges_per_opponent: Option<i64>,
}

/// What one player has going on, on one platform, for checking the caps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, FromRow)]
pub struct Counts {
    /// Open challenges the player sent.
    pub open_challenges: i64,
    /// Active games the player plays against people.
    pub active_games: i64,
    /// Active games the player plays against the bot.
    pub bot_games: i64,
}

impl Store {
    /// Whether games in a community get a thread each (on unless turned off).
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    pub async fn threads_on(&self, platform: &str, community: &str) -> Result<bool> {
        let row: Option<(bool,)> = sqlx::query_as(
            "SELECT threads FROM community_settings WHERE platform = ?1 AND community = ?2",
        )
        .bind(platform)
        .bind(community)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.is_none_or(|(on,)| on))
    }

    /// Turns threads per game on or off in a community.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    pub async fn set_threads(&self, platform: &str, community: &str, on: bool) -> Result<()> {
        sqlx::query(
            "INSERT INTO community_settings (platform, community, threads) VALUES (?1, ?2, ?3) \
             ON CONFLICT (platform, community) DO UPDATE SET threads = excluded.threads",
        )
        .bind(platform)
        .bind(community)
        .bind(on)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// A community's caps (all defaults when never set).
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    pub async fn caps(&self, platform: &str, community: &str) -> Result<CapsRow> {
        let row: Option<CapsRow> = sqlx::query_as(
            "SELECT max_open_challenges, max_active_games, max_bot_games, \
             max_challenges_per_opponent FROM community_settings \
             WHERE platform = ?1 AND community = ?2",
        )
        .bind(platform)
        .bind(community)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.unwrap_or_default())
    }

    /// Stores a community's caps.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    pub async fn set_caps(&self, platform: &str, community: &str, caps: &CapsRow) -> Result<()> {
        sqlx::query(
            "INSERT INTO community_settings (platform, community, max_open_challenges, \
             max_active_games, max_bot_games, max_challenges_per_opponent) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6) \
             ON CONFLICT (platform, community) DO UPDATE SET \
             max_open_challenges = excluded.max_open_challenges, \
             max_active_games = excluded.max_active_games, \
             max_bot_games = excluded.max_bot_games, \
             max_challenges_per_opponent = excluded.max_challenges_per_opponent",
        )
        .bind(platform)
        .bind(community)
        .bind(caps.max_open_challenges)
        .bind(caps.max_active_games)
        .bind(caps.max_bot_games)
        .bind(caps.max_challenges_per_opponent)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// What a player has going on: open challenges sent (not yet expired at `now`), active
    /// games against people and against the bot.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    pub async fn counts(&self, player_id: i64, now: i64) -> Result<Counts> {
        Ok(sqlx::query_as(
            "SELECT \
             (SELECT COUNT(*) FROM challenges WHERE challenger_id = ?1 AND status = 'open' \
              AND expires_at > ?2) AS open_challenges, \
             (SELECT COUNT(*) FROM games WHERE (white_id = ?1 OR black_id = ?1) \
              AND status = 'active' AND bot_level IS NULL) AS active_games, \
             (SELECT COUNT(*) FROM games WHERE (white_id = ?1 OR black_id = ?1) \
              AND status = 'active' AND bot_level IS NOT NULL) AS bot_games",
        )
        .bind(player_id)
        .bind(now)
        .fetch_one(&self.pool)
        .await?)
    }

    /// The open challenges (not yet expired at `now`) from `challenger` to `challenged` of
    /// one game, oldest first.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    pub async fn open_challenges_between(
        &self,
        challenger: i64,
        challenged: i64,
        game_key: &str,
        now: i64,
    ) -> Result<Vec<i64>> {
        Ok(sqlx::query_scalar(
            "SELECT id FROM challenges WHERE challenger_id = ?1 AND challenged_id = ?2 \
             AND game_key = ?3 AND status = 'open' AND expires_at > ?4 ORDER BY id",
        )
        .bind(challenger)
        .bind(challenged)
        .bind(game_key)
        .bind(now)
        .fetch_all(&self.pool)
        .await?)
    }

    /// The players of `platform` who have played or been challenged in `community`, by
    /// name: the people a name typed without `@` may mean there.
    ///
    /// # Errors
    /// [`super::StoreError`] when the database fails.
    pub async fn players_in(&self, platform: &str, community: &str) -> Result<Vec<PlayerRow>> {
        Ok(sqlx::query_as(
            "SELECT id, platform, platform_id, display_name FROM players \
             WHERE platform = ?1 AND id IN ( \
             SELECT white_id FROM games WHERE platform = ?1 AND COALESCE(community, channel) = ?2 \
             UNION SELECT black_id FROM games WHERE platform = ?1 \
             AND COALESCE(community, channel) = ?2 \
             UNION SELECT challenger_id FROM challenges WHERE platform = ?1 \
             AND COALESCE(community, channel) = ?2 \
             UNION SELECT challenged_id FROM challenges WHERE platform = ?1 \
             AND COALESCE(community, channel) = ?2) \
             ORDER BY display_name COLLATE NOCASE LIMIT 1000",
        )
        .bind(platform)
        .bind(community)
        .fetch_all(&self.pool)
        .await?)
    }
}
