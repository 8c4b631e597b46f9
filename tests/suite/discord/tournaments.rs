//! A tournament through `/tournament` on the fake Discord: created by a manager (with a thread
//! of its own), joined, refused to someone else, started by its organiser; the clocks post its
//! games in its thread, where its standings are asked for.

use std::time::Duration;

use serde_json::{Value, json};

use super::{ALICE, BOB, Bot, CAROL, CHANNEL, DEFERRED, assert_says, channel_of, option, text};

/// Discord's Manage Server permission.
const MANAGE_GUILD: &str = "32";

/// `/tournament <sub>` with its options; `manager` gives the member Manage Server.
fn tournament(
    bot: &Bot,
    user: u64,
    channel: u64,
    sub: &str,
    options: &Value,
    manager: bool,
) -> String {
    let data = json!({
        "id": "777",
        "name": "tournament",
        "type": 1,
        "options": [{ "name": sub, "type": 1, "options": options }],
    });
    let (id, mut interaction) = bot.interaction(2, user, channel, data);
    if manager {
        interaction["member"]["permissions"] = json!(MANAGE_GUILD);
    }
    bot.fake.dispatch("INTERACTION_CREATE", interaction);
    format!("{id}/token-{id}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_gets_a_thread_where_its_games_and_standings_go() {
    let mut bot = Bot::ticking(Duration::from_millis(200)).await;
    // Without Manage Server, creating is refused (the community's default).
    let name = json!([option("name", 3, json!("Autumn Chak"))]);
    let refused = tournament(&bot, BOB, CHANNEL, "create", &name, false);
    assert!(bot.private_error(&refused).await.contains("managers"));
    let created = tournament(&bot, ALICE, CHANNEL, "create", &name, true);
    let answer = bot.answer(&created).await;
    assert_says(
        &answer,
        "Tournament #1 \"Autumn Chak\" (Chak, round robin) is open",
    );
    bot.fake.next("POST", "/threads").await;
    let welcome = bot.fake.next("POST", "/messages").await;
    let thread = channel_of(&welcome);
    assert_ne!(thread, CHANNEL);
    assert!(text(&welcome).contains("pairings, results and standings are posted here"));
    for user in [ALICE, BOB, CAROL] {
        let joined = tournament(&bot, user, CHANNEL, "join", &json!([]), false);
        assert_says(&bot.answer(&joined).await, "joined tournament #1");
    }
    let started = tournament(&bot, BOB, CHANNEL, "start", &json!([]), false);
    assert!(bot.private_error(&started).await.contains("Only alice"));
    let started = tournament(&bot, ALICE, CHANNEL, "start", &json!([]), false);
    assert_says(&bot.answer(&started).await, "has started with 3 players");
    // The clocks post every game in the tournament's thread.
    let round = bot
        .fake
        .next("POST", &format!("/channels/{thread}/messages"))
        .await;
    assert_says(&round, "Round 3:");
    assert_says(&round, "#3 ");
    // The standings, asked in the thread (a private command's answer is public here).
    let asked = tournament(&bot, CAROL, thread, "standings", &json!([]), false);
    assert_eq!(bot.acknowledged(&asked).await, (DEFERRED, 0));
    let standings = bot.edited(&asked).await;
    assert_says(&standings, "with 0 of 3 games finished");
    assert_eq!(standings.files.len(), 1, "the table as a picture");
    bot.stop().await;
}
