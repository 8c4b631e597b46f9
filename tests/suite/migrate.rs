//! `pigeon migrate-db`: a SQLite database copied to PostgreSQL and back, every row counted,
//! every game replayed, the games playable on in the new database.

use std::sync::Arc;

use pigeon::chat::{self, Incoming, Means};
use pigeon::service::{ManualClock, Place, Service, User};

use crate::cli::pigeon_with;
use crate::common::{Backend, TestDb};

fn say(who: &str, text: &str) -> Incoming {
    Incoming {
        place: Place::new("console", "general"),
        user: User::new("console", who, who),
        text: text.to_owned(),
        event_id: None,
        addressed: true,
        manager: true,
        means: Means::TYPED,
        mentions: Vec::new(),
    }
}

/// Says each line and returns every reply's text.
async fn talk(service: &Service, lines: &[(&str, &str)]) -> String {
    let mut said = String::new();
    for (who, text) in lines {
        for reply in chat::handle(service, &say(who, text)).await {
            said.push_str(&reply.plain());
            said.push('\n');
        }
    }
    said
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_moves_to_postgresql_and_back_with_every_row_and_game() {
    let sqlite = TestDb::new(Backend::Sqlite).await;
    let postgres = TestDb::new(Backend::Postgres).await;
    let back = TestDb::new(Backend::Sqlite).await;

    // Some history: a finished rated game, a running one with moves, an open challenge.
    let clock = ManualClock::new(1_800_000_000);
    let source = Service::new(sqlite.open().await, Arc::new(clock.clone()));
    let said = talk(
        &source,
        &[
            ("alice", "challenge @bob chak rated"),
            ("bob", "accept"),
            ("alice", "e4"),
            ("bob", "resign"),
            ("bob", "resign"),
            ("alice", "challenge @bob chak"),
            ("bob", "accept"),
            ("alice", "e4"),
            ("bob", "e6"),
            ("carol", "challenge @alice shakti"),
        ],
    )
    .await;
    assert!(said.contains("Game #2"), "{said}");
    let counts = source.store().table_counts().await.expect("counted");
    source.store().close().await;

    let migrate = |from: &TestDb, to: &TestDb| {
        pigeon_with(
            &["migrate-db", "--from", from.url(), "--to", to.url()],
            &[],
            "",
        )
    };
    let done = migrate(&sqlite, &postgres);
    assert!(done.status.success(), "{}", text(&done.stderr));
    let out = text(&done.stdout);
    assert!(out.contains("2 games replayed"), "{out}");
    assert!(out.contains("moves"), "{out}");

    // The same rows in the new database, and the games go on there.
    let target = Service::new(postgres.open().await, Arc::new(clock.clone()));
    assert_eq!(
        target.store().table_counts().await.expect("counted"),
        counts
    );
    let said = talk(
        &target,
        &[("alice", "accept"), ("alice", "challenge @carol chad")],
    )
    .await;
    assert!(!said.contains("went wrong"), "{said}");
    assert!(
        said.contains("Game #3"),
        "new numbers follow the copied ones: {said}"
    );
    assert!(said.contains("Challenge #4"), "{said}");
    target.store().close().await;

    // A database with data in it is never a target.
    let again = migrate(&sqlite, &postgres);
    assert!(!again.status.success());
    let error = text(&again.stderr);
    assert!(error.contains("not empty"), "{error}");

    // And back to SQLite, everything with it.
    let done = migrate(&postgres, &back);
    assert!(done.status.success(), "{}", text(&done.stderr));
    let (from, to) = (postgres.open().await, back.open().await);
    assert_eq!(
        from.table_counts().await.expect("counted"),
        to.table_counts().await.expect("counted")
    );
    let (before, after) = (
        Service::new(from, Arc::new(clock.clone())),
        Service::new(to, Arc::new(clock)),
    );
    for game in 1..=3 {
        let (a, b) = (
            before.load(game).await.expect("replays"),
            after.load(game).await.expect("replays"),
        );
        assert_eq!(a.record.moves(), b.record.moves(), "game #{game}");
        assert_eq!(a.row, b.row, "game #{game}");
    }
}
