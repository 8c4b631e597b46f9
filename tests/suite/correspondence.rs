//! Correspondence features through the service on both backends: a conditional reply left
//! unplayed by a stopped process is played once by the clocks of two processes; the daily
//! digest comes at the local time on both sides of a change of summer time, once a day also
//! across restarts and outages, and never when nothing waits.

use pigeon::adapters::console;
use pigeon::chat;
use pigeon::service::{DAY, HOUR, ManualClock, Notice, Place, Service, User};

use crate::common::{TestDb, backends};
use crate::deadlines::hold_past_deadline;
use crate::service::started_game;
use crate::transcripts::{START, open};

fn place() -> Place {
    Place::new(console::PLATFORM, "general")
}

fn user(name: &str) -> User {
    console::user(name)
}

/// Runs the clocks and delivers every notice; gives them.
pub(crate) async fn tick(service: &Service) -> Vec<Notice> {
    let mut notices = Vec::new();
    for pending in service
        .tick_platform(console::PLATFORM)
        .await
        .expect("the clocks run")
    {
        service.delivered(pending.id).await;
        notices.push(pending.notice);
    }
    notices
}

async fn play(service: &Service, name: &str, text: &str) {
    service
        .play(&place(), &user(name), None, text)
        .await
        .unwrap_or_else(|e| panic!("{name} plays {text}: {e}"));
}

/// The game's moves in the display notation.
async fn history(service: &Service, id: i64) -> Vec<String> {
    let state = service.load(id).await.expect("the game loads");
    state
        .record
        .moves()
        .iter()
        .map(|p| p.display.clone())
        .collect()
}

/// 2026-03-27 12:00 UTC, a Friday: the next day Berlin's clocks go forward (at 01:00 UTC on
/// Sunday the 29th).
const SPRING: i64 = 1_774_612_800;
/// 2026-10-23 12:00 UTC, a Friday: Berlin's clocks go back at 01:00 UTC on Sunday the 25th.
const AUTUMN: i64 = 1_792_756_800;

/// Sets alice's digest to 08:00 in Berlin and starts a 14-day game in which she is to move
/// (bob, waiting, has a digest too, which never comes).
async fn digest_game(service: &Service) -> i64 {
    for name in ["alice", "bob"] {
        let reply = chat::handle(
            service,
            &console::incoming(&console::Line {
                channel: String::from("general"),
                name: name.to_owned(),
                text: String::from("settings digest 08:00 Europe/Berlin"),
            }),
        )
        .await;
        let text = reply.first().map(chat::Reply::plain).unwrap_or_default();
        assert!(
            text.contains("Daily digest: at 08:00 (Europe/Berlin)"),
            "{text}"
        );
    }
    service
        .challenge(
            &place(),
            &user("alice"),
            Some(&user("bob")),
            pigeon::rules::Variant::Chak,
            Some(14),
            pigeon::service::ColorChoice::White,
        )
        .await
        .expect("challenged");
    service
        .accept(&place(), &user("bob"), None)
        .await
        .expect("accepted")
        .row
        .id
}

/// The digests among `notices`, as the player reads them.
async fn digests(service: &Service, notices: &[Notice]) -> Vec<String> {
    let mut texts = Vec::new();
    for notice in notices {
        if let Notice::Digest { player, .. } = notice {
            let (_, reply) = chat::notice_reply(service, notice).await;
            texts.push(format!("{}: {}", player.name, reply.plain()));
        }
    }
    texts
}

/// Runs the clocks at `at` and gives the digests they sent.
async fn digests_at(service: &Service, clock: &ManualClock, at: i64) -> Vec<String> {
    clock.set(at);
    let notices = tick(service).await;
    digests(service, &notices).await
}

/// The digest at 08:00 in Berlin on the day before a change of summer time (`before`, UTC) and
/// on the day of the change (`after`, UTC), with nothing twice after a restart.
async fn digest_across_a_change(db: &TestDb, start: i64, before: i64, after: i64) {
    let clock = ManualClock::new(start);
    let mut service = open(db, &clock).await;
    let id = digest_game(&service).await;
    assert!(digests_at(&service, &clock, before - 60).await.is_empty());
    let first = digests_at(&service, &clock, before).await;
    assert_eq!(first.len(), 1, "{first:?}");
    assert!(
        first[0].starts_with("alice: Good day, alice: 1 game awaits your move."),
        "{first:?}"
    );
    assert!(
        first[0].contains(&format!("Game #{id} (Chak) against bob: 13 days")),
        "{first:?}"
    );
    assert!(first[0].contains("in #general"), "{first:?}");
    assert!(digests_at(&service, &clock, before + 30).await.is_empty());
    service.store().close().await;
    service = open(db, &clock).await;
    assert!(digests_at(&service, &clock, before + 60).await.is_empty());
    // The console's `wait` stops at the next one: 08:00 local on the day of the change.
    assert_eq!(
        service.next_due(console::PLATFORM).await.expect("reads"),
        Some(after)
    );
    assert!(digests_at(&service, &clock, after - 60).await.is_empty());
    assert_eq!(digests_at(&service, &clock, after).await.len(), 1);
    assert!(digests_at(&service, &clock, after + HOUR).await.is_empty());
    service.store().close().await;
}

backends! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_conditional_reply_a_stopped_process_left_is_played_once(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        let id = started_game(&service).await;
        play(&service, "alice", "e4").await;
        play(&service, "bob", "Vd8").await;
        let (_, lines) = service
            .add_conditional(&place(), &user("bob"), None, "Vd2 then Vb9 Vb1 Vd8")
            .await
            .expect("the line is stored");
        assert_eq!(lines, [["Vd2", "Vb9", "Vb1", "Vd8"]]);
        // alice's move is stored, and the process stops before answering it (the service
        // alone does not answer lines: the chat layer asks, or the clocks).
        play(&service, "alice", "Vd2").await;
        service.store().close().await;
        // Two processes start and run their clocks at once.
        let (first, second) = (open(&db, &clock).await, open(&db, &clock).await);
        let (a, b) = tokio::join!(tick(&first), tick(&second));
        let played: Vec<&Notice> = a
            .iter()
            .chain(&b)
            .filter(|n| matches!(n, Notice::BotMoved { .. }))
            .collect();
        assert_eq!(played.len(), 1, "one reply, announced once: {a:?} {b:?}");
        let (_, reply) = chat::notice_reply(&first, played[0]).await;
        assert!(reply.plain().contains("bob played Vb9"), "{}", reply.plain());
        assert_eq!(history(&first, id).await, ["e4", "Vd8", "Vd2", "Vb9"]);
        assert!(tick(&first).await.is_empty());
        assert!(tick(&second).await.is_empty());
        // The line goes on, shortened by the two plies.
        let (_, lines) = first
            .conditionals(&place(), &user("bob"), None)
            .await
            .expect("lists");
        assert_eq!(lines, [["Vb1", "Vd8"]]);
        // Through the chat the next reply comes at once, with alice's move.
        let replies = chat::handle(
            &first,
            &console::incoming(&console::Line {
                channel: String::from("general"),
                name: String::from("alice"),
                text: String::from("Vb1"),
            }),
        )
        .await;
        let text: Vec<String> = replies.iter().map(chat::Reply::plain).collect();
        assert!(text.iter().any(|t| t.contains("alice played Vb1")), "{text:?}");
        assert!(text.iter().any(|t| t.contains("bob played Vd8")), "{text:?}");
        assert_eq!(history(&first, id).await.len(), 6);
        let (_, lines) = first
            .conditionals(&place(), &user("bob"), None)
            .await
            .expect("lists");
        assert!(lines.is_empty(), "{lines:?}");
        assert!(tick(&second).await.is_empty());
        first.store().close().await;
        second.store().close().await;
    }

    #[tokio::test]
    async fn conditional_lines_wait_with_a_game_on_hold(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        let id = started_game(&service).await;
        play(&service, "alice", "e4").await;
        play(&service, "bob", "Vd8").await;
        service
            .add_conditional(&place(), &user("bob"), None, "Vd2 then Vb9")
            .await
            .expect("the line is stored");
        play(&service, "alice", "Vd2").await;
        // The line waits to be answered (the service alone does not answer lines).
        let before = service.store().conditionals(id).await.expect("reads");
        assert_eq!(before.len(), 1, "{before:?}");
        // The game's clock failed and it is set aside for the operator; bob's deadline passes
        // before the clocks answer his line.
        hold_past_deadline(&service, &clock, id).await;
        assert_eq!(history(&service, id).await, ["e4", "Vd8", "Vd2"]);
        let after = service.store().conditionals(id).await.expect("reads");
        assert_eq!(after, before, "the line waits for the operator too");
        service.store().close().await;
    }

    #[tokio::test]
    async fn the_digest_comes_at_eight_in_berlin_as_summer_time_starts(db: TestDb) {
        // 08:00 CET is 07:00 UTC on Saturday; 08:00 CEST is 06:00 UTC on Sunday.
        digest_across_a_change(&db, SPRING, SPRING + 19 * HOUR, SPRING + DAY + 18 * HOUR)
            .await;
    }

    #[tokio::test]
    async fn the_digest_comes_at_eight_in_berlin_as_summer_time_ends(db: TestDb) {
        // 08:00 CEST is 06:00 UTC on Saturday; 08:00 CET is 07:00 UTC on Sunday.
        digest_across_a_change(&db, AUTUMN, AUTUMN + 18 * HOUR, AUTUMN + DAY + 19 * HOUR)
            .await;
    }

    #[tokio::test]
    async fn one_digest_after_an_outage_of_days_and_none_when_nothing_waits(db: TestDb) {
        let clock = ManualClock::new(SPRING);
        let service = open(&db, &clock).await;
        digest_game(&service).await;
        // Three days pass without the clocks running: one digest, then the next day's.
        let sent = digests_at(&service, &clock, SPRING + 3 * DAY).await;
        assert_eq!(sent.len(), 1, "{sent:?}");
        assert!(sent[0].starts_with("alice:"), "{sent:?}");
        let next = service.next_due(console::PLATFORM).await.expect("reads");
        assert_eq!(next, Some(SPRING + 3 * DAY + 18 * HOUR), "08:00 CEST on Tuesday");
        // Once alice has moved, nothing waits for her: no digest; bob's comes instead.
        play(&service, "alice", "e4").await;
        let sent = digests_at(&service, &clock, SPRING + 3 * DAY + 18 * HOUR).await;
        assert_eq!(sent.len(), 1, "{sent:?}");
        assert!(sent[0].starts_with("bob: Good day, bob"), "{sent:?}");
        // Turned off, it stops.
        service
            .set_digest(&user("bob"), &pigeon::service::DigestRequest::Off)
            .await
            .expect("turned off");
        assert!(digests_at(&service, &clock, SPRING + 5 * DAY).await.is_empty());
        service.store().close().await;
    }
}
