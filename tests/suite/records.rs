//! Display notation's check and mate marks in every game, the game record's notation
//! (Chak's as pychess.org imports it), and the end of a replay.

use pigeon::render;
use pigeon::rules::{EndReason, Mark, Record, Variant, VariantPosition};
use serde::Deserialize;

use crate::common::read_data;

/// The display text of the last of `moves` played from `position`.
fn last_display(variant: Variant, position: &str, moves: &[&str]) -> (String, Record) {
    let start =
        VariantPosition::from_text(variant, position).unwrap_or_else(|e| panic!("{position}: {e}"));
    let record = Record::replay(start, moves).unwrap_or_else(|e| panic!("{moves:?}: {e}"));
    let last = record.moves().last().expect("a move").display.clone();
    (last, record)
}

#[test]
fn chak_marks_check_and_both_mates_but_not_stalemate() {
    // The rules' king-vs-king ending: after Kd9, De7-c7 stalemates Green, which wins for
    // White (K5) but is no mate.
    let (text, record) = last_display(
        Variant::Chak,
        "4k4/4o4/4D4/9/9/9/9/9/9 b - - 0 1",
        &["e9d9", "e7c7"],
    );
    assert_eq!(text, "Dc7");
    assert_eq!(
        record.outcome().map(|o| o.reason),
        Some(EndReason::Stalemate)
    );
    let (text, record) = last_display(Variant::Chak, "k8/4o4/4D4/9/9/9/9/9/9 w - - 0 1", &["e7e8"]);
    assert_eq!(text, "Dxe8#", "altar mate");
    assert_eq!(record.outcome().map(|o| o.reason), Some(EndReason::Altar));
    let (text, _) = last_display(Variant::Chak, "k8/9/9/9/4D4/9/9/9/9 w - - 0 1", &["e5c7"]);
    assert_eq!(text, "Dc7+");
}

#[test]
fn shakti_marks_check_and_checkmate() {
    // Worked position 6 of the rules (checkmate), reached by the warrior's step over b5.
    let (text, record) = last_display(
        Variant::Shakti,
        "#k....#/....#../.#W###./.W.##../#..w##./...#.../#K....# w",
        &["b4-b6"],
    );
    assert_eq!(text, "Wb4-b6#");
    assert_eq!(
        record.outcome().map(|o| o.reason),
        Some(EndReason::Checkmate)
    );
    // Worked position 2 (a distant check across holes), reached by the warrior's step.
    let (text, _) = last_display(
        Variant::Shakti,
        "#.....#/.w...../...k.../....w../...#.../...#.W./#..K..# b",
        &["e4-d4"],
    );
    assert_eq!(text, "We4-d4+");
}

#[test]
fn shakti_pass_position_has_no_mark() {
    // Worked position 5: Black cannot move and is not in check.
    let position = VariantPosition::from_text(
        Variant::Shakti,
        "#.K.#.#/.#####./.#.###./.######/.##.W#./.#####W/#k..#.# b",
    )
    .unwrap();
    assert_eq!(position.mark(), None);
}

#[test]
fn chad_marks_check_and_checkmate_but_not_stalemate() {
    // Worked position 6 (checkmate): the queen comes to i9 with the rook on i1 behind it.
    let (text, _) = last_display(
        Variant::Chad,
        "12/12/9k2/12/12/12/12/8Q3/3K8/12/12/8R3 w",
        &["Qi5-i9"],
    );
    assert_eq!(text, "Qi5-i9#");
    let (text, _) = last_display(
        Variant::Chad,
        "12/12/12/8k3/12/12/12/12/3K8/12/12/R11 w",
        &["Ra1-a9"],
    );
    assert_eq!(text, "Ra1-a9+");
    // Worked position 7 (stalemate, a draw): no mark.
    let (text, record) = last_display(
        Variant::Chad,
        "12/12/12/12/7k4/12/12/12/3K8/12/12/R7R3 w",
        &["Ra1-a9"],
    );
    assert_eq!(text, "Ra1-a9");
    assert_eq!(
        record.outcome().map(|o| o.reason),
        Some(EndReason::Stalemate)
    );
}

#[test]
fn interchange_and_lists_carry_no_marks() {
    let (_, record) = last_display(Variant::Chak, "k8/9/9/9/4D4/9/9/9/9 w - - 0 1", &["e5c7"]);
    assert_eq!(record.moves()[0].text, "e5c7");
    let start = record.start();
    assert!(
        start
            .legal_moves()
            .iter()
            .all(|mv| !start.display_move(mv).ends_with(['+', '#']))
    );
    assert_eq!(record.position().mark(), Some(Mark::Check));
}

#[derive(Debug, Deserialize)]
struct FairyGame {
    fen: String,
    moves: Vec<String>,
    san: Vec<String>,
}

/// Random Chak games written by Fairy-Stockfish (pyffish 0.0.90 with pychess.org's `[chak]`
/// definition): the record must give its SAN move for move, since pychess.org's import
/// matches each move's text exactly.
#[test]
fn chak_record_moves_are_fairy_stockfish_san() {
    let data = read_data("chak-san.jsonl");
    let mut compared = 0;
    for line in data.lines() {
        let game: FairyGame = serde_json::from_str(line).expect("a game line");
        let start = VariantPosition::from_text(Variant::Chak, &game.fen).expect("a FEN");
        let record = Record::replay(start, &game.moves).expect("the game replays");
        assert_eq!(record.record_moves(), game.san, "{}", game.fen);
        compared += game.san.len();
    }
    assert!(compared > 1000, "{compared} moves compared");
}

#[test]
fn chesscala_record_writes_a_turn_as_one_word() {
    let start = VariantPosition::start(Variant::Chesscala);
    let record = Record::replay(start, &["Pd2-d4", "pc7-c5", "Pd4xc5=p e2>PP"]).unwrap();
    let moves = record.record_moves();
    assert_eq!(moves[2], "Pd4xc5=p,e2>PP");
    // The comma form reads back as the same turn.
    let before = Record::replay(VariantPosition::start(Variant::Chesscala), &moves[..2]).unwrap();
    let turn = before.position().parse_move(&moves[2]).unwrap();
    assert_eq!(before.position().move_text(&turn), "Pd4xc5=p e2>PP");
}

/// A player may copy a move from a game's record, marks and all: every move a record writes
/// (with `+` or `#` where it checks or mates) reads back as the move played, in every game.
#[test]
fn every_record_move_reads_back_with_its_marks() {
    for variant in Variant::ALL {
        let mut marked = 0;
        for seed in 0..40_u64 {
            // A seeded random game: the same games every run.
            let mut rng = fastrand::Rng::with_seed(seed);
            let mut record = Record::new(VariantPosition::start(variant));
            for _ in 0..120 {
                let moves = record.position().legal_moves();
                if moves.is_empty() || record.outcome().is_some() {
                    break;
                }
                let mv = &moves[rng.usize(..moves.len())];
                let text = record.position().move_text(mv);
                record.play(&text).expect("a legal move plays");
            }
            let mut position = record.start().clone();
            for (written, played) in record.record_moves().iter().zip(record.moves()) {
                marked += usize::from(written.ends_with(['+', '#']));
                let read = position
                    .parse_move(written)
                    .unwrap_or_else(|e| panic!("{variant} seed {seed}: {written}: {e}"));
                assert_eq!(read, played.mv, "{variant} seed {seed}: {written}");
                position = position.play(&played.mv);
            }
        }
        // Chak's records follow Fairy-Stockfish's SAN, which marks nothing.
        assert!(
            variant == Variant::Chak || marked > 0,
            "{variant}: no marked move met"
        );
    }
}

#[test]
fn the_last_replay_frame_states_the_result() {
    let (_, record) = last_display(Variant::Chak, "k8/4o4/4D4/9/9/9/9/9/9 w - - 0 1", &["e7e8"]);
    let frames = render::game_frames(
        &record,
        "Ixchel",
        "Kukulkan",
        pigeon::rules::Color::White,
        None,
    );
    let caption = frames.last().unwrap().options.caption.clone().unwrap();
    assert_eq!(caption.to_move, None);
    assert_eq!(caption.status.as_deref(), Some("White wins by altar mate"));
    let frames = render::game_frames(
        &record,
        "Ixchel",
        "Kukulkan",
        pigeon::rules::Color::White,
        Some("Green (Kukulkan) wins by resignation".into()),
    );
    let caption = frames.last().unwrap().options.caption.clone().unwrap();
    assert_eq!(
        caption.status.as_deref(),
        Some("Green (Kukulkan) wins by resignation")
    );
}

#[test]
fn the_chesscala_start_says_its_setup_is_reconstructed() {
    let start = VariantPosition::start(Variant::Chesscala);
    assert_eq!(
        render::position_status(&start).as_deref(),
        Some("Reconstructed setup")
    );
    assert_eq!(
        render::position_status(&VariantPosition::start(Variant::Chak)),
        None
    );
}

#[test]
fn annotations_mark_moves_and_comment_them_and_leave_the_plain_record_alone() {
    use pigeon::rules::Annotation;
    let start = VariantPosition::start(Variant::Chad);
    let moves = ["Rc5-c9", "Rj8-j6", "Rc9-f9", "Rj6-f6"];
    let record = Record::replay(start, &moves).expect("replays");
    let tags = [("Event", String::from("Test"))];
    let plain = record.export(&tags, Some("A test"), "*");
    assert_eq!(
        record.export_annotated(&tags, Some("A test"), "*", &[]),
        plain,
        "no annotations: the plain record"
    );
    assert!(
        plain.ends_with("1. Rc5-c9 Rj8-j6 2. Rc9-f9 Rj6-f6 {A test.} *"),
        "{plain}"
    );
    let annotations = [
        Annotation::default(),
        Annotation {
            suffix: String::from("?!"),
            comment: Some(String::from("[%eval 0.40] Inaccuracy.")),
        },
        Annotation {
            suffix: String::new(),
            comment: Some(String::from("[%eval 0.35]")),
        },
    ];
    let annotated = record.export_annotated(&tags, None, "*", &annotations);
    assert!(
        annotated.ends_with(
            "1. Rc5-c9 Rj8-j6?! {[%eval 0.40] Inaccuracy.} 2. Rc9-f9 {[%eval 0.35]}\n2... Rj6-f6 *"
        ),
        "{annotated}"
    );
}
