//! The Discord bot (serenity): slash commands for the whole command grammar, buttons for the
//! answers a reply offers, a thread per game, board pictures as attachments, and reminders by
//! direct message.
//!
//! It stays thin: a slash command, a button or a typed message becomes the command text the
//! chat layer reads ([`chat::handle`]), and each [`Reply`] becomes a Discord message. Every
//! interaction is acknowledged at once (deferred) and answered by editing that acknowledgement,
//! so rendering and the database never run into Discord's three seconds.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serenity::all::{
    AutoArchiveDuration, ButtonStyle, Channel, ChannelId, ChannelType, Client, ClientBuilder,
    Command, CommandDataOption, CommandDataOptionValue, CommandInteraction, CommandOptionType,
    ComponentInteraction, Context, CreateActionRow, CreateAllowedMentions, CreateAttachment,
    CreateAutocompleteResponse, CreateButton, CreateCommand, CreateCommandOption,
    CreateInteractionResponse, CreateInteractionResponseFollowup, CreateInteractionResponseMessage,
    CreateMessage, CreateThread, EditInteractionResponse, EventHandler, GatewayIntents, GuildId,
    Http, HttpBuilder, Interaction, InteractionId, Message, MessageId, Permissions, Ready, UserId,
};
use serenity::async_trait;
use serenity::builder::Builder;
use tokio::sync::watch;
use tracing::{info, instrument, warn};

use super::redacted;
use crate::chat::{self, Incoming, Part, Reply, Style};
use crate::config::{Secret, ShardRange};
use crate::service::{Notice, Place, Service, User, Verdict};

/// The platform name of Discord in the database.
pub const PLATFORM: &str = "discord";
/// Discord offers at most this many autocomplete choices.
const CHOICES: usize = 25;
/// Discord's longest message.
const MAX_CONTENT: usize = 2000;
/// The custom id of the button that answers "no" to a confirmation.
const DISMISS: &str = "dismiss";
/// A button's custom id that runs a command only after it was confirmed.
const CONFIRMED: &str = "confirm:";
/// How long a player's refusal of direct messages is believed before the bot tries again.
const REFUSAL_MEMORY: Duration = Duration::from_secs(6 * 3600);

/// The commands whose answers only the asker sees: they are deferred ephemerally.
const PRIVATE_COMMANDS: &[&str] = &[
    "moves", "games", "info", "history", "export", "rules", "settings", "help", "threads", "limits",
];

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
    let handler = Handler {
        service: service.clone(),
        guild: config.guild_id.map(GuildId::new),
        dms: dms.clone(),
    };
    let mut client: Client = ClientBuilder::new_with_http(http.build(), intents)
        .event_handler(handler)
        .await?;
    let manager = Arc::clone(&client.shard_manager);
    let clocks = tokio::spawn(clocks(
        service,
        Arc::clone(&client.http),
        dms,
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

/// The slash commands: one per command of the grammar, plus the server's thread setting.
#[must_use]
pub fn slash_commands() -> Vec<CreateCommand> {
    // `threads` is the server's own command below, for managers only.
    let mut commands: Vec<CreateCommand> = chat::COMMANDS
        .iter()
        .filter(|spec| spec.name != "threads")
        .map(|spec| {
            CreateCommand::new(spec.name)
                .description(short(spec.summary, 100))
                .set_options(options(spec.name))
        })
        .collect();
    commands.push(
        CreateCommand::new("threads")
            .description("Whether each game in this server gets a thread of its own")
            .default_member_permissions(Permissions::MANAGE_GUILD)
            .dm_permission(false)
            .add_option(on_off("threads", "on or off").required(true)),
    );
    commands
}

fn short(text: &str, limit: usize) -> String {
    text.chars().take(limit).collect()
}

fn game_option() -> CreateCommandOption {
    CreateCommandOption::new(CommandOptionType::Integer, "game", "the game number")
        .min_int_value(1)
        .set_autocomplete(true)
}

fn string_option(name: &str, description: &str, choices: &[&str]) -> CreateCommandOption {
    choices.iter().fold(
        CreateCommandOption::new(CommandOptionType::String, name, description),
        |option, choice| option.add_string_choice(*choice, *choice),
    )
}

fn on_off(name: &str, description: &str) -> CreateCommandOption {
    string_option(name, description, &["on", "off"])
}

fn variant_option(name: &str) -> CreateCommandOption {
    chat::table::games().fold(
        CreateCommandOption::new(CommandOptionType::String, name, "which game"),
        |option, (display, key)| option.add_string_choice(display, key),
    )
}

/// The options of each slash command; their values become the command's words.
fn options(command: &str) -> Vec<CreateCommandOption> {
    let challenge = || {
        CreateCommandOption::new(
            CommandOptionType::Integer,
            "challenge",
            "the challenge number",
        )
        .min_int_value(1)
    };
    match command {
        "challenge" => vec![
            CreateCommandOption::new(
                CommandOptionType::User,
                "opponent",
                "who to play (leave out for anyone here)",
            ),
            variant_option("variant"),
            CreateCommandOption::new(CommandOptionType::Integer, "days", "days per move")
                .min_int_value(1)
                .max_int_value(14),
            string_option("colour", "your colour", &["white", "black", "random"]),
            string_option(
                "rating",
                "whether the result counts for ratings (default: rated)",
                &["rated", "casual"],
            ),
            CreateCommandOption::new(
                CommandOptionType::Integer,
                "level",
                "against me: how strongly I play (1-5, default 3)",
            )
            .min_int_value(1)
            .max_int_value(5),
        ],
        "accept" | "decline" | "cancel" => vec![challenge()],
        "move" => vec![
            CreateCommandOption::new(CommandOptionType::String, "move", "the move")
                .required(true)
                .set_autocomplete(true),
            game_option(),
        ],
        "moves" => vec![
            game_option(),
            CreateCommandOption::new(
                CommandOptionType::String,
                "square",
                "only the moves of the piece here",
            ),
        ],
        "draw" => vec![
            string_option(
                "action",
                "what to do (default: offer)",
                &["offer", "accept", "decline", "claim"],
            ),
            game_option(),
        ],
        "games" => vec![string_option(
            "scope",
            "yours or this channel's",
            &["mine", "here"],
        )],
        "rules" => vec![variant_option("variant")],
        "settings" => vec![
            on_off("pings", "mention you when it is your turn"),
            string_option(
                "view",
                "the side boards are seen from",
                &["mine", "mover", "white", "black"],
            ),
        ],
        "limits" => vec![
            string_option(
                "cap",
                "the cap to change (managers only)",
                &["challenges", "games", "bot", "opponent"],
            ),
            CreateCommandOption::new(CommandOptionType::Integer, "value", "its new value")
                .min_int_value(1),
        ],
        "help" => vec![CreateCommandOption::new(
            CommandOptionType::String,
            "command",
            "one command in detail, or a game's pieces (chak pieces)",
        )],
        _ => vec![game_option()],
    }
}

/// The command text a slash command stands for, and the users it names.
fn command_text(name: &str, options: &[CommandDataOption]) -> (String, Vec<UserId>) {
    let mut words = vec![name.to_owned()];
    let mut users = Vec::new();
    for option in options {
        let word = match (&option.value, option.name.as_str()) {
            (CommandDataOptionValue::User(id), _) => {
                users.push(*id);
                continue;
            }
            (CommandDataOptionValue::Integer(n), "game") => format!("#{n}"),
            (CommandDataOptionValue::Integer(n), "days") => format!("{n} days"),
            (CommandDataOptionValue::Integer(n), "level") => format!("level {n}"),
            (CommandDataOptionValue::Integer(n), _) => n.to_string(),
            (CommandDataOptionValue::String(text), "pings" | "view") => {
                format!("{} {text}", option.name)
            }
            (CommandDataOptionValue::String(text), _) => text.clone(),
            _ => continue,
        };
        words.push(word);
    }
    // The game number goes first, so a move text never swallows it.
    if let Some(at) = words.iter().position(|w| w.starts_with('#')) {
        let game = words.remove(at);
        words.insert(1, game);
    }
    (words.join(" "), users)
}

fn is_private(command: &str) -> bool {
    let word = command.split_whitespace().next().unwrap_or_default();
    PRIVATE_COMMANDS.contains(&word)
}

fn needs_confirmation(command: &str) -> bool {
    command.split_whitespace().next() == Some("resign")
}

/// A chat user for a Discord account.
fn user_of(user: &serenity::all::User) -> User {
    let name = user.global_name.as_deref().unwrap_or(&user.name);
    User::new(PLATFORM, &user.id.to_string(), name)
}

/// A Discord channel (or thread, or direct message) and its server.
#[derive(Debug)]
struct Spot {
    channel: ChannelId,
    guild: Option<GuildId>,
    /// The same, as the service knows it.
    place: Place,
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
        let guild = self.guild?;
        Some(format!(
            "https://discord.com/channels/{guild}/{}",
            self.channel
        ))
    }
}

/// Direct messages to players, remembering for a while who refuses them so their pings go
/// to the game's channel without asking Discord again each turn.
#[derive(Debug, Clone, Default)]
struct DirectMessages {
    refused: Arc<Mutex<HashMap<UserId, Instant>>>,
}

impl DirectMessages {
    /// Tells `user` privately the text of `out` about `spot` (without its picture and
    /// buttons), with a link to it. False when they do not take direct messages from the bot
    /// (Discord's 50007) or Discord failed.
    async fn send(&self, http: &Http, user: UserId, spot: &Spot, mut out: Outgoing) -> bool {
        if self.refused_lately(user) {
            return false;
        }
        if let Some(link) = spot.link() {
            out.content = fit(format!("{}\n{link}", out.content));
        }
        out.pings.clear();
        out.picture = None;
        out.buttons.clear();
        let sent = match user.create_dm_channel(http).await {
            Ok(dm) => dm.id.send_message(http, message_of(out)).await,
            Err(error) => Err(error),
        };
        match sent {
            Ok(_) => true,
            Err(error) => {
                let code = error_code(&error);
                info!(
                    ?code,
                    "a direct message was refused; the ping goes to the channel"
                );
                if code == Some(50007) {
                    self.lock().insert(user, Instant::now());
                }
                false
            }
        }
    }

    fn refused_lately(&self, user: UserId) -> bool {
        let mut refused = self.lock();
        refused.retain(|_, when| when.elapsed() < REFUSAL_MEMORY);
        refused.contains_key(&user)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<UserId, Instant>> {
        self.refused
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A reply for a server channel. When it tells a player it is their move
    /// ([`Reply::turn`]) and they take direct messages, they are told there, with a link,
    /// and not pinged in the channel; unless they are the one who asked, reading already.
    async fn outgoing(
        &self,
        http: &Http,
        spot: &Spot,
        reply: &Reply,
        asker: Option<&User>,
    ) -> Outgoing {
        let mut out = outgoing(reply);
        let Some(player) = &reply.turn else {
            return out;
        };
        if spot.guild.is_none() || asker == Some(player) {
            return out;
        }
        if let Some(id) = discord_id(player)
            && self.send(http, id, spot, outgoing(reply)).await
        {
            out.pings.retain(|ping| *ping != id);
        }
        out
    }
}

/// A reply, ready for Discord.
#[derive(Debug)]
struct Outgoing {
    content: String,
    pings: Vec<UserId>,
    picture: Option<CreateAttachment>,
    buttons: Vec<CreateActionRow>,
    private: bool,
}

/// Turns a reply into Discord's terms: text and names escaped for markdown (only the
/// command examples between backticks stay code), mentions as `<@id>` pinging exactly those
/// users, the picture as an attachment, actions as buttons.
fn outgoing(reply: &Reply) -> Outgoing {
    let mut content = String::new();
    let mut pings = Vec::new();
    for part in &reply.parts {
        match part {
            Part::Text(text) => content.push_str(&markdown_escaped(text, true)),
            Part::Mention(user) => match discord_id(user) {
                Some(id) => {
                    content.push_str(&format!("<@{id}>"));
                    pings.push(id);
                }
                None => content.push_str(&markdown_escaped(&user.name, false)),
            },
            Part::Name(user) => content.push_str(&markdown_escaped(&user.name, false)),
            Part::Channel(channel) if channel.parse::<u64>().is_ok() => {
                content.push_str(&format!("<#{channel}>"));
            }
            Part::Channel(channel) => content.push_str(&markdown_escaped(channel, false)),
        }
    }
    Outgoing {
        content: fit(content),
        pings,
        picture: reply
            .picture
            .as_ref()
            .map(|picture| CreateAttachment::bytes(picture.data.clone(), picture.name.clone())),
        buttons: buttons(reply),
        private: reply.private,
    }
}

/// `text` with every character that Discord's markdown reads as formatting (bold, italics,
/// strikethrough, spoilers, code), as a masked link (`[label](url)`), as a mention or channel
/// link (`<@id>`, `<#id>`, `@everyone`), or at the start of a line as a heading, list or quote
/// escaped with a backslash, so it shows as written. With `code`, a pair of backticks around
/// a command example (the bot's own, see [`Part::Text`]) is kept as code; else every
/// backtick is escaped too.
///
/// serenity's own helpers leave masked links and channel links alone (`push_safe`) or need
/// its cache (`content_safe`), hence this.
fn markdown_escaped(text: &str, code: bool) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut line_start = true;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c == '`'
            && code
            && let Some(end) = rest[1..].find('`')
        {
            let span = &rest[..end + 2];
            out.push_str(span);
            rest = &rest[span.len()..];
            line_start = false;
            continue;
        }
        let always = matches!(
            c,
            '\\' | '*' | '_' | '~' | '|' | '`' | '[' | ']' | '<' | '@'
        );
        if always || (line_start && matches!(c, '#' | '>' | '-')) {
            out.push('\\');
        }
        out.push(c);
        line_start = c == '\n' || (line_start && (c == ' ' || c == '\t'));
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// Content cut to Discord's longest message.
fn fit(content: String) -> String {
    if content.chars().count() > MAX_CONTENT {
        short(&content, MAX_CONTENT - 1) + "…"
    } else {
        content
    }
}

fn discord_id(user: &User) -> Option<UserId> {
    if user.platform != PLATFORM {
        return None;
    }
    user.id
        .parse::<u64>()
        .ok()
        .filter(|n| *n != 0)
        .map(UserId::new)
}

fn buttons(reply: &Reply) -> Vec<CreateActionRow> {
    let buttons: Vec<CreateButton> = reply
        .actions
        .iter()
        .filter(|action| action.command.len() <= 100)
        .map(|action| {
            CreateButton::new(action.command.clone())
                .label(action.label.clone())
                .style(match action.style {
                    Style::Primary => ButtonStyle::Primary,
                    Style::Secondary => ButtonStyle::Secondary,
                    Style::Danger => ButtonStyle::Danger,
                })
        })
        .collect();
    buttons
        .chunks(5)
        .take(5)
        .map(|row| CreateActionRow::Buttons(row.to_vec()))
        .collect()
}

fn allowed(pings: &[UserId]) -> CreateAllowedMentions {
    CreateAllowedMentions::new().users(pings.iter().copied())
}

/// Fills one of serenity's message builders (they share their setters, not a trait).
macro_rules! filled {
    ($builder:expr, $out:expr, $attach:ident) => {{
        let out: Outgoing = $out;
        let builder = $builder
            .content(out.content)
            .allowed_mentions(allowed(&out.pings))
            .components(out.buttons);
        match out.picture {
            Some(picture) => builder.$attach(picture),
            None => builder,
        }
    }};
}

fn message_of(out: Outgoing) -> CreateMessage {
    filled!(CreateMessage::new(), out, add_file)
}

fn edit_of(out: Outgoing) -> EditInteractionResponse {
    filled!(EditInteractionResponse::new(), out, new_attachment)
}

fn followup_of(out: Outgoing) -> CreateInteractionResponseFollowup {
    let private = out.private;
    filled!(
        CreateInteractionResponseFollowup::new().ephemeral(private),
        out,
        add_file
    )
}

/// The Discord error code of a failed request.
fn error_code(error: &serenity::Error) -> Option<isize> {
    match error {
        serenity::Error::Http(serenity::http::HttpError::UnsuccessfulRequest(response)) => {
            Some(response.error.code)
        }
        _ => None,
    }
}

/// What to tell people when Discord refused something in `channel` (such as "this channel")
/// for lack of a permission, naming it.
fn permission_problem(
    error: &serenity::Error,
    permission: &str,
    doing: &str,
    channel: &str,
) -> Option<String> {
    match error_code(error)? {
        50013 => Some(format!(
            "I couldn't {doing}: I need the **{permission}** permission in {channel}. Ask a \
             server admin to grant it."
        )),
        50001 => Some(format!(
            "I couldn't {doing}: I can't see {channel}. Ask a server admin to give me \
             **View Channel** and **{permission}** there."
        )),
        _ => None,
    }
}

/// The [`Asked`] of a command, autocomplete or button interaction (they share these fields,
/// not a trait).
macro_rules! asked {
    ($interaction:expr) => {{
        let i = $interaction;
        let permissions = i.member.as_ref().and_then(|member| member.permissions);
        let mut asked = Asked::of(i.id, &i.token, i.channel_id, i.guild_id, &i.user);
        asked.manager = i.guild_id.is_none() || permissions.is_some_and(|p| p.manage_guild());
        asked
    }};
}

/// An interaction being answered.
#[derive(Debug)]
struct Asked {
    id: InteractionId,
    token: String,
    spot: Spot,
    user: User,
    /// Whether the user may change the server's settings (Manage Server; anyone in a direct
    /// message).
    manager: bool,
}

impl Asked {
    fn of(
        id: InteractionId,
        token: &str,
        channel: ChannelId,
        guild: Option<GuildId>,
        user: &serenity::all::User,
    ) -> Asked {
        Asked {
            id,
            token: token.to_owned(),
            spot: Spot::new(channel, guild),
            user: user_of(user),
            manager: guild.is_none(),
        }
    }

    fn incoming(&self, text: String, mentions: Vec<User>) -> Incoming {
        Incoming {
            place: self.spot.place.clone(),
            user: self.user.clone(),
            text,
            event_id: Some(self.id.to_string()),
            addressed: true,
            mentions,
            manager: self.manager,
        }
    }

    /// Acknowledges the interaction at once: Discord's "thinking…" until the answer is edited in.
    async fn defer(&self, http: &Http, private: bool) -> serenity::Result<()> {
        CreateInteractionResponse::Defer(CreateInteractionResponseMessage::new().ephemeral(private))
            .execute(http, (self.id, &self.token))
            .await
    }

    async fn respond(&self, http: &Http, response: CreateInteractionResponse) {
        if let Err(error) = response.execute(http, (self.id, &self.token)).await {
            warn!(error = %redacted(&error), interaction = %self.id, "answering an interaction failed");
        }
    }

    async fn followup(&self, http: &Http, out: Outgoing) -> Option<Message> {
        match followup_of(out).execute(http, (None, &self.token)).await {
            Ok(message) => Some(message),
            Err(error) => {
                warn!(error = %redacted(&error), interaction = %self.id, "a follow-up failed");
                None
            }
        }
    }
}

struct Handler {
    service: Service,
    guild: Option<GuildId>,
    dms: DirectMessages,
}

#[async_trait]
impl EventHandler for Handler {
    async fn ready(&self, ctx: Context, ready: Ready) {
        let bot = user_of(&ready.user);
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

impl Handler {
    #[instrument(skip_all, fields(interaction = %command.id))]
    async fn command(&self, ctx: &Context, command: &CommandInteraction) {
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
                .filter_map(|id| command.data.resolved.users.get(id))
                .map(user_of)
                .collect();
            chat::handle(&self.service, &asked.incoming(text, mentions)).await
        };
        self.answer(ctx, &asked, private, None, replies).await;
    }

    #[instrument(skip_all, fields(interaction = %component.id))]
    async fn component(&self, ctx: &Context, component: &ComponentInteraction) {
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
        let replies = chat::handle(&self.service, &asked.incoming(text, Vec::new())).await;
        self.answer(ctx, &asked, private, Some(component.message.id), replies)
            .await;
    }

    #[instrument(skip_all, fields(interaction = %command.id))]
    async fn autocomplete(&self, ctx: &Context, command: &CommandInteraction) {
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
            "move" => {
                let game = command.data.options.iter().find_map(|option| {
                    match (&option.value, option.name.as_str()) {
                        (CommandDataOptionValue::Integer(n), "game") => Some(*n),
                        _ => None,
                    }
                });
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
    async fn threads(&self, asked: &Asked, text: &str) -> Reply {
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
    async fn answer(
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
            if let (Some(game), Some(sent)) = (reply.started, sent) {
                let from = source.unwrap_or(sent.id);
                if let Some(problem) = self.open_thread(http, &asked.spot, game, from).await {
                    asked.followup(http, notice(problem)).await;
                }
            }
        }
    }

    /// Opens a thread for a game from `from` (the challenge's message) and moves the game
    /// there. `Some(text)` tells what went wrong.
    async fn open_thread(
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

    /// A message typed in a channel, thread or direct message.
    #[instrument(skip_all, fields(message = %message.id))]
    async fn typed(&self, ctx: &Context, message: &Message) {
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
    async fn explain_silence(
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

/// Whether a channel is a thread (where no thread can be opened). When Discord cannot say,
/// it is taken as a channel.
async fn is_thread(http: &Http, channel: ChannelId) -> bool {
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

/// A short public note of the adapter's own (a missing permission, in bold): its markdown is
/// meant, so it is not escaped.
fn notice(text: String) -> Outgoing {
    Outgoing {
        content: fit(text),
        pings: Vec::new(),
        picture: None,
        buttons: Vec::new(),
        private: false,
    }
}

/// The question before a command that cannot be taken back.
fn confirmation(command: &str) -> CreateInteractionResponse {
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

/// Sends a message to a channel. When Discord refuses the picture for lack of Attach Files,
/// the text goes without it and says so. A refusal is logged, naming the permission missing.
async fn send(http: &Http, channel: ChannelId, out: Outgoing) -> serenity::Result<Message> {
    let without_picture = out.picture.is_some().then(|| Outgoing {
        content: out.content.clone()
            + "\n(I need the **Attach Files** permission here to show the board.)",
        pings: out.pings.clone(),
        picture: None,
        buttons: out.buttons.clone(),
        private: out.private,
    });
    let sent = match (
        channel.send_message(http, message_of(out)).await,
        without_picture,
    ) {
        (Err(error), Some(text)) if error_code(&error) == Some(50013) => {
            channel.send_message(http, message_of(text)).await
        }
        (sent, _) => sent,
    };
    if let Err(error) = &sent {
        match permission_problem(error, "Send Messages", "write", "this channel") {
            Some(problem) => warn!(%channel, problem, "Discord refused a message"),
            None => warn!(%channel, error = %redacted(&error), "sending a message failed"),
        }
    }
    sent
}

/// Looks at the clocks every `tick`: reminders go to the player by direct message when they
/// accept them, else to the game's channel; timeouts, expired challenges and the bot's moves
/// to the channel (the player to move told by direct message when they accept them).
async fn clocks(
    service: Service,
    http: Arc<Http>,
    dms: DirectMessages,
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
            if deliver(&service, &http, &dms, &pending.notice).await {
                service.delivered(pending.id).await;
            } else {
                service.not_delivered(pending.id).await;
            }
        }
    }
}

/// Sends a notice; `true` when Discord took it (a notice for a place that is no Discord
/// channel can never be sent, and counts as handled).
async fn deliver(service: &Service, http: &Http, dms: &DirectMessages, notice: &Notice) -> bool {
    let (place, reply) = chat::notice_reply(service, notice).await;
    let Some(spot) = Spot::of(&place) else {
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
    send(http, spot.channel, out).await.is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    use serenity::json::{Value, json};

    /// An option of a slash command as Discord sends it (`kind`: 3 text, 4 integer, 6 user).
    fn option(name: &str, kind: u8, value: Value) -> CommandDataOption {
        let mut option = json!({ "name": name, "type": kind });
        option["value"] = value;
        serenity::json::from_value(option).expect("a valid option")
    }

    #[test]
    fn slash_options_become_command_words() {
        let (text, users) = command_text(
            "challenge",
            &[
                option("opponent", 6, json!("42")),
                option("variant", 3, json!("shakti")),
                option("days", 4, json!(5)),
                option("colour", 3, json!("white")),
                option("rating", 3, json!("casual")),
                option("level", 4, json!(2)),
            ],
        );
        assert_eq!(text, "challenge shakti 5 days white casual level 2");
        assert_eq!(users, [UserId::new(42)]);
        let (text, _) = command_text(
            "move",
            &[
                option("move", 3, json!("e3e4")),
                option("game", 4, json!(7)),
            ],
        );
        assert_eq!(text, "move #7 e3e4");
        let (text, _) = command_text("settings", &[option("pings", 3, json!("off"))]);
        assert_eq!(text, "settings pings off");
    }

    #[test]
    fn every_command_of_the_grammar_is_a_slash_command() {
        let commands = serenity::json::to_value(slash_commands()).expect("serialises");
        let names: Vec<&str> = commands
            .as_array()
            .expect("a list")
            .iter()
            .filter_map(|c| c["name"].as_str())
            .collect();
        for spec in chat::COMMANDS {
            assert!(names.contains(&spec.name), "{} is missing", spec.name);
        }
    }

    #[test]
    fn mentions_ping_only_the_named_users() {
        let reply = Reply::text("Your move, ")
            .mention(User::new(PLATFORM, "42", "alice"))
            .and(" and ")
            .name(User::new(PLATFORM, "43", "bob"), false);
        let out = outgoing(&reply);
        assert_eq!(out.content, "Your move, <@42> and bob");
        assert_eq!(out.pings, [UserId::new(42)]);
    }

    #[test]
    fn user_text_is_escaped_and_command_examples_stay_code() {
        let hostile = User::new(PLATFORM, "43", "[free](https://evil.example) **x**");
        let reply = Reply::text("Challenge #1: ")
            .name(hostile, false)
            .and(" says \"<#1> @everyone ~~a~~ ||b|| _c_\". Reply `draw #2 accept` or `help`.")
            .and("\n# big\n> quote\n  - list, 3-2 > 1 # not a heading");
        let out = outgoing(&reply);
        assert_eq!(
            out.content,
            "Challenge #1: \\[free\\](https://evil.example) \\*\\*x\\*\\* says \"\\<#1> \\@everyone \
             \\~\\~a\\~\\~ \\|\\|b\\|\\| \\_c\\_\". Reply `draw #2 accept` or `help`.\n\\# big\n\\> quote\n  \
             \\- list, 3-2 > 1 # not a heading"
        );
        assert!(out.pings.is_empty());
        assert_eq!(markdown_escaped("a `b` c", false), "a \\`b\\` c");
        assert_eq!(markdown_escaped("lone ` tick", true), "lone \\` tick");
        assert_eq!(markdown_escaped("back\\slash", true), "back\\\\slash");
    }
}
