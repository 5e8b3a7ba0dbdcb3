//! A whole JSONL stream scored in the kernel with one metric or several: blocks
//! read through Python's `read(n)`, each row parsed once and scored with every
//! metric the kernel takes (GIL released; on this thread, or on worker threads
//! while this one reads and writes), result lines written in input order (a
//! row's metrics in the order given). A metric the kernel does not take, and a
//! row it hands back, is scored by Python's fallback and written in its place.
//!
//! What this saves over feeding `score_block` from Python: no result `bytes`
//! objects per row (the 2-3 KB of diagnosis per row is written from the buffer
//! it was built in), no Python threads or queues, output buffers reused across
//! blocks, one parse of a row for every metric, and the GIL taken only to read,
//! to write a block and for fallbacks. With `tally`, the writer counts what
//! every result says (per metric: rows, passed, failed, unscored, score sum)
//! and keeps the first rows of each kind (failing, unscored, passing) for a
//! table, so nothing reads the result lines back.

use std::collections::BTreeMap;
use std::io::Write;
use std::mem::ManuallyDrop;
use std::os::fd::FromRawFd;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};

use crate::fields::Field;
use crate::json::{self, get, Value};
use crate::metrics::{Config, Metric, Shared, Sink, Want};
use crate::result::passed;

/// One result as the tally reads it: `(score, passed)`.
type Cell = (Option<f64>, Option<bool>);

/// A row of a block: its number, its line (range in the block), its results (range in out).
struct RowSpan {
    number: u64,
    line: (usize, usize),
    out: (usize, usize),
}

/// One block's results: the kernel's output, every row's span and cells
/// (`metrics` per row; a hole's cell is filled when Python has scored it), and
/// the holes left to Python as `(row index, offset in out, metric index)`.
struct Scored {
    block: Vec<u8>,
    out: Vec<u8>,
    rows: Vec<RowSpan>,
    cells: Vec<Cell>,
    holes: Vec<(usize, usize, usize)>,
}

/// A `Vec<u8>` sink that also notes the score and verdict it wrote: whole result
/// lines, or with `fields` the lines of those fields written straight from the scorer.
struct Noted<'a> {
    out: &'a mut Vec<u8>,
    fields: Option<&'a [Field]>,
    cell: Cell,
}

impl Sink for Noted<'_> {
    fn want(&self) -> Want {
        match self.fields {
            Some(fields) => crate::fields::want(fields),
            None => self.out.want(),
        }
    }

    fn put(
        &mut self,
        cfg: &Config,
        row: &crate::metrics::Row,
        score: Option<f64>,
        reason: &str,
        problems: u8,
        diagnosis: impl FnOnce(&mut Vec<u8>),
    ) {
        self.cell = (score, passed(cfg, score));
        match self.fields {
            Some(fields) => crate::fields::Projected {
                out: self.out,
                fields,
            }
            .put(cfg, row, score, reason, problems, diagnosis),
            None => self.out.put(cfg, row, score, reason, problems, diagnosis),
        }
    }
}

/// A row as the kernel read it: the call row and its texts (None: Python reads it).
type Read<'a> = Option<(crate::metrics::Row<'a>, crate::rows::RowTexts<'a>)>;

fn read(line: &[u8], number: u64) -> Read<'_> {
    json::parse(line).and_then(|value| crate::rows::read_row_texts(value, number))
}

/// Scores one metric of a read row into `sink`; false when Python must score it.
fn score_one<'a>(
    cfg: Option<&'a Config>,
    read: &'a Read<'a>,
    shared: &mut Shared<'a>,
    sink: &mut impl Sink,
) -> bool {
    match (cfg, read) {
        (Some(cfg), Some((row, texts))) => match &cfg.metric {
            Metric::Contains(contains) => {
                crate::output::score_output(cfg, contains, row, texts, sink).is_ok()
            }
            _ => texts.calls_given && crate::metrics::score_row(cfg, row, shared, sink).is_ok(),
        },
        _ => false,
    }
}

/// Scores one line with every metric into `out`; pushes a cell per metric and the holes.
fn score_row_all(
    cfgs: &[Option<&Config>],
    fields: Option<&[Field]>,
    line: &[u8],
    number: u64,
    row_index: usize,
    scored: &mut Scored,
) {
    let read = read(line, number);
    // the metrics of this row that compare alike compare each pair of calls once,
    // and what their diagnoses show alike is written once
    let mut shared = if cfgs.len() > 1 {
        Shared::remembering()
    } else {
        Shared::default()
    };
    for (index, &cfg) in cfgs.iter().enumerate() {
        let mark = scored.out.len();
        let mut sink = Noted {
            out: &mut scored.out,
            fields,
            cell: (None, None),
        };
        let done = score_one(cfg, &read, &mut shared, &mut sink);
        let cell = sink.cell;
        if done {
            scored.cells.push(cell);
        } else {
            scored.out.truncate(mark);
            scored.cells.push((None, None));
            scored.holes.push((row_index, mark, index));
        }
    }
}

/// Scores the whole lines of `block`, the first numbered `start`, into `out` (cleared first).
fn score_whole_block(
    cfgs: &[Option<&Config>],
    fields: Option<&[Field]>,
    block: Vec<u8>,
    start: u64,
    out: Vec<u8>,
) -> Scored {
    let mut scored = Scored {
        block: Vec::new(),
        out,
        rows: Vec::new(),
        cells: Vec::new(),
        holes: Vec::new(),
    };
    scored.out.clear();
    let per_line = if fields.is_some() { 1 } else { 3 };
    scored
        .out
        .reserve(block.len() * per_line * cfgs.len() + 1024);
    let mut number = start;
    let mut from = 0;
    for line in block.split_inclusive(|&c| c == b'\n') {
        let end = from + line.len();
        if !crate::blank(line) {
            let at = scored.out.len();
            let row_index = scored.rows.len();
            score_row_all(cfgs, fields, line, number, row_index, &mut scored);
            scored.rows.push(RowSpan {
                number,
                line: (from, end),
                out: (at, scored.out.len()),
            });
        }
        number += 1;
        from = end;
    }
    scored.block = block;
    scored
}

/// Where the results go: a file descriptor (Python owns it) or a Python `write(bytes)`.
pub enum Output<'py> {
    Fd(ManuallyDrop<std::fs::File>),
    Write(Bound<'py, PyAny>),
}

impl Output<'_> {
    /// The output descriptor as a `File` that is never closed here.
    pub fn fd(fd: i32) -> Self {
        // SAFETY: the caller passes an open descriptor it keeps open for the whole
        // call; ManuallyDrop keeps this `File` from closing it.
        Output::Fd(ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(fd) }))
    }

    fn write(&mut self, py: Python<'_>, data: &[u8]) -> PyResult<()> {
        if data.is_empty() {
            return Ok(());
        }
        match self {
            Output::Fd(file) => Ok(py.allow_threads(|| file.write_all(data))?),
            Output::Write(write) => {
                write.call1((PyBytes::new(py, data),))?;
                Ok(())
            }
        }
    }
}

/// How Python scores what the kernel leaves: one metric's `fallback(number, line)`
/// giving the result bytes, or several metrics' `fallback(number, line, indices)`
/// giving a list of result bytes, one per index given (the row read once).
pub enum Fallback<'py> {
    One(Bound<'py, PyAny>),
    Many(Bound<'py, PyAny>),
}

impl Fallback<'_> {
    fn call(
        &self,
        number: u64,
        line: &Bound<'_, PyBytes>,
        indices: &[usize],
    ) -> PyResult<Vec<Vec<u8>>> {
        match self {
            Fallback::One(f) => {
                let result = f.call1((number, line))?;
                Ok(vec![result.downcast::<PyBytes>()?.as_bytes().to_vec()])
            }
            Fallback::Many(f) => {
                let given = PyTuple::new(line.py(), indices)?;
                let results = f.call1((number, line, given))?;
                let mut out = Vec::with_capacity(indices.len());
                for item in results.try_iter()? {
                    out.push(item?.downcast::<PyBytes>()?.as_bytes().to_vec());
                }
                if out.len() != indices.len() {
                    return Err(pyo3::exceptions::PyValueError::new_err(
                        "the fallback gave another number of results than asked for",
                    ));
                }
                Ok(out)
            }
        }
    }
}

/// The counters of one metric: rows, passed, failed, unscored, the score sum (in row order).
#[derive(Default, Clone)]
struct Counts {
    rows: u64,
    passed: u64,
    failed: u64,
    unscored: u64,
    score_sum: f64,
}

/// What every result said, and the first `keep` rows of each kind for a table.
pub struct Tally {
    metrics: Vec<Counts>,
    statuses: [u64; 3],
    keep: usize,
    /// `(status, number, line, the row's result lines)`.
    kept: Vec<(usize, u64, Vec<u8>, Vec<u8>)>,
    /// With `record`: every row's cells, row after row (the scores, NaN when unscored;
    /// the verdicts, 0 failed, 1 passed, 2 none).
    record: bool,
    scores: Vec<f64>,
    verdicts: Vec<u8>,
}

const STATUS: [&str; 3] = ["failing", "unscored", "passing"];

impl Tally {
    pub fn new(metrics: usize, keep: usize, record: bool) -> Self {
        Tally {
            metrics: vec![Counts::default(); metrics],
            statuses: [0; 3],
            keep,
            kept: Vec::new(),
            record,
            scores: Vec::new(),
            verdicts: Vec::new(),
        }
    }

    /// Counts a row; `results` gives its whole result lines when the row is kept.
    fn add(
        &mut self,
        cells: &[Cell],
        number: u64,
        line: &[u8],
        results: impl FnOnce() -> PyResult<Vec<u8>>,
    ) -> PyResult<()> {
        if self.record {
            for &(score, ok) in cells {
                self.scores.push(score.unwrap_or(f64::NAN));
                self.verdicts.push(match ok {
                    Some(false) => 0,
                    Some(true) => 1,
                    None => 2,
                });
            }
        }
        for (counts, &(score, ok)) in self.metrics.iter_mut().zip(cells) {
            counts.rows += 1;
            match score {
                None => counts.unscored += 1,
                Some(s) => {
                    counts.score_sum += s;
                    if ok == Some(true) {
                        counts.passed += 1;
                    } else {
                        counts.failed += 1;
                    }
                }
            }
        }
        // `tooleval.cli._table.row_status`
        let status = if cells.iter().any(|&(s, ok)| s.is_some() && ok != Some(true)) {
            0
        } else if cells.iter().any(|&(s, _)| s.is_none()) {
            1
        } else {
            2
        };
        self.statuses[status] += 1;
        if self.statuses[status] as usize <= self.keep {
            self.kept.push((status, number, line.to_vec(), results()?));
        }
        Ok(())
    }

    /// `([(rows, passed, failed, unscored, score_sum)], {status: rows}, [(status, number, line, results)])`.
    pub fn into_py(self, py: Python<'_>) -> PyResult<Bound<'_, PyTuple>> {
        let metrics = PyList::empty(py);
        for c in &self.metrics {
            metrics.append((c.rows, c.passed, c.failed, c.unscored, c.score_sum))?;
        }
        let statuses = pyo3::types::PyDict::new(py);
        for (name, count) in STATUS.iter().zip(self.statuses) {
            statuses.set_item(name, count)?;
        }
        let kept = PyList::empty(py);
        for (status, number, line, results) in &self.kept {
            kept.append((
                STATUS[*status],
                *number,
                PyBytes::new(py, line),
                PyBytes::new(py, results),
            ))?;
        }
        let (scores, verdicts) = if self.record {
            let bytes: Vec<u8> = self.scores.iter().flat_map(|f| f.to_le_bytes()).collect();
            (
                PyBytes::new(py, &bytes).into_any(),
                PyBytes::new(py, &self.verdicts).into_any(),
            )
        } else {
            (py.None().into_bound(py), py.None().into_bound(py))
        };
        PyTuple::new(
            py,
            [
                metrics.into_any(),
                statuses.into_any(),
                kept.into_any(),
                scores,
                verdicts,
            ],
        )
    }
}

/// `(score, passed)` of a result line Python wrote (unscored when it says nothing readable).
fn cell_of(result: &[u8]) -> Cell {
    let Some(Value::Obj(fields)) = json::parse(result) else {
        return (None, None);
    };
    let score = match get(&fields, "score") {
        Some(Value::Float(f)) => Some(*f),
        Some(Value::Int(i)) => Some(*i as f64),
        Some(Value::UInt(u)) => Some(*u as f64),
        _ => None,
    };
    let ok = match get(&fields, "passed") {
        Some(Value::Bool(b)) => Some(*b),
        _ => None,
    };
    (score, ok)
}

/// The whole result lines of one row (a kept row of the table, when the lines
/// written were cut to `--fields`): `given` are Python's, by metric; the rest are
/// scored again, whole (by Python when only Python can write a whole line).
fn whole_results(
    py: Python<'_>,
    cfgs: &[Option<&Config>],
    fallback: &Fallback<'_>,
    number: u64,
    line: &[u8],
    given: &[(usize, &[u8])],
) -> PyResult<Vec<u8>> {
    let mut parts: Vec<Option<Vec<u8>>> = vec![None; cfgs.len()];
    for &(m, result) in given {
        parts[m] = Some(result.to_vec());
    }
    let read = read(line, number);
    let mut shared = Shared::default();
    for (m, &cfg) in cfgs.iter().enumerate() {
        if parts[m].is_none() {
            let mut out = Vec::new();
            if score_one(cfg, &read, &mut shared, &mut out) {
                parts[m] = Some(out);
            }
        }
    }
    let left: Vec<usize> = (0..cfgs.len()).filter(|&m| parts[m].is_none()).collect();
    if !left.is_empty() {
        let results = fallback.call(number, &PyBytes::new(py, line), &left)?;
        for (&m, result) in left.iter().zip(results) {
            parts[m] = Some(result);
        }
    }
    Ok(parts.into_iter().flatten().flatten().collect())
}

/// Writes one block's results in order, the holes scored by Python in their places
/// (cut to `fields` when given).
fn write_scored(py: Python<'_>, job: &mut Job<'_, '_>, scored: &mut Scored) -> PyResult<()> {
    let Job {
        cfgs,
        out,
        fallback,
        tally,
        fields,
        ..
    } = job;
    let metrics = cfgs.len();
    let fields = fields.as_deref();
    if tally.is_none() && scored.holes.is_empty() {
        return out.write(py, &scored.out);
    }
    let mut from = 0; // what of `scored.out` is written
    let mut holes = scored.holes.iter().peekable();
    for (index, row) in scored.rows.iter().enumerate() {
        let cells = &mut scored.cells[index * metrics..(index + 1) * metrics];
        let line = &scored.block[row.line.0..row.line.1];
        let mut mine: Vec<(usize, usize)> = Vec::new(); // (offset in out, metric)
        while let Some(&&(r, at, m)) = holes.peek() {
            if r != index {
                break;
            }
            mine.push((at, m));
            holes.next();
        }
        if mine.is_empty() {
            if let Some(tally) = tally.as_mut() {
                let results = &scored.out[row.out.0..row.out.1];
                tally.add(cells, row.number, line, || match fields {
                    None => Ok(results.to_vec()),
                    Some(_) => whole_results(py, cfgs, fallback, row.number, line, &[]),
                })?;
            }
            continue;
        }
        // Nothing of this row is written before Python has read it (a bad row raises).
        out.write(py, &scored.out[from..row.out.0])?;
        let indices: Vec<usize> = mine.iter().map(|&(_, m)| m).collect();
        let results = fallback.call(row.number, &PyBytes::new(py, line), &indices)?;
        let mut whole = Vec::new();
        let mut at_row = row.out.0;
        for (&(at, m), result) in mine.iter().zip(&results) {
            whole.extend_from_slice(&scored.out[at_row..at]);
            match fields {
                None => whole.extend_from_slice(result),
                Some(fields) => crate::fields::project_lines(result, fields, &mut whole)
                    .ok_or_else(|| {
                        pyo3::exceptions::PyValueError::new_err(
                            "--fields: a result line is not a JSON object",
                        )
                    })?,
            }
            cells[m] = cell_of(result);
            at_row = at;
        }
        whole.extend_from_slice(&scored.out[at_row..row.out.1]);
        out.write(py, &whole)?;
        from = row.out.1;
        if let Some(tally) = tally.as_mut() {
            tally.add(cells, row.number, line, || match fields {
                None => Ok(whole),
                Some(_) => {
                    let given: Vec<(usize, &[u8])> = indices
                        .iter()
                        .copied()
                        .zip(results.iter().map(Vec::as_slice))
                        .collect();
                    whole_results(py, cfgs, fallback, row.number, line, &given)
                }
            })?;
        }
    }
    out.write(py, &scored.out[from..])
}

/// Reads whole-line blocks from a Python `read(n)`: `(number of the first line, lines)`.
struct Blocks<'py> {
    read: Bound<'py, PyAny>,
    size: usize,
    rest: Vec<u8>,
    next_line: u64,
    done: bool,
}

impl Blocks<'_> {
    /// The next block (ending with a newline), or None at the end of the stream.
    fn next(&mut self, mut buffer: Vec<u8>) -> PyResult<Option<(u64, Vec<u8>)>> {
        buffer.clear();
        while !self.done {
            let chunk = self.read.call1((self.size,))?;
            let chunk = chunk.downcast::<PyBytes>()?.as_bytes();
            if chunk.is_empty() {
                self.done = true;
                break;
            }
            let Some(cut) = chunk.iter().rposition(|&c| c == b'\n') else {
                self.rest.extend_from_slice(chunk); // a line longer than a read
                continue;
            };
            buffer.extend_from_slice(&self.rest);
            buffer.extend_from_slice(&chunk[..=cut]);
            self.rest.clear();
            self.rest.extend_from_slice(&chunk[cut + 1..]);
            return Ok(Some(self.numbered(buffer)));
        }
        if self.rest.is_empty() {
            return Ok(None);
        }
        buffer.append(&mut self.rest);
        buffer.push(b'\n'); // the last line without its newline
        Ok(Some(self.numbered(buffer)))
    }

    fn numbered(&mut self, block: Vec<u8>) -> (u64, Vec<u8>) {
        let start = self.next_line;
        self.next_line += block.iter().filter(|&&c| c == b'\n').count() as u64;
        (start, block)
    }
}

/// Buffers handed back by the writer for the next blocks to reuse.
type Pool = Arc<Mutex<Vec<Vec<u8>>>>;

fn take(pool: &Pool) -> Vec<u8> {
    pool.lock()
        .map(|mut p| p.pop())
        .ok()
        .flatten()
        .unwrap_or_default()
}

fn give(pool: &Pool, mut buffer: Vec<u8>) {
    buffer.clear();
    if let Ok(mut p) = pool.lock() {
        p.push(buffer);
    }
}

/// What a stream is scored with and where its results go.
pub struct Job<'a, 'py> {
    pub cfgs: Vec<Option<&'a Config>>,
    pub read: Bound<'py, PyAny>,
    pub out: Output<'py>,
    pub fallback: Fallback<'py>,
    pub progress: Option<Bound<'py, PyAny>>,
    pub tally: Option<Tally>,
    /// `--fields`: each result line written with only these fields.
    pub fields: Option<Vec<Field>>,
}

/// `Kernel.score_stream` / `Kernel.score_streams`: see lib.rs. Returns the number
/// of rows (non-blank lines) and the tally, when one was asked for.
pub fn score_stream(
    py: Python<'_>,
    mut job: Job<'_, '_>,
    threads: usize,
    block: usize,
) -> PyResult<(u64, Option<Tally>)> {
    let cfgs = job.cfgs.clone();
    let fields = job.fields.clone();
    let fields = fields.as_deref();
    let mut blocks = Blocks {
        read: job.read.clone(),
        size: block.max(1),
        rest: Vec::new(),
        next_line: 1,
        done: false,
    };
    let mut rows = 0;
    let finish = |scored: &mut Scored, rows: &mut u64, job: &mut Job<'_, '_>| -> PyResult<()> {
        write_scored(py, job, scored)?;
        *rows += scored.rows.len() as u64;
        if let Some(progress) = &job.progress {
            progress.call1((*rows,))?;
        }
        Ok(())
    };
    if threads <= 1 {
        // One thread does it all: no hand-offs, and the same buffers every block.
        let (mut spare_block, mut spare_out) = (Vec::new(), Vec::new());
        while let Some((start, data)) = blocks.next(std::mem::take(&mut spare_block))? {
            let out = std::mem::take(&mut spare_out);
            let mut scored =
                py.allow_threads(|| score_whole_block(&cfgs, fields, data, start, out));
            finish(&mut scored, &mut rows, &mut job)?;
            (spare_block, spare_out) = (scored.block, scored.out);
        }
        return Ok((rows, job.tally));
    }
    let threads = threads.min(64);
    let pool: Pool = Arc::new(Mutex::new(Vec::new()));
    let (job_tx, job_rx) = mpsc::channel::<(u64, u64, Vec<u8>)>();
    let job_rx = Arc::new(Mutex::new(job_rx));
    let (done_tx, done_rx) = mpsc::channel::<(u64, Scored)>();
    let done_rx = Mutex::new(done_rx); // waited on with the GIL released
    let result = std::thread::scope(|scope| -> PyResult<u64> {
        for _ in 0..threads {
            let (jobs, done, pool) = (Arc::clone(&job_rx), done_tx.clone(), Arc::clone(&pool));
            let cfgs = &cfgs;
            scope.spawn(move || loop {
                let job = jobs.lock().ok().and_then(|rx| rx.recv().ok());
                let Some((seq, start, data)) = job else { break };
                let scored = score_whole_block(cfgs, fields, data, start, take(&pool));
                if done.send((seq, scored)).is_err() {
                    break;
                }
            });
        }
        drop(done_tx);
        // At most `threads + 1` blocks in flight; results written in input order.
        let result = (|| -> PyResult<u64> {
            let (mut sent, mut written) = (0u64, 0u64);
            let mut ready: BTreeMap<u64, Scored> = BTreeMap::new();
            let mut more = true;
            loop {
                while more && sent - written <= threads as u64 {
                    match blocks.next(take(&pool))? {
                        Some((start, data)) => {
                            // the workers outlive this loop: a send cannot fail
                            let _ = job_tx.send((sent, start, data));
                            sent += 1;
                        }
                        None => more = false,
                    }
                }
                if written == sent {
                    return Ok(rows);
                }
                while !ready.contains_key(&written) {
                    let (seq, scored) = py
                        .allow_threads(|| done_rx.lock().ok().and_then(|rx| rx.recv().ok()))
                        .expect("a kernel scoring thread stopped");
                    ready.insert(seq, scored);
                }
                let mut scored = ready.remove(&written).expect("present");
                finish(&mut scored, &mut rows, &mut job)?;
                written += 1;
                give(&pool, scored.block);
                give(&pool, scored.out);
            }
        })();
        drop(job_tx); // the workers stop after the blocks they hold (also on an error)
        result
    })?;
    Ok((result, job.tally))
}
