//! Several `pigeon serve` processes on one PostgreSQL database, against the fake Discord: every
//! deadline fires once across them, each chat event delivered to both is acted on once, and a
//! process killed with SIGKILL in the middle loses nothing that was acknowledged.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use pigeon::rules::Variant;
use pigeon::service::clock::format_utc;
use pigeon::service::{ColorChoice, DAY, ManualClock, Place, Service, User};
use serde_json::json;
use sqlx::Connection;

use super::fake::{self, APP, CHANNEL, FakeDiscord, GUILD};
use crate::common::{Backend, TestDb};
use crate::transcripts::{START, open};

/// Games whose deadline has passed when the processes start.
const DUE: u64 = 60;
/// Games in which a move is typed while both processes run.
const MOVING: u64 = 8;
/// How long the test waits for the processes to do something (a hang guard).
const PATIENCE: Duration = Duration::from_secs(120);

fn place() -> Place {
    Place {
        platform: String::from("discord"),
        channel: CHANNEL.to_string(),
        community: GUILD.to_string(),
    }
}

fn player(id: u64) -> User {
    User::new("discord", &id.to_string(), &format!("p{id}"))
}

/// A game of Chak between `white` and `white + 1` with `days` per move; its number.
async fn game(service: &Service, white: u64, days: i64) -> i64 {
    let challenge = service
        .challenge(
            &place(),
            &player(white),
            Some(&player(white + 1)),
            Variant::Chak,
            Some(days),
            ColorChoice::White,
        )
        .await
        .expect("challenged");
    service
        .accept(&place(), &player(white + 1), Some(challenge.id))
        .await
        .expect("accepted")
        .row
        .id
}

/// `pigeon serve` on `db` as if at `now`, for the fake Discord, logging to `log`.
fn serve(db: &TestDb, fake: &FakeDiscord, now: i64, log: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_pigeon"))
        .args(["serve", "--now", &instant(now)])
        .current_dir(db.dir())
        .env_remove("MATRIX_HOMESERVER")
        .env_remove("PIGEON_DB")
        .env("DATABASE_URL", db.url())
        .env("DISCORD_TOKEN", "fake-token")
        .env("DISCORD_GUILD_ID", GUILD.to_string())
        .env("DISCORD_API_BASE", &fake.api)
        .env("DISCORD_MESSAGE_CONTENT", "true")
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).expect("a log file"))
        .spawn()
        .expect("pigeon serve starts")
}

/// `now` as `--now` takes it: 2026-01-04T09:00Z.
fn instant(now: i64) -> String {
    let utc = format_utc(now);
    format!("{}Z", utc.trim_end_matches(" UTC").replacen(' ', "T", 1))
}

/// Stops `child` with `signal` and waits for it to end.
async fn stop(child: &mut Child, signal: &str) {
    let sent = Command::new("kill")
        .args(["-s", signal, &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    waiting_for("the process to end", || {
        Ok(child.try_wait().expect("the process").is_some())
    })
    .await;
}

/// Waits until `done` says so, looking every 20 ms; fails after [`PATIENCE`]. The processes
/// run on their own clocks, so there is nothing to drive: the test can only look.
async fn waiting_for(what: &str, mut done: impl FnMut() -> Result<bool, String>) {
    let mut waited = Duration::ZERO;
    loop {
        match done() {
            Ok(true) => return,
            Ok(false) => {}
            Err(state) => panic!("{state}"),
        }
        assert!(waited < PATIENCE, "waited in vain for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
        waited += Duration::from_millis(20);
    }
}

/// The texts the bots posted in the test channel so far.
fn posted(fake: &FakeDiscord) -> Vec<String> {
    fake.all("POST", &format!("/channels/{CHANNEL}/messages"))
        .iter()
        .filter_map(|request| request.json["content"].as_str().map(str::to_owned))
        .collect()
}

fn count(texts: &[String], needle: &str) -> usize {
    texts.iter().filter(|text| text.contains(needle)).count()
}

/// How many of `texts` name game `id` (`#12`, not `#123`).
fn naming(texts: &[String], id: i64) -> usize {
    let number = format!("#{id}");
    texts
        .iter()
        .filter(|text| {
            text.match_indices(&number)
                .any(|(at, _)| !text[at + number.len()..].starts_with(|c: char| c.is_ascii_digit()))
        })
        .count()
}

/// Notices the database still holds for delivery.
async fn undelivered(db: &TestDb) -> i64 {
    let mut connection = sqlx::PgConnection::connect(db.url())
        .await
        .expect("connects");
    let count: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM notices WHERE delivered_at IS NULL AND failed_at IS NULL",
    )
    .fetch_one(&mut connection)
    .await
    .expect("counted");
    connection.close().await.expect("closed");
    count
}

/// Two processes serve one PostgreSQL database at once; sixty games are out of time and eight
/// players type a move, which Discord delivers to both processes. One process is killed with
/// SIGKILL while the timeouts are being told; the other goes on, and a third process started
/// later (once the killed one's claims lapsed) tells what the killed one had taken but not
/// sent. Every game ends once and is rated once; every timeout is told, at most one of them
/// twice (the one being sent at the kill); every move is played once and answered once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serving_processes_fire_each_deadline_once_and_survive_a_kill() {
    let db = TestDb::new(Backend::Postgres).await;
    let clock = ManualClock::new(START);
    let service = open(&db, &clock).await;
    let mut due = Vec::new();
    for n in 0..DUE {
        due.push(game(&service, 100_000 + 2 * n, 1).await);
    }
    clock.advance(2 * DAY);
    let mut moving = Vec::new();
    for n in 0..MOVING {
        let white = 200_000 + 2 * n;
        moving.push((white, game(&service, white, 7).await));
    }
    service.store().close().await;

    let fake = FakeDiscord::start().await;
    let now = START + 3 * DAY;
    let logs = |name: &str| db.dir().join(format!("{name}.log"));
    let mut first = serve(&db, &fake, now, &logs("first"));
    let mut second = serve(&db, &fake, now, &logs("second"));
    fake.identified(2).await;
    for &(white, _) in &moving {
        let mut typed = fake::message(
            300_000 + white,
            CHANNEL,
            white,
            &format!("p{white}"),
            &format!("<@{APP}> e4"),
        );
        typed["mentions"] = json!([fake::user(APP, fake::BOT_NAME)]);
        typed["member"] = json!({ "roles": [], "joined_at": "2026-01-01T09:00:00.000000+00:00", "deaf": false, "mute": false, "flags": 0 });
        fake.dispatch_everywhere("MESSAGE_CREATE", typed);
    }
    waiting_for("ten timeouts told", || {
        Ok(count(&posted(&fake), "ran out of time") >= 10)
    })
    .await;
    stop(&mut first, "KILL").await;
    let told = count(&posted(&fake), "ran out of time");
    assert!(
        told < DUE as usize,
        "the kill came after all {told} timeouts were told"
    );

    // The survivor ends every game and plays every move.
    let check = open(&db, &clock).await;
    let mut waited = Duration::ZERO;
    loop {
        let mut left = 0;
        for &id in &due {
            let state = check.load(id).await.expect("loads");
            left += usize::from(state.row.end_reason.is_none());
        }
        for &(_, id) in &moving {
            let state = check.load(id).await.expect("loads");
            left += usize::from(state.row.ply == 0);
        }
        if left == 0 {
            break;
        }
        assert!(waited < PATIENCE, "{left} games were never acted on");
        tokio::time::sleep(Duration::from_millis(50)).await;
        waited += Duration::from_millis(50);
    }
    stop(&mut second, "TERM").await;

    // A later process delivers what the killed one had claimed and not sent.
    let mut third = serve(&db, &fake, now + 10 * 60, &logs("third"));
    let mut waited = Duration::ZERO;
    while undelivered(&db).await > 0 {
        assert!(waited < PATIENCE, "notices stayed undelivered");
        tokio::time::sleep(Duration::from_millis(50)).await;
        waited += Duration::from_millis(50);
    }
    stop(&mut third, "TERM").await;

    let texts = posted(&fake);
    let mut twice = 0;
    for &id in &due {
        let state = check.load(id).await.expect("loads");
        assert_eq!(
            state.row.end_reason.as_deref(),
            Some("timeout"),
            "game #{id}"
        );
        let changes = check.store().game_rating_changes(id).await.expect("query");
        assert_eq!(changes.len(), 2, "game #{id} rated once: {changes:?}");
        let told = count(&texts, &format!("ran out of time in game #{id}."));
        assert!(
            (1..=2).contains(&told),
            "game #{id}'s timeout told {told} times"
        );
        twice += told - 1;
    }
    assert!(twice <= 1, "{twice} timeouts were told twice");
    for &(white, id) in &moving {
        let state = check.load(id).await.expect("loads");
        assert_eq!(state.row.ply, 1, "game #{id}: the move is stored once");
        let answered = count(&texts, &format!("p{white} played e4 in game #{id}."));
        assert_eq!(answered, 1, "game #{id}: the move is answered once");
        assert_eq!(
            naming(&texts, id),
            1,
            "game #{id}: nothing else is said of it"
        );
    }
    let killed = std::fs::read_to_string(logs("first")).expect("the log");
    assert!(!killed.contains("fake-token"), "{killed}");
}
