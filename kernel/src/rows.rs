//! Plain canonical rows (`tooleval.formats.rows._simple_row`): the rows the kernel reads itself.
//! Anything else (messages, metadata, other formats, unusual values) is left to Python.

use std::borrow::Cow;

use crate::json::{get, Obj, Value};
use crate::matching::Call;
use crate::metrics::Row;

const SIMPLE_KEYS: [&str; 10] = [
    "id",
    "input",
    "tools_called",
    "expected_tools",
    "reference",
    "expected_output",
    "category",
    "test_type",
    "output",
    "metadata",
];

fn py_space(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\n' | '\r' | '\u{b}' | '\u{c}' | '\u{1c}'..='\u{1f}'
    )
}

/// `name.strip()` when Python would give the same; `None` when the ends are non-ASCII.
fn strip(name: &str) -> Option<&str> {
    let t = name.trim_matches(py_space);
    let ascii_ends = t.chars().next().is_none_or(|c| c.is_ascii())
        && t.chars().last().is_none_or(|c| c.is_ascii());
    ascii_ends.then_some(t)
}

fn take<'a>(fields: &mut [(Cow<'a, str>, Value<'a>)], key: &str) -> Option<Value<'a>> {
    let slot = fields.iter_mut().find(|(k, _)| k == key)?;
    Some(std::mem::replace(&mut slot.1, Value::Null))
}

fn calls(value: Value<'_>, expected: bool) -> Option<Vec<Call<'_>>> {
    let Value::Arr(items) = value else {
        return None;
    };
    let mut out = Vec::with_capacity(items.len());
    for entry in items {
        match entry {
            Value::Obj(mut fields) => {
                if fields.len() != 2 {
                    return None;
                }
                let Some(Value::Str(name)) = take(&mut fields, "name") else {
                    return None;
                };
                if name.is_empty() {
                    return None;
                }
                let args = match take(&mut fields, "args")? {
                    Value::Obj(args) => Some(args),
                    Value::Null => {
                        if expected {
                            None
                        } else {
                            Some(Vec::new())
                        }
                    }
                    _ => return None,
                };
                out.push(Call { name, args });
            }
            Value::Str(name) => {
                let name = match name {
                    Cow::Borrowed(name) => Cow::Borrowed(strip(name)?),
                    Cow::Owned(name) => Cow::Owned(strip(&name)?.to_string()),
                };
                if name.is_empty() {
                    return None;
                }
                out.push(Call {
                    name,
                    args: if expected { None } else { Some(Vec::new()) },
                });
            }
            _ => return None,
        }
    }
    Some(out)
}

/// `{"calls": [...], "order": "listed" | "any", "before": [[a, b], ...]}` as
/// `formats.expected._ordered` reads it; `None` for anything else (`groups`,
/// errors: Python reports them).
#[allow(clippy::type_complexity)]
fn ordered(mut order: Obj<'_>) -> Option<(Vec<Call<'_>>, Option<Vec<(usize, usize)>>)> {
    if !order
        .iter()
        .all(|(k, _)| matches!(k.as_ref(), "calls" | "order" | "before"))
    {
        return None;
    }
    let listed = match get(&order, "order") {
        None | Some(Value::Null) => true,
        Some(Value::Str(s)) if s == "listed" => true,
        Some(Value::Str(s)) if s == "any" => false,
        _ => return None,
    };
    let raw_before = take(&mut order, "before");
    let calls = calls(take(&mut order, "calls")?, true)?;
    let Some(raw_before) = raw_before else {
        return Some((calls, if listed { None } else { Some(Vec::new()) }));
    };
    if matches!(get(&order, "order"), Some(Value::Str(s)) if s == "listed") {
        return None; // 'listed' contradicts 'before': Python says so
    }
    let Value::Arr(raw_pairs) = raw_before else {
        return None;
    };
    let reference = |v: &Value| -> Option<usize> {
        match v {
            Value::Int(i) => usize::try_from(*i).ok().filter(|&i| i < calls.len()),
            Value::Str(name) => {
                let mut found = calls.iter().enumerate().filter(|(_, c)| &c.name == name);
                let first = found.next()?.0;
                found.next().is_none().then_some(first)
            }
            _ => None,
        }
    };
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for pair in &raw_pairs {
        let Value::Arr(ends) = pair else { return None };
        let [a, b] = ends.as_slice() else { return None };
        let (a, b) = (reference(a)?, reference(b)?);
        if a == b {
            return None;
        }
        pairs.push((a, b));
    }
    Some((calls, Some(settle_pairs(pairs)?)))
}

/// A plain canonical row for the call metrics (`None`: Python reads it).
/// Ordering pairs sorted and deduplicated as `ExpectedTools` keeps them; `None` when two
/// contradict each other (`a` before `b` and `b` before `a`: Python names the cycle).
pub fn settle_pairs(mut pairs: Vec<(usize, usize)>) -> Option<Vec<(usize, usize)>> {
    pairs.sort_unstable();
    pairs.dedup();
    let contradictory = pairs
        .iter()
        .any(|&(a, b)| pairs.binary_search(&(b, a)).is_ok());
    (!contradictory).then_some(pairs)
}

pub fn read_row(value: Value<'_>, number: u64) -> Option<Row<'_>> {
    let (row, texts) = read_row_texts(value, number)?;
    // no tools_called at all: `tooleval score` stops with an error (Python says which)
    texts.calls_given.then_some(row)
}

/// What `output_contains` reads besides the row: the final output and `metadata.output_contains`.
pub struct RowTexts<'a> {
    pub output: Option<Cow<'a, str>>,
    pub metadata_values: Option<Value<'a>>,
    /// The row has a `tools_called` value, `[]` included (null or absent is a missing value).
    pub calls_given: bool,
}

/// A plain canonical row and its texts; the calls are read (and checked) even
/// when the metric does not use them, as Python reads every row.
pub fn read_row_texts(value: Value<'_>, number: u64) -> Option<(Row<'_>, RowTexts<'_>)> {
    let Value::Obj(mut fields) = value else {
        return None;
    };
    if !fields
        .iter()
        .all(|(k, _)| SIMPLE_KEYS.contains(&k.as_ref()))
    {
        return None;
    }
    for key in [
        "input",
        "reference",
        "expected_output",
        "output",
        "category",
        "test_type",
    ] {
        match get(&fields, key) {
            None | Some(Value::Null) | Some(Value::Str(_)) => {}
            _ => return None,
        }
    }
    let present = |k| !matches!(get(&fields, k), None | Some(Value::Null));
    if present("reference") && present("expected_output") {
        return None;
    }
    let id = match get(&fields, "id") {
        None | Some(Value::Null) => Cow::Owned(number.to_string()),
        Some(Value::Str(s)) => s.clone(),
        Some(Value::Int(i)) => Cow::Owned(i.to_string()),
        Some(Value::UInt(u)) => Cow::Owned(u.to_string()),
        _ => return None,
    };
    let (expected, before) = match take(&mut fields, "expected_tools") {
        None | Some(Value::Null) => (None, None),
        Some(Value::Obj(order)) => {
            let (calls, before) = ordered(order)?;
            (Some(calls), before)
        }
        Some(v) => (Some(calls(v, true)?), None),
    };
    // a null `tools_called` is a missing value, refused as an absent key is (Python says which)
    let calls_given = !matches!(get(&fields, "tools_called"), None | Some(Value::Null));
    let actual = match take(&mut fields, "tools_called") {
        None | Some(Value::Null) => Vec::new(),
        Some(v) => calls(v, false)?,
    };
    // `metadata` is an object (a JSON text in a cell is left to Python).
    let metadata_values = match take(&mut fields, "metadata") {
        None | Some(Value::Null) => None,
        Some(Value::Obj(mut items)) => take(&mut items, "output_contains"),
        Some(_) => return None,
    };
    let output = match take(&mut fields, "output") {
        Some(Value::Str(s)) => Some(s),
        _ => None,
    };
    let texts = RowTexts {
        output,
        metadata_values,
        calls_given,
    };
    Some((
        Row {
            before,
            id,
            expected,
            actual,
        },
        texts,
    ))
}
