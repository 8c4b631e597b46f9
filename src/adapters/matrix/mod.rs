//! The Matrix bot: a matrix-sdk client that reads room messages into [`chat::Incoming`]
//! messages and sends the [`Reply`]s back: an `m.text` when it mentions someone (so that
//! their push rules notify them), an `m.notice` otherwise, with the board as an `m.image`.
//!
//! - The client's state and crypto store (SQLite) and the saved login live in one folder
//!   ([`MatrixConfig::store`]); the first start logs in with the password, later starts restore
//!   the saved session, so the bot keeps one device and its encryption keys.
//! - Messages sent while the bot was stopped are answered when it is back, each room's in
//!   order, also those a sync left out after a long stop (read back from the homeserver);
//!   only those from before the account's first start (kept in the game database), or older
//!   than [`MatrixConfig::backlog_days`], are skipped. The bot never answers itself or
//!   `m.notice`s.
//! - A message is addressed to the bot when it starts with the prefix (`!pigeon`), with a
//!   mention of the bot, names the bot in `m.mentions`, replies to one of its messages, or is
//!   written in a direct chat (by `m.direct`, not by the number of members). Other messages
//!   are only looked at as bare moves.
//! - A game accepted in a room gets a thread rooted at its start message (unless the room
//!   turned threads off); its channel is then `!room:server/$root`. A tournament gets one
//!   rooted at the message announcing its creation, where its news is posted.
//! - A room upgraded to a new version is followed: the bot joins the new room and the games,
//!   challenges, ratings and settings move there. A room the bot is alone in, it leaves.
//! - The store is encrypted on disk with `MATRIX_STORE_PASSPHRASE`; the account is
//!   cross-signed and its keys backed up under a recovery key; a message that cannot be
//!   decrypted is tried again as keys arrive, and its sender asked once to send it again.
//! - Matrix has no messages that only one member sees: private replies (errors, lists) are
//!   replies to the asker's message in the room like the others, except the secret ones
//!   (notes, the sandbox), which go to the asker's direct chat with the bot.
//! - matrix-sdk runs event handlers one after another inside its sync loop, so each message
//!   and each invite is handled on a task of its own: a slow answer (a bot move, a replay, a
//!   join that is retried) never holds up the other rooms.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use matrix_sdk::LoopCtrl;
use matrix_sdk::config::SyncSettings;
use matrix_sdk::event_handler::Ctx;
use matrix_sdk::ruma::api::client::filter::{FilterDefinition, RoomFilter};
use matrix_sdk::ruma::api::client::sync::sync_events::v3::Filter;
use matrix_sdk::ruma::events::room::member::StrippedRoomMemberEvent;
use matrix_sdk::ruma::events::room::message::sanitize::remove_plain_reply_fallback;
use matrix_sdk::ruma::events::room::message::{
    MessageType, OriginalSyncRoomMessageEvent, Relation,
};
use matrix_sdk::ruma::{Int, OwnedRoomId, OwnedUserId, RoomId, UInt, UserId};
use matrix_sdk::{Client, Room, RoomState};
use tokio::sync::{oneshot, watch};
use tokio::task::JoinSet;
use tracing::{info, warn};

use super::redacted;
use login::{connect, logged_out, session_path};
use send::{Target, place_of, send, send_privately, where_is};
pub use text::{Read, html_to_text, read_message, render};
use threads::{open_tournament_thread, start};

mod backlog;
mod encryption;
mod login;
mod rooms;
mod send;
mod text;
mod threads;
use crate::chat::{self, Incoming, Reply};
use crate::config::Secret;
use crate::service::lease::{LEASE_TERM, Lease};
use crate::service::{DAY, Notice, Service, ServiceError, User};

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
/// How often a standing-by process tries to take the account's lease.
const LEASE_POLL: Duration = Duration::from_secs(5);
/// How often the holder renews the lease (well within [`LEASE_TERM`]).
const LEASE_RENEW: Duration = Duration::from_secs(10);
/// How long a stopping bot waits for the messages and invites it is still handling.
const FINISH: Duration = Duration::from_secs(10);
/// How many of a room's latest events a sync brings ([`MatrixConfig::timeline_limit`]);
/// older ones are read back page by page.
pub const DEFAULT_TIMELINE_LIMIT: u32 = 20;

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
    /// Messages older than this many days when the bot reads them (after a long stop) are
    /// skipped: `MATRIX_BACKLOG_DAYS`.
    pub backlog_days: i64,
    /// The passphrase the store is encrypted with on disk: `MATRIX_STORE_PASSPHRASE`. Without
    /// it the store is plain (a warning says so).
    pub store_passphrase: Option<Secret>,
    /// The account's recovery key, for a new device to take over the account's encryption
    /// identity and key backup: `MATRIX_RECOVERY_KEY`.
    pub recovery_key: Option<Secret>,
    /// How many of each room's latest events a sync brings (the sync filter's timeline
    /// limit); a room with more new events is read back in pages.
    /// [`DEFAULT_TIMELINE_LIMIT`] unless a test wants gaps.
    pub timeline_limit: u32,
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
    /// The store was made with a passphrase and none is set, or the other way round.
    #[error(
        "the Matrix store {path} was made {made}, and MATRIX_STORE_PASSPHRASE is {now}: {what}"
    )]
    Passphrase {
        path: PathBuf,
        made: &'static str,
        now: &'static str,
        what: &'static str,
    },
    /// The store did not open with the passphrase given.
    #[error(
        "the Matrix store {path} does not open with MATRIX_STORE_PASSPHRASE: is it the one the \
         store was made with? ({message})"
    )]
    WrongPassphrase { path: PathBuf, message: String },
    /// The account's first start could not be read from or recorded in the game database.
    #[error("the Matrix account's first start in the game database: {0}")]
    FirstStart(#[source] ServiceError),
    /// Another process took the account's lease (this one could not renew it in time).
    #[error("another process took over syncing this Matrix account")]
    LeaseLost,
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
    /// When the account first started (seconds since 1970, from the game database): older
    /// messages were never meant for the bot.
    first_start: i64,
    /// How old a message may be, in seconds, to be answered still.
    backlog: i64,
    /// Each room's messages are answered in order.
    order: Order,
    /// The messages and invites being handled.
    tasks: Tasks,
    /// Messages that could not be decrypted yet.
    unreadable: encryption::Unreadable,
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

/// The last message of each room being answered, so that a room's messages are answered one
/// after another in the order they came (moves sent while the bot was away replay in order),
/// while other rooms go on.
#[derive(Debug, Clone, Default)]
struct Order(Arc<std::sync::Mutex<HashMap<OwnedRoomId, oneshot::Receiver<()>>>>);

impl Order {
    /// `work`, to run once the room's previous message is answered.
    fn after(
        &self,
        room: &RoomId,
        work: impl Future<Output = ()> + Send + 'static,
    ) -> impl Future<Output = ()> + Send + 'static {
        let (done, next) = oneshot::channel::<()>();
        let previous = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(room.to_owned(), next);
        async move {
            if let Some(previous) = previous {
                // Answered, failed or cancelled: either way it is over.
                let _ = previous.await;
            }
            work.await;
            drop(done);
        }
    }
}

/// Runs the Matrix bot until `shutdown` turns true.
///
/// One process at a time syncs an account: the bot first takes the account's lease in the
/// game database (waiting while another process holds it, and taking over within
/// [`LEASE_TERM`] and a poll of its holder's end), and renews it while it runs; a bot that
/// loses it (its renewals failed for a whole term) stops syncing and waits again.
///
/// # Errors
/// [`MatrixError`] when the client cannot be set up, the login fails or is revoked.
pub async fn run(
    service: Service,
    config: MatrixConfig,
    mut shutdown: watch::Receiver<bool>,
) -> Result<(), MatrixError> {
    let lease = service.lease(&format!("matrix {} {}", config.homeserver, config.user));
    loop {
        if !lease_taken(&lease, &mut shutdown).await {
            return Ok(());
        }
        let result = run_holding(&service, &config, &mut shutdown, &lease).await;
        if matches!(result, Err(MatrixError::LeaseLost)) {
            warn!("lost the Matrix lease to another process: waiting to take it back");
            continue;
        }
        lease.release().await;
        return result;
    }
}

/// Waits until this process holds the lease (`true`) or is told to stop (`false`).
async fn lease_taken(lease: &Lease, shutdown: &mut watch::Receiver<bool>) -> bool {
    let mut told = false;
    loop {
        match lease.take().await {
            Ok(true) => return true,
            Ok(false) if !told => {
                info!(
                    lease = lease.name(),
                    "another process syncs this Matrix account: standing by to take over"
                );
                told = true;
            }
            Ok(false) => {}
            Err(error) => warn!(%error, "taking the Matrix lease failed; trying again"),
        }
        tokio::select! {
            () = tokio::time::sleep(LEASE_POLL) => {}
            _ = shutdown.wait_for(|stop| *stop) => return false,
        }
    }
}

/// Renews the lease while the bot runs; returns when it is lost: another process holds it,
/// or no renewal succeeded for a whole term (the database unreachable: another process may
/// have taken it meanwhile).
async fn keep_lease(lease: &Lease, service: &Service) {
    let mut renewed = service.now();
    loop {
        tokio::time::sleep(LEASE_RENEW).await;
        match lease.take().await {
            Ok(true) => renewed = service.now(),
            Ok(false) => return,
            Err(error) => {
                warn!(%error, "renewing the Matrix lease failed");
                if service.now() - renewed >= LEASE_TERM {
                    return;
                }
            }
        }
    }
}

/// The bot while this process holds the lease.
async fn run_holding(
    service: &Service,
    config: &MatrixConfig,
    shutdown: &mut watch::Receiver<bool>,
    lease: &Lease,
) -> Result<(), MatrixError> {
    let client = connect(config).await?;
    let own = client
        .user_id()
        .expect("connect returns a logged-in client")
        .to_owned();
    let first_start = login::first_start(service, &config.store, &own).await?;
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
        first_start,
        backlog: config.backlog_days.saturating_mul(DAY),
        order: Order::default(),
        tasks: Tasks::default(),
        unreadable: encryption::Unreadable::default(),
    };
    client.add_event_handler_context(bot.clone());
    // Messages are read from the first sync on (`backlog::on_sync`): a command sent while the
    // bot was stopped or starting is answered (and an event already answered before a
    // restart is recognised by its id); those the handlers get are the undecryptable ones.
    client.add_event_handler(encryption::on_unreadable);

    // The first sync brings the state and the invites that came while the bot was away.
    let session = session_path(&config.store);
    let since = backlog::sync_position(&client).await;
    let first = tokio::select! {
        result = client.sync_once(sync_settings(config.timeline_limit)) => result,
        _ = shutdown.wait_for(|stop| *stop) => return Ok(()),
    };
    let token = match first {
        Ok(response) => {
            backlog::on_sync(&client, &bot, &response, since.as_deref());
            Some(response.next_batch)
        }
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
    client.add_event_handler(rooms::on_tombstone);
    client.add_event_handler(rooms::on_member);
    rooms::leave_lonely(&client).await;
    // Beside the sync loop: the recovery state is known only once the account data came.
    let (secured, secure_config) = (client.clone(), config.clone());
    bot.tasks
        .spawn(async move { encryption::secure(&secured, &secure_config).await });

    let syncing = sync_forever(&client, &bot, token, &session, config.timeline_limit);
    let clocks = clocks(&client, service);
    let unreadable = encryption::retry_unreadable(client.clone(), bot.clone());
    let result = tokio::select! {
        result = syncing => result,
        () = clocks => Ok(()),
        () = unreadable => Ok(()),
        () = keep_lease(lease, service) => Err(MatrixError::LeaseLost),
        _ = shutdown.wait_for(|stop| *stop) => {
            info!("Matrix bot stopping");
            Ok(())
        }
    };
    bot.tasks.finish().await;
    result
}

/// Syncs until the login is revoked, handing each sync's messages to the bot; other
/// failures are retried.
async fn sync_forever(
    client: &Client,
    bot: &Bot,
    token: Option<String>,
    session: &Path,
    timeline_limit: u32,
) -> Result<(), MatrixError> {
    let mut settings = sync_settings(timeline_limit);
    // Where the last sync went on from: a gap in a room is read back to there.
    let since = std::sync::Mutex::new(token.clone());
    if let Some(token) = token {
        settings = settings.token(token);
    }
    loop {
        let synced = client.sync_with_callback(settings.clone(), |response| {
            let previous = since
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .replace(response.next_batch.clone());
            backlog::on_sync(client, bot, &response, previous.as_deref());
            std::future::ready(LoopCtrl::Continue)
        });
        match synced.await {
            Ok(()) => return Ok(()),
            Err(error) if logged_out(&error) => {
                return Err(MatrixError::LoggedOut(session.to_owned()));
            }
            Err(error) => {
                warn!(error = %redacted(&error), "Matrix sync failed; retrying");
                tokio::time::sleep(RETRY).await;
                // Go on from wherever the last good sync got to.
                settings = sync_settings(timeline_limit);
            }
        }
    }
}

/// Syncs with members lazy-loaded: a room's state brings only the members whose events
/// come with it, not every member of a large room at each start; and with at most
/// `timeline_limit` of each room's latest events (older ones are read back when needed).
fn sync_settings(timeline_limit: u32) -> SyncSettings {
    let mut filter = FilterDefinition::default();
    filter.room = RoomFilter::with_lazy_loading();
    filter.room.timeline.limit = Some(UInt::from(timeline_limit));
    SyncSettings::default().filter(Filter::FilterDefinition(filter))
}

/// Runs the clocks of Matrix games now and then and tells their rooms.
async fn clocks(client: &Client, service: &Service) {
    let mut timer = service.timer(PLATFORM, TICK);
    loop {
        for pending in timer.next().await {
            let (place, reply) = chat::notice_reply(service, &pending.notice).await;
            if let Notice::Digest { player, .. } = &pending.notice {
                if send_direct(client, &player.id, &reply).await {
                    service.delivered(pending.id).await;
                } else {
                    service.not_delivered(pending.id).await;
                }
                continue;
            }
            let Some((room, thread)) = where_is(&place.channel) else {
                warn!(channel = %place.channel, "a notice for a channel that is no room");
                service.not_delivered(pending.id).await;
                continue;
            };
            let target = thread.map(Target::thread).unwrap_or_default();
            let sent = match client.get_room(&room) {
                Some(room) => send(&room, &reply, &target).await,
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

/// Sends `reply` to `user` in their direct chat with the bot, opening one when there is none.
async fn send_direct(client: &Client, user: &str, reply: &Reply) -> bool {
    let Ok(user) = UserId::parse(user) else {
        warn!("a direct message for an account that is no Matrix user");
        return true;
    };
    let room = match client.get_dm_room(&user) {
        Some(room) => room,
        None => match client.create_dm(&user).await {
            Ok(room) => room,
            Err(error) => {
                warn!(error = %redacted(&error), "opening a direct chat failed");
                return false;
            }
        },
    };
    send(&room, reply, &Target::default()).await
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

/// A message is answered on a task of its own, after the room's earlier ones, so the sync
/// loop goes on at once.
fn on_message(event: OriginalSyncRoomMessageEvent, room: &Room, bot: &Bot) {
    if room.state() != RoomState::Joined || !message_wanted(&event, bot) {
        return;
    }
    let at = i64::from(event.origin_server_ts.as_secs());
    if let Some(why) = skipped(at, bot.first_start, bot.service.now(), bot.backlog) {
        info!(room = %room.room_id(), event = %event.event_id, "skipped a message {why}");
        return;
    }
    let work = bot
        .order
        .after(room.room_id(), answer(event, room.clone(), bot.clone()));
    bot.tasks.spawn(work);
}

/// Whether a message is for the bot to read: not its own, not an edit (the original was
/// read).
fn message_wanted(event: &OriginalSyncRoomMessageEvent, bot: &Bot) -> bool {
    event.sender != bot.own && !matches!(event.content.relates_to, Some(Relation::Replacement(_)))
}

/// Why a message stamped `at` is not answered at `now`, if it is not: it predates the
/// account's first start, or is older than the backlog limit (seconds).
fn skipped(at: i64, first_start: i64, now: i64, backlog: i64) -> Option<&'static str> {
    if at < first_start {
        Some("from before the bot's first start")
    } else if at < now.saturating_sub(backlog) {
        Some("older than MATRIX_BACKLOG_DAYS")
    } else {
        None
    }
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
    // A direct chat is one the account data's `m.direct` names (the SDK marks a room joined
    // from a direct invite so), however many members it has.
    let direct = room.is_direct().await.unwrap_or(false);
    let read = read_message(&text, &bot.prefix, &bot.own, direct);
    // A reply to the bot, or a message whose `m.mentions` names it, is addressed to it; the
    // author a reply points at (clients add them to `m.mentions`) is no argument of the command.
    let replied = replied_author(&room, &event).await;
    let named = event.content.mentions.as_ref().map(|m| &m.user_ids);
    let addressed = read.addressed
        || replied.as_ref() == Some(&bot.own)
        || named.is_some_and(|ids| ids.contains(&bot.own));
    let mut ids = read.mentions;
    for id in named.into_iter().flatten() {
        if *id != bot.own && replied.as_ref() != Some(id) && !ids.contains(id) {
            ids.push(id.clone());
        }
    }
    let mut mentions = Vec::with_capacity(ids.len());
    for id in &ids {
        mentions.push(member(&room, id).await);
    }
    let thread = match &event.content.relates_to {
        Some(Relation::Thread(thread)) => Some(thread.event_id.clone()),
        _ => None,
    };
    let incoming = Incoming {
        place: place_of(&room, thread.as_ref()),
        user: member(&room, &event.sender).await,
        text: read.text,
        event_id: Some(event.event_id.to_string()),
        addressed,
        mentions,
        manager: manages(&room, &event.sender).await,
        means: chat::Means::TYPED,
    };
    let target = Target {
        reply_to: Some(event.event_id.clone()),
        thread,
    };
    for reply in chat::handle(&bot.service, &incoming).await {
        if reply.secret && !direct {
            send_privately(&room, &event.sender, &reply, &target).await;
            continue;
        }
        match (reply.started, reply.tournament) {
            (Some(game), _) if target.thread.is_none() => {
                start(&bot.service, &room, &incoming.place, game, &reply, &target).await;
            }
            (None, Some(tournament)) if target.thread.is_none() => {
                let place = &incoming.place;
                open_tournament_thread(&bot.service, &room, place, tournament, &reply, &target)
                    .await;
            }
            _ => {
                send(&room, &reply, &target).await;
            }
        }
    }
}

/// The author of the message `event` replies to (a reply within a thread counts; a thread's
/// fallback to its latest message does not).
async fn replied_author(room: &Room, event: &OriginalSyncRoomMessageEvent) -> Option<OwnedUserId> {
    let to = match &event.content.relates_to {
        Some(Relation::Reply(reply)) => &reply.in_reply_to.event_id,
        Some(Relation::Thread(thread)) if !thread.is_falling_back => {
            &thread.in_reply_to.as_ref()?.event_id
        }
        _ => return None,
    };
    match room.load_or_fetch_event(to, None).await {
        Ok(replied) => replied
            .raw()
            .get_field::<OwnedUserId>("sender")
            .ok()
            .flatten(),
        Err(error) => {
            warn!(room = %room.room_id(), error = %redacted(&error), "reading a replied message failed");
            None
        }
    }
}

/// Whether a member may change the room's settings: power level 50 (a moderator) or more,
/// read from the room's power levels (members are lazy-loaded; the levels are room state).
async fn manages(room: &Room, id: &UserId) -> bool {
    match room.power_levels().await {
        Ok(levels) => levels.for_user(id) >= Int::from(MANAGER_LEVEL),
        Err(error) => {
            warn!(room = %room.room_id(), error = %redacted(&error), "reading power levels failed");
            false
        }
    }
}

/// A room member as a chat user: the Matrix id and the display name in that room (asked of
/// the homeserver when the member is not loaded yet).
async fn member(room: &Room, id: &UserId) -> User {
    let loaded = match room.get_member_no_sync(id).await {
        Ok(Some(member)) => Some(member),
        _ => room.get_member(id).await.ok().flatten(),
    };
    let name = match loaded {
        Some(member) => member.name().to_owned(),
        None => id.localpart().to_owned(),
    };
    User::new(PLATFORM, id.as_str(), &name)
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

    #[test]
    fn the_backlog_is_answered_back_to_the_first_start_and_the_limit() {
        let (first, now, week) = (1_000, 1_000_000, 7 * DAY);
        assert_eq!(skipped(now - 60, first, now, week), None, "a minute old");
        assert_eq!(skipped(now - week, first, now, week), None, "just within");
        assert!(
            skipped(now - week - 1, first, now, week).is_some(),
            "too old"
        );
        assert!(
            skipped(first - 1, first, now, 10 * now).is_some(),
            "before the first start"
        );
        assert_eq!(skipped(first, first, now, 10 * now), None);
    }

    #[test]
    fn servers_are_a_comma_list() {
        assert_eq!(parse_servers(" a.org, b.net ,,"), ["a.org", "b.net"]);
        assert!(server_allowed(&[], "any.org"));
        assert!(server_allowed(&parse_servers("A.org"), "a.org"));
        assert!(!server_allowed(&parse_servers("a.org"), "b.org"));
    }
}
