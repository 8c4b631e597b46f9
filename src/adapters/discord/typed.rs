//! Messages typed in a channel, thread or direct message.

use serenity::all::{Context, Http, Message, UserId};
use tracing::instrument;

use super::send::{notice, permission_problem, send};
use super::{Handler, PLATFORM, Spot, user_of};
use crate::chat::{self, Incoming};

impl Handler {
    /// A message typed in a channel, thread or direct message.
    #[instrument(skip_all, fields(message = %message.id))]
    pub(super) async fn typed(&self, ctx: &Context, message: &Message) {
        if message.author.bot {
            return;
        }
        let bot = self.service.bot(PLATFORM);
        let mut text = message.content.trim().to_owned();
        let mut addressed = message.guild_id.is_none();
        if let Some(bot) = &bot {
            for form in [format!("<@{}>", bot.id), format!("<@!{}>", bot.id)] {
                if let Some(rest) = text.strip_prefix(&form) {
                    text = rest.trim().to_owned();
                    addressed = true;
                }
            }
        }
        let mut mentions = Vec::new();
        for user in &message.mentions {
            let mentioned = user_of(user);
            for form in [format!("<@{}>", user.id), format!("<@!{}>", user.id)] {
                text = text.replace(&form, &format!("@{}", mentioned.name.replace(' ', "_")));
            }
            if bot.as_ref().is_none_or(|bot| bot.id != mentioned.id) {
                mentions.push(mentioned);
            }
        }
        let spot = Spot::new(message.channel_id, message.guild_id);
        let incoming = Incoming {
            place: spot.place.clone(),
            user: user_of(&message.author),
            text,
            event_id: Some(message.id.to_string()),
            addressed,
            mentions,
            // A typed message carries no permissions: server settings go by slash command.
            manager: message.guild_id.is_none(),
        };
        let replies = chat::handle(&self.service, &incoming).await;
        for reply in &replies {
            let out = self
                .dms
                .outgoing(&ctx.http, &spot, reply, Some(&incoming.user))
                .await;
            let sent = match send(&ctx.http, message.channel_id, out).await {
                Ok(sent) => sent,
                Err(error) => {
                    self.explain_silence(&ctx.http, &spot, message.author.id, &error)
                        .await;
                    return;
                }
            };
            if let Some(game) = reply.started
                && let Some(problem) = self.open_thread(&ctx.http, &spot, game, sent.id).await
            {
                let _ = send(&ctx.http, message.channel_id, notice(problem)).await;
            }
        }
    }

    /// Tells `author` by direct message why their message got no answer in `spot`, when
    /// Discord refused the answer for lack of a permission.
    pub(super) async fn explain_silence(
        &self,
        http: &Http,
        spot: &Spot,
        author: UserId,
        error: &serenity::Error,
    ) {
        let channel = format!("<#{}>", spot.channel);
        let permission = "Send Messages (in threads: Send Messages in Threads)";
        if let Some(problem) = permission_problem(error, permission, "answer you", &channel) {
            self.dms.send(http, author, spot, notice(problem)).await;
        }
    }
}
