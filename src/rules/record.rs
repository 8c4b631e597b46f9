//! A game as its start position plus the moves played: the part of the rules that needs
//! history (threefold repetition) and the product's ends (resignation, agreement, timeout).

use std::collections::HashMap;

use super::{Color, EndReason, Mark, MoveError, Outcome, Variant, VariantMove, VariantPosition};

/// The widest line of a record's moves, as PGN export files keep them.
const RECORD_WIDTH: usize = 80;

/// One move as it was played.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Played {
    /// The move itself.
    pub mv: VariantMove,
    /// The move in the interchange notation, as stored.
    pub text: String,
    /// The move in the display notation with its check or mate mark, for move lists.
    pub display: String,
}

/// What an analysis adds to one move of a game record: a suffix after the move (`??`, `?`,
/// `?!`) and a comment after it (evaluations, the better move).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Annotation {
    /// Written right after the move, such as `??`.
    pub suffix: String,
    /// Written after the move in braces; it must not hold braces itself.
    pub comment: Option<String>,
}

/// A replayed game did not replay: the stored record is inconsistent.
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error)]
#[error("move {ply} ({text}) of the stored game does not replay: {error}")]
pub struct RecordError {
    /// The one-based ply of the move that failed.
    pub ply: usize,
    /// The stored move text.
    pub text: String,
    /// Why it failed.
    pub error: MoveError,
}

/// A game in progress or finished: start position, moves, current position, outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    start: VariantPosition,
    position: VariantPosition,
    moves: Vec<Played>,
    seen: HashMap<String, u32>,
    outcome: Option<Outcome>,
}

impl Record {
    /// A game starting from `start`.
    #[must_use]
    pub fn new(start: VariantPosition) -> Record {
        let mut record = Record {
            position: start.clone(),
            start,
            moves: Vec::new(),
            seen: HashMap::new(),
            outcome: None,
        };
        record.settle();
        record
    }

    /// Rebuilds a game from its start position and its moves in interchange notation.
    ///
    /// # Errors
    /// [`RecordError`] naming the first move that does not replay.
    pub fn replay<S: AsRef<str>>(
        start: VariantPosition,
        moves: &[S],
    ) -> Result<Record, RecordError> {
        let mut record = Record::new(start);
        for (index, text) in moves.iter().enumerate() {
            let text = text.as_ref();
            record.play(text).map_err(|error| RecordError {
                ply: index + 1,
                text: text.to_owned(),
                error,
            })?;
        }
        Ok(record)
    }

    /// The start position.
    #[must_use]
    pub fn start(&self) -> &VariantPosition {
        &self.start
    }

    /// The current position.
    #[must_use]
    pub fn position(&self) -> &VariantPosition {
        &self.position
    }

    /// The moves played so far.
    #[must_use]
    pub fn moves(&self) -> &[Played] {
        &self.moves
    }

    /// The moves as a game record writes them, one word each: Chak's in Fairy-Stockfish's SAN,
    /// which pychess.org imports (it has no check marks); the other games' in display notation
    /// with their marks, a Chesscala turn's two moves joined by a comma.
    #[must_use]
    pub fn record_moves(&self) -> Vec<String> {
        let mut position = self.start.clone();
        self.moves
            .iter()
            .map(|played| {
                let text = match (&position, &played.mv) {
                    (VariantPosition::Chak(p), VariantMove::Chak(m)) => p.fairy_san(m),
                    (_, VariantMove::Chesscala(_)) => played.display.replace(' ', ","),
                    _ => played.display.clone(),
                };
                position = position.play(&played.mv);
                text
            })
            .collect()
    }

    /// Whether the game starts from a position other than its standard start.
    #[must_use]
    pub fn setup(&self) -> bool {
        self.start != self.start.game_rules().start()
    }

    /// The tags that say what game a record is and where it starts: `Variant` (with its rule
    /// set, `chesscala-nodraws`), `SetUp` (when the start is not the standard one) and `FEN`.
    #[must_use]
    pub fn setup_tags(&self) -> Vec<(&'static str, String)> {
        let rules = self.start.game_rules();
        let mut tags = vec![("Variant", rules.to_string())];
        if self.setup() {
            tags.push(("SetUp", String::from("1")));
        }
        tags.push(("FEN", self.start.to_text()));
        tags
    }

    /// The game record, PGN-like: `tags` in order, then the moves with move numbers (see
    /// [`Record::record_moves`]), `comment` (the result in words) and `result`. A Chak record
    /// reads in pychess.org's import as it is.
    #[must_use]
    pub fn export(&self, tags: &[(&str, String)], comment: Option<&str>, result: &str) -> String {
        self.export_annotated(tags, comment, result, &[])
    }

    /// The game record as [`Record::export`] writes it, with `annotations` of the moves in
    /// order (a suffix and a comment each; moves past the list get none). A move of the
    /// second side right after a comment repeats its number (`12... Qxb7`), as PGN writers do.
    #[must_use]
    pub fn export_annotated(
        &self,
        tags: &[(&str, String)],
        comment: Option<&str>,
        result: &str,
        annotations: &[Annotation],
    ) -> String {
        let mut text = String::new();
        for (key, value) in tags {
            // PGN's escapes are not read by every importer: a quote becomes an apostrophe.
            let value = value.replace('"', "'").replace(['\\', '\n', '\r'], " ");
            text.push_str(&format!("[{key} \"{value}\"]\n"));
        }
        text.push('\n');
        let mut tokens = Vec::new();
        if self.start.variant() == Variant::Chesscala {
            tokens.push(String::from(
                "{The standard setup is a reconstruction: the published diagrams are lost.}",
            ));
        }
        let black_first = self.start.turn() == Color::Black;
        let mut after_comment = false;
        for (index, mv) in self.record_moves().into_iter().enumerate() {
            let note = annotations.get(index);
            let mv = format!("{mv}{}", note.map_or("", |note| note.suffix.as_str()));
            // A move number stays on the line of its move.
            let number = self.move_number(index);
            tokens.push(if (index + usize::from(black_first)) % 2 == 0 {
                format!("{number}. {mv}")
            } else if index == 0 || after_comment {
                format!("{number}... {mv}")
            } else {
                mv
            });
            after_comment = false;
            if let Some(words) = note.and_then(|note| note.comment.as_deref()) {
                tokens.push(format!("{{{words}}}"));
                after_comment = true;
            }
        }
        if let Some(words) = comment {
            // A sentence, ended once.
            let stop = if words.ends_with(['.', '!', '?']) {
                ""
            } else {
                "."
            };
            tokens.push(format!("{{{words}{stop}}}"));
        }
        tokens.push(result.to_owned());
        let mut line = String::new();
        for token in tokens {
            if !line.is_empty() && line.len() + 1 + token.len() > RECORD_WIDTH {
                text.push_str(&line);
                text.push('\n');
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&token);
        }
        text.push_str(&line);
        text
    }

    /// The number of the move that the ply after `ply` plies belongs to: White's move and
    /// the reply share a number, counted from 1 at the start position, which may have Black
    /// to move (a game from a set-up position).
    #[must_use]
    pub fn move_number(&self, ply: usize) -> usize {
        (ply + usize::from(self.start.turn() == Color::Black)) / 2 + 1
    }

    /// How the game ended, or `None` while it goes on.
    #[must_use]
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// The draw the player to move may claim now, if any (Chak's fifty-move rule).
    #[must_use]
    pub fn draw_claim(&self) -> Option<EndReason> {
        if self.outcome.is_some() {
            None
        } else {
            self.position.draw_claim()
        }
    }

    /// Reads and plays one move in any notation the game accepts.
    ///
    /// # Errors
    /// [`MoveError`] when the game is over or the move is unreadable, illegal or ambiguous;
    /// the record is then unchanged.
    pub fn play(&mut self, text: &str) -> Result<&Played, MoveError> {
        if self.outcome.is_some() {
            return Err(MoveError::GameOver);
        }
        let mv = self.position.parse_move(text)?;
        Ok(self.play_legal(mv))
    }

    /// Plays a move taken from the current position's legal moves.
    fn play_legal(&mut self, mv: VariantMove) -> &Played {
        let next = self.position.play(&mv);
        let mut display = self.position.display_move(&mv);
        display.extend(next.mark().map(Mark::symbol));
        let played = Played {
            text: self.position.move_text(&mv),
            display,
            mv,
        };
        self.position = next;
        self.moves.push(played);
        self.settle();
        self.moves.last().expect("a move was just pushed")
    }

    /// The pass the player to move must play, when passing is their only legal move.
    #[must_use]
    pub fn forced_pass(&self) -> Option<VariantMove> {
        if self.outcome.is_some() {
            return None;
        }
        match self.position.legal_moves().as_slice() {
            [only] if self.position.is_pass(only) => Some(only.clone()),
            _ => None,
        }
    }

    /// Plays the forced pass, if there is one, and returns it.
    pub fn play_forced_pass(&mut self) -> Option<&Played> {
        let pass = self.forced_pass()?;
        Some(self.play_legal(pass))
    }

    /// Ends the game by something outside the board: resignation, agreement, a claim, timeout.
    /// Does nothing when the game is already over.
    pub fn finish(&mut self, outcome: Outcome) {
        if self.outcome.is_none() {
            self.outcome = Some(outcome);
        }
    }

    /// Counts the new current position and decides whether the game ended with it. A loss on
    /// the board takes precedence over a repetition (Chak K8).
    fn settle(&mut self) {
        let repeated = self.position.repetition_key().is_some_and(|key| {
            let count = self.seen.entry(key).or_insert(0);
            *count += 1;
            *count >= 3
        });
        self.outcome = self
            .position
            .outcome()
            .or_else(|| repeated.then_some(Outcome::draw(EndReason::Repetition)));
    }
}
