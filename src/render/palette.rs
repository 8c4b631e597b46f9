//! The fixed 256-colour palette of each theme, shared by PNG pictures (indexed, which keeps
//! them small) and GIF replays: the theme's exact colours, half-tone blends of the pieces'
//! colours with the squares (the anti-aliased edges), and a colour cube for everything else.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU16, Ordering};

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

/// A theme's palette and a nearest-colour table filled as colours turn up. Each slot's answer
/// depends only on the slot, so threads fill the table side by side without a lock: two that
/// fill the same slot at once write the same value.
#[derive(Debug)]
pub(crate) struct Quantiser {
    palette: Vec<Rgb>,
    lookup: Box<[AtomicU16]>,
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
        Quantiser {
            palette,
            lookup: lookup.into_iter().map(AtomicU16::new).collect(),
        }
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
    fn index(&self, r: u8, g: u8, b: u8) -> u8 {
        let key = Quantiser::key(r, g, b);
        let known = self.lookup[key].load(Ordering::Relaxed);
        if known != UNSET {
            return known as u8;
        }
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
        self.lookup[key].store(best as u16, Ordering::Relaxed);
        best as u8
    }

    /// The palette index for a colour.
    pub(crate) fn index_of(&self, color: Rgb) -> u8 {
        self.index(color.0, color.1, color.2)
    }

    /// An opaque pixmap as palette indices.
    pub(crate) fn indexed(&self, pixmap: &Pixmap) -> Vec<u8> {
        let mut indices = vec![0; pixmap.data().len() / 4];
        self.reindex(pixmap, Under::Nothing, &mut indices);
        indices
    }

    /// An opaque pixmap as palette indices, into `indices` (one per pixel). With an [`Under`]
    /// other than [`Under::Nothing`], `indices` already holds the indices of what the pixmap
    /// showed before it was drawn on, and only the pixels drawn over are looked up. Pictures
    /// are mostly runs of one colour, so the last pixel's index is remembered and most lookups
    /// are skipped.
    pub(crate) fn reindex(&self, pixmap: &Pixmap, under: Under<'_>, indices: &mut [u8]) {
        let word = |px: &[u8]| u32::from_le_bytes([px[0], px[1], px[2], px[3]]);
        let mut last: Option<(u32, u8)> = None;
        let mut look = |index: &mut u8, px: &[u8]| {
            let new = word(px);
            *index = match last {
                Some((seen, index)) if seen == new => index,
                _ => {
                    let index = self.index(px[0], px[1], px[2]);
                    last = Some((new, index));
                    index
                }
            };
        };
        let data = pixmap.data();
        // What each pixel showed before, eight pixels at a time: most were not drawn over, and
        // a block of eight is compared in a few instructions.
        // `before` holds the block under block `n` from byte `n * step`: a whole pixmap, or
        // one block of the ground colour under every block.
        let mut ground = [0; 4 * BLOCK];
        let (before, step): (&[u8], usize) = match under {
            Under::Nothing => {
                for (index, px) in indices.iter_mut().zip(data.chunks_exact(4)) {
                    look(index, px);
                }
                return;
            }
            Under::Pixmap(under) => (under.data(), 4 * BLOCK),
            Under::Ground(color) => {
                for px in ground.chunks_exact_mut(4) {
                    px.copy_from_slice(&[color.0, color.1, color.2, 255]);
                }
                (&ground, 0)
            }
        };
        debug_assert!(step == 0 || before.len() == data.len());
        let blocks = indices
            .chunks_mut(BLOCK)
            .zip(data.chunks(4 * BLOCK))
            .enumerate();
        for (n, (index, px)) in blocks {
            let old = &before[n * step..][..px.len()];
            if let (Ok(px), Ok(old)) = (
                <&[u8; 4 * BLOCK]>::try_from(px),
                <&[u8; 4 * BLOCK]>::try_from(old),
            ) && px == old
            {
                continue;
            }
            let pixels = px.chunks_exact(4).zip(old.chunks_exact(4));
            for (index, (px, old)) in index.iter_mut().zip(pixels) {
                if word(px) != word(old) {
                    look(index, px);
                }
            }
        }
    }

    /// The palette as RGB triples.
    pub(crate) fn bytes(&self) -> Vec<u8> {
        self.palette.iter().flat_map(|c| [c.0, c.1, c.2]).collect()
    }
}

/// Pixels compared at a time when looking for the ones drawn over.
const BLOCK: usize = 8;

/// What a pixmap showed before it was drawn on, whose indices are already known.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Under<'a> {
    /// Nothing known: every pixel is looked up.
    Nothing,
    /// A pixmap of the same size.
    Pixmap(&'a Pixmap),
    /// One colour all over.
    Ground(Rgb),
}

/// The theme's shared quantiser, whose table fills up over the process's life.
pub(crate) fn quantiser(theme: Theme) -> &'static Quantiser {
    static QUANTISERS: [OnceLock<Quantiser>; Theme::ALL.len()] =
        [const { OnceLock::new() }; Theme::ALL.len()];
    QUANTISERS[theme as usize].get_or_init(|| Quantiser::new(theme))
}
