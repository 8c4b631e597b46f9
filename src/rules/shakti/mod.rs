//! Shakti (Christian Freeling, 1982), as specified in the product's `rules/shakti.md` (S1–S16).
//!
//! A 7x7 board of tiles; the four corners carry none, so 45 tiles start. Each side has a king
//! and two warriors, and pieces only ever stand on tiles. Lines pass over holes; a tile stops
//! them, occupied or not. A king not in check moves to the first tile in any of the 8
//! directions if it is empty; a king in check may only step to an adjacent tile, capturing an
//! enemy warrior there (the only capture in the game). A warrior moves to the first tile in a
//! direction, or jumps to the second tile when both are empty and removes the first one. A king
//! is in check when an enemy warrior sees it (nothing but holes in between). No move may leave
//! the mover in check or let the two kings see each other. Checkmate wins; a player who cannot
//! move passes, and when neither side could move the game is drawn (S14, adopted). Threefold
//! repetition of tiles, pieces and side to move draws (S15).
//!
//! Sources: Freeling's rules at mindsports.nl, the iGGameCenter rules and Dagaz's setup, as
//! summarised in the spec.
//!
//! The engine keeps the tiles and each side's warriors as 49-bit boards in a `u64`. Because a
//! vacated square keeps its tile and only tiles block lines, sight depends on the tiles alone,
//! which makes legality cheap: see `Shakti::generate`.

use std::fmt::{self, Write as _};
use std::str::FromStr;

use super::lines::{self, Bits};
use super::notation::{self, Describe, Shape, Sq};
use super::{
    BoardView, Cell, Color, Coord, EndReason, MoveError, MoveMarks, Outcome, Position,
    PositionError, Variant,
};

const FILES: usize = 7;
const RANKS: usize = 7;
const SQUARES: usize = FILES * RANKS;

/// The start position (spec §1.3).
pub const START: &str = "#.....#/.w.k.w./......./......./......./.W.K.W./#.....# w";

/// The untiled corners a1, g1, a7 and g7 (S-A1: 45 tiles, not 49).
const CORNERS: u64 = 1 | 1 << 6 | 1 << 42 | 1 << 48;

/// S14 (Recommendation, adopted): when neither side could move, the game is drawn at once.
/// With `false` the stuck side passes anyway, and the passes end the game by repetition.
pub const BLOCKED_ENDS_THE_GAME: bool = true;

/// The most warriors a side can have: each starts with two and none are ever added.
pub const MAX_WARRIORS: u32 = 2;

const RAYS: [[u64; 8]; SQUARES] = {
    let wide = lines::rays::<SQUARES>(FILES, RANKS);
    let mut out = [[0u64; 8]; SQUARES];
    let mut sq = 0;
    while sq < SQUARES {
        let mut d = 0;
        while d < 8 {
            out[sq][d] = wide[sq][d][0];
            d += 1;
        }
        sq += 1;
    }
    out
};

const ADJACENT: [u64; SQUARES] = {
    let straight = lines::leaps::<SQUARES>(FILES, RANKS, 1, 0);
    let diagonal = lines::leaps::<SQUARES>(FILES, RANKS, 1, 1);
    let mut out = [0u64; SQUARES];
    let mut sq = 0;
    while sq < SQUARES {
        out[sq] = straight[sq][0] | diagonal[sq][0];
        sq += 1;
    }
    out
};

#[inline]
const fn bit(sq: u8) -> u64 {
    1 << sq
}

/// The nearest square of `line` (part of a ray in direction `d`) as a bit, or 0 if it is
/// empty. Branch-free: this runs for every direction of every piece.
#[inline(always)]
fn nearest_bit(line: u64, d: usize) -> u64 {
    if d < 4 {
        line & line.wrapping_neg()
    } else {
        (1 << 63 >> (line | 1).leading_zeros()) & line
    }
}

/// The square of a one-bit board.
#[inline]
fn square_of(bit: u64) -> u8 {
    bit.trailing_zeros() as u8
}

const fn coord(sq: u8) -> Sq {
    (sq % FILES as u8, sq / FILES as u8)
}

fn square_name(sq: u8) -> String {
    let (file, rank) = coord(sq);
    super::square::name(file, rank)
}

/// A Shakti position: tiles, pieces and the side to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shakti {
    tiles: u64,
    kings: [u8; 2],
    warriors: [u64; 2],
    turn: Color,
}

/// A Shakti move: a king or warrior move, a warrior jump that removes a tile, or a pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ShaktiMove {
    from: u8,
    to: u8,
    removed: u8,
}

/// Marks "no square" in [`ShaktiMove`].
const NO_SQUARE: u8 = u8::MAX;

impl ShaktiMove {
    /// The pass of a player who cannot move (S13).
    pub const PASS: ShaktiMove = ShaktiMove {
        from: NO_SQUARE,
        to: NO_SQUARE,
        removed: NO_SQUARE,
    };

    const fn new(from: u8, to: u8) -> ShaktiMove {
        ShaktiMove {
            from,
            to,
            removed: NO_SQUARE,
        }
    }

    /// Whether this is the pass.
    #[must_use]
    pub const fn is_pass(self) -> bool {
        self.from == NO_SQUARE
    }

    /// Where the piece moves from (`None` for the pass).
    #[must_use]
    pub fn from(self) -> Option<Coord> {
        Self::coord(self.from)
    }

    /// Where the piece moves to (`None` for the pass).
    #[must_use]
    pub fn to(self) -> Option<Coord> {
        Self::coord(self.to)
    }

    /// The tile a warrior jump removes.
    #[must_use]
    pub fn removed(self) -> Option<Coord> {
        Self::coord(self.removed)
    }

    fn coord(sq: u8) -> Option<Coord> {
        (sq != NO_SQUARE).then(|| {
            let (file, rank) = coord(sq);
            Coord::new(file, rank)
        })
    }
}

/// Receives generated moves: a list for [`Position::legal_moves`], a counter for perft's last
/// ply. Both go through the one generator, so they cannot disagree.
trait Sink {
    /// Plain moves of the piece on `from` to each square of `targets`.
    fn targets(&mut self, from: u8, targets: u64);
    /// A warrior jump.
    fn jump(&mut self, from: u8, to: u8, removed: u8);
}

/// Counts moves without listing them.
struct Counter(u64);

impl Sink for Counter {
    #[inline]
    fn targets(&mut self, _from: u8, targets: u64) {
        self.0 += u64::from(targets.count_ones());
    }

    #[inline]
    fn jump(&mut self, _from: u8, _to: u8, _removed: u8) {
        self.0 += 1;
    }
}

/// More than the most moves a side can have: a king has at most 8 and each warrior at most 16.
const MAX_MOVES: usize = 48;

/// A fixed-size move list, so perft allocates nothing.
struct MoveList {
    moves: [ShaktiMove; MAX_MOVES],
    len: usize,
}

impl MoveList {
    fn new() -> MoveList {
        MoveList {
            moves: [ShaktiMove::PASS; MAX_MOVES],
            len: 0,
        }
    }

    fn as_slice(&self) -> &[ShaktiMove] {
        &self.moves[..self.len]
    }

    #[inline]
    fn push(&mut self, mv: ShaktiMove) {
        self.moves[self.len] = mv;
        self.len += 1;
    }
}

impl Sink for MoveList {
    #[inline]
    fn targets(&mut self, from: u8, targets: u64) {
        for to in targets.squares() {
            self.push(ShaktiMove::new(from, to));
        }
    }

    #[inline]
    fn jump(&mut self, from: u8, to: u8, removed: u8) {
        self.push(ShaktiMove { from, to, removed });
    }
}

/// Where a position stands when its side to move has no board move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stuck {
    /// In check: checkmate (S12).
    Mated,
    /// Not in check, and the opponent could move: a pass (S13).
    Pass,
    /// Neither side could move: a draw (S14).
    Blocked,
}

impl Shakti {
    #[inline]
    fn occupied(&self) -> u64 {
        self.warriors[0] | self.warriors[1] | bit(self.kings[0]) | bit(self.kings[1])
    }

    /// The first and second tiles from `sq` in direction `d`, passing over holes, as bits (0
    /// where there is none).
    #[inline(always)]
    fn first_two(&self, sq: u8, d: usize) -> (u64, u64) {
        let on_line = RAYS[usize::from(sq)][d] & self.tiles;
        let first = nearest_bit(on_line, d);
        (first, nearest_bit(on_line ^ first, d))
    }

    /// The tiles `sq` sees: the first tile in each direction. Sight is symmetric between tiles.
    #[inline]
    fn sight(&self, sq: u8) -> u64 {
        let rays = &RAYS[usize::from(sq)];
        let mut seen = 0;
        for (d, ray) in rays.iter().enumerate() {
            seen |= nearest_bit(ray & self.tiles, d);
        }
        seen
    }

    fn king_in_check(&self, color: Color) -> bool {
        self.sight(self.kings[color.index()]) & self.warriors[color.other().index()] != 0
    }

    /// The same tiles and pieces with the other side to move.
    fn passed(&self) -> Shakti {
        Shakti {
            turn: self.turn.other(),
            ..*self
        }
    }

    /// Generates every legal board move (no pass) into `sink` and returns whether the side to
    /// move is in check.
    ///
    /// Legality needs no trial moves. A king move leaves every tile in place, so its target is
    /// legal exactly when no enemy piece sees it (S9, S10); a captured warrior never sees its
    /// own square. In check only the king can help (S11): a warrior move keeps every tile that
    /// could block. Otherwise a warrior step changes no tile and so is always legal, and a jump
    /// is illegal exactly when the removed tile is the king's first tile towards an enemy piece
    /// right behind it (a "shield").
    fn generate(&self, sink: &mut impl Sink) -> bool {
        let us = self.turn.index();
        let them = 1 - us;
        let occupied = self.occupied();
        let king = self.kings[us];
        let enemy_warriors = self.warriors[them];
        let enemy_king = self.kings[them];
        let danger = enemy_warriors
            .squares()
            .fold(self.sight(enemy_king), |seen, w| seen | self.sight(w));
        let king_sight = self.sight(king);
        if king_sight & enemy_warriors != 0 {
            let free = self.tiles & !(occupied & !enemy_warriors);
            sink.targets(king, ADJACENT[usize::from(king)] & free & !danger);
            return true;
        }
        sink.targets(king, king_sight & !occupied & !danger);
        let enemies = enemy_warriors | bit(enemy_king);
        let free = self.tiles & !occupied;
        let mut shields = 0;
        for d in 0..8 {
            let (first, second) = self.first_two(king, d);
            if second & enemies != 0 {
                shields |= first & free;
            }
        }
        for warrior in self.warriors[us].squares() {
            let mut steps = 0;
            for d in 0..8 {
                let (first, second) = self.first_two(warrior, d);
                let step = first & free;
                steps |= step;
                if step & !shields != 0 && second & free != 0 {
                    sink.jump(warrior, square_of(second), square_of(step));
                }
            }
            sink.targets(warrior, steps);
        }
        false
    }

    fn board_moves(&self) -> (MoveList, bool) {
        let mut list = MoveList::new();
        let in_check = self.generate(&mut list);
        (list, in_check)
    }

    fn has_board_move(&self) -> bool {
        let mut counter = Counter(0);
        self.generate(&mut counter);
        counter.0 > 0
    }

    /// What happens when the side to move has no board move.
    fn stuck(&self, in_check: bool) -> Stuck {
        if in_check {
            Stuck::Mated
        } else if !BLOCKED_ENDS_THE_GAME || self.passed().has_board_move() {
            Stuck::Pass
        } else {
            Stuck::Blocked
        }
    }

    /// The position after a legal board move or the pass.
    fn after(&self, mv: ShaktiMove) -> Shakti {
        let mut next = self.passed();
        if mv.is_pass() {
            return next;
        }
        let us = self.turn.index();
        let (from, to) = (bit(mv.from), bit(mv.to));
        if mv.from == self.kings[us] {
            next.kings[us] = mv.to;
            next.warriors[1 - us] &= !to;
        } else {
            next.warriors[us] ^= from | to;
        }
        if mv.removed != NO_SQUARE {
            next.tiles &= !bit(mv.removed);
        }
        next
    }

    /// Perft with bulk counting at the last ply; a pass counts as a move.
    fn count(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let in_check = if depth == 1 {
            let mut counter = Counter(0);
            let in_check = self.generate(&mut counter);
            if counter.0 > 0 {
                return counter.0;
            }
            in_check
        } else {
            let (list, in_check) = self.board_moves();
            if list.len > 0 {
                return list
                    .as_slice()
                    .iter()
                    .map(|&mv| self.after(mv).count(depth - 1))
                    .sum();
            }
            in_check
        };
        match self.stuck(in_check) {
            Stuck::Pass => self.passed().count(depth - 1),
            Stuck::Mated | Stuck::Blocked => 0,
        }
    }

    fn piece_letter(&self, sq: u8) -> Option<char> {
        let b = bit(sq);
        if sq == self.kings[0] {
            Some('K')
        } else if sq == self.kings[1] {
            Some('k')
        } else if self.warriors[0] & b != 0 {
            Some('W')
        } else if self.warriors[1] & b != 0 {
            Some('w')
        } else {
            None
        }
    }

    fn validate(&self) -> Result<(), PositionError> {
        let invalid = |why: &str| Err(PositionError::Invalid(why.to_owned()));
        if self.tiles & CORNERS != 0 {
            return invalid("the corners a1, g1, a7 and g7 never carry tiles");
        }
        if self.warriors.iter().any(|w| w.count_ones() > MAX_WARRIORS) {
            return invalid("a side has at most two warriors");
        }
        if self.sight(self.kings[0]) & bit(self.kings[1]) != 0 {
            return invalid("the two kings see each other");
        }
        if self.king_in_check(self.turn.other()) {
            return invalid("the side that just moved is in check");
        }
        Ok(())
    }

    fn parse(text: &str) -> Result<Shakti, PositionError> {
        let (rows, turn) = FRAME.split(text)?;
        let mut tiles = 0;
        let mut kings = [Vec::new(), Vec::new()];
        let mut warriors = [0, 0];
        for (row, text) in rows.iter().enumerate() {
            if text.chars().count() != FILES {
                return Err(FRAME.syntax(&format!("rank {} must have 7 squares", RANKS - row)));
            }
            for (file, c) in text.chars().enumerate() {
                let sq = ((RANKS - 1 - row) * FILES + file) as u8;
                let color = notation::letter_color(c);
                match c {
                    '#' => continue,
                    '.' => {}
                    'K' | 'k' => kings[color.index()].push(sq),
                    'W' | 'w' => warriors[color.index()] |= bit(sq),
                    _ => return Err(FRAME.syntax(&format!("unknown square '{c}'"))),
                }
                tiles |= bit(sq);
            }
        }
        let kings = notation::one_king_each(&kings)?;
        let position = Shakti {
            tiles,
            kings,
            warriors,
            turn,
        };
        position.validate()?;
        Ok(position)
    }
}

impl Shakti {
    /// Whether `mv` captures: a king stepping onto an enemy warrior.
    #[must_use]
    pub fn captures(&self, mv: ShaktiMove) -> bool {
        mv.to != NO_SQUARE && self.warriors[self.turn.other().index()] & bit(mv.to) != 0
    }
}

impl Position for Shakti {
    type Move = ShaktiMove;

    const VARIANT: Variant = Variant::Shakti;

    fn start() -> Shakti {
        Shakti::parse(START).expect("the start position text is valid")
    }

    fn from_text(text: &str) -> Result<Shakti, PositionError> {
        Shakti::parse(text)
    }

    fn to_text(&self) -> String {
        let mut text = String::with_capacity(58);
        for rank in (0..RANKS).rev() {
            for file in 0..FILES {
                let sq = (rank * FILES + file) as u8;
                text.push(match self.piece_letter(sq) {
                    Some(letter) => letter,
                    None if self.tiles & bit(sq) != 0 => '.',
                    None => '#',
                });
            }
            text.push(if rank == 0 { ' ' } else { '/' });
        }
        text.push(self.turn.letter());
        text
    }

    fn turn(&self) -> Color {
        self.turn
    }

    fn legal_moves(&self) -> Vec<ShaktiMove> {
        let (list, in_check) = self.board_moves();
        if list.len == 0 && self.stuck(in_check) == Stuck::Pass {
            return vec![ShaktiMove::PASS];
        }
        list.as_slice().to_vec()
    }

    fn play(&self, mv: &ShaktiMove) -> Shakti {
        self.after(*mv)
    }

    fn in_check(&self) -> bool {
        self.king_in_check(self.turn)
    }

    fn checked_kings(&self) -> Vec<Coord> {
        Color::ALL
            .into_iter()
            .filter(|&color| self.king_in_check(color))
            .filter_map(|color| ShaktiMove::coord(self.kings[color.index()]))
            .collect()
    }

    fn board_view(&self) -> BoardView {
        let cells = (0..SQUARES as u8)
            .map(|sq| match self.piece_letter(sq) {
                Some(letter) => notation::piece_cell(letter),
                None if self.tiles & bit(sq) != 0 => Cell::Empty,
                None => Cell::Hole,
            })
            .collect();
        BoardView {
            files: FILES as u8,
            ranks: RANKS as u8,
            cells,
        }
    }

    fn move_marks(&self, mv: &ShaktiMove) -> MoveMarks {
        let capture = self.captures(*mv);
        MoveMarks {
            from: mv.from().into_iter().collect(),
            to: mv.to().into_iter().collect(),
            captures: if capture {
                mv.to().into_iter().collect()
            } else {
                Vec::new()
            },
            removed: mv.removed().into_iter().collect(),
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        let mut counter = Counter(0);
        let in_check = self.generate(&mut counter);
        if counter.0 > 0 {
            return None;
        }
        match self.stuck(in_check) {
            Stuck::Mated => Some(Outcome::win(self.turn.other(), EndReason::Checkmate)),
            Stuck::Blocked => Some(Outcome::draw(EndReason::Blocked)),
            Stuck::Pass => None,
        }
    }

    fn repetition_key(&self) -> Option<String> {
        // S15: tiles, pieces and side to move, which is exactly the position text.
        Some(self.to_text())
    }

    fn is_pass(&self, mv: &ShaktiMove) -> bool {
        mv.is_pass()
    }

    fn move_text(&self, mv: &ShaktiMove) -> String {
        if mv.is_pass() {
            return String::from("pass");
        }
        let mut text = format!("{}-{}", square_name(mv.from), square_name(mv.to));
        if mv.removed != NO_SQUARE {
            let _ = write!(text, "(rm {})", square_name(mv.removed));
        }
        text
    }

    fn display_move(&self, mv: &ShaktiMove) -> String {
        if mv.is_pass() {
            return String::from("pass");
        }
        let letter = self
            .piece_letter(mv.from)
            .map_or('?', |c| c.to_ascii_uppercase());
        let capture = self.warriors[self.turn.other().index()] & bit(mv.to) != 0;
        let mut text = format!(
            "{letter}{}{}{}",
            square_name(mv.from),
            if capture { 'x' } else { '-' },
            square_name(mv.to)
        );
        if mv.removed != NO_SQUARE {
            let _ = write!(text, " (rm {})", square_name(mv.removed));
        }
        text
    }

    fn parse_move(&self, text: &str) -> Result<ShaktiMove, MoveError> {
        let legal = self.legal_moves();
        if legal.is_empty() {
            return Err(MoveError::GameOver);
        }
        let passing = legal == [ShaktiMove::PASS];
        if text.trim().eq_ignore_ascii_case("pass") {
            return if passing {
                Ok(ShaktiMove::PASS)
            } else {
                Err(MoveError::Illegal {
                    input: text.to_owned(),
                    hint: String::from("You may only pass when you have no legal move."),
                })
            };
        }
        match notation::resolve(&BOARD, self, &legal, text) {
            Err(MoveError::Illegal { input, .. }) if passing => Err(MoveError::Illegal {
                input,
                hint: String::from("You have no legal move, so you pass: write pass."),
            }),
            result => result,
        }
    }

    fn perft(&self, depth: u32) -> u64 {
        self.count(depth)
    }
}

const FRAME: notation::PositionFrame = notation::PositionFrame {
    game: "Shakti",
    ranks: RANKS,
    example: START,
};

const BOARD: notation::Board = notation::Board {
    files: FILES as u8,
    ranks: RANKS as u8,
    pieces: "KW",
};

impl Describe<ShaktiMove> for Shakti {
    fn shape(&self, mv: &ShaktiMove) -> Option<Shape> {
        (!mv.is_pass()).then(|| Shape {
            piece: if mv.from == self.kings[self.turn.index()] {
                'K'
            } else {
                'W'
            },
            from: coord(mv.from),
            to: coord(mv.to),
            removed: (mv.removed != NO_SQUARE).then(|| coord(mv.removed)),
        })
    }

    fn display(&self, mv: &ShaktiMove) -> String {
        self.display_move(mv)
    }

    fn own_piece(&self, (file, rank): Sq) -> Option<&'static str> {
        let sq = rank * FILES as u8 + file;
        let us = self.turn.index();
        if self.kings[us] == sq {
            Some("king")
        } else if self.warriors[us] & bit(sq) != 0 {
            Some("warrior")
        } else {
            None
        }
    }

    fn side(&self) -> &'static str {
        Variant::Shakti.side_name(self.turn)
    }

    fn syntax_hint(&self) -> &'static str {
        "Write a move as from-to, like b2-b3 or b2b4, or name the piece and its target, like \
         Wb4 or Kd3. A warrior jump removes the tile it jumps over (b2-b4). Write pass when \
         you cannot move."
    }
}

impl fmt::Display for Shakti {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text())
    }
}

impl FromStr for Shakti {
    type Err = PositionError;

    fn from_str(text: &str) -> Result<Shakti, PositionError> {
        Shakti::parse(text)
    }
}
