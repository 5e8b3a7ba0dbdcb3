//! A whole JSONL stream scored in the kernel: blocks read through Python's
//! `read(n)`, scored with the GIL released (on this thread, or on worker
//! threads while this one reads and writes), results written straight to the
//! output file descriptor in input order. Rows the kernel hands back are
//! scored by Python's `fallback(number, line)` and written in their place.
//!
//! What this saves over feeding `score_block` from Python: no result `bytes`
//! objects (the 2-3 KB of diagnosis per row is written from the buffer it was
//! built in), no Python threads or queues, output buffers reused across blocks
//! (no fresh pages per block), and the GIL taken only to read and for fallbacks.

use std::collections::BTreeMap;
use std::io::Write;
use std::mem::ManuallyDrop;
use std::os::fd::FromRawFd;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::metrics::Config;

/// One block's results: the kernel's output, and the rows left to Python as
/// `(offset in out where the row's result goes, line number, range in block)`.
struct Scored {
    block: Vec<u8>,
    out: Vec<u8>,
    fallback: Vec<(usize, u64, usize, usize)>,
    rows: u64,
}

/// Scores the whole lines of `block`, the first numbered `start`, into `out` (cleared first).
fn score_whole_block(cfg: &Config, block: Vec<u8>, start: u64, mut out: Vec<u8>) -> Scored {
    out.clear();
    out.reserve(block.len() * 3 + 1024);
    let mut fallback = Vec::new();
    let mut rows = 0;
    let mut number = start;
    let mut from = 0;
    for line in block.split_inclusive(|&c| c == b'\n') {
        let end = from + line.len();
        if !crate::blank(line) {
            rows += 1;
            if !crate::score_into(cfg, line, number, &mut out) {
                fallback.push((out.len(), number, from, end));
            }
        }
        number += 1;
        from = end;
    }
    Scored {
        block,
        out,
        fallback,
        rows,
    }
}

/// The output descriptor as a `File` that is never closed here (Python owns it).
fn output(fd: i32) -> ManuallyDrop<std::fs::File> {
    // SAFETY: the caller passes an open descriptor it keeps open for the whole
    // call; ManuallyDrop keeps this `File` from closing it.
    ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(fd) })
}

/// Writes one block's results in order, the fallback rows scored by Python in their places.
fn write_scored(
    py: Python<'_>,
    file: &mut std::fs::File,
    scored: &Scored,
    fallback: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let mut from = 0;
    for &(at, number, start, end) in &scored.fallback {
        if at > from {
            let part = &scored.out[from..at];
            py.allow_threads(|| file.write_all(part))?;
        }
        from = at;
        let line = PyBytes::new(py, &scored.block[start..end]);
        let result = fallback.call1((number, line))?;
        let bytes = result.downcast::<PyBytes>()?;
        file.write_all(bytes.as_bytes())?;
    }
    if scored.out.len() > from {
        let part = &scored.out[from..];
        py.allow_threads(|| file.write_all(part))?;
    }
    Ok(())
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

/// `Kernel.score_stream`: see lib.rs. Returns the number of rows (non-blank lines).
pub fn score_stream(
    py: Python<'_>,
    cfg: &Config,
    read: &Bound<'_, PyAny>,
    fd: i32,
    fallback: &Bound<'_, PyAny>,
    threads: usize,
    block: usize,
) -> PyResult<u64> {
    let mut file = output(fd);
    let mut blocks = Blocks {
        read: read.clone(),
        size: block.max(1),
        rest: Vec::new(),
        next_line: 1,
        done: false,
    };
    let mut rows = 0;
    if threads <= 1 {
        // One thread does it all: no hand-offs, and the same buffers every block.
        let (mut spare_block, mut spare_out) = (Vec::new(), Vec::new());
        while let Some((start, data)) = blocks.next(std::mem::take(&mut spare_block))? {
            let out = std::mem::take(&mut spare_out);
            let scored = py.allow_threads(|| score_whole_block(cfg, data, start, out));
            write_scored(py, &mut file, &scored, fallback)?;
            rows += scored.rows;
            (spare_block, spare_out) = (scored.block, scored.out);
        }
        return Ok(rows);
    }
    let threads = threads.min(64);
    let pool: Pool = Arc::new(Mutex::new(Vec::new()));
    let (job_tx, job_rx) = mpsc::channel::<(u64, u64, Vec<u8>)>();
    let job_rx = Arc::new(Mutex::new(job_rx));
    let (done_tx, done_rx) = mpsc::channel::<(u64, Scored)>();
    let done_rx = Mutex::new(done_rx); // waited on with the GIL released
    std::thread::scope(|scope| -> PyResult<u64> {
        for _ in 0..threads {
            let (jobs, done, pool) = (Arc::clone(&job_rx), done_tx.clone(), Arc::clone(&pool));
            scope.spawn(move || loop {
                let job = jobs.lock().ok().and_then(|rx| rx.recv().ok());
                let Some((seq, start, data)) = job else { break };
                let scored = score_whole_block(cfg, data, start, take(&pool));
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
                let scored = ready.remove(&written).expect("present");
                write_scored(py, &mut file, &scored, fallback)?;
                rows += scored.rows;
                written += 1;
                give(&pool, scored.block);
                give(&pool, scored.out);
            }
        })();
        drop(job_tx); // the workers stop after the blocks they hold (also on an error)
        result
    })
}
