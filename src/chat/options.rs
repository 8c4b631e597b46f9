//! The replies to the game options: takebacks, private notes and the sandbox (`try`). Notes
//! and `try` answer privately: only the asker ever sees them.

use super::announce::{board_reply, game_actions, pings, user_of};
use super::reply::{Action, Means, Picture, Reply, Style, Topic};
use crate::service::{
    Note, Service, ServiceError, TakebackDone, Tried, User, clock, picture_viewer, viewpoint,
};

/// The reply to a takeback command: the request with its buttons for the opponent, the
/// board after the moves went, or the refusal.
pub(super) async fn takeback_reply(
    service: &Service,
    user: &User,
    done: &TakebackDone,
    means: Means,
) -> Result<Reply, ServiceError> {
    Ok(match done {
        TakebackDone::Asked(state) => {
            let id = state.row.id;
            let me = service.player(user).await?;
            let color = state.color_of(me.id).ok_or(ServiceError::NotAPlayer(id))?;
            let opponent = state.player(color.other());
            let reply = Reply::text(format!(
                "{} asks to take back their last move in game #{id}. ",
                user.name
            ))
            .mention(user_of(opponent))
            .and(if means.slash_commands {
                ": press Accept the takeback or Decline, or use `/takeback action:accept` (a \
                 move withdraws the request)."
            } else {
                ": reply `takeback accept` or `takeback decline` (a move withdraws the request)."
            })
            .with_action(Action::new(
                "Accept the takeback",
                format!("takeback #{id} accept"),
                Style::Primary,
            ))
            .with_action(Action::new(
                "Decline",
                format!("takeback #{id} decline"),
                Style::Secondary,
            ));
            Reply {
                topic: Some(Topic::Takeback(id)),
                ..reply
            }
        }
        TakebackDone::Taken {
            state,
            plies,
            asker,
        } => {
            let id = state.row.id;
            let asked_by = state.player(*asker).display_name.clone();
            let moves = if *plies == 1 {
                String::from("1 move")
            } else {
                format!("{plies} moves")
            };
            let lead = format!("Takeback in game #{id}: {moves} taken back for {asked_by}. ");
            let to_move = state.player(state.turn());
            let ping = pings(state, to_move.id);
            let board = board_reply(service, state, Some(picture_viewer(state).id)).await;
            let reply = Reply::text(lead)
                .and(board.plain())
                .and(" ")
                .to_move(user_of(to_move), ping)
                .and(", your move again.")
                .with_picture(board.picture)
                .settling(Topic::Takeback(id));
            game_actions(reply, state)
        }
        TakebackDone::Declined(state) => Reply::text(format!(
            "{} declined the takeback in game #{}; play goes on.",
            user.name, state.row.id
        ))
        .settling(Topic::Takeback(state.row.id)),
    })
}

/// The answer to `note`: how many notes the author now keeps on the game.
pub(super) fn noted_reply(game: i64, count: usize) -> Reply {
    Reply::secret(format!(
        "Noted on game #{game} (only you can see it; you have {} there). \
         `notes #{game}` lists them.",
        clock::plural(count, "note")
    ))
}

/// The author's notes on a game, time-stamped, oldest first.
pub(super) fn notes_reply(game: i64, notes: &[Note]) -> Reply {
    if notes.is_empty() {
        return Reply::secret(format!(
            "You have no notes on game #{game}. Keep one with `note #{game} <text>`."
        ));
    }
    let mut text = format!("Your notes on game #{game} (only you can see them):");
    for (index, note) in notes.iter().enumerate() {
        text.push_str(&format!(
            "\n{}. {}: {}",
            index + 1,
            clock::format_utc(note.at),
            note.text
        ));
    }
    Reply::secret(text)
}

/// The answer to `notes clear`.
pub(super) fn cleared_reply(game: i64, count: u64) -> Reply {
    Reply::secret(match count {
        0 => format!("You had no notes on game #{game}."),
        1 => format!("Your note on game #{game} is deleted."),
        n => format!("Your {n} notes on game #{game} are deleted."),
    })
}

/// The answer to `try`, privately: the position reached, the moves in display notation, who
/// would be to move, and why a move did not play.
pub(super) async fn tried_reply(
    service: &Service,
    user: &User,
    tried: &Tried,
) -> Result<Reply, ServiceError> {
    let record = &tried.record;
    let position = record.position();
    let variant = position.variant();
    let moves: Vec<String> = record.moves().iter().map(|p| p.display.clone()).collect();
    let mut text = match &tried.game {
        Some(state) => format!("Trying in game #{} (nothing is played): ", state.row.id),
        None => format!("Trying on a {variant} position (nothing is stored): "),
    };
    let ending = position.outcome().map(|outcome| {
        format!(
            "{} by {}",
            match outcome.winner {
                Some(color) => format!("{} wins", variant.side_name(color)),
                None => String::from("a draw"),
            },
            outcome.reason.describe()
        )
    });
    match ending {
        // Nothing plays from a position that ended the game: say so once.
        Some(ending) if moves.is_empty() => text.push_str(&format!(
            "the game ended on the board ({ending}), so no move can be tried from its last \
             position."
        )),
        ending => {
            text.push_str(&if moves.is_empty() {
                String::from("no move played.")
            } else {
                format!("{}.", moves.join(" "))
            });
            text.push_str(&match ending {
                Some(ending) => format!(" That ends the game: {ending}."),
                None => format!(
                    " {} would be to move{}.",
                    variant.side_name(position.turn()),
                    if position.in_check() {
                        ", in check"
                    } else {
                        ""
                    }
                ),
            });
            if let Some((typed, error)) = &tried.stopped {
                text.push_str(&format!(
                    " I stopped at {}: {error}",
                    super::inert::inert(typed)
                ));
            }
        }
    }
    let me = service.player(user).await?;
    let side = match &tried.game {
        Some(state) => {
            let setting = service.settings_of(me.id).await?.viewpoint;
            viewpoint(state, &setting, Some(me.id))
        }
        None => position.turn(),
    };
    let picture = service
        .trial_image(tried, side)
        .await
        .ok()
        .map(|image| Picture {
            name: String::from("try.png"),
            data: image.data,
            mime: image.mime,
            size: image.size,
        });
    Ok(Reply::secret(text).with_picture(picture))
}

/// The answer to `setups`: whether games from a position may be rated here.
pub(super) fn setups_reply(rated: bool) -> Reply {
    Reply::private(if rated {
        "Games from a position may be rated here when the challenge says `rated` \
         (`setups casual` to change it)."
    } else {
        "Games from a position are always casual here (`setups rated` to change it)."
    })
}
