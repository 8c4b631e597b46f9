//! The command-line tools over the rules core: list legal moves, count the move tree, play
//! moves. Their output formats are stable; scripts and acceptance checks read them.

use std::io::{self, BufRead, Write};

use crate::rules::{PositionError, Record, Variant, VariantPosition};

/// A failure of a command-line tool, with the message to print.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// A position text could not be read.
    #[error("{0}")]
    Position(#[from] PositionError),
    /// A move could not be played.
    #[error("move {ply} ({text}): {message}")]
    Move {
        /// One-based index of the move among the arguments.
        ply: usize,
        /// The move as given.
        text: String,
        /// The friendly explanation.
        message: String,
    },
    /// Reading input or writing output failed.
    #[error("{0}")]
    Io(#[from] io::Error),
}

/// The legal moves of `position` in interchange notation, sorted byte-wise, joined by `, `.
#[must_use]
pub fn moves_line(position: &VariantPosition) -> String {
    position.legal_move_texts().join(", ")
}

/// `pigeon moves`: the legal moves of one position, or of every position read from `input`
/// (one per line), one line per position.
///
/// # Errors
/// [`CliError`] when a position does not read or the output cannot be written.
pub fn moves(
    variant: Variant,
    position: Option<&str>,
    input: impl BufRead,
    mut out: impl Write,
) -> Result<(), CliError> {
    if let Some(text) = position {
        writeln!(
            out,
            "{}",
            moves_line(&VariantPosition::from_text(variant, text)?)
        )?;
        return Ok(());
    }
    // One output line per input line, always: an unreadable position gives an empty line here
    // and its error on stderr, and the command fails at the end.
    let mut first_error = None;
    for (index, line) in input.lines().enumerate() {
        let line = line?;
        match VariantPosition::from_text(variant, &line) {
            Ok(position) => writeln!(out, "{}", moves_line(&position))?,
            Err(error) => {
                writeln!(out)?;
                eprintln!("line {}: {error}", index + 1);
                first_error.get_or_insert(error);
            }
        }
    }
    first_error.map_or(Ok(()), |error| Err(error.into()))
}

/// `pigeon perft`: the leaf count of the legal move tree, alone on the last line; with
/// `divide`, first one line `<move>: <count>` per legal move, sorted byte-wise by move.
///
/// # Errors
/// [`CliError`] when the position does not read or the output cannot be written.
pub fn perft(
    variant: Variant,
    depth: u32,
    position: &str,
    divide: bool,
    mut out: impl Write,
) -> Result<(), CliError> {
    let position = VariantPosition::from_text(variant, position)?;
    if divide && depth > 0 {
        let mut lines: Vec<(String, u64)> = position
            .legal_moves()
            .iter()
            .map(|mv| (position.move_text(mv), position.play(mv).perft(depth - 1)))
            .collect();
        lines.sort_unstable();
        let mut total = 0;
        for (text, count) in lines {
            writeln!(out, "{text}: {count}")?;
            total += count;
        }
        writeln!(out, "{total}")?;
    } else {
        writeln!(out, "{}", position.perft(depth))?;
    }
    Ok(())
}

/// `pigeon play`: applies `moves` (any notation the game accepts) to `position` and returns
/// the resulting position text.
///
/// # Errors
/// [`CliError`] when the position does not read or a move does not play; the message is the
/// one a chat would show.
pub fn play(variant: Variant, position: &str, moves: &[String]) -> Result<String, CliError> {
    let mut record = Record::new(VariantPosition::from_text(variant, position)?);
    for (index, text) in moves.iter().enumerate() {
        record.play(text).map_err(|error| CliError::Move {
            ply: index + 1,
            text: text.clone(),
            message: error.to_string(),
        })?;
    }
    Ok(record.position().to_text())
}
