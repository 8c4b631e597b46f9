//! Chak against Fairy-Stockfish: the oracle's vectors and perft counts, the spec's worked
//! positions, and properties of the move generator and notations.

use proptest::prelude::*;
use serde::Deserialize;

use pigeon::rules::chak::Chak;
use pigeon::rules::{
    Color, EndReason, MoveError, Outcome, Position, Record, Variant, VariantPosition,
};

use crate::common::read_data;

#[derive(Debug, Deserialize)]
struct Vector {
    fen: String,
    moves: Vec<String>,
    perft2: u64,
    in_check: bool,
    result: Option<VectorResult>,
    history: Option<History>,
}

#[derive(Debug, Deserialize)]
struct VectorResult {
    winner: Option<String>,
    reason: String,
}

#[derive(Debug, Deserialize)]
struct History {
    fen: String,
    moves: Vec<String>,
}

fn chak(fen: &str) -> VariantPosition {
    VariantPosition::from_text(Variant::Chak, fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn color(name: &str) -> Color {
    match name {
        "white" => Color::White,
        "black" => Color::Black,
        other => panic!("unknown colour {other}"),
    }
}

/// The oracle writes promoted pieces as `+P`/`+K` after a promotion but echoes `W`/`D` from
/// set-ups; the product always writes `+P`/`+K`.
fn normalise_fen(fen: &str) -> String {
    let (board, rest) = fen.split_once(' ').expect("a FEN has fields");
    let board = board
        .replace('W', "+P")
        .replace('w', "+p")
        .replace('D', "+K")
        .replace('d', "+k");
    format!("{board} {rest}")
}

fn check_result(vector: &Vector, position: &VariantPosition) -> Result<(), String> {
    let fifty = position.draw_claim() == Some(EndReason::FiftyMoves);
    let repeated = match &vector.history {
        Some(history) => {
            let record = Record::replay(chak(&history.fen), &history.moves)
                .map_err(|e| format!("history does not replay: {e}"))?;
            if record.position() != position {
                return Err(String::from("history does not lead to the position"));
            }
            record.outcome() == Some(Outcome::draw(EndReason::Repetition))
        }
        None => false,
    };
    let Some(expected) = &vector.result else {
        return match (position.outcome(), fifty, repeated) {
            (None, false, false) => Ok(()),
            other => Err(format!("expected no result, got {other:?}")),
        };
    };
    match expected.reason.as_str() {
        "altar" | "checkmate" | "stalemate" => {
            let reason = match expected.reason.as_str() {
                "altar" => EndReason::Altar,
                "checkmate" => EndReason::Checkmate,
                _ => EndReason::Stalemate,
            };
            let winner = color(expected.winner.as_deref().ok_or("a loss needs a winner")?);
            let want = Some(Outcome::win(winner, reason));
            (position.outcome() == want)
                .then_some(())
                .ok_or_else(|| format!("expected {want:?}, got {:?}", position.outcome()))
        }
        reasons => {
            let want_rep = reasons.split('+').any(|r| r == "repetition");
            let want_fifty = reasons.split('+').any(|r| r == "fifty_moves");
            if position.outcome().is_some() || want_rep != repeated || want_fifty != fifty {
                Err(format!(
                    "expected {reasons}, got repetition {repeated}, fifty {fifty}"
                ))
            } else {
                Ok(())
            }
        }
    }
}

#[test]
fn every_oracle_vector_matches() {
    let mut failures = Vec::new();
    let data = read_data("chak-vectors.jsonl");
    let mut count = 0;
    for (line, text) in data.lines().enumerate() {
        let vector: Vector = serde_json::from_str(text).expect("a vector line is JSON");
        count += 1;
        let position = chak(&vector.fen);
        let mut problems = Vec::new();
        if position.legal_move_texts() != vector.moves {
            problems.push(format!(
                "moves: ours {:?}, oracle {:?}",
                position.legal_move_texts(),
                vector.moves
            ));
        }
        if position.perft(2) != vector.perft2 {
            problems.push(format!(
                "perft2: ours {}, oracle {}",
                position.perft(2),
                vector.perft2
            ));
        }
        if position.in_check() != vector.in_check {
            problems.push(format!("in check: ours {}", position.in_check()));
        }
        if position.to_text() != normalise_fen(&vector.fen) {
            problems.push(format!("FEN written as {}", position.to_text()));
        }
        if let Err(problem) = check_result(&vector, &position) {
            problems.push(problem);
        }
        if !problems.is_empty() {
            failures.push(format!(
                "line {}: {}: {}",
                line + 1,
                vector.fen,
                problems.join("; ")
            ));
        }
    }
    assert_eq!(count, 2000);
    assert!(
        failures.is_empty(),
        "{} of {count} vectors differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[derive(Debug, Deserialize)]
struct PerftFile {
    positions: Vec<PerftPosition>,
}

#[derive(Debug, Deserialize)]
struct PerftPosition {
    name: String,
    fen: String,
    perft: Vec<u64>,
    moves: Vec<String>,
    divide: std::collections::BTreeMap<String, u64>,
    in_check: bool,
    game_over_now: bool,
    draw_claimable: bool,
    history: Option<History>,
}

#[test]
fn every_perft_position_matches_to_depth_three() {
    let file: PerftFile =
        serde_json::from_str(&read_data("chak-perft.json")).expect("the perft file is JSON");
    assert_eq!(file.positions.len(), 17);
    for case in &file.positions {
        let position = chak(&case.fen);
        let name = &case.name;
        for (depth, &expected) in case.perft.iter().enumerate().take(3) {
            assert_eq!(
                position.perft(depth as u32 + 1),
                expected,
                "{name} perft({})",
                depth + 1
            );
        }
        assert_eq!(position.legal_move_texts(), case.moves, "{name} moves");
        for mv in position.legal_moves() {
            let text = position.move_text(&mv);
            assert_eq!(
                Some(&position.play(&mv).perft(1)),
                case.divide.get(&text),
                "{name} divide {text}"
            );
        }
        assert_eq!(position.in_check(), case.in_check, "{name} in check");
        let record = match &case.history {
            Some(history) => Record::replay(chak(&history.fen), &history.moves).expect("replays"),
            None => Record::new(position.clone()),
        };
        assert_eq!(record.position(), &position, "{name} history");
        let over = record
            .outcome()
            .is_some_and(|o| o.reason != EndReason::Repetition);
        assert_eq!(over, case.game_over_now, "{name} game over");
        let claimable = record.draw_claim().is_some()
            || record.outcome() == Some(Outcome::draw(EndReason::Repetition));
        assert_eq!(claimable, case.draw_claimable, "{name} draw claimable");
    }
}

#[test]
fn start_perft_to_depth_four() {
    let start = Chak::start();
    let counts: Vec<u64> = (1..=4).map(|depth| start.perft(depth)).collect();
    assert_eq!(counts, [33, 1092, 37526, 1_294_328]);
}

#[test]
#[ignore = "46 million nodes: run in release with --ignored"]
fn start_perft_five() {
    assert_eq!(Chak::start().perft(5), 46_112_201);
}

#[test]
fn king_versus_king_endgame_from_the_rules_text() {
    // Green K e9, O e8, White D e7, Green to move: both king moves allow a stalemating reply.
    let position = chak("4k4/4o4/4D4/9/9/9/9/9/9 b - - 0 1");
    let replies = position.legal_move_texts();
    assert_eq!(replies, ["e9d9", "e9f9"]);
    for first in position.legal_moves() {
        let after = position.play(&first);
        let wins = after.legal_moves().into_iter().any(|reply| {
            after.play(&reply).outcome() == Some(Outcome::win(Color::White, EndReason::Stalemate))
        });
        assert!(
            wins,
            "{} has no stalemating reply",
            position.move_text(&first)
        );
    }
}

#[test]
fn the_river_limits_divine_kings_one_way() {
    // K2 as settled: a Green D on e4 checks a White D on e5, but not the reverse.
    let position = chak("9/4o4/9/9/4D4/4d4/9/4O4/9 w - - 0 1");
    assert!(position.in_check());
    assert!(!position.legal_move_texts().contains(&String::from("e5e4")));
    // With Green to move, White's divine king would be the one left in check: impossible.
    assert!(
        VariantPosition::from_text(Variant::Chak, "9/4o4/9/9/4D4/4d4/9/4O4/9 b - - 0 1").is_err()
    );
}

#[test]
fn threefold_repetition_ends_the_game_and_fifty_moves_is_a_claim() {
    let mut record = Record::new(VariantPosition::start(Variant::Chak));
    for text in [
        "b1d2", "b9d8", "d2b1", "d8b9", "b1d2", "b9d8", "d2b1", "d8b9",
    ] {
        assert!(record.outcome().is_none());
        record.play(text).expect("legal");
    }
    assert_eq!(record.outcome(), Some(Outcome::draw(EndReason::Repetition)));
    assert_eq!(record.play("e3e4"), Err(MoveError::GameOver));

    let fifty = Record::new(chak("4k4/4o4/9/3S5/4D4/9/9/9/9 w - - 99 80"));
    assert_eq!(fifty.draw_claim(), None);
    let mut fifty = fifty;
    fifty.play("Sd7").expect("legal");
    assert_eq!(fifty.draw_claim(), Some(EndReason::FiftyMoves));
    assert_eq!(fifty.outcome(), None);
}

#[test]
fn a_divine_king_stepping_onto_the_altar_is_a_noisy_move_that_wins() {
    let chak = Chak::from_text("k8/9/9/4D4/9/9/9/9/9 w - - 0 1").expect("a legal position");
    let moves = chak.legal_moves();
    let step = moves
        .iter()
        .copied()
        .find(|&mv| chak.reaches_altar(mv))
        .expect("the divine king reaches e8");
    assert_eq!(chak.move_text(&step), "e6e8");
    assert_eq!(
        moves.iter().filter(|&&mv| chak.reaches_altar(mv)).count(),
        1,
        "only the step onto e8 reaches the altar"
    );
    assert_eq!(
        chak.noisy_moves(),
        vec![step],
        "no capture or promotion here"
    );
    let after = chak.play(&step);
    assert_eq!(
        after.altar_outcome(),
        Some(Outcome::win(Color::White, EndReason::Altar))
    );
    assert_eq!(after.outcome(), after.altar_outcome());
    assert_eq!(chak.altar_outcome(), None);
}

/// Plays a random game from the start position, choosing moves by `choices`.
fn random_walk(choices: &[usize]) -> Vec<VariantPosition> {
    let mut positions = vec![VariantPosition::start(Variant::Chak)];
    for &choice in choices {
        let current = positions.last().expect("never empty");
        let moves = current.legal_moves();
        if moves.is_empty() {
            break;
        }
        positions.push(current.play(&moves[choice % moves.len()]));
    }
    positions
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn legal_moves_are_legal_and_round_trip(choices in prop::collection::vec(any::<usize>(), 0..80)) {
        for position in random_walk(&choices) {
            let text = position.to_text();
            prop_assert_eq!(&chak(&text), &position, "FEN round trip");
            for mv in position.legal_moves() {
                let after = position.play(&mv);
                // Reading a position refuses one where the side that just moved is in check.
                prop_assert!(
                    VariantPosition::from_text(Variant::Chak, &after.to_text()).is_ok(),
                    "{} leaves the mover in check in {}", position.move_text(&mv), text
                );
                let interchange = position.move_text(&mv);
                let display = position.display_move(&mv);
                let dashed = format!("{}-{}", &interchange[..2], &interchange[2..]);
                for written in [&interchange, &display, &dashed, &display.to_lowercase()] {
                    if written == &display.to_lowercase() && display.starts_with('D') {
                        continue; // lower-case d is the d-file; covered by the ambiguity rules
                    }
                    let parsed = position.parse_move(written);
                    prop_assert_eq!(parsed, Ok(mv.clone()), "{} in {}", written, text);
                }
            }
        }
    }

    #[test]
    fn noisy_moves_are_the_captures_promotions_and_altar_steps(
        choices in prop::collection::vec(any::<usize>(), 0..120),
    ) {
        for position in random_walk(&choices) {
            let text = position.to_text();
            let chak = Chak::from_text(&text).expect("a position read back");
            let expected: Vec<_> = chak
                .legal_moves()
                .into_iter()
                .filter(|&mv| {
                    chak.captured(mv).is_some() || mv.promotes() || chak.reaches_altar(mv)
                })
                .collect();
            prop_assert_eq!(chak.noisy_moves(), expected, "in {}", text);
            // The hash kept up to date by the moves is the one of the board read afresh.
            if let VariantPosition::Chak(played) = &position {
                prop_assert_eq!(played.repetition_hash(), chak.repetition_hash(), "in {}", text);
            }
        }
    }

    #[test]
    fn arbitrary_move_text_never_panics(text in "\\PC{0,30}") {
        let position = VariantPosition::start(Variant::Chak);
        let _ = position.parse_move(&text);
    }

    #[test]
    fn arbitrary_fen_never_panics(
        text in "[1-9kdjqsvrpwoKDJQSVRPWO+/]{0,90} [wbx]( [-a-z]{1,2} [-a-z]{1,2} [0-9]{1,4} [0-9]{1,4})?",
        junk in "\\PC{0,100}",
    ) {
        for candidate in [&text, &junk] {
            if let Ok(position) = VariantPosition::from_text(Variant::Chak, candidate) {
                let _ = position.legal_moves();
                let _ = position.outcome();
            }
        }
    }
}
