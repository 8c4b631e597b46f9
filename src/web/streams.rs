//! How many event streams may be open at once: each looks at the stored game every
//! [`super::Settings::watch`], so a client, and the site as a whole, may hold only so many.
//! A slot is taken when a stream opens and given back when it is dropped (the page closed,
//! the connection lost, the game over or the server stopping).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};

/// Most event streams one client may hold at once: a few pages open in tabs.
pub const STREAMS_PER_CLIENT: usize = 8;
/// Most event streams the site holds at once.
pub const MOST_STREAMS: usize = 256;

/// The streams open now, by client.
#[derive(Debug)]
pub(super) struct Streams {
    per_client: usize,
    most: usize,
    open: Mutex<(usize, HashMap<IpAddr, usize>)>,
}

impl Streams {
    pub(super) fn new(per_client: usize, most: usize) -> Self {
        Self {
            per_client,
            most,
            open: Mutex::new((0, HashMap::new())),
        }
    }

    /// A slot for one more stream of `client`, or `None` when the client or the site holds
    /// as many as it may.
    pub(super) fn open(self: &Arc<Self>, client: IpAddr) -> Option<Slot> {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let (total, clients) = &mut *open;
        let mine = clients.entry(client).or_insert(0);
        if *mine >= self.per_client || *total >= self.most {
            if *mine == 0 {
                clients.remove(&client);
            }
            return None;
        }
        *mine += 1;
        *total += 1;
        Some(Slot {
            streams: Arc::clone(self),
            client,
        })
    }
}

/// One open stream's place, given back when dropped.
#[derive(Debug)]
pub(super) struct Slot {
    streams: Arc<Streams>,
    client: IpAddr,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self
            .streams
            .open
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let (total, clients) = &mut *open;
        *total = total.saturating_sub(1);
        if let Some(mine) = clients.get_mut(&self.client) {
            *mine = mine.saturating_sub(1);
            if *mine == 0 {
                clients.remove(&self.client);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_and_the_site_hold_only_so_many_and_get_them_back() {
        let streams = Arc::new(Streams::new(2, 3));
        let (a, b) = (IpAddr::from([192, 0, 2, 1]), IpAddr::from([192, 0, 2, 2]));
        let first = streams.open(a).expect("a first");
        let _second = streams.open(a).expect("a second");
        assert!(streams.open(a).is_none(), "a third from one client");
        let _other = streams.open(b).expect("another client's");
        assert!(streams.open(b).is_none(), "the site is full");
        drop(first);
        assert!(
            streams.open(a).is_some(),
            "a slot given back is taken again"
        );
    }
}
