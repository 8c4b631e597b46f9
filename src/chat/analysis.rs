//! The replies about post-game analysis: a game's analysis (each player's inaccuracies,
//! mistakes, blunders and accuracy, the judged moves with the better move, and the evaluation
//! graph), and where an analysis asked for stands.

use super::{Picture, Reply};
use crate::engine::analysis::{Report, SideReport};
use crate::rules::Color;
use crate::service::{Analysed, AnalysisStatus, GameState, Service};

/// The most judged moves listed in a message; the rest are in the record (`export`).
pub const MOST_LISTED: usize = 12;

/// The answer to `analyse`: queued, under way, or the analysis itself again.
pub(super) async fn status_reply(service: &Service, status: &AnalysisStatus) -> Reply {
    match status {
        AnalysisStatus::Queued(id) => Reply::text(format!(
            "Analysis of game #{id} is queued: I'll post it here when it's done."
        )),
        AnalysisStatus::Running(id) => Reply::text(format!(
            "Game #{id} is being analysed right now: the analysis comes here shortly."
        )),
        AnalysisStatus::Done(analysed) => analysed_reply(service, analysed).await,
    }
}

/// A game's analysis, with its graph (left out if it cannot be drawn: the text still goes).
pub(super) async fn analysed_reply(service: &Service, analysed: &Analysed) -> Reply {
    let picture = match service.analysis_image(analysed).await {
        Ok(image) => Some(Picture {
            name: format!("game-{}-analysis.png", analysed.state.row.id),
            data: image.data,
            mime: image.mime,
            size: image.size,
        }),
        Err(_) => None,
    };
    Reply::text(analysis_text(&analysed.state, &analysed.report)).with_picture(picture)
}

/// The text of an analysis: a line per player, then the judged moves with the better move.
#[must_use]
pub fn analysis_text(state: &GameState, report: &Report) -> String {
    let id = state.row.id;
    let mut text = format!(
        "Analysis of game #{id} ({}, {} nodes per position):",
        state.variant,
        thousands(report.nodes)
    );
    for color in Color::ALL {
        text.push_str(&format!(
            "\n{} ({}): {}",
            state.player(color).display_name,
            state.variant.side_name(color),
            figures(report.side(color))
        ));
    }
    let judged: Vec<String> = report
        .judged()
        .map(|m| match &m.better {
            Some(better) => format!("{} (better: {better})", report.annotated(m)),
            None => report.annotated(m),
        })
        .collect();
    if judged.is_empty() {
        text.push_str("\nNo inaccuracies, mistakes or blunders.");
    } else {
        for line in judged.iter().take(MOST_LISTED) {
            text.push('\n');
            text.push_str(line);
        }
        if judged.len() > MOST_LISTED {
            text.push_str(&format!(
                "\n… and {} more in the record.",
                judged.len() - MOST_LISTED
            ));
        }
    }
    text.push_str(&format!(
        "\n`export #{id}` gives the record with the marks and evaluations."
    ));
    text
}

/// `1 blunder, 2 mistakes, 0 inaccuracies, accuracy 87%`.
fn figures(side: &SideReport) -> String {
    let count =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let accuracy = side.accuracy.map_or_else(
        || String::from("no move to judge"),
        |a| format!("accuracy {a:.0}%"),
    );
    format!(
        "{}, {}, {}, {accuracy}",
        count(side.blunders, "blunder", "blunders"),
        count(side.mistakes, "mistake", "mistakes"),
        count(side.inaccuracies, "inaccuracy", "inaccuracies"),
    )
}

/// `30,000`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_read_as_counts_and_a_percentage() {
        let side = SideReport {
            inaccuracies: 0,
            mistakes: 2,
            blunders: 1,
            accuracy: Some(86.6),
        };
        assert_eq!(
            figures(&side),
            "1 blunder, 2 mistakes, 0 inaccuracies, accuracy 87%"
        );
        assert_eq!(
            figures(&SideReport::default()),
            "0 blunders, 0 mistakes, 0 inaccuracies, no move to judge"
        );
        assert_eq!(thousands(30_000), "30,000");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
