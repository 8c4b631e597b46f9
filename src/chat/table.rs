//! The command table: every command's name, aliases, usage and summary, in the order help
//! lists them, and the help text made from it. The parser in [`super::command`] reads the
//! same table.

use crate::rules::Variant;

/// One row of the command table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Spec {
    /// The command word.
    pub name: &'static str,
    /// Other words for it.
    pub aliases: &'static [&'static str],
    /// Its arguments, as shown in help.
    pub usage: &'static str,
    /// What it does, in one line.
    pub summary: &'static str,
}

/// Every command, in the order help lists them.
pub const COMMANDS: &[Spec] = &[
    Spec {
        name: "challenge",
        aliases: &["play", "new"],
        usage: "[@user | name] [game] [N days] [white|black|random] [rated|casual] [level 1-5] \
                [nodraws] [takebacks|notakebacks] [from <position>]",
        summary: "challenge someone (or anyone here) to a game; default Chak, 3 days per move, \
                  rated; challenge me to play the built-in opponent (level 1-5, default 3, \
                  casual); `nodraws` plays Chesscala without draws, `from` and a position \
                  (last) start from it",
    },
    Spec {
        name: "accept",
        aliases: &[],
        usage: "[#challenge]",
        summary: "accept a challenge",
    },
    Spec {
        name: "decline",
        aliases: &[],
        usage: "[#challenge]",
        summary: "decline a challenge",
    },
    Spec {
        name: "cancel",
        aliases: &[],
        usage: "[#challenge]",
        summary: "take back your challenge",
    },
    Spec {
        name: "move",
        aliases: &["m", "mv"],
        usage: "[#game] <move>",
        summary: "play a move (you can also just type the move)",
    },
    Spec {
        name: "board",
        aliases: &["b", "show"],
        usage: "[#game]",
        summary: "show the board",
    },
    Spec {
        name: "moves",
        aliases: &["legal"],
        usage: "[#game] [square]",
        summary: "list the legal moves, or those of the piece on a square",
    },
    Spec {
        name: "resign",
        aliases: &[],
        usage: "[#game]",
        summary: "resign the game (asks first: `resign` again within a minute, or `resign \
                  confirm`)",
    },
    Spec {
        name: "draw",
        aliases: &[],
        usage: "[#game] [offer|accept|decline|claim]",
        summary: "offer, accept or decline a draw, or claim one the rules allow",
    },
    Spec {
        name: "takeback",
        aliases: &["undo"],
        usage: "[#game] [accept|decline]",
        summary: "ask to take back your last move, or answer your opponent's request",
    },
    Spec {
        name: "note",
        aliases: &[],
        usage: "[#game] <text>",
        summary: "keep a private note on a game (only you ever see it)",
    },
    Spec {
        name: "notes",
        aliases: &[],
        usage: "[#game] [clear]",
        summary: "your private notes on a game, or delete them",
    },
    Spec {
        name: "try",
        aliases: &["sandbox"],
        usage: "[#game] <moves...> | <game> <position> <moves...>",
        summary: "play moves on a private copy of the game (or of any position) and see the \
                  result; nothing is stored",
    },
    Spec {
        name: "abort",
        aliases: &[],
        usage: "[#game]",
        summary: "call the game off before both sides have moved",
    },
    Spec {
        name: "conditional",
        aliases: &["if", "cond", "premove"],
        usage: "[#game] <their move> [then] <your reply> [more pairs] | list | clear",
        summary: "conditional moves: when your opponent plays the move you expect, your reply is \
                  played at once (only you see them)",
    },
    Spec {
        name: "give",
        aliases: &["moretime"],
        usage: "time [#game]",
        summary: "give your opponent one more day to move (once less than their full time per \
                  move minus an hour is left)",
    },
    Spec {
        name: "vacation",
        aliases: &["leave", "holiday"],
        usage: "[7d | end | allowance N]",
        summary: "leave: the clocks of your games stand still while it's your move (30 days a \
                  year unless this community's managers say otherwise)",
    },
    Spec {
        name: "rematch",
        aliases: &[],
        usage: "[#game]",
        summary: "offer a new game with colours swapped",
    },
    Spec {
        name: "games",
        aliases: &["list"],
        usage: "[here]",
        summary: "list your games, or this channel's",
    },
    Spec {
        name: "info",
        aliases: &["game"],
        usage: "[#game]",
        summary: "players, clock and state",
    },
    Spec {
        name: "history",
        aliases: &["pgn"],
        usage: "[#game]",
        summary: "the moves so far",
    },
    Spec {
        name: "export",
        aliases: &[],
        usage: "[#game]",
        summary: "the game record with headers",
    },
    Spec {
        name: "gif",
        aliases: &["replay"],
        usage: "[#game]",
        summary: "an animated replay",
    },
    Spec {
        name: "analyse",
        aliases: &["analyze", "analysis"],
        usage: "[#game]",
        summary: "the engine's analysis of a finished game: blunders, mistakes, accuracy and a \
                  graph (games between people get one when they end)",
    },
    Spec {
        name: "rules",
        aliases: &["games?"],
        usage: "[game]",
        summary: "the rules of a game",
    },
    Spec {
        name: "settings",
        aliases: &["set"],
        usage: "[pings on|off] [view mine|mover|white|black] | reminders 24h 4h 1h|off | \
                digest 08:00 Europe/Berlin|off",
        summary: "your turn pings, board viewpoint, reminders before your deadlines and daily \
                  digest",
    },
    Spec {
        name: "leaderboard",
        aliases: &["top", "ratings"],
        usage: "[game]",
        summary: "the best rated players here",
    },
    Spec {
        name: "stats",
        aliases: &["rating"],
        usage: "[@user | name]",
        summary: "wins, losses, draws and ratings here, with the latest rating changes",
    },
    Spec {
        name: "limits",
        aliases: &["caps"],
        usage: "[challenges|games|bot|opponent N]",
        summary: "this community's caps per player; its managers can change them",
    },
    Spec {
        name: "threads",
        aliases: &[],
        usage: "[on|off]",
        summary: "whether each game started here gets a thread of its own; its managers can \
                  change it",
    },
    Spec {
        name: "setups",
        aliases: &[],
        usage: "[rated|casual]",
        summary: "whether games from a position may be rated here; its managers can change it",
    },
    Spec {
        name: "tournament",
        aliases: &["tournaments", "tourney"],
        usage: "[create \"Name\" [game] [roundrobin|double|swiss N rounds] [N days] \
                [rated|casual] [max N] [start in 2d | start 2026-01-10 18:00] [round N days] \
                | join|leave|start|withdraw|standings|info [N] | list | creators \
                anyone|managers]",
        summary: "correspondence tournaments: create one, join and leave it before it starts, \
                  start it (its organiser), withdraw, see the standings",
    },
    Spec {
        name: "help",
        aliases: &["?", "commands"],
        usage: "[command | game pieces]",
        summary: "this help, one command in detail, or a game's pieces (`help chak pieces`)",
    },
];

/// The table row for a command word, if it is one.
#[must_use]
pub fn spec(word: &str) -> Option<&'static Spec> {
    let word = word.to_ascii_lowercase();
    COMMANDS
        .iter()
        .find(|spec| spec.name == word || spec.aliases.contains(&word.as_str()))
}

/// Every game as its display name and stored key, for pickers such as slash-command choices.
pub fn games() -> impl Iterator<Item = (&'static str, &'static str)> {
    Variant::ALL.iter().map(|v| (v.name(), v.key()))
}

/// The games' names, for replies.
#[must_use]
pub fn game_list() -> String {
    Variant::ALL
        .iter()
        .map(|v| v.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// More about a command than its summary, for `help <command>`.
fn details(name: &str) -> &'static str {
    match name {
        "settings" => {
            " Turn pings off and I stop pinging you about your turn: when a game starts with \
             your move, when your opponent has moved (also on Discord, where I'd send a direct \
             message), and in the reminders 24 hours and 1 hour before your deadline, which \
             then name you without a ping. You are still pinged for what waits for your \
             answer: a challenge to you and a draw offer."
        }
        "takeback" => {
            " Your last move goes, and your opponent's reply to it if they made one. Takebacks \
             are on in casual games and off in rated ones unless the challenge says \
             `takebacks` or `notakebacks`; against me one is granted at once. A move by \
             either side withdraws the request."
        }
        "try" => {
            " The answer is private: the board after the moves, the moves in display \
             notation and who would be to move. On any position: `try chak start e4`."
        }
        "conditional" => {
            " Enter lines while your opponent is to move: `if e5 then Vd8`, or longer, pairs \
             of their move and your reply: `if e5 Vd8 f4 Je6` (in Chesscala, separate turns \
             with `;`). Up to 30 lines of 30 moves each; every move is checked when you enter \
             it. When your opponent plays the first move of a line, your reply is played at \
             once and the line goes on; lines their move did not follow are dropped."
        }
        "vacation" => {
            " `vacation 7d` (or `2d 12h`, at least a day) starts a leave now; `vacation end` \
             ends it early; `vacation` alone shows it and the days left this calendar year. \
             Leave is counted to the hour. A deadline already passed stays passed. Your \
             opponents are told in each game when it starts and ends."
        }
        "analyse" => {
            " A move that costs its player 0.1 of their winning chances (from -1, lost, to 1, \
             won, as lichess counts them) is an inaccuracy `?!`, 0.2 a mistake `?`, 0.3 a \
             blunder `??`; each comes with the engine's better move. The engine looks at every \
             position of the game within the same budget, so the figures come out the same \
             every time. `export` then gives the record with the marks and evaluations."
        }
        "tournament" => {
            " A round robin starts every game at once (Berger tables; a double round robin \
             plays each pair with both colours), each game with its own clock; a Swiss pairs \
             each round by the FIDE Dutch system once the last one has ended (`round 10 days` \
             adjudicates games still going after ten days as draws). Tournament games are \
             ordinary games: move in them by number. Withdrawing follows FIDE's rules: from \
             a round robin before you have played half of your games, all your results are \
             annulled (your games count for no one, and those still going end without a \
             result); later, your remaining games are forfeited to your opponents. In a Swiss \
             your unfinished game is forfeited and you are paired no more. The standings say \
             which happened. In a tournament's thread, `tournament` commands need no number. \
             Standings: points, then Sonneborn-Berger (round robin) or Buchholz Cut-1 \
             and Buchholz (Swiss). Who may create tournaments is the community's setting \
             (`tournament creators anyone|managers`, managers only)."
        }
        "resign" => {
            " Resigning can't be taken back, so I ask first: on Discord with a button, \
             elsewhere `resign` again within a minute (or `resign confirm` at once) resigns."
        }
        _ => "",
    }
}

/// The help text: every command with its usage, or one command in detail.
#[must_use]
pub fn help(topic: Option<&str>) -> String {
    let mut words = topic.unwrap_or_default().split_whitespace();
    let first = words.next();
    if let Some(variant) = first.and_then(Variant::from_name) {
        return match words.next() {
            Some("pieces" | "piece" | "legend") | None => super::text::pieces(variant),
            Some(other) => format!(
                "I can tell about {}'s pieces: `help {} pieces`. \"{other}\" I don't know.",
                variant.name(),
                variant.key()
            ),
        };
    }
    if let Some(spec) = first.and_then(spec) {
        let aliases = if spec.aliases.is_empty() {
            String::new()
        } else {
            format!(" (also: {})", spec.aliases.join(", "))
        };
        return format!(
            "`{} {}`: {}{aliases}.{}",
            spec.name,
            spec.usage,
            spec.summary,
            details(spec.name)
        );
    }
    let mut text =
        String::from("Commands (a game or challenge can be named by number, like #12):\n");
    for spec in COMMANDS {
        text.push_str(&format!(
            "  {} {} - {}\n",
            spec.name, spec.usage, spec.summary
        ));
    }
    text.push_str(&format!(
        "Games: {}. A move typed on its own is played when it can only mean one game.",
        game_list()
    ));
    text
}
