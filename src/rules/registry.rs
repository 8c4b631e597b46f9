//! The game registry: stable keys, display names, aliases and one-line summaries.

use std::fmt;
use std::str::FromStr;

use super::Color;

/// One of the games Pigeon plays. The set is closed; [`Variant::key`] is stored in databases and
/// never renamed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Variant {
    /// Chak (Couch Tomato, 2021): 9x9, Maya theme.
    Chak,
    /// Shakti (Christian Freeling, 1982): 7x7 tiles that warriors remove as they jump.
    Shakti,
    /// Chad (Christian Freeling, 1979): 12x12, kings confined to castles, rooks and queens.
    Chad,
    /// Chesscala (Tremblay and Mustoe, 2011): 6x8 chess with mancala sowing of stacks.
    Chesscala,
}

/// What the registry knows about one game.
struct Entry {
    variant: Variant,
    key: &'static str,
    name: &'static str,
    aliases: &'static [&'static str],
    summary: &'static str,
    sides: [&'static str; 2],
    /// The standard setup is a reconstruction (the published one is lost).
    reconstructed: bool,
}

const REGISTRY: &[Entry] = &[
    Entry {
        variant: Variant::Chak,
        key: "chak",
        name: "Chak",
        aliases: &["chak", "maya", "mayan chess"],
        summary: "9x9 Maya chess: cross the river to promote, and mate by checkmate or by bringing \
              your divine king to the enemy altar.",
        sides: ["White", "Green"],
        reconstructed: false,
    },
    Entry {
        variant: Variant::Shakti,
        key: "shakti",
        name: "Shakti",
        aliases: &["shakti", "tiles"],
        summary: "7x7 board of tiles: warriors jump and remove tiles, only kings capture, and a \
              king in check may only step; checkmate wins, and a player who cannot move passes.",
        sides: ["White", "Black"],
        reconstructed: false,
    },
    Entry {
        variant: Variant::Chad,
        key: "chad",
        name: "Chad",
        aliases: &["chad", "castles"],
        summary: "12x12 board, one king and eight rooks each: kings stay in their castles, rooks \
              promote to queens in the enemy castle, and captures only happen between a wall \
              and its castle; checkmate wins.",
        sides: ["White", "Black"],
        reconstructed: false,
    },
    Entry {
        variant: Variant::Chesscala,
        key: "chesscala",
        name: "Chesscala",
        aliases: &["chess mancala", "mancala chess"],
        summary: "6x8 chess meets mancala: sow stacks of up to four pieces along three circuits, \
              capture, and mate one of two kings (standard setup reconstructed; the original \
              diagrams are lost).",
        sides: ["White", "Black"],
        reconstructed: true,
    },
];

impl Variant {
    /// Every game, in registry order.
    pub const ALL: [Variant; 4] = [
        Variant::Chak,
        Variant::Shakti,
        Variant::Chad,
        Variant::Chesscala,
    ];

    fn entry(self) -> &'static Entry {
        REGISTRY
            .iter()
            .find(|entry| entry.variant == self)
            .expect("every variant has a registry entry (checked by a test)")
    }

    /// The stable lowercase key stored in the database (`chak`, ...).
    #[must_use]
    pub fn key(self) -> &'static str {
        self.entry().key
    }

    /// The display name (`Chak`, ...).
    #[must_use]
    pub fn name(self) -> &'static str {
        self.entry().name
    }

    /// The names a player may type for this game besides the key, lowercase.
    #[must_use]
    pub fn aliases(self) -> &'static [&'static str] {
        self.entry().aliases
    }

    /// A one-line summary of the game for help texts.
    #[must_use]
    pub fn summary(self) -> &'static str {
        self.entry().summary
    }

    /// Whether the standard setup is a reconstruction, to be said wherever it is shown
    /// (Chesscala: the published diagrams are lost).
    #[must_use]
    pub fn setup_reconstructed(self) -> bool {
        self.entry().reconstructed
    }

    /// What the game calls a side (Chak's second side is Green).
    #[must_use]
    pub fn side_name(self, color: Color) -> &'static str {
        self.entry().sides[color.index()]
    }

    /// Finds a game by key, name or alias, ignoring case and surrounding space.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Variant> {
        let name = name.trim();
        REGISTRY
            .iter()
            .find(|entry| {
                entry.key.eq_ignore_ascii_case(name)
                    || entry.name.eq_ignore_ascii_case(name)
                    || entry
                        .aliases
                        .iter()
                        .any(|alias| alias.eq_ignore_ascii_case(name))
            })
            .map(|entry| entry.variant)
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A game name that matches no game.
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error)]
#[error("I don't know a game called \"{0}\". I play {games}.", games = known_games())]
pub struct UnknownVariant(pub String);

fn known_games() -> String {
    let names: Vec<String> = Variant::ALL.iter().map(|v| v.name().to_owned()).collect();
    super::list_or(&names).replacen(" or ", " and ", 1)
}

impl FromStr for Variant {
    type Err = UnknownVariant;

    fn from_str(s: &str) -> Result<Variant, UnknownVariant> {
        Variant::from_name(s).ok_or_else(|| UnknownVariant(s.trim().to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_has_one_entry_with_a_unique_key() {
        for variant in Variant::ALL {
            assert_eq!(REGISTRY.iter().filter(|e| e.variant == variant).count(), 1);
            assert_eq!(Variant::from_name(variant.key()), Some(variant));
            assert_eq!(
                Variant::from_name(&variant.name().to_uppercase()),
                Some(variant)
            );
            for alias in variant.aliases() {
                assert_eq!(Variant::from_name(alias), Some(variant), "alias {alias}");
            }
        }
        assert_eq!(REGISTRY.len(), Variant::ALL.len());
    }

    #[test]
    fn unknown_names_are_reported_with_the_known_games() {
        let err = "checkers"
            .parse::<Variant>()
            .expect_err("no game is called checkers");
        assert!(err.to_string().contains("checkers"));
        assert!(err.to_string().contains("Chak"));
    }
}
