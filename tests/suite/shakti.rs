//! Shakti: the reference vectors, start perft, the spec's worked positions (§1.7), properties
//! and a game record with a forced pass.

use pigeon::rules::{EndReason, MoveError, Outcome, Record, Variant, VariantPosition};
use proptest::prelude::*;

use crate::{oracle, walks};

fn position(text: &str) -> VariantPosition {
    VariantPosition::from_text(Variant::Shakti, text).expect("a valid Shakti position")
}

fn moves(text: &str) -> Vec<String> {
    position(text).legal_move_texts()
}

/// The moves of a space-separated list; the space inside `(rm b3)` is not a separator.
fn words(list: &str) -> Vec<String> {
    list.replace("(rm ", "(rm~")
        .split_whitespace()
        .map(|word| word.replace('~', " "))
        .collect()
}

#[test]
fn reference_vectors() {
    assert_eq!(
        oracle::check_all(Variant::Shakti, "shakti-vectors.jsonl"),
        500
    );
}

#[test]
fn start_perft() {
    let start = position("start");
    let counts: Vec<u64> = (1..=4).map(|d| start.perft(d)).collect();
    assert_eq!(counts, [26, 660, 16_535, 403_471]);
}

#[test]
#[ignore = "slow in debug builds; run with --release -- --ignored"]
fn start_perft_5() {
    assert_eq!(position("start").perft(5), 9_874_591);
}

#[test]
fn worked_1_initial_position() {
    assert_eq!(
        moves("#.....#/.w.k.w./......./......./......./.W.K.W./#.....# w"),
        words(
            "b2-a2 b2-a3 b2-b1 b2-b3 b2-b4(rm b3) b2-c1 b2-c2 b2-c3 b2-d4(rm c3) d2-c1 d2-c2 \
             d2-c3 d2-d1 d2-d3 d2-e1 d2-e2 d2-e3 f2-d4(rm e3) f2-e1 f2-e2 f2-e3 f2-f1 f2-f3 \
             f2-f4(rm f3) f2-g2 f2-g3"
        )
    );
    assert_eq!(position("start").to_text(), pigeon::rules::shakti::START);
}

#[test]
fn worked_2_distant_check_restricts_the_king() {
    let text = "#.....#/.w...../...k.../...w.../...#.../...#.W./#..K..# w";
    assert!(position(text).in_check());
    assert_eq!(moves(text), words("d1-c1 d1-c2 d1-e1 d1-e2"));
}

#[test]
fn worked_3_mutual_check_protects_a_warrior() {
    let text = "#w...w#/......./...k.../...W.../...#.../...#.../#..K.W# b";
    let pos = position(text);
    assert!(pos.in_check());
    assert_eq!(moves(text), words("d5-c6 d5-d6 d5-e6"));
    walks::assert_illegal(&pos, &["d5-d4", "d5-c4", "d5-e4", "d5-c5", "d5-e5"]);
}

#[test]
fn worked_4_jumps_that_expose_the_king_and_moves_over_holes() {
    let text = "#..w..#/...k.../.W...../K.#w.../......./......./#....W# w";
    assert_eq!(
        moves(text),
        words(
            "a4-a3 a4-a5 a4-b3 b5-a5 b5-a6 b5-b4 b5-b6 b5-b7(rm b6) b5-c5 b5-c6 b5-d3 \
             b5-d5(rm c5) b5-e2(rm d3) f1-d1(rm e1) f1-d3(rm e2) f1-e1 f1-e2 f1-f2 f1-f3(rm f2) \
             f1-g2"
        )
    );
    let pos = position(text);
    walks::assert_illegal(&pos, &["a4-b4", "b5-b3(rm b4)", "b5b3"]);
}

#[test]
fn worked_5_pass() {
    let text = "#.K.#.#/.#####./.#.###./.######/.##.W#./.#####W/#k..#.# b";
    let pos = position(text);
    assert!(!pos.in_check());
    assert_eq!(pos.outcome(), None);
    let legal = pos.legal_moves();
    assert_eq!(legal.len(), 1);
    assert!(pos.is_pass(&legal[0]));
    assert_eq!(moves(text), ["pass"]);
    let after = pos.play(&legal[0]);
    assert_eq!(
        after.to_text(),
        "#.K.#.#/.#####./.#.###./.######/.##.W#./.#####W/#k..#.# w"
    );
}

#[test]
fn worked_6_checkmate() {
    let pos = position("#k....#/.W..#../.#W###./...##../#..w##./...#.../#K....# b");
    assert!(pos.in_check());
    assert!(pos.legal_moves().is_empty());
    assert_eq!(
        pos.outcome(),
        Some(Outcome::win(
            pigeon::rules::Color::White,
            EndReason::Checkmate
        ))
    );
    assert_eq!(pos.parse_move("b7-a7"), Err(MoveError::GameOver));
}

#[test]
fn blocked_positions_are_drawn_at_once() {
    // Neither king has a free tile it could go to, and there are no warriors.
    let pos = position("#######/#######/###k###/#######/#######/#K#####/####### w");
    assert!(pos.legal_moves().is_empty());
    assert_eq!(pos.outcome(), Some(Outcome::draw(EndReason::Blocked)));
    assert_eq!(pos.perft(3), 0);
}

#[test]
fn chat_notation() {
    let start = position("start");
    let text_of = |input: &str| start.parse_move(input).map(|mv| start.move_text(&mv));
    for (input, want) in [
        ("b2b4", "b2-b4(rm b3)"),
        ("b2-b4", "b2-b4(rm b3)"),
        ("B2B4", "b2-b4(rm b3)"),
        ("Wb2-b4 (rm b3)", "b2-b4(rm b3)"),
        ("wb4", "b2-b4(rm b3)"),
        ("Kd3", "d2-d3"),
        ("kc3", "d2-c3"),
        (" f2-f4(rm f3) ", "f2-f4(rm f3)"),
    ] {
        assert_eq!(text_of(input).as_deref(), Ok(want), "{input}");
    }
    let Err(MoveError::Ambiguous { candidates, .. }) = start.parse_move("d4") else {
        panic!("d4 is reached by two warriors");
    };
    assert_eq!(candidates, ["Wb2-d4 (rm c3)", "Wf2-d4 (rm e3)"]);
    let Err(MoveError::Illegal { hint, .. }) = start.parse_move("b2b5") else {
        panic!("b2b5 is illegal");
    };
    assert!(
        hint.contains("warrior on b2") && hint.contains("Wb2-b3"),
        "{hint}"
    );
    let Err(MoveError::Illegal { hint, .. }) = start.parse_move("c2c3") else {
        panic!("c2 is empty");
    };
    assert!(hint.contains("no White piece on c2"), "{hint}");
    assert!(matches!(
        start.parse_move("pass"),
        Err(MoveError::Illegal { .. })
    ));
    let Err(MoveError::Syntax { hint, .. }) = start.parse_move("hello") else {
        panic!("hello is no move");
    };
    assert!(hint.contains("b2-b3"), "{hint}");
    // The king capture shows as a capture in the display notation.
    let pos = position("#w...w#/......./...k.../...W.../......./......./#..K.W# b");
    let capture = pos.parse_move("d5xd4").expect("the king may take d4");
    assert_eq!(pos.display_move(&capture), "Kd5xd4");
    assert_eq!(pos.move_marks(&capture).captures.len(), 1);
}

#[test]
fn record_plays_a_forced_pass() {
    let mut record = Record::new(position(
        "#.K.#.#/.#####./.#.###./.######/.##.W#./.#####W/#k..#.# b",
    ));
    let pass = record.forced_pass().expect("Black must pass");
    assert!(record.position().is_pass(&pass));
    let played = record.play_forced_pass().expect("the pass is played");
    assert_eq!(played.text, "pass");
    assert_eq!(record.position().turn(), pigeon::rules::Color::White);
    assert_eq!(record.outcome(), None);
    assert!(record.forced_pass().is_none());
    let white = record.position().legal_moves();
    let text = record.position().move_text(&white[0]);
    record.play(&text).expect("a legal White move");
    assert_eq!(record.moves().len(), 2);
}

#[test]
fn board_view_and_marks() {
    let start = position("start");
    let view = start.board_view();
    assert_eq!((view.files, view.ranks), (7, 7));
    assert_eq!(view.cells[0], pigeon::rules::Cell::Hole);
    let jump = start.parse_move("b2b4").expect("legal");
    let marks = start.move_marks(&jump);
    assert_eq!(marks.removed[0].name(), "b3");
    assert_eq!(marks.from[0].name(), "b2");
    assert_eq!(marks.to[0].name(), "b4");
}

fn rotate_position(text: &str) -> String {
    let (board, side) = text.split_once(' ').expect("board and side");
    let rows: Vec<Vec<char>> = board.split('/').map(|r| r.chars().collect()).collect();
    let (rows, side) = walks::rotate_rows(&rows, side);
    let rows: Vec<String> = rows.iter().map(|r| r.iter().collect()).collect();
    format!("{} {side}", rows.join("/"))
}

fn rotate_move(text: &str) -> String {
    walks::rotate_squares(text, 7, 7)
}

fn tiles(position: &VariantPosition) -> usize {
    let text = position.to_text();
    let board = text.split(' ').next().expect("a board");
    board.chars().filter(|c| !matches!(c, '#' | '/')).count()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_walks_keep_the_rules(start in any::<prop::sample::Index>(), choices in prop::collection::vec(any::<u16>(), 0..40)) {
        let starts = walks::starts(Variant::Shakti, "shakti-vectors.jsonl");
        let text: &String = start.get(&starts);
        let start = position(text);
        let walk = walks::walk(start, &choices);
        for pair in walk.windows(2) {
            prop_assert!(tiles(&pair[1]) <= tiles(&pair[0]));
        }
        for pos in &walk {
            walks::check_position(pos);
            walks::check_rotation(pos, rotate_position, rotate_move);
        }
    }

    #[test]
    fn arbitrary_text_never_panics(text in ".{0,40}", shaped in "[a-hKkWw#./0-9 ()rmpas-]{0,60}") {
        walks::read_arbitrary(Variant::Shakti, &[&text, &shaped]);
    }
}
