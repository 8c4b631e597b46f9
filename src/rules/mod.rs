//! The rules core: every game Pigeon plays, as pure data and code.
//!
//! No I/O, no async, no clock and no randomness live here. Each game is one position type
//! implementing [`Position`]; [`VariantPosition`] and [`VariantMove`] dispatch between them by
//! `match`, because the set of games is closed. [`Record`] adds what needs a game's history
//! (repetition draws, claims) on top of a position.
//!
//! Text goes in through parsers that first read it and then validate it; every failure is a
//! typed error with a friendly message ([`MoveError`], [`PositionError`]).

pub mod chad;
pub mod chak;
pub mod chesscala;
mod lines;
mod notation;
mod record;
mod registry;
mod rulesets;
pub mod shakti;
pub mod square;

use std::fmt;
use std::hash::Hash;

pub use record::{Annotation, Played, Record, RecordError};
pub use registry::{UnknownVariant, Variant};
pub use rulesets::{GameRules, RuleSet, RulesError, SetupError};
pub use square::Coord;

use chad::Chad;
use chak::Chak;
use chesscala::Chesscala;
use shakti::Shakti;

/// One of the two sides. In Chak the second side is called Green; see [`Variant::side_name`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// The side that moves first, at the bottom of the board.
    White,
    /// The side that moves second, at the top of the board.
    Black,
}

impl Color {
    /// Both colours, White first.
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// The opponent's colour.
    #[must_use]
    pub const fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// 0 for White, 1 for Black: an index into per-side arrays.
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The side letter of position texts: `w` or `b`.
    #[must_use]
    pub const fn letter(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }

    /// Reads a side letter (`w` or `b`).
    #[must_use]
    pub fn from_letter(letter: &str) -> Option<Color> {
        match letter {
            "w" => Some(Color::White),
            "b" => Some(Color::Black),
            _ => None,
        }
    }
}

/// Why a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// The side to move is in check and cannot get out of it.
    Checkmate,
    /// The side to move has no legal move and is not in check (a loss in Chak, a draw in Chad).
    Stalemate,
    /// Chak: a divine king reached the enemy altar.
    Altar,
    /// The same position occurred for the third time.
    Repetition,
    /// Chak: a hundred plies without capture or promotion, claimed by a player.
    FiftyMoves,
    /// Shakti: neither side has a legal move.
    Blocked,
    /// Chesscala: a side lost twelve pieces.
    Attrition,
    /// Chesscala: both sides were left in check after a final escape turn, or claims crossed.
    MutualCheck,
    /// The players agreed to a draw.
    Agreement,
    /// A player resigned.
    Resignation,
    /// A player let the clock run out.
    Timeout,
    /// The game was called off before both sides had moved.
    Aborted,
}

impl EndReason {
    /// A short lowercase description for chat replies, e.g. "checkmate".
    #[must_use]
    pub const fn describe(self) -> &'static str {
        match self {
            EndReason::Checkmate => "checkmate",
            EndReason::Stalemate => "stalemate",
            EndReason::Altar => "altar mate",
            EndReason::Repetition => "threefold repetition",
            EndReason::FiftyMoves => "the fifty-move rule",
            EndReason::Blocked => "both sides blocked",
            EndReason::Attrition => "attrition",
            EndReason::MutualCheck => "mutual check",
            EndReason::Agreement => "agreement",
            EndReason::Resignation => "resignation",
            EndReason::Timeout => "time running out",
            EndReason::Aborted => "abort",
        }
    }
}

/// How a game ended: the winner (none for a draw) and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// The side that won, or `None` for a draw.
    pub winner: Option<Color>,
    /// Why the game ended.
    pub reason: EndReason,
}

impl Outcome {
    /// A win for `winner`.
    #[must_use]
    pub const fn win(winner: Color, reason: EndReason) -> Outcome {
        Outcome {
            winner: Some(winner),
            reason,
        }
    }

    /// A draw.
    #[must_use]
    pub const fn draw(reason: EndReason) -> Outcome {
        Outcome {
            winner: None,
            reason,
        }
    }

    /// The result in the usual score notation: `1-0`, `0-1` or `1/2-1/2`.
    #[must_use]
    pub const fn score(self) -> &'static str {
        match self.winner {
            Some(Color::White) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        }
    }
}

/// The sign a move gets in display notation for what it does to the opponent: `+` for check,
/// `#` for mate. A move that stalemates gets none, whatever stalemate means in the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mark {
    /// The side to move is in check.
    Check,
    /// The side that moved has mated: checkmate, or Chak's altar mate; in Chesscala, a check
    /// no turn escapes.
    Mate,
}

impl Mark {
    /// `+` or `#`.
    #[must_use]
    pub const fn symbol(self) -> char {
        match self {
            Mark::Check => '+',
            Mark::Mate => '#',
        }
    }
}

/// `text` without the marks a move copied from a record or an analysis may end with (`+`,
/// `#`, `!`, `?`, in any order, with spaces): what every game's move reader reads.
pub(crate) fn without_marks(text: &str) -> &str {
    text.trim_end_matches(|c: char| c.is_whitespace() || matches!(c, '+' | '#' | '!' | '?'))
}

/// Whether `outcome`, reached with `turn` to move, is a mate by the side that just moved.
fn mated(outcome: Outcome, turn: Color) -> bool {
    outcome.winner == Some(turn.other())
        && matches!(outcome.reason, EndReason::Checkmate | EndReason::Altar)
}

/// Why a move text could not be played. The three kinds are distinct so that a chat can answer
/// each one helpfully: fix the spelling, pick a legal move, or say which of several was meant.
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error)]
pub enum MoveError {
    /// The text is not a move in any notation the game understands.
    #[error("I can't read \"{input}\" as a move. {hint}")]
    Syntax {
        /// What the player typed.
        input: String,
        /// How moves are written in this game, with an example.
        hint: String,
    },
    /// The text names a move, but that move is not legal in this position.
    #[error("{input} is not legal here. {hint}")]
    Illegal {
        /// What the player typed.
        input: String,
        /// Why, and what is possible instead (for example the legal moves of that piece).
        hint: String,
    },
    /// The text fits more than one legal move (or only the first part of a turn).
    #[error(
        "\"{input}\" could mean {}. Please say which one.",
        list_or(candidates)
    )]
    Ambiguous {
        /// What the player typed.
        input: String,
        /// The legal moves it could mean, in display notation.
        candidates: Vec<String>,
    },
    /// The game is already over: no move can be played.
    #[error("The game is over; no more moves can be played.")]
    GameOver,
}

/// Joins items as "a, b or c" for chat replies.
#[must_use]
pub fn list_or(items: &[String]) -> String {
    match items {
        [] => String::from("nothing"),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// Why a position text could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error)]
pub enum PositionError {
    /// The text does not follow the game's position format.
    #[error("unreadable position: {0}")]
    Syntax(String),
    /// The text reads, but describes a position the game cannot have.
    #[error("impossible position: {0}")]
    Invalid(String),
}

/// What stands on the squares of a board, for drawing it. Games differ in what a square can
/// hold: Shakti squares may be holes, Chesscala squares hold stacks of up to four pieces.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BoardView {
    /// Number of files (columns).
    pub files: u8,
    /// Number of ranks (rows).
    pub ranks: u8,
    /// The squares rank by rank from a1: index `rank * files + file`.
    pub cells: Vec<Cell>,
}

impl BoardView {
    /// The cell at `coord`.
    #[must_use]
    pub fn cell(&self, coord: Coord) -> &Cell {
        &self.cells[usize::from(coord.rank) * usize::from(self.files) + usize::from(coord.file)]
    }
}

/// One square of a [`BoardView`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Cell {
    /// No square here (a removed Shakti tile or an untiled corner).
    Hole,
    /// An empty square.
    Empty,
    /// One piece, or a Chesscala stack of up to four, in the order of the position text.
    Pieces(Vec<PieceView>),
}

/// A piece as a picture needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PieceView {
    /// Whose piece it is.
    pub color: Color,
    /// The piece's upper-case letter in the game's position text; promoted pieces have their
    /// own letters (Chak `W` and `D`, Chad `Q`, Chesscala `M`).
    pub letter: char,
}

/// The squares a move touched, for highlighting the last move.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct MoveMarks {
    /// Where pieces left from.
    pub from: Vec<Coord>,
    /// Where pieces arrived (for a sowing, every square a piece dropped on).
    pub to: Vec<Coord>,
    /// Where a piece was captured.
    pub captures: Vec<Coord>,
    /// Shakti: tiles removed by the move.
    pub removed: Vec<Coord>,
}

/// One game's rules, implemented by one position type per game.
///
/// A position holds everything the rules need to list legal moves and decide the end of the game
/// from the board alone. Whatever needs the game's history (repetitions) lives in [`Record`].
pub trait Position: Clone + fmt::Debug + Eq + Hash + Sized {
    /// One legal move (in Chesscala: one whole turn).
    type Move: Clone + fmt::Debug + Eq + Hash;

    /// Which game this is.
    const VARIANT: Variant;

    /// The standard start position.
    fn start() -> Self;

    /// Reads a position text (the game's FEN-like interchange format).
    ///
    /// # Errors
    /// [`PositionError`] when the text is malformed or describes an impossible position.
    fn from_text(text: &str) -> Result<Self, PositionError>;

    /// Writes the position text; `from_text(to_text())` gives the same position back.
    fn to_text(&self) -> String;

    /// The side to move.
    fn turn(&self) -> Color;

    /// Every legal move, in no particular order. Empty when the game is over.
    fn legal_moves(&self) -> Vec<Self::Move>;

    /// The position after `mv`, which must be one of [`Position::legal_moves`].
    #[must_use]
    fn play(&self, mv: &Self::Move) -> Self;

    /// Whether the side to move is in check.
    fn in_check(&self) -> bool;

    /// The squares of the kings that are in check now, for highlighting.
    fn checked_kings(&self) -> Vec<Coord>;

    /// What stands on each square, for drawing the board.
    fn board_view(&self) -> BoardView;

    /// The squares `mv` (a legal move of this position) touches, for highlighting it.
    fn move_marks(&self, mv: &Self::Move) -> MoveMarks;

    /// The end of the game as decided by this position alone, if it has ended.
    fn outcome(&self) -> Option<Outcome>;

    /// The part of the position that counts for threefold repetition, or `None` in a game
    /// without a repetition rule.
    fn repetition_key(&self) -> Option<String>;

    /// Whether a player may claim a draw here without an agreement (Chak's fifty-move rule).
    fn draw_claim(&self) -> Option<EndReason> {
        None
    }

    /// Whether `mv` is a pass (a move the product plays for a player who cannot move).
    fn is_pass(&self, _mv: &Self::Move) -> bool {
        false
    }

    /// The move in the interchange notation (the oracle's, stored in the database).
    fn move_text(&self, mv: &Self::Move) -> String;

    /// The move in the game's friendly display notation, without its [`Mark`]: for lists of
    /// moves to choose from. A move as played is written with the mark of the position it
    /// leads to ([`Record`] does so).
    fn display_move(&self, mv: &Self::Move) -> String;

    /// The mark that the move which led to this position earns: [`Mark::Mate`] when the side
    /// that moved has won by mating, [`Mark::Check`] when the side to move is in check, none
    /// otherwise (a stalemate, even where it wins, gets none).
    fn mark(&self) -> Option<Mark> {
        match self.outcome() {
            Some(outcome) => mated(outcome, self.turn()).then_some(Mark::Mate),
            None => self.in_check().then_some(Mark::Check),
        }
    }

    /// Reads a move in any notation the game accepts (interchange or chat) and checks that it
    /// is legal here.
    ///
    /// # Errors
    /// [`MoveError`] with the kind of failure: syntax, illegal or ambiguous.
    fn parse_move(&self, text: &str) -> Result<Self::Move, MoveError>;

    /// Counts the leaves of the legal move tree `depth` plies deep.
    fn perft(&self, depth: u32) -> u64 {
        match depth {
            0 => 1,
            1 => self.legal_moves().len() as u64,
            _ => self
                .legal_moves()
                .iter()
                .map(|mv| self.play(mv).perft(depth - 1))
                .sum(),
        }
    }
}

/// Declares the closed set of games once: the [`VariantPosition`] and [`VariantMove`] enums and
/// their dispatching methods. Adding a game is one line here.
macro_rules! games {
    ($($name:ident($ty:ty)),+ $(,)?) => {
        /// A position of any of the games.
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum VariantPosition {
            $(
                #[doc = concat!("A ", stringify!($name), " position.")]
                $name($ty),
            )+
        }

        /// A legal move of any of the games, tied to the game it belongs to.
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum VariantMove {
            $(
                #[doc = concat!("A ", stringify!($name), " move.")]
                $name(<$ty as Position>::Move),
            )+
        }

        impl VariantPosition {
            /// The start position of `variant`.
            #[must_use]
            pub fn start(variant: Variant) -> VariantPosition {
                match variant {
                    $(Variant::$name => VariantPosition::$name(<$ty>::start()),)+
                }
            }

            fn parse_text(variant: Variant, text: &str) -> Result<VariantPosition, PositionError> {
                Ok(match variant {
                    $(Variant::$name => VariantPosition::$name(<$ty>::from_text(text)?),)+
                })
            }

            /// Which game this position belongs to.
            #[must_use]
            pub fn variant(&self) -> Variant {
                match self {
                    $(VariantPosition::$name(_) => <$ty as Position>::VARIANT,)+
                }
            }

            /// The position text.
            #[must_use]
            pub fn to_text(&self) -> String {
                match self {
                    $(VariantPosition::$name(p) => p.to_text(),)+
                }
            }

            /// The side to move.
            #[must_use]
            pub fn turn(&self) -> Color {
                match self {
                    $(VariantPosition::$name(p) => p.turn(),)+
                }
            }

            /// Whether the side to move is in check.
            #[must_use]
            pub fn in_check(&self) -> bool {
                match self {
                    $(VariantPosition::$name(p) => p.in_check(),)+
                }
            }

            /// The squares of the kings in check.
            #[must_use]
            pub fn checked_kings(&self) -> Vec<Coord> {
                match self {
                    $(VariantPosition::$name(p) => p.checked_kings(),)+
                }
            }

            /// What stands on each square.
            #[must_use]
            pub fn board_view(&self) -> BoardView {
                match self {
                    $(VariantPosition::$name(p) => p.board_view(),)+
                }
            }

            /// The end of the game as decided by the position alone.
            #[must_use]
            pub fn outcome(&self) -> Option<Outcome> {
                match self {
                    $(VariantPosition::$name(p) => p.outcome(),)+
                }
            }

            /// See [`Position::mark`].
            #[must_use]
            pub fn mark(&self) -> Option<Mark> {
                match self {
                    $(VariantPosition::$name(p) => p.mark(),)+
                }
            }

            /// See [`Position::repetition_key`].
            #[must_use]
            pub fn repetition_key(&self) -> Option<String> {
                match self {
                    $(VariantPosition::$name(p) => p.repetition_key(),)+
                }
            }

            /// See [`Position::draw_claim`].
            #[must_use]
            pub fn draw_claim(&self) -> Option<EndReason> {
                match self {
                    $(VariantPosition::$name(p) => p.draw_claim(),)+
                }
            }

            /// Every legal move.
            #[must_use]
            pub fn legal_moves(&self) -> Vec<VariantMove> {
                match self {
                    $(VariantPosition::$name(p) => {
                        p.legal_moves().into_iter().map(VariantMove::$name).collect()
                    })+
                }
            }

            /// Reads a move in any notation the game accepts.
            ///
            /// # Errors
            /// [`MoveError`] when the text is unreadable, illegal or ambiguous.
            pub fn parse_move(&self, text: &str) -> Result<VariantMove, MoveError> {
                match self {
                    $(VariantPosition::$name(p) => p.parse_move(text).map(VariantMove::$name),)+
                }
            }

            /// Counts the leaves of the legal move tree `depth` plies deep.
            #[must_use]
            pub fn perft(&self, depth: u32) -> u64 {
                match self {
                    $(VariantPosition::$name(p) => p.perft(depth),)+
                }
            }

            /// The position after `mv`.
            ///
            /// # Panics
            /// When `mv` belongs to another game: moves come from this position's
            /// [`VariantPosition::legal_moves`] or [`VariantPosition::parse_move`].
            #[must_use]
            pub fn play(&self, mv: &VariantMove) -> VariantPosition {
                match (self, mv) {
                    $((VariantPosition::$name(p), VariantMove::$name(m)) => {
                        VariantPosition::$name(p.play(m))
                    })+
                    #[allow(unreachable_patterns)]
                    _ => panic!("a {} move played in a {} game", mv.variant(), self.variant()),
                }
            }

            /// `mv` in the interchange notation.
            ///
            /// # Panics
            /// When `mv` belongs to another game, as [`VariantPosition::play`].
            #[must_use]
            pub fn move_text(&self, mv: &VariantMove) -> String {
                match (self, mv) {
                    $((VariantPosition::$name(p), VariantMove::$name(m)) => p.move_text(m),)+
                    #[allow(unreachable_patterns)]
                    _ => panic!("a {} move written in a {} game", mv.variant(), self.variant()),
                }
            }

            /// `mv` in the display notation.
            ///
            /// # Panics
            /// When `mv` belongs to another game, as [`VariantPosition::play`].
            #[must_use]
            pub fn display_move(&self, mv: &VariantMove) -> String {
                match (self, mv) {
                    $((VariantPosition::$name(p), VariantMove::$name(m)) => p.display_move(m),)+
                    #[allow(unreachable_patterns)]
                    _ => panic!("a {} move shown in a {} game", mv.variant(), self.variant()),
                }
            }

            /// The squares `mv` touches.
            ///
            /// # Panics
            /// When `mv` belongs to another game, as [`VariantPosition::play`].
            #[must_use]
            pub fn move_marks(&self, mv: &VariantMove) -> MoveMarks {
                match (self, mv) {
                    $((VariantPosition::$name(p), VariantMove::$name(m)) => p.move_marks(m),)+
                    #[allow(unreachable_patterns)]
                    _ => panic!("a {} move marked in a {} game", mv.variant(), self.variant()),
                }
            }

            /// Whether `mv` is a pass.
            #[must_use]
            pub fn is_pass(&self, mv: &VariantMove) -> bool {
                match (self, mv) {
                    $((VariantPosition::$name(p), VariantMove::$name(m)) => p.is_pass(m),)+
                    #[allow(unreachable_patterns)]
                    _ => false,
                }
            }
        }

        impl VariantMove {
            /// Which game this move belongs to.
            #[must_use]
            pub fn variant(&self) -> Variant {
                match self {
                    $(VariantMove::$name(_) => <$ty as Position>::VARIANT,)+
                }
            }
        }
    };
}

games! {
    Chak(Chak),
    Shakti(Shakti),
    Chad(Chad),
    Chesscala(Chesscala),
}

impl VariantPosition {
    /// Reads a position text of `variant`; `start` (any case) means the start position.
    ///
    /// # Errors
    /// [`PositionError`] when the text is not a position of that game.
    pub fn from_text(variant: Variant, text: &str) -> Result<VariantPosition, PositionError> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("start") {
            Ok(VariantPosition::start(variant))
        } else {
            VariantPosition::parse_text(variant, text)
        }
    }

    /// The rule set the position is played under.
    #[must_use]
    pub fn rules(&self) -> RuleSet {
        match self {
            VariantPosition::Chesscala(p) => p.rules(),
            _ => RuleSet::Standard,
        }
    }

    /// The game and rule set of the position.
    #[must_use]
    pub fn game_rules(&self) -> GameRules {
        GameRules::new(self.variant(), self.rules())
            .expect("a position only carries a rule set of its game")
    }

    /// The same position under `rules`; a rule set that does not fit the game (checked by
    /// [`GameRules::new`]) leaves it under its standard rules.
    #[must_use]
    pub fn under(self, rules: RuleSet) -> VariantPosition {
        match self {
            VariantPosition::Chesscala(p) => VariantPosition::Chesscala(p.under(rules)),
            other => other,
        }
    }

    /// What is decided to happen after the side to move's turn, when it is a final one
    /// (Chesscala's escape and attrition turns).
    #[must_use]
    pub fn final_turn(&self) -> Option<chesscala::FinalTurn> {
        match self {
            VariantPosition::Chesscala(p) => p.final_turn(),
            _ => None,
        }
    }

    /// Every legal move in the interchange notation, sorted byte-wise.
    #[must_use]
    pub fn legal_move_texts(&self) -> Vec<String> {
        let mut texts: Vec<String> = self
            .legal_moves()
            .iter()
            .map(|mv| self.move_text(mv))
            .collect();
        texts.sort_unstable();
        texts
    }
}
