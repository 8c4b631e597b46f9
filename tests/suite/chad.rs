//! Chad: the reference vectors, start perft, the spec's worked positions (§2.6), properties and
//! a game record ending in threefold repetition.

use pigeon::rules::{Color, EndReason, MoveError, Outcome, Record, Variant, VariantPosition};
use proptest::prelude::*;

use crate::{oracle, walks};

fn position(text: &str) -> VariantPosition {
    VariantPosition::from_text(Variant::Chad, text).expect("a valid Chad position")
}

/// A position from a piece list such as `"Kd4 Rg9"` for White and Black.
fn setup(white: &str, black: &str, side: char) -> VariantPosition {
    let mut rows = vec![vec!['.'; 12]; 12];
    for (list, lower) in [(white, false), (black, true)] {
        for piece in list.split_whitespace() {
            let letter = piece.chars().next().expect("a piece letter");
            let file = usize::from(piece.as_bytes()[1] - b'a');
            let rank: usize = piece[2..].parse().expect("a rank");
            rows[12 - rank][file] = if lower {
                letter.to_ascii_lowercase()
            } else {
                letter
            };
        }
    }
    position(&format!("{} {side}", encode(&rows)))
}

/// Writes rows of single characters (`.` empty) as a Chad board with run-length counts.
fn encode(rows: &[Vec<char>]) -> String {
    let ranks: Vec<String> = rows
        .iter()
        .map(|row| {
            let mut out = String::new();
            let mut empty = 0;
            for &c in row {
                if c == '.' {
                    empty += 1;
                } else {
                    if empty > 0 {
                        out.push_str(&empty.to_string());
                        empty = 0;
                    }
                    out.push(c);
                }
            }
            if empty > 0 {
                out.push_str(&empty.to_string());
            }
            out
        })
        .collect();
    ranks.join("/")
}

fn decode(board: &str) -> Vec<Vec<char>> {
    board
        .split('/')
        .map(|rank| {
            let mut row = Vec::new();
            let mut empty = 0;
            for c in rank.chars() {
                if let Some(d) = c.to_digit(10) {
                    empty = empty * 10 + d as usize;
                } else {
                    row.extend(std::iter::repeat_n('.', empty));
                    empty = 0;
                    row.push(c);
                }
            }
            row.extend(std::iter::repeat_n('.', empty));
            row
        })
        .collect()
}

fn texts(pos: &VariantPosition) -> Vec<String> {
    pos.legal_move_texts()
}

#[test]
fn reference_vectors() {
    assert_eq!(oracle::check_all(Variant::Chad, "chad-vectors.jsonl"), 500);
}

#[test]
fn start_perft() {
    let start = position("start");
    let counts: Vec<u64> = (1..=3).map(|d| start.perft(d)).collect();
    assert_eq!(counts, [54, 2_844, 187_228]);
}

#[test]
#[ignore = "slow in debug builds; run with --release -- --ignored"]
fn start_perft_4() {
    assert_eq!(position("start").perft(4), 12_107_364);
}

#[test]
fn worked_1_initial_position() {
    let start = position("start");
    assert_eq!(start.to_text(), pigeon::rules::chad::START);
    let moves = texts(&start);
    assert_eq!(moves.len(), 54);
    let from = |sq: &str| moves.iter().filter(|m| m[1..].starts_with(sq)).count();
    assert_eq!(from("d4"), 0);
    let counts: Vec<usize> = ["c4", "d3", "e4", "d5", "c3", "e3", "c5", "e5"]
        .iter()
        .map(|sq| from(sq))
        .collect();
    assert_eq!(counts, [2, 2, 7, 7, 4, 9, 9, 14]);
}

#[test]
fn worked_2_king_geometry() {
    let pos = setup("Kc3", "Ki9", 'w');
    assert_eq!(
        texts(&pos),
        ["Kc3-c4", "Kc3-d3", "Kc3-d4", "Kc3-d5", "Kc3-e4"]
    );
}

#[test]
fn worked_3_wall_and_castle_captures() {
    let white = setup("Kd4 Rg9", "Ki8 Rh9", 'w');
    assert_eq!(texts(&white).len(), 26);
    assert!(texts(&white).contains(&String::from("Rg9xh9=Q")));
    let black = setup("Kd4 Rg9", "Ki8 Rh9", 'b');
    assert_eq!(texts(&black).len(), 22);
    assert!(texts(&black).contains(&String::from("Rh9xg9")));
    for side in ['w', 'b'] {
        let pos = setup("Kd4 Rf9", "Ki8 Rh9", side);
        assert!(texts(&pos).iter().all(|m| !m.contains('x')), "{side}");
        if side == 'w' {
            assert_eq!(texts(&pos).len(), 25);
        }
    }
}

#[test]
fn worked_4_pinned_defender() {
    let black = setup("Kd4 Rg9 Rh1", "Kh10 Rh9", 'b');
    let mut want = vec![
        "Kh10-i10", "Kh10-i8", "Kh10-i9", "Kh10-j9", "Rh9-h2", "Rh9-h3", "Rh9-h4", "Rh9-h5",
        "Rh9-h6", "Rh9-h7", "Rh9-h8",
    ];
    want.sort_unstable();
    assert_eq!(texts(&black), want);
    walks::assert_illegal(&black, &["Rh9xg9"]);
    let white = setup("Kd4 Rg9 Rh1", "Kh10 Rh9", 'w');
    let moves = texts(&white);
    assert_eq!(moves.len(), 44);
    for mv in ["Rg9xh9=Q", "Rh1-h8=Q"] {
        assert!(moves.contains(&String::from(mv)), "{mv}");
    }
}

#[test]
fn worked_5_queen_inside_the_castle() {
    let pos = setup("Kd4 Qh9 Rl1", "Ki8 Rj9 Rh12", 'b');
    assert!(pos.in_check());
    assert_eq!(texts(&pos), ["Ki8-j10", "Ki8-j8", "Ki8xh9"]);
}

#[test]
fn worked_6_checkmate() {
    let pos = setup("Kd4 Qi9 Ri1", "Kj10", 'b');
    assert!(pos.in_check());
    assert!(pos.legal_moves().is_empty());
    assert_eq!(
        pos.outcome(),
        Some(Outcome::win(Color::White, EndReason::Checkmate))
    );
}

#[test]
fn worked_7_stalemate_is_a_draw() {
    let pos = setup("Kd4 Ra9 Ri1", "Kh8", 'b');
    assert!(!pos.in_check());
    assert!(pos.legal_moves().is_empty());
    assert_eq!(pos.outcome(), Some(Outcome::draw(EndReason::Stalemate)));
}

#[test]
fn chat_notation() {
    let pos = setup("Kd4 Rg9 Rh1", "Kh10 Rh9", 'w');
    let text_of = |input: &str| pos.parse_move(input).map(|mv| pos.move_text(&mv));
    for (input, want) in [
        ("Rg9xh9=Q", "Rg9xh9=Q"),
        ("g9xh9", "Rg9xh9=Q"),
        ("Rgh9", "Rg9xh9=Q"),
        ("Rg9h9", "Rg9xh9=Q"),
        ("rg9-h9", "Rg9xh9=Q"),
        ("h8", "Rh1-h8=Q"),
        ("Rh8=q", "Rh1-h8=Q"),
        ("R1h5", "Rh1-h5"),
        ("Kd4e5", "Kd4-e5"),
        ("kd4e5", "Kd4-e5"),
        ("Ke5", "Kd4-e5"),
    ] {
        assert_eq!(text_of(input).as_deref(), Ok(want), "{input}");
    }
    let Err(MoveError::Ambiguous { mut candidates, .. }) = pos.parse_move("g1") else {
        panic!("two rooks can go to g1");
    };
    candidates.sort_unstable();
    assert_eq!(candidates, ["Rg9-g1", "Rh1-g1"]);
    let Err(MoveError::Illegal { hint, .. }) = pos.parse_move("Rg9f8") else {
        panic!("Rg9f8 is not a rook move");
    };
    assert!(hint.contains("rook on g9"), "{hint}");
    assert!(matches!(
        pos.parse_move("Qa1"),
        Err(MoveError::Illegal { .. })
    ));
    assert!(matches!(
        pos.parse_move("?!"),
        Err(MoveError::Syntax { .. })
    ));
}

#[test]
fn record_ends_in_threefold_repetition() {
    let mut record = Record::new(position("start"));
    for _ in 0..2 {
        for mv in ["Re4-f4", "Rh9-g9", "Rf4-e4", "Rg9-h9"] {
            assert_eq!(record.outcome(), None);
            record.play(mv).expect("a legal rook move");
        }
    }
    assert_eq!(record.outcome(), Some(Outcome::draw(EndReason::Repetition)));
    assert!(matches!(record.play("Re4-f4"), Err(MoveError::GameOver)));
}

#[test]
fn board_view_and_marks() {
    let pos = setup("Kd4 Rg9", "Ki8 Rh9", 'w');
    let view = pos.board_view();
    assert_eq!((view.files, view.ranks), (12, 12));
    let capture = pos.parse_move("Rg9xh9").expect("legal");
    let marks = pos.move_marks(&capture);
    assert_eq!(marks.captures[0].name(), "h9");
    let after = pos.play(&capture);
    assert!(after.to_text().starts_with("12/12/12/7Q4/8k3"));
}

fn rotate_position(text: &str) -> String {
    let (board, side) = text.split_once(' ').expect("board and side");
    let (rows, side) = walks::rotate_rows(&decode(board), side);
    format!("{} {side}", encode(&rows))
}

fn rotate_move(text: &str) -> String {
    walks::rotate_squares(text, 12, 12)
}

/// Whether `sq` (a square name) lies in the castle of `color`.
fn in_castle(sq: &str, color: Color) -> bool {
    let file = sq.as_bytes()[0] - b'a';
    let rank: u8 = sq[1..].parse().expect("a rank");
    let (f0, r0) = if color == Color::White {
        (2, 3)
    } else {
        (7, 8)
    };
    (f0..f0 + 3).contains(&file) && (r0..r0 + 3).contains(&rank)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn random_walks_keep_the_rules(start in any::<prop::sample::Index>(), choices in prop::collection::vec(any::<u16>(), 0..30)) {
        let starts = walks::starts(Variant::Chad, "chad-vectors.jsonl");
        let text: &String = start.get(&starts);
        let start = position(text);
        for pos in walks::walk(start, &choices) {
            walks::check_position(&pos);
            walks::check_rotation(&pos, rotate_position, rotate_move);
            for mv in pos.legal_moves() {
                let text = pos.move_text(&mv);
                let to = text[1..].split(['-', 'x']).nth(1).expect("a target");
                let to = to.trim_end_matches("=Q");
                let promotes = text.starts_with('R') && in_castle(to, pos.turn().other());
                prop_assert_eq!(text.ends_with("=Q"), promotes, "{}", text);
            }
        }
    }

    #[test]
    fn arbitrary_text_never_panics(text in ".{0,40}", shaped in "[a-mKRQkrq0-9x=/ -]{0,80}") {
        walks::read_arbitrary(Variant::Chad, &[&text, &shaped]);
    }
}
