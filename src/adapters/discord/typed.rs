//! Messages typed in a channel, thread or direct message.

use serenity::all::{Context, GuildId, Http, Message, RoleId, UserId};
use tracing::{instrument, warn};

use super::send::{notice, outgoing, permission_problem, send};
use super::shown::after_sent;
use super::{Handler, PLATFORM, Spot, redacted, user_of};
use crate::chat::{self, Incoming, Reply};

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
            let mut forms = vec![format!("<@{}>", bot.id), format!("<@!{}>", bot.id)];
            // The bot's own role in a server (its integration's) addresses it too.
            if let Some(guild) = message.guild_id
                && !message.mention_roles.is_empty()
                && let Some(role) = self.bot_role(&ctx.http, guild).await
                && message.mention_roles.contains(&role)
            {
                forms.push(format!("<@&{role}>"));
            }
            for form in forms {
                if let Some(rest) = text.strip_prefix(&form) {
                    text = rest.trim().to_owned();
                    addressed = true;
                }
            }
        }
        let mut mentions = Vec::new();
        for user in &message.mentions {
            let nick = user
                .member
                .as_ref()
                .and_then(|member| member.nick.as_deref());
            let mentioned = user_of(user, nick);
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
            user: user_of(
                &message.author,
                message
                    .member
                    .as_ref()
                    .and_then(|member| member.nick.as_deref()),
            ),
            text,
            event_id: Some(message.id.to_string()),
            addressed,
            mentions,
            // A typed message carries no permissions: server settings go by slash command.
            manager: message.guild_id.is_none(),
            means: self.means,
        };
        let replies = chat::handle(&self.service, &incoming).await;
        for reply in &replies {
            if reply.secret && message.guild_id.is_some() {
                self.tell_privately(&ctx.http, message, reply).await;
                continue;
            }
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
            after_sent(&ctx.http, &self.shown, &spot, reply, Some(sent.id), None).await;
            if let Some(game) = reply.started
                && let Some(problem) = self.open_thread(&ctx.http, &spot, game, sent.id).await
            {
                let _ = send(&ctx.http, message.channel_id, notice(problem)).await;
            }
            if let Some(tournament) = reply.tournament
                && let Some(problem) = self
                    .open_tournament_thread(&ctx.http, &spot, tournament, sent.id)
                    .await
            {
                let _ = send(&ctx.http, message.channel_id, notice(problem)).await;
            }
        }
    }

    /// The bot's role in a server: the one Discord manages for its integration, tagged with
    /// the bot's id. Looked up once per server.
    async fn bot_role(&self, http: &Http, guild: GuildId) -> Option<RoleId> {
        let known = self
            .roles
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&guild)
            .copied();
        if let Some(role) = known {
            return role;
        }
        let bot = self.service.bot(PLATFORM)?.id.parse::<u64>().ok()?;
        let roles = match guild.roles(http).await {
            Ok(roles) => roles,
            Err(error) => {
                warn!(error = %redacted(&error), %guild, "looking up the server's roles failed");
                return None;
            }
        };
        let role = roles
            .values()
            .find(|role| role.tags.bot_id.is_some_and(|id| id.get() == bot))
            .map(|role| role.id);
        self.roles
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(guild, role);
        role
    }

    /// Sends a reply only its asker may see (a note, the sandbox) by direct message, since a
    /// typed message cannot get an ephemeral answer; when Discord refuses, says so in the
    /// channel without the reply's content.
    async fn tell_privately(&self, http: &Http, message: &Message, reply: &Reply) {
        let sent = match message.author.id.create_dm_channel(http).await {
            Ok(dm) => send(http, dm.id, outgoing(reply)).await.map(|_| ()),
            Err(error) => Err(error),
        };
        if let Err(error) = sent {
            warn!(error = %redacted(&error), "a private answer by direct message was refused");
            let text = format!(
                "<@{}>, I answer that only privately and could not send you a direct message. \
                 Allow direct messages from this server's members, or use the slash command.",
                message.author.id
            );
            let _ = send(http, message.channel_id, notice(text)).await;
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
