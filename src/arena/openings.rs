//! The balanced openings matches start from: a few plies each, stored per game in
//! `assets/openings/<game>.txt` and compiled in, so `pigeon match` needs no files beside it.
//!
//! One opening a line, its moves in the interchange notation written as UCI words
//! ([`crate::uci::wire`]); `#` starts a comment. Every opening is checked legal when read.

use crate::rules::{Record, RecordError, Variant, VariantPosition};
use crate::uci::unwire;

/// The opening file of each game.
fn text(variant: Variant) -> &'static str {
    match variant {
        Variant::Chak => include_str!("../../assets/openings/chak.txt"),
        Variant::Shakti => include_str!("../../assets/openings/shakti.txt"),
        Variant::Chad => include_str!("../../assets/openings/chad.txt"),
        Variant::Chesscala => include_str!("../../assets/openings/chesscala.txt"),
    }
}

/// The openings of `variant`, each as its moves in the interchange notation.
///
/// # Errors
/// [`RecordError`] for the first opening that does not replay from the start position, with
/// its line number as its ply.
pub fn openings(variant: Variant) -> Result<Vec<Vec<String>>, (usize, RecordError)> {
    let mut list = Vec::new();
    for (index, line) in text(variant).lines().enumerate() {
        let line = line.split('#').next().unwrap_or_default().trim();
        if line.is_empty() {
            continue;
        }
        let moves: Vec<String> = line.split_whitespace().map(unwire).collect();
        Record::replay(VariantPosition::start(variant), &moves)
            .map_err(|error| (index + 1, error))?;
        list.push(moves);
    }
    Ok(list)
}
