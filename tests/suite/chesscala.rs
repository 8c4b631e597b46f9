//! Chesscala: the reference vectors, perft, the worked examples of §3.7 and properties.
//!
//! The start-position tests depend on the reconstructed setup of §3.2 and are kept in their
//! own module, apart from the movement-rule tests.

use std::collections::BTreeSet;

use pigeon::rules::chesscala::Chesscala;
use pigeon::rules::{Color, Position};
use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::common::read_data;

#[derive(Debug, Deserialize)]
struct Status {
    to_move: String,
    result: String,
    first_turn: bool,
    checks_w: u32,
    checks_b: u32,
    in_check: bool,
    multiple_check: bool,
    pending: String,
    losses: [u8; 2],
}

#[derive(Debug, Deserialize)]
struct Vector {
    id: String,
    source: String,
    position: String,
    status: Status,
    n_turns: usize,
    turns: Vec<String>,
    n_results: usize,
    results_sha256: String,
    results: Option<Vec<String>>,
    played: Option<String>,
    after: Option<String>,
}

fn vectors() -> Vec<Vector> {
    read_data("chesscala-vectors.jsonl")
        .lines()
        .map(|line| serde_json::from_str(line).expect("a vector line"))
        .collect()
}

fn pos(text: &str) -> Chesscala {
    Chesscala::from_text(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// The sorted turn texts of a position.
fn turn_texts(p: &Chesscala) -> Vec<String> {
    let mut texts: Vec<String> = p.legal_moves().iter().map(|t| p.move_text(t)).collect();
    texts.sort();
    texts
}

/// The sorted distinct positions the legal turns reach.
fn result_texts(p: &Chesscala) -> Vec<String> {
    let set: BTreeSet<String> = p
        .legal_moves()
        .iter()
        .map(|t| p.play(t).to_text())
        .collect();
    set.into_iter().collect()
}

fn play_text(p: &Chesscala, text: &str) -> Chesscala {
    let turn = p
        .legal_moves()
        .into_iter()
        .find(|t| p.move_text(t) == text)
        .unwrap_or_else(|| panic!("{text} is not legal in {}", p.to_text()));
    p.play(&turn)
}

fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn every_vector_lists_the_reference_turns_and_results() {
    let mut failures = Vec::new();
    for v in vectors() {
        let p = pos(&v.position);
        let mut errors = Vec::new();
        if p.to_text() != v.position {
            errors.push(format!("text {}", p.to_text()));
        }
        let texts = turn_texts(&p);
        if texts != v.turns || texts.len() != v.n_turns {
            let mine: BTreeSet<_> = texts.iter().collect();
            let theirs: BTreeSet<_> = v.turns.iter().collect();
            let extra: Vec<_> = mine.difference(&theirs).take(5).collect();
            let missing: Vec<_> = theirs.difference(&mine).take(5).collect();
            errors.push(format!(
                "turns {} vs {}: extra {extra:?} missing {missing:?}",
                texts.len(),
                v.n_turns
            ));
        }
        if p.count_turns() != texts.len() as u64 {
            errors.push(format!(
                "count {} vs listed {}",
                p.count_turns(),
                texts.len()
            ));
        }
        let results = result_texts(&p);
        if results.len() != v.n_results || sha256_hex(&results.join("\n")) != v.results_sha256 {
            errors.push(format!("results {} vs {}", results.len(), v.n_results));
            if let Some(expected) = &v.results {
                let mine: BTreeSet<_> = results.iter().collect();
                let theirs: BTreeSet<_> = expected.iter().collect();
                errors.push(format!(
                    "extra {:?} missing {:?}",
                    mine.difference(&theirs).take(2).collect::<Vec<_>>(),
                    theirs.difference(&mine).take(2).collect::<Vec<_>>()
                ));
            }
        }
        let s = &v.status;
        let side = p.turn();
        let status_ok = s.to_move == side.letter().to_string()
            && p.checks(Color::White) == s.checks_w
            && p.checks(Color::Black) == s.checks_b
            && p.in_check() == s.in_check
            && (p.checks(side) >= 2) == s.multiple_check
            && [p.losses(Color::White), p.losses(Color::Black)] == s.losses
            && v.position.split(' ').nth(2) == Some(if s.first_turn { "F" } else { "-" })
            && v.position.split(' ').nth(5) == Some(s.pending.as_str())
            && v.position.split(' ').nth(6) == Some(s.result.as_str())
            && (p.outcome().is_some() == (s.result != "*"));
        if !status_ok {
            errors.push(format!(
                "status: checks {} {} vs {:?}",
                p.checks(Color::White),
                p.checks(Color::Black),
                s
            ));
        }
        if let (Some(played), Some(after)) = (&v.played, &v.after) {
            let next = play_text(&p, played);
            if &next.to_text() != after {
                errors.push(format!("played {played}: {} vs {after}", next.to_text()));
            }
        }
        if !errors.is_empty() {
            failures.push(format!(
                "{} ({}) {}\n  {}",
                v.id,
                v.source,
                v.position,
                errors.join("\n  ")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failing vectors:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
