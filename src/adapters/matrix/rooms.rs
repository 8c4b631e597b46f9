//! Rooms kept tidy: upgraded rooms followed with their games, rooms left when nobody but the
//! bot is in them.

use matrix_sdk::event_handler::Ctx;
use matrix_sdk::ruma::events::room::member::{MembershipState, OriginalSyncRoomMemberEvent};
use matrix_sdk::ruma::events::room::tombstone::OriginalSyncRoomTombstoneEvent;
use matrix_sdk::{Client, Room, RoomState};
use tracing::{info, warn};

use super::send::{Target, send};
use super::{Bot, PLATFORM, redacted};
use crate::chat::Reply;

/// A room upgraded to a new version: its games, challenges, ratings and settings move to the
/// new room, the bot joins it (a new room that is invite-only waits for an invite, which the
/// bot follows as any other) and tells it which games go on there.
pub(super) async fn on_tombstone(
    event: OriginalSyncRoomTombstoneEvent,
    room: Room,
    client: Client,
    Ctx(bot): Ctx<Bot>,
) {
    if room.state() != RoomState::Joined {
        return;
    }
    let (old, new) = (room.room_id().to_owned(), event.content.replacement_room);
    bot.tasks.clone().spawn(async move {
        let games = match bot
            .service
            .move_community(PLATFORM, old.as_str(), new.as_str())
            .await
        {
            Ok(games) => games,
            Err(error) => {
                warn!(%old, %new, %error, "moving the games of an upgraded room failed");
                return;
            }
        };
        info!(%old, %new, games = games.len(), "followed a room upgrade");
        match client.join_room_by_id(&new).await {
            Ok(joined) if !games.is_empty() => {
                send(
                    &joined,
                    &Reply::text(moved_games(&games)),
                    &Target::default(),
                )
                .await;
            }
            Ok(_) => {}
            Err(error) => warn!(
                %old, %new, error = %redacted(&error),
                "joining an upgraded room failed: invite the bot to it"
            ),
        }
    });
}

/// What the new version of a room is told about the games that moved into it.
fn moved_games(games: &[i64]) -> String {
    let numbers: Vec<String> = games.iter().map(|id| format!("#{id}")).collect();
    let (noun, verb) = if games.len() == 1 {
        ("Game", "goes")
    } else {
        ("Games", "go")
    };
    format!(
        "This room was upgraded. {noun} {} {verb} on here: play as before (`games` lists them).",
        numbers.join(", ")
    )
}

/// Someone left or was removed: when nobody but the bot is left, the bot leaves too.
pub(super) async fn on_member(event: OriginalSyncRoomMemberEvent, room: Room, Ctx(bot): Ctx<Bot>) {
    let gone = matches!(
        event.content.membership,
        MembershipState::Leave | MembershipState::Ban
    );
    if gone && event.state_key != bot.own && room.state() == RoomState::Joined {
        leave_if_alone(&room).await;
    }
}

/// Leaves every joined room in which the bot is alone (at start: people left while it was
/// away).
pub(super) async fn leave_lonely(client: &Client) {
    for room in client.joined_rooms() {
        leave_if_alone(&room).await;
    }
}

async fn leave_if_alone(room: &Room) {
    if room.joined_members_count() > 1 {
        return;
    }
    match room.leave().await {
        Ok(()) => info!(room = %room.room_id(), "left a room where nobody else is"),
        Err(error) => {
            warn!(room = %room.room_id(), error = %redacted(&error), "leaving an empty room failed");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_new_room_is_told_which_games_moved() {
        assert_eq!(
            moved_games(&[3]),
            "This room was upgraded. Game #3 goes on here: play as before (`games` lists them)."
        );
        assert!(moved_games(&[3, 5]).starts_with("This room was upgraded. Games #3, #5 go on"));
    }
}
