//! Text drawn straight from the embedded font's outlines: captions change with every move, so
//! they are laid out here (advance widths, no shaping) instead of going through an SVG
//! document, which costs several times more.

use resvg::tiny_skia::{PathBuilder, Pixmap};
use skrifa::instance::{LocationRef, Size};
use skrifa::outline::{DrawSettings, OutlinePen};
use skrifa::{FontRef, MetadataProvider};

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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    let mut pen = Pen {
        path: PathBuilder::new(),
        x: start,
        baseline,
    };
    for c in text.chars() {
        let glyph = charmap.map(c).unwrap_or_default();
        if let Some(outline) = outlines.get(glyph) {
            // A glyph that fails to draw is left out; the rest of the line still reads.
            let _ = outline.draw(
                DrawSettings::unhinted(Size::new(px), LocationRef::default()),
                &mut pen,
            );
        }
        pen.x += metrics.advance_width(glyph).unwrap_or(0.0);
    }
    if let Some(path) = pen.path.finish() {
        fill_shape(canvas, &path, color);
    }
}
