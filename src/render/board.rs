//! Drawing one board: the layout, and the per-position layers composited on the static board
//! of [`super::base`] (tiles, highlights, pieces, caption).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use resvg::tiny_skia::{FillRule, IntSize, Paint, Path, PathBuilder, Pixmap, Rect, Transform};

use super::art::{self, Cache, cached, keep, lookup};
use super::base::base;
use super::palette::with_quantiser;
use super::text::{self, Anchor, Weight};
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
    fn cell(&self, at: Coord) -> (u32, u32) {
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
    fn square_index(&self, at: Coord) -> usize {
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

/// A drawn picture, with what it takes to turn it into palette indices cheaply.
#[derive(Debug)]
pub(crate) struct Picture {
    /// The canvas: the static board with the caption band and the squares drawn afresh. A
    /// square whose palette indices were known is not drawn on it (see [`Square::Known`]).
    canvas: Pixmap,
    layout: Layout,
    /// Each square (by index `rank * files + file`).
    squares: Vec<Square>,
}

/// How a square of a picture is made.
#[derive(Debug)]
enum Square {
    /// It shows the static board.
    Plain,
    /// The same content on the same ground was drawn before: its palette indices are copied,
    /// and nothing is drawn on the canvas.
    Known(Arc<Vec<u8>>),
    /// Drawn on the canvas; its palette indices are looked up and kept under the key.
    Drawn(TileKey),
}

/// What one square shows beyond the static board, in the order it is drawn on the square.
/// Nothing a picture draws outside its caption band crosses a square's edge, so a square
/// with the same content on the same ground always comes out the same, pixel for pixel.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
struct SquareContent {
    hole: bool,
    /// The last move's tint and frame, once for each time the square is named as its start
    /// or its end.
    highlights: u8,
    removed: u8,
    captures: u8,
    checks: u8,
    pieces: Vec<PieceView>,
}

/// A square's content on a ground: the first square of the layout whose static board tile is
/// the same as this square's, pixel for pixel.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct TileKey {
    theme: Theme,
    sq: u32,
    flipped: bool,
    ground: Coord,
    content: SquareContent,
}

/// The palette indices of squares drawn before, by content and ground.
static TILES: Cache<TileKey, Vec<u8>> = OnceLock::new();

/// How many squares' indices are kept (a few kilobytes each at the usual sizes): a game's
/// pieces on each ground with and without the last move's marks, for many games at once.
const TILE_LIMIT: usize = 4096;

/// For each square of the layout (by index), the first square whose static board tile is the
/// same: the ground a square's tiles are kept under.
fn grounds(layout: &Layout) -> Result<Arc<Vec<Coord>>, RenderError> {
    static GROUNDS: Cache<(Theme, u32, bool), Vec<Coord>> = OnceLock::new();
    cached(
        &GROUNDS,
        BASE_LIMIT,
        &(layout.theme, layout.sq, layout.flipped),
        || {
            let base = base(layout)?;
            let tile = |at: Coord| {
                let (x, y) = layout.base_origin(at);
                let (width, sq) = (layout.width as usize, layout.sq as usize);
                (y as usize..y as usize + sq)
                    .flat_map(|row| {
                        let start = (row * width + x as usize) * 4;
                        &base.data()[start..start + sq * 4]
                    })
                    .copied()
                    .collect::<Vec<u8>>()
            };
            let mut firsts: Vec<(Coord, Vec<u8>)> = Vec::new();
            Ok(layout
                .coords()
                .map(|at| {
                    let pixels = tile(at);
                    match firsts.iter().find(|(_, first)| *first == pixels) {
                        Some((first, _)) => *first,
                        None => {
                            firsts.push((at, pixels));
                            at
                        }
                    }
                })
                .collect())
        },
    )
}

impl Picture {
    pub(crate) fn width(&self) -> u32 {
        self.canvas.width()
    }

    pub(crate) fn height(&self) -> u32 {
        self.canvas.height()
    }

    /// The squares drawn on the canvas, with the keys their indices are kept under.
    fn drawn_on(&self) -> impl Iterator<Item = (Coord, &TileKey)> + '_ {
        drawn(&self.layout, &self.squares)
    }

    /// The picture as palette indices: the static board's indices are computed once per
    /// layout and copied, the indices of squares known from earlier pictures are copied, and
    /// only the caption band and the squares drawn afresh are looked up (then kept).
    pub(crate) fn indexed(&self) -> Result<Vec<u8>, RenderError> {
        static BASE_INDICES: Cache<(Theme, u32, bool), Vec<u8>> = OnceLock::new();
        let layout = &self.layout;
        let theme = layout.theme;
        let base_indices = cached(
            &BASE_INDICES,
            BASE_LIMIT,
            &(theme, layout.sq, layout.flipped),
            || {
                let base = base(layout)?;
                Ok(with_quantiser(theme, |q| q.indexed(&base)))
            },
        )?;
        let band = (layout.caption * layout.width) as usize;
        let mut indices = Vec::with_capacity(band + base_indices.len());
        indices.resize(band, 0);
        indices.extend_from_slice(&base_indices);
        let (width, sq) = (layout.width as usize, layout.sq as usize);
        let rows = |at: Coord| {
            let (x, y) = layout.origin(at);
            (0..sq).map(move |row| {
                let start = (y as usize + row) * width + x as usize;
                (row * sq, start..start + sq)
            })
        };
        for (at, square) in layout.coords().zip(&self.squares) {
            if let Square::Known(tile) = square {
                for (from, to) in rows(at) {
                    indices[to].copy_from_slice(&tile[from..from + sq]);
                }
            }
        }
        // Within a square drawn on, the pixels still those of the static board keep its
        // indices; only the ones drawn over are looked up.
        let base = base(layout)?;
        with_quantiser(theme, |q| {
            q.reindex(
                &self.canvas,
                &mut indices,
                (0, 0, layout.width, layout.caption),
            );
            for (at, _) in self.drawn_on() {
                let (x, y) = layout.origin(at);
                let under = Some((base.as_ref(), layout.caption));
                q.reindex_over(
                    &self.canvas,
                    under,
                    &mut indices,
                    (x, y, layout.sq, layout.sq),
                );
            }
        });
        for (at, key) in self.drawn_on() {
            let tile = rows(at).flat_map(|(_, row)| &indices[row]).copied();
            keep(&TILES, TILE_LIMIT, key.clone(), Arc::new(tile.collect()));
        }
        Ok(indices)
    }

    /// Hands the canvas back for the next picture of its layout, once the squares drawn on
    /// show the static board again. Everything a picture draws outside its caption band lies
    /// within those squares, so copying them back costs far less than copying the whole
    /// board for every picture.
    pub(crate) fn recycle(self) {
        let layout = self.layout;
        let Some(canvas) = self.restored() else {
            return;
        };
        let mut kept = canvases();
        if kept.values().map(Vec::len).sum::<usize>() < CANVAS_LIMIT {
            kept.entry(layout).or_default().push(canvas);
        }
    }

    /// The canvas with the squares drawn on showing the static board again.
    fn restored(self) -> Option<Pixmap> {
        let Picture {
            mut canvas,
            layout,
            squares,
        } = self;
        let base = base(&layout).ok()?;
        let width = layout.width as usize;
        let band = layout.caption as usize * width * 4;
        let row_bytes = layout.sq as usize * 4;
        let (from, to) = (base.data(), canvas.data_mut());
        for (at, _) in drawn(&layout, &squares) {
            let (x, y) = layout.base_origin(at);
            for row in y as usize..(y + layout.sq) as usize {
                let source = (row * width + x as usize) * 4;
                to[band + source..band + source + row_bytes]
                    .copy_from_slice(&from[source..source + row_bytes]);
            }
        }
        Some(canvas)
    }
}

/// The squares of a picture drawn on its canvas, with the keys their indices are kept under.
fn drawn<'a>(
    layout: &Layout,
    squares: &'a [Square],
) -> impl Iterator<Item = (Coord, &'a TileKey)> + use<'a> {
    layout
        .coords()
        .zip(squares)
        .filter_map(|(at, square)| match square {
            Square::Drawn(key) => Some((at, key)),
            Square::Plain | Square::Known(_) => None,
        })
}

/// Canvases kept between pictures, by layout. Each holds its layout's static board below a
/// caption band, as a picture handed back by [`Picture::recycle`] left it.
static CANVASES: OnceLock<Mutex<HashMap<Layout, Vec<Pixmap>>>> = OnceLock::new();

/// How many canvases are kept in all (a few megabytes each): enough for the layouts a bot
/// draws most, one or two at a time.
const CANVAS_LIMIT: usize = 8;

fn canvases() -> std::sync::MutexGuard<'static, HashMap<Layout, Vec<Pixmap>>> {
    // A poisoned lock only means another thread panicked while handing a canvas back; every
    // canvas in the map is whole.
    CANVASES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
}

/// A canvas showing the layout's static board below its caption band (whose content is left
/// to the caption, which fills it): a kept one when there is one, else a new copy.
fn canvas(layout: &Layout, size: u32) -> Result<Pixmap, RenderError> {
    match canvases().get_mut(layout).and_then(Vec::pop) {
        Some(kept) => Ok(kept),
        None => new_canvas(layout, size),
    }
}

/// A new canvas: the caption band, then a copy of the static board.
fn new_canvas(layout: &Layout, size: u32) -> Result<Pixmap, RenderError> {
    let base = base(layout)?;
    // The base is exactly as wide as the picture: the canvas is the caption band followed by
    // a copy of it, built without first clearing the memory.
    let band = (layout.caption * layout.width * 4) as usize;
    let mut data = Vec::with_capacity(band + base.data().len());
    data.resize(band, 0);
    data.extend_from_slice(base.data());
    IntSize::from_wh(layout.width, layout.height)
        .and_then(|size| Pixmap::from_vec(data, size))
        .ok_or(RenderError::Size(size))
}

/// Draws a validated view into a new picture.
pub(crate) fn draw(
    layout: &Layout,
    view: &BoardView,
    options: &RenderOptions,
) -> Result<Picture, RenderError> {
    draw_on(canvas(layout, options.size)?, layout, view, options)
}

/// Draws a validated view on a canvas that shows the layout's static board: each square
/// whose palette indices are not known yet, then the caption.
fn draw_on(
    mut canvas: Pixmap,
    layout: &Layout,
    view: &BoardView,
    options: &RenderOptions,
) -> Result<Picture, RenderError> {
    let grounds = grounds(layout)?;
    let mut squares = Vec::with_capacity(view.cells.len());
    for (at, content) in layout.coords().zip(contents(layout, view, options)) {
        if content == SquareContent::default() {
            squares.push(Square::Plain);
            continue;
        }
        let key = TileKey {
            theme: layout.theme,
            sq: layout.sq,
            flipped: layout.flipped,
            ground: grounds[layout.square_index(at)],
            content,
        };
        squares.push(match lookup(&TILES, &key) {
            Some(tile) => Square::Known(tile),
            None => {
                draw_square(&mut canvas, layout, at, &key.content)?;
                Square::Drawn(key)
            }
        });
    }
    if let Some(caption) = &options.caption {
        draw_caption(&mut canvas, layout, caption);
    }
    Ok(Picture {
        canvas,
        layout: *layout,
        squares,
    })
}

/// What each square (by index) shows beyond the static board.
fn contents(layout: &Layout, view: &BoardView, options: &RenderOptions) -> Vec<SquareContent> {
    let mut contents: Vec<SquareContent> = view
        .cells
        .iter()
        .map(|cell| match cell {
            Cell::Hole => SquareContent {
                hole: true,
                ..SquareContent::default()
            },
            Cell::Empty => SquareContent::default(),
            Cell::Pieces(pieces) => SquareContent {
                pieces: pieces.clone(),
                ..SquareContent::default()
            },
        })
        .collect();
    let mut count = |squares: &[Coord], field: fn(&mut SquareContent) -> &mut u8| {
        for &at in squares {
            let n = field(&mut contents[layout.square_index(at)]);
            *n = n.saturating_add(1);
        }
    };
    if let Some(marks) = &options.last {
        count(&marks.from, |c| &mut c.highlights);
        count(&marks.to, |c| &mut c.highlights);
        count(&marks.removed, |c| &mut c.removed);
        count(&marks.captures, |c| &mut c.captures);
    }
    count(&options.checked, |c| &mut c.checks);
    contents
}

/// Draws one square's content on the canvas: the hole, the last move's marks, a check, then
/// the pieces.
fn draw_square(
    canvas: &mut Pixmap,
    layout: &Layout,
    at: Coord,
    content: &SquareContent,
) -> Result<(), RenderError> {
    if content.hole {
        fill_square(canvas, layout, at, layout.theme.palette().hole, 255);
    }
    for _ in 0..content.highlights {
        fill_square(canvas, layout, at, HIGHLIGHT, HIGHLIGHT_ALPHA);
        frame_square(canvas, layout, at, HIGHLIGHT, 0);
    }
    for _ in 0..content.removed {
        frame_square(canvas, layout, at, HIGHLIGHT, tile_inset(layout.sq));
    }
    for _ in 0..content.captures {
        capture_corners(canvas, layout, at);
    }
    for _ in 0..content.checks {
        let glow = check_glow(layout.sq)?;
        let (x, y) = layout.origin(at);
        blit(canvas, &glow, x, y);
        frame_square(canvas, layout, at, CHECK, 0);
    }
    if !content.pieces.is_empty() {
        draw_pieces(canvas, layout, at, &content.pieces)?;
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

fn fill_square(canvas: &mut Pixmap, layout: &Layout, at: Coord, color: Rgb, alpha: u8) {
    let (x, y) = layout.origin(at);
    let sq = layout.sq as f32;
    fill_rect(canvas, x as f32, y as f32, sq, sq, &paint(color, alpha));
}

/// How strongly the last move's squares are tinted (of 255).
pub(crate) const HIGHLIGHT_ALPHA: u8 = 110;

/// The width of a highlight frame.
fn frame_width(sq: u32) -> u32 {
    (sq / 16).max(3)
}

/// A solid frame just inside a square, `inset` pixels in from its edge.
fn frame_square(canvas: &mut Pixmap, layout: &Layout, at: Coord, color: Rgb, inset: u32) {
    let (x, y) = layout.origin(at);
    let (x, y) = ((x + inset) as f32, (y + inset) as f32);
    let side = (layout.sq - 2 * inset) as f32;
    let w = frame_width(layout.sq) as f32;
    let paint = paint(color, 255);
    fill_rect(canvas, x, y, side, w, &paint);
    fill_rect(canvas, x, y + side - w, side, w, &paint);
    fill_rect(canvas, x, y, w, side, &paint);
    fill_rect(canvas, x + side - w, y, w, side, &paint);
}

/// Triangles in the four corners of a square where something was captured.
fn capture_corners(canvas: &mut Pixmap, layout: &Layout, at: Coord) {
    let (x, y) = layout.origin(at);
    let (x, y, sq) = (x as f32, y as f32, layout.sq as f32);
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
        fill_shape(canvas, &path, CAPTURE);
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
    canvas: &mut Pixmap,
    layout: &Layout,
    at: Coord,
    pieces: &[PieceView],
) -> Result<(), RenderError> {
    let (x, y) = layout.origin(at);
    let sq = layout.sq;
    if let [piece] = pieces {
        let px = sq * 9 / 10;
        let sprite = piece_sprite(layout.theme, *piece, px)?;
        blit(canvas, &sprite, x + (sq - px) / 2, y + (sq - px) / 2);
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
        let left = x + (sq - in_row * half) / 2 + col * half;
        let top = y + (sq - rows * half) / 2 + row * half;
        let sprite = piece_sprite(layout.theme, *piece, px)?;
        blit(
            canvas,
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

/// The caption band: the players (the side to move in bold, its disc ringed in the highlight
/// colour), then the move number, whose turn it is (nobody's once the game is over), the
/// deadline and the status; last the theme's legend where it fits.
fn draw_caption(canvas: &mut Pixmap, layout: &Layout, caption: &Caption) {
    let theme = layout.theme;
    let palette = theme.palette();
    let w = layout.width as f32;
    let font = caption_font(layout.width) as f32;
    let m = layout.margin as f32;
    let line1 = font * 1.35;
    let line2 = font * 2.75;
    let r = font * 0.45;
    fill_rect(
        canvas,
        0.0,
        0.0,
        w,
        layout.caption as f32,
        &paint(palette.frame, 255),
    );
    for (color, name) in [
        (Color::White, &caption.white),
        (Color::Black, &caption.black),
    ] {
        let pieces = theme.pieces(color);
        let to_move = Some(color) == caption.to_move;
        let (cx, anchor, tx) = match color {
            Color::White => (m + r, Anchor::Start, m + 2.0 * r + font * 0.4),
            Color::Black => (w - m - r, Anchor::End, w - m - 2.0 * r - font * 0.4),
        };
        let ring = if to_move { HIGHLIGHT } else { pieces.line };
        let ring_width = if to_move { font * 0.18 } else { font * 0.08 };
        disc(canvas, cx, line1 - font * 0.35, r + ring_width, ring);
        disc(canvas, cx, line1 - font * 0.35, r, pieces.body);
        let weight = if to_move {
            Weight::Bold
        } else {
            Weight::Regular
        };
        text::draw(
            canvas,
            &shorten(name, 22),
            tx,
            line1,
            font,
            weight,
            palette.text,
            anchor,
        );
    }
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
    text::draw(
        canvas,
        &status,
        w / 2.0,
        line2,
        font * 0.85,
        Weight::Regular,
        palette.text,
        Anchor::Middle,
    );
    if let Some(legend) = theme.legend().filter(|_| layout.legend) {
        text::draw(
            canvas,
            legend,
            w / 2.0,
            font * 3.85,
            legend_font(font as u32),
            Weight::Regular,
            palette.text,
            Anchor::Middle,
        );
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{MoveMarks, Variant, VariantPosition};

    /// A canvas handed back after a picture that draws on every square (pieces, marks,
    /// checks, a caption) then draws the next picture exactly as a new canvas would.
    #[test]
    fn a_kept_canvas_draws_as_a_new_one() {
        // A size no other test draws at, so no square's indices are known: every square is
        // drawn on the canvas.
        const SIZE: u32 = 397;
        for variant in Variant::ALL {
            let start = VariantPosition::start(variant);
            let theme = Theme::for_variant(variant);
            let full = start.board_view();
            let mut empty = full.clone();
            empty.cells.fill(Cell::Empty);
            let caption = Caption {
                white: String::from("alice"),
                black: String::from("bob"),
                move_number: 12,
                to_move: Some(Color::White),
                deadline: Some(String::from("Monday 12:00 UTC")),
                status: Some(String::from("Check!")),
            };
            let layout = Layout::new(theme, SIZE, false, true).expect("a layout");
            let squares: Vec<Coord> = layout.coords().collect();
            let busy = RenderOptions {
                last: Some(MoveMarks {
                    from: squares.clone(),
                    to: squares.clone(),
                    captures: squares.clone(),
                    removed: squares.clone(),
                }),
                checked: squares.clone(),
                side: None,
                caption: Some(caption.clone()),
                size: SIZE,
            };
            let quiet = RenderOptions {
                caption: Some(Caption {
                    status: None,
                    ..caption
                }),
                size: SIZE,
                ..RenderOptions::default()
            };
            let mut canvas = new_canvas(&layout, SIZE).expect("a canvas");
            for _ in 0..2 {
                let picture = draw_on(canvas, &layout, &full, &busy).expect("draws");
                assert_eq!(picture.drawn_on().count(), squares.len(), "{variant:?}");
                canvas = picture.restored().expect("restores");
            }
            let kept = draw_on(canvas, &layout, &empty, &quiet).expect("draws");
            let new = new_canvas(&layout, SIZE)
                .and_then(|canvas| draw_on(canvas, &layout, &empty, &quiet))
                .expect("draws");
            assert!(
                kept.canvas.data() == new.canvas.data(),
                "{variant:?}: a kept canvas still shows an earlier picture"
            );
        }
    }

    /// A picture whose squares' indices are known from an earlier picture comes out exactly
    /// as the one drawn square by square, and a square keeps its own ground: the same piece
    /// on another colour of square is drawn, not copied.
    #[test]
    fn known_squares_come_out_as_drawn_ones() {
        // A size no other test draws at, so the first picture draws every square.
        const SIZE: u32 = 389;
        for variant in Variant::ALL {
            let position = VariantPosition::start(variant);
            let theme = Theme::for_variant(variant);
            let view = position.board_view();
            let layout = Layout::new(theme, SIZE, true, false).expect("a layout");
            let occupied: Vec<Coord> = layout
                .coords()
                .filter(|&at| *view.cell(at) != Cell::Empty)
                .collect();
            let options = RenderOptions {
                last: Some(MoveMarks {
                    from: vec![occupied[0]],
                    to: vec![occupied[occupied.len() - 1]],
                    ..MoveMarks::default()
                }),
                checked: vec![occupied[1]],
                side: Some(Color::Black),
                caption: None,
                size: SIZE,
            };
            let first = draw(&layout, &view, &options).expect("draws");
            assert_eq!(first.drawn_on().count(), occupied.len(), "{variant:?}");
            let drawn = first.indexed().expect("indexed");
            first.recycle();
            let second = draw(&layout, &view, &options).expect("draws");
            assert_eq!(second.drawn_on().count(), 0, "{variant:?}");
            assert!(
                second.indexed().expect("indexed") == drawn,
                "{variant:?}: known squares differ from drawn ones"
            );
            second.recycle();
            // Every piece moved one file over, where the ground may differ.
            let mut shifted = view.clone();
            shifted.cells.rotate_right(1);
            let third = draw(&layout, &shifted, &options).expect("draws");
            let third_indices = third.indexed().expect("indexed");
            third.recycle();
            // The same picture with every square drawn on a new canvas.
            let mut canvas = new_canvas(&layout, SIZE).expect("a canvas");
            let grounds = grounds(&layout).expect("grounds");
            let mut squares = Vec::new();
            for (at, content) in layout.coords().zip(contents(&layout, &shifted, &options)) {
                draw_square(&mut canvas, &layout, at, &content).expect("draws");
                squares.push(Square::Drawn(TileKey {
                    theme,
                    sq: layout.sq,
                    flipped: layout.flipped,
                    ground: grounds[layout.square_index(at)],
                    content,
                }));
            }
            let alone = Picture {
                canvas,
                layout,
                squares,
            };
            assert!(
                alone.indexed().expect("indexed") == third_indices,
                "{variant:?}: a square copied from another ground"
            );
        }
    }
}
