//! Board pictures and replays of stored games. Drawing runs on the blocking pool, one picture
//! per core at a time, so that a picture never holds up other chat events.

use super::{GameState, MoveDone, Service, ServiceError, Tried, clock, internal};
use crate::render::{self, Caption, RenderOptions, Theme};
use crate::rules::{Color, MoveMarks, RuleSet};
use crate::store::PlayerRow;

/// An image to attach to a reply.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Image {
    /// The encoded image.
    pub data: Vec<u8>,
    /// `image/png` or `image/gif`.
    pub mime: &'static str,
    /// Width and height in pixels.
    pub size: (u32, u32),
}

/// Reads the width and height from a PNG or GIF header.
pub(super) fn dimensions(data: &[u8]) -> (u32, u32) {
    let be = |at: usize| {
        data.get(at..at + 4)
            .map_or(0, |b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    };
    let le = |at: usize| {
        data.get(at..at + 2)
            .map_or(0, |b| u32::from(u16::from_le_bytes([b[0], b[1]])))
    };
    if data.starts_with(b"\x89PNG") {
        (be(16), be(20))
    } else {
        (le(6), le(8))
    }
}

/// Where the board is seen from, per a viewer's setting: `white`, `black`, `mover` (the side
/// to move), or `mine` (the viewer's own side when they play, else the side to move).
#[must_use]
pub fn viewpoint(state: &GameState, setting: &str, viewer: Option<i64>) -> Color {
    match setting {
        "white" => Color::White,
        "black" => Color::Black,
        "mine" => viewer
            .and_then(|id| state.color_of(id))
            .unwrap_or_else(|| state.turn()),
        _ => state.turn(),
    }
}

/// The player a game's pictures are for, whose viewpoint setting turns the board: the player
/// to move. Once the game is over, the one who would move next, as if it went on, so that the
/// final picture turns like every other; in a game against the bot, always the person.
#[must_use]
pub fn picture_viewer(state: &GameState) -> &PlayerRow {
    let next = state.turn();
    if state.bot_side() == Some(next) {
        state.player(next.other())
    } else {
        state.player(next)
    }
}

/// How a finished game ended, in words for a caption or a record: "White (alice) wins by
/// checkmate", "Drawn by agreement"; `None` while it goes on.
#[must_use]
pub fn result_words(state: &GameState) -> Option<String> {
    let text = state.result_text()?;
    // The score is shown elsewhere (the record's result, the caption's players).
    let words = text.split_once(", ").map_or(text.as_str(), |(_, how)| how);
    let mut chars = words.chars();
    Some(
        chars
            .next()
            .map(|first| first.to_uppercase().chain(chars).collect())
            .unwrap_or_default(),
    )
}

/// A caption's status with the rule set named when it is not the standard one.
fn with_rules(status: Option<String>, rules: RuleSet) -> Option<String> {
    match (rules, status) {
        (RuleSet::Standard, status) => status,
        (rules, Some(status)) => Some(format!("{status} · {}", rules.describe())),
        (rules, None) => Some(capitalised(rules.describe())),
    }
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// A replay shows at most this many moves (the last ones of a longer game), so that it stays
/// quick to draw and small enough to post.
pub const REPLAY_MOVES: usize = 100;

/// What a board picture shows: a position and everything drawn around it. Two equal drawings
/// make the same picture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Drawing {
    position: crate::rules::VariantPosition,
    options: RenderOptions,
}

impl Drawing {
    /// The same board with no deadline in its caption: the clock stands still.
    pub(super) fn hold_clock(&mut self) {
        if let Some(caption) = &mut self.options.caption {
            caption.deadline = None;
        }
    }
}

/// The drawing of `position`, the game's board after `ply` plies: the deadline and the
/// result belong to its current board only.
fn board_drawing(
    state: &GameState,
    position: crate::rules::VariantPosition,
    ply: i64,
    last: Option<MoveMarks>,
    side: Color,
) -> Drawing {
    let current = ply == state.row.ply;
    let status = with_rules(
        result_words(state)
            .filter(|_| current)
            .or_else(|| render::position_status(&position)),
        position.rules(),
    );
    let to_move = (state.is_active() || !current).then(|| position.turn());
    let options = RenderOptions {
        last,
        side: Some(side),
        caption: Some(Caption {
            white: state.white.display_name.clone(),
            black: state.black.display_name.clone(),
            move_number: u32::try_from(
                state
                    .record
                    .move_number(usize::try_from(ply).unwrap_or_default()),
            )
            .unwrap_or(u32::MAX),
            to_move,
            deadline: state
                .row
                .deadline
                .filter(|_| state.is_active() && current)
                .map(clock::format_utc),
            status,
        }),
        ..RenderOptions::default()
    };
    Drawing { position, options }
}

/// The side a move's picture is seen from: the picture's viewer's (the player to move's)
/// setting, which was read with the game.
fn move_side(state: &GameState) -> Color {
    let viewer = picture_viewer(state).id;
    viewpoint(state, &state.settings_of(viewer).viewpoint, Some(viewer))
}

/// The drawing a move's reply shows: the game's current board, the move's squares marked,
/// seen from [`move_side`].
pub(super) fn move_drawing(state: &GameState, last: Option<MoveMarks>) -> Drawing {
    board_drawing(
        state,
        state.record.position().clone(),
        state.row.ply,
        last,
        move_side(state),
    )
}

impl Service {
    /// Runs a drawing as heavy work (on the blocking pool, one per core at a time).
    pub(super) async fn image(
        &self,
        mime: &'static str,
        work: impl FnOnce() -> Result<Vec<u8>, render::RenderError> + Send + 'static,
    ) -> Result<Image, ServiceError> {
        let data = self.heavy(work).await?.map_err(|e| internal(&e))?;
        Ok(Image {
            size: dimensions(&data),
            data,
            mime,
        })
    }

    /// The board of a game as a PNG, with `last` highlighted, seen from `side`, captioned with
    /// the players, the move number, whose turn it is and the deadline or the result.
    ///
    /// # Errors
    /// `Internal` when drawing fails.
    pub async fn board_image(
        &self,
        state: &GameState,
        last: Option<MoveMarks>,
        side: Color,
    ) -> Result<Image, ServiceError> {
        let position = state.record.position().clone();
        self.draw_board(state, position, state.row.ply, last, side)
            .await
    }

    /// The board of a game after its first `ply` plies (its current board when `ply` is its
    /// length), with the move that led there highlighted, seen from `side`, captioned like
    /// [`Service::board_image`]; `None` when the game has no such ply.
    ///
    /// # Errors
    /// `Internal` when drawing fails.
    pub async fn board_at(
        &self,
        state: &GameState,
        ply: usize,
        side: Color,
    ) -> Result<Option<Image>, ServiceError> {
        let moves = state.record.moves();
        if ply > moves.len() {
            return Ok(None);
        }
        let mut position = state.record.start().clone();
        let mut last = None;
        for played in &moves[..ply] {
            last = Some(position.move_marks(&played.mv));
            position = position.play(&played.mv);
        }
        let ply = i64::try_from(ply).unwrap_or(i64::MAX);
        self.draw_board(state, position, ply, last, side)
            .await
            .map(Some)
    }

    /// Draws `position`, the game's board after `ply` plies: the deadline and the result
    /// belong to its current board only.
    async fn draw_board(
        &self,
        state: &GameState,
        position: crate::rules::VariantPosition,
        ply: i64,
        last: Option<MoveMarks>,
        side: Color,
    ) -> Result<Image, ServiceError> {
        self.draw_picture(board_drawing(state, position, ply, last, side))
            .await
    }

    /// The picture a move's reply shows (see [`move_drawing`]), drawn now.
    ///
    /// # Errors
    /// `Internal` when drawing fails.
    pub async fn move_image(&self, done: &MoveDone) -> Result<Image, ServiceError> {
        self.draw_picture(move_drawing(&done.state, done.last_marks()))
            .await
    }

    /// Draws a board as a PNG.
    pub(super) async fn draw_picture(&self, drawing: Drawing) -> Result<Image, ServiceError> {
        let Drawing { position, options } = drawing;
        self.image("image/png", move || {
            render::render_position(&position, &options)
        })
        .await
    }

    /// The position a `try` reached, seen from `side`, with the tried moves' last one
    /// highlighted: captioned with the game's players (or the sides' names), the move number
    /// and who would be to move, and marked as a sandbox.
    ///
    /// # Errors
    /// `Internal` when drawing fails.
    pub async fn trial_image(&self, tried: &Tried, side: Color) -> Result<Image, ServiceError> {
        let record = &tried.record;
        let position = record.position().clone();
        let variant = position.variant();
        let (white, black) = match &tried.game {
            Some(state) => (
                state.white.display_name.clone(),
                state.black.display_name.clone(),
            ),
            None => (
                variant.side_name(Color::White).to_owned(),
                variant.side_name(Color::Black).to_owned(),
            ),
        };
        let last = record.moves().last().map(|last| {
            let mut before = record.start().clone();
            for played in &record.moves()[..record.moves().len() - 1] {
                before = before.play(&played.mv);
            }
            before.move_marks(&last.mv)
        });
        // Numbered on from the game's own moves, whose start may have Black to move.
        let number = match &tried.game {
            Some(state) => state
                .record
                .move_number(state.record.moves().len() + record.moves().len()),
            None => record.move_number(record.moves().len()),
        };
        let status = render::position_status(&position)
            .map_or_else(|| String::from("Sandbox"), |s| format!("Sandbox · {s}"));
        let options = RenderOptions {
            last,
            side: Some(side),
            caption: Some(Caption {
                white,
                black,
                move_number: u32::try_from(number).unwrap_or(u32::MAX),
                to_move: position.outcome().is_none().then(|| position.turn()),
                deadline: None,
                status: with_rules(Some(status), position.rules()),
            }),
            ..RenderOptions::default()
        };
        self.image("image/png", move || {
            render::render_position(&position, &options)
        })
        .await
    }

    /// The game as an animated GIF seen from `side`: the whole game, or its last
    /// [`REPLAY_MOVES`] moves.
    ///
    /// # Errors
    /// `Internal` when drawing fails.
    pub async fn replay_image(
        &self,
        state: &GameState,
        side: Color,
    ) -> Result<Image, ServiceError> {
        let record = state.record.clone();
        let result = result_words(state);
        let (white, black) = (
            state.white.display_name.clone(),
            state.black.display_name.clone(),
        );
        let theme = Theme::for_variant(state.variant);
        self.image("image/gif", move || {
            let mut frames = render::game_frames(&record, &white, &black, side, result);
            frames.drain(..frames.len().saturating_sub(REPLAY_MOVES + 1));
            render::replay_gif(theme, &frames)
        })
        .await
    }
}
