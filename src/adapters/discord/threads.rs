//! A thread per game, and one per tournament.

use serenity::all::{
    AutoArchiveDuration, Channel, ChannelId, ChannelType, CreateThread, EditThread, Http, MessageId,
};
use tracing::{info, warn};

use super::commands::short;
use super::send::{error_code, message_of, outgoing, permission_problem};
use super::{Handler, Spot, redacted};
use crate::chat;

impl Handler {
    /// Opens a thread for a game from `from` (the challenge's message) and moves the game
    /// there. `Some(text)` tells what went wrong.
    pub(super) async fn open_thread(
        &self,
        http: &Http,
        spot: &Spot,
        game: i64,
        from: MessageId,
    ) -> Option<String> {
        let guild = spot.guild?;
        match self.service.threads_on(&spot.place).await {
            Ok(true) => {}
            Ok(false) => return None,
            Err(error) => return Some(error.to_string()),
        }
        if !spot.reachable {
            return None;
        }
        if is_thread(http, spot.channel).await {
            // A rematch agreed in a game's thread: the new game is played there too, so the
            // thread the last game closed opens again.
            let open = EditThread::new().archived(false).locked(false);
            if let Err(error) = spot.channel.edit_thread(http, open).await {
                warn!(error = %redacted(&error), game, "reopening a thread failed");
            }
            return None;
        }
        let name = match self.service.load(game).await {
            Ok(state) => chat::thread_name(&state),
            Err(_) => format!("Game #{game}"),
        };
        let builder = CreateThread::new(short(&name, 100))
            .auto_archive_duration(AutoArchiveDuration::OneWeek);
        let thread = match spot
            .channel
            .create_thread_from_message(http, from, builder)
            .await
        {
            Ok(thread) => thread,
            Err(error) => {
                warn!(error = %redacted(&error), game, "opening a thread failed");
                return Some(
                    permission_problem(
                        &error,
                        "Create Public Threads",
                        "open a thread for this game",
                        "this channel",
                    )
                    .unwrap_or_else(|| String::from("I couldn't open a thread for this game."))
                        + " The game goes on in this channel.",
                );
            }
        };
        let place = Spot::new(thread.id, Some(guild)).place;
        if let Err(error) = self.service.move_game_to(game, &place).await {
            return Some(error.to_string());
        }
        let welcome = chat::thread_welcome(game, self.means);
        match thread
            .id
            .send_message(http, message_of(outgoing(&welcome)))
            .await
        {
            Ok(_) => None,
            Err(error) => permission_problem(
                &error,
                "Send Messages in Threads",
                "write in the game's thread",
                "this channel",
            ),
        }
    }
}

impl Handler {
    /// Opens a thread for a tournament from `from` (the message announcing it) and gives it
    /// to the tournament: its pairings, results and standings are posted there, and its
    /// games are played there. `Some(text)` tells what went wrong.
    pub(super) async fn open_tournament_thread(
        &self,
        http: &Http,
        spot: &Spot,
        tournament: i64,
        from: MessageId,
    ) -> Option<String> {
        spot.guild?;
        match self.service.threads_on(&spot.place).await {
            Ok(true) => {}
            Ok(false) => return None,
            Err(error) => return Some(error.to_string()),
        }
        if !spot.reachable || is_thread(http, spot.channel).await {
            return None;
        }
        let name = match self.service.tournament(&spot.place, Some(tournament)).await {
            Ok(info) => format!("{} · {} · #{}", info.name, info.variant, info.id),
            Err(_) => format!("Tournament #{tournament}"),
        };
        let builder = CreateThread::new(short(&name, 100))
            .auto_archive_duration(AutoArchiveDuration::OneWeek);
        let thread = match spot
            .channel
            .create_thread_from_message(http, from, builder)
            .await
        {
            Ok(thread) => thread,
            Err(error) => {
                warn!(error = %redacted(&error), tournament, "opening a thread failed");
                return permission_problem(
                    &error,
                    "Create Public Threads",
                    "open a thread for this tournament",
                    "this channel",
                )
                .map(|problem| problem + " Its news goes to this channel.");
            }
        };
        let place = Spot::new(thread.id, spot.guild).place;
        if let Err(error) = self.service.set_tournament_thread(tournament, &place).await {
            return Some(error.to_string());
        }
        let welcome = chat::tournament_thread_welcome(tournament);
        match thread
            .id
            .send_message(http, message_of(outgoing(&welcome)))
            .await
        {
            Ok(_) => None,
            Err(error) => permission_problem(
                &error,
                "Send Messages in Threads",
                "write in the tournament's thread",
                "this channel",
            ),
        }
    }
}

/// Whether a channel is a thread (where no thread can be opened). When Discord cannot say,
/// it is taken as a channel.
pub(super) async fn is_thread(http: &Http, channel: ChannelId) -> bool {
    match http.get_channel(channel).await {
        Ok(Channel::Guild(channel)) => matches!(
            channel.kind,
            ChannelType::PublicThread | ChannelType::PrivateThread | ChannelType::NewsThread
        ),
        Ok(_) => false,
        Err(error) => {
            warn!(error = %redacted(&error), %channel, "looking up a channel failed");
            false
        }
    }
}

/// Closes a finished game's thread: archived and locked, so it stays as the game's record.
/// Without Manage Threads the bot may not lock it, and it is archived only.
pub(super) async fn close(http: &Http, channel: ChannelId) {
    if !is_thread(http, channel).await {
        return;
    }
    let closed = EditThread::new().archived(true).locked(true);
    let Err(error) = channel.edit_thread(http, closed).await else {
        return;
    };
    if error_code(&error) == Some(50013) {
        info!(%channel, "no Manage Threads permission: the thread is archived, not locked");
        if let Err(error) = channel
            .edit_thread(http, EditThread::new().archived(true))
            .await
        {
            warn!(error = %redacted(&error), %channel, "archiving a thread failed");
        }
    } else {
        warn!(error = %redacted(&error), %channel, "closing a thread failed");
    }
}
