//! The words of the correspondence features: conditional lines, `vacation` read and
//! answered, a day given (`give time`), reminders, the daily digest, and the notices of a
//! leave starting and ending.

use super::announce::{move_replies, user_of};
use super::inert::inert;
use super::{Means, Part, Reply, error_reply};
use crate::service::{
    DAY, DEFAULT_REMINDERS, Digest, DigestRequest, GameState, GameSummary, LeaveRequest,
    LeaveStatus, MoveDone, Service, User, clock,
};

/// Reads the words after `vacation` (`number`: a number among them, read as the command's
/// number): nothing, a length (`7d`, `2d 12h`, `7 days`, `7`), `end`, or `allowance N`.
pub(super) fn parse_vacation(rest: &[&str], number: Option<i64>) -> Result<LeaveRequest, String> {
    let words: Vec<String> = rest.iter().map(|w| w.to_ascii_lowercase()).collect();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    match (words.as_slice(), number) {
        ([], None) => Ok(LeaveRequest::Show),
        ([] | ["days" | "day" | "d"], Some(days)) => {
            Ok(LeaveRequest::Start(days.saturating_mul(DAY)))
        }
        (["end" | "stop" | "off" | "over" | "back"], None) => Ok(LeaveRequest::End),
        (["allowance" | "allow"], Some(days)) => Ok(LeaveRequest::Allowance(days)),
        (["allowance" | "allow"], None) => Err(String::from(
            "Give the days per year: `vacation allowance 40`.",
        )),
        (span, None) => {
            let text: String = span
                .iter()
                .map(|w| match *w {
                    "days" | "day" => "d",
                    "hours" | "hour" => "h",
                    other => other,
                })
                .collect();
            clock::parse_span(&text)
                .map(LeaveRequest::Start)
                .ok_or_else(|| {
                    format!(
                        "\"{}\" is not a length of leave: say `vacation 7d` (days `d`, hours `h`), \
                         `vacation end` or just `vacation`.",
                        inert(&span.join(" "))
                    )
                })
        }
        _ => Err(String::from(
            "Say `vacation 7d`, `vacation end` or just `vacation`.",
        )),
    }
}

/// The answer to `vacation`: the leave running, if any, and the days left this year.
pub(super) fn vacation_text(status: &LeaveStatus, request: LeaveRequest, now: i64) -> String {
    let year = format!(
        "This year you have {} of leave left (of {} days).",
        clock::format_duration(status.left()),
        status.allowance
    );
    let current = status.current.as_ref().map(|leave| {
        format!(
            "You are on leave until {} ({} from now): the clocks of your games stand still \
             while it's your move. `vacation end` ends it early.",
            clock::format_utc(leave.ends_at),
            clock::format_duration(leave.ends_at - now)
        )
    });
    match (request, current) {
        (LeaveRequest::End, _) => format!(
            "Your leave has ended: your clocks run again, with the time that was left. {year}"
        ),
        (_, Some(current)) => format!("{current} {year}"),
        (_, None) => format!("You are not on leave. {year} `vacation 7d` starts a week of it."),
    }
}

/// The answer to a change of the leave allowance.
pub(super) fn allowance_text(days: i64) -> String {
    format!(
        "Leave allowance here: {days} days per calendar year (`vacation allowance N` changes it)."
    )
}

/// A word about a challenged player on leave, for the challenge's reply.
pub(super) fn on_leave_note(name: &str, until: i64) -> String {
    format!(
        " {name} is on leave until {}, so the answer may wait till then.",
        clock::format_utc(until)
    )
}

/// The announcement of a day given: to the player to move, with the new deadline.
pub(super) fn time_given_reply(giver: &User, state: &GameState, now: i64) -> Reply {
    let deadline = state.row.deadline.unwrap_or(now);
    let mut reply = Reply::text(format!("{} gave ", giver.name));
    if let Some(to) = state.to_move() {
        reply = reply.name(user_of(to), false);
    }
    reply.and(format!(
        " one more day in game #{}: the deadline is now {} ({} left).",
        state.row.id,
        clock::format_utc(deadline),
        clock::format_duration(deadline - now)
    ))
}

/// The notice of a player's leave starting, in one of their games.
pub(super) fn leave_started_reply(game: &GameState, player: &str, until: i64) -> Reply {
    Reply::text(format!(
        "{player} is on leave until {}: in game #{} their clock stands still while it's their \
         move.",
        clock::format_utc(until),
        game.row.id
    ))
}

/// The notice of a player's leave ending, in one of their games.
pub(super) fn leave_ended_reply(game: &GameState, player: &str) -> Reply {
    let deadline = game
        .row
        .deadline
        .filter(|_| game.is_active())
        .map(|deadline| format!(" (deadline {})", clock::format_utc(deadline)))
        .unwrap_or_default();
    Reply::text(format!(
        "{player} is back from leave: in game #{} their clock runs again with the time that was \
         left{deadline}.",
        game.row.id
    ))
}

/// Reads `settings reminders ...`: `None` to show them, else the new times (none: `off`).
pub(super) fn parse_reminders(words: &[&str]) -> Result<Option<Vec<i64>>, String> {
    let words: Vec<String> = words.iter().map(|w| w.to_ascii_lowercase()).collect();
    match words
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [] => Ok(None),
        ["off" | "none" | "no"] => Ok(Some(Vec::new())),
        ["default" | "reset"] => Ok(Some(DEFAULT_REMINDERS.to_vec())),
        times => times
            .iter()
            .map(|word| {
                clock::parse_span(word.trim_end_matches(',')).ok_or_else(|| {
                    format!(
                        "\"{}\" is not a time before the deadline: say for example \
                         `settings reminders 24h 4h 1h` (or `off`, `default`).",
                        inert(word)
                    )
                })
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
    }
}

/// The answer about a player's reminders.
pub(super) fn reminders_text(times: &[i64]) -> String {
    if times.is_empty() {
        return String::from(
            "No reminders before your deadlines (`settings reminders 24h 1h` brings them back).",
        );
    }
    let times: Vec<String> = times.iter().map(|t| clock::format_duration(*t)).collect();
    format!(
        "Reminders: {} before your deadline, each once per move (in games with more time \
         per move than that).",
        list(&times)
    )
}

/// `a`, `a and b`, `a, b and c`.
fn list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Reads `settings digest ...`: nothing (show it), `off`, or a time and a time zone.
pub(super) fn parse_digest(words: &[&str]) -> Result<DigestRequest, String> {
    match words {
        [] => Ok(DigestRequest::Show),
        [off]
            if matches!(
                off.to_ascii_lowercase().as_str(),
                "off" | "none" | "no" | "stop"
            ) =>
        {
            Ok(DigestRequest::Off)
        }
        [time, zone] => Ok(DigestRequest::At {
            time: (*time).to_owned(),
            zone: (*zone).to_owned(),
        }),
        [time] => Ok(DigestRequest::At {
            time: (*time).to_owned(),
            zone: String::from("UTC"),
        }),
        _ => Err(String::from(
            "Say the time and your time zone: `settings digest 08:00 Europe/Berlin` (or `off`).",
        )),
    }
}

/// The answer about a player's digest.
pub(super) fn digest_text(digest: Option<&Digest>) -> String {
    match digest {
        Some(digest) => format!(
            "Daily digest: at {} ({}), a direct message listing the games awaiting your move \
             (nothing when none does). Next: {}. `settings digest off` stops it.",
            digest.time,
            digest.zone,
            clock::format_utc(digest.next)
        ),
        None => String::from(
            "No daily digest. `settings digest 08:00 Europe/Berlin` sends you, once a day at \
             that local time, the list of games awaiting your move.",
        ),
    }
}

/// The daily digest: every game awaiting the player's move, with the opponent, the time
/// left and where it is played.
pub(super) fn digest_reply(
    player: &User,
    player_id: i64,
    games: &[GameSummary],
    now: i64,
) -> Reply {
    let count = match games.len() {
        1 => String::from("1 game awaits"),
        n => format!("{n} games await"),
    };
    let mut reply = Reply::private(format!("Good day, {}: {count} your move.", player.name));
    for game in games {
        let opponent = if game.players.0 == player_id {
            &game.black
        } else {
            &game.white
        };
        let deadline = game.deadline.map_or_else(
            || String::from("no deadline while a leave lasts"),
            |deadline| {
                format!(
                    "{} left (deadline {})",
                    clock::format_duration(deadline - now),
                    clock::format_utc(deadline)
                )
            },
        );
        reply = reply.and(format!(
            "\n- Game #{} ({}) against {opponent}: {deadline}, in ",
            game.id, game.variant
        ));
        reply.parts.push(Part::Channel(game.channel.clone()));
    }
    reply
}

/// After a move: the conditional reply it called for, played at once, or a word to the player
/// whose lines it did not follow.
pub(super) async fn conditional_answer(
    service: &Service,
    done: &MoveDone,
    means: Means,
) -> Vec<Reply> {
    // Lines stored between the read of the game for the move and its write are answered
    // by the clocks' next pass.
    if !done.state.is_active() || !done.state.around.conditionals {
        return Vec::new();
    }
    let answered = match service.answer_conditionals(done.state.row.id, false).await {
        Ok(answered) => answered,
        Err(error) => return vec![error_reply(&error)],
    };
    let mut replies = Vec::new();
    if let Some(played) = &answered.played {
        replies.extend(move_replies(service, played, means).await);
    }
    if let Some((player, count)) = answered.dropped {
        let (lines, were) = if count == 1 {
            ("line", "was")
        } else {
            ("lines", "were")
        };
        replies.push(Reply::text("").name(user_of(&player), false).and(format!(
            ": your conditional {lines} in game #{} did not expect that move and {were} \
             dropped.",
            done.state.row.id
        )));
    }
    replies
}

/// The answer to `conditional`: a player's lines in a game.
pub(super) fn lines_text(game: i64, lines: &[Vec<String>], lead: &str) -> String {
    if lines.is_empty() {
        return format!(
            "{lead}No conditional lines in game #{game}. Add one with `if e5 then Vd8` (your \
             opponent's move, then your reply; more pairs may follow)."
        );
    }
    let mut text = format!(
        "{lead}Your conditional lines in game #{game} ({}):",
        lines.len()
    );
    for (index, line) in lines.iter().enumerate() {
        let pairs: Vec<String> = line
            .chunks(2)
            .map(|pair| match pair {
                [theirs, mine] => format!("if {theirs} then {mine}"),
                [theirs] => format!("if {theirs}"),
                _ => String::new(),
            })
            .collect();
        text.push_str(&format!("\n{}. {}", index + 1, pairs.join(", ")));
    }
    text.push_str("\nOnly you see them. `conditional clear` drops them.");
    text
}

/// A word on a game whose clock stands still for a leave, for `info`.
pub(super) fn frozen_note(state: &GameState, left: i64) -> String {
    let name = state
        .to_move()
        .map_or("The player to move", |p| p.display_name.as_str());
    format!(
        "\n{name} is on leave: the clock stands still with {} left.",
        clock::format_duration(left)
    )
}
