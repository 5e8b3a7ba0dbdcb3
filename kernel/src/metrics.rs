//! The deterministic call metrics and the result line they write, byte for byte as
//! `tooleval score` writes it (`Result.to_dict()` through `orjson.dumps`).

use crate::alignment::{analyse, Analysis, KeysFor, Pairs, Table};
use crate::assignment::transitive_closure;
use crate::json::{short, write, write_float, write_int, write_obj, write_str, Value};
use crate::matching::{mean, Call, Check, Comparator};

#[derive(Clone, Copy, PartialEq)]
pub enum Empty {
    Perfect,
    Zero,
    Unscored,
}

/// `trajectory_match`'s `coverage`: which calls must pair up.
#[derive(Clone, Copy, PartialEq)]
pub enum Coverage {
    Exact,
    Subset,
    Superset,
}

pub enum Metric {
    Accuracy {
        strict: bool,
        empty: Empty,
    },
    F1 {
        empty: Empty,
        mismatch_keys: bool,
    },
    Correctness {
        keys: KeysFor,
        exact_match: bool,
        strict: bool,
        ignore_extra: bool,
        mismatch_keys: bool,
        empty: Empty,
    },
    Trajectory {
        strict: bool,
        coverage: Coverage,
        empty: Empty,
    },
    /// `output_contains`: scored by `output::score_output` from the row's texts.
    Contains(crate::output::Contains),
}

pub struct Config {
    pub name: String,
    pub params: Vec<u8>,
    pub threshold: Option<f64>,
    pub threshold_json: Vec<u8>,
    pub metric: Metric,
    pub cmp: Comparator,
}

pub struct Row {
    pub id: String,
    pub expected: Option<Vec<Call>>,
    /// `ExpectedTools.before`: `None` is the listed order, `Some` explicit pairs (sorted).
    pub before: Option<Vec<(usize, usize)>>,
    pub actual: Vec<Call>,
}

type R<T> = Result<T, ()>;

struct Diag {
    missing: Vec<usize>,
    extra: Vec<usize>,
    violations: Vec<String>,
    check_pairs: Pairs,
    /// `details`, "pairs" first, each value already written as JSON.
    details: Vec<(&'static str, Vec<u8>)>,
    misaligned: Option<(usize, String, String)>,
}

fn pairs_json(pairs: &[(usize, usize)]) -> Vec<u8> {
    let mut out = b"[".to_vec();
    for (n, &(i, j)) in pairs.iter().enumerate() {
        if n > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"expected_index\":");
        write_int(&mut out, i as i64);
        out.extend_from_slice(b",\"actual_index\":");
        write_int(&mut out, j as i64);
        out.extend_from_slice(b",\"counted\":true}");
    }
    out.push(b']');
    out
}

fn int_json(v: usize) -> Vec<u8> {
    v.to_string().into_bytes()
}

fn float_json(v: f64) -> Vec<u8> {
    let mut out = Vec::new();
    write_float(&mut out, v);
    out
}

fn opt_float_json(v: Option<f64>) -> Vec<u8> {
    v.map(float_json).unwrap_or_else(|| b"null".to_vec())
}

fn names_json(calls: &[Call], which: &[usize]) -> Vec<u8> {
    let mut out = b"[".to_vec();
    for (n, &k) in which.iter().enumerate() {
        if n > 0 {
            out.push(b',');
        }
        write_str(&mut out, &calls[k].name);
    }
    out.push(b']');
    out
}

fn diagnosis(
    a: &Analysis,
    table: &Table,
    report_missing: bool,
    report_extra: bool,
    pairs: Option<Pairs>,
    mut details: Vec<(&'static str, Vec<u8>)>,
) -> Diag {
    if !details.iter().any(|(k, _)| *k == "pairs") {
        details.insert(0, ("pairs", pairs_json(&a.counted)));
    } else {
        let at = details.iter().position(|(k, _)| *k == "pairs").unwrap();
        let entry = details.remove(at);
        details.insert(0, entry);
    }
    let check_pairs = match pairs {
        Some(mut p) => {
            p.sort_unstable();
            p
        }
        None => a.shown_pairs(),
    };
    Diag {
        missing: if report_missing {
            a.missing_rows(table.expected.len())
        } else {
            Vec::new()
        },
        extra: if report_extra {
            a.extra_cols(table.actual.len())
        } else {
            Vec::new()
        },
        violations: a.violations.clone(),
        check_pairs,
        details,
        misaligned: None,
    }
}

fn fmt2(x: f64) -> String {
    format!("{x:.2}")
}

fn names(calls: &[Call], which: &[usize]) -> String {
    let shown: Vec<&str> = which
        .iter()
        .take(3)
        .map(|&k| calls[k].name.as_str())
        .collect();
    let mut text = shown.join(", ");
    if which.len() > 3 {
        text.push_str(&format!(" and {} more", which.len() - 3));
    }
    text
}

fn argument(c: &Check) -> R<String> {
    let place = format!("{}.{}", c.tool, c.key);
    if c.matcher == "unexpected_key" {
        return Ok(format!(
            "{place} not expected, got {}",
            short(c.actual).ok_or(())?
        ));
    }
    if c.missing {
        return Ok(format!(
            "{place} missing (expected {})",
            short(c.expected).ok_or(())?
        ));
    }
    let mut text = format!(
        "{place} expected {}, got {}",
        short(c.expected).ok_or(())?,
        short(c.actual).ok_or(())?
    );
    if 0.0 < c.score && c.score < 1.0 {
        text.push_str(&format!(" ({} {})", c.matcher, fmt2(c.score)));
    }
    Ok(text)
}

/// `reasons.explain`: the summary, then every kind of problem the diagnosis records.
fn explain(d: &Diag, checks: &[&Check], table: &Table, summary: String) -> R<String> {
    let mut parts = vec![summary];
    if let Some((position, expected, actual)) = &d.misaligned {
        parts.push(format!(
            "sequence differs at #{} (expected {expected}, got {actual})",
            position + 1
        ));
    }
    if !d.missing.is_empty() {
        parts.push(format!("missing {}", names(table.expected, &d.missing)));
    }
    if !d.extra.is_empty() {
        parts.push(format!("extra {}", names(table.actual, &d.extra)));
    }
    if !d.violations.is_empty() {
        let mut text = d
            .violations
            .iter()
            .take(3)
            .cloned()
            .collect::<Vec<_>>()
            .join("; ");
        if d.violations.len() > 3 {
            text.push_str(&format!(
                " and {} more order violations",
                d.violations.len() - 3
            ));
        }
        parts.push(text);
    }
    let mismatches: Vec<&&Check> = checks
        .iter()
        .filter(|c| c.score < 1.0 && c.matcher != "parse_error")
        .collect();
    if !mismatches.is_empty() {
        let shown: Vec<String> = mismatches
            .iter()
            .take(3)
            .map(|c| argument(c))
            .collect::<R<_>>()?;
        let mut text = shown.join("; ");
        if mismatches.len() > 3 {
            text.push_str(&format!(
                " and {} more argument mismatches",
                mismatches.len() - 3
            ));
        }
        parts.push(text);
    }
    Ok(parts.join("; "))
}

fn call_entry(out: &mut Vec<u8>, call: &Call, index: usize) {
    out.extend_from_slice(b"{\"name\":");
    write_str(out, &call.name);
    out.extend_from_slice(b",\"args\":");
    match &call.args {
        Some(args) => write_obj(out, args),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"index\":");
    write_int(out, index as i64);
    out.push(b'}');
}

fn opt_value(out: &mut Vec<u8>, v: Option<&Value>) {
    match v {
        Some(v) => write(out, v),
        None => out.extend_from_slice(b"null"),
    }
}

fn check_json(out: &mut Vec<u8>, c: &Check<'_>) {
    out.extend_from_slice(b"{\"tool\":");
    write_str(out, c.tool);
    out.extend_from_slice(b",\"key\":");
    write_str(out, &c.key);
    out.extend_from_slice(b",\"expected\":");
    opt_value(out, c.expected);
    out.extend_from_slice(b",\"actual\":");
    opt_value(out, c.actual);
    out.extend_from_slice(b",\"score\":");
    write_float(out, c.score);
    out.extend_from_slice(b",\"expected_index\":");
    write_int(out, c.expected_index as i64);
    out.extend_from_slice(b",\"actual_index\":");
    write_int(out, c.actual_index as i64);
    out.extend_from_slice(b",\"matcher\":");
    write_str(out, c.matcher);
    out.extend_from_slice(if c.missing {
        b",\"missing\":true}"
    } else {
        b",\"missing\":false}"
    });
}

/// Where a result goes: the whole result line (`Vec<u8>`, what `tooleval score`
/// writes) or its pieces for a `Result` built in process ([`Parts`]).
pub trait Sink {
    /// One result; `diagnosis` writes the diagnosis object as JSON.
    fn put(
        &mut self,
        cfg: &Config,
        row: &Row,
        score: Option<f64>,
        reason: &str,
        diagnosis: impl FnOnce(&mut Vec<u8>),
    );
}

/// A result in pieces: what `Result` holds besides its metric, params and threshold.
#[derive(Default)]
pub struct Parts {
    pub score: Option<f64>,
    pub passed: Option<bool>,
    pub reason: String,
    /// The diagnosis object as the result line writes it (left empty unless `write_diagnosis`).
    pub diagnosis: Vec<u8>,
    pub write_diagnosis: bool,
}

impl Sink for Parts {
    fn put(
        &mut self,
        cfg: &Config,
        _row: &Row,
        score: Option<f64>,
        reason: &str,
        diagnosis: impl FnOnce(&mut Vec<u8>),
    ) {
        self.score = score;
        self.passed = passed(cfg, score);
        self.reason.clear();
        self.reason.push_str(reason);
        self.diagnosis.clear();
        if self.write_diagnosis {
            diagnosis(&mut self.diagnosis);
        }
    }
}

impl Sink for Vec<u8> {
    fn put(
        &mut self,
        cfg: &Config,
        row: &Row,
        score: Option<f64>,
        reason: &str,
        diagnosis: impl FnOnce(&mut Vec<u8>),
    ) {
        head(self, cfg, row, score);
        self.extend_from_slice(b",\"reason\":");
        write_str(self, reason);
        self.extend_from_slice(b",\"diagnosis\":");
        diagnosis(self);
        self.extend_from_slice(b"}\n");
    }
}

/// `Result.passed`: `score >= threshold` (`score >= 1` without one), `None` when unscored.
fn passed(cfg: &Config, score: Option<f64>) -> Option<bool> {
    score.map(|s| match cfg.threshold {
        Some(t) => s >= t,
        None => s >= 1.0,
    })
}

fn head(out: &mut Vec<u8>, cfg: &Config, row: &Row, score: Option<f64>) {
    out.extend_from_slice(b"{\"id\":");
    write_str(out, &row.id);
    out.extend_from_slice(b",\"metric\":");
    write_str(out, &cfg.name);
    out.extend_from_slice(b",\"params\":");
    out.extend_from_slice(&cfg.params);
    out.extend_from_slice(b",\"score\":");
    match score {
        Some(s) => write_float(out, s),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"threshold\":");
    out.extend_from_slice(&cfg.threshold_json);
    out.extend_from_slice(b",\"passed\":");
    out.extend_from_slice(match passed(cfg, score) {
        None => b"null",
        Some(true) => b"true",
        Some(false) => b"false",
    });
}

/// A result without a diagnosis (`Result.unscored(metric, reason)`).
fn write_unscored_plain(out: &mut impl Sink, cfg: &Config, row: &Row, reason: &str) {
    out.put(cfg, row, None, reason, |out| {
        out.extend_from_slice(
            b"{\"missing\":[],\"extra\":[],\"order_violations\":[],\"arguments\":[],\"details\":{}}",
        )
    });
}

fn finish(
    out: &mut impl Sink,
    cfg: &Config,
    row: &Row,
    table: &mut Table,
    d: Diag,
    score: Option<f64>,
    summary: String,
) -> R<()> {
    for &(i, j) in &d.check_pairs {
        table.comparison(i, j)?;
    }
    let mut checks: Vec<&Check> = Vec::new();
    let table_ref: &Table = table;
    for &(i, j) in &d.check_pairs {
        if let Some(c) = table_ref.known_comparison(i, j) {
            checks.extend(c.checks.iter());
        }
    }
    let reason = explain(&d, &checks, table_ref, summary)?;
    out.put(cfg, row, score, &reason, |out| {
        out.extend_from_slice(b"{\"missing\":[");
        for (n, &i) in d.missing.iter().enumerate() {
            if n > 0 {
                out.push(b',');
            }
            call_entry(out, &table_ref.expected[i], i);
        }
        out.extend_from_slice(b"],\"extra\":[");
        for (n, &j) in d.extra.iter().enumerate() {
            if n > 0 {
                out.push(b',');
            }
            call_entry(out, &table_ref.actual[j], j);
        }
        out.extend_from_slice(b"],\"order_violations\":[");
        for (n, v) in d.violations.iter().enumerate() {
            if n > 0 {
                out.push(b',');
            }
            write_str(out, v);
        }
        out.extend_from_slice(b"],\"arguments\":[");
        for (n, c) in checks.iter().enumerate() {
            if n > 0 {
                out.push(b',');
            }
            check_json(out, c);
        }
        out.extend_from_slice(b"],\"details\":{");
        for (n, (k, v)) in d.details.iter().enumerate() {
            if n > 0 {
                out.push(b',');
            }
            write_str(out, k);
            out.push(b':');
            out.extend_from_slice(v);
        }
        out.extend_from_slice(b"}}");
    });
    Ok(())
}

const UNBOUND: &str = "no expected_tools bound for this row";

/// `_analysis.empty_result`: nothing expected and nothing called, as `empty` says.
fn finish_empty(
    out: &mut impl Sink,
    cfg: &Config,
    row: &Row,
    table: &mut Table,
    d: Diag,
    empty: Empty,
    summary: &str,
) -> R<()> {
    let (score, reason) = match empty {
        Empty::Unscored => (None, format!("{summary} (empty='unscored')")),
        Empty::Perfect => (Some(1.0), format!("{summary} (empty='perfect' scores 1.0)")),
        Empty::Zero => (Some(0.0), format!("{summary} (empty='zero' scores 0.0)")),
    };
    finish(out, cfg, row, table, d, score, reason)
}

pub fn score_row(cfg: &Config, row: &Row, out: &mut impl Sink) -> R<()> {
    if let Metric::Contains(_) = cfg.metric {
        return Err(()); // needs the row's texts: `output::score_output` scores it
    }
    let Some(expected) = &row.expected else {
        let reason = match cfg.metric {
            Metric::Correctness { .. } => format!("{UNBOUND} (bind an expected_tools column)"),
            _ => UNBOUND.to_string(),
        };
        write_unscored_plain(out, cfg, row, &reason);
        return Ok(());
    };
    let actual = &row.actual;
    let (ne, na) = (expected.len(), actual.len());
    let chain: Vec<(usize, usize)> = (1..ne.max(1)).map(|i| (i - 1, i)).collect();
    match &cfg.metric {
        Metric::Accuracy { strict, empty } => {
            let all = KeysFor::All;
            let mut table = Table::new(expected, actual, &cfg.cmp, &all, false);
            let a = analyse(&mut table, if *strict { Some(&chain) } else { None })?;
            if ne == 0 && na == 0 {
                let d = diagnosis(&a, &table, true, true, None, Vec::new());
                return finish_empty(
                    out,
                    cfg,
                    row,
                    &mut table,
                    d,
                    *empty,
                    "no calls expected and none made",
                );
            }
            if ne == 0 || na == 0 {
                let details = vec![("alignment", b"0".to_vec()), ("coverage", b"0.0".to_vec())];
                let d = diagnosis(&a, &table, true, true, None, details);
                let summary = if ne == 0 {
                    format!("no calls expected, {na} made")
                } else {
                    format!("no calls made, {ne} expected")
                };
                return finish(out, cfg, row, &mut table, d, Some(0.0), summary);
            }
            let n = ne.min(na);
            let mut misaligned = None;
            let pairs: Pairs = if *strict {
                match (0..n).find(|&k| expected[k].name != actual[k].name) {
                    None => (0..n).map(|k| (k, k)).collect(),
                    Some(w) => {
                        misaligned = Some((w, expected[w].name.clone(), actual[w].name.clone()));
                        Vec::new()
                    }
                }
            } else {
                let p = table.match_unordered(false)?;
                if p.len() < n {
                    Vec::new()
                } else {
                    p
                }
            };
            let alignment: usize = if pairs.is_empty() { 0 } else { 1 };
            let mut accuracies = Vec::with_capacity(pairs.len());
            for &(i, j) in &pairs {
                accuracies.push(table.comparison(i, j)?.ok_or(())?.score);
            }
            let accuracy = if accuracies.is_empty() {
                0.0
            } else {
                mean(accuracies.into_iter())
            };
            let coverage = n as f64 / ne as f64;
            let score = alignment as f64 * accuracy * coverage;
            let mut details = Vec::new();
            if let Some((w, e, g)) = &misaligned {
                let mut v = b"{\"position\":".to_vec();
                write_int(&mut v, *w as i64);
                v.extend_from_slice(b",\"expected\":");
                write_str(&mut v, e);
                v.extend_from_slice(b",\"actual\":");
                write_str(&mut v, g);
                v.push(b'}');
                details.push(("misaligned", v));
            }
            details.push(("alignment", int_json(alignment)));
            details.push(("argument_accuracy", float_json(accuracy)));
            details.push(("coverage", float_json(coverage)));
            details.push(("pairs", pairs_json(&pairs)));
            let shown = if pairs.is_empty() {
                None
            } else {
                Some(pairs.clone())
            };
            let mut d = diagnosis(&a, &table, true, true, shown, details);
            d.misaligned = misaligned;
            let summary = if score >= 1.0 {
                format!(
                    "all {ne} expected call{}{}",
                    if ne != 1 { "s matched" } else { " matched" },
                    if *strict { " in order" } else { "" }
                )
            } else if alignment == 0 {
                format!(
                    "score 0: the call names do not align ({} order)",
                    if *strict { "strict" } else { "flexible" }
                )
            } else {
                format!(
                    "score {} = alignment {alignment} × argument accuracy {} × coverage {n}/{ne}",
                    fmt2(score),
                    fmt2(accuracy)
                )
            };
            finish(
                out,
                cfg,
                row,
                &mut table,
                d,
                Some(score.clamp(0.0, 1.0)),
                summary,
            )
        }
        Metric::F1 {
            empty,
            mismatch_keys,
        } => {
            let all = KeysFor::All;
            let mut table = Table::new(expected, actual, &cfg.cmp, &all, *mismatch_keys);
            let a = analyse(&mut table, None)?;
            let matched = a.counted.len();
            let precision = if na > 0 {
                Some(matched as f64 / na as f64)
            } else {
                None
            };
            let recall = if ne > 0 {
                Some(matched as f64 / ne as f64)
            } else {
                None
            };
            if ne == 0 && na == 0 {
                let details = vec![
                    ("precision", b"null".to_vec()),
                    ("recall", b"null".to_vec()),
                    ("f1", b"null".to_vec()),
                    ("matched", b"0".to_vec()),
                ];
                let d = diagnosis(&a, &table, true, true, None, details);
                return finish_empty(
                    out,
                    cfg,
                    row,
                    &mut table,
                    d,
                    *empty,
                    "no calls expected and none made",
                );
            }
            let (p, r) = (precision.unwrap_or(0.0), recall.unwrap_or(0.0));
            let f1 = if p + r > 0.0 {
                2.0 * p * r / (p + r)
            } else {
                0.0
            };
            let details = vec![
                ("precision", opt_float_json(precision)),
                ("recall", opt_float_json(recall)),
                ("f1", float_json(f1)),
                ("matched", int_json(matched)),
            ];
            let d = diagnosis(&a, &table, true, true, None, details);
            let fmt = |v: Option<f64>| v.map(fmt2).unwrap_or_else(|| "undefined".into());
            let summary = format!(
                "{matched} of {ne} expected calls matched, {na} made: precision {}, recall {}",
                fmt(precision),
                fmt(recall)
            );
            finish(out, cfg, row, &mut table, d, Some(f1.min(1.0)), summary)
        }
        Metric::Correctness {
            keys,
            exact_match,
            strict,
            ignore_extra,
            mismatch_keys,
            empty,
        } => {
            let check_ordering = strict;
            let before: &[(usize, usize)] = row.before.as_deref().unwrap_or(&chain);
            if *check_ordering {
                let closure = transitive_closure(ne, before);
                let cycle: Vec<usize> = (0..ne).filter(|&i| closure[i * ne + i]).collect();
                if !cycle.is_empty() {
                    let names: Vec<String> = cycle
                        .iter()
                        .map(|&i| format!("{} (#{})", expected[i].name, i + 1))
                        .collect();
                    let reason = format!(
                        "the ordering constraints of expected_tools form a cycle through {}",
                        names.join(", ")
                    );
                    write_unscored_plain(out, cfg, row, &reason);
                    return Ok(());
                }
            }
            let mut table = Table::new(expected, actual, &cfg.cmp, keys, *mismatch_keys);
            let a = analyse(
                &mut table,
                if *check_ordering { Some(before) } else { None },
            )?;
            let matched = a.counted.len();
            let extras = a.extra_cols(na);
            let mut details = vec![
                ("matched", int_json(matched)),
                ("expected", int_json(ne)),
                ("called", int_json(na)),
            ];
            if *ignore_extra && !extras.is_empty() {
                details.push(("ignored_extra", names_json(actual, &extras)));
            }
            let d = diagnosis(&a, &table, true, !*ignore_extra, None, details);
            if ne == 0 && na == 0 {
                return finish_empty(
                    out,
                    cfg,
                    row,
                    &mut table,
                    d,
                    *empty,
                    "no calls expected and none made",
                );
            }
            let in_order = if *check_ordering { " in order" } else { "" };
            let (score, summary) = if *exact_match {
                let ok = matched == ne && (*ignore_extra || matched == na);
                let summary = if ok {
                    format!("exact match: all {ne} expected calls matched{in_order}")
                } else {
                    format!("not an exact match: {matched} of {ne} expected calls matched{in_order}, {na} made")
                };
                (if ok { 1.0 } else { 0.0 }, summary)
            } else {
                let denominator = if *ignore_extra { ne } else { ne.max(na) };
                let score = if denominator > 0 {
                    matched as f64 / denominator as f64
                } else {
                    1.0
                };
                let summary = if ne == 0 {
                    format!("no calls expected, {na} made")
                } else {
                    let mut s = format!("{matched} of {ne} expected calls matched{in_order}");
                    if na != ne {
                        s.push_str(&format!(" ({na} made)"));
                    }
                    s
                };
                (score, summary)
            };
            finish(out, cfg, row, &mut table, d, Some(score), summary)
        }
        Metric::Trajectory {
            strict,
            coverage,
            empty,
        } => {
            let all = KeysFor::All;
            let mut table = Table::new(expected, actual, &cfg.cmp, &all, false);
            let a = analyse(&mut table, if *strict { Some(&chain) } else { None })?;
            let matched = a.counted.len();
            let order = if *strict { "strict" } else { "flexible" };
            let cover = match coverage {
                Coverage::Exact => "exact",
                Coverage::Subset => "subset",
                Coverage::Superset => "superset",
            };
            let mut order_json = Vec::new();
            write_str(&mut order_json, order);
            let mut cover_json = Vec::new();
            write_str(&mut cover_json, cover);
            let mut details = vec![
                ("order", order_json),
                ("coverage", cover_json),
                ("matched", int_json(matched)),
                ("expected", int_json(ne)),
                ("called", int_json(na)),
            ];
            let (ok, d) = match coverage {
                Coverage::Exact => (
                    matched == ne && ne == na,
                    diagnosis(&a, &table, true, true, None, details),
                ),
                Coverage::Subset => {
                    let not_called = a.missing_rows(ne);
                    if !not_called.is_empty() {
                        details.push(("not_called", names_json(expected, &not_called)));
                    }
                    (
                        matched == na,
                        diagnosis(&a, &table, false, true, None, details),
                    )
                }
                Coverage::Superset => {
                    let additional = a.extra_cols(na);
                    if !additional.is_empty() {
                        details.push(("additional_calls", names_json(actual, &additional)));
                    }
                    (
                        matched == ne,
                        diagnosis(&a, &table, true, false, None, details),
                    )
                }
            };
            let rule = format!("order {order}, coverage {cover}");
            if ne == 0 && na == 0 {
                let summary = format!("no calls expected and none made ({rule})");
                return finish_empty(out, cfg, row, &mut table, d, *empty, &summary);
            }
            let summary = if ok {
                format!("trajectory matches ({rule}; {na} calls made, {ne} expected)")
            } else {
                let mut s = format!(
                    "trajectory does not match ({rule}): {matched} of {ne} expected calls matched"
                );
                if *coverage != Coverage::Superset {
                    s.push_str(&format!(", {na} made"));
                }
                s
            };
            finish(
                out,
                cfg,
                row,
                &mut table,
                d,
                Some(if ok { 1.0 } else { 0.0 }),
                summary,
            )
        }
        Metric::Contains(_) => Err(()), // returned above: output::score_output scores it
    }
}
