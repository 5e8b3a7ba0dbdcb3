//! OTLP trace requests read from the protobuf wire format, for the OTLP receiver.
//!
//! `otlp_trace_spans(body, span_class, line)` walks an `ExportTraceServiceRequest`
//! (varints, fixed64, length-delimited fields: the whole wire format the OTLP
//! trace messages use) and calls `span_class` (`tooleval.traces.otlp.OtlpSpan`)
//! once per span with what `tooleval.traces.protobuf.spans_from_message` reads
//! from upb: hex ids, the name, times, attributes as a dict, the status name and
//! message, events, a copy of the resource's attributes and `line`.
//!
//! It answers only for a body it reads completely and exactly as upb would: every
//! field one the OTLP schema declares with its wire type, every string valid
//! UTF-8, ids of the right size, keys present, no singular message sent twice
//! (upb would merge them), nesting of values at most `MAX_DEPTH`. Anything else
//! (a cut body, an unknown field, a bad id or attribute, no `resource_spans`)
//! returns `None` and the Python walker over upb reads the body, with its own
//! errors and problems: the outputs of the two are identical
//! (tests/monitor/test_otlp_kernel.py).

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyList, PyString, PyTuple};
use std::collections::HashMap;

/// Nesting of array / kvlist values the kernel reads (upb refuses far deeper bodies
/// than any exporter writes; past this the Python walker decides).
const MAX_DEPTH: usize = 32;

enum Wire<'a> {
    Varint(u64),
    Fixed64(u64),
    Bytes(&'a [u8]),
    Fixed32,
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    fn more(&self) -> bool {
        self.pos < self.buf.len()
    }

    fn varint(&mut self) -> Option<u64> {
        let mut value: u64 = 0;
        for index in 0..10 {
            let byte = *self.buf.get(self.pos)?;
            self.pos += 1;
            value |= u64::from(byte & 0x7f) << (7 * index);
            if byte < 0x80 {
                return Some(value);
            }
        }
        None
    }

    fn take(&mut self, size: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(size)?;
        let out = self.buf.get(self.pos..end)?;
        self.pos = end;
        Some(out)
    }

    /// The next field's number and value; None for a malformed field or a group.
    fn field(&mut self) -> Option<(u64, Wire<'a>)> {
        let key = self.varint()?;
        let number = key >> 3;
        if number == 0 || number > (1 << 29) - 1 {
            return None;
        }
        let wire = match key & 7 {
            0 => Wire::Varint(self.varint()?),
            1 => Wire::Fixed64(u64::from_le_bytes(self.take(8)?.try_into().ok()?)),
            2 => {
                let size = usize::try_from(self.varint()?).ok()?;
                Wire::Bytes(self.take(size)?)
            }
            5 => {
                self.take(4)?;
                Wire::Fixed32
            }
            _ => return None,
        };
        Some((number, wire))
    }
}

/// `Ok(None)` from the enclosing function when the body is not one the kernel reads.
macro_rules! need {
    ($e:expr) => {
        match $e {
            Some(value) => value,
            None => return Ok(None),
        }
    };
}

fn text(raw: &[u8]) -> Option<&str> {
    std::str::from_utf8(raw).ok()
}

const HEX: &[u8; 16] = b"0123456789abcdef";

fn hex(raw: &[u8]) -> String {
    let mut out = String::with_capacity(raw.len() * 2);
    for byte in raw {
        out.push(HEX[usize::from(byte >> 4)] as char);
        out.push(HEX[usize::from(byte & 15)] as char);
    }
    out
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64(raw: &[u8]) -> String {
    let mut out = String::with_capacity(raw.len().div_ceil(3) * 4);
    for chunk in raw.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (index, shift) in [18u32, 12, 6, 0].into_iter().enumerate() {
            if index <= chunk.len() {
                out.push(BASE64[((n >> shift) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// `Span.Link` and `InstrumentationScope`, for `Walker::check`.
const LINK: &[(u64, u8)] = &[
    (1, b'b'),
    (2, b'b'),
    (3, b's'),
    (4, b'a'),
    (5, b'v'),
    (6, b'f'),
];
const SCOPE: &[(u64, u8)] = &[(1, b's'), (2, b's'), (3, b'a'), (4, b'v')];

type Out<'py, T> = PyResult<Option<T>>;

struct Walker<'py, 'a> {
    py: Python<'py>,
    keys: HashMap<&'a [u8], Bound<'py, PyString>>,
    depth: usize,
}

impl<'py, 'a> Walker<'py, 'a> {
    fn key(&mut self, raw: &'a [u8]) -> Option<Bound<'py, PyString>> {
        if let Some(found) = self.keys.get(raw) {
            return Some(found.clone());
        }
        let made = PyString::new(self.py, text(raw)?);
        self.keys.insert(raw, made.clone());
        Some(made)
    }

    /// One `KeyValue` into `into` (a later equal key replaces the value, as a dict does).
    fn key_value(&mut self, buf: &'a [u8], into: &Bound<'py, PyDict>) -> Out<'py, ()> {
        let mut reader = Reader::new(buf);
        let (mut key, mut value): (&[u8], Option<&[u8]>) = (b"", None);
        while reader.more() {
            match need!(reader.field()) {
                (1, Wire::Bytes(raw)) => key = raw,
                (2, Wire::Bytes(raw)) if value.is_none() => value = Some(raw),
                _ => return Ok(None),
            }
        }
        if key.is_empty() {
            return Ok(None); // the Python walker names the attribute with no key
        }
        let key = need!(self.key(key));
        let value = match value {
            Some(raw) => need!(self.any_value(raw)?),
            None => self.py.None().into_bound(self.py),
        };
        into.set_item(key, value)?;
        Ok(Some(()))
    }

    fn any_value(&mut self, buf: &'a [u8]) -> Out<'py, Bound<'py, PyAny>> {
        let py = self.py;
        let mut reader = Reader::new(buf);
        let mut value = None;
        while reader.more() {
            if value.is_some() {
                return Ok(None); // two values in one AnyValue: upb's oneof rules decide
            }
            value = Some(match need!(reader.field()) {
                (1, Wire::Bytes(raw)) => PyString::new(py, need!(text(raw))).into_any(),
                (2, Wire::Varint(v)) => PyBool::new(py, v != 0).to_owned().into_any(),
                (3, Wire::Varint(v)) => (v as i64).into_pyobject(py)?.into_any(),
                (4, Wire::Fixed64(v)) => PyFloat::new(py, f64::from_bits(v)).into_any(),
                (5, Wire::Bytes(raw)) => need!(self.nested(raw, false)?),
                (6, Wire::Bytes(raw)) => need!(self.nested(raw, true)?),
                (7, Wire::Bytes(raw)) => PyString::new(py, &base64(raw)).into_any(),
                _ => return Ok(None),
            });
        }
        Ok(Some(value.unwrap_or_else(|| py.None().into_bound(py))))
    }

    /// An `ArrayValue` (a list) or a `KeyValueList` (a dict).
    fn nested(&mut self, buf: &'a [u8], kvlist: bool) -> Out<'py, Bound<'py, PyAny>> {
        if self.depth >= MAX_DEPTH {
            return Ok(None);
        }
        self.depth += 1;
        let mut reader = Reader::new(buf);
        let dict = PyDict::new(self.py);
        let list = PyList::empty(self.py);
        while reader.more() {
            let Some((1, Wire::Bytes(raw))) = reader.field() else {
                return Ok(None);
            };
            if kvlist {
                need!(self.key_value(raw, &dict)?);
            } else {
                list.append(need!(self.any_value(raw)?))?;
            }
        }
        self.depth -= 1;
        Ok(Some(if kvlist {
            dict.into_any()
        } else {
            list.into_any()
        }))
    }

    /// A message read only to check it as upb would (an instrumentation scope, a link):
    /// `layout` gives each field's number and kind (`b` bytes, `s` string, `a` a
    /// KeyValue of its attribute list, `v` varint, `f` fixed32); any other field or
    /// wire type is left to upb.
    fn check(&mut self, buf: &'a [u8], layout: &[(u64, u8)]) -> Out<'py, ()> {
        let mut reader = Reader::new(buf);
        let scratch = PyDict::new(self.py);
        while reader.more() {
            let (number, wire) = need!(reader.field());
            let kind = need!(layout.iter().find(|(n, _)| *n == number)).1;
            match (kind, wire) {
                (b'a', Wire::Bytes(raw)) => need!(self.key_value(raw, &scratch)?),
                (b's', Wire::Bytes(raw)) => {
                    need!(text(raw));
                }
                (b'b', Wire::Bytes(_)) | (b'v', Wire::Varint(_)) | (b'f', Wire::Fixed32) => {}
                _ => return Ok(None),
            }
        }
        Ok(Some(()))
    }

    fn event(&mut self, buf: &'a [u8]) -> Out<'py, Bound<'py, PyAny>> {
        let mut reader = Reader::new(buf);
        let attributes = PyDict::new(self.py);
        let mut name = "";
        while reader.more() {
            match need!(reader.field()) {
                (1, Wire::Fixed64(_)) | (4, Wire::Varint(_)) => {}
                (2, Wire::Bytes(raw)) => name = need!(text(raw)),
                (3, Wire::Bytes(raw)) => need!(self.key_value(raw, &attributes)?),
                _ => return Ok(None),
            }
        }
        let name = PyString::new(self.py, name).into_any();
        Ok(Some(
            PyTuple::new(self.py, [name, attributes.into_any()])?.into_any(),
        ))
    }

    fn span(
        &mut self,
        buf: &'a [u8],
        resource: &Bound<'py, PyDict>,
        make: &Bound<'py, PyAny>,
        line: &Bound<'py, PyAny>,
    ) -> Out<'py, Bound<'py, PyAny>> {
        let py = self.py;
        let mut reader = Reader::new(buf);
        let (mut trace, mut span, mut parent): (&[u8], &[u8], &[u8]) = (b"", b"", b"");
        let (mut name, mut start, mut end) = ("", 0u64, 0u64);
        let attributes = PyDict::new(py);
        let events = PyList::empty(py);
        let mut status: Option<(i32, &str)> = None;
        while reader.more() {
            match need!(reader.field()) {
                (1, Wire::Bytes(raw)) => trace = raw,
                (2, Wire::Bytes(raw)) => span = raw,
                (3, Wire::Bytes(raw)) => {
                    need!(text(raw));
                }
                (4, Wire::Bytes(raw)) => parent = raw,
                (5, Wire::Bytes(raw)) => name = need!(text(raw)),
                (6 | 10 | 12 | 14, Wire::Varint(_)) | (16, Wire::Fixed32) => {}
                (7, Wire::Fixed64(v)) => start = v,
                (8, Wire::Fixed64(v)) => end = v,
                (9, Wire::Bytes(raw)) => need!(self.key_value(raw, &attributes)?),
                (11, Wire::Bytes(raw)) => events.append(need!(self.event(raw)?))?,
                (13, Wire::Bytes(raw)) => need!(self.check(raw, LINK)?),
                (15, Wire::Bytes(raw)) if status.is_none() => {
                    status = Some(need!(self.status(raw)))
                }
                _ => return Ok(None),
            }
        }
        if trace.len() != 16 || span.len() != 8 || !(parent.is_empty() || parent.len() == 8) {
            return Ok(None); // the Python walker skips the span and says why
        }
        let (code, message) = status.unwrap_or((0, ""));
        let status_name = match code {
            1 => pyo3::intern!(py, "OK"),
            2 => pyo3::intern!(py, "ERROR"),
            _ => pyo3::intern!(py, "UNSET"),
        };
        let none = || py.None().into_bound(py);
        let time = |v: u64| -> PyResult<Bound<'py, PyAny>> {
            Ok(if v == 0 {
                none()
            } else {
                v.into_pyobject(py)?.into_any()
            })
        };
        let args: [Bound<'py, PyAny>; 12] = [
            PyString::new(py, &hex(trace)).into_any(),
            PyString::new(py, &hex(span)).into_any(),
            PyString::new(py, name).into_any(),
            if parent.is_empty() {
                none()
            } else {
                PyString::new(py, &hex(parent)).into_any()
            },
            time(start)?,
            time(end)?,
            attributes.into_any(),
            status_name.clone().into_any(),
            if message.is_empty() {
                none()
            } else {
                PyString::new(py, message).into_any()
            },
            events.into_any(),
            resource.copy()?.into_any(),
            line.clone(),
        ];
        Ok(Some(make.call1(PyTuple::new(py, args)?)?))
    }

    fn status(&mut self, buf: &'a [u8]) -> Option<(i32, &'a str)> {
        let mut reader = Reader::new(buf);
        let (mut code, mut message) = (0i32, "");
        while reader.more() {
            match reader.field()? {
                (2, Wire::Bytes(raw)) => message = text(raw)?,
                // an enum is an int32 on the wire: upb keeps the low 32 bits
                (3, Wire::Varint(v)) => code = v as u32 as i32,
                _ => return None,
            }
        }
        Some((code, message))
    }

    fn resource(&mut self, buf: &'a [u8]) -> Out<'py, Bound<'py, PyDict>> {
        let mut reader = Reader::new(buf);
        let attributes = PyDict::new(self.py);
        while reader.more() {
            match need!(reader.field()) {
                (1, Wire::Bytes(raw)) => need!(self.key_value(raw, &attributes)?),
                (2, Wire::Varint(_)) => {}
                _ => return Ok(None), // entity references and the unknown: upb reads them
            }
        }
        Ok(Some(attributes))
    }

    fn resource_spans(
        &mut self,
        buf: &'a [u8],
        make: &Bound<'py, PyAny>,
        line: &Bound<'py, PyAny>,
        out: &Bound<'py, PyList>,
    ) -> Out<'py, ()> {
        // The resource first, wherever it is on the wire: every span carries it.
        let mut resource = None;
        let mut scopes = Vec::new();
        let mut reader = Reader::new(buf);
        while reader.more() {
            match need!(reader.field()) {
                (1, Wire::Bytes(raw)) if resource.is_none() => resource = Some(raw),
                (2, Wire::Bytes(raw)) => scopes.push(raw),
                (3, Wire::Bytes(raw)) => {
                    need!(text(raw));
                }
                _ => return Ok(None),
            }
        }
        let resource = match resource {
            Some(raw) => need!(self.resource(raw)?),
            None => PyDict::new(self.py),
        };
        for scope in scopes {
            let mut reader = Reader::new(scope);
            while reader.more() {
                match need!(reader.field()) {
                    (1, Wire::Bytes(raw)) => need!(self.check(raw, SCOPE)?),
                    (2, Wire::Bytes(raw)) => {
                        out.append(need!(self.span(raw, &resource, make, line)?))?
                    }
                    (3, Wire::Bytes(raw)) => {
                        need!(text(raw));
                    }
                    _ => return Ok(None),
                }
            }
        }
        Ok(Some(()))
    }
}

/// `_kernel.otlp_trace_spans(body, span_class, line)`: the spans of a protobuf
/// `ExportTraceServiceRequest`, each made by `span_class(trace_id, span_id, name,
/// parent_span_id, start_ns, end_ns, attributes, status, status_message, events,
/// resource, line)`; `None` when the Python walker must read the body (see the
/// module comment).
#[pyfunction]
pub fn otlp_trace_spans<'py>(
    py: Python<'py>,
    body: &[u8],
    span_class: &Bound<'py, PyAny>,
    line: &Bound<'py, PyAny>,
) -> PyResult<Option<Bound<'py, PyList>>> {
    let out = PyList::empty(py);
    let mut walker = Walker {
        py,
        keys: HashMap::new(),
        depth: 0,
    };
    let mut reader = Reader::new(body);
    let mut any = false;
    while reader.more() {
        match need!(reader.field()) {
            (1, Wire::Bytes(raw)) => {
                any = true;
                need!(walker.resource_spans(raw, span_class, line, &out)?);
            }
            _ => return Ok(None),
        }
    }
    Ok(if any { Some(out) } else { None })
}
