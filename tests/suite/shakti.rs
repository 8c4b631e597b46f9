//! Shakti: the reference vectors, start perft, the spec's worked positions (§1.7), properties
//! and a game record with a forced pass.

use pigeon::rules::{Variant, VariantPosition};

use crate::oracle;

fn position(text: &str) -> VariantPosition {
    VariantPosition::from_text(Variant::Shakti, text).expect("a valid Shakti position")
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
