//! Logging in: the client on its store folder, the saved login restored or made.

use std::path::{Path, PathBuf};

use matrix_sdk::authentication::matrix::MatrixSession;
use matrix_sdk::encryption::{BackupDownloadStrategy, EncryptionSettings};
use matrix_sdk::ruma::UserId;
use matrix_sdk::ruma::api::error::ErrorKind;
use matrix_sdk::store::RoomLoadSettings;
use matrix_sdk::{Client, ClientBuildError};
use tracing::{info, warn};

use super::{DEVICE_NAME, MatrixConfig, MatrixError, PLATFORM, SESSION_FILE};
use crate::service::Service;

/// Where earlier versions kept the account's first start, inside the store folder.
const FIRST_START_FILE: &str = "first-start";
/// Present when the store is encrypted with a passphrase.
const ENCRYPTED_FILE: &str = "encrypted";
/// The SDK's crypto store, present once the store was made.
const CRYPTO_STORE_FILE: &str = "matrix-sdk-crypto.sqlite3";

/// Builds the client on its store and logs in: from the saved session when there is one,
/// with the password (then saving the session) otherwise.
pub(super) async fn connect(config: &MatrixConfig) -> Result<Client, MatrixError> {
    private_folder(&config.store).map_err(|source| MatrixError::Store {
        path: config.store.clone(),
        source,
    })?;
    let passphrase = store_passphrase(config)?;
    let client = Client::builder()
        .homeserver_url(&config.homeserver)
        .sqlite_store(&config.store, passphrase)
        .with_encryption_settings(EncryptionSettings {
            // Cross-signing is set up right after the first login (with its password), so
            // that clients which hide unverified devices still talk to the bot.
            auto_enable_cross_signing: true,
            // A message whose key the bot lacks asks the key backup for that key.
            backup_download_strategy: BackupDownloadStrategy::AfterDecryptionFailure,
            // The backup is made with recovery (see `encryption::secure`).
            auto_enable_backups: false,
        })
        .build()
        .await
        .map_err(|source| match passphrase {
            Some(_) if matches!(source, ClientBuildError::SqliteStore(_)) => {
                MatrixError::WrongPassphrase {
                    path: config.store.clone(),
                    message: source.to_string(),
                }
            }
            _ => MatrixError::Client {
                homeserver: config.homeserver.clone(),
                source: Box::new(source),
            },
        })?;
    let path = session_path(&config.store);
    let session_error = |message: String| MatrixError::Session {
        path: path.clone(),
        message,
    };
    match std::fs::read(&path) {
        Ok(bytes) => {
            let session: MatrixSession =
                serde_json::from_slice(&bytes).map_err(|e| session_error(e.to_string()))?;
            client
                .matrix_auth()
                .restore_session(session, RoomLoadSettings::default())
                .await
                .map_err(|e| session_error(e.to_string()))?;
            return Ok(client);
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => return Err(session_error(error.to_string())),
    }
    let password = config
        .password
        .as_ref()
        .ok_or_else(|| MatrixError::NoPassword(config.store.clone()))?;
    client
        .matrix_auth()
        .login_username(&config.user, password.expose())
        .initial_device_display_name(DEVICE_NAME)
        .send()
        .await
        .map_err(|source| MatrixError::Login {
            user: config.user.clone(),
            source: Box::new(source),
        })?;
    let session = client
        .matrix_auth()
        .session()
        .expect("a successful login leaves a session");
    let json = serde_json::to_vec(&session).map_err(|e| session_error(e.to_string()))?;
    write_private(&path, &json).map_err(|e| session_error(e.to_string()))?;
    Ok(client)
}

/// The passphrase to open the store with, checked against how the store was made: a marker
/// file says the store is encrypted, so that a passphrase forgotten in the environment (or
/// one set for a store made without) is a clear error rather than a store that does not open.
fn store_passphrase(config: &MatrixConfig) -> Result<Option<&str>, MatrixError> {
    let marker = config.store.join(ENCRYPTED_FILE);
    let made = config.store.join(CRYPTO_STORE_FILE).exists();
    let encrypted = marker.exists();
    let mismatch = |made, now, what| MatrixError::Passphrase {
        path: config.store.clone(),
        made,
        now,
        what,
    };
    match &config.store_passphrase {
        None if encrypted => Err(mismatch(
            "with a passphrase",
            "not set",
            "set it to the store's passphrase",
        )),
        None => {
            warn!(
                store = %config.store.display(),
                "the Matrix store (the bot's encryption keys) is not encrypted on disk: set \
                 MATRIX_STORE_PASSPHRASE before the first start"
            );
            Ok(None)
        }
        Some(_) if made && !encrypted => Err(mismatch(
            "without a passphrase",
            "set",
            "unset it, or move the folder away to make a new store with it (the bot then logs \
             in as a new device: set MATRIX_PASSWORD, and MATRIX_RECOVERY_KEY to keep its \
             encryption identity)",
        )),
        Some(passphrase) => {
            if !encrypted {
                write_private(
                    &marker,
                    b"this store is encrypted with MATRIX_STORE_PASSPHRASE\n",
                )
                .map_err(|source| MatrixError::Store {
                    path: config.store.clone(),
                    source,
                })?;
            }
            Ok(Some(passphrase.expose()))
        }
    }
}

/// When the account first started (seconds since 1970), from the game database, where every
/// process that may sync the account reads the same time; the first start records it. A
/// `first-start` file that an earlier version kept in the store folder is brought into the
/// database once (an earlier time wins) and then removed.
pub(super) async fn first_start(
    service: &Service,
    store: &Path,
    own: &UserId,
) -> Result<i64, MatrixError> {
    let path = store.join(FIRST_START_FILE);
    let store_error = |source| MatrixError::Store {
        path: path.clone(),
        source,
    };
    let kept = match std::fs::read_to_string(&path) {
        Ok(text) => Some(text.trim().parse::<i64>().map_err(|_| {
            store_error(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "the file holds no time: delete it",
            ))
        })?),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
        Err(error) => return Err(store_error(error)),
    };
    let first_start = service
        .first_start(PLATFORM, own.as_str(), kept)
        .await
        .map_err(MatrixError::FirstStart)?;
    if kept.is_some() {
        std::fs::remove_file(&path).map_err(store_error)?;
        info!(
            file = %path.display(),
            "the account's first start is now kept in the game database"
        );
    }
    Ok(first_start)
}

pub(super) fn session_path(store: &Path) -> PathBuf {
    store.join(SESSION_FILE)
}

/// Creates a folder only its owner can open (mode 0700), or makes an existing one so: the
/// store folder holds the access token and the encryption keys.
fn private_folder(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(path)?;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o700))
    }
    #[cfg(not(unix))]
    std::fs::create_dir_all(path)
}

/// Writes a file only its owner can read (it holds the access token).
pub(super) fn write_private(path: &Path, data: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    file.write_all(data)?;
    file.sync_all()
}

pub(super) fn logged_out(error: &matrix_sdk::Error) -> bool {
    matches!(
        error.client_api_error_kind(),
        Some(ErrorKind::UnknownToken(_))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn the_store_folder_is_private() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |path: &Path| {
            std::fs::metadata(path)
                .expect("the folder exists")
                .permissions()
                .mode()
                & 0o777
        };
        let dir = tempfile::tempdir().expect("a temporary folder");
        let fresh = dir.path().join("pigeon-matrix");
        private_folder(&fresh).expect("created");
        assert_eq!(mode(&fresh), 0o700);
        let open = dir.path().join("open");
        std::fs::create_dir(&open).expect("created");
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o755)).expect("set");
        private_folder(&open).expect("tightened");
        assert_eq!(mode(&open), 0o700);
    }
}
