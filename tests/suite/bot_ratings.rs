//! Games against the bot through the service (pending moves after a restart, no clock for
//! the bot) and ratings that change exactly once per game.

use pigeon::adapters::console;
use pigeon::engine::Level;
use pigeon::rules::{Color, Variant};
use pigeon::service::{
    Challenged, ColorChoice, DAY, ManualClock, Notice, Place, Service, Terms, User,
};

use crate::common::backends;
use crate::service::started_game;
use crate::transcripts::{START, open};

fn place() -> Place {
    Place::new("console", "general")
}

fn user(name: &str) -> User {
    console::user(name)
}

/// A game against the bot, started through the service only (so nobody has asked the bot
/// to move yet).
async fn bot_game(service: &Service, color: ColorChoice) -> i64 {
    let terms = Terms {
        color,
        level: Level::new(1),
        ..Terms::new(Variant::Chak)
    };
    match service
        .challenge_with(&place(), &user("alice"), Some(&console::bot()), &terms)
        .await
        .expect("the game starts")
    {
        Challenged::Started(state) => state.row.id,
        Challenged::Open(challenge) => panic!("a challenge instead of a game: {challenge:?}"),
    }
}

/// A rated game between alice (White) and bob, ended by bob resigning.
async fn rated_game_won_by_alice(service: &Service) -> i64 {
    let id = started_game(service).await;
    service
        .resign(&place(), &user("bob"), Some(id))
        .await
        .expect("resigned");
    id
}

async fn rating(service: &Service, name: &str) -> f64 {
    let stats = service.stats(&place(), &user(name)).await.expect("stats");
    stats.ratings[0].0.rating
}

backends! {
    #[tokio::test]
    async fn a_pending_bot_move_is_played_once_after_a_restart(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        let id = bot_game(&service, ColorChoice::Black).await;
        assert_eq!(service.load(id).await.expect("loads").row.ply, 0);
        service.store().close().await;

        let service = open(&db, &clock).await;
        // Another platform's clocks leave this console game alone.
        let elsewhere = service
            .tick_platform("matrix")
            .await
            .expect("the clocks run");
        assert!(elsewhere.is_empty(), "{elsewhere:?}");
        assert_eq!(service.load(id).await.expect("loads").row.ply, 0);
        let notices = service
            .tick_platform("console")
            .await
            .expect("the clocks run");
        let moved: Vec<_> = notices
            .iter()
            .filter(|pending| matches!(pending.notice, Notice::BotMoved { .. }))
            .collect();
        assert_eq!(moved.len(), 1);
        let state = service.load(id).await.expect("loads");
        assert_eq!(state.row.ply, 1);
        assert_eq!(state.turn(), Color::Black);
        // Nothing more to play: the bot waits for alice.
        assert!(service.tick().await.expect("the clocks run").is_empty());
        assert!(service.bot_move(id).await.expect("no error").is_none());
        assert_eq!(service.load(id).await.expect("loads").row.ply, 1);
    }
}

backends! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn racing_bot_moves_apply_once(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        let id = bot_game(&service, ColorChoice::Black).await;
        let racer = || {
            let service = service.clone();
            tokio::spawn(async move { service.bot_move(id).await })
        };
        let (a, b) = (racer(), racer());
        let a = a.await.expect("runs").expect("no error");
        let b = b.await.expect("runs").expect("no error");
        assert_eq!(usize::from(a.is_some()) + usize::from(b.is_some()), 1);
        assert_eq!(service.load(id).await.expect("loads").row.ply, 1);
    }
}

backends! {
    #[tokio::test]
    async fn the_bot_has_no_clock_but_its_opponent_has(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        let id = bot_game(&service, ColorChoice::White).await;
        // alice moves; the bot is to move and (here) is not asked to: its game has no deadline.
        service
            .play(&place(), &user("alice"), Some(id), "e4")
            .await
            .expect("played");
        assert_eq!(service.load(id).await.expect("loads").row.deadline, None);
        // The next tick plays the bot's move and gives alice her deadline back.
        service.tick().await.expect("the clocks run");
        let state = service.load(id).await.expect("loads");
        assert_eq!(state.row.ply, 2);
        assert!(state.row.deadline.is_some());
        clock.advance(4 * DAY);
        let notices = service.tick().await.expect("the clocks run");
        assert!(
            notices
                .iter()
                .any(|n| matches!(n.notice, Notice::Timeout { .. }))
        );
        let state = service.load(id).await.expect("loads");
        assert_eq!(state.row.result.as_deref(), Some("0-1"));
        assert!(!state.row.rated);
    }
}

backends! {
    #[tokio::test]
    async fn a_finished_game_is_rated_exactly_once(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        let id = rated_game_won_by_alice(&service).await;
        let (alice, bob) = (
            rating(&service, "alice").await,
            rating(&service, "bob").await,
        );
        assert!(alice > 1600.0 && bob < 1400.0, "{alice} / {bob}");
        // Rating it again, directly, after a tick, or after a restart changes nothing.
        assert!(!service.rate(id).await.expect("no error"));
        service.tick().await.expect("the clocks run");
        service.store().close().await;
        let service = open(&db, &clock).await;
        service.tick().await.expect("the clocks run");
        assert!(!service.rate(id).await.expect("no error"));
        assert_eq!(rating(&service, "alice").await, alice);
        assert_eq!(rating(&service, "bob").await, bob);
        let stats = service
            .stats(&place(), &user("alice"))
            .await
            .expect("stats");
        assert_eq!(stats.ratings[0].0.games, 1);
        assert_eq!(stats.ratings[0].1.len(), 1);
    }
}

backends! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn racing_rating_updates_apply_once(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        // A rated game ended in the store alone, as if the process stopped before rating it.
        let alice = service.player(&user("alice")).await.expect("player");
        let bob = service.player(&user("bob")).await.expect("player");
        let start = pigeon::rules::VariantPosition::start(Variant::Chak).to_text();
        let game = pigeon::store::NewGame {
            platform: "console",
            channel: "general",
            game_key: "chak",
            start_position: &start,
            white_id: alice.id,
            black_id: bob.id,
            days_per_move: 3,
            deadline: START + 3 * DAY,
            rematch_of: None,
            now: START,
            community: "general",
            rated: true,
            bot: None,
            rules: "standard",
            takebacks: false,
            web_id: pigeon::service::new_web_id().expect("random bytes"),
        };
        let store = service.store();
        let id = store.create_game(&game).await.expect("created").id;
        store
            .finish_game(id, 0, Some("1-0"), "resignation", START, None)
            .await
            .expect("finished");
        let racers: Vec<_> = (0..4)
            .map(|_| {
                let service = service.clone();
                tokio::spawn(async move { service.rate(id).await })
            })
            .collect();
        let mut applied = 0;
        for racer in racers {
            applied += usize::from(racer.await.expect("runs").expect("no error"));
        }
        assert_eq!(applied, 1);
        let stats = service.stats(&place(), &user("bob")).await.expect("stats");
        assert_eq!(stats.ratings[0].0.games, 1);
    }
}

backends! {
    #[tokio::test]
    async fn history_and_leaderboard_follow_the_games(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        for _ in 0..3 {
            rated_game_won_by_alice(&service).await;
            clock.advance(60);
        }
        let board = service
            .leaderboard(&place(), Variant::Chak)
            .await
            .expect("leaderboard");
        let names: Vec<&str> = board.iter().map(|row| row.display_name.as_str()).collect();
        assert_eq!(names, ["alice", "bob"]);
        assert!(board[0].rating > board[1].rating);
        let stats = service
            .stats(&place(), &user("alice"))
            .await
            .expect("stats");
        let (current, history) = &stats.ratings[0];
        assert_eq!(current.games, 3);
        assert_eq!(history.len(), 3);
        // Newest first, each change starting where the one before ended.
        assert_eq!(history[0].after, current.rating);
        assert_eq!(history[0].before, history[1].after);
        assert_eq!(history[1].before, history[2].after);
        assert_eq!(history[2].before, 1500.0);
        assert_eq!(stats.results[0].wins, 3);
        // Another community has its own (empty) board.
        let den = Place::new("console", "den");
        let other = service
            .leaderboard(&den, Variant::Chak)
            .await
            .expect("board");
        assert!(other.is_empty());
    }
}
