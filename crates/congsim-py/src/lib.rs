//! `congsim._core`: the Python extension. Glue only: it parses nothing and simulates nothing
//! itself, and it releases the GIL while a run is in progress.

use congsim::SimTime;
use congsim::scenario::{self, ScenarioError as RustScenarioError};
use congsim::table::{Column, Table};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList};
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

create_exception!(
    congsim._core,
    ScenarioError,
    PyValueError,
    "A scenario file is invalid; the message names the file, the field and what is allowed."
);

fn scenario_error(e: RustScenarioError) -> PyErr {
    ScenarioError::new_err(e.to_string())
}

/// A column's values as little-endian bytes in a `bytearray` (writable, so NumPy can view it
/// without a copy).
fn le_bytes<'py, const N: usize, T: Copy>(
    py: Python<'py>,
    values: &[T],
    to_le: impl Fn(T) -> [u8; N],
) -> PyResult<Bound<'py, PyByteArray>> {
    PyByteArray::new_with(py, values.len() * N, |buffer| {
        for (chunk, &value) in buffer.chunks_exact_mut(N).zip(values) {
            chunk.copy_from_slice(&to_le(value));
        }
        Ok(())
    })
}

/// A table as `{column: (kind, data, categories)}` (insertion-ordered, so column order
/// survives): `("f64" | "u64", little-endian bytes, None)`, or for text `("str", u32 codes,
/// the distinct strings in order of first appearance)`. Handing numbers over as bytes and text
/// as codes costs a fraction of a Python object per value (measured in
/// `bench/results_cost.py`); `congsim.results` turns them into NumPy arrays.
#[expect(
    clippy::disallowed_types,
    reason = "the map is only looked up, never iterated: codes follow first appearance"
)]
fn table_to_dict<'py>(py: Python<'py>, table: &Table) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (name, column) in &table.columns {
        let encoded = match column {
            Column::F64(v) => ("f64", le_bytes(py, v, f64::to_le_bytes)?, None),
            Column::U64(v) => ("u64", le_bytes(py, v, u64::to_le_bytes)?, None),
            Column::Str(v) => {
                let mut code_of: std::collections::HashMap<&str, u32> =
                    std::collections::HashMap::new();
                let mut categories: Vec<&str> = Vec::new();
                let codes: Vec<u32> = v
                    .iter()
                    .map(|text| {
                        *code_of.entry(text.as_str()).or_insert_with(|| {
                            categories.push(text);
                            u32::try_from(categories.len() - 1)
                                .expect("fewer than 2^32 distinct strings in a column")
                        })
                    })
                    .collect();
                let data = le_bytes(py, &codes, u32::to_le_bytes)?;
                ("str", data, Some(PyList::new(py, categories)?))
            }
        };
        dict.set_item(name.as_ref(), encoded)?;
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

/// Checks scenario TOML `text` (labelled `file` in messages) after `overrides`; returns a
/// one-line description and the scenario's warnings (`field: message`), an override's own
/// among them.
#[pyfunction]
#[pyo3(signature = (text, file, overrides = None))]
fn validate(text: &str, file: &str, overrides: Option<&str>) -> PyResult<(String, Vec<String>)> {
    let s = load(text, file, overrides)?;
    let warnings = s.warnings.iter().map(ToString::to_string).collect();
    Ok((s.describe(), warnings))
}

/// The scenario's name, number of replications, seed and simulation fingerprint (equal for
/// scenarios that simulate the same network; see `Scenario::simulation_fingerprint`), after
/// `overrides`.
#[pyfunction]
#[pyo3(signature = (text, file, overrides = None))]
fn describe(text: &str, file: &str, overrides: Option<&str>) -> PyResult<(String, u32, u64, u64)> {
    let s = load(text, file, overrides)?;
    let fingerprint = s.simulation_fingerprint();
    Ok((s.name, s.replications, s.seed, fingerprint))
}

/// Wall time between two looks at Python from a run: Ctrl-C (pending signals) and the
/// progress callback.
const LOOK_AT_PYTHON_EVERY: Duration = Duration::from_millis(100);

/// Runs replication `replication` of the scenario (after `overrides`, a JSON list of
/// `[path, value]` pairs); returns `{table: {column: (kind, data, categories)}}` (see `table_to_dict`). Every 100 ms of wall time the run
/// takes the GIL back for a moment: a pending signal (Ctrl-C) stops it with the signal's
/// exception, and `progress(simulated_s, duration_s)`, if given, is called.
#[pyfunction]
#[pyo3(signature = (text, file, replication = 0, overrides = None, progress = None))]
#[expect(
    clippy::disallowed_methods,
    reason = "the glue, like a CLI, paces its looks at Python by wall time; the engine sees only its observer's answer"
)]
fn run<'py>(
    py: Python<'py>,
    text: &str,
    file: &str,
    replication: u32,
    overrides: Option<&str>,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let s = load(text, file, overrides)?;
    let duration_s = s.duration.as_secs_f64();
    let mut looked = Instant::now();
    let mut stopped_by: Option<PyErr> = None;
    let mut observe = |now: SimTime| {
        if looked.elapsed() < LOOK_AT_PYTHON_EVERY {
            return ControlFlow::Continue(());
        }
        looked = Instant::now();
        let outcome = Python::attach(|py| {
            py.check_signals()?;
            if let Some(callback) = &progress {
                callback.call1(py, (now.as_secs_f64(), duration_s))?;
            }
            Ok::<(), PyErr>(())
        });
        match outcome {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                stopped_by = Some(e);
                ControlFlow::Break(())
            }
        }
    };
    let finished = py.detach(|| congsim::run_observed(&s, replication, &mut observe));
    let Some(result) = finished else {
        return Err(stopped_by.expect("the observer says why it stopped the run"));
    };
    if let Some(callback) = &progress {
        callback.call1(py, (duration_s, duration_s))?;
    }
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

/// The scenario after `overrides` as TOML text (the text itself when there are none).
#[pyfunction]
#[pyo3(signature = (text, file, overrides = None))]
fn effective_toml(text: &str, file: &str, overrides: Option<&str>) -> PyResult<String> {
    let overrides = parse_overrides(overrides)?;
    scenario::effective_toml(text, file, &overrides).map_err(scenario_error)
}

/// The resolved network: `{"nodes": [...], "links": [{from, to, rate_bps, delay_s, queue}],
/// "paths": [{name, kind, direction, links: [link index]}]}`.
#[pyfunction]
#[pyo3(signature = (text, file, overrides = None))]
fn network<'py>(
    py: Python<'py>,
    text: &str,
    file: &str,
    overrides: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    let s = load(text, file, overrides)?;
    let out = PyDict::new(py);
    out.set_item("nodes", PyList::new(py, &s.nodes)?)?;
    let links = PyList::empty(py);
    for l in &s.links {
        let link = PyDict::new(py);
        link.set_item("from", &s.nodes[l.from.index()])?;
        link.set_item("to", &s.nodes[l.to.index()])?;
        link.set_item("rate_bps", l.rate.bps())?;
        link.set_item("delay_s", l.delay.as_secs_f64())?;
        link.set_item("queue", l.queue.kind_name())?;
        link.set_item("atm", l.atm.is_some())?;
        links.append(link)?;
    }
    out.set_item("links", links)?;
    let paths = PyList::empty(py);
    for p in s.traffic_paths() {
        let path = PyDict::new(py);
        path.set_item("name", p.name)?;
        path.set_item("kind", p.kind)?;
        path.set_item("direction", p.direction)?;
        let indices: Vec<usize> = p.links.iter().map(|l| l.index()).collect();
        path.set_item("links", indices)?;
        paths.append(path)?;
    }
    out.set_item("paths", paths)?;
    Ok(out)
}

/// The JSON Schema of the scenario format.
/// The resource limits in force (`CONGSIM_LIMITS` applied), as `[(name, value, what it
/// counts), ...]`; `ScenarioError` when the variable is malformed.
#[pyfunction]
fn limits() -> PyResult<Vec<(&'static str, u64, &'static str)>> {
    let limits = scenario::Limits::from_env().map_err(scenario_error)?;
    Ok((limits.entries().zip(scenario::limits::LIMITS.iter()))
        .map(|((name, value), def)| (name, value, def.counts))
        .collect())
}

#[pyfunction]
fn schema() -> String {
    scenario::json_schema()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    // The optional tables a run may produce, in order: Python reads them from here.
    m.add("OPTIONAL_TABLES", congsim::OPTIONAL_TABLES.to_vec())?;
    // The version (the workspace Cargo.toml's, which maturin also gives the wheel) and the
    // commit it was built from (build.rs; "unknown" outside a git checkout).
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("BUILD_COMMIT", env!("CONGSIM_BUILD_COMMIT"))?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(describe, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(limits, m)?)?;
    m.add_function(wrap_pyfunction!(effective_toml, m)?)?;
    m.add_function(wrap_pyfunction!(network, m)?)?;
    Ok(())
}
