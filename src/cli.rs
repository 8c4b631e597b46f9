//! The command-line tools over the rules core and the pairing core: list legal moves, count
//! the move tree, play moves, draw a board or a replay, pair a Swiss round. Their output formats are stable; scripts and acceptance checks read them.

use std::io::{self, BufRead, Write};
use std::path::Path;

use crate::pairing::{self, PairingError, TrfError};
use crate::render::{self, Caption, RenderError, RenderOptions, Theme};
use crate::rules::{Color, GameRules, PositionError, Record, Variant, VariantPosition};

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
    /// A picture could not be drawn.
    #[error("{0}")]
    Render(#[from] RenderError),
    /// A tournament file could not be read.
    #[error("{path}: {source}")]
    Tournament {
        /// The file as given.
        path: String,
        /// What is wrong with it.
        source: TrfError,
    },
    /// A tournament file could not be opened.
    #[error("{path}: {source}")]
    File {
        /// The file as given.
        path: String,
        /// Why it could not be read.
        source: io::Error,
    },
    /// The next round cannot be paired.
    #[error("cannot pair the next round: {0}")]
    Pairing(#[from] PairingError),
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
    game: GameRules,
    position: Option<&str>,
    input: impl BufRead,
    mut out: impl Write,
) -> Result<(), CliError> {
    if let Some(text) = position {
        writeln!(out, "{}", moves_line(&game.position(text)?))?;
        return Ok(());
    }
    // One output line per input line, always: an unreadable position gives an empty line here
    // and its error on stderr, and the command fails at the end.
    let mut first_error = None;
    for (index, line) in input.lines().enumerate() {
        let line = line?;
        match game.position(&line) {
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
    game: GameRules,
    depth: u32,
    position: &str,
    divide: bool,
    mut out: impl Write,
) -> Result<(), CliError> {
    let position = game.position(position)?;
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

/// `pigeon pair dutch`: the next round of the tournament in the TRF file at `path`, paired by
/// the FIDE Dutch system, in bbpPairings' output format (see [`pairing::format_pairs`]).
///
/// # Errors
/// [`CliError`] when the file does not read, is not a tournament that can be paired, or the
/// output cannot be written.
pub fn pair_dutch(path: &Path, mut out: impl Write) -> Result<(), CliError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| CliError::File {
        path: shown.clone(),
        source,
    })?;
    let tournament = pairing::trf::read(&text).map_err(|source| CliError::Tournament {
        path: shown,
        source,
    })?;
    let pairs = pairing::pair_dutch(&tournament)?;
    out.write_all(pairing::format_pairs(&pairs).as_bytes())?;
    Ok(())
}

/// `pigeon play`: applies `moves` (any notation the game accepts) to `position` and returns
/// the resulting position text.
///
/// # Errors
/// [`CliError`] when the position does not read or a move does not play; the message is the
/// one a chat would show.
pub fn play(game: GameRules, position: &str, moves: &[String]) -> Result<String, CliError> {
    let start = game.position(position)?;
    Ok(played(start, moves)?.position().to_text())
}

/// A game record of `moves` (any notation) played from `start`.
fn played(start: VariantPosition, moves: &[String]) -> Result<Record, CliError> {
    let mut record = Record::new(start);
    for (index, text) in moves.iter().enumerate() {
        record.play(text).map_err(|error| CliError::Move {
            ply: index + 1,
            text: text.clone(),
            message: error.to_string(),
        })?;
    }
    Ok(record)
}

/// What `pigeon render` draws besides the position.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct RenderRequest {
    /// A move to highlight: played first if it is legal in the position, else read as the move
    /// that led to the position.
    pub last: Option<String>,
    /// The side the board is seen from (default: the side to move).
    pub side: Option<Color>,
    /// The player of White, for the caption.
    pub white: Option<String>,
    /// The player of Black (Green), for the caption.
    pub black: Option<String>,
    /// The deadline, for the caption.
    pub deadline: Option<String>,
}

/// `pigeon render`: the PNG picture of a position. With `last`, a legal move is played and
/// highlighted; any other text is taken as the move that led to the position, and the
/// squares it names are highlighted. Naming a player or a deadline adds a caption.
///
/// # Errors
/// [`CliError`] when the position does not read or the picture cannot be drawn.
pub fn render(
    variant: Variant,
    position: &str,
    request: &RenderRequest,
) -> Result<Vec<u8>, CliError> {
    let mut position = VariantPosition::from_text(variant, position)?;
    let mut options = RenderOptions {
        side: request.side,
        ..RenderOptions::default()
    };
    if let Some(text) = &request.last {
        options.last = Some(match position.parse_move(text) {
            Ok(mv) => {
                let marks = position.move_marks(&mv);
                position = position.play(&mv);
                marks
            }
            Err(_) => {
                let view = position.board_view();
                render::marks_from_text(text, view.files, view.ranks)
            }
        });
    }
    if request.white.is_some() || request.black.is_some() || request.deadline.is_some() {
        let name = |given: &Option<String>, color| {
            given
                .clone()
                .unwrap_or_else(|| variant.side_name(color).to_owned())
        };
        options.caption = Some(Caption {
            white: name(&request.white, Color::White),
            black: name(&request.black, Color::Black),
            move_number: move_number(&position),
            to_move: position.outcome().is_none().then(|| position.turn()),
            deadline: request.deadline.clone(),
            status: render::position_status(&position),
        });
    }
    Ok(render::render_position(&position, &options)?)
}

/// `pigeon gif`: an animated replay of `moves` played from the start position, seen from
/// White, each frame with the move that led to it highlighted.
///
/// # Errors
/// [`CliError`] when a move does not play or the replay cannot be drawn.
pub fn gif(variant: Variant, moves: &[String]) -> Result<Vec<u8>, CliError> {
    let record = played(VariantPosition::start(variant), moves)?;
    let (white, black) = (
        variant.side_name(Color::White),
        variant.side_name(Color::Black),
    );
    let frames = render::game_frames(&record, white, black, Color::White, None);
    Ok(render::replay_gif(Theme::for_variant(variant), &frames)?)
}

/// The move number of a position: the last field of its text when that is a number (the
/// full-move counter of FEN-like texts), else 1.
fn move_number(position: &VariantPosition) -> u32 {
    position
        .to_text()
        .split_whitespace()
        .last()
        .and_then(|field| field.parse().ok())
        .unwrap_or(1)
}
