//! Private notes on a game: several per player and game, time-stamped, seen only by their
//! author (the chat answers them privately; exports and the opponent's views never hold them).

use super::{Place, Service, ServiceError, User};

/// The longest note, in characters.
pub const NOTE_LIMIT: usize = 1000;

/// One note as its author sees it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Note {
    pub text: String,
    /// When it was written (Unix seconds).
    pub at: i64,
}

impl Service {
    /// Keeps a note of the user's on a game of theirs; the game's number and the notes the
    /// user now has on it.
    ///
    /// # Errors
    /// No such game, not a player, an empty or over-long note.
    pub async fn add_note(
        &self,
        place: &Place,
        user: &User,
        game: Option<i64>,
        text: &str,
    ) -> Result<(i64, usize), ServiceError> {
        let (id, me) = self.noted_game(place, user, game).await?;
        let text = text.trim();
        if text.is_empty() {
            return Err(ServiceError::EmptyNote(id));
        }
        let len = text.chars().count();
        if len > NOTE_LIMIT {
            return Err(ServiceError::NoteTooLong { len });
        }
        self.store.add_note(id, me, text, self.now()).await?;
        let count = self.store.notes(id, me).await?.len();
        Ok((id, count))
    }

    /// The user's notes on a game, oldest first, with the game's number.
    ///
    /// # Errors
    /// No such game, or not a player.
    pub async fn notes(
        &self,
        place: &Place,
        user: &User,
        game: Option<i64>,
    ) -> Result<(i64, Vec<Note>), ServiceError> {
        let (id, me) = self.noted_game(place, user, game).await?;
        let notes = self
            .store
            .notes(id, me)
            .await?
            .into_iter()
            .map(|row| Note {
                text: row.text,
                at: row.created_at,
            })
            .collect();
        Ok((id, notes))
    }

    /// Deletes the user's notes on a game; the game's number and how many there were.
    ///
    /// # Errors
    /// No such game, or not a player.
    pub async fn clear_notes(
        &self,
        place: &Place,
        user: &User,
        game: Option<i64>,
    ) -> Result<(i64, u64), ServiceError> {
        let (id, me) = self.noted_game(place, user, game).await?;
        Ok((id, self.store.clear_notes(id, me).await?))
    }

    /// The game a note command means, which the user must play in, and the user's id.
    async fn noted_game(
        &self,
        place: &Place,
        user: &User,
        game: Option<i64>,
    ) -> Result<(i64, i64), ServiceError> {
        let state = self.game_for(place, user, game).await?;
        let me = self.player(user).await?.id;
        state
            .color_of(me)
            .ok_or(ServiceError::NotAPlayer(state.row.id))?;
        Ok((state.row.id, me))
    }
}
