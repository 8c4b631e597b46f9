//! A whole game as an animated GIF: one frame per position, the theme's fixed palette, and
//! only the changed part of the board stored after the first frame.

use std::borrow::Cow;

use super::palette::with_quantiser;
use super::theme::Theme;
use super::{Caption, RenderError, RenderOptions, draw_view};
use crate::rules::{BoardView, Color, Record, VariantPosition};

/// How long each position is shown, in hundredths of a second.
pub const MOVE_DELAY_CS: u16 = 90;
/// How long the final position is shown before the replay starts again.
pub const FINAL_PAUSE_CS: u16 = 400;

/// One frame of a replay: a board and what to draw on it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Frame {
    /// The board.
    pub view: BoardView,
    /// The last move, checks, viewpoint, caption and size; every frame must come out the same
    /// size (same size, and a caption on all frames or none).
    pub options: RenderOptions,
}

/// The frames of a whole game: the start position, then the position after each move with that
/// move highlighted, captioned with the players' names and seen from `side`.
#[must_use]
pub fn game_frames(record: &Record, white: &str, black: &str, side: Color) -> Vec<Frame> {
    let start = record.start();
    // Ply 0 is White's first move unless the game starts with Black to move.
    let offset = usize::from(start.turn() == Color::Black);
    let frame = |ply: usize, position: &VariantPosition, last| Frame {
        view: position.board_view(),
        options: RenderOptions {
            last,
            checked: position.checked_kings(),
            side: Some(side),
            caption: Some(Caption {
                white: white.to_owned(),
                black: black.to_owned(),
                move_number: u32::try_from((ply + offset) / 2 + 1).unwrap_or(u32::MAX),
                to_move: position.turn(),
                deadline: None,
                status: position_status(position),
            }),
            ..RenderOptions::default()
        },
    };
    let mut position = start.clone();
    let mut frames = vec![frame(0, &position, None)];
    for (index, played) in record.moves().iter().enumerate() {
        let marks = position.move_marks(&played.mv);
        position = position.play(&played.mv);
        frames.push(frame(index + 1, &position, Some(marks)));
    }
    frames
}

/// A short status for a caption: the result on the board, or a check.
#[must_use]
pub fn position_status(position: &VariantPosition) -> Option<String> {
    let variant = position.variant();
    match position.outcome() {
        Some(outcome) => Some(match outcome.winner {
            Some(winner) => {
                format!(
                    "{} wins by {}",
                    variant.side_name(winner),
                    outcome.reason.describe()
                )
            }
            None => format!("Draw by {}", outcome.reason.describe()),
        }),
        None => position.in_check().then(|| "Check!".to_owned()),
    }
}

/// Draws a replay as an animated GIF that loops, showing each frame for [`MOVE_DELAY_CS`] and
/// the last for [`FINAL_PAUSE_CS`].
///
/// # Errors
/// [`RenderError`] when there are no frames, a frame does not draw, or frames differ in size.
pub fn replay_gif(theme: Theme, frames: &[Frame]) -> Result<Vec<u8>, RenderError> {
    let Some(first) = frames.first() else {
        return Err(RenderError::Frames);
    };
    let first = draw_view(theme, &first.view, &first.options)?;
    let (width, height) = (first.pixmap.width(), first.pixmap.height());
    let (w16, h16) = (
        u16::try_from(width).map_err(|_| RenderError::Size(width))?,
        u16::try_from(height).map_err(|_| RenderError::Size(height))?,
    );
    let encode_error = |error: gif::EncodingError| RenderError::Encode(error.to_string());
    let mut out = Vec::new();
    let mut encoder = gif::Encoder::new(&mut out, w16, h16, &with_quantiser(theme, |q| q.bytes()))
        .map_err(encode_error)?;
    encoder
        .set_repeat(gif::Repeat::Infinite)
        .map_err(encode_error)?;

    let mut previous: Option<Vec<u8>> = None;
    let mut picture = Some(first);
    for (n, frame) in frames.iter().enumerate() {
        let picture = match picture.take() {
            Some(drawn) => drawn,
            None => draw_view(theme, &frame.view, &frame.options)?,
        };
        if (picture.pixmap.width(), picture.pixmap.height()) != (width, height) {
            return Err(RenderError::Frames);
        }
        let indexed = picture.indexed()?;
        let delay = if n + 1 == frames.len() {
            FINAL_PAUSE_CS
        } else {
            MOVE_DELAY_CS
        };
        let (left, top, w, h) = match &previous {
            None => (0, 0, width, height),
            Some(before) => changed_box(before, &indexed, width),
        };
        let mut buffer = Vec::with_capacity((w * h) as usize);
        for row in top..top + h {
            let start = (row * width + left) as usize;
            buffer.extend_from_slice(&indexed[start..start + w as usize]);
        }
        let frame = gif::Frame {
            delay,
            dispose: gif::DisposalMethod::Keep,
            left: left as u16,
            top: top as u16,
            width: w as u16,
            height: h as u16,
            buffer: Cow::Owned(buffer),
            ..gif::Frame::default()
        };
        encoder.write_frame(&frame).map_err(encode_error)?;
        previous = Some(indexed);
    }
    encoder.into_inner().map_err(encode_error)?;
    Ok(out)
}

/// The smallest rectangle (left, top, width, height) holding every pixel that changed; one
/// pixel when nothing did (a GIF frame cannot be empty).
fn changed_box(before: &[u8], after: &[u8], width: u32) -> (u32, u32, u32, u32) {
    let mut bounds: Option<(u32, u32, u32, u32)> = None;
    for (i, (a, b)) in before.iter().zip(after).enumerate() {
        if a != b {
            let (x, y) = ((i as u32) % width, (i as u32) / width);
            bounds = Some(match bounds {
                None => (x, y, x, y),
                Some((x0, y0, x1, y1)) => (x0.min(x), y0.min(y), x1.max(x), y1.max(y)),
            });
        }
    }
    match bounds {
        Some((x0, y0, x1, y1)) => (x0, y0, x1 - x0 + 1, y1 - y0 + 1),
        None => (0, 0, 1, 1),
    }
}
