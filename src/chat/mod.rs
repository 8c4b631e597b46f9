//! The chat layer: one command grammar for every platform, and the replies to each command.
//!
//! Adapters hand over an [`Incoming`] message and send back the [`Reply`]s that [`handle`]
//! returns. Whether a message is addressed to the bot (a prefix, a slash command, the console)
//! decides how much is answered: a message not addressed to the bot is only looked at as a
//! bare move, and ignored quietly when it is none.

mod analysis;
mod announce;
mod choices;
pub mod command;
mod correspondence;
pub mod inert;
mod options;
mod reply;
pub mod table;
mod text;
mod tournaments;
mod typed;

use crate::rules::{Color, MoveError, Variant};
use crate::service::{
    LeaveRequest, Place, REPLAY_MOVES, ReadMove, Resigning, Service, ServiceError, SettingsChange,
    Terms, User, Verdict, clock, closest, did_you_mean, viewpoint,
};
use crate::store::SettingsRow;

pub use choices::{line_choices, move_choices, open_games};
pub use command::{Command, ConditionalAction, UsageError};
pub use reply::{Action, MAX_REPLY, Means, Part, Picture, Reply, Style, Topic};
pub use table::{COMMANDS, Spec, help};
pub use tournaments::{TournamentCommand, standings_text};
pub use typed::ascii_forms;

use announce::{
    board_reply, challenged_replies, draw_reply, ended_reply, move_and_answer, start_reply,
};
pub use announce::{
    notice_reply, thread_name, thread_welcome, tournament_thread_welcome, user_of as player_user,
};

/// Longer messages are not read at all.
pub const MAX_MESSAGE: usize = 2000;

/// A chat message for the bot.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Incoming {
    /// Where it was written.
    pub place: Place,
    /// Who wrote it.
    pub user: User,
    /// The text, without any command prefix.
    pub text: String,
    /// The platform's id of the message, to act on a duplicate delivery only once.
    pub event_id: Option<String>,
    /// Whether it was addressed to the bot (prefix, slash command, console).
    pub addressed: bool,
    /// The users the message mentions, in order.
    pub mentions: Vec<User>,
    /// Whether the writer may change the community's settings (Discord: Manage Server;
    /// Matrix: power level 50; the console: everyone).
    pub manager: bool,
    /// What people can answer the bot with here, for the hints in replies.
    pub means: Means,
}

/// Answers one chat message.
///
/// Chatter not addressed to the bot is read only when it is plausibly a move of the writer in
/// a game here awaiting it; anything else is left alone: no answer, no count against the rate
/// limit, nothing written. Then a duplicate delivery of the same platform event is dropped,
/// over-long and empty messages are answered, and the sender's rate limit is counted.
/// The names of the sender and of the users mentioned are made [`inert`](inert::user), and the
/// text is read in its [ASCII forms](ascii_forms). No reply is longer than [`MAX_REPLY`]: a
/// longer one goes as several.
pub async fn handle(service: &Service, incoming: &Incoming) -> Vec<Reply> {
    let mut incoming = inert::incoming(incoming);
    incoming.text = ascii_forms(&incoming.text);
    answer(service, &incoming)
        .await
        .into_iter()
        .flat_map(|reply| reply.split(MAX_REPLY))
        .collect()
}

async fn answer(service: &Service, incoming: &Incoming) -> Vec<Reply> {
    let text = incoming.text.trim();
    if !incoming.addressed {
        return chatter(service, incoming, text).await;
    }
    if let Some(refusal) = admit(service, incoming).await {
        return refusal;
    }
    if text.len() > MAX_MESSAGE {
        return vec![Reply::private(format!(
            "That message is too long for me to read (over {MAX_MESSAGE} characters). \
             Commands are short: type `help` to see them."
        ))];
    }
    if text.is_empty() {
        return vec![Reply::private("Yes? Type `help` to see what I can do.")];
    }
    match command::parse(text) {
        Some(Ok(command)) => run(service, incoming, command).await,
        Some(Err(usage)) if usage.name == "settings" => {
            // A setting misread: what can be changed, and how it is set now.
            let now = service
                .settings(&incoming.user, &SettingsChange::default())
                .await
                .map(|settings| format!(" Now: {}", settings_text(&settings)))
                .unwrap_or_default();
            vec![Reply::private(format!("{}{now}", usage.problem))]
        }
        Some(Err(usage)) => vec![Reply::private(usage.to_string())],
        None => bare_move(service, incoming, text).await,
    }
}

/// Lets a message through once: `None` to go on, or the replies (maybe none) that end it
/// here: a duplicate delivery of the same event, or a sender over the rate limit.
async fn admit(service: &Service, incoming: &Incoming) -> Option<Vec<Reply>> {
    if let Some(event) = &incoming.event_id {
        match service
            .first_delivery(&incoming.place.platform, event)
            .await
        {
            Ok(true) => {}
            Ok(false) => return Some(Vec::new()),
            Err(error) => return Some(vec![Reply::private(error.to_string())]),
        }
    }
    match service.check_rate(&incoming.user) {
        Verdict::Allowed => None,
        Verdict::Limited { first: true, wait } => Some(vec![Reply::private(format!(
            "Easy there: that's a lot of commands in a short time. Try again in {}; I'll \
             skip what you send until then.",
            clock::plural(wait, "second")
        ))]),
        Verdict::Limited { first: false, .. } => Some(Vec::new()),
    }
}

/// A message not addressed to the bot: played when it is plausibly a move of the writer's
/// (a move, maybe with a short remark after it, in a game here awaiting them), and answered
/// only about that move. Everything else stays unanswered and uncounted: "resign" said in
/// passing is not a command, and "hello" is no move.
async fn chatter(service: &Service, incoming: &Incoming, text: &str) -> Vec<Reply> {
    if text.is_empty() || !looks_like_move(text) {
        return Vec::new();
    }
    let (place, user) = (&incoming.place, &incoming.user);
    let Ok(Some(read)) = service.read_move(place, user, text).await else {
        return Vec::new();
    };
    if let Some(refusal) = admit(service, incoming).await {
        return refusal;
    }
    let command = Command::Move {
        game: read.game,
        text: read.text.clone(),
    };
    match play_read(service, incoming, read).await {
        Ok(replies) => replies,
        Err(
            error @ (ServiceError::Move { .. }
            | ServiceError::Changed
            | ServiceError::CannotSave
            | ServiceError::WhichGame { .. }
            | ServiceError::TimeRanOut { .. }
            | ServiceError::OnHold(_)
            | ServiceError::GameOver { .. }
            | ServiceError::Internal(_)),
        ) => error_replies(service, incoming, &command, error).await,
        Err(_) => Vec::new(),
    }
}

/// Plays a chat line read as a move, from the game as it was read, and answers it.
async fn play_read(
    service: &Service,
    incoming: &Incoming,
    read: ReadMove,
) -> Result<Vec<Reply>, ServiceError> {
    let done = service
        .play_read(&incoming.place, &incoming.user, read)
        .await?;
    Ok(move_and_answer(service, &done, incoming.means).await)
}

/// A message to the bot that is no command: a move, if it can only mean one game. Text that
/// is no move in any game of the writer's here (`hello pigeon`) is an unknown command, with
/// the closest commands and legal moves; a move out of turn is told whose turn it is.
async fn bare_move(service: &Service, incoming: &Incoming, text: &str) -> Vec<Reply> {
    let (place, user) = (&incoming.place, &incoming.user);
    // A move with a short remark after it is read as the move.
    let (command, read) = match service.read_move(place, user, text).await {
        Ok(Some(read)) => (
            Command::Move {
                game: read.game,
                text: read.text.clone(),
            },
            Some(read),
        ),
        Ok(None)
            if service
                .is_move_here(place, user, text)
                .await
                .unwrap_or(false)
                || move_shaped(text) =>
        {
            let command = Command::Move {
                game: None,
                text: text.to_owned(),
            };
            (command, None)
        }
        _ => return vec![unknown_command(service, incoming, text).await],
    };
    let played = match read {
        Some(read) => play_read(service, incoming, read).await,
        None => execute(service, incoming, &command).await,
    };
    match played {
        Ok(replies) => replies,
        Err(ServiceError::Move {
            error: MoveError::Syntax { .. },
            ..
        }) => vec![unknown_command(service, incoming, text).await],
        Err(error) => error_replies(service, incoming, &command, error).await,
    }
}

/// The answer to a first word that is no command and no move: the closest commands and,
/// in a game awaiting the writer, the closest legal moves.
async fn unknown_command(service: &Service, incoming: &Incoming, text: &str) -> Reply {
    let first = text.split_whitespace().next().unwrap_or(text);
    let words = COMMANDS
        .iter()
        .flat_map(|spec| std::iter::once(spec.name).chain(spec.aliases.iter().copied()))
        .filter(|word| word.len() > 2);
    let mut near: Vec<String> = closest(first, words, 3)
        .into_iter()
        .filter_map(|word| table::spec(word).map(|spec| format!("`{}`", spec.name)))
        .collect();
    near.dedup();
    let moves = service
        .moves_near(&incoming.place, &incoming.user, None, text, 3)
        .await
        .unwrap_or_default();
    near.extend(moves);
    Reply::private(format!(
        "I don't know the command \"{}\", and it isn't a move in a game of yours here.{} \
         Type `help` for the commands.",
        inert::inert(first),
        did_you_mean(&near)
    ))
}

/// Whether a message not addressed to the bot is short enough to be a move, and so is read.
fn looks_like_move(text: &str) -> bool {
    text.len() <= 40 && text.split_whitespace().count() <= 6
}

/// Whether a text has the shape of a move in some game: it names a square or passes.
fn move_shaped(text: &str) -> bool {
    text.eq_ignore_ascii_case("pass") || text.chars().any(|c| c.is_ascii_digit())
}

fn error_reply(error: &ServiceError) -> Reply {
    match error {
        ServiceError::ElsewhereGame { id, channel, over } => Reply::private(format!(
            "Game #{id} {} ",
            if *over {
                "was played in"
            } else {
                "is being played in"
            }
        ))
        .channel(channel)
        .and(if *over {
            ": ask there."
        } else {
            ": answer there."
        }),
        other => Reply::private(inert::error_text(other)),
    }
}

/// The reply to a failed command: "which one?" names the command typed again with a number,
/// and a move that does not read or play gets the closest legal moves.
async fn error_replies(
    service: &Service,
    incoming: &Incoming,
    command: &Command,
    error: ServiceError,
) -> Vec<Reply> {
    let error = match error {
        ServiceError::WhichGame { candidates, .. } => {
            let example = command.with_number(candidates.first().map_or(0, |c| c.id));
            ServiceError::WhichGame {
                candidates,
                example,
            }
        }
        ServiceError::WhichChallenge { candidates, .. } => {
            let example = command.with_number(candidates.first().map_or(0, |c| c.id));
            ServiceError::WhichChallenge {
                candidates,
                example,
            }
        }
        other => other,
    };
    let mut reply = error_reply(&error);
    if let ServiceError::Move {
        game,
        error: MoveError::Syntax { input, .. } | MoveError::Illegal { input, .. },
    } = &error
    {
        let near = service
            .moves_near(&incoming.place, &incoming.user, Some(*game), input, 5)
            .await
            .unwrap_or_default();
        reply = reply.and(did_you_mean(&near));
    }
    vec![reply]
}

async fn run(service: &Service, incoming: &Incoming, command: Command) -> Vec<Reply> {
    match execute(service, incoming, &command).await {
        Ok(replies) => replies,
        Err(error) => error_replies(service, incoming, &command, error).await,
    }
}

/// The settings as a reply says them.
fn settings_text(settings: &SettingsRow) -> String {
    format!(
        "Turn pings: {}. Board view: {} ({}).",
        if settings.turn_pings { "on" } else { "off" },
        settings.viewpoint,
        match settings.viewpoint.as_str() {
            "mover" => "turned to the player to move",
            "white" => "always from White's side",
            "black" => "always from Black's side",
            _ => "from your own side in your games",
        }
    )
}

/// The one person a challenge names: a name typed without `@`, or a mention (the bot's own
/// account is left out of the count, as Matrix lists it when it is addressed by mention).
/// `Err` with the reply when it names a word that is no player here, or more than one person.
async fn opponent_of(
    service: &Service,
    incoming: &Incoming,
    name: Option<&str>,
) -> Result<Option<User>, Reply> {
    let named = match name {
        Some(name) => match service.find_player(&incoming.place, name).await {
            Ok(user) => Some(user),
            Err(ServiceError::NoSuchPlayer { name, candidates }) => {
                let mut near = candidates;
                near.extend(command::challenge_words_near(&name));
                return Err(Reply::private(format!(
                    "I don't know a game, option or player here called \"{}\".{} Games: {}. \
                     Name a player with @ (`challenge @someone chak`).",
                    inert::inert(&name),
                    did_you_mean(&near),
                    table::game_list()
                )));
            }
            Err(error) => return Err(error_reply(&error)),
        },
        None => None,
    };
    let mut people: Vec<&User> = named.iter().collect();
    for user in &incoming.mentions {
        if !people.iter().any(|p| p.id == user.id) {
            people.push(user);
        }
    }
    let others: Vec<&str> = people
        .iter()
        .filter(|user| !service.is_bot(user))
        .map(|user| user.name.as_str())
        .collect();
    if let [first, second, ..] = others.as_slice() {
        return Err(Reply::private(format!(
            "You named {first} and {second}: challenge one person at a time."
        )));
    }
    Ok(people.first().map(|user| (*user).clone()))
}

async fn execute(
    service: &Service,
    incoming: &Incoming,
    command: &Command,
) -> Result<Vec<Reply>, ServiceError> {
    let command = command.clone();
    let (place, user) = (&incoming.place, &incoming.user);
    let one = |reply: Reply| Ok(vec![reply]);
    match command {
        Command::Challenge {
            opponent,
            variant,
            days,
            color,
            rated,
            level,
            rules,
            from,
            takebacks,
        } => {
            let opponent = match opponent_of(service, incoming, opponent.as_deref()).await {
                Ok(opponent) => opponent,
                Err(refusal) => return one(refusal),
            };
            let opponent = opponent.as_ref();
            let terms = Terms {
                variant: variant.unwrap_or(Variant::Chak),
                days,
                color,
                rated,
                level,
                rules,
                from,
                takebacks,
            };
            let challenged = service
                .challenge_with(place, user, opponent, &terms)
                .await?;
            let mut replies = challenged_replies(service, &challenged, incoming.means).await?;
            if let Some(opponent) = opponent
                && let Some(until) = service.leave_until(opponent).await?
                && let Some(first) = replies.first_mut()
            {
                first.parts.push(Part::Text(correspondence::on_leave_note(
                    &opponent.name,
                    until,
                )));
            }
            Ok(replies)
        }
        Command::Accept(id) => {
            let (challenge, state) = service.accept_challenge(place, user, id).await?;
            one(start_reply(service, &state)
                .await?
                .settling(Topic::Challenge(challenge)))
        }
        Command::Decline(id) => {
            let challenge = service.decline(place, user, id).await?;
            one(Reply::text(format!(
                "{} declined challenge #{} from {}.",
                user.name, challenge.id, challenge.challenger.display_name
            ))
            .settling(Topic::Challenge(challenge.id)))
        }
        Command::Cancel(id) => {
            let challenge = service.cancel(place, user, id).await?;
            one(
                Reply::text(format!("Challenge #{} is cancelled.", challenge.id))
                    .settling(Topic::Challenge(challenge.id)),
            )
        }
        Command::Move { game, text } => {
            let done = service.play(place, user, game, &text).await?;
            Ok(move_and_answer(service, &done, incoming.means).await)
        }
        Command::Board(game) => {
            let state = service.game_for(place, user, game).await?;
            let viewer = service.player(user).await?.id;
            one(board_reply(service, &state, Some(viewer)).await)
        }
        Command::Moves { game, square } => {
            let state = service.game_for(place, user, game).await?;
            one(Reply::private(text::legal_moves(&state, square.as_deref())))
        }
        Command::Resign { game, confirmed } => {
            match service
                .resign_confirmed(place, user, game, confirmed)
                .await?
            {
                Resigning::Resigned(state) => {
                    let lead = format!("{} resigned game #{}.", user.name, state.row.id);
                    one(ended_reply(service, &state, &lead).await)
                }
                Resigning::Confirm(state) => {
                    let id = state.row.id;
                    one(Reply::private(format!(
                        "Resign game #{id} ({})? That can't be taken back. To resign, type \
                         `resign` again within a minute (or `resign #{id} confirm`).",
                        state.variant
                    ))
                    .with_action(Action::new(
                        "Yes, resign",
                        format!("resign #{id} confirm"),
                        Style::Danger,
                    )))
                }
            }
        }
        Command::Draw { game, action } => {
            let done = service.draw(place, user, game, action).await?;
            one(draw_reply(service, user, action, &done, incoming.means).await?)
        }
        Command::Abort(game) => {
            let state = service.abort(place, user, game).await?;
            let id = state.row.id;
            let reply = Reply::text(format!("Game #{id} is aborted; it won't count."))
                .settling(Topic::Game(id))
                .settling(Topic::DrawOffer(id));
            one(Reply {
                ended: Some(id),
                ..reply
            })
        }
        Command::GiveTime(game) => {
            let state = service.give_time(place, user, game).await?;
            one(correspondence::time_given_reply(
                user,
                &state,
                service.now(),
            ))
        }
        Command::Conditional { game, action } => {
            let text = match action {
                ConditionalAction::Add(line) => {
                    let (state, lines) = service.add_conditional(place, user, game, &line).await?;
                    correspondence::lines_text(state.row.id, &lines, "Stored. ")
                }
                ConditionalAction::List => {
                    let (state, lines) = service.conditionals(place, user, game).await?;
                    correspondence::lines_text(state.row.id, &lines, "")
                }
                ConditionalAction::Clear => {
                    let (state, count) = service.clear_conditionals(place, user, game).await?;
                    let lines = if count == 1 { "line" } else { "lines" };
                    format!(
                        "Dropped {count} conditional {lines} in game #{}.",
                        state.row.id
                    )
                }
            };
            one(Reply::private(text))
        }
        Command::Reminders(change) => {
            let times = match change {
                Some(times) => service.set_reminders(user, &times).await?,
                None => service.reminders(user).await?,
            };
            one(Reply::private(correspondence::reminders_text(&times)))
        }
        Command::Digest(request) => {
            let digest = service.set_digest(user, &request).await?;
            one(Reply::private(correspondence::digest_text(digest.as_ref())))
        }
        Command::Vacation(request) => {
            let now = service.now();
            let status = match request {
                LeaveRequest::Show => service.leave(place, user).await?,
                LeaveRequest::Start(length) => service.start_leave(place, user, length).await?,
                LeaveRequest::End => service.end_leave(place, user).await?,
                LeaveRequest::Allowance(_) if !incoming.manager => {
                    return Err(ServiceError::NotAManager);
                }
                LeaveRequest::Allowance(days) => {
                    let days = service.set_leave_days(place, days).await?;
                    return one(Reply::private(correspondence::allowance_text(days)));
                }
            };
            one(Reply::private(correspondence::vacation_text(
                &status, request, now,
            )))
        }
        Command::Rematch(game) => {
            let challenged = service.rematch(place, user, game).await?;
            challenged_replies(service, &challenged, incoming.means).await
        }
        Command::Games(scope) => {
            let games = service.games(place, user, scope).await?;
            let me = service.player(user).await?.id;
            one(text::game_list(
                &games,
                scope,
                me,
                service.now(),
                &place.channel,
            ))
        }
        Command::Info(game) => {
            let state = service.game_for(place, user, game).await?;
            let mut text = text::info(&state, service.now());
            if let Some(left) = service.frozen_left(&state).await? {
                text.push_str(&correspondence::frozen_note(&state, left));
            }
            one(Reply::private(text))
        }
        Command::History(game) => {
            let state = service.game_for(place, user, game).await?;
            one(Reply::private(text::history(&state)))
        }
        Command::Gif(game) => {
            let state = service.game_for(place, user, game).await?;
            let me = service.player(user).await?;
            let setting = service.settings_of(me.id).await?.viewpoint;
            // A replay has no single player to move: there "mover" means White's side.
            let side = if setting == "mover" {
                Color::White
            } else {
                viewpoint(&state, &setting, Some(me.id))
            };
            let image = service.replay_image(&state, side).await?;
            let picture = Picture {
                name: format!("game-{}.gif", state.row.id),
                data: image.data,
                mime: image.mime,
                size: image.size,
            };
            let plies = state.record.moves().len();
            let moves = if plies > REPLAY_MOVES {
                format!("the last {REPLAY_MOVES} of its {plies} moves")
            } else {
                clock::plural(plies, "move")
            };
            one(Reply::text(format!(
                "Replay of game #{} ({}, {moves}).",
                state.row.id, state.variant
            ))
            .with_picture(Some(picture)))
        }
        Command::Export(game) => {
            let state = service.game_for(place, user, game).await?;
            one(Reply::private(service.record_text(&state).await?))
        }
        Command::Analyse(game) => {
            let status = service.analyse(place, user, game).await?;
            one(analysis::status_reply(service, &status).await)
        }
        Command::Rules(variant) => one(Reply::private(text::rules(variant))),
        Command::Settings(change) => {
            let settings = service.settings(user, &change).await?;
            one(Reply::private(settings_text(&settings)))
        }
        Command::Leaderboard(variant) => {
            let variants = variant.map_or_else(|| Variant::ALL.to_vec(), |v| vec![v]);
            let mut boards = Vec::new();
            for variant in variants {
                boards.push((variant, service.leaderboard(place, variant).await?));
            }
            one(Reply::text(text::leaderboards(&boards, variant.is_some())))
        }
        Command::Stats(name) => {
            let named = match name {
                Some(name) => Some(service.find_player(place, &name).await?),
                None => None,
            };
            let who = named
                .as_ref()
                .or_else(|| incoming.mentions.first())
                .unwrap_or(user);
            let stats = service.stats(place, who).await?;
            one(Reply::text(text::stats(&stats)))
        }
        Command::Limits(change) => {
            let caps = match change {
                Some(_) if !incoming.manager => return Err(ServiceError::NotAManager),
                Some((cap, value)) => service.set_cap(place, cap, value).await?,
                None => service.caps(place).await?,
            };
            one(Reply::private(text::limits(
                &caps,
                change.map(|(cap, _)| cap),
            )))
        }
        Command::Threads(change) => {
            let on = match change {
                Some(_) if !incoming.manager => return Err(ServiceError::NotAManager),
                Some(on) => {
                    service.set_threads(place, on).await?;
                    on
                }
                None => service.threads_on(place).await?,
            };
            one(Reply::private(if on {
                "Each game started here gets a thread of its own (`threads off` to change it)."
            } else {
                "Games started here are played in the channel itself (`threads on` to change it)."
            }))
        }
        Command::Takeback { game, action } => {
            let done = service.takeback(place, user, game, action).await?;
            one(options::takeback_reply(service, user, &done, incoming.means).await?)
        }
        Command::Note { game, text } => {
            let (id, count) = service.add_note(place, user, game, &text).await?;
            one(options::noted_reply(id, count))
        }
        Command::Notes { game, clear: false } => {
            let (id, notes) = service.notes(place, user, game).await?;
            one(options::notes_reply(id, &notes))
        }
        Command::Notes { game, clear: true } => {
            let (id, count) = service.clear_notes(place, user, game).await?;
            one(options::cleared_reply(id, count))
        }
        Command::Try { game, moves } => {
            let tried = service.try_moves(place, user, game, &moves).await?;
            one(options::tried_reply(service, user, &tried).await?)
        }
        Command::TryPosition { rules, words } => {
            let tried = service.try_position(rules, &words)?;
            one(options::tried_reply(service, user, &tried).await?)
        }
        Command::Setups(change) => {
            let rated = match change {
                Some(_) if !incoming.manager => return Err(ServiceError::NotAManager),
                Some(rated) => {
                    service.set_rated_setups(place, rated).await?;
                    rated
                }
                None => service.rated_setups(place).await?,
            };
            one(options::setups_reply(rated))
        }
        Command::Tournament(command) => tournaments::execute(service, incoming, command).await,
        Command::Help(topic) => one(Reply::private(help(topic.as_deref()))),
    }
}
