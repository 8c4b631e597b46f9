//! Helpers shared by the integration tests.

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

/// Runs `sql` (with `id` bound to `?1`) on the database file behind the store's back, as a
/// faulty disk or a bad edit would.
pub async fn tamper(db: &std::path::Path, sql: &'static str, id: i64) {
    use sqlx::Connection;
    let url = format!("sqlite://{}", db.display());
    let mut connection = sqlx::SqliteConnection::connect(&url)
        .await
        .expect("connects");
    sqlx::query(sql)
        .bind(id)
        .execute(&mut connection)
        .await
        .expect("changed");
    connection.close().await.expect("closed");
}
