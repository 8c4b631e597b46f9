//! The Shakti and Chad reference vectors (`tests/data/*-vectors.jsonl`), checked through the
//! public API: sorted legal moves, perft 2, status and check.

use pigeon::rules::{EndReason, Variant, VariantPosition};
use serde::Deserialize;

use crate::common::read_data;

/// One line of a vector file.
#[derive(Debug, Deserialize)]
struct Vector {
    game: String,
    position: String,
    moves: Vec<String>,
    perft2: u64,
    status: String,
    in_check: bool,
}

/// The oracle's status word for a position.
fn status(position: &VariantPosition) -> &'static str {
    match position.outcome().map(|o| o.reason) {
        Some(EndReason::Checkmate) => "checkmate",
        Some(EndReason::Stalemate) => "stalemate",
        Some(EndReason::Blocked) => "blocked",
        Some(other) => panic!("unexpected end {other:?}"),
        None => match position.legal_moves().as_slice() {
            [only] if position.is_pass(only) => "pass",
            _ => "ongoing",
        },
    }
}

/// Checks every vector of `file` and returns how many there were.
pub fn check_all(variant: Variant, file: &str) -> usize {
    let text = read_data(file);
    let mut failures = Vec::new();
    let mut count = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let vector: Vector = serde_json::from_str(line).expect("a vector line is JSON");
        assert_eq!(vector.game, variant.key());
        count += 1;
        let position = VariantPosition::from_text(variant, &vector.position)
            .unwrap_or_else(|e| panic!("{}: {e}", vector.position));
        assert_eq!(position.to_text(), vector.position, "text round trip");
        let got = (
            position.legal_move_texts(),
            position.perft(2),
            status(&position),
            position.in_check(),
        );
        let want = (
            vector.moves.clone(),
            vector.perft2,
            vector.status.as_str(),
            vector.in_check,
        );
        if got != want {
            failures.push(format!(
                "{}\n  got  {got:?}\n  want {want:?}",
                vector.position
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {count} vectors differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    count
}
