//! Reading a chat line as a move: which of the writer's games here it is meant for, and how
//! much of it is the move (a move may be followed by a short remark or an emoji).

use super::clocks::clocked_out;
use super::games::awaits;
use super::{GameState, MoveDone, Place, Service, ServiceError, User, closest};
use crate::rules::MoveError;
use crate::store::PlayerRow;

/// A chat line read as a move.
#[derive(Debug, Clone)]
pub struct ReadMove {
    /// The game it is for; `None` when it plays in several (the player must say which).
    pub game: Option<i64>,
    /// The move itself, without any remark after it.
    pub text: String,
    /// The writer and that game as they were read, so that playing the move reads neither
    /// again ([`Service::play_read`]); the move's write still checks that the game has not
    /// changed since.
    read: Option<Box<(PlayerRow, GameState)>>,
}

/// The text, then the text without its last word, and so on down to its first word.
fn leading_words(text: &str) -> impl Iterator<Item = String> + '_ {
    let words: Vec<&str> = text.split_whitespace().collect();
    (1..=words.len()).rev().map(move |n| words[..n].join(" "))
}

impl Service {
    /// Reads `text` as a move of `user` in one of their games here that awaits their move:
    /// the longest run of its leading words that the game reads as a move, legal or not (an
    /// illegal move is still meant as a move). `None` when it is no move in any of them, or
    /// when the user is unknown here: nothing is written, so chatter leaves no trace.
    ///
    /// # Errors
    /// `Internal` or [`ServiceError::CannotSave`] when the database fails.
    pub async fn read_move(
        &self,
        place: &Place,
        user: &User,
        text: &str,
    ) -> Result<Option<ReadMove>, ServiceError> {
        let Some(me) = self
            .store
            .player_by_platform_id(&user.platform, &user.id)
            .await?
        else {
            return Ok(None);
        };
        let rows = self
            .store
            .active_games_in(&place.platform, &place.channel, me.id)
            .await?;
        let (mut legal, mut meant) = (Vec::new(), Vec::new());
        for row in rows.iter().filter(|row| awaits(row, me.id)) {
            let state = self.load(row.id).await?;
            for words in leading_words(text) {
                let mut record = state.record.clone();
                match record.play(&words) {
                    Ok(_) => legal.push((state, words)),
                    Err(MoveError::Syntax { .. }) => continue,
                    Err(_) => meant.push((state, words)),
                }
                break;
            }
        }
        let one = |(state, text): (GameState, String)| ReadMove {
            game: Some(state.row.id),
            text,
            read: Some(Box::new((me.clone(), state))),
        };
        Ok(match (legal.len(), legal.pop(), meant.pop()) {
            (1, Some(read), _) | (0, None, Some(read)) => Some(one(read)),
            (_, Some((_, text)), _) => Some(ReadMove {
                game: None,
                text,
                read: None,
            }),
            _ => None,
        })
    }

    /// Plays a move read by [`Service::read_move`] in the game it was read in, from the game
    /// as it was read; as [`Service::play`], which it is when the line could mean several
    /// games, the writer's name has changed, the game's time has run out (to be ended first)
    /// or the game changed before the move could be written.
    ///
    /// # Errors
    /// As [`Service::play`].
    pub async fn play_read(
        &self,
        place: &Place,
        user: &User,
        read: ReadMove,
    ) -> Result<MoveDone, ServiceError> {
        if let Some(known) = read.read
            && known.0.display_name == user.name
            && !clocked_out(&known.1.row, self.now())
        {
            let (me, state) = *known;
            match self.move_in(state, me.id, &read.text).await {
                // The game moved since it was read (a move, a takeback, its end): answered
                // from the game as it is now, as a move read anew.
                Err(ServiceError::Changed) => {}
                done => return done,
            }
        }
        self.play(place, user, read.game, &read.text).await
    }

    /// The active games of a known `user` here, loaded, with whether each awaits their move;
    /// nothing for a user unknown here (and nothing is written).
    async fn games_here(
        &self,
        place: &Place,
        user: &User,
    ) -> Result<Vec<(GameState, bool)>, ServiceError> {
        let Some(me) = self
            .store
            .player_by_platform_id(&user.platform, &user.id)
            .await?
        else {
            return Ok(Vec::new());
        };
        let rows = self
            .store
            .active_games_in(&place.platform, &place.channel, me.id)
            .await?;
        let mut games = Vec::with_capacity(rows.len());
        for row in rows {
            let mine = awaits(&row, me.id);
            games.push((self.load(row.id).await?, mine));
        }
        Ok(games)
    }

    /// Whether `text` (or a run of its leading words) reads as a move in one of `user`'s
    /// games here, whoever is to move: a move typed out of turn is still a move, while
    /// "hello pigeon" is none.
    ///
    /// # Errors
    /// `Internal` or [`ServiceError::CannotSave`] when the database fails.
    pub async fn is_move_here(
        &self,
        place: &Place,
        user: &User,
        text: &str,
    ) -> Result<bool, ServiceError> {
        Ok(self
            .games_here(place, user)
            .await?
            .iter()
            .any(|(state, _)| {
                leading_words(text).any(|words| {
                    !matches!(
                        state.record.clone().play(&words),
                        Err(MoveError::Syntax { .. })
                    )
                })
            }))
    }

    /// The legal moves closest to `text` in `user`'s games here awaiting their move (or in
    /// game `game`), in display notation, at most `limit`: for "did you mean".
    ///
    /// # Errors
    /// `Internal` or [`ServiceError::CannotSave`] when the database fails.
    pub async fn moves_near(
        &self,
        place: &Place,
        user: &User,
        game: Option<i64>,
        text: &str,
        limit: usize,
    ) -> Result<Vec<String>, ServiceError> {
        let games: Vec<GameState> = match game {
            Some(id) => vec![self.load(id).await?],
            None => self
                .games_here(place, user)
                .await?
                .into_iter()
                .filter_map(|(state, mine)| mine.then_some(state))
                .collect(),
        };
        let mut texts = Vec::new();
        for state in games.iter().filter(|state| state.is_active()) {
            let position = state.record.position();
            texts.extend(
                position
                    .legal_moves()
                    .iter()
                    .map(|mv| position.display_move(mv)),
            );
        }
        let typed = text.split_whitespace().next().unwrap_or(text);
        Ok(closest(typed, texts.iter().map(String::as_str), limit)
            .into_iter()
            .map(str::to_owned)
            .collect())
    }
}
