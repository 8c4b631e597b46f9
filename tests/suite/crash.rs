//! Crash safety: the console process is killed (SIGKILL) at random points while a script
//! plays several games of every kind, then started again. After every kill, every move it had
//! acknowledged is stored, no turn is half applied (every game replays from its moves to its
//! cached position, and a forced pass is never left unplayed), nothing was stored that was
//! not asked for, and SQLite's integrity check passes.
//!
//! SQLite only: the test kills the one process that owns the database file. (On PostgreSQL
//! a killed client's open transaction is rolled back by the server.)
//!
//! `PIGEON_CRASH_ROUNDS` sets the number of kills (default 60).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use pigeon::rules::{Color, Variant, VariantPosition};
use pigeon::service::{ManualClock, Service};

use crate::transcripts::{START, open_file};

const GAMES: [Variant; 6] = [
    Variant::Chak,
    Variant::Shakti,
    Variant::Chad,
    Variant::Chesscala,
    Variant::Chak,
    Variant::Shakti,
];

/// Moves sent for each game in one round.
const MOVES_PER_ROUND: usize = 5;

fn console(db: &Path, boards: &Path) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_pigeon"))
        .args(["console", "--db"])
        .arg(db)
        .arg("--out")
        .arg(boards)
        .env("RUST_LOG", "error")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the console starts")
}

/// Feeds `lines` to a console and kills it after `kill_after` (if it is still running);
/// returns what it printed and whether the kill hit a running process.
fn run_console(
    db: &Path,
    boards: &Path,
    lines: &[String],
    kill_after: Option<Duration>,
) -> (Vec<String>, bool) {
    let mut child = console(db, boards);
    let mut stdin = child.stdin.take().expect("a piped stdin");
    let input: String = lines.iter().map(|line| format!("{line}\n")).collect();
    let writer = std::thread::spawn(move || {
        // The pipe breaks when the process is killed first: that is expected.
        let _ = stdin.write_all(input.as_bytes());
    });
    let stdout = child.stdout.take().expect("a piped stdout");
    let reader = std::thread::spawn(move || {
        BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .collect::<Vec<String>>()
    });
    let mut killed = false;
    if let Some(delay) = kill_after {
        std::thread::sleep(delay);
        killed = child.try_wait().expect("the status reads").is_none();
        child.kill().expect("kill (SIGKILL) works");
    }
    child.wait().expect("the console ends");
    writer.join().expect("the writer ends");
    let output = reader.join().expect("the reader ends");
    (output, killed)
}

/// Players of game `index` (counting from 0): `w{index}` and `b{index}`.
fn players(index: usize) -> (String, String) {
    (format!("w{index}"), format!("b{index}"))
}

/// The game number an acknowledgement names: `... played X in game #N.`
fn acknowledged_game(line: &str) -> Option<i64> {
    let (_, rest) = line.split_once(" played ")?;
    let (_, number) = rest.rsplit_once(" in game #")?;
    number.split('.').next()?.parse().ok()
}

/// What one game looks like in the database.
struct Stored {
    ply: i64,
    active: bool,
    position: VariantPosition,
    /// The texts of the moves players made (not the passes played for them), in order.
    player_moves: Vec<String>,
}

async fn stored_games(service: &Service) -> HashMap<i64, Stored> {
    let mut games = HashMap::new();
    for id in 1..=GAMES.len() as i64 {
        // Loading replays the game from its moves and checks the cached position.
        let state = service
            .load(id)
            .await
            .unwrap_or_else(|e| panic!("game #{id} does not load after a kill: {e}"));
        let moves = service.store().moves(id).await.expect("moves read");
        let position = state.record.position().clone();
        if state.is_active() {
            let legal = position.legal_moves();
            let only_pass = legal.len() == 1 && position.is_pass(&legal[0]);
            assert!(!only_pass, "game #{id}: a forced pass was left unplayed");
        }
        games.insert(
            id,
            Stored {
                ply: state.row.ply,
                active: state.is_active(),
                position,
                player_moves: moves
                    .into_iter()
                    .filter(|m| m.player_id.is_some())
                    .map(|m| m.text)
                    .collect(),
            },
        );
    }
    games
}

/// The next moves of a game, played out on a copy of its position; forced passes are played
/// on the copy as the service plays them, and not sent.
fn script_moves(position: &VariantPosition, rng: &mut fastrand::Rng) -> Vec<(Color, String)> {
    let mut position = position.clone();
    let mut texts = Vec::new();
    while texts.len() < MOVES_PER_ROUND && position.outcome().is_none() {
        let moves = position.legal_moves();
        if moves.is_empty() {
            break;
        }
        let mv = &moves[rng.usize(..moves.len())];
        if position.is_pass(mv) {
            break;
        }
        texts.push((position.turn(), position.move_text(mv)));
        position = position.play(mv);
        loop {
            let next = position.legal_moves();
            if position.outcome().is_some() || next.len() != 1 || !position.is_pass(&next[0]) {
                break;
            }
            position = position.play(&next[0]);
        }
    }
    texts
}

#[test]
fn killed_at_random_points_the_console_loses_no_acknowledged_move() {
    let rounds: usize = std::env::var("PIGEON_CRASH_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(60);
    let seed = 0x5eed_c0de;
    let mut rng = fastrand::Rng::with_seed(seed);
    let dir = tempfile::tempdir().expect("a temporary folder");
    let db = dir.path().join("crash.db");
    let boards = dir.path().join("boards");
    let runtime = crate::common::runtime();
    let clock = ManualClock::new(START);

    let mut setup = Vec::new();
    for (index, variant) in GAMES.iter().enumerate() {
        let (white, black) = players(index);
        setup.push(format!(
            "{white}: challenge @{black} {} white",
            variant.key()
        ));
        setup.push(format!("{black}: accept"));
    }
    let (output, _) = run_console(&db, &boards, &setup, None);
    let started = output.iter().filter(|l| l.contains(" starts: ")).count();
    assert_eq!(started, GAMES.len(), "{output:#?}");

    let (mut kills, mut acknowledged_total, mut applied_total) = (0, 0, 0);
    for round in 0..rounds {
        let service = runtime.block_on(open_file(&db, &clock));
        let before = runtime.block_on(stored_games(&service));
        runtime.block_on(service.store().close());
        let mut sent: HashMap<i64, Vec<(Color, String)>> = HashMap::new();
        for (id, game) in &before {
            if game.active {
                sent.insert(*id, script_moves(&game.position, &mut rng));
            }
        }
        // Interleave the games, each player moving in turn.
        let mut lines = Vec::new();
        for step in 0..MOVES_PER_ROUND {
            for id in 1..=GAMES.len() as i64 {
                let Some((color, text)) = sent.get(&id).and_then(|texts| texts.get(step)) else {
                    continue;
                };
                let (white, black) = players(id as usize - 1);
                let mover = if *color == Color::White { white } else { black };
                lines.push(format!("{mover}: move #{id} {text}"));
            }
        }
        let delay = Duration::from_millis(rng.u64(0..250));
        let (output, killed) = run_console(&db, &boards, &lines, Some(delay));
        kills += usize::from(killed);

        let mut acknowledged: HashMap<i64, usize> = HashMap::new();
        for line in &output {
            if let Some(id) = acknowledged_game(line) {
                *acknowledged.entry(id).or_default() += 1;
            }
        }
        let service = runtime.block_on(open_file(&db, &clock));
        let check = runtime
            .block_on(service.store().integrity_check())
            .expect("the check runs");
        assert_eq!(check, "ok", "round {round}");
        let after = runtime.block_on(stored_games(&service));
        runtime.block_on(service.store().close());
        for (id, texts) in &sent {
            let old = &before[id].player_moves;
            let new = &after[id].player_moves;
            assert_eq!(
                &new[..old.len()],
                old.as_slice(),
                "game #{id}: history kept"
            );
            let added = &new[old.len()..];
            let acked = acknowledged.get(id).copied().unwrap_or(0);
            assert!(
                added.len() >= acked,
                "round {round}, game #{id}: {acked} moves acknowledged, {} stored\n{output:#?}",
                added.len()
            );
            assert!(
                added.len() <= texts.len(),
                "game #{id}: more moves than sent"
            );
            let expected: Vec<&String> = texts[..added.len()].iter().map(|(_, t)| t).collect();
            let added_refs: Vec<&String> = added.iter().collect();
            assert_eq!(added_refs, expected, "game #{id}: the moves sent");
            assert!(after[id].ply >= before[id].ply);
            acknowledged_total += acked;
            applied_total += added.len();
        }
    }
    eprintln!(
        "crash safety: {rounds} rounds, {kills} kills of a running console, \
         {acknowledged_total} moves acknowledged, {applied_total} stored (seed {seed:#x})"
    );
    assert!(
        kills * 2 >= rounds,
        "most rounds must kill a running process: {kills} of {rounds}"
    );
    assert!(acknowledged_total > 0 && applied_total >= acknowledged_total);
}
