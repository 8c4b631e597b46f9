//! Batches in the turn to write: statements sent to SQLite's thread in one round trip, and
//! writes committed in groups.
//!
//! A move is a few statements that each apply only when the one before them changed rows
//! (see `games.rs`). Sent one by one they would hold the turn to write for a round trip each;
//! sent as one batch they hold it for one. And while one batch runs, the writes that arrive
//! wait: when the turn passes on, all of them go in the next batch, one transaction and one
//! `fsync` for the group (group commit). Each write's statements guard themselves, so a write
//! that loses its race in a group changes nothing and the others are unaffected; if the
//! group fails as a whole (one write breaks a constraint), nothing of it was committed and
//! each write is run again alone, for its own answer.

use std::sync::{Arc, PoisonError};

use futures_util::TryStreamExt as _;
use sqlx::sqlite::SqliteArguments;
use sqlx::{AssertSqlSafe, Executor as _, Sqlite};
use tokio::sync::{OwnedMutexGuard, oneshot};

use super::SqliteDatabase;
use crate::store::{Result, StoreError};

/// The most writes committed in one group. Each binds a few dozen values, far below
/// SQLite's limit of 32,766 for a batch.
const MAX_GROUP: usize = 64;

/// A value bound to a parameter of a grouped write, owned so that whichever writer's task
/// commits the group can bind it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Value {
    Integer(Option<i64>),
    Text(Option<String>),
}

impl From<i64> for Value {
    fn from(value: i64) -> Value {
        Value::Integer(Some(value))
    }
}

impl From<Option<i64>> for Value {
    fn from(value: Option<i64>) -> Value {
        Value::Integer(value)
    }
}

impl From<&str> for Value {
    fn from(value: &str) -> Value {
        Value::Text(Some(value.to_owned()))
    }
}

impl From<Option<&str>> for Value {
    fn from(value: Option<&str>) -> Value {
        Value::Text(value.map(str::to_owned))
    }
}

impl From<String> for Value {
    fn from(value: String) -> Value {
        Value::Text(Some(value))
    }
}

type Query<'q> = sqlx::query::Query<'q, Sqlite, SqliteArguments>;

impl Value {
    fn bind(self, query: Query<'_>) -> Query<'_> {
        match self {
            Value::Integer(value) => query.bind(value),
            Value::Text(value) => query.bind(value),
        }
    }
}

/// A write that may be committed together with others: its statements, each ending with `;`
/// and none beginning or ending a transaction, and the values of their plain `?` parameters
/// in the order they appear.
#[derive(Debug, Clone)]
pub(super) struct Grouped {
    pub(super) statements: &'static str,
    pub(super) values: Vec<Value>,
}

impl Grouped {
    /// How many statements the write has.
    fn count(&self) -> usize {
        self.statements.matches(';').count()
    }
}

/// A write waiting for its group, and where its statements' counts of changed rows go.
#[derive(Debug)]
pub(super) struct Waiting {
    write: Grouped,
    done: oneshot::Sender<Result<Vec<u64>>>,
}

/// A batch of statements running on a connection in this process's turn to write (see
/// [`SqliteDatabase::run_batch`]). A batch that did not finish is closed before the turn
/// passes on, so the next writer finds SQLite's write lock free: at once after an error, and
/// by a task of its own when the caller gave up waiting (dropped outside a runtime, the
/// connection is closed when the pool lets it go).
struct Batch {
    /// `None` once the batch finished and the connection went back to the pool.
    connection: Option<sqlx::pool::PoolConnection<Sqlite>>,
    turn: Option<OwnedMutexGuard<()>>,
}

impl Batch {
    /// Closes the connection, rolling back whatever the batch left open, then passes the
    /// turn on.
    async fn close(mut self) {
        if let Some(connection) = self.connection.take() {
            let _ = connection.close().await;
        }
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        let Some(mut connection) = self.connection.take() else {
            return;
        };
        let turn = self.turn.take();
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(async move {
                    let _ = connection.close().await;
                    drop(turn);
                });
            }
            Err(_) => connection.close_on_drop(),
        }
    }
}

/// The text of a transaction of `writes`, from `BEGIN IMMEDIATE` to `COMMIT`, with their
/// values bound in order; and how many statements it has.
fn transaction<'w>(writes: impl Iterator<Item = &'w Grouped> + Clone) -> (Query<'static>, usize) {
    let mut text = String::from("BEGIN IMMEDIATE; ");
    let mut count = 2;
    for write in writes.clone() {
        text.push_str(write.statements);
        text.push(' ');
        count += write.count();
    }
    text.push_str("COMMIT");
    let query = writes
        .flat_map(|write| write.values.iter().cloned())
        .fold(sqlx::query(AssertSqlSafe(text)), |query, value| {
            value.bind(query)
        });
    (query, count)
}

impl SqliteDatabase {
    /// Commits `write` in this process's turn to write, with whatever other writes are
    /// waiting for the turn when it comes, and gives its statements' counts of changed rows
    /// (only an `INSERT`, `UPDATE` or `DELETE` has its own).
    ///
    /// The writer whose turn comes commits the group in a task of its own, so the group is
    /// committed and answered even if that writer stops waiting. A write whose caller stopped
    /// waiting before its group was formed is left out.
    pub(super) async fn grouped(&self, write: Grouped) -> Result<Vec<u64>> {
        let (done, mut answer) = oneshot::channel();
        self.waiting().push(Waiting { write, done });
        let turn = tokio::select! {
            biased;
            answer = &mut answer => return answered(answer),
            turn = Arc::clone(&self.writer).lock_owned() => turn,
        };
        let group: Vec<Waiting> = {
            let mut waiting = self.waiting();
            waiting.retain(|write| !write.done.is_closed());
            let take = waiting.len().min(MAX_GROUP);
            waiting.drain(..take).collect()
        };
        if group.is_empty() {
            // Committed by the writer whose turn came before this one.
            drop(turn);
        } else {
            tokio::spawn(self.clone().commit_group(group, turn));
        }
        answered(answer.await)
    }

    fn waiting(&self) -> std::sync::MutexGuard<'_, Vec<Waiting>> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Commits `group` in one transaction in `turn`, and answers each write before the turn
    /// passes on (so that the writes answered need not take it in their turn); after a
    /// failure of a group of several, each write is run again alone.
    async fn commit_group(self, mut group: Vec<Waiting>, turn: OwnedMutexGuard<()>) {
        // The order within a group does not matter (its writes came at the same time), and
        // writes in the same order make the same text, which SQLite prepared before.
        group.sort_by_key(|waiting| waiting.write.statements.as_ptr());
        let (query, count) = transaction(group.iter().map(|waiting| &waiting.write));
        match self.run_batch(query, count, turn).await {
            Ok((changes, _turn)) => {
                let mut changes = changes.into_iter();
                for waiting in group {
                    let own = changes.by_ref().take(waiting.write.count()).collect();
                    let _ = waiting.done.send(Ok(own));
                }
            }
            Err(error) if group.len() == 1 => {
                if let Some(waiting) = group.pop() {
                    let _ = waiting.done.send(Err(error));
                }
            }
            Err(_) => {
                for waiting in group {
                    let (query, count) = transaction(std::iter::once(&waiting.write));
                    let turn = Arc::clone(&self.writer).lock_owned().await;
                    let alone = self.run_batch(query, count, turn).await;
                    let _ = waiting.done.send(alone.map(|(changes, _turn)| changes));
                }
            }
        }
    }

    /// Runs `batch`, `statements` statements from `BEGIN IMMEDIATE` to `COMMIT`, in `turn`
    /// and as one round trip to SQLite's thread, and gives the count of changed rows of each
    /// statement between `BEGIN` and `COMMIT`, with the turn for the caller to pass on once
    /// it answered. A transaction of separate statements holds the turn for one round trip
    /// each, and the task waits to be run again between them while other turns keep the
    /// runtime busy.
    ///
    /// The batch's `BEGIN` is invisible to sqlx, so one that fails, gives fewer results than
    /// statements or is given up half way may leave a transaction open that the pool would
    /// not see: its connection is then closed, which rolls the transaction back, and only
    /// then does the turn pass on (see [`Batch`]).
    ///
    /// sqlx binds the plain `?` parameters of a multi-statement query in order across its
    /// statements, and binds NULL for any it was not given: the batches' tests count them.
    async fn run_batch(
        &self,
        batch: Query<'_>,
        statements: usize,
        turn: OwnedMutexGuard<()>,
    ) -> Result<(Vec<u64>, OwnedMutexGuard<()>)> {
        let mut running = Batch {
            connection: None,
            turn: Some(turn),
        };
        let connection = running.connection.insert(self.pool.acquire().await?);
        let ran: std::result::Result<Vec<u64>, sqlx::Error> = (&mut **connection)
            .execute_many(batch)
            .map_ok(|done| done.rows_affected())
            .try_collect()
            .await;
        match ran {
            Ok(mut changes) if changes.len() == statements => {
                // Finished: the connection goes back to the pool, the turn to the caller.
                drop(running.connection.take());
                changes.pop();
                changes.remove(0);
                let turn = running.turn.take();
                turn.map(|turn| (changes, turn)).ok_or_else(|| {
                    StoreError::Database(sqlx::Error::Protocol(String::from(
                        "a batch ended without its turn",
                    )))
                })
            }
            Ok(changes) => {
                running.close().await;
                Err(StoreError::Database(sqlx::Error::Protocol(format!(
                    "a batch of {statements} statements gave {} results",
                    changes.len()
                ))))
            }
            Err(error) => {
                running.close().await;
                Err(error.into())
            }
        }
    }
}

/// A grouped write's answer: its caller's, or an error if the group's task ended without
/// one (its runtime shutting down).
fn answered(
    answer: std::result::Result<Result<Vec<u64>>, oneshot::error::RecvError>,
) -> Result<Vec<u64>> {
    answer.unwrap_or_else(|_| {
        Err(StoreError::Database(sqlx::Error::Protocol(String::from(
            "the group of writes ended without an answer",
        ))))
    })
}

#[cfg(test)]
mod tests {
    use super::super::{games, players};
    use super::*;
    use crate::store::{AppendMoves, NewGame};

    struct Fixture {
        db: SqliteDatabase,
        /// White's player id.
        alice: i64,
        games: Vec<i64>,
        _dir: tempfile::TempDir,
    }

    /// A database with `count` games between alice and bob, none moved yet.
    async fn fixture(count: usize) -> Fixture {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let db = SqliteDatabase::open(&dir.path().join("pigeon.db"))
            .await
            .expect("opened");
        let alice = players::player(&db, "console", "alice", "alice", 0).await;
        let bob = players::player(&db, "console", "bob", "bob", 0).await;
        let (alice, bob) = (alice.expect("alice").id, bob.expect("bob").id);
        let mut ids = Vec::new();
        for n in 0..count {
            let game = NewGame {
                platform: "console",
                channel: "general",
                game_key: "chak",
                start_position: "start",
                white_id: alice,
                black_id: bob,
                days_per_move: 3,
                deadline: 1_000,
                rematch_of: None,
                now: 0,
                community: "general",
                rated: true,
                bot: None,
                rules: "standard",
                takebacks: true,
                web_id: format!("game{n}"),
            };
            ids.push(games::create_game(&db, &game).await.expect("created").id);
        }
        Fixture {
            db,
            alice,
            games: ids,
            _dir: dir,
        }
    }

    /// White's first move `text` in `game_id`, by `player`, in a task of its own.
    fn play(
        db: &SqliteDatabase,
        game_id: i64,
        text: &'static str,
        player: i64,
    ) -> tokio::task::JoinHandle<Result<()>> {
        let db = db.clone();
        tokio::spawn(async move {
            let moves = [(text.to_owned(), Some(player))];
            let append = AppendMoves {
                game_id,
                expected_ply: 0,
                expected_revision: 0,
                moves: &moves,
                position: text,
                deadline: Some(2_000),
                finish: None,
                mover: "white",
                now: 60,
                notice: None,
            };
            games::append_moves(&db, &append).await
        })
    }

    /// Lets the spawned writers run until `count` of them wait for their group.
    async fn until_waiting(db: &SqliteDatabase, count: usize) {
        while db.waiting().len() < count {
            tokio::task::yield_now().await;
        }
    }

    async fn positions(db: &SqliteDatabase, games: &[i64]) -> Vec<(String, usize)> {
        let mut found = Vec::new();
        for &id in games {
            let game = games::game(db, id).await.expect("read").expect("exists");
            let moves = games::moves(db, id).await.expect("read");
            found.push((game.position, moves.len()));
        }
        found
    }

    #[tokio::test]
    async fn writes_that_wait_for_the_turn_are_committed_together_each_with_its_answer() {
        let fixture = fixture(2).await;
        let (db, alice, games) = (&fixture.db, fixture.alice, &fixture.games);
        let turn = Arc::clone(&db.writer).lock_owned().await;
        let first = play(db, games[0], "e3e4", alice);
        let other = play(db, games[1], "e3e4", alice);
        let rival = play(db, games[0], "d3d4", alice);
        until_waiting(db, 3).await;
        drop(turn);
        let first = first.await.expect("ran");
        let other = other.await.expect("ran");
        let rival = rival.await.expect("ran");
        assert!(db.waiting().is_empty(), "the first writer took all three");
        assert!(other.is_ok(), "{other:?}");
        // The two moves in the same game raced: one landed, the other was told.
        let landed = match (first, rival) {
            (Ok(()), Err(StoreError::Conflict)) => "e3e4",
            (Err(StoreError::Conflict), Ok(())) => "d3d4",
            answers => panic!("one move lands and one is refused: {answers:?}"),
        };
        assert_eq!(
            positions(db, games).await,
            [(landed.to_owned(), 1), (String::from("e3e4"), 1)]
        );
    }

    #[tokio::test]
    async fn a_write_that_breaks_its_group_fails_alone_and_the_others_land() {
        let fixture = fixture(3).await;
        let (db, alice, games) = (&fixture.db, fixture.alice, &fixture.games);
        let turn = Arc::clone(&db.writer).lock_owned().await;
        let first = play(db, games[0], "e3e4", alice);
        // Names no player: its moves break a foreign key after its game's row changed.
        let broken = play(db, games[1], "e3e4", alice + 1_000);
        let last = play(db, games[2], "d3d4", alice);
        until_waiting(db, 3).await;
        drop(turn);
        assert!(first.await.expect("ran").is_ok());
        let broken = broken.await.expect("ran");
        assert!(matches!(broken, Err(StoreError::Database(_))), "{broken:?}");
        assert!(last.await.expect("ran").is_ok());
        assert_eq!(
            positions(db, games).await,
            [
                (String::from("e3e4"), 1),
                (String::from("start"), 0),
                (String::from("d3d4"), 1)
            ]
        );
        // Writing goes on.
        let again = play(db, games[1], "c3c4", alice).await.expect("ran");
        assert!(again.is_ok(), "{again:?}");
    }

    #[tokio::test]
    async fn a_write_whose_caller_stopped_waiting_before_its_group_is_left_out() {
        let fixture = fixture(2).await;
        let (db, alice, games) = (&fixture.db, fixture.alice, &fixture.games);
        let turn = Arc::clone(&db.writer).lock_owned().await;
        let given_up = play(db, games[0], "e3e4", alice);
        until_waiting(db, 1).await;
        given_up.abort();
        assert!(given_up.await.is_err_and(|error| error.is_cancelled()));
        let kept = play(db, games[1], "e3e4", alice);
        until_waiting(db, 2).await;
        drop(turn);
        assert!(kept.await.expect("ran").is_ok());
        assert_eq!(
            positions(db, games).await,
            [(String::from("start"), 0), (String::from("e3e4"), 1)]
        );
    }
}
