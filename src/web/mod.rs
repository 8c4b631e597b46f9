//! The read-only website: a page per game at an unguessable address, its board pictures, its
//! record and replay, and the events of a running game. Plain server-rendered HTML with a
//! little inline script; no external assets, no cookies, no tracking.
//!
//! The site talks to the service only (which draws the pictures with `render`). Every
//! response passes [`guard`]: a per-client rate limit (the service's limiter over its clock,
//! keyed by the peer's address) and the security headers. Routes come in modules, one per kind
//! of page, merged in [`router`]: `game` serves `/g/...` (with `analysis` drawing a game's
//! analysis on its page), `tournament` serves `/t/...`, both on the same [`html`] layout.

mod analysis;
mod game;
pub mod html;
mod streams;
mod tournament;

use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tracing::info;

use crate::service::{RateLimit, RateLimiter, Service, ServiceError, Verdict};
use streams::Streams;
pub use streams::{MOST_STREAMS, STREAMS_PER_CLIENT};

/// How many requests a client may make at once, and how fast the allowance comes back: a page
/// with its board is two, stepping through a long game a few a second.
pub const RATE_LIMIT: RateLimit = RateLimit {
    burst: 120,
    interval: 1,
};

/// How often a running game's event stream looks at the stored game, for the moves made by
/// other processes sharing the database (its own process's moves come at once).
pub const WATCH_INTERVAL: Duration = Duration::from_secs(3);

/// How long a client refused an event stream waits before asking again, in seconds.
const STREAM_RETRY_SECONDS: u32 = 30;

/// How the site serves: each client's rate limit, how often event streams look at the
/// stored game, and how many streams a client and the site may hold open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    pub limit: RateLimit,
    pub watch: Duration,
    pub streams_per_client: usize,
    pub most_streams: usize,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            limit: RATE_LIMIT,
            watch: WATCH_INTERVAL,
            streams_per_client: STREAMS_PER_CLIENT,
            most_streams: MOST_STREAMS,
        }
    }
}

/// What the handlers share.
#[derive(Debug, Clone)]
struct Web {
    service: Service,
    limiter: Arc<RateLimiter>,
    /// How often event streams look at the stored game.
    watch: Duration,
    /// The event streams open now.
    streams: Arc<Streams>,
    /// Turns true when the server stops: the event streams end then.
    shutdown: watch::Receiver<bool>,
}

/// The site's routes over `service`, served as `settings` say; the event streams end when
/// `shutdown` turns true.
pub fn router(service: Service, settings: Settings, shutdown: watch::Receiver<bool>) -> Router {
    let web = Web {
        service,
        limiter: Arc::new(RateLimiter::new(settings.limit)),
        watch: settings.watch,
        streams: Arc::new(Streams::new(
            settings.streams_per_client,
            settings.most_streams,
        )),
        shutdown,
    };
    Router::new()
        .route("/", axum::routing::get(home))
        .merge(game::routes())
        .merge(tournament::routes())
        .fallback(not_found)
        .layer(middleware::from_fn_with_state(web.clone(), guard))
        .with_state(web)
}

/// Serves the site on `listener` until `shutdown` turns true.
///
/// # Errors
/// When the listener fails.
pub async fn run(
    service: Service,
    listener: TcpListener,
    settings: Settings,
    shutdown: watch::Receiver<bool>,
) -> std::io::Result<()> {
    if let Ok(address) = listener.local_addr() {
        info!(%address, public = service.public_url().unwrap_or(""), "serving the game pages");
    }
    let app = router(service, settings, shutdown.clone());
    let mut stop = shutdown;
    axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(async move {
        let _ = stop.wait_for(|stopped| *stopped).await;
    })
    .await
}

/// The client a request counts against: the peer, or, when the peer is a reverse proxy on
/// this machine (a loopback address), the last address it added to `X-Forwarded-For`.
fn client(peer: SocketAddr, headers: &HeaderMap) -> IpAddr {
    let forwarded = || {
        headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .next_back()?
            .trim()
            .parse()
            .ok()
    };
    if peer.ip().is_loopback() {
        forwarded().unwrap_or(peer.ip())
    } else {
        peer.ip()
    }
}

/// Counts the request against its client's limit (429 with `Retry-After` when over it), then
/// adds the security headers to the response, and `no-store` when it says nothing of caching.
async fn guard(
    State(web): State<Web>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    request: Request,
    next: Next,
) -> Response {
    let ip = client(peer, request.headers());
    let mut response = match web
        .limiter
        .check("http", &ip.to_string(), web.service.now())
    {
        Verdict::Allowed => next.run(request).await,
        Verdict::Limited { wait, .. } => {
            let wait = wait.max(1);
            let mut response = page(
                StatusCode::TOO_MANY_REQUESTS,
                "Slow down",
                &format!(
                    "Too many requests from your address. Wait {} and try again.",
                    crate::service::clock::plural(wait, "second")
                ),
            );
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(wait));
            response
        }
    };
    let headers = response.headers_mut();
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    if let Ok(policy) = HeaderValue::from_str(&html::CONTENT_SECURITY_POLICY) {
        headers.insert(header::CONTENT_SECURITY_POLICY, policy);
    }
    headers
        .entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-store"));
    response
}

/// A page saying `text`, with its status.
fn page(status: StatusCode, title: &str, text: &str) -> Response {
    (status, Html(html::message_page(title, text))).into_response()
}

/// The friendly answer to an address that names nothing.
async fn not_found() -> Response {
    page(
        StatusCode::NOT_FOUND,
        "No such page",
        "There is nothing at this address. Game and tournament pages are linked from the \
         bot's messages about them: follow a link from your chat, or ask the bot for `games`.",
    )
}

/// The front page: where the game pages come from.
async fn home() -> Response {
    let mut response = page(
        StatusCode::OK,
        "Pigeon",
        "Pigeon plays Chak, Shakti, Chad and Chesscala by correspondence in chat. Each game has \
         a page here, linked from the bot's messages about it.",
    );
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=3600"),
    );
    response
}

/// What a handler can fail with.
#[derive(Debug)]
enum WebError {
    /// The address names no game, move or picture.
    NotFound,
    /// The service failed (its message has the reference to quote).
    Service(ServiceError),
    /// The client, or the site, holds as many event streams as it may.
    TooManyStreams,
}

impl From<ServiceError> for WebError {
    fn from(error: ServiceError) -> WebError {
        WebError::Service(error)
    }
}

impl IntoResponse for WebError {
    fn into_response(self) -> Response {
        match self {
            WebError::NotFound => page(
                StatusCode::NOT_FOUND,
                "No such page",
                "There is no game, tournament, move or picture at this address. Check the \
                 link, or follow one from your chat.",
            ),
            WebError::Service(error) => page(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Something went wrong",
                &error.to_string(),
            ),
            WebError::TooManyStreams => {
                let mut response = page(
                    StatusCode::TOO_MANY_REQUESTS,
                    "Too many live pages",
                    "Too many live game pages are open. Close some tabs; this page keeps \
                     working and shows new moves when you reload it.",
                );
                response
                    .headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from(STREAM_RETRY_SECONDS));
                response
            }
        }
    }
}

/// Never fails: the event streams' error type.
type NoError = Infallible;
