//! The service's use cases: challenges, moves, draws, resignations, lists, settings, clocks.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use tracing::instrument;

use super::{GameState, GameSummary, Place, Service, ServiceError, User};
use crate::rules::{Color, EndReason, Outcome, Variant, VariantPosition};
use crate::store::{GameRow, PlayerRow, SettingsRow};

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

    pub(super) fn of(color: Color) -> ColorChoice {
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
    pub(super) async fn name_of(&self, player_id: i64) -> Result<String, ServiceError> {
        Ok(self
            .store
            .player_by_id(player_id)
            .await?
            .map_or_else(|| String::from("someone else"), |p| p.display_name))
    }

    /// The game a move is meant for.
    pub(super) async fn game_to_move(
        &self,
        place: &Place,
        me: &PlayerRow,
        game: Option<i64>,
    ) -> Result<GameState, ServiceError> {
        if let Some(id) = game {
            let state = self.game_here(place, me.id, id).await?;
            state.color_of(me.id).ok_or(ServiceError::NotAPlayer(id))?;
            return active(state);
        }
        let rows = self.active_games_here(place, me.id).await?;
        let awaiting: Vec<&GameRow> = rows.iter().filter(|row| awaits(row, me.id)).collect();
        match (awaiting.as_slice(), rows.as_slice()) {
            ([row], _) => self.load(row.id).await,
            ([], []) => match self.latest_game_here(place, me, |_| true).await? {
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
        let read = || async {
            self.store
                .stored_game(id, self.now())
                .await?
                .ok_or(ServiceError::NoSuchGame(id))
        };
        let mut stored = read().await?;
        if stored.row.platform == place.platform && self.settle_rows([&stored.row]).await {
            stored = read().await?;
        }
        let row = &stored.row;
        let mine = row.white_id == me || row.black_id == me;
        let visible = place.holds(&row.platform, row.community.as_deref(), &row.channel)
            || (mine && row.platform == place.platform);
        if !visible {
            return Err(ServiceError::NoSuchGame(id));
        }
        if row.channel != place.channel {
            let over = row.status != "active";
            return Err(ServiceError::ElsewhereGame {
                id,
                channel: stored.row.channel,
                over,
            });
        }
        self.replayed(stored)
    }

    /// The user's active games in this channel, those whose time ran out ended first.
    async fn active_games_here(
        &self,
        place: &Place,
        me: i64,
    ) -> Result<Vec<GameRow>, ServiceError> {
        let read = || {
            self.store
                .active_games_in(&place.platform, &place.channel, me)
        };
        let rows = read().await?;
        if self.settle_rows(&rows).await {
            return Ok(read().await?);
        }
        Ok(rows)
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
        self.game_of(place, &me, game).await
    }

    /// [`Service::game_for`] for a player already read.
    async fn game_of(
        &self,
        place: &Place,
        me: &PlayerRow,
        game: Option<i64>,
    ) -> Result<GameState, ServiceError> {
        if let Some(id) = game {
            return self.game_here(place, me.id, id).await;
        }
        let rows = self.active_games_here(place, me.id).await?;
        match rows.as_slice() {
            [row] => self.load(row.id).await,
            [] => self
                .latest_game_here(place, me, |_| true)
                .await?
                .ok_or(ServiceError::NoGame),
            _ => Err(self.which_game(&rows, "board #ID").await),
        }
    }

    /// The finished game a command about "my last game" means: the one given, else the
    /// user's most recently finished game here, else what [`Service::game_for`] finds.
    ///
    /// # Errors
    /// As [`Service::game_for`].
    pub(super) async fn finished_game_for(
        &self,
        place: &Place,
        user: &User,
        game: Option<i64>,
    ) -> Result<GameState, ServiceError> {
        let me = self.player(user).await?;
        if game.is_none()
            && let Some(state) = self
                .latest_game_here(place, &me, |row| row.status != "active")
                .await?
        {
            return Ok(state);
        }
        self.game_of(place, &me, game).await
    }

    /// The user's most recent game in this channel that `wanted` accepts (those whose time ran
    /// out ended first).
    async fn latest_game_here(
        &self,
        place: &Place,
        me: &PlayerRow,
        wanted: impl Fn(&GameRow) -> bool,
    ) -> Result<Option<GameState>, ServiceError> {
        let is_here =
            |row: &GameRow| row.platform == place.platform && row.channel == place.channel;
        let mut recent = self.store.games_of(me.id, 50).await?;
        if self
            .settle_rows(recent.iter().filter(|row| is_here(row)))
            .await
        {
            recent = self.store.games_of(me.id, 50).await?;
        }
        let here = recent.into_iter().find(|row| is_here(row) && wanted(row));
        match here {
            Some(row) => Ok(Some(self.load(row.id).await?)),
            None => Ok(None),
        }
    }

    /// An active game of the user, as a player.
    pub(super) async fn my_active_game(
        &self,
        place: &Place,
        user: &User,
        game: Option<i64>,
    ) -> Result<(GameState, Color), ServiceError> {
        let me = self.player(user).await?;
        let state = active(self.game_of(place, &me, game).await?)?;
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
        if state.row.tournament_id.is_some() {
            return Err(ServiceError::TournamentAbort(state.row.id));
        }
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
    pub(super) async fn summaries(
        &self,
        rows: &[GameRow],
    ) -> Result<Vec<GameSummary>, ServiceError> {
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
                players: (row.white_id, row.black_id),
                deadline: row.deadline.filter(|_| row.status == "active"),
                channel: row.channel.clone(),
                page: self.page_url(row),
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

pub(super) fn active(state: GameState) -> Result<GameState, ServiceError> {
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
