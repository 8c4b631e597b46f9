//! Sending replies: text with pills as an `m.notice` or, when it addresses someone, an
//! `m.text`; the picture as an `m.image`.

use matrix_sdk::attachment::{AttachmentConfig, AttachmentInfo, BaseImageInfo};
use matrix_sdk::room::reply::{EnforceThread, Reply as ReplyTo};
use matrix_sdk::ruma::events::Mentions;
use matrix_sdk::ruma::events::relation::{InReplyTo, Reply as ReplyRelation, Thread};
use matrix_sdk::ruma::events::room::message::{
    AddMentions, Relation, ReplyWithinThread, RoomMessageEventContent,
};
use matrix_sdk::ruma::{EventId, OwnedEventId, OwnedRoomId, RoomId, UInt, UserId};
use matrix_sdk::{Room, RoomState};
use tracing::error;

use super::text::render;
use super::{PLATFORM, redacted};
use crate::chat::{Picture, Reply};
use crate::service::Place;

/// Where a message goes in its room.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Target {
    /// The message it answers.
    pub reply_to: Option<OwnedEventId>,
    /// The root of the thread it belongs in.
    pub thread: Option<OwnedEventId>,
}

impl Target {
    /// The end of the thread rooted at `root`.
    pub fn thread(root: OwnedEventId) -> Target {
        Target {
            reply_to: None,
            thread: Some(root),
        }
    }
}

/// A room, or a thread in it, as a chat place in the room's community. A thread's channel is
/// `!room:server/$root`, the path of a matrix.to link to its root message.
pub(super) fn place_of(room: &Room, thread: Option<&OwnedEventId>) -> Place {
    let community = room.room_id().as_str();
    Place {
        platform: PLATFORM.to_owned(),
        channel: match thread {
            Some(root) => format!("{community}/{root}"),
            None => community.to_owned(),
        },
        community: community.to_owned(),
    }
}

/// The room and the thread (if any) a place's channel names.
pub(super) fn where_is(channel: &str) -> Option<(OwnedRoomId, Option<OwnedEventId>)> {
    match channel.split_once("/$") {
        Some((room, root)) => Some((
            RoomId::parse(room).ok()?,
            Some(EventId::parse(format!("${root}")).ok()?),
        )),
        None => Some((RoomId::parse(channel).ok()?, None)),
    }
}

/// Sends a reply into a room: the text, then the picture. `true` when the text was sent (a
/// picture that fails after it is only logged).
pub(super) async fn send(room: &Room, reply: &Reply, target: &Target) -> bool {
    if send_text(room, reply, target).await.is_none() {
        return false;
    }
    if let Some(picture) = &reply.picture {
        send_picture(room, picture, target).await;
    }
    true
}

/// Sends a reply only its asker may see (a note, the sandbox) to their direct chat with the
/// bot, opening one when there is none, and says in `room` where it went, without its content.
pub(super) async fn send_privately(room: &Room, asker: &UserId, reply: &Reply, target: &Target) {
    let client = room.client();
    let dm = match client
        .get_dm_room(asker)
        .filter(|dm| dm.state() == RoomState::Joined)
    {
        Some(dm) => Ok(dm),
        None => client.create_dm(asker).await,
    };
    let sent = match dm {
        Ok(dm) => send(&dm, reply, &Target::default()).await,
        Err(error) => {
            error!(error = %redacted(&error), "opening a direct chat failed");
            false
        }
    };
    let note = if sent {
        "I answered that in our direct chat: only you can see it there."
    } else {
        "I answer that only in a direct chat and could not open one with you: start a direct \
         chat with me and ask there."
    };
    send(room, &Reply::private(note), target).await;
}

/// Sends a reply's text: an `m.text` when it mentions someone, so that their push rules
/// notify them (the default rules never notify for an `m.notice`, not even a mention), and an
/// `m.notice` otherwise. Failures are logged; a chat reply has nowhere else to go. The id of
/// the message sent, if it was.
pub(super) async fn send_text(room: &Room, reply: &Reply, target: &Target) -> Option<OwnedEventId> {
    let (body, html, mentioned) = render(reply);
    let mut content = if mentioned.is_empty() {
        RoomMessageEventContent::notice_html(body, html)
    } else {
        RoomMessageEventContent::text_html(body, html)
    }
    .add_mentions(Mentions::with_user_ids(mentioned));
    content.relates_to = match (&target.thread, &target.reply_to) {
        (Some(root), Some(to)) => Some(Relation::Thread(Thread::reply(root.clone(), to.clone()))),
        (Some(root), None) => Some(Relation::Thread(Thread::without_fallback(root.clone()))),
        (None, Some(to)) => Some(Relation::Reply(ReplyRelation::new(InReplyTo::new(
            to.clone(),
        )))),
        (None, None) => None,
    };
    match room.send(content).await {
        Ok(sent) => Some(sent.response.event_id),
        Err(error) => {
            error!(room = %room.room_id(), error = %redacted(&error), "sending a reply failed");
            None
        }
    }
}

/// Sends a picture as an `m.image` (uploaded encrypted in an encrypted room).
pub(super) async fn send_picture(room: &Room, picture: &Picture, target: &Target) {
    let Ok(mime) = picture.mime.parse::<mime::Mime>() else {
        error!(mime = picture.mime, "a picture of an unknown type");
        return;
    };
    let info = BaseImageInfo {
        width: Some(UInt::from(picture.size.0)),
        height: Some(UInt::from(picture.size.1)),
        size: UInt::try_from(picture.data.len()).ok(),
        is_animated: Some(picture.mime == "image/gif"),
        ..BaseImageInfo::default()
    };
    let mut config = AttachmentConfig::new().info(AttachmentInfo::Image(info));
    let reply = match (&target.reply_to, &target.thread) {
        (Some(to), _) => Some(ReplyTo {
            event_id: to.clone(),
            enforce_thread: EnforceThread::MaybeThreaded,
            add_mentions: AddMentions::No,
        }),
        (None, Some(root)) => Some(ReplyTo {
            event_id: root.clone(),
            enforce_thread: EnforceThread::Threaded(ReplyWithinThread::No),
            add_mentions: AddMentions::No,
        }),
        (None, None) => None,
    };
    config = config.reply(reply);
    let sent = room
        .send_attachment(&picture.name, &mime, picture.data.clone(), config)
        .await;
    if let Err(error) = sent {
        error!(room = %room.room_id(), error = %redacted(&error), "sending a picture failed");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_channel_names_its_room_and_root() {
        let (room, thread) = where_is("!abc:example.org").expect("a room");
        assert_eq!(room, "!abc:example.org");
        assert_eq!(thread, None);
        let (room, thread) = where_is("!abc:example.org/$root_1-x").expect("a thread");
        assert_eq!(room, "!abc:example.org");
        assert_eq!(thread.as_deref().map(EventId::as_str), Some("$root_1-x"));
        assert!(where_is("general").is_none());
    }
}
