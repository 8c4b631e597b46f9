//! Board views built by hand from position texts, for drawing boards of games whose rules are
//! not on this branch, and long games played by a fixed pseudo-random sequence, for replays.
//! Shared by the render tests and the render bench.

#![allow(dead_code)]

use pigeon::rules::{BoardView, Cell, Color, Coord, PieceView, Record, Variant, VariantPosition};

/// Chak's start position (chak.md §1).
pub const CHAK_START: &str = "rvsqkjsvr/4o4/p1p1p1p1p/9/9/9/P1P1P1P1P/4O4/RVSJKQSVR";
/// Shakti's start position (shakti.md §1.3).
pub const SHAKTI_START: &str = "#.....#/.w.k.w./......./......./......./.W.K.W./#.....#";
/// Chad's start position (chad.md §2.3).
pub const CHAD_START: &str = "12/12/7rrr2/7rkr2/7rrr2/12/12/2RRR7/2RKR7/2RRR7/12/12";
/// Chesscala's reconstructed start position (chesscala.md §3.2).
pub const CHESSCALA_START: &str = "khob,qrb,kobn,qrn,rbn,qrn/pp,pp,pp,pp,pp,pp/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/PP,PP,PP,PP,PP,PP/QRN,RBN,QRN,KOBN,QRB,KHOB";

fn piece(c: char) -> PieceView {
    PieceView {
        color: if c.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        },
        letter: c.to_ascii_uppercase(),
    }
}

fn assemble(files: u8, ranks: u8, rows: Vec<Vec<Cell>>) -> BoardView {
    assert_eq!(rows.len(), usize::from(ranks), "rank count");
    let mut cells = Vec::new();
    // Texts list rank `ranks` first; views start at rank 1.
    for row in rows.into_iter().rev() {
        assert_eq!(row.len(), usize::from(files), "file count");
        cells.extend(row);
    }
    BoardView {
        files,
        ranks,
        cells,
    }
}

/// A FEN-like board: ranks from the top separated by `/`, digits for runs of empty squares,
/// `#` for a hole, `.` for one empty square, letters for pieces (upper case White).
pub fn fen(files: u8, ranks: u8, text: &str) -> BoardView {
    let rows = text
        .split('/')
        .map(|rank| {
            let mut row = Vec::new();
            let mut run = 0usize;
            for c in rank.chars() {
                if let Some(d) = c.to_digit(10) {
                    run = run * 10 + d as usize;
                    continue;
                }
                row.extend(std::iter::repeat_n(Cell::Empty, run));
                run = 0;
                row.push(match c {
                    '#' => Cell::Hole,
                    '.' => Cell::Empty,
                    c => Cell::Pieces(vec![piece(c)]),
                });
            }
            row.extend(std::iter::repeat_n(Cell::Empty, run));
            row
        })
        .collect();
    assemble(files, ranks, rows)
}

/// A Chesscala board: ranks from the top separated by `/`, cells by `,`, `-` empty, else the
/// stack's pieces in order.
pub fn stacks(text: &str) -> BoardView {
    let rows = text
        .split('/')
        .map(|rank| {
            rank.split(',')
                .map(|cell| match cell {
                    "-" => Cell::Empty,
                    pieces => Cell::Pieces(pieces.chars().map(piece).collect()),
                })
                .collect()
        })
        .collect();
    assemble(6, 8, rows)
}

pub fn chak_start() -> BoardView {
    fen(9, 9, CHAK_START)
}

pub fn shakti_start() -> BoardView {
    fen(7, 7, SHAKTI_START)
}

pub fn chad_start() -> BoardView {
    fen(12, 12, CHAD_START)
}

pub fn chesscala_start() -> BoardView {
    stacks(CHESSCALA_START)
}

/// A square by name, for tests.
pub fn sq(name: &str) -> Coord {
    let (file, rank) = pigeon::rules::square::parse(name, 12, 12).expect("a square name");
    Coord::new(file, rank)
}

/// The games whose random 100-ply games are replayed in the tests and the bench. Chesscala's
/// random games soon reach positions with so many turns that playing one takes minutes.
pub const REPLAYED: [Variant; 3] = [Variant::Chak, Variant::Shakti, Variant::Chad];

/// A game of `variant` with exactly `plies` moves, legal moves picked by a fixed pseudo-random
/// sequence (a game that ends early starts again from its start position), so the same call
/// always gives the same game.
pub fn random_game(variant: Variant, plies: usize) -> Record {
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut record = Record::new(VariantPosition::start(variant));
    while record.moves().len() < plies {
        let position = record.position();
        let legal = position.legal_moves();
        if record.outcome().is_some() || legal.is_empty() {
            record = Record::new(VariantPosition::start(variant));
            continue;
        }
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let text = position.move_text(&legal[(seed >> 33) as usize % legal.len()]);
        record.play(&text).expect("a legal move plays");
    }
    record
}
