//! The colours of a pair (C.04.3 E: colour allocation rules).

use crate::pairing::tournament::{Color, Player, Tournament};

/// The colour `player` gets against `opponent`.
pub(super) fn choose_color(tournament: &Tournament, player: &Player, opponent: &Player) -> Color {
    if let Some(color) = neutral_color(player, opponent) {
        return color;
    }
    let initial = tournament.initial_color;
    let opponent_higher = (player.score, opponent.rank) < (opponent.score, player.rank);
    match player.color_preference {
        None if opponent_higher => {
            if opponent.rank % 2 == 1 {
                initial
            } else {
                initial.invert()
            }
        }
        None => {
            if player.rank % 2 == 1 {
                initial.invert()
            } else {
                initial
            }
        }
        Some(_) if opponent_higher => opponent
            .color_preference
            .map_or(Color::Black, Color::invert),
        Some(preference) => preference,
    }
}

/// The colour `player` gets by the colour rules alone, if they decide.
fn neutral_color(player: &Player, opponent: &Player) -> Option<Color> {
    let (mine, theirs) = (player.color_preference, opponent.color_preference);
    if preferences_compatible(mine, theirs) {
        return mine.or(theirs.map(Color::invert));
    }
    if player.absolute_preference()
        && (player.color_imbalance > opponent.color_imbalance || !opponent.absolute_preference())
    {
        return mine;
    }
    if opponent.absolute_preference()
        && (opponent.color_imbalance > player.color_imbalance || !player.absolute_preference())
    {
        return theirs.map(Color::invert);
    }
    if player.strong_preference && !opponent.strong_preference {
        return mine;
    }
    if opponent.strong_preference && !player.strong_preference {
        return theirs.map(Color::invert);
    }
    // The latest round in which they had different colours: alternate from it.
    let colors = |p: &Player| -> Vec<Color> {
        p.rounds
            .iter()
            .rev()
            .filter(|round| round.played)
            .filter_map(|round| round.color)
            .collect()
    };
    colors(player)
        .into_iter()
        .zip(colors(opponent))
        .find(|(a, b)| a != b)
        .map(|(_, theirs)| theirs)
}

pub(super) fn preferences_compatible(a: Option<Color>, b: Option<Color>) -> bool {
    a != b || a.is_none() || b.is_none()
}
