//! Chad: the reference vectors, start perft, the spec's worked positions (§2.6), properties and
//! a game record ending in threefold repetition.

use pigeon::rules::{Variant, VariantPosition};

use crate::oracle;

fn position(text: &str) -> VariantPosition {
    VariantPosition::from_text(Variant::Chad, text).expect("a valid Chad position")
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
