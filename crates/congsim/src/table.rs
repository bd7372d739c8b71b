//! Column-oriented result tables: what the CLI writes as CSV and what Python turns into
//! DataFrames.

use std::borrow::Cow;

/// One column of values.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    F64(Vec<f64>),
    U64(Vec<u64>),
    Str(Vec<String>),
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Self::F64(v) => v.len(),
            Self::U64(v) => v.len(),
            Self::Str(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    fn cell(&self, row: usize) -> String {
        match self {
            // Shortest representation that round-trips: deterministic across runs.
            Self::F64(v) => {
                let x = v[row];
                if x.is_nan() {
                    String::new()
                } else {
                    format!("{x:?}")
                }
            }
            Self::U64(v) => v[row].to_string(),
            Self::Str(v) => csv_quote(&v[row]),
        }
    }
}

fn csv_quote(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// A named table of equal-length columns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    /// Column names are mostly literals; a few are built (per-variant shares).
    pub columns: Vec<(Cow<'static, str>, Column)>,
}

impl Table {
    pub fn push(&mut self, name: impl Into<Cow<'static, str>>, column: Column) {
        let name = name.into();
        debug_assert!(
            self.columns
                .first()
                .is_none_or(|(_, c)| c.len() == column.len()),
            "ragged column {name}"
        );
        self.columns.push((name, column));
    }

    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| c.len())
    }

    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }

    /// RFC 4180 CSV with a header line.
    pub fn to_csv(&self) -> String {
        let mut out = String::new();
        let names: Vec<&str> = self.columns.iter().map(|(n, _)| n.as_ref()).collect();
        out.push_str(&names.join(","));
        out.push('\n');
        for row in 0..self.rows() {
            let cells: Vec<String> = self.columns.iter().map(|(_, c)| c.cell(row)).collect();
            out.push_str(&cells.join(","));
            out.push('\n');
        }
        out
    }
}

/// How a column reads its value off one row of type `R`.
pub enum Get<R> {
    U64(fn(&R) -> u64),
    F64(fn(&R) -> f64),
    Str(fn(&R) -> String),
}

// Not derived: a derive would ask `R: Clone`, which the function pointers do not need.
impl<R> Clone for Get<R> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<R> Copy for Get<R> {}

/// A column of a table built from rows: its name and how it reads a row.
pub type ColumnSpec<R> = (&'static str, Get<R>);

/// Columns named as the `u64` counters they read, so that each counter is named once:
/// `counters![Row: |r| r.stats(); drops, marks]` reads `r.stats().drops` into `drops`.
macro_rules! counters {
    ($row:ty: |$r:ident| $stats:expr; $($field:ident),+ $(,)?) => {
        [$((
            stringify!($field),
            $crate::table::Get::U64(|$r: &$row| $stats.$field),
        )),+]
    };
}
pub(crate) use counters;

/// A table of the named vectors of `$source`, moved out of it, each column named as its field
/// or as given after `as`: `table_of!(series; F64 time_s, Str flow as "name")`.
macro_rules! table_of {
    ($source:expr; $($kind:ident $field:ident $(as $name:literal)?),+ $(,)?) => {{
        let mut table = $crate::table::Table::default();
        $(table.push(
            $crate::table::table_of!(@name $field $($name)?),
            $crate::table::Column::$kind($source.$field),
        );)+
        table
    }};
    (@name $field:ident $name:literal) => {
        $name
    };
    (@name $field:ident) => {
        stringify!($field)
    };
}
pub(crate) use table_of;

impl Table {
    /// One column per spec, in order, with one value per row.
    pub fn extend_rows<R>(&mut self, rows: &[R], columns: &[ColumnSpec<R>]) {
        for (name, get) in columns {
            let column = match get {
                Get::U64(get) => Column::U64(rows.iter().map(get).collect()),
                Get::F64(get) => Column::F64(rows.iter().map(get).collect()),
                Get::Str(get) => Column::Str(rows.iter().map(get).collect()),
            };
            self.push(*name, column);
        }
    }

    pub fn from_rows<R>(rows: &[R], columns: &[ColumnSpec<R>]) -> Self {
        let mut table = Self::default();
        table.extend_rows(rows, columns);
        table
    }

    /// The rows of `parts` one after another: tables of the same columns, each freed as soon
    /// as its rows are taken (a large run builds its flows table in parts, freeing the
    /// connections each part reads).
    pub fn concat(parts: impl IntoIterator<Item = Table>) -> Table {
        let mut parts = parts.into_iter();
        let mut table = parts.next().unwrap_or_default();
        for part in parts {
            debug_assert!(
                (table.columns.iter().map(|(n, _)| n)).eq(part.columns.iter().map(|(n, _)| n)),
                "concatenated tables have the same columns"
            );
            for ((_, column), (_, more)) in table.columns.iter_mut().zip(part.columns) {
                match (column, more) {
                    (Column::F64(a), Column::F64(b)) => a.extend(b),
                    (Column::U64(a), Column::U64(b)) => a.extend(b),
                    (Column::Str(a), Column::Str(b)) => a.extend(b),
                    _ => unreachable!("concatenated columns have the same type"),
                }
            }
        }
        table
    }

    /// The sum of an integer column (0 when the table has no such column).
    pub fn sum_u64(&self, name: &str) -> u64 {
        match self.column(name) {
            Some(Column::U64(values)) => values.iter().sum(),
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Row {
        name: &'static str,
        stats: (u64, u64),
    }

    #[test]
    fn tables_from_rows_name_each_counter_once() {
        struct Stats {
            drops: u64,
            marks: u64,
        }
        let rows = [
            (Stats { drops: 1, marks: 2 }, 0.5),
            (Stats { drops: 3, marks: 4 }, 1.5),
        ];
        let mut t = Table::from_rows(&rows, &counters![(Stats, f64): |r| r.0; drops, marks]);
        t.extend_rows(&rows, &[("ratio", Get::F64(|r| r.1))]);
        assert_eq!(t.to_csv(), "drops,marks,ratio\n1,2,0.5\n3,4,1.5\n");
        assert_eq!(t.sum_u64("marks"), 6);
        assert_eq!(t.sum_u64("ratio"), 0, "not an integer column");
        let named = Table::from_rows(
            &[Row {
                name: "a",
                stats: (7, 8),
            }],
            &[
                ("name", Get::Str(|r: &Row| r.name.to_string())),
                ("second", Get::U64(|r| r.stats.1)),
            ],
        );
        assert_eq!(named.to_csv(), "name,second\na,8\n");
    }

    #[test]
    fn concatenated_tables_keep_their_rows_in_order() {
        let part = |names: &[&str], x: &[f64], n: &[u64]| {
            let mut t = Table::default();
            t.push(
                "name",
                Column::Str(names.iter().map(|s| s.to_string()).collect()),
            );
            t.push("x", Column::F64(x.to_vec()));
            t.push("n", Column::U64(n.to_vec()));
            t
        };
        let whole = Table::concat([
            part(&["a"], &[0.5], &[1]),
            part(&[], &[], &[]),
            part(&["b", "c"], &[1.5, 2.5], &[2, 3]),
        ]);
        assert_eq!(whole, part(&["a", "b", "c"], &[0.5, 1.5, 2.5], &[1, 2, 3]));
        assert_eq!(Table::concat([]), Table::default());
    }

    #[test]
    fn csv_quotes_and_formats() {
        let mut t = Table::default();
        t.push("name", Column::Str(vec!["a,b".into(), "c".into()]));
        t.push("x", Column::F64(vec![0.1, f64::NAN]));
        t.push("n", Column::U64(vec![1, 2]));
        assert_eq!(t.to_csv(), "name,x,n\n\"a,b\",0.1,1\nc,,2\n");
    }
}
