//! A whole game as an animated GIF: one frame per position, the theme's fixed palette, and
//! only the changed part of the board stored after the first frame.

use std::borrow::Cow;
use std::num::NonZeroUsize;
use std::ops::Range;
use std::thread;

use super::lzw::Lzw;
use super::palette::quantiser;
use super::theme::Theme;
use super::{Caption, RenderError, RenderOptions, draw_view};
use crate::rules::chesscala::FinalTurn;
use crate::rules::{BoardView, Color, Outcome, Record, Variant, VariantPosition};

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
/// move highlighted, captioned with the players' names and seen from `side`. The last frame's
/// caption states the result when the game is over: `result` when given (an end off the board,
/// such as a resignation), else the record's own outcome.
#[must_use]
pub fn game_frames(
    record: &Record,
    white: &str,
    black: &str,
    side: Color,
    result: Option<String>,
) -> Vec<Frame> {
    let start = record.start();
    let frame = |ply: usize, position: &VariantPosition, last| Frame {
        view: position.board_view(),
        options: RenderOptions {
            last,
            checked: position.checked_kings(),
            side: Some(side),
            caption: Some(Caption {
                white: white.to_owned(),
                black: black.to_owned(),
                move_number: u32::try_from(record.move_number(ply)).unwrap_or(u32::MAX),
                to_move: position.outcome().is_none().then(|| position.turn()),
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
    let result = result.or_else(|| {
        record
            .outcome()
            .map(|outcome| outcome_words(start.variant(), outcome))
    });
    if let (Some(result), Some(Frame { options, .. })) = (result, frames.last_mut())
        && let Some(caption) = &mut options.caption
    {
        caption.to_move = None;
        caption.status = Some(result);
    }
    frames
}

/// How a game ended, for a caption: "Green wins by altar mate", "Draw by stalemate".
#[must_use]
pub fn outcome_words(variant: Variant, outcome: Outcome) -> String {
    match outcome.winner {
        Some(winner) => format!(
            "{} wins by {}",
            variant.side_name(winner),
            outcome.reason.describe()
        ),
        None => format!("Draw by {}", outcome.reason.describe()),
    }
}

/// A short status for a caption: the result on the board, a check, a final turn (Chesscala),
/// or, on the start position of a game whose setup is reconstructed, that it is.
#[must_use]
pub fn position_status(position: &VariantPosition) -> Option<String> {
    let variant = position.variant();
    if let Some(outcome) = position.outcome() {
        return Some(outcome_words(variant, outcome));
    }
    let side = variant.side_name(position.turn());
    let status = match position.final_turn() {
        Some(FinalTurn {
            escape: true,
            attrition: false,
        }) => format!("{side}'s last turn: escape check to win"),
        Some(FinalTurn {
            escape: false,
            attrition: true,
        }) => format!("{side}'s last turn: 12 pieces lost"),
        Some(_) => format!("{side}'s last turn, then a draw"),
        None if position.in_check() => String::from("Check!"),
        None if variant.setup_reconstructed() && *position == VariantPosition::start(variant) => {
            String::from("Reconstructed setup")
        }
        None => return None,
    };
    Some(status)
}

/// Draws a replay as an animated GIF that loops, showing each frame for [`MOVE_DELAY_CS`] and
/// the last for [`FINAL_PAUSE_CS`].
///
/// Every frame is in the theme's one fixed palette. After the first, a frame stores only the
/// rectangle around what changed, and inside it the pixels that stayed the same are
/// transparent (an index the frame's new pixels do not use), so that the long runs between
/// the caption and the squares of a move compress to almost nothing. Frames are compared as
/// palette indices, which most squares get from earlier pictures without being drawn
/// (see [`super::board`]). The frames after the first are drawn and
/// compressed in a few runs side by side, one per core, each from the picture before it.
///
/// # Errors
/// [`RenderError`] when there are no frames, a frame does not draw, or frames differ in size.
pub fn replay_gif(theme: Theme, frames: &[Frame]) -> Result<Vec<u8>, RenderError> {
    let Some(first) = frames.first() else {
        return Err(RenderError::Frames);
    };
    let first = draw_view(theme, &first.view, &first.options)?;
    let (width, height) = (first.width(), first.height());
    let (w16, h16) = (
        u16::try_from(width).map_err(|_| RenderError::Size(width))?,
        u16::try_from(height).map_err(|_| RenderError::Size(height))?,
    );
    let first_indices = first.indexed()?;
    let encode_error = |error: gif::EncodingError| RenderError::Encode(error.to_string());
    let mut out = Vec::new();
    let mut encoder =
        gif::Encoder::new(&mut out, w16, h16, &quantiser(theme).bytes()).map_err(encode_error)?;
    encoder
        .set_repeat(gif::Repeat::Infinite)
        .map_err(encode_error)?;
    encoder
        .write_lzw_pre_encoded_frame(&gif::Frame {
            delay: delay(0, frames.len()),
            dispose: gif::DisposalMethod::Keep,
            width: w16,
            height: h16,
            buffer: Cow::Owned(Lzw::new().encode(&first_indices)),
            ..gif::Frame::default()
        })
        .map_err(encode_error)?;

    let rest = frames.len() - 1;
    let cores = thread::available_parallelism().map_or(1, NonZeroUsize::get);
    let run = rest.div_ceil(cores.clamp(1, MAX_RUNS)).max(1);
    let runs: Vec<Result<Vec<gif::Frame<'static>>, RenderError>> = thread::scope(|scope| {
        let handles: Vec<_> = (1..frames.len())
            .step_by(run)
            .map(|start| {
                let end = (start + run).min(frames.len());
                scope.spawn(move || encode_run(theme, frames, start..end, (width, height)))
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.join().unwrap_or(Err(RenderError::Frames)))
            .collect()
    });
    for run in runs {
        for frame in run? {
            encoder
                .write_lzw_pre_encoded_frame(&frame)
                .map_err(encode_error)?;
        }
    }
    encoder.into_inner().map_err(encode_error)?;
    Ok(out)
}

/// The most runs a replay is drawn in side by side.
const MAX_RUNS: usize = 4;

/// How long frame `n` of `count` is shown.
fn delay(n: usize, count: usize) -> u16 {
    if n + 1 == count {
        FINAL_PAUSE_CS
    } else {
        MOVE_DELAY_CS
    }
}

/// Draws the frames `range` (not the first) and compresses each as the change from the one
/// before it.
fn encode_run(
    theme: Theme,
    frames: &[Frame],
    range: Range<usize>,
    (width, height): (u32, u32),
) -> Result<Vec<gif::Frame<'static>>, RenderError> {
    let before = &frames[range.start - 1];
    let before = draw_view(theme, &before.view, &before.options)?;
    // The picture on screen, as palette indices.
    let mut shown = before.indexed()?;
    let mut lzw = Lzw::new();
    let mut encoded = Vec::with_capacity(range.len());
    for n in range {
        let frame = &frames[n];
        let picture = draw_view(theme, &frame.view, &frame.options)?;
        if (picture.width(), picture.height()) != (width, height) {
            return Err(RenderError::Frames);
        }
        let after = picture.indexed()?;
        let Changes {
            rect: (left, top, w, h),
            rows,
        } = changes(&shown, &after, width);
        // Each row of the rectangle as a range of pixels, and whether any of them changed:
        // most rows between the caption and a move's squares did not, and are skipped whole.
        let rows: Vec<(Range<usize>, bool)> = (top..)
            .zip(rows)
            .map(|(row, changed)| {
                let start = (row * width + left) as usize;
                (start..start + w as usize, changed)
            })
            .collect();
        let changed = |i: usize| shown[i] != after[i];
        let mut used = [false; 256];
        for (pixels, _) in rows.iter().filter(|(_, changed)| *changed) {
            for i in pixels.clone().filter(|&i| changed(i)) {
                used[usize::from(after[i])] = true;
            }
        }
        let transparent = used.iter().position(|u| !u).map(|t| t as u8);
        let mut buffer = Vec::with_capacity((w * h) as usize);
        for (pixels, row_changed) in rows {
            match transparent {
                None => buffer.extend_from_slice(&after[pixels]),
                Some(t) if !row_changed => buffer.resize(buffer.len() + pixels.len(), t),
                Some(t) => buffer.extend(pixels.map(|i| if changed(i) { after[i] } else { t })),
            }
        }
        encoded.push(gif::Frame {
            delay: delay(n, frames.len()),
            dispose: gif::DisposalMethod::Keep,
            transparent,
            left: left as u16,
            top: top as u16,
            width: w as u16,
            height: h as u16,
            buffer: Cow::Owned(lzw.encode(&buffer)),
            ..gif::Frame::default()
        });
        shown = after;
    }
    Ok(encoded)
}

/// What changed between two pictures of the same size.
struct Changes {
    /// The smallest rectangle (left, top, width, height) holding every pixel that changed; one
    /// pixel when nothing did (a GIF frame cannot be empty).
    rect: (u32, u32, u32, u32),
    /// For each row of the rectangle, whether any of its pixels changed.
    rows: Vec<bool>,
}

/// Compares two pictures of palette indices `width` pixels wide. Whole rows are compared
/// first: most of a picture stays the same.
fn changes(before: &[u8], after: &[u8], width: u32) -> Changes {
    let stride = width as usize;
    let mut bounds: Option<(u32, u32, u32, u32)> = None;
    let mut rows = Vec::new();
    for (y, (a, b)) in before
        .chunks_exact(stride)
        .zip(after.chunks_exact(stride))
        .enumerate()
    {
        if a == b {
            if bounds.is_some() {
                rows.push(false);
            }
            continue;
        }
        let differs = |&x: &usize| a[x] != b[x];
        let columns = 0..stride;
        let x0 = columns.clone().find(differs).unwrap_or(0) as u32;
        let x1 = columns.rev().find(differs).unwrap_or(0) as u32;
        let y = y as u32;
        bounds = Some(match bounds {
            None => (x0, y, x1, y),
            Some((bx0, by0, bx1, _)) => (bx0.min(x0), by0, bx1.max(x1), y),
        });
        rows.push(true);
    }
    match bounds {
        Some((x0, y0, x1, y1)) => {
            // Unchanged rows after the last changed one are not in the rectangle.
            rows.truncate((y1 - y0 + 1) as usize);
            Changes {
                rect: (x0, y0, x1 - x0 + 1, y1 - y0 + 1),
                rows,
            }
        }
        None => Changes {
            rect: (0, 0, 1, 1),
            rows: vec![false],
        },
    }
}
