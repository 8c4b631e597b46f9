//! A picture of one position: which squares show more than the static board, drawing the new
//! ones on a kept canvas, and turning the whole into palette indices while keeping each drawn
//! square's indices for the next pictures.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use resvg::tiny_skia::{IntSize, Pixmap};

use super::art::{Cache, cached, keep, lookup};
use super::base::base;
use super::board::{BASE_LIMIT, Layout, draw_caption, draw_square};
use super::encode::{Segments, Stream};
use super::palette::with_quantiser;
use super::theme::Theme;
use super::{RenderError, RenderOptions};
use crate::rules::{BoardView, Cell, Coord, PieceView};

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
    Known(Arc<Tile>),
    /// Drawn on the canvas; its palette indices are looked up and kept under the key.
    Drawn(TileKey),
}

/// What one square shows beyond the static board, in the order it is drawn on the square.
/// Nothing a picture draws outside its caption band crosses a square's edge, so a square
/// with the same content on the same ground always comes out the same, pixel for pixel.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub(super) struct SquareContent {
    pub(super) hole: bool,
    /// The last move's tint and frame, once for each time the square is named as its start
    /// or its end.
    pub(super) highlights: u8,
    pub(super) removed: u8,
    pub(super) captures: u8,
    pub(super) checks: u8,
    pub(super) pieces: Vec<PieceView>,
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

/// A square's content drawn on its ground, as it comes out in every picture.
#[derive(Debug)]
struct Tile {
    /// Its palette indices, row by row.
    indices: Vec<u8>,
    /// Its rows below the first, filtered and compressed as in a PNG (the first row's filtered
    /// bytes depend on the square above), made the first time a PNG needs them.
    rows: OnceLock<Segments>,
}

impl Tile {
    fn rows(&self, sq: usize) -> &Segments {
        self.rows.get_or_init(|| {
            let mut rows = Segments::default();
            for (above, row) in self
                .indices
                .chunks_exact(sq)
                .zip(self.indices.chunks_exact(sq).skip(1))
            {
                rows.push_up(above, row);
            }
            rows
        })
    }
}

/// Each square's tile (by index), when it shows more than the static board.
type Tiles = Vec<Option<Arc<Tile>>>;

/// The squares drawn before, by content and ground.
static TILES: Cache<TileKey, Tile> = OnceLock::new();

/// How many squares' indices are kept (a few kilobytes each at the usual sizes): a game's
/// pieces on each ground with and without the last move's marks, for many games at once.
const TILE_LIMIT: usize = 4096;

/// Things made once for each static board (theme, size, viewpoint).
type PerBoard<V> = Cache<(Theme, u32, bool), V>;

/// What `cache` holds for the layout's static board, made on a miss.
fn per_board<V>(
    cache: &'static PerBoard<V>,
    layout: &Layout,
    make: impl FnOnce() -> Result<V, RenderError>,
) -> Result<Arc<V>, RenderError> {
    cached(
        cache,
        BASE_LIMIT,
        &(layout.theme, layout.sq, layout.flipped),
        make,
    )
}

/// For each square of the layout (by index), the first square whose static board tile is the
/// same: the ground a square's tiles are kept under.
fn grounds(layout: &Layout) -> Result<Arc<Vec<Coord>>, RenderError> {
    static GROUNDS: PerBoard<Vec<Coord>> = OnceLock::new();
    per_board(&GROUNDS, layout, || {
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
    })
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
        Ok(self.indexed_tiles()?.0)
    }

    /// The picture as palette indices (see [`Picture::indexed`]), with each square's tile when
    /// it shows more than the static board.
    fn indexed_tiles(&self) -> Result<(Vec<u8>, Tiles), RenderError> {
        let layout = &self.layout;
        let theme = layout.theme;
        let base_indices = base_indices(layout)?;
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
                    indices[to].copy_from_slice(&tile.indices[from..from + sq]);
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
        let tiles = layout
            .coords()
            .zip(&self.squares)
            .map(|(at, square)| match square {
                Square::Plain => None,
                Square::Known(tile) => Some(Arc::clone(tile)),
                Square::Drawn(key) => {
                    let tile = Arc::new(Tile {
                        indices: rows(at)
                            .flat_map(|(_, row)| &indices[row])
                            .copied()
                            .collect(),
                        rows: OnceLock::new(),
                    });
                    keep(&TILES, TILE_LIMIT, key.clone(), Arc::clone(&tile));
                    Some(tile)
                }
            })
            .collect();
        Ok((indices, tiles))
    }

    /// The picture as a PNG. Each row is cut into segments along the squares' columns and the
    /// margins; a segment within a square below its first row, or within the static board
    /// with the static board above it, is copied compressed from the square's tile or from
    /// the static board's rows. Only the caption band and the first rows of the squares that
    /// show more than the static board, and of those right below them, are compressed afresh.
    pub(crate) fn png(&self) -> Result<Vec<u8>, RenderError> {
        let (indices, tiles) = self.indexed_tiles()?;
        let layout = &self.layout;
        let board_rows = board_rows(layout)?;
        let (width, height) = (layout.width as usize, layout.height as usize);
        let (sq, margin, caption) = (
            layout.sq as usize,
            layout.margin as usize,
            layout.caption as usize,
        );
        let (files, ranks) = (usize::from(layout.files), usize::from(layout.ranks));
        let columns = columns(layout);
        // Each square's tile by its place on the screen (band from the top, column from the
        // left).
        let mut screen: Vec<Option<&Tile>> = vec![None; files * ranks];
        for (at, tile) in layout.coords().zip(&tiles) {
            let (column, band) = layout.cell(at);
            screen[band as usize * files + column as usize] = tile.as_deref();
        }
        let shown = |band: usize, column: usize| screen[band * files + column].is_some();
        let board_end = margin + ranks * sq;
        // Where the segment in column `c` of board row `on_board` comes from.
        let source = |on_board: usize, c: usize| {
            let Some(column) = c.checked_sub(1).filter(|&column| column < files) else {
                return Source::Board;
            };
            if !(margin..board_end).contains(&on_board) {
                let below_shown = on_board == board_end && shown(ranks - 1, column);
                return if below_shown {
                    Source::Fresh
                } else {
                    Source::Board
                };
            }
            let (band, offset) = ((on_board - margin) / sq, (on_board - margin) % sq);
            match screen[band * files + column] {
                Some(tile) if offset > 0 => Source::Tile(tile.rows(sq), offset - 1),
                None if offset > 0 => Source::Board,
                here => {
                    let above_shown = band > 0 && shown(band - 1, column);
                    if here.is_some() || above_shown {
                        Source::Fresh
                    } else {
                        Source::Board
                    }
                }
            }
        };
        let zero = vec![0; width];
        let mut stream = Stream::new();
        for y in 0..height {
            stream.row();
            let row = &indices[y * width..(y + 1) * width];
            let above = match y {
                0 => &zero[..],
                _ => &indices[(y - 1) * width..y * width],
            };
            if y < caption || (y == caption && caption > 0) {
                stream.fresh(above, row);
                continue;
            }
            let on_board = y - caption;
            for (c, span) in columns.iter().enumerate() {
                match source(on_board, c) {
                    Source::Tile(rows, index) => stream.kept(rows, index, span.len()),
                    Source::Board => {
                        stream.kept(&board_rows, on_board * columns.len() + c, span.len());
                    }
                    Source::Fresh => stream.fresh(&above[span.clone()], &row[span.clone()]),
                }
            }
        }
        let palette = with_quantiser(layout.theme, |q| q.bytes());
        Ok(stream.finish((layout.width, layout.height), &palette))
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

/// Where a segment of a PNG row comes from.
enum Source<'a> {
    /// A kept square's compressed rows below its first, and which of them.
    Tile(&'a Segments, usize),
    /// The static board's compressed rows.
    Board,
    /// Compressed afresh from the picture's indices.
    Fresh,
}

/// The pixel columns each row of a picture is cut into for compression: the left margin, each
/// file's squares, the right margin.
fn columns(layout: &Layout) -> Vec<Range<usize>> {
    let (sq, margin) = (layout.sq as usize, layout.margin as usize);
    let files = usize::from(layout.files);
    let squares = (0..files).map(|file| margin + file * sq..margin + (file + 1) * sq);
    std::iter::once(0..margin)
        .chain(squares)
        .chain(std::iter::once(margin + files * sq..layout.width as usize))
        .collect()
}

/// The static board's rows, filtered and compressed as in a PNG, cut along [`columns`]: each
/// row below the one above it (the first below a row of zeros, as the top of a picture without
/// a caption).
fn board_rows(layout: &Layout) -> Result<Arc<Segments>, RenderError> {
    static BOARD_ROWS: PerBoard<Segments> = OnceLock::new();
    per_board(&BOARD_ROWS, layout, || {
        let indices = base_indices(layout)?;
        let width = layout.width as usize;
        let zero = vec![0; width];
        let mut rows = Segments::default();
        let columns = columns(layout);
        let mut above = &zero[..];
        for row in indices.chunks_exact(width) {
            for span in columns.iter().cloned() {
                rows.push_up(&above[span.clone()], &row[span]);
            }
            above = row;
        }
        Ok(rows)
    })
}

/// The static board's palette indices.
fn base_indices(layout: &Layout) -> Result<Arc<Vec<u8>>, RenderError> {
    static BASE_INDICES: PerBoard<Vec<u8>> = OnceLock::new();
    per_board(&BASE_INDICES, layout, || {
        let base = base(layout)?;
        Ok(with_quantiser(layout.theme, |q| q.indexed(&base)))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::Caption;
    use crate::render::encode::decode;
    use crate::rules::Color;
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

    /// A picture's PNG decodes to its palette indices with right checksums, whether its
    /// squares were drawn, copied from kept ones, or plain (also in the last band, and below
    /// and above squares shown), with and without a caption, from both sides, at the smallest
    /// size and an odd one.
    #[test]
    fn pictures_decode_to_their_indices() {
        // 383: a size no other test draws at, so the first picture draws every square.
        for size in [super::super::MIN_SIZE, 383] {
            for variant in Variant::ALL {
                let position = VariantPosition::start(variant);
                let theme = Theme::for_variant(variant);
                let view = position.board_view();
                let corners: Vec<Coord> = {
                    let layout = Layout::new(theme, size, false, false).expect("a layout");
                    let all: Vec<Coord> = layout.coords().collect();
                    vec![all[0], all[all.len() - 1]]
                };
                let mut shifted = view.clone();
                shifted.cells.rotate_right(1);
                let mut sparse = view.clone();
                for cell in sparse.cells.iter_mut().step_by(2) {
                    *cell = Cell::Empty;
                }
                for (caption, side) in [
                    (true, Color::White),
                    (true, Color::Black),
                    (false, Color::White),
                    (false, Color::Black),
                ] {
                    let options = RenderOptions {
                        last: Some(MoveMarks {
                            from: vec![corners[0]],
                            to: vec![corners[1]],
                            ..MoveMarks::default()
                        }),
                        checked: vec![corners[1]],
                        side: Some(side),
                        caption: caption.then(|| Caption {
                            white: String::from("alice"),
                            black: String::from("bob"),
                            move_number: 3,
                            to_move: Some(side),
                            deadline: None,
                            status: None,
                        }),
                        size,
                    };
                    for view in [&view, &view, &shifted, &sparse] {
                        let layout = super::super::layout(theme, &options).expect("a layout");
                        let picture = draw(&layout, view, &options).expect("draws");
                        let png = picture.png().expect("a PNG");
                        let indices = picture.indexed().expect("indices");
                        picture.recycle();
                        assert!(
                            decode(&png) == indices,
                            "{variant:?} at {size}, caption {caption}, {side:?}"
                        );
                    }
                }
            }
        }
    }
}
