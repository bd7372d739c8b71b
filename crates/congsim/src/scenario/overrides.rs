//! Parameter overrides: `tcp.variant = "tahoe"`, `links[0].queue.limit_packets = 25`, applied
//! to a scenario document before it is validated, so that a sweep's values go through the same
//! checks (and get the same messages) as values written in the file.

use super::ScenarioError;
use toml::{Table, Value};

/// One step of a field path.
#[derive(Debug, PartialEq)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
    /// `[*]`: every entry of the list.
    Every,
}

/// Splits `links[0].queue.limit_packets` into steps.
fn parse_path(path: &str) -> Option<Vec<Step<'_>>> {
    let mut steps = Vec::new();
    for part in path.split('.') {
        let (name, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if name.is_empty() {
            return None;
        }
        steps.push(Step::Key(name));
        while let Some(stripped) = rest.strip_prefix('[') {
            let close = stripped.find(']')?;
            steps.push(match &stripped[..close] {
                "*" => Step::Every,
                index => Step::Index(index.parse().ok()?),
            });
            rest = &stripped[close + 1..];
        }
        if !rest.is_empty() {
            return None;
        }
    }
    (!steps.is_empty()).then_some(steps)
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
        err("is not a field path (write it like links[0].queue.limit_packets)".to_string())
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
        (Step::Index(i), _) => Err(format!("cannot index [{i}]: the field is not a list")),
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
}
