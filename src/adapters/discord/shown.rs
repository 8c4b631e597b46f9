//! Buttons that stay true: the messages whose buttons still apply, by what they are about
//! ([`Topic`]), so that a later reply settling it takes them away; and a game's thread
//! closed when the game ends.
//!
//! They are remembered in memory: after a restart the older buttons stay, and pressing one
//! gets the service's answer (the challenge is closed, the game is over).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serenity::all::{ChannelId, CreateInteractionResponseFollowup, EditMessage, Http, MessageId};
use serenity::builder::Builder;
use tracing::warn;

use super::{Spot, redacted, threads};
use crate::chat::{Reply, Topic};

/// The messages whose buttons still apply, by topic, and for each topic the newest message
/// that made its older buttons stale.
///
/// Message ids are Discord snowflakes, which grow with the time a message was made. Two
/// replies are handled at once (a draw offer, and its answer a moment later): the answer can
/// be done before the offer is noted here. The mark then says that the offer's buttons are
/// stale already, and they go as soon as the offer is noted.
#[derive(Debug, Clone, Default)]
pub(super) struct Shown {
    topics: Arc<Mutex<HashMap<Topic, Entry>>>,
}

#[derive(Debug, Clone, Copy, Default)]
struct Entry {
    /// The message whose buttons about the topic still apply.
    shown: Option<(ChannelId, MessageId)>,
    /// The newest message about the topic, or settling it: older buttons about it are stale.
    newest: Option<MessageId>,
}

/// How long a settled topic's mark is kept: long enough for the slowest reply that was
/// made before it.
const MARK_KEPT: Duration = Duration::from_secs(15 * 60);

impl Shown {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Topic, Entry>> {
        self.topics.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Notes a public reply sent in `channel` as message `sent`; gives the messages whose
    /// buttons it made stale (possibly `sent` itself, when a newer message already did).
    fn note(
        &self,
        reply: &Reply,
        channel: ChannelId,
        sent: Option<MessageId>,
    ) -> Vec<(ChannelId, MessageId)> {
        let mut topics = self.lock();
        let mut stale = Vec::new();
        let older = |id: MessageId| sent.is_none_or(|sent| id < sent);
        for topic in &reply.settles {
            let entry = topics.entry(*topic).or_default();
            if let Some((at, id)) = entry.shown
                && older(id)
            {
                stale.push((at, id));
                entry.shown = None;
            }
            entry.newest = entry.newest.max(sent);
        }
        if let Some(topic) = reply.topic {
            let entry = topics.entry(topic).or_default();
            match sent {
                Some(sent) if entry.newest.is_some_and(|newest| newest > sent) => {
                    if !reply.actions.is_empty() {
                        stale.push((channel, sent));
                    }
                }
                _ => {
                    if let Some((at, id)) = entry.shown.take()
                        && Some(id) != sent
                    {
                        stale.push((at, id));
                    }
                    if let Some(sent) = sent
                        && !reply.actions.is_empty()
                    {
                        entry.shown = Some((channel, sent));
                    }
                    entry.newest = entry.newest.max(sent);
                }
            }
        }
        if let Some(sent) = sent {
            forget_old_marks(&mut topics, sent);
        }
        stale
    }
}

/// Drops the marks of topics without buttons shown that are much older than `now` (the
/// newest message seen), so that the map does not grow with every game ever played.
fn forget_old_marks(topics: &mut HashMap<Topic, Entry>, now: MessageId) {
    let made = |id: MessageId| id.created_at().unix_timestamp();
    let horizon = made(now) - i64::try_from(MARK_KEPT.as_secs()).unwrap_or(i64::MAX);
    topics.retain(|_, entry| {
        entry.shown.is_some() || entry.newest.is_some_and(|newest| made(newest) >= horizon)
    });
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
    let stale = shown.note(reply, spot.channel, sent);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::{Action, Style};

    const CHANNEL: ChannelId = ChannelId::new(3_000);

    fn offer() -> Reply {
        let mut reply = Reply::text("bob offers a draw");
        reply.topic = Some(Topic::DrawOffer(1));
        reply.actions = vec![Action::new(
            "Decline",
            String::from("draw #1 decline"),
            Style::Secondary,
        )];
        reply
    }

    fn answer() -> Reply {
        let mut reply = Reply::text("alice declined the draw offer");
        reply.settles = vec![Topic::DrawOffer(1)];
        reply
    }

    #[test]
    fn an_answer_takes_the_buttons_off_the_question() {
        let shown = Shown::default();
        assert!(
            shown
                .note(&offer(), CHANNEL, Some(MessageId::new(10)))
                .is_empty()
        );
        assert_eq!(
            shown.note(&answer(), CHANNEL, Some(MessageId::new(11))),
            [(CHANNEL, MessageId::new(10))]
        );
    }

    #[test]
    fn an_answer_noted_before_its_question_still_takes_its_buttons_off() {
        let shown = Shown::default();
        assert!(
            shown
                .note(&answer(), CHANNEL, Some(MessageId::new(11)))
                .is_empty()
        );
        assert_eq!(
            shown.note(&offer(), CHANNEL, Some(MessageId::new(10))),
            [(CHANNEL, MessageId::new(10))]
        );
        // A new offer after the answer has its buttons.
        assert!(
            shown
                .note(&offer(), CHANNEL, Some(MessageId::new(12)))
                .is_empty()
        );
    }

    #[test]
    fn of_two_messages_about_a_game_the_older_loses_its_buttons_in_any_order() {
        let mut first = offer();
        first.topic = Some(Topic::Game(1));
        let second = first.clone();
        let shown = Shown::default();
        assert!(
            shown
                .note(&second, CHANNEL, Some(MessageId::new(21)))
                .is_empty()
        );
        assert_eq!(
            shown.note(&first, CHANNEL, Some(MessageId::new(20))),
            [(CHANNEL, MessageId::new(20))]
        );
    }

    #[test]
    fn marks_of_long_settled_topics_are_forgotten() {
        let shown = Shown::default();
        let day_ms: u64 = 24 * 3_600 * 1_000;
        let at = |ms: u64| MessageId::new(ms << 22);
        shown.note(&answer(), CHANNEL, Some(at(day_ms)));
        assert_eq!(shown.lock().len(), 1);
        let mut other = answer();
        other.settles = vec![Topic::Challenge(5)];
        shown.note(&other, CHANNEL, Some(at(2 * day_ms)));
        assert_eq!(shown.lock().len(), 1, "only the newest mark stays");
    }
}
