//! A tournament in a Matrix room: created by the room's admin only (a member of power level 0
//! is refused), it gets its room thread, where `tournament` commands need no number and its
//! pairings, results and final standings (text and picture) are posted.

use matrix_sdk::ruma::events::room::message::MessageType;

use super::{Person, Seen, downloaded_png, person, room_with, scene, wait_for};

/// The bot's first message in the thread rooted at `root` that `fits`.
async fn in_thread(
    person: &Person,
    bot: &matrix_sdk::ruma::UserId,
    root: &matrix_sdk::ruma::OwnedEventId,
    what: &str,
    fits: impl Fn(&Seen) -> bool,
) -> Seen {
    wait_for(what, async || {
        person
            .seen()
            .into_iter()
            .find(|s| s.sender == bot && s.thread() == Some(root) && fits(s))
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a Synapse homeserver; tests/run starts one"]
async fn a_tournament_is_run_in_its_room_thread() {
    let scene = scene("tourney").await;
    let carol = person(&scene.server, "tourney-carol").await;
    let (alice, bob, bot) = (&scene.alice, &scene.bob, &scene.bot);
    let run = scene.start_bot().await;
    // alice made the room: she is its admin (power level 100); bob and carol are members (0).
    let room_a = room_with(alice, &[bob, &carol], bot, false).await;
    let id = room_a.room_id().to_owned();
    let (room_b, room_c) = (bob.room(&id).await, carol.room(&id).await);
    let create = "!pigeon tournament create Cup chak swiss 1 round 2 days casual";

    let refused = bob.ask(&room_b, bot, create).await;
    assert!(
        refused
            .body()
            .contains("Only this community's managers can create tournaments here"),
        "{}",
        refused.body()
    );
    let created = alice.ask(&room_a, bot, create).await;
    assert!(
        created
            .body()
            .contains("Tournament #1 \"Cup\" (Chak, Swiss) is open"),
        "{}",
        created.body()
    );
    assert_eq!(
        created.thread(),
        None,
        "the announcement is the thread's root"
    );
    let root = created.event.clone();
    let welcome = in_thread(alice, bot, &root, "the thread's welcome", |s| {
        s.body()
            .contains("pairings, results and standings are posted here")
    })
    .await;
    assert!(welcome.is_text());

    // Three join, in the thread (no number needed there) and in the room.
    let joined = alice.ask(&room_a, bot, "!pigeon tournament join").await;
    assert!(
        joined.body().contains("joined tournament #1"),
        "{}",
        joined.body()
    );
    for (who, room) in [(bob, &room_b), (&carol, &room_c)] {
        let joined = who
            .ask_in(room, Some(&root), bot, "!pigeon tournament join")
            .await;
        assert!(
            joined.body().contains("joined tournament #1"),
            "{}",
            joined.body()
        );
        assert_eq!(joined.thread(), Some(&root), "answered in the thread");
    }
    let started = alice
        .ask_in(&room_a, Some(&root), bot, "!pigeon tournament start")
        .await;
    assert!(
        started
            .body()
            .contains("has started with 3 players, round 1 of 1"),
        "{}",
        started.body()
    );

    // The round is posted in the thread: one game and a bye.
    let round = in_thread(alice, bot, &root, "round 1 in the thread", |s| {
        s.body().contains("round 1 of 1 is paired")
    })
    .await;
    assert!(round.body().contains("#1 "), "{}", round.body());
    assert!(
        round.body().contains("Bye (a point, no game)"),
        "{}",
        round.body()
    );

    // Whoever plays game #1 resigns it in the thread (the one with the bye is refused).
    let mut resigned = false;
    for (who, room) in [(alice, &room_a), (bob, &room_b), (&carol, &room_c)] {
        let reply = who
            .ask_in(room, Some(&root), bot, "!pigeon resign #1 confirm")
            .await;
        if reply.body().contains("resigned game #1") {
            resigned = true;
            break;
        }
    }
    assert!(resigned, "a player of game #1 resigned it");

    // The round over, the tournament is: the final standings in the thread, with the table
    // as a picture that decodes.
    let over = in_thread(alice, bot, &root, "the end in the thread", |s| {
        s.body()
            .contains("Tournament #1 \"Cup\" (Chak, Swiss) is over")
    })
    .await;
    assert!(over.body().contains("The winner is"), "{}", over.body());
    assert!(over.body().contains("BH-C1"), "{}", over.body());
    let picture = in_thread(alice, bot, &root, "the standings picture", |s| {
        matches!(s.content.msgtype, MessageType::Image(_))
            && s.body().starts_with("tournament-1-standings")
    })
    .await;
    let table = downloaded_png(alice, &picture).await;
    // A title, a header and a row for each of the three players.
    assert!(
        table.height() >= 5 * 20,
        "{}x{}",
        table.width(),
        table.height()
    );

    // Asked in the thread, the standings need no number either.
    let standings = carol
        .ask_in(&room_c, Some(&root), bot, "!pigeon tournament standings")
        .await;
    assert!(
        standings
            .body()
            .contains("Standings of tournament #1 \"Cup\""),
        "{}",
        standings.body()
    );
    run.stop().await;
}
