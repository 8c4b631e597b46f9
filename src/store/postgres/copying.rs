//! The whole database as plain rows, out and in (`pigeon migrate-db`).

use sqlx::postgres::PgRow;
use sqlx::{AssertSqlSafe, Postgres, QueryBuilder, Row, TypeInfo, ValueRef};

use super::PostgresDatabase;
use crate::store::copy::{TableRows, Value, in_dependency_order, quoted};
use crate::store::{Result, StoreError};

/// PostgreSQL's limit on the values bound to one statement.
const MAX_BINDS: usize = 65_000;

async fn tables(db: &PostgresDatabase) -> Result<Vec<String>> {
    Ok(sqlx::query_scalar(
        "SELECT table_name::TEXT FROM information_schema.tables \
         WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' \
         AND table_name NOT LIKE '\\_sqlx%' ORDER BY table_name",
    )
    .fetch_all(&db.pool)
    .await?)
}

/// A table's columns with their types, in order.
async fn columns<'e>(
    executor: impl sqlx::PgExecutor<'e>,
    table: &str,
) -> Result<Vec<(String, String)>> {
    Ok(sqlx::query_as(
        "SELECT column_name::TEXT, data_type::TEXT FROM information_schema.columns \
         WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position",
    )
    .bind(table)
    .fetch_all(executor)
    .await?)
}

pub(super) async fn table_counts(db: &PostgresDatabase) -> Result<Vec<(String, u64)>> {
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

pub(super) async fn tables_in_copy_order(db: &PostgresDatabase) -> Result<Vec<String>> {
    let refers: Vec<(String, String)> = sqlx::query_as(
        "SELECT DISTINCT tc.table_name::TEXT, ccu.table_name::TEXT \
         FROM information_schema.table_constraints tc \
         JOIN information_schema.constraint_column_usage ccu \
           ON ccu.constraint_name = tc.constraint_name \
          AND ccu.constraint_schema = tc.constraint_schema \
         WHERE tc.constraint_type = 'FOREIGN KEY' AND tc.table_schema = current_schema()",
    )
    .fetch_all(&db.pool)
    .await?;
    Ok(in_dependency_order(tables(db).await?, &refers))
}

pub(super) async fn table_rows(db: &PostgresDatabase, table: &str) -> Result<TableRows> {
    let columns: Vec<String> = columns(&db.pool, table)
        .await?
        .into_iter()
        .map(|(name, _)| name)
        .collect();
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

/// A value by its column's type.
fn value(row: &PgRow, i: usize) -> Result<Value> {
    let raw = row.try_get_raw(i)?;
    if raw.is_null() {
        return Ok(Value::Null);
    }
    let kind = raw.type_info().name().to_owned();
    Ok(match kind.as_str() {
        "INT8" => Value::Int(row.try_get(i)?),
        "INT4" => Value::Int(row.try_get::<i32, _>(i)?.into()),
        "INT2" => Value::Int(row.try_get::<i16, _>(i)?.into()),
        "BOOL" => Value::Int(row.try_get::<bool, _>(i)?.into()),
        "FLOAT8" => Value::Real(row.try_get(i)?),
        "FLOAT4" => Value::Real(row.try_get::<f32, _>(i)?.into()),
        "BYTEA" => Value::Bytes(row.try_get(i)?),
        "TEXT" | "VARCHAR" | "NAME" | "BPCHAR" => Value::Text(row.try_get(i)?),
        other => {
            return Err(StoreError::Copy(format!(
                "a column of type {other}, which the copy does not know"
            )));
        }
    })
}

pub(super) async fn load_tables(db: &PostgresDatabase, tables: &[TableRows]) -> Result<()> {
    let mut tx = db.pool.begin().await?;
    for table in tables {
        let target = columns(&mut *tx, &table.name).await?;
        let mut kinds = Vec::with_capacity(table.columns.len());
        for column in &table.columns {
            let Some((_, kind)) = target.iter().find(|(name, _)| name == column) else {
                return Err(StoreError::Copy(format!(
                    "table `{}` has no column `{column}` here: is it a Pigeon database of the \
                     same version?",
                    table.name
                )));
            };
            kinds.push(kind.as_str());
        }
        if table.columns.is_empty() {
            continue;
        }
        let list: Vec<String> = table
            .columns
            .iter()
            .map(|c| quoted(c))
            .collect::<Result<_>>()?;
        let name = quoted(&table.name)?;
        let head = format!("INSERT INTO {name} ({}) ", list.join(", "));
        for chunk in table.rows.chunks((MAX_BINDS / table.columns.len()).max(1)) {
            let mut insert: QueryBuilder<Postgres> = QueryBuilder::new(head.clone());
            insert.push_values(chunk, |mut values, row| {
                for (value, kind) in row.iter().zip(&kinds) {
                    match (value, *kind) {
                        (Value::Null, "boolean") => values.push_bind(None::<bool>),
                        (Value::Null, "text" | "character varying") => {
                            values.push_bind(None::<String>)
                        }
                        (Value::Null, "double precision" | "real") => values.push_bind(None::<f64>),
                        (Value::Null, "bytea") => values.push_bind(None::<Vec<u8>>),
                        (Value::Null, "integer") => values.push_bind(None::<i32>),
                        (Value::Null, _) => values.push_bind(None::<i64>),
                        (Value::Int(n), "boolean") => values.push_bind(*n != 0),
                        (Value::Int(n), "integer") => {
                            values.push_bind(i32::try_from(*n).unwrap_or(i32::MAX))
                        }
                        (Value::Int(n), "double precision" | "real") => values.push_bind(*n as f64),
                        (Value::Int(n), "text") => values.push_bind(n.to_string()),
                        (Value::Int(n), _) => values.push_bind(*n),
                        (Value::Real(x), _) => values.push_bind(*x),
                        (Value::Text(t), _) => values.push_bind(t.clone()),
                        (Value::Bytes(b), _) => values.push_bind(b.clone()),
                    };
                }
            });
            insert.build().execute(&mut *tx).await?;
        }
        // Ids made later go on after the copied ones.
        let identities: Vec<String> = sqlx::query_scalar(
            "SELECT column_name::TEXT FROM information_schema.columns \
             WHERE table_schema = current_schema() AND table_name = $1 AND is_identity = 'YES'",
        )
        .bind(&table.name)
        .fetch_all(&mut *tx)
        .await?;
        for column in identities {
            let sql = format!(
                "SELECT setval(pg_get_serial_sequence('{name}', '{column}'), \
                 GREATEST(COALESCE(MAX({quoted}), 0), 1), MAX({quoted}) IS NOT NULL) FROM {name}",
                quoted = quoted(&column)?,
            );
            sqlx::query(AssertSqlSafe(sql)).execute(&mut *tx).await?;
        }
    }
    tx.commit().await?;
    Ok(())
}
