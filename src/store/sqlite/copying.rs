//! The whole database as plain rows, out and in (`pigeon migrate-db`).

use sqlx::sqlite::SqliteRow;
use sqlx::{AssertSqlSafe, QueryBuilder, Row, Sqlite, TypeInfo, ValueRef};

use super::SqliteDatabase;
use crate::store::copy::{TableRows, Value, in_dependency_order, quoted};
use crate::store::{Result, StoreError};

/// SQLite's limit on the values bound to one statement.
const MAX_BINDS: usize = 32_000;

async fn tables(db: &SqliteDatabase) -> Result<Vec<String>> {
    Ok(sqlx::query_scalar(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' \
         ESCAPE '\\' AND name NOT LIKE '\\_sqlx%' ESCAPE '\\' ORDER BY name",
    )
    .fetch_all(&db.pool)
    .await?)
}

async fn columns<'e>(executor: impl sqlx::SqliteExecutor<'e>, table: &str) -> Result<Vec<String>> {
    Ok(
        sqlx::query_scalar("SELECT name FROM pragma_table_info(?1) ORDER BY cid")
            .bind(table)
            .fetch_all(executor)
            .await?,
    )
}

pub(super) async fn table_counts(db: &SqliteDatabase) -> Result<Vec<(String, u64)>> {
    let mut counts = Vec::new();
    for table in tables(db).await? {
        let sql = format!("SELECT COUNT(*) FROM {}", quoted(&table)?);
        let n: i64 = sqlx::query_scalar(AssertSqlSafe(sql))
            .fetch_one(&db.pool)
            .await?;
        counts.push((table, u64::try_from(n).unwrap_or_default()));
    }
    Ok(counts)
}

pub(super) async fn tables_in_copy_order(db: &SqliteDatabase) -> Result<Vec<String>> {
    let tables = tables(db).await?;
    let mut refers = Vec::new();
    for table in &tables {
        let to: Vec<String> =
            sqlx::query_scalar("SELECT DISTINCT \"table\" FROM pragma_foreign_key_list(?1)")
                .bind(table)
                .fetch_all(&db.pool)
                .await?;
        refers.extend(to.into_iter().map(|to| (table.clone(), to)));
    }
    Ok(in_dependency_order(tables, &refers))
}

pub(super) async fn table_rows(db: &SqliteDatabase, table: &str) -> Result<TableRows> {
    let columns = columns(&db.pool, table).await?;
    let list: Vec<String> = columns.iter().map(|c| quoted(c)).collect::<Result<_>>()?;
    let sql = format!(
        "SELECT {} FROM {} ORDER BY 1",
        list.join(", "),
        quoted(table)?
    );
    let rows = sqlx::query(AssertSqlSafe(sql)).fetch_all(&db.pool).await?;
    let rows = rows
        .iter()
        .map(|row| (0..columns.len()).map(|i| value(row, i)).collect())
        .collect::<Result<_>>()?;
    Ok(TableRows {
        name: table.to_owned(),
        columns,
        rows,
    })
}

/// A value by the type SQLite stored it with.
fn value(row: &SqliteRow, i: usize) -> Result<Value> {
    let raw = row.try_get_raw(i)?;
    if raw.is_null() {
        return Ok(Value::Null);
    }
    let kind = raw.type_info().name().to_owned();
    Ok(match kind.as_str() {
        "INTEGER" | "BOOLEAN" => Value::Int(row.try_get(i)?),
        "REAL" => Value::Real(row.try_get(i)?),
        "BLOB" => Value::Bytes(row.try_get(i)?),
        _ => Value::Text(row.try_get(i)?),
    })
}

pub(super) async fn load_tables(db: &SqliteDatabase, tables: &[TableRows]) -> Result<()> {
    let mut tx = db.write().await?;
    for table in tables {
        let target = columns(&mut *tx, &table.name).await?;
        if let Some(missing) = table.columns.iter().find(|c| !target.contains(c)) {
            return Err(StoreError::Copy(format!(
                "table `{}` has no column `{missing}` here: is it a Pigeon database of the same \
                 version?",
                table.name
            )));
        }
        if table.columns.is_empty() {
            continue;
        }
        let list: Vec<String> = table
            .columns
            .iter()
            .map(|c| quoted(c))
            .collect::<Result<_>>()?;
        let head = format!(
            "INSERT INTO {} ({}) ",
            quoted(&table.name)?,
            list.join(", ")
        );
        for chunk in table.rows.chunks((MAX_BINDS / table.columns.len()).max(1)) {
            let mut insert: QueryBuilder<Sqlite> = QueryBuilder::new(head.clone());
            insert.push_values(chunk, |mut values, row| {
                for value in row {
                    match value {
                        Value::Null => values.push_bind(None::<i64>),
                        Value::Int(n) => values.push_bind(*n),
                        Value::Real(x) => values.push_bind(*x),
                        Value::Text(t) => values.push_bind(t.clone()),
                        Value::Bytes(b) => values.push_bind(b.clone()),
                    };
                }
            });
            insert.build().execute(&mut *tx).await?;
        }
    }
    tx.commit().await?;
    Ok(())
}
