//! Deadlines that hold: no game action lands after its deadline, the service's own timer acts
//! on time (also right after a start), an outage of Pigeon moves on the deadlines that fell
//! inside it, and the console's clock can be driven (`--now`, `wait`).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use pigeon::adapters::console;
use pigeon::rules::Variant;
use pigeon::service::{
    ColorChoice, DAY, DrawAction, HOUR, ManualClock, Notice, Pending, Place, Service, ServiceError,
    User,
};

use pigeon::store::NOTICE_BATCH;

use crate::common::{TestDb, backends};
use crate::service::{started_game, started_game_between};
use crate::transcripts::{START, open};

fn place() -> Place {
    Place::new(console::PLATFORM, "general")
}

fn user(name: &str) -> User {
    console::user(name)
}

/// Delivers every pending notice and gives them.
async fn delivered(service: &Service, pending: Vec<Pending>) -> Vec<Notice> {
    let mut notices = Vec::new();
    for pending in pending {
        service.delivered(pending.id).await;
        notices.push(pending.notice);
    }
    notices
}

async fn tick(service: &Service) -> Vec<Notice> {
    let pending = service
        .tick_platform(console::PLATFORM)
        .await
        .expect("the clocks run");
    delivered(service, pending).await
}

backends! {
    #[tokio::test]
    async fn a_late_move_ends_the_game_on_time_first_and_is_told_when(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        assert!(tick(&service).await.is_empty());
        let id = started_game(&service).await;
        let deadline = service.load(id).await.expect("loads").row.deadline;
        assert_eq!(deadline, Some(START + 3 * DAY));
        // No clock ran since: the deadline passes with nothing in between, then the move arrives.
        clock.advance(3 * DAY + 5 * 60);
        let late = service
            .play(&place(), &user("alice"), None, "e3e4")
            .await
            .expect_err("too late");
        match &late {
            ServiceError::TimeRanOut { game, at, .. } => {
                assert_eq!((*game, *at), (id, START + 3 * DAY));
            }
            other => panic!("{other:?}"),
        }
        let text = late.to_string();
        assert!(text.contains("Too late"), "{text}");
        assert!(text.contains("2026-01-04 09:00 UTC"), "{text}");
        assert!(text.contains("wins by time running out"), "{text}");
        let state = service.load(id).await.expect("loads");
        assert_eq!(state.row.ply, 0, "the late move is not played");
        assert_eq!(state.row.status, "finished");
        assert_eq!(state.row.result.as_deref(), Some("0-1"));
        assert_eq!(state.row.finished_at, Some(START + 3 * DAY));
        // The ratings moved with the result.
        let stats = service.stats(&place(), &user("bob")).await.expect("stats");
        assert!(
            stats.ratings.iter().any(|(_, changes)| !changes.is_empty()),
            "{stats:?}"
        );
        // The announcement, with its picture, goes to the channel once.
        let notices = tick(&service).await;
        assert_eq!(notices.len(), 1, "{notices:?}");
        let (at, reply) = pigeon::chat::notice_reply(&service, &notices[0]).await;
        assert_eq!(at.channel, "general");
        assert!(
            reply.plain().contains("ran out of time"),
            "{}",
            reply.plain()
        );
        assert!(reply.picture.is_some());
        assert!(
            reply.plain().contains("Ratings: alice"),
            "{}",
            reply.plain()
        );
        assert!(tick(&service).await.is_empty());
    }
}

/// Sets game `id` aside for the operator, as the clocks do when its clock fails, and lets
/// its deadline (three days after the last move) pass: the clocks leave it alone.
pub(crate) async fn hold_past_deadline(service: &Service, clock: &ManualClock, id: i64) {
    service
        .store()
        .mark_attention(id, "a test's reason")
        .await
        .expect("marked");
    clock.advance(3 * DAY + 60);
    assert!(tick(service).await.is_empty());
}

backends! {
    #[tokio::test]
    async fn a_late_move_in_a_game_on_hold_is_told_so_and_not_played(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        let id = started_game(&service).await;
        // The game's clock failed earlier: it is set aside for the operator, and its clock no
        // longer ends it.
        hold_past_deadline(&service, &clock, id).await;
        let late = service
            .play(&place(), &user("alice"), Some(id), "e3e4")
            .await
            .expect_err("held");
        assert!(matches!(late, ServiceError::OnHold(game) if game == id), "{late:?}");
        let text = late.to_string();
        assert!(text.contains(&format!("Game #{id} is on hold")), "{text}");
        assert!(text.contains("Nothing was played"), "{text}");
        let state = service.load(id).await.expect("loads");
        assert_eq!((state.row.ply, state.row.status.as_str()), (0, "active"));
    }
}

backends! {
    #[tokio::test]
    async fn a_late_move_by_number_ends_its_game_once_leaving_others_to_the_clocks(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        assert!(tick(&service).await.is_empty());
        let id = started_game(&service).await;
        let other = started_game_between(&service, "carol", "dave").await;
        let deadline = START + 3 * DAY;
        // No clock runs: both deadlines pass, then alice's move for her game arrives, twice.
        clock.advance(3 * DAY + 60);
        for _ in 0..2 {
            let late = service
                .play(&place(), &user("alice"), Some(id), "e3e4")
                .await
                .expect_err("too late");
            assert!(
                matches!(late, ServiceError::TimeRanOut { game, at, .. }
                    if game == id && at == deadline),
                "{late:?}"
            );
        }
        let state = service.load(id).await.expect("loads");
        assert_eq!(state.row.ply, 0, "the late move is not played");
        assert_eq!(
            (state.row.end_reason.as_deref(), state.row.result.as_deref()),
            (Some("timeout"), Some("0-1"))
        );
        assert_eq!(state.row.finished_at, Some(deadline));
        // The other game is the clocks' to end, at their next run.
        assert!(service.load(other).await.expect("loads").is_active());
        let notices = tick(&service).await;
        let mut ended: Vec<i64> = notices
            .iter()
            .map(|notice| match notice {
                Notice::Timeout { game, .. } => game.row.id,
                other => panic!("{other:?}"),
            })
            .collect();
        ended.sort_unstable();
        assert_eq!(ended, [id, other], "each game ended and told once");
        let other = service.load(other).await.expect("loads");
        assert_eq!(other.row.finished_at, Some(deadline));
        assert!(tick(&service).await.is_empty());
    }
}

backends! {
    #[tokio::test]
    async fn no_draw_claim_resign_or_abort_lands_after_the_deadline(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        let first = started_game(&service).await;
        service
            .play(&place(), &user("alice"), Some(first), "e3e4")
            .await
            .expect("plays");
        // Bob is to move; his deadline passes. Each of his actions now finds the game over on
        // time (his loss), never a draw, an abort or a resignation.
        clock.advance(3 * DAY + 1);
        let draw = service
            .draw(&place(), &user("bob"), Some(first), DrawAction::Offer)
            .await;
        assert!(
            matches!(draw, Err(ServiceError::TimeRanOut { .. })),
            "{draw:?}"
        );
        let resign = service.resign(&place(), &user("bob"), Some(first)).await;
        assert!(
            matches!(resign, Err(ServiceError::TimeRanOut { .. })),
            "{resign:?}"
        );
        let abort = service.abort(&place(), &user("alice"), Some(first)).await;
        assert!(
            matches!(abort, Err(ServiceError::TimeRanOut { .. })),
            "{abort:?}"
        );
        let state = service.load(first).await.expect("loads");
        assert_eq!(state.row.end_reason.as_deref(), Some("timeout"));
        assert_eq!(state.row.result.as_deref(), Some("1-0"));
        // A rematch of the finished game is fine: it is no action on the game any more.
        service
            .rematch(&place(), &user("bob"), Some(first))
            .await
            .expect("a rematch of a game lost on time");
    }
}

backends! {
    #[tokio::test]
    async fn a_command_wakes_the_timer_to_announce_a_timeout_at_once(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        let id = started_game(&service).await;
        // A timer that would not come round again for an hour.
        let mut timer = service.timer(console::PLATFORM, Duration::from_secs(3600));
        let first = tokio::time::timeout(Duration::from_secs(30), timer.next())
            .await
            .expect("the first run is at once");
        assert!(first.is_empty());
        clock.advance(3 * DAY + 1);
        let late = service.play(&place(), &user("alice"), None, "e3e4").await;
        assert!(
            matches!(late, Err(ServiceError::TimeRanOut { .. })),
            "{late:?}"
        );
        let woken = tokio::time::timeout(Duration::from_secs(30), timer.next())
            .await
            .expect("the timer is woken");
        let notices = delivered(&service, woken).await;
        assert!(
            matches!(&notices[..], [Notice::Timeout { game, .. }] if game.row.id == id),
            "{notices:?}"
        );
    }
}

/// Opens the database again as a new process would, with the clock at `now`.
async fn restart(db: &TestDb, service: Service, clock: &ManualClock, now: i64) -> Service {
    service.store().close().await;
    clock.set(now);
    open(db, clock).await
}

backends! {
    #[tokio::test]
    async fn an_outage_moves_on_the_deadlines_that_fell_inside_it(db: TestDb) {
        let clock = ManualClock::new(START);
        let mut service = open(&db, &clock).await;
        let inside = started_game(&service).await; // deadline START + 3 days
        clock.advance(2 * DAY);
        let after = started_game(&service).await; // deadline START + 5 days
        tick(&service).await; // the clocks last run at START + 2 days
        // Pigeon stops at START + 2 days and starts again at START + 4 days.
        service = restart(&db, service, &clock, START + 4 * DAY).await;
        let notices = tick(&service).await;
        let outage = 2 * DAY;
        let moved = service.load(inside).await.expect("loads");
        assert!(moved.is_active(), "the game goes on");
        assert_eq!(moved.row.deadline, Some(START + 3 * DAY + outage));
        let untouched = service.load(after).await.expect("loads");
        assert_eq!(untouched.row.deadline, Some(START + 5 * DAY));
        let moved_notices: Vec<&Notice> = notices
            .iter()
            .filter(|notice| matches!(notice, Notice::DeadlineMoved { .. }))
            .collect();
        assert!(
            matches!(&moved_notices[..], [Notice::DeadlineMoved { game, by, .. }]
                if game.row.id == inside && *by == outage),
            "{notices:?}"
        );
        let (_, reply) = pigeon::chat::notice_reply(&service, moved_notices[0]).await;
        let text = reply.plain();
        assert!(text.contains("not running for 2 days"), "{text}");
        assert!(text.contains("2026-01-06 09:00 UTC"), "{text}");
        // Only the first run of a process looks for an outage.
        clock.advance(HOUR);
        let later = tick(&service).await;
        assert!(
            !later
                .iter()
                .any(|notice| matches!(notice, Notice::DeadlineMoved { .. })),
            "{later:?}"
        );
        assert_eq!(
            service.load(inside).await.expect("loads").row.deadline,
            Some(START + 5 * DAY)
        );
    }
}

backends! {
    #[tokio::test]
    async fn a_deadline_that_passed_before_an_outage_still_ends_its_game_at_start(db: TestDb) {
        let clock = ManualClock::new(START);
        let mut service = open(&db, &clock).await;
        let id = started_game(&service).await; // deadline START + 3 days
        // The clocks last ran after the deadline, but the game was not ended (its run failed).
        service
            .store()
            .heartbeat(console::PLATFORM, START + 3 * DAY + HOUR)
            .await
            .expect("recorded");
        service = restart(&db, service, &clock, START + 6 * DAY).await;
        let notices = tick(&service).await;
        let state = service.load(id).await.expect("loads");
        assert_eq!(state.row.end_reason.as_deref(), Some("timeout"));
        assert_eq!(state.row.finished_at, Some(START + 3 * DAY));
        assert!(
            matches!(&notices[..], [Notice::Timeout { .. }]),
            "{notices:?}"
        );
    }
}

/// Runs `pigeon console` on `db` with `args` and `input`; gives its standard output.
pub(crate) fn console(db: &Path, args: &[&str], input: &str) -> String {
    let boards = db.with_extension("boards");
    let (db, boards) = (db.to_str().expect("UTF-8"), boards.to_str().expect("UTF-8"));
    let mut all = vec!["console", "--db", db, "--out", boards];
    all.extend_from_slice(args);
    let output = crate::cli::pigeon(&all, input);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    String::from_utf8(output.stdout).expect("UTF-8")
}

/// The position of `needle` in `haystack`, which must contain it.
fn at(haystack: &str, needle: &str) -> usize {
    haystack
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} missing from:\n{haystack}"))
}

#[test]
fn the_console_clock_is_driven_with_now_and_wait_in_time_order() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let db = dir.path().join("console.db");
    let out = console(
        &db,
        &["--now", "2026-12-01T10:00:00Z"],
        "alice: challenge @bob chak white 2d\n\
         carol: challenge @dave\n\
         bob: accept 1\n\
         alice: e3e4\n\
         wait 10d\n\
         bob: e6e5\n\
         wait soon\n",
    );
    // The deadline is two days from the driven clock's instant.
    at(&out, "2026-12-03 10:00 UTC");
    let day = at(&out, "1 day left");
    let hour = at(&out, "1 hour left");
    let timeout = at(&out, "ran out of time");
    let expired = at(&out, "Challenge #2 from carol expired");
    let now = at(&out, "It is now 2026-12-11 10:00 UTC.");
    assert!(day < hour && hour < timeout && timeout < now, "{out}");
    // The challenge expires after the game's timeout or before it, at its own time.
    assert!(expired < now, "{out}");
    let late = at(&out, "Too late");
    assert!(now < late, "{out}");
    at(&out, "Write `wait` with a span of time");

    // A later run with a later instant goes on from what was stored.
    let again = console(
        &db,
        &["--now", "2026-12-12T10:00:00Z"],
        "alice: challenge @bob shakti 1d\nbob: accept\nalice: board\n",
    );
    at(&again, "2026-12-13 10:00 UTC");
}

#[test]
fn a_console_started_after_an_outage_tells_of_the_moved_deadlines_before_any_line() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let db = dir.path().join("restart.db");
    let first = console(
        &db,
        &["--now", "2026-12-01T10:00:00Z"],
        "alice: challenge @bob chak 1d\nbob: accept\nwait 2h\n",
    );
    at(&first, "It is now 2026-12-01 12:00 UTC.");
    // Stopped at 12:00 on the 1st; the deadline (10:00 on the 2nd) falls in the outage.
    let second = console(&db, &["--now", "2026-12-03T12:00:00Z"], "alice: board\n");
    let moved = at(&second, "Pigeon was not running for 2 days");
    at(&second, "2026-12-04 10:00 UTC");
    let board = at(&second, "Game #1");
    assert!(moved < board, "{second}");
}

#[test]
fn a_bad_instant_is_refused_with_the_form_to_use() {
    let output = Command::new(env!("CARGO_BIN_EXE_pigeon"))
        .args(["console", "--now", "next tuesday"])
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("2026-12-01T10:00:00Z"), "{stderr}");
}

backends! {
    /// Two processes on one database run their clocks at the same moment: every game whose
    /// time ran out ends once, and every timeout and expired challenge is told once, by one
    /// of them.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn two_processes_on_one_database_fire_each_event_once(db: TestDb) {
        let clock = ManualClock::new(START);
        let first = open(&db, &clock).await;
        let second = open(&db, &clock).await;
        let mut games = Vec::new();
        for _ in 0..8 {
            games.push(started_game(&first).await);
        }
        let mut challenges = Vec::new();
        for opponent in ["dave", "erin", "frank", "grace"] {
            let challenge = second
                .challenge(
                    &place(),
                    &user("carol"),
                    Some(&user(opponent)),
                    Variant::Chak,
                    None,
                    ColorChoice::White,
                )
                .await
                .expect("challenged");
            challenges.push(challenge.id);
        }
        clock.advance(8 * DAY);
        for round in 0..3 {
            let (a, b) = tokio::join!(
                tokio::spawn({
                    let first = first.clone();
                    async move { tick(&first).await }
                }),
                tokio::spawn({
                    let second = second.clone();
                    async move { tick(&second).await }
                }),
            );
            let notices: Vec<Notice> = a.expect("runs").into_iter().chain(b.expect("runs")).collect();
            let mut ended: Vec<i64> = notices
                .iter()
                .filter_map(|notice| match notice {
                    Notice::Timeout { game, .. } => Some(game.row.id),
                    _ => None,
                })
                .collect();
            let mut expired: Vec<i64> = notices
                .iter()
                .filter_map(|notice| match notice {
                    Notice::ChallengeExpired { challenge, .. } => Some(challenge.id),
                    _ => None,
                })
                .collect();
            ended.sort_unstable();
            expired.sort_unstable();
            if round == 0 {
                assert_eq!(ended, games, "{notices:?}");
                assert_eq!(expired, challenges, "{notices:?}");
            } else {
                assert!(notices.is_empty(), "round {round}: {notices:?}");
            }
        }
        for &id in &games {
            let state = first.load(id).await.expect("loads");
            assert_eq!(state.row.end_reason.as_deref(), Some("timeout"));
            let changes = first.store().game_rating_changes(id).await.expect("query");
            assert_eq!(changes.len(), 2, "rated once: {changes:?}");
        }
    }
}

backends! {
    #[tokio::test]
    async fn a_backlog_of_notices_is_delivered_batch_after_batch_without_waiting(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        // More games than one claim of notices takes, each between two players of its own.
        let games = NOTICE_BATCH * 3 / 2;
        for n in 0..games {
            started_game_between(&service, &format!("w{n}"), &format!("b{n}")).await;
        }
        // A timer that would not come round again for an hour; every game runs out of time.
        let mut timer = service.timer(console::PLATFORM, Duration::from_secs(3600));
        clock.advance(3 * DAY + 1);
        let mut told = 0;
        while told < games {
            let pending = tokio::time::timeout(Duration::from_secs(30), timer.next())
                .await
                .expect("the next batch comes at once, not with the hour");
            assert!(!pending.is_empty() && pending.len() <= usize::try_from(NOTICE_BATCH).expect("small"));
            let notices = delivered(&service, pending).await;
            assert!(notices.iter().all(|n| matches!(n, Notice::Timeout { .. })), "{notices:?}");
            told += i64::try_from(notices.len()).expect("small");
        }
        assert_eq!(told, games, "each timeout told once");
    }
}
