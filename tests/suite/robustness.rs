//! Bad input of every kind: arbitrary and mangled text through every game's notations and
//! position texts, through the command grammar and through the whole chat layer on a real
//! database; the per-user rate limit; and logs that never hold what people wrote.

use std::io::Write;

use pigeon::adapters::console;
use pigeon::chat::{self, Incoming, command};
use pigeon::rules::{Variant, VariantPosition};
use pigeon::service::{ColorChoice, ManualClock, Place, REPLAY_MOVES, RateLimit, Service};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::Value;

use crate::common::{Backend, TestDb, backends, gif_frames, read_data, runtime};
use crate::transcripts::{START, open};

const GAMES: [Variant; 4] = [
    Variant::Chak,
    Variant::Shakti,
    Variant::Chad,
    Variant::Chesscala,
];

/// The start position and a spread of oracle positions of every game.
fn positions() -> Vec<VariantPosition> {
    let mut positions = Vec::new();
    for variant in GAMES {
        positions.push(VariantPosition::start(variant));
        let vectors = read_data(&format!("{}-vectors.jsonl", variant.key()));
        for line in vectors.lines().step_by(37) {
            let record: Value = serde_json::from_str(line).expect("a JSON line");
            let text = record["position"]
                .as_str()
                .or_else(|| record["fen"].as_str())
                .expect("a position text");
            positions.push(VariantPosition::from_text(variant, text).expect("a vector position"));
        }
    }
    positions
}

/// Text a player might type into any game: squares, piece letters, separators, stray symbols.
fn movelike() -> impl Strategy<Value = String> {
    prop_oneof![
        "\\PC{0,40}",
        "[a-mA-M1-9+x=#@>(),;. -]{0,30}",
        "[a-l][1-9][1-2]?[-x>]?[a-l]?[0-9]{0,2}[=+]?[A-Za-z]{0,4}( [a-l][1-9].{0,8})?",
        "(sow |move |then |, )?[a-f][1-8] ?[KHOQRBNMPkhoqrbnmp ]{0,8}",
        ".{0,3000}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Any text, read as a move in any game's position, is a legal move of that position or
    /// a move error with words for the player; it never panics.
    #[test]
    fn any_text_is_a_legal_move_or_an_explained_error(
        index in any::<prop::sample::Index>(),
        text in movelike(),
    ) {
        let positions = positions_cached();
        let position = index.get(positions);
        match position.parse_move(&text) {
            Ok(mv) => prop_assert!(position.legal_moves().contains(&mv), "{text:?}"),
            Err(error) => prop_assert!(!error.to_string().trim().is_empty()),
        }
    }

    /// A legal move text with one character inserted, removed or replaced still reads as a
    /// legal move or an explained error.
    #[test]
    fn mangled_move_texts_never_panic(
        index in any::<prop::sample::Index>(),
        pick in any::<prop::sample::Index>(),
        at in any::<prop::sample::Index>(),
        edit in 0u8..3,
        letter in any::<char>(),
    ) {
        let positions = positions_cached();
        let position = index.get(positions);
        let texts = position.legal_move_texts();
        prop_assume!(!texts.is_empty());
        let mut chars: Vec<char> = pick.get(&texts).chars().collect();
        let spot = at.index(chars.len() + 1);
        match edit {
            0 => chars.insert(spot, letter),
            1 if spot < chars.len() => { chars.remove(spot); }
            _ if spot < chars.len() => chars[spot] = letter,
            _ => chars.push(letter),
        }
        let text: String = chars.into_iter().collect();
        if let Ok(mv) = position.parse_move(&text) {
            prop_assert!(position.legal_moves().contains(&mv), "{text:?}");
        }
    }

    /// Any text, read as a position of any game, is a position that writes itself back the
    /// same way, or an error; it never panics.
    #[test]
    fn any_position_text_reads_or_fails_cleanly(
        game in 0usize..4,
        text in prop_oneof![
            "\\PC{0,100}",
            "[0-9a-zA-Z+/#., -]{0,120}",
            "([kKrRqQwWpP#.1-9,-]{1,12}/){5,12}[wbg] [-0-9 ,*]{0,20}",
        ],
    ) {
        let variant = GAMES[game];
        if let Ok(position) = VariantPosition::from_text(variant, &text) {
            let written = position.to_text();
            let again = VariantPosition::from_text(variant, &written);
            prop_assert!(again.is_ok(), "{text:?} -> {written:?}");
            prop_assert_eq!(again.expect("checked").to_text(), written);
            let _ = position.legal_moves();
            let _ = position.outcome();
        }
    }

    /// Any text is a command, a usage error that says how to use it, or no command at all.
    #[test]
    fn the_command_grammar_answers_any_text(
        word in prop::sample::select(command_words()),
        rest in prop_oneof!["\\PC{0,60}", "[#@0-9a-z ]{0,40}", ".{0,2500}"],
    ) {
        for text in [format!("{word} {rest}"), rest.clone()] {
            if let Some(Err(usage)) = command::parse(&text) {
                prop_assert!(usage.to_string().contains("Usage:"), "{text:?}: {usage}");
            }
        }
    }
}

fn positions_cached() -> &'static [VariantPosition] {
    static POSITIONS: std::sync::OnceLock<Vec<VariantPosition>> = std::sync::OnceLock::new();
    POSITIONS.get_or_init(positions)
}

/// Every command word and alias of the grammar.
fn command_words() -> Vec<&'static str> {
    chat::COMMANDS
        .iter()
        .flat_map(|spec| std::iter::once(spec.name).chain(spec.aliases.iter().copied()))
        .collect()
}

fn place() -> Place {
    Place::new(console::PLATFORM, "general")
}

fn message(who: &str, text: &str, addressed: bool) -> Incoming {
    Incoming {
        place: place(),
        user: console::user(who),
        mentions: console::mentions(text),
        text: text.to_owned(),
        event_id: None,
        addressed,
        manager: false,
        means: chat::Means::TYPED,
    }
}

async fn game_between(service: &Service, white: &str, black: &str, variant: Variant) {
    service
        .challenge(
            &place(),
            &console::user(white),
            Some(&console::user(black)),
            variant,
            None,
            ColorChoice::White,
        )
        .await
        .expect("challenged");
    service
        .accept(&place(), &console::user(black), None)
        .await
        .expect("accepted");
}

/// Arbitrary messages through the whole chat layer, with games going on: an addressed
/// message always gets an answer with words in it; nothing panics; the database stays whole.
#[test]
fn every_addressed_message_is_answered() {
    let runtime = runtime();
    let clock = ManualClock::new(START);
    // One backend is enough for fuzzing the chat layer: SQLite, which needs no server.
    let (_db, service) = runtime.block_on(async {
        let db = TestDb::new(Backend::Sqlite).await;
        let service = open(&db, &clock).await;
        game_between(&service, "alice", "bob", Variant::Chak).await;
        game_between(&service, "carol", "alice", Variant::Chesscala).await;
        game_between(&service, "bob", "carol", Variant::Shakti).await;
        (db, service)
    });
    let words = command_words();
    let text = prop_oneof![
        "\\PC{0,60}",
        (prop::sample::select(words), "[#@0-9a-z ]{0,30}").prop_map(|(w, r)| format!("{w} {r}")),
        "[a-i][1-9][a-i][1-9]\\+?",
        "(move |m )?#[0-9]{1,3} [a-i][1-9][a-i][1-9]",
        "challenge @(alice|bob|carol|dave) (chak|shakti|chad|chesscala) [0-9]{1,2} days",
        ".{2000,2100}",
    ];
    let mut runner = TestRunner::new(Config {
        cases: 400,
        ..Config::default()
    });
    let names: &'static [&str] = &["alice", "bob", "carol", "dave"];
    runner
        .run(
            &(prop::sample::select(names), text, any::<bool>()),
            |(who, text, addressed)| {
                let replies =
                    runtime.block_on(chat::handle(&service, &message(who, &text, addressed)));
                if addressed {
                    prop_assert!(!replies.is_empty(), "no answer to {who}: {text:?}");
                }
                for reply in &replies {
                    prop_assert!(!reply.plain().trim().is_empty(), "{text:?}");
                }
                Ok(())
            },
        )
        .expect("every message is answered or deliberately ignored");
    let check = runtime
        .block_on(service.store().integrity_check())
        .expect("the check runs");
    assert_eq!(check, "ok");
}

backends! {
    #[tokio::test]
    async fn a_fast_sender_is_slowed_down_and_told_once(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock)
            .await
            .with_rate_limit(RateLimit {
                burst: 3,
                interval: 10,
            });
        game_between(&service, "alice", "bob", Variant::Chak).await;
        for text in ["help", "games", "board"] {
            let replies = chat::handle(&service, &message("alice", text, true)).await;
            assert!(!replies[0].plain().contains("Easy there"), "{replies:?}");
        }
        // Chatter that cannot be a move costs nothing.
        let chatter = "I wonder what the best answer to that opening is";
        assert!(
            chat::handle(&service, &message("alice", chatter, false))
                .await
                .is_empty()
        );
        let told = chat::handle(&service, &message("alice", "e3e4", true)).await;
        assert_eq!(told.len(), 1);
        assert!(told[0].private);
        assert!(
            told[0].plain().contains("Try again in 10 seconds"),
            "{:?}",
            told[0].plain()
        );
        assert!(
            chat::handle(&service, &message("alice", "e3e4", true))
                .await
                .is_empty(),
            "told only once"
        );
        assert_eq!(
            service.load(1).await.expect("loads").row.ply,
            0,
            "a refused move is not played"
        );
        // Others are not held up.
        let bob = chat::handle(&service, &message("bob", "board", true)).await;
        assert!(!bob[0].plain().contains("Easy there"), "{bob:?}");
        clock.advance(10);
        let played = chat::handle(&service, &message("alice", "e3e4", true)).await;
        assert!(
            played[0].plain().contains("alice played e4"),
            "{:?}",
            played[0].plain()
        );
    }
}

backends! {
    #[tokio::test]
    async fn commands_said_in_passing_are_not_obeyed(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        game_between(&service, "alice", "bob", Variant::Chak).await;
        for text in ["resign", "abort", "draw", "challenge @carol"] {
            let replies = chat::handle(&service, &message("alice", text, false)).await;
            assert!(replies.is_empty(), "{text}: {replies:?}");
        }
        let state = service.load(1).await.expect("loads");
        assert!(state.is_active());
        assert_eq!(state.row.draw_offer, None);
        // Addressed, the same word is a command.
        let replies = chat::handle(&service, &message("alice", "resign confirm", true)).await;
        assert!(replies[0].plain().contains("resigned"), "{replies:?}");
    }
}

/// At the most verbose level, the logs of a whole console session hold its ids and events
/// but never what people wrote, nor a secret in the environment or in a message.
#[test]
fn logs_never_hold_message_texts_or_secrets() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let script = [
        "alice: challenge @bob chak white",
        "bob: accept",
        "alice: e3e4",
        "bob: my password is hunter2-secret",
        "bob: good game so far, well played friend",
        "bob: move e7e6 hunter2-secret",
        "bob: e7e6",
        "alice: resign confirm",
    ]
    .join("\n");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_pigeon"))
        .arg("console")
        .arg("--db")
        .arg(dir.path().join("logs.db"))
        .arg("--out")
        .arg(dir.path().join("boards"))
        .env("RUST_LOG", "trace")
        .env("DISCORD_TOKEN", "discord-token-sekrit")
        .env("MATRIX_PASSWORD", "matrix-password-sekrit")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child
                .stdin
                .take()
                .expect("a piped stdin")
                .write_all(script.as_bytes())?;
            child.wait_with_output()
        })
        .expect("the console runs");
    assert!(output.status.success());
    let logs = String::from_utf8_lossy(&output.stderr);
    assert!(logs.contains("move played"), "{logs}");
    assert!(logs.contains("TRACE") || logs.contains("DEBUG"), "{logs}");
    for secret in ["hunter2", "sekrit", "well played friend"] {
        assert!(!logs.contains(secret), "{secret} logged:\n{logs}");
    }
}

backends! {
    /// Work per command is bounded: the replay of a long game shows its last moves only.
    #[tokio::test]
    async fn a_replay_of_a_long_game_shows_its_last_moves(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        let plies = REPLAY_MOVES + 10;
        let mut rng = fastrand::Rng::with_seed(11);
        let mut id = 0;
        while id == 0 || service.load(id).await.expect("loads").row.ply < plies as i64 {
            game_between(&service, "alice", "bob", Variant::Chad).await;
            id += 1;
            for _ in 0..plies {
                let state = service.load(id).await.expect("loads");
                if !state.is_active() {
                    break;
                }
                let texts = state.record.position().legal_move_texts();
                let mover = state.player(state.turn()).platform_id.clone();
                let text = &texts[rng.usize(..texts.len())];
                service
                    .play(&place(), &console::user(&mover), Some(id), text)
                    .await
                    .expect("a legal move plays");
            }
        }
        let replies = chat::handle(&service, &message("alice", &format!("gif #{id}"), true)).await;
        assert!(
            replies[0]
                .plain()
                .contains(&format!("the last {REPLAY_MOVES} of its {plies} moves")),
            "{:?}",
            replies[0].plain()
        );
        let gif = &replies[0].picture.as_ref().expect("a replay").data;
        assert_eq!(gif_frames(gif), REPLAY_MOVES + 1);
    }
}

backends! {
    /// Words and names from users come back inert: invisible characters that reorder or hide
    /// text are gone, backticks become apostrophes, and long words are cut with an ellipsis.
    #[tokio::test]
    async fn words_and_names_from_users_are_repeated_inert(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        let hidden = ['\u{202E}', '\u{2066}', '\u{200B}', '\u{FEFF}'];
        let said = async |who: &str, text: &str| {
            let replies = chat::handle(&service, &message(who, text, true)).await;
            let text: String = replies.iter().map(chat::Reply::plain).collect();
            for c in hidden {
                assert!(!text.contains(c), "{c:?} repeated: {text:?}");
            }
            text
        };

        let challenge = said("\u{202E}mal\u{200B}lory`", "challenge chak").await;
        assert!(challenge.contains("mallory' is looking"), "{challenge}");
        let long = format!("\u{2066}{}\u{FEFF}", "x".repeat(60));
        let unknown = said("bob", &long).await;
        assert!(
            unknown.contains(&format!("\"{}…\"", "x".repeat(31))),
            "{unknown}"
        );
        let usage = said("bob", &format!("draw `{}", "y".repeat(40))).await;
        assert!(
            usage.contains(&format!("\"'{}…\"", "y".repeat(30))),
            "{usage}"
        );
    }
}
