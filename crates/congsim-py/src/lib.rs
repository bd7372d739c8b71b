//! `congsim._core`: the Python extension. Glue only: it parses nothing and simulates nothing
//! itself, and it releases the GIL while a run is in progress.

use congsim::scenario::{self, ScenarioError as RustScenarioError};
use congsim::table::{Column, Table};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

create_exception!(
    congsim._core,
    ScenarioError,
    PyValueError,
    "A scenario file is invalid; the message names the file, the field and what is allowed."
);

fn scenario_error(e: RustScenarioError) -> PyErr {
    ScenarioError::new_err(e.to_string())
}

/// A table as `{column: list}` (insertion-ordered, so column order survives).
fn table_to_dict<'py>(py: Python<'py>, table: &Table) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (name, column) in &table.columns {
        let list = match column {
            Column::F64(v) => PyList::new(py, v)?,
            Column::U64(v) => PyList::new(py, v)?,
            Column::Str(v) => PyList::new(py, v)?,
        };
        dict.set_item(name.as_ref(), list)?;
    }
    Ok(dict)
}

/// Parses the `[[path, value], ...]` JSON list of overrides.
fn parse_overrides(json: Option<&str>) -> PyResult<Vec<(String, serde_json::Value)>> {
    match json {
        None => Ok(Vec::new()),
        Some(text) => serde_json::from_str(text).map_err(|e| {
            PyValueError::new_err(format!(
                "overrides must be a JSON list of [path, value] pairs: {e}"
            ))
        }),
    }
}

fn load(text: &str, file: &str, overrides: Option<&str>) -> PyResult<congsim::Scenario> {
    let overrides = parse_overrides(overrides)?;
    scenario::from_toml_str_with_overrides(text, file, &overrides).map_err(scenario_error)
}

/// Checks scenario TOML `text` (labelled `file` in messages); returns a one-line description.
#[pyfunction]
fn validate(text: &str, file: &str) -> PyResult<String> {
    let s = scenario::from_toml_str(text, file).map_err(scenario_error)?;
    Ok(s.describe())
}

/// The scenario's name, number of replications and seed, after `overrides`.
#[pyfunction]
#[pyo3(signature = (text, file, overrides = None))]
fn describe(text: &str, file: &str, overrides: Option<&str>) -> PyResult<(String, u32, u64)> {
    let s = load(text, file, overrides)?;
    Ok((s.name, s.replications, s.seed))
}

/// Runs replication `replication` of the scenario (after `overrides`, a JSON list of
/// `[path, value]` pairs); returns `{table: {column: list}}`.
#[pyfunction]
#[pyo3(signature = (text, file, replication = 0, overrides = None))]
fn run<'py>(
    py: Python<'py>,
    text: &str,
    file: &str,
    replication: u32,
    overrides: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    let s = load(text, file, overrides)?;
    if replication >= s.replications {
        return Err(ScenarioError::new_err(format!(
            "{file}: replication {replication} is out of range: simulation.replications is {}",
            s.replications
        )));
    }
    let result = py.detach(|| congsim::run(&s, replication));
    let out = PyDict::new(py);
    for (name, table) in result.tables() {
        if let Some(t) = table {
            out.set_item(name, table_to_dict(py, t)?)?;
        }
    }
    if !result.captures.is_empty() {
        let captures = PyDict::new(py);
        for (file, bytes) in &result.captures {
            captures.set_item(file, PyBytes::new(py, bytes))?;
        }
        out.set_item("captures", captures)?;
    }
    Ok(out)
}

/// The JSON Schema of the scenario format.
#[pyfunction]
fn schema() -> String {
    scenario::json_schema()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(describe, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    Ok(())
}
