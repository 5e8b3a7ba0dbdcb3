//! The result a metric writes: the diagnosis, the reason sentence (`reasons.explain`)
//! and the result line or its pieces, byte for byte as `Result.to_dict()` through
//! `orjson.dumps` gives them. `metrics` decides the score; this module says why.

use crate::alignment::{Analysis, Pairs, Table};
use crate::json::{
    same_json, short_capped, write, write_capped, write_float, write_int, write_obj, write_str,
    Value,
};
use crate::matching::{Call, Check};
use crate::metrics::{Config, Empty, Row};

pub(crate) type R<T> = Result<T, ()>;

pub(crate) struct Diag {
    pub(crate) missing: Vec<usize>,
    pub(crate) extra: Vec<usize>,
    pub(crate) violations: Vec<String>,
    pub(crate) check_pairs: Pairs,
    /// `details`, "pairs" first, each value already written as JSON.
    pub(crate) details: Vec<(&'static str, Vec<u8>)>,
    pub(crate) misaligned: Option<(usize, String, String)>,
}

pub(crate) fn pairs_json(pairs: &[(usize, usize)]) -> Vec<u8> {
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

pub(crate) fn int_json(v: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(4);
    crate::json::write_uint(&mut out, v as u64);
    out
}

pub(crate) fn float_json(v: f64) -> Vec<u8> {
    let mut out = Vec::new();
    write_float(&mut out, v);
    out
}

pub(crate) fn opt_float_json(v: Option<f64>) -> Vec<u8> {
    v.map(float_json).unwrap_or_else(|| b"null".to_vec())
}

pub(crate) fn names_json(calls: &[Call], which: &[usize]) -> Vec<u8> {
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

pub(crate) fn diagnosis(
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

/// The parts of a row's diagnoses already written (argument checks, missing and
/// extra calls), each under a signature of what it shows, so that the next
/// metric of the row showing the same copies the bytes instead of writing them.
/// A check's signature is its values' addresses in the row (a value's place in
/// the row fixes its key's path), indices, score, matcher and missing flag.
#[derive(Default)]
pub(crate) struct Memo {
    on: bool,
    bytes: Vec<u8>,
    entries: Vec<(Vec<usize>, std::ops::Range<usize>)>,
}

impl Memo {
    pub(crate) fn remembering() -> Self {
        Memo {
            on: true,
            ..Memo::default()
        }
    }

    /// Writes what `write` writes, or the bytes written before under `sig`.
    fn write(
        &mut self,
        out: &mut Vec<u8>,
        sig: Option<Vec<usize>>,
        write: impl FnOnce(&mut Vec<u8>),
    ) {
        let Some(sig) = sig.filter(|_| self.on) else {
            return write(out);
        };
        if let Some((_, range)) = self.entries.iter().find(|(known, _)| *known == sig) {
            out.extend_from_slice(&self.bytes[range.clone()]);
            return;
        }
        let at = out.len();
        write(out);
        let start = self.bytes.len();
        self.bytes.extend_from_slice(&out[at..]);
        self.entries.push((sig, start..self.bytes.len()));
    }

    fn checks_sig(&self, checks: &[&Check]) -> Option<Vec<usize>> {
        if !self.on {
            return None;
        }
        let mut sig = Vec::with_capacity(1 + checks.len() * 8);
        sig.push(0);
        let at = |v: Option<&Value>| v.map_or(0, |v| v as *const Value as usize);
        for c in checks {
            sig.extend_from_slice(&[
                at(c.expected),
                at(c.actual),
                c.expected_index,
                c.actual_index,
                c.score.to_bits() as usize,
                c.matcher.as_ptr() as usize,
                c.matcher.len(),
                usize::from(c.missing),
            ]);
        }
        Some(sig)
    }

    fn calls_sig(&self, side: usize, calls: &[Call], which: &[usize]) -> Option<Vec<usize>> {
        if !self.on {
            return None;
        }
        let mut sig = Vec::with_capacity(1 + which.len());
        sig.push(side);
        sig.extend(which.iter().map(|&k| &calls[k] as *const Call as usize));
        Some(sig)
    }
}

pub(crate) fn fmt2(x: f64) -> String {
    format!("{x:.2}")
}

/// `reasons.named`: a tool name or argument path as a reason says it, cut past
/// `NAME_CHARS` characters.
fn named(name: &str) -> std::borrow::Cow<'_, str> {
    const NAME_CHARS: usize = 100;
    if name.len() <= NAME_CHARS || name.chars().count() <= NAME_CHARS {
        return std::borrow::Cow::Borrowed(name);
    }
    let mut text: String = name.chars().take(NAME_CHARS - 3).collect();
    text.push_str("...");
    std::borrow::Cow::Owned(text)
}

fn names(calls: &[Call], which: &[usize]) -> String {
    let shown: Vec<std::borrow::Cow<'_, str>> = which
        .iter()
        .take(3)
        .map(|&k| named(&calls[k].name))
        .collect();
    let mut text = shown.join(", ");
    if which.len() > 3 {
        text.push_str(&format!(" and {} more", which.len() - 3));
    }
    text
}

fn argument(c: &Check) -> R<String> {
    let place = format!("{}.{}", named(c.tool), named(&c.key));
    if c.matcher == "unexpected_key" {
        return Ok(format!(
            "{place} not expected, got {}",
            short_capped(c.actual).ok_or(())?
        ));
    }
    if c.missing {
        return Ok(format!(
            "{place} missing (expected {})",
            short_capped(c.expected).ok_or(())?
        ));
    }
    let mut text = format!(
        "{place} expected {}, got {}",
        short_capped(c.expected).ok_or(())?,
        short_capped(c.actual).ok_or(())?
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
            "sequence differs at #{} (expected {}, got {})",
            position + 1,
            named(expected),
            named(actual)
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
        Some(args) => write_capped(out, |out| write_obj(out, args)),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"index\":");
    write_int(out, index as i64);
    out.push(b'}');
}

/// A check's value as the diagnosis keeps it (cut past `CAP_BYTES`).
fn opt_value(out: &mut Vec<u8>, v: Option<&Value>) {
    match v {
        Some(v) => write_capped(out, |out| write(out, v)),
        None => out.extend_from_slice(b"null"),
    }
}

fn check_json(out: &mut Vec<u8>, c: &Check<'_>) {
    out.extend_from_slice(b"{\"tool\":");
    write_str(out, c.tool);
    out.extend_from_slice(b",\"key\":");
    write_str(out, &c.key);
    out.extend_from_slice(b",\"expected\":");
    let at = out.len();
    opt_value(out, c.expected);
    let written = at..out.len();
    out.extend_from_slice(b",\"actual\":");
    match (c.expected, c.actual) {
        // the usual match: the actual value's bytes are the expected value's, copied
        (Some(e), Some(a)) if same_json(e, a) => out.extend_from_within(written),
        _ => opt_value(out, c.actual),
    }
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

/// What a sink writes of a result besides its score and verdict; what it does
/// not want is not built (a compact line skips the reason and the diagnosis).
#[derive(Clone, Copy)]
pub struct Want {
    pub reason: bool,
    pub diagnosis: bool,
}

/// The kinds of problem a diagnosis lists (`--fields code`), as bits.
pub const MISSING: u8 = 1;
pub const EXTRA: u8 = 2;
pub const ORDER: u8 = 4;
/// An argument check scored other than 1.0.
pub const ARGUMENTS: u8 = 8;

/// Where a result goes: the whole result line (`Vec<u8>`, what `tooleval score`
/// writes), the line cut to some fields (`fields::Projected`) or its pieces for a
/// `Result` built in process ([`Parts`]).
pub trait Sink {
    /// What `put` will read: `reason` is empty and `diagnosis` not called when not wanted.
    fn want(&self) -> Want;

    /// One result; `problems` are the diagnosis' kinds of problem (bits), and
    /// `diagnosis` writes the diagnosis object as JSON.
    fn put(
        &mut self,
        cfg: &Config,
        row: &Row,
        score: Option<f64>,
        reason: &str,
        problems: u8,
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
    fn want(&self) -> Want {
        Want {
            reason: true,
            diagnosis: self.write_diagnosis,
        }
    }

    fn put(
        &mut self,
        cfg: &Config,
        _row: &Row,
        score: Option<f64>,
        reason: &str,
        _problems: u8,
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
    fn want(&self) -> Want {
        Want {
            reason: true,
            diagnosis: true,
        }
    }

    fn put(
        &mut self,
        cfg: &Config,
        row: &Row,
        score: Option<f64>,
        reason: &str,
        _problems: u8,
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
pub(crate) fn passed(cfg: &Config, score: Option<f64>) -> Option<bool> {
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
    write_score(out, score);
    out.extend_from_slice(b",\"threshold\":");
    out.extend_from_slice(&cfg.threshold_json);
    out.extend_from_slice(b",\"passed\":");
    write_passed(out, passed(cfg, score));
}

/// A result's `score`: the number, or null when unscored.
pub(crate) fn write_score(out: &mut Vec<u8>, score: Option<f64>) {
    match score {
        Some(s) => write_float(out, s),
        None => out.extend_from_slice(b"null"),
    }
}

/// A result's `passed`: true, false, or null when unscored.
pub(crate) fn write_passed(out: &mut Vec<u8>, verdict: Option<bool>) {
    out.extend_from_slice(match verdict {
        None => b"null",
        Some(true) => b"true",
        Some(false) => b"false",
    });
}

/// A result without a diagnosis (`Result.unscored(metric, reason)`).
pub(crate) fn write_unscored_plain(out: &mut impl Sink, cfg: &Config, row: &Row, reason: &str) {
    out.put(cfg, row, None, reason, 0, |out| {
        out.extend_from_slice(
            b"{\"missing\":[],\"extra\":[],\"order_violations\":[],\"arguments\":[],\"details\":{}}",
        )
    });
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn finish(
    out: &mut impl Sink,
    cfg: &Config,
    row: &Row,
    table: &mut Table,
    memo: &mut Memo,
    d: Diag,
    score: Option<f64>,
    summary: impl FnOnce() -> R<String>,
) -> R<()> {
    let mut problems = 0;
    for (listed, bit) in [
        (d.missing.is_empty(), MISSING),
        (d.extra.is_empty(), EXTRA),
        (d.violations.is_empty(), ORDER),
    ] {
        if !listed {
            problems |= bit;
        }
    }
    let want = out.want();
    if !want.reason && !want.diagnosis {
        // Only the verdict and the kinds of problem: no check is recorded or written.
        for &(i, j) in &d.check_pairs {
            if table.below_one(i, j)? {
                problems |= ARGUMENTS;
            }
        }
        out.put(cfg, row, score, "", problems, |_| {});
        return Ok(());
    }
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
    if checks.iter().any(|c| c.score != 1.0) {
        problems |= ARGUMENTS;
    }
    let reason = if want.reason {
        explain(&d, &checks, table_ref, summary()?)?
    } else {
        String::new()
    };
    let (missing, extra) = (
        memo.calls_sig(1, table_ref.expected, &d.missing),
        memo.calls_sig(2, table_ref.actual, &d.extra),
    );
    let arguments = memo.checks_sig(&checks);
    out.put(cfg, row, score, &reason, problems, |out| {
        out.extend_from_slice(b"{\"missing\":[");
        memo.write(out, missing, |out| {
            for (n, &i) in d.missing.iter().enumerate() {
                if n > 0 {
                    out.push(b',');
                }
                call_entry(out, &table_ref.expected[i], i);
            }
        });
        out.extend_from_slice(b"],\"extra\":[");
        memo.write(out, extra, |out| {
            for (n, &j) in d.extra.iter().enumerate() {
                if n > 0 {
                    out.push(b',');
                }
                call_entry(out, &table_ref.actual[j], j);
            }
        });
        out.extend_from_slice(b"],\"order_violations\":[");
        for (n, v) in d.violations.iter().enumerate() {
            if n > 0 {
                out.push(b',');
            }
            write_str(out, v);
        }
        out.extend_from_slice(b"],\"arguments\":[");
        memo.write(out, arguments, |out| {
            for (n, c) in checks.iter().enumerate() {
                if n > 0 {
                    out.push(b',');
                }
                check_json(out, c);
            }
        });
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

pub(crate) const UNBOUND: &str = "no expected_tools bound for this row";

/// `_analysis.empty_result`: nothing expected and nothing called, as `empty` says.
#[allow(clippy::too_many_arguments)]
pub(crate) fn finish_empty(
    out: &mut impl Sink,
    cfg: &Config,
    row: &Row,
    table: &mut Table,
    memo: &mut Memo,
    d: Diag,
    empty: Empty,
    summary: &str,
) -> R<()> {
    let (score, rule) = match empty {
        Empty::Unscored => (None, " (empty='unscored')"),
        Empty::Perfect => (Some(1.0), " (empty='perfect' scores 1.0)"),
        Empty::Zero => (Some(0.0), " (empty='zero' scores 0.0)"),
    };
    finish(out, cfg, row, table, memo, d, score, || {
        Ok(format!("{summary}{rule}"))
    })
}
