//! The bot's messages about challenges and games: a challenge, the start of a game, a move
//! (with the bot's answer in a game against it), the board, an ending, a draw offer and its
//! answers, and the clocks' notices; each with its board picture and the answers it offers.

use super::{
    Action, Means, Picture, Reply, Style, Topic, correspondence, error_reply, text, tournaments,
};
use crate::rules::{Color, MoveMarks};
use crate::service::{
    ChallengeSummary, Challenged, ColorChoice, DrawAction, DrawDone, GameState, Image, MoveDone,
    Notice, Place, Service, ServiceError, User, clock, picture_viewer, viewpoint,
};
use crate::store::SettingsRow;

/// A player's settings for a reply about `state`, for both the ping and the picture: a
/// player's as read with the game; anyone else's read now, or the defaults (pings on, the
/// board seen from their side) when they can't be read.
pub(super) async fn reply_settings(
    service: &Service,
    state: &GameState,
    player_id: i64,
) -> SettingsRow {
    if state.color_of(player_id).is_some() {
        return state.settings_of(player_id);
    }
    service.settings_of(player_id).await.unwrap_or_default()
}

/// Whether `player_id`, a player of `state`, takes turn pings.
pub(super) fn pings(state: &GameState, player_id: i64) -> bool {
    state.settings_of(player_id).turn_pings
}

/// The replies to a challenge: the challenge, or the start of a game against the bot with
/// the bot's first move when it has White.
pub(super) async fn challenged_replies(
    service: &Service,
    challenged: &Challenged,
    means: Means,
) -> Result<Vec<Reply>, ServiceError> {
    match challenged {
        Challenged::Open(challenge) => Ok(vec![challenge_reply(challenge, means)]),
        Challenged::Started(state) => {
            let mut replies = vec![start_reply(service, state).await?];
            replies.extend(bot_answer(service, state, means).await);
            Ok(replies)
        }
    }
}

/// The replies to a move, and in a game against the bot the bot's answer.
pub(super) async fn move_and_answer(
    service: &Service,
    done: &MoveDone,
    means: Means,
) -> Vec<Reply> {
    let mut replies = move_replies(service, done, means).await;
    replies.extend(bot_answer(service, &done.state, means).await);
    replies.extend(correspondence::conditional_answer(service, done, means).await);
    replies
}

/// Whether the game is on and the bot is to move.
pub(super) fn bot_to_move(state: &GameState) -> bool {
    state.is_active() && state.bot_side() == Some(state.turn())
}

/// The bot's move, if it is the bot's turn in `state`.
pub(super) async fn bot_answer(service: &Service, state: &GameState, means: Means) -> Vec<Reply> {
    if !bot_to_move(state) {
        return Vec::new();
    }
    match service.bot_move(state.row.id).await {
        Ok(Some(done)) => move_replies(service, &done, means).await,
        Ok(None) => Vec::new(),
        Err(error) => vec![error_reply(&error)],
    }
}

/// The board of a game as a picture for a reply, seen as `viewer`'s setting says. A picture
/// that fails to draw is logged and left out: the reply itself must still go out.
pub(super) async fn board_picture(
    service: &Service,
    state: &GameState,
    last: Option<MoveMarks>,
    viewer: Option<i64>,
) -> Option<Picture> {
    match viewer {
        Some(id) => {
            let settings = reply_settings(service, state, id).await;
            seen_picture(service, state, last, Some((id, &settings))).await
        }
        None => seen_picture(service, state, last, None).await,
    }
}

/// The board of a game as a picture for a reply, seen as the viewer's settings (given with
/// their id) say, or from the mover's side without a viewer; as [`board_picture`].
pub(super) async fn seen_picture(
    service: &Service,
    state: &GameState,
    last: Option<MoveMarks>,
    viewer: Option<(i64, &SettingsRow)>,
) -> Option<Picture> {
    let side = match viewer {
        Some((id, settings)) => viewpoint(state, &settings.viewpoint, Some(id)),
        None => viewpoint(state, "mover", None),
    };
    let image = service.board_image(state, last, side).await.ok()?;
    Some(picture_of(state, image))
}

/// A board picture of a game's current position as a reply's attachment.
fn picture_of(state: &GameState, image: Image) -> Picture {
    Picture {
        name: format!("game-{}-ply-{}.png", state.row.id, state.row.ply),
        data: image.data,
        mime: image.mime,
        size: image.size,
    }
}

/// The chat account of a stored player.
pub fn user_of(player: &crate::store::PlayerRow) -> User {
    User::new(&player.platform, &player.platform_id, &player.display_name)
}

pub(super) fn challenge_reply(challenge: &ChallengeSummary, means: Means) -> Reply {
    let colour = match challenge.color {
        ColorChoice::White => format!(
            "{} plays {}",
            challenge.challenger.display_name,
            challenge.variant.side_name(Color::White)
        ),
        ColorChoice::Black => format!(
            "{} plays {}",
            challenge.challenger.display_name,
            challenge.variant.side_name(Color::Black)
        ),
        ColorChoice::Random => String::from("colours drawn at random"),
    };
    let terms = format!(
        "{} ({} per move, {colour})",
        challenge.variant,
        clock::plural(challenge.days_per_move, "day")
    );
    let expires = clock::format_utc(challenge.expires_at);
    let rated = if challenge.rated {
        " The game will be rated."
    } else {
        " The game will be casual."
    };
    let accept = Action::new("Accept", format!("accept {}", challenge.id), Style::Primary);
    let reply = match &challenge.challenged {
        Some(challenged) => Reply::text(format!(
            "Challenge #{}: {} challenges ",
            challenge.id, challenge.challenger.display_name
        ))
        .mention(user_of(challenged))
        .and(format!(
            " to {terms}. {} It stays open until {expires}.{rated}",
            if means.slash_commands {
                String::from("Press Accept to play or Decline, or use `/accept`.")
            } else {
                String::from("Reply `accept` to play or `decline`.")
            }
        )),
        None => Reply::text(format!(
            "Challenge #{}: {} is looking for an opponent for {terms}. Anyone here can {}. It \
             stays open until {expires}.{rated}",
            challenge.id,
            challenge.challenger.display_name,
            if means.slash_commands {
                format!("press Accept or use `/accept challenge:{}`", challenge.id)
            } else {
                format!("`accept {}`", challenge.id)
            }
        )),
    };
    let reply = Reply {
        topic: Some(Topic::Challenge(challenge.id)),
        ..reply.with_action(accept)
    };
    if challenge.challenged.is_some() {
        reply.with_action(Action::new(
            "Decline",
            format!("decline {}", challenge.id),
            Style::Secondary,
        ))
    } else {
        reply
    }
}

/// The reply with a line linking to the game's page, when the pages are served.
fn page_link(reply: Reply, state: &GameState) -> Reply {
    match &state.page {
        Some(page) => reply.and(format!("\nThe game's page: {page}")),
        None => reply,
    }
}

/// The answers offered with a game's message: while it is on, its legal moves, a draw offer
/// and resigning; once it is over, a rematch and the replay.
///
/// The reply is about the game, and settles its draw offer, if any: a move declines it, and
/// an ended game has none. The reply to a game that ended announces its end.
pub(super) fn game_actions(mut reply: Reply, state: &GameState) -> Reply {
    let id = state.row.id;
    reply.topic = Some(Topic::Game(id));
    reply.settles.push(Topic::DrawOffer(id));
    reply.settles.push(Topic::Takeback(id));
    if !state.is_active() {
        reply.ended = Some(id);
    }
    let mut reply = page_link(reply, state);
    if state.is_active() {
        reply.actions.extend([
            Action::new("Legal moves", format!("moves #{id}"), Style::Secondary),
            Action::new(
                "Offer a draw",
                format!("draw #{id} offer"),
                Style::Secondary,
            ),
            Action::new("Resign", format!("resign #{id}"), Style::Danger),
        ]);
        if state.row.takebacks && state.row.ply > 0 {
            reply.actions.push(Action::new(
                "Take back",
                format!("takeback #{id}"),
                Style::Secondary,
            ));
        }
        if state.bot_side().is_none() {
            reply.actions.push(Action::new(
                "Give a day",
                format!("give time #{id}"),
                Style::Secondary,
            ));
        }
    } else {
        reply.actions.extend([
            Action::new("Rematch", format!("rematch #{id}"), Style::Primary),
            Action::new("Replay", format!("gif #{id}"), Style::Secondary),
        ]);
    }
    reply
}

pub(super) async fn start_reply(
    service: &Service,
    state: &GameState,
) -> Result<Reply, ServiceError> {
    let first = state.player(state.turn());
    let settings = state.settings_of(first.id);
    let kind = match (state.bot_side(), state.row.bot_level) {
        (Some(_), Some(level)) => format!(" A casual game against me at level {level}."),
        _ if state.row.rated => String::from(" The game is rated."),
        _ => String::from(" The game is casual: ratings stay as they are."),
    };
    let reply = Reply::text(format!(
        "Game #{} ({}) starts: {} vs {}. ",
        state.row.id,
        state.variant,
        state.side_label(Color::White),
        state.side_label(Color::Black)
    ));
    let kind = format!("{kind}{}", text::setup_note(state));
    let reply = if bot_to_move(state) {
        // The bot's first move follows at once, with the board.
        reply.and(format!("I move first.{kind}"))
    } else {
        reply
            .to_move(user_of(first), settings.turn_pings)
            .and(format!(
                ", you move first. You have {} per move.{kind}",
                clock::format_duration(state.row.days_per_move * clock::DAY)
            ))
            .with_picture(seen_picture(service, state, None, Some((first.id, &settings))).await)
    };
    Ok(Reply {
        started: Some(state.row.id),
        ..game_actions(reply, state)
    })
}

pub(super) async fn move_replies(service: &Service, done: &MoveDone, means: Means) -> Vec<Reply> {
    let state = &done.state;
    let mut parts: Vec<String> = Vec::new();
    let mut played = done.played.iter();
    if let Some(first) = played.next() {
        let mover = state.player(done.before.turn());
        parts.push(format!(
            "{} played {} in game #{}.",
            mover.display_name, first.display, state.row.id
        ));
    }
    for _pass in played {
        let passer = state.player(state.turn().other());
        parts.push(format!(
            "{} has no legal move, so I passed for them.",
            passer.display_name
        ));
    }
    let mut reply = Reply::text(parts.join(" "));
    if bot_to_move(state) {
        // The bot's answer follows at once, with the board: no ping, deadline or picture here.
        return vec![reply];
    }
    if let Some(result) = state.result_text() {
        reply = reply.and(format!(" Game over: {result}."));
        if let Some(note) = rating_note(service, state).await {
            reply = reply.and(note);
        }
    } else if let Some(next) = state.to_move() {
        let ping = pings(state, next.id);
        let deadline = match state.row.deadline {
            Some(deadline) => format!("deadline {}", clock::format_utc(deadline)),
            None if state.on_leave(next.id) => {
                String::from("your clock stands still while you are on leave")
            }
            None => String::from("no deadline"),
        };
        let check = if state.record.position().in_check() {
            " (in check)"
        } else {
            ""
        };
        reply = reply.and(" ").to_move(user_of(next), ping).and(format!(
            ", your move{check} as {} (move {}); {deadline}.",
            state.variant.side_name(state.turn()),
            state.move_number()
        ));
        if let Some(claim) = state.record.draw_claim() {
            reply = reply.and(format!(
                " A draw by {} can be claimed with {}.",
                claim.describe(),
                means.command("draw claim", "/draw action:claim")
            ));
        }
        if let Some(note) = text::final_turn_note(state) {
            reply = reply.and(note);
        }
    }
    // Drawn while the move was stored, or now when that drawing no longer showed the game.
    let image = match &done.picture {
        Some(image) => Some(image.clone()),
        None => service.move_image(done).await.ok(),
    };
    let picture = image.map(|image| picture_of(state, image));
    vec![game_actions(reply.with_picture(picture), state)]
}

pub(super) async fn board_reply(
    service: &Service,
    state: &GameState,
    viewer: Option<i64>,
) -> Reply {
    let last = last_move_marks(state);
    Reply::text(text::status_line(state, service.now()))
        .with_picture(board_picture(service, state, last, viewer).await)
}

/// The squares of the last move of a game, replayed from its record.
pub(super) fn last_move_marks(state: &GameState) -> Option<MoveMarks> {
    let moves = state.record.moves();
    let last = moves.last()?;
    let mut position = state.record.start().clone();
    for played in &moves[..moves.len() - 1] {
        position = position.play(&played.mv);
    }
    Some(position.move_marks(&last.mv))
}

/// `lead` and the result.
fn end_text(state: &GameState, lead: &str) -> Reply {
    let result = state.result_text().unwrap_or_default();
    Reply::text(format!("{lead} {result}."))
}

/// The announcement of a game that ended off the board (resignation, agreement, claim, time):
/// the result, how the ratings changed, and the final picture.
pub(super) async fn ended_reply(service: &Service, state: &GameState, lead: &str) -> Reply {
    let last = last_move_marks(state);
    let viewer = picture_viewer(state).id;
    let mut reply = end_text(state, lead);
    if let Some(note) = rating_note(service, state).await {
        reply = reply.and(note);
    }
    game_actions(reply, state).with_picture(board_picture(service, state, last, Some(viewer)).await)
}

/// ` Ratings: alice 1512 (+12), bob 1488 (-12).` for a rated game whose ratings were updated.
async fn rating_note(service: &Service, state: &GameState) -> Option<String> {
    if !state.row.rated {
        return None;
    }
    let changes = service
        .store()
        .game_rating_changes(state.row.id)
        .await
        .ok()?;
    let parts: Vec<String> = [Color::White, Color::Black]
        .iter()
        .filter_map(|&color| {
            let player = state.player(color);
            let &(_, before, after) = changes.iter().find(|(id, ..)| *id == player.id)?;
            let delta = after.round() - before.round();
            Some(format!(
                "{} {} ({}{delta})",
                player.display_name,
                after.round(),
                if delta >= 0.0 { "+" } else { "" }
            ))
        })
        .collect();
    (!parts.is_empty()).then(|| format!(" Ratings: {}.", parts.join(", ")))
}

pub(super) async fn draw_reply(
    service: &Service,
    user: &User,
    action: DrawAction,
    done: &DrawDone,
    means: Means,
) -> Result<Reply, ServiceError> {
    let reply = match done {
        DrawDone::Offered(state) => {
            let me = service.player(user).await?;
            let color = state.color_of(me.id).unwrap_or(Color::White);
            let opponent = state.player(color.other());
            Reply::text(format!(
                "{} offers a draw in game #{}. ",
                user.name, state.row.id
            ))
            .mention(user_of(opponent))
            .and(if means.slash_commands {
                ": press Accept the draw or Decline, or use `/draw action:accept` (a move \
                 declines it too)."
            } else {
                ": reply `draw accept` or `draw decline` (a move declines it too)."
            })
            .with_action(Action::new(
                "Accept the draw",
                format!("draw #{} accept", state.row.id),
                Style::Primary,
            ))
            .with_action(Action::new(
                "Decline",
                format!("draw #{} decline", state.row.id),
                Style::Secondary,
            ))
        }
        DrawDone::Agreed(state) => {
            let lead = if action == DrawAction::Offer {
                format!("Both players offered a draw in game #{}.", state.row.id)
            } else {
                format!("{} accepted the draw in game #{}.", user.name, state.row.id)
            };
            ended_reply(service, state, &lead).await
        }
        DrawDone::Declined(state) => Reply::text(format!(
            "{} declined the draw offer in game #{}; play goes on.",
            user.name, state.row.id
        )),
        DrawDone::Claimed(state) => {
            let lead = format!("{} claimed a draw in game #{}.", user.name, state.row.id);
            ended_reply(service, state, &lead).await
        }
        DrawDone::Refused(state) => Reply::text(format!(
            "I decline the draw in game #{}: the position is still worth playing. Your move.",
            state.row.id
        )),
    };
    Ok(match done {
        DrawDone::Offered(state) => Reply {
            topic: Some(Topic::DrawOffer(state.row.id)),
            ..reply
        },
        DrawDone::Agreed(state)
        | DrawDone::Declined(state)
        | DrawDone::Claimed(state)
        | DrawDone::Refused(state) => reply.settling(Topic::DrawOffer(state.row.id)),
    })
}

/// The name of a game's own thread: `Chak · alice vs bob · #12`.
#[must_use]
pub fn thread_name(state: &GameState) -> String {
    format!(
        "{} · {} vs {} · #{}",
        state.variant, state.white.display_name, state.black.display_name, state.row.id
    )
}

/// The first message in a game's own thread: how to play there.
#[must_use]
pub fn thread_welcome(game: i64, means: Means) -> Reply {
    Reply::text(if means.reads_chatter {
        format!("Game #{game} is played here: type your moves in this thread, or use `/move`.")
    } else {
        format!(
            "Game #{game} is played here: play with `/move`, or mention me with the move \
             (`@Pigeon e4`). Moves typed alone are not read here."
        )
    })
}

/// The first message in a tournament's own thread: what goes there.
#[must_use]
pub fn tournament_thread_welcome(tournament: i64) -> Reply {
    Reply::text(format!(
        "Tournament #{tournament}: its pairings, results and standings are posted here, and its \
         games are played here. `tournament` commands written here need no number."
    ))
}

/// The message for something the clock made happen, and where to say it; an ended game's
/// and a move's carry the board. A player who turned their pings off is named without a ping.
pub async fn notice_reply(service: &Service, notice: &Notice) -> (Place, Reply) {
    match notice {
        Notice::Reminder { place, game, left } => {
            let reply = match game.to_move() {
                Some(player) => Reply::text("Reminder: ")
                    .to_move(user_of(player), pings(game, player.id))
                    .and(format!(
                        ", it's your move in game #{} ({}); {} left.",
                        game.row.id,
                        game.variant,
                        clock::format_duration(*left)
                    )),
                None => Reply::text(format!("Game #{} is over.", game.row.id)),
            };
            (place.clone(), reply)
        }
        Notice::Timeout { place, game } => {
            let loser = game.player(game.turn());
            let lead = format!(
                "{} ran out of time in game #{}.",
                loser.display_name, game.row.id
            );
            (place.clone(), ended_reply(service, game, &lead).await)
        }
        Notice::BotMoved { place, done } => {
            let game = &done.state;
            let played = done.played.first().map_or("", |p| p.display.as_str());
            let lead = format!(
                "{} played {played} in game #{}.",
                game.player(done.before.turn()).display_name,
                game.row.id
            );
            let reply = match game.to_move() {
                Some(player) => {
                    let last = done
                        .played
                        .first()
                        .map(|played| done.before.move_marks(&played.mv));
                    let settings = game.settings_of(player.id);
                    let picture =
                        seen_picture(service, game, last, Some((player.id, &settings))).await;
                    let reply = Reply::text(format!("{lead} "))
                        .to_move(user_of(player), settings.turn_pings)
                        .and(format!(
                            ", your move.{}",
                            text::final_turn_note(game).unwrap_or_default()
                        ))
                        .with_picture(picture);
                    page_link(reply, game)
                }
                None => ended_reply(service, game, &format!("{lead} Game over:")).await,
            };
            (place.clone(), reply)
        }
        Notice::DeadlineMoved { place, game, by } => {
            let by = clock::format_duration(*by);
            let reply = match (game.to_move(), game.row.deadline) {
                (Some(player), Some(deadline)) => Reply::text(format!(
                    "Pigeon was not running for {by}, so nobody could move. "
                ))
                .to_move(user_of(player), pings(game, player.id))
                .and(format!(
                    ", your deadline in game #{} ({}) moved on by {by}, to {}.",
                    game.row.id,
                    game.variant,
                    clock::format_utc(deadline)
                )),
                _ => Reply::text(format!("Game #{} is over.", game.row.id)),
            };
            (place.clone(), reply)
        }
        Notice::LeaveStarted {
            place,
            game,
            player,
            until,
        } => (
            place.clone(),
            correspondence::leave_started_reply(game, player, *until),
        ),
        Notice::LeaveEnded {
            place,
            game,
            player,
        } => (
            place.clone(),
            correspondence::leave_ended_reply(game, player),
        ),
        Notice::Digest {
            player,
            player_id,
            games,
        } => (
            // A direct message: the adapters send it to the player, not to a channel.
            Place::new(&player.platform, &player.id),
            correspondence::digest_reply(player, *player_id, games, service.now()),
        ),
        Notice::Analysed { place, analysed } => (
            place.clone(),
            super::analysis::analysed_reply(service, analysed).await,
        ),
        Notice::ChallengeExpired { place, challenge } => (
            place.clone(),
            Reply::text(format!(
                "Challenge #{} from {} expired without an answer.",
                challenge.id, challenge.challenger.display_name
            ))
            .settling(Topic::Challenge(challenge.id)),
        ),
        Notice::TournamentRound {
            place,
            tournament,
            pairings,
            standings,
        } => {
            let reply = tournaments::round_reply(tournament, pairings);
            let reply = match standings {
                Some(standings) => {
                    let table = tournaments::standings_reply(
                        service,
                        standings,
                        &format!("\n{}", tournaments::daily_title(standings)),
                    )
                    .await;
                    let mut reply = reply.and(table.plain());
                    reply.picture = table.picture;
                    reply
                }
                // The standings carry the page's link; without them, the round does.
                None => reply.and(tournaments::page_line(tournament)),
            };
            (place.clone(), reply)
        }
        Notice::TournamentStandings { place, standings } => (
            place.clone(),
            tournaments::standings_reply(service, standings, &tournaments::daily_title(standings))
                .await,
        ),
        Notice::TournamentOver { place, standings } => (
            place.clone(),
            tournaments::over_reply(service, standings).await,
        ),
        Notice::TournamentPostponed { place, tournament } => {
            (place.clone(), tournaments::postponed_reply(tournament))
        }
    }
}
