//! JSON values as orjson reads and writes them, and Python's `repr` of them.
//!
//! The reader accepts exactly what `orjson.loads` turns into the same Python
//! objects and refuses (returns `None`) anything it is unsure about: integers
//! outside the 64-bit range (orjson makes them floats), lone surrogates,
//! invalid UTF-8, nesting deeper than `MAX_DEPTH`. A refused line is scored by
//! the Python reference, which also reports any error in it.
//!
//! Strings and keys without escapes are borrowed from the line (`Cow::Borrowed`):
//! a row's values are slices of its input, and only escaped text is copied.

use std::borrow::Cow;

pub const MAX_DEPTH: usize = 48;

#[derive(Debug, Clone)]
pub enum Value<'a> {
    Null,
    Bool(bool),
    Int(i64),
    /// An integer above `i64::MAX` (orjson keeps it an `int` up to `u64::MAX`).
    UInt(u64),
    Float(f64),
    Str(Cow<'a, str>),
    Arr(Vec<Value<'a>>),
    /// Keys in first-seen order; a repeated key keeps its first position and its last value.
    Obj(Obj<'a>),
}

pub type Obj<'a> = Vec<(Cow<'a, str>, Value<'a>)>;

pub fn get<'v, 'a>(obj: &'v [(Cow<'a, str>, Value<'a>)], key: &str) -> Option<&'v Value<'a>> {
    obj.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

impl Value<'_> {
    /// The same value owning all its text (for values kept beyond their line).
    pub fn into_owned(self) -> Value<'static> {
        match self {
            Value::Null => Value::Null,
            Value::Bool(b) => Value::Bool(b),
            Value::Int(i) => Value::Int(i),
            Value::UInt(u) => Value::UInt(u),
            Value::Float(f) => Value::Float(f),
            Value::Str(s) => Value::Str(Cow::Owned(s.into_owned())),
            Value::Arr(items) => Value::Arr(items.into_iter().map(Value::into_owned).collect()),
            Value::Obj(items) => Value::Obj(
                items
                    .into_iter()
                    .map(|(k, v)| (Cow::Owned(k.into_owned()), v.into_owned()))
                    .collect(),
            ),
        }
    }
}

// ---------------------------------------------------------------- reading

struct Reader<'a> {
    s: &'a [u8],
    i: usize,
    /// Entries of the objects being read, innermost last; each object moves its
    /// own entries into a vector of their exact size when it closes.
    entries: Vec<(Cow<'a, str>, Value<'a>)>,
    /// The same for the items of arrays.
    items: Vec<Value<'a>>,
}

pub fn parse(line: &[u8]) -> Option<Value<'_>> {
    // orjson refuses invalid UTF-8 anywhere; checked once here, so strings
    // (cut at ASCII quotes and escapes) need no check of their own.
    std::str::from_utf8(line).ok()?;
    let mut r = Reader {
        s: line,
        i: 0,
        entries: Vec::with_capacity(32),
        items: Vec::with_capacity(16),
    };
    r.ws();
    let v = r.value(0)?;
    r.ws();
    if r.i != r.s.len() {
        return None;
    }
    Some(v)
}

/// Bytes that end the plain run of a string: `"`, `\\` and control characters.
const STOP: [bool; 256] = {
    let mut table = [false; 256];
    let mut c = 0;
    while c < 0x20 {
        table[c] = true;
        c += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `w` that is `"`, `\\` or below 0x20; exact for
/// the lowest such byte (a borrow only reaches higher bytes).
#[inline]
fn stops(w: u64) -> u64 {
    let quote = w ^ (ONES * b'"' as u64);
    let slash = w ^ (ONES * b'\\' as u64);
    (quote.wrapping_sub(ONES) & !quote
        | slash.wrapping_sub(ONES) & !slash
        | w.wrapping_sub(ONES * 0x20) & !w)
        & HIGH
}

/// Text of the valid UTF-8 line between two ASCII bytes (or its ends).
#[inline]
fn text_of(bytes: &[u8]) -> &str {
    // SAFETY: `parse` checked that the whole line is UTF-8 and every cut made
    // here is next to an ASCII byte (a quote, a backslash, a control character).
    unsafe { std::str::from_utf8_unchecked(bytes) }
}

/// The same key (short keys differ mostly in length or first byte: checked before the bytes).
#[inline]
fn same_key(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    a.len() == b.len() && a.first() == b.first() && a == b
}

impl<'a> Reader<'a> {
    #[inline]
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.s.get(self.i) {
            self.i += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Option<Value<'a>> {
        match *self.s.get(self.i)? {
            b'{' => {
                if depth >= MAX_DEPTH {
                    return None;
                }
                self.i += 1;
                self.object(depth).map(Value::Obj)
            }
            b'[' => {
                if depth >= MAX_DEPTH {
                    return None;
                }
                self.i += 1;
                self.array(depth).map(Value::Arr)
            }
            b'"' => Some(Value::Str(self.string()?)),
            b't' => self.word(b"true", Value::Bool(true)),
            b'f' => self.word(b"false", Value::Bool(false)),
            b'n' => self.word(b"null", Value::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    /// An object's entries, after its `{`.
    fn object(&mut self, depth: usize) -> Option<Obj<'a>> {
        let mark = self.entries.len();
        self.ws();
        if self.s.get(self.i) == Some(&b'}') {
            self.i += 1;
            return Some(Vec::new());
        }
        loop {
            self.ws();
            if self.s.get(self.i) != Some(&b'"') {
                return self.abandon_entries(mark);
            }
            let Some(key) = self.string() else {
                return self.abandon_entries(mark);
            };
            self.ws();
            if self.s.get(self.i) != Some(&b':') {
                return self.abandon_entries(mark);
            }
            self.i += 1;
            self.ws();
            let Some(v) = self.value(depth + 1) else {
                return self.abandon_entries(mark);
            };
            match self.entries[mark..]
                .iter_mut()
                .find(|(k, _)| same_key(k, &key))
            {
                Some(slot) => slot.1 = v,
                None => self.entries.push((key, v)),
            }
            self.ws();
            match self.s.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Some(self.entries.split_off(mark));
                }
                _ => return self.abandon_entries(mark),
            }
        }
    }

    fn abandon_entries<T>(&mut self, mark: usize) -> Option<T> {
        self.entries.truncate(mark);
        None
    }

    /// An array's items, after its `[`.
    fn array(&mut self, depth: usize) -> Option<Vec<Value<'a>>> {
        let mark = self.items.len();
        self.ws();
        if self.s.get(self.i) == Some(&b']') {
            self.i += 1;
            return Some(Vec::new());
        }
        loop {
            self.ws();
            let Some(v) = self.value(depth + 1) else {
                self.items.truncate(mark);
                return None;
            };
            self.items.push(v);
            self.ws();
            match self.s.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Some(self.items.split_off(mark));
                }
                _ => {
                    self.items.truncate(mark);
                    return None;
                }
            }
        }
    }

    fn word(&mut self, w: &[u8], v: Value<'a>) -> Option<Value<'a>> {
        if self.s[self.i..].starts_with(w) {
            self.i += w.len();
            Some(v)
        } else {
            None
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while self.i < self.s.len() && self.s[self.i].is_ascii_digit() {
            self.i += 1;
        }
        self.i - start
    }

    fn number(&mut self) -> Option<Value<'a>> {
        let start = self.i;
        if self.s[self.i] == b'-' {
            self.i += 1;
        }
        let int_start = self.i;
        let n = self.digits();
        if n == 0 || (n > 1 && self.s[int_start] == b'0') {
            return None;
        }
        let mut float = false;
        if self.s.get(self.i) == Some(&b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return None;
            }
            float = true;
        }
        if matches!(self.s.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.s.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return None;
            }
            float = true;
        }
        if !float {
            let digits = &self.s[int_start..self.i];
            if digits.len() <= 18 {
                let mut v: i64 = 0;
                for &d in digits {
                    v = v * 10 + (d - b'0') as i64;
                }
                return Some(Value::Int(if int_start > start { -v } else { v }));
            }
        }
        let text = text_of(&self.s[start..self.i]);
        if !float {
            if let Ok(v) = text.parse::<i64>() {
                return Some(Value::Int(v));
            }
            if let Ok(v) = text.parse::<u64>() {
                return Some(Value::UInt(v));
            }
            return None; // orjson makes it a float: left to Python
        }
        let v: f64 = text.parse().ok()?;
        if !v.is_finite() {
            return None;
        }
        Some(Value::Float(v))
    }

    fn hex4(&mut self) -> Option<u32> {
        let h = self.s.get(self.i..self.i + 4)?;
        let mut v = 0u32;
        for &c in h {
            v = v * 16 + (c as char).to_digit(16)?;
        }
        self.i += 4;
        Some(v)
    }

    /// Moves past the bytes that need no attention in a string (8 at a time).
    #[inline]
    fn plain_run(&mut self) {
        while self.i + 8 <= self.s.len() {
            let word = u64::from_le_bytes(self.s[self.i..self.i + 8].try_into().unwrap());
            let found = stops(word);
            if found != 0 {
                self.i += (found.trailing_zeros() / 8) as usize;
                return;
            }
            self.i += 8;
        }
        while self.i < self.s.len() && !STOP[self.s[self.i] as usize] {
            self.i += 1;
        }
    }

    /// A string, after its opening quote is seen; borrowed from the line when it has no escape.
    fn string(&mut self) -> Option<Cow<'a, str>> {
        self.i += 1; // opening quote
        let first = self.i;
        self.plain_run();
        if *self.s.get(self.i)? == b'"' {
            self.i += 1;
            return Some(Cow::Borrowed(text_of(&self.s[first..self.i - 1])));
        }
        let mut out: Vec<u8> = Vec::with_capacity(self.i - first + 16);
        out.extend_from_slice(&self.s[first..self.i]);
        loop {
            match *self.s.get(self.i)? {
                b'"' => {
                    self.i += 1;
                    // SAFETY: the whole line is valid UTF-8 (checked in `parse`), the
                    // pieces copied end at ASCII bytes, and escapes add whole chars.
                    return Some(Cow::Owned(unsafe { String::from_utf8_unchecked(out) }));
                }
                b'\\' => {
                    self.i += 1;
                    let c = *self.s.get(self.i)?;
                    self.i += 1;
                    let ch = match c {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let hi = self.hex4()?;
                            if (0xD800..0xDC00).contains(&hi) {
                                if self.s.get(self.i..self.i + 2)? != b"\\u" {
                                    return None;
                                }
                                self.i += 2;
                                let lo = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return None;
                                }
                                char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))?
                            } else {
                                char::from_u32(hi)? // a lone low surrogate is refused here
                            }
                        }
                        _ => return None,
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                _ => return None, // a raw control character
            }
            let start = self.i;
            self.plain_run();
            out.extend_from_slice(&self.s[start..self.i]);
        }
    }
}

// ---------------------------------------------------------------- writing (orjson)

/// The first byte of `b[from..]` orjson escapes in a string (a control character, `"`
/// or `\\`; the bytes [`stops`] finds), 8 bytes at a time.
#[inline]
fn next_escaped(b: &[u8], mut from: usize) -> Option<usize> {
    while from + 8 <= b.len() {
        let word = u64::from_le_bytes(b[from..from + 8].try_into().unwrap());
        let found = stops(word);
        if found != 0 {
            return Some(from + (found.trailing_zeros() / 8) as usize);
        }
        from += 8;
    }
    (from..b.len()).find(|&k| STOP[b[k] as usize])
}

pub fn write_str(out: &mut Vec<u8>, s: &str) {
    let b = s.as_bytes();
    out.reserve(b.len() + 2);
    if b.len() <= 32 && write_short(out, b) {
        return;
    }
    out.push(b'"');
    let mut start = 0;
    while let Some(at) = next_escaped(b, start) {
        out.extend_from_slice(&b[start..at]);
        match b[at] {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            c => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[(c >> 4) as usize]);
                out.push(HEX[(c & 15) as usize]);
            }
        }
        start = at + 1;
    }
    out.extend_from_slice(&b[start..]);
    out.push(b'"');
}

/// A short string with nothing to escape, quoted, copied byte by byte into the
/// reserved room (names, keys, matchers: cheaper than a `memcpy` call); false
/// (and `out` unchanged) when a byte needs escaping.
#[inline]
fn write_short(out: &mut Vec<u8>, b: &[u8]) -> bool {
    let spare = &mut out.spare_capacity_mut()[..b.len() + 2];
    spare[0].write(b'"');
    for (slot, &c) in spare[1..].iter_mut().zip(b) {
        if STOP[c as usize] {
            return false;
        }
        slot.write(c);
    }
    spare[b.len() + 1].write(b'"');
    // SAFETY: the `b.len() + 2` bytes after the length were written just above.
    unsafe { out.set_len(out.len() + b.len() + 2) };
    true
}

/// Writes `x` (finite) as orjson does (`python = false`) or as Python's `repr` does.
///
/// The shortest round-trip digits (ryu; the same digits as Python's repr and
/// orjson) are laid out as each writes them: orjson writes plain
/// decimals for exponents -5..=15, repr for -4..=15, and repr pads the exponent
/// to two digits.
fn float_into(out: &mut Vec<u8>, x: f64, python: bool) {
    if x.fract() == 0.0 && x.abs() < 1e15 && !(x == 0.0 && x.is_sign_negative()) {
        // A whole number (every score 1.0 or 0.0): both write its digits and `.0`.
        write_int(out, x as i64);
        out.extend_from_slice(b".0");
        return;
    }
    let mut buffer = ryu::Buffer::new();
    let text = buffer.format_finite(x).as_bytes();
    if !python && !text.contains(&b'e') {
        // ryu writes a plain decimal exactly for decimal exponents -5..=15,
        // orjson's range, laid out as orjson does (`0.00001`, `12.5`, `3.0`).
        out.extend_from_slice(text);
        return;
    }
    let (mant, exp10) = match text.iter().position(|&c| c == b'e') {
        Some(at) => {
            let exp: i32 = std::str::from_utf8(&text[at + 1..])
                .unwrap()
                .parse()
                .unwrap();
            (&text[..at], exp)
        }
        None => (text, 0),
    };
    let (negative, mant) = match mant.first() {
        Some(b'-') => (true, &mant[1..]),
        _ => (false, mant),
    };
    let (int_part, frac) = match mant.iter().position(|&c| c == b'.') {
        Some(at) => (&mant[..at], &mant[at + 1..]),
        None => (mant, &b""[..]),
    };
    // ryu writes the shortest round-trip digits; only their layout is redone here.
    let mut digits = [0u8; 40];
    let mut n = 0;
    let mut exp = exp10;
    let int_digits = int_part.iter().skip_while(|&&c| c == b'0').count();
    if int_digits > 0 {
        exp += int_digits as i32 - 1;
        for &c in &int_part[int_part.len() - int_digits..] {
            digits[n] = c;
            n += 1;
        }
        for &c in frac {
            digits[n] = c;
            n += 1;
        }
    } else {
        let zeros = frac.iter().take_while(|&&c| c == b'0').count();
        exp -= zeros as i32 + 1;
        for &c in &frac[zeros..] {
            digits[n] = c;
            n += 1;
        }
    }
    while n > 1 && digits[n - 1] == b'0' {
        n -= 1;
    }
    if n == 0 {
        digits[0] = b'0';
        n = 1;
        exp = 0;
    }
    let digits = &digits[..n];
    if negative {
        out.push(b'-');
    }
    let sci = if python {
        !(-4..16).contains(&exp)
    } else {
        !(-5..16).contains(&exp)
    };
    if !sci {
        if exp >= 0 {
            let int_len = exp as usize + 1;
            if digits.len() <= int_len {
                out.extend_from_slice(digits);
                out.resize(out.len() + int_len - digits.len(), b'0');
                out.extend_from_slice(b".0");
            } else {
                out.extend_from_slice(&digits[..int_len]);
                out.push(b'.');
                out.extend_from_slice(&digits[int_len..]);
            }
        } else {
            out.extend_from_slice(b"0.");
            out.resize(out.len() + (-exp - 1) as usize, b'0');
            out.extend_from_slice(digits);
        }
        return;
    }
    out.push(digits[0]);
    if digits.len() > 1 {
        out.push(b'.');
        out.extend_from_slice(&digits[1..]);
    }
    out.push(b'e');
    out.push(if exp < 0 { b'-' } else { b'+' });
    if python && exp.abs() < 10 {
        out.push(b'0');
    }
    out.extend_from_slice(exp.unsigned_abs().to_string().as_bytes());
}

pub fn write_float(out: &mut Vec<u8>, x: f64) {
    float_into(out, x, false);
}

pub fn write_int(out: &mut Vec<u8>, v: i64) {
    if v < 0 {
        out.push(b'-');
    }
    write_uint(out, v.unsigned_abs());
}

pub fn write_uint(out: &mut Vec<u8>, mut v: u64) {
    if v < 10 {
        out.push(b'0' + v as u8); // indices and counts: mostly one digit
        return;
    }
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

pub fn write(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Int(i) => write_int(out, *i),
        Value::UInt(u) => write_uint(out, *u),
        Value::Float(f) => write_float(out, *f),
        Value::Str(s) => write_str(out, s),
        Value::Arr(items) => {
            out.push(b'[');
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    out.push(b',');
                }
                write(out, item);
            }
            out.push(b']');
        }
        Value::Obj(items) => write_obj(out, items),
    }
}

/// `a` and `b` write the same JSON bytes: the same kinds, float bits, strings, and
/// object keys in the same order (stricter than `deep_equal`, which takes any key order).
pub fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::UInt(x), Value::UInt(y)) => x == y,
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Arr(x), Value::Arr(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(e, a)| same_json(e, a))
        }
        (Value::Obj(x), Value::Obj(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((k, v), (l, w))| k == l && same_json(v, w))
        }
        _ => false,
    }
}

pub fn write_obj(out: &mut Vec<u8>, items: &[(Cow<'_, str>, Value<'_>)]) {
    out.push(b'{');
    for (n, (k, item)) in items.iter().enumerate() {
        if n > 0 {
            out.push(b',');
        }
        write_str(out, k);
        out.push(b':');
        write(out, item);
    }
    out.push(b'}');
}

// ---------------------------------------------------------------- Python repr

/// `repr(x)` of a float, as Python writes it.
pub fn py_float(x: f64) -> String {
    let mut out = Vec::new();
    float_into(&mut out, x, true);
    String::from_utf8(out).expect("ASCII")
}

/// Characters Python's `str.isprintable()` accepts, for the blocks where that
/// needs no Unicode table (every code point in them is an assigned letter or
/// symbol in Unicode 14, CPython 3.11's tables). Anything else is left to Python.
fn printable(c: char) -> Option<bool> {
    let u = c as u32;
    match u {
        0x20..=0x7e => Some(true),
        0..=0x1f | 0x7f..=0xa0 | 0xad => Some(false),
        0xa1..=0x24f | 0x4e00..=0x9fff | 0xac00..=0xd7a3 => Some(true),
        _ => None,
    }
}

/// `repr(s)` as Python writes it; `None` for text with a character whose
/// printability needs Unicode tables (left to Python).
pub fn py_str(s: &str, out: &mut String) -> Option<()> {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c => {
                if printable(c)? {
                    out.push(c);
                } else {
                    out.push_str(&format!("\\x{:02x}", c as u32));
                }
            }
        }
    }
    out.push(quote);
    Some(())
}

pub fn py_repr(v: &Value, out: &mut String) -> Option<()> {
    match v {
        Value::Null => out.push_str("None"),
        Value::Bool(true) => out.push_str("True"),
        Value::Bool(false) => out.push_str("False"),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::UInt(u) => out.push_str(&u.to_string()),
        Value::Float(f) => out.push_str(&py_float(*f)),
        Value::Str(s) => py_str(s, out)?,
        Value::Arr(items) => {
            out.push('[');
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    out.push_str(", ");
                }
                py_repr(item, out)?;
            }
            out.push(']');
        }
        Value::Obj(items) => {
            out.push('{');
            for (n, (k, item)) in items.iter().enumerate() {
                if n > 0 {
                    out.push_str(", ");
                }
                py_str(k, out)?;
                out.push_str(": ");
                py_repr(item, out)?;
            }
            out.push('}');
        }
    }
    Some(())
}

/// `reasons.short(value)`: the repr cut to 40 characters.
pub fn short(v: Option<&Value>) -> Option<String> {
    let mut text = String::new();
    match v {
        None => text.push_str("None"),
        Some(v) => py_repr(v, &mut text)?,
    }
    if text.len() > 40 && text.chars().count() > 40 {
        text = text.chars().take(37).collect();
        text.push_str("...");
    }
    Some(text)
}

/// `reasons.CAP_BYTES`: the most bytes of JSON a value keeps in a diagnosis.
pub const CAP_BYTES: usize = 1000;

/// `reasons.capped` of a value whose JSON is `json`, past the cap: the first
/// whole characters of the JSON and what was cut.
fn cut_text(json: &[u8]) -> String {
    let mut end = CAP_BYTES;
    while json[end] & 0xC0 == 0x80 {
        end -= 1;
    }
    let shown = String::from_utf8_lossy(&json[..end]);
    format!(
        "{shown}... [cut: {} bytes of JSON, first {end} shown]",
        json.len()
    )
}

/// Writes what `write_value` writes, or, past [`CAP_BYTES`], the string
/// `reasons.capped` gives in its place.
pub fn write_capped(out: &mut Vec<u8>, write_value: impl FnOnce(&mut Vec<u8>)) {
    let at = out.len();
    write_value(out);
    if out.len() - at > CAP_BYTES {
        let text = cut_text(&out[at..]);
        out.truncate(at);
        write_str(out, &text);
    }
}

/// `reasons.short` of the value as a diagnosis keeps it (`reasons.capped`).
pub fn short_capped(v: Option<&Value>) -> Option<String> {
    if let Some(v @ (Value::Str(_) | Value::Arr(_) | Value::Obj(_))) = v {
        let mut json = Vec::new();
        write(&mut json, v);
        if json.len() > CAP_BYTES {
            return short(Some(&Value::Str(Cow::Owned(cut_text(&json)))));
        }
    }
    short(v)
}
