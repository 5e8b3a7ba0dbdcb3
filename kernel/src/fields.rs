//! Result lines cut to the fields a pipeline reads (`tooleval score --fields`): the
//! same bytes as `tooleval.scoring.fields.project`, written by the stream itself.
//!
//! What the kernel scores is written straight from the scorer ([`Projected`]):
//! only the fields asked for, in their order, and the reason and the diagnosis
//! are not even built unless asked for. Whole lines from Python (rows and
//! metrics the kernel leaves) are parsed and written again ([`project_lines`]);
//! `verdict` and `code` are derived as the Python module derives them.

use crate::json::{self, get, write, write_str, Value};
use crate::metrics::{Config, Row, Sink, Want};
use crate::result::{passed, write_passed, write_score, ARGUMENTS, EXTRA, MISSING, ORDER};

/// One field of `--fields`: a key of the result line or a derived one.
#[derive(Clone, Copy, PartialEq)]
pub enum Field {
    Id,
    Metric,
    Params,
    Score,
    Threshold,
    Passed,
    Reason,
    Diagnosis,
    Verdict,
    Code,
}

impl Field {
    /// The field of this name (`tooleval.scoring.fields.FIELDS`), None for another.
    pub fn named(name: &str) -> Option<Field> {
        Some(match name {
            "id" => Field::Id,
            "metric" => Field::Metric,
            "params" => Field::Params,
            "score" => Field::Score,
            "threshold" => Field::Threshold,
            "passed" => Field::Passed,
            "reason" => Field::Reason,
            "diagnosis" => Field::Diagnosis,
            "verdict" => Field::Verdict,
            "code" => Field::Code,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        let key = self.key();
        // `"name":` without its quotes and colon (ASCII by construction)
        std::str::from_utf8(&key[1..key.len() - 2]).unwrap_or("")
    }

    /// `"name":`, as the line writes the key.
    fn key(self) -> &'static [u8] {
        match self {
            Field::Id => b"\"id\":",
            Field::Metric => b"\"metric\":",
            Field::Params => b"\"params\":",
            Field::Score => b"\"score\":",
            Field::Threshold => b"\"threshold\":",
            Field::Passed => b"\"passed\":",
            Field::Reason => b"\"reason\":",
            Field::Diagnosis => b"\"diagnosis\":",
            Field::Verdict => b"\"verdict\":",
            Field::Code => b"\"code\":",
        }
    }
}

/// What a line of these fields needs built.
pub fn want(fields: &[Field]) -> Want {
    Want {
        reason: fields.contains(&Field::Reason),
        diagnosis: fields.contains(&Field::Diagnosis),
    }
}

/// The `code` of a result: its problems (`result::MISSING`...) joined by `+`.
fn write_code(out: &mut Vec<u8>, score: Option<f64>, problems: u8) {
    if score.is_none() {
        out.extend_from_slice(b"\"unscored\"");
        return;
    }
    if problems == 0 {
        out.extend_from_slice(b"\"ok\"");
        return;
    }
    out.push(b'"');
    let mut first = true;
    for (bit, name) in [
        (MISSING, "missing"),
        (EXTRA, "extra"),
        (ORDER, "order"),
        (ARGUMENTS, "arguments"),
    ] {
        if problems & bit != 0 {
            if !first {
                out.push(b'+');
            }
            out.extend_from_slice(name.as_bytes());
            first = false;
        }
    }
    out.push(b'"');
}

/// A result line cut to `fields`, written from the result's pieces (what
/// `project` gives of the whole line, without the whole line).
pub struct Projected<'a> {
    pub out: &'a mut Vec<u8>,
    pub fields: &'a [Field],
}

impl Sink for Projected<'_> {
    fn want(&self) -> Want {
        want(self.fields)
    }

    fn put(
        &mut self,
        cfg: &Config,
        row: &Row,
        score: Option<f64>,
        reason: &str,
        problems: u8,
        diagnosis: impl FnOnce(&mut Vec<u8>),
    ) {
        let out = &mut *self.out;
        let fields = self.fields;
        let mut diagnosis = Some(diagnosis);
        out.push(b'{');
        for (n, &field) in fields.iter().enumerate() {
            if n > 0 {
                out.push(b',');
            }
            out.extend_from_slice(field.key());
            let verdict = passed(cfg, score);
            match field {
                Field::Id => write_str(out, &row.id),
                Field::Metric => write_str(out, &cfg.name),
                Field::Params => out.extend_from_slice(&cfg.params),
                Field::Score => write_score(out, score),
                Field::Threshold => out.extend_from_slice(&cfg.threshold_json),
                Field::Passed => write_passed(out, verdict),
                Field::Reason => write_str(out, reason),
                Field::Diagnosis => match diagnosis.take() {
                    Some(write) => write(out),
                    None => out.extend_from_slice(b"null"), // a field is never listed twice
                },
                Field::Verdict => out.extend_from_slice(match verdict {
                    None => b"\"unscored\"",
                    Some(true) => b"\"pass\"",
                    Some(false) => b"\"fail\"",
                }),
                Field::Code => write_code(out, score, problems),
            }
        }
        out.extend_from_slice(b"}\n");
    }
}

/// Python's truthiness of a JSON value.
fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Int(i) => *i != 0,
        Value::UInt(u) => *u != 0,
        Value::Float(f) => *f != 0.0,
        Value::Str(s) => !s.is_empty(),
        Value::Arr(items) => !items.is_empty(),
        Value::Obj(items) => !items.is_empty(),
    }
}

/// `c.get("score", 1.0) != 1.0` of one argument check.
fn below_one(check: &Value) -> bool {
    let Value::Obj(items) = check else {
        return false;
    };
    match get(items, "score") {
        None => false,
        Some(Value::Float(f)) => *f != 1.0,
        Some(Value::Int(i)) => *i != 1,
        Some(Value::UInt(u)) => *u != 1,
        Some(Value::Bool(b)) => !*b,
        Some(_) => true,
    }
}

fn unscored(result: &[(std::borrow::Cow<'_, str>, Value<'_>)]) -> bool {
    matches!(get(result, "score"), None | Some(Value::Null))
}

fn code(result: &[(std::borrow::Cow<'_, str>, Value<'_>)]) -> String {
    if unscored(result) {
        return "unscored".to_string();
    }
    let Some(Value::Obj(diagnosis)) = get(result, "diagnosis") else {
        return "ok".to_string();
    };
    let mut found: Vec<&str> = Vec::new();
    for (key, name) in [
        ("missing", "missing"),
        ("extra", "extra"),
        ("order_violations", "order"),
    ] {
        if get(diagnosis, key).is_some_and(truthy) {
            found.push(name);
        }
    }
    if let Some(Value::Arr(checks)) = get(diagnosis, "arguments") {
        if checks.iter().any(below_one) {
            found.push("arguments");
        }
    }
    if found.is_empty() {
        "ok".to_string()
    } else {
        found.join("+")
    }
}

fn verdict(result: &[(std::borrow::Cow<'_, str>, Value<'_>)]) -> &'static str {
    if unscored(result) {
        "unscored"
    } else if get(result, "passed").is_some_and(truthy) {
        "pass"
    } else {
        "fail"
    }
}

/// Every line of `data` (whole result lines) cut to `fields`; None when a line is
/// not a JSON object (never one the scorers wrote).
pub fn project_lines(data: &[u8], fields: &[Field], out: &mut Vec<u8>) -> Option<()> {
    for line in data.split(|&c| c == b'\n') {
        if line.is_empty() {
            continue;
        }
        let Some(Value::Obj(result)) = json::parse(line) else {
            return None;
        };
        out.push(b'{');
        let mut first = true;
        for &field in fields {
            let start = out.len();
            if !first {
                out.push(b',');
            }
            out.extend_from_slice(field.key());
            match field {
                Field::Verdict => write_str(out, verdict(&result)),
                Field::Code => write_str(out, &code(&result)),
                _ => match get(&result, field.name()) {
                    Some(v) => write(out, v),
                    None => {
                        out.truncate(start); // a key the line lacks is left out
                        continue;
                    }
                },
            }
            first = false;
        }
        out.extend_from_slice(b"}\n");
    }
    Some(())
}
