//! Sending replies: text with pills as an `m.notice` or, when it addresses someone, an
//! `m.text`; the picture as an `m.image`.

use matrix_sdk::Room;
use matrix_sdk::attachment::{AttachmentConfig, AttachmentInfo, BaseImageInfo};
use matrix_sdk::room::reply::{EnforceThread, Reply as ReplyTo};
use matrix_sdk::ruma::UInt;
use matrix_sdk::ruma::events::Mentions;
use matrix_sdk::ruma::events::room::message::{
    AddMentions, ForwardThread, OriginalSyncRoomMessageEvent, RoomMessageEventContent,
};
use tracing::error;

use super::redacted;
use super::text::render;
use crate::chat::Reply;

/// Sends a reply into a room: the text as an `m.notice` (a reply to `to` when given), then
/// the picture as an `m.image`. Failures are logged; a chat reply has nowhere else to go.
/// `true` when the text was sent (a picture that fails after it is only logged).
pub(super) async fn send(
    room: &Room,
    reply: &Reply,
    to: Option<&OriginalSyncRoomMessageEvent>,
) -> bool {
    let (body, html, mentioned) = render(reply);
    let mut content = RoomMessageEventContent::notice_html(body, html)
        .add_mentions(Mentions::with_user_ids(mentioned));
    if let Some(event) = to {
        content = content.make_reply_to(event, ForwardThread::Yes, AddMentions::No);
    }
    if let Err(error) = room.send(content).await {
        error!(room = %room.room_id(), error = %redacted(&error), "sending a reply failed");
        return false;
    }
    let Some(picture) = &reply.picture else {
        return true;
    };
    let Ok(mime) = picture.mime.parse::<mime::Mime>() else {
        error!(mime = picture.mime, "a picture of an unknown type");
        return true;
    };
    let info = BaseImageInfo {
        width: Some(UInt::from(picture.size.0)),
        height: Some(UInt::from(picture.size.1)),
        size: UInt::try_from(picture.data.len()).ok(),
        is_animated: Some(picture.mime == "image/gif"),
        ..BaseImageInfo::default()
    };
    let mut config = AttachmentConfig::new().info(AttachmentInfo::Image(info));
    if let Some(event) = to {
        config = config.reply(Some(ReplyTo {
            event_id: event.event_id.clone(),
            enforce_thread: EnforceThread::MaybeThreaded,
            add_mentions: AddMentions::No,
        }));
    }
    let sent = room
        .send_attachment(&picture.name, &mime, picture.data.clone(), config)
        .await;
    if let Err(error) = sent {
        error!(room = %room.room_id(), error = %redacted(&error), "sending a picture failed");
    }
    true
}
