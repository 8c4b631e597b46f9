//! The analysis on a game's page: the evaluation graph with a text alternative, each
//! player's accuracy and counts of judged moves, the judged moves with the better move, and
//! the marks (`?!`, `?`, `??`) beside the moves of the move list.

use std::fmt::Write as _;

use super::html::escape;
use crate::engine::analysis::{Judgement, MoveReport, Report};
use crate::rules::Color;
use crate::service::{PageAnalysis, PageGame};

/// `Blunder (??); better: Qd1`.
fn judgement_words(played: &MoveReport, judgement: Judgement) -> String {
    let better = played
        .better
        .as_deref()
        .map(|better| format!("; better: {better}"))
        .unwrap_or_default();
    format!("{} ({}){better}", judgement.name(), judgement.symbol())
}

/// The mark after move `ply` in the move list, with its words for a pointer and a screen
/// reader; empty for a move not judged (or a game without analysis).
#[must_use]
pub fn mark(game: &PageGame, ply: usize) -> String {
    let PageAnalysis::Done(report) = &game.analysis else {
        return String::new();
    };
    let Some(played) = ply.checked_sub(1).and_then(|i| report.moves.get(i)) else {
        return String::new();
    };
    let Some(judgement) = played.judgement else {
        return String::new();
    };
    let words = escape(&judgement_words(played, judgement));
    format!(
        "<span class=\"mark {}\" title=\"{words}\" aria-label=\"{words}\">{}</span>",
        judgement.name().to_lowercase(),
        judgement.symbol()
    )
}

/// Who the evaluation favours at the end, in words.
fn verdict(game: &PageGame, report: &Report) -> String {
    let Some(last) = report.evals.last() else {
        return String::from("no evaluation");
    };
    let chances = last.winning_chances();
    let variant = game.state.variant;
    let side = if chances >= 0.0 {
        variant.side_name(Color::White)
    } else {
        variant.side_name(Color::Black)
    };
    if chances.abs() < 0.1 {
        format!("about level ({})", last.pgn())
    } else {
        format!("in {side}'s favour ({})", last.pgn())
    }
}

/// The graph's alt text: what it plots, how it ends and where the marked moves are.
fn graph_words(game: &PageGame, report: &Report) -> String {
    let judged: Vec<String> = report.judged().map(|m| report.annotated(m)).collect();
    let marked = if judged.is_empty() {
        String::from("No move is marked as an inaccuracy, mistake or blunder.")
    } else {
        format!("Marked moves: {}.", judged.join(", "))
    };
    format!(
        "Evaluation graph of game #{}: {}'s winning chances after each of its {} plies, \
         ending {}. {marked}",
        game.state.row.id,
        game.state.variant.side_name(Color::White),
        report.moves.len(),
        verdict(game, report)
    )
}

/// `87.4%`, or `–` for a player with no move that had a choice.
fn accuracy_text(accuracy: Option<f64>) -> String {
    accuracy.map_or_else(|| String::from("–"), |a| format!("{a:.1}%"))
}

/// The analysis section of a game's page (`path` is `/g/<id>`); empty when the game has none.
#[must_use]
pub fn section(game: &PageGame, path: &str, link: impl Fn(usize, &str) -> String) -> String {
    let report = match &game.analysis {
        PageAnalysis::None => return String::new(),
        PageAnalysis::Queued => {
            return String::from(
                "<section class=\"analysis\" id=\"analysis\">\n<h2>Analysis</h2>\n<p>The \
                 analysis of this game is queued: it appears here when it is done.</p>\n\
                 </section>\n",
            );
        }
        PageAnalysis::Running => {
            return String::from(
                "<section class=\"analysis\" id=\"analysis\">\n<h2>Analysis</h2>\n<p>This game \
                 is being analysed now: the graph and the marks appear here when it is done.</p>\n\
                 </section>\n",
            );
        }
        PageAnalysis::Done(report) => report,
    };
    let state = &game.state;
    let mut html = String::new();
    let _ = write!(
        html,
        "<section class=\"analysis\" id=\"analysis\">\n<h2>Analysis</h2>\n\
         <img class=\"graph\" src=\"{path}/analysis.png\" alt=\"{}\" width=\"720\" \
         height=\"260\">\n<table class=\"figures\">\n<thead><tr><th scope=\"col\">Player</th>\
         <th scope=\"col\">Accuracy</th><th scope=\"col\" title=\"Inaccuracies\">?!</th>\
         <th scope=\"col\" title=\"Mistakes\">?</th><th scope=\"col\" title=\"Blunders\">??</th>\
         </tr></thead>\n<tbody>\n",
        escape(&graph_words(game, report))
    );
    for (color, player) in [(Color::White, &state.white), (Color::Black, &state.black)] {
        let side = report.side(color);
        let _ = writeln!(
            html,
            "<tr><th scope=\"row\">{} ({})</th><td>{}</td><td>{} <span class=\"words\">\
             inaccuracies</span></td><td>{} <span class=\"words\">mistakes</span></td><td>{} \
             <span class=\"words\">blunders</span></td></tr>",
            escape(&player.display_name),
            escape(state.variant.side_name(color)),
            accuracy_text(side.accuracy),
            side.inaccuracies,
            side.mistakes,
            side.blunders
        );
    }
    html.push_str("</tbody>\n</table>\n");
    let judged: Vec<&MoveReport> = report.judged().collect();
    if judged.is_empty() {
        html.push_str("<p>No move lost enough to be marked.</p>\n");
    } else {
        html.push_str("<ul class=\"judged\">\n");
        for played in judged {
            let Some(judgement) = played.judgement else {
                continue;
            };
            let better = played
                .better
                .as_deref()
                .map(|better| format!(", better was {}", escape(better)))
                .unwrap_or_default();
            let _ = writeln!(
                html,
                "<li>{} {}{better}</li>",
                link(played.ply, &report.annotated(played)),
                judgement.name().to_lowercase()
            );
        }
        html.push_str("</ul>\n");
    }
    let _ = writeln!(
        html,
        "<p class=\"note\">Judged by the engine at {} nodes a position, by the winning chances \
         each move lost.</p>\n</section>",
        report.nodes
    );
    html
}
