//! Threads: a game accepted in a room gets one rooted at its start message, a tournament one
//! rooted at the message announcing it (unless the room turned threads off).

use matrix_sdk::Room;
use tracing::warn;

use super::send::{Target, place_of, send, send_picture, send_text};
use crate::chat::{self, Reply};
use crate::service::{Place, Service};

/// Announces a game's start and, when the room has threads on, opens the game's thread on
/// that message: the picture and everything after go there.
pub(super) async fn start(
    service: &Service,
    room: &Room,
    place: &Place,
    game: i64,
    reply: &Reply,
    target: &Target,
) {
    let Some(root) = send_text(room, reply, target).await else {
        return;
    };
    let threaded = match service.threads_on(place).await {
        Ok(true) => {
            let thread = place_of(room, Some(&root));
            match service.move_game_to(game, &thread).await {
                Ok(()) => true,
                Err(error) => {
                    warn!(game, %error, "moving a game to its thread failed");
                    false
                }
            }
        }
        Ok(false) => false,
        Err(error) => {
            warn!(game, %error, "reading the room's thread setting failed");
            false
        }
    };
    if let Some(picture) = &reply.picture {
        let target = if threaded {
            Target::thread(root)
        } else {
            target.clone()
        };
        send_picture(room, picture, &target).await;
    }
}

/// Announces a new tournament and, when the room has threads on, roots the tournament's
/// thread at that message: its pairings, results and standings are posted there, and
/// `tournament` commands written there mean it.
pub(super) async fn open_tournament_thread(
    service: &Service,
    room: &Room,
    place: &Place,
    tournament: i64,
    reply: &Reply,
    target: &Target,
) {
    let Some(root) = send_text(room, reply, target).await else {
        return;
    };
    if let Some(picture) = &reply.picture {
        send_picture(room, picture, target).await;
    }
    match service.threads_on(place).await {
        Ok(true) => {}
        Ok(false) => return,
        Err(error) => {
            warn!(tournament, %error, "reading the room's thread setting failed");
            return;
        }
    }
    let thread = place_of(room, Some(&root));
    if let Err(error) = service.set_tournament_thread(tournament, &thread).await {
        warn!(tournament, %error, "giving a tournament its thread failed");
        return;
    }
    let welcome = chat::tournament_thread_welcome(tournament);
    send(room, &welcome, &Target::thread(root)).await;
}
