//! Glicko-2 ratings per game and community: updated once per finished rated game, listed as
//! leaderboards and player statistics.

use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2};
use tracing::{info, warn};

use super::{Place, Service, ServiceError, User};
use crate::rules::Variant;
use crate::store::{Glicko, PlayerRow, RatingChangeRow, RatingRow, RatingUpdate, ResultsRow};

/// How many players a leaderboard shows.
pub const LEADERBOARD_SIZE: i64 = 10;
/// How many rating changes per game `stats` shows.
pub const HISTORY_SIZE: i64 = 5;

/// A player's record in one community.
#[derive(Debug, Clone, PartialEq)]
pub struct Stats {
    pub player: PlayerRow,
    /// Wins, losses and draws per game.
    pub results: Vec<ResultsRow>,
    /// Current rating per game, with the latest changes, newest first.
    pub ratings: Vec<(RatingRow, Vec<RatingChangeRow>)>,
}

fn to_glicko2(rating: Option<Glicko>) -> Glicko2Rating {
    rating.map_or_else(Glicko2Rating::new, |r| Glicko2Rating {
        rating: r.rating,
        deviation: r.deviation,
        volatility: r.volatility,
    })
}

fn from_glicko2(rating: Glicko2Rating) -> Glicko {
    Glicko {
        rating: rating.rating,
        deviation: rating.deviation,
        volatility: rating.volatility,
    }
}

/// Both players' new ratings after one game.
#[must_use]
pub fn updated(update: &RatingUpdate) -> [Glicko; 2] {
    let outcome = if update.white_score > 0.75 {
        Outcomes::WIN
    } else if update.white_score < 0.25 {
        Outcomes::LOSS
    } else {
        Outcomes::DRAW
    };
    let (white, black) = glicko2(
        &to_glicko2(update.white),
        &to_glicko2(update.black),
        &outcome,
        &Glicko2Config::new(),
    );
    [from_glicko2(white), from_glicko2(black)]
}

impl Service {
    /// Updates the ratings after rated game `id` ended; a game already rated, unrated or
    /// without a result is left alone, so this may be called any number of times.
    ///
    /// # Errors
    /// `Internal` when the database fails.
    pub async fn rate(&self, id: i64) -> Result<bool, ServiceError> {
        let rated = self.store.rate_game(id, self.now(), updated).await?;
        if rated {
            info!(game = id, "ratings updated");
        }
        Ok(rated)
    }

    /// Rates a game that just ended; a failure is logged and left to the next clock tick.
    pub(super) async fn rate_finished(&self, id: i64) {
        if let Err(error) = self.rate(id).await {
            warn!(game = id, %error, "rating update postponed");
        }
    }

    /// Rates the finished rated games that were not rated yet (after a restart).
    pub(super) async fn rate_pending(&self) -> Result<(), ServiceError> {
        for id in self.store.unrated_games().await? {
            self.rate(id).await?;
        }
        Ok(())
    }

    /// The best rated players of `variant` in this community.
    ///
    /// # Errors
    /// `Internal` when the database fails.
    pub async fn leaderboard(
        &self,
        place: &Place,
        variant: Variant,
    ) -> Result<Vec<RatingRow>, ServiceError> {
        Ok(self
            .store
            .leaderboard(&place.community, variant.key(), LEADERBOARD_SIZE)
            .await?)
    }

    /// A player's results and ratings in this community.
    ///
    /// # Errors
    /// `Internal` when the database fails.
    pub async fn stats(&self, place: &Place, user: &User) -> Result<Stats, ServiceError> {
        let player = if self.is_bot(user) {
            self.player(&self.bot(&user.platform).unwrap_or_else(|| user.clone()))
                .await?
        } else {
            self.player(user).await?
        };
        let community = &place.community;
        let results = self.store.results_of(player.id, community).await?;
        let mut ratings = Vec::new();
        for rating in self.store.ratings_of(player.id, community).await? {
            let history = self
                .store
                .rating_history(player.id, community, &rating.game_key, HISTORY_SIZE)
                .await?;
            ratings.push((rating, history));
        }
        Ok(Stats {
            player,
            results,
            ratings,
        })
    }
}
