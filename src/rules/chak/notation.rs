//! Chak text: FEN in and out, the interchange move notation (`e3e4`, `e4e5+`), and the chat
//! notation (SAN-like with Chak's piece letters, or coordinates), with friendly errors.

use super::Chak;
use super::board::{
    Board, Kind, RawMove, SIZE, SQUARES, attacked, code, color_of, file_of, rank_of, river_allows,
    zobrist,
};
use crate::rules::square;
use crate::rules::{Color, MoveError, Position, PositionError};

/// Longer texts are refused before any work is done.
const MAX_TEXT: usize = 200;
/// The most moves an error message lists before saying how many more there are.
const MAX_LISTED: usize = 16;

fn syntax(reason: impl Into<String>) -> PositionError {
    PositionError::Syntax(reason.into())
}

fn invalid(reason: impl Into<String>) -> PositionError {
    PositionError::Invalid(reason.into())
}

/// Reads a FEN. The castling and en-passant fields are always `-` in Chak; the move counters
/// may be left out (they default to `0 1`). Promoted pieces may be written `+P`/`+K` or `W`/`D`.
pub fn parse_fen(text: &str) -> Result<Chak, PositionError> {
    if text.len() > MAX_TEXT {
        return Err(syntax("the FEN is too long"));
    }
    let fields: Vec<&str> = text.split_whitespace().collect();
    let [placement, side, rest @ ..] = fields.as_slice() else {
        return Err(syntax(
            "a Chak FEN needs at least the board and the side to move",
        ));
    };
    if rest.len() > 4 {
        return Err(syntax("a Chak FEN has six fields"));
    }
    let board = parse_placement(placement)?;
    let turn = Color::from_letter(side)
        .ok_or_else(|| syntax(format!("the side to move must be w or b, not {side:?}")))?;
    for (index, field) in rest.iter().take(2).enumerate() {
        if *field != "-" {
            let name = if index == 0 { "castling" } else { "en passant" };
            return Err(syntax(format!("the {name} field must be -, Chak has none")));
        }
    }
    let number = |index: usize, default: u32| -> Result<u32, PositionError> {
        rest.get(index).map_or(Ok(default), |field| {
            field
                .parse()
                .map_err(|_| syntax(format!("{field:?} is not a move counter")))
        })
    };
    let halfmove = number(2, 0)?;
    let fullmove = number(3, 1)?;
    if fullmove == 0 {
        return Err(syntax("the fullmove number starts at 1"));
    }
    let royal = royal_squares(&board)?;
    let position = Chak {
        board,
        turn,
        royal,
        halfmove,
        fullmove,
        hash: zobrist(&board, turn),
    };
    let waiting = turn.other();
    if attacked(&board, usize::from(royal[waiting.index()]), turn) {
        return Err(invalid("the side that just moved is in check"));
    }
    Ok(position)
}

fn parse_placement(placement: &str) -> Result<Board, PositionError> {
    let ranks: Vec<&str> = placement.split('/').collect();
    if ranks.len() != SIZE {
        return Err(syntax(format!(
            "the board needs 9 ranks, found {}",
            ranks.len()
        )));
    }
    let mut board = [0u8; SQUARES];
    for (row, text) in ranks.iter().enumerate() {
        let rank = SIZE - 1 - row;
        let mut file = 0;
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            if let Some(run) = c.to_digit(10) {
                if run == 0 {
                    return Err(syntax("an empty run cannot be 0"));
                }
                file += run as usize;
                continue;
            }
            let (letter, promoted) = if c == '+' {
                (
                    chars
                        .next()
                        .ok_or_else(|| syntax("a + must be followed by K or P"))?,
                    true,
                )
            } else {
                (c, false)
            };
            let kind = Kind::from_letter(letter)
                .ok_or_else(|| syntax(format!("{letter:?} is not a Chak piece")))?;
            let kind = if promoted {
                kind.promoted()
                    .ok_or_else(|| syntax("only K and P can be promoted (+K, +P)"))?
            } else {
                kind
            };
            if file >= SIZE {
                return Err(syntax(format!("rank {} has more than 9 squares", rank + 1)));
            }
            let color = if letter.is_ascii_uppercase() {
                Color::White
            } else {
                Color::Black
            };
            let sq = rank * SIZE + file;
            if kind.river_bound() && !river_allows(sq, color) {
                return Err(invalid(format!(
                    "a {} can never stand behind its river, as on {}",
                    kind.name(),
                    square::name(file as u8, rank as u8)
                )));
            }
            board[sq] = code(kind, color);
            file += 1;
        }
        if file != SIZE {
            return Err(syntax(format!("rank {} does not have 9 squares", rank + 1)));
        }
    }
    Ok(board)
}

fn royal_squares(board: &Board) -> Result<[u8; 2], PositionError> {
    let mut royal = [None, None];
    for (sq, &p) in board.iter().enumerate() {
        if p != 0 && Kind::of(p).royal() {
            let slot = &mut royal[color_of(p).index()];
            if slot.is_some() {
                return Err(invalid("each side has exactly one king"));
            }
            *slot = Some(sq as u8);
        }
    }
    match royal {
        [Some(white), Some(black)] => Ok([white, black]),
        _ => Err(invalid("each side needs a king")),
    }
}

/// Writes the FEN, promoted pieces as `+P`/`+K` as Fairy-Stockfish does after a promotion.
pub fn write_fen(position: &Chak) -> String {
    let mut out = String::with_capacity(90);
    for rank in (0..SIZE).rev() {
        let mut empty = 0;
        for file in 0..SIZE {
            let p = position.board[rank * SIZE + file];
            if p == 0 {
                empty += 1;
                continue;
            }
            if empty > 0 {
                out.push(char::from(b'0' + empty));
                empty = 0;
            }
            let kind = Kind::of(p);
            let base = match kind {
                Kind::Divine => {
                    out.push('+');
                    Kind::King
                }
                Kind::Warrior => {
                    out.push('+');
                    Kind::Pawn
                }
                _ => kind,
            };
            let letter = base.letter();
            out.push(if color_of(p) == Color::White {
                letter
            } else {
                letter.to_ascii_lowercase()
            });
        }
        if empty > 0 {
            out.push(char::from(b'0' + empty));
        }
        if rank > 0 {
            out.push('/');
        }
    }
    format!(
        "{out} {} - - {} {}",
        position.turn.letter(),
        position.halfmove,
        position.fullmove
    )
}

fn name(sq: u8) -> String {
    let sq = usize::from(sq);
    square::name(file_of(sq) as u8, rank_of(sq) as u8)
}

/// The interchange notation: `<from><to>`, with `+` when the move promotes.
pub fn interchange(mv: RawMove) -> String {
    let mut text = name(mv.from);
    text.push_str(&name(mv.to));
    if mv.promote {
        text.push('+');
    }
    text
}

/// What a SAN-like text says about a move besides its target: the moving kind, whether it
/// captures, and as much of its origin as tells it from the moves of other pieces of its kind
/// to the same square (the file, else the rank, else both).
fn san_parts(position: &Chak, mv: RawMove) -> (Kind, bool, String) {
    let from = usize::from(mv.from);
    let kind = Kind::of(position.board[from]);
    let capture = position.board[usize::from(mv.to)] != 0;
    let rivals: Vec<usize> = position
        .legal_raw()
        .into_iter()
        .filter(|other| {
            other.to == mv.to
                && other.from != mv.from
                && Kind::of(position.board[usize::from(other.from)]) == kind
        })
        .map(|other| usize::from(other.from))
        .collect();
    let (file, rank) = (file_of(from), rank_of(from));
    let file_text = char::from(b'a' + file as u8).to_string();
    let origin = if rivals.is_empty() {
        String::new()
    } else if rivals.iter().all(|&o| file_of(o) != file) {
        file_text
    } else if rivals.iter().all(|&o| rank_of(o) != rank) {
        (rank + 1).to_string()
    } else {
        name(mv.from)
    };
    (kind, capture, origin)
}

/// The target square and the promotion (`=W`, `=D`), the same in both SAN-like notations.
fn san_tail(text: &mut String, kind: Kind, capture: bool, mv: RawMove) {
    if capture {
        text.push('x');
    }
    text.push_str(&name(mv.to));
    if mv.promote {
        text.push('=');
        text.push(kind.promoted().unwrap_or(kind).letter());
    }
}

/// The display notation: SAN-like with Chak's letters (`Je4`, `Rxe5`, `Vbd2`, `e4`, `dxe4`),
/// `=W`/`=D` for promotions. The check or mate mark comes from the position after the move
/// ([`crate::rules::Position::mark`]).
pub fn display(position: &Chak, mv: RawMove) -> String {
    let (kind, capture, origin) = san_parts(position, mv);
    let mut text = String::new();
    if kind != Kind::Pawn {
        text.push(kind.letter());
        text.push_str(&origin);
    } else if !capture && !origin.is_empty() {
        // `ed3` would read as a capture: a sideways pawn step that needs telling apart is
        // written with both squares.
        text.push_str(&name(mv.from));
        text.push('-');
    } else if capture {
        // A pawn capture names its file, as in chess.
        let file = char::from(b'a' + file_of(usize::from(mv.from)) as u8).to_string();
        text.push_str(if origin.is_empty() { &file } else { &origin });
    }
    san_tail(&mut text, kind, capture, mv);
    text
}

/// Fairy-Stockfish's SAN for Chak, the notation pychess.org reads in an imported game: every
/// piece has its letter (the pawn too: `Pe4`, `Pxd5`), the origin only where another piece of
/// the kind could go to the same square, `=W`/`=D` for promotions, and no check marks
/// (Fairy-Stockfish gives none in Chak, whose royal piece is not a chess king).
pub fn fairy_san(position: &Chak, mv: RawMove) -> String {
    let (kind, capture, origin) = san_parts(position, mv);
    let mut text = String::from(kind.letter());
    text.push_str(&origin);
    san_tail(&mut text, kind, capture, mv);
    text
}

/// What a player may have meant by a piece letter in the chat notation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PieceHint {
    /// No letter: a pawn.
    Pawn,
    /// A letter naming this kind.
    Kind(Kind),
}

/// One way of reading a SAN-like text.
#[derive(Debug, Clone, Copy)]
struct SanReading {
    piece: PieceHint,
    file: Option<usize>,
    rank: Option<usize>,
    to: usize,
}

fn syntax_error(input: &str) -> MoveError {
    MoveError::Syntax {
        input: input.to_owned(),
        hint: String::from(
            "Write a Chak move with its squares (e3e4, e3-e4) or like chess with the piece \
             letter (Je4, Rxe5, Vbd2; e4 for a pawn). Letters: K king, D divine king, J jaguar, \
             Q quetzal, S shaman, V vulture, R serpent, W warrior, P pawn.",
        ),
    }
}

/// Strips decorations a player may add that the move does not need: check and annotation
/// marks, and an explicit promotion (promotion is compulsory, so it is implied).
fn strip_decorations(text: &str) -> &str {
    let mut text = crate::rules::without_marks(text);
    for suffix in [
        "=+P", "=+K", "=W", "=D", "(W)", "(D)", "=w", "=d", "(w)", "(d)",
    ] {
        if let Some(stripped) = text.strip_suffix(suffix) {
            text = crate::rules::without_marks(stripped);
            break;
        }
    }
    text
}

/// Reads a move in the interchange or chat notation and checks it against the legal moves.
pub fn parse_move(position: &Chak, input: &str) -> Result<RawMove, MoveError> {
    let trimmed = input.trim();
    if trimmed.is_empty() || trimmed.len() > 24 || !trimmed.is_ascii() {
        return Err(syntax_error(trimmed));
    }
    let text: String = strip_decorations(trimmed)
        .chars()
        .filter(|c| *c != ' ')
        .collect();
    let legal = position.legal_raw();
    if let Some((from, to)) = coordinates(&text) {
        return match legal
            .iter()
            .find(|mv| usize::from(mv.from) == from && usize::from(mv.to) == to)
        {
            Some(&mv) => Ok(mv),
            None => Err(illegal_from(position, &legal, trimmed, from)),
        };
    }
    let readings = san_readings(&text);
    if readings.is_empty() {
        return Err(syntax_error(trimmed));
    }
    let mut matches: Vec<RawMove> = Vec::new();
    for reading in &readings {
        for &mv in &legal {
            if san_matches(position, reading, mv) && !matches.contains(&mv) {
                matches.push(mv);
            }
        }
    }
    match matches.as_slice() {
        [mv] => Ok(*mv),
        [] => Err(illegal_san(position, &legal, trimmed, &readings)),
        many => {
            let mut candidates: Vec<String> =
                many.iter().map(|&mv| display(position, mv)).collect();
            candidates.sort();
            Err(MoveError::Ambiguous {
                input: trimmed.to_owned(),
                candidates,
            })
        }
    }
}

/// Reads `e3e4`, `e3-e4`, `e3xe4`, `E3:E4` as a pair of squares.
fn coordinates(text: &str) -> Option<(usize, usize)> {
    let (from_file, from_rank, len) = square::parse_prefix(text, 9, 9)?;
    let rest = text[len..].trim_start_matches(['-', 'x', 'X', ':']);
    let (to_file, to_rank) = square::parse(rest, 9, 9)?;
    let index = |file: u8, rank: u8| usize::from(rank) * SIZE + usize::from(file);
    Some((index(from_file, from_rank), index(to_file, to_rank)))
}

/// Every way of reading a SAN-like text: `[piece][file][rank][x]square`. A lower-case `d` is
/// both the divine king and the d-file, so it gives two readings.
fn san_readings(text: &str) -> Vec<SanReading> {
    let mut heads: Vec<(PieceHint, &str)> = Vec::new();
    let upper = |prefix: &str| {
        text.get(..prefix.len())
            .is_some_and(|t| t.eq_ignore_ascii_case(prefix))
    };
    if upper("+P") {
        heads.push((PieceHint::Kind(Kind::Warrior), &text[2..]));
    } else if upper("+K") {
        heads.push((PieceHint::Kind(Kind::Divine), &text[2..]));
    } else if let Some(first) = text.chars().next() {
        if let Some(kind) = Kind::from_letter(first) {
            let is_file = ('a'..='i').contains(&first);
            if first.is_ascii_uppercase() || !is_file {
                let hint = if kind == Kind::Pawn {
                    PieceHint::Pawn
                } else {
                    PieceHint::Kind(kind)
                };
                heads.push((hint, &text[1..]));
            }
        }
        // An upper-case piece letter names a piece, never a file: `Dd5` is the divine king.
        let piece_letter = first.is_ascii_uppercase() && Kind::from_letter(first).is_some();
        if !piece_letter {
            heads.push((PieceHint::Pawn, text));
        }
    }
    let mut readings = Vec::new();
    for (piece, rest) in heads {
        if let Some(reading) = san_body(piece, rest) {
            readings.push(reading);
        }
    }
    readings
}

fn san_body(piece: PieceHint, rest: &str) -> Option<SanReading> {
    let bytes = rest.as_bytes();
    let len = bytes.len();
    if len < 2 {
        return None;
    }
    let (to_file, to_rank) = square::parse(&rest[len - 2..], 9, 9)?;
    let mut head = &rest[..len - 2];
    head = head.strip_suffix(['x', 'X', ':', '-']).unwrap_or(head);
    let mut file = None;
    let mut rank = None;
    let mut chars = head.chars();
    if let Some(c) = chars.clone().next()
        && ('a'..='i').contains(&c.to_ascii_lowercase())
    {
        file = Some(usize::from(c.to_ascii_lowercase() as u8 - b'a'));
        chars.next();
    }
    if let Some(c) = chars.next() {
        rank = Some(c.to_digit(10).filter(|d| (1..=9).contains(d))? as usize - 1);
    }
    if chars.next().is_some() {
        return None;
    }
    Some(SanReading {
        piece,
        file,
        rank,
        to: usize::from(to_rank) * SIZE + usize::from(to_file),
    })
}

fn san_matches(position: &Chak, reading: &SanReading, mv: RawMove) -> bool {
    let from = usize::from(mv.from);
    let kind = Kind::of(position.board[from]);
    let kind_ok = match reading.piece {
        PieceHint::Pawn => kind == Kind::Pawn,
        PieceHint::Kind(wanted) => kind == wanted,
    };
    kind_ok
        && usize::from(mv.to) == reading.to
        && reading.file.is_none_or(|f| f == file_of(from))
        && reading.rank.is_none_or(|r| r == rank_of(from))
}

fn listed(position: &Chak, moves: &[RawMove]) -> String {
    let mut texts: Vec<String> = moves.iter().map(|&mv| display(position, mv)).collect();
    texts.sort();
    if texts.len() > MAX_LISTED {
        let more = texts.len() - MAX_LISTED;
        texts.truncate(MAX_LISTED);
        format!("{} and {more} more", texts.join(", "))
    } else {
        texts.join(", ")
    }
}

fn check_note(position: &Chak) -> &'static str {
    if position.in_check() {
        " You are in check."
    } else {
        ""
    }
}

fn illegal_from(position: &Chak, legal: &[RawMove], input: &str, from: usize) -> MoveError {
    let us = position.turn;
    let square_name = name(from as u8);
    let hint = match position.piece_at(from) {
        None => format!("There is no piece on {square_name}."),
        Some((_, color)) if color != us => format!(
            "The piece on {square_name} belongs to {}.",
            Chak::VARIANT.side_name(color)
        ),
        Some((kind, _)) => {
            let own: Vec<RawMove> = legal
                .iter()
                .copied()
                .filter(|mv| usize::from(mv.from) == from)
                .collect();
            if own.is_empty() {
                format!("The {} on {square_name} has no legal move.", kind.name())
            } else {
                format!(
                    "Legal moves of the {} on {square_name}: {}.",
                    kind.name(),
                    listed(position, &own)
                )
            }
        }
    };
    MoveError::Illegal {
        input: input.to_owned(),
        hint: format!("{hint}{}", check_note(position)),
    }
}

fn illegal_san(
    position: &Chak,
    legal: &[RawMove],
    input: &str,
    readings: &[SanReading],
) -> MoveError {
    let reading = readings[0];
    let target = name(reading.to as u8);
    let hint = match reading.piece {
        PieceHint::Kind(Kind::Offering) => String::from("The offering never moves."),
        piece => {
            let (kind, plural) = match piece {
                PieceHint::Pawn => (Kind::Pawn, "pawn"),
                PieceHint::Kind(kind) => (kind, kind.name()),
            };
            let to_target: Vec<RawMove> = legal
                .iter()
                .copied()
                .filter(|mv| usize::from(mv.to) == reading.to)
                .collect();
            let of_kind: Vec<RawMove> = legal
                .iter()
                .copied()
                .filter(|mv| Kind::of(position.board[usize::from(mv.from)]) == kind)
                .collect();
            if !to_target.is_empty() {
                format!(
                    "No {plural} of yours can move to {target}; moves to {target}: {}.",
                    listed(position, &to_target)
                )
            } else if !of_kind.is_empty() {
                format!(
                    "No {plural} of yours can move to {target}. Your {plural} moves: {}.",
                    listed(position, &of_kind)
                )
            } else {
                format!("Nothing of yours can move to {target}.")
            }
        }
    };
    MoveError::Illegal {
        input: input.to_owned(),
        hint: format!("{hint}{}", check_note(position)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Position;

    fn start() -> Chak {
        Chak::start()
    }

    fn parsed(position: &Chak, text: &str) -> Result<String, MoveError> {
        parse_move(position, text).map(interchange)
    }

    #[test]
    fn start_fen_round_trips() {
        assert_eq!(write_fen(&start()), super::super::START_FEN);
    }

    #[test]
    fn promoted_letters_read_both_ways() {
        let a = parse_fen("4k4/9/9/4+P4/9/9/9/9/4K4 w - - 0 1").unwrap();
        let b = parse_fen("4k4/9/9/4W4/9/9/9/9/4K4 w - - 0 1").unwrap();
        assert_eq!(a, b);
        assert_eq!(write_fen(&b), "4k4/9/9/4+P4/9/9/9/9/4K4 w - - 0 1");
    }

    #[test]
    fn bad_fens_are_refused_with_reasons() {
        for bad in [
            "",
            "9/9/9 w",
            "4k4/9/9/9/9/9/9/9/4K4 x - - 0 1",
            "4k4/9/9/9/9/9/9/9/4K5 w - - 0 1",
            "9/9/9/9/9/9/9/9/4K4 w - - 0 1",
            "4k4/9/9/9/9/9/9/4W4/4K4 w - - 0 1",
            "4k4/9/9/9/9/9/9/9/4K4 w - - x 1",
            "4k4/9/9/9/9/9/9/9/4Z4 w - - 0 1",
            "4k4/9/9/9/9/9/9/9/4K4 w - - 0 0",
        ] {
            assert!(parse_fen(bad).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn chat_notations_find_the_move() {
        let p = start();
        assert_eq!(parsed(&p, "e3e4").unwrap(), "e3e4");
        assert_eq!(parsed(&p, "E3-E4").unwrap(), "e3e4");
        assert_eq!(parsed(&p, "e4").unwrap(), "e3e4");
        assert_eq!(parsed(&p, "Vd2").unwrap(), "b1d2");
        assert_eq!(parsed(&p, "vd2").unwrap(), "b1d2");
        assert_eq!(parsed(&p, "Qa6").unwrap(), "f1a6");
        assert_eq!(parsed(&p, "Jf2").unwrap(), "d1f2");
        assert_eq!(parsed(&p, "Kd2").unwrap(), "e1d2");
        assert_eq!(parsed(&p, "Sgh2").unwrap(), "g1h2");
    }

    #[test]
    fn ambiguous_chat_moves_list_candidates() {
        let err = parse_move(&start(), "d2").unwrap_err();
        assert!(matches!(err, MoveError::Illegal { .. }), "{err:?}");
        let p = parse_fen("4k4/9/9/9/9/9/R8/9/R3K4 w - - 0 1").unwrap();
        let err = parse_move(&p, "Ra2").unwrap_err();
        let MoveError::Ambiguous { candidates, .. } = err else {
            panic!("{err:?}")
        };
        assert_eq!(candidates, ["R1a2", "R3a2"]);
        assert_eq!(parsed(&p, "R1a2").unwrap(), "a1a2");
    }

    #[test]
    fn illegal_moves_explain_what_is_possible() {
        let err = parse_move(&start(), "e3e5").unwrap_err();
        let text = err.to_string();
        assert!(text.contains("e3e5 is not legal"), "{text}");
        assert!(text.contains("pawn on e3"), "{text}");
        assert!(text.contains("e4"), "{text}");
        let text = parse_move(&start(), "e5e4").unwrap_err().to_string();
        assert!(text.contains("no piece on e5"), "{text}");
        let text = parse_move(&start(), "e7e6").unwrap_err().to_string();
        assert!(text.contains("belongs to Green"), "{text}");
        assert!(matches!(
            parse_move(&start(), "hello"),
            Err(MoveError::Syntax { .. })
        ));
    }

    #[test]
    fn an_upper_case_piece_letter_is_never_a_file() {
        let p = parse_fen("rv4svr/1s2o4/1Vp3p1p/p2p4j/5+k3/5q3/P1P1PJ1PP/3QO4/R1SK2SVR b - - 1 18")
            .unwrap();
        assert_eq!(parsed(&p, "Dd5").unwrap(), "f5d5");
        assert_eq!(parsed(&p, "d5").unwrap(), "d6d5+");
    }

    #[test]
    fn display_uses_piece_letters_and_promotion_marks() {
        let p = parse_fen("4k4/9/9/9/4P4/9/9/9/4K4 w - - 0 1").unwrap();
        let mv = parse_move(&p, "e6").unwrap();
        assert!(mv.promote);
        assert_eq!(display(&p, mv), "e6=W");
        assert_eq!(interchange(mv), "e5e6+");
    }
}
