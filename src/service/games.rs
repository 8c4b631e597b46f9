//! The service's use cases: challenges, moves, draws, resignations, lists, settings, clocks.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use tracing::{info, instrument};

use super::caps::Adding;
use super::{
    CHALLENGE_LIFETIME, ChallengeSummary, DAY, DAYS_PER_MOVE, DEFAULT_DAYS, GameState, GameSummary,
    Place, Service, ServiceError, Terms, User, reason_key,
};
use crate::rules::{Color, EndReason, Outcome, Played, Variant, VariantPosition};
use crate::store::{
    AppendMoves, ChallengeRow, GameRow, NewChallenge, NewGame, NewNotice, PlayerRow, SettingsRow,
    StoreError,
};

/// The colour a challenger asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ColorChoice {
    White,
    Black,
    Random,
}

impl ColorChoice {
    /// How the choice is stored.
    #[must_use]
    pub const fn key(self) -> &'static str {
        match self {
            ColorChoice::White => "white",
            ColorChoice::Black => "black",
            ColorChoice::Random => "random",
        }
    }

    /// Reads a stored choice (anything unknown is random).
    #[must_use]
    pub fn from_key(key: &str) -> ColorChoice {
        match key {
            "white" => ColorChoice::White,
            "black" => ColorChoice::Black,
            _ => ColorChoice::Random,
        }
    }

    fn of(color: Color) -> ColorChoice {
        match color {
            Color::White => ColorChoice::White,
            Color::Black => ColorChoice::Black,
        }
    }
}

/// What a player does about a draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DrawAction {
    /// Offer a draw (accepts a standing offer of the opponent).
    Offer,
    /// Accept the opponent's offer.
    Accept,
    /// Decline the opponent's offer.
    Decline,
    /// Claim a draw the rules allow (Chak's fifty-move rule).
    Claim,
}

/// Which games to list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    /// The user's games everywhere.
    Mine,
    /// The games of this channel.
    Channel,
}

/// A change of settings; `None` leaves a setting as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct SettingsChange {
    /// Mention me when it is my turn.
    pub turn_pings: Option<bool>,
    /// `mine`, `mover`, `white` or `black`.
    pub viewpoint: Option<String>,
}

/// A move played: the game after it, and what was played (the move, then any pass the
/// product played for a player who could not move).
#[derive(Debug, Clone)]
pub struct MoveDone {
    pub state: GameState,
    /// The position before the player's move, for highlighting it.
    pub before: VariantPosition,
    pub played: Vec<Played>,
}

impl MoveDone {
    /// The move played at `ply` of a game (with any forced pass after it), as it was announced:
    /// `None` when the game has no move there.
    #[must_use]
    pub fn at(state: GameState, ply: usize) -> Option<MoveDone> {
        let moves = state.record.moves();
        if ply >= moves.len() {
            return None;
        }
        let mut before = state.record.start().clone();
        for played in &moves[..ply] {
            before = before.play(&played.mv);
        }
        let played = moves[ply..].to_vec();
        Some(MoveDone {
            state,
            before,
            played,
        })
    }
}

/// What a challenge did: a challenge waiting for an answer, or a game against the bot that
/// started at once.
#[derive(Debug, Clone)]
pub enum Challenged {
    /// The challenge waits for the opponent (or anyone here).
    Open(Box<ChallengeSummary>),
    /// A game against the bot started.
    Bot(Box<GameState>),
}

/// What a draw request did.
#[derive(Debug, Clone)]
pub enum DrawDone {
    /// The offer stands; the opponent may accept or decline.
    Offered(GameState),
    /// Both agreed: the game is drawn.
    Agreed(GameState),
    /// The opponent's offer was declined.
    Declined(GameState),
    /// The claim ended the game in a draw.
    Claimed(GameState),
    /// The bot declined the offer: its position is not bad enough for a draw.
    Refused(GameState),
}

pub(super) fn score(outcome: Outcome) -> &'static str {
    outcome.score()
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
            return Ok(Challenged::Bot(Box::new(state)));
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
                self.check_repeat_challenge(place, me, &them, terms.variant.key())
                    .await?;
                Some(them.id)
            }
            None => None,
        };
        let rated = terms.rated.unwrap_or(true);
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
        let me = self.player(user).await?;
        let row = self
            .pick_challenge(place, &me, id, |c| {
                c.challenger_id != me.id && c.challenged_id.is_none_or(|x| x == me.id)
            })
            .await?;
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
        let start = VariantPosition::start(variant).to_text();
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
        };
        match self.store.accept_challenge(row.id, &game).await {
            Ok(game) => {
                info!(challenge = row.id, game = game.id, "challenge accepted");
                self.load(game.id).await
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
                        return Err(ServiceError::WhichChallenge(summaries));
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

    async fn name_of(&self, player_id: i64) -> Result<String, ServiceError> {
        Ok(self
            .store
            .player_by_id(player_id)
            .await?
            .map_or_else(|| String::from("someone else"), |p| p.display_name))
    }

    /// Plays a move for the user: in the game given, or the one game here awaiting their move.
    /// A pass the next player is forced to make (Shakti) is played for them in the same step.
    ///
    /// # Errors
    /// Not their turn, not a player, no or several games, the game is over, the move does not
    /// play, or another move arrived first ([`ServiceError::Changed`]).
    #[instrument(skip_all, fields(platform = %place.platform, game = ?game))]
    pub async fn play(
        &self,
        place: &Place,
        user: &User,
        game: Option<i64>,
        text: &str,
    ) -> Result<MoveDone, ServiceError> {
        let me = self.player(user).await?;
        let state = self.game_to_move(place, &me, game).await?;
        let id = state.row.id;
        let color = state.color_of(me.id).ok_or(ServiceError::NotAPlayer(id))?;
        if state.turn() != color {
            let to_move = state.player(state.turn()).display_name.clone();
            return Err(ServiceError::NotYourTurn { game: id, to_move });
        }
        self.apply_move(state, color, me.id, text, false).await
    }

    /// Plays `text` for `color` (player `mover`) in one transaction guarded by the ply, with
    /// any forced pass after it, and with a notice of it when `announce` is set (a move the
    /// clocks played); rates the game if the move ended it.
    pub(super) async fn apply_move(
        &self,
        mut state: GameState,
        color: Color,
        mover: i64,
        text: &str,
        announce: bool,
    ) -> Result<MoveDone, ServiceError> {
        let id = state.row.id;
        let before = state.record.position().clone();
        let played = state
            .record
            .play(text)
            .map_err(|error| ServiceError::Move { game: id, error })?
            .clone();
        let mut moves = vec![(played.text.clone(), Some(mover))];
        let mut all = vec![played];
        while let Some(pass) = state.record.play_forced_pass() {
            moves.push((pass.text.clone(), None));
            all.push(pass.clone());
        }
        let now = self.now();
        let outcome = state.record.outcome();
        let finish = outcome.map(|o| (score(o), reason_key(o.reason)));
        // The bot has no clock: while it is to move the game has no deadline.
        let deadline = (outcome.is_none() && state.bot_side() != Some(state.turn()))
            .then_some(now + state.row.days_per_move * DAY);
        let position = state.record.position().to_text();
        self.store
            .append_moves(&AppendMoves {
                game_id: id,
                expected_ply: state.row.ply,
                moves: &moves,
                position: &position,
                deadline,
                finish,
                mover: color_key(color),
                now,
                notice: announce.then(|| NewNotice {
                    platform: &state.row.platform,
                    kind: "bot_move",
                    game_id: Some(id),
                    challenge_id: None,
                    ply: Some(state.row.ply),
                    left: None,
                    now,
                }),
            })
            .await?;
        info!(
            game = id,
            ply = state.row.ply + moves.len() as i64,
            "move played"
        );
        let row = &mut state.row;
        row.ply += moves.len() as i64;
        row.position = position;
        row.deadline = deadline;
        row.updated_at = now;
        if row.draw_offer.as_deref() != Some(color_key(color)) {
            row.draw_offer = None;
        }
        if let Some((result, reason)) = finish {
            row.status = String::from("finished");
            row.result = Some(result.to_owned());
            row.end_reason = Some(reason.to_owned());
            row.finished_at = Some(now);
        }
        if finish.is_some() && state.row.rated {
            self.rate_finished(id).await;
        }
        Ok(MoveDone {
            state,
            before,
            played: all,
        })
    }

    /// The game a move is meant for.
    async fn game_to_move(
        &self,
        place: &Place,
        me: &PlayerRow,
        game: Option<i64>,
    ) -> Result<GameState, ServiceError> {
        self.settle_overdue(&place.platform).await;
        if let Some(id) = game {
            let state = self.game_here(place, me.id, id).await?;
            state.color_of(me.id).ok_or(ServiceError::NotAPlayer(id))?;
            return active(state);
        }
        let rows = self
            .store
            .active_games_in(&place.platform, &place.channel, me.id)
            .await?;
        let awaiting: Vec<&GameRow> = rows.iter().filter(|row| awaits(row, me.id)).collect();
        match (awaiting.as_slice(), rows.as_slice()) {
            ([row], _) => self.load(row.id).await,
            ([], []) => match self.latest_game_here(place, me).await? {
                Some(state) => active(state),
                None => Err(ServiceError::NoGame),
            },
            ([], [row]) => {
                let state = self.load(row.id).await?;
                let to_move = state.player(state.turn()).display_name.clone();
                Err(ServiceError::NotYourTurn {
                    game: row.id,
                    to_move,
                })
            }
            ([], _) => Err(ServiceError::NotYourTurnAnywhere),
            (many, _) => {
                let rows: Vec<GameRow> = many.iter().map(|r| (*r).clone()).collect();
                Err(self.which_game(&rows, "move #ID e4").await)
            }
        }
    }

    /// A game by id, if it belongs to this channel. A game of another community answers
    /// exactly like one that does not exist, except to its own players, who are told where it
    /// is played.
    async fn game_here(&self, place: &Place, me: i64, id: i64) -> Result<GameState, ServiceError> {
        let row = self
            .store
            .game(id)
            .await?
            .ok_or(ServiceError::NoSuchGame(id))?;
        let mine = row.white_id == me || row.black_id == me;
        let visible = place.holds(&row.platform, row.community.as_deref(), &row.channel)
            || (mine && row.platform == place.platform);
        if !visible {
            return Err(ServiceError::NoSuchGame(id));
        }
        if row.channel != place.channel {
            return Err(ServiceError::ElsewhereGame(id));
        }
        self.load(id).await
    }

    async fn which_game(&self, rows: &[GameRow], example: &str) -> ServiceError {
        match self.summaries(rows).await {
            Ok(candidates) => {
                let first = candidates.first().map_or(0, |c| c.id);
                ServiceError::WhichGame {
                    candidates,
                    example: example.replace("#ID", &format!("#{first}")),
                }
            }
            Err(error) => error,
        }
    }

    /// The game a command about "my game" means: the one given, the only active one of the
    /// user here, or else their latest game here.
    ///
    /// # Errors
    /// No game, several games, or a game of another channel.
    pub async fn game_for(
        &self,
        place: &Place,
        user: &User,
        game: Option<i64>,
    ) -> Result<GameState, ServiceError> {
        let me = self.player(user).await?;
        self.settle_overdue(&place.platform).await;
        if let Some(id) = game {
            return self.game_here(place, me.id, id).await;
        }
        let rows = self
            .store
            .active_games_in(&place.platform, &place.channel, me.id)
            .await?;
        match rows.as_slice() {
            [row] => self.load(row.id).await,
            [] => self
                .latest_game_here(place, &me)
                .await?
                .ok_or(ServiceError::NoGame),
            _ => Err(self.which_game(&rows, "board #ID").await),
        }
    }

    /// The user's most recent game in this channel, finished or not.
    async fn latest_game_here(
        &self,
        place: &Place,
        me: &PlayerRow,
    ) -> Result<Option<GameState>, ServiceError> {
        let recent = self.store.games_of(me.id, 50).await?;
        let here = recent
            .into_iter()
            .find(|row| row.platform == place.platform && row.channel == place.channel);
        match here {
            Some(row) => Ok(Some(self.load(row.id).await?)),
            None => Ok(None),
        }
    }

    /// An active game of the user, as a player.
    async fn my_active_game(
        &self,
        place: &Place,
        user: &User,
        game: Option<i64>,
    ) -> Result<(GameState, Color), ServiceError> {
        let me = self.player(user).await?;
        let state = active(self.game_for(place, user, game).await?)?;
        let color = state
            .color_of(me.id)
            .ok_or(ServiceError::NotAPlayer(state.row.id))?;
        Ok((state, color))
    }

    /// Resigns a game.
    ///
    /// # Errors
    /// Not a player, no game, the game is over, or it changed meanwhile.
    #[instrument(skip_all, fields(platform = %place.platform, game = ?game))]
    pub async fn resign(
        &self,
        place: &Place,
        user: &User,
        game: Option<i64>,
    ) -> Result<GameState, ServiceError> {
        let (state, color) = self.my_active_game(place, user, game).await?;
        let outcome = Outcome::win(color.other(), EndReason::Resignation);
        self.finish(state, Some(outcome), EndReason::Resignation)
            .await
    }

    /// Aborts a game before both sides have moved.
    ///
    /// # Errors
    /// Too late to abort, not a player, no game, or the game is over.
    pub async fn abort(
        &self,
        place: &Place,
        user: &User,
        game: Option<i64>,
    ) -> Result<GameState, ServiceError> {
        let (state, _) = self.my_active_game(place, user, game).await?;
        if state.row.ply >= 2 {
            return Err(ServiceError::TooLateToAbort(state.row.id));
        }
        self.finish(state, None, EndReason::Aborted).await
    }

    /// Offers, accepts, declines or claims a draw.
    ///
    /// # Errors
    /// No offer to answer, an offer already made, nothing to claim, not a player, no game.
    pub async fn draw(
        &self,
        place: &Place,
        user: &User,
        game: Option<i64>,
        action: DrawAction,
    ) -> Result<DrawDone, ServiceError> {
        let (state, color) = self.my_active_game(place, user, game).await?;
        let id = state.row.id;
        let offer = state.row.draw_offer.clone();
        let theirs = offer.as_deref() == Some(color_key(color.other()));
        let agree = |state| async move {
            let outcome = Outcome::draw(EndReason::Agreement);
            self.finish(state, Some(outcome), EndReason::Agreement)
                .await
                .map(DrawDone::Agreed)
        };
        if let Some(bot) = state.bot_side()
            && action == DrawAction::Offer
        {
            return if self.bot_accepts_draw(&state, bot).await? {
                agree(state).await
            } else {
                Ok(DrawDone::Refused(state))
            };
        }
        match action {
            DrawAction::Offer | DrawAction::Accept if theirs => agree(state).await,
            DrawAction::Offer if offer.is_some() => Err(ServiceError::DrawAlreadyOffered(id)),
            DrawAction::Offer => {
                let now = self.now();
                let key = color_key(color);
                self.store
                    .set_draw_offer(id, state.row.ply, Some(key), now)
                    .await?;
                let mut state = state;
                state.row.draw_offer = Some(key.to_owned());
                Ok(DrawDone::Offered(state))
            }
            DrawAction::Decline if theirs => {
                self.store
                    .set_draw_offer(id, state.row.ply, None, self.now())
                    .await?;
                let mut state = state;
                state.row.draw_offer = None;
                Ok(DrawDone::Declined(state))
            }
            DrawAction::Accept | DrawAction::Decline => Err(ServiceError::NoDrawOffer(id)),
            DrawAction::Claim => match state.record.draw_claim() {
                Some(reason) => self
                    .finish(state, Some(Outcome::draw(reason)), reason)
                    .await
                    .map(DrawDone::Claimed),
                None => Err(ServiceError::NoClaim(id)),
            },
        }
    }

    /// Ends a game off the board and returns it as stored.
    async fn finish(
        &self,
        state: GameState,
        outcome: Option<Outcome>,
        reason: EndReason,
    ) -> Result<GameState, ServiceError> {
        self.finish_with(state, outcome, reason, None).await
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
            ..Terms::new(state.variant)
        };
        if state.bot_side().is_some()
            && let Some(bot) = self.bot(&state.row.platform)
        {
            let rematch_of = Some(state.row.id);
            let game = self
                .start_bot_game(&here, &me, &bot, &terms, rematch_of)
                .await?;
            return Ok(Challenged::Bot(Box::new(game)));
        }
        self.create_challenge(&here, &me, Some(opponent), &terms, days, state.row.rated)
            .await
            .map(|challenge| Challenged::Open(Box::new(challenge)))
    }

    /// Lists games: the user's, or this channel's; active ones first.
    ///
    /// # Errors
    /// `Internal` when the database fails.
    pub async fn games(
        &self,
        place: &Place,
        user: &User,
        scope: Scope,
    ) -> Result<Vec<GameSummary>, ServiceError> {
        let rows = match scope {
            Scope::Mine => {
                let me = self.player(user).await?;
                self.store.games_of(me.id, 25).await?
            }
            Scope::Channel => {
                self.store
                    .games_in_channel(&place.platform, &place.channel, 25)
                    .await?
            }
        };
        self.summaries(&rows).await
    }

    /// Summaries of stored games without replaying them.
    async fn summaries(&self, rows: &[GameRow]) -> Result<Vec<GameSummary>, ServiceError> {
        let mut names: HashMap<i64, String> = HashMap::new();
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            for id in [row.white_id, row.black_id] {
                if let Entry::Vacant(slot) = names.entry(id) {
                    slot.insert(self.name_of(id).await?);
                }
            }
            let Some(variant) = Variant::from_name(&row.game_key) else {
                continue;
            };
            let white = names[&row.white_id].clone();
            let black = names[&row.black_id].clone();
            let to_move = (row.status == "active").then(|| {
                match VariantPosition::from_text(variant, &row.position).map(|p| p.turn()) {
                    Ok(Color::Black) => black.clone(),
                    _ => white.clone(),
                }
            });
            let result = row.result.clone().or_else(|| row.end_reason.clone());
            out.push(GameSummary {
                id: row.id,
                variant,
                white,
                black,
                to_move,
                result,
            });
        }
        Ok(out)
    }

    /// Reads and changes the user's settings.
    ///
    /// # Errors
    /// `Internal` when the database fails.
    pub async fn settings(
        &self,
        user: &User,
        change: &SettingsChange,
    ) -> Result<SettingsRow, ServiceError> {
        let me = self.player(user).await?;
        let mut settings = self.store.settings(me.id).await?;
        if change.turn_pings.is_none() && change.viewpoint.is_none() {
            return Ok(settings);
        }
        if let Some(pings) = change.turn_pings {
            settings.turn_pings = pings;
        }
        if let Some(viewpoint) = &change.viewpoint {
            viewpoint.clone_into(&mut settings.viewpoint);
        }
        self.store.set_settings(me.id, &settings).await?;
        Ok(settings)
    }

    /// A player's settings by database id.
    ///
    /// # Errors
    /// `Internal` when the database fails.
    pub async fn settings_of(&self, player_id: i64) -> Result<SettingsRow, ServiceError> {
        Ok(self.store.settings(player_id).await?)
    }
}

/// The side to move of a stored game, read from the cached position.
pub(super) fn awaits_color(row: &GameRow) -> Option<Color> {
    let variant = Variant::from_name(&row.game_key)?;
    VariantPosition::from_text(variant, &row.position)
        .ok()
        .map(|p| p.turn())
}

/// Whether the game awaits a move of `player_id`, read from the cached position.
pub(super) fn awaits(row: &GameRow, player_id: i64) -> bool {
    match awaits_color(row) {
        Some(Color::White) => row.white_id == player_id,
        Some(Color::Black) => row.black_id == player_id,
        None => false,
    }
}

fn active(state: GameState) -> Result<GameState, ServiceError> {
    if state.is_active() {
        return Ok(state);
    }
    let game = state.row.id;
    let result = state
        .result_text()
        .unwrap_or_else(|| String::from("finished"));
    Err(match state.row.finished_at {
        Some(at) if state.row.end_reason.as_deref() == Some("timeout") => {
            ServiceError::TimeRanOut { game, result, at }
        }
        _ => ServiceError::GameOver { game, result },
    })
}

/// How a colour is stored.
#[must_use]
pub const fn color_key(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}
