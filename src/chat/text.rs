//! Longer texts of replies: move lists, game records, rules, lists of games.

use super::Reply;
use super::inert::inert;
use crate::rules::{Color, Coord, RuleSet, Variant, square};
use crate::service::{Cap, Caps, GameState, GameSummary, Scope, Stats, clock};
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
    let id = state.row.id;
    if count > MAX_MOVES {
        // Too many to list: grouped by the square they start from, or (from one square) by
        // the first move of the turn, with the way to see one group.
        let key = |mv: &crate::rules::VariantMove, text: &str| match from {
            None => position
                .move_marks(mv)
                .from
                .first()
                .map_or_else(|| text.to_owned(), |coord| coord.name()),
            Some(_) => text.split_whitespace().next().unwrap_or(text).to_owned(),
        };
        let mut groups: Vec<(String, usize)> = Vec::new();
        let mut keyed: Vec<String> = moves
            .iter()
            .map(|mv| key(mv, &position.display_move(mv)))
            .collect();
        keyed.sort();
        for k in keyed {
            match groups.last_mut() {
                Some((last, n)) if *last == k => *n += 1,
                _ => groups.push((k, 1)),
            }
        }
        if groups.len() < count {
            let listed: Vec<String> = groups.iter().map(|(k, n)| format!("{k} ({n})")).collect();
            let (by, how) = match from {
                None => (
                    "square",
                    format!("`moves #{id} {}` lists those from one square", groups[0].0),
                ),
                Some(_) => (
                    "first move",
                    String::from("type a first move alone to see how the turn can go on"),
                ),
            };
            return format!(
                "{side} has {count} legal moves{label} in game #{id}, too many to list. By \
                 {by}: {}. {}.",
                listed.join(", "),
                uppercase_first(&how)
            );
        }
    }
    let more = count.saturating_sub(MAX_MOVES);
    texts.truncate(MAX_MOVES);
    let tail = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    format!(
        "Legal moves of {side}{label} in game #{id} ({count}): {}{tail}.",
        texts.join(", ")
    )
}

fn uppercase_first(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
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
    let line = match (state.result_text(), state.to_move(), state.row.deadline) {
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
    };
    line + final_turn_note(state).as_deref().unwrap_or_default()
}

/// What the side to move's turn decides when it is a final one (Chesscala's escape and
/// attrition turns), for the replies both players read; starts with a space.
pub fn final_turn_note(state: &GameState) -> Option<String> {
    let last = state.record.position().final_turn()?;
    let next = state.side_label(state.turn());
    let mover = state.side_label(state.turn().other());
    Some(match (last.escape, last.attrition) {
        (true, false) => format!(
            " {mover} did not get out of check, but {next} is in check too: this is {next}'s \
             last turn. If it ends with no king of {next} in check, {next} wins; otherwise the \
             game is drawn."
        ),
        (false, true) => format!(
            " {next} has lost twelve pieces: this is {next}'s last turn. Then {mover} wins, or \
             the game is drawn if {mover} has lost twelve pieces by then."
        ),
        _ => format!(
            " {mover} did not get out of check and {next} has lost twelve pieces: this is \
             {next}'s last turn, and the game is drawn after it."
        ),
    })
}

/// For the start of a game whose standard setup is a reconstruction, a sentence that says so;
/// starts with a space.
pub fn setup_note(state: &GameState) -> &'static str {
    if state.variant.setup_reconstructed() && !state.record.setup() {
        " The setup is the reconstructed standard one: the published diagrams are lost."
    } else {
        ""
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
    let rules = state.record.start().rules();
    text.push_str(&format!(
        "\nRules: {}{}. Takebacks: {}.",
        match rules {
            RuleSet::Standard => String::from("standard"),
            other => format!("{} (`{}`)", other.describe(), other.key()),
        },
        if state.record.setup() {
            ", from a set-up position"
        } else {
            ""
        },
        if state.row.takebacks { "on" } else { "off" }
    ));
    if let (Some(tournament), Some(round)) = (state.row.tournament_id, state.row.tournament_round) {
        text.push_str(&format!(
            "\nTournament #{tournament}, round {round} (`tournament standings {tournament}`)."
        ));
    }
    let side = |offer: &str| {
        if offer == "white" {
            Color::White
        } else {
            Color::Black
        }
    };
    if let Some(offer) = state.row.draw_offer.as_deref() {
        text.push_str(&format!(
            "\n{} offers a draw.",
            state.side_label(side(offer))
        ));
    }
    if let Some(offer) = state.row.takeback_offer.as_deref() {
        text.push_str(&format!(
            "\n{} asks to take back their last move.",
            state.side_label(side(offer))
        ));
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
    let black_first = usize::from(state.record.start().turn() == Color::Black);
    for (index, played) in moves.iter().enumerate() {
        let white = (index + black_first) % 2 == 0;
        if white {
            text.push_str(&format!("{}. ", state.record.move_number(index)));
        } else if index == 0 {
            text.push_str(&format!("{}... ", state.record.move_number(index)));
        }
        text.push_str(&played.display);
        text.push_str(if white { ", " } else { "; " });
    }
    let text = text.trim_end_matches([' ', ',', ';']).to_owned();
    match state.result_text() {
        Some(result) => format!("{text}. {result}."),
        None => text,
    }
}

/// The games of a list, one a line, each with whose turn it is and the deadline (how long
/// is left and until when); for the player's own games (`Mine`, of player `me`) the opponent
/// and where the game is played, for the channel's both players.
pub fn game_list(games: &[GameSummary], scope: Scope, me: i64, now: i64, here: &str) -> Reply {
    if games.is_empty() {
        return Reply::private(match scope {
            Scope::Mine => "You have no games yet. Start one with `challenge`.",
            Scope::Channel => "No games have been played here yet.",
        });
    }
    let mut reply = Reply::private(match scope {
        Scope::Mine => "Your games:",
        Scope::Channel => "Games here:",
    });
    for game in games {
        let white = game.players.0 == me;
        let (mine, theirs) = if white {
            (&game.white, &game.black)
        } else {
            (&game.black, &game.white)
        };
        let mut line = match scope {
            Scope::Mine => format!("\n  #{} {} vs {theirs}", game.id, game.variant),
            Scope::Channel => format!(
                "\n  #{} {}: {} vs {}",
                game.id, game.variant, game.white, game.black
            ),
        };
        match (&game.to_move, &game.result) {
            (Some(name), _) => {
                if scope == Scope::Mine && name == mine && name != theirs {
                    line.push_str(": your move");
                } else {
                    line.push_str(&format!(": {name}'s move"));
                }
                if let Some(deadline) = game.deadline {
                    line.push_str(&format!(
                        ", {} left (until {})",
                        clock::format_duration(deadline - now),
                        clock::format_utc(deadline)
                    ));
                }
            }
            (None, Some(result)) => line.push_str(&format!(": {result}")),
            (None, None) => {}
        }
        reply = reply.and(line);
        if scope == Scope::Mine {
            reply = if game.channel == here {
                reply.and(", here")
            } else {
                reply.and(", in ").channel(&game.channel)
            };
        }
        if let Some(page) = &game.page {
            reply = reply.and(format!(" {page}"));
        }
    }
    reply
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

/// The pieces of a game: letter, name, how it looks in the pictures where that helps, and how
/// it moves. Chak's two birds in particular are easy to confuse at first.
#[must_use]
pub fn pieces(variant: Variant) -> String {
    let lines: &[&str] = match variant {
        Variant::Chak => &[
            "K king: one step any way; on the river or beyond it becomes a divine king",
            "D divine king (gold crown): slides one or two squares any way; never goes back \
             behind the river",
            "J jaguar: a knight's leap, or one step any way",
            "Q quetzal, the bird in profile with a long tail, on a perch: hops over exactly one \
             piece along a line, then stops beyond it or takes the first piece there",
            "V vulture, the bird facing you with its wings spread: leaps like a knight",
            "S shaman: one step diagonally, or straight forward or back",
            "R serpent: moves like a rook",
            "P pawn: one step forward or sideways, takes one step diagonally forward; on the \
             river or beyond it becomes a warrior",
            "W warrior (gold marks): moves like the shaman; never goes back behind the river",
            "O offering, on the altar: never moves; a divine king that reaches the enemy \
             altar wins",
        ],
        Variant::Shakti => &[
            "K king: to the first tile in any direction; in check, one step",
            "W warrior: to the first tile in any direction, or jumps to the second and removes \
             the tile between; never captures",
        ],
        Variant::Chad => &[
            "K king: one step or a knight's leap, inside its castle only",
            "R rook: as in chess; becomes a queen in the enemy castle",
            "Q queen: as in chess",
        ],
        Variant::Chesscala => &[
            "K king: steps to the other square of its field; never captured",
            "Q queen, R rook, B bishop, N knight: capture as in chess",
            "P pawn: captures one step diagonally forward; on the last rank it becomes a man",
            "M man: captures like a king",
            "H hammer: captures by advancing to the square before its target",
            "O bomb: captures inside its own stack",
        ],
    };
    let note = match variant {
        Variant::Chak => {
            "\nWhite's pieces are light, Green's dark; positions write Green's letters in lower \
             case."
        }
        _ => "",
    };
    let lines: Vec<String> = lines.iter().map(|line| format!("  {line}")).collect();
    format!("{} pieces:\n{}{note}", variant.name(), lines.join("\n"))
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
                "  {}. {} {:.0} (±{:.0}, {})\n",
                place + 1,
                row.display_name,
                row.rating,
                row.deviation,
                clock::plural(row.games, "game")
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
