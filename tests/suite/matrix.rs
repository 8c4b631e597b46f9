//! The Matrix bot against a real Synapse homeserver on 127.0.0.1. `tests/run` (through
//! `tests/synapse.sh`) installs and starts Synapse, registers the accounts
//! `<test>-bot`, `<test>-alice`, `<test>-bob` and `<test>-carol` for each test here, and sets
//! `PIGEON_TEST_MATRIX_URL` and `PIGEON_TEST_MATRIX_PASSWORD`.
//!
//! The bot runs in this process through `adapters::matrix::run` on a temporary game database;
//! the players are matrix-sdk clients with their own crypto stores.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use matrix_sdk::config::SyncSettings;
use matrix_sdk::media::{MediaFormat, MediaRequestParameters};
use matrix_sdk::ruma::api::client::filter::FilterDefinition;
use matrix_sdk::ruma::api::client::keys::get_keys;
use matrix_sdk::ruma::api::client::push::get_notifications;
use matrix_sdk::ruma::api::client::room::create_room;
use matrix_sdk::ruma::api::client::sync::sync_events::v3::Filter;
use matrix_sdk::ruma::events::Mentions;
use matrix_sdk::ruma::events::relation::{InReplyTo, Reply as ReplyRelation, Thread};
use matrix_sdk::ruma::events::room::join_rules::{JoinRule, RoomJoinRulesEventContent};
use matrix_sdk::ruma::events::room::message::{
    MessageType, OriginalSyncRoomMessageEvent, Relation, RoomMessageEventContent,
};
use matrix_sdk::ruma::{
    MilliSecondsSinceUnixEpoch, OwnedEventId, OwnedRoomId, OwnedUserId, UInt, UserId,
};
use matrix_sdk::{Client, Room, RoomMemberships};
use pigeon::adapters::matrix::{self, MatrixConfig, MatrixError};
use pigeon::config::Secret;
use pigeon::service::{Clock, ManualClock, Service, SystemClock};
use pigeon::store::Store;
use tempfile::TempDir;
use tokio::sync::watch;
use tokio::task::JoinHandle;

mod catching_up;
mod tournaments;

/// How long anything may take to arrive before a test gives up (generous: a loaded machine).
const PATIENCE: Duration = Duration::from_secs(90);

/// The homeserver tests/synapse.sh started.
struct Homeserver {
    url: String,
    password: String,
}

fn homeserver() -> Homeserver {
    let var = |name: &str| {
        std::env::var(name).unwrap_or_else(|_| {
            panic!(
                "{name} is not set: the Matrix tests need the Synapse homeserver that tests/run \
                 (tests/synapse.sh) installs, starts and points them to; run `tests/run`"
            )
        })
    };
    Homeserver {
        url: var("PIGEON_TEST_MATRIX_URL"),
        password: var("PIGEON_TEST_MATRIX_PASSWORD"),
    }
}

fn user_id(name: &str) -> OwnedUserId {
    UserId::parse(format!("@{name}:localhost")).expect("a valid test user id")
}

/// A message some client saw.
#[derive(Debug, Clone)]
struct Seen {
    event: OwnedEventId,
    sender: OwnedUserId,
    room: OwnedRoomId,
    content: RoomMessageEventContent,
    /// When the homeserver received it.
    at: MilliSecondsSinceUnixEpoch,
}

impl Seen {
    /// The event this one replies to.
    fn reply_to(&self) -> Option<&OwnedEventId> {
        match &self.content.relates_to {
            Some(Relation::Reply(reply)) => Some(&reply.in_reply_to.event_id),
            Some(Relation::Thread(thread)) => thread.in_reply_to.as_ref().map(|r| &r.event_id),
            _ => None,
        }
    }

    /// The root of the thread it is in.
    fn thread(&self) -> Option<&OwnedEventId> {
        match &self.content.relates_to {
            Some(Relation::Thread(thread)) => Some(&thread.event_id),
            _ => None,
        }
    }

    fn body(&self) -> &str {
        self.content.body()
    }

    /// Whether it is text (an `m.text` or an `m.notice`), not a picture.
    fn is_text(&self) -> bool {
        matches!(
            self.content.msgtype,
            MessageType::Text(_) | MessageType::Notice(_)
        )
    }
}

/// A player: a logged-in client that keeps syncing and remembers every message it sees.
struct Person {
    id: OwnedUserId,
    client: Client,
    seen: Arc<Mutex<Vec<Seen>>>,
    sync: JoinHandle<()>,
    _store: TempDir,
}

impl Drop for Person {
    fn drop(&mut self) {
        self.sync.abort();
    }
}

async fn person(server: &Homeserver, name: &str) -> Person {
    let store = tempfile::tempdir().expect("a temp dir");
    let client = Client::builder()
        .homeserver_url(&server.url)
        .sqlite_store(store.path(), None)
        .build()
        .await
        .expect("a client");
    client
        .matrix_auth()
        .login_username(name, &server.password)
        .send()
        .await
        .unwrap_or_else(|e| panic!("{name} logs in: {e}"));
    client
        .sync_once(SyncSettings::default())
        .await
        .expect("a first sync");
    let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
    let log = seen.clone();
    client.add_event_handler(move |event: OriginalSyncRoomMessageEvent, room: Room| {
        let log = log.clone();
        async move {
            log.lock().expect("not poisoned").push(Seen {
                event: event.event_id,
                sender: event.sender,
                room: room.room_id().to_owned(),
                content: event.content,
                at: event.origin_server_ts,
            });
        }
    });
    let syncing = client.clone();
    let sync = tokio::spawn(async move {
        // Every event is seen, however many arrive between two syncs.
        let mut filter = FilterDefinition::default();
        filter.room.timeline.limit = Some(UInt::from(1_000_u32));
        let settings = SyncSettings::default()
            .filter(Filter::FilterDefinition(filter))
            .timeout(Duration::from_secs(5));
        let _ = syncing.sync(settings).await;
    });
    Person {
        id: user_id(name),
        client,
        seen,
        sync,
        _store: store,
    }
}

/// Polls until `probe` finds something, or fails the test after [`PATIENCE`].
async fn wait_for<T>(what: &str, mut probe: impl AsyncFnMut() -> Option<T>) -> T {
    let start = tokio::time::Instant::now();
    loop {
        if let Some(found) = probe().await {
            return found;
        }
        assert!(start.elapsed() < PATIENCE, "gave up waiting for {what}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

impl Person {
    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().expect("not poisoned").clone()
    }

    /// The messages from `from` in `room` that reply to `event`.
    fn replies(&self, room: &Room, from: &UserId, event: &OwnedEventId) -> Vec<Seen> {
        self.seen()
            .into_iter()
            .filter(|s| s.room == room.room_id() && s.sender == from && s.reply_to() == Some(event))
            .collect()
    }

    /// Waits for the bot's text that replies to `event`.
    async fn notice_to(&self, room: &Room, bot: &UserId, event: &OwnedEventId) -> Seen {
        wait_for(&format!("the bot's reply to {event}"), async || {
            self.replies(room, bot, event)
                .into_iter()
                .find(Seen::is_text)
        })
        .await
    }

    /// The events that notified this person by their push rules (Synapse's own evaluation:
    /// `GET /notifications` lists what matched a notifying rule, pusher or not).
    async fn notifications(&self) -> Vec<OwnedEventId> {
        let response = self
            .client
            .send(get_notifications::v3::Request::new())
            .await
            .expect("the notifications");
        response
            .notifications
            .iter()
            .filter_map(|n| n.event.get_field::<OwnedEventId>("event_id").ok().flatten())
            .collect()
    }

    /// Waits until `event` notified this person.
    async fn notified(&self, event: &OwnedEventId) {
        wait_for(&format!("{event} to notify {}", self.id), async || {
            self.notifications().await.contains(event).then_some(())
        })
        .await;
    }

    /// The room as this client knows it, once it has joined.
    async fn room(&self, id: &OwnedRoomId) -> Room {
        wait_for("a joined room", async || {
            self.client
                .get_room(id)
                .filter(|room| room.state() == matrix_sdk::RoomState::Joined)
        })
        .await
    }

    /// Sends a plain text message and returns its event id.
    async fn say(&self, room: &Room, text: &str) -> OwnedEventId {
        self.say_in(room, None, text).await
    }

    /// Sends a plain text message, in the thread rooted at `thread` when given.
    async fn say_in(&self, room: &Room, thread: Option<&OwnedEventId>, text: &str) -> OwnedEventId {
        let mut content = RoomMessageEventContent::text_plain(text);
        if let Some(root) = thread {
            content.relates_to = Some(Relation::Thread(Thread::plain(root.clone(), root.clone())));
        }
        room.send(content)
            .await
            .unwrap_or_else(|e| panic!("{} sends {text:?}: {e}", self.id))
            .response
            .event_id
    }

    /// Says `text` and waits for the bot's notice in reply.
    async fn ask(&self, room: &Room, bot: &UserId, text: &str) -> Seen {
        self.ask_in(room, None, bot, text).await
    }

    /// Says `text`, in a thread when given, and waits for the bot's answer.
    async fn ask_in(
        &self,
        room: &Room,
        thread: Option<&OwnedEventId>,
        bot: &UserId,
        text: &str,
    ) -> Seen {
        let event = self.say_in(room, thread, text).await;
        self.notice_to(room, bot, &event).await
    }
}

/// The bot running in this process on a game database and a Matrix store folder.
struct BotRun {
    stop: watch::Sender<bool>,
    task: JoinHandle<Result<(), MatrixError>>,
    store: Store,
}

async fn start_bot(
    server: &Homeserver,
    name: &str,
    db: &Path,
    matrix_store: &Path,
    backlog_days: i64,
) -> BotRun {
    let config = bot_config(server, name, matrix_store, backlog_days);
    run_bot(db, config, Arc::new(SystemClock)).await
}

/// How the test bots connect: as `name`, with their store in `matrix_store`, encrypted with
/// a passphrase.
fn bot_config(
    server: &Homeserver,
    name: &str,
    matrix_store: &Path,
    backlog_days: i64,
) -> MatrixConfig {
    MatrixConfig {
        homeserver: server.url.clone(),
        user: name.to_owned(),
        password: Some(Secret::new(server.password.clone())),
        store: matrix_store.to_owned(),
        prefix: String::from("!pigeon"),
        allowed_servers: vec![String::from("localhost")],
        backlog_days,
        store_passphrase: Some(Secret::new("a passphrase for the test store")),
        recovery_key: None,
        timeline_limit: matrix::DEFAULT_TIMELINE_LIMIT,
    }
}

/// Runs the bot on the game database `db` with `config`, on `clock`.
async fn run_bot(db: &Path, config: MatrixConfig, clock: Arc<dyn Clock>) -> BotRun {
    let store = Store::open(db).await.expect("the game database opens");
    let service = Service::new(store.clone(), clock);
    let (stop, shutdown) = watch::channel(false);
    let task = tokio::spawn(matrix::run(service, config, shutdown));
    BotRun { stop, task, store }
}

impl BotRun {
    /// Stops the bot the way `pigeon serve` does, and checks it ends cleanly.
    async fn stop(self) {
        self.stop.send(true).expect("the bot listens");
        let result = tokio::time::timeout(PATIENCE, self.task)
            .await
            .expect("the bot stops when told")
            .expect("the bot task does not panic");
        assert!(result.is_ok(), "the bot ends cleanly: {result:?}");
        self.store.close().await;
    }
}

/// A room made by `owner` with `invited` (the bot among them), all joined.
async fn room_with(owner: &Person, others: &[&Person], bot: &UserId, encrypted: bool) -> Room {
    let mut request = create_room::v3::Request::new();
    request.invite = others.iter().map(|p| p.id.clone()).collect();
    request.invite.push(bot.to_owned());
    let room = owner.client.create_room(request).await.expect("a new room");
    if encrypted {
        room.enable_encryption().await.expect("encryption on");
    }
    for other in others {
        other
            .client
            .join_room_by_id(room.room_id())
            .await
            .unwrap_or_else(|e| panic!("{} joins: {e}", other.id));
    }
    let id = room.room_id().to_owned();
    let room = owner.room(&id).await;
    // The bot joins by itself once it sees the invite.
    wait_for("the bot to join", async || {
        let members = room.members(RoomMemberships::JOIN).await.ok()?;
        members.iter().any(|m| m.user_id() == bot).then_some(())
    })
    .await;
    room
}

/// Checks a reply mentions `who` properly: an `m.text` (push rules never notify for an
/// `m.notice`) with `m.mentions` and a pill in the HTML body.
fn assert_mentions(seen: &Seen, who: &UserId) {
    let mentions = seen.content.mentions.as_ref().expect("m.mentions is set");
    assert!(
        mentions.user_ids.contains(who),
        "{who} in m.mentions: {seen:?}"
    );
    let MessageType::Text(notice) = &seen.content.msgtype else {
        panic!("an m.text: {seen:?}");
    };
    let html = &notice.formatted.as_ref().expect("an HTML body").body;
    assert!(
        html.contains(&format!("<a href=\"https://matrix.to/#/{who}\">")),
        "a pill for {who}: {html}"
    );
}

/// Waits for the board picture that replies to `event` (or, with `in_thread`, that is in
/// the thread rooted at `event`), checks its `info`, downloads and decodes it.
async fn board_image(
    person: &Person,
    room: &Room,
    bot: &UserId,
    event: &OwnedEventId,
    in_thread: bool,
) {
    let seen = wait_for("the board picture", async || {
        person.seen().into_iter().find(|s| {
            s.room == room.room_id()
                && s.sender == bot
                && matches!(s.content.msgtype, MessageType::Image(_))
                && if in_thread {
                    s.thread() == Some(event)
                } else {
                    s.reply_to() == Some(event)
                }
        })
    })
    .await;
    let decoded = downloaded_png(person, &seen).await;
    assert!(
        decoded.width() > 100 && decoded.height() > 100,
        "a real board"
    );
}

/// Downloads the picture `seen` shows, checks its `info` against it and decodes it as a PNG.
async fn downloaded_png(person: &Person, seen: &Seen) -> image::DynamicImage {
    let MessageType::Image(image) = &seen.content.msgtype else {
        panic!("an image: {seen:?}");
    };
    let info = image.info.as_ref().expect("the image has info");
    assert_eq!(info.mimetype.as_deref(), Some("image/png"));
    let data = person
        .client
        .media()
        .get_media_content(
            &MediaRequestParameters {
                source: image.source.clone(),
                format: MediaFormat::File,
            },
            false,
        )
        .await
        .expect("the picture downloads");
    assert_eq!(info.size.map(u64::from), Some(data.len() as u64), "size");
    let decoded = image::load_from_memory_with_format(&data, image::ImageFormat::Png)
        .expect("the picture is a PNG");
    assert_eq!(info.width.map(u64::from), Some(u64::from(decoded.width())));
    assert_eq!(
        info.height.map(u64::from),
        Some(u64::from(decoded.height()))
    );
    decoded
}

/// A whole Chak game in `room`: challenge with a pill, accept, the board picture, bare and
/// prefixed moves, and the end by threefold repetition. With `threaded`, the game goes on in
/// a thread rooted at the start message, where moves need no game number; the challenge and
/// every turn notify the player they address.
async fn full_game(room_a: &Room, alice: &Person, bob: &Person, bot: &UserId, threaded: bool) {
    let room_b = bob.room(&room_a.room_id().to_owned()).await;
    let challenge = RoomMessageEventContent::text_html(
        "!pigeon challenge Bob chak 3 days white",
        format!(
            "!pigeon challenge <a href=\"https://matrix.to/#/{}\">Bob</a> chak 3 days white",
            bob.id
        ),
    )
    .add_mentions(Mentions::with_user_ids([bob.id.clone()]));
    let event = room_a
        .send(challenge)
        .await
        .expect("the challenge goes out")
        .response
        .event_id;
    let reply = alice.notice_to(room_a, bot, &event).await;
    assert!(reply.body().contains("Challenge #1"), "{}", reply.body());
    assert_mentions(&reply, &bob.id);
    if !room_a.encryption_state().is_encrypted() {
        bob.notified(&reply.event).await;
    }

    let accept = bob.say(&room_b, "!pigeon accept").await;
    let start = bob.notice_to(&room_b, bot, &accept).await;
    assert!(
        start.body().contains("Game #1 (Chak) starts"),
        "{}",
        start.body()
    );
    assert_eq!(start.thread(), None, "the start is the thread's root");
    assert_mentions(&start, &alice.id);
    let thread = threaded.then(|| start.event.clone());
    match &thread {
        Some(root) => board_image(bob, &room_b, bot, root, true).await,
        None => board_image(bob, &room_b, bot, &accept, false).await,
    }

    // Bare moves (not addressed) and prefixed ones, as players would mix them.
    let turns: [(&Person, &Room, &str, &str); 9] = [
        (alice, room_a, "e4", "played e4 in game #1"),
        (bob, &room_b, "!pigeon Vd8", "played Vd8"),
        (alice, room_a, "Vd2", "played Vd2"),
        (bob, &room_b, "Vb9", "played Vb9"),
        (alice, room_a, "!pigeon move Vb1", "played Vb1"),
        (bob, &room_b, "Vd8", "played Vd8"),
        (alice, room_a, "Vd2", "played Vd2"),
        (bob, &room_b, "Vb9", "played Vb9"),
        (
            alice,
            room_a,
            "Vb1",
            "Game over: 1/2-1/2, drawn by threefold repetition",
        ),
    ];
    for (index, (who, room, text, expected)) in turns.into_iter().enumerate() {
        let reply = who.ask_in(room, thread.as_ref(), bot, text).await;
        assert!(
            reply.body().contains(expected),
            "turn {index} {text:?}: {}",
            reply.body()
        );
        assert_eq!(reply.thread(), thread.as_ref(), "turn {index} in its place");
        if index < 8 {
            let next = if index % 2 == 0 { bob } else { alice };
            assert_mentions(&reply, &next.id);
            if index < 2 && !room_a.encryption_state().is_encrypted() {
                next.notified(&reply.event).await;
            }
        }
    }
    let over = bob
        .ask_in(&room_b, thread.as_ref(), bot, "!pigeon Vd8")
        .await;
    assert!(over.body().contains("is over"), "{}", over.body());
}

struct Scene {
    server: Homeserver,
    alice: Person,
    bob: Person,
    bot: OwnedUserId,
    dir: TempDir,
}

async fn scene(test: &str) -> Scene {
    let server = homeserver();
    let alice = person(&server, &format!("{test}-alice")).await;
    let bob = person(&server, &format!("{test}-bob")).await;
    Scene {
        bot: user_id(&format!("{test}-bot")),
        server,
        alice,
        bob,
        dir: tempfile::tempdir().expect("a temp dir"),
    }
}

impl Scene {
    fn db(&self) -> PathBuf {
        self.dir.path().join("pigeon.db")
    }

    fn matrix_store(&self) -> PathBuf {
        self.dir.path().join("pigeon-matrix")
    }

    async fn start_bot(&self) -> BotRun {
        start_bot(
            &self.server,
            self.bot.localpart(),
            &self.db(),
            &self.matrix_store(),
            7,
        )
        .await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a Synapse homeserver; tests/run starts one"]
async fn a_full_game_in_an_unencrypted_room() {
    let scene = scene("plain").await;
    let bot = scene.start_bot().await;
    let room = room_with(&scene.alice, &[&scene.bob], &scene.bot, false).await;
    assert!(!room.encryption_state().is_encrypted());
    full_game(&room, &scene.alice, &scene.bob, &scene.bot, true).await;
    bot.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a Synapse homeserver; tests/run starts one"]
async fn a_full_game_in_an_encrypted_room_without_threads() {
    let scene = scene("encrypted").await;
    let bot = scene.start_bot().await;
    let room = room_with(&scene.alice, &[&scene.bob], &scene.bot, true).await;
    assert!(
        room.latest_encryption_state()
            .await
            .expect("the state")
            .is_encrypted()
    );
    // Threads are the room's setting: a moderator's (power level 50) to change.
    let room_b = scene.bob.room(&room.room_id().to_owned()).await;
    let refused = scene
        .bob
        .ask(&room_b, &scene.bot, "!pigeon threads off")
        .await;
    assert!(refused.body().contains("managers"), "{}", refused.body());
    let off = scene
        .alice
        .ask(&room, &scene.bot, "!pigeon threads off")
        .await;
    assert!(
        off.body().contains("played in the channel"),
        "{}",
        off.body()
    );
    full_game(&room, &scene.alice, &scene.bob, &scene.bot, false).await;
    bot.stop().await;
}

/// The bot's devices with keys on the homeserver, as other users see them.
async fn devices_of(person: &Person, user: &UserId) -> Vec<String> {
    let mut request = get_keys::v3::Request::new();
    request.device_keys = BTreeMap::from([(user.to_owned(), Vec::new())]);
    let response = person.client.send(request).await.expect("keys query");
    response
        .device_keys
        .get(user)
        .map(|devices| devices.keys().map(ToString::to_string).collect())
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a Synapse homeserver; tests/run starts one"]
async fn a_restarted_bot_keeps_its_device_and_the_game_and_answers_what_it_missed() {
    let scene = scene("restart").await;
    let (alice, bob, bot_id) = (&scene.alice, &scene.bob, &scene.bot);
    let bot = scene.start_bot().await;
    let room_a = room_with(alice, &[bob], bot_id, true).await;
    let room_b = bob.room(&room_a.room_id().to_owned()).await;
    alice.ask(&room_a, bot_id, "!pigeon threads off").await;
    let session = scene.matrix_store().join("session.json");
    let saved = std::fs::read(&session).expect("the login is saved in the store folder");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let folder = std::fs::metadata(scene.matrix_store()).expect("the store folder");
        assert_eq!(
            folder.permissions().mode() & 0o777,
            0o700,
            "only the bot's user may open the store folder"
        );
    }

    let mut answered = Vec::new();
    let challenge = alice
        .say(&room_a, &format!("!pigeon challenge {} chad white", bob.id))
        .await;
    alice.notice_to(&room_a, bot_id, &challenge).await;
    answered.push(challenge);
    let accept = bob.say(&room_b, "!pigeon accept").await;
    bob.notice_to(&room_b, bot_id, &accept).await;
    answered.push(accept);
    let first = alice.say(&room_a, "!pigeon move Rh3").await;
    let reply = alice.notice_to(&room_a, bot_id, &first).await;
    assert!(reply.body().contains("played Re3-h3"), "{}", reply.body());
    answered.push(first);
    let devices = devices_of(alice, bot_id).await;
    assert_eq!(devices.len(), 1, "one device: {devices:?}");

    bot.stop().await;
    // Written while the bot is away: answered when it is back, in order.
    let missed = bob.say(&room_b, "!pigeon board").await;
    let missed_move = bob.say(&room_b, "!pigeon move #1 Rl10").await;

    let bot = scene.start_bot().await;
    assert_eq!(
        std::fs::read(&session).expect("still saved"),
        saved,
        "the saved login is restored, not replaced"
    );
    let board = bob.notice_to(&room_b, bot_id, &missed).await;
    assert!(board.body().contains("Game #1 (Chad)"), "{}", board.body());
    let reply = bob.notice_to(&room_b, bot_id, &missed_move).await;
    assert!(board.at <= reply.at, "answered in the order they were sent");
    assert!(
        reply
            .body()
            .contains("restart-bob played Rj10-l10 in game #1"),
        "the game goes on: {}",
        reply.body()
    );
    assert_mentions(&reply, &alice.id);
    // One more round trip, so anything the bot wrongly answered from before has arrived.
    let board = alice.ask(&room_a, bot_id, "!pigeon board").await;
    assert!(board.body().contains("Game #1 (Chad)"), "{}", board.body());

    answered.push(missed);
    answered.push(missed_move);
    for event in &answered {
        let replies: Vec<Seen> = alice
            .replies(&room_a, bot_id, event)
            .into_iter()
            .filter(Seen::is_text)
            .collect();
        assert_eq!(replies.len(), 1, "{event} answered once: {replies:?}");
    }
    assert_eq!(
        devices_of(alice, bot_id).await,
        devices,
        "the same single device after the restart"
    );
    bot.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a Synapse homeserver; tests/run starts one"]
async fn replying_to_the_bot_addresses_it() {
    let scene = scene("reply").await;
    let (alice, bob, bot_id) = (&scene.alice, &scene.bob, &scene.bot);
    let bot = scene.start_bot().await;
    let room_a = room_with(alice, &[bob], bot_id, false).await;
    let room_b = bob.room(&room_a.room_id().to_owned()).await;
    let challenge = alice
        .ask(
            &room_a,
            bot_id,
            &format!("!pigeon challenge {} chak", bob.id),
        )
        .await;

    // `accept` as a reply to the challenge, without the prefix.
    let mut accept = RoomMessageEventContent::text_plain("accept");
    accept.relates_to = Some(Relation::Reply(ReplyRelation::new(InReplyTo::new(
        challenge.event.clone(),
    ))));
    let accept = room_b.send(accept).await.expect("sent").response.event_id;
    let start = bob.notice_to(&room_b, bot_id, &accept).await;
    assert!(
        start.body().contains("Game #1 (Chak) starts"),
        "{}",
        start.body()
    );

    // A reply to the bot names it in m.mentions (as clients do): that addresses the bot, and
    // the bot is no opponent.
    let mut open = RoomMessageEventContent::text_plain("challenge chak")
        .add_mentions(Mentions::with_user_ids([bot_id.clone()]));
    open.relates_to = Some(Relation::Reply(ReplyRelation::new(InReplyTo::new(
        challenge.event.clone(),
    ))));
    let open = room_b.send(open).await.expect("sent").response.event_id;
    let reply = bob.notice_to(&room_b, bot_id, &open).await;
    assert!(reply.body().contains("Challenge #2"), "{}", reply.body());
    assert!(
        !reply.body().contains("starts"),
        "no game against the bot: {}",
        reply.body()
    );
    bot.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a Synapse homeserver; tests/run starts one"]
async fn someone_not_playing_gets_a_friendly_refusal() {
    let scene = scene("stranger").await;
    let carol = person(&scene.server, "stranger-carol").await;
    let (alice, bob, bot_id) = (&scene.alice, &scene.bob, &scene.bot);
    let bot = scene.start_bot().await;
    let room_a = room_with(alice, &[bob, &carol], bot_id, false).await;
    let room_b = bob.room(&room_a.room_id().to_owned()).await;
    let room_c = carol.room(&room_a.room_id().to_owned()).await;
    alice.ask(&room_a, bot_id, "!pigeon threads off").await;

    alice
        .ask(
            &room_a,
            bot_id,
            &format!("!pigeon challenge {} chak", bob.id),
        )
        .await;
    let start = bob.ask(&room_b, bot_id, "!pigeon accept").await;
    assert!(start.body().contains("starts"), "{}", start.body());

    let refusal = carol.ask(&room_c, bot_id, "!pigeon move #1 e4").await;
    assert!(
        refusal.body().contains("You are not playing in game #1"),
        "{}",
        refusal.body()
    );
    let refusal = carol.ask(&room_c, bot_id, "!pigeon resign").await;
    assert!(refusal.body().contains("no game"), "{}", refusal.body());
    // A bare move from her is not meant for the bot: no answer, and the game is untouched.
    let quiet = carol.say(&room_c, "e4").await;
    let board = alice.ask(&room_a, bot_id, "!pigeon board").await;
    assert!(board.body().contains("move 1"), "{}", board.body());
    assert!(carol.replies(&room_c, bot_id, &quiet).is_empty());
    bot.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a Synapse homeserver; tests/run starts one"]
async fn a_slow_answer_in_one_room_holds_up_no_other() {
    let scene = scene("busy").await;
    let (alice, bob, bot_id) = (&scene.alice, &scene.bob, &scene.bot);
    let bot = scene.start_bot().await;
    let room_a = room_with(alice, &[], bot_id, false).await;
    let room_b = room_with(bob, &[], bot_id, false).await;
    alice.ask(&room_a, bot_id, "!pigeon threads off").await;
    let start = alice
        .ask(
            &room_a,
            bot_id,
            &format!("!pigeon challenge {bot_id} chesscala level 5 white"),
        )
        .await;
    assert!(start.body().contains("starts"), "{}", start.body());

    // Once Alice's move is stored, the bot is searching its answer: level 5 in Chesscala,
    // whose hundreds of turns a position make it the bot's slowest answer (up to 1.5 s).
    let moved = alice.say(&room_a, "!pigeon d2-d4").await;
    let store = bot.store.clone();
    let ply = wait_for("Alice's move to be stored", async || {
        let ply = store.game(1).await.ok()??.ply;
        (ply > 0).then_some(ply)
    })
    .await;
    assert_eq!(ply, 1, "caught the bot while it thinks");
    let help = bob.ask(&room_b, bot_id, "!pigeon help").await;
    let answer = wait_for("the bot's move", async || {
        alice
            .replies(&room_a, bot_id, &moved)
            .into_iter()
            .find(|s| s.body().contains("your move"))
    })
    .await;
    assert!(
        help.at < answer.at,
        "Bob's answer ({:?}) waited for the bot's move in another room ({:?})",
        help.at,
        answer.at
    );
    bot.stop().await;
}

/// The HTML body of a message, if it has one.
fn html_of(seen: &Seen) -> Option<String> {
    match &seen.content.msgtype {
        MessageType::Text(text) => text.formatted.as_ref().map(|f| f.body.clone()),
        MessageType::Notice(notice) => notice.formatted.as_ref().map(|f| f.body.clone()),
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a Synapse homeserver; tests/run starts one"]
async fn direct_chats_are_known_by_m_direct_and_examples_are_code() {
    let scene = scene("direct").await;
    let (alice, bot_id) = (&scene.alice, &scene.bot);
    let bot = scene.start_bot().await;

    // A direct chat (the client marks the invite `is_direct` and `m.direct`): every message
    // is a command, without the prefix.
    let dm = alice.client.create_dm(bot_id).await.expect("a direct chat");
    let dm_id = dm.room_id().to_owned();
    wait_for("the bot to join the direct chat", async || {
        let members = dm.members(RoomMemberships::JOIN).await.ok()?;
        members.iter().any(|m| m.user_id() == bot_id).then_some(())
    })
    .await;
    let dm = alice.room(&dm_id).await;
    let help = alice.ask(&dm, bot_id, "help").await;
    assert!(help.body().contains("challenge"), "{}", help.body());
    let html = html_of(&help).expect("an HTML body");
    assert!(html.contains("<code>"), "command examples are code: {html}");
    assert!(!html.contains('`'), "no raw backticks in HTML: {html}");

    // A room of just the two of them that is no direct chat: plain talk is not a command.
    let room = room_with(alice, &[], bot_id, false).await;
    let chatter = alice.say(&room, "help").await;
    let asked = alice.ask(&room, bot_id, "!pigeon help").await;
    assert!(asked.body().contains("challenge"), "{}", asked.body());
    assert!(
        alice.replies(&room, bot_id, &chatter).is_empty(),
        "a room of two is not a direct chat"
    );
    bot.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a Synapse homeserver; tests/run starts one"]
async fn the_store_is_encrypted_and_the_bot_cross_signed_with_its_keys_backed_up() {
    let scene = scene("secure").await;
    let (alice, bot_id) = (&scene.alice, &scene.bot);
    let bot = scene.start_bot().await;
    let room = room_with(alice, &[], bot_id, true).await;
    alice.ask(&room, bot_id, "!pigeon help").await;

    // The recovery key is written once, for the operator only.
    let key_file = scene.matrix_store().join("recovery-key");
    let key = wait_for("the recovery key", async || {
        std::fs::read_to_string(&key_file)
            .ok()
            .filter(|k| !k.trim().is_empty())
    })
    .await;
    assert!(key.split_whitespace().count() >= 8, "{key}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key_file).expect("the key file");
        assert_eq!(mode.permissions().mode() & 0o777, 0o600);
    }
    // Others see the bot's device signed by its own cross-signing identity.
    let devices = devices_of(alice, bot_id).await;
    assert_eq!(devices.len(), 1, "{devices:?}");
    let device_id: matrix_sdk::ruma::OwnedDeviceId = devices[0].as_str().into();
    wait_for("the bot's device to be cross-signed", async || {
        let encryption = alice.client.encryption();
        encryption.request_user_identity(bot_id).await.ok()??;
        let device = encryption.get_device(bot_id, &device_id).await.ok()??;
        device.is_cross_signed_by_owner().then_some(())
    })
    .await;
    // And the account has a key backup.
    let backup = scene.bot_request("GET", "/_matrix/client/v3/room_keys/version");
    assert!(backup.await.get("version").is_some(), "a key backup exists");
    bot.stop().await;

    // The store opens only with its passphrase, and says so.
    let mut wrong = bot_config(&scene.server, bot_id.localpart(), &scene.matrix_store(), 7);
    wrong.store_passphrase = Some(Secret::new("not the passphrase"));
    let error = run_bot(&scene.db(), wrong.clone(), Arc::new(SystemClock))
        .await
        .ended()
        .await;
    assert!(
        matches!(error, Err(MatrixError::WrongPassphrase { .. })),
        "{error:?}"
    );
    wrong.store_passphrase = None;
    let error = run_bot(&scene.db(), wrong, Arc::new(SystemClock))
        .await
        .ended()
        .await;
    let message = error
        .expect_err("refused without the passphrase")
        .to_string();
    assert!(message.contains("MATRIX_STORE_PASSPHRASE"), "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a Synapse homeserver; tests/run starts one"]
async fn a_message_that_cannot_be_decrypted_gets_its_sender_asked_once_to_send_it_again() {
    let scene = scene("unreadable").await;
    let (alice, bot_id) = (&scene.alice, &scene.bot);
    let clock = ManualClock::running();
    let config = bot_config(&scene.server, bot_id.localpart(), &scene.matrix_store(), 7);
    let bot = run_bot(&scene.db(), config, Arc::new(clock.clone())).await;
    let room = room_with(alice, &[], bot_id, true).await;
    alice.ask(&room, bot_id, "!pigeon help").await;

    // A megolm message with a session the bot never received a key for.
    let content = serde_json::json!({
        "algorithm": "m.megolm.v1.aes-sha2",
        "ciphertext": "AwgAEnACgAkLmt6qF84IK++J7UDH2Za1YVchHyprqTqsg2yyOwAtHaZTwyNg37afzg8f3r9IsN9r4RNFg7MaZencUJe4qvELiDiopUjy5wYVDAtqdBzer5bWRD9ldxp1FLgbQvBcjkkywYjCsmsq6+hArLd9oAQZnGKn/qLxK2xBUWFoFDEaTUzaTfIhLHHnGxNVEPn9R2+NFCHZ9j4+FDlyY/fjMmLD0wwyjLLemgzRiMK8k6u5l/Dq/xcJ/QyiRrKNYeH8PHwq/g",
        "device_id": "NOSUCHDEVICE",
        "sender_key": "WmFIw1MUvMOaYqKfaVSsmDeFiZyBN3FCAqv4SpHSkV8",
        "session_id": "Ksr6ZQTMnBVj8Ak5qdbgC/UvNeKMCvVtPlYWh0Oty9w",
    });
    let sent = scene
        .person_request(
            alice,
            "PUT",
            &format!(
                "/_matrix/client/v3/rooms/{}/send/m.room.encrypted/unreadable-1",
                room.room_id()
            ),
            Some(content),
        )
        .await;
    let event: OwnedEventId = sent["event_id"]
        .as_str()
        .expect("an event id")
        .try_into()
        .expect("valid");
    // Keys may still come: the bot waits five minutes (its clock) before it asks.
    let asked = wait_for("the bot to ask for the message again", async || {
        clock.advance(60);
        alice.replies(&room, bot_id, &event).into_iter().next()
    })
    .await;
    assert!(asked.body().contains("send it again"), "{}", asked.body());
    assert!(asked.is_text(), "it addresses the sender, so it notifies");
    clock.advance(3600);
    // Once: a later command is answered, and still only one request to send it again.
    alice.ask(&room, bot_id, "!pigeon help").await;
    assert_eq!(alice.replies(&room, bot_id, &event).len(), 1);
    bot.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a Synapse homeserver; tests/run starts one"]
async fn an_upgraded_room_keeps_its_games_and_an_empty_room_is_left() {
    let scene = scene("upgrade").await;
    let (alice, bob, bot_id) = (&scene.alice, &scene.bob, &scene.bot);
    let bot = scene.start_bot().await;
    let room_a = room_with(alice, &[bob], bot_id, false).await;
    let room_b = bob.room(&room_a.room_id().to_owned()).await;
    alice.ask(&room_a, bot_id, "!pigeon threads off").await;
    alice
        .ask(
            &room_a,
            bot_id,
            &format!("!pigeon challenge {} chak white", bob.id),
        )
        .await;
    let start = bob.ask(&room_b, bot_id, "!pigeon accept").await;
    assert!(start.body().contains("Game #1"), "{}", start.body());

    // Alice opens the room to anyone and upgrades it; the bot follows and says which games
    // go on there.
    room_a
        .send_state_event(RoomJoinRulesEventContent::new(JoinRule::Public))
        .await
        .expect("the room is public");
    let upgraded = scene
        .person_request(
            alice,
            "POST",
            &format!("/_matrix/client/v3/rooms/{}/upgrade", room_a.room_id()),
            Some(serde_json::json!({ "new_version": "10" })),
        )
        .await;
    let new_id: OwnedRoomId = upgraded["replacement_room"]
        .as_str()
        .expect("the new room")
        .try_into()
        .expect("valid");
    alice
        .client
        .join_room_by_id(&new_id)
        .await
        .expect("alice follows");
    bob.client
        .join_room_by_id(&new_id)
        .await
        .expect("bob follows");
    let new_a = alice.room(&new_id).await;
    let moved = wait_for("the bot's word on the upgrade", async || {
        alice
            .seen()
            .into_iter()
            .find(|s| s.room == new_id && s.sender == *bot_id)
    })
    .await;
    assert!(
        moved.body().contains("Game #1 goes on here"),
        "{}",
        moved.body()
    );
    // The game is played on in the new room.
    let played = alice.ask(&new_a, bot_id, "!pigeon move e4").await;
    assert!(played.body().contains("e4"), "{}", played.body());

    // Everyone leaves the old room: the bot does not stay there alone.
    room_a.leave().await.expect("alice leaves");
    room_b.leave().await.expect("bob leaves");
    wait_for("the bot to leave the old room", async || {
        let joined = scene
            .bot_request("GET", "/_matrix/client/v3/joined_rooms")
            .await;
        let rooms = joined["joined_rooms"].as_array()?.clone();
        (!rooms
            .iter()
            .any(|r| r.as_str() == Some(room_a.room_id().as_str())))
        .then_some(())
    })
    .await;
    bot.stop().await;
}

impl Scene {
    /// A client-server request as the bot's account (its saved login's token).
    async fn bot_request(&self, method: &str, path: &str) -> serde_json::Value {
        let session =
            std::fs::read(self.matrix_store().join("session.json")).expect("the bot's saved login");
        let session: serde_json::Value = serde_json::from_slice(&session).expect("json");
        let token = session["access_token"]
            .as_str()
            .expect("a token")
            .to_owned();
        request(&self.server, &token, method, path, None).await
    }

    /// A client-server request as a player.
    async fn person_request(
        &self,
        person: &Person,
        method: &str,
        path: &str,
        body: Option<serde_json::Value>,
    ) -> serde_json::Value {
        let token = person.client.access_token().expect("logged in");
        request(&self.server, &token, method, path, body).await
    }
}

/// A plain HTTP request to the homeserver, for what the SDK has no call for in a test.
async fn request(
    server: &Homeserver,
    token: &str,
    method: &str,
    path: &str,
    body: Option<serde_json::Value>,
) -> serde_json::Value {
    let client = reqwest::Client::new();
    let method = reqwest::Method::from_bytes(method.as_bytes()).expect("a method");
    let mut request = client
        .request(method, format!("{}{path}", server.url))
        .bearer_auth(token);
    if let Some(body) = body {
        request = request
            .header("content-type", "application/json")
            .body(body.to_string());
    }
    let response = request.send().await.expect("the homeserver answers");
    let status = response.status();
    let bytes = response.bytes().await.expect("a body");
    let json: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_default();
    assert!(status.is_success(), "{path}: {status} {json}");
    json
}

impl BotRun {
    /// Waits for a bot that stops by itself (a start that fails) and gives its result.
    async fn ended(self) -> Result<(), MatrixError> {
        let result = tokio::time::timeout(PATIENCE, self.task)
            .await
            .expect("the bot stops by itself")
            .expect("the bot task does not panic");
        self.store.close().await;
        result
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a Synapse homeserver; tests/run starts one"]
async fn a_private_answer_goes_to_the_direct_chat_never_the_room() {
    let scene = scene("private").await;
    let (alice, bob, bot_id) = (&scene.alice, &scene.bob, &scene.bot);
    let bot = scene.start_bot().await;
    let room = room_with(alice, &[bob], bot_id, false).await;

    // `try` answers only its asker: the room hears where the answer went, not what it says.
    let said = alice
        .ask(&room, bot_id, "!pigeon try chak start e3e4 e7e6")
        .await;
    assert!(
        said.body().contains("in our direct chat"),
        "{}",
        said.body()
    );
    // The bot opened a direct chat with alice; she joins it and reads the answer there.
    let dm_id = wait_for("an invite to a direct chat", async || {
        alice
            .client
            .invited_rooms()
            .into_iter()
            .next()
            .map(|room| room.room_id().to_owned())
    })
    .await;
    alice
        .client
        .join_room_by_id(&dm_id)
        .await
        .expect("alice joins the direct chat");
    let answer = wait_for("the private answer", async || {
        alice.seen().into_iter().find(|seen| {
            seen.room == dm_id
                && seen.sender == *bot_id
                && seen.body().contains("Trying on a Chak position")
        })
    })
    .await;
    assert!(answer.body().contains("e4 e6"), "{}", answer.body());
    // Nothing of it in the room, for either player.
    for person in [alice, bob] {
        assert!(
            person
                .seen()
                .iter()
                .filter(|seen| seen.room == room.room_id())
                .all(|seen| !seen.body().contains("Trying on")),
            "{} saw the private answer in the room",
            person.id
        );
    }
    bot.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a Synapse homeserver; tests/run starts one"]
async fn the_daily_digest_arrives_in_the_direct_chat() {
    let scene = scene("digest").await;
    let (alice, bot_id) = (&scene.alice, &scene.bot);
    // The service's clock, on today's real time (the homeserver's messages are real).
    let today = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_secs();
    let now = i64::try_from(today).expect("a time") / 60 * 60;
    let clock = ManualClock::new(now);
    let config = || bot_config(&scene.server, bot_id.localpart(), &scene.matrix_store(), 7);
    let bot = run_bot(&scene.db(), config(), Arc::new(clock.clone())).await;

    let dm = alice.client.create_dm(bot_id).await.expect("a direct chat");
    let dm_id = dm.room_id().to_owned();
    wait_for("the bot to join the direct chat", async || {
        let members = dm.members(RoomMemberships::JOIN).await.ok()?;
        members.iter().any(|m| m.user_id() == bot_id).then_some(())
    })
    .await;
    let dm = alice.room(&dm_id).await;
    // Two hours from now, on the clock of UTC.
    let at = (now + 2 * 3600).rem_euclid(86_400);
    let time = format!("{:02}:{:02}", at / 3600, at % 3600 / 60);
    let set = alice
        .ask(&dm, bot_id, &format!("settings digest {time} UTC"))
        .await;
    assert!(
        set.body()
            .contains(&format!("Daily digest: at {time} (UTC)")),
        "{}",
        set.body()
    );

    // A game in a room with bob, where alice is to move.
    let room = room_with(alice, &[&scene.bob], bot_id, false).await;
    let challenge = RoomMessageEventContent::text_html(
        "!pigeon challenge Bob chak 3 days white",
        format!(
            "!pigeon challenge <a href=\"https://matrix.to/#/{}\">Bob</a> chak 3 days white",
            scene.bob.id
        ),
    )
    .add_mentions(Mentions::with_user_ids([scene.bob.id.clone()]));
    let event = room
        .send(challenge)
        .await
        .expect("the challenge goes out")
        .response
        .event_id;
    alice.notice_to(&room, bot_id, &event).await;
    let room_b = scene.bob.room(&room.room_id().to_owned()).await;
    let start = scene.bob.ask(&room_b, bot_id, "!pigeon accept").await;
    assert!(start.body().contains("Game #1"), "{}", start.body());
    bot.stop().await;

    // The bot was stopped over the digest's time: started again, it sends it at once.
    clock.set(now + 2 * 3600 + 60);
    let bot = run_bot(&scene.db(), config(), Arc::new(clock.clone())).await;
    let digest = wait_for("the digest in the direct chat", async || {
        alice
            .seen()
            .into_iter()
            .find(|s| s.room == dm_id && s.sender == *bot_id && s.body().contains("Good day"))
    })
    .await;
    assert!(
        digest.body().contains("1 game awaits your move"),
        "{}",
        digest.body()
    );
    assert!(
        digest.body().contains("Game #1 (Chak) against"),
        "{}",
        digest.body()
    );
    bot.stop().await;
}
