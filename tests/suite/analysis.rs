//! Post-game analysis on both backends: a short game's blunder found with the better move and
//! told in the game's place with its graph; the annotated record; one claim per analysis
//! across processes, and an analysis whose process died taken over once its claim lapsed;
//! games that are not analysed (running, aborted, against the bot) and the refusals.

use pigeon::adapters::console;
use pigeon::chat::{self, Reply};
use pigeon::engine::Level;
use pigeon::engine::analysis::Judgement;
use pigeon::rules::{Color, Variant};
use pigeon::service::{
    AnalysisStatus, Challenged, Clock, ColorChoice, DAY, ManualClock, Notice, Place, Service,
    ServiceError, Terms, User,
};
use pigeon::store::{ANALYSIS_LEASE, NewNotice};

use crate::common::backends;
use crate::correspondence::tick;
use crate::transcripts::{START, open};

fn place() -> Place {
    Place::new(console::PLATFORM, "general")
}

fn user(name: &str) -> User {
    console::user(name)
}

/// A short Chad game: White's fifth move puts a rook where Black's rook takes it.
pub const HANGING_ROOK: [&str; 6] = ["Rc5-c9", "Rj8-j6", "Rc9-f9", "Rj6-f6", "Rf9-g9", "Rh9xg9"];

/// A Chad game of alice (White) against bob with `moves` played, still running.
async fn chad_game(service: &Service, moves: &[&str]) -> i64 {
    service
        .challenge(
            &place(),
            &user("alice"),
            Some(&user("bob")),
            Variant::Chad,
            None,
            ColorChoice::White,
        )
        .await
        .expect("challenged");
    let id = service
        .accept(&place(), &user("bob"), None)
        .await
        .expect("accepted")
        .row
        .id;
    for (index, text) in moves.iter().enumerate() {
        let name = if index % 2 == 0 { "alice" } else { "bob" };
        service
            .play(&place(), &user(name), Some(id), text)
            .await
            .unwrap_or_else(|e| panic!("{name} plays {text}: {e}"));
    }
    id
}

/// The hanging-rook game, resigned by alice.
pub async fn blundered_game(service: &Service) -> i64 {
    let id = chad_game(service, &HANGING_ROOK).await;
    service
        .resign(&place(), &user("alice"), Some(id))
        .await
        .expect("resigned");
    id
}

/// What a user's line gets back through the chat layer, as text.
async fn say(service: &Service, name: &str, text: &str) -> Vec<Reply> {
    let line = console::Line {
        channel: String::from("general"),
        name: name.to_owned(),
        text: text.to_owned(),
    };
    chat::handle(service, &console::incoming(&line)).await
}

fn texts(replies: &[Reply]) -> String {
    replies
        .iter()
        .map(Reply::plain)
        .collect::<Vec<_>>()
        .join("\n")
}

backends! {
    #[tokio::test]
    async fn a_hanging_rook_is_found_as_a_blunder_and_told_with_its_graph(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        let id = blundered_game(&service).await;
        // Before the analysis the record is the plain one.
        let plain = texts(&say(&service, "bob", &format!("export #{id}")).await);
        assert!(!plain.contains("[%eval") && !plain.contains("??"), "{plain}");
        assert!(
            plain.contains("3. Rf9-g9 Rh9xg9"),
            "the plain record is unchanged: {plain}"
        );
        // The game's end queued it: one analysis, then nothing waits.
        assert_eq!(service.analyse_next().await.expect("analyses"), Some(id));
        assert_eq!(service.analyse_next().await.expect("analyses"), None);
        let notices = tick(&service).await;
        let [Notice::Analysed { place: told, analysed }] = notices.as_slice() else {
            panic!("one analysis notice: {notices:?}");
        };
        assert_eq!(told, &place());
        let report = &analysed.report;
        let blunder = &report.moves[4];
        assert_eq!(blunder.played, "Rf9-g9");
        assert_eq!(blunder.judgement, Some(Judgement::Blunder));
        assert_eq!(blunder.better.as_deref(), Some("Re3-l3"));
        assert_eq!(report.side(Color::White).blunders, 1);
        assert_eq!(report.side(Color::Black).blunders, 0);
        // The message: per player, the judged move with the better one, and the graph.
        let (_, reply) = chat::notice_reply(&service, &notices[0]).await;
        let text = reply.plain();
        assert!(text.contains(&format!("Analysis of game #{id} (Chad")), "{text}");
        assert!(
            text.contains("alice (White): 1 blunder, 0 mistakes, 0 inaccuracies, accuracy"),
            "{text}"
        );
        assert!(text.contains("bob (Black): 0 blunders"), "{text}");
        assert!(text.contains("3. Rf9-g9?? (better: Re3-l3)"), "{text}");
        let picture = reply.picture.as_ref().expect("the graph");
        let graph = image::load_from_memory(&picture.data).expect("the graph decodes");
        assert_eq!(
            (graph.width(), graph.height()),
            (pigeon::render::GRAPH_WIDTH, pigeon::render::GRAPH_HEIGHT)
        );
        assert_eq!(picture.size, (graph.width(), graph.height()));
        // Told once: the next tick has nothing.
        assert!(tick(&service).await.is_empty());
        // The record now carries the marks and the evaluations.
        let record = texts(&say(&service, "bob", &format!("export #{id}")).await);
        assert!(record.contains("3. Rf9-g9??"), "{record}");
        assert!(record.contains("Blunder. Re3-l3 was best."), "{record}");
        assert!(record.contains("[%eval "), "{record}");
        assert!(record.contains("[Annotator \"Pigeon, 30000 nodes per position\"]"), "{record}");
        // `analyse` (or `analyze`) on an analysed game shows it again, the same.
        let again = say(&service, "bob", &format!("analyze #{id}")).await;
        assert!(texts(&again).contains("3. Rf9-g9?? (better: Re3-l3)"));
        assert!(again[0].picture.is_some());
        assert_eq!(service.analyse_next().await.expect("analyses"), None);
    }
}

backends! {
    #[tokio::test]
    async fn an_analysis_whose_process_died_is_taken_over_after_its_claim_lapses(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        let id = blundered_game(&service).await;
        // A process claims the analysis and dies before it finishes.
        let dead = service
            .store()
            .claim_analysis(clock.now())
            .await
            .expect("claims")
            .expect("the analysis waits");
        assert_eq!((dead.game_id, dead.state.as_str()), (id, "running"));
        service.store().close().await;
        // Restarted: the claim still stands, so nothing is done twice meanwhile.
        let service = open(&db, &clock).await;
        assert_eq!(service.analyse_next().await.expect("no error"), None);
        clock.advance(ANALYSIS_LEASE - 1);
        assert_eq!(service.analyse_next().await.expect("no error"), None);
        // Once it lapsed, the analysis is taken over and done.
        clock.advance(1);
        assert_eq!(service.analyse_next().await.expect("analyses"), Some(id));
        let row = service
            .store()
            .analysis(id)
            .await
            .expect("reads")
            .expect("stored");
        assert_eq!((row.state.as_str(), row.attempts), ("done", 2));
        // The dead process's claim can no longer record anything.
        let notice = NewNotice {
            platform: console::PLATFORM,
            kind: "analysed",
            game_id: Some(id),
            challenge_id: None,
            ply: Some(6),
            left: None,
            now: clock.now(),
        };
        let late = service
            .store()
            .finish_analysis(id, dead.attempts, "{}", clock.now(), &notice)
            .await
            .expect("no error");
        assert!(!late);
        // Told once.
        let notices = tick(&service).await;
        assert_eq!(notices.len(), 1, "{notices:?}");
        assert!(matches!(notices[0], Notice::Analysed { .. }));
    }
}

backends! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn two_processes_never_claim_the_same_analysis(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        let mut games = Vec::new();
        for _ in 0..4 {
            let id = chad_game(&service, &["Rc5-c9", "Rj8-j6"]).await;
            service
                .resign(&place(), &user("bob"), Some(id))
                .await
                .expect("resigned");
            games.push(id);
        }
        // Two processes take analyses from the queue at the same time until it is empty.
        let other = open(&db, &clock).await;
        let workers = [service.store().clone(), other.store().clone()].map(|store| {
            let now = clock.now();
            tokio::spawn(async move {
                let mut claimed = Vec::new();
                while let Some(row) = store.claim_analysis(now).await.expect("no error") {
                    claimed.push(row.game_id);
                }
                claimed
            })
        });
        let mut claimed = Vec::new();
        for worker in workers {
            claimed.extend(worker.await.expect("runs"));
        }
        claimed.sort_unstable();
        assert_eq!(claimed, games, "each analysis claimed once");
        for game in games {
            let row = service.store().analysis(game).await.expect("reads").expect("stored");
            assert_eq!((row.state.as_str(), row.attempts), ("running", 1));
        }
    }
}

backends! {
    #[tokio::test]
    async fn only_finished_games_between_people_with_moves_are_analysed(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        // A running game: refused, and nothing is queued.
        let running = chad_game(&service, &["Rc5-c9"]).await;
        match service.analyse(&place(), &user("alice"), Some(running)).await {
            Err(ServiceError::AnalysisTooEarly { game, by_itself: true }) => {
                assert_eq!(game, running);
            }
            other => panic!("refused as too early: {other:?}"),
        }
        let refusal = texts(&say(&service, "bob", &format!("analyse #{running}")).await);
        assert!(refusal.contains("still being played"), "{refusal}");
        assert!(refusal.contains("posted here when it ends"), "{refusal}");
        assert!(service.store().analysis(running).await.expect("reads").is_none());
        // Aborted before both sides moved: nothing to analyse, nothing queued.
        service
            .abort(&place(), &user("alice"), Some(running))
            .await
            .expect("aborted");
        assert!(matches!(
            service.analyse(&place(), &user("alice"), Some(running)).await,
            Err(ServiceError::NothingToAnalyse(_))
        ));
        assert_eq!(service.analyse_next().await.expect("no error"), None);
        // A game lost on time after both sides moved is queued with its end.
        let timed = chad_game(&service, &["Rc5-c9", "Rj8-j6"]).await;
        clock.advance(4 * DAY);
        tick(&service).await;
        let row = service.store().analysis(timed).await.expect("reads").expect("queued");
        assert_eq!(row.state, "queued");
        assert_eq!(service.analyse_next().await.expect("analyses"), Some(timed));
        // A game against the bot is analysed only when asked.
        let terms = Terms {
            color: ColorChoice::White,
            level: Level::new(1),
            ..Terms::new(Variant::Chad)
        };
        let Challenged::Started(state) = service
            .challenge_with(&place(), &user("carol"), Some(&console::bot()), &terms)
            .await
            .expect("the game starts")
        else {
            panic!("a game against the bot starts at once");
        };
        let bot_game = state.row.id;
        service
            .play(&place(), &user("carol"), Some(bot_game), "Rc5-c9")
            .await
            .expect("played");
        service.bot_move(bot_game).await.expect("the bot moves");
        service
            .resign(&place(), &user("carol"), Some(bot_game))
            .await
            .expect("resigned");
        assert!(service.store().analysis(bot_game).await.expect("reads").is_none());
        let status = service
            .analyse(&place(), &user("carol"), Some(bot_game))
            .await
            .expect("queued on request");
        assert!(matches!(status, AnalysisStatus::Queued(game) if game == bot_game));
        assert_eq!(service.analyse_next().await.expect("analyses"), Some(bot_game));
    }
}

backends! {
    #[tokio::test]
    async fn a_renewed_claim_is_not_taken_over_and_a_lapsed_one_cannot_be_renewed(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        let id = blundered_game(&service).await;
        let claim = service
            .store()
            .claim_analysis(clock.now())
            .await
            .expect("claims")
            .expect("the analysis waits");
        // Renewed before it lapsed: a lease from then on, so no other process takes it.
        clock.advance(ANALYSIS_LEASE - 1);
        let renewed = service
            .store()
            .renew_analysis(id, claim.attempts, clock.now())
            .await
            .expect("no error");
        assert!(renewed);
        clock.advance(ANALYSIS_LEASE - 1);
        assert!(service.store().claim_analysis(clock.now()).await.expect("no error").is_none());
        // Not renewed again: it lapses, another process takes it over, and the first
        // claim can no longer be renewed.
        clock.advance(1);
        let other = service
            .store()
            .claim_analysis(clock.now())
            .await
            .expect("no error")
            .expect("taken over");
        assert_eq!((other.game_id, other.attempts), (id, claim.attempts + 1));
        let late = service
            .store()
            .renew_analysis(id, claim.attempts, clock.now())
            .await
            .expect("no error");
        assert!(!late);
    }
}

backends! {
    #[tokio::test]
    async fn analyse_without_a_number_means_the_latest_finished_game_here(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        let finished = blundered_game(&service).await;
        // A new game between the same two runs beside it: `analyse` still means the
        // finished one, not the game being played.
        let running = chad_game(&service, &["Rc5-c9"]).await;
        assert_ne!(running, finished);
        let status = service
            .analyse(&place(), &user("bob"), None)
            .await
            .expect("the finished game");
        assert!(
            matches!(status, AnalysisStatus::Queued(game) if game == finished),
            "{status:?}"
        );
        // Named, the running game is refused as too early; with no game here, said so.
        match service.analyse(&place(), &user("alice"), Some(running)).await {
            Err(ServiceError::AnalysisTooEarly { game, .. }) => assert_eq!(game, running),
            other => panic!("refused as too early: {other:?}"),
        }
        let carol = texts(&say(&service, "carol", "analyse").await);
        assert!(carol.contains("no game"), "{carol}");
    }
}

backends! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_analyst_analyses_a_game_when_it_ends_and_stops_when_told(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        let (stop, shutdown) = tokio::sync::watch::channel(false);
        let analyst = tokio::spawn(service.analyst().run(shutdown));
        // The end of the game wakes it: no tick of its own is needed.
        let id = blundered_game(&service).await;
        let done = tokio::time::timeout(std::time::Duration::from_secs(120), async {
            loop {
                let row = service.store().analysis(id).await.expect("reads");
                if row.as_ref().is_some_and(|row| row.state == "done") {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
        })
        .await;
        assert!(done.is_ok(), "the analyst analysed the game");
        let notices = tick(&service).await;
        assert!(
            notices.iter().any(|n| matches!(n, Notice::Analysed { .. })),
            "{notices:?}"
        );
        stop.send(true).expect("the analyst listens");
        tokio::time::timeout(std::time::Duration::from_secs(10), analyst)
            .await
            .expect("the analyst stops when told")
            .expect("it ran without panicking");
    }
}
