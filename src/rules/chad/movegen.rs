//! Legal move generation: checks and pins found from the king outwards, so no move is
//! tried and taken back; one generator feeds both the move list and perft's counter.

use super::bitboard::Bb;
use super::geometry::*;
use super::{Chad, ChadMove};
use crate::rules::Color;
use crate::rules::lines::Bits;

/// Where the pieces other than the king may go: anywhere, or in check only to block or
/// capture the checker (`evasion`), and a pinned piece only along its pin line.
pub(super) struct Restriction<'a> {
    checked: bool,
    evasion: Bb,
    /// Each pinned piece's square and the line from the king it must stay on.
    pins: &'a [(u8, Bb)],
}

/// Receives generated moves: a list for [`Position::legal_moves`], a counter for perft's last
/// ply. Both go through the one generator, so they cannot disagree.
pub(super) trait Sink {
    /// Moves of the `piece` on `from` to the `quiet` and `captures` squares; a rook promotes on
    /// the `promote` squares.
    fn moves(&mut self, piece: char, from: u8, quiet: Bb, captures: Bb, promote: Bb);

    /// The running count, for a sink that only counts: the generator may then add a piece's
    /// number of moves without listing their squares.
    fn total(&mut self) -> Option<&mut u64> {
        None
    }
}

pub(super) struct Counter(u64);

impl Sink for Counter {
    #[inline]
    fn moves(&mut self, _piece: char, _from: u8, quiet: Bb, captures: Bb, _promote: Bb) {
        self.0 += u64::from((quiet | captures).count());
    }

    #[inline]
    fn total(&mut self) -> Option<&mut u64> {
        Some(&mut self.0)
    }
}

/// More than the most moves a side can have: eight queens of at most 44 moves and a king.
pub(super) const MAX_MOVES: usize = 384;

/// A fixed-size move list, so perft allocates nothing.
pub(super) struct MoveList {
    moves: [ChadMove; MAX_MOVES],
    len: usize,
}

impl MoveList {
    pub(super) fn new() -> MoveList {
        let none = ChadMove {
            from: 0,
            to: 0,
            piece: 'K',
            capture: false,
            promotion: false,
        };
        MoveList {
            moves: [none; MAX_MOVES],
            len: 0,
        }
    }

    pub(super) fn as_slice(&self) -> &[ChadMove] {
        &self.moves[..self.len]
    }
}

impl Sink for MoveList {
    #[inline]
    fn moves(&mut self, piece: char, from: u8, quiet: Bb, captures: Bb, promote: Bb) {
        for (targets, capture) in [(quiet, false), (captures, true)] {
            for to in targets.squares() {
                self.moves[self.len] = ChadMove {
                    from,
                    to,
                    piece,
                    capture,
                    promotion: promote.has(to),
                };
                self.len += 1;
            }
        }
    }
}

impl Chad {
    /// Flips the occupancy of `sq` by `side` in the rank and file lines.
    #[inline]
    pub(super) fn toggle_line_bit(&mut self, side: usize, sq: u8) {
        let (file, rank) = file_rank(sq);
        self.ranks[side][rank] ^= 1 << file;
        self.files[side][file] ^= 1 << rank;
    }

    /// The squares of `owner`'s castle occupied by `side`, numbered as in [`KING_STEPS`].
    #[inline]
    pub(super) fn castle_bits(&self, owner: usize, side: usize) -> u16 {
        let (file, rank) = CASTLE_CORNER[owner];
        (0..3).fold(0, |bits, row| {
            bits | ((self.ranks[side][rank + row] >> file) & 7) << (3 * row)
        })
    }

    /// The occupied squares of rank `rank`, both sides.
    #[inline]
    pub(super) fn rank_line(&self, rank: usize) -> u16 {
        self.ranks[0][rank] | self.ranks[1][rank]
    }

    /// The occupied squares of file `file`, both sides.
    #[inline]
    pub(super) fn file_line(&self, file: usize) -> u16 {
        self.files[0][file] | self.files[1][file]
    }

    /// Whether an enemy rook or queen (of `them`) attacks `sq` along its rank or file, with
    /// the square `lifted` treated as empty. Enemy kings never share a rank or file with a
    /// square of the other castle, so every enemy piece on these lines is a rook or queen.
    #[inline]
    pub(super) fn attacked_on_lines(&self, them: usize, sq: u8, lifted: u8) -> bool {
        let (file, rank) = file_rank(sq);
        let (lifted_file, lifted_rank) = file_rank(lifted);
        let mut rank_line = self.rank_line(rank);
        let mut file_line = self.file_line(file);
        if lifted_rank == rank {
            rank_line &= !(1 << lifted_file);
        }
        if lifted_file == file {
            file_line &= !(1 << lifted_rank);
        }
        line_reach(file, rank_line) & self.ranks[them][rank] != 0
            || line_reach(rank, file_line) & self.files[them][file] != 0
    }

    #[inline]
    pub(super) fn men(&self, side: usize) -> Bb {
        self.rooks[side] | self.queens[side]
    }

    #[inline]
    pub(super) fn pieces(&self, side: usize) -> Bb {
        self.men(side) | bit(self.kings[side])
    }

    /// Whether a square of the castles is attacked by `them` with the square `lifted` treated
    /// as empty (C9: walls and castles never block; only rooks and queens attack).
    #[inline]
    pub(super) fn attacked(&self, them: usize, sq: u8, lifted: u8) -> bool {
        self.attacked_on_lines(them, sq, lifted)
            || (self.queens[them].any() && {
                let occupied = (self.pieces(0) | self.pieces(1)) & !bit(lifted);
                let rays = &RAYS[usize::from(sq)];
                [1, 3, 5, 7]
                    .into_iter()
                    .any(|d| (rays[d] & self.queens[them]).has(first_stop(sq, d, occupied)))
            })
    }

    pub(super) fn king_in_check(&self, color: Color) -> bool {
        let king = self.kings[color.index()];
        self.attacked(color.other().index(), king, king)
    }

    /// Generates every legal move into `sink` and returns whether the side to move is in check.
    ///
    /// Lines from the own king find the checkers and the pinned pieces first. A king move is
    /// legal when its target is not attacked with the king lifted off its square. Any other
    /// move must stay on its pin line, and in check must capture the checker or block it;
    /// against two checkers only the king moves.
    pub(super) fn generate(&self, sink: &mut impl Sink) -> bool {
        let us = self.turn.index();
        let them = 1 - us;
        let king = self.kings[us];
        let diagonal = self.queens[them];
        // The whole-board sets are only needed off the common path (checks, pins, queens,
        // listing), so they are computed where used.
        let occupied = || self.pieces(us) | self.pieces(them);

        let mut checkers = 0;
        let mut evasion = Bb::FULL;
        let mut pins = [(0u8, Bb::EMPTY); 8];
        let mut pinned = 0;
        let (king_file, king_rank) = file_rank(king);
        let lines = [
            (
                king_file,
                self.rank_line(king_rank),
                self.ranks[them][king_rank],
                [0, 4],
            ),
            (
                king_rank,
                self.file_line(king_file),
                self.files[them][king_file],
                [2, 6],
            ),
        ];
        for (pos, line, enemies, [up, down]) in lines {
            let blockers = line_reach(pos, line) & line;
            for first in blockers.squares() {
                let d = if usize::from(first) > pos { up } else { down };
                if enemies & 1 << first != 0 {
                    checkers += 1;
                    let checker = RAYS[usize::from(king)][d].nearest_in(occupied(), d);
                    evasion = RAYS[usize::from(king)][d] ^ RAYS[usize::from(checker)][d];
                    continue;
                }
                // An own piece: pinned if the next piece behind it is an enemy rook or queen.
                let behind = line_reach(usize::from(first), line) & line & !(1 << pos);
                let beyond = if d == up {
                    behind & !((2 << first) - 1)
                } else {
                    behind & ((1 << first) - 1)
                };
                if beyond & enemies != 0 {
                    let ray = RAYS[usize::from(king)][d];
                    pins[pinned] = (ray.nearest_in(occupied(), d), ray);
                    pinned += 1;
                }
            }
        }
        if diagonal.any() {
            let (own, occupied) = (self.pieces(us), occupied());
            for d in [1, 3, 5, 7] {
                let ray = RAYS[usize::from(king)][d];
                let blockers = ray & occupied;
                if !blockers.any() {
                    continue;
                }
                let first = blockers.nearest(d);
                if diagonal.has(first) {
                    checkers += 1;
                    evasion = ray ^ RAYS[usize::from(first)][d];
                } else if own.has(first) {
                    let beyond = RAYS[usize::from(first)][d] & occupied;
                    if beyond.any() && diagonal.has(beyond.nearest(d)) {
                        pins[pinned] = (first, ray);
                        pinned += 1;
                    }
                }
            }
        }

        // King moves, on the nine squares of the castle.
        let (corner_file, corner_rank) = CASTLE_CORNER[us];
        let castle_square = |local: u8| {
            square(
                corner_file + usize::from(local % 3),
                corner_rank + usize::from(local / 3),
            )
        };
        let local = (king_rank - corner_rank) * 3 + king_file - corner_file;
        let safe = (KING_STEPS[local] & !self.castle_bits(us, us))
            .squares()
            .filter(|&to| !self.attacked(them, castle_square(to), king))
            .fold(0u16, |safe, to| safe | 1 << to);
        if let Some(total) = sink.total() {
            *total += u64::from(line_count(safe));
        } else {
            let prey = self.castle_bits(us, them);
            let squares = |locals: u16| {
                locals
                    .squares()
                    .fold(Bb::EMPTY, |set, local| set | bit(castle_square(local)))
            };
            sink.moves(
                'K',
                king,
                squares(safe & !prey),
                squares(safe & prey),
                Bb::EMPTY,
            );
        }
        if checkers >= 2 {
            return true;
        }

        let restriction = Restriction {
            checked: checkers > 0,
            evasion,
            pins: &pins[..pinned],
        };
        for from in self.rooks[us].squares() {
            self.man_moves(sink, 'R', from, &restriction);
        }
        for from in self.queens[us].squares() {
            self.man_moves(sink, 'Q', from, &restriction);
        }
        checkers > 0
    }

    /// The moves of the rook or queen `piece` on `from` (see [`Chad::generate`]).
    #[inline(always)]
    pub(super) fn man_moves(
        &self,
        sink: &mut impl Sink,
        piece: char,
        from: u8,
        restriction: &Restriction,
    ) {
        let us = self.turn.index();
        let them = 1 - us;
        let occupied = || self.pieces(us) | self.pieces(them);
        let promote = if piece == 'R' {
            CASTLE[them]
        } else {
            Bb::EMPTY
        };
        let (file, rank) = file_rank(from);
        let (rank_occupied, file_occupied) = (self.rank_line(rank), self.file_line(file));
        let along_rank = line_reach(file, rank_occupied);
        let along_file = line_reach(rank, file_occupied);
        let (rank_quiet, file_quiet) = (along_rank & !rank_occupied, along_file & !file_occupied);
        let (mut rank_prey, mut file_prey) = (0u16, 0u16);
        // The line boards hold the enemy king too, but it can never be prey here: in
        // its castle it would be in check with us to move, and it never stands on a wall.
        let zone = CAPTURE_AREA[us][usize::from(from)];
        if zone != 0 {
            for f in (along_rank & self.ranks[them][rank]).squares() {
                rank_prey |= u16::from(AREA[usize::from(square(f, rank))] == zone) << f;
            }
            for r in (along_file & self.files[them][file]).squares() {
                file_prey |= u16::from(AREA[usize::from(square(file, r))] == zone) << r;
            }
        }
        let queen = piece == 'Q';
        let prey = || CAPTURE_ZONE[us][usize::from(from)] & self.men(them);
        let diagonals = if queen {
            diagonal_reach(from, occupied())
        } else {
            Bb::EMPTY
        };
        let restricted =
            restriction.checked || restriction.pins.iter().any(|&(man, _)| man == from);
        if !restricted && let Some(total) = sink.total() {
            // The common case at perft's last ply: count without listing squares.
            let mut count = line_count(rank_quiet | rank_prey) + line_count(file_quiet | file_prey);
            if queen {
                count += (diagonals & (!occupied() | prey())).count();
            }
            *total += u64::from(count);
            return;
        }
        let mut allowed = restriction.evasion;
        for &(man, line) in restriction.pins {
            if man == from {
                allowed &= line;
            }
        }
        let quiet =
            Bb::rank(rank, rank_quiet) | Bb::file(file, file_quiet) | (diagonals & !occupied());
        let captures = Bb::rank(rank, rank_prey) | Bb::file(file, file_prey) | (diagonals & prey());
        sink.moves(piece, from, quiet & allowed, captures & allowed, promote);
    }

    pub(super) fn has_move(&self) -> bool {
        let mut counter = Counter(0);
        self.generate(&mut counter);
        counter.0 > 0
    }

    /// The position after a legal move.
    pub(super) fn after(&self, mv: ChadMove) -> Chad {
        let us = self.turn.index();
        let them = 1 - us;
        let mut next = Chad {
            turn: self.turn.other(),
            ..*self
        };
        let (from, to) = (bit(mv.from), bit(mv.to));
        next.toggle_line_bit(us, mv.from);
        next.toggle_line_bit(us, mv.to);
        if mv.capture {
            next.toggle_line_bit(them, mv.to);
            next.rooks[them] &= !to;
            next.queens[them] &= !to;
        }
        match mv.piece {
            'K' => next.kings[us] = mv.to,
            'R' if mv.promotion => {
                next.rooks[us] &= !from;
                next.queens[us] |= to;
            }
            'R' => next.rooks[us] = next.rooks[us] ^ (from | to),
            _ => next.queens[us] = next.queens[us] ^ (from | to),
        }
        next
    }

    /// Perft with bulk counting at the last ply.
    pub(super) fn count(&self, depth: u32) -> u64 {
        match depth {
            0 => 1,
            1 => {
                let mut counter = Counter(0);
                self.generate(&mut counter);
                counter.0
            }
            _ => {
                let mut list = MoveList::new();
                self.generate(&mut list);
                list.as_slice()
                    .iter()
                    .map(|&mv| self.after(mv).count(depth - 1))
                    .sum()
            }
        }
    }
}
