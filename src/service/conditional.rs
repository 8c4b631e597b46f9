//! Conditional moves: "if they play X, I reply Y". A player stores, per game, up to
//! [`MOST_LINES`] lines of up to [`LONGEST_LINE`] plies while the opponent is to move, each
//! alternating the opponent's expected move and the player's reply. Every move of a line is
//! checked at entry, from the position it would be played in.
//!
//! The lines are resolved against the game's moves, which makes answering them exactly once
//! safe however it is reached: right after the opponent's move (the chat layer asks), or by
//! the clocks, which look at every game whose lines the game went past (a process that stopped
//! between the opponent's move and the reply). A reply is played by the same path as a typed
//! move, guarded by the ply, so two processes never both play it; the lines are then shortened
//! by the two plies, and every line the opponent's move did not follow is dropped.

use tracing::{info, warn};

use super::moves::MoveDone;
use super::{GameState, Place, Service, ServiceError, User};
use crate::rules::{MoveError, Played, Record, VariantPosition};
use crate::store::{ConditionalRow, PlayerRow, StoreError};

/// The most lines a player may store in one game.
pub const MOST_LINES: usize = 30;
/// The most plies in a line.
pub const LONGEST_LINE: usize = 30;
/// How many words one move may take (Chesscala's sowings and two-part turns take several).
const MOST_WORDS: usize = 6;

/// A stored line: the ply where the opponent's expected move comes, and the plies.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Line {
    pub ply: i64,
    /// The moves in the interchange notation.
    pub moves: Vec<String>,
}

impl Line {
    fn of(row: &ConditionalRow) -> Line {
        Line {
            ply: row.ply,
            moves: row.moves.split(';').map(str::to_owned).collect(),
        }
    }

    fn stored(&self) -> (i64, String) {
        (self.ply, self.moves.join(";"))
    }
}

/// What became of a line once the game went on.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Fate {
    /// Still waiting for the opponent's move (perhaps after replies already played).
    Waits(Line),
    /// The opponent played the expected move: the reply is due now.
    Reply(String),
    /// The game did not follow the line (or it is used up).
    Dropped,
}

/// Follows a line along the game's moves `played` (all plies so far); `to_move` is whether the
/// line's owner is to move in the game now.
fn follow(mut line: Line, played: &[String], to_move: bool) -> Fate {
    loop {
        let Ok(ply) = usize::try_from(line.ply) else {
            return Fate::Dropped;
        };
        if line.moves.len() < 2 {
            return Fate::Dropped;
        }
        let Some(theirs) = played.get(ply) else {
            return Fate::Waits(line);
        };
        if *theirs != line.moves[0] {
            return Fate::Dropped;
        }
        match played.get(ply + 1) {
            None if to_move => return Fate::Reply(line.moves[1].clone()),
            Some(mine) if *mine == line.moves[1] => {
                line.ply += 2;
                line.moves.drain(..2);
            }
            // Not the owner's move after all (the game is over), or another move played.
            _ => return Fate::Dropped,
        }
    }
}

/// What answering the lines of a game did.
#[derive(Debug, Clone, Default)]
pub struct Answered {
    /// The reply played for a player, if one was due.
    pub played: Option<Box<MoveDone>>,
    /// The player whose lines the opponent's move did not follow, and how many were dropped.
    pub dropped: Option<(PlayerRow, usize)>,
}

/// Reads a line typed after `if`: the moves in turn, each the longest run of words the
/// position reads as a move (or, with `;` in the text, each part between them); `then` between
/// moves is skipped. Gives the moves played on a copy of the record.
///
/// # Errors
/// [`ServiceError::BadLine`] naming the first move that does not play, and why.
fn read_line(record: &Record, text: &str, game: i64) -> Result<Vec<Played>, ServiceError> {
    let mut record = record.clone();
    let mut played = Vec::new();
    let bad = |index: usize, error: MoveError| ServiceError::BadLine {
        game,
        index: index + 1,
        error,
    };
    if text.contains(';') {
        for (index, part) in text
            .split(';')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .enumerate()
        {
            let part = part.strip_prefix("then ").unwrap_or(part);
            played.push(record.play(part).map_err(|e| bad(index, e))?.clone());
            if record.play_forced_pass().is_some() {
                return Err(ServiceError::LineThroughPass { game });
            }
        }
        return Ok(played);
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut at = 0;
    while at < words.len() {
        if words[at].eq_ignore_ascii_case("then") {
            at += 1;
            continue;
        }
        let longest = MOST_WORDS.min(words.len() - at);
        let mut found = None;
        for length in (1..=longest).rev() {
            let mut attempt = record.clone();
            if let Ok(move_played) = attempt.play(&words[at..at + length].join(" ")) {
                found = Some((length, move_played.clone(), attempt));
                break;
            }
        }
        let Some((length, move_played, next)) = found else {
            let error = record.play(words[at]).err().unwrap_or(MoveError::GameOver);
            return Err(bad(played.len(), error));
        };
        record = next;
        played.push(move_played);
        at += length;
        if record.play_forced_pass().is_some() {
            return Err(ServiceError::LineThroughPass { game });
        }
    }
    Ok(played)
}

/// The position a line typed so far leads to in a game (for completing the next move as it
/// is typed); `None` when the line does not play.
#[must_use]
pub fn position_after_line(state: &GameState, text: &str) -> Option<VariantPosition> {
    let mut record = state.record.clone();
    for played in read_line(&state.record, text, state.row.id).ok()? {
        record.play(&played.text).ok()?;
    }
    Some(record.position().clone())
}

impl Service {
    /// The game a conditional line is about: an active game of `user` against a person,
    /// where the opponent is to move.
    async fn conditional_game(
        &self,
        place: &Place,
        user: &User,
        game: Option<i64>,
    ) -> Result<(GameState, PlayerRow), ServiceError> {
        let (state, color) = self.my_active_game(place, user, game).await?;
        let id = state.row.id;
        if state.bot_side().is_some() {
            return Err(ServiceError::ConditionalAgainstBot(id));
        }
        let me = state.player(color).clone();
        Ok((state, me))
    }

    /// Adds a conditional line of `user` in a game; gives the game and the player's lines.
    ///
    /// # Errors
    /// Not a player, no game, the game is over, a game against the bot, the player's own
    /// move, a move of the line that does not play, too long a line or too many, a line that
    /// answers the same moves differently, or the game moving on meanwhile.
    pub async fn add_conditional(
        &self,
        place: &Place,
        user: &User,
        game: Option<i64>,
        text: &str,
    ) -> Result<(GameState, Vec<Vec<String>>), ServiceError> {
        let (state, me) = self.conditional_game(place, user, game).await?;
        let id = state.row.id;
        if state.to_move().is_some_and(|p| p.id == me.id) {
            return Err(ServiceError::ConditionalOnYourMove(id));
        }
        let played = read_line(&state.record, text, id)?;
        if played.len() < 2 || played.len() % 2 != 0 {
            return Err(ServiceError::LineShape { game: id });
        }
        if played.len() > LONGEST_LINE {
            return Err(ServiceError::LineTooLong {
                game: id,
                most: LONGEST_LINE,
            });
        }
        let moves: Vec<String> = played.iter().map(|p| p.text.clone()).collect();
        let lines = self.lines_of(id, me.id).await?;
        let current: Vec<&Line> = lines.iter().filter(|l| l.ply == state.row.ply).collect();
        if current.len() >= MOST_LINES {
            return Err(ServiceError::TooManyLines {
                game: id,
                most: MOST_LINES,
            });
        }
        for line in &current {
            let same = line
                .moves
                .iter()
                .zip(&moves)
                .take_while(|(a, b)| a == b)
                .count();
            if same == moves.len().min(line.moves.len()) {
                return Err(ServiceError::LineKnown { game: id });
            }
            if same % 2 == 1 {
                return Err(ServiceError::LineDisagrees {
                    game: id,
                    after: played[same - 1].display.clone(),
                });
            }
        }
        self.store
            .add_conditional(id, me.id, state.row.ply, &moves.join(";"), self.now())
            .await?;
        info!(game = id, plies = moves.len(), "conditional line stored");
        let shown = self.shown_lines(&state, me.id).await?;
        Ok((state, shown))
    }

    /// The conditional lines of `user` in a game, in the display notation.
    ///
    /// # Errors
    /// As for finding the game.
    pub async fn conditionals(
        &self,
        place: &Place,
        user: &User,
        game: Option<i64>,
    ) -> Result<(GameState, Vec<Vec<String>>), ServiceError> {
        let (state, me) = self.conditional_game(place, user, game).await?;
        let shown = self.shown_lines(&state, me.id).await?;
        Ok((state, shown))
    }

    /// Drops every conditional line of `user` in a game; gives how many there were.
    ///
    /// # Errors
    /// As for finding the game.
    pub async fn clear_conditionals(
        &self,
        place: &Place,
        user: &User,
        game: Option<i64>,
    ) -> Result<(GameState, usize), ServiceError> {
        let (state, me) = self.conditional_game(place, user, game).await?;
        let count = self.lines_of(state.row.id, me.id).await?.len();
        self.store
            .replace_conditionals(state.row.id, me.id, None, &[], self.now())
            .await?;
        Ok((state, count))
    }

    async fn lines_of(&self, game: i64, player: i64) -> Result<Vec<Line>, ServiceError> {
        Ok(self
            .store
            .conditionals(game)
            .await?
            .iter()
            .filter(|row| row.player_id == player)
            .map(Line::of)
            .collect())
    }

    /// A player's lines waiting in the game's current position, in the display notation.
    async fn shown_lines(
        &self,
        state: &GameState,
        player: i64,
    ) -> Result<Vec<Vec<String>>, ServiceError> {
        let mut shown = Vec::new();
        for line in self.lines_of(state.row.id, player).await? {
            if line.ply != state.row.ply {
                continue;
            }
            let mut record = state.record.clone();
            let mut plies = Vec::new();
            for text in &line.moves {
                match record.play(text) {
                    Ok(played) => plies.push(played.display.clone()),
                    Err(_) => break,
                }
            }
            shown.push(plies);
        }
        Ok(shown)
    }

    /// Answers the conditional lines of a game the game went past: plays the reply due (by
    /// the path of a typed move, with a notice of it when `announce` is set: the clocks
    /// played it), shortens the lines it followed and drops the others.
    ///
    /// # Errors
    /// The game failing to load, or the database failing.
    pub async fn answer_conditionals(
        &self,
        game: i64,
        announce: bool,
    ) -> Result<Answered, ServiceError> {
        let mut answered = Answered::default();
        let mut replied_for = None;
        // A reply played moves the game on; its lines are looked at again after it (at most
        // once more: the next expected move is the opponent's).
        for _ in 0..2 {
            let rows = self.store.conditionals(game).await?;
            if rows.is_empty() {
                break;
            }
            let state = self.load(game).await?;
            if !state.is_active() {
                // A game over has nothing to answer.
                for owner in [state.white.id, state.black.id] {
                    self.store
                        .replace_conditionals(game, owner, None, &[], self.now())
                        .await?;
                }
                break;
            }
            let played: Vec<String> = state
                .record
                .moves()
                .iter()
                .map(|p| p.text.clone())
                .collect();
            let mut owners: Vec<i64> = rows.iter().map(|row| row.player_id).collect();
            owners.sort_unstable();
            owners.dedup();
            let mut reply = None;
            for owner in owners {
                let lines: Vec<Line> = rows
                    .iter()
                    .filter(|row| row.player_id == owner)
                    .map(Line::of)
                    .collect();
                let to_move = state.to_move().is_some_and(|p| p.id == owner);
                let before = lines.clone();
                let mut kept = Vec::new();
                let mut due = None;
                for line in lines {
                    match follow(line, &played, to_move) {
                        Fate::Waits(line) => kept.push(line),
                        Fate::Reply(text) => due = due.or(Some(text)),
                        Fate::Dropped => {}
                    }
                }
                if due.is_some() {
                    // The lines stay as they are until the reply is played; answering again
                    // shortens them.
                    reply = due.map(|text| (owner, text));
                    continue;
                }
                if kept == before {
                    continue;
                }
                let gone_past = before
                    .iter()
                    .filter(|l| usize::try_from(l.ply).is_ok_and(|p| p < played.len()))
                    .count();
                let stored: Vec<(i64, String)> = kept.iter().map(Line::stored).collect();
                let read: Vec<i64> = rows
                    .iter()
                    .filter(|row| row.player_id == owner)
                    .map(|row| row.id)
                    .collect();
                match self
                    .store
                    .replace_conditionals(game, owner, Some(&read), &stored, self.now())
                    .await
                {
                    Ok(()) => {}
                    // Another process answered these lines first, or the player changed them.
                    Err(StoreError::Conflict) => continue,
                    Err(error) => return Err(error.into()),
                }
                let replied = replied_for == Some(owner);
                if kept.is_empty() && gone_past > 0 && !replied {
                    let player = if state.white.id == owner {
                        state.white.clone()
                    } else {
                        state.black.clone()
                    };
                    answered.dropped = Some((player, gone_past));
                }
            }
            let Some((owner, text)) = reply else {
                break;
            };
            let Some(color) = state.color_of(owner) else {
                break;
            };
            match self.apply_move(state, color, owner, &text, announce).await {
                Ok(done) => {
                    info!(game, "conditional move played");
                    answered.played = Some(Box::new(done));
                    replied_for = Some(owner);
                }
                // Another process played it, or the game moved on: look again.
                Err(ServiceError::Changed) => {}
                // The game waits for the operator, and its lines with it.
                Err(ServiceError::OnHold(_)) => break,
                Err(error) => {
                    warn!(game, %error, "a conditional move did not play; the lines are dropped");
                    self.store
                        .replace_conditionals(game, owner, None, &[], self.now())
                        .await?;
                    break;
                }
            }
        }
        Ok(answered)
    }

    /// The clocks' part: answers the lines of every game that went past them.
    pub(super) async fn run_conditionals(&self) {
        let games = match self.store.conditional_games_due().await {
            Ok(games) => games,
            Err(error) => {
                warn!(%error, "reading the conditional lines due failed");
                return;
            }
        };
        for game in games {
            if let Err(error) = self.answer_conditionals(game, true).await {
                warn!(game, %error, "answering conditional lines failed");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(ply: i64, moves: &[&str]) -> Line {
        Line {
            ply,
            moves: moves.iter().map(|m| (*m).to_owned()).collect(),
        }
    }

    fn played(moves: &[&str]) -> Vec<String> {
        moves.iter().map(|m| (*m).to_owned()).collect()
    }

    #[test]
    fn a_line_waits_replies_shortens_and_drops() {
        let l = line(1, &["e7e5", "d2d4", "e5d4", "d1d4"]);
        let start = played(&["e2e4"]);
        assert_eq!(follow(l.clone(), &start, false), Fate::Waits(l.clone()));
        let theirs = played(&["e2e4", "e7e5"]);
        assert_eq!(
            follow(l.clone(), &theirs, true),
            Fate::Reply(String::from("d2d4"))
        );
        let replied = played(&["e2e4", "e7e5", "d2d4"]);
        assert_eq!(
            follow(l.clone(), &replied, false),
            Fate::Waits(line(3, &["e5d4", "d1d4"]))
        );
        let other = played(&["e2e4", "c7c5"]);
        assert_eq!(follow(l.clone(), &other, true), Fate::Dropped);
        let done = played(&["e2e4", "e7e5", "d2d4", "e5d4", "d1d4"]);
        assert_eq!(follow(l, &done, false), Fate::Dropped);
    }
}
