//! The Discord bot (serenity): slash commands for the whole command grammar, buttons for the
//! answers a reply offers, a thread per game, board pictures as attachments, and reminders by
//! direct message.
//!
//! It stays thin: a slash command, a button or a typed message becomes the command text the
//! chat layer reads ([`chat::handle`]), and each [`Reply`] becomes a Discord message. Every
//! interaction is acknowledged at once (deferred) and answered by editing that acknowledgement,
//! so rendering and the database never run into Discord's three seconds.

mod commands;
mod dm;
mod interactions;
mod send;
mod shown;
mod threads;
mod typed;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serenity::all::{
    ChannelId, Client, ClientBuilder, Command, Context, EventHandler, GatewayIntents, GuildId,
    Http, HttpBuilder, Interaction, Message, Ready, RoleId,
};
use serenity::async_trait;
use tokio::sync::watch;
use tracing::{info, warn};

use super::redacted;
use crate::chat::{self, Means};
use crate::config::{Secret, ShardRange};
use crate::service::{Notice, Place, Service, User};
use dm::DirectMessages;
use send::{discord_id, error_code, outgoing, send};
use shown::Shown;

/// The platform name of Discord in the database.
pub const PLATFORM: &str = "discord";

/// How the bot connects to Discord.
#[derive(Debug, Clone)]
pub struct DiscordConfig {
    /// The bot token.
    pub token: Secret,
    /// Register the slash commands in this server only (they show at once); globally without.
    pub guild_id: Option<u64>,
    /// Ask for the Message Content intent, so bare moves typed in a game's thread are played
    /// (it must be granted in the developer portal).
    pub message_content: bool,
    /// The HTTP API's base, such as `http://127.0.0.1:8080`, instead of Discord's (a proxy or
    /// a test double); its rate limits are then left to it.
    pub api_base: Option<String>,
    /// How often the clocks are looked at for reminders and timeouts.
    pub tick: Duration,
    /// The shards this process runs; `None`: as many as Discord recommends, all here.
    pub shards: Option<ShardRange>,
}

impl DiscordConfig {
    /// A configuration for Discord itself.
    #[must_use]
    pub fn new(token: Secret) -> DiscordConfig {
        DiscordConfig {
            token,
            guild_id: None,
            message_content: false,
            api_base: None,
            tick: Duration::from_secs(60),
            shards: None,
        }
    }
}

/// Why the bot stopped.
#[derive(Debug, thiserror::Error)]
pub enum DiscordError {
    /// Discord does not know the token.
    #[error(
        "Discord refused the bot token. Copy it again from the Bot page of the developer portal into DISCORD_TOKEN."
    )]
    Token,
    /// The Message Content intent was asked for but is not enabled for the application.
    #[error(
        "Discord refused the Message Content intent. Turn it on in the developer portal (Bot page, Privileged Gateway Intents), or unset DISCORD_MESSAGE_CONTENT: players then move with /move or by mentioning the bot."
    )]
    MessageContent,
    /// Building the client or the gateway connection failed otherwise.
    #[error("Discord connection failed: {0}. Check the network and DISCORD_TOKEN.")]
    Connection(serenity::Error),
}

impl From<serenity::Error> for DiscordError {
    fn from(error: serenity::Error) -> DiscordError {
        use serenity::gateway::GatewayError;
        match &error {
            serenity::Error::Gateway(GatewayError::InvalidAuthentication) => DiscordError::Token,
            serenity::Error::Gateway(GatewayError::DisallowedGatewayIntents) => {
                DiscordError::MessageContent
            }
            serenity::Error::Http(serenity::http::HttpError::UnsuccessfulRequest(response))
                if response.status_code.as_u16() == 401 =>
            {
                DiscordError::Token
            }
            _ => DiscordError::Connection(error),
        }
    }
}

/// Runs the bot until `shutdown` turns true.
///
/// # Errors
/// [`DiscordError`] when the client cannot be built or the gateway connection ends in error.
pub async fn run(
    service: Service,
    config: DiscordConfig,
    mut shutdown: watch::Receiver<bool>,
) -> Result<(), DiscordError> {
    let mut http = HttpBuilder::new(config.token.expose());
    if let Some(base) = &config.api_base {
        http = http.proxy(base.as_str()).ratelimiter_disabled(true);
    }
    let mut intents =
        GatewayIntents::GUILDS | GatewayIntents::GUILD_MESSAGES | GatewayIntents::DIRECT_MESSAGES;
    if config.message_content {
        intents |= GatewayIntents::MESSAGE_CONTENT;
    }
    let dms = DirectMessages::default();
    let shown = Shown::default();
    let handler = Handler {
        service: service.clone(),
        guild: config.guild_id.map(GuildId::new),
        dms: dms.clone(),
        shown: shown.clone(),
        means: Means {
            slash_commands: true,
            reads_chatter: config.message_content,
        },
        roles: Arc::default(),
    };
    let mut client: Client = ClientBuilder::new_with_http(http.build(), intents)
        .event_handler(handler)
        .await?;
    let manager = Arc::clone(&client.shard_manager);
    let clocks = tokio::spawn(clocks(
        service,
        Arc::clone(&client.http),
        (dms, shown),
        config.tick,
        shutdown.clone(),
    ));
    let connected = async {
        match config.shards {
            // Serenity's range ends with the last shard included.
            Some(ShardRange { first, last, total }) => {
                info!(
                    first,
                    last, total, "running Discord shards {first} to {last} of {total}"
                );
                client.start_shard_range(first..last, total).await
            }
            None => client.start_autosharded().await,
        }
    };
    let result = tokio::select! {
        result = connected => result.map_err(DiscordError::from),
        () = stopped(&mut shutdown) => {
            manager.shutdown_all().await;
            Ok(())
        }
    };
    clocks.abort();
    result
}

/// Waits until `shutdown` turns true (or its sender is gone).
async fn stopped(shutdown: &mut watch::Receiver<bool>) {
    while !*shutdown.borrow_and_update() {
        if shutdown.changed().await.is_err() {
            return;
        }
    }
}

pub use commands::slash_commands;

/// A chat user for a Discord account, by the name people see: the server nickname (`nick`),
/// else the display name, else the user name.
fn user_of(user: &serenity::all::User, nick: Option<&str>) -> User {
    let name = nick
        .filter(|nick| !nick.trim().is_empty())
        .or(user.global_name.as_deref())
        .unwrap_or(&user.name);
    User::new(PLATFORM, &user.id.to_string(), name)
}

/// A Discord channel (or thread, or direct message) and its server.
#[derive(Debug)]
struct Spot {
    pub(super) channel: ChannelId,
    pub(super) guild: Option<GuildId>,
    /// The same, as the service knows it.
    pub(super) place: Place,
    /// Whether the bot can write there itself. Not where only a user installed it (a direct
    /// or group message between people, a server without the bot): only the answers to
    /// interactions reach those.
    pub(super) reachable: bool,
}

impl Spot {
    fn new(channel: ChannelId, guild: Option<GuildId>) -> Spot {
        let place = Place::new(PLATFORM, &channel.to_string());
        let place = match guild {
            Some(guild) => place.in_community(&guild.to_string()),
            None => place,
        };
        Spot {
            channel,
            guild,
            place,
            reachable: true,
        }
    }

    /// The Discord channel of a place the service names.
    fn of(place: &Place) -> Option<Spot> {
        if place.platform != PLATFORM {
            return None;
        }
        let channel = place.channel.parse::<u64>().ok().filter(|n| *n != 0)?;
        let guild = if place.community == place.channel {
            None
        } else {
            place.community.parse::<u64>().ok().filter(|n| *n != 0)
        };
        Some(Spot::new(ChannelId::new(channel), guild.map(GuildId::new)))
    }

    /// A link that opens this channel of a server, for direct messages.
    fn link(&self) -> Option<String> {
        match self.guild {
            Some(guild) => Some(format!(
                "https://discord.com/channels/{guild}/{}",
                self.channel
            )),
            None if !self.reachable => {
                Some(format!("https://discord.com/channels/@me/{}", self.channel))
            }
            None => None,
        }
    }
}

struct Handler {
    pub(super) service: Service,
    pub(super) guild: Option<GuildId>,
    pub(super) dms: DirectMessages,
    /// The messages whose buttons still apply.
    pub(super) shown: Shown,
    /// What people can answer with here, for the hints in replies.
    pub(super) means: Means,
    /// Each server's role of the bot (the integration's managed role), once looked up.
    pub(super) roles: Arc<Mutex<HashMap<GuildId, Option<RoleId>>>>,
}

#[async_trait]
impl EventHandler for Handler {
    async fn ready(&self, ctx: Context, ready: Ready) {
        let bot = user_of(&ready.user, None);
        info!(bot = %bot.id, "connected to Discord");
        self.service.register_bot(&bot);
        // The commands are the bot's, not a shard's: shard 0 registers them, in whichever
        // process runs it.
        if ready.shard.is_some_and(|shard| shard.id.0 != 0) {
            return;
        }
        let commands = slash_commands();
        let registered = match self.guild {
            Some(guild) => guild.set_commands(&ctx.http, commands).await,
            None => Command::set_global_commands(&ctx.http, commands).await,
        };
        if let Err(error) = registered {
            warn!(error = %redacted(&error), "registering the slash commands failed");
        }
    }

    async fn interaction_create(&self, ctx: Context, interaction: Interaction) {
        match interaction {
            Interaction::Command(command) => self.command(&ctx, &command).await,
            Interaction::Autocomplete(command) => self.autocomplete(&ctx, &command).await,
            Interaction::Component(component) => self.component(&ctx, &component).await,
            _ => {}
        }
    }

    async fn message(&self, ctx: Context, message: Message) {
        self.typed(&ctx, &message).await;
    }
}

/// Looks at the clocks every `tick`: reminders go to the player by direct message when they
/// accept them, else to the game's channel; timeouts, expired challenges and the bot's moves
/// to the channel (the player to move told by direct message when they accept them).
async fn clocks(
    service: Service,
    http: Arc<Http>,
    (dms, shown): (DirectMessages, Shown),
    tick: Duration,
    mut shutdown: watch::Receiver<bool>,
) {
    let mut timer = service.timer(PLATFORM, tick);
    loop {
        let notices = tokio::select! {
            notices = timer.next() => notices,
            () = stopped(&mut shutdown) => return,
        };
        for pending in &notices {
            if deliver(&service, &http, (&dms, &shown), &pending.notice).await {
                service.delivered(pending.id).await;
            } else {
                service.not_delivered(pending.id).await;
            }
        }
    }
}

/// Sends a notice; `true` when Discord took it (a notice for a place that is no Discord
/// channel can never be sent, and counts as handled). Where the bot may not write (a game
/// between people who installed Pigeon to their own accounts), the players are told by
/// direct message.
async fn deliver(
    service: &Service,
    http: &Http,
    (dms, shown): (&DirectMessages, &Shown),
    notice: &Notice,
) -> bool {
    let (place, reply) = chat::notice_reply(service, notice).await;
    if let Notice::Digest { player, .. } = notice {
        // The digest is a direct message; one Discord refuses is tried again later.
        return match discord_id(player) {
            Some(id) => dms.send_direct(http, id, outgoing(&reply)).await,
            None => true,
        };
    }
    let Some(mut spot) = Spot::of(&place) else {
        warn!(channel = %place.channel, "a notice for a place that is no Discord channel");
        return true;
    };
    let out = match (notice, reply.turn.as_ref().and_then(discord_id)) {
        // A reminder is for the player alone: by direct message, else in the channel.
        (Notice::Reminder { .. }, Some(id)) => {
            if dms.send(http, id, &spot, outgoing(&reply)).await {
                return true;
            }
            outgoing(&reply)
        }
        _ => dms.outgoing(http, &spot, &reply, None).await,
    };
    match send(http, spot.channel, out).await {
        Ok(sent) => {
            shown::after_sent(http, shown, &spot, &reply, Some(sent.id), None).await;
            true
        }
        Err(error) if matches!(error_code(&error), Some(50001 | 50013)) => {
            spot.reachable = false;
            let mut told = false;
            for id in players(service, notice) {
                told |= dms.send(http, id, &spot, outgoing(&reply)).await;
            }
            told
        }
        Err(_) => false,
    }
}

/// The Discord accounts of the people a notice is about (never the bot's own).
fn players(service: &Service, notice: &Notice) -> Vec<serenity::all::UserId> {
    let rows = match notice {
        Notice::Reminder { game, .. }
        | Notice::Timeout { game, .. }
        | Notice::DeadlineMoved { game, .. }
        | Notice::LeaveStarted { game, .. }
        | Notice::LeaveEnded { game, .. } => vec![&game.white, &game.black],
        Notice::BotMoved { done, .. } => vec![&done.state.white, &done.state.black],
        Notice::Analysed { analysed, .. } => vec![&analysed.state.white, &analysed.state.black],
        Notice::ChallengeExpired { challenge, .. } => vec![&challenge.challenger],
        Notice::Digest { .. }
        | Notice::TournamentRound { .. }
        | Notice::TournamentStandings { .. }
        | Notice::TournamentOver { .. }
        | Notice::TournamentPostponed { .. } => Vec::new(),
    };
    let bot = service.bot(PLATFORM);
    rows.into_iter()
        .map(chat::player_user)
        .filter(|user| bot.as_ref().is_none_or(|bot| bot.id != user.id))
        .filter_map(|user| discord_id(&user))
        .collect()
}
