//! The deterministic call metrics: what each scores a row, and the parts of the
//! diagnosis it records (`result` writes them, byte for byte as `tooleval score` does).

use crate::alignment::{analyse, Analysis, KeysFor, Pairs, Table, ALL_KEYS};
use crate::assignment::transitive_closure;
use crate::json::{write_int, write_str};
use crate::matching::{mean, Call, Comparator};
use crate::result::{
    diagnosis, finish, finish_empty, float_json, fmt2, int_json, names_json, opt_float_json,
    pairs_json, write_unscored_plain, Memo, R, UNBOUND,
};
pub use crate::result::{Parts, Sink, Want};

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
    /// The comparator's spec as JSON: metrics with equal specs compare alike.
    pub cmp_spec: Vec<u8>,
}

pub struct Row<'a> {
    pub id: std::borrow::Cow<'a, str>,
    pub expected: Option<Vec<Call<'a>>>,
    /// `ExpectedTools.before`: `None` is the listed order, `Some` explicit pairs (sorted).
    pub before: Option<Vec<(usize, usize)>>,
    pub actual: Vec<Call<'a>>,
}

/// What the metrics of one row share: a comparison table for each distinct
/// comparator, argument keys and extra-keys rule, and the analyses made from it,
/// so that metrics comparing alike compare each pair of calls once per row.
#[derive(Default)]
pub struct Shared<'a> {
    slots: Vec<Slot<'a>>,
    /// The parts of the diagnoses written for this row, for the next metrics to copy.
    memo: Memo,
}

struct Slot<'a> {
    cmp_spec: &'a [u8],
    keys: &'a KeysFor,
    mismatch: bool,
    table: Table<'a>,
    /// The analyses made: with no order, in the listed order, in the row's `before`.
    analyses: [Option<Analysis>; 3],
}

impl Shared<'_> {
    /// For a row scored with several metrics: the parts of a diagnosis equal
    /// between them (argument checks, missing and extra calls) are written once.
    pub fn remembering() -> Self {
        Shared {
            slots: Vec::new(),
            memo: Memo::remembering(),
        }
    }
}

/// Which order an analysis respects (the index of `Slot::analyses`).
const ANY_ORDER: usize = 0;
const LISTED: usize = 1;
const BEFORE: usize = 2;

impl<'a> Shared<'a> {
    /// The table (made now or by an earlier metric) and the analysis in `order`.
    #[allow(clippy::too_many_arguments)]
    fn analysed(
        &mut self,
        cfg: &'a Config,
        keys: &'a KeysFor,
        mismatch: bool,
        expected: &'a [Call<'a>],
        actual: &'a [Call<'a>],
        order: usize,
        before: Option<&[(usize, usize)]>,
    ) -> R<(&mut Table<'a>, &Analysis, &mut Memo)> {
        let found = self.slots.iter().position(|s| {
            s.mismatch == mismatch && s.keys == keys && s.cmp_spec == cfg.cmp_spec.as_slice()
        });
        let at = match found {
            Some(at) => at,
            None => {
                let mut table = Table::new(expected, actual, &cfg.cmp, keys, mismatch);
                // the same comparator under the other extra-keys rule: the pairs
                // without extra keys are compared already
                let other = self.slots.iter().find(|s| {
                    s.mismatch != mismatch
                        && s.keys == keys
                        && s.cmp_spec == cfg.cmp_spec.as_slice()
                });
                if let Some(other) = other {
                    table.adopt(&other.table);
                }
                self.slots.push(Slot {
                    cmp_spec: &cfg.cmp_spec,
                    keys,
                    mismatch,
                    table,
                    analyses: [None, None, None],
                });
                self.slots.len() - 1
            }
        };
        let Slot {
            table, analyses, ..
        } = &mut self.slots[at];
        if analyses[order].is_none() {
            analyses[order] = Some(analyse(table, before)?);
        }
        Ok((table, analyses[order].as_ref().ok_or(())?, &mut self.memo))
    }
}

pub fn score_row<'a>(
    cfg: &'a Config,
    row: &'a Row<'a>,
    shared: &mut Shared<'a>,
    out: &mut impl Sink,
) -> R<()> {
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
    let ordered = |strict: bool| {
        if strict {
            (LISTED, Some(chain.as_slice()))
        } else {
            (ANY_ORDER, None)
        }
    };
    match &cfg.metric {
        Metric::Accuracy { strict, empty } => {
            let (order, before) = ordered(*strict);
            let (table, a, memo) =
                shared.analysed(cfg, &ALL_KEYS, false, expected, actual, order, before)?;
            if ne == 0 && na == 0 {
                let d = diagnosis(a, table, true, true, None, Vec::new());
                return finish_empty(out, cfg, row, table, memo, d, *empty, NONE_MADE);
            }
            if ne == 0 || na == 0 {
                let details = vec![("alignment", b"0".to_vec()), ("coverage", b"0.0".to_vec())];
                let d = diagnosis(a, table, true, true, None, details);
                return finish(out, cfg, row, table, memo, d, Some(0.0), || {
                    Ok(if ne == 0 {
                        format!("no calls expected, {na} made")
                    } else {
                        format!("no calls made, {ne} expected")
                    })
                });
            }
            let n = ne.min(na);
            let mut misaligned = None;
            let pairs: Pairs = if *strict {
                match (0..n).find(|&k| expected[k].name != actual[k].name) {
                    None => (0..n).map(|k| (k, k)).collect(),
                    Some(w) => {
                        misaligned =
                            Some((w, expected[w].name.to_string(), actual[w].name.to_string()));
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
            let mut d = diagnosis(a, table, true, true, shown, details);
            d.misaligned = misaligned;
            let summary = || -> R<String> {
                Ok(if score >= 1.0 {
                    // "all N expected calls matched[ in order]", the usual sentence, without `format!`
                    let mut s = String::with_capacity(40);
                    s.push_str("all ");
                    s.push_str(std::str::from_utf8(&int_json(ne)).map_err(|_| ())?);
                    s.push_str(if ne != 1 {
                        " expected calls matched"
                    } else {
                        " expected call matched"
                    });
                    if *strict {
                        s.push_str(" in order");
                    }
                    s
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
                })
            };
            let score = Some(score.clamp(0.0, 1.0));
            finish(out, cfg, row, table, memo, d, score, summary)
        }
        Metric::F1 {
            empty,
            mismatch_keys,
        } => {
            let (table, a, memo) = shared.analysed(
                cfg,
                &ALL_KEYS,
                *mismatch_keys,
                expected,
                actual,
                ANY_ORDER,
                None,
            )?;
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
                let d = diagnosis(a, table, true, true, None, details);
                return finish_empty(out, cfg, row, table, memo, d, *empty, NONE_MADE);
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
            let d = diagnosis(a, table, true, true, None, details);
            let summary = || {
                let fmt = |v: Option<f64>| v.map(fmt2).unwrap_or_else(|| "undefined".into());
                Ok(format!(
                    "{matched} of {ne} expected calls matched, {na} made: precision {}, recall {}",
                    fmt(precision),
                    fmt(recall)
                ))
            };
            finish(out, cfg, row, table, memo, d, Some(f1.min(1.0)), summary)
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
            let (order, given) = match (check_ordering, &row.before) {
                (false, _) => (ANY_ORDER, None),
                (true, None) => (LISTED, Some(before)),
                (true, Some(_)) => (BEFORE, Some(before)),
            };
            let (table, a, memo) =
                shared.analysed(cfg, keys, *mismatch_keys, expected, actual, order, given)?;
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
            let d = diagnosis(a, table, true, !*ignore_extra, None, details);
            if ne == 0 && na == 0 {
                return finish_empty(out, cfg, row, table, memo, d, *empty, NONE_MADE);
            }
            let in_order = if *check_ordering { " in order" } else { "" };
            if *exact_match {
                let ok = matched == ne && (*ignore_extra || matched == na);
                let summary = || {
                    Ok(if ok {
                        format!("exact match: all {ne} expected calls matched{in_order}")
                    } else {
                        format!("not an exact match: {matched} of {ne} expected calls matched{in_order}, {na} made")
                    })
                };
                finish(out, cfg, row, table, memo, d, all_or_nothing(ok), summary)
            } else {
                let denominator = if *ignore_extra { ne } else { ne.max(na) };
                let score = if denominator > 0 {
                    matched as f64 / denominator as f64
                } else {
                    1.0
                };
                let summary = || {
                    Ok(if ne == 0 {
                        format!("no calls expected, {na} made")
                    } else {
                        let mut s = format!("{matched} of {ne} expected calls matched{in_order}");
                        if na != ne {
                            s.push_str(&format!(" ({na} made)"));
                        }
                        s
                    })
                };
                finish(out, cfg, row, table, memo, d, Some(score), summary)
            }
        }
        Metric::Trajectory {
            strict,
            coverage,
            empty,
        } => {
            let (order_at, before) = ordered(*strict);
            let (table, a, memo) =
                shared.analysed(cfg, &ALL_KEYS, false, expected, actual, order_at, before)?;
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
                    diagnosis(a, table, true, true, None, details),
                ),
                Coverage::Subset => {
                    let not_called = a.missing_rows(ne);
                    if !not_called.is_empty() {
                        details.push(("not_called", names_json(expected, &not_called)));
                    }
                    (
                        matched == na,
                        diagnosis(a, table, false, true, None, details),
                    )
                }
                Coverage::Superset => {
                    let additional = a.extra_cols(na);
                    if !additional.is_empty() {
                        details.push(("additional_calls", names_json(actual, &additional)));
                    }
                    (
                        matched == ne,
                        diagnosis(a, table, true, false, None, details),
                    )
                }
            };
            let rule = format!("order {order}, coverage {cover}");
            if ne == 0 && na == 0 {
                let summary = format!("no calls expected and none made ({rule})");
                return finish_empty(out, cfg, row, table, memo, d, *empty, &summary);
            }
            let summary = || {
                Ok(if ok {
                    format!("trajectory matches ({rule}; {na} calls made, {ne} expected)")
                } else {
                    let mut s = format!(
                        "trajectory does not match ({rule}): {matched} of {ne} expected calls matched"
                    );
                    if *coverage != Coverage::Superset {
                        s.push_str(&format!(", {na} made"));
                    }
                    s
                })
            };
            finish(out, cfg, row, table, memo, d, all_or_nothing(ok), summary)
        }
        Metric::Contains(_) => Err(()), // returned above: output::score_output scores it
    }
}

/// The summary of an empty row for the metrics without a rule of their own to add.
const NONE_MADE: &str = "no calls expected and none made";

/// The score of a pass-or-fail metric.
fn all_or_nothing(ok: bool) -> Option<f64> {
    Some(if ok { 1.0 } else { 0.0 })
}
