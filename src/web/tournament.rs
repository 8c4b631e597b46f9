//! The page of a tournament, under `/t/<web_id>`: its terms and state, the standings, the
//! crosstable and the rounds with a link to each game's page; and the standings as a
//! picture for link previews.

use std::fmt::Write as _;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;

use super::game::{Freshness, cached};
use super::html::{self, escape};
use super::{Web, WebError};
use crate::service::tournaments::{TieBreaks, points_text, tie_break_text};
use crate::service::{Format, TournamentGame, TournamentPage, TournamentState, clock};

/// The routes of tournament pages.
pub(super) fn routes() -> Router<Web> {
    Router::new()
        .route("/t/{id}", get(page))
        .route("/t/{id}/standings.png", get(standings_png))
}

impl Web {
    /// The tournament at `/t/<id>`.
    async fn tournament(&self, id: &str) -> Result<TournamentPage, WebError> {
        self.service
            .tournament_page(id)
            .await?
            .ok_or(WebError::NotFound)
    }
}

/// A finished tournament never changes; an open or running one changes with its games.
fn freshness(page: &TournamentPage) -> Freshness {
    match page.standings.tournament.state {
        TournamentState::Open | TournamentState::Running => Freshness::Running,
        TournamentState::Finished | TournamentState::Cancelled => Freshness::Finished,
    }
}

async fn page(State(web): State<Web>, Path(id): Path<String>) -> Result<Response, WebError> {
    let tournament = web.tournament(&id).await?;
    let public = format!("{}/t/{id}", web.service.public_url().unwrap_or_default());
    let html = tournament_page(&tournament, &public);
    Ok(cached(
        Html(html).into_response(),
        freshness(&tournament).page(),
    ))
}

async fn standings_png(
    State(web): State<Web>,
    Path(id): Path<String>,
) -> Result<Response, WebError> {
    let tournament = web.tournament(&id).await?;
    let picture = web.service.standings_image(&tournament.standings).await?;
    Ok(cached(
        ([(header::CONTENT_TYPE, picture.mime)], picture.data).into_response(),
        freshness(&tournament).image(),
    ))
}

/// `Swiss of 5 rounds`, `round robin`, `double round robin`.
fn format_words(page: &TournamentPage) -> String {
    let info = &page.standings.tournament;
    match info.format {
        Format::Swiss => format!("Swiss of {} rounds", info.rounds),
        other => other.to_string(),
    }
}

/// The names of the players sharing first place.
fn winners(page: &TournamentPage) -> Vec<&str> {
    page.standings
        .lines
        .iter()
        .filter(|line| line.rank == 1 && !line.annulled)
        .map(|line| line.name.as_str())
        .collect()
}

/// Where the tournament stands, in words.
fn state_words(page: &TournamentPage) -> String {
    let info = &page.standings.tournament;
    match info.state {
        TournamentState::Open => match info.starts_at {
            Some(at) => format!("Open for joining; starts {}.", clock::format_utc(at)),
            None => String::from("Open for joining; its organiser starts it."),
        },
        TournamentState::Running => match info.format {
            Format::Swiss => format!(
                "Running: round {} of {}{}.",
                info.current_round,
                info.rounds,
                info.round_deadline
                    .map(|d| format!(", which ends by {}", clock::format_utc(d)))
                    .unwrap_or_default()
            ),
            Format::RoundRobin | Format::Double => format!(
                "Running: {} of {} games finished.",
                page.standings.games_finished, page.standings.games_total
            ),
        },
        TournamentState::Finished => match winners(page).as_slice() {
            [] => String::from("Finished."),
            [winner] => format!("Finished. Winner: {winner}."),
            several => format!("Finished. Shared first place: {}.", several.join(", ")),
        },
        TournamentState::Cancelled => String::from("Cancelled."),
    }
}

/// The description of the link preview: terms, state and leader.
fn description(page: &TournamentPage) -> String {
    let info = &page.standings.tournament;
    let leader = match (info.state, page.standings.lines.first()) {
        (TournamentState::Running, Some(line)) => format!(
            " Leading: {} with {}.",
            line.name,
            clock::plural(points_text(line.points), "point")
        ),
        _ => String::new(),
    };
    format!(
        "{} tournament, {}, {}, {} per move, {}. {}{leader}",
        info.variant,
        format_words(page),
        clock::plural(info.players.len(), "player"),
        clock::plural(info.days_per_move, "day"),
        if info.rated { "rated" } else { "casual" },
        state_words(page)
    )
}

/// What a tie-break's short name stands for.
fn tie_break_title(name: &str) -> &'static str {
    match name {
        "SB" => "Sonneborn-Berger",
        "BH-C1" => "Buchholz Cut-1",
        "BH" => "Buchholz",
        _ => "",
    }
}

/// A game's result for one of its players: `1`, `½`, `0`, `+`/`−` for a forfeit, `·` while it
/// is played (and for an aborted game).
fn result_for(game: &TournamentGame, player: usize) -> &'static str {
    let white = player == game.white;
    match (game.result.as_deref(), game.forfeit) {
        (Some("1-0"), true) if white => "+",
        (Some("0-1"), true) if !white => "+",
        (Some("1-0" | "0-1"), true) => "−",
        (Some("1-0"), false) if white => "1",
        (Some("0-1"), false) if !white => "1",
        (Some("1-0" | "0-1"), false) => "0",
        (Some("1/2-1/2"), _) => "½",
        _ => "·",
    }
}

/// A game's result as a link to its page, with its players and round in words.
fn result_link(page: &TournamentPage, game: &TournamentGame, text: &str) -> String {
    let players = &page.standings.tournament.players;
    let name = |index: usize| {
        players
            .get(index)
            .map_or("someone", |e| e.user.name.as_str())
    };
    let words = format!(
        "Round {}: {} (White) vs {} (Black), {}",
        game.round,
        name(game.white),
        name(game.black),
        game.result.as_deref().unwrap_or(if game.active {
            "being played"
        } else {
            "no result"
        })
    );
    match &game.path {
        Some(path) => format!(
            "<a href=\"{}\" title=\"{}\">{text}</a>",
            escape(path),
            escape(&words)
        ),
        None => format!("<span title=\"{}\">{text}</span>", escape(&words)),
    }
}

/// The standings table.
fn standings_table(page: &TournamentPage) -> String {
    let standings = &page.standings;
    let mut html = String::from(
        "<section>\n<h2>Standings</h2>\n<div class=\"scroll\">\n<table class=\"standings\">\n\
         <thead><tr><th scope=\"col\">Rank</th><th scope=\"col\">Player</th>\
         <th scope=\"col\">Points</th><th scope=\"col\">Games</th>",
    );
    for name in standings.tie_breaks.names() {
        let _ = write!(
            html,
            "<th scope=\"col\"><abbr title=\"{}\">{name}</abbr></th>",
            tie_break_title(name)
        );
    }
    html.push_str("</tr></thead>\n<tbody>\n");
    for line in &standings.lines {
        let class = if line.withdrawn {
            " class=\"withdrawn\""
        } else {
            ""
        };
        // An annulled player has no place: their results count for no one.
        let rank = if line.annulled {
            String::from("-")
        } else {
            line.rank.to_string()
        };
        let _ = write!(
            html,
            "<tr{class}><td>{rank}</td><th scope=\"row\">{}{}</th><td>{}</td><td>{}</td>",
            escape(&line.name),
            line.withdrawal_note(),
            points_text(line.points),
            line.games
        );
        for &value in &line.tie_breaks {
            let _ = write!(html, "<td>{}</td>", tie_break_text(value));
        }
        html.push_str("</tr>\n");
    }
    html.push_str("</tbody>\n</table>\n</div>\n");
    let names: Vec<String> = standings
        .tie_breaks
        .names()
        .iter()
        .map(|name| format!("{name}: {}", tie_break_title(name)))
        .collect();
    let _ = writeln!(
        html,
        "<p class=\"note\">A win is 1 point, a draw ½{}. Tie-breaks: {}.</p>\n</section>",
        if standings.tie_breaks == TieBreaks::Swiss {
            ", a bye 1"
        } else {
            ""
        },
        names.join("; ")
    );
    html
}

/// Player × player with the results of their games (both games in a double round robin),
/// in the order of the standings.
fn round_robin_crosstable(page: &TournamentPage) -> String {
    let lines = &page.standings.lines;
    let mut html = String::from(
        "<section>\n<h2>Crosstable</h2>\n<div class=\"scroll\">\n<table class=\"cross\">\n\
         <thead><tr><th scope=\"col\">#</th><th scope=\"col\">Player</th>",
    );
    for (column, line) in lines.iter().enumerate() {
        let _ = write!(
            html,
            "<th scope=\"col\" title=\"{}\">{}</th>",
            escape(&line.name),
            column + 1
        );
    }
    html.push_str("<th scope=\"col\">Points</th></tr></thead>\n<tbody>\n");
    for (row, line) in lines.iter().enumerate() {
        let _ = write!(
            html,
            "<tr><td>{}</td><th scope=\"row\">{}</th>",
            row + 1,
            escape(&line.name)
        );
        for (column, other) in lines.iter().enumerate() {
            if row == column {
                html.push_str("<td class=\"self\" aria-label=\"the same player\">×</td>");
                continue;
            }
            let results: Vec<String> = page
                .games
                .iter()
                .filter(|g| {
                    (g.white, g.black) == (line.player, other.player)
                        || (g.white, g.black) == (other.player, line.player)
                })
                .map(|g| result_link(page, g, result_for(g, line.player)))
                .collect();
            let _ = write!(html, "<td>{}</td>", results.join(" "));
        }
        let _ = writeln!(html, "<td>{}</td></tr>", points_text(line.points));
    }
    html.push_str(
        "</tbody>\n</table>\n</div>\n<p class=\"note\">1 a win, ½ a draw, 0 a loss, + and − \
         a forfeit, · a game being played; each result links to its game.</p>\n</section>\n",
    );
    html
}

/// Per round, each player's opponent (by rank in the standings), colour and result.
fn swiss_crosstable(page: &TournamentPage) -> String {
    let info = &page.standings.tournament;
    let lines = &page.standings.lines;
    let rank_of = |player: usize| lines.iter().position(|l| l.player == player).map(|i| i + 1);
    let mut html = String::from(
        "<section>\n<h2>Crosstable</h2>\n<div class=\"scroll\">\n<table class=\"cross\">\n\
         <thead><tr><th scope=\"col\">#</th><th scope=\"col\">Player</th>",
    );
    for round in 1..=info.current_round {
        let _ = write!(html, "<th scope=\"col\">Round {round}</th>");
    }
    html.push_str("<th scope=\"col\">Points</th></tr></thead>\n<tbody>\n");
    for (row, line) in lines.iter().enumerate() {
        let _ = write!(
            html,
            "<tr><td>{}</td><th scope=\"row\">{}</th>",
            row + 1,
            escape(&line.name)
        );
        for round in 1..=info.current_round {
            let game = page
                .games
                .iter()
                .find(|g| g.round == round && (g.white == line.player || g.black == line.player));
            let cell = match game {
                Some(game) => {
                    let (colour, opponent) = if game.white == line.player {
                        ("w", game.black)
                    } else {
                        ("b", game.white)
                    };
                    let text = format!(
                        "{}{colour} {}",
                        rank_of(opponent).map_or_else(|| String::from("?"), |r| r.to_string()),
                        result_for(game, line.player)
                    );
                    result_link(page, game, &text)
                }
                None if page
                    .byes
                    .iter()
                    .any(|&(r, p)| r == round && p == line.player) =>
                {
                    String::from("bye 1")
                }
                None => String::from("–"),
            };
            let _ = write!(html, "<td>{cell}</td>");
        }
        let _ = writeln!(html, "<td>{}</td></tr>", points_text(line.points));
    }
    html.push_str(
        "</tbody>\n</table>\n</div>\n<p class=\"note\">Each round: the opponent's rank here, the \
         colour (w White, b Black) and the result (1, ½, 0, + and − a forfeit, · being \
         played); “bye 1” is the pairing's bye, “–” no game. Each result links to its \
         game.</p>\n</section>\n",
    );
    html
}

/// The rounds, each game with a link to its page, and the byes.
fn rounds_list(page: &TournamentPage) -> String {
    let info = &page.standings.tournament;
    let name = |index: usize| {
        info.players
            .get(index)
            .map_or("someone", |e| e.user.name.as_str())
    };
    let mut html = String::from("<section class=\"rounds\">\n<h2>Rounds</h2>\n");
    let last = page.games.iter().map(|g| g.round).max().unwrap_or(0);
    for round in 1..=last.max(info.current_round) {
        let _ = writeln!(html, "<h3>Round {round}</h3>\n<ol>");
        for game in page.games.iter().filter(|g| g.round == round) {
            let number = match &game.path {
                Some(path) => format!("<a href=\"{}\">Game #{}</a>", escape(path), game.number),
                None => format!("Game #{}", game.number),
            };
            let result = match (game.result.as_deref(), game.forfeit, game.active) {
                (Some(result), true, _) => format!("{result} (forfeit)"),
                (Some(result), false, _) => result.to_owned(),
                (None, _, true) => String::from("being played"),
                (None, _, false) => String::from("ended without a result"),
            };
            let _ = writeln!(
                html,
                "<li>{number}: {} (White) vs {} (Black): {}</li>",
                escape(name(game.white)),
                escape(name(game.black)),
                escape(&result)
            );
        }
        for &(_, player) in page.byes.iter().filter(|&&(r, _)| r == round) {
            let _ = writeln!(
                html,
                "<li>Bye: {} (a point, no game)</li>",
                escape(name(player))
            );
        }
        html.push_str("</ol>\n");
    }
    html.push_str("</section>\n");
    html
}

/// The players of a tournament open for joining.
fn players_list(page: &TournamentPage) -> String {
    let info = &page.standings.tournament;
    if info.players.is_empty() {
        return String::from(
            "<section>\n<h2>Players</h2>\n<p>Nobody has joined yet. Join in the chat with \
             <code>tournament join</code> and its number.</p>\n</section>\n",
        );
    }
    let mut html = String::from("<section>\n<h2>Players</h2>\n<ol>\n");
    for entrant in &info.players {
        let _ = writeln!(html, "<li>{}</li>", escape(&entrant.user.name));
    }
    let _ = writeln!(
        html,
        "</ol>\n<p class=\"note\">Join in the chat with <code>tournament join {}</code>.</p>\n\
         </section>",
        info.id
    );
    html
}

/// The page of a tournament; `public` is its absolute address (for the preview tags).
#[must_use]
pub fn tournament_page(page: &TournamentPage, public: &str) -> String {
    let info = &page.standings.tournament;
    let title = format!("{} · {} tournament", info.name, info.variant);
    let description = description(page);
    let head = format!(
        "<meta name=\"description\" content=\"{description}\">\n\
         <meta property=\"og:type\" content=\"website\">\n\
         <meta property=\"og:site_name\" content=\"Pigeon\">\n\
         <meta property=\"og:title\" content=\"{}\">\n\
         <meta property=\"og:description\" content=\"{description}\">\n\
         <meta property=\"og:url\" content=\"{}\">\n\
         <meta property=\"og:image\" content=\"{}/standings.png\">\n\
         <meta property=\"og:image:alt\" content=\"The standings of {}\">\n\
         <meta name=\"twitter:card\" content=\"summary_large_image\">\n",
        escape(&title),
        escape(public),
        escape(public),
        escape(&info.name),
        description = escape(&description),
    );
    let mut body = format!(
        "<main id=\"tournament\" class=\"tables\">\n<h1>{} <small>tournament #{}</small></h1>\n\
         <p class=\"facts\"><strong>{}</strong>, {}, {} per move, {}. Organiser: {}.\
         <br><span class=\"status\">{}</span></p>\n",
        escape(&info.name),
        info.id,
        info.variant,
        escape(&format_words(page)),
        clock::plural(info.days_per_move, "day"),
        if info.rated { "rated" } else { "casual" },
        escape(&info.organiser),
        escape(&state_words(page)),
    );
    if info.state == TournamentState::Open {
        body.push_str(&players_list(page));
    } else {
        body.push_str(&standings_table(page));
        body.push_str(&match info.format {
            Format::Swiss => swiss_crosstable(page),
            Format::RoundRobin | Format::Double => round_robin_crosstable(page),
        });
        body.push_str(&rounds_list(page));
    }
    body.push_str(
        "<footer>This page is read-only: the tournament is played in the chat, where \
         <code>tournament standings</code> and <code>tournament info</code> tell the same.\
         </footer>\n</main>",
    );
    html::layout(&format!("{title} · Pigeon"), &head, &body, false)
}
