//! A game's record as text: what `export` replies and the game page offers to download.

use super::{GameState, clock, result_words};
use crate::engine::analysis::{Judgement, Report};
use crate::rules::{Annotation, Record};

/// The game record, PGN-like: the seven standard tags, the game's `Variant`, its start position
/// as `FEN`, the time per move and how it ended; then the moves with move numbers (see
/// [`crate::rules::Record::export`]), a comment with the result in words, and the result.
/// The site is the game's page when the pages are served. A Chak record reads in
/// pychess.org's import as it is.
#[must_use]
pub fn export(state: &GameState) -> String {
    let result = state.row.result.as_deref().unwrap_or("*");
    state
        .record
        .export(&tags(state), result_words(state).as_deref(), result)
}

/// The game record of an analysed game: [`export`]'s, with an `Annotator` tag naming the
/// engine's budget, each judged move marked (`??`, `?`, `?!`) and every move followed by a
/// comment with the evaluation after it and, for a judged move, the better move (see
/// [`annotations`]).
#[must_use]
pub fn export_annotated(state: &GameState, report: &Report) -> String {
    let result = state.row.result.as_deref().unwrap_or("*");
    let mut tags = tags(state);
    tags.push((
        "Annotator",
        format!("Pigeon, {} nodes per position", report.nodes),
    ));
    state.record.export_annotated(
        &tags,
        result_words(state).as_deref(),
        result,
        &annotations(&state.record, report),
    )
}

/// What an analysis adds to each move of the record: the judgement's mark, and a comment
/// with the evaluation after the move (`[%eval 0.35]`, left out after the game ended on the
/// board) and, for a judged move, what it was and the better move.
#[must_use]
pub fn annotations(record: &Record, report: &Report) -> Vec<Annotation> {
    let plies = report.moves.len();
    report
        .moves
        .iter()
        .map(|m| {
            let mut words = Vec::new();
            if !(m.ply == plies && record.outcome().is_some()) {
                words.push(format!("[%eval {}]", m.after.pgn()));
            }
            if let Some(judgement) = m.judgement {
                words.push(format!("{}.", judgement.name()));
                if let Some(better) = &m.better {
                    words.push(format!("{better} was best."));
                }
            }
            Annotation {
                suffix: m.judgement.map_or("", Judgement::symbol).to_owned(),
                comment: (!words.is_empty()).then(|| words.join(" ")),
            }
        })
        .collect()
}

/// The tags of a game's record.
fn tags(state: &GameState) -> Vec<(&'static str, String)> {
    let row = &state.row;
    let result = row.result.as_deref().unwrap_or("*");
    let kind = if row.bot_level.is_some() || !row.rated {
        "Casual"
    } else {
        "Rated"
    };
    let mut tags = vec![
        ("Event", format!("{kind} {} game", state.variant.name())),
        (
            "Site",
            state
                .page
                .clone()
                .unwrap_or_else(|| format!("Pigeon on {}", row.platform)),
        ),
        (
            "Date",
            clock::format_utc(row.created_at)[..10].replace('-', "."),
        ),
        ("Round", String::from("-")),
        ("White", state.white.display_name.clone()),
        ("Black", state.black.display_name.clone()),
        ("Result", result.to_owned()),
        ("GameId", row.id.to_string()),
    ];
    tags.extend(state.record.setup_tags());
    // One move per so many seconds: the way PGN writes a time per move.
    tags.push((
        "TimeControl",
        format!("1/{}", row.days_per_move * clock::DAY),
    ));
    if let Some(reason) = row.end_reason.as_deref() {
        let termination = match reason {
            "timeout" => "time forfeit",
            "aborted" => "abandoned",
            _ => "normal",
        };
        tags.push(("Termination", termination.to_owned()));
    }
    tags
}
