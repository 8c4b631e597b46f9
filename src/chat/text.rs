//! Longer texts of replies: move lists, game records, rules, lists of games.

use super::inert::inert;
use crate::rules::{Color, Coord, Variant, square};
use crate::service::{Cap, Caps, GameState, GameSummary, Place, Scope, Stats, clock};
use crate::store::RatingRow;

/// The most moves listed before "and N more".
const MAX_MOVES: usize = 60;

/// The legal moves of the game, or of the piece on `from`, in display notation.
pub fn legal_moves(state: &GameState, from: Option<&str>) -> String {
    let position = state.record.position();
    if !state.is_active() {
        return format!("Game #{} is over; there are no moves.", state.row.id);
    }
    let mut moves = position.legal_moves();
    let label = match from {
        Some(name) => {
            let view = position.board_view();
            let Some((file, rank)) = square::parse(name, view.files, view.ranks) else {
                return format!("\"{}\" is not a square of this board.", inert(name));
            };
            let coord = Coord::new(file, rank);
            moves.retain(|mv| position.move_marks(mv).from.contains(&coord));
            format!(" from {}", coord.name())
        }
        None => String::new(),
    };
    let mut texts: Vec<String> = moves.iter().map(|mv| position.display_move(mv)).collect();
    texts.sort();
    let side = state.side_label(state.turn());
    if texts.is_empty() {
        return format!(
            "{side} has no legal move {label} in game #{}.",
            state.row.id
        );
    }
    let count = texts.len();
    let more = count.saturating_sub(MAX_MOVES);
    texts.truncate(MAX_MOVES);
    let tail = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    format!(
        "Legal moves of {side}{label} in game #{} ({count}): {}{tail}.",
        state.row.id,
        texts.join(", ")
    )
}

/// One line about the game: who plays whom, whose move, the deadline or the result.
pub fn status_line(state: &GameState, now: i64) -> String {
    let head = format!(
        "Game #{} ({}): {} vs {}, move {}.",
        state.row.id,
        state.variant,
        state.side_label(Color::White),
        state.side_label(Color::Black),
        state.move_number()
    );
    match (state.result_text(), state.to_move(), state.row.deadline) {
        (Some(result), _, _) => format!("{head} Game over: {result}."),
        (None, Some(player), Some(deadline)) => format!(
            "{head} {} to move{}; {} left (until {}).",
            player.display_name,
            if state.record.position().in_check() {
                ", in check"
            } else {
                ""
            },
            clock::format_duration(deadline - now),
            clock::format_utc(deadline)
        ),
        _ => head,
    }
}

/// Players, clock and state.
pub fn info(state: &GameState, now: i64) -> String {
    let mut text = status_line(state, now);
    text.push_str(&format!(
        "\nTime per move: {}. Started {}. Moves played: {}.",
        clock::format_duration(state.row.days_per_move * clock::DAY),
        clock::format_utc(state.row.created_at),
        state.row.ply
    ));
    if let Some(offer) = state.row.draw_offer.as_deref() {
        let color = if offer == "white" {
            Color::White
        } else {
            Color::Black
        };
        text.push_str(&format!("\n{} offers a draw.", state.side_label(color)));
    }
    if state.is_active()
        && let Some(claim) = state.record.draw_claim()
    {
        text.push_str(&format!("\nA draw by {} can be claimed.", claim.describe()));
    }
    text
}

/// The move list in display notation, numbered by move.
pub fn history(state: &GameState) -> String {
    let moves = state.record.moves();
    if moves.is_empty() {
        return format!("No moves yet in game #{}.", state.row.id);
    }
    let mut text = format!("Game #{} ({}): ", state.row.id, state.variant);
    for (index, played) in moves.iter().enumerate() {
        if index % 2 == 0 {
            text.push_str(&format!("{}. ", index / 2 + 1));
        }
        text.push_str(&played.display);
        text.push_str(if index % 2 == 0 { ", " } else { "; " });
    }
    let text = text.trim_end_matches([' ', ',', ';']).to_owned();
    match state.result_text() {
        Some(result) => format!("{text}. {result}."),
        None => text,
    }
}

/// The game record: headers, then one move a line in the interchange notation.
pub fn export(state: &GameState, place: &Place) -> String {
    let date = |t: i64| clock::format_utc(t)[..10].to_owned();
    let mut text = String::new();
    let header = |text: &mut String, key: &str, value: &str| {
        text.push_str(&format!("[{key} \"{}\"]\n", value.replace('"', "'")));
    };
    header(&mut text, "Game", state.variant.name());
    header(&mut text, "Site", &format!("Pigeon, {}", place.platform));
    header(&mut text, "GameId", &state.row.id.to_string());
    header(&mut text, "White", &state.white.display_name);
    header(&mut text, "Black", &state.black.display_name);
    header(&mut text, "Date", &date(state.row.created_at));
    if let Some(end) = state.row.finished_at {
        header(&mut text, "EndDate", &date(end));
    }
    header(
        &mut text,
        "Result",
        state.row.result.as_deref().unwrap_or("*"),
    );
    if let Some(reason) = &state.row.end_reason {
        header(&mut text, "Termination", reason);
    }
    header(
        &mut text,
        "DaysPerMove",
        &state.row.days_per_move.to_string(),
    );
    header(&mut text, "Start", &state.row.start_position);
    text.push('\n');
    for (index, played) in state.record.moves().iter().enumerate() {
        text.push_str(&format!("{}. {}\n", index + 1, played.text));
    }
    text.push_str(state.row.result.as_deref().unwrap_or("*"));
    text
}

/// The games of a list, one a line.
pub fn game_list(games: &[GameSummary], scope: Scope) -> String {
    if games.is_empty() {
        return match scope {
            Scope::Mine => String::from("You have no games yet. Start one with `challenge`."),
            Scope::Channel => String::from("No games have been played here yet."),
        };
    }
    let title = match scope {
        Scope::Mine => "Your games",
        Scope::Channel => "Games here",
    };
    let lines: Vec<String> = games.iter().map(|g| format!("  {g}")).collect();
    format!("{title}:\n{}", lines.join("\n"))
}

/// The short rules of a game, or the list of games.
pub fn rules(variant: Option<Variant>) -> String {
    let Some(variant) = variant else {
        let lines: Vec<String> = Variant::ALL
            .iter()
            .map(|v| format!("  {}: {}", v.name(), v.summary()))
            .collect();
        return format!("I play:\n{}\n`rules <game>` tells more.", lines.join("\n"));
    };
    let details = match variant {
        Variant::Chak => {
            "Board 9x9, White moves first, the second side is Green. Rank 5 is the river: a \
             king or pawn that ends a move on it or beyond promotes at once (king -> divine \
             king D, which slides one or two squares; pawn -> warrior W, which moves like a \
             shaman), and promoted pieces can never go back behind the river. Pieces: K king \
             (one step), J jaguar (knight leap or one step), Q quetzal (must hop exactly one \
             piece along a line, then goes on or captures the first piece beyond), S shaman \
             (one step diagonally or straight forward/back), V vulture (knight), R serpent \
             (rook), P pawn (one step forward or sideways, captures diagonally forward), O \
             offering (never moves). You may never leave your king attacked. You win by \
             checkmate, by stalemating the opponent (a side with no move loses), or by moving \
             your divine king onto the enemy altar (e8 for White, e2 for Green). Threefold \
             repetition draws; after 50 moves without capture or promotion a draw can be \
             claimed. Moves: e3e4, Je4, Rxe5, e4."
        }
        Variant::Shakti => {
            "Board 7x7 of tiles (the four corners have none). Each side has a king and two \
             warriors; pieces stand only on tiles. Not in check, a king moves to the first \
             tile in any of the 8 directions if it is empty, passing over holes. A warrior \
             does the same, or jumps to the second tile when the first two are empty, and \
             the tile it jumped is removed for good. Only kings capture, and only warriors. \
             A king is in check when an enemy warrior sees it (nothing but holes between); in \
             check it may only step to an adjacent tile. The two kings may never see each \
             other. Checkmate wins; a player who cannot move passes (I play the pass for \
             them), and if neither side can move the game is drawn. Threefold repetition \
             draws. Moves: b2-b3, b2b4, Wb4, Kd3."
        }
        Variant::Chad => {
            "Board 12x12. Each side has a king and eight rooks in a 3x3 castle (White c3-e5, \
             Black h8-j10) surrounded by a wall of twelve squares. The king never leaves its \
             castle and moves like a king or a knight inside it. Rooks move as in chess; a \
             rook that ends a move in the enemy castle becomes a queen. Captures happen only \
             between a wall and its castle: a piece on the enemy wall may take a defender \
             inside the enemy castle, and a defender inside its own castle may take an \
             attacker on its wall; elsewhere pieces only block. The king may take an enemy \
             queen inside its castle. Checks go through walls. Checkmate wins; stalemate and \
             threefold repetition draw. Moves: Rh9, g9xh9, Rgh9, Rg9-h9."
        }
        Variant::Chesscala => {
            "Board 6x8; a square holds a stack of up to four pieces of either colour. Files \
             a-b, c-d and e-f are three circuits: up the right file, across rank 8, down the \
             left file, across rank 1. A turn is an optional capture, then a sowing: lift all \
             non-king pieces of a stack you control (as many of your pieces as the opponent's \
             or more) and drop them one per square along the circuit in the order you choose, \
             skipping full squares. Instead of sowing you may step a king to the other square \
             of its field, or make a first pawn double move. Pieces capture as in chess (Q R B \
             N, pawns diagonally forward); the Man (a promoted pawn) like a king, the Bomb \
             inside its own stack, the Hammer by advancing to the square before its target; \
             kings only inside their field, and kings are never captured. Each side has two \
             kings: a side still in check at the end of its turn loses (unless the opponent \
             then fails to escape as well: a draw), and a side that loses twelve pieces loses \
             after one last turn. Under two or more checks a turn may be any two moves. Write \
             turns like `b1 RBN` (sow b1: rook, bishop, knight), `Kd1-c1`, `Qxe2 b1 RBN`. The \
             standard setup is a reconstruction: the original diagrams are lost."
        }
    };
    format!("{}: {}\n{details}", variant.name(), variant.summary())
}

/// Leaderboards of one game or of every game with rated players.
#[must_use]
pub fn leaderboards(boards: &[(Variant, Vec<RatingRow>)], one_game: bool) -> String {
    let mut text = String::new();
    for (variant, rows) in boards {
        if rows.is_empty() {
            if one_game {
                text.push_str(&format!(
                    "No rated {variant} games here yet. Play one: `challenge @someone {} rated`.",
                    variant.key()
                ));
            }
            continue;
        }
        text.push_str(&format!("{variant} ratings here:\n"));
        for (place, row) in rows.iter().enumerate() {
            text.push_str(&format!(
                "  {}. {} {:.0} (±{:.0}, {} game{})\n",
                place + 1,
                row.display_name,
                row.rating,
                row.deviation,
                row.games,
                if row.games == 1 { "" } else { "s" }
            ));
        }
    }
    if text.is_empty() {
        text.push_str("No rated games here yet. Play one: `challenge @someone chak rated`.");
    }
    text.trim_end().to_owned()
}

/// A player's results and ratings.
#[must_use]
pub fn stats(stats: &Stats) -> String {
    let name = &stats.player.display_name;
    if stats.results.is_empty() && stats.ratings.is_empty() {
        return format!("{name} has no finished games here yet.");
    }
    let count = |n: i64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut text = format!("{name} here:\n");
    for results in &stats.results {
        let variant = Variant::from_name(&results.game_key)
            .map_or(results.game_key.clone(), |v| v.name().to_owned());
        text.push_str(&format!(
            "  {variant}: {}, {}, {}",
            count(results.wins, "win", "wins"),
            count(results.losses, "loss", "losses"),
            count(results.draws, "draw", "draws")
        ));
        if let Some((rating, history)) = stats
            .ratings
            .iter()
            .find(|(rating, _)| rating.game_key == results.game_key)
        {
            let changes: Vec<String> = history
                .iter()
                .map(|change| {
                    let outcome = match change.score {
                        s if s > 0.75 => "win",
                        s if s < 0.25 => "loss",
                        _ => "draw",
                    };
                    format!(
                        "{:+.0} ({outcome}, #{})",
                        change.after - change.before,
                        change.game_id
                    )
                })
                .collect();
            text.push_str(&format!(
                "; rating {:.0} (±{:.0}); latest: {}",
                rating.rating,
                rating.deviation,
                changes.join(", ")
            ));
        } else {
            text.push_str("; not rated yet");
        }
        text.push('\n');
    }
    text.trim_end().to_owned()
}

/// A community's caps, after a change of `changed` when there was one.
pub fn limits(caps: &Caps, changed: Option<Cap>) -> String {
    let list: Vec<String> = Cap::ALL
        .iter()
        .map(|&cap| {
            let value = caps.get(cap);
            let default = if value == cap.default_value() {
                " (the default)"
            } else {
                ""
            };
            format!("{cap}: {value}{default}")
        })
        .collect();
    let lead = match changed {
        Some(cap) => format!("Done: {cap} is now {}.", caps.get(cap)),
        None => String::from("Caps in this community."),
    };
    format!(
        "{lead} {}. Managers change one with `limits challenges|games|bot|opponent N`.",
        list.join("; ")
    )
}
