//! What this kernel accepts, reported to Python (`_kernel.PROTOCOL`, `_kernel.accepts()`).
//!
//! The one statement of the metrics, options and matchers the kernel scores:
//! `build` checks a config against it, and `tooleval.metrics.engine` reads it
//! (instead of restating it) to decide what it may hand to the kernel. A
//! declaration in Python that disagrees with it fails a test.

/// The version of the config `Kernel` takes and of what `accepts()` describes;
/// the engine leaves scoring to Python for a kernel of another version.
pub const PROTOCOL: u32 = 5;

const ORDER: &[&str] = &["strict", "flexible"];
const EMPTY: &[&str] = &["perfect", "zero", "unscored"];
const EXTRA_KEYS: &[&str] = &["mismatch", "ignore"];

/// One option of a metric: its name and the values taken (`None`: any value of the
/// kind the config parser reads: a flag, a number, a key list, the matcher config).
pub type Option_ = (&'static str, Option<&'static [&'static str]>);

/// Every metric the kernel scores, with the options of its config in the order
/// Python declares them.
pub const METRICS: &[(&str, &[Option_])] = &[
    (
        "tool_call_accuracy",
        &[
            ("order", Some(ORDER)),
            ("args", None),
            ("empty", Some(EMPTY)),
            ("threshold", None),
        ],
    ),
    (
        "tool_call_f1",
        &[
            ("args", None),
            ("empty", Some(EMPTY)),
            ("extra_keys", Some(EXTRA_KEYS)),
            ("threshold", None),
        ],
    ),
    (
        "tool_correctness",
        &[
            ("argument_keys", None),
            ("exact_match", None),
            ("order", Some(ORDER)),
            ("extra_calls", Some(&["penalize", "ignore"])),
            ("extra_keys", Some(EXTRA_KEYS)),
            ("args", None),
            ("empty", Some(EMPTY)),
            ("threshold", None),
        ],
    ),
    (
        "trajectory_match",
        &[
            ("order", Some(ORDER)),
            ("coverage", Some(&["exact", "subset", "superset"])),
            ("args", None),
            ("empty", Some(EMPTY)),
            ("threshold", None),
        ],
    ),
    (
        "output_contains",
        &[
            ("values", None),
            ("require", Some(&["all", "any"])),
            ("case_sensitive", None),
            // every agent message: Python reads the conversation
            ("messages", Some(&["final"])),
            ("threshold", None),
        ],
    ),
];

/// Every built-in matcher the kernel implements: the name its spec gives
/// (`Matcher.spec()` in tooleval.matching) and the options that spec may hold.
pub const MATCHERS: &[(&str, &[&str])] = &[
    ("exact", &[]),
    ("ignore", &[]),
    ("normalized", &["case_sensitive", "numeric_text"]),
    ("numeric", &["abs_tol", "rel_tol", "int_float_equal"]),
    ("similarity", &["method", "min_score", "case_sensitive"]),
    ("any_of", &["values", "optional"]),
    ("unordered", &["matcher", "recursive"]),
    ("numeric_text", &["matcher"]),
];

/// The options a matcher's spec may hold, or None when the kernel lacks the matcher.
pub fn matcher_options(name: &str) -> Option<&'static [&'static str]> {
    MATCHERS
        .iter()
        .find(|(kind, _)| *kind == name)
        .map(|(_, options)| *options)
}

/// The similarity methods the kernel computes.
pub const SIMILARITY_METHODS: &[&str] = &["levenshtein", "jaro_winkler"];

/// The options of `metric`, or None when the kernel does not score it.
pub fn options(metric: &str) -> Option<&'static [Option_]> {
    METRICS
        .iter()
        .find(|(name, _)| *name == metric)
        .map(|(_, options)| *options)
}

fn strings(out: &mut String, items: &[&str]) {
    out.push('[');
    for (k, item) in items.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        out.push('"');
        out.push_str(item); // plain ASCII names: nothing to escape
        out.push('"');
    }
    out.push(']');
}

/// `{"protocol": N, "metrics": {name: {option: [values] | null}}, "matchers":
/// {name: [spec options]}, "similarity_methods": [...]}` as JSON text.
pub fn accepts_json() -> String {
    let mut out = format!("{{\"protocol\":{PROTOCOL},\"metrics\":{{");
    for (k, (name, options)) in METRICS.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        out.push_str(&format!("\"{name}\":{{"));
        for (j, (option, values)) in options.iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            out.push_str(&format!("\"{option}\":"));
            match values {
                Some(values) => strings(&mut out, values),
                None => out.push_str("null"),
            }
        }
        out.push('}');
    }
    out.push_str("},\"matchers\":{");
    for (k, (name, fields)) in MATCHERS.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        out.push_str(&format!("\"{name}\":"));
        strings(&mut out, fields);
    }
    out.push_str("},\"similarity_methods\":");
    strings(&mut out, SIMILARITY_METHODS);
    out.push('}');
    out
}
