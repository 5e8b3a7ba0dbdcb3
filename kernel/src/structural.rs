//! Matchers about the shape of values (`tooleval.matching.structural`) and the
//! value equality of `AnyOf` (`tooleval.model.values.values_equal`).

use crate::json::{get, Value};
use crate::matching::Matcher;

/// `model.values.values_equal`: booleans apart from numbers, `2 == 2.0`, recursively.
pub fn values_equal(a: &Value, b: &Value) -> bool {
    const I64_END: f64 = 9_223_372_036_854_775_808.0; // 2**63
    const U64_END: f64 = 18_446_744_073_709_551_616.0; // 2**64
    match (a, b) {
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Bool(_), _) | (_, Value::Bool(_)) => false,
        (Value::Null, Value::Null) => true,
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Arr(x), Value::Arr(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(e, a)| values_equal(e, a))
        }
        (Value::Obj(x), Value::Obj(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| get(y, k).is_some_and(|w| values_equal(v, w)))
        }
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::UInt(x), Value::UInt(y)) => x == y,
        (Value::Float(x), Value::Float(y)) => x == y,
        // Python compares an int and a float exactly.
        (Value::Int(i), Value::Float(f)) | (Value::Float(f), Value::Int(i)) => {
            f.fract() == 0.0 && (-I64_END..I64_END).contains(f) && *f as i64 == *i
        }
        (Value::UInt(u), Value::Float(f)) | (Value::Float(f), Value::UInt(u)) => {
            f.fract() == 0.0 && (0.0..U64_END).contains(f) && *f as u64 == *u
        }
        _ => false,
    }
}

/// Longest lists `unordered` pairs in the kernel (longer ones go to Python).
const UNORDERED_MAX: usize = 512;

/// `Unordered._same`: lists as multisets under the inner matcher (nested ones too when `recursive`).
pub fn unordered_same(inner: &Matcher, recursive: bool, e: &Value, a: &Value) -> Result<bool, ()> {
    match (e, a) {
        (Value::Arr(x), Value::Arr(y)) => {
            if x.len() != y.len() {
                return Ok(false);
            }
            if x.len() > UNORDERED_MAX {
                return Err(());
            }
            let mut edges: Vec<Vec<usize>> = Vec::with_capacity(x.len());
            for v in x {
                let mut row = Vec::new();
                for (j, w) in y.iter().enumerate() {
                    let same = if recursive {
                        unordered_same(inner, recursive, v, w)?
                    } else {
                        inner.call(v, Some(w))? >= inner.pass_score()
                    };
                    if same {
                        row.push(j);
                    }
                }
                edges.push(row);
            }
            Ok(perfect_matching(&edges))
        }
        (Value::Obj(x), Value::Obj(y)) if recursive => {
            if x.len() != y.len() || !x.iter().all(|(k, _)| get(y, k).is_some()) {
                return Ok(false);
            }
            for (k, v) in x {
                if !unordered_same(inner, recursive, v, get(y, k).ok_or(())?)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        _ => Ok(inner.call(e, Some(a))? >= inner.pass_score()),
    }
}

/// Can every row own a distinct column among its `edges`? (Kuhn's augmenting paths.)
fn perfect_matching(edges: &[Vec<usize>]) -> bool {
    fn augment(row: usize, edges: &[Vec<usize>], seen: &mut [bool], owner: &mut [usize]) -> bool {
        for &col in &edges[row] {
            if seen[col] {
                continue;
            }
            seen[col] = true;
            if owner[col] == usize::MAX || augment(owner[col], edges, seen, owner) {
                owner[col] = row;
                return true;
            }
        }
        false
    }
    let n = edges.len();
    let mut owner = vec![usize::MAX; n];
    for row in 0..n {
        let mut seen = vec![false; n];
        if !augment(row, edges, &mut seen, &mut owner) {
            return false;
        }
    }
    true
}
