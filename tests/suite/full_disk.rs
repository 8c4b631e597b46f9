//! Acknowledged means stored, on a real full disk: the database lives on a small tmpfs that is
//! filled up while people play. Every challenge, game and move Pigeon announced is in the
//! database afterwards, and every failure got the clear "cannot save" reply. A database that
//! can only be read is refused when it is opened.
//!
//! SQLite only: the database file itself fills the disk, as a PostgreSQL server's files would
//! on the server's machine.
//!
//! Mounting a tmpfs needs root (CI runs the suite as root); without it these tests fail and
//! say so.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use pigeon::adapters::console;
use pigeon::chat;
use pigeon::service::ManualClock;
use pigeon::store::{Store, StoreError};

use crate::transcripts::{START, open_file};

/// A tmpfs mounted on a temporary folder, unmounted when dropped.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    fn mount(size: &str) -> Tmpfs {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let status = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size},mode=0700"),
                "tmpfs",
            ])
            .arg(dir.path())
            .status();
        assert!(
            status.is_ok_and(|s| s.success()),
            "mounting a {size} tmpfs on {} failed: the full-disk tests need root (tests/run \
             in CI runs as root)",
            dir.path().display()
        );
        Tmpfs { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn remount_read_only(&self) {
        let status = Command::new("mount")
            .args(["-o", "remount,ro"])
            .arg(self.path())
            .status();
        assert!(
            status.is_ok_and(|s| s.success()),
            "remounting read-only failed"
        );
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .status();
    }
}

/// Fills the disk of `dir` with a file, then frees `spare` bytes of it again.
fn fill(dir: &Path, spare: u64) -> PathBuf {
    let path = dir.join("filler");
    let mut file = OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(true)
        .open(&path)
        .expect("the filler opens");
    let block = vec![0xA5u8; 4096];
    let mut written = 0u64;
    while file.write_all(&block).is_ok() {
        written += block.len() as u64;
    }
    let _ = file.flush();
    file.set_len(written.saturating_sub(spare))
        .expect("the filler shrinks");
    path
}

/// What a reply announced as done.
#[derive(Debug)]
enum Announced {
    Challenge {
        id: i64,
        by: String,
    },
    Game {
        id: i64,
    },
    Move {
        game: i64,
        ply: i64,
        text: &'static str,
    },
}

/// The number after `marker` in `text`.
fn number_after(text: &str, marker: &str) -> Option<i64> {
    let rest = &text[text.find(marker)? + marker.len()..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

#[tokio::test]
async fn on_a_full_disk_what_was_announced_is_stored_and_failures_say_so() {
    let _ = tracing_subscriber::fmt().with_test_writer().try_init();
    let disk = Tmpfs::mount("4m");
    let db = disk.path().join("pigeon.db");
    let clock = ManualClock::new(START);
    let service = open_file(&db, &clock).await;
    let filler = fill(disk.path(), 768 * 1024);
    let mut announced = Vec::new();
    let mut failures = 0;
    for n in 0..120 {
        let (white, black) = (format!("w{n}"), format!("b{n}"));
        let script = [
            (
                white.clone(),
                format!("challenge @{black} chak white"),
                None,
            ),
            (black.clone(), String::from("accept"), None),
            (white.clone(), String::from("e3e4"), Some((1, "e3e4"))),
            (black.clone(), String::from("e7e6"), Some((2, "e7e6"))),
        ];
        let mut game = None;
        for (who, text, mv) in script {
            let line = console::parse_line(&format!("{who}: {text}")).expect("a line");
            for reply in chat::handle(&service, &console::incoming(&line)).await {
                let said = reply.plain();
                assert!(
                    !said.contains("Something went wrong") && !said.contains("challenge yourself"),
                    "{who}: {text} -> {said}"
                );
                if said.contains("Pigeon cannot save right now; nothing was changed.") {
                    failures += 1;
                    continue;
                }
                if let Some(id) = number_after(&said, "Challenge #") {
                    announced.push(Announced::Challenge {
                        id,
                        by: white.clone(),
                    });
                }
                if said.contains(") starts:")
                    && let Some(id) = number_after(&said, "Game #")
                {
                    game = Some(id);
                    announced.push(Announced::Game { id });
                }
                if let (Some((ply, text)), Some(game)) = (mv, game)
                    && said.contains(" played ")
                {
                    announced.push(Announced::Move { game, ply, text });
                }
            }
        }
    }
    assert!(
        failures >= 10,
        "the disk never filled up: {failures} failures"
    );
    assert!(
        announced.len() >= 10,
        "nothing worked before the disk filled: {announced:?}"
    );
    service.store().close().await;
    // Room again: everything announced is there, as announced.
    std::fs::remove_file(&filler).expect("the filler goes");
    let store = Store::open(&db).await.expect("the database opens again");
    for item in &announced {
        match item {
            Announced::Challenge { id, by } => {
                let row = store.challenge(*id).await.expect("reads");
                let row = row.unwrap_or_else(|| panic!("challenge #{id} was announced"));
                let challenger = store
                    .player_by_id(row.challenger_id)
                    .await
                    .expect("reads")
                    .expect("the challenger is stored");
                assert_eq!(&challenger.display_name, by, "challenge #{id}");
            }
            Announced::Game { id } => {
                assert!(
                    store.game(*id).await.expect("reads").is_some(),
                    "game #{id}"
                );
            }
            Announced::Move { game, ply, text } => {
                let moves = store.moves(*game).await.expect("reads");
                let stored = moves.iter().find(|m| m.ply == *ply);
                assert_eq!(stored.map(|m| m.text.as_str()), Some(*text), "game #{game}");
            }
        }
    }
    assert_eq!(store.integrity_check().await.expect("checks"), "ok");
    // And Pigeon carries on.
    let service = open_file(&db, &clock).await;
    let line = console::parse_line("late: challenge @later shakti").expect("a line");
    let replies = chat::handle(&service, &console::incoming(&line)).await;
    assert!(replies[0].plain().contains("Challenge #"), "{replies:?}");
    service.store().close().await;
}

#[tokio::test]
async fn a_database_that_can_only_be_read_is_refused_at_start() {
    let disk = Tmpfs::mount("4m");
    let db = disk.path().join("pigeon.db");
    let store = Store::open(&db).await.expect("a fresh database opens");
    store.close().await;
    disk.remount_read_only();
    let refused = Store::open(&db).await;
    let Err(error @ StoreError::ReadOnly(_)) = refused else {
        panic!("a read-only database is refused: {refused:?}");
    };
    assert!(
        error.to_string().contains("can be read but not written"),
        "{error}"
    );
    // The console says so and stops, instead of failing every command later.
    let output = Command::new(env!("CARGO_BIN_EXE_pigeon"))
        .args(["console", "--db"])
        .arg(&db)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("pigeon runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("can be read but not written"), "{stderr}");
}
