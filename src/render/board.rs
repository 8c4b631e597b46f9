//! Drawing on one board: the layout, and what one square shows on the static board of
//! [`super::base`] (a hole, the last move's marks, a check, pieces), and the caption.

use std::fmt::Write as _;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use resvg::tiny_skia::{FillRule, Paint, Path, PathBuilder, Pixmap, Rect, Transform};

use super::art::{self, Cache, cached};
use super::picture::SquareContent;
use super::text::{self, Anchor, Inked, Line, Weight};
use super::theme::{CAPTURE, CHECK, HIGHLIGHT, Rgb, Theme};
use super::{Caption, RenderError, RenderOptions};
use crate::rules::{BoardView, Cell, Color, Coord, PieceView};

/// The most pieces one square may hold (a Chesscala stack).
const MAX_STACK: usize = 4;

/// Where everything goes in the picture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Layout {
    pub theme: Theme,
    pub files: u8,
    pub ranks: u8,
    /// The edge of a square in pixels.
    pub sq: u32,
    /// The band around the board that holds the coordinates.
    pub margin: u32,
    /// The caption band above the board (0 without a caption).
    pub caption: u32,
    /// Whether the caption band ends with the theme's legend (it has one, and it fits).
    pub legend: bool,
    pub width: u32,
    pub height: u32,
    /// Black's view: the board turned 180 degrees.
    pub flipped: bool,
}

impl Layout {
    pub(crate) fn new(
        theme: Theme,
        size: u32,
        flipped: bool,
        caption: bool,
    ) -> Result<Layout, RenderError> {
        if !(super::MIN_SIZE..=super::MAX_SIZE).contains(&size) {
            return Err(RenderError::Size(size));
        }
        let (files, ranks) = theme.dimensions();
        let sq = size / u32::from(files.max(ranks));
        let margin = (sq * 9 / 20).max(22);
        let board_w = u32::from(files) * sq + 2 * margin;
        let font = caption_font(board_w);
        let legend = caption
            && theme.legend().is_some_and(|legend| {
                text::width(legend, legend_font(font), Weight::Regular) + 2.0 * margin as f32
                    <= board_w as f32
            });
        let caption = match (caption, legend) {
            (false, _) => 0,
            (true, false) => font * 3 + font / 2,
            (true, true) => font * 4 + font * 3 / 5,
        };
        Ok(Layout {
            theme,
            files,
            ranks,
            sq,
            margin,
            caption,
            legend,
            width: board_w,
            height: caption + u32::from(ranks) * sq + 2 * margin,
            flipped,
        })
    }

    /// Screen column and row of a square.
    pub(super) fn cell(&self, at: Coord) -> (u32, u32) {
        if self.flipped {
            (u32::from(self.files - 1 - at.file), u32::from(at.rank))
        } else {
            (u32::from(at.file), u32::from(self.ranks - 1 - at.rank))
        }
    }

    /// Top-left pixel of a square, in base coordinates (without the caption band).
    pub(super) fn base_origin(&self, at: Coord) -> (u32, u32) {
        let (col, row) = self.cell(at);
        (self.margin + col * self.sq, self.margin + row * self.sq)
    }

    /// Top-left pixel of a square in the picture.
    pub(crate) fn origin(&self, at: Coord) -> (u32, u32) {
        let (x, y) = self.base_origin(at);
        (x, y + self.caption)
    }

    /// The centre of a square in base coordinates.
    pub(super) fn base_centre(&self, at: Coord) -> (f32, f32) {
        let (x, y) = self.base_origin(at);
        let half = self.sq as f32 / 2.0;
        (x as f32 + half, y as f32 + half)
    }

    /// A square's place in per-square tables (`rank * files + file`).
    pub(super) fn square_index(&self, at: Coord) -> usize {
        usize::from(at.rank) * usize::from(self.files) + usize::from(at.file)
    }

    pub(super) fn coords(&self) -> impl Iterator<Item = Coord> + use<> {
        let (files, ranks) = (self.files, self.ranks);
        (0..ranks).flat_map(move |rank| (0..files).map(move |file| Coord::new(file, rank)))
    }
}

/// The caption font size for a picture `width` pixels wide.
fn caption_font(width: u32) -> u32 {
    (width / 34).clamp(14, 30)
}

/// The legend's font size under a caption in `font` pixels.
fn legend_font(font: u32) -> f32 {
    font as f32 * 0.72
}

/// Checks that `view` fits the theme and `options` the view, before anything is drawn.
pub(crate) fn validate(
    theme: Theme,
    view: &BoardView,
    options: &RenderOptions,
) -> Result<(), RenderError> {
    let (files, ranks) = theme.dimensions();
    if (view.files, view.ranks) != (files, ranks)
        || view.cells.len() != usize::from(files) * usize::from(ranks)
    {
        return Err(RenderError::BoardMismatch {
            theme,
            files: view.files,
            ranks: view.ranks,
            cells: view.cells.len(),
        });
    }
    for (index, cell) in view.cells.iter().enumerate() {
        if let Cell::Pieces(pieces) = cell
            && !(1..=MAX_STACK).contains(&pieces.len())
        {
            let at = Coord::new(
                (index % usize::from(files)) as u8,
                (index / usize::from(files)) as u8,
            );
            return Err(RenderError::Stack {
                square: at.name(),
                pieces: pieces.len(),
            });
        }
    }
    let marks = options.last.iter().flat_map(|m| {
        m.from
            .iter()
            .chain(&m.to)
            .chain(&m.captures)
            .chain(&m.removed)
    });
    for at in marks.chain(&options.checked) {
        if at.file >= files || at.rank >= ranks {
            return Err(RenderError::OffBoard {
                file: at.file,
                rank: at.rank,
            });
        }
    }
    Ok(())
}

/// How many static boards (each theme, size and viewpoint) are kept: a bot uses a handful.
pub(super) const BASE_LIMIT: usize = 32;

/// Draws one square's content on `square`, a pixmap of the square alone showing its ground:
/// the hole, the last move's marks, a check, then the pieces. Nothing crosses the square's
/// edge.
pub(super) fn draw_square(
    square: &mut Pixmap,
    layout: &Layout,
    content: &SquareContent,
) -> Result<(), RenderError> {
    if content.hole {
        fill_square(square, layout, layout.theme.palette().hole, 255);
    }
    for _ in 0..content.highlights {
        fill_square(square, layout, HIGHLIGHT, HIGHLIGHT_ALPHA);
        frame_square(square, layout, HIGHLIGHT, 0);
    }
    for _ in 0..content.removed {
        frame_square(square, layout, HIGHLIGHT, tile_inset(layout.sq));
    }
    for _ in 0..content.captures {
        capture_corners(square, layout);
    }
    for _ in 0..content.checks {
        blit(square, &*check_glow(layout.sq)?, 0, 0);
        frame_square(square, layout, CHECK, 0);
    }
    if !content.pieces.is_empty() {
        draw_pieces(square, layout, &content.pieces)?;
    }
    Ok(())
}

/// Composites a premultiplied sprite onto the canvas (source over), clipped to the canvas.
/// Done by hand: sprites are blitted dozens of times per picture, and a plain loop is several
/// times faster than a general pattern fill.
fn blit(canvas: &mut Pixmap, sprite: &Pixmap, x: u32, y: u32) {
    let canvas_width = canvas.width() as usize;
    let rows = sprite.height().min(canvas.height().saturating_sub(y)) as usize;
    let cols = sprite.width().min(canvas.width().saturating_sub(x)) as usize;
    let sprite_width = sprite.width() as usize;
    let source = sprite.data();
    let target = canvas.data_mut();
    for row in 0..rows {
        let from = row * sprite_width * 4;
        let to = ((y as usize + row) * canvas_width + x as usize) * 4;
        let pairs = target[to..to + cols * 4]
            .chunks_exact_mut(4)
            .zip(source[from..from + cols * 4].chunks_exact(4));
        for (dst, src) in pairs {
            match src[3] {
                0 => {}
                255 => dst.copy_from_slice(src),
                alpha => {
                    let keep = 255 - u16::from(alpha);
                    for (d, s) in dst.iter_mut().zip(src) {
                        // Premultiplied: s <= alpha, so the sum stays within 255.
                        *d = s + ((u16::from(*d) * keep + 127) / 255) as u8;
                    }
                }
            }
        }
    }
}

fn paint(color: Rgb, alpha: u8) -> Paint<'static> {
    let mut paint = Paint::default();
    paint.set_color(color.skia_alpha(alpha));
    paint.anti_alias = false;
    paint
}

fn fill_rect(canvas: &mut Pixmap, x: f32, y: f32, w: f32, h: f32, paint: &Paint<'_>) {
    if let Some(rect) = Rect::from_xywh(x, y, w, h) {
        canvas.fill_rect(rect, paint, Transform::identity(), None);
    }
}

fn fill_square(square: &mut Pixmap, layout: &Layout, color: Rgb, alpha: u8) {
    let sq = layout.sq as f32;
    fill_rect(square, 0.0, 0.0, sq, sq, &paint(color, alpha));
}

/// How strongly the last move's squares are tinted (of 255).
pub(crate) const HIGHLIGHT_ALPHA: u8 = 110;

/// The width of a highlight frame.
fn frame_width(sq: u32) -> u32 {
    (sq / 16).max(3)
}

/// A solid frame just inside a square, `inset` pixels in from its edge.
fn frame_square(square: &mut Pixmap, layout: &Layout, color: Rgb, inset: u32) {
    let (x, y) = (inset as f32, inset as f32);
    let side = (layout.sq - 2 * inset) as f32;
    let w = frame_width(layout.sq) as f32;
    let paint = paint(color, 255);
    fill_rect(square, x, y, side, w, &paint);
    fill_rect(square, x, y + side - w, side, w, &paint);
    fill_rect(square, x, y, w, side, &paint);
    fill_rect(square, x + side - w, y, w, side, &paint);
}

/// Triangles in the four corners of a square where something was captured.
fn capture_corners(square: &mut Pixmap, layout: &Layout) {
    let (x, y, sq) = (0.0, 0.0, layout.sq as f32);
    let leg = sq * 0.26;
    let mut builder = PathBuilder::new();
    for (cx, cy, dx, dy) in [
        (x, y, 1.0, 1.0),
        (x + sq, y, -1.0, 1.0),
        (x, y + sq, 1.0, -1.0),
        (x + sq, y + sq, -1.0, -1.0),
    ] {
        builder.move_to(cx, cy);
        builder.line_to(cx + dx * leg, cy);
        builder.line_to(cx, cy + dy * leg);
        builder.close();
    }
    if let Some(path) = builder.finish() {
        fill_shape(square, &path, CAPTURE);
    }
}

/// Fills a path with anti-aliased edges.
pub(crate) fn fill_shape(canvas: &mut Pixmap, path: &Path, color: Rgb) {
    let mut paint = paint(color, 255);
    paint.anti_alias = true;
    canvas.fill_path(path, &paint, FillRule::Winding, Transform::identity(), None);
}

/// How far a Shakti tile is inset from its square, leaving a gap of ground between tiles.
pub(super) fn tile_inset(sq: u32) -> u32 {
    (sq / 24).max(2)
}

/// The red glow under a king in check.
fn check_glow(sq: u32) -> Result<Arc<Pixmap>, RenderError> {
    static GLOWS: Cache<u32> = OnceLock::new();
    cached(&GLOWS, 64, &sq, || {
        let svg = format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">
<defs><radialGradient id="g"><stop offset="0" stop-color="{c}" stop-opacity="1"/>
<stop offset="0.45" stop-color="{c}" stop-opacity="0.85"/>
<stop offset="1" stop-color="{c}" stop-opacity="0"/></radialGradient></defs>
<rect width="100" height="100" fill="url(#g)"/></svg>"#,
            c = CHECK.hex()
        );
        art::rasterise(&svg, sq, sq)
    })
}

/// Draws the pieces of one square: one piece fills it, a stack shows each piece at half size,
/// two to a row, in the order of the position text.
fn draw_pieces(
    square: &mut Pixmap,
    layout: &Layout,
    pieces: &[PieceView],
) -> Result<(), RenderError> {
    let sq = layout.sq;
    if let [piece] = pieces {
        let px = sq * 9 / 10;
        let sprite = piece_sprite(layout.theme, *piece, px)?;
        blit(square, &sprite, (sq - px) / 2, (sq - px) / 2);
        return Ok(());
    }
    // Rows of two in reading order; a row of one and a single row are centred, so a pair sits
    // in the middle of the square and a third piece under the middle of the first two.
    let half = sq / 2;
    let px = half * 19 / 20;
    let rows = pieces.len().div_ceil(2) as u32;
    for (index, piece) in pieces.iter().enumerate() {
        let (col, row) = ((index % 2) as u32, (index / 2) as u32);
        let in_row = (pieces.len() - 2 * row as usize).min(2) as u32;
        let left = (sq - in_row * half) / 2 + col * half;
        let top = (sq - rows * half) / 2 + row * half;
        let sprite = piece_sprite(layout.theme, *piece, px)?;
        blit(
            square,
            &sprite,
            left + (half - px) / 2,
            top + (half - px) / 2,
        );
    }
    Ok(())
}

fn piece_sprite(theme: Theme, piece: PieceView, px: u32) -> Result<Arc<Pixmap>, RenderError> {
    let colors = theme.pieces(piece.color);
    match theme.art(piece.letter) {
        Some((name, template)) => art::sprite(name, template, colors, px),
        None => art::letter_disc(piece.letter, colors, px),
    }
}

/// One part of the caption band, as it is drawn: a picture's caption is its players, then its
/// status, then (where it fits) the theme's legend, each in its own rows.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum CaptionPart {
    /// The players' names, shortened, with their discs: the side to move in bold, its disc
    /// ringed in the highlight colour.
    Players {
        white: String,
        black: String,
        to_move: Option<Color>,
    },
    /// The move number, whose turn it is (nobody's once the game is over), the deadline and
    /// the status.
    Status(String),
    /// The theme's legend.
    Legend,
}

/// The caption's parts, each with the rows of the band it fills. The rows split the band
/// between the lines of text, where no glyph and no disc reaches; a part is drawn clipped to
/// its rows.
pub(super) fn caption_parts(layout: &Layout, caption: &Caption) -> Vec<(CaptionPart, Range<u32>)> {
    let theme = layout.theme;
    let font = caption_font(layout.width) as f32;
    let players = CaptionPart::Players {
        white: shorten(&caption.white, 22),
        black: shorten(&caption.black, 22),
        to_move: caption.to_move,
    };
    let mut status = format!("Move {}", caption.move_number);
    if let Some(side) = caption.to_move {
        let _ = write!(status, " · {} to move", theme.side_name(side));
    }
    if let Some(deadline) = &caption.deadline {
        let _ = write!(status, " · by {}", shorten(deadline, 32));
    }
    if let Some(extra) = &caption.status {
        let _ = write!(status, " · {}", shorten(extra, 40));
    }
    let below_players = (font * 1.8).round() as u32;
    if !layout.legend {
        return vec![
            (players, 0..below_players),
            (CaptionPart::Status(status), below_players..layout.caption),
        ];
    }
    let below_status = (font * 3.07).round() as u32;
    vec![
        (players, 0..below_players),
        (CaptionPart::Status(status), below_players..below_status),
        (CaptionPart::Legend, below_status..layout.caption),
    ]
}

/// Draws a caption part on `strip`, a pixmap of the band's rows from `top` down filled with
/// the frame's colour.
pub(super) fn draw_caption_part(strip: &mut Pixmap, layout: &Layout, part: &CaptionPart, top: u32) {
    let theme = layout.theme;
    let palette = theme.palette();
    let w = layout.width as f32;
    let font = caption_font(layout.width) as f32;
    let m = layout.margin as f32;
    let top = top as f32;
    match part {
        CaptionPart::Players {
            white,
            black,
            to_move,
        } => {
            let line = font * 1.35 - top;
            let r = font * 0.45;
            for (color, name) in [(Color::White, white), (Color::Black, black)] {
                let pieces = theme.pieces(color);
                let to_move = Some(color) == *to_move;
                let (cx, anchor, tx) = match color {
                    Color::White => (m + r, Anchor::Start, m + 2.0 * r + font * 0.4),
                    Color::Black => (w - m - r, Anchor::End, w - m - 2.0 * r - font * 0.4),
                };
                let ring = if to_move { HIGHLIGHT } else { pieces.line };
                let ring_width = if to_move { font * 0.18 } else { font * 0.08 };
                disc(strip, cx, line - font * 0.35, r + ring_width, ring);
                disc(strip, cx, line - font * 0.35, r, pieces.body);
                let weight = if to_move {
                    Weight::Bold
                } else {
                    Weight::Regular
                };
                text::draw(strip, name, tx, line, font, weight, palette.text, anchor);
            }
        }
        CaptionPart::Status(status) => {
            let (x, baseline, px) = status_line(layout, top);
            text::draw(
                strip,
                status,
                x,
                baseline,
                px,
                Weight::Regular,
                palette.text,
                Anchor::Middle,
            );
        }
        CaptionPart::Legend => {
            if let Some(legend) = theme.legend() {
                text::draw(
                    strip,
                    legend,
                    w / 2.0,
                    font * 3.85 - top,
                    legend_font(font as u32),
                    Weight::Regular,
                    palette.text,
                    Anchor::Middle,
                );
            }
        }
    }
}

/// Where the status line goes on a strip of the band's rows from `top` down: the middle of
/// its line, its baseline, and its font size.
fn status_line(layout: &Layout, top: f32) -> (f32, f32, f32) {
    let font = caption_font(layout.width) as f32;
    (layout.width as f32 / 2.0, font * 2.75 - top, font * 0.85)
}

/// Draws the status line on `strip`, the band's rows from `top` down on the frame's colour, as
/// [`draw_caption_part`] draws it.
pub(super) fn draw_status(strip: &mut Inked, layout: &Layout, status: &str, top: u32) {
    let (x, baseline, px) = status_line(layout, top as f32);
    strip.draw(Line {
        text: status,
        x,
        baseline,
        px,
        weight: Weight::Regular,
        anchor: Anchor::Middle,
    });
}

fn disc(canvas: &mut Pixmap, cx: f32, cy: f32, r: f32, color: Rgb) {
    if let Some(path) = PathBuilder::from_circle(cx, cy, r) {
        fill_shape(canvas, &path, color);
    }
}

/// At most `max` characters of `text`, with an ellipsis when cut.
fn shorten(text: &str, max: usize) -> String {
    let text = text.trim();
    if text.chars().count() <= max {
        text.to_owned()
    } else {
        let mut cut: String = text.chars().take(max - 1).collect();
        cut.push('…');
        cut
    }
}
