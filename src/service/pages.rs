//! What the game pages need from the service: each game's unguessable address, the public
//! base address links use, a game found by its address with its players' ratings, and the
//! changes of games as they are committed, for the pages that follow a running game.

use tokio::sync::broadcast;

use super::{GameState, PageAnalysis, Service, ServiceError, internal};
use crate::store::{GameRow, TournamentRow};

/// How many changes a slow page may fall behind before it skips to the latest.
pub const CHANGES_KEPT: usize = 256;

/// The length of a page address: 16 random bytes in lowercase hex.
const WEB_ID_LEN: usize = 32;

/// A new unguessable page address: 16 bytes from the operating system's CSPRNG, in lowercase
/// hex (the form the migrations give the games stored before).
///
/// # Errors
/// `Internal` when the operating system gives no random bytes.
pub fn new_web_id() -> Result<String, ServiceError> {
    let mut bytes = [0_u8; WEB_ID_LEN / 2];
    getrandom::fill(&mut bytes).map_err(|e| internal(&e))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Whether `text` has the form of a page address (checked before any database is asked).
#[must_use]
pub fn is_web_id(text: &str) -> bool {
    text.len() == WEB_ID_LEN
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// A game that changed: a move was committed or it ended.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GameChange {
    /// The game's number.
    pub game: i64,
    /// Its page address.
    pub web_id: Option<String>,
    /// Its plies now.
    pub ply: i64,
    /// Its revision now (bumped by every move and takeback): which of two changes is newer.
    pub revision: i64,
    /// Whether it is over now.
    pub over: bool,
}

impl GameChange {
    /// The change that brought a game to `row`.
    #[must_use]
    pub fn of(row: &GameRow) -> GameChange {
        GameChange {
            game: row.id,
            web_id: row.web_id.clone(),
            ply: row.ply,
            revision: row.revision,
            over: row.status != "active",
        }
    }

    /// Whether this change comes after `seen` (of the same game): a later revision, or the
    /// end of the game.
    #[must_use]
    pub fn is_after(&self, seen: &GameChange) -> bool {
        self.revision > seen.revision || (self.revision == seen.revision && self.over && !seen.over)
    }
}

/// A player's rating as a page shows it: the current rating in the game's variant and
/// community, and for a finished rated game what it changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PageRating {
    /// The rating now, rounded.
    pub rating: i64,
    /// What this game changed it by, once it was rated.
    pub change: Option<i64>,
}

/// A game for its page: the replayed game and both players' ratings (White's first; `None`
/// for a player with no rated game in the variant there yet).
#[derive(Debug, Clone)]
pub struct PageGame {
    pub state: GameState,
    pub ratings: [Option<PageRating>; 2],
    /// Its analysis, once it ended.
    pub analysis: PageAnalysis,
}

impl Service {
    /// The same service with the public base address of the game pages (such as
    /// `https://pigeon.example.org`): game messages, `games` and `export` then link to them.
    #[must_use]
    pub fn with_public_url(mut self, base: &str) -> Service {
        self.public_url = Some(base.trim_end_matches('/').into());
        self
    }

    /// The public base address of the game pages, when they are served.
    #[must_use]
    pub fn public_url(&self) -> Option<&str> {
        self.public_url.as_deref()
    }

    /// The address of a game's page, when the pages are served.
    #[must_use]
    pub fn page_url(&self, row: &GameRow) -> Option<String> {
        let base = self.public_url.as_deref()?;
        let id = row.web_id.as_deref()?;
        Some(format!("{base}/g/{id}"))
    }

    /// The address of a tournament's page, when the pages are served.
    #[must_use]
    pub fn tournament_page_url(&self, row: &TournamentRow) -> Option<String> {
        let base = self.public_url.as_deref()?;
        let id = row.web_id.as_deref()?;
        Some(format!("{base}/t/{id}"))
    }

    /// The changes of games from now on, as they are committed by this process.
    #[must_use]
    pub fn subscribe(&self) -> broadcast::Receiver<GameChange> {
        self.changes.subscribe()
    }

    /// Tells the pages following a game that it changed (called after the change committed).
    pub(super) fn publish(&self, state: &GameState) {
        if !state.is_active() {
            // The store queued its analysis with its end.
            self.wake_analyst();
        }
        // Nobody listening is no failure.
        let _ = self.changes.send(GameChange {
            over: !state.is_active(),
            ..GameChange::of(&state.row)
        });
    }

    /// Game `id` as it is stored now, whichever process changed it last: what the pages of
    /// a running game look at, for the moves made by other processes.
    ///
    /// # Errors
    /// `Internal` when the database fails.
    pub async fn game_now(&self, id: i64) -> Result<Option<GameChange>, ServiceError> {
        Ok(self.store.game(id).await?.as_ref().map(GameChange::of))
    }

    /// The game whose page is `/g/<web_id>`, with its players' ratings; `None` for an address
    /// that names no game.
    ///
    /// # Errors
    /// `Internal` when the database fails or the game does not replay.
    pub async fn page_game(&self, web_id: &str) -> Result<Option<PageGame>, ServiceError> {
        if !is_web_id(web_id) {
            return Ok(None);
        }
        let Some(row) = self.store.game_by_web_id(web_id).await? else {
            return Ok(None);
        };
        let state = self.load(row.id).await?;
        let changes = if state.row.rated {
            self.store.game_rating_changes(state.row.id).await?
        } else {
            Vec::new()
        };
        let community = state.row.community.as_deref().unwrap_or(&state.row.channel);
        let mut ratings = [None, None];
        for (slot, player) in ratings.iter_mut().zip([&state.white, &state.black]) {
            let rows = self.store.ratings_of(player.id, community).await?;
            *slot = rows
                .iter()
                .find(|r| r.game_key == state.variant.key())
                .map(|r| PageRating {
                    rating: r.rating.round() as i64,
                    change: changes
                        .iter()
                        .find(|(id, ..)| *id == player.id)
                        .map(|&(_, before, after)| (after.round() - before.round()) as i64),
                });
        }
        let analysis = match self.page_analysis(&state).await {
            Ok(analysis) => analysis,
            Err(ServiceError::Internal(reference)) => {
                // The game's page is still right: the analysis is only left out.
                tracing::warn!(
                    game = state.row.id,
                    reference,
                    "the analysis is left out of the page"
                );
                PageAnalysis::None
            }
            Err(other) => return Err(other),
        };
        Ok(Some(PageGame {
            state,
            ratings,
            analysis,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_addresses_are_32_hex_digits_and_differ() {
        let a = new_web_id().expect("random bytes");
        let b = new_web_id().expect("random bytes");
        assert!(is_web_id(&a), "{a}");
        assert_ne!(a, b);
        assert!(!is_web_id("1"));
        assert!(!is_web_id(&a.to_uppercase()));
        assert!(!is_web_id(&format!("{}g", &a[1..])));
    }
}
