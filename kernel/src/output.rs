//! `output_contains` (`tooleval.metrics.output`): does the final output contain
//! the given values? Written byte for byte as the Python reference writes it.

use std::borrow::Cow;

use crate::json::{py_float, short_capped, write_capped, write_str, Value};
use crate::metrics::{Config, Row, Sink};
use crate::rows::RowTexts;
use crate::text::casefold;

/// The options of a bound `output_contains` (`messages="final"` only).
pub struct Contains {
    /// The `values` option; `None` reads `metadata.output_contains` of each row.
    pub values: Option<Value<'static>>,
    pub require_all: bool,
    pub case_sensitive: bool,
}

/// `output._text`: a value looked for as text (`None` drops it); `Err` for
/// values whose `str()` only Python writes (lists, objects).
fn as_text(v: &Value<'_>) -> Result<Option<String>, ()> {
    Ok(match v {
        Value::Null => None,
        Value::Str(s) => Some(s.to_string()),
        Value::Bool(b) => Some(if *b { "true" } else { "false" }.to_string()),
        Value::Int(i) => Some(i.to_string()),
        Value::UInt(u) => Some(u.to_string()),
        Value::Float(x) => Some(py_float(*x)),
        Value::Arr(_) | Value::Obj(_) => return Err(()),
    })
}

fn string_list(out: &mut Vec<u8>, items: &[&String]) {
    out.push(b'[');
    for (n, s) in items.iter().enumerate() {
        if n > 0 {
            out.push(b',');
        }
        write_capped(out, |out| write_str(out, s));
    }
    out.push(b']');
}

const EMPTY_DIAGNOSIS: &[u8] =
    b"{\"missing\":[],\"extra\":[],\"order_violations\":[],\"arguments\":[],\"details\":{";

/// Scores one row; `Err` when only Python can say (values that are not a
/// list, text the kernel cannot fold, reprs it does not write).
pub fn score_output(
    cfg: &Config,
    contains: &Contains,
    row: &Row<'_>,
    texts: &RowTexts<'_>,
    out: &mut impl Sink,
) -> Result<(), ()> {
    let (values, source) = match &contains.values {
        Some(v) => (Some(v), "option"),
        None => (texts.metadata_values.as_ref(), "metadata.output_contains"),
    };
    let listed: Vec<&Value<'_>> = match values {
        None | Some(Value::Null) => Vec::new(),
        Some(v @ Value::Str(_)) => vec![v],
        Some(Value::Arr(items)) => items.iter().collect(),
        Some(_) => return Err(()), // not a sequence: Python names the error
    };
    let mut wanted = Vec::with_capacity(listed.len());
    for v in listed {
        if let Some(text) = as_text(v)? {
            if !text.is_empty() {
                wanted.push(text);
            }
        }
    }
    let write_source = |d: &mut Vec<u8>| {
        d.extend_from_slice(b"\"values_source\":");
        write_str(d, source);
        d.extend_from_slice(b"}}");
    };
    if wanted.is_empty() {
        out.put(
            cfg,
            row,
            None,
            "no values to look for in the output",
            0,
            |d| {
                d.extend_from_slice(EMPTY_DIAGNOSIS);
                write_source(d);
            },
        );
        return Ok(());
    }
    let fold = |s: &str| -> Result<String, ()> {
        if contains.case_sensitive {
            Ok(s.to_string())
        } else {
            casefold(s)
        }
    };
    let haystack = fold(texts.output.as_deref().unwrap_or(""))?;
    let mut found: Vec<&String> = Vec::new();
    for v in &wanted {
        if haystack.contains(fold(v)?.as_str()) {
            found.push(v);
        }
    }
    let missing: Vec<&String> = wanted.iter().filter(|v| !found.contains(v)).collect();
    let ok = if contains.require_all {
        missing.is_empty()
    } else {
        !found.is_empty()
    };
    let require = if contains.require_all { "all" } else { "any" };
    let mut reason = format!(
        "output contains {} of {} values (require '{require}')",
        found.len(),
        wanted.len()
    );
    // With "any" and a hit, absent values are not a defect: kept out of the reason.
    let absent = ok && !contains.require_all;
    if !missing.is_empty() && !absent {
        let shown: Vec<String> = missing
            .iter()
            .take(3)
            .map(|v| short_capped(Some(&Value::Str(Cow::Borrowed(v.as_str())))).ok_or(()))
            .collect::<Result<_, ()>>()?;
        reason.push_str("; output lacks ");
        reason.push_str(&shown.join(", "));
    }
    let score = Some(if ok { 1.0 } else { 0.0 });
    out.put(cfg, row, score, &reason, 0, |d| {
        d.extend_from_slice(EMPTY_DIAGNOSIS);
        d.extend_from_slice(b"\"values\":");
        string_list(d, &wanted.iter().collect::<Vec<_>>());
        d.extend_from_slice(b",\"found\":");
        string_list(d, &found);
        d.extend_from_slice(b",\"require\":");
        write_str(d, require);
        if !missing.is_empty() {
            d.extend_from_slice(if absent {
                b",\"absent_values\":"
            } else {
                b",\"missing_values\":"
            });
            string_list(d, &missing);
        }
        d.push(b',');
        write_source(d);
    });
    Ok(())
}
