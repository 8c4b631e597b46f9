//! The pages' HTML: one layout with its inline style and script (allowed by their hashes in
//! the Content-Security-Policy), the game page, and the pages that say what went wrong.
//! Every word that comes from users (names above all) goes through [`escape`].

use std::fmt::Write as _;
use std::sync::LazyLock;

use base64::Engine as _;
use sha2::{Digest as _, Sha256};

pub use crate::markup::escape_html as escape;
use crate::rules::Color;
use crate::service::{PageGame, PageRating, clock};

/// The one style sheet of every page.
const STYLE: &str = r#"
:root { color-scheme: light dark; --fg: #1d2021; --bg: #f7f5f0; --muted: #5f6368;
  --accent: #2f6f4f; --panel: #ffffff; --line: #ddd8cc; }
@media (prefers-color-scheme: dark) { :root { --fg: #ece8e1; --bg: #1b1d1e; --muted: #a8a29a;
  --accent: #8fd1a8; --panel: #26292b; --line: #3a3d3f; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif;
  color: var(--fg); background: var(--bg); }
main { max-width: 68rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; }
h1 small { color: var(--muted); font-weight: normal; font-size: 1rem; }
h2 { font-size: 1.1rem; margin: 0 0 .5rem; }
a { color: var(--accent); }
.facts { margin: 0 0 1rem; color: var(--muted); }
.facts strong { color: var(--fg); }
.layout { display: flex; flex-wrap: wrap; gap: 1.5rem; align-items: flex-start; }
.board { flex: 1 1 26rem; margin: 0; max-width: 40rem; }
.board img { display: block; width: 100%; height: auto; border-radius: 6px;
  box-shadow: 0 2px 10px rgba(0,0,0,.25); }
.controls { display: flex; gap: .5rem; justify-content: center; margin: .75rem 0; }
.controls a { display: inline-block; min-width: 3rem; padding: .4rem .7rem; text-align: center;
  text-decoration: none; border: 1px solid var(--line); border-radius: 6px;
  background: var(--panel); color: var(--fg); }
.controls a:hover, .controls a:focus { border-color: var(--accent); }
.side { flex: 1 1 16rem; min-width: 14rem; }
.moves { background: var(--panel); border: 1px solid var(--line); border-radius: 6px;
  padding: .75rem; max-height: 32rem; overflow-y: auto; }
.moves ol { margin: 0; padding: 0; list-style: none; columns: 2 11rem; column-gap: 1rem; }
.moves li { break-inside: avoid; display: flex; gap: .35rem; }
.moves .n { color: var(--muted); min-width: 2.2rem; text-align: right; }
.moves a { text-decoration: none; color: var(--fg); padding: 0 .3rem; border-radius: 4px; }
.moves a:hover { text-decoration: underline; }
.moves a.current { background: var(--accent); color: var(--bg); }
.start { margin: 0 0 .5rem; }
.downloads { margin-top: 1rem; }
.downloads a { margin-right: 1rem; }
.live { color: var(--accent); }
.mark { font-weight: bold; padding-right: .2rem; cursor: help; }
.mark.inaccuracy { color: #b08d00; } .mark.mistake { color: #d9700f; }
.mark.blunder { color: #c62828; }
.analysis, .tables section { margin-top: 1.5rem; }
.analysis .graph { display: block; width: 100%; max-width: 45rem; height: auto;
  border-radius: 6px; }
table { border-collapse: collapse; margin: .75rem 0; background: var(--panel); }
th, td { border: 1px solid var(--line); padding: .3rem .55rem; text-align: center; }
th[scope=row], td.name { text-align: left; }
.scroll { overflow-x: auto; max-width: 100%; }
.words { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
.withdrawn { color: var(--muted); }
.note { color: var(--muted); font-size: .9rem; }
.rounds ol { padding-left: 1.5rem; } .rounds li { margin: .15rem 0; }
footer { margin-top: 2rem; color: var(--muted); font-size: .9rem; }
"#;

/// The script of the game page: arrow keys, Home and End step through the moves, the flip
/// button turns the board, and a running game follows its events. Everything it needs is in
/// the page's `data-` attributes, so the script itself never changes (its hash stays valid).
const SCRIPT: &str = r#"
(() => {
  const game = () => document.getElementById("game");
  const data = () => game().dataset;
  const plies = () => Number(data().plies);
  let ply = Number(data().ply);
  let side = data().side;
  const query = (p) => "?ply=" + p + (side === "black" ? "&side=black" : "");
  function show(p) {
    ply = Math.max(0, Math.min(plies(), p));
    const img = document.getElementById("board");
    img.src = data().base + "/board/" + ply + ".png" + (side === "black" ? "?side=black" : "");
    for (const a of game().querySelectorAll("a[data-ply]")) {
      const here = Number(a.dataset.ply) === ply;
      a.classList.toggle("current", here);
      if (here) { a.setAttribute("aria-current", "step"); img.alt = a.dataset.alt; }
      else a.removeAttribute("aria-current");
      a.href = query(a.dataset.ply);
    }
    const go = { first: 0, prev: ply - 1, next: ply + 1, last: plies() };
    for (const a of game().querySelectorAll("a[data-go]")) {
      const to = go[a.dataset.go];
      a.href = to === undefined
        ? "?ply=" + ply + (side === "black" ? "" : "&side=black")
        : query(Math.max(0, Math.min(plies(), to)));
    }
    history.replaceState(null, "", query(ply));
  }
  function step(go) {
    const to = { first: 0, prev: ply - 1, next: ply + 1, last: plies() }[go];
    if (to === undefined) { side = side === "black" ? "white" : "black"; show(ply); }
    else show(to);
  }
  document.addEventListener("click", (e) => {
    const a = e.target.closest("a[data-ply], a[data-go]");
    if (!a || e.ctrlKey || e.metaKey || e.shiftKey) return;
    e.preventDefault();
    if (a.dataset.go) step(a.dataset.go); else show(Number(a.dataset.ply));
  });
  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const go = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" }[e.key];
    if (go) { e.preventDefault(); step(go); }
  });
  if (data().live) {
    const events = new EventSource(data().base + "/events");
    const refresh = async () => {
      const atEnd = ply === plies();
      const latest = data().base + (side === "black" ? "?side=black" : "");
      const response = await fetch(latest, { cache: "no-store" });
      if (!response.ok) return;
      const page = new DOMParser().parseFromString(await response.text(), "text/html");
      const fresh = page.getElementById("game");
      if (!fresh) return;
      game().replaceWith(document.adoptNode(fresh));
      if (!data().live) events.close();
      show(atEnd ? plies() : ply);
    };
    events.addEventListener("move", (e) => { if (Number(e.data) !== plies()) refresh(); });
    events.addEventListener("end", () => { events.close(); refresh(); });
  }
})();
"#;

/// `'sha256-…'` of an inline element's text, for the Content-Security-Policy.
fn csp_hash(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// The Content-Security-Policy of every response: nothing but this site's own images, the
/// one style and the one script (by their hashes), and the game's events.
pub static CONTENT_SECURITY_POLICY: LazyLock<String> = LazyLock::new(|| {
    format!(
        "default-src 'none'; img-src 'self'; style-src {}; script-src {}; connect-src 'self'; \
         base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        csp_hash(STYLE),
        csp_hash(SCRIPT)
    )
});

/// A whole page: `head` (already escaped) goes in the head after the title, `body` (already
/// escaped) in the body, and the script only on pages that ask for it.
pub(super) fn layout(title: &str, head: &str, body: &str, script: bool) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"referrer\" content=\"no-referrer\">\n<title>{}</title>\n{head}\
         <style>{STYLE}</style>\n</head>\n<body>\n{body}\n{}</body>\n</html>\n",
        escape(title),
        if script {
            format!("<script>{SCRIPT}</script>\n")
        } else {
            String::new()
        }
    )
}

/// A page that says what went wrong and what to do next.
#[must_use]
pub fn message_page(title: &str, text: &str) -> String {
    layout(
        &format!("{title} · Pigeon"),
        "",
        &format!(
            "<main>\n<h1>{}</h1>\n<p>{}</p>\n<footer>Pigeon: correspondence chess variants in \
             chat.</footer>\n</main>",
            escape(title),
            escape(text)
        ),
        false,
    )
}

/// Which board of a game a page shows, and from which side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct View {
    /// The ply shown: the board after that many plies.
    pub ply: usize,
    /// The side at the bottom.
    pub side: Color,
}

impl View {
    /// `?ply=N`, with `&side=black` when Black is at the bottom.
    fn query(self, ply: usize, side: Color) -> String {
        match side {
            Color::White => format!("?ply={ply}"),
            Color::Black => format!("?ply={ply}&amp;side=black"),
        }
    }

    /// `?side=black` when Black is at the bottom, for the pictures.
    fn side_query(self) -> &'static str {
        match self.side {
            Color::White => "",
            Color::Black => "?side=black",
        }
    }
}

/// The address of a board picture, from `base` (`/g/<id>`, or the absolute page address).
#[must_use]
pub fn board_src(base: &str, view: View) -> String {
    format!("{base}/board/{}.png{}", view.ply, view.side_query())
}

/// `alice (1512)`, `alice (1512, +12)` or `alice (unrated)`.
fn player_with_rating(name: &str, rating: Option<PageRating>) -> String {
    match rating {
        Some(PageRating {
            rating,
            change: Some(change),
        }) => format!("{name} ({rating}, {change:+})"),
        Some(PageRating { rating, .. }) => format!("{name} ({rating})"),
        None => format!("{name} (unrated)"),
    }
}

/// The words naming the board after `ply` plies, for the picture's alt text: the game, the
/// move number, the side to move and the last move.
fn position_words(game: &PageGame, ply: usize) -> String {
    let state = &game.state;
    let moves = state.record.moves();
    let turn = if ply.is_multiple_of(2) {
        state.record.start().turn()
    } else {
        state.record.start().turn().other()
    };
    let mover = state.variant.side_name(turn.other());
    let last = match ply.checked_sub(1).and_then(|i| moves.get(i)) {
        Some(played) => format!(", after {mover}'s {}", played.display),
        None => String::from(", the start position"),
    };
    let next = if ply == moves.len() && !state.is_active() {
        String::from("; the game is over")
    } else {
        format!("; {} to move", state.variant.side_name(turn))
    };
    format!(
        "{} game #{}, move {}{last}{next}",
        state.variant,
        state.row.id,
        state.record.move_number(ply)
    )
}

/// The line under the title: whose move and until when, or the result.
fn status_words(game: &PageGame) -> String {
    let state = &game.state;
    match (state.result_text(), state.to_move()) {
        (Some(result), _) => format!("Result: {result}."),
        (None, Some(player)) => {
            let deadline = state
                .row
                .deadline
                .map(|d| format!(", deadline {}", clock::format_utc(d)))
                .unwrap_or_default();
            format!(
                "{} ({}) to move{deadline}.",
                player.display_name,
                state.variant.side_name(state.turn())
            )
        }
        (None, None) => String::from("The game is over."),
    }
}

/// The game's title: `Chak: alice vs bob`.
#[must_use]
pub fn game_title(game: &PageGame) -> String {
    let state = &game.state;
    format!(
        "{}: {} vs {}",
        state.variant, state.white.display_name, state.black.display_name
    )
}

/// The page of a game, showing `view`; `public` is the game page's absolute address (for the
/// preview tags) and `path` its path on this site.
#[must_use]
pub fn game_page(game: &PageGame, view: View, public: &str, path: &str) -> String {
    let state = &game.state;
    let plies = state.record.moves().len();
    let title = game_title(game);
    let per_move = format!("{} per move", clock::plural(state.row.days_per_move, "day"));
    let kind = if state.row.bot_level.is_some() || !state.row.rated {
        "casual"
    } else {
        "rated"
    };
    let status = status_words(game);
    let white = player_with_rating(&state.white.display_name, game.ratings[0]);
    let black = player_with_rating(&state.black.display_name, game.ratings[1]);
    let description = format!(
        "Game #{}, {kind}, {per_move}. {} {white} vs {} {black}. {status}",
        state.row.id,
        state.variant.side_name(Color::White),
        state.variant.side_name(Color::Black)
    );
    let current = View { ply: plies, ..view };
    let head = format!(
        "<meta name=\"description\" content=\"{description}\">\n\
         <meta property=\"og:type\" content=\"website\">\n\
         <meta property=\"og:site_name\" content=\"Pigeon\">\n\
         <meta property=\"og:title\" content=\"{}\">\n\
         <meta property=\"og:description\" content=\"{description}\">\n\
         <meta property=\"og:url\" content=\"{}\">\n\
         <meta property=\"og:image\" content=\"{}\">\n\
         <meta property=\"og:image:alt\" content=\"{}\">\n\
         <meta name=\"twitter:card\" content=\"summary_large_image\">\n",
        escape(&title),
        escape(public),
        escape(&board_src(public, current)),
        escape(&position_words(game, plies)),
        description = escape(&description),
    );
    let mut body = String::new();
    let live = if state.is_active() {
        " data-live=\"1\""
    } else {
        ""
    };
    let side = match view.side {
        Color::White => "white",
        Color::Black => "black",
    };
    let _ = write!(
        body,
        "<main id=\"game\" data-base=\"{path}\" data-plies=\"{plies}\" data-ply=\"{}\" \
         data-side=\"{side}\"{live}>\n<h1>{} <small>game #{}</small></h1>\n\
         <p class=\"facts\"><strong>{}</strong> {} · <strong>{}</strong> {}<br>{} game, \
         {per_move}. <span class=\"status\">{}</span>{}</p>\n",
        view.ply,
        escape(&title),
        state.row.id,
        escape(state.variant.side_name(Color::White)),
        escape(&white),
        escape(state.variant.side_name(Color::Black)),
        escape(&black),
        capitalised(kind),
        escape(&status),
        if state.is_active() {
            " <span class=\"live\">This page follows the game as it is played.</span>"
        } else {
            ""
        },
    );
    let _ = write!(
        body,
        "<div class=\"layout\">\n<figure class=\"board\">\n<img id=\"board\" src=\"{}\" \
         alt=\"{}\">\n<nav class=\"controls\" aria-label=\"Moves\">\
         <a data-go=\"first\" href=\"{}\" title=\"Start (Home)\">«</a>\
         <a data-go=\"prev\" href=\"{}\" title=\"Back (←)\">◀</a>\
         <a data-go=\"next\" href=\"{}\" title=\"Forward (→)\">▶</a>\
         <a data-go=\"last\" href=\"{}\" title=\"Latest (End)\">»</a>\
         <a data-go=\"flip\" href=\"{}\" title=\"Turn the board\">Flip</a></nav>\n</figure>\n",
        escape(&board_src(path, view)),
        escape(&position_words(game, view.ply)),
        view.query(0, view.side),
        view.query(view.ply.saturating_sub(1), view.side),
        view.query((view.ply + 1).min(plies), view.side),
        view.query(plies, view.side),
        view.query(view.ply, view.side.other()),
    );
    body.push_str("<div class=\"side\">\n<section class=\"moves\">\n<h2>Moves</h2>\n");
    let link = |ply: usize, text: &str| {
        let current = if ply == view.ply {
            " class=\"current\" aria-current=\"step\""
        } else {
            ""
        };
        format!(
            "<a href=\"{}\" data-ply=\"{ply}\" data-alt=\"{}\"{current}>{}</a>",
            view.query(ply, view.side),
            escape(&position_words(game, ply)),
            escape(text)
        )
    };
    let _ = writeln!(body, "<p class=\"start\">{}</p>\n<ol>", link(0, "Start"));
    // One row a move number; a game from a position with Black to move starts its first
    // row with Black's move.
    let mut row = None;
    for (index, played) in state.record.moves().iter().enumerate() {
        let number = state.record.move_number(index);
        if row != Some(number) {
            if row.is_some() {
                body.push_str("</li>\n");
            }
            let _ = write!(body, "<li><span class=\"n\">{number}.</span>");
            if index == 0 && state.record.start().turn() == Color::Black {
                body.push_str("<span>…</span>");
            }
            row = Some(number);
        }
        body.push_str(&link(index + 1, &played.display));
        body.push_str(&super::analysis::mark(game, index + 1));
    }
    if row.is_some() {
        body.push_str("</li>\n");
    }
    body.push_str("</ol>\n</section>\n");
    let _ = write!(
        body,
        "<p class=\"downloads\"><a href=\"{path}/record.pgn\" download>Record (PGN)</a>\
         <a href=\"{path}/replay.gif{}\">Replay (GIF)</a></p>\n</div>\n</div>\n{}\
         <footer>Keys: ← and → step through the moves, Home and End go to the start and the \
         latest. This page is read-only; play in the chat.</footer>\n</main>",
        view.side_query(),
        super::analysis::section(game, path, link),
    );
    layout(&format!("{title} · Pigeon"), &head, &body, true)
}

/// `Casual` from `casual`.
fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_allows_exactly_the_inline_style_and_script() {
        assert!(CONTENT_SECURITY_POLICY.contains(&csp_hash(STYLE)));
        assert!(CONTENT_SECURITY_POLICY.contains(&csp_hash(SCRIPT)));
        assert!(!CONTENT_SECURITY_POLICY.contains("unsafe-inline"));
    }
}
