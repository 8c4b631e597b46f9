//! A picture of one position: which squares show more than the static board, drawing the new
//! ones on a kept canvas, and turning the whole into palette indices while keeping each drawn
//! square's indices for the next pictures.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use resvg::tiny_skia::{IntSize, Pixmap};

use super::art::{Cache, cached, keep, lookup};
use super::base::base;
use super::board::{BASE_LIMIT, Layout, draw_caption, draw_square};
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
    Known(Arc<Vec<u8>>),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::Caption;
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
}
