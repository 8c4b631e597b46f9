//! Database URLs: which backend a URL names, and the URL as it may be logged (its password
//! hidden).

use std::fmt;
use std::path::PathBuf;

use super::{Result, StoreError};

/// The database a URL names.
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum DatabaseUrl {
    /// A SQLite file: `sqlite://FILE`, `sqlite:FILE` (a relative or absolute path,
    /// `sqlite:///srv/pigeon.db`) or a plain path.
    Sqlite(PathBuf),
    /// A PostgreSQL database: the whole `postgres://` or `postgresql://` URL, as libpq reads it
    /// (`postgres://pigeon:secret@db.example.org:5432/pigeon?sslmode=require`).
    Postgres(String),
}

impl DatabaseUrl {
    /// Reads a database URL.
    ///
    /// # Errors
    /// [`StoreError::Url`] for an unknown scheme, for options in a SQLite URL (`?mode=ro`) and
    /// for an in-memory or empty SQLite name.
    pub fn parse(url: &str) -> Result<DatabaseUrl> {
        let path = if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            return Ok(DatabaseUrl::Postgres(url.to_owned()));
        } else if let Some(path) = url.strip_prefix("sqlite://") {
            path
        } else if let Some(path) = url.strip_prefix("sqlite:") {
            path
        } else if let Some((scheme, _)) = url.split_once("://") {
            return Err(StoreError::Url(format!(
                "unknown database URL scheme `{scheme}`"
            )));
        } else {
            url
        };
        if path.contains('?') {
            return Err(StoreError::Url(format!(
                "options in a SQLite database URL are not supported (`{url}`)"
            )));
        }
        if path.is_empty() || path == ":memory:" {
            return Err(StoreError::Url(format!("`{url}` names no database file")));
        }
        Ok(DatabaseUrl::Sqlite(PathBuf::from(path)))
    }
}

/// Logs and errors show the URL with its password hidden.
impl fmt::Display for DatabaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DatabaseUrl::Sqlite(path) => write!(f, "{}", path.display()),
            DatabaseUrl::Postgres(url) => f.write_str(&redacted(url)),
        }
    }
}

impl fmt::Debug for DatabaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DatabaseUrl({self})")
    }
}

/// `url` with the password of its user part and of a `password=` option replaced by `***`:
/// what may be logged or shown.
fn redacted(url: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (url, None),
    };
    let mut shown = match base.split_once("://") {
        Some((scheme, rest)) => {
            // The user part ends at the last `@` before the path.
            let authority_end = rest.find('/').unwrap_or(rest.len());
            match rest[..authority_end].rfind('@') {
                Some(at) => {
                    let user = &rest[..at];
                    let user = user.split_once(':').map_or(user, |(name, _)| name);
                    let hidden = if rest[..at].contains(':') { ":***" } else { "" };
                    format!("{scheme}://{user}{hidden}{}", &rest[at..])
                }
                None => base.to_owned(),
            }
        }
        None => base.to_owned(),
    };
    if let Some(query) = query {
        let options: Vec<String> = query
            .split('&')
            .map(|option| match option.split_once('=') {
                Some((key, _)) if key.eq_ignore_ascii_case("password") => format!("{key}=***"),
                _ => option.to_owned(),
            })
            .collect();
        shown.push('?');
        shown.push_str(&options.join("&"));
    }
    shown
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn database_urls_name_sqlite_files() {
        for (url, path) in [
            ("sqlite://pigeon.db", "pigeon.db"),
            ("sqlite:pigeon.db", "pigeon.db"),
            ("sqlite:///srv/pigeon/games.db", "/srv/pigeon/games.db"),
            ("pigeon.db", "pigeon.db"),
            ("/srv/pigeon/games.db", "/srv/pigeon/games.db"),
            ("data/games.db", "data/games.db"),
        ] {
            let parsed = DatabaseUrl::parse(url).expect(url);
            assert_eq!(parsed, DatabaseUrl::Sqlite(Path::new(path).into()), "{url}");
        }
    }

    #[test]
    fn postgres_urls_name_postgres() {
        for url in [
            "postgres://pigeon@localhost/pigeon",
            "postgresql://localhost/pigeon",
            "postgres://pigeon:secret@db.example.org:5432/pigeon?sslmode=require",
        ] {
            let parsed = DatabaseUrl::parse(url).expect(url);
            assert_eq!(parsed, DatabaseUrl::Postgres(url.to_owned()));
        }
    }

    #[test]
    fn other_database_urls_are_refused_with_what_to_use() {
        for url in [
            "mysql://localhost/pigeon",
            "sqlite://pigeon.db?mode=ro",
            "sqlite::memory:",
            "sqlite://",
            "",
        ] {
            let error = DatabaseUrl::parse(url).expect_err(url).to_string();
            assert!(
                error.ends_with("use sqlite://FILE, a file path or postgres://USER@HOST/DATABASE"),
                "{url}: {error}"
            );
        }
        let error = DatabaseUrl::parse("mysql://localhost/pigeon").expect_err("refused");
        assert_eq!(
            error.to_string(),
            "unknown database URL scheme `mysql`; use sqlite://FILE, a file path or \
             postgres://USER@HOST/DATABASE"
        );
    }

    #[test]
    fn passwords_are_hidden() {
        for (url, shown) in [
            (
                "postgres://pigeon:s3cr:et@db.example.org:5432/pigeon",
                "postgres://pigeon:***@db.example.org:5432/pigeon",
            ),
            (
                "postgresql://pigeon:p%40ss@localhost/pigeon?sslmode=require",
                "postgresql://pigeon:***@localhost/pigeon?sslmode=require",
            ),
            (
                "postgres://localhost/pigeon?user=pigeon&password=hunter2",
                "postgres://localhost/pigeon?user=pigeon&password=***",
            ),
            (
                "postgres://pigeon@localhost/pigeon",
                "postgres://pigeon@localhost/pigeon",
            ),
            ("postgres:///pigeon", "postgres:///pigeon"),
        ] {
            assert_eq!(redacted(url), shown, "{url}");
            let parsed = DatabaseUrl::parse(url).expect(url);
            assert_eq!(parsed.to_string(), shown);
            assert!(!format!("{parsed:?}").contains("hunter2"));
        }
    }
}
