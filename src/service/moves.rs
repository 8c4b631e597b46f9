//! Playing a move: the game's turn checked, the move and any forced pass after it written in
//! one transaction guarded by the game's ply and revision, and the reply's picture drawn
//! while that write runs.

use tracing::{info, instrument};

use super::games::{active, color_key, score};
use super::pictures::{Drawing, Image, move_drawing};
use super::{DAY, GameState, Place, Service, ServiceError, User, reason_key};
use crate::rules::{Color, MoveMarks, Played, VariantPosition};
use crate::store::{AppendMoves, NewNotice, StoreError};

/// A move played: the game after it, and what was played (the move, then any pass the
/// product played for a player who could not move).
#[derive(Debug, Clone)]
pub struct MoveDone {
    pub state: GameState,
    /// The position before the player's move, for highlighting it.
    pub before: VariantPosition,
    pub played: Vec<Played>,
    /// The board after the move as its reply shows it (see [`move_drawing`]), drawn while the
    /// move was stored; `None` when it was not drawn (the bot is to move, the clocks played
    /// it) or no longer shows the game as stored.
    pub picture: Option<Image>,
}

impl MoveDone {
    /// The squares of the player's move, marked on its picture.
    #[must_use]
    pub fn last_marks(&self) -> Option<MoveMarks> {
        self.played
            .first()
            .map(|played| self.before.move_marks(&played.mv))
    }

    /// The move played at `ply` of a game (with any forced pass after it), as it was announced:
    /// `None` when the game has no move there.
    #[must_use]
    pub fn at(state: GameState, ply: usize) -> Option<MoveDone> {
        let moves = state.record.moves();
        if ply >= moves.len() {
            return None;
        }
        let mut before = state.record.start().clone();
        for played in &moves[..ply] {
            before = before.play(&played.mv);
        }
        let played = moves[ply..].to_vec();
        Some(MoveDone {
            state,
            before,
            played,
            picture: None,
        })
    }
}

/// The drawing a move's reply shows once the move is stored, from the game as it will be:
/// `None` when the reply has no picture (the bot is to move next). The clock of a player on
/// leave stops as their turn comes (`hold_for_leave`), so their picture shows no deadline.
fn expected_drawing(state: &GameState, last: Option<MoveMarks>) -> Option<Drawing> {
    if state.is_active() && state.bot_side() == Some(state.turn()) {
        return None;
    }
    let mut drawing = move_drawing(state, last);
    if state.to_move().is_some_and(|next| state.on_leave(next.id)) {
        drawing.hold_clock();
    }
    Some(drawing)
}

impl Service {
    /// Plays a move for the user: in the game given, or the one game here awaiting their move.
    /// A pass the next player is forced to make (Shakti) is played for them in the same step.
    ///
    /// # Errors
    /// Not their turn, not a player, no or several games, the game is over, the move does not
    /// play, or another move arrived first ([`ServiceError::Changed`]).
    #[instrument(skip_all, fields(platform = %place.platform, game = ?game))]
    pub async fn play(
        &self,
        place: &Place,
        user: &User,
        game: Option<i64>,
        text: &str,
    ) -> Result<MoveDone, ServiceError> {
        let me = self.player(user).await?;
        let state = self.game_to_move(place, &me, game).await?;
        self.move_in(state, me.id, text).await
    }

    /// Plays `text` for player `me` in `state`, a game of theirs going on, when it is their
    /// turn.
    pub(super) async fn move_in(
        &self,
        state: GameState,
        me: i64,
        text: &str,
    ) -> Result<MoveDone, ServiceError> {
        let id = state.row.id;
        let color = state.color_of(me).ok_or(ServiceError::NotAPlayer(id))?;
        if state.turn() != color {
            let to_move = state.player(state.turn()).display_name.clone();
            return Err(ServiceError::NotYourTurn { game: id, to_move });
        }
        self.apply_move(state, color, me, text, false).await
    }

    /// Plays `text` for `color` (player `mover`) in one transaction guarded by the ply, with
    /// any forced pass after it, and with a notice of it when `announce` is set (a move the
    /// clocks played); rates the game if the move ended it.
    pub(super) async fn apply_move(
        &self,
        mut state: GameState,
        color: Color,
        mover: i64,
        text: &str,
        announce: bool,
    ) -> Result<MoveDone, ServiceError> {
        let id = state.row.id;
        let before = state.record.position().clone();
        let played = state
            .record
            .play(text)
            .map_err(|error| ServiceError::Move { game: id, error })?
            .clone();
        let mut moves = vec![(played.text.clone(), Some(mover))];
        let mut all = vec![played];
        while let Some(pass) = state.record.play_forced_pass() {
            moves.push((pass.text.clone(), None));
            all.push(pass.clone());
        }
        let now = self.now();
        let outcome = state.record.outcome();
        let finish = outcome.map(|o| (score(o), reason_key(o.reason)));
        // The bot has no clock: while it is to move the game has no deadline.
        let deadline = (outcome.is_none() && state.bot_side() != Some(state.turn()))
            .then_some(now + state.row.days_per_move * DAY);
        let position = state.record.position().to_text();
        let (stored_ply, revision, stored_deadline) =
            (state.row.ply, state.row.revision, state.row.deadline);
        let row = &mut state.row;
        row.ply += moves.len() as i64;
        row.position.clone_from(&position);
        row.deadline = deadline;
        row.updated_at = now;
        row.revision += 1;
        row.takeback_offer = None;
        if row.draw_offer.as_deref() != Some(color_key(color)) {
            row.draw_offer = None;
        }
        if let Some((result, reason)) = finish {
            row.status = String::from("finished");
            row.result = Some(result.to_owned());
            row.end_reason = Some(reason.to_owned());
            row.finished_at = Some(now);
        }
        let last = all.first().map(|played| before.move_marks(&played.mv));
        let drawing = (!announce)
            .then(|| expected_drawing(&state, last.clone()))
            .flatten();
        let appending = AppendMoves {
            game_id: id,
            expected_ply: stored_ply,
            expected_revision: revision,
            moves: &moves,
            position: &position,
            deadline,
            finish,
            mover: color_key(color),
            now,
            notice: announce.then(|| NewNotice {
                platform: &state.row.platform,
                kind: "bot_move",
                game_id: Some(id),
                challenge_id: None,
                ply: Some(stored_ply),
                left: None,
                now,
            }),
        };
        let append = self.store.append_moves(&appending);
        // The reply's picture is drawn while the move is stored, and shown only once it is.
        let draw = async {
            match &drawing {
                Some(drawing) => self.draw_picture(drawing.clone()).await.ok(),
                None => None,
            }
        };
        let (appended, image) = tokio::join!(append, draw);
        match appended {
            Ok(()) => {}
            // The deadline passed since the game was read: the write refused the move.
            Err(StoreError::Conflict) if stored_deadline.is_some_and(|d| d <= now) => {
                return Err(self.too_late(id).await);
            }
            Err(error) => return Err(error.into()),
        }
        info!(game = id, ply = state.row.ply, "move played");
        if finish.is_some() {
            if state.row.rated {
                self.rate_finished(id).await;
            }
            self.tournament_game_ended(&state.row);
        }
        self.hold_for_leave(&mut state).await;
        self.publish(&state);
        // Drawn for the game as it was expected to be stored; kept only if it still is.
        let picture = image.filter(|_| drawing.is_some_and(|d| d == move_drawing(&state, last)));
        Ok(MoveDone {
            state,
            before,
            played: all,
            picture,
        })
    }

    /// The answer to a move its game's deadline refused at the write: the game is ended on
    /// time as the clocks would and the move answered like any late move (`TimeRanOut`);
    /// [`ServiceError::OnHold`] for a game set aside for the operator, whose clock does not
    /// end it; or, when something else changed the game first, [`ServiceError::Changed`].
    async fn too_late(&self, id: i64) -> ServiceError {
        let state = match self.load(id).await {
            Ok(state) if self.settle_rows([&state.row]).await => self.load(id).await,
            other => other,
        };
        match state.map(active) {
            Ok(Err(late @ ServiceError::TimeRanOut { .. })) => late,
            Ok(Ok(state))
                if state.row.attention.is_some()
                    && state.row.deadline.is_some_and(|d| d <= self.now()) =>
            {
                ServiceError::OnHold(id)
            }
            Ok(_) => ServiceError::Changed,
            Err(error) => error,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::rules::Variant;
    use crate::service::{ColorChoice, ManualClock, Notice, Pending};
    use crate::store::Store;

    #[tokio::test]
    async fn a_move_whose_deadline_passes_before_it_is_written_is_answered_as_late() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let store = Store::open(&dir.path().join("late.db"))
            .await
            .expect("the database opens");
        let clock = ManualClock::new(1_767_258_000);
        let service = Service::new(store, Arc::new(clock.clone()));
        let place = Place::new("console", "general");
        let alice = User::new("console", "alice", "alice");
        let bob = User::new("console", "bob", "bob");
        service
            .challenge(
                &place,
                &alice,
                Some(&bob),
                Variant::Chak,
                None,
                ColorChoice::White,
            )
            .await
            .expect("challenged");
        let id = service
            .accept(&place, &bob, None)
            .await
            .expect("accepted")
            .row
            .id;
        // Alice's move finds her game in time...
        let me = service.player(&alice).await.expect("alice");
        let state = service
            .game_to_move(&place, &me, Some(id))
            .await
            .expect("in time");
        let deadline = state.row.deadline.expect("a deadline");
        // ...and is written once her deadline came.
        clock.set(deadline);
        let late = service
            .apply_move(state, Color::White, me.id, "e3e4", false)
            .await
            .expect_err("too late");
        assert!(
            matches!(late, ServiceError::TimeRanOut { game, at, .. } if game == id && at == deadline),
            "{late:?}"
        );
        let state = service.load(id).await.expect("loads");
        assert_eq!(state.row.ply, 0, "the late move is not played");
        assert_eq!(
            (state.row.end_reason.as_deref(), state.row.finished_at),
            (Some("timeout"), Some(deadline))
        );
        // Ended once: one timeout to announce, and nothing at the next tick.
        let pending = service
            .tick_platform("console")
            .await
            .expect("the clocks run");
        assert!(
            matches!(
                &pending[..],
                [Pending {
                    notice: Notice::Timeout { .. },
                    ..
                }]
            ),
            "{pending:?}"
        );
        service.delivered(pending[0].id).await;
        let again = service
            .tick_platform("console")
            .await
            .expect("the clocks run");
        assert!(again.is_empty(), "{again:?}");
    }
}
