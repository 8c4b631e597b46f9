//! Game options on Discord: a takeback asked and accepted by buttons, notes answered only to
//! their author (ephemerally, or by direct message for a typed command).

use serde_json::json;

use super::fake::{APP, CHANNEL, DM_CHANNELS};
use super::{
    ALICE, BOB, Bot, assert_board, assert_not_says, assert_says, channel_of, custom_ids, dms_to,
    option, text,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_takeback_by_buttons_and_notes_only_their_author_sees() {
    let mut bot = Bot::start().await;
    let options = json!([
        option("opponent", 6, json!(BOB.to_string())),
        option("variant", 3, json!("chak")),
        option("colour", 3, json!("white")),
        option("rating", 3, json!("casual")),
    ]);
    let asked = bot.slash(ALICE, CHANNEL, "challenge", options);
    assert_says(&bot.answer(&asked).await, "challenges");
    let pressed = bot.press(BOB, CHANNEL, 8_001, "accept 1");
    assert_says(&bot.answer(&pressed).await, "Game #1 (Chak) starts");
    bot.fake.next("POST", "/threads").await;
    let welcome = bot.fake.next("POST", "/messages").await;
    let thread = channel_of(&welcome);

    // After alice's move the game message offers a takeback.
    let played = bot.slash(
        ALICE,
        thread,
        "move",
        json!([option("move", 3, json!("e3e4"))]),
    );
    let moved = bot.answer(&played).await;
    assert!(
        custom_ids(&moved).contains(&String::from("takeback #1")),
        "{:?}",
        custom_ids(&moved)
    );
    let pressed = bot.press(ALICE, thread, 8_002, "takeback #1");
    let request = bot.answer(&pressed).await;
    assert_says(
        &request,
        "alice asks to take back their last move in game #1",
    );
    assert_says(&request, &format!("<@{BOB}>"));
    assert_eq!(
        custom_ids(&request),
        ["takeback #1 accept", "takeback #1 decline"]
    );
    let pressed = bot.press(BOB, thread, 8_003, "takeback #1 accept");
    let taken = bot.answer(&pressed).await;
    assert_says(&taken, "Takeback in game #1: 1 move taken back for alice.");
    assert_board(&taken);

    // A note by slash command: deferred ephemerally, answered only to alice.
    let note = json!([option("text", 3, json!("push the e pawn again"))]);
    let noted = bot.private(ALICE, thread, "note", note).await;
    assert_says(&noted, "Noted on game #1");
    let listed = bot.private(ALICE, thread, "notes", json!([])).await;
    assert_says(&listed, "push the e pawn again");
    let theirs = bot.private(BOB, thread, "notes", json!([])).await;
    assert_not_says(&theirs, "push the e pawn");

    // Typed in the thread, a note is answered by direct message, never in the thread.
    bot.say_to(ALICE, thread, &format!("<@{APP}> notes"), &[APP]);
    let told = bot
        .fake
        .next(
            "POST",
            &format!("/channels/{}/messages", DM_CHANNELS + ALICE),
        )
        .await;
    assert_says(&told, "push the e pawn again");
    assert!(
        bot.fake
            .all("POST", &format!("/channels/{thread}/messages"))
            .iter()
            .all(|sent| !text(sent).contains("push the e pawn")),
        "{}",
        bot.fake.summary()
    );
    assert!(
        dms_to(&bot, BOB)
            .iter()
            .all(|sent| !text(sent).contains("push the e pawn"))
    );
    bot.stop().await;
}
