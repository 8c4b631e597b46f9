//! Rasterised art: piece sprites coloured per side, and text in the embedded font. Both are
//! drawn with resvg once per size and kept in process-wide caches, because a board is drawn
//! many times at the same few sizes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use resvg::tiny_skia::{Pixmap, Transform};
use resvg::usvg;

use super::RenderError;
use super::text::{FONT_BOLD, FONT_REGULAR};
use super::theme::PieceColors;

/// The placeholder colours in the piece templates, replaced per side before parsing.
const BODY_PLACEHOLDER: &str = "#fe01fe";
const LINE_PLACEHOLDER: &str = "#01fe01";
const DETAIL_PLACEHOLDER: &str = "#fefe01";

/// The family name inside the font files.
pub(crate) const FONT_FAMILY: &str = "DejaVu Sans";

/// A process-wide cache of drawn things (sprites by default).
pub(crate) type Cache<K, V = Pixmap> = OnceLock<Mutex<HashMap<K, Arc<V>>>>;

/// Looks `key` up in `cache`, drawing and storing it on a miss (see [`keep`]).
pub(crate) fn cached<K: Eq + std::hash::Hash + Clone, V>(
    cache: &'static Cache<K, V>,
    limit: usize,
    key: &K,
    draw: impl FnOnce() -> Result<V, RenderError>,
) -> Result<Arc<V>, RenderError> {
    if let Some(hit) = lookup(cache, key) {
        return Ok(hit);
    }
    let drawn = Arc::new(draw()?);
    keep(cache, limit, key.clone(), Arc::clone(&drawn));
    Ok(drawn)
}

/// What `cache` holds under `key`.
pub(crate) fn lookup<K: Eq + std::hash::Hash, V>(
    cache: &'static Cache<K, V>,
    key: &K,
) -> Option<Arc<V>> {
    entries(cache).get(key).cloned()
}

/// Stores `value` under `key` in `cache`. A cache that reaches `limit` entries starts
/// afresh, so callers asking for ever new sizes cannot make it grow without end.
pub(crate) fn keep<K: Eq + std::hash::Hash, V>(
    cache: &'static Cache<K, V>,
    limit: usize,
    key: K,
    value: Arc<V>,
) {
    let mut entries = entries(cache);
    if entries.len() >= limit {
        entries.clear();
    }
    entries.insert(key, value);
}

fn entries<K, V>(
    cache: &'static Cache<K, V>,
) -> std::sync::MutexGuard<'static, HashMap<K, Arc<V>>> {
    // A poisoned lock only means another thread panicked while inserting; the map itself is
    // still a valid cache.
    cache
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The parse options: the embedded fonts only, never the system's.
fn options() -> &'static usvg::Options<'static> {
    static OPTIONS: OnceLock<usvg::Options<'static>> = OnceLock::new();
    OPTIONS.get_or_init(|| {
        let mut fonts = usvg::fontdb::Database::new();
        fonts.load_font_data(FONT_REGULAR.to_vec());
        fonts.load_font_data(FONT_BOLD.to_vec());
        usvg::Options {
            font_family: FONT_FAMILY.to_owned(),
            fontdb: Arc::new(fonts),
            ..usvg::Options::default()
        }
    })
}

/// Draws an SVG document onto a new transparent pixmap of `width` x `height`, scaling its
/// view box to fit.
pub(crate) fn rasterise(svg: &str, width: u32, height: u32) -> Result<Pixmap, RenderError> {
    let tree = usvg::Tree::from_str(svg, options())
        .map_err(|error| RenderError::Art(error.to_string()))?;
    let mut pixmap = Pixmap::new(width.max(1), height.max(1)).ok_or(RenderError::Size(width))?;
    let size = tree.size();
    let transform =
        Transform::from_scale(width as f32 / size.width(), height as f32 / size.height());
    resvg::render(&tree, transform, &mut pixmap.as_mut());
    Ok(pixmap)
}

/// A piece template coloured for one side.
fn colour(template: &str, colors: PieceColors) -> String {
    template
        .replace(BODY_PLACEHOLDER, &colors.body.hex())
        .replace(LINE_PLACEHOLDER, &colors.line.hex())
        .replace(DETAIL_PLACEHOLDER, &colors.detail.hex())
}

/// A piece sprite `px` pixels square, from the template `art` (by its file name), coloured.
pub(crate) fn sprite(
    name: &'static str,
    template: &'static str,
    colors: PieceColors,
    px: u32,
) -> Result<Arc<Pixmap>, RenderError> {
    static SPRITES: Cache<(&'static str, PieceColors, u32)> = OnceLock::new();
    cached(&SPRITES, 2048, &(name, colors, px), || {
        rasterise(&colour(template, colors), px, px)
    })
}

/// A disc with a letter, for a piece the theme has no art for: still true to the position.
pub(crate) fn letter_disc(
    letter: char,
    colors: PieceColors,
    px: u32,
) -> Result<Arc<Pixmap>, RenderError> {
    static DISCS: Cache<(char, PieceColors, u32)> = OnceLock::new();
    cached(&DISCS, 256, &(letter, colors, px), || {
        let svg = format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">
<circle cx="50" cy="50" r="40" fill="{body}" stroke="{line}" stroke-width="5"/>
<text x="50" y="66" font-family="{FONT_FAMILY}" font-weight="bold" font-size="46"
 text-anchor="middle" fill="{detail}">{letter}</text></svg>"#,
            body = colors.body.hex(),
            line = colors.line.hex(),
            detail = colors.detail.hex(),
            letter = escape(&letter.to_string()),
        );
        rasterise(&svg, px, px)
    })
}

/// Escapes text for use inside SVG markup.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}
