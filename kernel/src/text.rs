//! Python's text rules the matchers use: `str.isspace` (also `re`'s `\s`),
//! `str.casefold` for the characters whose folding is proven here, and
//! `structural.number_from_text`. Anything outside what is proven is `Err`:
//! the row goes to the Python reference.

use crate::json::Value;

/// `str.isspace()` of Python 3.11 (Unicode 14); `re`'s `\s` on text is the same set.
pub fn py_space(c: char) -> bool {
    matches!(
        c,
        '\t'..='\r'
            | '\u{1c}'..='\u{20}'
            | '\u{85}'
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
    )
}

/// Blocks where Python 3.11's `casefold` changes nothing (Hebrew, Arabic,
/// Devanagari, Thai, kana, CJK ideographs, Hangul syllables); checked against
/// Python by `tests/kernel/test_matchers_identity.py`.
pub const UNFOLDED: [(u32, u32); 8] = [
    (0x0590, 0x05FF),
    (0x0600, 0x06FF),
    (0x0900, 0x097F),
    (0x0E00, 0x0E7F),
    (0x3040, 0x30FF),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xAC00, 0xD7A3),
];

/// Appends `c.casefold()`; `Err` for a character whose folding is not proven here.
pub fn push_folded(out: &mut String, c: char) -> Result<(), ()> {
    let code = c as u32;
    match code {
        0x41..=0x5A | 0xC0..=0xD6 | 0xD8..=0xDE => out.push(char::from_u32(code + 32).ok_or(())?),
        0x00..=0xB4 | 0xB6..=0xBF | 0xD7 | 0xE0..=0xFF => out.push(c),
        0xB5 => out.push('\u{3bc}'),
        0xDF => out.push_str("ss"),
        _ if UNFOLDED.iter().any(|&(lo, hi)| lo <= code && code <= hi) => out.push(c),
        _ => return Err(()),
    }
    Ok(())
}

/// `s.casefold()`, or `Err` (see [`push_folded`]).
pub fn casefold(s: &str) -> Result<String, ()> {
    if s.is_ascii() {
        return Ok(s.to_ascii_lowercase());
    }
    let mut out = String::with_capacity(s.len() + 2);
    for c in s.chars() {
        push_folded(&mut out, c)?;
    }
    Ok(out)
}

/// `re.sub(r"\s+", " ", s).strip()`, then `casefold()` when `fold`.
pub fn normalize_text(s: &str, fold: bool) -> Result<String, ()> {
    let mut out = String::with_capacity(s.len());
    let mut in_space = false;
    for c in s.chars() {
        if py_space(c) {
            in_space = true;
            continue;
        }
        if in_space && !out.is_empty() {
            out.push(' ');
        }
        in_space = false;
        if fold {
            push_folded(&mut out, c)?;
        } else {
            out.push(c);
        }
    }
    Ok(out)
}

/// An integer as Python's `int` holds it, when the kernel's values can (64 bits).
fn integer(negative: bool, magnitude: u128) -> Result<Value<'static>, ()> {
    if negative {
        if magnitude <= 1u128 << 63 {
            return Ok(Value::Int((magnitude as i128).wrapping_neg() as i64));
        }
        return Err(());
    }
    if magnitude <= i64::MAX as u128 {
        Ok(Value::Int(magnitude as i64))
    } else if magnitude <= u64::MAX as u128 {
        Ok(Value::UInt(magnitude as u64))
    } else {
        Err(())
    }
}

/// `int(x)` of a finite integral float.
fn float_to_int(x: f64) -> Result<Value<'static>, ()> {
    if x.abs() >= 18446744073709551616.0 {
        return Err(());
    }
    integer(x < 0.0, x.abs() as u128)
}

/// `re.fullmatch(r"[+-]?\d+", text)` over ASCII.
fn is_integer(text: &str) -> bool {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// `re.fullmatch(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?", text)` over ASCII.
fn is_number(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    let whole = digits(&mut i);
    let mut fraction = 0;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        fraction = digits(&mut i);
    }
    if whole == 0 && fraction == 0 {
        return false;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// `structural.number_from_text`: the canonical number a number or number-like
/// text stands for; other values as given. `Err` for what only Python can say
/// (non-ASCII digits, integers beyond 64 bits).
pub fn number_from_text<'a>(v: &Value<'a>) -> Result<Value<'a>, ()> {
    let number = match v {
        Value::Str(s) => {
            let text = s.trim_matches(py_space);
            if !text.is_ascii() {
                // `\d` and `float()` read every Unicode decimal digit: only Python knows them all.
                if text.chars().any(|c| !c.is_ascii() && c.is_numeric()) {
                    return Err(());
                }
                return Ok(v.clone());
            }
            if is_integer(text) {
                let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
                let digits = digits.trim_start_matches('0');
                if digits.len() > 20 {
                    return Err(());
                }
                let magnitude: u128 = if digits.is_empty() {
                    0
                } else {
                    digits.parse().map_err(|_| ())?
                };
                return integer(text.starts_with('-'), magnitude);
            }
            if !is_number(text) {
                return Ok(v.clone());
            }
            text.parse::<f64>().map_err(|_| ())?
        }
        Value::Float(x) => *x,
        _ => return Ok(v.clone()),
    };
    if number.is_finite() && number.fract() == 0.0 {
        return float_to_int(number);
    }
    Ok(Value::Float(number))
}

/// `structural._coerce`: [`number_from_text`] on every value nested in lists and objects.
pub fn coerce<'a>(v: &Value<'a>) -> Result<Value<'a>, ()> {
    Ok(match v {
        Value::Obj(items) => Value::Obj(
            items
                .iter()
                .map(|(k, x)| Ok((k.clone(), coerce(x)?)))
                .collect::<Result<_, ()>>()?,
        ),
        Value::Arr(items) => Value::Arr(items.iter().map(coerce).collect::<Result<_, ()>>()?),
        other => number_from_text(other)?,
    })
}
