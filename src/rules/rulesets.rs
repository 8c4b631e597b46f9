//! Rule sets: a game's standard rules, or an optional rule its source gives (Chesscala's rule
//! without draws, CC-K7). A game is played under one rule set; the position carries it, so
//! every move, outcome and mark follows it.

use std::fmt;
use std::str::FromStr;

use super::{Cell, Color, PositionError, UnknownVariant, Variant, VariantPosition};

/// Which rules a game follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum RuleSet {
    /// The game's standard rules.
    #[default]
    Standard,
    /// Chesscala's optional rule (CC-K7): a turn may not end with the mover's own king in
    /// check; the first to checkmate or to reach twelve enemy losses wins at once.
    NoDraws,
}

impl RuleSet {
    /// Every rule set, standard first.
    pub const ALL: [RuleSet; 2] = [RuleSet::Standard, RuleSet::NoDraws];

    /// The stable key stored in the database and typed in challenges (`standard`, `nodraws`).
    #[must_use]
    pub const fn key(self) -> &'static str {
        match self {
            RuleSet::Standard => "standard",
            RuleSet::NoDraws => "nodraws",
        }
    }

    /// Reads a key, ignoring case (`no-draws` too).
    #[must_use]
    pub fn from_key(key: &str) -> Option<RuleSet> {
        let key = key.trim().to_ascii_lowercase().replace(['-', '_', ' '], "");
        RuleSet::ALL.into_iter().find(|rules| rules.key() == key)
    }

    /// The rule set in words, for captions and `info`: "standard rules", "no draws".
    #[must_use]
    pub const fn describe(self) -> &'static str {
        match self {
            RuleSet::Standard => "standard rules",
            RuleSet::NoDraws => "no draws",
        }
    }

    /// Whether `variant` can be played under this rule set.
    #[must_use]
    pub fn fits(self, variant: Variant) -> bool {
        match self {
            RuleSet::Standard => true,
            RuleSet::NoDraws => variant == Variant::Chesscala,
        }
    }
}

impl fmt::Display for RuleSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}

/// A game and the rule set it is played under, checked to fit together; written
/// `chesscala-nodraws` (or just the game's name for its standard rules).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GameRules {
    variant: Variant,
    rules: RuleSet,
}

/// A rule set a game is not played under, or a name that is no game.
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error)]
pub enum RulesError {
    /// The rule set does not exist for that game.
    #[error("{variant} has no {} rule; only Chesscala is played without draws.", rules.key())]
    NotForGame {
        /// The game.
        variant: Variant,
        /// The rule set asked for.
        rules: RuleSet,
    },
    /// The name is no rule set.
    #[error("I don't know the rules \"{0}\": say standard or nodraws.")]
    Unknown(String),
    /// The name is no game.
    #[error(transparent)]
    Variant(#[from] UnknownVariant),
}

impl GameRules {
    /// `variant` under `rules`.
    ///
    /// # Errors
    /// [`RulesError::NotForGame`] when the game has no such rule set.
    pub fn new(variant: Variant, rules: RuleSet) -> Result<GameRules, RulesError> {
        if rules.fits(variant) {
            Ok(GameRules { variant, rules })
        } else {
            Err(RulesError::NotForGame { variant, rules })
        }
    }

    /// `variant` under its standard rules.
    #[must_use]
    pub const fn standard(variant: Variant) -> GameRules {
        GameRules {
            variant,
            rules: RuleSet::Standard,
        }
    }

    /// The game.
    #[must_use]
    pub const fn variant(self) -> Variant {
        self.variant
    }

    /// The rule set.
    #[must_use]
    pub const fn rules(self) -> RuleSet {
        self.rules
    }

    /// The start position under these rules.
    #[must_use]
    pub fn start(self) -> VariantPosition {
        VariantPosition::start(self.variant).under(self.rules)
    }

    /// A position text (or `start`) read under these rules.
    ///
    /// # Errors
    /// [`PositionError`] when the text is not a position of the game.
    pub fn position(self, text: &str) -> Result<VariantPosition, PositionError> {
        VariantPosition::from_text(self.variant, text).map(|p| p.under(self.rules))
    }
}

/// Why a position cannot start a game, the first problem found.
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error)]
pub enum SetupError {
    /// The text is not a position of the game.
    #[error("That is not a {variant} position: {error}.")]
    Position {
        /// The game.
        variant: Variant,
        /// What is wrong with the text.
        error: PositionError,
    },
    /// A side has no king.
    #[error("{side} has no king; a {variant} game needs one on each side.")]
    NoKing {
        /// The game.
        variant: Variant,
        /// The side's name in that game.
        side: &'static str,
    },
    /// The game is already decided in that position.
    #[error("That position is already over ({0}); choose one where the game goes on.")]
    Over(&'static str),
    /// The side to move cannot move.
    #[error("{0} is to move but has no legal move there; choose a position where it can move.")]
    NoMove(&'static str),
}

impl GameRules {
    /// Reads a position a game may start from, checked in order: its format, a king on each
    /// side, a game not already over, and a legal move for the side to move.
    ///
    /// # Errors
    /// [`SetupError`] naming the first problem.
    pub fn setup(self, text: &str) -> Result<VariantPosition, SetupError> {
        let variant = self.variant;
        let position = self
            .position(text)
            .map_err(|error| SetupError::Position { variant, error })?;
        let kings: &[char] = match variant {
            Variant::Chak => &['K', 'D'],
            _ => &['K'],
        };
        let view = position.board_view();
        for color in Color::ALL {
            let has_king = view.cells.iter().any(|cell| match cell {
                Cell::Pieces(pieces) => pieces
                    .iter()
                    .any(|p| p.color == color && kings.contains(&p.letter)),
                _ => false,
            });
            if !has_king {
                return Err(SetupError::NoKing {
                    variant,
                    side: variant.side_name(color),
                });
            }
        }
        if let Some(outcome) = position.outcome() {
            return Err(SetupError::Over(outcome.reason.describe()));
        }
        if position.legal_moves().is_empty() {
            return Err(SetupError::NoMove(variant.side_name(position.turn())));
        }
        Ok(position)
    }
}

impl fmt::Display for GameRules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.rules {
            RuleSet::Standard => f.write_str(self.variant.key()),
            rules => write!(f, "{}-{}", self.variant.key(), rules.key()),
        }
    }
}

impl FromStr for GameRules {
    type Err = RulesError;

    /// Reads `chesscala-nodraws`, `chesscala nodraws` or a game's name alone.
    fn from_str(s: &str) -> Result<GameRules, RulesError> {
        if let Some(variant) = Variant::from_name(s) {
            return Ok(GameRules::standard(variant));
        }
        let (game, rules) = s
            .trim()
            .rsplit_once(['-', ' '])
            .ok_or_else(|| UnknownVariant(s.trim().to_owned()))?;
        let variant = game.parse::<Variant>()?;
        let rules =
            RuleSet::from_key(rules).ok_or_else(|| RulesError::Unknown(rules.to_owned()))?;
        GameRules::new(variant, rules)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_and_write_back() {
        let rules: GameRules = "chesscala-nodraws"
            .parse()
            .expect("a rule set of Chesscala");
        assert_eq!(rules.variant(), Variant::Chesscala);
        assert_eq!(rules.rules(), RuleSet::NoDraws);
        assert_eq!(rules.to_string(), "chesscala-nodraws");
        assert_eq!(
            "Chak".parse::<GameRules>(),
            Ok(GameRules::standard(Variant::Chak))
        );
        assert!(matches!(
            "chak-nodraws".parse::<GameRules>(),
            Err(RulesError::NotForGame { .. })
        ));
        assert!(matches!(
            "chesscala-fast".parse::<GameRules>(),
            Err(RulesError::Unknown(_))
        ));
    }

    #[test]
    fn a_setup_names_its_first_problem() {
        let chak = GameRules::standard(Variant::Chak);
        assert!(chak.setup("start").is_ok());
        assert!(matches!(
            chak.setup("not a position"),
            Err(SetupError::Position { .. })
        ));
        let chesscala = GameRules::standard(Variant::Chesscala);
        let no_black_king = "-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/\
                             -,-,-,-,-,-/-,P,-,-,-,-/-,-,-,K,-,K w - - 0,0 - *";
        assert_eq!(
            chesscala.setup(no_black_king),
            Err(SetupError::NoKing {
                variant: Variant::Chesscala,
                side: "Black"
            })
        );
    }
}
