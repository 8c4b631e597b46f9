//! Text shared by the games whose moves go from one square to another (Shakti, Chad).
//!
//! Position texts: ranks from the top separated by `/`, a space and the side to move
//! ([`PositionFrame`]).
//!
//! Forgiving chat notation: `b2-b4`, `b2b4`, `Wb4`, `Rgh9`, `R9h9`, `g9xh9=Q`,
//! `Wb2-b4 (rm b3)`. A text is read into every [`Query`] it could mean, the queries are matched
//! against the legal moves, and the result is one move, or an illegal or ambiguous move error
//! with a helpful hint.

use super::{Cell, Color, MoveError, PieceView, PositionError, list_or, square};

/// The frame of a position text: `<rank>/<rank>/... <side>`, top rank first.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PositionFrame {
    /// The game's name, for messages.
    pub game: &'static str,
    pub ranks: usize,
    /// A valid position text, shown in syntax errors.
    pub example: &'static str,
}

impl PositionFrame {
    /// A syntax error that shows what a position looks like.
    pub(crate) fn syntax(&self, why: &str) -> PositionError {
        PositionError::Syntax(format!(
            "{why}; a {} position looks like {}",
            self.game, self.example
        ))
    }

    /// Splits `text` into its ranks, top first, and the side to move.
    pub(crate) fn split<'a>(&self, text: &'a str) -> Result<(Vec<&'a str>, Color), PositionError> {
        let mut fields = text.split_whitespace();
        let (Some(board), Some(side), None) = (fields.next(), fields.next(), fields.next()) else {
            return Err(self.syntax("expected the board and the side to move"));
        };
        let turn = Color::from_letter(side)
            .ok_or_else(|| self.syntax(&format!("the side to move is w or b, not {side}")))?;
        let rows: Vec<&str> = board.split('/').collect();
        if rows.len() != self.ranks {
            return Err(self.syntax(&format!(
                "expected {} ranks, found {}",
                self.ranks,
                rows.len()
            )));
        }
        Ok((rows, turn))
    }
}

/// The two kings' squares, White's first, when each side has exactly one.
pub(crate) fn one_king_each(kings: &[Vec<u8>; 2]) -> Result<[u8; 2], PositionError> {
    match kings {
        [white, black] if white.len() == 1 && black.len() == 1 => Ok([white[0], black[0]]),
        _ => Err(PositionError::Invalid(String::from(
            "each side needs exactly one king",
        ))),
    }
}

/// The side a piece letter of a position text belongs to: upper case is White.
pub(crate) fn letter_color(letter: char) -> Color {
    if letter.is_ascii_uppercase() {
        Color::White
    } else {
        Color::Black
    }
}

/// The board-view cell of one piece given by its position-text letter.
pub(crate) fn piece_cell(letter: char) -> Cell {
    Cell::Pieces(vec![PieceView {
        color: letter_color(letter),
        letter: letter.to_ascii_uppercase(),
    }])
}

/// A square as zero-based (file, rank).
pub(crate) type Sq = (u8, u8);

/// What a legal move looks like to the matcher.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shape {
    /// The moving piece's upper-case letter.
    pub piece: char,
    pub from: Sq,
    pub to: Sq,
    /// A Shakti tile removed by the move.
    pub removed: Option<Sq>,
}

/// One reading of a move text: the parts the player gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Query {
    piece: Option<char>,
    from_file: Option<u8>,
    from_rank: Option<u8>,
    to: Sq,
    removed: Option<Sq>,
}

impl Query {
    fn matches(&self, shape: &Shape) -> bool {
        self.piece.is_none_or(|p| p == shape.piece)
            && self.from_file.is_none_or(|f| f == shape.from.0)
            && self.from_rank.is_none_or(|r| r == shape.from.1)
            && self.to == shape.to
            && self.removed.is_none_or(|r| Some(r) == shape.removed)
    }

    /// The origin square, when the text named it completely.
    fn from(&self) -> Option<Sq> {
        self.from_file.zip(self.from_rank)
    }
}

/// A board size and the piece letters of a game.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Board {
    pub files: u8,
    pub ranks: u8,
    /// Upper-case piece letters.
    pub pieces: &'static str,
}

impl Board {
    fn square(&self, text: &str) -> Option<Sq> {
        square::parse(text, self.files, self.ranks)
    }

    /// Every reading of `text`; empty when it is not a move text at all.
    pub(crate) fn queries(&self, text: &str) -> Vec<Query> {
        let mut body: String = super::without_marks(text)
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_ascii_lowercase();
        if !body.is_ascii() {
            return Vec::new();
        }
        let mut removed = None;
        if let Some(at) = body.find("(rm") {
            let Some(sq) = body[at + 3..]
                .strip_suffix(')')
                .and_then(|s| self.square(s))
            else {
                return Vec::new();
            };
            removed = Some(sq);
            body.truncate(at);
        }
        let body = body.strip_suffix("=q").unwrap_or(&body);
        let mut out = Vec::new();
        if let Some(first) = body.chars().next()
            && self.pieces.contains(first.to_ascii_uppercase())
        {
            self.read_squares(
                &body[1..],
                Some(first.to_ascii_uppercase()),
                removed,
                &mut out,
            );
        }
        // A lower-case letter may be both a piece and a file (Chad's `k`): try both readings.
        self.read_squares(body, None, removed, &mut out);
        out
    }

    /// Reads `[from] [-x:] to`, where `from` is a square, a file, a rank or nothing.
    fn read_squares(
        &self,
        text: &str,
        piece: Option<char>,
        removed: Option<Sq>,
        out: &mut Vec<Query>,
    ) {
        let query = |from_file, from_rank, to| Query {
            piece,
            from_file,
            from_rank,
            to,
            removed,
        };
        let after_separator = |rest: &str| {
            let rest = rest.strip_prefix(['-', 'x', ':']).unwrap_or(rest);
            self.square(rest)
        };
        if let Some(to) = self.square(text) {
            out.push(query(None, None, to));
        }
        // A capture mark with nothing before it: `Rxh7`.
        if let Some(to) = text
            .strip_prefix(['x', ':'])
            .and_then(|rest| self.square(rest))
        {
            out.push(query(None, None, to));
        }
        if let Some((file, rank, len)) = square::parse_prefix(text, self.files, self.ranks)
            && let Some(to) = after_separator(&text[len..])
        {
            out.push(query(Some(file), Some(rank), to));
        }
        let bytes = text.as_bytes();
        if let Some(&first) = bytes.first() {
            if first.is_ascii_lowercase()
                && first - b'a' < self.files
                && let Some(to) = after_separator(&text[1..])
            {
                out.push(query(Some(first - b'a'), None, to));
            }
            let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
            if (1..=2).contains(&digits)
                && let Ok(rank) = text[..digits].parse::<u8>()
                && (1..=self.ranks).contains(&rank)
                && let Some(to) = after_separator(&text[digits..])
            {
                out.push(query(None, Some(rank - 1), to));
            }
        }
    }
}

/// How a game describes its moves for the matcher and its error messages.
pub(crate) trait Describe<M> {
    /// The move's shape, or `None` for a move without squares (a pass).
    fn shape(&self, mv: &M) -> Option<Shape>;
    /// The move in display notation.
    fn display(&self, mv: &M) -> String;
    /// The name of the mover's piece on `sq` ("warrior"), if there is one.
    fn own_piece(&self, sq: Sq) -> Option<&'static str>;
    /// The side to move, for messages ("White").
    fn side(&self) -> &'static str;
    /// How moves are written in this game, with an example.
    fn syntax_hint(&self) -> &'static str;
}

/// Finds the one legal move that `input` means.
pub(crate) fn resolve<M: Clone, D: Describe<M>>(
    board: &Board,
    game: &D,
    legal: &[M],
    input: &str,
) -> Result<M, MoveError> {
    let queries = board.queries(input);
    if queries.is_empty() {
        return Err(MoveError::Syntax {
            input: input.to_owned(),
            hint: game.syntax_hint().to_owned(),
        });
    }
    let matching: Vec<&M> = legal
        .iter()
        .filter(|mv| {
            game.shape(mv)
                .is_some_and(|shape| queries.iter().any(|q| q.matches(&shape)))
        })
        .collect();
    match matching.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(MoveError::Illegal {
            input: input.to_owned(),
            hint: illegal_hint(game, legal, &queries),
        }),
        many => Err(MoveError::Ambiguous {
            input: input.to_owned(),
            candidates: many.iter().map(|mv| game.display(mv)).collect(),
        }),
    }
}

/// How many moves an error message lists before it says "and N more", to keep chat short.
const MAX_LISTED: usize = 12;

/// What to say about a move text that names no legal move.
fn illegal_hint<M, D: Describe<M>>(game: &D, legal: &[M], queries: &[Query]) -> String {
    let all: Vec<String> = legal.iter().map(|mv| game.display(mv)).collect();
    let from = queries.iter().find_map(Query::from);
    if let Some(from) = from {
        let name = square::name(from.0, from.1);
        let Some(piece) = game.own_piece(from) else {
            return format!("There is no {} piece on {name}.", game.side());
        };
        let targets: Vec<String> = legal
            .iter()
            .filter(|mv| game.shape(mv).is_some_and(|s| s.from == from))
            .map(|mv| game.display(mv))
            .collect();
        if targets.is_empty() {
            return format!("The {piece} on {name} has no legal move.");
        }
        return format!(
            "Legal moves of the {piece} on {name}: {}.",
            targets.join(", ")
        );
    }
    let to = queries[0].to;
    if all.is_empty() {
        return String::from("There is no legal move.");
    }
    let shown = if all.len() > MAX_LISTED {
        let mut shown = all[..MAX_LISTED].to_vec();
        shown.push(format!("{} more", all.len() - MAX_LISTED));
        shown
    } else {
        all
    };
    format!(
        "Nothing of yours can go to {}. Legal moves: {}.",
        square::name(to.0, to.1),
        list_or(&shown)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHAD: Board = Board {
        files: 12,
        ranks: 12,
        pieces: "KRQ",
    };

    fn reads(text: &str) -> Vec<Query> {
        CHAD.queries(text)
    }

    #[test]
    fn readings_of_chat_texts() {
        assert!(
            !reads("Rxh7").is_empty(),
            "a capture with only the piece letter reads"
        );
        let shape = Shape {
            piece: 'R',
            from: (6, 8),
            to: (7, 8),
            removed: None,
        };
        for text in [
            "Rg9xh9=Q", "g9h9", "Rgh9", "R9h9", "rh9", "h9", "G9-H9", "Rg9 h9",
        ] {
            assert!(reads(text).iter().any(|q| q.matches(&shape)), "{text}");
        }
        for text in ["", "R", "xx", "g9h", "z9h9", "Rg9h13", "é4"] {
            assert!(reads(text).is_empty(), "{text}");
        }
        // `k` is a piece and a file.
        assert_eq!(reads("kj10").len(), 2);
    }
}
