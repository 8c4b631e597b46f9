//! What a tournament's web page shows, found by its unguessable address: the standings, and
//! every game of every round with its players, result and page, and the byes.

use super::{Service, ServiceError, Standings, rounds::FORFEIT};
use crate::service::is_web_id;

/// One game of a tournament, for its page.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TournamentGame {
    /// The game's number.
    pub number: i64,
    pub round: i64,
    /// White's and Black's index in the tournament's players.
    pub white: usize,
    pub black: usize,
    /// `1-0`, `0-1` or `1/2-1/2` once it ended with a result.
    pub result: Option<String>,
    /// Whether it was forfeited (a withdrawal) rather than played out.
    pub forfeit: bool,
    /// Whether it is still being played.
    pub active: bool,
    /// The path of its page, `/g/<web_id>`.
    pub path: Option<String>,
}

/// A tournament for its page.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TournamentPage {
    /// The tournament, its players and its standings.
    pub standings: Standings,
    /// Every game, by round and number.
    pub games: Vec<TournamentGame>,
    /// The pairing-allocated byes: (round, the player's index).
    pub byes: Vec<(i64, usize)>,
}

impl Service {
    /// The tournament whose page is `/t/<web_id>`; `None` for an address that names none.
    ///
    /// # Errors
    /// `Internal` when the database fails.
    pub async fn tournament_page(
        &self,
        web_id: &str,
    ) -> Result<Option<TournamentPage>, ServiceError> {
        if !is_web_id(web_id) {
            return Ok(None);
        }
        let Some(row) = self.store.tournament_by_web_id(web_id).await? else {
            return Ok(None);
        };
        let info = self.tournament_info(&row).await?;
        let index = |id: i64| info.players.iter().position(|e| e.player_id == id);
        let games = self
            .store
            .tournament_games(row.id)
            .await?
            .into_iter()
            .filter_map(|game| {
                Some(TournamentGame {
                    number: game.id,
                    round: game.tournament_round?,
                    white: index(game.white_id)?,
                    black: index(game.black_id)?,
                    forfeit: game.end_reason.as_deref() == Some(FORFEIT),
                    active: game.status == "active",
                    path: game.web_id.as_ref().map(|id| format!("/g/{id}")),
                    result: game.result,
                })
            })
            .collect();
        let byes = self
            .store
            .tournament_byes(row.id)
            .await?
            .into_iter()
            .filter_map(|(round, player)| Some((round, index(player)?)))
            .collect();
        let standings = self.standings_of(&row, info).await?;
        Ok(Some(TournamentPage {
            standings,
            games,
            byes,
        }))
    }
}
