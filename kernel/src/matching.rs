//! Argument matchers and the argument comparison of two calls
//! (`tooleval.matching.values` and `tooleval.matching.config`).

use std::borrow::Cow;

use crate::json::{get, Obj, Value};
use crate::similarity;
use crate::structural::{unordered_same, values_equal};
use crate::text::{casefold, coerce, normalize_text};

pub struct Call<'a> {
    pub name: Cow<'a, str>,
    /// `None`: an expected call given by name only (arguments not compared).
    pub args: Option<Obj<'a>>,
}

#[derive(Clone, Debug)]
pub enum Matcher {
    Exact,
    Ignore,
    Normalized {
        fold: bool,
        numeric_text: bool,
    },
    Numeric {
        abs_tol: f64,
        rel_tol: f64,
        int_float_equal: bool,
    },
    /// `Similarity`: rapidfuzz's Levenshtein or Jaro-Winkler similarity of two strings.
    Similarity {
        jaro_winkler: bool,
        min_score: Option<f64>,
        fold: bool,
    },
    /// `"any_of"` by name: an expected list holds the acceptable values.
    AnyOfExpected,
    /// `AnyOf(values, optional=...)` given in the matcher configuration.
    AnyOf {
        values: Vec<Value<'static>>,
        optional: bool,
    },
    Unordered {
        inner: Box<Matcher>,
        recursive: bool,
    },
    NumericText {
        inner: Box<Matcher>,
    },
}

impl Matcher {
    /// The `name` the Python matcher records in a diagnosis.
    pub fn name(&self) -> &'static str {
        match self {
            Matcher::Exact => "exact",
            Matcher::Ignore => "ignore",
            Matcher::Normalized { .. } => "normalized",
            Matcher::Numeric { .. } => "numeric",
            Matcher::Similarity { .. } => "similarity",
            Matcher::AnyOfExpected | Matcher::AnyOf { .. } => "any_of",
            Matcher::Unordered { .. } => "unordered",
            Matcher::NumericText { .. } => "numeric_text",
        }
    }

    /// The lowest score that counts as a match (the Python matcher's `pass_score`).
    pub fn pass_score(&self) -> f64 {
        match self {
            Matcher::Similarity {
                min_score: Some(m), ..
            } => *m,
            Matcher::NumericText { inner } => inner.pass_score(),
            _ => 1.0,
        }
    }

    /// The score of one argument; `Err` when only Python can say (text the
    /// kernel cannot fold, numbers beyond 64 bits, very long lists).
    pub fn call(&self, expected: &Value, actual: Option<&Value>) -> Result<f64, ()> {
        let ok = match self {
            Matcher::Ignore => true,
            Matcher::Exact => actual.is_some_and(|a| deep_equal(expected, a)),
            Matcher::Normalized { fold, numeric_text } => match actual {
                None => false,
                Some(a) => {
                    let (mut e, mut a) = (normalize(expected, *fold)?, normalize(a, *fold)?);
                    if *numeric_text {
                        (e, a) = (coerce(&e)?, coerce(&a)?);
                    }
                    deep_equal(&e, &a)
                }
            },
            Matcher::Numeric {
                abs_tol,
                rel_tol,
                int_float_equal,
            } => match actual {
                None => false,
                Some(a) => numeric_equal(expected, a, *abs_tol, *rel_tol, *int_float_equal),
            },
            Matcher::Similarity {
                jaro_winkler,
                min_score,
                fold,
            } => {
                return match actual {
                    None => Ok(0.0),
                    Some(a) => similarity(expected, a, *jaro_winkler, *min_score, *fold),
                }
            }
            Matcher::AnyOfExpected => match (expected, actual) {
                (_, None) => false,
                (Value::Arr(values), Some(a)) => values.iter().any(|e| deep_equal(e, a)),
                (e, Some(a)) => deep_equal(e, a),
            },
            Matcher::AnyOf { values, optional } => match actual {
                None => *optional,
                Some(a) => values.iter().any(|v| values_equal(v, a)),
            },
            Matcher::Unordered { inner, recursive } => match actual {
                None => false,
                Some(a) => unordered_same(inner, *recursive, expected, a)?,
            },
            Matcher::NumericText { inner } => {
                return match actual {
                    None => inner.call(expected, None),
                    Some(a) => inner.call(&coerce(expected)?, Some(&coerce(a)?)),
                }
            }
        };
        Ok(if ok { 1.0 } else { 0.0 })
    }
}

/// `Similarity.__call__` for two present values.
fn similarity(
    expected: &Value,
    actual: &Value,
    jaro_winkler: bool,
    min_score: Option<f64>,
    fold: bool,
) -> Result<f64, ()> {
    let (Value::Str(e), Value::Str(a)) = (expected, actual) else {
        return Ok(if deep_equal(expected, actual) {
            1.0
        } else {
            0.0
        });
    };
    let chars = |s: &str| -> Result<Vec<char>, ()> {
        Ok(if fold {
            casefold(s)?.chars().collect()
        } else {
            s.chars().collect()
        })
    };
    let (e, a) = (chars(e)?, chars(a)?);
    let raw = if jaro_winkler {
        similarity::jaro_winkler(&e, &a)
    } else {
        similarity::levenshtein(&e, &a)
    };
    let score = raw.clamp(0.0, 1.0);
    Ok(match min_score {
        Some(m) if score < m => 0.0,
        _ => score,
    })
}

/// `deep_equal`: JSON types kept apart (`1 != 1.0`, `true != 1`), objects by key set.
pub fn deep_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::UInt(x), Value::UInt(y)) => x == y,
        (Value::Int(_), Value::UInt(_)) | (Value::UInt(_), Value::Int(_)) => false,
        (Value::Float(x), Value::Float(y)) => x == y,
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Arr(x), Value::Arr(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(e, a)| deep_equal(e, a))
        }
        (Value::Obj(x), Value::Obj(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| get(y, k).is_some_and(|w| deep_equal(v, w)))
        }
        _ => false,
    }
}

fn normalize<'a>(v: &Value<'a>, fold: bool) -> Result<Value<'a>, ()> {
    Ok(match v {
        Value::Str(s) => Value::Str(Cow::Owned(normalize_text(s, fold)?)),
        Value::Obj(items) => Value::Obj(
            items
                .iter()
                .map(|(k, x)| Ok((k.clone(), normalize(x, fold)?)))
                .collect::<Result<_, ()>>()?,
        ),
        Value::Arr(items) => Value::Arr(
            items
                .iter()
                .map(|x| normalize(x, fold))
                .collect::<Result<_, ()>>()?,
        ),
        other => other.clone(),
    })
}

fn number(v: &Value) -> Option<(f64, bool)> {
    match v {
        Value::Int(i) => Some((*i as f64, true)),
        Value::UInt(u) => Some((*u as f64, true)),
        Value::Float(f) => Some((*f, false)),
        _ => None,
    }
}

/// `math.isclose` as CPython computes it.
fn isclose(a: f64, b: f64, rel_tol: f64, abs_tol: f64) -> bool {
    if a == b {
        return true;
    }
    if a.is_infinite() || b.is_infinite() {
        return false;
    }
    let diff = (b - a).abs();
    diff <= (rel_tol * b).abs() || diff <= (rel_tol * a).abs() || diff <= abs_tol
}

fn numeric_equal(e: &Value, a: &Value, abs_tol: f64, rel_tol: f64, ife: bool) -> bool {
    if let (Some((x, xi)), Some((y, yi))) = (number(e), number(a)) {
        if !ife && xi != yi {
            return false;
        }
        return isclose(x, y, rel_tol, abs_tol);
    }
    match (e, a) {
        (Value::Obj(x), Value::Obj(y)) => {
            x.len() == y.len()
                && x.iter().all(|(k, v)| {
                    get(y, k).is_some_and(|w| numeric_equal(v, w, abs_tol, rel_tol, ife))
                })
        }
        (Value::Arr(x), Value::Arr(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|(v, w)| numeric_equal(v, w, abs_tol, rel_tol, ife))
        }
        _ => deep_equal(e, a),
    }
}

// ---------------------------------------------------------------- the comparator

/// One compared argument; values are shared with the calls (as the Python
/// reference keeps plain JSON by reference in its diagnoses).
#[derive(Clone)]
pub struct Check<'a> {
    pub tool: &'a str,
    /// The dotted path of the key (borrowed from the call for a top-level key).
    pub key: Cow<'a, str>,
    pub expected: Option<&'a Value<'a>>,
    pub actual: Option<&'a Value<'a>>,
    pub score: f64,
    pub expected_index: usize,
    pub actual_index: usize,
    pub matcher: &'static str,
    pub missing: bool,
}

#[derive(Clone)]
pub struct Comparison<'a> {
    pub score: f64,
    pub matches: bool,
    /// The actual call has no argument key the expected one lacks (where the walk
    /// looked): the comparison is the same with extra keys ignored or a mismatch.
    pub either_way: bool,
    /// Some check scored other than 1.0 (what `--fields code` calls `arguments`),
    /// known whether or not the checks were recorded.
    pub below_one: bool,
    pub checks: Vec<Check<'a>>,
}

pub struct Comparator {
    pub default: Matcher,
    pub keys: Vec<(String, Matcher)>,
    pub tools: Vec<(String, Vec<(String, Matcher)>)>,
}

fn lookup<'a>(items: &'a [(String, Matcher)], key: &str) -> Option<&'a Matcher> {
    items.iter().find(|(k, _)| k == key).map(|(_, m)| m)
}

impl Comparator {
    fn per_tool(&self, tool: &str) -> &[(String, Matcher)] {
        self.tools
            .iter()
            .find(|(t, _)| t == tool)
            .map(|(_, m)| m.as_slice())
            .unwrap_or(&[])
    }

    fn explicit(&self, tool: &str, path: &str) -> Option<&Matcher> {
        lookup(self.per_tool(tool), path).or_else(|| lookup(&self.keys, path))
    }

    fn matcher_for(&self, tool: &str, path: &str) -> &Matcher {
        self.explicit(tool, path)
            .or_else(|| lookup(self.per_tool(tool), "*"))
            .unwrap_or(&self.default)
    }

    fn configured_below(&self, tool: &str, path: &str) -> bool {
        self.per_tool(tool).iter().any(|(k, _)| below(k, path))
            || self.keys.iter().any(|(k, _)| below(k, path))
    }

    /// `ArgumentComparator.compare` (checks recorded when `record`).
    pub fn compare<'a>(
        &'a self,
        expected: &'a Call<'a>,
        actual: &'a Call<'a>,
        keys: Option<&'a [String]>,
        mismatch_extra: bool,
        indices: (usize, usize),
        record: bool,
    ) -> Result<Comparison<'a>, ()> {
        let Some(exp_args) = &expected.args else {
            return Ok(Comparison {
                score: 1.0,
                matches: true,
                either_way: true,
                below_one: false,
                checks: Vec::new(),
            });
        };
        let act_args = actual.args.as_ref().unwrap_or(&EMPTY);
        let mut walk = Walk {
            cmp: self,
            tool: &expected.name,
            selected: keys.filter(|k| !k.is_empty()),
            mismatch_extra,
            indices,
            record,
            below_one: false,
            either_way: true,
            checks: Vec::new(),
        };
        let scores = walk.compare_object("", exp_args, act_args, true)?;
        if scores.is_empty() {
            return Ok(Comparison {
                score: 1.0,
                matches: true,
                either_way: walk.either_way,
                below_one: walk.below_one,
                checks: walk.checks,
            });
        }
        Ok(Comparison {
            score: mean(scores.iter().map(|s| s.0)),
            matches: scores.iter().all(|s| s.1),
            either_way: walk.either_way,
            below_one: walk.below_one,
            checks: walk.checks,
        })
    }
}

/// `math.fsum(values) / len(values)`, as the Python reference averages.
pub fn mean(values: impl ExactSizeIterator<Item = f64> + Clone) -> f64 {
    let n = values.len();
    fsum(values) / n as f64
}

/// CPython's `math.fsum` (Shewchuk's exact partials, correctly rounded) for finite values.
pub fn fsum(values: impl Iterator<Item = f64> + Clone) -> f64 {
    // When every running sum is exact (no rounding error in any step, as with
    // scores of 0 and 1), that sum is the exact sum, which is what fsum returns.
    let mut rest = values.clone();
    let Some(mut sum) = rest.next() else {
        return 0.0;
    };
    let mut exact = sum.is_finite();
    for x in rest {
        if !exact {
            break;
        }
        let hi = sum + x;
        let b = hi - sum;
        let err = (sum - (hi - b)) + (x - b);
        sum = hi;
        exact = err == 0.0 && hi.is_finite();
    }
    if exact {
        return sum;
    }
    let mut partials: Vec<f64> = Vec::new();
    for mut x in values {
        let mut i = 0;
        for k in 0..partials.len() {
            let mut y = partials[k];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            let hi = x + y;
            let lo = y - (hi - x);
            if lo != 0.0 {
                partials[i] = lo;
                i += 1;
            }
            x = hi;
        }
        partials.truncate(i);
        partials.push(x);
    }
    let mut n = partials.len();
    let mut hi = 0.0;
    if n > 0 {
        n -= 1;
        hi = partials[n];
        let mut lo = 0.0;
        while n > 0 {
            let x = hi;
            n -= 1;
            let y = partials[n];
            hi = x + y;
            let yr = hi - x;
            lo = y - yr;
            if lo != 0.0 {
                break;
            }
        }
        if n > 0 && ((lo < 0.0 && partials[n - 1] < 0.0) || (lo > 0.0 && partials[n - 1] > 0.0)) {
            let y = lo * 2.0;
            let x = hi + y;
            let yr = x - hi;
            if y == yr {
                hi = x;
            }
        }
    }
    hi
}

static EMPTY: Obj<'static> = Vec::new();

/// `key` names something inside `path`: it starts with `path` and a dot.
fn below(key: &str, path: &str) -> bool {
    key.len() > path.len() && key.as_bytes()[path.len()] == b'.' && key.starts_with(path)
}

/// `prefix + key`, the dotted path of a key (the key itself at the top level).
fn joined<'a>(prefix: &str, key: &'a str) -> Cow<'a, str> {
    if prefix.is_empty() {
        return Cow::Borrowed(key);
    }
    let mut path = String::with_capacity(prefix.len() + key.len());
    path.push_str(prefix);
    path.push_str(key);
    Cow::Owned(path)
}

struct Walk<'a> {
    cmp: &'a Comparator,
    tool: &'a str,
    selected: Option<&'a [String]>,
    mismatch_extra: bool,
    indices: (usize, usize),
    record: bool,
    below_one: bool,
    either_way: bool,
    checks: Vec<Check<'a>>,
}

impl<'a> Walk<'a> {
    fn prefixes_selected(&self, path: &str, sel: &[String]) -> bool {
        let mut end = 0;
        let bytes = path.as_bytes();
        loop {
            while end < bytes.len() && bytes[end] != b'.' {
                end += 1;
            }
            if sel.iter().any(|k| k == &path[..end]) {
                return true;
            }
            if end >= bytes.len() {
                return false;
            }
            end += 1;
        }
    }

    fn wanted(&self, path: &str) -> bool {
        let Some(sel) = self.selected else {
            return true;
        };
        if self.prefixes_selected(path, sel) {
            return true;
        }
        sel.iter().any(|k| below(k, path))
    }

    fn fully_selected(&self, path: &str) -> bool {
        match self.selected {
            None => true,
            Some(sel) => self.prefixes_selected(path, sel),
        }
    }

    fn compare_object(
        &mut self,
        prefix: &str,
        expected: &'a Obj<'a>,
        actual_map: &'a Obj<'a>,
        top: bool,
    ) -> Result<Vec<(f64, bool)>, ()> {
        let mut scores = Vec::with_capacity(expected.len());
        let mut present = 0; // keys of `actual_map` among the expected keys walked (keys are unique)
        for (key, value) in expected {
            let path = joined(prefix, key);
            if !self.wanted(&path) {
                continue;
            }
            let got = get(actual_map, key);
            present += usize::from(got.is_some());
            if let Some(found) = self.compare_value(path, value, got)? {
                scores.push(found);
            }
        }
        if present != actual_map.len() {
            self.either_way = false; // an extra key: the extra-keys rule may tell
        }
        let strict_extra = self.mismatch_extra || (top && expected.is_empty());
        if strict_extra && (self.selected.is_none() || !top) {
            for (key, value) in actual_map {
                let path = joined(prefix, key);
                if get(expected, key).is_some() || !self.wanted(&path) {
                    continue;
                }
                if matches!(self.cmp.matcher_for(self.tool, &path), Matcher::Ignore) {
                    continue;
                }
                scores.push(self.record(path, None, Some(value), 0.0, false, "unexpected_key"));
            }
        }
        Ok(scores)
    }

    /// The score of one value (None: nothing to score, e.g. `ignore`).
    fn compare_value(
        &mut self,
        path: Cow<'a, str>,
        expected: &'a Value<'a>,
        actual: Option<&'a Value<'a>>,
    ) -> Result<Option<(f64, bool)>, ()> {
        let explicit = self.cmp.explicit(self.tool, &path);
        if let Value::Obj(inner) = expected {
            let descend = (explicit.is_none() && self.cmp.configured_below(self.tool, &path))
                || !self.fully_selected(&path);
            if descend {
                let actual_map = match actual {
                    Some(Value::Obj(m)) => m,
                    _ => &EMPTY,
                };
                let mut below = path.into_owned();
                below.push('.');
                let child = self.compare_object(&below, inner, actual_map, false)?;
                if child.is_empty() {
                    return Ok(None);
                }
                let score = mean(child.iter().map(|s| s.0));
                return Ok(Some((score, child.iter().all(|s| s.1))));
            }
        }
        let matcher = explicit.unwrap_or_else(|| self.cmp.matcher_for(self.tool, &path));
        if matches!(matcher, Matcher::Ignore) {
            return Ok(None);
        }
        let score = matcher.call(expected, actual)?;
        let ok = score >= matcher.pass_score();
        Ok(Some(self.record(
            path,
            Some(expected),
            actual,
            score,
            ok,
            matcher.name(),
        )))
    }

    fn record(
        &mut self,
        path: Cow<'a, str>,
        expected: Option<&'a Value<'a>>,
        actual: Option<&'a Value<'a>>,
        score: f64,
        ok: bool,
        matcher: &'static str,
    ) -> (f64, bool) {
        self.below_one |= score != 1.0;
        if self.record {
            self.checks.push(Check {
                tool: self.tool,
                key: path,
                expected,
                actual,
                score,
                expected_index: self.indices.0,
                actual_index: self.indices.1,
                matcher,
                missing: actual.is_none(),
            });
        }
        (score, ok)
    }
}
