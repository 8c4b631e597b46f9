//! Direct messages to players: turn pings and reminders, and who refuses them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serenity::all::{Http, UserId};
use tracing::info;

use super::Spot;
use super::send::{Outgoing, discord_id, error_code, fit, message_of, outgoing};
use crate::chat::Reply;
use crate::service::User;

/// How long a player's refusal of direct messages is believed before the bot tries again.
pub(super) const REFUSAL_MEMORY: Duration = Duration::from_secs(6 * 3600);

/// Direct messages to players, remembering for a while who refuses them so their pings go
/// to the game's channel without asking Discord again each turn.
#[derive(Debug, Clone, Default)]
pub(super) struct DirectMessages {
    refused: Arc<Mutex<HashMap<UserId, Instant>>>,
}

impl DirectMessages {
    /// Tells `user` privately the text of `out` about `spot` (without its picture and
    /// buttons), with a link to it. False when they do not take direct messages from the bot
    /// (Discord's 50007) or Discord failed.
    pub(super) async fn send(
        &self,
        http: &Http,
        user: UserId,
        spot: &Spot,
        mut out: Outgoing,
    ) -> bool {
        if let Some(link) = spot.link() {
            out.content = fit(format!("{}\n{link}", out.content));
        }
        self.send_direct(http, user, out).await
    }

    /// Sends `out` to `user` by direct message, as text alone; `false` when it was refused.
    pub(super) async fn send_direct(&self, http: &Http, user: UserId, mut out: Outgoing) -> bool {
        if self.refused_lately(user) {
            return false;
        }
        out.pings.clear();
        out.picture = None;
        out.buttons.clear();
        let sent = match user.create_dm_channel(http).await {
            Ok(dm) => dm.id.send_message(http, message_of(out)).await,
            Err(error) => Err(error),
        };
        match sent {
            Ok(_) => true,
            Err(error) => {
                let code = error_code(&error);
                info!(
                    ?code,
                    "a direct message was refused; the ping goes to the channel"
                );
                if code == Some(50007) {
                    self.lock().insert(user, Instant::now());
                }
                false
            }
        }
    }

    pub(super) fn refused_lately(&self, user: UserId) -> bool {
        let mut refused = self.lock();
        refused.retain(|_, when| when.elapsed() < REFUSAL_MEMORY);
        refused.contains_key(&user)
    }

    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<UserId, Instant>> {
        self.refused
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A reply for a server channel. When it tells a player it is their move
    /// ([`Reply::turn`]) and they take direct messages, they are told there, with a link,
    /// and not pinged in the channel; unless they are the one who asked, reading already.
    pub(super) async fn outgoing(
        &self,
        http: &Http,
        spot: &Spot,
        reply: &Reply,
        asker: Option<&User>,
    ) -> Outgoing {
        let mut out = outgoing(reply);
        let Some(player) = &reply.turn else {
            return out;
        };
        if (spot.guild.is_none() && spot.reachable) || asker == Some(player) {
            return out;
        }
        if let Some(id) = discord_id(player)
            && self.send(http, id, spot, outgoing(reply)).await
        {
            out.pings.retain(|ping| *ping != id);
        }
        out
    }
}
