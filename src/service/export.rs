//! A game's record as text: what `export` replies and the game page offers to download.

use super::{GameState, clock, result_words};

/// The game record, PGN-like: the seven standard tags, the game's `Variant`, its start position
/// as `FEN`, the time per move and how it ended; then the moves with move numbers (see
/// [`crate::rules::Record::export`]), a comment with the result in words, and the result.
/// The site is the game's page when the pages are served. A Chak record reads in
/// pychess.org's import as it is.
#[must_use]
pub fn export(state: &GameState) -> String {
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
    state
        .record
        .export(&tags, result_words(state).as_deref(), result)
}
