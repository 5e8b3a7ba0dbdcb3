//! rapidfuzz's `Levenshtein.normalized_similarity` and `JaroWinkler.similarity`
//! (prefix weight 0.1, no cutoff) over Unicode code points, with rapidfuzz's
//! operations in rapidfuzz's order so the floats are the same bits.

/// Uniform-weight edit distance (insert, delete, replace all cost 1).
fn levenshtein_distance(a: &[char], b: &[char]) -> usize {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[prefix..], &b[prefix..]);
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a, b) = (&a[..a.len() - suffix], &b[..b.len() - suffix]);
    if a.is_empty() || b.is_empty() {
        return a.len().max(b.len());
    }
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, x) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, y) in b.iter().enumerate() {
            let above = row[j + 1];
            let replace = diagonal + usize::from(x != y);
            row[j + 1] = replace.min(above + 1).min(row[j] + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

/// `Levenshtein.normalized_similarity(a, b)`: `1.0 - dist / max(len)` (1.0 for two empty strings).
pub fn levenshtein(a: &[char], b: &[char]) -> f64 {
    let maximum = a.len().max(b.len());
    let dist = levenshtein_distance(a, b);
    let norm_dist = if maximum != 0 {
        dist as f64 / maximum as f64
    } else {
        0.0
    };
    1.0 - norm_dist
}

fn jaro_from_counts(p_len: usize, t_len: usize, common: usize, transpositions: usize) -> f64 {
    let transpositions = transpositions / 2;
    let mut sim = 0.0;
    sim += common as f64 / p_len as f64;
    sim += common as f64 / t_len as f64;
    sim += (common as f64 - transpositions as f64) / common as f64;
    sim / 3.0
}

/// `Jaro.similarity(s1, s2)` without a cutoff.
fn jaro(s1: &[char], s2: &[char]) -> f64 {
    if s1.is_empty() && s2.is_empty() {
        return 1.0;
    }
    let (pattern_len, text_len) = (s1.len(), s2.len());
    if pattern_len == 0 || text_len == 0 {
        return 0.0;
    }
    if pattern_len == 1 && text_len == 1 {
        return if s1[0] == s2[0] { 1.0 } else { 0.0 };
    }
    // Parts of either string the sliding window never reaches are cut off first.
    let (mut s1, mut s2) = (s1, s2);
    let bound;
    if text_len > pattern_len {
        bound = text_len / 2 - 1;
        if text_len > pattern_len + bound {
            s2 = &s2[..pattern_len + bound];
        }
    } else {
        bound = pattern_len / 2 - 1;
        if pattern_len > text_len + bound {
            s1 = &s1[..text_len + bound];
        }
    }
    let mut s1_flags = vec![false; pattern_len];
    let mut s2_flags = vec![false; text_len];
    let mut common = 0;
    for (i, c) in s1.iter().enumerate() {
        let low = i.saturating_sub(bound);
        let high = (i + bound).min(text_len - 1);
        for j in low..=high {
            if !s2_flags[j] && s2[j] == *c {
                s1_flags[i] = true;
                s2_flags[j] = true;
                common += 1;
                break;
            }
        }
    }
    if common == 0 {
        return 0.0;
    }
    let mut k = 0;
    let mut transpositions = 0;
    for (i, &flagged) in s1_flags.iter().enumerate() {
        if flagged {
            let mut j = k;
            while j < text_len {
                if s2_flags[j] {
                    k = j + 1;
                    break;
                }
                j += 1;
            }
            if s1[i] != s2[j] {
                transpositions += 1;
            }
        }
    }
    jaro_from_counts(pattern_len, text_len, common, transpositions)
}

/// `JaroWinkler.similarity(s1, s2)` with the default prefix weight 0.1.
pub fn jaro_winkler(s1: &[char], s2: &[char]) -> f64 {
    let prefix_weight = 0.1;
    let max_prefix = s1.len().min(s2.len()).min(4);
    let prefix = s1
        .iter()
        .zip(s2)
        .take(max_prefix)
        .take_while(|(x, y)| x == y)
        .count();
    let mut sim = jaro(s1, s2);
    if sim > 0.7 {
        sim += prefix as f64 * prefix_weight * (1.0 - sim);
        sim = sim.min(1.0);
    }
    sim
}

/// `_kernel.similarity(method, a, b, case_sensitive)`: the kernel's similarity
/// of two strings, for the property tests that compare it with rapidfuzz;
/// `None` when the kernel leaves the strings to Python (folding it cannot prove).
#[pyo3::pyfunction]
pub fn similarity(
    method: &str,
    a: &str,
    b: &str,
    case_sensitive: bool,
) -> pyo3::PyResult<Option<f64>> {
    let chars = |s: &str| -> Option<Vec<char>> {
        if case_sensitive {
            Some(s.chars().collect())
        } else {
            crate::text::casefold(s).ok().map(|f| f.chars().collect())
        }
    };
    let (Some(a), Some(b)) = (chars(a), chars(b)) else {
        return Ok(None);
    };
    match method {
        "levenshtein" => Ok(Some(levenshtein(&a, &b))),
        "jaro_winkler" => Ok(Some(jaro_winkler(&a, &b))),
        _ => Err(pyo3::exceptions::PyValueError::new_err(format!(
            "similarity method must be 'levenshtein' or 'jaro_winkler', got {method:?}"
        ))),
    }
}
