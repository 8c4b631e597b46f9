//! The pages of a game, under `/g/<web_id>`: the page, its board pictures, the record, the
//! replay and, while the game runs, its events.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use axum::extract::{ConnectInfo, Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use futures_util::StreamExt as _;
use futures_util::stream::{self, Stream};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{broadcast, watch};
use tokio::time::{self, Interval, MissedTickBehavior};

use super::html::{self, View};
use super::streams::Slot;
use super::{NoError, Web, WebError, client};
use crate::rules::Color;
use crate::service::{Analysed, GameChange, Image, PageAnalysis, PageGame};

/// The routes of game pages.
pub(super) fn routes() -> Router<Web> {
    Router::new()
        .route("/g/{id}", get(page))
        .route("/g/{id}/board/{file}", get(board))
        .route("/g/{id}/record.pgn", get(record))
        .route("/g/{id}/replay.gif", get(replay))
        .route("/g/{id}/events", get(events))
        .route("/g/{id}/analysis.png", get(analysis_graph))
}

/// How long a client may keep what it got: a finished game's pictures never change; a running
/// game's page and pictures change with its next move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Freshness {
    Finished,
    Running,
}

impl Freshness {
    fn of(game: &PageGame) -> Freshness {
        if game.state.is_active() {
            Freshness::Running
        } else {
            Freshness::Finished
        }
    }

    /// The `Cache-Control` of a page or record (a finished game's ratings may still be
    /// settled, so it is kept for minutes, not for ever).
    pub(super) fn page(self) -> &'static str {
        match self {
            Freshness::Finished => "public, max-age=300",
            Freshness::Running => "public, max-age=5, must-revalidate",
        }
    }

    /// The `Cache-Control` of a picture.
    pub(super) fn image(self) -> &'static str {
        match self {
            Freshness::Finished => "public, max-age=31536000, immutable",
            Freshness::Running => "public, max-age=10",
        }
    }
}

/// The response with this `Cache-Control`.
pub(super) fn cached(mut response: Response, cache: &'static str) -> Response {
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    response
}

/// The side a `side=` query parameter asks for: White unless `black` (or Chak's `green`).
fn side(query: &HashMap<String, String>) -> Color {
    match query.get("side").map(String::as_str) {
        Some("black" | "green") => Color::Black,
        _ => Color::White,
    }
}

impl Web {
    /// The game at `/g/<id>`.
    async fn game(&self, id: &str) -> Result<PageGame, WebError> {
        self.service.page_game(id).await?.ok_or(WebError::NotFound)
    }
}

async fn page(
    State(web): State<Web>,
    Path(id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Response, WebError> {
    let game = web.game(&id).await?;
    let plies = game.state.record.moves().len();
    let ply = match query.get("ply") {
        None => plies,
        Some(text) => text
            .parse()
            .ok()
            .filter(|&ply| ply <= plies)
            .ok_or(WebError::NotFound)?,
    };
    let view = View {
        ply,
        side: side(&query),
    };
    let path = format!("/g/{id}");
    let public = format!("{}{path}", web.service.public_url().unwrap_or_default());
    let html = html::game_page(&game, view, &public, &path);
    Ok(cached(
        Html(html).into_response(),
        Freshness::of(&game).page(),
    ))
}

/// A picture as a response.
fn image(image: Image, cache: &'static str) -> Response {
    cached(
        ([(header::CONTENT_TYPE, image.mime)], image.data).into_response(),
        cache,
    )
}

async fn board(
    State(web): State<Web>,
    Path((id, file)): Path<(String, String)>,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Response, WebError> {
    let ply: usize = file
        .strip_suffix(".png")
        .and_then(|ply| ply.parse().ok())
        .ok_or(WebError::NotFound)?;
    let game = web.game(&id).await?;
    let picture = web
        .service
        .board_at(&game.state, ply, side(&query))
        .await?
        .ok_or(WebError::NotFound)?;
    Ok(image(picture, Freshness::of(&game).image()))
}

async fn record(State(web): State<Web>, Path(id): Path<String>) -> Result<Response, WebError> {
    let game = web.game(&id).await?;
    let name = format!("pigeon-game-{}.pgn", game.state.row.id);
    // An analysed game's record carries the analysis, as `export` gives it.
    let text = web.service.record_text(&game.state).await?;
    let response = (
        [
            (
                header::CONTENT_TYPE,
                String::from("application/x-chess-pgn; charset=utf-8"),
            ),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ),
        ],
        text,
    )
        .into_response();
    Ok(cached(response, Freshness::of(&game).page()))
}

async fn replay(
    State(web): State<Web>,
    Path(id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Response, WebError> {
    let game = web.game(&id).await?;
    let gif = web.service.replay_image(&game.state, side(&query)).await?;
    Ok(image(gif, Freshness::of(&game).image()))
}

/// The evaluation graph of an analysed game (fixed once the analysis is done).
async fn analysis_graph(
    State(web): State<Web>,
    Path(id): Path<String>,
) -> Result<Response, WebError> {
    let game = web.game(&id).await?;
    let PageAnalysis::Done(report) = game.analysis else {
        return Err(WebError::NotFound);
    };
    let analysed = Analysed {
        state: game.state,
        report: *report,
    };
    let graph = web.service.analysis_image(&analysed).await?;
    Ok(image(graph, Freshness::Finished.image()))
}

/// The events of a game: first `move` with its plies now (so a page that missed a move while
/// it connected catches up), then `move` with the plies after each move, and `end` when it is
/// over, which closes the stream. Moves made in this process come at once; the stream also
/// looks at the stored game every [`super::Settings::watch`], for the moves of other
/// processes sharing the database. Each change is told once, however it was heard first.
/// A client holds at most [`super::Settings::streams_per_client`] streams at once, and the
/// site [`super::Settings::most_streams`].
async fn events(
    State(web): State<Web>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, WebError> {
    let changes = web.service.subscribe();
    let game = web.game(&id).await?;
    let slot = web
        .streams
        .open(client(peer, &headers))
        .ok_or(WebError::TooManyStreams)?;
    let seen = GameChange {
        over: !game.state.is_active(),
        ..GameChange::of(&game.state.row)
    };
    let first = event(&seen);
    let stream = stream::once(async move { Ok(first) }).chain(following(web, changes, seen, slot));
    let sse = Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(25)));
    Ok(cached(sse.into_response(), "no-store"))
}

/// The event telling a page that its game has changed to `change`.
fn event(change: &GameChange) -> Event {
    Event::default()
        .event(if change.over { "end" } else { "move" })
        .data(change.ply.to_string())
}

/// What a game's event stream holds between events.
struct Following {
    web: Web,
    changes: broadcast::Receiver<GameChange>,
    shutdown: watch::Receiver<bool>,
    ticker: Interval,
    /// The game as the page was last told it.
    seen: GameChange,
    /// The stream's place among those open, given back when it ends.
    _slot: Slot,
}

impl Following {
    /// The game as stored now (`None` when the database does not answer: the next look
    /// tries again).
    async fn stored(&self) -> Option<GameChange> {
        self.web
            .service
            .game_now(self.seen.game)
            .await
            .ok()
            .flatten()
    }
}

/// The events of the game after `seen`, until it ends or the server stops.
fn following(
    web: Web,
    changes: broadcast::Receiver<GameChange>,
    seen: GameChange,
    slot: Slot,
) -> impl Stream<Item = Result<Event, NoError>> {
    let mut ticker = time::interval_at(time::Instant::now() + web.watch, web.watch);
    ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let shutdown = web.shutdown.clone();
    let state = Following {
        web,
        changes,
        shutdown,
        ticker,
        seen,
        _slot: slot,
    };
    stream::unfold(state, |mut state| async move {
        if state.seen.over || *state.shutdown.borrow() {
            return None;
        }
        loop {
            let latest = tokio::select! {
                change = state.changes.recv() => match change {
                    Ok(change) if change.game == state.seen.game => Some(change),
                    Ok(_) => None,
                    // Fallen behind: the stored game says where it is.
                    Err(RecvError::Lagged(_)) => state.stored().await,
                    Err(RecvError::Closed) => return None,
                },
                _ = state.ticker.tick() => state.stored().await,
                stopped = state.shutdown.changed() => {
                    if stopped.is_err() || *state.shutdown.borrow() {
                        return None;
                    }
                    None
                }
            };
            if let Some(change) = latest
                && change.is_after(&state.seen)
            {
                state.seen = change;
                return Some((Ok(event(&state.seen)), state));
            }
        }
    })
}
