//! What adapters offer as a user types: the moves, the conditional lines and the games a
//! command could name, for a platform's autocompletion.

use super::inert;
use crate::service::{Place, Scope, Service, ServiceError, User};

/// The moves a user may play in a game, as they would type them, sorted, keeping those that
/// contain `typed` (ignoring case), at most `limit`: for completing a move as it is typed.
///
/// # Errors
/// No game, several games, or the database failing; [`ServiceError::GameOver`] when the game
/// has ended.
pub async fn move_choices(
    service: &Service,
    place: &Place,
    user: &User,
    game: Option<i64>,
    typed: &str,
    limit: usize,
) -> Result<Vec<String>, ServiceError> {
    let state = service.game_for(place, &inert::user(user), game).await?;
    if let Some(result) = state.result_text() {
        return Err(ServiceError::GameOver {
            game: state.row.id,
            result,
        });
    }
    let position = state.record.position();
    let typed = typed.trim().to_lowercase();
    let mut texts: Vec<String> = position
        .legal_moves()
        .iter()
        .map(|mv| position.display_move(mv))
        .filter(|text| text.to_lowercase().contains(&typed))
        .collect();
    texts.sort();
    texts.truncate(limit);
    Ok(texts)
}

/// The lines a user may be typing after `if` in a game: the line so far (all but its last,
/// unfinished word) with each legal move of the position it leads to that contains the last
/// word (ignoring case), at most `limit`, none longer than `longest` characters.
///
/// # Errors
/// No game, several games, or the database failing.
pub async fn line_choices(
    service: &Service,
    place: &Place,
    user: &User,
    game: Option<i64>,
    typed: &str,
    (limit, longest): (usize, usize),
) -> Result<Vec<String>, ServiceError> {
    let state = service.game_for(place, &inert::user(user), game).await?;
    let typed = typed.trim_start();
    let (so_far, partial) = typed
        .rsplit_once(char::is_whitespace)
        .unwrap_or(("", typed));
    let Some(position) = crate::service::position_after_line(&state, so_far) else {
        return Ok(Vec::new());
    };
    let partial = partial.to_lowercase();
    let mut texts: Vec<String> = position
        .legal_moves()
        .iter()
        .map(|mv| position.display_move(mv))
        .filter(|text| text.to_lowercase().contains(&partial))
        .map(|text| format!("{so_far} {text}").trim_start().to_owned())
        .filter(|line| line.chars().count() <= longest)
        .collect();
    texts.sort();
    texts.truncate(limit);
    Ok(texts)
}

/// Games listed for a scope, used by adapters for autocompletion.
///
/// # Errors
/// [`ServiceError`] when the database fails.
pub async fn open_games(
    service: &Service,
    place: &Place,
    user: &User,
) -> Result<Vec<crate::service::GameSummary>, ServiceError> {
    let games = service
        .games(place, &inert::user(user), Scope::Mine)
        .await?;
    Ok(games.into_iter().filter(|g| g.to_move.is_some()).collect())
}
