//! Caps that keep one account from flooding a community: open challenges, running games,
//! games against the bot, and challenges to the same opponent. Each community may change
//! them; the counts are taken over the player's whole platform.

use std::fmt;

use super::{Place, Service, ServiceError};
use crate::store::{CapsRow, PlayerRow};

/// One cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cap {
    /// Open challenges a player has sent.
    Challenges,
    /// Games a player plays against people at once.
    Games,
    /// Games a player plays against the bot at once.
    BotGames,
    /// Open challenges from one player to the same opponent in the same game.
    PerOpponent,
}

impl Cap {
    /// Every cap, in the order they are listed.
    pub const ALL: [Cap; 4] = [Cap::Challenges, Cap::Games, Cap::BotGames, Cap::PerOpponent];

    /// The word that names the cap in the `limits` command.
    #[must_use]
    pub const fn key(self) -> &'static str {
        match self {
            Cap::Challenges => "challenges",
            Cap::Games => "games",
            Cap::BotGames => "bot",
            Cap::PerOpponent => "opponent",
        }
    }

    /// Reads the word of a cap (a few synonyms too).
    #[must_use]
    pub fn from_word(word: &str) -> Option<Cap> {
        match word.to_ascii_lowercase().as_str() {
            "challenges" | "challenge" => Some(Cap::Challenges),
            "games" | "game" => Some(Cap::Games),
            "bot" | "bots" | "pigeon" => Some(Cap::BotGames),
            "opponent" | "same" | "rechallenges" => Some(Cap::PerOpponent),
            _ => None,
        }
    }

    /// The value when a community has not changed it.
    #[must_use]
    pub const fn default_value(self) -> i64 {
        match self {
            Cap::Challenges => 10,
            Cap::Games => 100,
            Cap::BotGames => 5,
            Cap::PerOpponent => 1,
        }
    }

    /// The highest value a community may set.
    #[must_use]
    pub const fn most(self) -> i64 {
        match self {
            Cap::Challenges => 100,
            Cap::Games => 1000,
            Cap::BotGames => 50,
            Cap::PerOpponent => 10,
        }
    }
}

impl fmt::Display for Cap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Cap::Challenges => "open challenges per player",
            Cap::Games => "running games per player",
            Cap::BotGames => "games against me per player",
            Cap::PerOpponent => "open challenges to the same opponent in one game",
        })
    }
}

/// A community's caps, defaults filled in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Caps(CapsRow);

impl Caps {
    /// The value of `cap`.
    #[must_use]
    pub fn get(&self, cap: Cap) -> i64 {
        let stored = match cap {
            Cap::Challenges => self.0.max_open_challenges,
            Cap::Games => self.0.max_active_games,
            Cap::BotGames => self.0.max_bot_games,
            Cap::PerOpponent => self.0.max_challenges_per_opponent,
        };
        stored.unwrap_or(cap.default_value())
    }

    fn set(&mut self, cap: Cap, value: i64) {
        let slot = match cap {
            Cap::Challenges => &mut self.0.max_open_challenges,
            Cap::Games => &mut self.0.max_active_games,
            Cap::BotGames => &mut self.0.max_bot_games,
            Cap::PerOpponent => &mut self.0.max_challenges_per_opponent,
        };
        *slot = (value != cap.default_value()).then_some(value);
    }
}

/// What a new challenge or game would add to a player's count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Adding {
    /// A challenge to people (and the game it would lead to).
    Challenge,
    /// A game between people.
    Game,
    /// A game against the bot.
    BotGame,
}

impl Service {
    /// The caps of `place`'s community.
    ///
    /// # Errors
    /// `Internal` or [`ServiceError::CannotSave`] when the database fails.
    pub async fn caps(&self, place: &Place) -> Result<Caps, ServiceError> {
        Ok(Caps(
            self.store.caps(&place.platform, &place.community).await?,
        ))
    }

    /// Changes one cap of `place`'s community (the adapters let only the community's managers
    /// ask).
    ///
    /// # Errors
    /// [`ServiceError::BadCap`] for a value out of range; `Internal` or
    /// [`ServiceError::CannotSave`] when the database fails.
    pub async fn set_cap(&self, place: &Place, cap: Cap, value: i64) -> Result<Caps, ServiceError> {
        if !(1..=cap.most()).contains(&value) {
            return Err(ServiceError::BadCap {
                cap,
                most: cap.most(),
            });
        }
        let mut caps = self.caps(place).await?;
        caps.set(cap, value);
        self.store
            .set_caps(&place.platform, &place.community, &caps.0)
            .await?;
        Ok(caps)
    }

    /// Refuses what would take `player` over a cap of `place`'s community. `me` tells whether
    /// `player` is the one asking (the words differ).
    pub(super) async fn check_caps(
        &self,
        place: &Place,
        player: &PlayerRow,
        adding: Adding,
        me: bool,
    ) -> Result<(), ServiceError> {
        let caps = self.caps(place).await?;
        let counts = self.store.counts(player.id, self.now()).await?;
        let over = |cap: Cap, count: i64| {
            (count >= caps.get(cap)).then(|| ServiceError::OverCap {
                cap,
                limit: caps.get(cap),
                who: (!me).then(|| player.display_name.clone()),
            })
        };
        let refusal = match adding {
            Adding::Challenge => over(Cap::Challenges, counts.open_challenges)
                .or_else(|| over(Cap::Games, counts.active_games)),
            Adding::Game => over(Cap::Games, counts.active_games),
            Adding::BotGame => over(Cap::BotGames, counts.bot_games),
        };
        refusal.map_or(Ok(()), Err)
    }

    /// Refuses a challenge to `challenged` in the game of `challenge` when the challenger has
    /// as many open to them as the community allows, pointing at the oldest.
    pub(super) async fn check_repeat_challenge(
        &self,
        place: &Place,
        challenger: &PlayerRow,
        challenged: &PlayerRow,
        game_key: &str,
    ) -> Result<(), ServiceError> {
        let caps = self.caps(place).await?;
        let open = self
            .store
            .open_challenges_between(challenger.id, challenged.id, game_key, self.now())
            .await?;
        match open.first() {
            Some(&id) if open.len() as i64 >= caps.get(Cap::PerOpponent) => {
                Err(ServiceError::AlreadyChallenged {
                    id,
                    name: challenged.display_name.clone(),
                })
            }
            _ => Ok(()),
        }
    }
}

/// The words of a refusal for a cap: which cap, and how to get under it again.
pub(super) fn over_cap_text(cap: Cap, limit: i64, who: Option<&str>) -> String {
    let how = match (cap, who) {
        (Cap::Challenges, _) => format!(
            "You have {limit} open challenges, the most this community allows ({cap}). \
             `cancel` one, or wait until one is answered or expires."
        ),
        (Cap::Games, None) => format!(
            "You are playing {limit} games already, the most this community allows ({cap}). \
             Finish one before starting another."
        ),
        (Cap::Games, Some(name)) => format!(
            "{name} is playing {limit} games already, the most this community allows ({cap}). \
             The challenge stays open: try again when one of their games has ended."
        ),
        (Cap::BotGames, _) => format!(
            "You have {limit} games against me going on, the most this community allows \
             ({cap}). Finish or `resign` one first."
        ),
        (Cap::PerOpponent, _) => format!(
            "That is {limit} open challenges to the same opponent, the most this community \
             allows ({cap}). `cancel` one first."
        ),
    };
    format!("{how} A community manager can change the caps with `limits`.")
}
