//! The command-line tools, run as a user (and the acceptance checks) run them.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use crate::common::{Backend, backends};

/// Starts the binary with `args` and the variables `env` set, its standard streams piped.
fn spawn(args: &[&str], env: &[(&str, &str)]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_pigeon"))
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts")
}

/// Runs the binary with `args`, writing `stdin` to it.
pub fn pigeon(args: &[&str], stdin: &str) -> Output {
    pigeon_with(args, &[], stdin)
}

/// Runs the `pigeon` binary with `args`, the variables `env` set, and `stdin`.
pub fn pigeon_with(args: &[&str], env: &[(&str, &str)], stdin: &str) -> Output {
    let mut child = spawn(args, env);
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(stdin.as_bytes())
        .expect("stdin is written");
    child.wait_with_output().expect("the binary finishes")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("output is UTF-8")
}

#[test]
fn moves_prints_sorted_interchange_moves() {
    let output = pigeon(&["moves", "chak", "start"], "");
    assert!(output.status.success());
    let text = stdout(&output);
    assert!(text.starts_with("a1a2, a3a4, a3b3, b1d2,"), "{text}");
    assert_eq!(text.trim_end().split(", ").count(), 33);
}

#[test]
fn moves_reads_positions_from_stdin_one_line_each() {
    let input =
        "start\n3k5/4o4/2D6/9/9/9/9/4O4/9 b - - 0 1\n9/4o4/9/9/P3k4/9/9/4O4/4K4 w - - 0 1\n";
    let output = pigeon(&["moves", "CHAK"], input);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines: Vec<String> = stdout(&output).lines().map(String::from).collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0].split(", ").count(), 33);
    assert_eq!(lines[1], "", "a stalemated side has an empty line");
    assert!(lines[2].contains("a5a6"), "{}", lines[2]);
}

#[test]
fn moves_keeps_one_line_per_input_line_when_one_is_unreadable() {
    let output = pigeon(&["moves", "chak"], "start\nnot a position\nstart\n");
    assert!(!output.status.success());
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[1], "");
    assert_eq!(lines[0], lines[2]);
    assert!(String::from_utf8_lossy(&output.stderr).contains("line 2"));
}

#[test]
fn perft_prints_the_count_last_and_divides_sorted() {
    let output = pigeon(&["perft", "chak", "2"], "");
    assert_eq!(stdout(&output).trim_end(), "1092");
    let output = pigeon(&["perft", "chak", "2", "--divide"], "");
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 34);
    assert_eq!(lines[0], "a1a2: 33");
    assert_eq!(lines[3], "b1d2: 34");
    assert_eq!(lines[33], "1092");
    let mut sorted = lines[..33].to_vec();
    sorted.sort_unstable();
    assert_eq!(sorted, lines[..33]);
}

#[test]
fn play_applies_moves_in_any_notation() {
    let output = pigeon(&["play", "chak", "start", "e3e4", "e7e6", "Vd2"], "");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        stdout(&output).trim_end(),
        "rvsqkjsvr/4o4/p1p3p1p/4p4/9/4P4/P1P3P1P/3VO4/R1SJKQSVR b - - 3 2"
    );
}

#[test]
fn play_writes_promoted_pieces_with_a_plus() {
    let output = pigeon(
        &["play", "chak", "4k4/9/9/9/9/4P4/9/9/4K4 w - - 0 1", "e5"],
        "",
    );
    assert_eq!(
        stdout(&output).trim_end(),
        "4k4/9/9/9/4+P4/9/9/9/4K4 b - - 0 1"
    );
}

#[test]
fn play_refuses_an_illegal_move_with_the_chat_message() {
    let output = pigeon(&["play", "chak", "start", "e3e5"], "");
    assert!(!output.status.success());
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(error.contains("e3e5 is not legal here"), "{error}");
    assert!(error.contains("Legal moves of the pawn on e3"), "{error}");
    assert!(stdout(&output).is_empty());
}

/// A Chesscala position whose first stack is empty: its text begins with `-`, as most of
/// the game's positions do once pieces have left the corner.
const CHESSCALA_EMPTY_CORNER: &str = "-,-,k,-,-,-/-,QRP,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/\
    -,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,K,-,K w - - 0,0 - *";

#[test]
fn a_position_that_begins_with_a_hyphen_is_a_position_not_an_option() {
    let position = CHESSCALA_EMPTY_CORNER;
    let output = pigeon(&["perft", "chesscala", "2", position], "");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(stdout(&output).trim_end(), "10");
    // Options still count as options after it.
    let output = pigeon(&["perft", "chesscala", "1", position, "--divide"], "");
    let text = stdout(&output);
    assert_eq!(text.lines().last(), Some("8"), "{text}");
    assert!(text.starts_with("Kd1-c1: 1\n"), "{text}");
    let output = pigeon(&["moves", "chesscala", position], "");
    assert_eq!(
        stdout(&output).trim_end(),
        "Kd1-c1, Kf1-e1, b7>PQR, b7>PRQ, b7>QPR, b7>QRP, b7>RPQ, b7>RQP"
    );
    let output = pigeon(&["play", "chesscala", position, "Kd1-c1"], "");
    assert_eq!(
        stdout(&output).trim_end(),
        position.replace("-,-,-,K,-,K w", "-,-,K,-,-,K b")
    );
    let dir = tempfile::tempdir().expect("a temporary folder");
    let png = dir.path().join("board.png");
    let png_arg = png.to_str().expect("a UTF-8 path");
    let output = pigeon(&["render", "chesscala", position, "-o", png_arg], "");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let bytes = std::fs::read(&png).expect("the picture is written");
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"));
}

#[test]
fn unknown_games_and_bad_positions_fail_clearly() {
    let output = pigeon(&["moves", "checkers", "start"], "");
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("I don't know a game"));
    let output = pigeon(&["moves", "chak", "nonsense w"], "");
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("unreadable position"));
}

#[test]
fn backup_copies_the_database_and_never_overwrites() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let db = dir.path().join("games.db");
    let copy = dir.path().join("copy.db");
    let (db_arg, copy_arg) = (
        db.to_str().expect("a UTF-8 path"),
        copy.to_str().expect("UTF-8"),
    );
    let boards = dir.path().join("boards");
    let console = pigeon(
        &[
            "console",
            "--db",
            db_arg,
            "--out",
            boards.to_str().expect("UTF-8"),
        ],
        "alice: challenge @bob\nbob: accept\n",
    );
    assert!(
        stdout(&console).contains("Game #1 (Chak) starts"),
        "{}",
        stdout(&console)
    );
    let output = pigeon(&["backup", copy_arg, "--db", db_arg], "");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout(&output).contains("Backed up"));
    assert!(std::fs::metadata(&copy).expect("the copy exists").len() > 0);
    let again = pigeon(&["backup", copy_arg, "--db", db_arg], "");
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("exists already"));
}

#[test]
fn the_console_refuses_lines_written_as_pigeon_itself() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let db = dir.path().join("games.db");
    let boards = dir.path().join("boards");
    let output = pigeon(
        &[
            "console",
            "--now",
            "2026-12-01T10:00:00Z",
            "--db",
            db.to_str().expect("a UTF-8 path"),
            "--out",
            boards.to_str().expect("UTF-8"),
        ],
        "pigeon: challenge @alice\nalice: challenge @pigeon chak level 1 black\n\
         Pigeon: resign confirm\nalice: info\n",
    );
    let text = stdout(&output);
    assert!(output.status.success(), "{text}");
    assert_eq!(text.matches("Pigeon is my own name").count(), 2, "{text}");
    assert!(!text.contains("Challenge #1"), "{text}");
    assert!(
        !text.contains("resigned") && !text.contains("wins"),
        "{text}"
    );
    assert!(text.contains("Game #1 (Chak) starts"), "{text}");
}

#[test]
fn a_second_process_serving_the_same_sqlite_file_is_refused_until_the_first_ends() {
    use std::io::{BufRead, BufReader};

    let dir = tempfile::tempdir().expect("a temporary folder");
    let db = dir.path().join("games.db");
    let boards = dir.path().join("boards");
    let args = [
        "console",
        "--db",
        db.to_str().expect("a UTF-8 path"),
        "--out",
        boards.to_str().expect("UTF-8"),
    ];
    let mut first = spawn(&args, &[]);
    let mut input = first.stdin.take().expect("piped");
    writeln!(input, "alice: challenge @bob").expect("written");
    // Once it answers, it serves the database.
    let mut answer = String::new();
    BufReader::new(first.stdout.take().expect("piped"))
        .read_line(&mut answer)
        .expect("an answer");
    assert!(answer.contains("challenge"), "{answer}");

    let second = pigeon(&args, "bob: accept\n");
    let refusal = String::from_utf8_lossy(&second.stderr);
    assert!(!second.status.success(), "{}", stdout(&second));
    assert!(
        refusal.contains("already serving")
            && refusal.contains(&format!("process {}", first.id()))
            && refusal.contains("PostgreSQL"),
        "{refusal}"
    );
    assert!(
        !stdout(&second).contains("accepts"),
        "nothing was done: {}",
        stdout(&second)
    );

    // Killed, the first lets go of the file at once.
    first.kill().expect("killed");
    first.wait().expect("ended");
    let third = pigeon(&args, "bob: accept\n");
    assert!(
        third.status.success(),
        "{}",
        String::from_utf8_lossy(&third.stderr)
    );
    assert!(stdout(&third).contains("Game #1"), "{}", stdout(&third));
}

backends! {
    /// `DATABASE_URL` chooses the game database, and the logs never show its password.
    #[tokio::test]
    async fn database_url_chooses_the_game_database(db: TestDb) {
        let url = match db.backend {
            Backend::Sqlite => db.url().to_owned(),
            // The test server trusts its users, so any password is accepted.
            Backend::Postgres => db.url().replacen("://pigeon@", "://pigeon:hunter2@", 1),
        };
        let boards = db.dir().join("boards");
        let boards = boards.to_str().expect("UTF-8");
        let env = [("DATABASE_URL", url.as_str()), ("RUST_LOG", "debug")];
        let first = pigeon_with(
            &["console", "--out", boards],
            &env,
            "alice: challenge @bob chak white\nbob: accept\nalice: e3e4\n",
        );
        let stderr = String::from_utf8_lossy(&first.stderr);
        assert!(first.status.success(), "{stderr}");
        assert!(!stderr.contains("hunter2"), "{stderr}");
        if db.backend == Backend::Postgres {
            assert!(stderr.contains("pigeon:***@127.0.0.1"), "{stderr}");
        }
        let store = db.open().await;
        let alice = store
            .player_by_platform_id("console", "alice")
            .await
            .expect("query")
            .expect("alice played there");
        let games = store.games_of(alice.id, 10).await.expect("query");
        assert_eq!(games.len(), 1);
        assert_eq!(store.moves(games[0].id).await.expect("query").len(), 1);
        store.close().await;

        let both = pigeon_with(&["console", "--db", "other.db"], &env, "");
        assert!(!both.status.success());
        let stderr = String::from_utf8_lossy(&both.stderr);
        assert!(stderr.contains("set one of them"), "{stderr}");
    }
}
