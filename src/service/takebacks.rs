//! Takebacks by consent: a player asks to take back their last move (and the opponent's reply
//! to it, if any), the opponent accepts or declines; against the bot a takeback is granted at
//! once. The taken-back moves leave the game in one transaction guarded by the game's ply and
//! revision, and stay in the takeback history.

use tracing::info;

use super::games::{active, color_key};
use super::{DAY, GameState, Place, Service, ServiceError, User};
use crate::rules::{Color, Record};
use crate::store::{StoreError, TakeBack};

/// What a `takeback` command asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TakebackAction {
    /// Ask to take back one's last move.
    Ask,
    /// Accept the opponent's request.
    Accept,
    /// Decline the opponent's request.
    Decline,
}

/// What a takeback command did.
#[derive(Debug, Clone)]
pub enum TakebackDone {
    /// The request waits for the opponent.
    Asked(Box<GameState>),
    /// The moves were taken back: the game as it is now, how many plies went, and who asked.
    Taken {
        state: Box<GameState>,
        plies: usize,
        asker: Color,
    },
    /// The opponent declined the request.
    Declined(Box<GameState>),
}

/// The ply a takeback by `asker` returns to: the one before `asker`'s last move, so that the
/// opponent's reply goes too. `None` when `asker` has not moved.
fn back_to(record: &Record, asker: Color) -> Option<usize> {
    let first = record.start().turn();
    // Plies alternate sides (a forced pass is a ply of the side that passes).
    (1..=record.moves().len())
        .rev()
        .find(|ply| {
            let mover = if ply % 2 == 1 { first } else { first.other() };
            mover == asker
        })
        .map(|ply| ply - 1)
}

impl Service {
    /// Asks, accepts or declines a takeback in a game of the user's.
    ///
    /// # Errors
    /// Not a player, the game is over, takebacks are off, nothing to take back, no request to
    /// answer, or [`ServiceError::Changed`] when a move or another takeback came first.
    pub async fn takeback(
        &self,
        place: &Place,
        user: &User,
        game: Option<i64>,
        action: TakebackAction,
    ) -> Result<TakebackDone, ServiceError> {
        let me = self.player(user).await?;
        let state = self.game_for(place, user, game).await?;
        let id = state.row.id;
        let color = state.color_of(me.id).ok_or(ServiceError::NotAPlayer(id))?;
        let state = active(state)?;
        if !state.row.takebacks {
            return Err(ServiceError::NoTakebacks(id));
        }
        let offer = state.row.takeback_offer.as_deref();
        let theirs = offer == Some(color_key(color.other()));
        match action {
            TakebackAction::Ask => {
                if back_to(&state.record, color).is_none() {
                    return Err(ServiceError::NothingToTakeBack(id));
                }
                if state.bot_side() == Some(color.other()) {
                    return self.take_back(&state, color, me.id).await;
                }
                if offer == Some(color_key(color)) {
                    return Err(ServiceError::TakebackAlreadyAsked(id));
                }
                self.store
                    .set_takeback_offer(id, state.row.revision, Some(color_key(color)), self.now())
                    .await?;
                Ok(TakebackDone::Asked(Box::new(self.load(id).await?)))
            }
            TakebackAction::Accept if theirs => {
                let asker = state.player(color.other()).id;
                self.take_back(&state, color.other(), asker).await
            }
            TakebackAction::Decline if theirs => {
                self.store
                    .set_takeback_offer(id, state.row.revision, None, self.now())
                    .await?;
                Ok(TakebackDone::Declined(Box::new(self.load(id).await?)))
            }
            TakebackAction::Accept | TakebackAction::Decline => {
                Err(ServiceError::NoTakebackRequest(id))
            }
        }
    }

    /// Takes back `asker`'s last move (and the reply to it) in one guarded transaction; the
    /// side to move gets a fresh full period.
    async fn take_back(
        &self,
        state: &GameState,
        asker: Color,
        asked_by: i64,
    ) -> Result<TakebackDone, ServiceError> {
        let id = state.row.id;
        let to_ply = back_to(&state.record, asker).ok_or(ServiceError::NothingToTakeBack(id))?;
        let texts: Vec<&str> = state.record.moves()[..to_ply]
            .iter()
            .map(|played| played.text.as_str())
            .collect();
        let record = Record::replay(state.record.start().clone(), &texts)
            .map_err(|e| super::internal(&format!("game #{id} takeback: {e}")))?;
        let now = self.now();
        let deadline = (state.bot_side() != Some(record.position().turn()))
            .then_some(now + state.row.days_per_move * DAY);
        let position = record.position().to_text();
        let back = TakeBack {
            game_id: id,
            expected_ply: state.row.ply,
            expected_revision: state.row.revision,
            to_ply: to_ply as i64,
            asked_by,
            position: &position,
            deadline,
            now,
        };
        match self.store.take_back(&back).await {
            Ok(()) => {}
            Err(StoreError::Conflict) => return Err(ServiceError::Changed),
            Err(other) => return Err(other.into()),
        }
        let plies = state.record.moves().len() - to_ply;
        info!(game = id, plies, "moves taken back");
        Ok(TakebackDone::Taken {
            state: Box::new(self.load(id).await?),
            plies,
            asker,
        })
    }
}
