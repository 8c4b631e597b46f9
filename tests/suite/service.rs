//! The service under concurrency and repetition: racing moves, duplicate chat events, two
//! people accepting one open challenge, and games surviving a restart.

use std::sync::Arc;

use crate::common::{TestDb, backends};
use crate::transcripts::{START, open};
use pigeon::adapters::console;
use pigeon::chat::{self, Incoming};
use pigeon::rules::Color;
use pigeon::rules::Variant;
use pigeon::service::{ColorChoice, ManualClock, Place, Service, ServiceError, User};

fn place() -> Place {
    Place::new("console", "general")
}

fn user(name: &str) -> User {
    console::user(name)
}

/// A rated Chak game of alice (White) against bob, just started.
pub async fn started_game(service: &Service) -> i64 {
    started_game_between(service, "alice", "bob").await
}

/// A Chak game `white` challenged `black` to here, accepted; gives its number.
pub async fn started_game_between(service: &Service, white: &str, black: &str) -> i64 {
    service
        .challenge(
            &place(),
            &user(white),
            Some(&user(black)),
            Variant::Chak,
            None,
            ColorChoice::White,
        )
        .await
        .expect("challenged");
    service
        .accept(&place(), &user(black), None)
        .await
        .expect("accepted")
        .row
        .id
}

backends! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn two_racing_moves_apply_once(db: TestDb) {
        let _ = tracing_subscriber::fmt().with_test_writer().try_init();
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        for round in 0..20 {
            let id = started_game(&service).await;
            let racer = |text: &'static str| {
                let service = service.clone();
                tokio::spawn(async move {
                    service
                        .play(&place(), &user("alice"), Some(id), text)
                        .await
                        .map(|_| ())
                })
            };
            let (a, b) = (racer("e3e4"), racer("c3c4"));
            let (a, b) = (a.await.expect("runs"), b.await.expect("runs"));
            let applied = [a.is_ok(), b.is_ok()].iter().filter(|ok| **ok).count();
            assert_eq!(applied, 1, "round {round}: {a:?} / {b:?}");
            let loser = if a.is_ok() { b } else { a };
            assert!(
                matches!(
                    loser,
                    Err(ServiceError::Changed | ServiceError::NotYourTurn { .. })
                ),
                "round {round}: {loser:?}"
            );
            let state = service.load(id).await.expect("loads");
            assert_eq!(state.row.ply, 1);
            assert_eq!(state.turn(), Color::Black);
            service
                .resign(&place(), &user("bob"), Some(id))
                .await
                .expect("resigned");
        }
    }
}

backends! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn two_people_accepting_one_open_challenge(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        for round in 0..20 {
            let challenge = service
                .challenge(
                    &place(),
                    &user("alice"),
                    None,
                    Variant::Chak,
                    None,
                    ColorChoice::Random,
                )
                .await
                .expect("challenged");
            let taker = |who: &'static str| {
                let service = service.clone();
                let id = challenge.id;
                tokio::spawn(async move {
                    service
                        .accept(&place(), &user(who), Some(id))
                        .await
                        .map(|_| ())
                })
            };
            let (a, b) = (taker("bob"), taker("carol"));
            let (a, b) = (a.await.expect("runs"), b.await.expect("runs"));
            assert_eq!(
                usize::from(a.is_ok()) + usize::from(b.is_ok()),
                1,
                "round {round}"
            );
            let loser = if a.is_ok() { b } else { a };
            assert!(
                matches!(loser, Err(ServiceError::ChallengeClosed { .. })),
                "{loser:?}"
            );
        }
        let games = service
            .games(&place(), &user("alice"), pigeon::service::Scope::Mine)
            .await;
        assert_eq!(games.expect("listed").len(), 20);
    }
}

backends! {
    #[tokio::test]
    async fn the_same_chat_event_delivered_twice_is_acted_on_once(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        let id = started_game(&service).await;
        let incoming = Incoming {
            place: place(),
            user: user("alice"),
            text: String::from("e3e4"),
            event_id: Some(String::from("event-1")),
            addressed: false,
            manager: false,
            means: chat::Means::TYPED,
            mentions: Vec::new(),
        };
        let first = chat::handle(&service, &incoming).await;
        assert_eq!(first.len(), 1);
        assert!(
            first[0].plain().contains("alice played e4"),
            "{:?}",
            first[0].plain()
        );
        let picture = first[0]
            .picture
            .as_ref()
            .expect("a move reply has the board");
        assert_eq!(picture.mime, "image/png");
        let decoded = image::load_from_memory(&picture.data).expect("the picture is a PNG");
        assert_eq!((decoded.width(), decoded.height()), picture.size);
        assert!(
            picture.size.0 >= 600 && picture.size.1 >= 600,
            "{:?}",
            picture.size
        );
        let second = chat::handle(&service, &incoming).await;
        assert!(second.is_empty(), "a duplicate is ignored: {second:?}");
        assert_eq!(service.load(id).await.expect("loads").row.ply, 1);
        // A new event with the same text is a new message (and here an out-of-turn one).
        let other = Incoming {
            event_id: Some(String::from("event-2")),
            addressed: true,
            manager: false,
            ..incoming
        };
        let reply = chat::handle(&service, &other).await;
        assert!(reply[0].plain().contains("It is bob's turn"), "{reply:?}");
    }
}

backends! {
    #[tokio::test]
    async fn chatter_that_is_not_a_move_is_ignored_quietly(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        started_game(&service).await;
        let say = |who: &str, text: &str| Incoming {
            place: place(),
            user: user(who),
            text: text.to_owned(),
            event_id: None,
            addressed: false,
            manager: false,
            means: chat::Means::TYPED,
            mentions: Vec::new(),
        };
        for (who, text) in [
            ("alice", "good luck!"),
            ("bob", "e3e4"),
            ("carol", "e3e4"),
            ("alice", "lol"),
        ] {
            assert!(
                chat::handle(&service, &say(who, text)).await.is_empty(),
                "{who}: {text}"
            );
        }
        let illegal = chat::handle(&service, &say("alice", "e3e5")).await;
        assert!(
            illegal[0].plain().contains("e3e5 is not legal here"),
            "{illegal:?}"
        );
        assert!(illegal[0].private);
    }
}

backends! {
    #[tokio::test]
    async fn a_move_read_in_chatter_is_played_from_that_read_unless_the_game_moved(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        let id = started_game(&service).await;
        // "e4 at last" is e4, read from the game as it stands, with what alice meant.
        let read = |text: &'static str| {
            let service = service.clone();
            async move {
                service
                    .read_move(&place(), &user("alice"), text)
                    .await
                    .expect("read")
                    .expect("a move")
            }
        };
        let late = read("e4 at last").await;
        assert_eq!((late.game, late.text.as_str()), (Some(id), "e4"));
        // Another of alice's messages moves first: the one read before it is not played,
        // and is answered from the game as it is now.
        let first = read("c4").await;
        service
            .play_read(&place(), &user("alice"), first)
            .await
            .expect("played");
        let refused = service.play_read(&place(), &user("alice"), late).await;
        assert!(
            matches!(refused, Err(ServiceError::NotYourTurn { game, .. }) if game == id),
            "{refused:?}"
        );
        let state = service.load(id).await.expect("loads");
        assert_eq!(state.row.ply, 1);
        assert_eq!(state.record.moves()[0].display, "c4");
        // bob's time runs out before the clocks come round: a move read then, even one that
        // does not play, is told so, and the game ends on time.
        clock.set(state.row.deadline.expect("a deadline") + 60);
        let overdue = service
            .read_move(&place(), &user("bob"), "Vd5")
            .await
            .expect("read")
            .expect("meant as a move");
        let late = service.play_read(&place(), &user("bob"), overdue).await;
        assert!(matches!(late, Err(ServiceError::TimeRanOut { .. })), "{late:?}");
        let state = service.load(id).await.expect("loads");
        assert_eq!(state.row.end_reason.as_deref(), Some("timeout"));
    }
}

backends! {
    #[tokio::test]
    async fn games_survive_a_restart_and_replay_from_their_moves(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        let id = started_game(&service).await;
        for (who, mv) in [("alice", "e4"), ("bob", "e6"), ("alice", "Vd2")] {
            service
                .play(&place(), &user(who), Some(id), mv)
                .await
                .expect("played");
        }
        let before = service.load(id).await.expect("loads");
        service.store().close().await;

        let service = open(&db, &clock).await;
        let after = service.load(id).await.expect("loads after restart");
        assert_eq!(after.row, before.row);
        assert_eq!(after.record.position(), before.record.position());
        let texts: Vec<&str> = after
            .record
            .moves()
            .iter()
            .map(|m| m.text.as_str())
            .collect();
        assert_eq!(texts, ["e3e4", "e7e6", "b1d2"]);
        service
            .play(&place(), &user("bob"), Some(id), "Vd8")
            .await
            .expect("the game goes on");
        assert_eq!(
            service.store().integrity_check().await.expect("checks"),
            "ok"
        );

        // A stored game that does not replay is refused on load, not trusted.
        corrupt(&db, id).await;
        let store = db.open().await;
        let broken = Service::new(store, Arc::new(clock.clone()));
        let error = broken
            .load(id)
            .await
            .expect_err("a corrupt game is refused");
        assert!(matches!(error, ServiceError::Internal(_)), "{error:?}");
    }
}

/// Changes a stored move behind the store's back, as a faulty disk or a bad edit would.
async fn corrupt(db: &TestDb, id: i64) {
    let sql = "UPDATE moves SET text = 'e7e5' WHERE game_id = $1 AND ply = 2";
    db.tamper(sql, id).await;
}

backends! {
    #[tokio::test]
    async fn a_shakti_player_who_cannot_move_is_passed_for(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        let store = service.store();
        let alice = store
            .player("console", "alice", "alice", START)
            .await
            .expect("player");
        let bob = store
            .player("console", "bob", "bob", START)
            .await
            .expect("player");
        // After c7-d7, Black (king b1 only) is not in check and has no move.
        let start = "#.K.#.#/.#####./.#.###./.######/.##.W#./.#####W/#k..#.# w";
        let game = pigeon::store::NewGame {
            platform: "console",
            channel: "general",
            game_key: "shakti",
            start_position: start,
            white_id: alice.id,
            black_id: bob.id,
            days_per_move: 3,
            deadline: START + 3 * 86_400,
            rematch_of: None,
            now: START,
            community: "general",
            rated: true,
            bot: None,
            rules: "standard",
            takebacks: false,
            web_id: pigeon::service::new_web_id().expect("random bytes"),
        };
        let id = store.create_game(&game).await.expect("created").id;
        let incoming = Incoming {
            place: place(),
            user: user("alice"),
            text: String::from("c7-d7"),
            event_id: None,
            addressed: true,
            manager: false,
            means: chat::Means::TYPED,
            mentions: Vec::new(),
        };
        let replies = chat::handle(&service, &incoming).await;
        let text = replies[0].plain();
        assert!(text.contains("alice played Kc7-d7 in game #"), "{text}");
        assert!(
            text.contains("bob has no legal move, so I passed for them."),
            "{text}"
        );
        assert!(text.contains("@alice, your move as White"), "{text}");
        let state = service.load(id).await.expect("loads");
        let texts: Vec<&str> = state
            .record
            .moves()
            .iter()
            .map(|m| m.text.as_str())
            .collect();
        assert_eq!(texts, ["c7-d7", "pass"]);
        assert_eq!(state.turn(), Color::White);
        let moves = store.moves(id).await.expect("moves");
        assert_eq!(
            moves[1].player_id, None,
            "the pass was the product's, not bob's"
        );
    }
}
