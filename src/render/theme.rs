//! Per-game looks: board geometry (zones that are coloured), square colours, the piece set and
//! the two sides' colours. Everything here is data; drawing lives in `board`.

use crate::rules::{Color, Coord, Variant};

/// An opaque sRGB colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// The colour written as `#rrggbb`, for SVG templates.
    pub(crate) fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }

    pub(crate) fn skia_alpha(self, alpha: u8) -> resvg::tiny_skia::Color {
        resvg::tiny_skia::Color::from_rgba8(self.0, self.1, self.2, alpha)
    }
}

/// How one side's pieces are coloured: fill, outline, and inner detail lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PieceColors {
    /// The body of the piece.
    pub body: Rgb,
    /// The outline around it.
    pub line: Rgb,
    /// Inner details (eyes, bands), chosen to contrast with the body.
    pub detail: Rgb,
}

/// Light pieces: ivory with a near-black outline, for every game's first side.
const LIGHT_PIECES: PieceColors = PieceColors {
    body: Rgb(0xf6, 0xf1, 0xe4),
    line: Rgb(0x1c, 0x1c, 0x1c),
    detail: Rgb(0x1c, 0x1c, 0x1c),
};

/// Chak's Green: dark enough to differ from White in luminance, not only in hue, so that
/// colour-blind players tell the sides apart.
const GREEN_PIECES: PieceColors = PieceColors {
    body: Rgb(0x1e, 0x5c, 0x36),
    line: Rgb(0x06, 0x14, 0x0b),
    detail: Rgb(0xe6, 0xf2, 0xdc),
};

/// Black pieces of the other games.
const DARK_PIECES: PieceColors = PieceColors {
    body: Rgb(0x2a, 0x2a, 0x2a),
    line: Rgb(0x00, 0x00, 0x00),
    detail: Rgb(0xec, 0xec, 0xec),
};

/// The last move's from and to squares.
pub const HIGHLIGHT: Rgb = Rgb(0xf5, 0xc5, 0x18);
/// The corner marks on squares where something was captured.
pub const CAPTURE: Rgb = Rgb(0xd6, 0x33, 0x84);
/// The glow and frame on a king in check.
pub const CHECK: Rgb = Rgb(0xe0, 0x24, 0x2a);

/// The look of one game's board. The game-agnostic drawing core takes one of these with a
/// [`crate::rules::BoardView`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Theme {
    /// 9x9, sandstone squares, the river on rank 5, temples and altars.
    Chak,
    /// 7x7 tiles over a dark ground: removed tiles show the ground.
    Shakti,
    /// 12x12 uncheckered, castles and walls shaded.
    Chad,
    /// 6x8, three circuits with their direction, kings' fields framed, stacks of up to four.
    Chesscala,
}

/// A piece of art: the file name (for the licence list) and the SVG template.
pub(crate) type Art = (&'static str, &'static str);

macro_rules! art {
    ($path:literal) => {
        (
            $path,
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/assets/pieces/",
                $path
            )),
        )
    };
}

const CLASSIC_KING: Art = art!("classic/king.svg");
const CLASSIC_QUEEN: Art = art!("classic/queen.svg");
const CLASSIC_ROOK: Art = art!("classic/rook.svg");
const CLASSIC_BISHOP: Art = art!("classic/bishop.svg");
const CLASSIC_KNIGHT: Art = art!("classic/knight.svg");
const CLASSIC_PAWN: Art = art!("classic/pawn.svg");

const CHAK_SET: &[(char, Art)] = &[
    ('K', art!("chak/king.svg")),
    ('D', art!("chak/divine-king.svg")),
    ('J', art!("chak/jaguar.svg")),
    ('Q', art!("chak/quetzal.svg")),
    ('S', art!("chak/shaman.svg")),
    ('V', art!("chak/vulture.svg")),
    ('R', art!("chak/serpent.svg")),
    ('P', art!("chak/pawn.svg")),
    ('W', art!("chak/warrior.svg")),
    ('O', art!("chak/offering.svg")),
];

const SHAKTI_SET: &[(char, Art)] = &[('K', CLASSIC_KING), ('W', art!("shakti/warrior.svg"))];

const CHAD_SET: &[(char, Art)] = &[
    ('K', CLASSIC_KING),
    ('R', CLASSIC_ROOK),
    ('Q', CLASSIC_QUEEN),
];

const CHESSCALA_SET: &[(char, Art)] = &[
    ('K', CLASSIC_KING),
    ('Q', CLASSIC_QUEEN),
    ('R', CLASSIC_ROOK),
    ('B', CLASSIC_BISHOP),
    ('N', CLASSIC_KNIGHT),
    ('P', CLASSIC_PAWN),
    ('H', art!("chesscala/hammer.svg")),
    ('O', art!("chesscala/bomb.svg")),
    ('M', art!("chesscala/man.svg")),
];

/// The colours of a board: frame, squares, zones and coordinate text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Palette {
    /// Around the board, and the caption band.
    pub frame: Rgb,
    /// Coordinates and caption text.
    pub text: Rgb,
    /// Where there is no square (Shakti holes).
    pub hole: Rgb,
}

/// Chak's light squares.
pub const CHAK_LIGHT: Rgb = Rgb(0xef, 0xdc, 0xb0);
/// Chak's dark squares.
pub const CHAK_DARK: Rgb = Rgb(0xd2, 0xad, 0x72);
/// The river (rank 5), light squares.
pub const CHAK_RIVER_LIGHT: Rgb = Rgb(0x93, 0xc6, 0xd8);
/// The river, dark squares.
pub const CHAK_RIVER_DARK: Rgb = Rgb(0x6c, 0xa9, 0xc2);
/// Temples, light squares.
pub const CHAK_TEMPLE_LIGHT: Rgb = Rgb(0xeb, 0xbc, 0x9c);
/// Temples, dark squares.
pub const CHAK_TEMPLE_DARK: Rgb = Rgb(0xcf, 0x93, 0x6e);
/// The altars.
pub const CHAK_ALTAR: Rgb = Rgb(0xb0, 0x4f, 0x2e);

/// Shakti's ground, seen through holes.
pub const SHAKTI_HOLE: Rgb = Rgb(0x23, 0x26, 0x2e);
/// Shakti tiles (alternating slightly so lines are easy to follow).
pub const SHAKTI_TILE: [Rgb; 2] = [Rgb(0xea, 0xe1, 0xcd), Rgb(0xdc, 0xd0, 0xb6)];
/// The edge of a Shakti tile.
pub const SHAKTI_TILE_EDGE: Rgb = Rgb(0x9c, 0x8d, 0x70);

/// Chad's ordinary squares.
pub const CHAD_PLAIN: Rgb = Rgb(0xef, 0xe9, 0xda);
/// Chad's castles.
pub const CHAD_CASTLE: Rgb = Rgb(0xc2, 0xa9, 0x7c);
/// Chad's walls.
pub const CHAD_WALL: Rgb = Rgb(0xdd, 0xcf, 0xae);
/// Chad's grid lines (the board is uncheckered).
pub const CHAD_GRID: Rgb = Rgb(0xa8, 0x9c, 0x84);

/// Chesscala's three circuits, light and dark squares: files a-b, c-d, e-f.
pub const CHESSCALA_CIRCUITS: [[Rgb; 2]; 3] = [
    [Rgb(0xec, 0xdf, 0xc0), Rgb(0xd9, 0xc6, 0x9c)],
    [Rgb(0xdc, 0xe6, 0xca), Rgb(0xc1, 0xd0, 0xa8)],
    [Rgb(0xda, 0xe4, 0xee), Rgb(0xbb, 0xcb, 0xdb)],
];
/// The circuit arrows.
pub const CHESSCALA_ARROW: Rgb = Rgb(0x6b, 0x5b, 0x44);

impl Theme {
    /// Every theme.
    pub const ALL: [Theme; 4] = [Theme::Chak, Theme::Shakti, Theme::Chad, Theme::Chesscala];

    /// The theme of a game.
    #[must_use]
    pub fn for_variant(variant: Variant) -> Theme {
        match variant {
            Variant::Chak => Theme::Chak,
            Variant::Shakti => Theme::Shakti,
            Variant::Chad => Theme::Chad,
            Variant::Chesscala => Theme::Chesscala,
        }
    }

    /// A line under the caption that tells pieces apart which newcomers confuse (Chak's two
    /// birds), drawn where it fits.
    #[must_use]
    pub const fn legend(self) -> Option<&'static str> {
        match self {
            Theme::Chak => Some("Q quetzal: long tail, hops · V vulture: wings spread, leaps"),
            Theme::Shakti | Theme::Chad | Theme::Chesscala => None,
        }
    }

    /// Files and ranks of the board this theme draws.
    #[must_use]
    pub const fn dimensions(self) -> (u8, u8) {
        match self {
            Theme::Chak => (9, 9),
            Theme::Shakti => (7, 7),
            Theme::Chad => (12, 12),
            Theme::Chesscala => (6, 8),
        }
    }

    /// What the game calls each side, for captions.
    #[must_use]
    pub const fn side_name(self, color: Color) -> &'static str {
        match (self, color) {
            (_, Color::White) => "White",
            (Theme::Chak, Color::Black) => "Green",
            (_, Color::Black) => "Black",
        }
    }

    /// The colours of a side's pieces.
    #[must_use]
    pub const fn pieces(self, color: Color) -> PieceColors {
        match (self, color) {
            (_, Color::White) => LIGHT_PIECES,
            (Theme::Chak, Color::Black) => GREEN_PIECES,
            (_, Color::Black) => DARK_PIECES,
        }
    }

    pub(crate) const fn palette(self) -> Palette {
        match self {
            Theme::Chak => Palette {
                frame: Rgb(0x3b, 0x2a, 0x1e),
                text: Rgb(0xf0, 0xe0, 0xc2),
                hole: Rgb(0x20, 0x17, 0x10),
            },
            Theme::Shakti => Palette {
                frame: SHAKTI_HOLE,
                text: Rgb(0xcc, 0xd0, 0xda),
                hole: SHAKTI_HOLE,
            },
            Theme::Chad => Palette {
                frame: Rgb(0x2f, 0x3a, 0x44),
                text: Rgb(0xe6, 0xe9, 0xec),
                hole: Rgb(0x1c, 0x22, 0x28),
            },
            Theme::Chesscala => Palette {
                frame: Rgb(0x2d, 0x2a, 0x3a),
                text: Rgb(0xe8, 0xe4, 0xf0),
                hole: Rgb(0x1a, 0x18, 0x22),
            },
        }
    }

    /// Whether squares are separate tiles drawn per position (Shakti) rather than painted once.
    pub(crate) const fn tiled(self) -> bool {
        matches!(self, Theme::Shakti)
    }

    /// The art of the piece with this upper-case letter, if the set has one.
    pub(crate) fn art(self, letter: char) -> Option<Art> {
        let set = match self {
            Theme::Chak => CHAK_SET,
            Theme::Shakti => SHAKTI_SET,
            Theme::Chad => CHAD_SET,
            Theme::Chesscala => CHESSCALA_SET,
        };
        set.iter()
            .find(|(l, _)| *l == letter.to_ascii_uppercase())
            .map(|(_, art)| *art)
    }

    /// Every piece file of every set, for the licence test.
    #[must_use]
    pub fn art_files() -> Vec<&'static str> {
        let mut files: Vec<&'static str> = [CHAK_SET, SHAKTI_SET, CHAD_SET, CHESSCALA_SET]
            .iter()
            .flat_map(|set| set.iter().map(|(_, (path, _))| *path))
            .collect();
        files.sort_unstable();
        files.dedup();
        files
    }

    /// The colour of a square (for tiled boards, of its tile), by its board coordinates.
    #[must_use]
    pub fn square_color(self, at: Coord) -> Rgb {
        let dark = (at.file + at.rank).is_multiple_of(2);
        let pick = |pair: [Rgb; 2]| if dark { pair[1] } else { pair[0] };
        match self {
            Theme::Chak => {
                if chak_altar(at) {
                    CHAK_ALTAR
                } else if at.rank == 4 {
                    pick([CHAK_RIVER_LIGHT, CHAK_RIVER_DARK])
                } else if chak_temple(at) {
                    pick([CHAK_TEMPLE_LIGHT, CHAK_TEMPLE_DARK])
                } else {
                    pick([CHAK_LIGHT, CHAK_DARK])
                }
            }
            Theme::Shakti => pick(SHAKTI_TILE),
            Theme::Chad => match chad_zone(at) {
                ChadZone::Castle => CHAD_CASTLE,
                ChadZone::Wall => CHAD_WALL,
                ChadZone::Plain => CHAD_PLAIN,
            },
            Theme::Chesscala => pick(CHESSCALA_CIRCUITS[usize::from(at.file / 2) % 3]),
        }
    }
}

/// Chak's temples: d1–f3 and d7–f9.
pub(crate) fn chak_temple(at: Coord) -> bool {
    (3..=5).contains(&at.file) && (at.rank <= 2 || at.rank >= 6)
}

/// Chak's altars: e2 and e8.
pub(crate) fn chak_altar(at: Coord) -> bool {
    at.file == 4 && (at.rank == 1 || at.rank == 7)
}

/// What a Chad square belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ChadZone {
    Castle,
    Wall,
    Plain,
}

/// Chad's castles c3–e5 and h8–j10; each wall is the castle's 5x5 ring without its corners.
pub(crate) fn chad_zone(at: Coord) -> ChadZone {
    // Castle centres d4 and i9 (zero-based (3,3) and (8,8)).
    for centre in [3i16, 8] {
        let df = (i16::from(at.file) - centre).abs();
        let dr = (i16::from(at.rank) - centre).abs();
        if df <= 1 && dr <= 1 {
            return ChadZone::Castle;
        }
        if df.max(dr) == 2 && df.min(dr) <= 1 {
            return ChadZone::Wall;
        }
    }
    ChadZone::Plain
}

/// Chesscala kings' fields: pairs of squares, with their owner.
pub(crate) const CHESSCALA_KING_FIELDS: [(Color, Coord, Coord); 4] = [
    (Color::White, Coord::new(2, 0), Coord::new(3, 0)),
    (Color::White, Coord::new(4, 0), Coord::new(5, 0)),
    (Color::Black, Coord::new(2, 7), Coord::new(3, 7)),
    (Color::Black, Coord::new(0, 7), Coord::new(1, 7)),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chad_walls_have_twelve_squares_each() {
        let mut walls = 0;
        let mut castles = 0;
        for file in 0..12 {
            for rank in 0..12 {
                match chad_zone(Coord::new(file, rank)) {
                    ChadZone::Wall => walls += 1,
                    ChadZone::Castle => castles += 1,
                    ChadZone::Plain => {}
                }
            }
        }
        assert_eq!((castles, walls), (18, 24));
        assert_eq!(chad_zone(Coord::new(1, 2)), ChadZone::Wall); // b3
        assert_eq!(chad_zone(Coord::new(1, 1)), ChadZone::Plain); // b2: a ring corner
        assert_eq!(chad_zone(Coord::new(9, 10)), ChadZone::Wall); // j11
    }

    #[test]
    fn every_letter_of_every_game_has_art() {
        for (theme, letters) in [
            (Theme::Chak, "KDJQSVRPWO"),
            (Theme::Shakti, "KW"),
            (Theme::Chad, "KRQ"),
            (Theme::Chesscala, "KQRBNPHOM"),
        ] {
            for letter in letters.chars() {
                assert!(theme.art(letter).is_some(), "{theme:?} {letter}");
            }
        }
    }
}
