//! Board pictures: a position (with the last move, the kings in check, a viewpoint and a
//! caption) becomes PNG bytes; a whole game becomes an animated GIF, and an analysed game's
//! evaluation a graph ([`render_eval_graph`]).
//!
//! Pure and deterministic: no I/O, no clock, no randomness. The piece art (SVG, drawn for the
//! project and licensed CC0) and the font are embedded in the binary, and text is shaped with
//! that font only, never with system fonts, so every machine draws the same pixels. Piece
//! sprites and the static board of each theme, size and viewpoint are rasterised once and
//! cached; a picture is then a copy of the board plus a few blits.
//!
//! The drawing core is game-agnostic: [`render_view`] takes a [`Theme`] (the board's geometry
//! and colours) and a [`BoardView`]. [`render_position`] picks both from a
//! [`VariantPosition`].

mod art;
mod base;
mod board;
mod encode;
mod graph;
mod lzw;
mod palette;
mod picture;
mod replay;
mod table;
mod text;
mod theme;

pub use graph::{
    BLUNDER_DOT, Dot, EvalGraph, GRAPH_HEIGHT, GRAPH_WIDTH, INACCURACY_DOT, MISTAKE_DOT,
    render_eval_graph,
};
pub use replay::{
    FINAL_PAUSE_CS, Frame, MOVE_DELAY_CS, game_frames, outcome_words, position_status, replay_gif,
};
pub use table::{MOST_ROWS, Table, render_table};
pub use theme::{
    CAPTURE, CHAD_CASTLE, CHAD_PLAIN, CHAD_WALL, CHAK_ALTAR, CHAK_DARK, CHAK_LIGHT,
    CHAK_RIVER_DARK, CHAK_RIVER_LIGHT, CHAK_TEMPLE_DARK, CHAK_TEMPLE_LIGHT, CHECK,
    CHESSCALA_CIRCUITS, HIGHLIGHT, PieceColors, Rgb, SHAKTI_HOLE, SHAKTI_TILE, Theme,
};

use crate::rules::{BoardView, Color, Coord, MoveMarks, VariantPosition, square};

/// The default length of the board's longer side, in pixels (squares only, without the
/// coordinates and caption): 80-pixel squares on Chak's 9x9, 60 on Chad's 12x12.
pub const DEFAULT_SIZE: u32 = 720;
/// The smallest size accepted.
pub const MIN_SIZE: u32 = 96;
/// The largest size accepted; bigger pictures are of no use in chat and cost memory.
pub const MAX_SIZE: u32 = 2048;

/// What to draw besides the pieces.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RenderOptions {
    /// The last move, highlighted.
    pub last: Option<MoveMarks>,
    /// Squares of kings in check, highlighted. [`render_position`] adds the position's own.
    pub checked: Vec<Coord>,
    /// Whose side the board is seen from. `None`: the side to move (from the caption in
    /// [`render_view`], from the position in [`render_position`]), else White.
    pub side: Option<Color>,
    /// The players and the state of the game, above the board.
    pub caption: Option<Caption>,
    /// The length of the board's longer side in pixels, from [`MIN_SIZE`] to [`MAX_SIZE`].
    pub size: u32,
}

impl Default for RenderOptions {
    fn default() -> RenderOptions {
        RenderOptions {
            last: None,
            checked: Vec::new(),
            side: None,
            caption: None,
            size: DEFAULT_SIZE,
        }
    }
}

/// The text above the board.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Caption {
    /// The name of the player of White.
    pub white: String,
    /// The name of the player of Black (Green in Chak).
    pub black: String,
    /// The number of the move being played, from 1.
    pub move_number: u32,
    /// Whose turn it is; `None` once the game is over, when the status says how it ended.
    pub to_move: Option<Color>,
    /// When the player to move must have moved, already written for people.
    pub deadline: Option<String>,
    /// A short note such as "Check!" or "White wins by checkmate".
    pub status: Option<String>,
}

/// Why a picture could not be drawn.
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error)]
pub enum RenderError {
    /// The size is outside [`MIN_SIZE`]..=[`MAX_SIZE`].
    #[error("a picture size of {0} pixels is not possible")]
    Size(u32),
    /// The board view does not have the theme's shape.
    #[error("a {files}x{ranks} board with {cells} cells cannot be drawn as {theme:?}")]
    BoardMismatch {
        /// The theme asked for.
        theme: Theme,
        /// The view's files.
        files: u8,
        /// The view's ranks.
        ranks: u8,
        /// The view's cells.
        cells: usize,
    },
    /// A square holds no pieces in a stack, or more than four.
    #[error("{square} holds {pieces} pieces; a square holds one to four")]
    Stack {
        /// The square's name.
        square: String,
        /// How many pieces it holds.
        pieces: usize,
    },
    /// A highlighted square is off the board.
    #[error("square ({file}, {rank}) is off the board")]
    OffBoard {
        /// Zero-based file.
        file: u8,
        /// Zero-based rank.
        rank: u8,
    },
    /// A replay has no frames, or frames of different sizes.
    #[error("a replay needs at least one frame, all of the same size")]
    Frames,
    /// The embedded art did not parse (a bug in the assets).
    #[error("piece art: {0}")]
    Art(String),
    /// The image could not be encoded.
    #[error("encoding the picture: {0}")]
    Encode(String),
}

/// Draws a position of any game as PNG bytes, with its kings in check highlighted and, by
/// default, seen from the side to move.
///
/// # Errors
/// [`RenderError`] when the options do not fit the board (a size out of range, a mark off the
/// board).
pub fn render_position(
    position: &VariantPosition,
    options: &RenderOptions,
) -> Result<Vec<u8>, RenderError> {
    let mut options = options.clone();
    for king in position.checked_kings() {
        if !options.checked.contains(&king) {
            options.checked.push(king);
        }
    }
    options.side = Some(options.side.unwrap_or(position.turn()));
    render_view(
        Theme::for_variant(position.variant()),
        &position.board_view(),
        &options,
    )
}

/// Draws a board view in a theme as PNG bytes: the game-agnostic core.
///
/// # Errors
/// [`RenderError`] when the view does not have the theme's shape or the options do not fit it.
pub fn render_view(
    theme: Theme,
    view: &BoardView,
    options: &RenderOptions,
) -> Result<Vec<u8>, RenderError> {
    draw_view(theme, view, options)?.png()
}

/// Draws a view into a picture.
pub(crate) fn draw_view(
    theme: Theme,
    view: &BoardView,
    options: &RenderOptions,
) -> Result<picture::Picture, RenderError> {
    board::validate(theme, view, options)?;
    picture::draw(&layout(theme, options)?, view, options)
}

/// The layout of a picture: seen from the chosen side, else the side to move in the caption,
/// else White.
pub(crate) fn layout(theme: Theme, options: &RenderOptions) -> Result<board::Layout, RenderError> {
    let side = options
        .side
        .or(options.caption.as_ref().and_then(|c| c.to_move))
        .unwrap_or(Color::White);
    board::Layout::new(
        theme,
        options.size,
        side == Color::Black,
        options.caption.is_some(),
    )
}

/// Where a square's top-left pixel lies in a picture drawn with these options, for tests and
/// for anyone placing marks on a picture.
///
/// # Errors
/// [`RenderError::Size`] for a size out of range.
pub fn square_origin(
    theme: Theme,
    options: &RenderOptions,
    at: Coord,
) -> Result<(u32, u32, u32), RenderError> {
    let layout = layout(theme, options)?;
    let (x, y) = layout.origin(at);
    Ok((x, y, layout.sq))
}

/// The squares named in a move text, for highlighting a move that cannot be replayed (its
/// position before is unknown): the first square is where the move started, the last where it
/// ended, squares right after an `x` were captures, and squares in `(rm X)` are removed
/// Shakti tiles.
#[must_use]
pub fn marks_from_text(text: &str, files: u8, ranks: u8) -> MoveMarks {
    let mut marks = MoveMarks::default();
    let mut named = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut removing = false;
    while i < bytes.len() {
        if !text.is_char_boundary(i) {
            i += 1;
            continue;
        }
        if text[i..].starts_with("(rm") {
            removing = true;
            i += 3;
            continue;
        }
        if bytes[i] == b')' {
            removing = false;
        }
        if let Some((file, rank, len)) = square::parse_prefix(&text[i..], files, ranks) {
            let at = Coord::new(file, rank);
            if removing {
                marks.removed.push(at);
            } else {
                if i > 0 && bytes[i - 1].eq_ignore_ascii_case(&b'x') {
                    marks.captures.push(at);
                }
                named.push(at);
            }
            i += len;
            continue;
        }
        i += 1;
    }
    if let Some(&first) = named.first() {
        marks.from.push(first);
    }
    if named.len() > 1
        && let Some(&last) = named.last()
    {
        marks.to.push(last);
    }
    marks
}
