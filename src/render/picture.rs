//! A picture of one position, put together from blocks of palette indices kept between
//! pictures: the static board, each square that shows more than it (its content drawn once on
//! its ground), and the caption band's strips. The PNG copies each block's rows compressed.

use std::ops::Range;
use std::sync::{Arc, OnceLock};

use resvg::tiny_skia::{IntSize, Pixmap};

use super::art::{Cache, cached, keep, lookup};
use super::base::base;
use super::board::{
    BASE_LIMIT, CaptionPart, Layout, caption_parts, draw_caption_part, draw_square, draw_status,
};
use super::encode::{Segments, Stream};
use super::palette::{Under, quantiser};
use super::text::Inked;
use super::theme::Theme;
use super::{Caption, RenderError, RenderOptions};
use crate::rules::{BoardView, Cell, Coord, PieceView};

/// A drawn picture: the blocks it is put together from.
#[derive(Debug)]
pub(crate) struct Picture {
    layout: Layout,
    /// The caption band's strips, top to bottom (none without a caption).
    strips: Vec<Strip>,
    /// Each square's block (by index `rank * files + file`), when it shows more than the
    /// static board.
    squares: Vec<Option<Arc<Block>>>,
    /// How many of the squares were drawn for this picture rather than known from earlier
    /// ones.
    #[cfg_attr(not(test), expect(dead_code, reason = "only the tests ask"))]
    drawn: usize,
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

/// The palette indices of a rectangle that comes out the same in every picture showing it (a
/// square's content on its ground, or a strip of the caption), with its rows compressed.
#[derive(Debug)]
struct Block {
    width: usize,
    /// Row after row.
    indices: Vec<u8>,
    /// Its rows below the first, filtered and compressed as in a PNG (the first row's filtered
    /// bytes depend on what lies above it), made the first time a PNG needs them.
    rows: OnceLock<Segments>,
}

impl Block {
    fn new(width: usize, indices: Vec<u8>) -> Block {
        Block {
            width,
            indices,
            rows: OnceLock::new(),
        }
    }

    fn row(&self, row: usize) -> &[u8] {
        &self.indices[row * self.width..(row + 1) * self.width]
    }

    fn rows(&self) -> &Segments {
        self.rows
            .get_or_init(|| compressed_rows(&self.indices, self.width))
    }
}

/// The rows of a rectangle of palette indices `width` wide below its first, each filtered
/// below the one above it and compressed.
fn compressed_rows(indices: &[u8], width: usize) -> Segments {
    let mut rows = Segments::default();
    for (above, row) in indices
        .chunks_exact(width)
        .zip(indices.chunks_exact(width).skip(1))
    {
        rows.push_up(above, row);
    }
    rows.done()
}

/// A strip of the caption band.
#[derive(Debug)]
enum Strip {
    /// Drawn for this picture only (the status line): its palette indices, row after row,
    /// compressed afresh.
    Drawn(Vec<u8>),
    /// Kept between pictures (the players, the legend).
    Kept(Arc<KeptStrip>),
}

/// A caption strip kept between pictures: its rows below the first compressed, and as palette
/// indices only its first row (compressed below whatever lies above it) and its last (above
/// whatever lies below it). The others are unpacked from the compressed ones when asked for,
/// so a kept strip takes a few kilobytes rather than tens.
#[derive(Debug)]
struct KeptStrip {
    first: Vec<u8>,
    last: Vec<u8>,
    rows: Segments,
}

impl KeptStrip {
    fn new(width: usize, indices: &[u8]) -> KeptStrip {
        KeptStrip {
            first: indices[..width].to_vec(),
            last: indices[indices.len() - width..].to_vec(),
            rows: compressed_rows(indices, width),
        }
    }

    /// The strip's palette indices, row after row.
    fn indices(&self) -> Vec<u8> {
        let width = self.first.len();
        let mut indices = vec![0; width * (self.rows.len() + 1)];
        indices[..width].copy_from_slice(&self.first);
        for row in 0..self.rows.len() {
            let (above, below) = indices[row * width..].split_at_mut(width);
            self.rows.unpack(row, above, &mut below[..width]);
        }
        indices
    }
}

/// The squares drawn before, by content and ground.
static TILES: Cache<TileKey, Block> = OnceLock::new();

/// How many squares' indices are kept (a few kilobytes each at the usual sizes): a game's
/// pieces on each ground with and without the last move's marks, for many games at once.
const TILE_LIMIT: usize = 4096;

/// The caption strips drawn before that come back: the players of a game with each side to
/// move, and the legends, by the layout seen from White (the caption does not turn with the
/// board). (A status line names the move and its deadline: it is new in every picture, and
/// drawn each time.)
static STRIPS: Cache<(Layout, CaptionPart), KeptStrip> = OnceLock::new();

/// How many caption strips are kept: both players' strips of 2,000 games. At the default size
/// a strip takes 3.5 to 5 KB with names of a few letters and about 10 KB with the longest, so
/// a full cache holds 15 to 40 MB.
const STRIP_LIMIT: usize = 4096;

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
        let mut firsts: Vec<(Coord, Vec<u8>)> = Vec::new();
        Ok(layout
            .coords()
            .map(|at| {
                let pixels = square_of(layout, base.data(), 4, at);
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

/// The bytes of one square of the static board, row after row, from `data` holding `bytes`
/// bytes a pixel.
fn square_of(layout: &Layout, data: &[u8], bytes: usize, at: Coord) -> Vec<u8> {
    let (x, y) = layout.base_origin(at);
    let (width, sq) = (layout.width as usize, layout.sq as usize);
    let mut square = Vec::with_capacity(sq * sq * bytes);
    for row in y as usize..y as usize + sq {
        let start = (row * width + x as usize) * bytes;
        square.extend_from_slice(&data[start..start + sq * bytes]);
    }
    square
}

/// A pixmap of `width` x `height` pixels holding `data`.
fn pixmap(data: Vec<u8>, width: u32, height: u32) -> Result<Pixmap, RenderError> {
    IntSize::from_wh(width, height)
        .and_then(|size| Pixmap::from_vec(data, size))
        .ok_or(RenderError::Size(width))
}

impl Picture {
    pub(crate) fn width(&self) -> u32 {
        self.layout.width
    }

    pub(crate) fn height(&self) -> u32 {
        self.layout.height
    }

    /// The picture as palette indices, one per pixel.
    pub(crate) fn indexed(&self) -> Result<Vec<u8>, RenderError> {
        let layout = &self.layout;
        let base = base_indices(layout)?;
        let (width, sq) = (layout.width as usize, layout.sq as usize);
        let mut indices = Vec::with_capacity(width * layout.height as usize);
        for strip in &self.strips {
            match strip {
                Strip::Drawn(strip) => indices.extend_from_slice(strip),
                Strip::Kept(strip) => indices.extend_from_slice(&strip.indices()),
            }
        }
        indices.extend_from_slice(&base);
        for (at, tile) in layout.coords().zip(&self.squares) {
            let Some(tile) = tile else {
                continue;
            };
            let (x, y) = layout.origin(at);
            for row in 0..sq {
                let start = (y as usize + row) * width + x as usize;
                indices[start..start + sq].copy_from_slice(tile.row(row));
            }
        }
        Ok(indices)
    }

    /// The picture as a PNG. Each row is cut into segments along the squares' columns and the
    /// margins. A segment whose pixels and the ones above them lie in one block (a square
    /// shown, the static board, a caption strip) is copied compressed from that block's rows;
    /// the others (the first rows of the caption's strips, of the squares shown and of what
    /// lies right below them, and the board's first row under a caption) are compressed afresh.
    /// A row that shows the static board all along, below another such row, is copied whole.
    pub(crate) fn png(&self) -> Result<Vec<u8>, RenderError> {
        let layout = &self.layout;
        let base = base_indices(layout)?;
        let board_rows = board_rows(layout)?;
        let width = layout.width as usize;
        let (sq, margin) = (layout.sq as usize, layout.margin as usize);
        let (files, ranks) = (usize::from(layout.files), usize::from(layout.ranks));
        let columns = columns(layout);
        // Each square's block by its place on the screen (band from the top, column from the
        // left).
        let mut screen: Vec<Option<&Block>> = vec![None; files * ranks];
        for (at, tile) in layout.coords().zip(&self.squares) {
            let (column, band) = layout.cell(at);
            screen[band as usize * files + column as usize] = tile.as_deref();
        }
        let board_end = margin + ranks * sq;
        // The band of squares at board row `on_board`, and the row within it.
        let band = |on_board: usize| {
            let on_squares = on_board
                .checked_sub(margin)
                .filter(|_| on_board < board_end)?;
            Some((on_squares / sq, on_squares % sq))
        };
        // The square shown at board row `on_board` in column `c`, and the row within it.
        let shown = |on_board: usize, c: usize| {
            let column = c.checked_sub(1).filter(|&column| column < files)?;
            let (band, row) = band(on_board)?;
            screen[band * files + column].map(|tile| (tile, row))
        };
        // Whether each band of squares shows the static board all along, and board row
        // `on_board`.
        let bare_bands: Vec<bool> = screen
            .chunks_exact(files)
            .map(|band| band.iter().all(Option::is_none))
            .collect();
        let bare = |on_board: usize| band(on_board).is_none_or(|(band, _)| bare_bands[band]);
        // The compressed rows of each square shown, by its place on the screen.
        let shown_rows: Vec<Option<&Segments>> =
            screen.iter().map(|tile| tile.map(Block::rows)).collect();
        // The palette indices of board row `on_board` in column `c`.
        let pixels = |on_board: usize, c: usize| match shown(on_board, c) {
            Some((tile, row)) => tile.row(row),
            None => &base[on_board * width..][columns[c].clone()],
        };
        let mut stream = Stream::new();
        let zero = vec![0; width];
        let mut above = &zero[..];
        for strip in &self.strips {
            match strip {
                Strip::Drawn(strip) => {
                    for row in strip.chunks_exact(width) {
                        stream.row();
                        stream.fresh(above, row);
                        above = row;
                    }
                }
                Strip::Kept(strip) => {
                    stream.row();
                    stream.fresh(above, &strip.first);
                    for row in 0..strip.rows.len() {
                        stream.row();
                        stream.kept(&strip.rows, row, width);
                    }
                    above = &strip.last;
                }
            }
        }
        let mut first = Vec::with_capacity(width);
        for on_board in 0..base.len() / width {
            stream.row();
            if on_board == 0 && !self.strips.is_empty() {
                (0..columns.len()).for_each(|c| first.extend_from_slice(pixels(0, c)));
                stream.fresh(above, &first);
                continue;
            }
            if bare(on_board) && (on_board == 0 || bare(on_board - 1)) {
                stream.kept(&board_rows.whole, on_board, width);
                continue;
            }
            // A row of a band of squares below its first: every segment is kept, a shown
            // square's or the static board's.
            if let Some((band, row)) = band(on_board)
                && row > 0
            {
                let cut = on_board * columns.len();
                let last = columns.len() - 1;
                stream.kept(&board_rows.cut, cut, columns[0].len());
                for (column, tile) in shown_rows[band * files..(band + 1) * files]
                    .iter()
                    .enumerate()
                {
                    match tile {
                        Some(rows) => stream.kept(rows, row - 1, sq),
                        None => stream.kept(&board_rows.cut, cut + 1 + column, sq),
                    }
                }
                stream.kept(&board_rows.cut, cut + last, columns[last].len());
                continue;
            }
            for (c, span) in columns.iter().enumerate() {
                match shown(on_board, c) {
                    Some((tile, row)) if row > 0 => stream.kept(tile.rows(), row - 1, span.len()),
                    Some(_) => stream.fresh(pixels(on_board - 1, c), pixels(on_board, c)),
                    None if on_board > 0 && shown(on_board - 1, c).is_some() => {
                        stream.fresh(pixels(on_board - 1, c), pixels(on_board, c));
                    }
                    None => {
                        let index = on_board * columns.len() + c;
                        stream.kept(&board_rows.cut, index, span.len());
                    }
                }
            }
        }
        let palette = quantiser(layout.theme).bytes();
        Ok(stream.finish((layout.width, layout.height), &palette))
    }
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

/// The static board's rows, filtered and compressed as in a PNG: each row below the one above
/// it (the first below a row of zeros, as the top of a picture without a caption).
#[derive(Debug, Default)]
struct BoardRows {
    /// Each row cut along [`columns`].
    cut: Segments,
    /// Each row whole, for the rows of a picture that show the static board all along.
    whole: Segments,
}

fn board_rows(layout: &Layout) -> Result<Arc<BoardRows>, RenderError> {
    static BOARD_ROWS: PerBoard<BoardRows> = OnceLock::new();
    per_board(&BOARD_ROWS, layout, || {
        let indices = base_indices(layout)?;
        let width = layout.width as usize;
        let zero = vec![0; width];
        let mut rows = BoardRows::default();
        let columns = columns(layout);
        let mut above = &zero[..];
        for row in indices.chunks_exact(width) {
            for span in columns.iter().cloned() {
                rows.cut.push_up(&above[span.clone()], &row[span]);
            }
            rows.whole.push_up(above, row);
            above = row;
        }
        Ok(BoardRows {
            cut: rows.cut.done(),
            whole: rows.whole.done(),
        })
    })
}

/// The static board's palette indices.
fn base_indices(layout: &Layout) -> Result<Arc<Vec<u8>>, RenderError> {
    static BASE_INDICES: PerBoard<Vec<u8>> = OnceLock::new();
    per_board(&BASE_INDICES, layout, || {
        Ok(quantiser(layout.theme).indexed(&*base(layout)?))
    })
}

/// Draws a validated view into a new picture: each square whose content on its ground was not
/// drawn before is drawn now and kept, and so is each caption strip not drawn before.
pub(crate) fn draw(
    layout: &Layout,
    view: &BoardView,
    options: &RenderOptions,
) -> Result<Picture, RenderError> {
    let grounds = grounds(layout)?;
    let mut squares = Vec::with_capacity(view.cells.len());
    let mut drawn = 0;
    for (at, content) in layout.coords().zip(contents(layout, view, options)) {
        if content == SquareContent::default() {
            squares.push(None);
            continue;
        }
        let key = TileKey {
            theme: layout.theme,
            sq: layout.sq,
            flipped: layout.flipped,
            ground: grounds[layout.square_index(at)],
            content,
        };
        let tile = match lookup(&TILES, &key) {
            Some(tile) => tile,
            None => {
                drawn += 1;
                let tile = Arc::new(draw_tile(layout, at, &key.content)?);
                keep(&TILES, TILE_LIMIT, key, Arc::clone(&tile));
                tile
            }
        };
        squares.push(Some(tile));
    }
    let strips = match &options.caption {
        Some(caption) => strips(layout, caption)?,
        None => Vec::new(),
    };
    Ok(Picture {
        layout: *layout,
        strips,
        squares,
        drawn,
    })
}

/// A square's content drawn on its ground, as palette indices: the pixels still those of the
/// static board keep its indices, and only the ones drawn over are looked up.
fn draw_tile(layout: &Layout, at: Coord, content: &SquareContent) -> Result<Block, RenderError> {
    let base = base(layout)?;
    let ground = pixmap(square_of(layout, base.data(), 4, at), layout.sq, layout.sq)?;
    let mut square = ground.clone();
    draw_square(&mut square, layout, content)?;
    let mut indices = square_of(layout, &base_indices(layout)?, 1, at);
    quantiser(layout.theme).reindex(&square, Under::Pixmap(&ground), &mut indices);
    Ok(Block::new(layout.sq as usize, indices))
}

/// The caption band's strips, top to bottom.
fn strips(layout: &Layout, caption: &Caption) -> Result<Vec<Strip>, RenderError> {
    caption_parts(layout, caption)
        .into_iter()
        .map(|(part, rows)| match part {
            CaptionPart::Status(_) => draw_strip(layout, &part, rows).map(Strip::Drawn),
            CaptionPart::Players { .. } | CaptionPart::Legend => {
                let seen = Layout {
                    flipped: false,
                    ..*layout
                };
                let key = (seen, part);
                cached(&STRIPS, STRIP_LIMIT, &key, || {
                    let indices = draw_strip(layout, &key.1, rows)?;
                    Ok(KeptStrip::new(layout.width as usize, &indices))
                })
                .map(Strip::Kept)
            }
        })
        .collect()
}

/// A caption part drawn on its own strip, as palette indices, row after row. The status line,
/// one colour of text on the frame's, is drawn straight as indices.
fn draw_strip(
    layout: &Layout,
    part: &CaptionPart,
    rows: Range<u32>,
) -> Result<Vec<u8>, RenderError> {
    let (width, height) = (layout.width, rows.end - rows.start);
    let palette = layout.theme.palette();
    let frame = palette.frame;
    if let CaptionPart::Status(status) = part {
        let mut strip = Inked::new(width, height, frame, palette.text);
        draw_status(&mut strip, layout, status, rows.start);
        return Ok(strip.indices(quantiser(layout.theme)));
    }
    let ground = [frame.0, frame.1, frame.2, 255].repeat((width * height) as usize);
    let mut strip = pixmap(ground, width, height)?;
    draw_caption_part(&mut strip, layout, part, rows.start);
    // Most of a strip is its ground: only the pixels drawn over are looked up.
    let quantiser = quantiser(layout.theme);
    let mut indices = vec![quantiser.index_of(frame); (width * height) as usize];
    quantiser.reindex(&strip, Under::Ground(frame), &mut indices);
    Ok(indices)
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

    /// A caption drawn strip by strip is the caption drawn on the whole band at once: no
    /// glyph and no disc reaches beyond its strip's rows, whatever the names (accents above,
    /// descenders below, the longest names kept), the size and the legend.
    #[test]
    fn caption_strips_are_the_whole_caption() {
        let captions = [
            (
                "Ågot Ŷvonne-Jøßé",
                "gjpqy_gypsy_quaggy_",
                Some(Color::White),
                Some("Check!"),
            ),
            (
                "ÉÈÊËÌÍÎÏÑÒÓÔÕÖ ÀÁÂÃÄÅ",
                "Żółć gęślą jaźń ÿ",
                Some(Color::Black),
                Some("Draw offered, yes gjpqy"),
            ),
            ("w", "b", None, None),
        ];
        for size in [
            super::super::MIN_SIZE,
            300,
            530,
            720,
            super::super::MAX_SIZE,
        ] {
            for theme in Theme::ALL {
                let layout = Layout::new(theme, size, false, true).expect("a layout");
                for (white, black, to_move, status) in captions {
                    let caption = Caption {
                        white: String::from(white),
                        black: String::from(black),
                        move_number: 148,
                        to_move,
                        deadline: Some(String::from("Wednesday 30 December 23:59 UTC")),
                        status: status.map(String::from),
                    };
                    let mut blank = pixmap(
                        vec![0; (layout.width * layout.caption * 4) as usize],
                        layout.width,
                        layout.caption,
                    )
                    .expect("a band");
                    blank.fill(theme.palette().frame.skia_alpha(255));
                    let frame = quantiser(theme).indexed(&blank);
                    let parts = caption_parts(&layout, &caption);
                    let stacked: Vec<u8> = parts
                        .iter()
                        .flat_map(|(part, rows)| {
                            draw_strip(&layout, part, rows.clone()).expect("draws")
                        })
                        .collect();
                    assert_eq!(stacked.len(), frame.len(), "{theme:?} at {size}");
                    let width = layout.width as usize;
                    for (part, rows) in &parts {
                        // The part drawn alone on the whole band.
                        let mut alone = blank.clone();
                        draw_caption_part(&mut alone, &layout, part, 0);
                        let alone = quantiser(theme).indexed(&alone);
                        let inside = rows.start as usize * width..rows.end as usize * width;
                        assert!(
                            alone[inside.clone()] == stacked[inside.clone()],
                            "{theme:?} at {size}: {part:?} differs within its rows"
                        );
                        let blank_at = |range: Range<usize>| alone[range.clone()] == frame[range];
                        assert!(
                            blank_at(0..inside.start) && blank_at(inside.end..alone.len()),
                            "{theme:?} at {size}: {part:?} reaches beyond its rows"
                        );
                    }
                }
            }
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
            // Each content on each ground is drawn once, even when the picture shows it twice.
            let grounds = grounds(&layout).expect("grounds");
            let distinct: std::collections::HashSet<_> = layout
                .coords()
                .zip(contents(&layout, &view, &options))
                .filter(|(_, content)| *content != SquareContent::default())
                .map(|(at, content)| (grounds[layout.square_index(at)], content))
                .collect();
            assert_eq!(first.drawn, distinct.len(), "{variant:?}");
            let drawn = first.indexed().expect("indexed");
            let second = draw(&layout, &view, &options).expect("draws");
            assert_eq!(second.drawn, 0, "{variant:?}");
            assert!(
                second.indexed().expect("indexed") == drawn,
                "{variant:?}: known squares differ from drawn ones"
            );
            // Every piece moved one file over, where the ground may differ.
            let mut shifted = view.clone();
            shifted.cells.rotate_right(1);
            let third = draw(&layout, &shifted, &options).expect("draws");
            let third_indices = third.indexed().expect("indexed");
            // The same picture with every square drawn on its own ground.
            let squares = layout
                .coords()
                .zip(contents(&layout, &shifted, &options))
                .map(|(at, content)| {
                    (content != SquareContent::default())
                        .then(|| Arc::new(draw_tile(&layout, at, &content).expect("draws")))
                })
                .collect();
            let alone = Picture {
                layout,
                strips: Vec::new(),
                squares,
                drawn: 0,
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
