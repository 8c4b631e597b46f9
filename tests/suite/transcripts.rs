//! Conversations through the chat layer and the service, on each backend, with a clock that
//! moves only when told. A transcript is a text file in `tests/data/transcripts/`:
//!
//! - `name: text` or `#channel name: text`: a console line; its replies become the output,
//!   a picture as `  picture: NAME WxH`; `~name: text` is written by someone who does not
//!   manage the community (in the console everyone does);
//! - `? text`: the output contains `text`; `! text`: it does not;
//! - `@advance 2d 3h 5m`: moves the clock; `@tick`: runs the clocks (notices become the output);
//! - `@restart`: closes the database and opens it again, as a process restart would;
//! - `//` starts a comment.

use std::path::Path;
use std::sync::Arc;

use pigeon::store::Store;

use crate::common::{TestDb, backends, read_data};
use pigeon::adapters::console;
use pigeon::chat::{self, Reply};
use pigeon::service::{DAY, HOUR, ManualClock, Service, User};

/// 2026-01-01 09:00 UTC: transcripts see fixed dates.
pub const START: i64 = 1_767_258_000;

/// The service on the test's database, as a starting process opens it.
pub async fn open(db: &TestDb, clock: &ManualClock) -> Service {
    service_on(db.open().await, clock)
}

/// The service on the SQLite file at `path`, for the tests that are about the file itself.
pub async fn open_file(path: &Path, clock: &ManualClock) -> Service {
    let store = Store::open(path).await.expect("the database opens");
    service_on(store, clock)
}

/// The service on `store`, with the console's bot registered.
fn service_on(store: Store, clock: &ManualClock) -> Service {
    let service = Service::new(store, Arc::new(clock.clone()));
    service.register_bot(&console::bot());
    service
}

fn duration(words: &str) -> i64 {
    words
        .split_whitespace()
        .map(|word| {
            let (number, unit) = word.split_at(word.len() - 1);
            let number: i64 = number.parse().expect("a number before the unit");
            number
                * match unit {
                    "d" => DAY,
                    "h" => HOUR,
                    "m" => 60,
                    "s" => 1,
                    other => panic!("unknown unit {other}"),
                }
        })
        .sum()
}

/// Runs one transcript; panics with the line and the output when an expectation fails.
pub async fn run(name: &str, db: &TestDb) {
    let script = read_data(&format!("transcripts/{name}.txt"));
    let clock = ManualClock::new(START);
    let mut service = open(db, &clock).await;
    let mut output = String::new();
    for (index, raw) in script.lines().enumerate() {
        let line = raw.trim();
        let at = || {
            format!(
                "{name}.txt line {}: {line}\n--- output ---\n{output}",
                index + 1
            )
        };
        if line.is_empty() || line.starts_with("//") {
            continue;
        }
        if let Some(expected) = line.strip_prefix("? ") {
            assert!(
                output.contains(expected),
                "expected {expected:?} at {}",
                at()
            );
        } else if let Some(unexpected) = line.strip_prefix("! ") {
            assert!(
                !output.contains(unexpected),
                "unexpected {unexpected:?} at {}",
                at()
            );
        } else if let Some(words) = line.strip_prefix("@advance ") {
            clock.advance(duration(words));
        } else if line == "@tick" {
            output.clear();
            for pending in service.tick().await.expect("the clocks run") {
                let (place, reply) = chat::notice_reply(&service, &pending.notice).await;
                write(&mut output, &reply, None, Some(&place.channel));
                service.delivered(pending.id).await;
            }
        } else if line == "@restart" {
            service.store().close().await;
            service = open(db, &clock).await;
        } else {
            let (guest, line) = match line.strip_prefix('~') {
                Some(rest) => (true, rest),
                None => (false, line),
            };
            let parsed = console::parse_line(line).unwrap_or_else(|| panic!("bad line {}", at()));
            let mut incoming = console::incoming(&parsed);
            incoming.manager = !guest;
            output.clear();
            for reply in chat::handle(&service, &incoming).await {
                write(&mut output, &reply, Some(&incoming.user), None);
            }
        }
    }
    service.store().close().await;
}

/// Writes a reply as the console shows it, its picture as `  picture: NAME WxH`.
fn write(output: &mut String, reply: &Reply, asker: Option<&User>, channel: Option<&str>) {
    output.push_str(&console::format_reply(reply, asker, channel));
    if let Some(picture) = &reply.picture {
        let (width, height) = picture.size;
        output.push_str(&format!("  picture: {} {width}x{height}\n", picture.name));
    }
}

backends! {
    #[tokio::test]
    async fn a_chak_game_from_challenge_to_the_end(db: TestDb) {
        run("chak_game", &db).await;
    }

    #[tokio::test]
    async fn challenges_open_named_declined_cancelled_expired(db: TestDb) {
        run("challenges", &db).await;
    }

    #[tokio::test]
    async fn draws_resignation_abort_and_rematch(db: TestDb) {
        run("endings", &db).await;
    }

    #[tokio::test]
    async fn several_games_in_one_channel(db: TestDb) {
        run("several_games", &db).await;
    }

    #[tokio::test]
    async fn clocks_remind_once_and_end_games_on_time_across_restarts(db: TestDb) {
        run("clocks", &db).await;
    }

    #[tokio::test]
    async fn help_rules_settings_and_unknown_commands(db: TestDb) {
        run("help", &db).await;
    }

    #[tokio::test]
    async fn a_chesscala_game_with_two_part_turns(db: TestDb) {
        run("chesscala_game", &db).await;
    }

    #[tokio::test]
    async fn a_shakti_game_with_jumps(db: TestDb) {
        run("shakti_game", &db).await;
    }

    #[tokio::test]
    async fn a_chad_game_with_a_wall_capture(db: TestDb) {
        run("chad_game", &db).await;
    }

    #[tokio::test]
    async fn only_players_act_in_their_games(db: TestDb) {
        run("permissions", &db).await;
    }

    #[tokio::test]
    async fn a_game_against_the_bot_in_the_console(db: TestDb) {
        run("bot_game", &db).await;
    }

    #[tokio::test]
    async fn rated_games_leaderboard_and_stats(db: TestDb) {
        run("ratings", &db).await;
    }

    #[tokio::test]
    async fn replies_say_what_happened_and_what_to_do(db: TestDb) {
        run("replies", &db).await;
    }

    #[tokio::test]
    async fn takebacks_asked_accepted_declined_and_refused(db: TestDb) {
        run("takebacks", &db).await;
    }

    #[tokio::test]
    async fn games_from_a_position_and_refused_positions(db: TestDb) {
        run("setups", &db).await;
    }

    #[tokio::test]
    async fn chesscala_without_draws_refuses_a_turn_into_check(db: TestDb) {
        run("nodraws", &db).await;
    }

    #[tokio::test]
    async fn notes_stay_private_and_try_changes_nothing(db: TestDb) {
        run("notes_try", &db).await;
    }

    #[tokio::test]
    async fn a_day_given_only_when_less_than_the_full_time_is_left(db: TestDb) {
        run("give_time", &db).await;
    }

    #[tokio::test]
    async fn leave_stops_the_clocks_and_ends_by_itself_across_a_restart(db: TestDb) {
        run("vacation", &db).await;
    }

    #[tokio::test]
    async fn conditional_moves_answer_at_once_and_drop_what_did_not_come(db: TestDb) {
        run("conditional", &db).await;
    }

    #[tokio::test]
    async fn reminders_at_the_times_each_player_chose(db: TestDb) {
        run("reminders", &db).await;
    }

    #[tokio::test]
    async fn tournament_round_robin_of_four_played_to_the_end(db: TestDb) {
        run("tournament_round_robin", &db).await;
    }

    #[tokio::test]
    async fn tournament_swiss_of_five_with_a_bye_a_withdrawal_and_a_restart(db: TestDb) {
        run("tournament_swiss", &db).await;
    }

    #[tokio::test]
    async fn tournament_permissions_and_friendly_refusals(db: TestDb) {
        run("tournament_refusals", &db).await;
    }

    #[tokio::test]
    async fn tournament_withdrawals_annul_or_forfeit_as_fide_says(db: TestDb) {
        run("tournament_withdrawals", &db).await;
    }
}
