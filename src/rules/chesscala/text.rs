//! The position text and the turn text of the reference vectors (§3.9, oracle README).

use std::fmt::Write as _;

use super::board::{self, FULL, Stack};
use super::movegen::{Mv, Turn, right_bit};
use super::{Chesscala, GameResult};
use crate::rules::{Color, PositionError};

/// The rights letters in output order: White b2 d2 f2, Black a7 c7 e7.
const RIGHT_LETTERS: [(char, Color, u8); 6] = [
    ('B', Color::White, 0),
    ('D', Color::White, 1),
    ('F', Color::White, 2),
    ('a', Color::Black, 0),
    ('c', Color::Black, 1),
    ('e', Color::Black, 2),
];

fn syntax(what: impl Into<String>) -> PositionError {
    PositionError::Syntax(what.into())
}

/// Reads a position text (fields 3-7 optional).
pub fn parse(text: &str) -> Result<Chesscala, PositionError> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    if fields.len() < 2 || fields.len() > 7 {
        return Err(syntax(
            "expected the board, the side to move and up to five state fields, e.g. \
             `k,-,k,-,-,-/…/-,-,-,K,-,K w - - 0,0 - *`",
        ));
    }
    let board = parse_board(fields[0])?;
    let side = Color::from_letter(fields[1])
        .ok_or_else(|| syntax("the side to move must be `w` or `b`"))?;
    let first = match fields.get(2).copied().unwrap_or("-") {
        "F" => true,
        "-" => false,
        other => {
            return Err(syntax(format!(
                "the first-turn field must be `F` or `-`, not `{other}`"
            )));
        }
    };
    let rights = match fields.get(3) {
        None => RIGHT_LETTERS.iter().fold(0, |acc, &(_, color, m)| {
            if board[usize::from(board::double_start(color, m))]
                .has(board::code(color, board::PAWN))
            {
                acc | right_bit(color, m)
            } else {
                acc
            }
        }),
        Some(&"-") => 0,
        Some(letters) => {
            let mut rights = 0;
            for c in letters.chars() {
                let &(_, color, m) =
                    RIGHT_LETTERS
                        .iter()
                        .find(|(l, ..)| *l == c)
                        .ok_or_else(|| {
                            syntax(format!(
                                "`{c}` is not a double-move right (use letters of BDFace)"
                            ))
                        })?;
                rights |= right_bit(color, m);
            }
            rights
        }
    };
    let losses = match fields.get(4) {
        None => [0, 0],
        Some(text) => {
            let parse = |s: &str| s.parse::<u8>().ok().filter(|&n| n <= 99);
            match text.split_once(',') {
                Some((w, b)) => [
                    parse(w).ok_or_else(|| syntax("losses must be two numbers, e.g. `3,0`"))?,
                    parse(b).ok_or_else(|| syntax("losses must be two numbers, e.g. `3,0`"))?,
                ],
                None => return Err(syntax("losses must be two numbers, e.g. `3,0`")),
            }
        }
    };
    let mover = side.other().letter();
    let (pending_mate, pending_attrition) = match fields.get(5).copied().unwrap_or("-") {
        "-" => (false, false),
        p if p == format!("M{mover}") => (true, false),
        p if p == format!("A{mover}") => (false, true),
        p if p == format!("M{mover}A{mover}") => (true, true),
        other => {
            return Err(syntax(format!(
                "the pending field must be `-`, `M{mover}`, `A{mover}` or `M{mover}A{mover}` here, not `{other}`"
            )));
        }
    };
    let result = match fields.get(6).copied().unwrap_or("*") {
        "*" => None,
        "1-0" => Some(GameResult::Win(Color::White)),
        "0-1" => Some(GameResult::Win(Color::Black)),
        "1/2-1/2" => Some(GameResult::Draw),
        other => {
            return Err(syntax(format!(
                "the result must be `*`, `1-0`, `0-1` or `1/2-1/2`, not `{other}`"
            )));
        }
    };
    if result.is_some() && (pending_mate || pending_attrition) {
        return Err(PositionError::Invalid(
            "a finished game has nothing pending".into(),
        ));
    }
    for (sq, stack) in board.iter().enumerate() {
        for color in Color::ALL {
            let sq = u8::try_from(sq).expect("48 squares fit a byte");
            if stack.has(board::code(color, board::KING)) && !board::fields(color).contains(&sq) {
                return Err(PositionError::Invalid(format!(
                    "a king stands only in its King's fields (White c1 d1 e1 f1, Black a8 b8 c8 d8), \
                     not on {}",
                    board::name(sq)
                )));
            }
        }
    }
    if first && side != Color::White {
        return Err(PositionError::Invalid("only White has a first turn".into()));
    }
    let mut pos = Chesscala {
        board,
        side,
        first,
        rights,
        losses,
        pending_mate,
        pending_attrition,
        result,
        no_draws: false,
        checks: [0; 2],
    };
    pos.count_checks();
    Ok(pos)
}

fn parse_board(text: &str) -> Result<[Stack; board::SQUARES], PositionError> {
    let rows: Vec<&str> = text.split('/').collect();
    if rows.len() != usize::from(board::RANKS) {
        return Err(syntax(
            "the board needs 8 rows separated by `/`, rank 8 first",
        ));
    }
    let mut squares = [Stack::default(); board::SQUARES];
    for (i, row) in rows.iter().enumerate() {
        let rank = board::RANKS - 1 - i as u8;
        let cells: Vec<&str> = row.split(',').collect();
        if cells.len() != usize::from(board::FILES) {
            return Err(syntax(format!(
                "rank {} needs 6 cells separated by `,`",
                rank + 1
            )));
        }
        for (file, cell) in cells.iter().enumerate() {
            if *cell == "-" {
                continue;
            }
            if cell.is_empty() || cell.chars().count() > FULL {
                return Err(syntax(format!(
                    "a cell is `-` or 1 to 4 piece letters, not `{cell}` (rank {})",
                    rank + 1
                )));
            }
            let stack = &mut squares[usize::from(rank * board::FILES) + file];
            for c in cell.chars() {
                stack.push(
                    board::from_letter(c).ok_or_else(|| {
                        syntax(format!("`{c}` is not a piece letter (KHOQRBNMP)"))
                    })?,
                );
            }
        }
    }
    Ok(squares)
}

/// Writes the position text with all seven fields.
pub fn write(pos: &Chesscala) -> String {
    let mut out = String::with_capacity(120);
    for rank in (0..board::RANKS).rev() {
        for file in 0..board::FILES {
            let stack = &pos.board[usize::from(rank * board::FILES + file)];
            if stack.is_empty() {
                out.push('-');
            }
            stack
                .pieces()
                .iter()
                .for_each(|&p| out.push(board::letter(p)));
            out.push(if file + 1 < board::FILES { ',' } else { '/' });
        }
    }
    out.pop();
    let _ = write!(
        out,
        " {} {} ",
        pos.side.letter(),
        if pos.first { 'F' } else { '-' }
    );
    let rights: String = RIGHT_LETTERS
        .iter()
        .filter(|&&(_, color, m)| pos.rights & right_bit(color, m) != 0)
        .map(|&(l, ..)| l)
        .collect();
    out.push_str(if rights.is_empty() { "-" } else { &rights });
    let _ = write!(out, " {},{} ", pos.losses[0], pos.losses[1]);
    let mover = pos.side.other().letter();
    if pos.pending_mate {
        let _ = write!(out, "M{mover}");
    }
    if pos.pending_attrition {
        let _ = write!(out, "A{mover}");
    }
    if !pos.pending_mate && !pos.pending_attrition {
        out.push('-');
    }
    out.push_str(match pos.result {
        None => " *",
        Some(GameResult::Win(Color::White)) => " 1-0",
        Some(GameResult::Win(Color::Black)) => " 0-1",
        Some(GameResult::Draw) => " 1/2-1/2",
    });
    out
}

/// Writes one move of `side` in the interchange notation.
pub fn write_move(out: &mut String, side: Color, mv: Mv) {
    let sq = board::name;
    let piece = |kind| board::letter(board::code(side, kind));
    match mv {
        Mv::None => {}
        Mv::Pass => out.push_str("pass"),
        Mv::Sow { from, order, n } => {
            let _ = write!(out, "{}>", sq(from));
            order[..usize::from(n)]
                .iter()
                .for_each(|&p| out.push(board::letter(p)));
        }
        Mv::Step { from, to } => {
            let _ = write!(out, "{}{}-{}", piece(board::KING), sq(from), sq(to));
        }
        Mv::Double { from, to } => {
            let _ = write!(out, "{}{}-{}", piece(board::PAWN), sq(from), sq(to));
        }
        Mv::Capture {
            piece,
            from,
            target,
            captured,
            landing,
        } => {
            let _ = write!(
                out,
                "{}{}x{}={}",
                board::letter(piece),
                sq(from),
                sq(target),
                board::letter(captured)
            );
            if board::kind_of(piece) == board::HAMMER {
                let _ = write!(out, "@{}", sq(landing));
            }
        }
    }
}

/// Writes a whole turn: its moves joined by one space.
pub fn write_turn(side: Color, turn: &Turn) -> String {
    let mut out = String::new();
    for (i, mv) in turn.moves().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        write_move(&mut out, side, mv);
    }
    out
}
