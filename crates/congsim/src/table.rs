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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_and_formats() {
        let mut t = Table::default();
        t.push("name", Column::Str(vec!["a,b".into(), "c".into()]));
        t.push("x", Column::F64(vec![0.1, f64::NAN]));
        t.push("n", Column::U64(vec![1, 2]));
        assert_eq!(t.to_csv(), "name,x,n\n\"a,b\",0.1,1\nc,,2\n");
    }
}
