//! The game pages over HTTP: every route's status, content type and headers, unknown
//! addresses, escaping, the rate limit, the events of a running game, and the links in chat.

use std::net::SocketAddr;

use pigeon::adapters::console;
use pigeon::chat::{self, Incoming};
use pigeon::rules::Variant;
use pigeon::service::{ColorChoice, ManualClock, Place, RateLimit, Service, User};
use pigeon::web::Settings;
use tokio::sync::watch;

use crate::common::{TestDb, backends};
use crate::transcripts::{START, open};

/// The game pages of a service, served on a free port of 127.0.0.1.
pub struct Site {
    pub service: Service,
    pub clock: ManualClock,
    /// `http://127.0.0.1:PORT`, also the service's public address.
    pub base: String,
    stop: watch::Sender<bool>,
    server: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Site {
    /// Serves the pages of a fresh service on `db`, each client limited to `limit`.
    pub async fn start(db: &TestDb, limit: RateLimit) -> Site {
        Site::start_with(
            db,
            Settings {
                limit,
                ..Settings::default()
            },
        )
        .await
    }

    /// Serves the pages of a fresh service on `db` as `settings` say.
    pub async fn start_with(db: &TestDb, settings: Settings) -> Site {
        let clock = ManualClock::new(START);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a free port");
        let address: SocketAddr = listener.local_addr().expect("bound");
        let base = format!("http://{address}");
        let service = open(db, &clock).await.with_public_url(&base);
        let (stop, stopped) = watch::channel(false);
        let server = tokio::spawn(pigeon::web::run(
            service.clone(),
            listener,
            settings,
            stopped,
        ));
        Site {
            service,
            clock,
            base,
            stop,
            server,
        }
    }

    /// Stops the server and waits for it, open event streams and all.
    pub async fn stop(self) {
        self.stop.send(true).expect("the server listens");
        tokio::time::timeout(std::time::Duration::from_secs(10), self.server)
            .await
            .expect("the server stops, event streams included")
            .expect("no panic")
            .expect("served without error");
    }

    /// The address of game `id`'s page.
    pub async fn page_of(&self, id: i64) -> String {
        self.service
            .load(id)
            .await
            .expect("loads")
            .page
            .expect("the pages are served")
    }
}

pub fn place() -> Place {
    Place::new("console", "general")
}

pub fn user(name: &str) -> User {
    console::user(name)
}

/// A Chak game of `white` against `black`, with `moves` played.
pub async fn game_with(service: &Service, white: &User, black: &User, moves: &[&str]) -> i64 {
    service
        .challenge(
            &place(),
            white,
            Some(black),
            Variant::Chak,
            None,
            ColorChoice::White,
        )
        .await
        .expect("challenged");
    let id = service
        .accept(&place(), black, None)
        .await
        .expect("accepted")
        .row
        .id;
    for (ply, text) in moves.iter().enumerate() {
        let mover = if ply % 2 == 0 { white } else { black };
        service
            .play(&place(), mover, Some(id), text)
            .await
            .unwrap_or_else(|e| panic!("{text}: {e}"));
    }
    id
}

/// Four opening moves of Chak.
pub const MOVES: [&str; 4] = ["e3e4", "e7e6", "c3c4", "c7c6"];

pub fn header<'a>(response: &'a reqwest::Response, name: &str) -> &'a str {
    response
        .headers()
        .get(name)
        .unwrap_or_else(|| panic!("{} has no {name}", response.url()))
        .to_str()
        .expect("a text header")
}

/// Checks the headers every response has.
pub fn assert_safe(response: &reqwest::Response) {
    assert_eq!(header(response, "x-content-type-options"), "nosniff");
    let policy = header(response, "content-security-policy");
    assert!(policy.starts_with("default-src 'none'"), "{policy}");
    assert!(policy.contains("script-src 'sha256-"), "{policy}");
    assert!(!policy.contains("unsafe-inline"), "{policy}");
    assert!(response.headers().contains_key("cache-control"));
}

pub async fn get(url: &str) -> reqwest::Response {
    let response = reqwest::get(url)
        .await
        .unwrap_or_else(|e| panic!("GET {url}: {e}"));
    assert_safe(&response);
    response
}

/// The 404 page: friendly, HTML, saying what to do next.
pub async fn assert_not_found(url: &str) {
    let response = get(url).await;
    assert_eq!(response.status(), 404, "{url}");
    assert_eq!(
        header(&response, "content-type"),
        "text/html; charset=utf-8"
    );
    let body = response.text().await.expect("a body");
    assert!(body.contains("No such page"), "{url}: {body}");
    assert!(body.contains("follow"), "{url}: {body}");
}

backends! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn every_route_of_a_running_game_answers_with_its_type_and_headers(db: TestDb) {
        let site = Site::start(&db, pigeon::web::RATE_LIMIT).await;
        let eve = user("Eve <script>alert(1)</script> & \"Co\"");
        let id = game_with(&site.service, &eve, &user("bob"), &MOVES[..2]).await;
        let page = site.page_of(id).await;
        let web_id = page.rsplit('/').next().expect("an id").to_owned();
        assert!(pigeon::service::is_web_id(&web_id), "{page}");
        assert_eq!(page, format!("{}/g/{web_id}", site.base));

        let response = get(&page).await;
        assert_eq!(response.status(), 200);
        assert_eq!(header(&response, "content-type"), "text/html; charset=utf-8");
        assert_eq!(header(&response, "cache-control"), "public, max-age=5, must-revalidate");
        let html = response.text().await.expect("a body");
        assert!(!html.contains("<script>alert"), "the name is escaped: {html}");
        assert!(html.contains("Eve &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Co&quot;"));
        assert!(html.contains("<meta name=\"viewport\""));
        assert!(html.contains(&format!(
            "<meta property=\"og:image\" content=\"{page}/board/2.png\">"
        )));
        assert!(html.contains("<meta property=\"og:title\" content=\"Chak: Eve &lt;script"));
        assert!(html.contains("bob (unrated)"), "{html}");
        assert!(html.contains("3 days per move"));
        assert!(html.contains("deadline 2026-"), "{html}");
        assert!(html.contains("data-live=\"1\""));
        assert!(html.contains("<a href=\"?ply=1\" data-ply=\"1\""), "{html}");
        assert!(
            html.contains("data-ply=\"2\" data-alt=\"Chak game #1, move 2, after Green&#39;s"),
            "{html}"
        );
        assert!(html.contains("aria-current=\"step\">e6</a>"), "{html}");
        assert_eq!(html.matches("aria-current=\"step\"").count(), 1);
        assert!(
            !html.contains("src=\"http") && !html.contains("href=\"http"),
            "no external assets: {html}"
        );

        let first = get(&format!("{page}?ply=1&side=black")).await.text().await.expect("a body");
        assert!(first.contains(&format!("src=\"/g/{web_id}/board/1.png?side=black\"")), "{first}");
        assert!(first.contains("data-ply=\"1\" data-alt=") && first.contains("class=\"current\""));
        assert_not_found(&format!("{page}?ply=3")).await;
        assert_not_found(&format!("{page}?ply=x")).await;

        for (path, side) in [("board/0.png", ""), ("board/2.png", "?side=black")] {
            let response = get(&format!("{page}/{path}{side}")).await;
            assert_eq!(response.status(), 200, "{path}");
            assert_eq!(header(&response, "content-type"), "image/png");
            assert_eq!(header(&response, "cache-control"), "public, max-age=10");
            let png = response.bytes().await.expect("a body");
            assert!(png.starts_with(b"\x89PNG"), "{path}");
        }
        let white = get(&format!("{page}/board/1.png")).await.bytes().await.expect("png");
        let black = get(&format!("{page}/board/1.png?side=black")).await.bytes().await.expect("png");
        assert_ne!(white, black, "the side turns the board");
        assert_not_found(&format!("{page}/board/3.png")).await;
        assert_not_found(&format!("{page}/board/1.gif")).await;
        assert_not_found(&format!("{page}/board/-1.png")).await;

        let response = get(&format!("{page}/record.pgn")).await;
        assert_eq!(response.status(), 200);
        assert_eq!(header(&response, "content-type"), "application/x-chess-pgn; charset=utf-8");
        assert!(header(&response, "content-disposition").starts_with("attachment; filename="));
        let record = response.text().await.expect("a body");
        assert!(record.contains(&format!("[Site \"{page}\"]")), "{record}");
        assert!(record.contains("1. Pe4 Pe6"), "{record}");
        assert!(record.trim_end().ends_with('*'), "{record}");

        let response = get(&format!("{page}/replay.gif")).await;
        assert_eq!(response.status(), 200);
        assert_eq!(header(&response, "content-type"), "image/gif");
        let gif = response.bytes().await.expect("a body");
        assert_eq!(crate::common::gif_frames(&gif), 3);

        let mut response = get(&format!("{page}/events")).await;
        assert_eq!(response.status(), 200);
        assert_eq!(header(&response, "content-type"), "text/event-stream");
        assert_eq!(header(&response, "cache-control"), "no-store");
        let first = response.chunk().await.expect("reads").expect("an event");
        assert_eq!(String::from_utf8_lossy(&first), "event: move\ndata: 2\n\n");
        drop(response);

        let home = get(&format!("{}/", site.base)).await;
        assert_eq!(home.status(), 200);
        let wrong = web_id.replace(|c: char| c.is_ascii_digit(), "a");
        assert_ne!(wrong, web_id);
        for path in [
            format!("/g/{wrong}"),
            format!("/g/{wrong}/board/0.png"),
            format!("/g/{wrong}/record.pgn"),
            format!("/g/{wrong}/replay.gif"),
            format!("/g/{wrong}/events"),
            format!("/g/{id}"),
            String::from("/g/%3Cscript%3E"),
            String::from("/games"),
            String::from("/g/"),
        ] {
            assert_not_found(&format!("{}{path}", site.base)).await;
        }
        site.stop().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_finished_games_pictures_are_immutable(db: TestDb) {
        let site = Site::start(&db, pigeon::web::RATE_LIMIT).await;
        let (alice, bob) = (user("alice"), user("bob"));
        let id = game_with(&site.service, &alice, &bob, &MOVES).await;
        site.service.resign(&place(), &bob, Some(id)).await.expect("resigned");
        let page = site.page_of(id).await;
        let response = get(&page).await;
        assert_eq!(header(&response, "cache-control"), "public, max-age=300");
        let html = response.text().await.expect("a body");
        assert!(!html.contains("data-live"), "a finished game has no events to follow");
        assert!(html.contains("Result: 1-0, White (alice) wins by resignation."), "{html}");
        assert!(html.contains("the game is over"), "{html}");
        for path in ["board/4.png", "board/0.png", "replay.gif"] {
            let response = get(&format!("{page}/{path}")).await;
            assert_eq!(response.status(), 200, "{path}");
            assert_eq!(header(&response, "cache-control"), "public, max-age=31536000, immutable");
        }
        let record = get(&format!("{page}/record.pgn")).await.text().await.expect("a body");
        assert!(record.contains("[Result \"1-0\"]") && record.trim_end().ends_with("1-0"), "{record}");
        let mut events = get(&format!("{page}/events")).await;
        let end = events.chunk().await.expect("reads").expect("an event");
        assert_eq!(String::from_utf8_lossy(&end), "event: end\ndata: 4\n\n");
        assert!(events.chunk().await.expect("reads").is_none(), "the stream ends");
        site.stop().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_running_games_events_follow_its_moves_and_end(db: TestDb) {
        let site = Site::start(&db, pigeon::web::RATE_LIMIT).await;
        let (alice, bob) = (user("alice"), user("bob"));
        let id = game_with(&site.service, &alice, &bob, &[]).await;
        let other = game_with(&site.service, &user("carol"), &user("dave"), &[]).await;
        let page = site.page_of(id).await;
        let mut events = get(&format!("{page}/events")).await;
        let mut next = async || {
            let chunk = tokio::time::timeout(std::time::Duration::from_secs(10), events.chunk())
                .await
                .expect("an event in time")
                .expect("reads")
                .expect("the stream goes on");
            String::from_utf8_lossy(&chunk).into_owned()
        };
        assert_eq!(next().await, "event: move\ndata: 0\n\n");
        site.service.play(&place(), &user("carol"), Some(other), "e3e4").await.expect("played");
        site.service.play(&place(), &alice, Some(id), "e3e4").await.expect("played");
        assert_eq!(next().await, "event: move\ndata: 1\n\n", "only this game's moves");
        site.service.play(&place(), &bob, Some(id), "e7e6").await.expect("played");
        assert_eq!(next().await, "event: move\ndata: 2\n\n");
        site.service.resign(&place(), &bob, Some(id)).await.expect("resigned");
        assert_eq!(next().await, "event: end\ndata: 2\n\n");
        site.stop().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_client_and_the_site_hold_only_so_many_event_streams(db: TestDb) {
        let settings = Settings { streams_per_client: 2, most_streams: 3, ..Settings::default() };
        let site = Site::start_with(&db, settings).await;
        let id = game_with(&site.service, &user("alice"), &user("bob"), &[]).await;
        let events = format!("{}/events", site.page_of(id).await);
        let client = reqwest::Client::new();
        let from = |ip: &'static str| client.get(&events).header("x-forwarded-for", ip).send();
        let first = from("203.0.113.7").await.expect("answers");
        let second = from("203.0.113.7").await.expect("answers");
        assert_eq!(first.status(), 200);
        assert_eq!(second.status(), 200);
        let refused = from("203.0.113.7").await.expect("answers");
        assert_eq!(refused.status(), 429);
        assert_eq!(header(&refused, "retry-after"), "30");
        assert!(refused.text().await.expect("a body").contains("Close some tabs"));
        // Another client has its own allowance, until the site holds as many as it may.
        let third = from("198.51.100.1").await.expect("answers");
        assert_eq!(third.status(), 200);
        assert_eq!(from("198.51.100.2").await.expect("answers").status(), 429);
        // The page itself is never refused for it.
        assert_eq!(client.get(site.page_of(id).await).header("x-forwarded-for", "203.0.113.7").send().await.expect("answers").status(), 200);
        drop((first, second, third));
        site.stop().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_client_over_its_limit_is_told_when_to_come_back(db: TestDb) {
        let site = Site::start(&db, RateLimit { burst: 3, interval: 2 }).await;
        let id = game_with(&site.service, &user("alice"), &user("bob"), &[]).await;
        let page = site.page_of(id).await;
        for _ in 0..3 {
            assert_eq!(get(&page).await.status(), 200);
        }
        let refused = get(&page).await;
        assert_eq!(refused.status(), 429);
        assert_eq!(header(&refused, "retry-after"), "2");
        assert_eq!(header(&refused, "cache-control"), "no-store");
        assert!(refused.text().await.expect("a body").contains("Wait 2 seconds"));
        // Behind a reverse proxy on this machine, each client has its own allowance.
        let client = reqwest::Client::new();
        let proxied = |ip: &'static str| client.get(&page).header("x-forwarded-for", ip).send();
        assert_eq!(proxied("203.0.113.7").await.expect("answers").status(), 200);
        assert_eq!(proxied("198.51.100.1, 203.0.113.8").await.expect("answers").status(), 200);
        // The allowance comes back with the service's clock.
        site.clock.advance(2);
        assert_eq!(get(&page).await.status(), 200);
        assert_eq!(get(&page).await.status(), 429);
        site.stop().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn chat_links_each_game_to_its_page(db: TestDb) {
        let site = Site::start(&db, pigeon::web::RATE_LIMIT).await;
        let said = |who: &str, text: &str| -> Incoming {
            console::incoming(&console::Line {
                channel: String::from("general"),
                name: who.to_owned(),
                text: text.to_owned(),
            })
        };
        let service = &site.service;
        chat::handle(service, &said("alice", "challenge @bob chak white")).await;
        let started = chat::handle(service, &said("bob", "accept")).await;
        let page = site.page_of(1).await;
        let link = format!("The game's page: {page}");
        let text = |replies: &[chat::Reply]| -> String {
            replies.iter().map(chat::Reply::plain).collect::<Vec<_>>().join("\n")
        };
        assert!(text(&started).contains(&link), "{}", text(&started));
        let moved = chat::handle(service, &said("alice", "e3e4")).await;
        assert!(text(&moved).contains(&link), "{}", text(&moved));
        let games = chat::handle(service, &said("alice", "games")).await;
        assert!(text(&games).contains(&page), "{}", text(&games));
        let export = chat::handle(service, &said("alice", "export")).await;
        assert!(text(&export).contains(&format!("[Site \"{page}\"]")), "{}", text(&export));
        let ended = chat::handle(service, &said("bob", "resign confirm")).await;
        assert!(text(&ended).contains(&link), "{}", text(&ended));
        site.stop().await;
    }

    #[tokio::test]
    async fn without_the_web_server_chat_has_no_links(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        let id = game_with(&service, &user("alice"), &user("bob"), &MOVES[..1]).await;
        let state = service.load(id).await.expect("loads");
        assert_eq!(state.page, None);
        assert!(pigeon::service::is_web_id(state.row.web_id.as_deref().expect("an address")));
        let record = pigeon::service::export(&state);
        assert!(record.contains("[Site \"Pigeon on console\"]"), "{record}");
    }
}
