//! The Matrix bot: a matrix-sdk client that reads room messages into [`chat::Incoming`]
//! messages and sends the [`Reply`]s back as `m.notice` replies, with the board as an
//! `m.image`.
//!
//! - The client's state and crypto store (SQLite) and the saved login live in one folder
//!   ([`MatrixConfig::store`]); the first start logs in with the password, later starts restore
//!   the saved session, so the bot keeps one device and its encryption keys.
//! - Only messages sent after the start are answered (by their server timestamp), from the
//!   first sync on, so the backlog is skipped and a command sent while the bot was starting is
//!   not; the bot never answers itself or `m.notice`s.
//! - A message is addressed to the bot when it starts with the prefix (`!pigeon`), with a
//!   mention of the bot, or is written in a room of two (a direct chat). Other messages are
//!   only looked at as bare moves.
//! - Matrix has no messages that only one member sees: private replies (errors, lists) are
//!   replies to the asker's message in the room like the others.
//! - matrix-sdk runs event handlers one after another inside its sync loop, so each message
//!   and each invite is handled on a task of its own: a slow answer (a bot move, a replay, a
//!   join that is retried) never holds up the other rooms.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use matrix_sdk::attachment::{AttachmentConfig, AttachmentInfo, BaseImageInfo};
use matrix_sdk::authentication::matrix::MatrixSession;
use matrix_sdk::config::SyncSettings;
use matrix_sdk::event_handler::Ctx;
use matrix_sdk::room::reply::{EnforceThread, Reply as ReplyTo};
use matrix_sdk::ruma::api::error::ErrorKind;
use matrix_sdk::ruma::events::room::member::StrippedRoomMemberEvent;
use matrix_sdk::ruma::events::room::message::{
    AddMentions, ForwardThread, MessageType, OriginalSyncRoomMessageEvent, Relation,
    RoomMessageEventContent,
};
use matrix_sdk::ruma::events::{Mentions, room::message::sanitize::remove_plain_reply_fallback};
use matrix_sdk::ruma::{Int, MilliSecondsSinceUnixEpoch, OwnedUserId, UInt, UserId};
use matrix_sdk::store::RoomLoadSettings;
use matrix_sdk::{Client, Room, RoomState};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tracing::{error, info, warn};

use super::redacted;
use crate::chat::{self, Incoming, Part, Reply};
use crate::config::Secret;
use crate::service::{Place, Service, User};

/// The platform name of Matrix.
pub const PLATFORM: &str = "matrix";
/// The command prefix when none is configured.
pub const DEFAULT_PREFIX: &str = "!pigeon";
/// The saved login, inside the store folder.
const SESSION_FILE: &str = "session.json";
/// The device name other members see in their clients.
const DEVICE_NAME: &str = "Pigeon";
/// How often the clocks are looked at.
const TICK: Duration = Duration::from_secs(60);
/// How long to wait before syncing again after the homeserver failed.
const RETRY: Duration = Duration::from_secs(5);
/// How long a stopping bot waits for the messages and invites it is still handling.
const FINISH: Duration = Duration::from_secs(10);

/// How the Matrix bot connects.
#[derive(Debug, Clone)]
pub struct MatrixConfig {
    /// The homeserver's URL, such as `https://matrix.example.org`.
    pub homeserver: String,
    /// The bot's account: `@pigeon:example.org` or the local part `pigeon`.
    pub user: String,
    /// The account's password, needed only for the first login.
    pub password: Option<Secret>,
    /// The folder of the client's SQLite state and crypto store and of the saved login.
    pub store: PathBuf,
    /// The command prefix, such as `!pigeon`.
    pub prefix: String,
    /// Join rooms only when the inviter's server is one of these (all servers when empty).
    pub allowed_servers: Vec<String>,
}

/// Why the Matrix bot stopped.
#[derive(Debug, thiserror::Error)]
pub enum MatrixError {
    /// The store folder could not be created or made private.
    #[error("the Matrix store folder {path}: {source}")]
    Store {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The client could not be set up (a bad homeserver URL, or the store folder).
    #[error("cannot set up the Matrix client for {homeserver}: {source}")]
    Client {
        homeserver: String,
        #[source]
        source: Box<matrix_sdk::ClientBuildError>,
    },
    /// There is no saved session and no password to log in with.
    #[error("no saved Matrix login in {0} and no MATRIX_PASSWORD: set it for the first start")]
    NoPassword(PathBuf),
    /// The homeserver refused the login.
    #[error("logging in to Matrix as {user} failed: {source}")]
    Login {
        user: String,
        #[source]
        source: Box<matrix_sdk::Error>,
    },
    /// The saved login could not be read or written.
    #[error("the saved Matrix login {path}: {message}")]
    Session { path: PathBuf, message: String },
    /// The homeserver no longer accepts the saved login (it was logged out).
    #[error(
        "the homeserver no longer accepts the saved Matrix login; delete {0} and start again \
         with MATRIX_PASSWORD set"
    )]
    LoggedOut(PathBuf),
    /// Syncing failed in a way retrying will not mend.
    #[error("syncing with the Matrix homeserver failed: {0}")]
    Sync(#[source] Box<matrix_sdk::Error>),
}

/// The power level from which a member may change the room's settings (a moderator's).
const MANAGER_LEVEL: u32 = 50;

/// What the event handlers share.
#[derive(Debug, Clone)]
struct Bot {
    service: Service,
    prefix: String,
    allowed_servers: Arc<Vec<String>>,
    own: OwnedUserId,
    /// When the bot started: older messages are backlog, also when they are decrypted late.
    started: MilliSecondsSinceUnixEpoch,
    /// The messages and invites being handled.
    tasks: Tasks,
}

/// Work running beside the sync loop, one task per message or invite, waited for when the
/// bot stops (so nothing is cut off halfway while the database closes).
#[derive(Debug, Clone, Default)]
struct Tasks(Arc<std::sync::Mutex<JoinSet<()>>>);

impl Tasks {
    /// Starts `work` on a task of its own.
    fn spawn(&self, work: impl Future<Output = ()> + Send + 'static) {
        let mut set = self.lock();
        // Forget the tasks that are done (a panic was already reported by the runtime).
        while set.try_join_next().is_some() {}
        set.spawn(work);
    }

    /// Waits for the tasks under way, for at most [`FINISH`]; those still running then are
    /// cancelled.
    async fn finish(&self) {
        let mut set = std::mem::take(&mut *self.lock());
        let all = async { while set.join_next().await.is_some() {} };
        if tokio::time::timeout(FINISH, all).await.is_err() {
            warn!("stopped before every message was answered");
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, JoinSet<()>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Runs the Matrix bot until `shutdown` turns true.
///
/// # Errors
/// [`MatrixError`] when the client cannot be set up, the login fails or is revoked.
pub async fn run(
    service: Service,
    config: MatrixConfig,
    mut shutdown: watch::Receiver<bool>,
) -> Result<(), MatrixError> {
    let started = MilliSecondsSinceUnixEpoch::now();
    let client = connect(&config).await?;
    let own = client
        .user_id()
        .expect("connect returns a logged-in client")
        .to_owned();
    let name = client
        .account()
        .get_display_name()
        .await
        .ok()
        .flatten()
        .unwrap_or_else(|| own.localpart().to_owned());
    service.register_bot(&User::new(PLATFORM, own.as_str(), &name));
    info!(user = %own, "Matrix bot logged in");

    let bot = Bot {
        service: service.clone(),
        prefix: config.prefix.clone(),
        allowed_servers: Arc::new(config.allowed_servers.clone()),
        own,
        started,
        tasks: Tasks::default(),
    };
    client.add_event_handler_context(bot.clone());
    // Messages are read from the first sync on: a command sent while the bot was starting is
    // answered; the backlog from before `started` is not (and an event already answered
    // before a restart is recognised by its id).
    client.add_event_handler(on_message);

    // The first sync brings the state and the invites that came while the bot was away.
    let session = session_path(&config.store);
    let first = tokio::select! {
        result = client.sync_once(SyncSettings::default()) => result,
        _ = shutdown.wait_for(|stop| *stop) => return Ok(()),
    };
    let token = match first {
        Ok(response) => Some(response.next_batch),
        Err(error) => {
            if logged_out(&error) {
                return Err(MatrixError::LoggedOut(session));
            }
            warn!(error = %redacted(&error), "the first Matrix sync failed; retrying");
            None
        }
    };
    for room in client.invited_rooms() {
        let bot = bot.clone();
        bot.tasks.clone().spawn(async move {
            if let Ok(invite) = room.invite_details().await {
                join(&bot, &room, &invite.inviter_id).await;
            }
        });
    }
    client.add_event_handler(on_invite);

    let syncing = sync_forever(&client, token, &session);
    let clocks = clocks(&client, &service);
    let result = tokio::select! {
        result = syncing => result,
        () = clocks => Ok(()),
        _ = shutdown.wait_for(|stop| *stop) => {
            info!("Matrix bot stopping");
            Ok(())
        }
    };
    bot.tasks.finish().await;
    result
}

/// Builds the client on its store and logs in: from the saved session when there is one,
/// with the password (then saving the session) otherwise.
async fn connect(config: &MatrixConfig) -> Result<Client, MatrixError> {
    private_folder(&config.store).map_err(|source| MatrixError::Store {
        path: config.store.clone(),
        source,
    })?;
    let client = Client::builder()
        .homeserver_url(&config.homeserver)
        .sqlite_store(&config.store, None)
        .build()
        .await
        .map_err(|source| MatrixError::Client {
            homeserver: config.homeserver.clone(),
            source: Box::new(source),
        })?;
    let path = session_path(&config.store);
    let session_error = |message: String| MatrixError::Session {
        path: path.clone(),
        message,
    };
    match std::fs::read(&path) {
        Ok(bytes) => {
            let session: MatrixSession =
                serde_json::from_slice(&bytes).map_err(|e| session_error(e.to_string()))?;
            client
                .matrix_auth()
                .restore_session(session, RoomLoadSettings::default())
                .await
                .map_err(|e| session_error(e.to_string()))?;
            return Ok(client);
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => return Err(session_error(error.to_string())),
    }
    let password = config
        .password
        .as_ref()
        .ok_or_else(|| MatrixError::NoPassword(config.store.clone()))?;
    client
        .matrix_auth()
        .login_username(&config.user, password.expose())
        .initial_device_display_name(DEVICE_NAME)
        .send()
        .await
        .map_err(|source| MatrixError::Login {
            user: config.user.clone(),
            source: Box::new(source),
        })?;
    let session = client
        .matrix_auth()
        .session()
        .expect("a successful login leaves a session");
    let json = serde_json::to_vec(&session).map_err(|e| session_error(e.to_string()))?;
    write_private(&path, &json).map_err(|e| session_error(e.to_string()))?;
    Ok(client)
}

fn session_path(store: &Path) -> PathBuf {
    store.join(SESSION_FILE)
}

/// Creates a folder only its owner can open (mode 0700), or makes an existing one so: the
/// store folder holds the access token and the encryption keys.
fn private_folder(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(path)?;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o700))
    }
    #[cfg(not(unix))]
    std::fs::create_dir_all(path)
}

/// Writes a file only its owner can read (it holds the access token).
fn write_private(path: &Path, data: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    file.write_all(data)?;
    file.sync_all()
}

fn logged_out(error: &matrix_sdk::Error) -> bool {
    matches!(
        error.client_api_error_kind(),
        Some(ErrorKind::UnknownToken(_))
    )
}

/// Syncs until the login is revoked; other failures are retried.
async fn sync_forever(
    client: &Client,
    token: Option<String>,
    session: &Path,
) -> Result<(), MatrixError> {
    let mut settings = SyncSettings::default();
    if let Some(token) = token {
        settings = settings.token(token);
    }
    loop {
        match client.sync(settings.clone()).await {
            Ok(()) => return Ok(()),
            Err(error) if logged_out(&error) => {
                return Err(MatrixError::LoggedOut(session.to_owned()));
            }
            Err(error) => {
                warn!(error = %redacted(&error), "Matrix sync failed; retrying");
                tokio::time::sleep(RETRY).await;
                // Go on from wherever the last good sync got to.
                settings = SyncSettings::default();
            }
        }
    }
}

/// Runs the clocks of Matrix games now and then and tells their rooms.
async fn clocks(client: &Client, service: &Service) {
    let mut timer = service.timer(PLATFORM, TICK);
    loop {
        for pending in timer.next().await {
            let (place, reply) = chat::notice_reply(service, &pending.notice).await;
            let room = matrix_sdk::ruma::RoomId::parse(&place.channel)
                .ok()
                .and_then(|id| client.get_room(&id));
            let sent = match room {
                Some(room) => send(&room, &reply, None).await,
                None => {
                    warn!(room = %place.channel, "a notice for an unknown room");
                    false
                }
            };
            if sent {
                service.delivered(pending.id).await;
            } else {
                service.not_delivered(pending.id).await;
            }
        }
    }
}

/// An invite is followed on a task of its own: joining may be retried for several seconds.
async fn on_invite(event: StrippedRoomMemberEvent, room: Room, Ctx(bot): Ctx<Bot>) {
    if event.state_key != bot.own || room.state() != RoomState::Invited {
        return;
    }
    bot.tasks
        .clone()
        .spawn(async move { join(&bot, &room, &event.sender).await });
}

/// Joins a room the bot is invited to when the inviter's server is allowed, and declines the
/// invite otherwise.
async fn join(bot: &Bot, room: &Room, inviter: &UserId) {
    let server = inviter.server_name().as_str();
    if !server_allowed(&bot.allowed_servers, server) {
        info!(room = %room.room_id(), %server, "declining an invite from a server not allowed");
        if let Err(error) = room.leave().await {
            warn!(room = %room.room_id(), error = %redacted(&error), "declining an invite failed");
        }
        return;
    }
    // Right after an invite the homeserver may not let us in yet: try a few times.
    for attempt in 1..=5u64 {
        match room.join().await {
            Ok(()) => {
                info!(room = %room.room_id(), "joined a room");
                return;
            }
            Err(error) => {
                warn!(room = %room.room_id(), error = %redacted(&error), attempt, "joining a room failed");
                tokio::time::sleep(Duration::from_secs(attempt)).await;
            }
        }
    }
}

/// Whether invites from `server` are followed.
fn server_allowed(allowed: &[String], server: &str) -> bool {
    allowed.is_empty() || allowed.iter().any(|s| s.eq_ignore_ascii_case(server))
}

/// A message is answered on a task of its own, so the sync loop goes on at once.
async fn on_message(event: OriginalSyncRoomMessageEvent, room: Room, Ctx(bot): Ctx<Bot>) {
    if room.state() != RoomState::Joined
        || event.sender == bot.own
        || event.origin_server_ts < bot.started
    {
        return;
    }
    if matches!(event.content.relates_to, Some(Relation::Replacement(_))) {
        return; // an edit: the original was answered
    }
    bot.tasks.clone().spawn(answer(event, room, bot));
}

/// Reads a room message for the chat layer and sends its replies.
async fn answer(event: OriginalSyncRoomMessageEvent, room: Room, bot: Bot) {
    let MessageType::Text(content) = &event.content.msgtype else {
        return; // notices (other bots), pictures, ...
    };
    let html = content
        .formatted
        .as_ref()
        .filter(|f| f.format == matrix_sdk::ruma::events::room::message::MessageFormat::Html)
        .map(|f| f.body.as_str());
    let text = match html {
        Some(html) => html_to_text(html),
        None => remove_plain_reply_fallback(&content.body).to_owned(),
    };
    let direct = room.joined_members_count() == 2;
    let read = read_message(&text, &bot.prefix, &bot.own, direct);
    let mut ids = read.mentions;
    if let Some(mentions) = &event.content.mentions {
        for id in &mentions.user_ids {
            let addressing = read.by_mention && *id == bot.own;
            if !addressing && !ids.contains(id) {
                ids.push(id.clone());
            }
        }
    }
    let mut mentions = Vec::with_capacity(ids.len());
    for id in &ids {
        mentions.push(member(&room, id).await);
    }
    let incoming = Incoming {
        place: Place::new(PLATFORM, room.room_id().as_str()),
        user: member(&room, &event.sender).await,
        text: read.text,
        event_id: Some(event.event_id.to_string()),
        addressed: read.addressed,
        mentions,
        manager: manages(&room, &event.sender).await,
        means: chat::Means::TYPED,
    };
    for reply in chat::handle(&bot.service, &incoming).await {
        send(&room, &reply, Some(&event)).await;
    }
}

/// Whether a member may change the room's settings: power level 50 (a moderator) or more.
async fn manages(room: &Room, id: &UserId) -> bool {
    match room.get_member_no_sync(id).await {
        Ok(Some(member)) => member.power_level() >= Int::from(MANAGER_LEVEL),
        _ => false,
    }
}

/// A room member as a chat user: the Matrix id and the display name in that room.
async fn member(room: &Room, id: &UserId) -> User {
    let name = match room.get_member_no_sync(id).await {
        Ok(Some(member)) => member.name().to_owned(),
        _ => id.localpart().to_owned(),
    };
    User::new(PLATFORM, id.as_str(), &name)
}

/// Sends a reply into a room: the text as an `m.notice` (a reply to `to` when given), then
/// the picture as an `m.image`. Failures are logged; a chat reply has nowhere else to go.
/// `true` when the text was sent (a picture that fails after it is only logged).
async fn send(room: &Room, reply: &Reply, to: Option<&OriginalSyncRoomMessageEvent>) -> bool {
    let (body, html, mentioned) = render(reply);
    let mut content = RoomMessageEventContent::notice_html(body, html)
        .add_mentions(Mentions::with_user_ids(mentioned));
    if let Some(event) = to {
        content = content.make_reply_to(event, ForwardThread::Yes, AddMentions::No);
    }
    if let Err(error) = room.send(content).await {
        error!(room = %room.room_id(), error = %redacted(&error), "sending a reply failed");
        return false;
    }
    let Some(picture) = &reply.picture else {
        return true;
    };
    let Ok(mime) = picture.mime.parse::<mime::Mime>() else {
        error!(mime = picture.mime, "a picture of an unknown type");
        return true;
    };
    let info = BaseImageInfo {
        width: Some(UInt::from(picture.size.0)),
        height: Some(UInt::from(picture.size.1)),
        size: UInt::try_from(picture.data.len()).ok(),
        is_animated: Some(picture.mime == "image/gif"),
        ..BaseImageInfo::default()
    };
    let mut config = AttachmentConfig::new().info(AttachmentInfo::Image(info));
    if let Some(event) = to {
        config = config.reply(Some(ReplyTo {
            event_id: event.event_id.clone(),
            enforce_thread: EnforceThread::MaybeThreaded,
            add_mentions: AddMentions::No,
        }));
    }
    let sent = room
        .send_attachment(&picture.name, &mime, picture.data.clone(), config)
        .await;
    if let Err(error) = sent {
        error!(room = %room.room_id(), error = %redacted(&error), "sending a picture failed");
    }
    true
}

/// A reply as Matrix text: the plain body, the HTML body with a pill per mention, and the
/// users it mentions (for `m.mentions`).
#[must_use]
pub fn render(reply: &Reply) -> (String, String, Vec<OwnedUserId>) {
    let (mut body, mut html, mut mentioned) = (String::new(), String::new(), Vec::new());
    for part in &reply.parts {
        match part {
            Part::Text(text) => {
                body.push_str(text);
                html.push_str(&escape_html(text));
            }
            Part::Mention(user) => {
                body.push_str(&user.name);
                match UserId::parse(&user.id) {
                    Ok(id) => {
                        html.push_str(&format!(
                            "<a href=\"https://matrix.to/#/{}\">{}</a>",
                            escape_html(id.as_str()),
                            escape_html(&user.name)
                        ));
                        if !mentioned.contains(&id) {
                            mentioned.push(id);
                        }
                    }
                    Err(_) => html.push_str(&escape_html(&user.name)),
                }
            }
            Part::Name(user) => {
                body.push_str(&user.name);
                html.push_str(&escape_html(&user.name));
            }
            Part::Channel(room) => {
                body.push_str(room);
                html.push_str(&format!(
                    "<a href=\"https://matrix.to/#/{}\">{}</a>",
                    escape_html(room),
                    escape_html(room)
                ));
            }
        }
    }
    (body, html.replace('\n', "<br>"), mentioned)
}

fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A message's HTML body as command text: a pill becomes the `@user:server` it links to,
/// a reply's quote (`<mx-reply>`) is dropped, other tags are dropped and entities decoded.
#[must_use]
pub fn html_to_text(html: &str) -> String {
    let mut html = html;
    if let Some(start) = html.find("<mx-reply>")
        && let Some(end) = html[start..].find("</mx-reply>")
    {
        let rest = &html[start + end + "</mx-reply>".len()..];
        html = rest;
    }
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('>') else {
            rest = &rest[open..];
            break;
        };
        let tag = &rest[open + 1..open + close];
        rest = &rest[open + close + 1..];
        let name = tag
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        if name == "a"
            && let Some(id) = pill_target(tag)
        {
            // The link text is the display name; the command text wants the id.
            let end = rest.find("</a>").unwrap_or(rest.len());
            out.push_str(&id);
            rest = rest.get(end + "</a>".len()..).unwrap_or("");
        } else if matches!(name.as_str(), "br" | "br/" | "p" | "/p" | "div" | "/div") {
            out.push('\n');
        }
    }
    out.push_str(rest);
    decode_entities(&out)
}

/// The user a link points to when it is a pill (`https://matrix.to/#/@user:server`).
fn pill_target(tag: &str) -> Option<String> {
    let start = tag.find("href=")? + "href=".len();
    let quoted = &tag[start..];
    let quote = quoted.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let link = &quoted[1..];
    let link = &link[..link.find(quote)?];
    let target = link.strip_prefix("https://matrix.to/#/")?;
    let target = target.split(['?', '/']).next()?;
    let target = target
        .replace("%40", "@")
        .replace("%3A", ":")
        .replace("%3a", ":");
    UserId::parse(&target).ok().map(|id| id.to_string())
}

fn decode_entities(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&")
}

/// A message read for the bot.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Read {
    /// The text without the prefix or the leading mention of the bot.
    pub text: String,
    /// Whether it was addressed to the bot.
    pub addressed: bool,
    /// Whether a leading mention of the bot addressed it.
    pub by_mention: bool,
    /// The `@user:server` words of the text, in order.
    pub mentions: Vec<OwnedUserId>,
}

/// Reads a message's command text: the prefix (any case) or a leading `@bot:server` addresses
/// the bot, and so does any message in a direct chat (`direct`).
#[must_use]
pub fn read_message(text: &str, prefix: &str, own: &UserId, direct: bool) -> Read {
    let trimmed = text.trim();
    let mut addressed = direct;
    let mut by_mention = false;
    let mut rest = trimmed;
    if let Some(after) = strip_word(trimmed, prefix) {
        addressed = true;
        rest = after;
    } else if let Some(first) = trimmed.split_whitespace().next()
        && word_user(first).as_deref() == Some(own)
    {
        addressed = true;
        by_mention = true;
        rest = trimmed[first.len()..].trim_start_matches([':', ',']);
    }
    let rest = rest.trim();
    let mut mentions: Vec<OwnedUserId> = Vec::new();
    for id in rest.split_whitespace().filter_map(word_user) {
        if !mentions.contains(&id) {
            mentions.push(id);
        }
    }
    Read {
        text: rest.to_owned(),
        addressed,
        by_mention,
        mentions,
    }
}

/// `text` after a leading `word` (any case) that stands alone (followed by a space, `:` or the end).
fn strip_word<'a>(text: &'a str, word: &str) -> Option<&'a str> {
    if word.is_empty() {
        return None;
    }
    let head = text.get(..word.len())?;
    if !head.eq_ignore_ascii_case(word) {
        return None;
    }
    let rest = &text[word.len()..];
    match rest.chars().next() {
        None => Some(rest),
        Some(c) if c.is_whitespace() || c == ':' || c == ',' => {
            Some(rest.trim_start_matches([':', ',']))
        }
        Some(_) => None,
    }
}

/// The user a word such as `@bob:example.org,` names.
fn word_user(word: &str) -> Option<OwnedUserId> {
    let word = word.trim_end_matches([',', '.', '!', '?', ':', ';', ')']);
    if !word.starts_with('@') {
        return None;
    }
    UserId::parse(word).ok()
}

/// The servers a comma-separated list names (`MATRIX_ALLOWED_SERVERS`).
#[must_use]
pub fn parse_servers(list: &str) -> Vec<String> {
    list.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn own() -> OwnedUserId {
        UserId::parse("@pigeon:example.org").expect("valid")
    }

    #[test]
    fn the_prefix_or_a_leading_mention_addresses_the_bot() {
        let read = read_message(
            "!Pigeon challenge @bob:example.org chak",
            "!pigeon",
            &own(),
            false,
        );
        assert!(read.addressed && !read.by_mention);
        assert_eq!(read.text, "challenge @bob:example.org chak");
        assert_eq!(
            read.mentions,
            [UserId::parse("@bob:example.org").expect("valid")]
        );

        let read = read_message("@pigeon:example.org: help", "!pigeon", &own(), false);
        assert!(read.addressed && read.by_mention);
        assert_eq!(read.text, "help");
        assert!(read.mentions.is_empty());

        let read = read_message("e4", "!pigeon", &own(), false);
        assert!(!read.addressed);
        assert_eq!(read.text, "e4");
        assert!(read_message("e4", "!pigeon", &own(), true).addressed);

        let read = read_message("!pigeonry is fun", "!pigeon", &own(), false);
        assert!(!read.addressed, "a longer word is no prefix");
        let read = read_message(
            "!pigeon challenge @pigeon:example.org",
            "!pigeon",
            &own(),
            false,
        );
        assert_eq!(read.mentions, [own()], "the bot challenged");
    }

    #[test]
    fn pills_become_ids_and_quotes_go() {
        let html = "<mx-reply><blockquote>old &amp; stale</blockquote></mx-reply>\
                    <a href=\"https://matrix.to/#/@pigeon:example.org\">Pigeon</a>: challenge \
                    <a href='https://matrix.to/#/%40bob%3Aexample.org'>Bob Smith</a> chak &lt;3";
        assert_eq!(
            html_to_text(html),
            "@pigeon:example.org: challenge @bob:example.org chak <3"
        );
        assert_eq!(html_to_text("<b>e4</b>"), "e4");
        assert_eq!(
            html_to_text("<a href=\"https://example.org\">site</a>"),
            "site"
        );
    }

    #[test]
    fn replies_have_pills_and_mentions() {
        let bob = User::new(PLATFORM, "@bob:example.org", "Bob <3");
        let reply = Reply::text("Your move, ")
            .mention(bob.clone())
            .and(" & good luck")
            .name(User::new(PLATFORM, "@carol:example.org", "carol"), false);
        let (body, html, mentioned) = render(&reply);
        assert_eq!(body, "Your move, Bob <3 & good luckcarol");
        assert_eq!(
            html,
            "Your move, <a href=\"https://matrix.to/#/@bob:example.org\">Bob &lt;3</a> \
             &amp; good luckcarol"
        );
        assert_eq!(
            mentioned,
            [UserId::parse("@bob:example.org").expect("valid")]
        );
    }

    #[cfg(unix)]
    #[test]
    fn the_store_folder_is_private() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |path: &Path| {
            std::fs::metadata(path)
                .expect("the folder exists")
                .permissions()
                .mode()
                & 0o777
        };
        let dir = tempfile::tempdir().expect("a temporary folder");
        let fresh = dir.path().join("pigeon-matrix");
        private_folder(&fresh).expect("created");
        assert_eq!(mode(&fresh), 0o700);
        let open = dir.path().join("open");
        std::fs::create_dir(&open).expect("created");
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o755)).expect("set");
        private_folder(&open).expect("tightened");
        assert_eq!(mode(&open), 0o700);
    }

    #[test]
    fn servers_are_a_comma_list() {
        assert_eq!(parse_servers(" a.org, b.net ,,"), ["a.org", "b.net"]);
        assert!(server_allowed(&[], "any.org"));
        assert!(server_allowed(&parse_servers("A.org"), "a.org"));
        assert!(!server_allowed(&parse_servers("a.org"), "b.org"));
    }
}
