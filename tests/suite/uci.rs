//! `pigeon uci` and `pigeon match`, driven through the real binary: the UCI conversation, a
//! stop during an infinite search, bad lines answered with an explanation, and a short match
//! between two levels whose records replay.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::thread;
use std::time::Duration;

use pigeon::rules::{Record, Variant, VariantPosition};
use pigeon::uci::{unwire, wire};

/// A guard against a hung engine, so a broken build fails instead of hanging; no answer is
/// expected to take anywhere near this long.
const HANG: Duration = Duration::from_secs(120);

/// `pigeon uci` running as a child process.
struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Engine {
    fn start() -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_pigeon"))
            .arg("uci")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("pigeon starts");
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (sender, lines) = channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Engine {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("the engine reads");
        self.stdin.flush().expect("the engine reads");
    }

    /// The lines up to and including the first that starts with `prefix`.
    fn until(&mut self, prefix: &str) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            let line = self
                .lines
                .recv_timeout(HANG)
                .unwrap_or_else(|_| panic!("no line starting {prefix:?}; got {seen:#?}"));
            let done = line.starts_with(prefix);
            seen.push(line);
            if done {
                return seen;
            }
        }
    }

    /// The move of the `bestmove` line that ends the search.
    fn best_move(&mut self) -> (String, Vec<String>) {
        let lines = self.until("bestmove");
        let last = lines.last().expect("a bestmove line");
        let mv = last
            .split_whitespace()
            .nth(1)
            .expect("bestmove names a move")
            .to_owned();
        (mv, lines)
    }

    fn quit(mut self) {
        self.send("quit");
        let status = self.child.wait().expect("the engine ends");
        assert!(status.success(), "pigeon uci exited with {status}");
    }
}

/// Whether `mv` (a UCI word) is legal after `moves` from the start of `variant`.
fn legal_after(variant: Variant, moves: &[String], mv: &str) -> bool {
    let mut record =
        Record::replay(VariantPosition::start(variant), moves).expect("the moves replay");
    record.play(&unwire(mv)).is_ok()
}

#[test]
fn a_uci_conversation_plays_a_legal_move_in_every_game() {
    let mut engine = Engine::start();
    engine.send("uci");
    let lines = engine.until("uciok");
    assert!(lines.iter().any(|l| l.starts_with("id name Pigeon")));
    let variant_option = lines
        .iter()
        .find(|l| l.starts_with("option name UCI_Variant type combo"))
        .expect("UCI_Variant is offered");
    for key in ["chak", "shakti", "chad", "chesscala"] {
        assert!(variant_option.contains(&format!("var {key}")), "{key}");
    }
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("option name Hash type spin"))
    );
    engine.send("setoption name Hash value 8");
    engine.send("isready");
    engine.until("readyok");
    for variant in Variant::ALL {
        engine.send(&format!(
            "setoption name UCI_Variant value {}",
            variant.key()
        ));
        engine.send("ucinewgame");
        // Two plies into the game, written as UCI words.
        let mut record = Record::new(VariantPosition::start(variant));
        for _ in 0..2 {
            let text = record.position().legal_move_texts()[0].clone();
            record.play(&text).expect("a legal move plays");
        }
        let moves: Vec<String> = record.moves().iter().map(|m| m.text.clone()).collect();
        let words: Vec<String> = moves.iter().map(|m| wire(m)).collect();
        engine.send(&format!("position startpos moves {}", words.join(" ")));
        engine.send("go depth 3 nodes 20000");
        let (mv, lines) = engine.best_move();
        assert!(legal_after(variant, &moves, &mv), "{variant}: {mv}");
        let info = lines
            .iter()
            .find(|l| l.starts_with("info depth"))
            .unwrap_or_else(|| panic!("{variant}: no info line in {lines:#?}"));
        for field in [" score ", " nodes ", " nps ", " pv "] {
            assert!(info.contains(field), "{variant}: {info}");
        }
        // The same position from its text.
        engine.send(&format!("position fen {}", record.position().to_text()));
        engine.send("go nodes 500");
        let (again, _) = engine.best_move();
        assert!(legal_after(variant, &moves, &again), "{variant}: {again}");
    }
    engine.quit();
}

/// A forced pass may be written in the moves or left out; either way the engine answers for
/// the side that moves after it (a pass written after one already implied once made the
/// position unchanged, and the answer a move of the position before).
#[test]
fn a_forced_pass_reads_written_or_left_out() {
    // Black's only moves are a3-a2 and a3-a4; after a3-a2 White cannot move.
    let fen = "#.....#/..####K/..#.###/.w####./k#####./W##.#w./#..#..# b";
    let start = VariantPosition::from_text(Variant::Shakti, fen).expect("a Shakti position");
    let mut engine = Engine::start();
    engine.send("setoption name UCI_Variant value shakti");
    for moves in ["a3-a2 pass", "a3-a2"] {
        engine.send(&format!("position fen {fen} moves {moves}"));
        engine.send("go nodes 2000");
        let (mv, lines) = engine.best_move();
        let mut record = Record::new(start.clone());
        record.play("a3-a2").expect("Black's move");
        record.play_forced_pass().expect("White must pass");
        assert!(
            record.play(&unwire(&mv)).is_ok(),
            "{moves}: {mv} is no Black move after White's pass: {lines:#?}"
        );
        assert!(!lines.iter().any(|l| l.contains("unchanged")), "{lines:#?}");
    }
    engine.quit();
}

#[test]
fn stop_ends_an_infinite_search_with_a_legal_move() {
    let mut engine = Engine::start();
    engine.send("setoption name UCI_Variant value chad");
    engine.send("position startpos");
    engine.send("go infinite");
    // The search is under way once it reports its first iteration.
    engine.until("info depth");
    engine.send("stop");
    let (mv, _) = engine.best_move();
    assert!(legal_after(Variant::Chad, &[], &mv), "{mv}");
    // Still answering afterwards, and on a clock.
    engine.send("isready");
    engine.until("readyok");
    engine.send("go wtime 2000 btime 2000 winc 10 binc 10");
    let (mv, _) = engine.best_move();
    assert!(legal_after(Variant::Chad, &[], &mv), "{mv}");
    engine.quit();
}

#[test]
fn bad_lines_are_explained_and_the_engine_goes_on() {
    let mut engine = Engine::start();
    for (line, expected) in [
        ("hello", "info string unknown command"),
        ("go depth deep", "info string go depth"),
        ("go sideways 3", "info string go: unknown limit"),
        ("position fen 9/9/9 w", "info string chak position"),
        ("position startpos moves e3e4 z9z9", "info string move"),
        ("position", "info string write position"),
        (
            "setoption name UCI_Variant value xiangqi",
            "info string UCI_Variant",
        ),
        ("setoption name Hash value lots", "info string Hash"),
        ("setoption name Noise value 5000", "info string Noise"),
        ("setoption name Noise value -3", "info string Noise"),
        (
            "setoption name Colour value green",
            "info string unknown option",
        ),
        ("setoption", "info string write setoption"),
    ] {
        engine.send(line);
        let lines = engine.until("info string");
        assert!(
            lines.last().is_some_and(|l| l.starts_with(expected)),
            "{line}: {lines:?}"
        );
    }
    engine.send("isready");
    engine.until("readyok");
    // A game that is over has no move to give.
    engine.send("position fen k8/4o4/4D4/9/9/9/9/9/9 w - - 0 1 moves e7e8");
    engine.send("go depth 2");
    let (mv, _) = engine.best_move();
    assert_eq!(mv, "(none)");
    engine.quit();
}

/// The games of a records file: each one's tags and moves, replayed by the rules core.
fn replay_records(text: &str) -> Vec<Record> {
    let mut games = Vec::new();
    for chunk in text.split("\n\n[").map(|c| c.trim_start_matches('[')) {
        let (tags, moves) = chunk.split_once("\n\n").expect("tags, then moves");
        let tag = |name: &str| {
            tags.lines()
                .find_map(|line| {
                    line.trim_start_matches('[')
                        .strip_prefix(&format!("{name} \""))
                        .map(|rest| rest.trim_end_matches("\"]").to_owned())
                })
                .unwrap_or_else(|| panic!("no {name} tag in {tags}"))
        };
        let variant: Variant = tag("Variant").parse().expect("a variant key");
        let start = VariantPosition::from_text(variant, &tag("FEN")).expect("a FEN");
        let mut record = Record::new(start);
        let mut comment = false;
        for word in moves.split_whitespace() {
            if word.starts_with('{') {
                comment = true;
            }
            let skip =
                comment || word.ends_with('.') || ["1-0", "0-1", "1/2-1/2", "*"].contains(&word);
            if word.ends_with('}') {
                comment = false;
            }
            if !skip {
                record
                    .play(word)
                    .unwrap_or_else(|e| panic!("{word} does not replay: {e}"));
            }
        }
        assert!(["1-0", "0-1", "1/2-1/2"].contains(&tag("Result").as_str()));
        games.push(record);
    }
    games
}

#[test]
fn a_short_match_between_two_levels_reports_and_records() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let records = dir.path().join("games.pgn");
    let binary = env!("CARGO_BIN_EXE_pigeon");
    let output = Command::new(binary)
        .args([
            "match",
            "--engine",
            &format!("{binary} uci --level 2"),
            "--engine",
            &format!("{binary} uci --level 1"),
            "--variant",
            "chak",
            "--games",
            "2",
            "--nodes",
            "300",
            "--max-plies",
            "60",
            // A lower bound below zero reads as a value, not as another option.
            "--sprt",
            "-20,50",
            "--records",
        ])
        .arg(&records)
        .output()
        .expect("pigeon match runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("Game 1 ("), "{stdout}");
    assert!(stdout.contains("Game 2 ("), "{stdout}");
    assert!(stdout.contains("Score of Pigeon"), "{stdout}");
    assert!(stdout.contains("Elo difference: "), "{stdout}");
    assert!(stdout.contains("SPRT: elo0 -20, elo1 50: llr "), "{stdout}");
    let text = std::fs::read_to_string(&records).expect("the records are written");
    let games = replay_records(&text);
    assert_eq!(games.len(), 2);
    // Each opening is played with colours swapped: both games start with the same moves.
    assert_eq!(games[0].moves()[0].text, games[1].moves()[0].text);
}

#[test]
fn a_stopped_match_goes_on_from_the_game_asked_for() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let records = dir.path().join("games.pgn");
    let binary = env!("CARGO_BIN_EXE_pigeon");
    let engine = format!("{binary} uci --level 1");
    let run = |games: &str, first: &str, records: &std::path::Path| {
        Command::new(binary)
            .args(["match", "--engine", &engine, "--engine", &engine])
            .args(["--games", games, "--first-game", first, "--nodes", "50"])
            .args(["--max-plies", "16", "--records"])
            .arg(records)
            .output()
            .expect("pigeon match runs")
    };
    // A match stopped after its first two games, whose records were written as they ended...
    let output = run("2", "1", &records);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        replay_records(&std::fs::read_to_string(&records).unwrap()).len(),
        2
    );
    // ...goes on from game 3 and adds the rest to the same file.
    let output = run("4", "3", &records);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(
        stdout.contains("Game 3 (") && stdout.contains("Game 4 ("),
        "{stdout}"
    );
    assert!(
        !stdout.contains("Game 1 (") && !stdout.contains("Game 2 ("),
        "{stdout}"
    );
    assert!(stdout.contains(": 0 - 0 - 2  [0.500] 2"), "{stdout}");
    let text = std::fs::read_to_string(&records).expect("the records are written");
    for round in 1..=4 {
        assert!(text.contains(&format!("[Round \"{round}\"]")), "{text}");
    }
    let games = replay_records(&text);
    assert_eq!(games.len(), 4);
    // Games 3 and 4 are the second opening with colours swapped, as in the whole match.
    let openings = pigeon::arena::openings(Variant::Chak).expect("the openings replay");
    for (index, game) in games.iter().enumerate() {
        let opening = Record::replay(VariantPosition::start(Variant::Chak), &openings[index / 2])
            .expect("the opening replays");
        let opening: Vec<&str> = opening.moves().iter().map(|m| m.text.as_str()).collect();
        let played: Vec<&str> = game.moves().iter().map(|m| m.text.as_str()).collect();
        assert_eq!(played[..opening.len()], opening[..], "game {}", index + 1);
    }
    // A first game past the end is refused with what to give instead, the file untouched.
    let output = run("4", "5", &records);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("give a number from 1 to 4"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&records).unwrap(), text);
    // Games the file already holds are not played again: a match that ran several games at a
    // time may have finished later ones before it stopped (game 3 is missing here).
    let records_without_3: Vec<&str> = text
        .split("\n\n[")
        .filter(|record| !record.contains("Round \"3\"]"))
        .collect();
    std::fs::write(&records, records_without_3.join("\n\n[")).unwrap();
    let output = run("4", "3", &records);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{output:?}");
    assert!(stdout.contains("not played again: game 4"), "{stdout}");
    assert!(
        stdout.contains("Game 3 (") && !stdout.contains("Game 4 ("),
        "{stdout}"
    );
    let again = std::fs::read_to_string(&records).expect("the records are written");
    assert_eq!(replay_records(&again).len(), 4);
    for round in 1..=4 {
        assert_eq!(
            again.matches(&format!("[Round \"{round}\"]")).count(),
            1,
            "{again}"
        );
    }
    // A game whose record cannot be written is not counted: the match goes on from it.
    let output = run("2", "1", std::path::Path::new("/dev/full"));
    assert!(!output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stdout.contains("Game 1 ("), "{stdout}");
    assert!(stderr.contains("/dev/full"), "{stderr}");
    // A records file that cannot be written stops the match before it starts.
    let output = run("2", "1", &dir.path().join("missing").join("games.pgn"));
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("give --records a file in a folder"),
        "{stderr}"
    );
}

#[test]
fn a_match_refuses_an_engine_that_does_not_start() {
    let output = Command::new(env!("CARGO_BIN_EXE_pigeon"))
        .args([
            "match",
            "--engine",
            "/nonexistent/engine",
            "--engine",
            "/nonexistent/other",
            "--games",
            "2",
            "--nodes",
            "10",
        ])
        .output()
        .expect("pigeon match runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot start it"), "{stderr}");
}

/// An engine whose first process plays a move and then dies (its input ends after eight
/// lines: the handshake, a new game and one move), and whose later processes either play
/// on (`again` true) or cannot start.
fn dying_engine(dir: &std::path::Path, again: bool) -> String {
    use std::os::unix::fs::PermissionsExt;
    let binary = env!("CARGO_BIN_EXE_pigeon");
    let marker = dir.join("started");
    let later = if again {
        format!("exec '{binary}' uci --level 1")
    } else {
        String::from("exit 1")
    };
    let script = dir.join("dying-engine");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nif [ -e '{marker}' ]; then {later}; fi\ntouch '{marker}'\n\
             i=0\nwhile [ $i -lt 8 ] && IFS= read -r line; do\n\
             printf '%s\\n' \"$line\"; i=$((i + 1))\ndone | '{binary}' uci --level 1\n",
            marker = marker.display()
        ),
    )
    .expect("the script is written");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))
        .expect("the script is made executable");
    script.display().to_string()
}

#[test]
fn an_engine_that_dies_loses_its_game_and_is_started_again_or_stops_the_match() {
    let binary = env!("CARGO_BIN_EXE_pigeon");
    let run = |engine: &str| {
        Command::new(binary)
            .args(["match", "--engine", engine, "--engine"])
            .arg(format!("{binary} uci --level 1"))
            .args(["--games", "4", "--nodes", "50", "--max-plies", "16"])
            .output()
            .expect("pigeon match runs")
    };
    // Started again, it plays the rest of the match; the game it died in is lost.
    let dir = tempfile::tempdir().expect("a temp dir");
    let output = run(&dying_engine(dir.path(), true));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{output:?}");
    let first = stdout
        .lines()
        .find(|line| line.starts_with("Game 1 ("))
        .expect("game 1 is reported");
    assert!(first.contains("0-1") && first.contains("failed"), "{first}");
    for number in 2..=4 {
        assert!(stdout.contains(&format!("Game {number} (")), "{stdout}");
    }
    // If it cannot be started again, the match stops with the games played, says why and
    // where to go on from, and fails.
    let dir = tempfile::tempdir().expect("a temp dir");
    let output = run(&dying_engine(dir.path(), false));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stdout}");
    assert!(stdout.contains("Game 1 ("), "{stdout}");
    assert!(stdout.contains("Score of "), "{stdout}");
    assert!(!stdout.contains("Game 3 ("), "{stdout}");
    assert!(
        stderr.contains("The match stopped before game 2") && stderr.contains("--first-game 2"),
        "{stderr}"
    );
}
