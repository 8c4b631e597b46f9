//! What each sync brings, and what it left out. A sync gives each joined room's latest
//! events; after a long stop (or a burst of messages) that slice is `limited`: older events
//! came too, and the sync gives only a token (`prev_batch`) to read them by. Those are read
//! backwards from that token (`/messages`, decrypted like the sync's own) until the previous
//! sync's position, a message already handled (the game database's processed events), the
//! bot's own joining of the room, the account's first start or the backlog limit; then
//! answered in the order they were sent, before the sync's own events, each once.

use matrix_sdk::deserialized_responses::TimelineEvent;
use matrix_sdk::room::MessagesOptions;
use matrix_sdk::ruma::events::room::message::OriginalSyncRoomMessageEvent;
use matrix_sdk::ruma::{UInt, UserId};
use matrix_sdk::store::{StateStoreDataKey, StateStoreDataValue};
use matrix_sdk::sync::SyncResponse;
use matrix_sdk::{Client, Room};
use tracing::{info, warn};

use super::{Bot, PLATFORM, answer, encryption, message_wanted, on_message, redacted, skipped};

/// How many events are asked for at a time when reading a room's gap.
const PAGE: u32 = 50;
/// At most this many pages are read for one gap; a longer one is cut there (and logged).
const MAX_PAGES: usize = 200;

/// The sync token the client stopped at: where the next sync goes on from.
pub(super) async fn sync_position(client: &Client) -> Option<String> {
    match client
        .state_store()
        .get_kv_data(StateStoreDataKey::SyncToken)
        .await
    {
        Ok(value) => value.and_then(StateStoreDataValue::into_sync_token),
        Err(error) => {
            warn!(%error, "reading the Matrix sync position failed");
            None
        }
    }
}

/// Hands a sync's room messages to the bot, room by room: first the events the sync left
/// out of a room (when its slice is `limited`, and does not show the bot joining), read back
/// to `since` (the position the sync went on from), then the slice itself. Each room's messages are answered one after
/// another in that order.
pub(super) fn on_sync(client: &Client, bot: &Bot, response: &SyncResponse, since: Option<&str>) {
    for (id, update) in &response.rooms.joined {
        let Some(room) = client.get_room(id) else {
            continue;
        };
        let timeline = &update.timeline;
        // A room the bot has just joined: what came before was not sent to it.
        let joined_now = timeline.events.iter().any(|e| own_join(e, &bot.own));
        if timeline.limited
            && !joined_now
            && let Some(from) = &timeline.prev_batch
        {
            let gap = Gap {
                from: from.clone(),
                to: since.map(str::to_owned),
            };
            let work = bot
                .order
                .after(room.room_id(), gap.answer(room.clone(), bot.clone()));
            bot.tasks.spawn(work);
        }
        for event in &timeline.events {
            if let Some(message) = room_message(event) {
                on_message(message, &room, bot);
            }
        }
    }
}

/// The room message an event is, if it is one (not redacted, not something else).
fn room_message(event: &TimelineEvent) -> Option<OriginalSyncRoomMessageEvent> {
    let raw = event.raw();
    if raw.get_field::<String>("type").ok().flatten().as_deref() != Some("m.room.message") {
        return None;
    }
    raw.deserialize_as_unchecked().ok()
}

/// The events of a room a sync left out: from the slice's `prev_batch` back to the previous
/// sync's position (when known).
#[derive(Debug, Clone)]
struct Gap {
    from: String,
    to: Option<String>,
}

/// Why reading a gap stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// Everything back to the previous sync was read.
    Whole,
    /// A message already handled: what came before it was read before.
    Handled,
    /// The bot's own joining of the room: nothing before was sent to it.
    Joined,
    /// A message the time limits skip (and all before it): why.
    Skipped(&'static str),
    /// The homeserver would not give more.
    Failed,
    /// [`MAX_PAGES`] pages were read.
    TooLong,
}

impl Stop {
    fn why(self) -> &'static str {
        match self {
            Self::Whole => "back to the previous sync",
            Self::Handled => "back to a message already answered",
            Self::Joined => "back to the bot's joining the room",
            Self::Skipped(why) => why,
            Self::Failed => "reading further failed",
            Self::TooLong => "the gap is too long; older messages are skipped",
        }
    }
}

impl Gap {
    /// Reads the gap and answers its messages, oldest first.
    async fn answer(self, room: Room, bot: Bot) {
        let (messages, stop) = self.read(&room, &bot).await;
        info!(
            room = %room.room_id(),
            messages = messages.len(),
            stopped = stop.why(),
            "read the messages a sync left out"
        );
        for message in messages {
            answer(message, room.clone(), bot.clone()).await;
        }
    }

    /// The gap's messages for the bot, oldest first, and why reading stopped.
    async fn read(self, room: &Room, bot: &Bot) -> (Vec<OriginalSyncRoomMessageEvent>, Stop) {
        let mut newest_first = Vec::new();
        let mut from = self.from;
        for _ in 0..MAX_PAGES {
            let mut options = MessagesOptions::backward().from(from.as_str());
            options.to.clone_from(&self.to);
            options.limit = UInt::from(PAGE);
            let page = match room.messages(options).await {
                Ok(page) => page,
                Err(error) => {
                    warn!(room = %room.room_id(), error = %redacted(&error), "reading a room's missed messages failed");
                    newest_first.reverse();
                    return (newest_first, Stop::Failed);
                }
            };
            for event in &page.chunk {
                if let Some(stop) = stops_at(event, room, bot).await {
                    newest_first.reverse();
                    return (newest_first, stop);
                }
                if event.kind.is_utd() {
                    encryption::wait(bot, room, event.raw().clone().cast_unchecked());
                } else if let Some(message) = room_message(event)
                    && message_wanted(&message, bot)
                {
                    newest_first.push(message);
                }
            }
            match page.end {
                Some(end) if !page.chunk.is_empty() => from = end,
                _ => {
                    newest_first.reverse();
                    return (newest_first, Stop::Whole);
                }
            }
        }
        newest_first.reverse();
        (newest_first, Stop::TooLong)
    }
}

/// Whether reading back stops at `event`, and why.
async fn stops_at(event: &TimelineEvent, room: &Room, bot: &Bot) -> Option<Stop> {
    if own_join(event, &bot.own) {
        return Some(Stop::Joined);
    }
    let at = event
        .raw()
        .get_field::<matrix_sdk::ruma::MilliSecondsSinceUnixEpoch>("origin_server_ts")
        .ok()
        .flatten()
        .map(|ts| i64::from(ts.as_secs()))?;
    if let Some(why) = skipped(at, bot.first_start, bot.service.now(), bot.backlog) {
        return Some(Stop::Skipped(why));
    }
    let id = event.event_id()?;
    if event.sender().as_deref() == Some(&*bot.own) {
        return None;
    }
    match bot.service.handled(PLATFORM, id.as_str()).await {
        Ok(true) => Some(Stop::Handled),
        Ok(false) => None,
        Err(error) => {
            warn!(room = %room.room_id(), %error, "reading whether a message was answered failed");
            None
        }
    }
}

/// Whether the event is the bot joining the room (not a change of its name or avatar).
fn own_join(event: &TimelineEvent, own: &UserId) -> bool {
    let Ok(member) = event.raw().deserialize_as_unchecked::<serde_json::Value>() else {
        return false;
    };
    let joined = |content: &serde_json::Value| content["membership"].as_str() == Some("join");
    member["type"].as_str() == Some("m.room.member")
        && member["state_key"].as_str() == Some(own.as_str())
        && joined(&member["content"])
        && !joined(&member["unsigned"]["prev_content"])
}

#[cfg(test)]
mod tests {
    use matrix_sdk::ruma::serde::Raw;
    use matrix_sdk::ruma::user_id;

    use super::*;

    fn event(json: &serde_json::Value) -> TimelineEvent {
        TimelineEvent::from_plaintext(
            Raw::from_json_string(json.to_string()).expect("an event as JSON"),
        )
    }

    fn member(who: &str, membership: &str, before: Option<&str>) -> TimelineEvent {
        let mut json = serde_json::json!({
            "type": "m.room.member",
            "event_id": "$m",
            "sender": who,
            "state_key": who,
            "origin_server_ts": 1,
            "content": { "membership": membership },
        });
        if let Some(before) = before {
            json["unsigned"] = serde_json::json!({ "prev_content": { "membership": before } });
        }
        event(&json)
    }

    #[test]
    fn reading_back_stops_at_the_bot_joining_not_at_a_change_of_its_name() {
        let own = user_id!("@pigeon:x.org");
        assert!(own_join(&member("@pigeon:x.org", "join", None), own));
        assert!(own_join(
            &member("@pigeon:x.org", "join", Some("invite")),
            own
        ));
        assert!(
            !own_join(&member("@pigeon:x.org", "join", Some("join")), own),
            "a new name"
        );
        assert!(!own_join(
            &member("@pigeon:x.org", "leave", Some("join")),
            own
        ));
        assert!(
            !own_join(&member("@alice:x.org", "join", None), own),
            "someone else"
        );
    }

    #[test]
    fn only_room_messages_are_read() {
        let text = event(&serde_json::json!({
            "type": "m.room.message",
            "event_id": "$t",
            "sender": "@alice:x.org",
            "origin_server_ts": 1,
            "content": { "msgtype": "m.text", "body": "!pigeon help" },
        }));
        assert_eq!(
            room_message(&text).map(|m| m.content.body().to_owned()),
            Some(String::from("!pigeon help"))
        );
        let redacted = event(&serde_json::json!({
            "type": "m.room.message",
            "event_id": "$r",
            "sender": "@alice:x.org",
            "origin_server_ts": 1,
            "content": {},
            "unsigned": { "redacted_because": {} },
        }));
        assert!(room_message(&redacted).is_none(), "a redacted message");
        assert!(room_message(&member("@alice:x.org", "join", None)).is_none());
    }
}
