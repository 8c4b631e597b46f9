//! The Discord bot: an unmodified serenity client against a fake Discord on loopback. The
//! tests inject gateway events shaped like Discord's and assert on the HTTP requests serenity
//! makes: response types, contents, buttons, ephemeral flags, threads and board pictures.

mod fake;
mod options;
mod processes;
mod tournaments;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use pigeon::adapters::discord::{self, DiscordConfig};
use pigeon::config::Secret;
use pigeon::service::{DAY, HOUR, ManualClock, Service};
use serde_json::{Value, json};
use tokio::sync::watch;

use crate::common::{Backend, TestDb, gif_frames};
use crate::transcripts::{START, open};
use fake::{APP, BOT_ROLE, CHANNEL, DM_CHANNELS, FakeDiscord, GUILD, Recorded, member, message};

const ALICE: u64 = 101;
const BOB: u64 = 102;
const CAROL: u64 = 103;
/// A group message between people, where only they installed the bot (it is not there).
const GROUP: u64 = 6_000;

/// The interaction response types Discord defines.
const MESSAGE: u64 = 4;
const DEFERRED: u64 = 5;
const UPDATE_MESSAGE: u64 = 7;
const AUTOCOMPLETE: u64 = 8;
/// The gateway intent that lets a bot read what people type.
const MESSAGE_CONTENT: u64 = 1 << 15;
/// The message flag of an answer only the asker sees.
const EPHEMERAL: u64 = 64;

fn name(id: u64) -> &'static str {
    match id {
        ALICE => "alice",
        BOB => "bob",
        APP => fake::BOT_NAME,
        _ => "carol",
    }
}

/// A fake Discord and a service on a database in a temporary folder (kept while the
/// folder lives), with logs shown for failing tests.
async fn parts() -> (TestDb, ManualClock, Service, FakeDiscord) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_test_writer()
        .try_init();
    // The adapter's tests are about Discord; the store's backends are tested elsewhere.
    let db = TestDb::new(Backend::Sqlite).await;
    let clock = ManualClock::new(START);
    let service = open(&db, &clock).await;
    let fake = FakeDiscord::start().await;
    (db, clock, service, fake)
}

/// The bot's configuration for a fake Discord.
fn config(fake: &FakeDiscord) -> DiscordConfig {
    DiscordConfig {
        guild_id: Some(GUILD),
        message_content: true,
        api_base: Some(fake.api.clone()),
        ..DiscordConfig::new(Secret::new("fake-token"))
    }
}

/// A bot connected to a fake Discord, with the database in a temporary folder.
struct Bot {
    chat: Chat,
    service: Service,
    clock: ManualClock,
    stop: watch::Sender<bool>,
    task: tokio::task::JoinHandle<Result<(), discord::DiscordError>>,
    _db: TestDb,
}

impl std::ops::Deref for Bot {
    type Target = Chat;

    fn deref(&self) -> &Chat {
        &self.chat
    }
}

impl std::ops::DerefMut for Bot {
    fn deref_mut(&mut self) -> &mut Chat {
        &mut self.chat
    }
}

/// People on the fake Discord: the interactions and messages it delivers for them, and the
/// requests the bot makes in answer.
struct Chat {
    fake: FakeDiscord,
    ids: AtomicU64,
}

impl Bot {
    async fn start() -> Bot {
        Bot::ticking(Duration::from_secs(3600)).await
    }

    /// A bot that looks at the clocks every `tick`.
    async fn ticking(tick: Duration) -> Bot {
        Bot::configured(|config| DiscordConfig { tick, ..config }).await
    }

    /// A bot with its configuration for the fake Discord changed by `change`.
    async fn configured(change: impl FnOnce(DiscordConfig) -> DiscordConfig) -> Bot {
        let (dir, clock, service, fake) = parts().await;
        let config = change(DiscordConfig {
            tick: Duration::from_secs(3600),
            ..config(&fake)
        });
        let (stop, shutdown) = watch::channel(false);
        let task = tokio::spawn(discord::run(service.clone(), config, shutdown));
        let mut chat = Chat::new(fake);
        chat.registered().await;
        Bot {
            chat,
            service,
            clock,
            stop,
            task,
            _db: dir,
        }
    }

    async fn stop(self) {
        self.stop.send(true).expect("the bot listens");
        self.task
            .await
            .expect("the bot task ends")
            .expect("the bot stops cleanly");
    }
}

impl Chat {
    fn new(fake: FakeDiscord) -> Chat {
        Chat {
            fake,
            ids: AtomicU64::new(50_000),
        }
    }

    /// Waits until the bot registers its slash commands in the test server.
    async fn registered(&mut self) {
        let registered = self
            .fake
            .next(
                "PUT",
                &format!("/applications/{APP}/guilds/{GUILD}/commands"),
            )
            .await;
        let names: Vec<&str> = registered
            .json
            .as_array()
            .expect("a list of commands")
            .iter()
            .filter_map(|c| c["name"].as_str())
            .collect();
        for command in [
            "challenge",
            "accept",
            "move",
            "draw",
            "resign",
            "moves",
            "help",
        ] {
            assert!(
                names.contains(&command),
                "/{command} is not registered: {names:?}"
            );
        }
    }

    fn id(&self) -> u64 {
        self.ids.fetch_add(1, Ordering::Relaxed)
    }

    /// An interaction by `user` in `channel`: a server's channel or thread, or `user`'s
    /// direct messages with the bot (`DM_CHANNELS + user`), where Discord names no server and
    /// sends the user without a member.
    fn interaction(&self, kind: u64, user: u64, channel: u64, data: Value) -> (u64, Value) {
        let id = self.id();
        let mut interaction = json!({
            "id": id.to_string(),
            "application_id": APP.to_string(),
            "type": kind,
            "channel_id": channel.to_string(),
            "token": format!("token-{id}"),
            "version": 1,
            "app_permissions": "0",
            "locale": "en-US",
            "guild_locale": "en-US",
            "entitlements": [],
            "attachment_size_limit": 10_485_760,
        });
        if channel == GROUP {
            interaction["user"] = fake::user(user, name(user));
            interaction["context"] = json!(2);
            interaction["authorizing_integration_owners"] = json!({ "1": user.to_string() });
        } else if channel == DM_CHANNELS + user {
            interaction["user"] = fake::user(user, name(user));
            interaction["context"] = json!(1);
        } else {
            interaction["guild_id"] = json!(GUILD.to_string());
            interaction["member"] = member(user, name(user));
        }
        interaction["data"] = data;
        (id, interaction)
    }

    /// A slash command; returns the interaction's token.
    fn slash(&self, user: u64, channel: u64, command: &str, options: Value) -> String {
        self.command(2, user, channel, command, options)
    }

    fn command(&self, kind: u64, user: u64, channel: u64, command: &str, options: Value) -> String {
        let mut users = serde_json::Map::new();
        for option in options.as_array().into_iter().flatten() {
            if option["type"] == 6 {
                let id: u64 = option["value"]
                    .as_str()
                    .and_then(|s| s.parse().ok())
                    .expect("a user id");
                users.insert(id.to_string(), fake::user(id, name(id)));
            }
        }
        let data = json!({
            "id": "777",
            "name": command,
            "type": 1,
            "resolved": { "users": users },
        });
        let mut data = data;
        data["options"] = options;
        let (id, interaction) = self.interaction(kind, user, channel, data);
        self.fake.dispatch("INTERACTION_CREATE", interaction);
        format!("{id}/token-{id}")
    }

    /// `from` challenges `to` to Chak as White with `/challenge`; the public answer.
    async fn challenge(&mut self, from: u64, to: u64) -> Recorded {
        let options = json!([
            option("opponent", 6, json!(to.to_string())),
            option("variant", 3, json!("chak")),
            option("colour", 3, json!("white")),
        ]);
        let asked = self.slash(from, CHANNEL, "challenge", options);
        self.answer(&asked).await
    }

    /// `user` offers a draw with `/draw`; the public answer.
    async fn offer_draw(&mut self, user: u64, channel: u64) -> Recorded {
        let options = json!([option("action", 3, json!("offer"))]);
        let asked = self.slash(user, channel, "draw", options);
        self.answer(&asked).await
    }

    /// A button press on a message of the bot; returns the interaction's token.
    fn press(&self, user: u64, channel: u64, on: u64, custom_id: &str) -> String {
        let data = json!({ "custom_id": custom_id, "component_type": 2 });
        let (id, mut interaction) = self.interaction(3, user, channel, data);
        interaction["message"] =
            message(on, channel, APP, fake::BOT_NAME, "a message with buttons");
        self.fake.dispatch("INTERACTION_CREATE", interaction);
        format!("{id}/token-{id}")
    }

    /// A message typed by `user`.
    fn say(&self, user: u64, channel: u64, text: &str) {
        self.say_to(user, channel, text, &[]);
    }

    /// A message typed by `user` that mentions `mentioned`.
    fn say_to(&self, user: u64, channel: u64, text: &str, mentioned: &[u64]) {
        let mut typed = message(self.id(), channel, user, name(user), text);
        typed["mentions"] = mentioned
            .iter()
            .map(|id| {
                let who = if *id == APP {
                    fake::BOT_NAME
                } else {
                    name(*id)
                };
                fake::user(*id, who)
            })
            .collect();
        typed["member"] = json!({ "roles": [], "joined_at": "2026-01-01T09:00:00.000000+00:00", "deaf": false, "mute": false, "flags": 0 });
        self.fake.dispatch("MESSAGE_CREATE", typed);
    }

    /// The acknowledgement of an interaction: its response type and flags.
    async fn acknowledged(&mut self, token: &str) -> (u64, u64) {
        let callback = self.callback(token).await;
        (
            callback.json["type"].as_u64().expect("a response type"),
            callback.json["data"]["flags"].as_u64().unwrap_or(0),
        )
    }

    /// The response to an interaction (`id/token`).
    async fn callback(&mut self, token: &str) -> Recorded {
        let (id, token) = token.split_once('/').expect("id/token");
        self.fake
            .next("POST", &format!("/interactions/{id}/{token}/callback"))
            .await
    }

    /// A public answer: deferred, then edited in.
    async fn answer(&mut self, token: &str) -> Recorded {
        assert_eq!(self.acknowledged(token).await, (DEFERRED, 0));
        self.edited(token).await
    }

    /// The deferred answer, edited in.
    async fn edited(&mut self, token: &str) -> Recorded {
        let token = token.split_once('/').expect("id/token").1;
        self.fake
            .next(
                "PATCH",
                &format!("/webhooks/{APP}/{token}/messages/@original"),
            )
            .await
    }

    /// A follow-up to an interaction.
    async fn followup(&mut self, token: &str) -> Recorded {
        let token = token.split_once('/').expect("id/token").1;
        self.fake
            .next("POST", &format!("/webhooks/{APP}/{token}"))
            .await
    }

    /// A private command's answer: deferred ephemerally, then edited in.
    async fn private(
        &mut self,
        user: u64,
        channel: u64,
        command: &str,
        options: Value,
    ) -> Recorded {
        let asked = self.slash(user, channel, command, options);
        assert_eq!(self.acknowledged(&asked).await, (DEFERRED, EPHEMERAL));
        self.edited(&asked).await
    }

    /// A private answer to a public command: the deferred answer is deleted and an
    /// ephemeral follow-up says why.
    async fn private_error(&mut self, token: &str) -> String {
        assert_eq!(self.acknowledged(token).await, (DEFERRED, 0));
        let bare = token.split_once('/').expect("id/token").1;
        self.fake
            .next(
                "DELETE",
                &format!("/webhooks/{APP}/{bare}/messages/@original"),
            )
            .await;
        let followup = self.followup(token).await;
        assert_eq!(
            followup.json["flags"].as_u64(),
            Some(EPHEMERAL),
            "{:?}",
            followup.json
        );
        text(&followup)
    }
}

/// Checks that a request's message says `words`.
fn assert_says(request: &Recorded, words: &str) {
    let said = text(request);
    assert!(said.contains(words), "{said:?} does not say {words:?}");
}

/// Checks that a request's message does not say `words`.
fn assert_not_says(request: &Recorded, words: &str) {
    let said = text(request);
    assert!(!said.contains(words), "{said:?} says {words:?}");
}

fn text(request: &Recorded) -> String {
    request.json["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn custom_ids(request: &Recorded) -> Vec<String> {
    request.json["components"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|row| row["components"].as_array().cloned().unwrap_or_default())
        .filter_map(|button| button["custom_id"].as_str().map(str::to_owned))
        .collect()
}

fn option(name: &str, kind: u64, value: Value) -> Value {
    let mut option = json!({ "name": name, "type": kind });
    option["value"] = value;
    option
}

/// The channel a message was sent to.
fn channel_of(request: &Recorded) -> u64 {
    request
        .path
        .split('/')
        .nth(4)
        .and_then(|s| s.parse().ok())
        .expect("a channel id")
}

/// The direct messages sent to `user` so far.
fn dms_to(bot: &Bot, user: u64) -> Vec<Recorded> {
    bot.fake.all(
        "POST",
        &format!("/channels/{}/messages", DM_CHANNELS + user),
    )
}

/// The users a message may ping.
fn pinged(request: &Recorded) -> Value {
    request.json["allowed_mentions"]["users"].clone()
}

/// Checks the attached board picture: one PNG that decodes.
fn assert_board(request: &Recorded) {
    assert_eq!(request.files.len(), 1, "one picture: {:?}", request.json);
    let file = &request.files[0];
    assert!(file.name.ends_with(".png"), "{}", file.name);
    let picture = image::load_from_memory_with_format(&file.data, image::ImageFormat::Png)
        .expect("the board is a PNG");
    assert!(picture.width() > 100 && picture.height() > 100);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_game_through_slash_commands_buttons_and_a_thread() {
    let mut bot = Bot::start().await;

    // alice challenges bob; the answer pings exactly bob and offers accept / decline.
    let challenge = bot.challenge(ALICE, BOB).await;
    assert_says(&challenge, &format!("<@{BOB}>"));
    assert_eq!(
        challenge.json["allowed_mentions"]["users"],
        json!([BOB.to_string()])
    );
    assert_eq!(custom_ids(&challenge), ["accept 1", "decline 1"]);

    // carol presses bob's accept button: an ephemeral explanation, no game.
    let pressed = bot.press(CAROL, CHANNEL, 8_001, "accept 1");
    let refusal = bot.private_error(&pressed).await;
    assert!(refusal.contains("is for bob, not for you"), "{refusal}");

    // bob accepts by button: the board, then a thread from the challenge's message.
    let pressed = bot.press(BOB, CHANNEL, 8_001, "accept 1");
    let start = bot.answer(&pressed).await;
    assert_says(&start, "Game #1 (Chak) starts");
    assert_board(&start);
    assert_eq!(
        custom_ids(&start),
        ["moves #1", "draw #1 offer", "resign #1", "give time #1"]
    );
    let thread = bot
        .fake
        .next(
            "POST",
            &format!("/channels/{CHANNEL}/messages/8001/threads"),
        )
        .await;
    assert_eq!(thread.json["name"], "Chak · alice vs bob · #1");
    let welcome = bot.fake.next("POST", "/messages").await;
    let thread_id: u64 = channel_of(&welcome);
    assert!(text(&welcome).contains("type your moves in this thread"));

    // In the thread, alice completes a move: at most 25 legal moves containing what she typed.
    let typed = bot.command(
        4,
        ALICE,
        thread_id,
        "move",
        json!([
            { "name": "move", "type": 3, "value": "e3", "focused": true },
        ]),
    );
    let choices = bot.callback(&typed).await;
    assert_eq!(choices.json["type"].as_u64(), Some(AUTOCOMPLETE));
    let choices: Vec<String> = choices.json["data"]["choices"]
        .as_array()
        .expect("choices")
        .iter()
        .map(|c| c["value"].as_str().expect("a move").to_owned())
        .collect();
    assert!(!choices.is_empty() && choices.len() <= 25, "{choices:?}");
    assert!(
        choices.iter().all(|c| c.to_lowercase().contains("e3")),
        "{choices:?}"
    );
    let everything = bot.command(
        4,
        ALICE,
        thread_id,
        "move",
        json!([
            { "name": "move", "type": 3, "value": "", "focused": true },
        ]),
    );
    let all = bot.callback(&everything).await;
    assert_eq!(
        all.json["data"]["choices"].as_array().map(Vec::len),
        Some(25)
    );

    // She plays the completed move with /move: the board in the thread, and bob is told it
    // is his move by direct message, with a link to the thread, rather than pinged there.
    let played = bot.slash(
        ALICE,
        thread_id,
        "move",
        json!([option("move", 3, json!(choices[0]))]),
    );
    let moved = bot.answer(&played).await;
    assert_says(&moved, &format!("alice played {}", choices[0]));
    assert_says(&moved, &format!("<@{BOB}>, your move"));
    assert_eq!(moved.json["allowed_mentions"]["users"], json!([]));
    assert_board(&moved);
    let told = dms_to(&bot, BOB);
    assert_eq!(told.len(), 1, "{}", bot.fake.summary());
    assert_says(&told[0], &format!("alice played {}", choices[0]));
    assert_says(
        &told[0],
        &format!("https://discord.com/channels/{GUILD}/{thread_id}"),
    );
    assert_eq!(told[0].json["allowed_mentions"]["users"], json!([]));

    // bob types his move in the thread: a message with the board.
    bot.say(BOB, thread_id, "e7e6");
    let reply = bot
        .fake
        .next("POST", &format!("/channels/{thread_id}/messages"))
        .await;
    assert_says(&reply, "bob played e6 in game #1");
    assert_says(&reply, &format!("<@{ALICE}>"));
    assert_board(&reply);

    // alice offers a draw; carol cannot answer it, bob declines by button.
    let offer = bot.offer_draw(ALICE, thread_id).await;
    assert_says(&offer, "offers a draw in game #1");
    assert_eq!(custom_ids(&offer), ["draw #1 accept", "draw #1 decline"]);
    let pressed = bot.press(CAROL, thread_id, 8_002, "draw #1 accept");
    let refusal = bot.private_error(&pressed).await;
    assert!(refusal.contains("not playing in game #1"), "{refusal}");
    let pressed = bot.press(BOB, thread_id, 8_002, "draw #1 decline");
    let declined = bot.answer(&pressed).await;
    assert_says(&declined, "declined the draw offer");

    // bob resigns: first an ephemeral question, then the confirmation ends the game.
    let asked = bot.slash(BOB, thread_id, "resign", json!([]));
    let question = bot.callback(&asked).await;
    assert_eq!(question.json["type"].as_u64(), Some(MESSAGE));
    assert_eq!(question.json["data"]["flags"].as_u64(), Some(EPHEMERAL));
    let buttons: Vec<String> = question.json["data"]["components"][0]["components"]
        .as_array()
        .expect("buttons")
        .iter()
        .filter_map(|b| b["custom_id"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(buttons, ["confirm:resign", "dismiss"]);
    assert_eq!(
        bot.service.load(1).await.expect("the game").row.status,
        "active"
    );
    let pressed = bot.press(BOB, thread_id, 8_003, "confirm:resign");
    let resigned = bot.answer(&pressed).await;
    assert_says(&resigned, "bob resigned game #1");
    assert_says(&resigned, "1-0");
    assert_eq!(custom_ids(&resigned), ["rematch #1", "gif #1"]);

    // A move for the finished game is answered privately; autocomplete offers nothing.
    let late = bot.slash(
        ALICE,
        thread_id,
        "move",
        json!([
            option("move", 3, json!("d3d4")),
            option("game", 4, json!(1)),
        ]),
    );
    let error = bot.private_error(&late).await;
    assert!(error.contains("Game #1 is over"), "{error}");
    let typed = bot.command(
        4,
        ALICE,
        thread_id,
        "move",
        json!([
            { "name": "move", "type": 3, "value": "", "focused": true },
        ]),
    );
    let none = bot.callback(&typed).await;
    assert_eq!(none.json["data"]["choices"], json!([]));

    // Private commands are deferred ephemerally.
    let help = bot.private(CAROL, CHANNEL, "help", json!([])).await;
    assert_says(&help, "challenge");

    // alice asks for a rematch by button and bob accepts: the new game stays in the thread.
    let pressed = bot.press(ALICE, thread_id, 8_004, "rematch #1");
    let rematch = bot.answer(&pressed).await;
    assert_says(&rematch, &format!("alice challenges <@{BOB}> to Chak"));
    assert_eq!(custom_ids(&rematch), ["accept 2", "decline 2"]);
    let pressed = bot.press(BOB, thread_id, 8_005, "accept 2");
    assert_says(&bot.answer(&pressed).await, "Game #2 (Chak) starts");
    bot.fake
        .next("GET", &format!("/channels/{thread_id}"))
        .await;
    // A thread, had one been opened, would be asked for before this answer.
    bot.private(CAROL, CHANNEL, "rules", json!([])).await;
    let game = bot.service.load(2).await.expect("the rematch");
    assert_eq!(game.row.channel, thread_id.to_string());
    assert_eq!(bot.fake.all("POST", "/threads").len(), 1);

    bot.stop().await;
}

/// alice challenges bob and bob accepts with `/accept`; the game's thread id.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discord_shards_runs_the_shards_it_names_and_the_first_registers_the_commands() {
    // The whole bot in one process: shard 0 of the one Discord recommends.
    let bot = Bot::start().await;
    assert_eq!(bot.fake.identified(1).await, vec![json!([0, 1])]);
    bot.stop().await;

    // Shards 1 and 2 of 4 in this process; shards 0 and 3 run elsewhere.
    let (_dir, _clock, service, fake) = parts().await;
    let shards = "1-2/4".parse().expect("a shard range");
    let config = DiscordConfig {
        shards: Some(shards),
        ..config(&fake)
    };
    let (stop, shutdown) = watch::channel(false);
    let task = tokio::spawn(discord::run(service, config, shutdown));
    let mut chat = Chat::new(fake);
    assert_eq!(
        chat.fake.identified(2).await,
        vec![json!([1, 4]), json!([2, 4])]
    );
    // Either shard answers what it receives.
    let challenged = chat.challenge(ALICE, BOB).await;
    assert_says(&challenged, &format!("<@{BOB}>"));
    // Shard 0 registers the slash commands; these shards leave them alone.
    assert!(
        chat.fake.all("PUT", "/commands").is_empty(),
        "{}",
        chat.fake.summary()
    );
    stop.send(true).expect("the bot listens");
    task.await
        .expect("the bot task ends")
        .expect("the bot stops cleanly");
}

async fn started(bot: &mut Bot) -> u64 {
    bot.challenge(ALICE, BOB).await;
    let accepted = bot.slash(BOB, CHANNEL, "accept", json!([]));
    let start = bot.answer(&accepted).await;
    assert_says(&start, "starts");
    thread_opened(bot).await
}

/// The id of the thread the bot opens next for a game, once it has welcomed the players there.
async fn thread_opened(bot: &mut Bot) -> u64 {
    bot.fake.next("POST", "/threads").await;
    let welcome = bot.fake.next("POST", "/messages").await;
    channel_of(&welcome)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn missing_permissions_are_named_and_threads_can_be_turned_off() {
    let mut bot = Bot::start().await;
    bot.fake.refuse("POST", "/threads", 50013);
    bot.challenge(ALICE, BOB).await;
    let pressed = bot.press(BOB, CHANNEL, 8_001, "accept 1");
    let start = bot.answer(&pressed).await;
    assert_board(&start);
    bot.fake.next("POST", "/messages/8001/threads").await;
    let problem = bot.followup(&pressed).await;
    assert_says(&problem, "I need the **Create Public Threads** permission");
    assert_says(&problem, "The game goes on in this channel");
    assert_eq!(problem.json["flags"].as_u64().unwrap_or(0) & EPHEMERAL, 0);

    // An admin turns threads off: the next game stays in its channel.
    let off = json!([option("threads", 3, json!("off"))]);
    let answer = bot.private(ALICE, CHANNEL, "threads", off).await;
    assert_says(&answer, "played in their channel");
    bot.challenge(CAROL, ALICE).await;
    let accepted = bot.slash(ALICE, CHANNEL, "accept", json!([]));
    assert_says(&bot.answer(&accepted).await, "Game #2");
    let asked = bot.slash(CAROL, CHANNEL, "help", json!([]));
    bot.edited(&asked).await;
    assert_eq!(
        bot.fake.summary().matches("/threads").count(),
        1,
        "{}",
        bot.fake.summary()
    );
    bot.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reminders_go_by_direct_message_or_else_to_the_thread() {
    let mut bot = Bot::ticking(Duration::from_millis(20)).await;
    let thread = started(&mut bot).await;

    // A day before alice's deadline: a direct message.
    bot.clock.advance(2 * DAY + 60);
    let dm = bot.fake.next("POST", "/users/@me/channels").await;
    assert_eq!(dm.json["recipient_id"], ALICE.to_string());
    let reminder = bot.fake.next("POST", "/messages").await;
    assert_says(&reminder, &format!("Reminder: <@{ALICE}>"));
    assert_says(&reminder, "game #1");

    // alice accepts no direct messages: the last hour's reminder goes to the thread.
    bot.fake.refuse(
        "POST",
        &format!("/channels/{}/messages", DM_CHANNELS + ALICE),
        50007,
    );
    bot.clock.advance(DAY - HOUR);
    let reminder = bot
        .fake
        .next("POST", &format!("/channels/{thread}/messages"))
        .await;
    assert_says(&reminder, &format!("Reminder: <@{ALICE}>"));
    assert_says(&reminder, "59 minutes left");
    bot.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_move_ends_the_game_on_time_and_the_timer_tells_at_once() {
    // The timer would not come round again for an hour.
    let mut bot = Bot::start().await;
    let thread = started(&mut bot).await;
    bot.clock.advance(3 * DAY + 60);
    bot.say(ALICE, thread, "e3e4");
    let said = [
        bot.fake.next("POST", "/messages").await,
        bot.fake.next("POST", "/messages").await,
    ];
    let late = said
        .iter()
        .find(|request| text(request).contains("Too late"))
        .unwrap_or_else(|| panic!("{}", bot.fake.summary()));
    assert_says(late, "2026-01-04 09:00 UTC");
    let timeout = said
        .iter()
        .find(|request| text(request).contains("ran out of time"))
        .unwrap_or_else(|| panic!("{}", bot.fake.summary()));
    assert_eq!(channel_of(timeout), thread);
    assert_says(timeout, "wins by time running out");
    assert_board(timeout);
    bot.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn turn_pings_go_by_direct_message_or_else_to_the_thread() {
    let mut bot = Bot::start().await;
    bot.fake.refuse(
        "POST",
        &format!("/channels/{}/messages", DM_CHANNELS + ALICE),
        50007,
    );
    let thread = started(&mut bot).await;
    let link = format!("https://discord.com/channels/{GUILD}/{thread}");

    // bob takes direct messages: he is told there and not pinged in the thread.
    bot.say(ALICE, thread, "e3e4");
    let moved = bot
        .fake
        .next("POST", &format!("/channels/{thread}/messages"))
        .await;
    assert_says(&moved, &format!("<@{BOB}>, your move"));
    assert_eq!(pinged(&moved), json!([]));
    let told = dms_to(&bot, BOB);
    assert_eq!(told.len(), 1, "{}", bot.fake.summary());
    assert_says(&told[0], "alice played e4 in game #1");
    assert_says(&told[0], &link);

    // alice refuses direct messages: after one refused try she is pinged in the thread,
    // and the bot does not try again on her next turn.
    for (by, typed) in [(BOB, "e7e6"), (ALICE, "c3c4"), (BOB, "c7c6")] {
        bot.say(by, thread, typed);
        let moved = bot
            .fake
            .next("POST", &format!("/channels/{thread}/messages"))
            .await;
        let next = if by == BOB { ALICE } else { BOB };
        assert_says(&moved, &format!("<@{next}>, your move"));
        let expected = if next == ALICE {
            json!([ALICE.to_string()])
        } else {
            json!([])
        };
        assert_eq!(pinged(&moved), expected, "{}", text(&moved));
    }
    // One refused try, when the game started with alice to move.
    assert_eq!(dms_to(&bot, ALICE).len(), 1, "{}", bot.fake.summary());
    assert_eq!(dms_to(&bot, BOB).len(), 2);

    // Against the bot the player is reading already: no direct message, though bob takes them.
    let options = json!([
        option("opponent", 6, json!(APP.to_string())),
        option("variant", 3, json!("chak")),
        option("colour", 3, json!("white")),
        option("level", 4, json!(1)),
    ]);
    let asked = bot.slash(BOB, CHANNEL, "challenge", options);
    let start = bot.answer(&asked).await;
    assert_says(&start, "Game #2 (Chak) starts");
    assert_says(&start, "against me at level 1");
    let second = thread_opened(&mut bot).await;
    let played = bot.slash(
        BOB,
        second,
        "move",
        json!([option("move", 3, json!("e3e4"))]),
    );
    assert_says(&bot.answer(&played).await, "bob played e4 in game #2");
    let answer = bot.followup(&played).await;
    assert_says(&answer, "Pigeon played");
    assert_says(&answer, &format!("<@{BOB}>, your move"));
    assert_board(&answer);
    assert_eq!(dms_to(&bot, BOB).len(), 2, "{}", bot.fake.summary());
    bot.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completions_replays_second_thoughts_and_private_answers() {
    let mut bot = Bot::start().await;
    let thread = started(&mut bot).await;

    // The game option completes to the asker's games that are on.
    let typed = bot.command(
        4,
        ALICE,
        CHANNEL,
        "board",
        json!([{ "name": "game", "type": 4, "value": "", "focused": true }]),
    );
    let choices = bot.callback(&typed).await;
    assert_eq!(choices.json["type"].as_u64(), Some(AUTOCOMPLETE));
    let choices = choices.json["data"]["choices"].as_array().cloned();
    let choices = choices.expect("choices");
    assert_eq!(choices.len(), 1, "{choices:?}");
    assert_eq!(choices[0]["value"], 1);
    let label = choices[0]["name"].as_str().expect("a label");
    assert!(label.contains("#1") && label.contains("Chak"), "{label}");
    let typed = bot.command(
        4,
        CAROL,
        CHANNEL,
        "board",
        json!([{ "name": "game", "type": 4, "value": "", "focused": true }]),
    );
    assert_eq!(
        bot.callback(&typed).await.json["data"]["choices"],
        json!([])
    );

    // Two moves, then /gif: the replay as an animated GIF, a frame a position.
    for (by, typed) in [(ALICE, "e3e4"), (BOB, "e7e6")] {
        bot.say(by, thread, typed);
        bot.fake
            .next("POST", &format!("/channels/{thread}/messages"))
            .await;
    }
    let asked = bot.slash(ALICE, thread, "gif", json!([]));
    let replay = bot.answer(&asked).await;
    assert_eq!(replay.files.len(), 1, "{:?}", replay.json);
    assert_eq!(replay.files[0].name, "game-1.gif");
    assert_eq!(gif_frames(&replay.files[0].data), 3);

    // bob starts to resign and thinks better of it: nothing happens.
    let asked = bot.slash(BOB, thread, "resign", json!([]));
    assert_eq!(bot.acknowledged(&asked).await, (MESSAGE, EPHEMERAL));
    let pressed = bot.press(BOB, thread, 8_004, "dismiss");
    let kept = bot.callback(&pressed).await;
    assert_eq!(kept.json["type"].as_u64(), Some(UPDATE_MESSAGE));
    assert_eq!(kept.json["data"]["content"], "Nothing was done.");
    assert_eq!(kept.json["data"]["components"], json!([]));
    let game = bot.service.load(1).await.expect("the game");
    assert_eq!(game.row.status, "active");

    // Without Attach Files in the thread, the move is still told, and the permission named.
    bot.fake
        .refuse_files("POST", &format!("/channels/{thread}/messages"), 50013);
    bot.say(ALICE, thread, "c3c4");
    let refused = bot
        .fake
        .next("POST", &format!("/channels/{thread}/messages"))
        .await;
    assert_eq!(refused.files.len(), 1);
    let told = bot
        .fake
        .next("POST", &format!("/channels/{thread}/messages"))
        .await;
    assert!(told.files.is_empty());
    assert_says(&told, "alice played c4 in game #1");
    assert_says(&told, "I need the **Attach Files** permission here");

    // In direct messages with the bot: private commands work, server settings are explained.
    let dm = DM_CHANNELS + ALICE;
    assert_says(&bot.private(ALICE, dm, "games", json!([])).await, "#1");
    let off = json!([option("threads", 3, json!("off"))]);
    let answer = bot.private(ALICE, dm, "threads", off).await;
    assert_says(&answer, "Threads are a server setting");

    // Without View Channel, the thread cannot be opened: the game goes on in the channel.
    bot.fake.refuse("POST", "/threads", 50001);
    bot.challenge(CAROL, ALICE).await;
    let accepted = bot.slash(ALICE, CHANNEL, "accept", json!([]));
    assert_says(&bot.answer(&accepted).await, "Game #2");
    let problem = bot.followup(&accepted).await;
    assert_says(&problem, "I can't see this channel");
    assert_says(&problem, "**Create Public Threads**");
    bot.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_message_content_intent_is_explained() {
    let (_dir, _clock, service, fake) = parts().await;
    fake.grant_intents(!MESSAGE_CONTENT);
    let (_stop, shutdown) = watch::channel(false);
    let run = discord::run(service, config(&fake), shutdown);
    let ended = tokio::time::timeout(Duration::from_secs(60), run).await;
    let error = ended
        .expect("the bot gives up")
        .expect_err("the intent is refused");
    assert!(
        matches!(error, discord::DiscordError::MessageContent),
        "{error:?}"
    );
    let told = error.to_string();
    assert!(
        told.contains("Privileged Gateway Intents") && told.contains("DISCORD_MESSAGE_CONTENT"),
        "{told}"
    );
}

/// `pigeon serve` with Discord configured from the environment answers commands on its
/// database, and stops cleanly on SIGTERM and on SIGINT, saying why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_answers_and_stops_on_a_signal() {
    for signal in ["TERM", "INT"] {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let log = dir.path().join("serve.log");
        let fake = FakeDiscord::start().await;
        let mut serve = std::process::Command::new(env!("CARGO_BIN_EXE_pigeon"))
            .args(["serve", "--db", "serve.db"])
            .current_dir(dir.path())
            .env_remove("MATRIX_HOMESERVER")
            .env_remove("DISCORD_MESSAGE_CONTENT")
            .env("DISCORD_TOKEN", "fake-token")
            .env("DISCORD_GUILD_ID", GUILD.to_string())
            .env("DISCORD_API_BASE", &fake.api)
            .env("RUST_LOG", "info")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::fs::File::create(&log).expect("a log file"))
            .spawn()
            .expect("pigeon serve starts");
        let mut chat = Chat::new(fake);
        chat.registered().await;
        let asked = chat.slash(ALICE, CHANNEL, "challenge", json!([]));
        assert_says(&chat.answer(&asked).await, "Challenge #1");

        let stopped = std::process::Command::new("kill")
            .args(["-s", signal, &serve.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(stopped.success());
        let mut waited = Duration::ZERO;
        let status = loop {
            if let Some(status) = serve.try_wait().expect("the process") {
                break status;
            }
            assert!(
                waited < Duration::from_secs(60),
                "serve ignored SIG{signal}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
            waited += Duration::from_millis(50);
        };
        let logged = std::fs::read_to_string(&log).expect("the log");
        assert!(status.success(), "SIG{signal}: {status}\n{logged}");
        assert!(logged.contains("stopping on a signal"), "{logged}");
        assert!(!logged.contains("fake-token"), "{logged}");
        assert!(dir.path().join("serve.db").exists());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_typed_to_the_bot_are_answered_in_the_channel() {
    let mut bot = Bot::start().await;
    bot.say_to(
        ALICE,
        CHANNEL,
        &format!("<@{APP}> challenge <@{BOB}> shakti 2 days"),
        &[APP, BOB],
    );
    let challenge = bot
        .fake
        .next("POST", &format!("/channels/{CHANNEL}/messages"))
        .await;
    assert_says(
        &challenge,
        &format!("alice challenges <@{BOB}> to Shakti (2 days"),
    );
    assert_eq!(custom_ids(&challenge), ["accept 1", "decline 1"]);

    // A message that is not for the bot and no move is left alone.
    bot.say(CAROL, CHANNEL, "nice weather today, isn't it, everyone?");
    bot.say_to(BOB, CHANNEL, &format!("<@{APP}> accept"), &[APP]);
    let start = bot
        .fake
        .next("POST", &format!("/channels/{CHANNEL}/messages"))
        .await;
    assert_says(&start, "Game #1 (Shakti) starts");
    assert_board(&start);
    let thread = bot.fake.next("POST", "/threads").await;
    assert!(
        thread
            .path
            .contains(&format!("/channels/{CHANNEL}/messages/"))
    );
    let name = thread.json["name"].as_str().expect("a name");
    assert!(
        name.starts_with("Shakti · ") && name.ends_with(" · #1"),
        "{name}"
    );

    // Without Send Messages here, the asker learns why by direct message.
    bot.fake
        .refuse("POST", &format!("/channels/{CHANNEL}/messages"), 50013);
    bot.say_to(CAROL, CHANNEL, &format!("<@{APP}> games"), &[APP]);
    bot.fake
        .next("POST", &format!("/channels/{CHANNEL}/messages"))
        .await;
    let told = bot
        .fake
        .next(
            "POST",
            &format!("/channels/{}/messages", DM_CHANNELS + CAROL),
        )
        .await;
    assert_says(&told, "I couldn't answer you: I need the **Send Messages");
    assert_says(&told, &format!("in <#{CHANNEL}>"));
    bot.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interaction_delivered_twice_is_acted_on_once() {
    let mut bot = Bot::start().await;
    let data = json!({
        "id": "777",
        "name": "challenge",
        "type": 1,
        "options": [option("variant", 3, json!("chad"))],
    });
    let (id, interaction) = bot.interaction(2, ALICE, CHANNEL, data);
    let token = format!("{id}/token-{id}");
    bot.fake.dispatch("INTERACTION_CREATE", interaction.clone());
    assert_says(&bot.answer(&token).await, "Challenge #1");
    bot.fake.dispatch("INTERACTION_CREATE", interaction);
    assert_eq!(bot.acknowledged(&token).await, (DEFERRED, 0));
    bot.fake
        .next(
            "DELETE",
            &format!("/webhooks/{APP}/token-{id}/messages/@original"),
        )
        .await;
    let store = bot.service.store();
    assert!(store.challenge(1).await.expect("read").is_some());
    assert!(store.challenge(2).await.expect("read").is_none());
    bot.stop().await;
}

/// A display name and words from users show as typed in the bot's messages: their masked
/// links, channel links, mentions and formatting are escaped, and invisible characters gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_and_words_from_users_are_escaped() {
    const MALLORY: u64 = 104;
    let mut bot = Bot::start().await;
    let typed = |bot: &Bot, text: &str| {
        let mut typed = message(bot.id(), CHANNEL, MALLORY, "mallory", text);
        typed["author"]["global_name"] = json!("\u{202E}[win](https://e.vil) **x** <#1>");
        typed["member"] = json!({ "roles": [], "joined_at": "2026-01-01T09:00:00.000000+00:00", "deaf": false, "mute": false, "flags": 0 });
        bot.fake.dispatch("MESSAGE_CREATE", typed);
    };
    let channel = format!("/channels/{CHANNEL}/messages");

    typed(&bot, &format!("<@{APP}> challenge chak"));
    let challenge = text(&bot.fake.next("POST", &channel).await);
    assert!(
        challenge.contains(r"Challenge #1: \[win\](https://e.vil) \*\*x\*\* \<#1> is looking"),
        "{challenge}"
    );
    assert!(!challenge.contains('\u{202E}'), "{challenge:?}");

    typed(&bot, &format!("<@{APP}> ||[click](https://e.vil)|| now"));
    let unknown = text(&bot.fake.next("POST", &channel).await);
    assert!(
        unknown.contains(r#"command "\|\|\[click\](https://e.vil)\|\|""#),
        "{unknown}"
    );
    // The bot's own command examples stay code.
    assert!(
        unknown.contains("Type `help` for the commands."),
        "{unknown}"
    );
    bot.stop().await;
}

/// Waits for the next edit of a message at `path` and checks that it takes its buttons off.
async fn buttons_taken_off(bot: &mut Bot, path: &str) {
    let edit = bot.fake.next("PATCH", path).await;
    assert_eq!(edit.json["components"], json!([]), "{}", edit.path);
}

/// The next edit of a thread itself (not of a message in it).
async fn thread_edit(bot: &mut Bot, thread: u64) -> Recorded {
    let path = format!("/channels/{thread}");
    loop {
        let edit = bot.fake.next("PATCH", &path).await;
        if edit.path.ends_with(&path) {
            return edit;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_message_content_hints_name_slash_commands_and_buttons() {
    let mut bot = Bot::configured(|config| DiscordConfig {
        message_content: false,
        ..config
    })
    .await;
    let challenge = bot.challenge(ALICE, BOB).await;
    assert_says(&challenge, "`/accept`");
    assert_not_says(&challenge, "Reply `accept`");
    let accepted = bot.slash(BOB, CHANNEL, "accept", json!([]));
    bot.answer(&accepted).await;
    bot.fake.next("POST", "/threads").await;
    let welcome = bot.fake.next("POST", "/messages").await;
    assert_says(&welcome, "`/move`");
    assert_not_says(&welcome, "type your moves");
    let thread = channel_of(&welcome);
    let offer = bot.offer_draw(ALICE, thread).await;
    assert_says(&offer, "`/draw action:accept`");
    assert_not_says(&offer, "reply `draw accept`");

    // Mentioning the bot's own role addresses it, like mentioning the bot.
    let mut typed = message(
        bot.id(),
        CHANNEL,
        CAROL,
        "carol",
        &format!("<@&{BOT_ROLE}> rules chak"),
    );
    typed["mention_roles"] = json!([BOT_ROLE.to_string()]);
    typed["member"] = json!({ "roles": [], "joined_at": "2026-01-01T09:00:00.000000+00:00", "deaf": false, "mute": false, "flags": 0 });
    bot.fake.dispatch("MESSAGE_CREATE", typed);
    bot.fake
        .next("GET", &format!("/guilds/{GUILD}/roles"))
        .await;
    let rules = bot
        .fake
        .next("POST", &format!("/channels/{CHANNEL}/messages"))
        .await;
    assert_says(&rules, "Chak");
    bot.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn installed_by_a_user_the_game_is_played_in_a_group_message_through_interactions() {
    let mut bot = Bot::start().await;
    let registered = bot.fake.all("PUT", "/commands");
    for command in registered[0].json.as_array().expect("commands") {
        assert_eq!(command["integration_types"], json!([0, 1]), "{command}");
        assert!(command.get("dm_permission").is_none(), "{command}");
        let contexts = if command["name"] == "threads" {
            json!([0])
        } else {
            json!([0, 1, 2])
        };
        assert_eq!(command["contexts"], contexts, "{command}");
    }

    // alice challenges bob in their group message, bob accepts by button.
    let options = json!([
        option("opponent", 6, json!(BOB.to_string())),
        option("variant", 3, json!("chak")),
        option("colour", 3, json!("white")),
    ]);
    let asked = bot.slash(ALICE, GROUP, "challenge", options);
    let challenge = bot.answer(&asked).await;
    assert_eq!(custom_ids(&challenge), ["accept 1", "decline 1"]);
    let pressed = bot.press(BOB, GROUP, 8_001, "accept 1");
    let start = bot.answer(&pressed).await;
    assert_says(&start, "Game #1 (Chak) starts");
    assert_board(&start);
    // The challenge's buttons go, through the interaction: the bot cannot edit there itself.
    let bare = pressed.split_once('/').expect("id/token").1;
    buttons_taken_off(&mut bot, &format!("/webhooks/{APP}/{bare}/messages/")).await;

    // alice moves with /move: the answer shows the board, bob is told by direct message.
    let played = bot.slash(
        ALICE,
        GROUP,
        "move",
        json!([option("move", 3, json!("e3e4"))]),
    );
    let moved = bot.answer(&played).await;
    assert_says(&moved, "alice played e4 in game #1");
    assert_board(&moved);
    let told = dms_to(&bot, BOB);
    assert_eq!(told.len(), 1, "{}", bot.fake.summary());
    assert_says(&told[0], "alice played e4");
    assert_says(
        &told[0],
        &format!("https://discord.com/channels/@me/{GROUP}"),
    );
    // Nothing was posted into the group, and no thread was tried.
    assert!(
        bot.fake
            .all("POST", &format!("/channels/{GROUP}"))
            .is_empty()
    );
    assert!(bot.fake.all("POST", "/threads").is_empty());
    bot.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stale_buttons_go_and_a_finished_game_closes_its_named_thread() {
    let mut bot = Bot::start().await;

    // alice's server nickname is her name here, escaped for markdown.
    let options = json!([
        option("opponent", 6, json!(BOB.to_string())),
        option("variant", 3, json!("chak")),
        option("colour", 3, json!("white")),
    ]);
    let mut users = serde_json::Map::new();
    users.insert(BOB.to_string(), fake::user(BOB, "bob"));
    let data = json!({ "id": "777", "name": "challenge", "type": 1, "options": options,
        "resolved": { "users": users } });
    let (id, mut interaction) = bot.interaction(2, ALICE, CHANNEL, data);
    interaction["member"]["nick"] = json!("Ally *the* Bold");
    bot.fake.dispatch("INTERACTION_CREATE", interaction);
    let challenge = bot.answer(&format!("{id}/token-{id}")).await;
    assert_says(&challenge, r"Ally \*the\* Bold challenges");

    let pressed = bot.press(BOB, CHANNEL, 8_001, "accept 1");
    assert_says(&bot.answer(&pressed).await, "starts");
    // The accepted challenge's buttons are gone (the fake numbers its messages from 9001).
    buttons_taken_off(&mut bot, &format!("/channels/{CHANNEL}/messages/9001")).await;
    let thread = bot.fake.next("POST", "/threads").await;
    assert_eq!(thread.json["name"], "Chak · Ally *the* Bold vs bob · #1");
    let welcome = bot.fake.next("POST", "/messages").await;
    let thread = channel_of(&welcome);

    // The next move takes the buttons off the game's previous message.
    let played = bot.slash(
        ALICE,
        thread,
        "move",
        json!([option("move", 3, json!("e3e4"))]),
    );
    bot.answer(&played).await;
    buttons_taken_off(&mut bot, &format!("/channels/{CHANNEL}/messages/")).await;

    // An answered draw offer loses its buttons.
    bot.offer_draw(BOB, thread).await;
    let pressed = bot.press(ALICE, thread, 8_002, "draw #1 decline");
    assert_says(&bot.answer(&pressed).await, "declined the draw offer");
    buttons_taken_off(&mut bot, &format!("/channels/{thread}/messages/")).await;

    // Without Manage Threads the finished game's thread is archived, not locked.
    bot.fake
        .refuse_setting("PATCH", &format!("/channels/{thread}"), 50013, "locked");
    let pressed = bot.press(BOB, thread, 8_003, "confirm:resign");
    assert_says(&bot.answer(&pressed).await, "resigned game #1");
    let locked = thread_edit(&mut bot, thread).await;
    assert_eq!(
        (
            locked.json["archived"].clone(),
            locked.json["locked"].clone()
        ),
        (json!(true), json!(true))
    );
    let archived = thread_edit(&mut bot, thread).await;
    assert_eq!(archived.json["archived"], true);
    assert!(archived.json.get("locked").is_none(), "{}", archived.json);
    bot.stop().await;
}

/// The choices of an autocomplete answer.
fn choice_values(answer: &Recorded) -> Vec<String> {
    answer.json["data"]["choices"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["value"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_day_given_by_button_and_conditional_moves_completed_and_kept_private() {
    let mut bot = Bot::start().await;
    let thread = started(&mut bot).await;
    bot.say(ALICE, thread, "e3e4");
    bot.fake
        .next("POST", &format!("/channels/{thread}/messages"))
        .await;

    // The game message's "Give a day": refused while bob's time is full, then granted.
    let pressed = bot.press(ALICE, thread, 8_003, "give time #1");
    let refusal = bot.private_error(&pressed).await;
    assert!(
        refusal.contains("still has nearly all their time"),
        "{refusal}"
    );
    bot.clock.advance(2 * HOUR);
    let pressed = bot.press(ALICE, thread, 8_003, "give time #1");
    let given = bot.answer(&pressed).await;
    assert_says(&given, "alice gave bob one more day in game #1");
    assert_says(&given, "2026-01-05 09:00 UTC");

    // alice completes a line with /conditional: bob's moves first, then her replies.
    let typed = bot.command(
        4,
        ALICE,
        thread,
        "conditional",
        json!([{ "name": "line", "type": 3, "value": "", "focused": true }]),
    );
    let theirs = choice_values(&bot.callback(&typed).await);
    assert_eq!(theirs.len(), 25, "{theirs:?}");
    let expected = theirs
        .iter()
        .find(|m| m.as_str() == "e6")
        .cloned()
        .unwrap_or_else(|| theirs[0].clone());
    let typed = bot.command(
        4,
        ALICE,
        thread,
        "conditional",
        json!([{ "name": "line", "type": 3, "value": format!("{expected} "), "focused": true }]),
    );
    let lines = choice_values(&bot.callback(&typed).await);
    assert!(!lines.is_empty(), "no replies offered");
    assert!(
        lines.iter().all(|l| l.starts_with(&format!("{expected} "))),
        "{lines:?}"
    );
    let line = lines[0].clone();
    let reply = line[expected.len() + 1..].to_owned();
    // Entered and listed privately (ephemeral), never in the thread.
    let stored = bot
        .private(
            ALICE,
            thread,
            "conditional",
            json!([option("line", 3, json!(line))]),
        )
        .await;
    assert_says(&stored, "Stored. Your conditional lines in game #1 (1)");
    let listed = bot.private(ALICE, thread, "conditional", json!([])).await;
    assert_says(&listed, &format!("if {expected} then {reply}"));
    let in_thread = bot
        .fake
        .all("POST", &format!("/channels/{thread}/messages"));
    assert!(
        in_thread.iter().all(|m| !text(m).contains(&line)),
        "the line was shown in the thread"
    );

    // bob plays the expected move: alice's reply follows at once, in the thread.
    let typed_move = theirs
        .iter()
        .find(|m| **m == expected)
        .cloned()
        .unwrap_or_default();
    bot.say(BOB, thread, &typed_move);
    let moved = bot
        .fake
        .next("POST", &format!("/channels/{thread}/messages"))
        .await;
    assert_says(&moved, "bob played");
    let answered = bot
        .fake
        .next("POST", &format!("/channels/{thread}/messages"))
        .await;
    assert_says(&answered, &format!("alice played {reply}"));
    let game = bot.service.load(1).await.expect("the game");
    assert_eq!(game.row.ply, 3);
    bot.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_daily_digest_comes_by_direct_message() {
    let mut bot = Bot::ticking(Duration::from_millis(20)).await;
    let thread = started(&mut bot).await;
    let set = bot
        .private(
            ALICE,
            thread,
            "settings",
            json!([option("digest", 3, json!("09:30 UTC"))]),
        )
        .await;
    assert_says(&set, "Daily digest: at 09:30 (UTC)");
    bot.clock.advance(31 * 60);
    let dm = bot.fake.next("POST", "/users/@me/channels").await;
    assert_eq!(dm.json["recipient_id"], ALICE.to_string());
    let digest = bot
        .fake
        .next(
            "POST",
            &format!("/channels/{}/messages", DM_CHANNELS + ALICE),
        )
        .await;
    assert_says(&digest, "Good day, alice: 1 game awaits your move.");
    assert_says(&digest, "Game #1 (Chak) against bob");
    assert_says(&digest, &format!("<#{thread}>"));
    bot.stop().await;
}
