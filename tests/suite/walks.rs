//! Property checks shared by the Shakti and Chad tests: random walks through the legal move
//! tree from the start or from a reference position, and the checks made on every position
//! reached.

use std::collections::HashSet;

use pigeon::rules::{MoveError, Variant, VariantPosition};

use crate::common::read_data;

/// The positions of a vector file and `start`, to start walks from.
pub fn starts(variant: Variant, file: &str) -> Vec<String> {
    let mut starts: Vec<String> = read_data(file)
        .lines()
        .filter_map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).ok()?;
            Some(value["position"].as_str()?.to_owned())
        })
        .inspect(|text| assert!(VariantPosition::from_text(variant, text).is_ok()))
        .collect();
    starts.push(String::from("start"));
    starts
}

/// Asserts that each of `texts` is an illegal move in `position`.
pub fn assert_illegal(position: &VariantPosition, texts: &[&str]) {
    for text in texts {
        assert!(
            matches!(position.parse_move(text), Err(MoveError::Illegal { .. })),
            "{text}"
        );
    }
}

/// The positions of a walk from `start` that picks move `choice % count` at each ply, stopping
/// where the game ends. The first position is `start` itself.
pub fn walk(start: VariantPosition, choices: &[u16]) -> Vec<VariantPosition> {
    let mut positions = vec![start];
    for &choice in choices {
        let position = positions.last().expect("the walk starts with a position");
        let moves = position.legal_moves();
        if moves.is_empty() {
            break;
        }
        let next = position.play(&moves[usize::from(choice) % moves.len()]);
        positions.push(next);
    }
    positions
}

/// Checks that hold for every position: the text round-trips, every legal move leads to a
/// valid position (the mover not in check, which the position parser checks on its own),
/// moves are distinct, each move's interchange and display texts read back as that move, and
/// perft's counting agrees with the listed moves.
pub fn check_position(position: &VariantPosition) {
    let variant = position.variant();
    let text = position.to_text();
    let reread = VariantPosition::from_text(variant, &text).expect("to_text reads back");
    assert_eq!(&reread, position, "{text}");
    let moves = position.legal_moves();
    let texts: HashSet<String> = moves.iter().map(|mv| position.move_text(mv)).collect();
    assert_eq!(texts.len(), moves.len(), "duplicate moves in {text}");
    for mv in &moves {
        let after = position.play(mv);
        assert_ne!(after.turn(), position.turn());
        let after_text = after.to_text();
        VariantPosition::from_text(variant, &after_text).unwrap_or_else(|e| {
            panic!(
                "{} from {text} gives {after_text}: {e}",
                position.move_text(mv)
            )
        });
        for written in [position.move_text(mv), position.display_move(mv)] {
            assert_eq!(
                position.parse_move(&written).as_ref(),
                Ok(mv),
                "{written} in {text}"
            );
        }
    }
    assert_eq!(moves.is_empty(), position.outcome().is_some(), "{text}");
    // The engines count the last ply without listing moves: both ways must agree.
    assert_eq!(position.perft(1), moves.len() as u64, "{text}");
    let listed: usize = moves
        .iter()
        .map(|mv| position.play(mv).legal_moves().len())
        .sum();
    assert_eq!(position.perft(2), listed as u64, "{text}");
}

/// Checks that rotating the board by 180 degrees and swapping the colours maps the legal moves
/// one to one and keeps perft 2.
pub fn check_rotation(
    position: &VariantPosition,
    rotate_position: impl Fn(&str) -> String,
    rotate_move: impl Fn(&str) -> String,
) {
    let text = position.to_text();
    let rotated = VariantPosition::from_text(position.variant(), &rotate_position(&text))
        .unwrap_or_else(|e| panic!("rotation of {text}: {e}"));
    let mut mapped: Vec<String> = position
        .legal_move_texts()
        .iter()
        .map(|mv| rotate_move(mv))
        .collect();
    mapped.sort_unstable();
    assert_eq!(mapped, rotated.legal_move_texts(), "{text}");
    assert_eq!(position.perft(2), rotated.perft(2), "{text}");
    assert_eq!(position.in_check(), rotated.in_check(), "{text}");
}

/// Rotates every square name (letter + number) in `text` by 180 degrees on a board of
/// `files` by `ranks`.
pub fn rotate_squares(text: &str, files: u8, ranks: u8) -> String {
    let mut out = String::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let digits = bytes[i + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if c.is_ascii_lowercase() && c - b'a' < files && digits > 0 {
            let rank: u8 = text[i + 1..i + 1 + digits].parse().expect("digits");
            out.push(char::from(b'a' + files - 1 - (c - b'a')));
            out.push_str(&(ranks + 1 - rank).to_string());
            i += 1 + digits;
        } else {
            out.push(char::from(c));
            i += 1;
        }
    }
    out
}

/// Swaps the case of piece letters and the side to move of a position text whose board is
/// given as `rows` of single characters, top rank first, after rotating it by 180 degrees.
pub fn rotate_rows(rows: &[Vec<char>], side: &str) -> (Vec<Vec<char>>, &'static str) {
    let rotated = rows
        .iter()
        .rev()
        .map(|row| {
            row.iter()
                .rev()
                .map(|c| {
                    if c.is_ascii_uppercase() {
                        c.to_ascii_lowercase()
                    } else {
                        c.to_ascii_uppercase()
                    }
                })
                .collect()
        })
        .collect();
    (rotated, if side == "w" { "b" } else { "w" })
}

/// Reads each of `inputs` as a move of the start position and as a position; neither may panic.
pub fn read_arbitrary(variant: Variant, inputs: &[&str]) {
    let start = VariantPosition::start(variant);
    for input in inputs {
        let _ = start.parse_move(input);
        let _ = VariantPosition::from_text(variant, input);
    }
}
