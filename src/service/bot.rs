//! Games against the built-in opponent: they start at once, the bot answers every move
//! through the same transactional path as a person, and it answers draw offers itself.

use tracing::{info, instrument, warn};

use super::caps::Adding;
use super::games::{ColorChoice, color_key};
use super::moves::MoveDone;
use super::{DAY, GameState, Place, Service, ServiceError, User};
use crate::engine::{self, Level};
use crate::rules::{Color, RuleSet, Variant};
use crate::store::{GameRow, NewGame, PlayerRow};

/// What a challenge asks for.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Terms {
    pub variant: Variant,
    /// Days per move; the default when `None`.
    pub days: Option<i64>,
    pub color: ColorChoice,
    /// `Some(true)` rated, `Some(false)` casual, `None` the default (rated between people,
    /// casual against the bot).
    pub rated: Option<bool>,
    /// The bot's level, for a game against the bot.
    pub level: Option<Level>,
    /// The rule set (Chesscala's `nodraws`).
    pub rules: RuleSet,
    /// The position text to start from, when not the standard start.
    pub from: Option<String>,
    /// `takebacks` or `notakebacks`, when said (the default: on for casual games).
    pub takebacks: Option<bool>,
}

impl Terms {
    /// A game of `variant` with every other choice left to the defaults.
    #[must_use]
    pub fn new(variant: Variant) -> Terms {
        Terms {
            variant,
            days: None,
            color: ColorChoice::Random,
            rated: None,
            level: None,
            rules: RuleSet::Standard,
            from: None,
            takebacks: None,
        }
    }
}

/// The bot's side in a stored game, if one side is the bot.
#[must_use]
pub fn bot_side(row: &GameRow) -> Option<Color> {
    match row.bot_side.as_deref()? {
        "white" => Some(Color::White),
        "black" => Some(Color::Black),
        _ => None,
    }
}

/// The bot's level in a stored game.
fn bot_level(row: &GameRow) -> Level {
    row.bot_level
        .and_then(|level| u8::try_from(level).ok())
        .and_then(Level::new)
        .unwrap_or_default()
}

/// A seed for the bot's choice in one game at one ply: the same game replays the same way.
fn seed(row: &GameRow) -> u64 {
    (row.id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ row.ply as u64
}

impl Service {
    /// Starts a game against the bot at once: casual, with the colour asked for.
    pub(super) async fn start_bot_game(
        &self,
        place: &Place,
        me: &PlayerRow,
        bot: &User,
        terms: &Terms,
        rematch_of: Option<i64>,
    ) -> Result<GameState, ServiceError> {
        if terms.rated == Some(true) {
            return Err(ServiceError::RatedBotGame);
        }
        let days = terms.days.unwrap_or(super::DEFAULT_DAYS);
        if !super::DAYS_PER_MOVE.contains(&days) {
            return Err(ServiceError::BadDays);
        }
        self.check_caps(place, me, Adding::BotGame, true).await?;
        let bot_player = self
            .store
            .player(&bot.platform, &bot.id, &bot.name, self.now())
            .await?;
        let me_white = match terms.color {
            ColorChoice::White => true,
            ColorChoice::Black => false,
            ColorChoice::Random => fastrand::bool(),
        };
        let (white_id, black_id, bot_color) = if me_white {
            (me.id, bot_player.id, Color::Black)
        } else {
            (bot_player.id, me.id, Color::White)
        };
        let (rules, start) = terms.start()?;
        let level = terms.level.unwrap_or_default();
        let now = self.now();
        let row = self
            .store
            .create_game(&NewGame {
                platform: &place.platform,
                channel: &place.channel,
                game_key: terms.variant.key(),
                start_position: &start,
                white_id,
                black_id,
                days_per_move: days,
                deadline: now + days * DAY,
                rematch_of,
                now,
                community: &place.community,
                rated: false,
                bot: Some((i64::from(level.number()), color_key(bot_color))),
                rules: rules.rules().key(),
                // Against the bot a takeback is always granted.
                takebacks: true,
                web_id: super::new_web_id()?,
            })
            .await?;
        info!(
            game = row.id,
            level = level.number(),
            "game against the bot started"
        );
        self.load(row.id).await
    }

    /// Plays the bot's move in game `id` if it is the bot's turn: the engine thinks on a
    /// blocking thread, then the move is stored like a person's, guarded by the ply. `None`
    /// when there is nothing to play or another call played it first.
    ///
    /// # Errors
    /// No such game, or `Internal`.
    #[instrument(skip(self))]
    pub async fn bot_move(&self, id: i64) -> Result<Option<MoveDone>, ServiceError> {
        self.bot_move_announced(id, false).await
    }

    /// [`Service::bot_move`], with a notice of the move in the outbox when `announce` is set
    /// (a move the clocks played, which no chat reply carries).
    async fn bot_move_announced(
        &self,
        id: i64,
        announce: bool,
    ) -> Result<Option<MoveDone>, ServiceError> {
        let state = self.load(id).await?;
        let Some(color) = bot_side(&state.row) else {
            return Ok(None);
        };
        if !state.is_active() || state.turn() != color {
            return Ok(None);
        }
        let record = state.record.clone();
        let (level, seed) = (bot_level(&state.row), seed(&state.row));
        let choice = self
            .heavy(move || engine::choose(&record, level, seed))
            .await?;
        let Some(choice) = choice else {
            return Ok(None);
        };
        let text = state.record.position().move_text(&choice.mv);
        let bot_id = state.player(color).id;
        match self.apply_move(state, color, bot_id, &text, announce).await {
            Ok(done) => Ok(Some(done)),
            Err(ServiceError::Changed) => Ok(None),
            Err(other) => Err(other),
        }
    }

    /// Plays every bot move that is due (after a restart, for instance), each with its notice
    /// and each once, because a second attempt at the same ply loses the ply check. A game
    /// whose move fails is logged and marked, and the others go on.
    pub(super) async fn pending_bot_moves(&self, platform: Option<&str>) {
        let rows = match self.store.active_bot_games(platform).await {
            Ok(rows) => rows,
            Err(error) => {
                warn!(%error, "reading the games against the bot failed");
                return;
            }
        };
        for row in rows {
            let Some(color) = bot_side(&row) else {
                continue;
            };
            if super::games::awaits_color(&row) != Some(color) {
                continue;
            }
            if let Err(error) = self.bot_move_announced(row.id, true).await {
                self.trouble(row.id, &error).await;
            }
        }
    }

    /// Whether the bot accepts a draw in its game: only when it is clearly worse.
    pub(super) async fn bot_accepts_draw(
        &self,
        state: &GameState,
        bot: Color,
    ) -> Result<bool, ServiceError> {
        let record = state.record.clone();
        let seed = seed(&state.row);
        self.heavy(move || engine::accepts_draw(&record, bot, seed))
            .await
    }
}
