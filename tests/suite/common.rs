//! What the integration tests share: test data, runtimes, and the databases the tests that
//! touch storage run on, one body on each backend.

use std::path::PathBuf;

/// The path of a file in `tests/data/`.
pub fn data_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("data")
        .join(name)
}

/// The text of a file in `tests/data/`.
pub fn read_data(name: &str) -> String {
    let path = data_path(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// A single-threaded async runtime for tests that drive async code from plain threads.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

/// The number of frames of a GIF, each decoded.
pub fn gif_frames(gif: &[u8]) -> usize {
    let mut decoder = gif::DecodeOptions::new().read_info(gif).expect("a GIF");
    let mut frames = 0;
    while decoder.read_next_frame().expect("frames decode").is_some() {
        frames += 1;
    }
    frames
}

/// A database backend the tests that touch storage run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// A SQLite file in a temporary folder.
    Sqlite,
    /// A database of its own on the PostgreSQL server that `PIGEON_TEST_POSTGRES` names
    /// (`tests/postgres.sh` starts one and sets it).
    Postgres,
}

/// A fresh, empty game database for one test, and a temporary folder for its other files.
#[derive(Debug)]
pub struct TestDb {
    pub backend: Backend,
    url: String,
    dir: tempfile::TempDir,
}

impl TestDb {
    /// A new database on `backend`. A PostgreSQL database is created on the test server (and
    /// thrown away with it); without `PIGEON_TEST_POSTGRES` the test fails and says why.
    pub async fn new(backend: Backend) -> TestDb {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let url = match backend {
            Backend::Sqlite => format!("sqlite://{}", dir.path().join("pigeon.db").display()),
            Backend::Postgres => create_postgres_database().await,
        };
        TestDb { backend, url, dir }
    }

    /// The database's URL, as `DATABASE_URL` would give it.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// A temporary folder that lives as long as the database.
    pub fn dir(&self) -> &std::path::Path {
        self.dir.path()
    }

    /// Opens the database (applying the migrations), as a starting process would.
    pub async fn open(&self) -> pigeon::store::Store {
        pigeon::store::Store::connect(&self.url)
            .await
            .unwrap_or_else(|e| panic!("the {:?} database opens: {e}", self.backend))
    }

    /// Runs `sql` (with `id` bound to `$1`) on the database behind the store's back, as a
    /// faulty disk or a bad edit would.
    pub async fn tamper(&self, sql: &'static str, id: i64) {
        use sqlx::Connection;
        macro_rules! on {
            ($connection:ty) => {{
                let mut connection = <$connection>::connect(&self.url).await.expect("connects");
                sqlx::query(sql)
                    .bind(id)
                    .execute(&mut connection)
                    .await
                    .expect("changed");
                connection.close().await.expect("closed");
            }};
        }
        match self.backend {
            Backend::Sqlite => on!(sqlx::SqliteConnection),
            Backend::Postgres => on!(sqlx::PgConnection),
        }
    }
}

/// The URL of the PostgreSQL server the tests use, from `PIGEON_TEST_POSTGRES`.
pub fn postgres_server() -> String {
    std::env::var("PIGEON_TEST_POSTGRES").unwrap_or_else(|_| {
        panic!(
            "PIGEON_TEST_POSTGRES is not set, so this PostgreSQL test cannot run: run the \
             suite through tests/run (or tests/postgres.sh cargo test …), which starts a \
             PostgreSQL server on 127.0.0.1 and sets it"
        )
    })
}

/// Creates an empty database with a name of its own on the test server; gives its URL.
async fn create_postgres_database() -> String {
    use sqlx::Connection;
    use std::sync::atomic::{AtomicU32, Ordering};
    static CREATED: AtomicU32 = AtomicU32::new(0);
    let server = postgres_server();
    let name = format!(
        "pigeon_test_{}_{}_{:08x}",
        std::process::id(),
        CREATED.fetch_add(1, Ordering::Relaxed),
        fastrand::u32(..)
    );
    let mut admin = sqlx::PgConnection::connect(&server)
        .await
        .unwrap_or_else(|e| panic!("the PostgreSQL test server at {server} answers: {e}"));
    // The name is made above of digits, letters and underscores only.
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut admin)
        .await
        .expect("a test database is created");
    admin.close().await.expect("closed");
    let (base, query) = match server.split_once('?') {
        Some((base, query)) => (base, format!("?{query}")),
        None => (server.as_str(), String::new()),
    };
    let (cluster, _) = base.rsplit_once('/').expect("the URL names a database");
    format!("{cluster}/{name}{query}")
}

/// Turns each `async fn NAME(db: TestDb)` test into a module `NAME` with two tests, `sqlite`
/// and `postgres`, each running the one body on a fresh database of that backend. The
/// attributes written on the function (`#[tokio::test]` with its options, its doc) go on both.
macro_rules! backends {
    ($(
        $(#[$attr:meta])*
        async fn $name:ident($db:ident: TestDb) $body:block
    )*) => {$(
        async fn $name($db: $crate::common::TestDb) $body

        mod $name {
            use $crate::common::{Backend, TestDb};

            $(#[$attr])*
            async fn sqlite() {
                super::$name(TestDb::new(Backend::Sqlite).await).await;
            }

            $(#[$attr])*
            async fn postgres() {
                super::$name(TestDb::new(Backend::Postgres).await).await;
            }
        }
    )*};
}

pub(crate) use backends;
