//! Reading turns typed in chat.

use super::Chesscala;
use super::movegen::Turn;
use super::text;
use crate::rules::{MoveError, Position};

/// Reads a turn in the interchange notation or a chat form.
pub fn parse_turn(pos: &Chesscala, input: &str) -> Result<Turn, MoveError> {
    if pos.result.is_some() {
        return Err(MoveError::GameOver);
    }
    let turns = pos.legal_moves();
    let wanted = input.trim();
    turns
        .into_iter()
        .find(|t| text::write_turn(pos.side, t) == wanted)
        .ok_or_else(|| MoveError::Illegal {
            input: input.to_owned(),
            hint: String::new(),
        })
}
