//! Parameter overrides: `tcp.variant = "tahoe"`, `links[0].queue.limit_packets = 25`,
//! `links["r0->r1"].queue.limit_packets = 25`, `flows["ftp1"].tcp.variant = "reno"`, applied
//! to a scenario document before it is validated, so that a sweep's values go through the same
//! checks (and get the same messages) as values written in the file. A list entry is named by
//! its `name`, or a link by `from->to`: reordering the file then changes nothing a sweep varies.

use super::ScenarioError;
use toml::{Table, Value};

/// One step of a field path.
#[derive(Debug, PartialEq)]
pub(super) enum Step<'a> {
    Key(&'a str),
    Index(usize),
    /// `["r0->r1"]`: the list entry of this name (or a link's `from->to`).
    Name(&'a str),
    /// `[*]`: every entry of the list.
    Every,
}

/// Splits `links[0].queue.limit_packets` or `flows["cbr.1"].rate` into steps (a quoted name
/// may hold dots and brackets).
pub(super) fn parse_path(path: &str) -> Option<Vec<Step<'_>>> {
    let mut steps = Vec::new();
    let mut rest = path;
    loop {
        let end = rest.find(['.', '[']).unwrap_or(rest.len());
        if end == 0 {
            return None;
        }
        steps.push(Step::Key(&rest[..end]));
        rest = &rest[end..];
        while let Some(inner) = rest.strip_prefix('[') {
            let quote = inner.chars().next().filter(|c| matches!(c, '"' | '\''));
            if let Some(quote) = quote {
                let name = &inner[1..];
                let close = name.find(&format!("{quote}]"))?;
                steps.push(Step::Name(&name[..close]));
                rest = &name[close + 2..];
            } else {
                let close = inner.find(']')?;
                steps.push(match &inner[..close] {
                    "*" => Step::Every,
                    index => Step::Index(index.parse().ok()?),
                });
                rest = &inner[close + 1..];
            }
        }
        if rest.is_empty() {
            return Some(steps);
        }
        rest = rest.strip_prefix('.')?;
    }
}

/// What a list entry is called in a path: its `name`, or a link's `from->to`.
fn entry_names(item: &Value) -> Vec<String> {
    let Some(table) = item.as_table() else {
        return Vec::new();
    };
    let text = |key: &str| table.get(key).and_then(Value::as_str);
    let mut names: Vec<String> = text("name").map(str::to_string).into_iter().collect();
    if let (Some(from), Some(to)) = (text("from"), text("to")) {
        names.push(format!("{from}->{to}"));
    }
    names
}

/// Converts a JSON value (what Python hands over) into a TOML value.
fn to_toml(value: &serde_json::Value) -> Option<Value> {
    Some(match value {
        serde_json::Value::Bool(b) => Value::Boolean(*b),
        // A whole number past TOML's 64-bit signed integers cannot be written: refused
        // rather than read as an approximate float.
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => Value::Integer(i),
            None if n.is_f64() => Value::Float(n.as_f64()?),
            None => return None,
        },
        serde_json::Value::String(s) => Value::String(s.clone()),
        serde_json::Value::Array(items) => {
            Value::Array(items.iter().map(to_toml).collect::<Option<_>>()?)
        }
        serde_json::Value::Object(map) => Value::Table(
            map.iter()
                .map(|(k, v)| Some((k.clone(), to_toml(v)?)))
                .collect::<Option<Table>>()?,
        ),
        serde_json::Value::Null => return None,
    })
}

/// Sets `path` to `value` in `document`, creating missing tables (not array entries).
pub(super) fn apply(
    document: &mut Table,
    path: &str,
    value: &serde_json::Value,
    file: &str,
) -> Result<(), ScenarioError> {
    let err = |message: String| ScenarioError {
        file: file.to_string(),
        path: path.to_string(),
        message,
    };
    let steps = parse_path(path).ok_or_else(|| {
        err("is not a field path (write it like links[0].queue.limit_packets or links[\"r0->r1\"].queue.limit_packets)".to_string())
    })?;
    let value = to_toml(value).ok_or_else(|| {
        err("override values must be strings, numbers (whole numbers up to 9223372036854775807), booleans, lists or tables".to_string())
    })?;
    let Step::Key(first) = steps[0] else {
        unreachable!("paths start with a name")
    };
    let slot = document
        .entry(first.to_string())
        .or_insert_with(|| Value::Table(Table::new()));
    set(slot, &steps[1..], &value).map_err(err)
}

/// Sets the field `steps` lead to from `slot` (every one, through `[*]`) to `value`.
fn set(slot: &mut Value, steps: &[Step<'_>], value: &Value) -> Result<(), String> {
    let Some((step, rest)) = steps.split_first() else {
        *slot = value.clone();
        return Ok(());
    };
    match (step, slot) {
        (Step::Key(k), Value::Table(t)) => set(
            t.entry(k.to_string())
                .or_insert_with(|| Value::Table(Table::new())),
            rest,
            value,
        ),
        (Step::Key(k), _) => Err(format!("cannot set \"{k}\": its parent is not a table")),
        (Step::Index(i), Value::Array(items)) => {
            let n = items.len();
            let item = items
                .get_mut(*i)
                .ok_or_else(|| format!("index {i} is out of range: there are {n}"))?;
            set(item, rest, value)
        }
        (Step::Every, Value::Array(items)) => {
            items.iter_mut().try_for_each(|item| set(item, rest, value))
        }
        (Step::Name(name), Value::Array(items)) => {
            let matching: Vec<usize> = (0..items.len())
                .filter(|&i| entry_names(&items[i]).iter().any(|n| n == name))
                .collect();
            match matching[..] {
                [i] => set(&mut items[i], rest, value),
                [] => {
                    let known: Vec<String> = items
                        .iter()
                        .flat_map(entry_names)
                        .map(|n| format!("\"{n}\""))
                        .collect();
                    Err(format!(
                        "no entry is named \"{name}\" (by its name, or a link's from->to); known: {}",
                        if known.is_empty() {
                            "none".to_string()
                        } else {
                            known.join(", ")
                        }
                    ))
                }
                _ => Err(format!(
                    "\"{name}\" names {} entries: give each a name, or use an index",
                    matching.len()
                )),
            }
        }
        (Step::Index(i), _) => Err(format!("cannot index [{i}]: the field is not a list")),
        (Step::Name(name), _) => Err(format!(
            "cannot index [\"{name}\"]: the field is not a list"
        )),
        (Step::Every, _) => Err("cannot index [*]: the field is not a list".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_parse_into_steps() {
        assert_eq!(
            parse_path("links[0].queue.limit_packets").unwrap(),
            [
                Step::Key("links"),
                Step::Index(0),
                Step::Key("queue"),
                Step::Key("limit_packets")
            ]
        );
        assert_eq!(
            parse_path("tcp.variant").unwrap(),
            [Step::Key("tcp"), Step::Key("variant")]
        );
        for bad in ["", "links[", "links[x]", ".tcp", "links[0]x"] {
            assert!(parse_path(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn apply_sets_nested_fields_and_reports_bad_indices() {
        let mut doc: Table =
            toml::from_str("links = [{ rate = \"1Mbps\" }]\n[tcp]\nwindow = 5\n").unwrap();
        apply(&mut doc, "tcp.window", &serde_json::json!(40), "f").unwrap();
        apply(
            &mut doc,
            "links[0].queue.limit_packets",
            &serde_json::json!(25),
            "f",
        )
        .unwrap();
        assert_eq!(doc["tcp"]["window"].as_integer(), Some(40));
        assert_eq!(
            doc["links"][0]["queue"]["limit_packets"].as_integer(),
            Some(25)
        );
        let e = apply(&mut doc, "links[3].rate", &serde_json::json!("2Mbps"), "f").unwrap_err();
        assert_eq!(
            e.to_string(),
            "f: links[3].rate: index 3 is out of range: there are 1"
        );
    }

    #[test]
    fn a_star_sets_every_entry_of_a_list() {
        let mut doc: Table =
            toml::from_str("links = [{ delay = \"1ms\" }, { delay = \"2ms\" }]\n").unwrap();
        apply(&mut doc, "links[*].delay", &serde_json::json!("5ms"), "f").unwrap();
        let delays: Vec<&str> = doc["links"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["delay"].as_str().unwrap())
            .collect();
        assert_eq!(delays, ["5ms", "5ms"]);
        assert_eq!(parse_path("links[*].delay").unwrap()[1], Step::Every);
        let e = apply(&mut doc, "tcp[*].window", &serde_json::json!(1), "f").unwrap_err();
        assert_eq!(
            e.to_string(),
            "f: tcp[*].window: cannot index [*]: the field is not a list"
        );
    }

    #[test]
    fn entries_are_named_by_name_or_by_from_to() {
        let mut doc: Table = toml::from_str(
            "links = [{ from = \"a\", to = \"r\" }, { from = \"r\", to = \"b\" }]\nflows = [{ name = \"ftp.1\" }, { name = \"web\" }]\n",
        )
        .unwrap();
        apply(
            &mut doc,
            "links[\"r->b\"].queue.limit_packets",
            &serde_json::json!(25),
            "f",
        )
        .unwrap();
        apply(
            &mut doc,
            "flows['ftp.1'].tcp.variant",
            &serde_json::json!("tahoe"),
            "f",
        )
        .unwrap();
        assert_eq!(
            doc["links"][1]["queue"]["limit_packets"].as_integer(),
            Some(25)
        );
        assert!(doc["links"][0].get("queue").is_none());
        assert_eq!(doc["flows"][0]["tcp"]["variant"].as_str(), Some("tahoe"));
        assert_eq!(
            parse_path("flows[\"a[1].b\"].rate").unwrap(),
            [Step::Key("flows"), Step::Name("a[1].b"), Step::Key("rate")]
        );
        let e = apply(&mut doc, "flows[\"ftp\"].rate", &serde_json::json!(1), "f").unwrap_err();
        assert_eq!(
            e.to_string(),
            "f: flows[\"ftp\"].rate: no entry is named \"ftp\" (by its name, or a link's from->to); known: \"ftp.1\", \"web\""
        );
        for bad in [
            "flows[\"ftp].rate",
            "flows[\"ftp\"]x",
            "flows[\"ftp\"].",
            ".rate",
        ] {
            assert!(parse_path(bad).is_none(), "{bad}");
        }
    }
}
