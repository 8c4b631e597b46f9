//! A fake Discord on loopback for an unmodified serenity client: an HTTP API that records
//! every request (method, path, JSON body, attached files) and answers with Discord-shaped
//! JSON, and a gateway that says HELLO, answers IDENTIFY with READY and then sends the
//! events a test injects.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, broadcast, mpsc};
use tokio_tungstenite::tungstenite::Message as Frame;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

/// The bot's application (and user) id.
pub const APP: u64 = 1_000;
/// The server the tests play in.
pub const GUILD: u64 = 2_000;
/// The channel the tests start in.
pub const CHANNEL: u64 = 3_000;
/// The bot's own role in the server (its integration's, managed by Discord).
pub const BOT_ROLE: u64 = 4_000;
/// The bot's name.
pub const BOT_NAME: &str = "Pigeon";
/// A user's direct-message channel with the bot is this plus their id.
pub const DM_CHANNELS: u64 = 7_000_000;

/// How long a test waits for serenity's next request before it fails (a hang guard, not a
/// speed goal).
const PATIENCE: Duration = Duration::from_secs(60);

/// A file attached to a request.
#[derive(Debug, Clone)]
pub struct File {
    pub name: String,
    pub data: Vec<u8>,
}

/// One HTTP request serenity made.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// The JSON body (or the multipart `payload_json`); `Null` without one.
    pub json: Value,
    pub files: Vec<File>,
}

#[derive(Debug)]
struct Log {
    requests: Vec<Recorded>,
    next_id: u64,
    refusals: Vec<Refusal>,
    /// The gateway intents the application may use (the privileged ones need enabling).
    granted_intents: u64,
    /// The threads opened so far.
    threads: Vec<u64>,
    /// The `shard` of each IDENTIFY, `[number, total]`, in the order they came.
    identified: Vec<Value>,
}

/// Requests refused with a Discord error code.
#[derive(Debug)]
struct Refusal {
    method: String,
    /// A fragment of the path.
    path: String,
    code: u64,
    /// Only requests that attach files (the Attach Files permission).
    with_files: bool,
    /// Only requests whose JSON body sets this field to `true` (such as `locked`).
    setting: Option<String>,
}

impl Default for Log {
    fn default() -> Log {
        Log {
            requests: Vec::new(),
            next_id: 0,
            refusals: Vec::new(),
            granted_intents: u64::MAX,
            threads: Vec::new(),
            identified: Vec::new(),
        }
    }
}

impl Log {
    fn id(&mut self) -> u64 {
        self.next_id += 1;
        9_000 + self.next_id
    }
}

/// The fake Discord.
#[derive(Debug)]
pub struct FakeDiscord {
    /// The HTTP API's base URL, for `HttpBuilder::proxy`.
    pub api: String,
    log: Arc<Mutex<Log>>,
    changed: Arc<Notify>,
    events: mpsc::UnboundedSender<(String, Value)>,
    /// Events for every connected session at once.
    everywhere: broadcast::Sender<(String, Value)>,
    /// How many recorded requests the test has looked past.
    cursor: usize,
}

impl FakeDiscord {
    /// Starts the HTTP API and the gateway on 127.0.0.1.
    pub async fn start() -> FakeDiscord {
        let http = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("an HTTP port");
        let gateway = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a gateway port");
        let api = format!("http://{}", http.local_addr().expect("an address"));
        let ws = format!("ws://{}", gateway.local_addr().expect("an address"));
        let log = Arc::new(Mutex::new(Log::default()));
        let changed = Arc::new(Notify::new());
        let (events, receiver) = mpsc::unbounded_channel();
        let (everywhere, _) = broadcast::channel(1024);
        tokio::spawn(serve_http(http, ws, Arc::clone(&log), Arc::clone(&changed)));
        tokio::spawn(serve_gateway(
            gateway,
            receiver,
            everywhere.clone(),
            Arc::clone(&log),
            Arc::clone(&changed),
        ));
        FakeDiscord {
            api,
            log,
            changed,
            events,
            everywhere,
            cursor: 0,
        }
    }

    /// Sends a gateway event (`INTERACTION_CREATE`, `MESSAGE_CREATE`) to the bot, after
    /// checking that serenity reads it.
    pub fn dispatch(&self, kind: &str, data: Value) {
        check_readable(kind, &data);
        self.events
            .send((kind.to_owned(), data))
            .expect("the gateway runs");
    }

    /// Sends a gateway event to every connected session, as Discord does when two processes
    /// run the same shard: each receives its own copy.
    pub fn dispatch_everywhere(&self, kind: &str, data: Value) {
        check_readable(kind, &data);
        self.everywhere
            .send((kind.to_owned(), data))
            .expect("sessions are connected");
    }

    /// From now on, refuses requests with this method whose path contains `path`, with a
    /// Discord error code (50013 missing permissions, 50007 no direct messages).
    pub fn refuse(&self, method: &str, path: &str, code: u64) {
        self.refusal(method, path, code, false);
    }

    /// From now on, refuses requests like [`FakeDiscord::refuse`] when they attach files.
    pub fn refuse_files(&self, method: &str, path: &str, code: u64) {
        self.refusal(method, path, code, true);
    }

    /// From now on, refuses requests like [`FakeDiscord::refuse`] when their JSON body sets
    /// `field` to `true` (locking a thread needs Manage Threads).
    pub fn refuse_setting(&self, method: &str, path: &str, code: u64, field: &str) {
        let mut log = self.log.lock().expect("the log");
        log.refusals.push(Refusal {
            method: method.to_owned(),
            path: path.to_owned(),
            code,
            with_files: false,
            setting: Some(field.to_owned()),
        });
    }

    fn refusal(&self, method: &str, path: &str, code: u64, with_files: bool) {
        let mut log = self.log.lock().expect("the log");
        log.refusals.push(Refusal {
            method: method.to_owned(),
            path: path.to_owned(),
            code,
            with_files,
            setting: None,
        });
    }

    /// From now on, the gateway closes with 4014 (disallowed intents) when the bot identifies
    /// with an intent outside `intents`.
    pub fn grant_intents(&self, intents: u64) {
        self.log.lock().expect("the log").granted_intents = intents;
    }

    /// The next request (after those already looked at) with this method whose path
    /// contains `path`; the requests in between are skipped.
    pub async fn next(&mut self, method: &str, path: &str) -> Recorded {
        let wait = async {
            loop {
                let notified = self.changed.notified();
                {
                    let log = self.log.lock().expect("the log");
                    let found = log.requests[self.cursor..]
                        .iter()
                        .position(|r| r.method == method && r.path.contains(path));
                    if let Some(at) = found {
                        let request = log.requests[self.cursor + at].clone();
                        self.cursor += at + 1;
                        return request;
                    }
                }
                notified.await;
            }
        };
        match tokio::time::timeout(PATIENCE, wait).await {
            Ok(request) => request,
            Err(_) => panic!(
                "no {method} {path} came; requests so far:\n{}",
                self.summary()
            ),
        }
    }

    /// The `shard` (`[number, total]`) of each IDENTIFY, once `count` of them came.
    pub async fn identified(&self, count: usize) -> Vec<Value> {
        let wait = async {
            loop {
                let notified = self.changed.notified();
                {
                    let log = self.log.lock().expect("the log");
                    if log.identified.len() >= count {
                        return log.identified.clone();
                    }
                }
                notified.await;
            }
        };
        tokio::time::timeout(PATIENCE, wait)
            .await
            .unwrap_or_else(|_| panic!("{count} shards did not identify"))
    }

    /// Every request so far, looked at or not, with this method whose path contains `path`.
    pub fn all(&self, method: &str, path: &str) -> Vec<Recorded> {
        let log = self.log.lock().expect("the log");
        log.requests
            .iter()
            .filter(|r| r.method == method && r.path.contains(path))
            .cloned()
            .collect()
    }

    /// Every request so far, one line each.
    pub fn summary(&self) -> String {
        let log = self.log.lock().expect("the log");
        log.requests
            .iter()
            .map(|r| {
                let json = r.json.to_string();
                let json: String = json.chars().take(300).collect();
                format!("{} {} {json}", r.method, r.path)
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

async fn serve_http(listener: TcpListener, ws: String, log: Arc<Mutex<Log>>, changed: Arc<Notify>) {
    while let Ok((stream, _)) = listener.accept().await {
        let (log, changed, ws) = (Arc::clone(&log), Arc::clone(&changed), ws.clone());
        tokio::spawn(async move {
            let _ = connection(stream, &ws, &log, &changed).await;
        });
    }
}

/// Serves the requests of one keep-alive connection.
async fn connection(
    stream: TcpStream,
    ws: &str,
    log: &Mutex<Log>,
    changed: &Notify,
) -> std::io::Result<()> {
    let mut stream = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if stream.read_line(&mut line).await? == 0 {
            return Ok(());
        }
        let mut words = line.split_whitespace();
        let method = words.next().unwrap_or_default().to_owned();
        let path = words.next().unwrap_or_default().to_owned();
        let mut length = 0;
        let mut chunked = false;
        let mut content_type = String::new();
        loop {
            let mut header = String::new();
            stream.read_line(&mut header).await?;
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            let (name, value) = header.split_once(':').unwrap_or((header, ""));
            let value = value.trim();
            match name.to_ascii_lowercase().as_str() {
                "content-length" => length = value.parse().unwrap_or(0),
                "transfer-encoding" => chunked = value.eq_ignore_ascii_case("chunked"),
                "content-type" => content_type = value.to_owned(),
                _ => {}
            }
        }
        let body = if chunked {
            read_chunked(&mut stream).await?
        } else {
            let mut body = vec![0; length];
            stream.read_exact(&mut body).await?;
            body
        };
        let (json, files) = decode_body(&content_type, &body);
        let (status, answer) = {
            let mut log = log.lock().expect("the log");
            let answer = respond(&mut log, &method, &path, &json, !files.is_empty(), ws);
            log.requests.push(Recorded {
                method,
                path,
                json,
                files,
            });
            answer
        };
        changed.notify_waiters();
        let body = answer.map(|v| v.to_string()).unwrap_or_default();
        let reason = match status {
            204 => "No Content",
            403 => "Forbidden",
            404 => "Not Found",
            _ => "OK",
        };
        let head = format!(
            "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
            body.len()
        );
        let stream = stream.get_mut();
        stream.write_all(head.as_bytes()).await?;
        stream.write_all(body.as_bytes()).await?;
        stream.flush().await?;
    }
}

async fn read_chunked(stream: &mut BufReader<TcpStream>) -> std::io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let mut size = String::new();
        stream.read_line(&mut size).await?;
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        let mut chunk = vec![0; size + 2];
        stream.read_exact(&mut chunk).await?;
        if size == 0 {
            return Ok(body);
        }
        body.extend_from_slice(&chunk[..size]);
    }
}

/// The JSON of a body, and its files when it is multipart.
fn decode_body(content_type: &str, body: &[u8]) -> (Value, Vec<File>) {
    let Some(boundary) = content_type.split("boundary=").nth(1) else {
        return (
            serde_json::from_slice(body).unwrap_or(Value::Null),
            Vec::new(),
        );
    };
    let boundary = format!("--{}", boundary.trim_matches('"'));
    let mut json = Value::Null;
    let mut files = Vec::new();
    for part in split(body, boundary.as_bytes()).into_iter().skip(1) {
        let Some(end) = find(part, b"\r\n\r\n") else {
            continue;
        };
        let head = String::from_utf8_lossy(&part[..end]).to_string();
        let data = part[end + 4..]
            .strip_suffix(b"\r\n")
            .unwrap_or(&part[end + 4..]);
        let field = |key: &str| {
            head.split(&format!("{key}=\""))
                .nth(1)
                .and_then(|rest| rest.split('"').next())
                .map(str::to_owned)
        };
        match (field("name").as_deref(), field("filename")) {
            (Some("payload_json"), _) => json = serde_json::from_slice(data).unwrap_or(Value::Null),
            (_, Some(name)) => files.push(File {
                name,
                data: data.to_vec(),
            }),
            _ => {}
        }
    }
    (json, files)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn split<'a>(mut body: &'a [u8], separator: &[u8]) -> Vec<&'a [u8]> {
    let mut parts = Vec::new();
    while let Some(at) = find(body, separator) {
        parts.push(&body[..at]);
        body = &body[at + separator.len()..];
    }
    parts.push(body);
    parts
}

/// Discord's answer to a request.
fn respond(
    log: &mut Log,
    method: &str,
    path: &str,
    json: &Value,
    has_files: bool,
    ws: &str,
) -> (u16, Option<Value>) {
    let refused = log.refusals.iter().find(|r| {
        r.method == method
            && path.contains(r.path.as_str())
            && (has_files || !r.with_files)
            && r.setting.as_ref().is_none_or(|field| json[field] == true)
    });
    if let Some(Refusal { code, .. }) = refused {
        let message = match code {
            50007 => "Cannot send messages to this user",
            50001 => "Missing Access",
            _ => "Missing Permissions",
        };
        return (403, Some(json!({ "message": message, "code": code })));
    }
    let path = path.split('?').next().unwrap_or(path);
    let segments: Vec<&str> = path.trim_start_matches("/api/v10/").split('/').collect();
    match (method, segments.as_slice()) {
        ("GET", ["gateway"]) => (200, Some(json!({ "url": ws }))),
        ("GET", ["gateway", "bot"]) => (
            200,
            Some(json!({
                "url": ws,
                "shards": 1,
                "session_start_limit": {"total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 1}
            })),
        ),
        ("PUT", ["applications", ..]) => (200, Some(json!([]))),
        ("POST", ["interactions", _, _, "callback"])
        | ("DELETE", ["webhooks", _, _, "messages", _]) => (204, None),
        ("PATCH" | "POST", ["webhooks", ..]) => {
            let id = log.id();
            (
                200,
                Some(message(id, CHANNEL, APP, BOT_NAME, text_of(json))),
            )
        }
        ("POST", ["channels", channel, "messages", _, "threads"]) => {
            let id = log.id();
            log.threads.push(id);
            let name = json["name"].as_str().unwrap_or("thread");
            (200, Some(channel_object(id, Some(channel), name)))
        }
        ("PATCH", ["channels", channel, "messages", message]) => {
            let id = message.parse().unwrap_or(0);
            let channel = channel.parse().unwrap_or(CHANNEL);
            (
                200,
                Some(self::message(id, channel, APP, BOT_NAME, text_of(json))),
            )
        }
        ("PATCH", ["channels", channel]) => {
            let id = channel.parse().unwrap_or(CHANNEL);
            let mut thread = channel_object(id, Some(&CHANNEL.to_string()), "a thread");
            for field in ["archived", "locked"] {
                if let Some(value) = json.get(field) {
                    thread["thread_metadata"][field] = value.clone();
                }
            }
            (200, Some(thread))
        }
        ("GET", ["guilds", _, "roles"]) => (
            200,
            Some(json!([
                role(GUILD, "@everyone", None),
                role(BOT_ROLE, BOT_NAME, Some(APP)),
                role(BOT_ROLE + 1, "Players", None),
            ])),
        ),
        ("GET", ["channels", channel]) => {
            let id = channel.parse().unwrap_or(CHANNEL);
            let parent = log.threads.contains(&id).then_some(CHANNEL.to_string());
            (
                200,
                Some(channel_object(id, parent.as_deref(), "a channel")),
            )
        }
        ("POST", ["channels", channel, "messages"]) => {
            let id = log.id();
            let channel = channel.parse().unwrap_or(CHANNEL);
            (
                200,
                Some(message(id, channel, APP, BOT_NAME, text_of(json))),
            )
        }
        ("POST", ["users", "@me", "channels"]) => {
            let recipient = json["recipient_id"]
                .as_str()
                .and_then(|s| s.parse().ok())
                .unwrap_or(1);
            (
                200,
                Some(json!({
                    "id": (DM_CHANNELS + recipient).to_string(),
                    "type": 1,
                    "recipients": [user(recipient, "someone")]
                })),
            )
        }
        _ => (404, Some(json!({ "message": "Unknown route", "code": 0 }))),
    }
}

/// A server's text channel, or a thread when it has a parent channel.
fn channel_object(id: u64, parent: Option<&str>, name: &str) -> Value {
    let mut channel = json!({
        "id": id.to_string(),
        "type": 0,
        "guild_id": GUILD.to_string(),
        "name": name,
        "position": 0,
        "permission_overwrites": [],
        "nsfw": false,
    });
    if let Some(parent) = parent {
        channel["type"] = json!(11);
        channel["parent_id"] = json!(parent);
        channel["owner_id"] = json!(APP.to_string());
        channel["thread_metadata"] = json!({
            "archived": false, "auto_archive_duration": 10080,
            "archive_timestamp": "2026-01-01T09:00:00.000000+00:00", "locked": false
        });
    }
    channel
}

/// A server role; a bot's own role is tagged with its id.
fn role(id: u64, name: &str, bot: Option<u64>) -> Value {
    let mut role = json!({
        "id": id.to_string(),
        "name": name,
        "color": 0,
        "colors": { "primary_color": 0, "secondary_color": null, "tertiary_color": null },
        "hoist": false,
        "position": 1,
        "permissions": "0",
        "managed": bot.is_some(),
        "mentionable": true,
        "flags": 0,
    });
    if let Some(bot) = bot {
        role["tags"] = json!({ "bot_id": bot.to_string() });
    }
    role
}

fn text_of(json: &Value) -> &str {
    json["content"].as_str().unwrap_or_default()
}

/// A Discord user object.
pub fn user(id: u64, name: &str) -> Value {
    json!({
        "id": id.to_string(),
        "username": name,
        "discriminator": "0",
        "global_name": null,
        "avatar": null,
        "bot": id == APP,
    })
}

/// A guild member object.
pub fn member(id: u64, name: &str) -> Value {
    json!({
        "user": user(id, name),
        "roles": [],
        "joined_at": "2026-01-01T09:00:00.000000+00:00",
        "deaf": false,
        "mute": false,
        "flags": 0,
    })
}

/// A message object.
pub fn message(id: u64, channel: u64, author: u64, name: &str, content: &str) -> Value {
    json!({
        "id": id.to_string(),
        "channel_id": channel.to_string(),
        "guild_id": GUILD.to_string(),
        "author": user(author, name),
        "content": content,
        "timestamp": "2026-01-01T09:00:00.000000+00:00",
        "edited_timestamp": null,
        "tts": false,
        "mention_everyone": false,
        "mentions": [],
        "mention_roles": [],
        "attachments": [],
        "embeds": [],
        "pinned": false,
        "type": 0,
    })
}

/// Panics unless serenity reads `data` as the event `kind`.
fn check_readable(kind: &str, data: &Value) {
    let checked = match kind {
        "INTERACTION_CREATE" => {
            serde_json::from_value::<serenity::all::Interaction>(data.clone()).map(|_| ())
        }
        "MESSAGE_CREATE" => {
            serde_json::from_value::<serenity::all::Message>(data.clone()).map(|_| ())
        }
        _ => Ok(()),
    };
    if let Err(error) = checked {
        panic!("serenity cannot read this {kind}: {error}\n{data:#}");
    }
}

async fn serve_gateway(
    listener: TcpListener,
    events: mpsc::UnboundedReceiver<(String, Value)>,
    everywhere: broadcast::Sender<(String, Value)>,
    log: Arc<Mutex<Log>>,
    changed: Arc<Notify>,
) {
    let events = Arc::new(tokio::sync::Mutex::new(events));
    while let Ok((stream, _)) = listener.accept().await {
        let (events, log, changed) = (Arc::clone(&events), Arc::clone(&log), Arc::clone(&changed));
        let everywhere = everywhere.subscribe();
        tokio::spawn(async move {
            let _ = session(stream, &events, everywhere, &log, &changed).await;
        });
    }
}

/// One gateway connection: HELLO, READY after IDENTIFY (or a close with 4014 when it asks
/// for an intent not granted), heartbeat ACKs, then the events.
async fn session(
    stream: TcpStream,
    events: &tokio::sync::Mutex<mpsc::UnboundedReceiver<(String, Value)>>,
    mut everywhere: broadcast::Receiver<(String, Value)>,
    log: &Mutex<Log>,
    changed: &Notify,
) -> Result<(), tokio_tungstenite::tungstenite::Error> {
    let mut ws = tokio_tungstenite::accept_async(stream).await?;
    let hello = json!({ "op": 10, "d": { "heartbeat_interval": 41_250 }, "s": null, "t": null });
    ws.send(Frame::text(hello.to_string())).await?;
    let mut sequence = 0;
    loop {
        tokio::select! {
            frame = ws.next() => {
                let Some(frame) = frame else { return Ok(()) };
                let Frame::Text(text) = frame? else { continue };
                let payload: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
                match payload["op"].as_u64() {
                    Some(1) => {
                        ws.send(Frame::text(json!({ "op": 11, "d": null }).to_string())).await?;
                    }
                    Some(2) => {
                        let granted = {
                            let mut log = log.lock().expect("the log");
                            log.identified.push(payload["d"]["shard"].clone());
                            log.granted_intents
                        };
                        changed.notify_waiters();
                        let asked = payload["d"]["intents"].as_u64().unwrap_or(0);
                        if asked & !granted != 0 {
                            let close = CloseFrame {
                                code: CloseCode::from(4014),
                                reason: "Disallowed intent(s).".into(),
                            };
                            ws.send(Frame::Close(Some(close))).await?;
                            return Ok(());
                        }
                        sequence += 1;
                        let ready = json!({
                            "op": 0, "s": sequence, "t": "READY",
                            "d": {
                                "v": 10,
                                "user": user(APP, BOT_NAME),
                                "guilds": [{ "id": GUILD.to_string(), "unavailable": true }],
                                "session_id": "fake-session",
                                "shard": payload["d"]["shard"],
                                "resume_gateway_url": "ws://127.0.0.1:1",
                                "application": { "id": APP.to_string(), "flags": 0 },
                            }
                        });
                        ws.send(Frame::text(ready.to_string())).await?;
                    }
                    _ => {}
                }
            }
            // Each shard's session waits for the next event; the lock is held only while waiting.
            event = async { events.lock().await.recv().await } => {
                let Some((kind, data)) = event else { return Ok(()) };
                sequence += 1;
                let payload = json!({ "op": 0, "s": sequence, "t": kind, "d": data });
                ws.send(Frame::text(payload.to_string())).await?;
            }
            event = everywhere.recv() => {
                let (kind, data) = match event {
                    Ok(event) => event,
                    Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => return Ok(()),
                };
                sequence += 1;
                let payload = json!({ "op": 0, "s": sequence, "t": kind, "d": data });
                ws.send(Frame::text(payload.to_string())).await?;
            }
        }
    }
}
