//! The pages beyond a game's own: a tournament's page and its standings picture, the
//! analysis on a game's page, and a running game's events when its moves are made by another
//! process sharing the database.

use std::time::Duration;

use pigeon::adapters::console;
use pigeon::chat::{self, Incoming};
use pigeon::rules::Variant;
use pigeon::service::{
    Format, Service, StartTime, TournamentInfo, TournamentPage, TournamentRequest,
};
use pigeon::web::Settings;

use crate::analysis::blundered_game;
use crate::common::backends;
use crate::transcripts::open;
use crate::web::{Site, assert_not_found, game_with, get, header, place, user};

/// A tournament of alice, bob, carol and `Eve <b>` (a name to escape), started.
pub async fn started(service: &Service, format: Format) -> TournamentInfo {
    let request = TournamentRequest {
        name: String::from("Autumn <Cup>"),
        variant: Variant::Chak,
        format,
        rounds: Some(3),
        days: Some(2),
        rated: Some(false),
        start: StartTime::Manual,
        max_players: None,
        round_days: None,
    };
    let info = service
        .create_tournament(&place(), &user("alice"), true, &request)
        .await
        .expect("created");
    for name in ["alice", "bob", "carol", "Eve <b>"] {
        service
            .join_tournament(&place(), &user(name), Some(info.id))
            .await
            .expect("joined");
    }
    service
        .start_tournament(&place(), &user("alice"), true, Some(info.id))
        .await
        .expect("started")
}

/// The tournament's page content, found by the address in `info`.
pub async fn page_of(service: &Service, info: &TournamentInfo) -> (String, TournamentPage) {
    let url = info.page.clone().expect("the pages are served");
    let id = url.rsplit('/').next().expect("an id").to_owned();
    assert!(pigeon::service::is_web_id(&id), "{url}");
    let page = service
        .tournament_page(&id)
        .await
        .expect("reads")
        .expect("found by its address");
    (url, page)
}

/// The player of `page` at `index`.
pub fn player(page: &TournamentPage, index: usize) -> pigeon::service::User {
    page.standings.tournament.players[index].user.clone()
}

async fn text_of(url: &str) -> String {
    let response = get(url).await;
    assert_eq!(response.status(), 200, "{url}");
    assert_eq!(
        header(&response, "content-type"),
        "text/html; charset=utf-8"
    );
    response.text().await.expect("a body")
}

backends! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_swiss_page_has_standings_crosstable_rounds_and_its_picture(db: TestDb) {
        let site = Site::start(&db, pigeon::web::RATE_LIMIT).await;
        let service = &site.service;
        let info = started(service, Format::Swiss).await;
        let (url, page) = page_of(service, &info).await;
        assert!(url.starts_with(&format!("{}/t/", site.base)), "{url}");
        // Round 1: the first game is won by White on resignation, the other goes on.
        let first = page.games[0].clone();
        let second = page.games[1].clone();
        service
            .resign(&place(), &player(&page, first.black), Some(first.number))
            .await
            .expect("resigned");
        let response = get(&url).await;
        assert_eq!(response.status(), 200);
        assert_eq!(header(&response, "content-type"), "text/html; charset=utf-8");
        assert_eq!(header(&response, "cache-control"), "public, max-age=5, must-revalidate");
        let html = response.text().await.expect("a body");
        // Names are escaped, never markup.
        assert!(html.contains("Autumn &lt;Cup&gt;"), "{html}");
        assert!(html.contains("Eve &lt;b&gt;"), "{html}");
        assert!(!html.contains("Eve <b>"), "{html}");
        assert!(html.contains("Swiss of 3 rounds"), "{html}");
        assert!(html.contains("2 days per move, casual"), "{html}");
        assert!(html.contains("Running: round 1 of 3"), "{html}");
        for section in ["<h2>Standings</h2>", "<h2>Crosstable</h2>", "<h2>Rounds</h2>"] {
            assert!(html.contains(section), "{section}: {html}");
        }
        assert!(html.contains("BH-C1"), "{html}");
        // Each game of the round links to its page; the finished one shows its result.
        for game in [&first, &second] {
            let path = game.path.clone().expect("a page");
            assert!(html.contains(&format!("<a href=\"{path}\">Game #{}</a>", game.number)), "{html}");
        }
        assert!(html.contains("1-0"), "{html}");
        assert!(html.contains("being played"), "{html}");
        let winner = &page.standings.tournament.players[first.white].user.name;
        let leader = html.split("<tbody>").nth(1).expect("the standings' rows");
        assert!(
            leader.starts_with(&format!("\n<tr><td>1</td><th scope=\"row\">{}", winner.replace('<', "&lt;").replace('>', "&gt;"))),
            "{leader}"
        );
        // The crosstable's cell of the winner: opponent's rank, White, a win.
        assert!(html.contains("w 1</a>"), "{html}");
        assert!(html.contains("b 0</a>"), "{html}");
        // The link preview: its title, description and the standings picture.
        assert!(html.contains("<meta property=\"og:title\" content=\"Autumn &lt;Cup&gt; · Chak tournament\">"), "{html}");
        assert!(html.contains(&format!("<meta property=\"og:image\" content=\"{url}/standings.png\">")), "{html}");
        assert!(html.contains("og:description"), "{html}");
        // The game's page is reachable from the tournament's.
        let game_page = text_of(&format!("{}{}", site.base, first.path.clone().expect("a page"))).await;
        assert!(game_page.contains("Result: "), "{game_page}");
        // The standings picture: a PNG with a row per player under its title and header.
        let picture = get(&format!("{url}/standings.png")).await;
        assert_eq!(picture.status(), 200);
        assert_eq!(header(&picture, "content-type"), "image/png");
        assert_eq!(header(&picture, "cache-control"), "public, max-age=10");
        let data = picture.bytes().await.expect("a body");
        let decoder = png::Decoder::new(std::io::Cursor::new(data.to_vec()));
        let reader = decoder.read_info().expect("a PNG");
        assert_eq!(reader.info().height, 32 * (4 + 2));
        // Unknown addresses: a friendly 404, for the page and its picture.
        let unknown = "0123456789abcdef0123456789abcdef";
        assert_not_found(&format!("{}/t/{unknown}", site.base)).await;
        assert_not_found(&format!("{}/t/{unknown}/standings.png", site.base)).await;
        assert_not_found(&format!("{}/t/{}", site.base, info.id)).await;
        site.stop().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_double_round_robin_crosstable_has_both_games_and_chat_links_the_page(db: TestDb) {
        let site = Site::start(&db, pigeon::web::RATE_LIMIT).await;
        let service = &site.service;
        let said = |who: &str, text: &str| -> Incoming {
            console::incoming(&console::Line {
                channel: String::from("general"),
                name: who.to_owned(),
                text: text.to_owned(),
            })
        };
        let text = |replies: &[chat::Reply]| -> String {
            replies.iter().map(chat::Reply::plain).collect::<Vec<_>>().join("\n")
        };
        let info = started(service, Format::Double).await;
        let (url, page) = page_of(service, &info).await;
        // 4 players, each pair twice: 12 games in 6 rounds.
        assert_eq!(page.games.len(), 12);
        let link = format!("The tournament's page: {url}");
        let standings = chat::handle(service, &said("bob", &format!("tournament standings {}", info.id))).await;
        assert!(text(&standings).contains(&link), "{}", text(&standings));
        let about = chat::handle(service, &said("bob", &format!("tournament info {}", info.id))).await;
        assert!(text(&about).contains(&link), "{}", text(&about));
        // One game of each pair of alice and bob ends: a draw, then a win for the second.
        let alice_bob: Vec<_> = page
            .games
            .iter()
            .filter(|g| {
                let names = [player(&page, g.white).name, player(&page, g.black).name];
                names.contains(&String::from("alice")) && names.contains(&String::from("bob"))
            })
            .cloned()
            .collect();
        assert_eq!(alice_bob.len(), 2);
        assert_eq!(alice_bob[0].white, alice_bob[1].black, "both colours");
        service
            .resign(&place(), &player(&page, alice_bob[1].white), Some(alice_bob[1].number))
            .await
            .expect("resigned");
        let html = text_of(&url).await;
        assert!(html.contains("double round robin"), "{html}");
        assert!(html.contains("<abbr title=\"Sonneborn-Berger\">SB</abbr>"), "{html}");
        // The cell of the winner against the loser holds both games: one going, one won.
        let winner = player(&page, alice_bob[1].black).name;
        let row = html
            .split("<table class=\"cross\">")
            .nth(1)
            .and_then(|table| table.split(&format!("<th scope=\"row\">{winner}</th>")).nth(1))
            .and_then(|row| row.split("</tr>").next())
            .expect("the winner's row in the crosstable")
            .to_owned();
        assert!(
            row.split("<td>").any(|cell| cell.contains(">1</a>") && cell.contains(">·</a>")),
            "{row}"
        );
        assert!(row.contains("<td class=\"self\""), "{row}");
        site.stop().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_analysed_games_page_shows_its_graph_accuracy_and_marks(db: TestDb) {
        let site = Site::start(&db, pigeon::web::RATE_LIMIT).await;
        let service = &site.service;
        // A running game and one that ended before both sides moved: no analysis at all.
        let running = game_with(service, &user("carol"), &user("dave"), &["e3e4"]).await;
        let page = site.page_of(running).await;
        let html = text_of(&page).await;
        assert!(!html.contains("id=\"analysis\""), "{html}");
        assert_not_found(&format!("{page}/analysis.png")).await;
        // The blundered game: queued when it ended.
        let id = blundered_game(service).await;
        let page = site.page_of(id).await;
        let html = text_of(&page).await;
        assert!(html.contains("analysis of this game is queued"), "{html}");
        assert!(!html.contains("analysis.png"), "{html}");
        assert_not_found(&format!("{page}/analysis.png")).await;
        assert_eq!(service.analyse_next().await.expect("analysed"), Some(id));
        let html = text_of(&page).await;
        let path = page.trim_start_matches(&site.base);
        assert!(html.contains(&format!("<img class=\"graph\" src=\"{path}/analysis.png\" alt=\"Evaluation graph of game #{id}")), "{html}");
        assert!(html.contains("Marked moves: 3. Rf9-g9??"), "{html}");
        // The figures of each player, and the blunder with the better move in the list.
        assert!(html.contains("<th scope=\"row\">alice (White)</th><td>"), "{html}");
        assert!(html.contains("1 <span class=\"words\">blunders</span>"), "{html}");
        assert!(html.contains("%</td>"), "{html}");
        assert!(html.contains("<span class=\"mark blunder\" title=\"Blunder (??); better: Re3-l3\" aria-label=\"Blunder (??); better: Re3-l3\">??</span>"), "{html}");
        assert!(html.contains("3. Rf9-g9??</a> blunder, better was Re3-l3</li>"), "{html}");
        let graph = get(&format!("{page}/analysis.png")).await;
        assert_eq!(graph.status(), 200);
        assert_eq!(header(&graph, "content-type"), "image/png");
        assert_eq!(header(&graph, "cache-control"), "public, max-age=31536000, immutable");
        let data = graph.bytes().await.expect("a body");
        let reader = png::Decoder::new(std::io::Cursor::new(data.to_vec())).read_info().expect("a PNG");
        assert_eq!(reader.info().width, pigeon::render::GRAPH_WIDTH);
        assert_not_found(&format!("{}/g/0123456789abcdef0123456789abcdef/analysis.png", site.base)).await;
        site.stop().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_move_made_by_another_process_reaches_the_page_once(db: TestDb) {
        let site = Site::start_with(
            &db,
            Settings { watch: Duration::from_millis(100), ..Settings::default() },
        )
        .await;
        // Another process on the same database: its moves are not broadcast to the site's.
        let other = open(&db, &site.clock).await;
        let (alice, bob) = (user("alice"), user("bob"));
        let id = game_with(&other, &alice, &bob, &[]).await;
        let page = site.page_of(id).await;
        let mut events = get(&format!("{page}/events")).await;
        let mut next = async || {
            let chunk = tokio::time::timeout(Duration::from_secs(10), events.chunk())
                .await
                .expect("an event in time")
                .expect("reads")
                .expect("the stream goes on");
            String::from_utf8_lossy(&chunk).into_owned()
        };
        assert_eq!(next().await, "event: move\ndata: 0\n\n");
        other.play(&place(), &alice, Some(id), "e3e4").await.expect("played");
        assert_eq!(next().await, "event: move\ndata: 1\n\n");
        // A move in the site's own process is heard both ways, and told once.
        site.service.play(&place(), &bob, Some(id), "e7e6").await.expect("played");
        assert_eq!(next().await, "event: move\ndata: 2\n\n");
        other.play(&place(), &alice, Some(id), "c3c4").await.expect("played");
        assert_eq!(next().await, "event: move\ndata: 3\n\n");
        other.resign(&place(), &bob, Some(id)).await.expect("resigned");
        assert_eq!(next().await, "event: end\ndata: 3\n\n");
        let after = tokio::time::timeout(Duration::from_secs(10), events.chunk())
            .await
            .expect("the stream ends in time")
            .expect("reads");
        assert!(after.is_none(), "nothing after the end: {after:?}");
        other.store().close().await;
        site.stop().await;
    }
}
