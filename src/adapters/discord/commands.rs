//! The slash commands: their definitions and options, and the command text an invoked one
//! stands for.

use serenity::all::{
    CommandDataOption, CommandDataOptionValue, CommandOptionType, CreateCommand,
    CreateCommandOption, InstallationContext, InteractionContext, Permissions, UserId,
};

use crate::chat;

/// The commands whose answers only the asker sees: they are deferred ephemerally.
pub(super) const PRIVATE_COMMANDS: &[&str] = &[
    "moves",
    "games",
    "info",
    "history",
    "export",
    "rules",
    "settings",
    "help",
    "threads",
    "limits",
    "note",
    "notes",
    "try",
    "setups",
    "vacation",
    "conditional",
];

/// The slash commands: one per command of the grammar, plus the server's thread setting.
#[must_use]
pub fn slash_commands() -> Vec<CreateCommand> {
    // `threads` is the server's own command below, for managers only.
    let mut commands: Vec<CreateCommand> = chat::COMMANDS
        .iter()
        .filter(|spec| spec.name != "threads")
        .map(|spec| {
            CreateCommand::new(spec.name)
                .description(short(spec.summary, 100))
                .set_options(options(spec.name))
                .integration_types(installs())
                .contexts(vec![
                    InteractionContext::Guild,
                    InteractionContext::BotDm,
                    InteractionContext::PrivateChannel,
                ])
        })
        .collect();
    commands.push(
        CreateCommand::new("threads")
            .description("Whether each game in this server gets a thread of its own")
            .default_member_permissions(Permissions::MANAGE_GUILD)
            .integration_types(installs())
            .contexts(vec![InteractionContext::Guild])
            .add_option(on_off("threads", "on or off").required(true)),
    );
    commands
}

/// Pigeon can be added to a server, and by a user to their own account (then its commands
/// work in their direct and group messages too).
fn installs() -> Vec<InstallationContext> {
    vec![InstallationContext::Guild, InstallationContext::User]
}

pub(super) fn short(text: &str, limit: usize) -> String {
    text.chars().take(limit).collect()
}

pub(super) fn game_option() -> CreateCommandOption {
    CreateCommandOption::new(CommandOptionType::Integer, "game", "the game number")
        .min_int_value(1)
        .set_autocomplete(true)
}

pub(super) fn string_option(
    name: &str,
    description: &str,
    choices: &[&str],
) -> CreateCommandOption {
    choices.iter().fold(
        CreateCommandOption::new(CommandOptionType::String, name, description),
        |option, choice| option.add_string_choice(*choice, *choice),
    )
}

pub(super) fn on_off(name: &str, description: &str) -> CreateCommandOption {
    string_option(name, description, &["on", "off"])
}

pub(super) fn variant_option(name: &str) -> CreateCommandOption {
    chat::table::games().fold(
        CreateCommandOption::new(CommandOptionType::String, name, "which game"),
        |option, (display, key)| option.add_string_choice(display, key),
    )
}

/// The options of each slash command; their values become the command's words.
pub(super) fn options(command: &str) -> Vec<CreateCommandOption> {
    let challenge = || {
        CreateCommandOption::new(
            CommandOptionType::Integer,
            "challenge",
            "the challenge number",
        )
        .min_int_value(1)
    };
    match command {
        "challenge" => vec![
            CreateCommandOption::new(
                CommandOptionType::User,
                "opponent",
                "who to play (leave out for anyone here)",
            ),
            variant_option("variant"),
            CreateCommandOption::new(CommandOptionType::Integer, "days", "days per move")
                .min_int_value(1)
                .max_int_value(14),
            string_option("colour", "your colour", &["white", "black", "random"]),
            string_option(
                "rating",
                "whether the result counts for ratings (default: rated)",
                &["rated", "casual"],
            ),
            CreateCommandOption::new(
                CommandOptionType::Integer,
                "level",
                "against me: how strongly I play (1-5, default 3)",
            )
            .min_int_value(1)
            .max_int_value(5),
            string_option(
                "rules",
                "Chesscala: play without draws (default: standard)",
                &["standard", "nodraws"],
            ),
            string_option(
                "takeback",
                "whether takebacks are allowed (default: in casual games)",
                &["takebacks", "notakebacks"],
            ),
            CreateCommandOption::new(
                CommandOptionType::String,
                "position",
                "start from this position text instead of the standard start",
            ),
        ],
        "takeback" => vec![
            string_option(
                "action",
                "what to do (default: ask)",
                &["ask", "accept", "decline"],
            ),
            game_option(),
        ],
        "note" => vec![
            CreateCommandOption::new(CommandOptionType::String, "text", "the note")
                .required(true)
                .max_length(1000),
            game_option(),
        ],
        "notes" => vec![
            game_option(),
            string_option("action", "delete them all", &["clear"]),
        ],
        "try" => vec![
            CreateCommandOption::new(
                CommandOptionType::String,
                "moves",
                "the moves to try, separated by spaces",
            )
            .required(true),
            game_option(),
            variant_option("variant"),
            CreateCommandOption::new(
                CommandOptionType::String,
                "position",
                "with a game: try on this position text instead (or start)",
            ),
        ],
        "setups" => vec![string_option(
            "rating",
            "whether games from a position may be rated here (managers only)",
            &["rated", "casual"],
        )],
        "accept" | "decline" | "cancel" => vec![challenge()],
        "move" => vec![
            CreateCommandOption::new(CommandOptionType::String, "move", "the move")
                .required(true)
                .set_autocomplete(true),
            game_option(),
        ],
        "moves" => vec![
            game_option(),
            CreateCommandOption::new(
                CommandOptionType::String,
                "square",
                "only the moves of the piece here",
            ),
        ],
        "draw" => vec![
            string_option(
                "action",
                "what to do (default: offer)",
                &["offer", "accept", "decline", "claim"],
            ),
            game_option(),
        ],
        "games" => vec![string_option(
            "scope",
            "yours or this channel's",
            &["mine", "here"],
        )],
        "rules" => vec![variant_option("variant")],
        "settings" => vec![
            on_off("pings", "mention you when it is your turn"),
            string_option(
                "view",
                "the side boards are seen from",
                &["mine", "mover", "white", "black"],
            ),
            CreateCommandOption::new(
                CommandOptionType::String,
                "reminders",
                "times before a deadline to remind you (24h 4h 1h, or off)",
            ),
            CreateCommandOption::new(
                CommandOptionType::String,
                "digest",
                "a daily list of games awaiting you (08:00 Europe/Berlin, or off)",
            ),
        ],
        "limits" => vec![
            string_option(
                "cap",
                "the cap to change (managers only)",
                &["challenges", "games", "bot", "opponent"],
            ),
            CreateCommandOption::new(CommandOptionType::Integer, "value", "its new value")
                .min_int_value(1),
        ],
        "conditional" => vec![
            CreateCommandOption::new(
                CommandOptionType::String,
                "line",
                "their move, your reply, and more pairs (e5 Vd8 f4 Je6); or list, clear",
            )
            .set_autocomplete(true),
            game_option(),
        ],
        "vacation" => vec![
            CreateCommandOption::new(
                CommandOptionType::String,
                "leave",
                "how long from now (7d, 2d 12h), or end; leave out to see your leave",
            ),
            CreateCommandOption::new(
                CommandOptionType::Integer,
                "allowance",
                "days of leave per year here (managers only)",
            )
            .min_int_value(0)
            .max_int_value(crate::service::MOST_LEAVE_DAYS.unsigned_abs()),
        ],
        "tournament" => tournament_options(),
        "help" => vec![CreateCommandOption::new(
            CommandOptionType::String,
            "command",
            "one command in detail, or a game's pieces (chak pieces)",
        )],
        _ => vec![game_option()],
    }
}

/// `/tournament`'s subcommands: create (with the tournament's terms), the ones about one
/// tournament (an optional number), list, and creators.
fn tournament_options() -> Vec<CreateCommandOption> {
    let number = || {
        CreateCommandOption::new(
            CommandOptionType::Integer,
            "tournament",
            "the tournament number",
        )
        .min_int_value(1)
    };
    let sub = |name: &str, description: &str| {
        CreateCommandOption::new(CommandOptionType::SubCommand, name, description)
    };
    let mut options = vec![
        sub("create", "create a tournament here")
            .add_sub_option(
                CreateCommandOption::new(CommandOptionType::String, "name", "its name")
                    .required(true)
                    .max_length(40),
            )
            .add_sub_option(variant_option("variant"))
            .add_sub_option(string_option(
                "format",
                "round robin (default), double round robin or Swiss",
                &["roundrobin", "double", "swiss"],
            ))
            .add_sub_option(
                CreateCommandOption::new(CommandOptionType::Integer, "rounds", "Swiss: rounds")
                    .min_int_value(1)
                    .max_int_value(crate::service::tournaments::MOST_ROUNDS.unsigned_abs()),
            )
            .add_sub_option(
                CreateCommandOption::new(CommandOptionType::Integer, "days", "days per move")
                    .min_int_value(1)
                    .max_int_value(14),
            )
            .add_sub_option(string_option(
                "rating",
                "whether results count for ratings (default: rated)",
                &["rated", "casual"],
            ))
            .add_sub_option(
                CreateCommandOption::new(CommandOptionType::Integer, "max", "most players")
                    .min_int_value(3)
                    .max_int_value(crate::service::tournaments::MOST_PLAYERS.unsigned_abs()),
            )
            .add_sub_option(CreateCommandOption::new(
                CommandOptionType::String,
                "start",
                "when it starts by itself: in 2d, or 2026-01-10 18:00 (UTC); default: by you",
            ))
            .add_sub_option(
                CreateCommandOption::new(
                    CommandOptionType::Integer,
                    "round_days",
                    "Swiss: days a round may last before its games are adjudicated",
                )
                .min_int_value(1)
                .max_int_value(60),
            ),
    ];
    for (name, description) in [
        ("join", "join a tournament before it starts"),
        ("leave", "leave a tournament before it starts"),
        ("start", "start your tournament now"),
        ("withdraw", "withdraw: your unfinished games are forfeited"),
        ("standings", "the standings"),
        ("info", "players, terms and state"),
    ] {
        options.push(sub(name, description).add_sub_option(number()));
    }
    options.push(sub("list", "this server's tournaments"));
    options.push(
        sub(
            "creators",
            "who may create tournaments here (managers only)",
        )
        .add_sub_option(
            string_option("who", "anyone, or managers only", &["anyone", "managers"])
                .required(true),
        ),
    );
    options
}

/// The command text a slash command stands for, and the users it names.
pub(super) fn command_text(name: &str, options: &[CommandDataOption]) -> (String, Vec<UserId>) {
    let mut words = vec![name.to_owned()];
    let mut users = Vec::new();
    let mut flattened = Vec::new();
    for option in options {
        // A subcommand is its name and then its own options.
        if let CommandDataOptionValue::SubCommand(inner) = &option.value {
            words.push(option.name.clone());
            flattened.extend(inner.iter().cloned());
        } else {
            flattened.push(option.clone());
        }
    }
    for option in &flattened {
        let word = match (&option.value, option.name.as_str()) {
            (CommandDataOptionValue::User(id), _) => {
                users.push(*id);
                continue;
            }
            (CommandDataOptionValue::Integer(n), "game") => format!("#{n}"),
            (CommandDataOptionValue::Integer(n), "days") => format!("{n} days"),
            (CommandDataOptionValue::Integer(n), "level") => format!("level {n}"),
            (CommandDataOptionValue::Integer(n), "allowance") => format!("allowance {n}"),
            (CommandDataOptionValue::Integer(n), "rounds") => format!("{n} rounds"),
            (CommandDataOptionValue::Integer(n), "max") => format!("max {n}"),
            (CommandDataOptionValue::Integer(n), "round_days") => format!("round {n} days"),
            (CommandDataOptionValue::String(text), "name") if name == "tournament" => {
                format!("\"{}\"", text.replace('"', "'"))
            }
            (CommandDataOptionValue::String(text), "start") if name == "tournament" => {
                format!("start {text}")
            }
            (CommandDataOptionValue::Integer(n), _) => n.to_string(),
            (CommandDataOptionValue::String(text), "pings" | "view" | "reminders" | "digest") => {
                format!("{} {text}", option.name)
            }
            (CommandDataOptionValue::String(text), "position") if name == "challenge" => {
                format!("from {text}")
            }
            (CommandDataOptionValue::String(text), _) => text.clone(),
            _ => continue,
        };
        words.push(word);
    }
    // The game number goes first, so a move text never swallows it.
    if let Some(at) = words.iter().position(|w| w.starts_with('#')) {
        let game = words.remove(at);
        words.insert(1, game);
    }
    // `from` and its position come last: positions hold spaces.
    if let Some(at) = words.iter().position(|w| w.starts_with("from ")) {
        let from = words.remove(at);
        words.push(from);
    }
    if name == "try" {
        tried_words(&mut words, options);
    }
    (words.join(" "), users)
}

/// `try`'s words in the grammar's order: the game number or the game and its position, then
/// the moves (Discord sends the required `moves` first).
fn tried_words(words: &mut Vec<String>, options: &[CommandDataOption]) {
    let text = |name: &str| {
        options.iter().find_map(|option| match &option.value {
            CommandDataOptionValue::String(text) if option.name == name => Some(text.clone()),
            _ => None,
        })
    };
    let Some(moves) = text("moves") else { return };
    let mut ordered: Vec<String> = vec![words[0].clone()];
    match text("variant") {
        Some(variant) => {
            ordered.push(variant);
            ordered.push(text("position").unwrap_or_else(|| String::from("start")));
        }
        None => ordered.extend(words.iter().filter(|w| w.starts_with('#')).cloned()),
    }
    ordered.push(moves);
    *words = ordered;
}

pub(super) fn is_private(command: &str) -> bool {
    let word = command.split_whitespace().next().unwrap_or_default();
    PRIVATE_COMMANDS.contains(&word)
}

pub(super) fn needs_confirmation(command: &str) -> bool {
    command.split_whitespace().next() == Some("resign")
}

#[cfg(test)]
mod tests {
    use super::*;

    use serenity::json::{Value, json};

    /// An option of a slash command as Discord sends it (`kind`: 3 text, 4 integer, 6 user).
    fn option(name: &str, kind: u8, value: Value) -> CommandDataOption {
        let mut option = json!({ "name": name, "type": kind });
        option["value"] = value;
        serenity::json::from_value(option).expect("a valid option")
    }

    #[test]
    fn slash_options_become_command_words() {
        let (text, users) = command_text(
            "challenge",
            &[
                option("opponent", 6, json!("42")),
                option("variant", 3, json!("shakti")),
                option("days", 4, json!(5)),
                option("colour", 3, json!("white")),
                option("rating", 3, json!("casual")),
                option("level", 4, json!(2)),
            ],
        );
        assert_eq!(text, "challenge shakti 5 days white casual level 2");
        assert_eq!(users, [UserId::new(42)]);
        let (text, _) = command_text(
            "move",
            &[
                option("move", 3, json!("e3e4")),
                option("game", 4, json!(7)),
            ],
        );
        assert_eq!(text, "move #7 e3e4");
        let sub = |name: &str, options: Value| -> CommandDataOption {
            serenity::json::from_value(json!({ "name": name, "type": 1, "options": options }))
                .expect("a valid subcommand")
        };
        let create = sub(
            "create",
            json!([
                {"name": "name", "type": 3, "value": "Autumn Chak"},
                {"name": "format", "type": 3, "value": "swiss"},
                {"name": "rounds", "type": 4, "value": 5},
                {"name": "start", "type": 3, "value": "in 2d"},
            ]),
        );
        let (text, _) = command_text("tournament", &[create]);
        assert_eq!(
            text,
            "tournament create \"Autumn Chak\" swiss 5 rounds start in 2d"
        );
        let join = sub(
            "join",
            json!([{"name": "tournament", "type": 4, "value": 3}]),
        );
        let (text, _) = command_text("tournament", &[join]);
        assert_eq!(text, "tournament join 3");
        let (text, _) = command_text("settings", &[option("pings", 3, json!("off"))]);
        assert_eq!(text, "settings pings off");
        let (text, _) = command_text(
            "challenge",
            &[
                option("position", 3, json!("start")),
                option("variant", 3, json!("chak")),
            ],
        );
        assert_eq!(text, "challenge chak from start");
        let (text, _) = command_text(
            "try",
            &[
                option("moves", 3, json!("e3e4 e7e6")),
                option("variant", 3, json!("chak")),
            ],
        );
        assert_eq!(text, "try chak start e3e4 e7e6");
        let (text, _) = command_text(
            "try",
            &[
                option("moves", 3, json!("e3e4")),
                option("game", 4, json!(3)),
            ],
        );
        assert_eq!(text, "try #3 e3e4");
    }

    #[test]
    fn every_command_of_the_grammar_is_a_slash_command() {
        let commands = serenity::json::to_value(slash_commands()).expect("serialises");
        let names: Vec<&str> = commands
            .as_array()
            .expect("a list")
            .iter()
            .filter_map(|c| c["name"].as_str())
            .collect();
        for spec in chat::COMMANDS {
            assert!(names.contains(&spec.name), "{} is missing", spec.name);
        }
    }
}
