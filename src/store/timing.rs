//! The store's side of time: when each platform's clocks last ran (heartbeats), deadlines
//! moved on after an outage, and when the next timed event falls due.

/// What starting the clocks of a platform found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Resumed {
    /// The outage, `(from, until)`, when the clocks had run before and time passed since.
    pub outage: Option<(i64, i64)>,
    /// The games whose deadline fell inside the outage and was moved on by its length.
    pub moved: Vec<i64>,
}
