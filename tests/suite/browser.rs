//! The game pages in a real browser: headless Chromium driven through its WebDriver
//! (`tests/chromium.sh` starts chromedriver and sets `PIGEON_TEST_WEBDRIVER`). Screenshots of
//! the pages go to `target/screenshots/` for people to look at.

use std::path::PathBuf;
use std::time::Duration;

use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

use crate::analysis::blundered_game;
use crate::common::{Backend, TestDb};
use crate::web::{MOVES, Site, game_with, place, user};
use crate::web_pages::{page_of, player, started};

/// A headless Chromium session through the WebDriver `PIGEON_TEST_WEBDRIVER` names.
async fn browser() -> Client {
    // The WebDriver client speaks plain HTTP here, but its TLS stack wants a provider chosen.
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    let webdriver = std::env::var("PIGEON_TEST_WEBDRIVER").unwrap_or_else(|_| {
        panic!(
            "PIGEON_TEST_WEBDRIVER is not set, so the browser tests cannot run: run the suite \
             through tests/run (or tests/chromium.sh cargo test …), which installs Chromium \
             and chromedriver when they are missing, starts chromedriver and sets it"
        )
    });
    let mut options = json!({
        "args": [
            "--headless=new",
            "--no-sandbox",
            "--disable-dev-shm-usage",
            "--disable-gpu",
            "--window-size=1280,1100",
        ],
    });
    if let Ok(binary) = std::env::var("CHROMIUM_BIN") {
        options["binary"] = Value::String(binary);
    }
    let mut capabilities = serde_json::Map::new();
    capabilities.insert("browserName".into(), json!("chrome"));
    capabilities.insert("goog:chromeOptions".into(), options);
    ClientBuilder::rustls()
        .expect("a TLS configuration")
        .capabilities(capabilities)
        .connect(&webdriver)
        .await
        .unwrap_or_else(|e| panic!("a Chromium session through {webdriver}: {e}"))
}

/// Saves a screenshot of the page as `target/screenshots/<name>.png`.
async fn screenshot(client: &Client, name: &str) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
    std::fs::create_dir_all(&dir).expect("the screenshots folder");
    let png = client.screenshot().await.expect("a screenshot");
    std::fs::write(dir.join(format!("{name}.png")), png).expect("the screenshot is saved");
}

/// Runs `script` in the page and returns its value.
async fn eval(client: &Client, script: &str) -> Value {
    client
        .execute(script, Vec::new())
        .await
        .unwrap_or_else(|e| panic!("{script}: {e}"))
}

/// The board picture's address and alt text, and the highlighted move's ply.
async fn shown(client: &Client) -> (String, String, String) {
    let board = client.find(Locator::Css("#board")).await.expect("a board");
    let src = board.attr("src").await.expect("reads").expect("a src");
    let alt = board.attr("alt").await.expect("reads").expect("an alt");
    let current = client
        .find(Locator::Css("a.current[aria-current]"))
        .await
        .expect("a highlighted move");
    let ply = current
        .attr("data-ply")
        .await
        .expect("reads")
        .expect("a ply");
    (src, alt, ply)
}

/// Waits until the board picture has loaded (it is drawn on request).
async fn board_loaded(client: &Client) {
    for _ in 0..200 {
        let done = eval(
            client,
            "const b = document.getElementById('board'); return b.complete && b.naturalWidth > 0;",
        )
        .await;
        if done == Value::Bool(true) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the board picture did not load");
}

async fn press(client: &Client, key: Key) {
    client
        .find(Locator::Css("body"))
        .await
        .expect("a body")
        .send_keys(&key.to_string())
        .await
        .expect("the key is pressed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_game_steps_through_its_moves_in_a_browser() {
    let db = TestDb::new(Backend::Sqlite).await;
    let site = Site::start(&db, pigeon::web::RATE_LIMIT).await;
    let (alice, bob) = (user("alice"), user("bob"));
    let id = game_with(&site.service, &alice, &bob, &MOVES).await;
    site.service
        .resign(&place(), &bob, Some(id))
        .await
        .expect("resigned");
    let page = site.page_of(id).await;
    let path = page.trim_start_matches(&site.base).to_owned();
    let client = browser().await;
    client.goto(&page).await.expect("the page opens");
    board_loaded(&client).await;
    screenshot(&client, "finished-game").await;

    assert_eq!(
        client.title().await.expect("a title"),
        "Chak: alice vs bob · Pigeon"
    );
    let meta = |property: &str| {
        format!("return document.querySelector('meta[property=\"{property}\"]').content")
    };
    assert_eq!(
        eval(&client, &meta("og:title")).await,
        json!("Chak: alice vs bob")
    );
    assert_eq!(
        eval(&client, &meta("og:image")).await,
        json!(format!("{page}/board/4.png"))
    );
    let description = eval(&client, &meta("og:description")).await;
    assert!(
        description
            .as_str()
            .is_some_and(|d| d.contains("White (alice) wins by resignation")),
        "{description}"
    );

    let (src, alt, ply) = shown(&client).await;
    assert_eq!(src, format!("{path}/board/4.png"));
    assert_eq!(ply, "4");
    assert!(alt.contains("after Green's c6; the game is over"), "{alt}");

    press(&client, Key::Left).await;
    let (src, alt, ply) = shown(&client).await;
    assert_eq!(
        (src.as_str(), ply.as_str()),
        (&*format!("{path}/board/3.png"), "3")
    );
    assert!(
        alt.contains("move 2, after White's c4; Green to move"),
        "{alt}"
    );
    assert!(
        client
            .current_url()
            .await
            .expect("a URL")
            .as_str()
            .ends_with("?ply=3")
    );
    board_loaded(&client).await;
    screenshot(&client, "finished-game-ply-3").await;

    press(&client, Key::Right).await;
    assert_eq!(shown(&client).await.2, "4");
    press(&client, Key::Home).await;
    let (src, alt, ply) = shown(&client).await;
    assert_eq!(
        (src.as_str(), ply.as_str()),
        (&*format!("{path}/board/0.png"), "0")
    );
    assert!(alt.contains("the start position"), "{alt}");
    press(&client, Key::Left).await;
    assert_eq!(shown(&client).await.2, "0", "no step before the start");
    press(&client, Key::End).await;
    assert_eq!(shown(&client).await.2, "4");

    client
        .find(Locator::Css("a[data-go=flip]"))
        .await
        .expect("a flip button")
        .click()
        .await
        .expect("flipped");
    assert_eq!(
        shown(&client).await.0,
        format!("{path}/board/4.png?side=black")
    );
    board_loaded(&client).await;
    client
        .find(Locator::Css("a[data-ply=\"2\"]"))
        .await
        .expect("move 1 of Green")
        .click()
        .await
        .expect("clicked");
    assert_eq!(
        shown(&client).await.0,
        format!("{path}/board/2.png?side=black")
    );
    board_loaded(&client).await;
    screenshot(&client, "finished-game-flipped").await;

    let record = client
        .find(Locator::Css("a[download]"))
        .await
        .expect("a record link")
        .prop("href")
        .await
        .expect("reads")
        .expect("a link");
    assert_eq!(record, format!("{page}/record.pgn"));
    let pgn = reqwest::get(&record)
        .await
        .expect("the record downloads")
        .text()
        .await
        .expect("a body");
    assert!(
        pgn.contains("[Result \"1-0\"]") && pgn.contains("1. Pe4 Pe6 2. Pc4 Pc6"),
        "{pgn}"
    );

    client.close().await.expect("the browser closes");
    site.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_games_page_shows_each_move_as_it_is_played() {
    let db = TestDb::new(Backend::Sqlite).await;
    let site = Site::start(&db, pigeon::web::RATE_LIMIT).await;
    let (alice, bob) = (user("alice"), user("bob"));
    let id = game_with(&site.service, &alice, &bob, &MOVES[..2]).await;
    let page = site.page_of(id).await;
    let path = page.trim_start_matches(&site.base).to_owned();
    let client = browser().await;
    client.goto(&page).await.expect("the page opens");
    board_loaded(&client).await;
    screenshot(&client, "running-game").await;
    assert_eq!(shown(&client).await.2, "2");
    // A reload would forget this.
    eval(&client, "window.pigeonMarker = 'kept'; return true;").await;

    site.service
        .play(&place(), &alice, Some(id), MOVES[2])
        .await
        .expect("played");
    let wait = |css: &'static str| {
        let client = client.clone();
        async move {
            client
                .wait()
                .at_most(Duration::from_secs(15))
                .for_element(Locator::Css(css))
                .await
                .unwrap_or_else(|e| panic!("{css} did not appear: {e}"))
        }
    };
    wait("a.current[data-ply=\"3\"]").await;
    let (src, _, _) = shown(&client).await;
    assert_eq!(src, format!("{path}/board/3.png"));
    assert_eq!(
        eval(
            &client,
            "return window.location.pathname + window.location.search;"
        )
        .await,
        json!(format!("{path}?ply=3"))
    );
    assert_eq!(
        eval(&client, "return window.pigeonMarker;").await,
        json!("kept"),
        "no reload: the page changed in place"
    );
    board_loaded(&client).await;
    screenshot(&client, "running-game-after-a-move").await;

    site.service
        .resign(&place(), &bob, Some(id))
        .await
        .expect("resigned");
    wait("main#game:not([data-live])").await;
    let status = client
        .find(Locator::Css(".status"))
        .await
        .expect("a status")
        .text()
        .await
        .expect("reads");
    assert_eq!(status, "Result: 1-0, White (alice) wins by resignation.");
    screenshot(&client, "running-game-ended").await;

    client.close().await.expect("the browser closes");
    site.stop().await;
}

/// Screenshots of the page at a phone's width too, then back to the desktop's.
async fn screenshots(client: &Client, name: &str) {
    screenshot(client, name).await;
    client
        .set_window_size(390, 1600)
        .await
        .expect("a phone's width");
    screenshot(client, &format!("{name}-phone")).await;
    let fits = eval(
        client,
        "return document.documentElement.scrollWidth <= window.innerWidth;",
    )
    .await;
    assert_eq!(
        fits,
        json!(true),
        "{name}: nothing wider than a phone's screen"
    );
    client
        .set_window_size(1280, 1100)
        .await
        .expect("a desktop's width");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_page_leads_to_its_games_in_a_browser() {
    let db = TestDb::new(Backend::Sqlite).await;
    let site = Site::start(&db, pigeon::web::RATE_LIMIT).await;
    let info = started(&site.service, pigeon::service::Format::Swiss).await;
    let (url, page) = page_of(&site.service, &info).await;
    let first = page.games[0].clone();
    site.service
        .resign(&place(), &player(&page, first.black), Some(first.number))
        .await
        .expect("resigned");
    let client = browser().await;
    client.goto(&url).await.expect("the page opens");
    assert_eq!(
        client.title().await.expect("a title"),
        "Autumn <Cup> · Chak tournament · Pigeon"
    );
    let rows = eval(
        &client,
        "return document.querySelectorAll('table.standings tbody tr').length;",
    )
    .await;
    assert_eq!(rows, json!(4));
    screenshots(&client, "tournament").await;
    let path = first.path.clone().expect("a game page");
    client
        .find(Locator::Css(&format!(".rounds a[href=\"{path}\"]")))
        .await
        .expect("the game's link")
        .click()
        .await
        .expect("followed");
    client
        .wait()
        .at_most(Duration::from_secs(15))
        .for_element(Locator::Css("main#game"))
        .await
        .expect("the game's page");
    assert_eq!(
        eval(&client, "return window.location.pathname;").await,
        json!(path)
    );
    board_loaded(&client).await;
    let status = client
        .find(Locator::Css(".status"))
        .await
        .expect("a status")
        .text()
        .await
        .expect("reads");
    assert!(status.starts_with("Result: 1-0"), "{status}");
    screenshot(&client, "tournament-game").await;
    client.close().await.expect("the browser closes");
    site.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_analysed_game_shows_its_graph_and_marks_in_a_browser() {
    let db = TestDb::new(Backend::Sqlite).await;
    let site = Site::start(&db, pigeon::web::RATE_LIMIT).await;
    let id = blundered_game(&site.service).await;
    site.service.analyse_next().await.expect("analysed");
    let page = site.page_of(id).await;
    let client = browser().await;
    client.goto(&page).await.expect("the page opens");
    board_loaded(&client).await;
    let graph = eval(
        &client,
        "const g = document.querySelector('img.graph'); return g.complete && g.naturalWidth;",
    )
    .await;
    assert_eq!(graph, json!(pigeon::render::GRAPH_WIDTH));
    let mark = client
        .find(Locator::Css(".moves .mark.blunder"))
        .await
        .expect("a blunder mark");
    assert_eq!(mark.text().await.expect("reads"), "??");
    // The judged move in the analysis steps the board to it.
    client
        .find(Locator::Css(".judged a[data-ply=\"5\"]"))
        .await
        .expect("the judged move")
        .click()
        .await
        .expect("clicked");
    assert_eq!(shown(&client).await.2, "5");
    board_loaded(&client).await;
    screenshots(&client, "analysed-game").await;
    client.close().await.expect("the browser closes");
    site.stop().await;
}
