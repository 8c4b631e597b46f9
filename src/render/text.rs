//! Text drawn straight from the embedded font's outlines: captions change with every move, so
//! they are laid out here (advance widths, no shaping) instead of going through an SVG
//! document, which costs several times more.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::OnceLock;

use resvg::tiny_skia::{PathBuilder, Pixmap, Transform};
use skrifa::instance::{LocationRef, Size};
use skrifa::outline::{DrawSettings, OutlinePen};
use skrifa::{FontRef, MetadataProvider};

use super::art::{Cache, cached};
use super::board::fill_shape;
use super::palette::Quantiser;
use super::theme::Rgb;

/// The font for coordinates and captions, embedded so output is the same on every machine.
pub(crate) const FONT_REGULAR: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/assets/fonts/DejaVuSans.ttf"
));
/// The bold face of the same font.
pub(crate) const FONT_BOLD: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/assets/fonts/DejaVuSans-Bold.ttf"
));

/// Which face to draw with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Weight {
    Regular,
    Bold,
}

/// Where `x` is on the line of text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Anchor {
    Start,
    Middle,
    End,
}

fn face(weight: Weight) -> Option<FontRef<'static>> {
    FontRef::new(match weight {
        Weight::Regular => FONT_REGULAR,
        Weight::Bold => FONT_BOLD,
    })
    .ok()
}

/// Collects glyph outlines into one path, moving each glyph to its pen position and turning
/// the font's y-up coordinates into the picture's y-down ones.
struct Pen {
    path: PathBuilder,
    x: f32,
    baseline: f32,
}

impl OutlinePen for Pen {
    fn move_to(&mut self, x: f32, y: f32) {
        self.path.move_to(self.x + x, self.baseline - y);
    }
    fn line_to(&mut self, x: f32, y: f32) {
        self.path.line_to(self.x + x, self.baseline - y);
    }
    fn quad_to(&mut self, cx0: f32, cy0: f32, x: f32, y: f32) {
        self.path.quad_to(
            self.x + cx0,
            self.baseline - cy0,
            self.x + x,
            self.baseline - y,
        );
    }
    fn curve_to(&mut self, cx0: f32, cy0: f32, cx1: f32, cy1: f32, x: f32, y: f32) {
        self.path.cubic_to(
            self.x + cx0,
            self.baseline - cy0,
            self.x + cx1,
            self.baseline - cy1,
            self.x + x,
            self.baseline - y,
        );
    }
    fn close(&mut self) {
        self.path.close();
    }
}

/// The width of `text` in pixels at `px`.
pub(crate) fn width(text: &str, px: f32, weight: Weight) -> f32 {
    let Some(font) = face(weight) else {
        return 0.0;
    };
    let charmap = font.charmap();
    let metrics = font.glyph_metrics(Size::new(px), LocationRef::default());
    text.chars()
        .map(|c| {
            metrics
                .advance_width(charmap.map(c).unwrap_or_default())
                .unwrap_or(0.0)
        })
        .sum()
}

/// Glyphs kept drawn; a cache this full starts afresh. A caption glyph's coverage is a few
/// hundred bytes, so a full cache holds a few megabytes.
const GLYPH_LIMIT: usize = 16384;

/// Steps per pixel at which a glyph's position is kept: a glyph drawn at 1/64 of a pixel from
/// where the whole line would put it differs from the line's own fill by a few pixels' edges,
/// where 1/8 of a pixel visibly moves strokes.
const PHASES: f32 = 64.0;

/// A drawn glyph's identity: face, size (its `f32` bits), glyph id, and the position's
/// fraction of a pixel across and down (in steps of `1 / PHASES`).
type GlyphKey = (Weight, u32, u32, u8, u8);

/// One glyph's coverage (0 to 255 per pixel), filled once at one fraction of a pixel and laid
/// in the caption's colour onto every caption that uses it. `left` and `top` place it
/// relative to the whole pixel the pen is on; a glyph without ink (a space) is 0 pixels wide.
#[derive(Debug)]
struct Glyph {
    coverage: Vec<u8>,
    width: usize,
    left: i32,
    top: i32,
}

/// Draws one line of text with its baseline at `baseline`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn draw(
    canvas: &mut Pixmap,
    text: &str,
    x: f32,
    baseline: f32,
    px: f32,
    weight: Weight,
    color: Rgb,
    anchor: Anchor,
) {
    let line = Line {
        text,
        x,
        baseline,
        px,
        weight,
        anchor,
    };
    place(line, |glyph, x, y| lay(canvas, glyph, x, y, color));
}

/// One line of text to draw: the text, `x` on the line as its anchor says, its baseline, its
/// size and its face.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Line<'a> {
    pub text: &'a str,
    pub x: f32,
    pub baseline: f32,
    pub px: f32,
    pub weight: Weight,
    pub anchor: Anchor,
}

/// Lays out one line of text: each glyph's coverage, filled once and kept, and the pixel its
/// top left corner goes on.
fn place(line: Line<'_>, mut put: impl FnMut(&Glyph, i64, i64)) {
    static GLYPHS: Cache<GlyphKey, Glyph> = OnceLock::new();
    let Line {
        text,
        x,
        baseline,
        px,
        weight,
        anchor,
    } = line;
    let Some(font) = face(weight) else {
        return;
    };
    let start = match anchor {
        Anchor::Start => x,
        Anchor::Middle => x - width(text, px, weight) / 2.0,
        Anchor::End => x - width(text, px, weight),
    };
    let charmap = font.charmap();
    let metrics = font.glyph_metrics(Size::new(px), LocationRef::default());
    let outlines = font.outline_glyphs();
    let split = |at: f32| {
        let steps = (at * PHASES).round();
        let whole = (steps / PHASES).floor();
        (whole as i64, (steps - whole * PHASES) as u8)
    };
    let (row, down) = split(baseline);
    let mut pen = start;
    for c in text.chars() {
        let glyph = charmap.map(c).unwrap_or_default();
        let (column, across) = split(pen);
        pen += metrics.advance_width(glyph).unwrap_or(0.0);
        let key = (weight, px.to_bits(), glyph.to_u32(), across, down);
        let drawn = cached(&GLYPHS, GLYPH_LIMIT, &key, || {
            let mut outline_pen = Pen {
                path: PathBuilder::new(),
                x: f32::from(across) / PHASES,
                baseline: f32::from(down) / PHASES,
            };
            if let Some(outline) = outlines.get(glyph) {
                let _ = outline.draw(
                    DrawSettings::unhinted(Size::new(px), LocationRef::default()),
                    &mut outline_pen,
                );
            }
            Ok(coverage(outline_pen.path))
        });
        let Ok(drawn) = drawn else { continue };
        put(
            &drawn,
            column + i64::from(drawn.left),
            row + i64::from(drawn.top),
        );
    }
}

/// Text in one colour on a ground of one colour, drawn straight as palette indices: each
/// pixel's coverage is kept instead of its colour, and turned into the index of the colour
/// [`draw`] gives it. Where glyphs overlap, the colour is worked out as [`draw`] lays them, one
/// after the other.
#[derive(Debug)]
pub(crate) struct Inked {
    width: usize,
    ground: Rgb,
    ink: Rgb,
    /// Each pixel's coverage; 0 where no glyph was laid.
    coverage: Vec<u8>,
    /// The colours of the pixels more than one glyph was laid on, by place.
    mixed: HashMap<usize, Rgb>,
}

impl Inked {
    pub(crate) fn new(width: u32, height: u32, ground: Rgb, ink: Rgb) -> Inked {
        Inked {
            width: width as usize,
            ground,
            ink,
            coverage: vec![0; width as usize * height as usize],
            mixed: HashMap::new(),
        }
    }

    /// Draws one line of text, as [`draw`] would on a pixmap of the same size.
    pub(crate) fn draw(&mut self, line: Line<'_>) {
        place(line, |glyph, x, y| self.lay(glyph, x, y));
    }

    fn lay(&mut self, glyph: &Glyph, x: i64, y: i64) {
        let height = self.coverage.len() / self.width;
        for (to, from) in spans(glyph, x, y, (self.width, height)) {
            let pairs = self.coverage[to.clone()]
                .iter_mut()
                .zip(&glyph.coverage[from]);
            for (at, (dst, &alpha)) in to.zip(pairs) {
                match (alpha, *dst) {
                    (0, _) => {}
                    (_, 0) => *dst = alpha,
                    (_, first) => {
                        let under = match self.mixed.get(&at) {
                            Some(&under) => under,
                            None => over(self.ground, self.ink, first),
                        };
                        self.mixed.insert(at, over(under, self.ink, alpha));
                    }
                }
            }
        }
    }

    /// The palette indices of the text on its ground.
    pub(crate) fn indices(&self, quantiser: &Quantiser) -> Vec<u8> {
        // The index of each coverage laid once, looked up when first met.
        let ground = quantiser.index_of(self.ground);
        let mut once = [None; 256];
        once[0] = Some(ground);
        let mut indices = vec![0; self.coverage.len()];
        // Most of a line is its ground: eight pixels without ink are passed at once.
        for (out, coverage) in indices.chunks_mut(8).zip(self.coverage.chunks(8)) {
            if coverage.iter().all(|&alpha| alpha == 0) {
                out.fill(ground);
                continue;
            }
            for (index, &alpha) in out.iter_mut().zip(coverage) {
                *index = *once[usize::from(alpha)]
                    .get_or_insert_with(|| quantiser.index_of(over(self.ground, self.ink, alpha)));
            }
        }
        for (&at, &color) in &self.mixed {
            indices[at] = quantiser.index_of(color);
        }
        indices
    }
}

/// Fills a glyph's outline into a coverage map just large enough to hold it.
fn coverage(path: PathBuilder) -> Glyph {
    let empty = Glyph {
        coverage: Vec::new(),
        width: 0,
        left: 0,
        top: 0,
    };
    let Some(path) = path.finish() else {
        return empty;
    };
    let bounds = path.bounds();
    let (left, top) = (bounds.left().floor(), bounds.top().floor());
    let width = (bounds.right().ceil() - left) as u32 + 1;
    let height = (bounds.bottom().ceil() - top) as u32 + 1;
    let Some(mut sprite) = Pixmap::new(width, height) else {
        return empty;
    };
    let Some(placed) = path.transform(Transform::from_translate(-left, -top)) else {
        return empty;
    };
    // Filled in white, each pixel's alpha is exactly its coverage.
    fill_shape(&mut sprite, &placed, Rgb(255, 255, 255));
    Glyph {
        coverage: sprite.data().chunks_exact(4).map(|px| px[3]).collect(),
        width: width as usize,
        left: left as i32,
        top: top as i32,
    }
}

/// Where a glyph with its top left corner at (`x`, `y`) lies on a canvas of `width` x
/// `height` pixels, clipped to it on every side: for each row, the pixels it covers (by index,
/// row after row) and the part of the glyph's coverage on them.
fn spans(
    glyph: &Glyph,
    x: i64,
    y: i64,
    (width, height): (usize, usize),
) -> impl Iterator<Item = (Range<usize>, Range<usize>)> {
    let rows = glyph.coverage.len().checked_div(glyph.width).unwrap_or(0) as i64;
    let (canvas_width, canvas_height) = (width as i64, height as i64);
    let (left, right) = (x.max(0), (x + glyph.width as i64).min(canvas_width));
    let (top, bottom) = (y.max(0), (y + rows).min(canvas_height));
    let cols = (right - left).max(0) as usize;
    let glyph_width = glyph.width;
    (top..bottom.max(top))
        .filter(move |_| cols > 0)
        .map(move |row| {
            let from = (row - y) as usize * glyph_width + (left - x) as usize;
            let to = (row * canvas_width + left) as usize;
            (to..to + cols, from..from + cols)
        })
}

/// One channel of an ink laid with `alpha` coverage over `under`, as tiny-skia scales a fill
/// (`(c * a + 255) >> 8`), so a glyph shows exactly as one filled in its colour and copied:
/// the palette turns a difference of one in a channel into the next palette colour, which may
/// be far away.
fn over_channel(under: u8, ink: u8, alpha: u8) -> u8 {
    match alpha {
        0 => under,
        255 => ink,
        _ => {
            // The scaled ink is at most `alpha` and what shows through at most `keep`: the
            // sum stays within 255.
            let keep = 255 - u16::from(alpha);
            let over = (u16::from(ink) * u16::from(alpha) + 255) >> 8;
            (over + (u16::from(under) * keep + 127) / 255) as u8
        }
    }
}

/// `ink` laid with `alpha` coverage over `under` (see [`over_channel`]).
fn over(under: Rgb, ink: Rgb, alpha: u8) -> Rgb {
    Rgb(
        over_channel(under.0, ink.0, alpha),
        over_channel(under.1, ink.1, alpha),
        over_channel(under.2, ink.2, alpha),
    )
}

/// Lays a glyph with its top left corner at (`x`, `y`) onto the canvas in `color` (source
/// over, see [`over_channel`]), clipped to the canvas on every side.
fn lay(canvas: &mut Pixmap, glyph: &Glyph, x: i64, y: i64, color: Rgb) {
    let size = (canvas.width() as usize, canvas.height() as usize);
    let ink = [color.0, color.1, color.2, 255];
    let target = canvas.data_mut();
    for (to, from) in spans(glyph, x, y, size) {
        let pixels = target[to.start * 4..to.end * 4].chunks_exact_mut(4);
        for (dst, &alpha) in pixels.zip(&glyph.coverage[from]) {
            for (d, &s) in dst.iter_mut().zip(&ink) {
                *d = over_channel(*d, s, alpha);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::palette::quantiser;
    use crate::render::theme::Theme;

    /// Text drawn straight as palette indices comes out as the same text drawn on a pixmap and
    /// looked up, pixel for pixel: at every size, in both faces, at fractions of a pixel, cut
    /// off at every edge, and where glyphs overlap (accents stacked, letters run together).
    #[test]
    fn inked_text_is_the_drawn_text() {
        let texts = [
            "Move 148 · White to move · by Wednesday 30 December 23:59 UTC",
            "ffffffTTTTTWAVAVAV yyjjj//\\\\",
            "a\u{301}\u{301}\u{301}e\u{308}\u{323}o\u{302}\u{303} Ż́ó́ɫ̃",
            "Draw offered, yes gjpqy · Sandbox · Chak: the altar",
            "",
        ];
        let (width, height) = (331, 29);
        let mut overlaps = 0;
        for theme in Theme::ALL {
            let palette = theme.palette();
            let quantiser = quantiser(theme);
            for px in [9.0, 12.75, 19.55, 25.5] {
                for weight in [Weight::Regular, Weight::Bold] {
                    for (x, baseline, anchor) in [
                        (165.5, 20.3, Anchor::Middle),
                        (-7.25, 9.0, Anchor::Start),
                        (340.0, 33.7, Anchor::End),
                        (100.0, 1.4, Anchor::Start),
                    ] {
                        for text in texts {
                            let mut pixmap = Pixmap::new(width, height).expect("a pixmap");
                            pixmap.fill(palette.frame.skia_alpha(255));
                            draw(
                                &mut pixmap,
                                text,
                                x,
                                baseline,
                                px,
                                weight,
                                palette.text,
                                anchor,
                            );
                            let mut inked = Inked::new(width, height, palette.frame, palette.text);
                            inked.draw(Line {
                                text,
                                x,
                                baseline,
                                px,
                                weight,
                                anchor,
                            });
                            overlaps += inked.mixed.len();
                            assert!(
                                inked.indices(quantiser) == quantiser.indexed(&pixmap),
                                "{theme:?}, {px} px, {weight:?}, at {x}: {text}"
                            );
                        }
                    }
                }
            }
        }
        assert!(overlaps > 0, "no glyphs overlapped");
    }
}
