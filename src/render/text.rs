//! Text drawn straight from the embedded font's outlines: captions change with every move, so
//! they are laid out here (advance widths, no shaping) instead of going through an SVG
//! document, which costs several times more.

use std::sync::OnceLock;

use resvg::tiny_skia::{PathBuilder, Pixmap, Transform};
use skrifa::instance::{LocationRef, Size};
use skrifa::outline::{DrawSettings, OutlinePen};
use skrifa::{FontRef, MetadataProvider};

use super::art::{Cache, cached};
use super::board::fill_shape;
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
    static GLYPHS: Cache<GlyphKey, Glyph> = OnceLock::new();
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
        let (x, y) = (column + i64::from(drawn.left), row + i64::from(drawn.top));
        lay(canvas, &drawn, x, y, color);
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

/// Lays a glyph with its top left corner at (`x`, `y`) onto the canvas in `color` (source
/// over), clipped to the canvas on every side. The ink is
/// scaled by the coverage as tiny-skia scales a fill (`(c * a + 255) >> 8`), so a glyph shows
/// exactly as one filled in its colour and copied: the palette turns a difference of one in a
/// channel into the next palette colour, which may be far away.
fn lay(canvas: &mut Pixmap, glyph: &Glyph, x: i64, y: i64, color: Rgb) {
    if glyph.width == 0 {
        return;
    }
    let height = (glyph.coverage.len() / glyph.width) as i64;
    let (canvas_width, canvas_height) = (i64::from(canvas.width()), i64::from(canvas.height()));
    // The canvas's columns and rows the glyph covers.
    let (left, right) = (x.max(0), (x + glyph.width as i64).min(canvas_width));
    let (top, bottom) = (y.max(0), (y + height).min(canvas_height));
    if left >= right || top >= bottom {
        return;
    }
    let cols = (right - left) as usize;
    let ink = [color.0, color.1, color.2, 255];
    let target = canvas.data_mut();
    for row in top..bottom {
        let from = (row - y) as usize * glyph.width + (left - x) as usize;
        let to = ((row * canvas_width + left) * 4) as usize;
        let pairs = target[to..to + cols * 4]
            .chunks_exact_mut(4)
            .zip(&glyph.coverage[from..from + cols]);
        for (dst, &alpha) in pairs {
            match alpha {
                0 => {}
                255 => dst.copy_from_slice(&ink),
                alpha => {
                    let keep = 255 - u16::from(alpha);
                    for (d, &s) in dst.iter_mut().zip(&ink) {
                        // The scaled ink is at most `alpha` and what shows through at most
                        // `keep`: the sum stays within 255.
                        let over = (u16::from(s) * u16::from(alpha) + 255) >> 8;
                        *d = (over + (u16::from(*d) * keep + 127) / 255) as u8;
                    }
                }
            }
        }
    }
}
