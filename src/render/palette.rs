//! The fixed 256-colour palette of each theme, shared by PNG pictures (indexed, which keeps
//! them small) and GIF replays: the theme's exact colours, half-tone blends of the pieces'
//! colours with the squares (the anti-aliased edges), and a colour cube for everything else.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock, PoisonError};

use resvg::tiny_skia::Pixmap;

use super::board::HIGHLIGHT_ALPHA;
use super::theme::{CAPTURE, CHECK, HIGHLIGHT, Rgb, Theme};
use crate::rules::{Color, Coord};

/// Colours used by the art and boards besides the theme's squares: they get exact palette
/// entries so that flat areas never dither.
const ART_COLOURS: [Rgb; 9] = [
    Rgb(0xe8, 0xb0, 0x20),
    Rgb(0xe4, 0xf3, 0xf8),
    Rgb(0x8e, 0x3f, 0x22),
    Rgb(0xe7, 0xb4, 0x8e),
    Rgb(0xb9, 0xa5, 0x7d),
    Rgb(0x6d, 0x55, 0x32),
    Rgb(0xa8, 0x9c, 0x84),
    Rgb(0x6b, 0x5b, 0x44),
    Rgb(0x9c, 0x8d, 0x70),
];

/// Bits per channel of the colour lookup table.
const LOOKUP_BITS: u32 = 6;
const UNSET: u16 = u16::MAX;

/// A theme's palette and a nearest-colour table filled as colours turn up.
#[derive(Debug, Clone)]
pub(crate) struct Quantiser {
    palette: Vec<Rgb>,
    lookup: Vec<u16>,
}

/// `over` laid on `under` with `alpha` (of 255) opacity.
fn mix(over: Rgb, under: Rgb, alpha: u8) -> Rgb {
    let m = |o: u8, u: u8| {
        ((u16::from(o) * u16::from(alpha) + u16::from(u) * (255 - u16::from(alpha)) + 127) / 255)
            as u8
    };
    Rgb(m(over.0, under.0), m(over.1, under.1), m(over.2, under.2))
}

impl Quantiser {
    pub(crate) fn new(theme: Theme) -> Quantiser {
        let p = theme.palette();
        let mut grounds = vec![p.frame, p.hole];
        let (files, ranks) = theme.dimensions();
        for rank in 0..ranks {
            for file in 0..files {
                grounds.push(theme.square_color(Coord::new(file, rank)));
            }
        }
        let mut palette = vec![p.text, HIGHLIGHT, CAPTURE, CHECK];
        palette.extend(&grounds);
        let mut inks = Vec::new();
        for color in Color::ALL {
            let pieces = theme.pieces(color);
            inks.extend([pieces.body, pieces.line, pieces.detail]);
        }
        palette.extend(&inks);
        palette.extend(ART_COLOURS);
        // The last move's tint over every ground, then the half-tones of piece edges.
        palette.extend(
            grounds
                .iter()
                .map(|ground| mix(HIGHLIGHT, *ground, HIGHLIGHT_ALPHA)),
        );
        for ink in &inks {
            palette.extend(grounds.iter().map(|ground| mix(*ink, *ground, 128)));
        }
        let mut seen = Vec::new();
        palette.retain(|c| {
            let fresh = !seen.contains(c);
            seen.push(*c);
            fresh
        });
        let levels = [0u8, 64, 128, 191, 255];
        palette.truncate(256 - levels.len().pow(3));
        for r in levels {
            for g in levels {
                for b in levels {
                    palette.push(Rgb(r, g, b));
                }
            }
        }
        // The palette's own colours (flat areas) map to themselves exactly; where two share a
        // slot, the earlier (more important) one wins.
        let mut lookup = vec![UNSET; 1 << (3 * LOOKUP_BITS)];
        for (index, c) in palette.iter().enumerate().rev() {
            lookup[Quantiser::key(c.0, c.1, c.2)] = index as u16;
        }
        Quantiser { palette, lookup }
    }

    /// The lookup table slot of a colour.
    fn key(r: u8, g: u8, b: u8) -> usize {
        let shift = 8 - LOOKUP_BITS;
        (usize::from(r >> shift) << (2 * LOOKUP_BITS))
            | (usize::from(g >> shift) << LOOKUP_BITS)
            | usize::from(b >> shift)
    }

    /// The palette index for a colour: the palette colour nearest to the centre of the colour's
    /// table slot, so the answer never depends on which colours were seen first.
    fn index(&mut self, r: u8, g: u8, b: u8) -> u8 {
        let key = Quantiser::key(r, g, b);
        if self.lookup[key] == UNSET {
            let shift = 8 - LOOKUP_BITS;
            let centre = |c: u8| (c >> shift << shift) | (1 << (shift - 1));
            let (r, g, b) = (centre(r), centre(g), centre(b));
            // Weighted roughly by the eye's sensitivity, so greens and greys stay true.
            let distance = |c: &Rgb| {
                let d = |a: u8, b: u8| (i32::from(a) - i32::from(b)).pow(2);
                d(c.0, r) * 3 + d(c.1, g) * 4 + d(c.2, b) * 2
            };
            let (best, _) = self
                .palette
                .iter()
                .enumerate()
                .min_by_key(|(_, c)| distance(c))
                .expect("the palette holds the colour cube");
            self.lookup[key] = best as u16;
        }
        self.lookup[key] as u8
    }

    /// An opaque pixmap as palette indices. Pictures are mostly runs of one colour, so the
    /// last pixel's index is remembered and most lookups are skipped.
    pub(crate) fn indexed(&mut self, pixmap: &Pixmap) -> Vec<u8> {
        let mut indices = vec![0; pixmap.data().len() / 4];
        self.reindex(
            pixmap,
            &mut indices,
            (0, 0, pixmap.width(), pixmap.height()),
        );
        indices
    }

    /// Re-indexes the `width` x `height` rectangle at (`x`, `y`) of `pixmap` into `indices`
    /// (one index per pixel of the whole pixmap).
    pub(crate) fn reindex(
        &mut self,
        pixmap: &Pixmap,
        indices: &mut [u8],
        rect: (u32, u32, u32, u32),
    ) {
        self.reindex_over(pixmap, None, indices, rect);
    }

    /// Like [`Quantiser::reindex`], for a rectangle whose `indices` already hold those of
    /// `under` (the picture before it was drawn on, starting `under.1` rows lower on
    /// `pixmap`): only the pixels drawn over are looked up.
    pub(crate) fn reindex_over(
        &mut self,
        pixmap: &Pixmap,
        under: Option<(&Pixmap, u32)>,
        indices: &mut [u8],
        (x, y, width, height): (u32, u32, u32, u32),
    ) {
        let stride = pixmap.width() as usize;
        let data = pixmap.data();
        let word = |px: &[u8]| u32::from_le_bytes([px[0], px[1], px[2], px[3]]);
        let mut last = (u32::MAX, 0u8);
        for row in y as usize..(y + height) as usize {
            let start = row * stride + x as usize;
            let end = start + width as usize;
            let pixels = data[start * 4..end * 4].chunks_exact(4);
            // The same row of the picture underneath, or this one's again when there is none.
            let below = match under {
                Some((under, offset)) => {
                    let from = (row - offset as usize) * under.width() as usize + x as usize;
                    &under.data()[from * 4..(from + width as usize) * 4]
                }
                None => &data[start * 4..end * 4],
            };
            let pairs = indices[start..end]
                .iter_mut()
                .zip(pixels.zip(below.chunks_exact(4)));
            for (index, (px, old)) in pairs {
                let new = word(px);
                if under.is_some() && new == word(old) {
                    continue;
                }
                if new != last.0 {
                    last = (new, self.index(px[0], px[1], px[2]));
                }
                *index = last.1;
            }
        }
    }

    /// The palette as RGB triples.
    pub(crate) fn bytes(&self) -> Vec<u8> {
        self.palette.iter().flat_map(|c| [c.0, c.1, c.2]).collect()
    }
}

/// Runs `f` with the theme's shared quantiser, whose table fills up over the process's life.
pub(crate) fn with_quantiser<T>(theme: Theme, f: impl FnOnce(&mut Quantiser) -> T) -> T {
    static QUANTISERS: OnceLock<Mutex<HashMap<Theme, Quantiser>>> = OnceLock::new();
    let mut map = QUANTISERS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    f(map.entry(theme).or_insert_with(|| Quantiser::new(theme)))
}
