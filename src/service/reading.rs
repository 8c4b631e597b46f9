//! Reading a chat line as a move: which of the writer's games here it is meant for, and how
//! much of it is the move (a move may be followed by a short remark or an emoji).

use super::games::awaits;
use super::{Place, Service, ServiceError, User};
use crate::rules::MoveError;

/// A chat line read as a move.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ReadMove {
    /// The game it is for; `None` when it plays in several (the player must say which).
    pub game: Option<i64>,
    /// The move itself, without any remark after it.
    pub text: String,
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
                    Ok(_) => legal.push((row.id, words)),
                    Err(MoveError::Syntax { .. }) => continue,
                    Err(_) => meant.push((row.id, words)),
                }
                break;
            }
        }
        Ok(match (legal.len(), legal.pop(), meant.pop()) {
            (1, Some((game, text)), _) | (0, None, Some((game, text))) => Some(ReadMove {
                game: Some(game),
                text,
            }),
            (_, Some((_, text)), _) => Some(ReadMove { game: None, text }),
            _ => None,
        })
    }
}
