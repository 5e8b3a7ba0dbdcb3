//! `tooleval._kernel`: the compiled scoring core of tooleval.
//!
//! A faster engine for the deterministic metrics, not a second definition of
//! them: bytes of a JSONL row in, bytes of the result line out, equal byte for
//! byte to what the Python reference writes. A row the kernel cannot take is
//! handed back (`None`) and scored by Python. `Kernel.score_sample` does the
//! same for a `Sample` object in process (`objects`), giving a `Result`'s pieces.

mod alignment;
mod assignment;
mod fields;
mod json;
mod matching;
mod metrics;
mod objects;
mod otlp;
mod output;
mod protocol;
mod result;
mod rows;
mod similarity;
mod stream;
mod structural;
mod text;

use alignment::KeysFor;
use json::{get, Value};
use matching::{Comparator, Matcher};
use metrics::{Config, Coverage, Empty, Metric};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple, PyType};
use std::borrow::Cow;

// Rust allocations only (Python's objects keep Python's allocator): a row's
// many small strings and vectors are allocated and freed on the scoring threads.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn bad(what: &str) -> PyErr {
    PyValueError::new_err(format!("kernel config: {what}"))
}

/// A matcher from its spec, the form `Matcher.spec()` gives in tooleval.matching and
/// results record: a name, or a one-key object naming it with its options (an option
/// missing takes the Python default; one the kernel does not report is refused).
fn matcher(v: &Value<'_>) -> PyResult<Matcher> {
    let (name, options, named): (&str, &[(Cow<'_, str>, Value<'_>)], bool) = match v {
        Value::Str(name) => (name.as_ref(), &[], true),
        Value::Obj(items) if items.len() == 1 => match &items[0] {
            (name, Value::Obj(options)) => (name.as_ref(), options.as_slice(), false),
            _ => return Err(bad("matcher options")),
        },
        _ => return Err(bad("a matcher spec")),
    };
    let known = protocol::matcher_options(name).ok_or_else(|| bad("unknown matcher"))?;
    if options.iter().any(|(k, _)| !known.contains(&k.as_ref())) {
        return Err(bad("matcher option"));
    }
    let flag = |key: &str, default: bool| match get(options, key) {
        None => Ok(default),
        Some(Value::Bool(b)) => Ok(*b),
        _ => Err(bad(key)),
    };
    let float = |key: &str, default: f64| match get(options, key) {
        None => Ok(default),
        Some(Value::Float(f)) => Ok(*f),
        Some(Value::Int(i)) => Ok(*i as f64),
        _ => Err(bad(key)),
    };
    let inner = || -> PyResult<Box<Matcher>> {
        Ok(Box::new(match get(options, "matcher") {
            None => Matcher::Exact,
            Some(m) => matcher(m)?,
        }))
    };
    match name {
        "exact" => Ok(Matcher::Exact),
        "ignore" => Ok(Matcher::Ignore),
        "normalized" => Ok(Matcher::Normalized {
            fold: !flag("case_sensitive", false)?,
            numeric_text: flag("numeric_text", false)?,
        }),
        "numeric" => Ok(Matcher::Numeric {
            abs_tol: float("abs_tol", 0.0)?,
            rel_tol: float("rel_tol", 1e-9)?,
            int_float_equal: flag("int_float_equal", true)?,
        }),
        "similarity" => Ok(Matcher::Similarity {
            jaro_winkler: match get(options, "method") {
                None => false,
                Some(Value::Str(m)) if m == "levenshtein" => false,
                Some(Value::Str(m)) if m == "jaro_winkler" => true,
                _ => return Err(bad("similarity method")),
            },
            min_score: match get(options, "min_score") {
                None | Some(Value::Null) => None,
                _ => Some(float("min_score", 1.0)?),
            },
            fold: !flag("case_sensitive", true)?,
        }),
        // by name: the expected value lists the acceptable ones
        "any_of" if named => Ok(Matcher::AnyOfExpected),
        "any_of" => match get(options, "values") {
            Some(Value::Arr(values)) => Ok(Matcher::AnyOf {
                values: values.iter().map(|v| v.clone().into_owned()).collect(),
                optional: flag("optional", false)?,
            }),
            _ => Err(bad("any_of values")),
        },
        "unordered" => Ok(Matcher::Unordered {
            inner: inner()?,
            recursive: flag("recursive", false)?,
        }),
        "numeric_text" => Ok(Matcher::NumericText { inner: inner()? }),
        _ => Err(bad("unknown matcher")),
    }
}

/// The comparator from `ArgumentComparator.spec()`: one matcher's spec, or
/// `{"default", "keys", "tools"}` with a spec for each matcher.
fn comparator(v: &Value<'_>) -> PyResult<Comparator> {
    match v {
        Value::Obj(args) if get(args, "default").is_some() => {
            if args
                .iter()
                .any(|(k, _)| !matches!(k.as_ref(), "default" | "keys" | "tools"))
            {
                return Err(bad("args"));
            }
            Ok(Comparator {
                default: matcher(get(args, "default").ok_or_else(|| bad("args.default"))?)?,
                keys: pairs_of(get(args, "keys"), matcher)?,
                tools: pairs_of(get(args, "tools"), |per| pairs_of(Some(per), matcher))?,
            })
        }
        spec => Ok(Comparator {
            default: matcher(spec)?,
            keys: Vec::new(),
            tools: Vec::new(),
        }),
    }
}

fn pairs_of<T>(
    v: Option<&Value<'_>>,
    each: impl Fn(&Value<'_>) -> PyResult<T>,
) -> PyResult<Vec<(String, T)>> {
    let mut out = Vec::new();
    if let Some(Value::Obj(items)) = v {
        for (k, item) in items {
            out.push((k.to_string(), each(item)?));
        }
    }
    Ok(out)
}

fn strings(v: &Value<'_>) -> PyResult<Vec<String>> {
    let Value::Arr(items) = v else {
        return Err(bad("a key list"));
    };
    items
        .iter()
        .map(|s| match s {
            Value::Str(s) => Ok(s.to_string()),
            _ => Err(bad("a key")),
        })
        .collect()
}

fn text<'a>(cfg: &'a [(Cow<'_, str>, Value<'_>)], key: &str) -> PyResult<&'a str> {
    match get(cfg, key) {
        Some(Value::Str(s)) => Ok(s),
        _ => Err(bad(key)),
    }
}

fn flag(cfg: &[(Cow<'_, str>, Value<'_>)], key: &str) -> PyResult<bool> {
    match get(cfg, key) {
        Some(Value::Bool(b)) => Ok(*b),
        _ => Err(bad(key)),
    }
}

/// Every option of `name` given, no other, each enumerated one a value the kernel takes
/// (`protocol::METRICS`); `metric` and `args` (the comparator) are always there.
fn check_options(cfg: &[(Cow<'_, str>, Value<'_>)], name: &str) -> PyResult<()> {
    let options = protocol::options(name).ok_or_else(|| bad("unsupported metric"))?;
    for (key, _) in cfg {
        let known = key == "metric" || key == "args" || options.iter().any(|(o, _)| o == key);
        if !known {
            return Err(bad("unknown option"));
        }
    }
    for (option, values) in options {
        match (get(cfg, option), values) {
            (None, _) => return Err(bad(option)),
            (Some(Value::Str(v)), Some(values)) if !values.contains(&v.as_ref()) => {
                return Err(bad(option))
            }
            (Some(v), Some(_)) if !matches!(v, Value::Str(_)) => return Err(bad(option)),
            _ => {}
        }
    }
    Ok(())
}

/// `accepts()`: what this kernel scores, as JSON text (see `protocol::accepts_json`).
#[pyfunction]
fn accepts() -> String {
    protocol::accepts_json()
}

fn build(config: &[u8], params: &[u8], threshold: &[u8]) -> PyResult<Config> {
    let Some(Value::Obj(cfg)) = json::parse(config) else {
        return Err(bad("not a JSON object"));
    };
    let args = get(&cfg, "args").ok_or_else(|| bad("args"))?;
    let cmp = comparator(args)?;
    let mut cmp_spec = Vec::new();
    json::write(&mut cmp_spec, args);
    let name = text(&cfg, "metric")?.to_string();
    check_options(&cfg, &name)?;
    let strict = |cfg: &[(Cow<'_, str>, Value<'_>)]| match text(cfg, "order")? {
        "strict" => Ok(true),
        "flexible" => Ok(false),
        _ => Err(bad("order")),
    };
    let empty = match text(&cfg, "empty") {
        Err(_) if name == "output_contains" => Empty::Unscored, // a parameter it does not have
        found => match found? {
            "perfect" => Empty::Perfect,
            "zero" => Empty::Zero,
            "unscored" => Empty::Unscored,
            _ => return Err(bad("empty")),
        },
    };
    let metric = match name.as_str() {
        "tool_call_accuracy" => Metric::Accuracy {
            strict: strict(&cfg)?,
            empty,
        },
        "tool_call_f1" => Metric::F1 {
            empty,
            mismatch_keys: text(&cfg, "extra_keys")? == "mismatch",
        },
        "tool_correctness" => Metric::Correctness {
            keys: match get(&cfg, "argument_keys") {
                None | Some(Value::Null) => KeysFor::All,
                Some(Value::Arr(_)) => KeysFor::Same(strings(get(&cfg, "argument_keys").unwrap())?),
                Some(v @ Value::Obj(_)) => KeysFor::PerTool(pairs_of(Some(v), strings)?),
                _ => return Err(bad("argument_keys")),
            },
            exact_match: flag(&cfg, "exact_match")?,
            strict: strict(&cfg)?,
            ignore_extra: text(&cfg, "extra_calls")? == "ignore",
            mismatch_keys: text(&cfg, "extra_keys")? == "mismatch",
            empty,
        },
        "trajectory_match" => Metric::Trajectory {
            strict: strict(&cfg)?,
            coverage: match text(&cfg, "coverage")? {
                "exact" => Coverage::Exact,
                "subset" => Coverage::Subset,
                "superset" => Coverage::Superset,
                _ => return Err(bad("coverage")),
            },
            empty,
        },
        "output_contains" => Metric::Contains(output::Contains {
            values: match get(&cfg, "values") {
                None | Some(Value::Null) => None,
                Some(v) => Some(v.clone().into_owned()),
            },
            require_all: match text(&cfg, "require")? {
                "all" => true,
                "any" => false,
                _ => return Err(bad("require")),
            },
            case_sensitive: flag(&cfg, "case_sensitive")?,
        }),
        _ => return Err(bad("unsupported metric")),
    };
    let threshold_value = match get(&cfg, "threshold") {
        None | Some(Value::Null) => None,
        Some(Value::Float(f)) => Some(*f),
        Some(Value::Int(i)) => Some(*i as f64),
        _ => return Err(bad("threshold")),
    };
    Ok(Config {
        name,
        params: params.to_vec(),
        threshold: threshold_value,
        threshold_json: threshold.to_vec(),
        metric,
        cmp,
        cmp_spec,
    })
}

/// Appends the result line of one input line to `out`; false (and `out`
/// unchanged) when Python must score it.
fn score_into(cfg: &Config, line: &[u8], number: u64, out: &mut Vec<u8>) -> bool {
    let mark = out.len();
    let done = match &cfg.metric {
        Metric::Contains(contains) => json::parse(line)
            .and_then(|value| rows::read_row_texts(value, number))
            .is_some_and(|(row, texts)| {
                output::score_output(cfg, contains, &row, &texts, out).is_ok()
            }),
        _ => json::parse(line)
            .and_then(|value| rows::read_row(value, number))
            .is_some_and(|row| {
                metrics::score_row(cfg, &row, &mut metrics::Shared::default(), out).is_ok()
            }),
    };
    if !done {
        out.truncate(mark);
    }
    done
}

/// The results of `lines` written one after another, and the lines Python must
/// score as `(index in lines, offset in the output where their result goes)`.
fn score_part(cfg: &Config, lines: &[(u64, &[u8])]) -> (Vec<u8>, Vec<(usize, usize)>) {
    let size: usize = lines.iter().map(|(_, l)| l.len()).sum();
    let mut out = Vec::with_capacity(size * 4 + 1024);
    let mut fallback = Vec::new();
    for (index, &(number, line)) in lines.iter().enumerate() {
        if !score_into(cfg, line, number, &mut out) {
            fallback.push((index, out.len()));
        }
    }
    (out, fallback)
}

fn blank(line: &[u8]) -> bool {
    line.iter()
        .all(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c))
}

/// A bound metric the kernel scores.
#[pyclass(frozen, module = "tooleval._kernel")]
struct Kernel {
    cfg: Config,
}

#[pymethods]
impl Kernel {
    /// `Kernel(config_json, params_json, threshold_json)`; ValueError for a config it cannot take.
    #[new]
    fn new(config: &[u8], params: &[u8], threshold: &[u8]) -> PyResult<Self> {
        Ok(Kernel {
            cfg: build(config, params, threshold)?,
        })
    }

    /// The result line of one JSONL line (newline included), or None for Python to score.
    fn score_line<'py>(
        &self,
        py: Python<'py>,
        line: &[u8],
        number: u64,
    ) -> Option<Bound<'py, PyBytes>> {
        let mut out = Vec::with_capacity(4096);
        score_into(&self.cfg, line, number, &mut out).then(|| PyBytes::new(py, &out))
    }

    /// `Kernel.know_model(Sample, ExpectedTools, ToolCall)`: the classes
    /// `score_sample` reads (given by `tooleval.metrics.engine`; the kernel
    /// imports nothing of tooleval's).
    #[staticmethod]
    fn know_model(
        sample: &Bound<'_, PyType>,
        expected_tools: &Bound<'_, PyType>,
        tool_call: &Bound<'_, PyType>,
    ) {
        objects::know_model(sample, expected_tools, tool_call);
    }

    /// `(score, passed, reason, diagnosis)` of a `tooleval.model.Sample` (what
    /// a `Result` holds besides metric, params and threshold), or None for the
    /// Python reference to score it. `diagnosis()` gives the diagnosis JSON
    /// (scoring the sample again: most callers never read it). The GIL stays
    /// held: one sample is a few microseconds of work.
    #[allow(clippy::type_complexity)]
    fn score_sample<'py>(
        slf: &Bound<'py, Self>,
        sample: &Bound<'py, PyAny>,
    ) -> PyResult<Option<(Option<f64>, Option<bool>, String, objects::Unwritten)>> {
        objects::score_sample(slf, sample)
    }

    /// Score a whole stream: blocks of about `block` bytes from `read(block)`
    /// (`bytes`, empty at the end), scored on `threads` threads with the GIL
    /// released, result lines written to the file descriptor `fd` in input
    /// order; a row the kernel hands back is scored by `fallback(number, line)`
    /// (bytes, written in its place; an exception it raises stops the run with
    /// every row before it written). Returns the number of rows (non-blank lines).
    #[pyo3(signature = (read, fd, fallback, threads=1, block=1 << 20))]
    fn score_stream(
        &self,
        py: Python<'_>,
        read: &Bound<'_, PyAny>,
        fd: i32,
        fallback: &Bound<'_, PyAny>,
        threads: usize,
        block: usize,
    ) -> PyResult<u64> {
        let job = stream::Job {
            cfgs: vec![Some(&self.cfg)],
            read: read.clone(),
            out: stream::Output::fd(fd),
            fallback: stream::Fallback::One(fallback.clone()),
            progress: None,
            tally: None,
            fields: None,
        };
        Ok(stream::score_stream(py, job, threads, block)?.0)
    }

    /// Score a whole stream with several metrics, each row parsed once:
    /// `kernels` in output order, None for a metric only Python scores. Blocks
    /// come from `read(block)`; each block's result lines go to `write(bytes)`
    /// (or to the file descriptor `fd` when `write` is None), a row's metrics
    /// in the order of `kernels`. What the kernel leaves (a None metric, a row
    /// it hands back) is scored by `fallback(number, line, indices)`, a list of
    /// result bytes, one per index, written in their places (an exception it
    /// raises stops the run with every row before it written). `progress(rows)`
    /// is called after each block. Returns `(rows, tally)`: with `tally`,
    /// `([(rows, passed, failed, unscored, score_sum)] per metric, {status:
    /// rows}, [(status, number, line, result lines)])` keeping the first `keep`
    /// rows of each status (failing, unscored, passing), and with `record` every
    /// row's scores (f64, NaN when unscored) and verdicts (u8: 0 failed, 1 passed,
    /// 2 none) as bytes, row after row, a row's metrics in order; else None.
    /// With `fields`, each result line is written with only those fields (`--fields`,
    /// `kernel/src/fields.rs`: what the kernel scores is written so from the start,
    /// without the reason or the diagnosis unless asked for); the tally counts the
    /// same results, and its kept rows hold the whole result lines.
    #[staticmethod]
    #[pyo3(signature = (kernels, read, write, fallback, fd=-1, threads=1, block=1 << 20, tally=false, keep=0, progress=None, record=false, fields=None))]
    #[allow(clippy::too_many_arguments)]
    fn score_streams<'py>(
        py: Python<'py>,
        kernels: Vec<Option<Py<Kernel>>>,
        read: &Bound<'py, PyAny>,
        write: Option<Bound<'py, PyAny>>,
        fallback: &Bound<'py, PyAny>,
        fd: i32,
        threads: usize,
        block: usize,
        tally: bool,
        keep: usize,
        progress: Option<Bound<'py, PyAny>>,
        record: bool,
        fields: Option<Vec<String>>,
    ) -> PyResult<(u64, Option<Bound<'py, PyTuple>>)> {
        let out = match write {
            Some(write) => stream::Output::Write(write),
            None if fd >= 0 => stream::Output::fd(fd),
            None => return Err(PyValueError::new_err("score_streams needs write or fd")),
        };
        let fields = fields
            .map(|names| {
                names
                    .iter()
                    .map(|name| fields::Field::named(name))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| PyValueError::new_err("score_streams: an unknown field"))
            })
            .transpose()?;
        let job = stream::Job {
            cfgs: kernels
                .iter()
                .map(|k| k.as_ref().map(|k| &k.get().cfg))
                .collect(),
            read: read.clone(),
            out,
            fallback: stream::Fallback::Many(fallback.clone()),
            progress,
            tally: (tally || record).then(|| stream::Tally::new(kernels.len(), keep, record)),
            fields,
        };
        let (rows, tally) = stream::score_stream(py, job, threads, block)?;
        Ok((rows, tally.map(|t| t.into_py(py)).transpose()?))
    }

    /// Score a block of whole lines numbered from `start` on `threads` threads, GIL released.
    ///
    /// Returns a list in input order of `bytes` (result lines of consecutive
    /// rows the kernel scored) and `(number, line)` tuples (rows for Python).
    /// Blank lines are skipped but counted, as `tooleval score` counts them.
    #[pyo3(signature = (data, start, threads=1))]
    fn score_block<'py>(
        &self,
        py: Python<'py>,
        data: &[u8],
        start: u64,
        threads: usize,
    ) -> PyResult<Bound<'py, PyList>> {
        let mut lines: Vec<(u64, &[u8])> = Vec::new();
        let mut number = start;
        for line in data.split_inclusive(|&c| c == b'\n') {
            if !blank(line) {
                lines.push((number, line));
            }
            number += 1;
        }
        let cfg = &self.cfg;
        let parts: Vec<(usize, Vec<u8>, Vec<(usize, usize)>)> = py.allow_threads(|| {
            let threads = threads.clamp(1, 64).min(lines.len().max(1));
            let size = lines.len().div_ceil(threads).max(1);
            if threads == 1 {
                let (out, fallback) = score_part(cfg, &lines);
                return vec![(0, out, fallback)];
            }
            std::thread::scope(|scope| {
                let handles: Vec<_> = lines
                    .chunks(size)
                    .enumerate()
                    .map(|(k, part)| {
                        scope.spawn(move || {
                            let (out, fallback) = score_part(cfg, part);
                            (k * size, out, fallback)
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("kernel thread panicked"))
                    .collect()
            })
        });
        let out = PyList::empty(py);
        for (first, bytes, fallback) in parts {
            let mut from = 0;
            for (index, at) in fallback {
                if at > from {
                    out.append(PyBytes::new(py, &bytes[from..at]))?;
                }
                from = at;
                let (n, line) = lines[first + index];
                out.append(PyTuple::new(
                    py,
                    [
                        n.into_pyobject(py)?.into_any(),
                        PyBytes::new(py, line).into_any(),
                    ],
                )?)?;
            }
            if bytes.len() > from {
                out.append(PyBytes::new(py, &bytes[from..]))?;
            }
        }
        Ok(out)
    }
}

#[pymodule]
fn _kernel(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Kernel>()?;
    m.add_function(wrap_pyfunction!(similarity::similarity, m)?)?;
    m.add_function(wrap_pyfunction!(accepts, m)?)?;
    m.add_function(wrap_pyfunction!(otlp::otlp_trace_spans, m)?)?;
    m.add("PROTOCOL", protocol::PROTOCOL)?;
    let names: Vec<&str> = protocol::METRICS.iter().map(|(name, _)| *name).collect();
    m.add("METRICS", PyTuple::new(m.py(), names)?)?;
    Ok(())
}
