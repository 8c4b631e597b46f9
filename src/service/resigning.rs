//! Resigning cannot be taken back, so it is confirmed first: a button where the platform has
//! them, elsewhere the same `resign` again within [`CONFIRM_WINDOW`] on the service's clock.

use std::collections::HashMap;

use super::{GameState, Place, Service, ServiceError, User};

/// Resignations asked for: (platform, user id) -> (game, when asked).
pub(super) type Asked = HashMap<(String, String), (i64, i64)>;

/// Seconds within which a second `resign` confirms the first.
pub const CONFIRM_WINDOW: i64 = 60;

/// What a `resign` did.
#[derive(Debug, Clone)]
pub enum Resigning {
    /// Nothing yet: the player is asked to confirm (the game as it stands).
    Confirm(GameState),
    /// The game is over: the player resigned.
    Resigned(GameState),
}

impl Service {
    /// Resigns a game once confirmed: `confirmed` says the platform asked already (a button);
    /// otherwise the first `resign` only asks, and the same player resigning the same game
    /// again within [`CONFIRM_WINDOW`] confirms it.
    ///
    /// # Errors
    /// Not a player, no game, the game is over, or it changed meanwhile.
    pub async fn resign_confirmed(
        &self,
        place: &Place,
        user: &User,
        game: Option<i64>,
        confirmed: bool,
    ) -> Result<Resigning, ServiceError> {
        let (state, _) = self.my_active_game(place, user, game).await?;
        let id = state.row.id;
        let now = self.now();
        let asked_before = {
            let mut asked = self
                .resigning
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            asked.retain(|_, &mut (_, at)| now - at <= CONFIRM_WINDOW);
            let key = (user.platform.clone(), user.id.clone());
            if asked.get(&key).is_some_and(|&(game, _)| game == id) {
                asked.remove(&key);
                true
            } else {
                if !confirmed {
                    asked.insert(key, (id, now));
                }
                false
            }
        };
        if confirmed || asked_before {
            let state = self.resign(place, user, Some(id)).await?;
            Ok(Resigning::Resigned(state))
        } else {
            Ok(Resigning::Confirm(state))
        }
    }
}
