//! Result lines cut to the fields a pipeline reads (`tooleval score --fields`): the
//! same bytes as `tooleval.scoring.fields.project`, written by the stream itself.
//!
//! Each whole line is parsed and written again with only the fields asked for, in
//! their order; `verdict` and `code` are derived as the Python module derives them.

use crate::json::{self, get, write, write_str, Value};

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
pub fn project_lines(data: &[u8], fields: &[String]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(data.len() / 8 + 64);
    for line in data.split(|&c| c == b'\n') {
        if line.is_empty() {
            continue;
        }
        let Some(Value::Obj(result)) = json::parse(line) else {
            return None;
        };
        out.push(b'{');
        let mut first = true;
        for name in fields {
            let start = out.len();
            if !first {
                out.push(b',');
            }
            write_str(&mut out, name);
            out.push(b':');
            match name.as_str() {
                "verdict" => write_str(&mut out, verdict(&result)),
                "code" => write_str(&mut out, &code(&result)),
                key => match get(&result, key) {
                    Some(v) => write(&mut out, v),
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
    Some(out)
}
