//! Nothing is lost while the bot is away: messages a sync leaves out after a long stop are
//! read back and answered in order, and a process taking over the account knows its first
//! start from the game database.

use std::sync::Arc;

use pigeon::service::{ManualClock, SystemClock};

use super::{BotRun, Person, Scene, Seen, bot_config, room_with, run_bot, scene};

/// How many of a room's latest events the bot's syncs bring in these tests: far fewer than
/// the messages sent while it is away.
const SHORT_TIMELINE: u32 = 3;

/// A Chak game's moves, alice (white) and bob in turn, ending in a draw by threefold
/// repetition: played out of order, a move is refused.
const MOVES: [&str; 9] = ["e4", "Vd8", "Vd2", "Vb9", "Vb1", "Vd8", "Vd2", "Vb9", "Vb1"];

/// Starts a game, stops the bot, plays a whole game while it is away (more moves than one
/// sync brings), starts it again and checks every move is answered once, in order.
async fn a_long_stop_is_caught_up(test: &str, encrypted: bool) {
    let scene = scene(test).await;
    let (alice, bob, bot_id) = (&scene.alice, &scene.bob, &scene.bot);
    // A first start kept by an earlier version in the store folder is brought into the game
    // database (and the file removed).
    let earlier = chrono_now() - 3600;
    std::fs::create_dir_all(scene.matrix_store()).expect("a store folder");
    let file = scene.matrix_store().join("first-start");
    std::fs::write(&file, format!("{earlier}\n")).expect("written");
    let bot = start_short(&scene).await;
    let room_a = room_with(alice, &[bob], bot_id, encrypted).await;
    let room_b = bob.room(&room_a.room_id().to_owned()).await;
    assert!(
        !file.exists(),
        "the file is gone once its time is in the database"
    );
    assert_eq!(
        bot.store
            .first_start("matrix", bot_id.as_str(), chrono_now())
            .await
            .expect("read"),
        earlier,
        "the file's first start is the account's"
    );
    alice.ask(&room_a, bot_id, "!pigeon threads off").await;
    alice
        .ask(
            &room_a,
            bot_id,
            &format!("!pigeon challenge {} chak 3 days white", bob.id),
        )
        .await;
    let start = bob.ask(&room_b, bot_id, "!pigeon accept").await;
    assert!(start.body().contains("starts"), "{}", start.body());
    bot.stop().await;

    // While the bot is away, the whole game is played: three times more than a sync brings.
    let mut sent = Vec::new();
    for (index, text) in MOVES.iter().enumerate() {
        let (who, room) = if index % 2 == 0 {
            (alice, &room_a)
        } else {
            (bob, &room_b)
        };
        sent.push(who.say(room, &format!("!pigeon move {text}")).await);
    }

    let bot = start_short(&scene).await;
    let last = alice.notice_to(&room_a, bot_id, &sent[8]).await;
    assert!(
        last.body()
            .contains("Game over: 1/2-1/2, drawn by threefold repetition"),
        "the moves were played in order: {}",
        last.body()
    );
    // One more round trip, so anything answered twice has arrived.
    let over = bob.ask(&room_b, bot_id, "!pigeon move Vd8").await;
    assert!(over.body().contains("is over"), "{}", over.body());
    let answers = answers_to(alice, &sent);
    for (index, (event, replies)) in sent.iter().zip(&answers).enumerate() {
        assert_eq!(
            replies.len(),
            1,
            "move {index} ({event}) answered once: {replies:?}"
        );
        assert!(
            replies[0].body().contains("played") || replies[0].body().contains("Game over"),
            "move {index} was played: {}",
            replies[0].body()
        );
    }
    let order: Vec<&Seen> = answers.iter().map(|r| &r[0]).collect();
    assert!(
        order.windows(2).all(|w| w[0].at <= w[1].at),
        "answered in the order they were sent"
    );
    bot.stop().await;
}

/// The bot's text answers to each event, as `person` saw them.
fn answers_to(person: &Person, events: &[matrix_sdk::ruma::OwnedEventId]) -> Vec<Vec<Seen>> {
    let seen = person.seen();
    events
        .iter()
        .map(|event| {
            seen.iter()
                .filter(|s| s.reply_to() == Some(event) && s.is_text())
                .cloned()
                .collect()
        })
        .collect()
}

/// Seconds since 1970 now.
fn chrono_now() -> i64 {
    use pigeon::service::Clock;
    SystemClock.now()
}

/// The scene's bot, syncing [`SHORT_TIMELINE`] events at a time.
async fn start_short(scene: &Scene) -> BotRun {
    let mut config = bot_config(
        &scene.server,
        scene.bot.localpart(),
        &scene.matrix_store(),
        7,
    );
    config.timeline_limit = SHORT_TIMELINE;
    run_bot(&scene.db(), config, Arc::new(SystemClock)).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a Synapse homeserver; tests/run starts one"]
async fn a_long_stop_is_caught_up_in_order_in_a_plain_room() {
    a_long_stop_is_caught_up("gap", false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a Synapse homeserver; tests/run starts one"]
async fn a_long_stop_is_caught_up_in_order_in_an_encrypted_room() {
    a_long_stop_is_caught_up("gapcrypt", true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a Synapse homeserver; tests/run starts one"]
async fn one_process_syncs_an_account_and_another_takes_over_when_it_dies() {
    let scene = scene("failover").await;
    let (alice, bot_id) = (&scene.alice, &scene.bot);
    let clock = ManualClock::running();
    let store_b = scene.dir.path().join("pigeon-matrix-b");
    let first = run_bot(
        &scene.db(),
        bot_config(&scene.server, bot_id.localpart(), &scene.matrix_store(), 7),
        Arc::new(clock.clone()),
    )
    .await;
    let room = room_with(alice, &[], bot_id, false).await;
    // The standby has a store folder of its own, and nothing copied into it: the account's
    // first start is in the game database.
    let second = run_bot(
        &scene.db(),
        bot_config(&scene.server, bot_id.localpart(), &store_b, 7),
        Arc::new(clock.clone()),
    )
    .await;
    // The second stands by: it does not even log in while the first holds the lease.
    let help = alice.say(&room, "!pigeon help").await;
    alice.notice_to(&room, bot_id, &help).await;
    assert!(
        !store_b.join("session.json").exists(),
        "the second is standing by"
    );
    let games = alice.say(&room, "!pigeon games").await;
    alice.notice_to(&room, bot_id, &games).await;
    let again = alice.say(&room, "!pigeon games").await;
    alice.notice_to(&room, bot_id, &again).await;
    assert_eq!(
        alice.replies(&room, bot_id, &games).len(),
        1,
        "one process answers"
    );

    // The first dies without a word (its lease is not let go). A message sent before the
    // second takes over is answered by it, once, though the second's clock is ahead by then
    // (its own first start would come after the message).
    first.task.abort();
    first.store.close().await;
    let during = alice.say(&room, "!pigeon games").await;
    clock.advance(pigeon::service::lease::LEASE_TERM + 1);
    alice.notice_to(&room, bot_id, &during).await;
    assert!(
        store_b.join("session.json").exists(),
        "the second process took over"
    );
    let asked = alice.ask(&room, bot_id, "!pigeon help").await;
    assert!(asked.body().contains("challenge"), "{}", asked.body());
    // (`help` is long enough to be answered in several messages.)
    for event in [&games, &again, &during] {
        let answers: Vec<Seen> = alice
            .replies(&room, bot_id, event)
            .into_iter()
            .filter(Seen::is_text)
            .collect();
        assert_eq!(answers.len(), 1, "{event} answered once: {answers:?}");
    }
    second.stop().await;
}
