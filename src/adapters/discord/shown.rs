//! Buttons that stay true: the messages whose buttons still apply, by what they are about
//! ([`Topic`]), so that a later reply settling it takes them away; and a game's thread
//! closed when the game ends.
//!
//! They are remembered in memory: after a restart the older buttons stay, and pressing one
//! gets the service's answer (the challenge is closed, the game is over).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use serenity::all::{ChannelId, CreateInteractionResponseFollowup, EditMessage, Http, MessageId};
use serenity::builder::Builder;
use tracing::warn;

use super::{Spot, redacted, threads};
use crate::chat::{Reply, Topic};

/// The messages whose buttons still apply.
#[derive(Debug, Clone, Default)]
pub(super) struct Shown {
    messages: Arc<Mutex<HashMap<Topic, (ChannelId, MessageId)>>>,
}

impl Shown {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Topic, (ChannelId, MessageId)>> {
        self.messages.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// What follows a public reply sent in `spot` as message `sent`: the buttons it makes stale
/// go (an answered challenge or draw offer, the game's previous message), its own are
/// remembered, and a game it ends has its thread closed. `token` is the interaction's
/// where the bot cannot edit messages itself.
pub(super) async fn after_sent(
    http: &Http,
    shown: &Shown,
    spot: &Spot,
    reply: &Reply,
    sent: Option<MessageId>,
    token: Option<&str>,
) {
    if reply.private {
        return;
    }
    let stale: Vec<(ChannelId, MessageId)> = {
        let mut messages = shown.lock();
        let stale = reply
            .settles
            .iter()
            .chain(reply.topic.iter())
            .filter_map(|topic| messages.remove(topic))
            .filter(|(_, id)| Some(*id) != sent)
            .collect();
        if let (Some(topic), Some(sent)) = (reply.topic, sent)
            && !reply.actions.is_empty()
        {
            messages.insert(topic, (spot.channel, sent));
        }
        stale
    };
    for (channel, message) in stale {
        let stripped = match (spot.reachable, token) {
            (false, Some(token)) => CreateInteractionResponseFollowup::new()
                .components(Vec::new())
                .execute(http, (Some(message), token))
                .await
                .map(|_| ()),
            _ => channel
                .edit_message(http, message, EditMessage::new().components(Vec::new()))
                .await
                .map(|_| ()),
        };
        if let Err(error) = stripped {
            warn!(error = %redacted(&error), %message, "taking stale buttons away failed");
        }
    }
    if reply.ended.is_some() && spot.guild.is_some() && spot.reachable {
        threads::close(http, spot.channel).await;
    }
}
