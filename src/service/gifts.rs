//! `give time`: one more day for the opponent, as on lichess only while their time left is
//! less than the full time per move minus an hour, so a gift never stacks on a fresh clock.

use tracing::{info, instrument};

use super::{DAY, GameState, HOUR, Place, Service, ServiceError, User};

/// What a gift of time may add at once.
pub const GIFT: i64 = DAY;

impl Service {
    /// Gives the opponent of `user`, who is to move, one more day in a game; gives the game
    /// with its new deadline.
    ///
    /// # Errors
    /// Not a player, no game, the game is over, it is the giver's own move, a game against
    /// the bot, the opponent's time is (nearly) full, or the game changed meanwhile.
    #[instrument(skip_all, fields(platform = %place.platform, game = ?game))]
    pub async fn give_time(
        &self,
        place: &Place,
        user: &User,
        game: Option<i64>,
    ) -> Result<GameState, ServiceError> {
        let (mut state, color) = self.my_active_game(place, user, game).await?;
        let id = state.row.id;
        if state.bot_side().is_some() {
            return Err(ServiceError::NoClockToGive(id));
        }
        if state.turn() == color {
            return Err(ServiceError::GiveOnYourMove(id));
        }
        let Some(deadline) = state.row.deadline else {
            return Err(ServiceError::NoClockToGive(id));
        };
        let now = self.now();
        let full = state.row.days_per_move * DAY;
        if deadline - now >= full - HOUR {
            return Err(ServiceError::TimeStillFull {
                game: id,
                name: state.player(color.other()).display_name.clone(),
            });
        }
        let moved = deadline + GIFT;
        self.store
            .give_time(id, state.row.ply, deadline, moved, now)
            .await?;
        info!(game = id, "time given");
        state.row.deadline = Some(moved);
        state.row.updated_at = now;
        Ok(state)
    }
}
