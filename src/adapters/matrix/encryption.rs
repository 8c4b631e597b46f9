//! Encryption people can trust: the account cross-signed and its keys backed up, and
//! messages that could not be decrypted tried again until their keys come (or their senders
//! told, once, to send them again).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use matrix_sdk::encryption::recovery::RecoveryState;
use matrix_sdk::event_handler::Ctx;
use matrix_sdk::ruma::api::client::uiaa::{AuthData, Password, UserIdentifier};
use matrix_sdk::ruma::events::room::encrypted::OriginalSyncRoomEncryptedEvent;
use matrix_sdk::ruma::events::room::message::OriginalSyncRoomMessageEvent;
use matrix_sdk::ruma::serde::Raw;
use matrix_sdk::ruma::{OwnedEventId, OwnedRoomId, OwnedUserId};
use matrix_sdk::{Client, Room, RoomState};
use tracing::{info, warn};

use super::login::write_private;
use super::send::{Target, send};
use super::{Bot, MatrixConfig, PLATFORM, redacted};
use crate::chat::Reply;
use crate::service::User;

/// The file the recovery key is written to when the bot makes one, inside the store folder.
pub(super) const RECOVERY_KEY_FILE: &str = "recovery-key";
/// How long, on the service's clock, an undecryptable message is tried again before its
/// sender is asked to send it again.
pub(super) const UNREADABLE_PATIENCE: i64 = 5 * 60;
/// How often undecryptable messages are tried again.
const RETRY_EVERY: Duration = Duration::from_secs(5);
/// How long to wait for the account's recovery state to be known after the first sync.
const RECOVERY_STATE_WAIT: Duration = Duration::from_secs(20);

/// Makes the account trustworthy to other clients, once its first sync is done: its
/// cross-signing identity set up (with the password when the homeserver asks for it) and its
/// room keys backed up under a recovery key: taken from `MATRIX_RECOVERY_KEY` when the
/// account already has one, else made now and written once to `recovery-key` in the store
/// folder (readable by its owner only). Failures are logged: the bot still works without.
pub(super) async fn secure(client: &Client, config: &MatrixConfig) {
    if let (Some(device), Some(key)) = (client.device_id(), client.encryption().ed25519_key().await)
    {
        info!(%device, fingerprint = %key, "Matrix device (compare these to verify the bot)");
    }
    cross_sign(client, config).await;
    let recovery = client.encryption().recovery();
    let known = tokio::time::timeout(RECOVERY_STATE_WAIT, async {
        loop {
            match recovery.state() {
                RecoveryState::Unknown => tokio::time::sleep(Duration::from_millis(250)).await,
                state => return state,
            }
        }
    })
    .await
    .unwrap_or(RecoveryState::Unknown);
    let file = config.store.join(RECOVERY_KEY_FILE);
    match known {
        RecoveryState::Enabled => info!("Matrix key backup and recovery are on"),
        RecoveryState::Disabled => match recovery.enable().wait_for_backups_to_upload().await {
            Ok(key) => match write_private(&file, format!("{key}\n").as_bytes()) {
                Ok(()) => warn!(
                    file = %file.display(),
                    "made the Matrix account's recovery key: keep it somewhere safe (it \
                     restores the bot's encryption identity on a new device, as \
                     MATRIX_RECOVERY_KEY) and delete the file"
                ),
                Err(error) => warn!(
                    file = %file.display(), %error,
                    "made a recovery key but could not write it: recovery is on, and only a new \
                     key can be made"
                ),
            },
            Err(error) => warn!(error = %redacted(&error), "turning on key backup failed"),
        },
        RecoveryState::Incomplete => match recovery_key(config, &file) {
            Some(key) => match recovery.recover(&key).await {
                Ok(()) => info!("took over the Matrix account's identity with its recovery key"),
                Err(error) => warn!(
                    error = %redacted(&error),
                    "the recovery key did not open the account's secret storage"
                ),
            },
            None => warn!(
                "the Matrix account has key backup, but this device lacks its secrets: set \
                 MATRIX_RECOVERY_KEY to the account's recovery key"
            ),
        },
        RecoveryState::Unknown => warn!("the Matrix account's recovery state is unknown"),
    }
}

/// The recovery key from the environment, or from the file an earlier start wrote.
fn recovery_key(config: &MatrixConfig, file: &Path) -> Option<String> {
    if let Some(key) = &config.recovery_key {
        return Some(key.expose().to_owned());
    }
    let text = std::fs::read_to_string(file).ok()?;
    let key = text.trim();
    (!key.is_empty()).then(|| key.to_owned())
}

/// Sets up cross-signing when the account has none; when the homeserver wants the password
/// for it, gives the configured one.
async fn cross_sign(client: &Client, config: &MatrixConfig) {
    let encryption = client.encryption();
    let error = match encryption.bootstrap_cross_signing_if_needed(None).await {
        Ok(()) => return,
        Err(error) => error,
    };
    let (Some(info), Some(password), Some(user)) =
        (error.as_uiaa_response(), &config.password, client.user_id())
    else {
        warn!(
            error = %redacted(&error),
            "setting up cross-signing failed: start once with MATRIX_PASSWORD set"
        );
        return;
    };
    let mut auth = Password::new(
        UserIdentifier::from(user.to_owned()),
        password.expose().to_owned(),
    );
    auth.session.clone_from(&info.session);
    if let Err(error) = encryption
        .bootstrap_cross_signing_if_needed(Some(AuthData::Password(auth)))
        .await
    {
        warn!(error = %redacted(&error), "setting up cross-signing failed");
    }
}

/// Messages the bot could not decrypt yet, by event.
#[derive(Debug, Clone, Default)]
pub(super) struct Unreadable(Arc<std::sync::Mutex<HashMap<OwnedEventId, Waiting>>>);

/// An undecryptable message waiting for its key.
#[derive(Debug, Clone)]
struct Waiting {
    room: OwnedRoomId,
    sender: OwnedUserId,
    event: Raw<OriginalSyncRoomEncryptedEvent>,
    /// When it was first seen (service clock).
    since: i64,
}

impl Unreadable {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<OwnedEventId, Waiting>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// An encrypted event reaches the handlers only when the SDK could not decrypt it: it waits
/// for its key.
pub(super) async fn on_unreadable(
    raw: Raw<OriginalSyncRoomEncryptedEvent>,
    room: Room,
    Ctx(bot): Ctx<Bot>,
) {
    if room.state() != RoomState::Joined {
        return;
    }
    wait(&bot, &room, raw);
}

/// Keeps an undecryptable message (not the bot's own) to try again as keys arrive.
pub(super) fn wait(bot: &Bot, room: &Room, raw: Raw<OriginalSyncRoomEncryptedEvent>) {
    let Ok(event) = raw.deserialize() else {
        return;
    };
    if event.sender == bot.own {
        return;
    }
    info!(room = %room.room_id(), event = %event.event_id, "a message could not be decrypted yet");
    bot.unreadable
        .lock()
        .entry(event.event_id)
        .or_insert(Waiting {
            room: room.room_id().to_owned(),
            sender: event.sender,
            event: raw,
            since: bot.service.now(),
        });
}

/// Tries the waiting messages again now and then: one that decrypts is answered like any
/// other; one still unreadable after [`UNREADABLE_PATIENCE`] gets its sender asked, once,
/// to send it again.
pub(super) async fn retry_unreadable(client: Client, bot: Bot) {
    let mut every = tokio::time::interval(RETRY_EVERY);
    loop {
        every.tick().await;
        let waiting: Vec<(OwnedEventId, Waiting)> = bot
            .unreadable
            .lock()
            .iter()
            .map(|(id, w)| (id.clone(), w.clone()))
            .collect();
        for (id, waiting) in waiting {
            let Some(room) = client.get_room(&waiting.room) else {
                bot.unreadable.lock().remove(&id);
                continue;
            };
            if let Some(message) = decrypt(&room, &waiting.event).await {
                bot.unreadable.lock().remove(&id);
                info!(room = %room.room_id(), event = %id, "a message was decrypted at last");
                super::on_message(message, &room, &bot);
            } else if bot.service.now() - waiting.since >= UNREADABLE_PATIENCE {
                bot.unreadable.lock().remove(&id);
                ask_again(&room, id, &waiting).await;
            }
        }
    }
}

/// The message, if it decrypts now and is a room message.
async fn decrypt(
    room: &Room,
    event: &Raw<OriginalSyncRoomEncryptedEvent>,
) -> Option<OriginalSyncRoomMessageEvent> {
    let decrypted = room.decrypt_event(event, None).await.ok()?;
    if decrypted.kind.is_utd() {
        return None;
    }
    decrypted
        .raw()
        .deserialize_as_unchecked::<OriginalSyncRoomMessageEvent>()
        .ok()
}

/// Tells the sender, in the room, that their message could not be read.
async fn ask_again(room: &Room, id: OwnedEventId, waiting: &Waiting) {
    let sender = User::new(
        PLATFORM,
        waiting.sender.as_str(),
        waiting.sender.localpart(),
    );
    let reply = Reply::text("").mention(sender).and(
        ", I could not read a message you sent here: it was encrypted with keys my device \
             never received. Please send it again (if it keeps happening, verify my device or \
             check that your client shares keys with unverified devices).",
    );
    let target = Target {
        reply_to: Some(id),
        thread: None,
    };
    if send(room, &reply, &target).await {
        info!(room = %room.room_id(), "asked a sender to send an unreadable message again");
    }
}
