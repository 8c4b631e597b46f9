//! Game options through the service on each backend: a takeback racing a move resolves to one
//! outcome, and a move prepared before a takeback cannot land after a replay to the same ply.

use crate::common::backends;
use crate::transcripts::{START, open};
use pigeon::adapters::console;
use pigeon::rules::{Color, Variant};
use pigeon::service::{
    ColorChoice, ManualClock, Place, Service, ServiceError, TakebackAction, TakebackDone, Terms,
    User,
};
use pigeon::store::{AppendMoves, StoreError};

fn place() -> Place {
    Place::new("console", "general")
}

fn user(name: &str) -> User {
    console::user(name)
}

/// A casual Chak game (takebacks on) of alice (White) against bob, just started.
async fn casual_game(service: &Service) -> i64 {
    let terms = Terms {
        color: ColorChoice::White,
        rated: Some(false),
        ..Terms::new(Variant::Chak)
    };
    service
        .challenge_with(&place(), &user("alice"), Some(&user("bob")), &terms)
        .await
        .expect("challenged");
    service
        .accept(&place(), &user("bob"), None)
        .await
        .expect("accepted")
        .row
        .id
}

async fn play(service: &Service, who: &str, id: i64, text: &str) {
    service
        .play(&place(), &user(who), Some(id), text)
        .await
        .unwrap_or_else(|e| panic!("{who} plays {text}: {e}"));
}

backends! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_takeback_acceptance_racing_a_move_has_one_outcome(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        let mut seen = [0; 3];
        for round in 0..20 {
            let id = casual_game(&service).await;
            play(&service, "alice", id, "e3e4").await;
            play(&service, "bob", id, "e7e6").await;
            // bob asks to take back e6; alice, to move, plays instead of answering.
            service
                .takeback(&place(), &user("bob"), Some(id), TakebackAction::Ask)
                .await
                .expect("asked");
            let accept = {
                let service = service.clone();
                tokio::spawn(async move {
                    service
                        .takeback(&place(), &user("alice"), Some(id), TakebackAction::Accept)
                        .await
                })
            };
            let mv = {
                let service = service.clone();
                tokio::spawn(async move {
                    service
                        .play(&place(), &user("alice"), Some(id), "c3c4")
                        .await
                        .map(|_| ())
                })
            };
            let (accept, mv) = (accept.await.expect("runs"), mv.await.expect("runs"));
            let state = service.load(id).await.expect("the game replays");
            match (&accept, &mv) {
                // The takeback first (both plies would go... only bob's e6: it was his move).
                (Ok(TakebackDone::Taken { plies: 1, .. }), Err(ServiceError::Changed)) => {
                    assert_eq!(state.row.ply, 1, "round {round}");
                    assert_eq!(state.turn(), Color::Black);
                    seen[0] += 1;
                }
                // The takeback first, then the move on the game as it was after it: not
                // alice's turn any more.
                (Ok(TakebackDone::Taken { plies: 1, .. }), Err(ServiceError::NotYourTurn { .. })) => {
                    assert_eq!(state.row.ply, 1, "round {round}");
                    seen[1] += 1;
                }
                // The move first: it withdrew the request.
                (
                    Err(ServiceError::NoTakebackRequest(_) | ServiceError::Changed),
                    Ok(()),
                ) => {
                    assert_eq!(state.row.ply, 3, "round {round}");
                    assert_eq!(state.row.takeback_offer, None);
                    seen[2] += 1;
                }
                other => panic!("round {round}: two outcomes or none: {other:?}"),
            }
            service
                .resign(&place(), &user("bob"), Some(id))
                .await
                .expect("resigned");
        }
        assert_eq!(seen.iter().sum::<i32>(), 20);
    }
}

backends! {
    #[tokio::test]
    async fn a_move_prepared_before_a_takeback_never_lands_after_a_replay(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        let id = casual_game(&service).await;
        play(&service, "alice", id, "e3e4").await;
        let stale = service.load(id).await.expect("loads");
        assert_eq!((stale.row.ply, stale.row.revision), (1, 1));
        service
            .takeback(&place(), &user("alice"), Some(id), TakebackAction::Ask)
            .await
            .expect("asked");
        let done = service
            .takeback(&place(), &user("bob"), Some(id), TakebackAction::Accept)
            .await
            .expect("taken back");
        assert!(matches!(done, TakebackDone::Taken { plies: 1, .. }));
        play(&service, "alice", id, "c3c4").await;
        let now = service.load(id).await.expect("loads");
        assert_eq!((now.row.ply, now.row.revision), (1, 3));
        // bob's answer prepared on the game after e4 comes back at the same ply.
        let moves = [("e7e6".to_owned(), Some(now.black.id))];
        let late = service
            .store()
            .append_moves(&AppendMoves {
                game_id: id,
                expected_ply: stale.row.ply,
                expected_revision: stale.row.revision,
                moves: &moves,
                position: "a position from another game",
                deadline: None,
                finish: None,
                mover: "black",
                now: START,
                notice: None,
            })
            .await;
        assert!(matches!(late, Err(StoreError::Conflict)), "{late:?}");
        let state = service.load(id).await.expect("the game still replays");
        assert_eq!(state.record.moves().len(), 1);
        assert_eq!(state.record.moves()[0].text, "c3c4");
    }
}
