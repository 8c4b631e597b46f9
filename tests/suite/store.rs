//! Every query of the store, on both backends: a real SQLite file in a temporary folder and
//! a real PostgreSQL database.

use pigeon::store::{
    AppendMoves, NOTICE_BATCH, NewChallenge, NewGame, NewNotice, SettingsRow, Store, StoreError,
};

use crate::common::{Backend, TestDb, backends};

const NOW: i64 = 1_767_258_000;
const START: &str = "rvsqkjsvr/4o4/p1p1p1p1p/9/9/9/P1P1P1P1P/4O4/RVSJKQSVR w - - 0 1";

async fn player(store: &Store, name: &str) -> pigeon::store::PlayerRow {
    store
        .player("console", name, name, NOW)
        .await
        .expect("created")
}

/// A store with one game of alice (White) against bob.
async fn alice_and_bob_playing(
    db: &TestDb,
) -> (
    Store,
    pigeon::store::PlayerRow,
    pigeon::store::PlayerRow,
    pigeon::store::GameRow,
) {
    let store = db.open().await;
    let alice = player(&store, "alice").await;
    let bob = player(&store, "bob").await;
    let row = store
        .create_game(&game(alice.id, bob.id))
        .await
        .expect("created");
    (store, alice, bob, row)
}

fn game<'a>(white: i64, black: i64) -> NewGame<'a> {
    NewGame {
        platform: "console",
        channel: "general",
        game_key: "chak",
        start_position: START,
        white_id: white,
        black_id: black,
        days_per_move: 3,
        deadline: NOW + 3 * 86_400,
        rematch_of: None,
        now: NOW,
        community: "general",
        rated: true,
        bot: None,
        rules: "standard",
        takebacks: false,
        web_id: pigeon::service::new_web_id().expect("random bytes"),
    }
}

/// White's first move `moves` in game `game_id` at `now`, giving Black until `NOW + 500`.
fn opening(game_id: i64, moves: &[(String, Option<i64>)], now: i64) -> AppendMoves<'_> {
    AppendMoves {
        game_id,
        expected_ply: 0,
        expected_revision: 0,
        moves,
        position: "after e3e4",
        deadline: Some(NOW + 500),
        finish: None,
        mover: "white",
        now,
        notice: None,
    }
}

backends! {
    #[tokio::test]
    async fn players_are_created_once_and_renamed(db: TestDb) {
        let store = db.open().await;
        let alice = player(&store, "alice").await;
        let again = store
            .player("console", "alice", "Alice A.", NOW + 5)
            .await
            .expect("found");
        assert_eq!(alice.id, again.id);
        assert_eq!(again.display_name, "Alice A.");
        assert_eq!(
            store.player_by_id(alice.id).await.expect("query"),
            Some(again.clone())
        );
        assert_eq!(
            store
                .player_by_platform_id("console", "alice")
                .await
                .expect("query"),
            Some(again)
        );
        assert_eq!(
            store
                .player_by_platform_id("discord", "alice")
                .await
                .expect("query"),
            None
        );
        let other = store
            .player("discord", "alice", "alice", NOW)
            .await
            .expect("created");
        assert_ne!(other.id, alice.id, "platforms have their own accounts");
    }
}

backends! {
    #[tokio::test]
    async fn settings_default_and_change(db: TestDb) {
        let store = db.open().await;
        let alice = player(&store, "alice").await;
        let defaults = store.settings(alice.id).await.expect("query");
        assert_eq!(
            defaults,
            SettingsRow {
                turn_pings: true,
                viewpoint: "mine".into()
            }
        );
        let changed = SettingsRow {
            turn_pings: false,
            viewpoint: "white".into(),
        };
        store
            .set_settings(alice.id, &changed)
            .await
            .expect("stored");
        assert_eq!(store.settings(alice.id).await.expect("query"), changed);
    }
}

backends! {
    #[tokio::test]
    async fn events_are_claimed_once(db: TestDb) {
        let store = db.open().await;
        assert!(
            store
                .claim_event("discord", "m1", NOW)
                .await
                .expect("query")
        );
        assert!(
            !store
                .claim_event("discord", "m1", NOW)
                .await
                .expect("query")
        );
        assert!(store.claim_event("matrix", "m1", NOW).await.expect("query"));
    }
}

backends! {
    #[tokio::test]
    async fn challenges_open_close_accept_and_expire(db: TestDb) {
        let store = db.open().await;
        let alice = player(&store, "alice").await;
        let bob = player(&store, "bob").await;
        let carol = player(&store, "carol").await;
        let new = |challenged, expires_at| NewChallenge {
            platform: "console",
            channel: "general",
            challenger_id: alice.id,
            challenged_id: challenged,
            game_key: "chak",
            days_per_move: 3,
            color: "random",
            now: NOW,
            expires_at,
            community: "general",
            rated: true,
            rules: "standard",
            start_position: None,
            takebacks: false,
        };
        let named = store
            .create_challenge(&new(Some(bob.id), NOW + 100))
            .await
            .expect("created");
        let open = store
            .create_challenge(&new(None, NOW + 100))
            .await
            .expect("created");
        let short = store
            .create_challenge(&new(Some(carol.id), NOW + 10))
            .await
            .expect("created");
        assert_eq!(
            store.challenge(named.id).await.expect("query"),
            Some(named.clone())
        );
        let for_bob = store
            .open_challenges("console", "general", bob.id)
            .await
            .expect("query");
        let ids: Vec<i64> = for_bob.iter().map(|c| c.id).collect();
        assert_eq!(ids, [open.id, named.id], "newest first, not carol's");
        assert!(
            store
                .open_challenges("console", "other", bob.id)
                .await
                .expect("query")
                .is_empty()
        );

        assert!(
            store
                .close_challenge(named.id, "declined")
                .await
                .expect("query")
        );
        assert!(
            !store
                .close_challenge(named.id, "cancelled")
                .await
                .expect("query")
        );
        assert_eq!(
            store
                .challenge(named.id)
                .await
                .expect("query")
                .expect("exists")
                .status,
            "declined"
        );

        let game_row = store
            .accept_challenge(open.id, &game(alice.id, bob.id))
            .await
            .expect("accepted");
        assert_eq!(game_row.status, "active");
        assert_eq!(game_row.position, START);
        let accepted = store
            .challenge(open.id)
            .await
            .expect("query")
            .expect("exists");
        assert_eq!(
            (accepted.status.as_str(), accepted.game_id),
            ("accepted", Some(game_row.id))
        );
        let again = store
            .accept_challenge(open.id, &game(alice.id, carol.id))
            .await;
        assert!(matches!(again, Err(StoreError::Conflict)), "{again:?}");
        assert_eq!(
            store.games_of(carol.id, 10).await.expect("query"),
            [],
            "no half-made game"
        );

        let elsewhere = store.expire_challenges(NOW + 10, Some("nowhere")).await;
        assert!(
            elsewhere.expect("query").is_empty(),
            "another platform's clock"
        );
        let expired = store
            .expire_challenges(NOW + 10, None)
            .await
            .expect("query");
        assert_eq!(expired.iter().map(|c| c.id).collect::<Vec<_>>(), [short.id]);
        assert!(
            store
                .expire_challenges(NOW + 10, None)
                .await
                .expect("query")
                .is_empty()
        );
    }
}

backends! {
    #[tokio::test]
    async fn moves_append_with_an_optimistic_ply_check(db: TestDb) {
        let (store, alice, bob, row) = alice_and_bob_playing(&db).await;
        let moves = [("e3e4".to_owned(), Some(alice.id))];
        let append = opening(row.id, &moves, NOW + 60);
        store.append_moves(&append).await.expect("applied");
        let again = store.append_moves(&append).await;
        assert!(
            matches!(again, Err(StoreError::Conflict)),
            "a stale ply is refused: {again:?}"
        );
        let stored = store.moves(row.id).await.expect("query");
        assert_eq!(stored.len(), 1);
        assert_eq!((stored[0].ply, stored[0].text.as_str()), (1, "e3e4"));
        let row = store.game(row.id).await.expect("query").expect("exists");
        assert_eq!(
            (row.ply, row.position.as_str(), row.deadline),
            (1, "after e3e4", Some(NOW + 500))
        );

        // Draw offers: the offerer's own move keeps it, the opponent's move declines it.
        store
            .set_draw_offer(row.id, 1, Some("black"), NOW)
            .await
            .expect("offered");
        let reply = [("e7e6".to_owned(), Some(bob.id)), ("pass".to_owned(), None)];
        let append = AppendMoves {
            expected_ply: 1,
            expected_revision: 1,
            moves: &reply,
            mover: "black",
            ..append
        };
        store.append_moves(&append).await.expect("applied");
        let row = store.game(row.id).await.expect("query").expect("exists");
        assert_eq!((row.ply, row.draw_offer.as_deref()), (3, Some("black")));
        assert_eq!(store.moves(row.id).await.expect("query")[2].player_id, None);
        let white = [("e4e5+".to_owned(), Some(alice.id))];
        let append = AppendMoves {
            expected_ply: 3,
            expected_revision: 2,
            moves: &white,
            mover: "white",
            ..append
        };
        store.append_moves(&append).await.expect("applied");
        assert_eq!(
            store
                .game(row.id)
                .await
                .expect("query")
                .expect("exists")
                .draw_offer,
            None
        );
        assert!(matches!(
            store.set_draw_offer(row.id, 3, Some("white"), NOW).await,
            Err(StoreError::Conflict)
        ));

        // Finishing: by a move, and off the board; a finished game takes nothing more.
        let last = [("e5e6".to_owned(), Some(bob.id))];
        let append = AppendMoves {
            expected_ply: 4,
            expected_revision: 3,
            moves: &last,
            finish: Some(("0-1", "checkmate")),
            deadline: None,
            ..append
        };
        store.append_moves(&append).await.expect("applied");
        let row = store.game(row.id).await.expect("query").expect("exists");
        assert_eq!(
            (row.status.as_str(), row.result.as_deref()),
            ("finished", Some("0-1"))
        );
        assert_eq!(row.finished_at, Some(NOW + 60));
        let late = store
            .finish_game(row.id, 5, Some("1-0"), "resignation", NOW, None)
            .await;
        assert!(matches!(late, Err(StoreError::Conflict)));
    }
}

backends! {
    #[tokio::test]
    async fn a_move_that_fails_half_way_changes_nothing_and_writes_go_on(db: TestDb) {
        let (store, alice, _, row) = alice_and_bob_playing(&db).await;
        // The game's row is updated first; the move's row then names no player.
        let broken = [("e3e4".to_owned(), Some(alice.id + 1_000))];
        let failed = store.append_moves(&opening(row.id, &broken, NOW + 60)).await;
        assert!(
            matches!(failed, Err(StoreError::Database(_))),
            "a move naming no player is refused: {failed:?}"
        );
        let after = store.game(row.id).await.expect("query").expect("exists");
        assert_eq!((after.ply, after.revision, after.position), (0, 0, row.position));
        assert!(store.moves(row.id).await.expect("query").is_empty());
        // Nothing is left half done: the same move by its player lands, once.
        let moves = [("e3e4".to_owned(), Some(alice.id))];
        let append = opening(row.id, &moves, NOW + 60);
        store.append_moves(&append).await.expect("applied");
        let again = store.append_moves(&append).await;
        assert!(matches!(again, Err(StoreError::Conflict)), "{again:?}");
        assert_eq!(store.moves(row.id).await.expect("query").len(), 1);
        assert_eq!(store.game(row.id).await.expect("query").expect("exists").ply, 1);
    }
}

backends! {
    #[tokio::test]
    async fn a_move_that_lost_its_race_records_no_notice_and_queues_no_analysis(db: TestDb) {
        let (store, alice, bob, row) = alice_and_bob_playing(&db).await;
        let first = [("e3e4".to_owned(), Some(alice.id))];
        store
            .append_moves(&opening(row.id, &first, NOW + 60))
            .await
            .expect("applied");
        // A move that ends the game with a notice, prepared before the first landed.
        let reply = [("e7e6".to_owned(), Some(bob.id)), ("pass".to_owned(), None)];
        let stale = AppendMoves {
            moves: &reply,
            mover: "black",
            deadline: None,
            finish: Some(("0-1", "checkmate")),
            notice: Some(NewNotice {
                platform: "console",
                kind: "bot_move",
                game_id: Some(row.id),
                challenge_id: None,
                ply: Some(1),
                left: None,
                now: NOW + 60,
            }),
            ..opening(row.id, &first, NOW + 60)
        };
        let lost = store.append_moves(&stale).await;
        assert!(matches!(lost, Err(StoreError::Conflict)), "{lost:?}");
        assert!(store.analysis(row.id).await.expect("query").is_none());
        let pending = store.claim_notices(Some("console"), NOW + 60).await.expect("query");
        assert!(pending.is_empty(), "{pending:?}");
        assert_eq!(store.moves(row.id).await.expect("query").len(), 1);
        // The same move at the ply it was made for records all of it.
        let landed = AppendMoves {
            expected_ply: 1,
            expected_revision: 1,
            ..stale
        };
        store.append_moves(&landed).await.expect("applied");
        let stored = store.moves(row.id).await.expect("query");
        let plies: Vec<(i64, &str, Option<i64>)> = stored
            .iter()
            .map(|m| (m.ply, m.text.as_str(), m.player_id))
            .collect();
        assert_eq!(
            plies,
            [(1, "e3e4", Some(alice.id)), (2, "e7e6", Some(bob.id)), (3, "pass", None)]
        );
        assert!(store.analysis(row.id).await.expect("query").is_some());
        let pending = store.claim_notices(Some("console"), NOW + 60).await.expect("query");
        assert_eq!(pending.len(), 1, "{pending:?}");
        assert_eq!((pending[0].kind.as_str(), pending[0].ply), ("bot_move", Some(1)));
    }
}

backends! {
    #[tokio::test]
    async fn a_move_at_or_after_its_deadline_does_not_land(db: TestDb) {
        let (store, alice, bob, row) = alice_and_bob_playing(&db).await;
        let deadline = row.deadline.expect("a deadline");
        let moves = [("e3e4".to_owned(), Some(alice.id))];
        // The game was read in time, the move is written once its deadline came.
        for now in [deadline, deadline + 1] {
            let late = store.append_moves(&opening(row.id, &moves, now)).await;
            assert!(matches!(late, Err(StoreError::Conflict)), "{late:?}");
        }
        let stored = store.game(row.id).await.expect("query").expect("exists");
        assert_eq!((stored.ply, stored.deadline), (0, Some(deadline)));
        assert!(store.moves(row.id).await.expect("query").is_empty());
        // The clocks end it on time, as they would have without the move.
        store
            .finish_game(row.id, 0, Some("0-1"), "timeout", deadline, None)
            .await
            .expect("ended on time");
        // A move just before the deadline lands.
        let row = store
            .create_game(&game(alice.id, bob.id))
            .await
            .expect("created");
        let in_time = opening(row.id, &moves, row.deadline.expect("a deadline") - 1);
        store.append_moves(&in_time).await.expect("applied");
    }
}

backends! {
    #[tokio::test]
    async fn a_game_is_read_with_its_players_and_moves(db: TestDb) {
        let (store, alice, bob, row) = alice_and_bob_playing(&db).await;
        let moves = [("e3e4".to_owned(), Some(alice.id))];
        store
            .append_moves(&opening(row.id, &moves, NOW + 60))
            .await
            .expect("applied");
        let stored = store
            .stored_game(row.id, NOW)
            .await
            .expect("query")
            .expect("exists");
        assert_eq!(stored.row, store.game(row.id).await.expect("query").expect("exists"));
        assert_eq!((stored.white, stored.black), (alice.clone(), bob.clone()));
        assert_eq!(stored.moves, store.moves(row.id).await.expect("query"));
        // Black's and White's players are each their own, whoever has which colour.
        let reversed = store
            .create_game(&game(bob.id, alice.id))
            .await
            .expect("created");
        let stored = store
            .stored_game(reversed.id, NOW)
            .await
            .expect("query")
            .expect("exists");
        assert_eq!((stored.white, stored.black), (bob, alice));
        assert!(stored.moves.is_empty());
        assert_eq!(store.stored_game(reversed.id + 1, NOW).await.expect("query"), None);
    }

    #[tokio::test]
    async fn a_game_is_read_with_its_players_settings_leave_and_conditional_lines(db: TestDb) {
        let (store, alice, bob, row) = alice_and_bob_playing(&db).await;
        let around = |now| {
            let store = store.clone();
            async move {
                let stored = store.stored_game(row.id, now).await.expect("query");
                stored.expect("exists").around
            }
        };
        let nothing = around(NOW).await;
        assert_eq!(nothing.settings, [SettingsRow::default(), SettingsRow::default()]);
        assert_eq!((nothing.on_leave, nothing.conditionals), ([false, false], false));

        let quiet = SettingsRow {
            turn_pings: false,
            viewpoint: String::from("white"),
        };
        store.set_settings(bob.id, &quiet).await.expect("set");
        let leave = store
            .start_leave(alice.id, NOW + 10, NOW + 1_000, &[])
            .await
            .expect("started");
        let seen = around(NOW + 10).await;
        assert_eq!(seen.settings, [SettingsRow::default(), quiet]);
        // A leave counts from its start until its planned end, or until it is ended.
        assert_eq!(seen.on_leave, [true, false]);
        assert_eq!(around(NOW + 9).await.on_leave, [false, false]);
        assert_eq!(around(NOW + 1_000).await.on_leave, [false, false]);
        store.end_leave(leave.id, NOW + 20, &[]).await.expect("ended");
        assert_eq!(around(NOW + 30).await.on_leave, [false, false]);
        assert!(!seen.conditionals);

        store
            .replace_conditionals(row.id, bob.id, None, &[(1, String::from("e3e4 e6e5"))], NOW)
            .await
            .expect("stored");
        assert!(around(NOW + 30).await.conditionals);
        // Another game's lines are not this game's.
        let other = store.create_game(&game(bob.id, alice.id)).await.expect("created");
        let stored = store.stored_game(other.id, NOW + 30).await.expect("query");
        assert!(!stored.expect("exists").around.conditionals);
    }
}

backends! {
    #[tokio::test]
    async fn games_are_listed_by_player_channel_and_deadline(db: TestDb) {
        let store = db.open().await;
        let alice = player(&store, "alice").await;
        let bob = player(&store, "bob").await;
        let carol = player(&store, "carol").await;
        let first = store
            .create_game(&game(alice.id, bob.id))
            .await
            .expect("created");
        let second = store
            .create_game(&game(carol.id, alice.id))
            .await
            .expect("created");
        let elsewhere = NewGame {
            channel: "den",
            deadline: NOW + 10,
            ..game(bob.id, carol.id)
        };
        let third = store.create_game(&elsewhere).await.expect("created");
        store
            .finish_game(first.id, 0, None, "aborted", NOW + 1, None)
            .await
            .expect("finished");

        let ids = |rows: Vec<pigeon::store::GameRow>| rows.iter().map(|r| r.id).collect::<Vec<_>>();
        assert_eq!(
            ids(store.games_of(alice.id, 10).await.expect("query")),
            [second.id, first.id]
        );
        assert_eq!(
            ids(store.games_of(alice.id, 1).await.expect("query")),
            [second.id]
        );
        assert_eq!(
            ids(store
                .active_games_in("console", "general", alice.id)
                .await
                .expect("query")),
            [second.id]
        );
        assert_eq!(
            ids(store
                .games_in_channel("console", "general", 10)
                .await
                .expect("query")),
            [second.id, first.id]
        );
        assert_eq!(
            ids(store.games_due(NOW + 10, None).await.expect("query")),
            [third.id]
        );
        assert_eq!(
            ids(store
                .games_due(NOW + 10, Some("nowhere"))
                .await
                .expect("query")),
            Vec::<i64>::new()
        );
        assert_eq!(
            ids(store
                .games_due(NOW + 10, Some("console"))
                .await
                .expect("query")),
            [third.id]
        );
        let reminder = |ply| NewNotice {
            platform: "console",
            kind: "reminder",
            game_id: Some(third.id),
            challenge_id: None,
            ply: Some(ply),
            left: Some(10),
            now: NOW,
        };
        assert!(
            store
                .claim_reminder(&reminder(0), "hour")
                .await
                .expect("query")
        );
        assert!(
            !store
                .claim_reminder(&reminder(0), "hour")
                .await
                .expect("query")
        );
        assert!(
            store
                .claim_reminder(&reminder(1), "hour")
                .await
                .expect("query")
        );
        // Each claimed reminder left one notice to deliver.
        let pending = store
            .claim_notices(Some("console"), NOW)
            .await
            .expect("query");
        assert_eq!(pending.len(), 2);
        assert!(pending.iter().all(|n| n.game_id == Some(third.id)));
        assert_eq!(store.integrity_check().await.expect("query"), "ok");
        store.close().await;
    }
}

/// SQLite only: the copy is a file written by `VACUUM INTO`; a PostgreSQL database is backed
/// up with `pg_dump` (see `backups_of_postgres_are_left_to_pg_dump`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_is_a_consistent_copy_taken_while_writes_go_on() {
    let db = TestDb::new(Backend::Sqlite).await;
    let store = db.open().await;
    let alice = player(&store, "alice").await;
    let bob = player(&store, "bob").await;
    for _ in 0..5 {
        store
            .create_game(&game(alice.id, bob.id))
            .await
            .expect("created");
    }
    let writer = {
        let store = store.clone();
        tokio::spawn(async move {
            for _ in 0..50 {
                store
                    .create_game(&game(alice.id, bob.id))
                    .await
                    .expect("created");
            }
        })
    };
    let path = db.dir().join("backup.db");
    store.backup(&path).await.expect("backed up");
    writer.await.expect("the writer runs");

    let copy = Store::open(&path).await.expect("the backup opens");
    assert_eq!(copy.integrity_check().await.expect("query"), "ok");
    let copied = copy.games_of(alice.id, 100).await.expect("query").len();
    assert!(
        (5..=55).contains(&copied),
        "everything committed before the backup is in it: {copied}"
    );
    assert_eq!(
        copy.player_by_id(bob.id)
            .await
            .expect("query")
            .map(|p| p.display_name),
        Some("bob".into())
    );
    assert!(
        store.backup(&path).await.is_err(),
        "an existing file is never overwritten"
    );
    copy.close().await;
}

backends! {
    #[tokio::test]
    async fn a_game_moves_to_a_thread_and_threads_are_a_community_setting(db: TestDb) {
        let (store, alice, _bob, row) = alice_and_bob_playing(&db).await;
        assert!(
            store
                .set_game_channel(row.id, "thread-1", NOW + 5)
                .await
                .expect("moved")
        );
        let moved = store.game(row.id).await.expect("read").expect("exists");
        assert_eq!(
            (moved.channel.as_str(), moved.updated_at),
            ("thread-1", NOW + 5)
        );
        let here = store
            .active_games_in("console", "thread-1", alice.id)
            .await
            .expect("listed");
        assert_eq!(here.len(), 1);
        assert!(
            !store
                .set_game_channel(row.id + 99, "x", NOW)
                .await
                .expect("no game")
        );

        assert!(store.threads_on("discord", "guild").await.expect("read"));
        store
            .set_threads("discord", "guild", false)
            .await
            .expect("stored");
        assert!(!store.threads_on("discord", "guild").await.expect("read"));
        assert!(store.threads_on("discord", "other").await.expect("read"));
        store
            .set_threads("discord", "guild", true)
            .await
            .expect("stored");
        assert!(store.threads_on("discord", "guild").await.expect("read"));
    }
}

backends! {
    #[tokio::test]
    async fn only_finished_rated_games_with_a_result_are_rated_and_only_once(db: TestDb) {
        let store = db.open().await;
        let alice = player(&store, "alice").await;
        let bob = player(&store, "bob").await;
        let fixed = |_: &pigeon::store::RatingUpdate| {
            let rating = |rating| pigeon::store::Glicko {
                rating,
                deviation: 300.0,
                volatility: 0.06,
            };
            [rating(1600.0), rating(1400.0)]
        };
        let active = store
            .create_game(&game(alice.id, bob.id))
            .await
            .expect("created");
        let aborted = store
            .create_game(&game(alice.id, bob.id))
            .await
            .expect("created");
        let casual = NewGame {
            rated: false,
            ..game(alice.id, bob.id)
        };
        let casual = store.create_game(&casual).await.expect("created");
        let rated = store
            .create_game(&game(alice.id, bob.id))
            .await
            .expect("created");
        for (id, result, reason) in [
            (aborted.id, None, "aborted"),
            (casual.id, Some("1-0"), "resignation"),
            (rated.id, Some("1-0"), "resignation"),
        ] {
            store
                .finish_game(id, 0, result, reason, NOW, None)
                .await
                .expect("finished");
        }
        assert_eq!(store.unrated_games().await.expect("query"), [rated.id]);
        for id in [active.id, aborted.id, casual.id] {
            assert!(!store.rate_game(id, NOW, fixed).await.expect("no error"));
        }
        assert!(store.rate_game(rated.id, NOW, fixed).await.expect("rated"));
        assert!(
            !store
                .rate_game(rated.id, NOW, fixed)
                .await
                .expect("no error")
        );
        assert!(store.unrated_games().await.expect("query").is_empty());
        let board = store
            .leaderboard("general", "chak", 10)
            .await
            .expect("query");
        let names: Vec<(&str, f64, i64)> = board
            .iter()
            .map(|row| (row.display_name.as_str(), row.rating, row.games))
            .collect();
        assert_eq!(names, [("alice", 1600.0, 1), ("bob", 1400.0, 1)]);
        let history = store
            .rating_history(bob.id, "general", "chak", 5)
            .await
            .expect("query");
        assert_eq!(history.len(), 1);
        assert_eq!(
            (history[0].before, history[0].after, history[0].score),
            (1500.0, 1400.0, 0.0)
        );
        let results = store.results_of(alice.id, "general").await.expect("query");
        // The casual and the rated win count; the aborted game has no result.
        assert_eq!(
            (results[0].wins, results[0].losses, results[0].draws),
            (2, 0, 0)
        );
        assert_eq!(
            store.ratings_of(bob.id, "elsewhere").await.expect("query"),
            []
        );
        let bots = store.active_bot_games(None).await.expect("query");
        assert!(bots.is_empty());
    }
}

backends! {
    #[tokio::test]
    async fn every_connection_syncs_fully(db: TestDb) {
        let store = db.open().await;
        let settings = store.synchronous_settings().await.expect("query");
        // SQLite's FULL and PostgreSQL's synchronous_commit=on: an acknowledged commit
        // survives a power loss (of the server, on PostgreSQL), on every connection.
        let (connections, durable) = match db.backend {
            Backend::Sqlite => (4, "full"),
            Backend::Postgres => (8, "on"),
        };
        assert_eq!(settings.len(), connections);
        assert!(settings.iter().all(|s| s == durable), "{settings:?}");
        store.close().await;
    }

    #[tokio::test]
    async fn backups_of_postgres_are_left_to_pg_dump(db: TestDb) {
        let store = db.open().await;
        let path = db.dir().join("backup.db");
        let backup = store.backup(&path).await;
        match db.backend {
            Backend::Sqlite => {
                backup.expect("backed up");
                let copy = Store::open(&path).await.expect("the backup opens");
                assert_eq!(copy.integrity_check().await.expect("query"), "ok");
            }
            Backend::Postgres => {
                let error = backup.expect_err("no file copy of a server's database");
                assert!(error.to_string().contains("pg_dump"), "{error}");
                assert!(!path.exists());
            }
        }
    }
}

backends! {
    /// Many claims at once, from two processes' stores on one database: every pending notice
    /// is claimed by exactly one of them, and every reminder is recorded once.
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn racing_claims_from_two_stores_take_each_notice_once(db: TestDb) {
        const NOTICES: i64 = 300;
        const CLAIMERS: usize = 8;
        let stores = [db.open().await, db.open().await];
        let alice = player(&stores[0], "alice").await;
        let bob = player(&stores[0], "bob").await;
        let game = stores[0]
            .create_game(&game(alice.id, bob.id))
            .await
            .expect("created");
        // Both stores try to record each reminder; one of them does.
        let recorders: Vec<_> = (0..2)
            .map(|n| {
                let store = stores[n].clone();
                tokio::spawn(async move {
                    let mut recorded = 0;
                    for ply in 0..NOTICES {
                        let notice = NewNotice {
                            platform: "console",
                            kind: "reminder",
                            game_id: Some(game.id),
                            challenge_id: None,
                            ply: Some(ply),
                            left: Some(3600),
                            now: NOW,
                        };
                        recorded += i64::from(
                            store.claim_reminder(&notice, "hour").await.expect("query"),
                        );
                    }
                    recorded
                })
            })
            .collect();
        let mut recorded = 0;
        for recorder in recorders {
            recorded += recorder.await.expect("runs");
        }
        assert_eq!(recorded, NOTICES);

        let start = std::sync::Arc::new(tokio::sync::Barrier::new(CLAIMERS));
        let claimers: Vec<_> = (0..CLAIMERS)
            .map(|n| {
                let (store, start) = (stores[n % 2].clone(), std::sync::Arc::clone(&start));
                tokio::spawn(async move {
                    start.wait().await;
                    let mut claimed = Vec::new();
                    loop {
                        let batch = store
                            .claim_notices(Some("console"), NOW)
                            .await
                            .expect("query");
                        if batch.is_empty() {
                            return claimed;
                        }
                        claimed.extend(batch.into_iter().map(|notice| notice.id));
                    }
                })
            })
            .collect();
        let mut claimed = Vec::new();
        for claimer in claimers {
            claimed.extend(claimer.await.expect("runs"));
        }
        let total = claimed.len();
        claimed.sort_unstable();
        claimed.dedup();
        assert_eq!(total, claimed.len(), "a notice was claimed twice");
        assert_eq!(i64::try_from(total).expect("small"), NOTICES);
        for store in stores {
            store.close().await;
        }
    }
}

backends! {
    /// A lease between two processes' stores: one holds it at a time, renews it, lets it go;
    /// the other takes it once it lapses or is let go, never before.
    #[tokio::test]
    async fn a_lease_is_held_by_one_process_at_a_time_and_taken_over_when_it_lapses(db: TestDb) {
        use std::sync::Arc;

        use pigeon::service::lease::LEASE_TERM;
        use pigeon::service::{ManualClock, Service};

        let clock = ManualClock::new(NOW);
        let a = Service::new(db.open().await, Arc::new(clock.clone())).lease("matrix bot");
        let b = Service::new(db.open().await, Arc::new(clock.clone())).lease("matrix bot");
        let other = Service::new(db.open().await, Arc::new(clock.clone())).lease("another");
        assert!(a.take().await.expect("taken"), "a free lease is taken");
        assert!(!b.take().await.expect("asked"), "a held lease is not");
        assert!(other.take().await.expect("taken"), "each name is its own lease");
        clock.advance(LEASE_TERM - 1);
        assert!(a.take().await.expect("renewed"), "the holder renews");
        clock.advance(LEASE_TERM - 1);
        assert!(!b.take().await.expect("asked"), "renewed, it has not lapsed");
        clock.advance(1);
        assert!(b.take().await.expect("taken over"), "a lapsed lease is taken over");
        assert!(!a.take().await.expect("asked"), "the old holder lost it");
        b.release().await;
        assert!(a.take().await.expect("taken"), "a lease let go is free at once");
        a.release().await;
        b.release().await;
    }
}

backends! {
    /// A loss on time lands only while the deadline it was taken for still stands: a deadline
    /// moved on meanwhile (by another process starting after an outage) keeps the game going.
    #[tokio::test]
    async fn a_timeout_does_not_land_on_a_deadline_moved_on(db: TestDb) {
        let (store, _, _, row) = alice_and_bob_playing(&db).await;
        let deadline = row.deadline.expect("a deadline");
        db.tamper("UPDATE games SET deadline = deadline + 86400 WHERE id = $1", row.id)
            .await;
        let late = store
            .finish_game(row.id, 0, Some("0-1"), "timeout", deadline, None)
            .await;
        assert!(matches!(late, Err(StoreError::Conflict)), "{late:?}");
        let row = store.game(row.id).await.expect("query").expect("exists");
        assert_eq!((row.status.as_str(), row.deadline), ("active", Some(deadline + 86_400)));

        // At the deadline that stands, time runs out.
        store
            .finish_game(row.id, 0, Some("0-1"), "timeout", deadline + 86_400, None)
            .await
            .expect("ended on time");
        let row = store.game(row.id).await.expect("query").expect("exists");
        assert_eq!(row.end_reason.as_deref(), Some("timeout"));
    }
}

backends! {
    /// The account's first start is recorded once and read the same by every process; an
    /// older time brought in (from a file an earlier version kept) wins, a later one never.
    #[tokio::test]
    async fn an_accounts_first_start_is_recorded_once_and_read_by_every_process(db: TestDb) {
        let (a, b) = (db.open().await, db.open().await);
        assert_eq!(a.first_start("matrix", "@bot:x", NOW).await.expect("recorded"), NOW);
        assert_eq!(
            b.first_start("matrix", "@bot:x", NOW + 600).await.expect("read"),
            NOW,
            "another process, later, reads the first start"
        );
        assert_eq!(
            b.first_start("matrix", "@other:x", NOW + 600).await.expect("recorded"),
            NOW + 600,
            "each account its own"
        );
        assert_eq!(
            b.first_start("matrix", "@bot:x", NOW - 60).await.expect("brought in"),
            NOW - 60,
            "an earlier record wins"
        );
        assert_eq!(
            a.first_start("matrix", "@bot:x", NOW).await.expect("read"),
            NOW - 60
        );
    }

    /// Whether a chat event was handled is read without recording it.
    #[tokio::test]
    async fn a_handled_event_is_known_without_being_claimed_by_asking(db: TestDb) {
        let store = db.open().await;
        assert!(!store.event_claimed("matrix", "$one").await.expect("read"));
        assert!(!store.event_claimed("matrix", "$one").await.expect("read"), "asking records nothing");
        assert!(store.claim_event("matrix", "$one", NOW).await.expect("claimed"));
        assert!(store.event_claimed("matrix", "$one").await.expect("read"));
        assert!(!store.event_claimed("discord", "$one").await.expect("read"), "per platform");
    }
}

backends! {
    #[tokio::test]
    async fn notices_are_claimed_a_batch_at_a_time_oldest_first(db: TestDb) {
        let (store, _, _, row) = alice_and_bob_playing(&db).await;
        let batch = usize::try_from(NOTICE_BATCH).expect("small");
        // A long outage's backlog: half a batch more notices than one claim takes.
        for ply in 0..NOTICE_BATCH * 3 / 2 {
            let notice = NewNotice {
                platform: "console",
                kind: "reminder",
                game_id: Some(row.id),
                challenge_id: None,
                ply: Some(ply),
                left: Some(10),
                now: NOW,
            };
            assert!(store.claim_reminder(&notice, "hour").await.expect("query"));
        }
        let first = store.claim_notices(Some("console"), NOW).await.expect("query");
        assert_eq!(first.len(), batch);
        let plies: Vec<_> = first.iter().filter_map(|n| n.ply).collect();
        assert_eq!(plies, (0..NOTICE_BATCH).collect::<Vec<_>>(), "oldest first");
        // The rest come with the next claim; the first batch is not taken again.
        let second = store.claim_notices(Some("console"), NOW).await.expect("query");
        assert_eq!(second.len(), batch / 2);
        assert!(second.iter().all(|n| n.ply >= Some(NOTICE_BATCH)));
        assert!(store.claim_notices(Some("console"), NOW).await.expect("query").is_empty());
        store.close().await;
    }
}
