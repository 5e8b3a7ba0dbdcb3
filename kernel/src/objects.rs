//! Rows read from Python objects: a `tooleval.model.Sample` with its
//! `ExpectedTools` and `ToolCall`s, walked directly instead of through a JSON
//! line (`bind(...).score(sample)` in process).
//!
//! Only what the JSON row path would also take is read: exact `Sample`,
//! `ExpectedTools` and `ToolCall` objects, names that are non-empty `str`,
//! arguments that are plain JSON (`str`, `int` within 64 bits, finite `float`,
//! `bool`, `None`, `list`, `dict` with `str` keys, exact types only, nested at
//! most as deep as a JSON row may be), no call with a `parse_error`, no agent
//! call without arguments, no ordering pairs that contradict each other.
//! Anything else gives `None`, and the Python reference scores the sample.

use crate::json::{self, write_int, write_obj, write_str, Obj, Value, MAX_DEPTH};
use crate::matching::Call;
use crate::metrics::{score_row, Parts, Row, Shared};
use crate::rows::{read_row, settle_pairs};
use crate::Kernel;
use pyo3::exceptions::PyRuntimeError;
use pyo3::ffi;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple, PyType};
use std::borrow::Cow;
use std::ffi::c_int;
use std::ptr::addr_of_mut;

/// `(Sample, ExpectedTools, ToolCall)`, given once by `Kernel.know_model`:
/// the kernel imports nothing of tooleval's.
static MODEL: GILOnceCell<[Py<PyType>; 3]> = GILOnceCell::new();

/// Remember tooleval's model classes (the first ones given are kept).
pub fn know_model(
    sample: &Bound<'_, PyType>,
    expected_tools: &Bound<'_, PyType>,
    tool_call: &Bound<'_, PyType>,
) {
    let types = [sample, expected_tools, tool_call].map(|t| t.clone().unbind());
    let _ = MODEL.set(sample.py(), types); // already known: keep the first
}

/// Where a call's arguments sit in a JSON row (row, list of calls, call): the
/// same nesting limit applies to both paths.
const ARGS_DEPTH: usize = 3;

/// A `str` object's text; `None` for a lone surrogate (no UTF-8 form).
///
/// # Safety
/// `o` is a valid `str` object and the GIL is held.
unsafe fn utf8(o: *mut ffi::PyObject) -> Option<String> {
    let mut size: ffi::Py_ssize_t = 0;
    let data = ffi::PyUnicode_AsUTF8AndSize(o, &mut size);
    if data.is_null() {
        ffi::PyErr_Clear();
        return None;
    }
    let bytes = std::slice::from_raw_parts(data.cast::<u8>(), size as usize);
    // PyUnicode_AsUTF8AndSize gives valid UTF-8
    Some(String::from_utf8_unchecked(bytes.to_vec()))
}

fn text(v: &Bound<'_, PyAny>) -> Option<String> {
    let s = v.downcast_exact::<PyString>().ok()?;
    // SAFETY: an exact `str`, GIL held (`v` is bound to it)
    unsafe { utf8(s.as_ptr()) }
}

/// One argument value as the JSON row path would read it.
///
/// Walked through the C API with borrowed references (no reference counting
/// per value): nothing here runs Python code, so the containers cannot change
/// while they are read.
///
/// # Safety
/// `o` is a valid object and the GIL is held.
unsafe fn value(o: *mut ffi::PyObject, depth: usize) -> Option<Value<'static>> {
    let kind = ffi::Py_TYPE(o);
    if kind == addr_of_mut!(ffi::PyUnicode_Type) {
        return utf8(o).map(|s| Value::Str(Cow::Owned(s)));
    }
    if o == ffi::Py_None() {
        return Some(Value::Null);
    }
    if kind == addr_of_mut!(ffi::PyBool_Type) {
        return Some(Value::Bool(o == ffi::Py_True()));
    }
    if kind == addr_of_mut!(ffi::PyLong_Type) {
        let mut overflow: c_int = 0;
        let x = ffi::PyLong_AsLongLongAndOverflow(o, &mut overflow);
        if overflow == 0 {
            return Some(Value::Int(x));
        }
        if overflow < 0 {
            return None;
        }
        let u = ffi::PyLong_AsUnsignedLongLong(o);
        if u == u64::MAX && !ffi::PyErr_Occurred().is_null() {
            ffi::PyErr_Clear(); // beyond 64 bits: Python's
            return None;
        }
        return Some(Value::UInt(u));
    }
    if kind == addr_of_mut!(ffi::PyFloat_Type) {
        let x = ffi::PyFloat_AsDouble(o);
        return x.is_finite().then_some(Value::Float(x));
    }
    if depth >= MAX_DEPTH {
        return None;
    }
    if kind == addr_of_mut!(ffi::PyDict_Type) {
        return object(o, depth + 1).map(Value::Obj);
    }
    if kind == addr_of_mut!(ffi::PyList_Type) {
        let n = ffi::PyList_Size(o);
        let mut out = Vec::with_capacity(n.max(0) as usize);
        for k in 0..n {
            out.push(value(ffi::PyList_GetItem(o, k), depth + 1)?);
        }
        return Some(Value::Arr(out));
    }
    None
}

/// An exact `dict` with `str` keys, in insertion order.
///
/// # Safety
/// `d` is a valid exact `dict` and the GIL is held.
unsafe fn object(d: *mut ffi::PyObject, depth: usize) -> Option<Obj<'static>> {
    let mut out = Vec::with_capacity(ffi::PyDict_Size(d).max(0) as usize);
    let mut pos: ffi::Py_ssize_t = 0;
    let mut key: *mut ffi::PyObject = std::ptr::null_mut();
    let mut item: *mut ffi::PyObject = std::ptr::null_mut();
    while ffi::PyDict_Next(d, &mut pos, &mut key, &mut item) != 0 {
        if ffi::Py_TYPE(key) != addr_of_mut!(ffi::PyUnicode_Type) {
            return None;
        }
        out.push((Cow::Owned(utf8(key)?), value(item, depth)?));
    }
    Some(out)
}

fn call(
    c: &Bound<'_, PyAny>,
    tool_call: &Bound<'_, PyType>,
    expected: bool,
) -> Option<Call<'static>> {
    if !c.get_type().is(tool_call) {
        return None;
    }
    let py = c.py();
    if !c.getattr(intern!(py, "parse_error")).ok()?.is_none() {
        return None;
    }
    let name = text(&c.getattr(intern!(py, "name")).ok()?)?;
    if name.is_empty() {
        return None;
    }
    let args = c.getattr(intern!(py, "args")).ok()?;
    let args = if args.is_none() {
        if !expected {
            return None; // the reference records `null` arguments of an agent's call as given
        }
        None
    } else {
        let args = args.downcast_exact::<PyDict>().ok()?;
        // SAFETY: an exact `dict`, GIL held
        Some(unsafe { object(args.as_ptr(), ARGS_DEPTH) }?)
    };
    Some(Call {
        name: Cow::Owned(name),
        args,
    })
}

/// `ExpectedTools.before`: `None` (the listed order) or the pairs, sorted, each once.
fn before(v: &Bound<'_, PyAny>, n: usize) -> Option<Option<Vec<(usize, usize)>>> {
    if v.is_none() {
        return Some(None);
    }
    let items = v.downcast_exact::<PyTuple>().ok()?;
    let mut pairs = Vec::with_capacity(items.len());
    for pair in items.iter() {
        let (a, b): (usize, usize) = pair.downcast_exact::<PyTuple>().ok()?.extract().ok()?;
        if a >= n || b >= n || a == b {
            return None;
        }
        pairs.push((a, b));
    }
    Some(Some(settle_pairs(pairs)?)) // contradictory pairs: Python's, as on the JSON row path
}

/// The kernel's row for a `Sample`, or `None` when the Python reference must
/// score it (always, until `know_model` has been called).
pub fn read_sample(sample: &Bound<'_, PyAny>) -> Option<Row<'static>> {
    let py = sample.py();
    let [sample_type, expected_type, tool_call] = MODEL.get(py)?;
    read(
        sample,
        sample_type.bind(py),
        expected_type.bind(py),
        tool_call.bind(py),
    )
}

fn read(
    sample: &Bound<'_, PyAny>,
    sample_type: &Bound<'_, PyType>,
    expected_type: &Bound<'_, PyType>,
    tool_call: &Bound<'_, PyType>,
) -> Option<Row<'static>> {
    if !sample.get_type().is(sample_type) {
        return None;
    }
    let py = sample.py();
    let exp = sample.getattr(intern!(py, "expected_tools")).ok()?;
    let (expected, order) = if exp.is_none() {
        (None, None)
    } else {
        if !exp.get_type().is(expected_type) {
            return None;
        }
        let listed = exp.getattr(intern!(py, "calls")).ok()?;
        let listed = listed.downcast_exact::<PyTuple>().ok()?;
        let mut calls = Vec::with_capacity(listed.len());
        for c in listed.iter() {
            calls.push(call(&c, tool_call, true)?);
        }
        let order = before(&exp.getattr(intern!(py, "before")).ok()?, calls.len())?;
        (Some(calls), order)
    };
    let mut made = sample.getattr(intern!(py, "tools_called")).ok()?;
    if made.is_none() {
        // calls taken from the messages, with their tool results attached
        made = sample.call_method0(intern!(py, "actual_calls")).ok()?;
    }
    let made = made.downcast_exact::<PyList>().ok()?;
    let mut actual = Vec::with_capacity(made.len());
    for c in made.iter() {
        actual.push(call(&c, tool_call, false)?);
    }
    Some(Row {
        id: Cow::Borrowed(""),
        expected,
        before: order,
        actual,
    })
}

/// A scored sample's diagnosis, written when called (`Result.diagnosis` is
/// decoded from it only when someone reads it).
///
/// It keeps the row as a canonical JSON row (a third of the memory of the
/// kernel's parsed row) and scores it again through the JSON row path.
#[pyclass(frozen, module = "tooleval._kernel")]
pub struct Unwritten {
    kernel: Py<Kernel>,
    row: Vec<u8>,
}

#[pymethods]
impl Unwritten {
    /// The diagnosis as JSON bytes (`Diagnosis.to_dict()` through `orjson.dumps`).
    fn __call__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let mut parts = Parts {
            write_diagnosis: true,
            ..Parts::default()
        };
        json::parse(&self.row)
            .and_then(|value| read_row(value, 0))
            .and_then(|row| {
                score_row(
                    &self.kernel.get().cfg,
                    &row,
                    &mut Shared::default(),
                    &mut parts,
                )
                .ok()
            })
            .ok_or_else(|| PyRuntimeError::new_err("kernel: a sample scored once failed again"))?;
        Ok(PyBytes::new(py, &parts.diagnosis))
    }
}

fn write_calls(out: &mut Vec<u8>, calls: &[Call<'_>]) {
    out.push(b'[');
    for (n, call) in calls.iter().enumerate() {
        if n > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"name\":");
        write_str(out, &call.name);
        out.extend_from_slice(b",\"args\":");
        match &call.args {
            Some(args) => write_obj(out, args),
            None => out.extend_from_slice(b"null"),
        }
        out.push(b'}');
    }
    out.push(b']');
}

/// `row` as the canonical JSON row `rows::read_row` reads back into the same row.
fn row_json(row: &Row<'_>) -> Vec<u8> {
    let mut out = Vec::with_capacity(1024);
    out.extend_from_slice(b"{\"tools_called\":");
    write_calls(&mut out, &row.actual);
    out.extend_from_slice(b",\"expected_tools\":");
    match (&row.expected, &row.before) {
        (None, _) => out.extend_from_slice(b"null"),
        (Some(calls), None) => write_calls(&mut out, calls),
        (Some(calls), Some(pairs)) => {
            out.extend_from_slice(b"{\"calls\":");
            write_calls(&mut out, calls);
            out.extend_from_slice(b",\"before\":[");
            for (n, &(a, b)) in pairs.iter().enumerate() {
                if n > 0 {
                    out.push(b',');
                }
                out.push(b'[');
                write_int(&mut out, a as i64);
                out.push(b',');
                write_int(&mut out, b as i64);
                out.push(b']');
            }
            out.extend_from_slice(b"]}");
        }
    }
    out.push(b'}');
    out
}

/// `Kernel.score_sample`: the pieces of a `Result`, or `None` for Python.
#[allow(clippy::type_complexity)]
pub fn score_sample(
    kernel: &Bound<'_, Kernel>,
    sample: &Bound<'_, PyAny>,
) -> PyResult<Option<(Option<f64>, Option<bool>, String, Unwritten)>> {
    let Some(row) = read_sample(sample) else {
        return Ok(None);
    };
    let mut parts = Parts::default();
    if score_row(&kernel.get().cfg, &row, &mut Shared::default(), &mut parts).is_err() {
        return Ok(None);
    }
    let unwritten = Unwritten {
        kernel: kernel.clone().unbind(),
        row: row_json(&row),
    };
    Ok(Some((parts.score, parts.passed, parts.reason, unwritten)))
}
