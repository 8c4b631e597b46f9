//! The evaluation graph of an analysed game: White's winning chances after every ply, as the
//! share of each column filled with White's colour from the bottom (the rest in Black's), the
//! curve on top, and a dot on each judged move: yellow for an inaccuracy, orange for a
//! mistake, red for a blunder. In the game's frame and piece colours, with a title and the
//! move numbers; pure and deterministic like the board pictures.

use resvg::tiny_skia::{LineCap, LineJoin, Paint, PathBuilder, Pixmap, Rect, Stroke, Transform};

use super::RenderError;
use super::text::{self, Anchor, Weight};
use super::theme::{CHECK, HIGHLIGHT, Rgb, Theme};
use crate::rules::Color;

/// The graph's width in pixels (the width of a default board).
pub const GRAPH_WIDTH: u32 = 720;
/// The graph's height in pixels.
pub const GRAPH_HEIGHT: u32 = 260;

/// The band above the plot, for the title and the legend.
const TITLE_BAND: f32 = 34.0;
/// The band below the plot, for the move numbers.
const NUMBER_BAND: f32 = 22.0;
/// The margin left and right of the plot.
const SIDE_MARGIN: f32 = 14.0;
/// A dot's radius.
const DOT: f32 = 5.5;

/// The colour of an inaccuracy's dot.
pub const INACCURACY_DOT: Rgb = HIGHLIGHT;
/// The colour of a mistake's dot.
pub const MISTAKE_DOT: Rgb = Rgb(0xf0, 0x86, 0x1e);
/// The colour of a blunder's dot.
pub const BLUNDER_DOT: Rgb = CHECK;

/// How bad a marked move was, for its dot's colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dot {
    Inaccuracy,
    Mistake,
    Blunder,
}

impl Dot {
    /// The dot's colour.
    #[must_use]
    pub const fn color(self) -> Rgb {
        match self {
            Dot::Inaccuracy => INACCURACY_DOT,
            Dot::Mistake => MISTAKE_DOT,
            Dot::Blunder => BLUNDER_DOT,
        }
    }
}

/// What the graph shows.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalGraph {
    /// The game's look (frame, text and the sides' colours).
    pub theme: Theme,
    /// The line above the plot.
    pub title: String,
    /// White's winning chances, from -1 to 1, of every position: the start, then after each
    /// ply.
    pub chances: Vec<f64>,
    /// The marked moves: each move's ply (from 1; the dot sits on the position after it) and
    /// how bad it was.
    pub dots: Vec<(usize, Dot)>,
    /// Whether Black moved first (move numbers count from there).
    pub black_first: bool,
}

/// Where things go on the picture.
struct Plot {
    left: f32,
    right: f32,
    top: f32,
    bottom: f32,
    plies: usize,
}

impl Plot {
    fn x(&self, ply: f32) -> f32 {
        self.left + (self.right - self.left) * ply / self.plies.max(1) as f32
    }

    fn y(&self, chances: f64) -> f32 {
        let share = ((chances.clamp(-1.0, 1.0) + 1.0) / 2.0) as f32;
        self.bottom - (self.bottom - self.top) * share
    }
}

fn paint(color: Rgb) -> Paint<'static> {
    let mut paint = Paint::default();
    paint.set_color(color.skia_alpha(255));
    paint.anti_alias = true;
    paint
}

fn fill_rect(canvas: &mut Pixmap, (x, y, width, height): (f32, f32, f32, f32), color: Rgb) {
    if let Some(rect) = Rect::from_xywh(x, y, width, height) {
        canvas.fill_rect(rect, &paint(color), Transform::identity(), None);
    }
}

fn circle(canvas: &mut Pixmap, (x, y): (f32, f32), radius: f32, color: Rgb) {
    if let Some(path) = PathBuilder::from_circle(x, y, radius) {
        canvas.fill_path(
            &path,
            &paint(color),
            resvg::tiny_skia::FillRule::Winding,
            Transform::identity(),
            None,
        );
    }
}

/// Draws the graph as PNG bytes, [`GRAPH_WIDTH`] by [`GRAPH_HEIGHT`].
///
/// # Errors
/// [`RenderError::Encode`] when the picture cannot be made or encoded.
pub fn render_eval_graph(graph: &EvalGraph) -> Result<Vec<u8>, RenderError> {
    let mut canvas = Pixmap::new(GRAPH_WIDTH, GRAPH_HEIGHT)
        .ok_or_else(|| RenderError::Encode(String::from("no room for the graph")))?;
    let palette = graph.theme.palette();
    let (white, black) = (
        graph.theme.pieces(Color::White).body,
        graph.theme.pieces(Color::Black).body,
    );
    canvas.fill(palette.frame.skia_alpha(255));
    let plot = Plot {
        left: SIDE_MARGIN,
        right: GRAPH_WIDTH as f32 - SIDE_MARGIN,
        top: TITLE_BAND,
        bottom: GRAPH_HEIGHT as f32 - NUMBER_BAND,
        plies: graph.chances.len().saturating_sub(1),
    };
    title(&mut canvas, graph, palette.text);
    // Each column: White's share from the bottom, Black's above it.
    let (width, height) = (plot.right - plot.left, plot.bottom - plot.top);
    fill_rect(&mut canvas, (plot.left, plot.top, width, height), black);
    let columns = width.ceil() as usize;
    for column in 0..columns {
        let at = (column as f32 + 0.5) / width * plot.plies as f32;
        let y = plot.y(chances_at(&graph.chances, at));
        let x = plot.left + column as f32;
        fill_rect(&mut canvas, (x, y, 1.0, plot.bottom - y), white);
    }
    // The even line, faint, and the move numbers every ten moves.
    let middle = plot.y(0.0);
    let grey = Rgb(0x8c, 0x8c, 0x8c);
    fill_rect(&mut canvas, (plot.left, middle - 0.5, width, 1.0), grey);
    numbers(&mut canvas, graph, &plot, palette.text);
    curve(&mut canvas, &graph.chances, &plot, grey);
    for &(ply, dot) in &graph.dots {
        if let Some(&chances) = graph.chances.get(ply) {
            let at = (plot.x(ply as f32), plot.y(chances));
            circle(&mut canvas, at, DOT + 1.5, palette.frame);
            circle(&mut canvas, at, DOT, dot.color());
        }
    }
    encode(&canvas)
}

/// The winning chances at a fractional ply, between the positions around it.
fn chances_at(chances: &[f64], at: f32) -> f64 {
    let Some(&last) = chances.last() else {
        return 0.0;
    };
    let before = at.floor().max(0.0) as usize;
    match (chances.get(before), chances.get(before + 1)) {
        (Some(&a), Some(&b)) => {
            let t = f64::from(at - before as f32);
            a + (b - a) * t
        }
        _ => last,
    }
}

fn title(canvas: &mut Pixmap, graph: &EvalGraph, color: Rgb) {
    let baseline = TITLE_BAND - 12.0;
    text::draw(
        canvas,
        &graph.title,
        SIDE_MARGIN,
        baseline,
        15.0,
        Weight::Bold,
        color,
        Anchor::Start,
    );
    // The legend, from the right.
    let mut x = GRAPH_WIDTH as f32 - SIDE_MARGIN;
    for (dot, label) in [
        (Dot::Blunder, "blunder"),
        (Dot::Mistake, "mistake"),
        (Dot::Inaccuracy, "inaccuracy"),
    ] {
        text::draw(
            canvas,
            label,
            x,
            baseline,
            12.0,
            Weight::Regular,
            color,
            Anchor::End,
        );
        x -= text::width(label, 12.0, Weight::Regular) + DOT + 4.0;
        circle(canvas, (x, baseline - 4.0), DOT - 1.0, dot.color());
        x -= DOT + 12.0;
    }
}

/// A tick and a number under every tenth move.
fn numbers(canvas: &mut Pixmap, graph: &EvalGraph, plot: &Plot, color: Rgb) {
    let offset = usize::from(graph.black_first);
    // The position after the first side's move `number` (at least 19 plies: no underflow).
    for number in (10_usize..).step_by(10) {
        let ply = 2 * number - 1 - offset;
        if ply > plot.plies {
            break;
        }
        let x = plot.x(ply as f32);
        fill_rect(canvas, (x - 0.5, plot.bottom, 1.0, 4.0), color);
        text::draw(
            canvas,
            &number.to_string(),
            x,
            plot.bottom + 17.0,
            12.0,
            Weight::Regular,
            color,
            Anchor::Middle,
        );
    }
}

fn curve(canvas: &mut Pixmap, chances: &[f64], plot: &Plot, color: Rgb) {
    let mut path = PathBuilder::new();
    for (ply, &value) in chances.iter().enumerate() {
        let (x, y) = (plot.x(ply as f32), plot.y(value));
        if ply == 0 {
            path.move_to(x, y);
        } else {
            path.line_to(x, y);
        }
    }
    if chances.len() < 2 {
        return;
    }
    let Some(path) = path.finish() else { return };
    let stroke = Stroke {
        width: 1.5,
        line_cap: LineCap::Round,
        line_join: LineJoin::Round,
        ..Stroke::default()
    };
    canvas.stroke_path(&path, &paint(color), &stroke, Transform::identity(), None);
}

/// An opaque pixmap as an RGB PNG.
fn encode(canvas: &Pixmap) -> Result<Vec<u8>, RenderError> {
    let encode_error = |error: png::EncodingError| RenderError::Encode(error.to_string());
    let rgb: Vec<u8> = canvas
        .data()
        .chunks_exact(4)
        .flat_map(|px| [px[0], px[1], px[2]])
        .collect();
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, canvas.width(), canvas.height());
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(encode_error)?;
    writer.write_image_data(&rgb).map_err(encode_error)?;
    writer.finish().map_err(encode_error)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(chances: Vec<f64>, dots: Vec<(usize, Dot)>) -> EvalGraph {
        EvalGraph {
            theme: Theme::Chak,
            title: String::from("Game #1 · alice vs bob"),
            chances,
            dots,
            black_first: false,
        }
    }

    /// The RGB of the pixel at (x, y) of a PNG made here.
    fn pixel(png_bytes: &[u8], x: u32, y: u32) -> [u8; 3] {
        let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
        let mut reader = decoder.read_info().expect("a PNG");
        let mut buffer = vec![0; reader.output_buffer_size().expect("a size")];
        let info = reader.next_frame(&mut buffer).expect("a frame");
        assert_eq!((info.width, info.height), (GRAPH_WIDTH, GRAPH_HEIGHT));
        let at = ((y * info.width + x) * 3) as usize;
        [buffer[at], buffer[at + 1], buffer[at + 2]]
    }

    #[test]
    fn the_fill_follows_white_chances_and_dots_mark_moves() {
        let chances = vec![0.0, 0.0, 0.9, 0.9, -0.9, -0.9];
        let png = render_eval_graph(&graph(chances, vec![(4, Dot::Blunder)])).expect("draws");
        let white = Theme::Chak.pieces(Color::White).body;
        let black = Theme::Chak.pieces(Color::Black).body;
        let plot_top = TITLE_BAND as u32;
        let plot_bottom = GRAPH_HEIGHT - NUMBER_BAND as u32;
        // Where White is nearly winning (ply 3), nearly the whole column is White's colour.
        let x3 = (SIDE_MARGIN + (GRAPH_WIDTH as f32 - 2.0 * SIDE_MARGIN) * 0.6) as u32;
        assert_eq!(pixel(&png, x3, plot_top + 20), [white.0, white.1, white.2]);
        // Where Black is (ply 5), nearly the whole column is Black's.
        let x5 = GRAPH_WIDTH - SIDE_MARGIN as u32 - 3;
        assert_eq!(
            pixel(&png, x5, plot_bottom - 20),
            [black.0, black.1, black.2]
        );
        // The blunder's dot sits on ply 4, low down.
        let plot = Plot {
            left: SIDE_MARGIN,
            right: GRAPH_WIDTH as f32 - SIDE_MARGIN,
            top: TITLE_BAND,
            bottom: GRAPH_HEIGHT as f32 - NUMBER_BAND,
            plies: 5,
        };
        let (x, y) = (plot.x(4.0) as u32, plot.y(-0.9) as u32);
        assert_eq!(pixel(&png, x, y), [CHECK.0, CHECK.1, CHECK.2]);
    }

    #[test]
    fn a_graph_of_no_moves_or_one_draws() {
        for chances in [vec![], vec![0.1], vec![0.1, -0.2]] {
            let png = render_eval_graph(&graph(chances, vec![(7, Dot::Mistake)])).expect("draws");
            assert!(png.starts_with(b"\x89PNG"));
        }
    }
}
