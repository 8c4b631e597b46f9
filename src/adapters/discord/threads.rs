//! A thread per game.

use serenity::all::{
    AutoArchiveDuration, Channel, ChannelId, ChannelType, CreateThread, Http, MessageId,
};
use tracing::warn;

use super::send::{message_of, outgoing, permission_problem};
use super::{Handler, Spot, redacted};
use crate::chat::Reply;

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
        if is_thread(http, spot.channel).await {
            // A rematch agreed in a game's thread: the new game is played there too.
            return None;
        }
        let builder = CreateThread::new(format!("Game #{game}"))
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
        let welcome = Reply::text(format!(
            "Game #{game} is played here: type your moves in this thread, or use `/move`."
        ));
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
