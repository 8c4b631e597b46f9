//! Chesscala: the reference vectors, perft, the worked examples of §3.7 and properties.
//!
//! The start-position tests depend on the reconstructed setup of §3.2 and are kept in their
//! own module, apart from the movement-rule tests.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use pigeon::rules::chesscala::Chesscala;
use pigeon::rules::{Color, MoveError, Position};
use proptest::prelude::*;
use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::common::read_data;

#[derive(Debug, Deserialize)]
struct Status {
    to_move: String,
    result: String,
    first_turn: bool,
    checks_w: u32,
    checks_b: u32,
    in_check: bool,
    multiple_check: bool,
    pending: String,
    losses: [u8; 2],
}

#[derive(Debug, Deserialize)]
struct Vector {
    id: String,
    source: String,
    position: String,
    status: Status,
    n_turns: usize,
    turns: Vec<String>,
    n_results: usize,
    results_sha256: String,
    results: Option<Vec<String>>,
    played: Option<String>,
    after: Option<String>,
}

fn vectors() -> &'static [Vector] {
    static VECTORS: OnceLock<Vec<Vector>> = OnceLock::new();
    VECTORS.get_or_init(|| {
        read_data("chesscala-vectors.jsonl")
            .lines()
            .map(|line| serde_json::from_str(line).expect("a vector line"))
            .collect()
    })
}

fn pos(text: &str) -> Chesscala {
    Chesscala::from_text(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// The sorted turn texts of a position.
fn turn_texts(p: &Chesscala) -> Vec<String> {
    let mut texts: Vec<String> = p.legal_moves().iter().map(|t| p.move_text(t)).collect();
    texts.sort();
    texts
}

/// The sorted distinct positions the legal turns reach.
fn result_texts(p: &Chesscala) -> Vec<String> {
    let set: BTreeSet<String> = p
        .legal_moves()
        .iter()
        .map(|t| p.play(t).to_text())
        .collect();
    set.into_iter().collect()
}

fn play_text(p: &Chesscala, text: &str) -> Chesscala {
    let turn = p
        .legal_moves()
        .into_iter()
        .find(|t| p.move_text(t) == text)
        .unwrap_or_else(|| panic!("{text} is not legal in {}", p.to_text()));
    p.play(&turn)
}

fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn every_vector_lists_the_reference_turns_and_results() {
    let mut failures = Vec::new();
    for v in vectors() {
        let p = pos(&v.position);
        let mut errors = Vec::new();
        if p.to_text() != v.position {
            errors.push(format!("text {}", p.to_text()));
        }
        let texts = turn_texts(&p);
        if texts != v.turns || texts.len() != v.n_turns {
            let mine: BTreeSet<_> = texts.iter().collect();
            let theirs: BTreeSet<_> = v.turns.iter().collect();
            let extra: Vec<_> = mine.difference(&theirs).take(5).collect();
            let missing: Vec<_> = theirs.difference(&mine).take(5).collect();
            errors.push(format!(
                "turns {} vs {}: extra {extra:?} missing {missing:?}",
                texts.len(),
                v.n_turns
            ));
        }
        if p.count_turns() != texts.len() as u64 {
            errors.push(format!(
                "count {} vs listed {}",
                p.count_turns(),
                texts.len()
            ));
        }
        let results = result_texts(&p);
        if results.len() != v.n_results || sha256_hex(&results.join("\n")) != v.results_sha256 {
            errors.push(format!("results {} vs {}", results.len(), v.n_results));
            if let Some(expected) = &v.results {
                let mine: BTreeSet<_> = results.iter().collect();
                let theirs: BTreeSet<_> = expected.iter().collect();
                errors.push(format!(
                    "extra {:?} missing {:?}",
                    mine.difference(&theirs).take(2).collect::<Vec<_>>(),
                    theirs.difference(&mine).take(2).collect::<Vec<_>>()
                ));
            }
        }
        let s = &v.status;
        let side = p.turn();
        let status_ok = s.to_move == side.letter().to_string()
            && p.checks(Color::White) == s.checks_w
            && p.checks(Color::Black) == s.checks_b
            && p.in_check() == s.in_check
            && (p.checks(side) >= 2) == s.multiple_check
            && [p.losses(Color::White), p.losses(Color::Black)] == s.losses
            && v.position.split(' ').nth(2) == Some(if s.first_turn { "F" } else { "-" })
            && v.position.split(' ').nth(5) == Some(s.pending.as_str())
            && v.position.split(' ').nth(6) == Some(s.result.as_str())
            && (p.outcome().is_some() == (s.result != "*"));
        if !status_ok {
            errors.push(format!(
                "status: checks {} {} vs {:?}",
                p.checks(Color::White),
                p.checks(Color::Black),
                s
            ));
        }
        if let (Some(played), Some(after)) = (&v.played, &v.after) {
            let next = play_text(&p, played);
            if &next.to_text() != after {
                errors.push(format!("played {played}: {} vs {after}", next.to_text()));
            }
        }
        if !errors.is_empty() {
            failures.push(format!(
                "{} ({}) {}\n  {}",
                v.id,
                v.source,
                v.position,
                errors.join("\n  ")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failing vectors:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[derive(Debug, Deserialize)]
struct PerftPosition {
    name: String,
    position: String,
    perft: std::collections::BTreeMap<String, u64>,
}

#[derive(Debug, Deserialize)]
struct PerftFile {
    positions: Vec<PerftPosition>,
}

fn perft_positions() -> Vec<PerftPosition> {
    serde_json::from_str::<PerftFile>(&read_data("chesscala-perft.json"))
        .expect("the perft file")
        .positions
}

/// Perft of the hand-made positions (movement rules, independent of the reconstructed setup).
#[test]
fn hand_made_positions_have_the_reference_perft() {
    for p in perft_positions().iter().filter(|p| p.name != "start") {
        let position = pos(&p.position);
        for (depth, &expected) in &p.perft {
            let depth: u32 = depth.parse().expect("a depth");
            assert_eq!(position.perft(depth), expected, "{} depth {depth}", p.name);
        }
    }
}

/// Tests that depend on the reconstructed standard setup of §3.2.
mod start {
    use super::*;

    #[test]
    fn start_text_is_the_reconstruction() {
        let start = Chesscala::start();
        assert_eq!(start.to_text(), perft_positions()[0].position);
        assert_eq!(start.to_text(), pigeon::rules::chesscala::START);
    }

    #[test]
    fn start_perft_to_depth_3() {
        let start = Chesscala::start();
        assert_eq!(start.perft(1), 33);
        assert_eq!(start.perft(2), 1_551);
        assert_eq!(start.perft(3), 200_046);
    }

    /// T8: the 33 opening turns of §3.7.
    #[test]
    fn t8_reconstructed_opening_has_33_turns() {
        let texts = turn_texts(&Chesscala::start());
        assert_eq!(texts.len(), 33);
        for origin in ["a1", "a2", "c1", "c2"] {
            assert!(!texts.iter().any(|t| t.starts_with(origin)), "{origin}");
        }
        for turn in [
            "Kd1-c1", "Kf1-e1", "Pb2-b4", "Pd2-d4", "Pf2-f4", "b2>PP", "e2>PP",
        ] {
            assert!(texts.contains(&turn.to_owned()), "{turn}");
        }
        // e1's drops skip the full f1 stack and go to f2, f3, f4.
        let after = play_text(&Chesscala::start(), "e1>QRB").to_text();
        assert!(
            after.contains("/-,-,-,-,-,B/-,-,-,-,-,R/PP,PP,PP,PP,PP,QPP/"),
            "{after}"
        );
    }

    #[test]
    #[ignore = "release only: 81 million turns"]
    fn start_perft_depth_4() {
        assert_eq!(Chesscala::start().perft(4), 81_132_160);
    }

    #[test]
    fn start_divide_at_depth_4_matches_per_first_turn() {
        // Only the cheapest first turns, to keep debug runs short.
        let start = Chesscala::start();
        let file: serde_json::Value =
            serde_json::from_str(&read_data("chesscala-perft.json")).expect("json");
        let divide = &file["positions"][0]["divide4"];
        for turn in ["Kd1-c1", "Pb2-b4"] {
            let expected = divide[turn].as_u64().expect("a count");
            assert_eq!(play_text(&start, turn).perft(3), expected, "{turn}");
        }
    }
}

/// The hand-made position of the perft file with this name.
fn hand(name: &str) -> Chesscala {
    let p = perft_positions()
        .into_iter()
        .find(|p| p.name == name)
        .expect("a hand-made position");
    pos(&p.position)
}

/// The stack on `square` in a position text, as written there.
fn cell(p: &Chesscala, square: &str) -> String {
    let text = p.to_text();
    let board = text.split(' ').next().expect("a board field");
    let file = usize::from(square.as_bytes()[0] - b'a');
    let rank = usize::from(square.as_bytes()[1] - b'1');
    board
        .split('/')
        .nth(7 - rank)
        .expect("a row")
        .split(',')
        .nth(file)
        .expect("a cell")
        .to_owned()
}

mod worked_examples {
    use super::*;

    #[test]
    fn t1_sowing_orders() {
        let p = hand("hand:T1");
        let sowings: Vec<String> = turn_texts(&p)
            .into_iter()
            .filter(|t| t.starts_with("b2>"))
            .collect();
        assert_eq!(sowings.len(), 6);
        let after = play_text(&p, "b2>NBP");
        assert_eq!(
            [cell(&after, "b3"), cell(&after, "b4"), cell(&after, "b5")],
            ["N", "B", "P"]
        );
        assert_eq!(cell(&after, "b2"), "-");
    }

    #[test]
    fn t2_wrap_and_promotion() {
        let p = hand("hand:T2");
        let after = play_text(&p, "b7>PQR");
        assert_eq!(
            [cell(&after, "b8"), cell(&after, "a8"), cell(&after, "a7")],
            ["M", "Q", "R"]
        );
        let after = play_text(&p, "b7>QPR");
        assert_eq!(cell(&after, "a8"), "M");
        // Sown through the last rank without being placed on it: no promotion.
        let after = play_text(&p, "b7>QRP");
        assert_eq!(
            [cell(&after, "b8"), cell(&after, "a8"), cell(&after, "a7")],
            ["Q", "R", "P"]
        );
    }

    #[test]
    fn t3_promotion_skip_and_multiple_check() {
        let p = hand("hand:T3");
        let after = play_text(&p, "b5>RQPB");
        assert_eq!(
            [
                cell(&after, "b6"),
                cell(&after, "b7"),
                cell(&after, "b8"),
                cell(&after, "a8"),
                cell(&after, "a7")
            ],
            ["R", "Q", "Mn", "krnp", "B"]
        );
        assert_eq!(after.checks(Color::Black), 2);
        // Capturing the Queen and sowing the Man away (into a6, past the full a8) escapes.
        let escaped = play_text(&after, "b8>nM pa8xb7=Q");
        assert_eq!(cell(&escaped, "a6"), "M");
        assert_eq!(escaped.checks(Color::Black), 0);
        assert_eq!(escaped.outcome(), None);
    }

    #[test]
    fn t4_bomb_in_its_stack_and_after_being_sown() {
        let p = hand("hand:T4");
        let texts = turn_texts(&p);
        let captures: BTreeSet<&str> = texts
            .iter()
            .filter_map(|t| t.split(' ').next())
            .filter(|m| m.contains('x'))
            .collect();
        assert_eq!(captures, BTreeSet::from(["Od3xd3=b"]));
        for turn in ["d3>PbO Od6xd6=n", "d3>PbO Od6xd6=r", "d3>bPO Od6xd6=n"] {
            assert!(texts.contains(&turn.to_owned()), "{turn}");
        }
    }

    #[test]
    fn marks_a_check_and_a_check_no_turn_escapes() {
        use pigeon::rules::Mark;
        // T5 as completed leaves White four checks and no escaping turn (§3.8 item 14).
        assert_eq!(hand("hand:T5").mark(), Some(Mark::Mate));
        // T3's sowing checks Black twice, and Black escapes.
        let after = play_text(&hand("hand:T3"), "b5>RQPB");
        assert_eq!(after.mark(), Some(Mark::Check));
        assert_eq!(hand("hand:T1").mark(), None);
    }

    #[test]
    fn a_final_turn_is_told_in_the_caption() {
        let pending = vectors()
            .iter()
            .find(|v| v.status.pending.starts_with('M') && v.status.result == "*")
            .expect("a vector with a pending escape");
        let p = pos(&pending.position);
        let last = p.final_turn().expect("a final turn");
        assert!(last.escape);
        let status =
            pigeon::render::position_status(&pigeon::rules::VariantPosition::Chesscala(p.clone()))
                .unwrap();
        assert!(status.contains("last turn"), "{status}");
        // On a final turn a check is only a check: the end is decided otherwise.
        if p.in_check() {
            assert_eq!(p.mark(), Some(pigeon::rules::Mark::Check));
        }
    }

    #[test]
    fn t5_hammer_captures() {
        let p = hand("hand:T5");
        let hammer: BTreeSet<String> = turn_texts(&p)
            .iter()
            .flat_map(|t| t.split(' ').map(str::to_owned).collect::<Vec<_>>())
            .filter(|m| m.starts_with("He1x"))
            .collect();
        let expected = [
            "He1xc3=b@d2",
            "He1xc3=n@d2",
            "He1xf3=q@f2",
            "He1xa3=r@b3",
            "He1xa3=p@b3",
        ];
        assert_eq!(hammer, expected.iter().map(|s| (*s).to_owned()).collect());
        assert!(turn_texts(&p).iter().any(|t| t.starts_with("Qe1xe2=b")));
        // With c2 controlled by Black, the double-knight capture is gone.
        let blocked = pos(&p
            .to_text()
            .replace("-,-,-,-,b,-/-,-,-,K,HQ,K", "-,-,n,-,b,-/-,-,-,K,HQ,K"));
        assert!(!turn_texts(&blocked).iter().any(|t| t.contains("He1xa3")));
    }

    #[test]
    fn t6_king_stays_when_its_stack_is_sown() {
        let p = hand("hand:T6");
        let after = play_text(&p, "d1>NP");
        assert_eq!(
            [cell(&after, "d1"), cell(&after, "d2"), cell(&after, "d3")],
            ["K", "N", "P"]
        );
        assert!(turn_texts(&p).contains(&"d1>PN".to_owned()));
    }

    #[test]
    fn t7_capture_then_sow() {
        let p = hand("hand:T7");
        // After the capture alone the new stack {Q p} is tied, so White may sow it.
        let after = play_text(&p, "Qb3xb6=r b6>Qp");
        assert_eq!(
            [cell(&after, "b6"), cell(&after, "b7"), cell(&after, "b8")],
            ["-", "Q", "p"]
        );
        let thrown = play_text(&p, "Qb3xb6=r b6>pQ");
        assert_eq!(cell(&thrown, "b8"), "Q");
    }
}

mod chat {
    use super::*;

    fn parsed(p: &Chesscala, input: &str) -> String {
        let turn = p
            .parse_move(input)
            .unwrap_or_else(|e| panic!("{input}: {e}"));
        p.move_text(&turn)
    }

    #[test]
    fn sowings_in_several_spellings() {
        let start = Chesscala::start();
        for input in [
            "sow b1 R B N",
            "b1 RBN",
            "b1>rbn",
            "b1>RBN",
            "B1 rbn",
            "  sow b1 > R B N  ",
        ] {
            assert_eq!(parsed(&start, input), "b1>RBN", "{input}");
        }
        assert_eq!(parsed(&start, "sow b2"), "b2>PP");
        assert_eq!(parsed(&start, "K c1"), "Kd1-c1");
        assert_eq!(parsed(&start, "Kd1-c1"), "Kd1-c1");
        assert_eq!(parsed(&start, "b2-b4"), "Pb2-b4");
        assert_eq!(parsed(&start, "P b4"), "Pb2-b4");
        // Black's pieces are lower case in turn texts; chat may use either case.
        let black = play_text(&start, "b1>RBN");
        assert_eq!(parsed(&black, "sow a7 P P"), "a7>pp");
        assert_eq!(parsed(&black, "k b8"), "ka8-b8");
        assert_eq!(parsed(&black, "a7-a5"), "pa7-a5");
    }

    #[test]
    fn long_candidate_lists_are_capped() {
        // Fifty-two ways to go on after this Hammer capture.
        let p = pos(&vectors()
            .iter()
            .find(|v| v.id == "cc-pub-0026")
            .expect("vector")
            .position);
        match p.parse_move("hc6xa5=M@b5") {
            Err(MoveError::Ambiguous { candidates, .. }) => {
                assert_eq!(candidates.len(), 12, "{candidates:?}");
                assert!(candidates[11].starts_with("one of "), "{candidates:?}");
            }
            other => panic!("{other:?}"),
        }
        let start = Chesscala::start();
        match start.parse_move("sow") {
            Err(e) => assert!(!e.to_string().is_empty()),
            Ok(t) => panic!("{}", start.move_text(&t)),
        }
    }

    #[test]
    fn a_stack_alone_lists_its_orders() {
        let start = Chesscala::start();
        match start.parse_move("sow e1") {
            Err(MoveError::Ambiguous { candidates, .. }) => {
                assert_eq!(candidates.len(), 6);
                assert!(candidates.contains(&"e1>QRB".to_owned()));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn illegal_sowing_says_what_can_be_sown() {
        match Chesscala::start().parse_move("a1 QRN") {
            Err(MoveError::Illegal { hint, .. }) => {
                assert!(
                    hint.contains("Stacks you can sow: b1, b2, d1, d2, e1, e2, f1, f2"),
                    "{hint}"
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_first_part_alone_gives_the_completions() {
        let p = hand("hand:T7");
        match p.parse_move("Qxb6") {
            Err(MoveError::Ambiguous { candidates, .. }) => {
                assert!(
                    candidates.contains(&"Qb3xb6=r b6>Qp".to_owned()),
                    "{candidates:?}"
                );
                assert!(
                    candidates.iter().all(|c| c.starts_with("Qb3xb6=")),
                    "{candidates:?}"
                );
            }
            other => panic!("{other:?}"),
        }
        for input in [
            "Qxb6 then b6 Qp",
            "Qxb6, b6>Qp",
            "Qb3xb6=r b6>Qp",
            "q x b6 = r; sow b6 Q p",
        ] {
            assert_eq!(parsed(&p, input), "Qb3xb6=r b6>Qp", "{input}");
        }
    }

    #[test]
    fn two_part_turns_under_multiple_check() {
        let p = play_text(&hand("hand:T3"), "b5>RQPB");
        assert_eq!(parsed(&p, "b8>nM pa8xb7=Q"), "b8>nM pa8xb7=Q");
        assert_eq!(parsed(&p, "b8 nM, pxb7"), "b8>nM pa8xb7=Q");
        assert_eq!(parsed(&p, "ra8xb8=M rb8xb7=Q"), "ra8xb8=M rb8xb7=Q");
    }

    #[test]
    fn hammer_and_bomb_captures() {
        let p = hand("hand:T5");
        assert!(matches!(
            p.parse_move("Hxa3"),
            Err(MoveError::Ambiguous { .. })
        ));
        let p = hand("hand:T4");
        // The Bomb's capture still needs a sowing, so alone it asks for the completion.
        assert!(matches!(
            p.parse_move("Oxd3"),
            Err(MoveError::Ambiguous { .. })
        ));
        assert_eq!(parsed(&p, "Oxd3, d3 PO"), "Od3xd3=b d3>PO");
        assert_eq!(parsed(&p, "d3 PbO, Oxd6=n"), "d3>PbO Od6xd6=n");
    }

    #[test]
    fn unreadable_text_is_a_syntax_error() {
        let start = Chesscala::start();
        for input in ["", "hello", "b9", "z1", "b1 RBN, b2 PP, d2 PP", "Q=", "a10"] {
            assert!(
                matches!(start.parse_move(input), Err(MoveError::Syntax { .. })),
                "{input}"
            );
        }
    }

    #[test]
    fn a_finished_game_takes_no_turn() {
        let over = vectors()
            .iter()
            .find(|v| v.status.result != "*")
            .expect("a finished game");
        assert_eq!(
            pos(&over.position).parse_move("pass"),
            Err(MoveError::GameOver)
        );
    }

    #[test]
    fn pass_is_played_for_the_player() {
        let v = vectors()
            .iter()
            .find(|v| v.turns.contains(&"pass".to_owned()))
            .expect("a pass");
        let p = pos(&v.position);
        let passes = p.legal_moves().into_iter().filter(|t| p.is_pass(t)).count();
        assert_eq!(passes, 1);
        assert_eq!(parsed(&p, "pass"), "pass");
    }
}

/// The position after a sequence of random choices among the legal turns.
fn random_game(start: &Chesscala, choices: &[u16]) -> Vec<Chesscala> {
    let mut line = vec![start.clone()];
    for &choice in choices {
        let p = line.last().expect("a position");
        let turns = p.legal_moves();
        if turns.is_empty() {
            break;
        }
        line.push(p.play(&turns[usize::from(choice) % turns.len()]));
    }
    line
}

fn pieces_on_board(p: &Chesscala) -> usize {
    p.board_view()
        .cells
        .iter()
        .map(|c| match c {
            pigeon::rules::Cell::Pieces(v) => v.len(),
            _ => 0,
        })
        .sum()
}

/// A random starting point: the start position or one of the vectors.
fn any_start() -> impl Strategy<Value = Chesscala> {
    (0..=vectors().len()).prop_map(|i| match i.checked_sub(1) {
        None => Chesscala::start(),
        Some(i) => pos(&vectors()[i].position),
    })
}

/// Maps a square name under the half-turn: a<->f, 1<->8.
fn rotate_square(file: u8, rank: u8) -> [char; 2] {
    [
        char::from(b'a' + b'f' - file),
        char::from(b'1' + b'8' - rank),
    ]
}

/// A turn text under the half-turn with colours swapped.
fn rotate_text(text: &str) -> String {
    if text == "pass" {
        return text.to_owned();
    }
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if (b'a'..=b'f').contains(&c) && bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
            out.extend(rotate_square(c, bytes[i + 1]));
            i += 2;
            continue;
        }
        let c = char::from(c);
        out.push(if c.is_ascii_uppercase() {
            c.to_ascii_lowercase()
        } else if "khoqrbnmp".contains(c) {
            c.to_ascii_uppercase()
        } else {
            c
        });
        i += 1;
    }
    out
}

#[test]
fn the_half_turn_maps_turns_one_to_one() {
    for v in vectors().iter().filter(|v| !v.position.contains(" F ")) {
        let p = pos(&v.position);
        let rotated = p.rotated();
        let mut mapped: Vec<String> = turn_texts(&p).iter().map(|t| rotate_text(t)).collect();
        mapped.sort();
        assert_eq!(turn_texts(&rotated), mapped, "{}", v.id);
        assert_eq!(
            rotated.checks(Color::White),
            p.checks(Color::Black),
            "{}",
            v.id
        );
        assert_eq!(rotated.rotated(), p, "{}", v.id);
    }
}

mod views {
    use super::*;
    use pigeon::rules::{Cell, Coord, EndReason, Outcome, PieceView};

    fn sq(name: &str) -> Coord {
        let b = name.as_bytes();
        Coord::new(b[0] - b'a', b[1] - b'1')
    }

    #[test]
    fn board_view_lists_every_stack_in_text_order() {
        let view = Chesscala::start().board_view();
        assert_eq!((view.files, view.ranks, view.cells.len()), (6, 8, 48));
        let piece = |color, letter| PieceView { color, letter };
        assert_eq!(
            view.cell(sq("f1")),
            &Cell::Pieces(vec![
                piece(Color::White, 'K'),
                piece(Color::White, 'H'),
                piece(Color::White, 'O'),
                piece(Color::White, 'B')
            ])
        );
        assert_eq!(
            view.cell(sq("f8")),
            &Cell::Pieces(vec![
                piece(Color::Black, 'Q'),
                piece(Color::Black, 'R'),
                piece(Color::Black, 'N')
            ])
        );
        assert_eq!(view.cell(sq("c4")), &Cell::Empty);
    }

    #[test]
    fn move_marks_show_origins_drops_and_captures() {
        let start = Chesscala::start();
        let turn = start.parse_move("b1>RBN").expect("legal");
        let marks = start.move_marks(&turn);
        assert_eq!(marks.from, [sq("b1")]);
        assert_eq!(marks.to, [sq("b2"), sq("b3"), sq("b4")]);
        assert!(marks.captures.is_empty());

        let p = hand("hand:T7");
        let marks = p.move_marks(&p.parse_move("Qb3xb6=r b6>Qp").expect("legal"));
        assert_eq!(marks.from, [sq("b3"), sq("b6")]);
        assert_eq!(marks.to, [sq("b6"), sq("b7"), sq("b8")]);
        assert_eq!(marks.captures, [sq("b6")]);

        let p = hand("hand:T5");
        let hammer = p
            .legal_moves()
            .into_iter()
            .find(|t| p.move_text(t).starts_with("He1xa3=r@b3 "))
            .expect("a double-knight turn");
        let marks = p.move_marks(&hammer);
        assert_eq!(marks.from[0], sq("e1"));
        assert_eq!(marks.to[0], sq("b3"));
        assert_eq!(marks.captures, [sq("a3")]);
    }

    #[test]
    fn checked_kings_of_both_sides() {
        let after = play_text(&hand("hand:T3"), "b5>RQPB");
        assert_eq!(after.checked_kings(), [sq("a8")]);
        assert!(after.in_check());
        assert!(Chesscala::start().checked_kings().is_empty());
    }

    #[test]
    fn outcomes_come_from_the_result_field() {
        for v in vectors() {
            let outcome = pos(&v.position).outcome();
            let expected = match v.status.result.as_str() {
                "1-0" => Some(Some(Color::White)),
                "0-1" => Some(Some(Color::Black)),
                "1/2-1/2" => Some(None),
                _ => None,
            };
            assert_eq!(outcome.map(|o| o.winner), expected, "{}", v.id);
            assert!(pos(&v.position).repetition_key().is_none());
        }
        // A win against a side with twelve losses is by attrition.
        let attrition = pos(
            "k,-,k,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,K,-,K b - - 3,12 - 1-0",
        );
        assert_eq!(
            attrition.outcome(),
            Some(Outcome::win(Color::White, EndReason::Attrition))
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn chat_forms_reach_their_turns(start in any_start(), choices in prop::collection::vec(any::<u16>(), 0..4), pick in any::<u16>()) {
        let line = random_game(&start, &choices);
        let p = line.last().expect("a position");
        let turns = p.legal_moves();
        if !turns.is_empty() {
            let turn = turns[usize::from(pick) % turns.len()];
            let text = p.move_text(&turn);
            // Spaced-out sowings: `sow b1 R B N`; the parts joined by `then`.
            let chat: Vec<String> = text
                .split(' ')
                .map(|part| match part.split_once('>') {
                    Some((from, pieces)) => {
                        let letters: Vec<String> = pieces.chars().map(String::from).collect();
                        format!("sow {from} {}", letters.join(" "))
                    }
                    None => part.to_owned(),
                })
                .collect();
            prop_assert_eq!(p.parse_move(&chat.join(" then ")), Ok(turn));
            // A first part alone is never played: it is ambiguous with this turn among the
            // completions, unless it is a whole turn by itself.
            if let Some((first, _)) = text.split_once(' ') {
                let alone_is_a_turn = turns.iter().any(|t| p.move_text(t) == first);
                match p.parse_move(first) {
                    Err(MoveError::Ambiguous { candidates, .. }) => {
                        prop_assert!(!alone_is_a_turn);
                        prop_assert!(candidates.iter().all(|c| c.starts_with(first)) || candidates.iter().any(|c| c.ends_with("more")));
                    }
                    Ok(t) => prop_assert!(alone_is_a_turn && p.move_text(&t) == first),
                    Err(e) => prop_assert!(false, "{first}: {e}"),
                }
            }
        }
    }

    #[test]
    fn the_half_turn_maps_random_games(start in any_start(), choices in prop::collection::vec(any::<u16>(), 0..6)) {
        for p in random_game(&start, &choices).iter().filter(|p| !p.to_text().contains(" F ")) {
            let mut mapped: Vec<String> = turn_texts(p).iter().map(|t| rotate_text(t)).collect();
            mapped.sort();
            prop_assert_eq!(turn_texts(&p.rotated()), mapped);
        }
    }

    #[test]
    fn random_games_keep_pieces_stacks_and_texts(start in any_start(), choices in prop::collection::vec(any::<u16>(), 0..8)) {
        let total = pieces_on_board(&start) + usize::from(start.losses(Color::White)) + usize::from(start.losses(Color::Black));
        for p in random_game(&start, &choices) {
            let losses = usize::from(p.losses(Color::White)) + usize::from(p.losses(Color::Black));
            prop_assert_eq!(pieces_on_board(&p) + losses, total);
            for cell in p.board_view().cells {
                if let pigeon::rules::Cell::Pieces(v) = cell {
                    prop_assert!((1..=4).contains(&v.len()));
                }
            }
            prop_assert_eq!(&Chesscala::from_text(&p.to_text()).expect("own text"), &p);
            prop_assert_eq!(p.count_turns(), p.legal_moves().len() as u64);
        }
    }

    #[test]
    fn turn_texts_and_display_texts_parse_back(start in any_start(), choices in prop::collection::vec(any::<u16>(), 0..4), picks in prop::collection::vec(any::<u16>(), 1..6)) {
        let line = random_game(&start, &choices);
        let p = line.last().expect("a position");
        let turns = p.legal_moves();
        if !turns.is_empty() {
            for pick in picks {
                let turn = turns[usize::from(pick) % turns.len()];
                prop_assert_eq!(p.parse_move(&p.move_text(&turn)), Ok(turn));
                prop_assert_eq!(p.parse_move(&p.display_move(&turn)), Ok(turn));
            }
        }
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,40}", chatty in "[a-fA-Fkhoqrbnmpx1-9>=@,; -]{0,24}") {
        let start = Chesscala::start();
        let _ = start.parse_move(&text);
        let _ = start.parse_move(&chatty);
        let _ = Chesscala::from_text(&text);
        let _ = Chesscala::from_text(&chatty);
    }
}

#[test]
fn illegal_sowings_say_why() {
    let start = Chesscala::start();
    let hint = |p: &Chesscala, input: &str| match p.parse_move(input) {
        Err(MoveError::Illegal { hint, .. }) => hint,
        other => panic!("{input}: {other:?}"),
    };
    assert!(
        hint(&start, "a1 QRN")
            .starts_with("On White's first turn a sowing starts on file b, d, e or f")
    );
    assert!(hint(&start, "sow c4").starts_with("There is no stack on c4."));
    assert!(hint(&start, "b1 RB").starts_with("b1 holds RBN"));
    assert!(hint(&start, "sow a8").contains("only they may sow it"));
    assert!(hint(&hand("hand:T1"), "sow d1").starts_with("d1 holds only kings"));
}

/// The optional rule without draws (CC-K7) against the standard rules, on the same positions.
mod no_draws {
    use pigeon::rules::chesscala::Chesscala;
    use pigeon::rules::{GameRules, Position, RuleSet, VariantPosition};

    use super::{pos, turn_texts, vectors};

    fn strict(p: &Chesscala) -> Chesscala {
        p.clone().under(RuleSet::NoDraws)
    }

    #[test]
    fn every_turn_without_draws_is_a_standard_turn_and_the_difference_leaves_a_king_in_check() {
        let mut differing = 0;
        for vector in vectors() {
            let standard = pos(&vector.position);
            let no_draws = strict(&standard);
            let all = turn_texts(&standard);
            let kept = turn_texts(&no_draws);
            for turn in &kept {
                assert!(
                    all.contains(turn),
                    "{}: {turn} only without draws",
                    vector.id
                );
            }
            for turn in all.iter().filter(|turn| !kept.contains(turn)) {
                let mv = standard.parse_move(turn).expect("a standard turn");
                let after = standard.play(&mv);
                assert!(
                    after.checks(standard.turn()) > 0,
                    "{}: {turn} refused without draws, yet it leaves no king in check",
                    vector.id
                );
                differing += 1;
            }
            assert_eq!(no_draws.count_turns(), kept.len() as u64, "{}", vector.id);
        }
        assert!(differing > 0, "some vector has a turn into self-check");
    }

    /// White's king on d1 is attacked by the Black rook on d8 down the open file: the king steps
    /// out, or the turn is refused; under the standard rules staying is legal (self-check).
    #[test]
    fn a_turn_leaving_the_own_king_in_check_is_refused_only_without_draws() {
        let text = "k,-,-,r,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/\
                    -,P,-,-,-,-/-,-,-,K,-,K w - - 0,0 - *";
        let standard = pos(text);
        assert!(standard.in_check(), "the rook checks d1");
        let no_draws = strict(&standard);
        let all = turn_texts(&standard);
        let kept = turn_texts(&no_draws);
        assert!(kept.len() < all.len(), "{all:?} against {kept:?}");
        assert!(all.iter().any(|t| t.starts_with("b2")), "{all:?}");
        assert!(!kept.iter().any(|t| t.starts_with("b2")), "{kept:?}");
        assert!(kept.iter().all(|t| all.contains(t)));
        assert!(no_draws.parse_move("b2>P").is_err());
        assert!(standard.parse_move("b2>P").is_ok());
    }

    #[test]
    fn the_rules_are_named_and_kept_through_play() {
        let game: GameRules = "chesscala-nodraws".parse().expect("rules");
        let start = game.start();
        assert_eq!(start.rules(), RuleSet::NoDraws);
        let mv = start
            .legal_moves()
            .into_iter()
            .next()
            .expect("a first turn");
        assert_eq!(start.play(&mv).rules(), RuleSet::NoDraws);
        assert_eq!(
            VariantPosition::from_text(game.variant(), &start.to_text()).map(|p| p.rules()),
            Ok(RuleSet::Standard),
            "the position text does not carry the rule set"
        );
    }

    #[test]
    fn perft_without_draws_never_exceeds_the_standard_count() {
        let standard = Chesscala::start();
        let no_draws = strict(&standard);
        for depth in 1..=3 {
            assert!(
                no_draws.perft(depth) <= standard.perft(depth),
                "depth {depth}"
            );
        }
        assert_eq!(no_draws.perft(1), 33);
        assert_eq!(no_draws.perft(1), no_draws.legal_moves().len() as u64);
        // Perft's inner levels and the listing agree.
        let sum: u64 = no_draws
            .legal_moves()
            .iter()
            .map(|turn| no_draws.play(turn).perft(1))
            .sum();
        assert_eq!(no_draws.perft(2), sum);
    }
}
