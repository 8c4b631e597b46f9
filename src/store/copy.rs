//! Copying a whole game database to another, of either kind (`pigeon migrate-db`): every
//! table, row for row, in an order the foreign keys allow, into an empty target in one
//! transaction, with the rows counted on both sides.

use super::{Result, Store, StoreError};

/// A value of a column, as both databases can hold it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    Bytes(Vec<u8>),
}

/// A table's rows: the column names and one value per column in each row.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TableRows {
    pub name: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Value>>,
}

/// What a copy did: each table with the rows copied, and the games copied by number.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Copied {
    pub tables: Vec<(String, u64)>,
    pub games: Vec<i64>,
}

/// Copies every table of `from` into `to`, which must hold no data yet (its own migrations
/// applied, nothing else). The target's tables are filled in the order its foreign keys
/// allow, in one transaction, and each table's rows are counted on both sides afterwards.
///
/// # Errors
/// [`StoreError::Copy`] when the target is not empty, a table of the source has no match in
/// the target (or lacks columns), or the counts differ; other [`StoreError`]s when either
/// database fails.
pub async fn copy(from: &Store, to: &Store) -> Result<Copied> {
    let filled: Vec<String> = to
        .table_counts()
        .await?
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .map(|(t, n)| format!("{t} ({n} rows)"))
        .collect();
    if !filled.is_empty() {
        return Err(StoreError::Copy(format!(
            "the target database is not empty: {}; copy only into a new, empty database",
            filled.join(", ")
        )));
    }
    let source_tables = from.table_counts().await?;
    let order = to.tables_in_copy_order().await?;
    if let Some((missing, _)) = source_tables.iter().find(|(t, _)| !order.contains(t)) {
        return Err(StoreError::Copy(format!(
            "the target has no table `{missing}`: is it a Pigeon database of the same version?"
        )));
    }
    let mut tables = Vec::with_capacity(order.len());
    for name in &order {
        if source_tables.iter().any(|(t, _)| t == name) {
            tables.push(from.table_rows(name).await?);
        }
    }
    to.load_tables(&tables).await?;
    let mut report = Copied {
        games: game_ids(&tables),
        ..Copied::default()
    };
    let copied = to.table_counts().await?;
    for (name, expected) in &source_tables {
        let got = copied
            .iter()
            .find(|(t, _)| t == name)
            .map_or(0, |(_, n)| *n);
        if got != *expected {
            return Err(StoreError::Copy(format!(
                "table `{name}`: {expected} rows in the source, {got} in the target"
            )));
        }
        report.tables.push((name.clone(), *expected));
    }
    Ok(report)
}

/// The numbers of the games among the rows.
fn game_ids(tables: &[TableRows]) -> Vec<i64> {
    let Some(games) = tables.iter().find(|t| t.name == "games") else {
        return Vec::new();
    };
    let Some(id) = games.columns.iter().position(|c| c == "id") else {
        return Vec::new();
    };
    games
        .rows
        .iter()
        .filter_map(|row| match row.get(id) {
            Some(Value::Int(n)) => Some(*n),
            _ => None,
        })
        .collect()
}

/// The tables in an order where each comes after the tables it refers to (`refers`: pairs
/// of a table and a table it refers to), alphabetical among equals. A table in a cycle (or
/// referring to itself) comes when nothing else can, so every table is listed once.
pub(super) fn in_dependency_order(
    mut tables: Vec<String>,
    refers: &[(String, String)],
) -> Vec<String> {
    tables.sort();
    let mut order: Vec<String> = Vec::with_capacity(tables.len());
    while order.len() < tables.len() {
        let ready = tables.iter().find(|t| {
            !order.contains(t)
                && refers
                    .iter()
                    .filter(|(from, to)| from == *t && to != *t && tables.contains(to))
                    .all(|(_, to)| order.contains(to))
        });
        let next = ready
            .or_else(|| tables.iter().find(|t| !order.contains(t)))
            .expect("a table is left while the order is short")
            .clone();
        order.push(next);
    }
    order
}

/// A table or column name as a quoted identifier; names come from the database's own
/// catalogue, and one with a quote in it is refused rather than escaped.
pub(super) fn quoted(name: &str) -> Result<String> {
    if name.contains('"') || name.contains('\0') {
        return Err(StoreError::Copy(format!(
            "a table or column named {name:?}"
        )));
    }
    Ok(format!("\"{name}\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_come_after_those_they_refer_to() {
        let names = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let refers = [
            ("moves", "games"),
            ("games", "players"),
            ("notices", "games"),
            ("notices", "challenges"),
            ("challenges", "players"),
            ("players", "players"),
        ]
        .map(|(a, b)| (a.to_owned(), b.to_owned()));
        let order = in_dependency_order(
            names(&[
                "notices",
                "moves",
                "games",
                "challenges",
                "players",
                "heartbeats",
            ]),
            &refers,
        );
        assert_eq!(
            order,
            names(&[
                "heartbeats",
                "players",
                "challenges",
                "games",
                "moves",
                "notices"
            ])
        );
        assert!(quoted("a\"b").is_err());
        assert_eq!(quoted("games").expect("plain"), "\"games\"");
    }
}
