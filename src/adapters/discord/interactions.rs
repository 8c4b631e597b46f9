//! Slash commands, completions and button presses: each acknowledged at once (deferred),
//! then answered by editing that acknowledgement.

use serenity::all::{
    AuthorizingIntegrationOwner, AuthorizingIntegrationOwners, InteractionContext,
};
use serenity::all::{
    ButtonStyle, ChannelId, CommandDataOptionValue, CommandInteraction, ComponentInteraction,
    Context, CreateActionRow, CreateAutocompleteResponse, CreateButton, CreateInteractionResponse,
    CreateInteractionResponseMessage, GuildId, Http, InteractionId, Message, MessageId,
};
use serenity::builder::Builder;
use tracing::{instrument, warn};

use super::commands::{command_text, is_private, needs_confirmation, short};
use super::send::{Outgoing, edit_of, followup_of, notice};
use super::shown::after_sent;
use super::{Handler, Spot, redacted, user_of};
use crate::chat::{self, Incoming, Means, Reply};
use crate::service::{User, Verdict};

/// The custom id of the button that answers "no" to a confirmation.
pub(super) const DISMISS: &str = "dismiss";
/// A button's custom id that runs a command only after it was confirmed.
pub(super) const CONFIRMED: &str = "confirm:";
/// Discord offers at most this many autocomplete choices.
pub(super) const CHOICES: usize = 25;

/// The [`Asked`] of a command, autocomplete or button interaction (they share these fields,
/// not a trait).
macro_rules! asked {
    ($interaction:expr) => {{
        let i = $interaction;
        let permissions = i.member.as_ref().and_then(|member| member.permissions);
        let nick = i.member.as_ref().and_then(|member| member.nick.as_deref());
        let mut asked = Asked::of(i.id, &i.token, i.channel_id, i.guild_id, &i.user, nick);
        asked.manager = i.guild_id.is_none() || permissions.is_some_and(|p| p.manage_guild());
        asked.spot.reachable = bot_is_there(i.context, &i.authorizing_integration_owners);
        asked
    }};
}

/// An interaction being answered.
#[derive(Debug)]
pub(super) struct Asked {
    pub(super) id: InteractionId,
    pub(super) token: String,
    pub(super) spot: Spot,
    pub(super) user: User,
    /// Whether the user may change the server's settings (Manage Server; anyone in a direct
    /// message).
    pub(super) manager: bool,
}

impl Asked {
    pub(super) fn of(
        id: InteractionId,
        token: &str,
        channel: ChannelId,
        guild: Option<GuildId>,
        user: &serenity::all::User,
        nick: Option<&str>,
    ) -> Asked {
        Asked {
            id,
            token: token.to_owned(),
            spot: Spot::new(channel, guild),
            user: user_of(user, nick),
            manager: guild.is_none(),
        }
    }

    pub(super) fn incoming(&self, text: String, mentions: Vec<User>, means: Means) -> Incoming {
        Incoming {
            place: self.spot.place.clone(),
            user: self.user.clone(),
            text,
            event_id: Some(self.id.to_string()),
            addressed: true,
            mentions,
            manager: self.manager,
            means,
        }
    }

    /// Acknowledges the interaction at once: Discord's "thinking…" until the answer is edited in.
    pub(super) async fn defer(&self, http: &Http, private: bool) -> serenity::Result<()> {
        CreateInteractionResponse::Defer(CreateInteractionResponseMessage::new().ephemeral(private))
            .execute(http, (self.id, &self.token))
            .await
    }

    pub(super) async fn respond(&self, http: &Http, response: CreateInteractionResponse) {
        if let Err(error) = response.execute(http, (self.id, &self.token)).await {
            warn!(error = %redacted(&error), interaction = %self.id, "answering an interaction failed");
        }
    }

    pub(super) async fn followup(&self, http: &Http, out: Outgoing) -> Option<Message> {
        match followup_of(out).execute(http, (None, &self.token)).await {
            Ok(message) => Some(message),
            Err(error) => {
                warn!(error = %redacted(&error), interaction = %self.id, "a follow-up failed");
                None
            }
        }
    }
}

/// Whether the bot is where an interaction comes from, so it can write there itself: not in
/// direct or group messages between people, nor in a server that installed it only through a
/// user (the interaction names no server install).
fn bot_is_there(
    context: Option<InteractionContext>,
    owners: &AuthorizingIntegrationOwners,
) -> bool {
    match context {
        Some(InteractionContext::PrivateChannel) => false,
        Some(InteractionContext::Guild) if !owners.0.is_empty() => owners
            .0
            .iter()
            .any(|owner| matches!(owner, AuthorizingIntegrationOwner::GuildInstall(_))),
        _ => true,
    }
}

impl Handler {
    #[instrument(skip_all, fields(interaction = %command.id))]
    pub(super) async fn command(&self, ctx: &Context, command: &CommandInteraction) {
        let asked = asked!(command);
        let (text, users) = command_text(&command.data.name, &command.data.options);
        let private = is_private(&text);
        if needs_confirmation(&text) {
            asked.respond(&ctx.http, confirmation(&text)).await;
            return;
        }
        if let Err(error) = asked.defer(&ctx.http, private).await {
            warn!(error = %redacted(&error), "deferring an interaction failed");
            return;
        }
        let replies = if command.data.name == "threads" {
            vec![self.threads(&asked, &text).await]
        } else {
            let mentions = users
                .iter()
                .filter_map(|id| {
                    let user = command.data.resolved.users.get(id)?;
                    let member = command.data.resolved.members.get(id);
                    Some(user_of(user, member.and_then(|m| m.nick.as_deref())))
                })
                .collect();
            let incoming = asked.incoming(text, mentions, self.means);
            chat::handle(&self.service, &incoming).await
        };
        self.answer(ctx, &asked, private, None, replies).await;
    }

    #[instrument(skip_all, fields(interaction = %component.id))]
    pub(super) async fn component(&self, ctx: &Context, component: &ComponentInteraction) {
        let asked = asked!(component);
        let id = component.data.custom_id.as_str();
        if id == DISMISS {
            let update = CreateInteractionResponseMessage::new()
                .content("Nothing was done.")
                .components(Vec::new());
            asked
                .respond(&ctx.http, CreateInteractionResponse::UpdateMessage(update))
                .await;
            return;
        }
        let (confirmed, text) = match id.strip_prefix(CONFIRMED) {
            Some(text) => (true, text),
            None => (false, id),
        };
        if needs_confirmation(text) && !confirmed {
            asked.respond(&ctx.http, confirmation(text)).await;
            return;
        }
        let private = is_private(text);
        if let Err(error) = asked.defer(&ctx.http, private).await {
            warn!(error = %redacted(&error), "deferring an interaction failed");
            return;
        }
        // A confirmed command says so, so the chat layer does not ask again.
        let text = if confirmed {
            format!("{text} confirm")
        } else {
            text.to_owned()
        };
        let incoming = asked.incoming(text, Vec::new(), self.means);
        let replies = chat::handle(&self.service, &incoming).await;
        self.answer(ctx, &asked, private, Some(component.message.id), replies)
            .await;
    }

    #[instrument(skip_all, fields(interaction = %command.id))]
    pub(super) async fn autocomplete(&self, ctx: &Context, command: &CommandInteraction) {
        let Some(focused) = command.data.autocomplete() else {
            return;
        };
        let asked = asked!(command);
        let typed = focused.value.trim().trim_start_matches('#').to_lowercase();
        let mut response = CreateAutocompleteResponse::new();
        let allowed = self.service.check_completion_rate(&asked.user) == Verdict::Allowed;
        match focused.name {
            _ if !allowed => {} // over the limit: no choices, and no database work
            "game" => {
                let games = chat::open_games(&self.service, &asked.spot.place, &asked.user)
                    .await
                    .unwrap_or_default();
                for game in games
                    .iter()
                    .filter(|game| game.to_string().to_lowercase().contains(&typed))
                    .take(CHOICES)
                {
                    response = response.add_int_choice(short(&game.to_string(), 100), game.id);
                }
            }
            "line" => {
                let lines = chat::line_choices(
                    &self.service,
                    &asked.spot.place,
                    &asked.user,
                    game_of(command),
                    focused.value,
                    (CHOICES, 100),
                )
                .await
                .unwrap_or_default();
                for text in lines {
                    response = response.add_string_choice(text.clone(), text);
                }
            }
            "move" => {
                let game = game_of(command);
                let moves = chat::move_choices(
                    &self.service,
                    &asked.spot.place,
                    &asked.user,
                    game,
                    &typed,
                    CHOICES,
                )
                .await
                .unwrap_or_default();
                for text in moves {
                    response = response.add_string_choice(text.clone(), text);
                }
            }
            _ => {}
        }
        asked
            .respond(&ctx.http, CreateInteractionResponse::Autocomplete(response))
            .await;
    }

    /// The `threads on|off` setting of a server.
    pub(super) async fn threads(&self, asked: &Asked, text: &str) -> Reply {
        if asked.spot.guild.is_none() {
            return Reply::private("Threads are a server setting; use this in a server.");
        }
        let on = !text.ends_with("off");
        match self.service.set_threads(&asked.spot.place, on).await {
            Ok(()) if on => Reply::private("Each new game in this server gets a thread."),
            Ok(()) => Reply::private("New games in this server are played in their channel."),
            Err(error) => Reply::private(error.to_string()),
        }
    }

    /// Sends the replies to an interaction: the first into the deferred answer when their
    /// privacy matches, the rest as follow-ups.
    pub(super) async fn answer(
        &self,
        ctx: &Context,
        asked: &Asked,
        deferred_private: bool,
        source: Option<MessageId>,
        replies: Vec<Reply>,
    ) {
        let http = &ctx.http;
        if replies.is_empty() {
            // A duplicate delivery: the first one was answered.
            let _ = http
                .delete_original_interaction_response(&asked.token)
                .await;
            return;
        }
        for (index, reply) in replies.iter().enumerate() {
            let out = self
                .dms
                .outgoing(http, &asked.spot, reply, Some(&asked.user))
                .await;
            let sent = if index == 0 && reply.private == deferred_private {
                match edit_of(out).execute(http, &asked.token).await {
                    Ok(message) => Some(message),
                    Err(error) => {
                        warn!(error = %redacted(&error), "editing an interaction answer failed");
                        None
                    }
                }
            } else {
                if index == 0 {
                    let _ = http
                        .delete_original_interaction_response(&asked.token)
                        .await;
                }
                asked.followup(http, out).await
            };
            let id = sent.as_ref().map(|sent| sent.id);
            after_sent(
                http,
                &self.shown,
                &asked.spot,
                reply,
                id,
                Some(&asked.token),
            )
            .await;
            if let (Some(game), Some(sent)) = (reply.started, &sent) {
                let from = source.unwrap_or(sent.id);
                if let Some(problem) = self.open_thread(http, &asked.spot, game, from).await {
                    asked.followup(http, notice(problem)).await;
                }
            }
            if let (Some(tournament), Some(sent)) = (reply.tournament, &sent)
                && let Some(problem) = self
                    .open_tournament_thread(http, &asked.spot, tournament, sent.id)
                    .await
            {
                asked.followup(http, notice(problem)).await;
            }
        }
    }
}

/// The question before a command that cannot be taken back.
pub(super) fn confirmation(command: &str) -> CreateInteractionResponse {
    let buttons = vec![
        CreateButton::new(format!("{CONFIRMED}{command}"))
            .label("Yes, resign")
            .style(ButtonStyle::Danger),
        CreateButton::new(DISMISS)
            .label("Keep playing")
            .style(ButtonStyle::Secondary),
    ];
    CreateInteractionResponse::Message(
        CreateInteractionResponseMessage::new()
            .content("Do you really want to resign? This can't be taken back.")
            .components(vec![CreateActionRow::Buttons(buttons)])
            .ephemeral(true),
    )
}

/// The game number an interaction's options name, if any.
fn game_of(command: &CommandInteraction) -> Option<i64> {
    command
        .data
        .options
        .iter()
        .find_map(|option| match (&option.value, option.name.as_str()) {
            (CommandDataOptionValue::Integer(n), "game") => Some(*n),
            _ => None,
        })
}
