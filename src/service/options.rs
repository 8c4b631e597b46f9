//! Game options chosen in a challenge (the rule set, a start position) and the sandbox: `try`
//! plays moves on a private copy of a position and stores nothing.

use super::{GameState, Place, Service, ServiceError, Terms, User};
use crate::rules::{GameRules, MoveError, Record, Variant, VariantPosition};

impl Terms {
    /// The game and rule set the terms ask for, and the position text the game starts from,
    /// checked by the rules core (a start position's first problem is named).
    ///
    /// # Errors
    /// [`ServiceError::Rules`] for a rule set the game lacks, [`ServiceError::Setup`] for a
    /// position the game cannot start from.
    pub fn start(&self) -> Result<(GameRules, String), ServiceError> {
        let rules = GameRules::new(self.variant, self.rules)?;
        let start = match &self.from {
            Some(text) => rules
                .setup(text)
                .map_err(|error| ServiceError::Setup(error, position_example(self.variant)))?,
            None => rules.start(),
        };
        Ok((rules, start.to_text()))
    }
}

/// The standard start of `variant` in its position text, as an example of the format.
fn position_example(variant: Variant) -> String {
    VariantPosition::start(variant).to_text()
}

/// What `try` found: the moves it could play from a position, and the move that stopped it.
#[derive(Debug, Clone)]
pub struct Tried {
    /// The game tried on, when it was a game's position.
    pub game: Option<Box<GameState>>,
    /// The moves played from the position tried on.
    pub record: Record,
    /// The move text that did not play, with why.
    pub stopped: Option<(String, MoveError)>,
}

impl Tried {
    /// Plays `moves` (one move text each; a Chesscala turn may hold spaces only as commas)
    /// from `start` until one does not play.
    fn play(game: Option<GameState>, start: VariantPosition, moves: &[String]) -> Tried {
        let mut record = Record::new(start);
        let mut stopped = None;
        for text in moves {
            if let Err(error) = record.play(text) {
                stopped = Some((text.clone(), error));
                break;
            }
            while record.play_forced_pass().is_some() {}
        }
        Tried {
            game: game.map(Box::new),
            record,
            stopped,
        }
    }
}

impl Service {
    /// Plays `moves` on a private copy of a game's current position: nothing is stored.
    ///
    /// # Errors
    /// The game cannot be found here, or no moves were given.
    pub async fn try_moves(
        &self,
        place: &Place,
        user: &User,
        game: Option<i64>,
        moves: &[String],
    ) -> Result<Tried, ServiceError> {
        let state = self.game_for(place, user, game).await?;
        if moves.is_empty() {
            return Err(ServiceError::NothingToTry(state.row.id));
        }
        let start = state.record.position().clone();
        Ok(Tried::play(Some(state), start, moves))
    }

    /// Plays moves from any position of a game: `words` are the position text (`start` for
    /// the standard one) and then the moves; the position is the longest run of leading words
    /// that reads as one.
    ///
    /// # Errors
    /// [`ServiceError::Setup`] when no leading words make a position a game can be played
    /// from.
    pub fn try_position(&self, rules: GameRules, words: &[String]) -> Result<Tried, ServiceError> {
        let split = (1..=words.len())
            .rev()
            .find(|&end| rules.position(&words[..end].join(" ")).is_ok())
            .unwrap_or(words.len());
        let start = rules
            .setup(&words[..split].join(" "))
            .map_err(|error| ServiceError::Setup(error, position_example(rules.variant())))?;
        Ok(Tried::play(None, start, &words[split..]))
    }

    /// Whether games from a position may be rated in the place's community.
    ///
    /// # Errors
    /// When the database fails.
    pub async fn rated_setups(&self, place: &Place) -> Result<bool, ServiceError> {
        Ok(self
            .store
            .rated_setups(&place.platform, &place.community)
            .await?)
    }

    /// Allows or forbids rated games from a position in the place's community (the chat
    /// layer checks that the writer manages it).
    ///
    /// # Errors
    /// When the database fails.
    pub async fn set_rated_setups(&self, place: &Place, rated: bool) -> Result<(), ServiceError> {
        Ok(self
            .store
            .set_rated_setups(&place.platform, &place.community, rated)
            .await?)
    }
}
