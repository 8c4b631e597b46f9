//! Leases: work that one process at a time may do (syncing a Matrix account), held in the
//! database by one process, renewed while it lives, and taken over by another once it lapses.
//! And what every process that may take such work over must agree on: when the account
//! first started.

use super::{Service, ServiceError};

/// How long a lease lasts, in seconds, unless its holder renews it.
pub const LEASE_TERM: i64 = 45;

/// A lease this process holds or waits for.
#[derive(Debug, Clone)]
pub struct Lease {
    service: Service,
    name: String,
    holder: String,
}

impl Lease {
    /// Takes the lease, or renews it when this process holds it, for [`LEASE_TERM`] from now
    /// on the service's clock. `false` when another process holds it.
    ///
    /// # Errors
    /// `Internal` when the database fails.
    pub async fn take(&self) -> Result<bool, ServiceError> {
        let now = self.service.now();
        Ok(self
            .service
            .store
            .take_lease(&self.name, &self.holder, now, now + LEASE_TERM)
            .await?)
    }

    /// Lets the lease go (a clean stop), so another process may take it at once. Failing,
    /// it lapses by itself.
    pub async fn release(&self) {
        if let Err(error) = self
            .service
            .store
            .release_lease(&self.name, &self.holder)
            .await
        {
            tracing::warn!(lease = %self.name, %error, "letting a lease go failed; it lapses");
        }
    }

    /// What is leased.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl Service {
    /// When the chat account `account` of `platform` first started (seconds since 1970):
    /// messages from before then were never meant for it. Recorded in the game database on
    /// the first call (any process reads the same time), as `known` when an older record is
    /// brought in (kept if earlier than the recorded time), else as now.
    ///
    /// # Errors
    /// `Internal` when the database fails.
    pub async fn first_start(
        &self,
        platform: &str,
        account: &str,
        known: Option<i64>,
    ) -> Result<i64, ServiceError> {
        let now = self.now();
        let at = known.map_or(now, |known| known.min(now));
        Ok(self.store.first_start(platform, account, at).await?)
    }

    /// The lease `name` as this process would hold it (each call is another holder).
    #[must_use]
    pub fn lease(&self, name: &str) -> Lease {
        Lease {
            service: self.clone(),
            name: name.to_owned(),
            holder: format!("process {} #{:08x}", std::process::id(), fastrand::u32(..)),
        }
    }
}
