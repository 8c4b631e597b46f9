//! Challenges: sending, accepting, declining, cancelling, and rematches. A challenge that
//! repeats an open one between the same two people is refused, and one that answers an open
//! one (a second `rematch`) accepts it.

use tracing::{info, instrument};

use super::caps::Adding;
use super::games::ColorChoice;
use super::{
    CHALLENGE_LIFETIME, ChallengeSummary, DAY, DAYS_PER_MOVE, DEFAULT_DAYS, GameState, Place,
    Service, ServiceError, Terms, User,
};
use crate::rules::{GameRules, RuleSet, Variant};
use crate::store::{ChallengeRow, NewChallenge, NewGame, PlayerRow, StoreError};

/// What a challenge did: a challenge waiting for an answer, or a game that started at once.
#[derive(Debug, Clone)]
pub enum Challenged {
    /// The challenge waits for the opponent (or anyone here).
    Open(Box<ChallengeSummary>),
    /// A game started at once: against the bot, or by a rematch answering the opponent's.
    Started(Box<GameState>),
}

impl Service {
    /// Challenges `opponent` (or anyone in the channel) to a rated game between people; see
    /// [`Service::challenge_with`] for every choice and for games against the bot.
    ///
    /// # Errors
    /// [`ServiceError::SelfChallenge`], [`ServiceError::BadDays`], or `Internal`.
    pub async fn challenge(
        &self,
        place: &Place,
        user: &User,
        opponent: Option<&User>,
        variant: Variant,
        days: Option<i64>,
        color: ColorChoice,
    ) -> Result<ChallengeSummary, ServiceError> {
        let terms = Terms {
            days,
            color,
            ..Terms::new(variant)
        };
        let me = self.player(user).await?;
        self.challenge_people(place, &me, opponent, &terms).await
    }

    /// Challenges `opponent` (or anyone in the channel) on `terms`. A challenge to the bot
    /// itself starts a casual game against the built-in opponent at once.
    ///
    /// # Errors
    /// [`ServiceError::SelfChallenge`], [`ServiceError::BadDays`],
    /// [`ServiceError::RatedBotGame`], [`ServiceError::LevelForPerson`], or `Internal`.
    #[instrument(skip_all, fields(platform = %place.platform, game = terms.variant.key()))]
    pub async fn challenge_with(
        &self,
        place: &Place,
        user: &User,
        opponent: Option<&User>,
        terms: &Terms,
    ) -> Result<Challenged, ServiceError> {
        let me = self.player(user).await?;
        if let Some(bot) = opponent
            .filter(|opponent| self.is_bot(opponent))
            .and_then(|opponent| self.bot(&opponent.platform))
        {
            if self.is_bot(user) {
                return Err(ServiceError::SelfChallenge);
            }
            let state = self.start_bot_game(place, &me, &bot, terms, None).await?;
            return Ok(Challenged::Started(Box::new(state)));
        }
        if terms.level.is_some() {
            let bot = self
                .bot(&place.platform)
                .map_or_else(|| String::from("pigeon"), |bot| bot.name);
            return Err(ServiceError::LevelForPerson { bot });
        }
        self.challenge_people(place, &me, opponent, terms)
            .await
            .map(|challenge| Challenged::Open(Box::new(challenge)))
    }

    /// A challenge between people, rated unless the terms say casual.
    async fn challenge_people(
        &self,
        place: &Place,
        me: &PlayerRow,
        opponent: Option<&User>,
        terms: &Terms,
    ) -> Result<ChallengeSummary, ServiceError> {
        let days = terms.days.unwrap_or(DEFAULT_DAYS);
        if !DAYS_PER_MOVE.contains(&days) {
            return Err(ServiceError::BadDays);
        }
        let challenged = match opponent {
            Some(opponent) => {
                let them = self.player(opponent).await?;
                if them.id == me.id {
                    return Err(ServiceError::SelfChallenge);
                }
                self.check_same_challenge(place, me, &them, terms, days)
                    .await?;
                self.check_repeat_challenge(place, me, &them, terms.variant.key())
                    .await?;
                Some(them.id)
            }
            None => None,
        };
        // A game from a position is casual unless the challenge says rated.
        let rated = terms.rated.unwrap_or(terms.from.is_none());
        self.create_challenge(place, me, challenged, terms, days, rated)
            .await
    }

    async fn create_challenge(
        &self,
        place: &Place,
        me: &PlayerRow,
        challenged: Option<i64>,
        terms: &Terms,
        days: i64,
        rated: bool,
    ) -> Result<ChallengeSummary, ServiceError> {
        let (rules, start) = terms.start()?;
        if rated && terms.from.is_some() && !self.rated_setups(place).await? {
            return Err(ServiceError::RatedSetup);
        }
        self.check_caps(place, me, Adding::Challenge, true).await?;
        let (variant, color) = (terms.variant, terms.color);
        let now = self.now();
        let row = self
            .store
            .create_challenge(&NewChallenge {
                platform: &place.platform,
                channel: &place.channel,
                challenger_id: me.id,
                challenged_id: challenged,
                game_key: variant.key(),
                days_per_move: days,
                color: color.key(),
                now,
                expires_at: now + CHALLENGE_LIFETIME,
                community: &place.community,
                rated,
                rules: rules.rules().key(),
                start_position: terms.from.is_some().then_some(start.as_str()),
                takebacks: terms.takebacks.unwrap_or(!rated),
            })
            .await?;
        info!(challenge = row.id, "challenge created");
        self.summarise_challenge(row).await
    }

    /// Accepts a challenge (the one given, or the only one open to the user here) and starts
    /// its game. Of two people accepting one open challenge at once, one gets the game.
    ///
    /// # Errors
    /// No such, expired, closed or someone else's challenge, or several to choose from.
    #[instrument(skip_all, fields(platform = %place.platform))]
    pub async fn accept(
        &self,
        place: &Place,
        user: &User,
        id: Option<i64>,
    ) -> Result<GameState, ServiceError> {
        self.accept_challenge(place, user, id)
            .await
            .map(|(_, state)| state)
    }

    /// Accepts a challenge like [`Service::accept`], saying which one it was.
    ///
    /// # Errors
    /// As [`Service::accept`].
    #[instrument(skip_all, fields(platform = %place.platform))]
    pub async fn accept_challenge(
        &self,
        place: &Place,
        user: &User,
        id: Option<i64>,
    ) -> Result<(i64, GameState), ServiceError> {
        let me = self.player(user).await?;
        let picked = self
            .pick_challenge(place, &me, id, |c| {
                c.challenger_id != me.id && c.challenged_id.is_none_or(|x| x == me.id)
            })
            .await;
        let row = match picked {
            Err(ServiceError::NoChallenge) => return Err(self.only_own(place, &me).await),
            other => other?,
        };
        if row.challenger_id == me.id {
            return Err(ServiceError::OwnChallenge(row.id));
        }
        if let Some(challenged) = row.challenged_id
            && challenged != me.id
        {
            let name = self.name_of(challenged).await?;
            return Err(ServiceError::NotYourChallenge { id: row.id, name });
        }
        let place = super::clocks::challenge_place(&row);
        self.check_caps(&place, &me, Adding::Game, true).await?;
        if let Some(challenger) = self.store.player_by_id(row.challenger_id).await? {
            self.check_caps(&place, &challenger, Adding::Game, false)
                .await?;
        }
        let now = self.now();
        let variant = Variant::from_name(&row.game_key)
            .ok_or_else(|| super::internal(&"challenge of an unknown game"))?;
        let challenger_white = match ColorChoice::from_key(&row.color) {
            ColorChoice::White => true,
            ColorChoice::Black => false,
            ColorChoice::Random => fastrand::bool(),
        };
        let (white_id, black_id) = if challenger_white {
            (row.challenger_id, me.id)
        } else {
            (me.id, row.challenger_id)
        };
        let rules = RuleSet::from_key(&row.rules)
            .and_then(|rules| GameRules::new(variant, rules).ok())
            .ok_or_else(|| super::internal(&"challenge of unknown rules"))?;
        let start = row
            .start_position
            .clone()
            .unwrap_or_else(|| rules.start().to_text());
        let game = NewGame {
            platform: &row.platform,
            channel: &row.channel,
            game_key: variant.key(),
            start_position: &start,
            white_id,
            black_id,
            days_per_move: row.days_per_move,
            deadline: now + row.days_per_move * DAY,
            rematch_of: None,
            now,
            community: row.community.as_deref().unwrap_or(&row.channel),
            rated: row.rated,
            bot: None,
            rules: rules.rules().key(),
            takebacks: row.takebacks,
            web_id: super::new_web_id()?,
        };
        match self.store.accept_challenge(row.id, &game).await {
            Ok(game) => {
                info!(challenge = row.id, game = game.id, "challenge accepted");
                Ok((row.id, self.load(game.id).await?))
            }
            Err(StoreError::Conflict) => Err(ServiceError::ChallengeClosed {
                id: row.id,
                status: String::from("just accepted by someone else"),
            }),
            Err(other) => Err(other.into()),
        }
    }

    /// Declines a challenge made to the user.
    ///
    /// # Errors
    /// No such or closed challenge, or one for someone else.
    pub async fn decline(
        &self,
        place: &Place,
        user: &User,
        id: Option<i64>,
    ) -> Result<ChallengeSummary, ServiceError> {
        let me = self.player(user).await?;
        let row = self
            .pick_challenge(place, &me, id, |c| c.challenged_id == Some(me.id))
            .await?;
        if row.challenged_id != Some(me.id) {
            let name = match row.challenged_id {
                Some(other) => self.name_of(other).await?,
                None => String::from("anyone (an open challenge can't be declined)"),
            };
            return Err(ServiceError::NotYourChallenge { id: row.id, name });
        }
        self.close_challenge(row, "declined").await
    }

    /// Cancels the user's own challenge.
    ///
    /// # Errors
    /// No such or closed challenge, or someone else's.
    pub async fn cancel(
        &self,
        place: &Place,
        user: &User,
        id: Option<i64>,
    ) -> Result<ChallengeSummary, ServiceError> {
        let me = self.player(user).await?;
        let row = self
            .pick_challenge(place, &me, id, |c| c.challenger_id == me.id)
            .await?;
        if row.challenger_id != me.id {
            let name = self.name_of(row.challenger_id).await?;
            return Err(ServiceError::NotYourChallengeToCancel { id: row.id, name });
        }
        self.close_challenge(row, "cancelled").await
    }

    async fn close_challenge(
        &self,
        row: ChallengeRow,
        status: &str,
    ) -> Result<ChallengeSummary, ServiceError> {
        if !self.store.close_challenge(row.id, status).await? {
            let now_status = self
                .store
                .challenge(row.id)
                .await?
                .map_or_else(String::new, |c| c.status);
            return Err(ServiceError::ChallengeClosed {
                id: row.id,
                status: now_status,
            });
        }
        let mut summary = self.summarise_challenge(row).await?;
        status.clone_into(&mut summary.status);
        Ok(summary)
    }

    /// The challenge a command means: the one named, or the only open one here that `fits`.
    async fn pick_challenge(
        &self,
        place: &Place,
        me: &PlayerRow,
        id: Option<i64>,
        fits: impl Fn(&ChallengeRow) -> bool,
    ) -> Result<ChallengeRow, ServiceError> {
        let now = self.now();
        let row = match id {
            // A challenge of another community answers exactly like one that does not exist.
            Some(id) => self
                .store
                .challenge(id)
                .await?
                .filter(|row| place.holds(&row.platform, row.community.as_deref(), &row.channel))
                .ok_or(ServiceError::NoSuchChallenge(id))?,
            None => {
                let open = self
                    .store
                    .open_challenges(&place.platform, &place.channel, me.id)
                    .await?;
                let mut fitting: Vec<ChallengeRow> = open
                    .into_iter()
                    .filter(|c| c.expires_at > now && fits(c))
                    .collect();
                match fitting.len() {
                    0 => return Err(ServiceError::NoChallenge),
                    1 => fitting.remove(0),
                    _ => {
                        let mut summaries = Vec::new();
                        for row in fitting {
                            summaries.push(self.summarise_challenge(row).await?);
                        }
                        let example = format!("accept {}", summaries[0].id);
                        return Err(ServiceError::WhichChallenge {
                            candidates: summaries,
                            example,
                        });
                    }
                }
            }
        };
        if row.status == "expired" || (row.status == "open" && row.expires_at <= now) {
            return Err(ServiceError::ChallengeExpired(row.id));
        }
        if row.status != "open" {
            return Err(ServiceError::ChallengeClosed {
                id: row.id,
                status: row.status,
            });
        }
        Ok(row)
    }

    /// Offers the opponent of a finished game a new one with colours swapped.
    ///
    /// # Errors
    /// The game is still on, not a player, no game.
    pub async fn rematch(
        &self,
        place: &Place,
        user: &User,
        game: Option<i64>,
    ) -> Result<Challenged, ServiceError> {
        let me = self.player(user).await?;
        let state = self.game_for(place, user, game).await?;
        let color = state
            .color_of(me.id)
            .ok_or(ServiceError::NotAPlayer(state.row.id))?;
        if state.is_active() {
            return Err(ServiceError::RematchTooEarly(state.row.id));
        }
        let opponent = state.player(color.other()).id;
        let here = super::place_of(&state.row);
        let days = state.row.days_per_move;
        let terms = Terms {
            days: Some(days),
            color: ColorChoice::of(color.other()),
            rated: Some(state.row.rated),
            level: state
                .row
                .bot_level
                .and_then(|level| u8::try_from(level).ok())
                .and_then(crate::engine::Level::new),
            rules: state.record.start().rules(),
            from: state
                .record
                .setup()
                .then(|| state.row.start_position.clone()),
            takebacks: Some(state.row.takebacks),
            ..Terms::new(state.variant)
        };
        if state.bot_side().is_some()
            && let Some(bot) = self.bot(&state.row.platform)
        {
            let rematch_of = Some(state.row.id);
            let game = self
                .start_bot_game(&here, &me, &bot, &terms, rematch_of)
                .await?;
            return Ok(Challenged::Started(Box::new(game)));
        }
        // One rematch per game: the second `rematch` accepts the first.
        let rated = state.row.rated;
        let same = |row: &ChallengeRow| row.days_per_move == days && row.rated == rated;
        if let Some(theirs) = self
            .open_alike(&here, opponent, me.id, state.variant, same)
            .await?
        {
            let game = self.accept(&here, user, Some(theirs.id)).await?;
            return Ok(Challenged::Started(Box::new(game)));
        }
        if let Some(mine) = self
            .open_alike(&here, me.id, opponent, state.variant, same)
            .await?
        {
            return Err(ServiceError::AlreadyChallenged {
                id: mine.id,
                name: state.player(color.other()).display_name.clone(),
            });
        }
        if let Some(rematch) = self.rematch_game(&state, me.id, opponent).await? {
            return Err(ServiceError::RematchStarted {
                game: state.row.id,
                rematch,
            });
        }
        self.create_challenge(&here, &me, Some(opponent), &terms, days, rated)
            .await
            .map(|challenge| Challenged::Open(Box::new(challenge)))
    }

    /// The game already started between the players of a finished game, in its channel and
    /// of its game, since it ended: its rematch.
    async fn rematch_game(
        &self,
        state: &GameState,
        me: i64,
        opponent: i64,
    ) -> Result<Option<i64>, ServiceError> {
        let ended = state.row.finished_at.unwrap_or(state.row.updated_at);
        let recent = self.store.games_of(me, 50).await?;
        Ok(recent
            .iter()
            .find(|row| {
                row.id != state.row.id
                    && row.platform == state.row.platform
                    && row.channel == state.row.channel
                    && row.game_key == state.row.game_key
                    && (row.white_id == opponent || row.black_id == opponent)
                    && row.created_at >= ended
            })
            .map(|row| row.id))
    }

    /// An open challenge (not expired) from `from` to `to` in `place`'s channel, of
    /// `variant`, that `fits`.
    async fn open_alike(
        &self,
        place: &Place,
        from: i64,
        to: i64,
        variant: Variant,
        fits: impl Fn(&ChallengeRow) -> bool,
    ) -> Result<Option<ChallengeRow>, ServiceError> {
        let ids = self
            .store
            .open_challenges_between(from, to, variant.key(), self.now())
            .await?;
        for id in ids {
            if let Some(row) = self.store.challenge(id).await?
                && row.platform == place.platform
                && row.channel == place.channel
                && fits(&row)
            {
                return Ok(Some(row));
            }
        }
        Ok(None)
    }

    /// Refuses a challenge that repeats an open one between the same two people here: the
    /// challenger's own on the same terms, or the opponent's on terms that fit (the same game,
    /// days and rating, and colours that do not clash), which they can accept instead.
    async fn check_same_challenge(
        &self,
        place: &Place,
        me: &PlayerRow,
        them: &PlayerRow,
        terms: &Terms,
        days: i64,
    ) -> Result<(), ServiceError> {
        let rated = terms.rated.unwrap_or(true);
        let same = |row: &ChallengeRow| row.days_per_move == days && row.rated == rated;
        if let Some(mine) = self
            .open_alike(place, me.id, them.id, terms.variant, |row| {
                same(row) && row.color == terms.color.key()
            })
            .await?
        {
            return Err(ServiceError::AlreadyChallenged {
                id: mine.id,
                name: them.display_name.clone(),
            });
        }
        let fit = |theirs: ColorChoice| {
            theirs == ColorChoice::Random
                || terms.color == ColorChoice::Random
                || theirs != terms.color
        };
        if let Some(theirs) = self
            .open_alike(place, them.id, me.id, terms.variant, |row| {
                same(row) && fit(ColorChoice::from_key(&row.color))
            })
            .await?
        {
            return Err(ServiceError::ChallengedYouAlready {
                id: theirs.id,
                name: them.display_name.clone(),
            });
        }
        Ok(())
    }

    /// The answer to a bare `accept` when nothing here is open for the user: their own
    /// challenge here, when they have one, or that there is none.
    async fn only_own(&self, place: &Place, me: &PlayerRow) -> ServiceError {
        let now = self.now();
        let own = match self
            .store
            .open_challenges(&place.platform, &place.channel, me.id)
            .await
        {
            Ok(open) => open
                .into_iter()
                .find(|c| c.challenger_id == me.id && c.expires_at > now),
            Err(error) => return error.into(),
        };
        let Some(own) = own else {
            return ServiceError::NoChallenge;
        };
        let to = match own.challenged_id {
            Some(id) => match self.name_of(id).await {
                Ok(name) => Some(name),
                Err(error) => return error,
            },
            None => None,
        };
        ServiceError::OnlyOwnChallenge { id: own.id, to }
    }
}
