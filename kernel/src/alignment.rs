//! `CallTable` and `analyse` (`tooleval.matching.alignment`, `tooleval.metrics._analysis`).

use crate::assignment::{
    max_weight_matching, max_weight_partial_order, max_weight_subsequence, transitive_closure,
    Weights,
};
use crate::matching::{Call, Comparator, Comparison};

const ACCURACY_STEPS: f64 = 1e9;

#[derive(PartialEq)]
pub enum KeysFor {
    All,
    Same(Vec<String>),
    PerTool(Vec<(String, Vec<String>)>),
}

/// Every argument compared (the metrics without `argument_keys`).
pub static ALL_KEYS: KeysFor = KeysFor::All;

impl KeysFor {
    fn of(&self, tool: &str) -> Option<&[String]> {
        let keys = match self {
            KeysFor::All => return None,
            KeysFor::Same(k) => k.as_slice(),
            KeysFor::PerTool(per) => per
                .iter()
                .find(|(t, _)| t == tool)
                .map(|(_, k)| k.as_slice())?,
        };
        if keys.is_empty() {
            None
        } else {
            Some(keys)
        }
    }
}

pub struct Table<'a> {
    pub expected: &'a [Call<'a>],
    pub actual: &'a [Call<'a>],
    cmp: &'a Comparator,
    keys: &'a KeysFor,
    mismatch_extra: bool,
    spread: i128,
    tier1: i128,
    tier2: i128,
    tier1_plain: i128,
    /// `(score, matches, below_one, either_way)` of each same-name pair compared.
    scores: Vec<Option<Cell>>,
    comparisons: Vec<Option<Comparison<'a>>>,
    identity: Option<bool>,
}

pub type Pairs = Vec<(usize, usize)>;

type Cell = (f64, bool, bool, bool);

impl<'a> Table<'a> {
    pub fn new(
        expected: &'a [Call<'a>],
        actual: &'a [Call<'a>],
        cmp: &'a Comparator,
        keys: &'a KeysFor,
        mismatch_extra: bool,
    ) -> Self {
        let (n, m) = (expected.len() as i128, actual.len() as i128);
        let spread = (n + m) * (n + m) + 1;
        let k = n.min(m);
        let tier2 = k * spread + 1;
        let steps = ACCURACY_STEPS as i128;
        Table {
            expected,
            actual,
            cmp,
            keys,
            mismatch_extra,
            spread,
            tier1: k * (steps * tier2 + spread) + 1,
            tier2,
            tier1_plain: k * steps + 1,
            scores: (0..expected.len() * actual.len()).map(|_| None).collect(),
            comparisons: (0..expected.len() * actual.len()).map(|_| None).collect(),
            identity: None,
        }
    }

    fn cell(&self, i: usize, j: usize) -> usize {
        i * self.actual.len() + j
    }

    pub fn score(&mut self, i: usize, j: usize) -> Result<Option<(f64, bool)>, ()> {
        Ok(self
            .scored(i, j)?
            .map(|(score, matches, ..)| (score, matches)))
    }

    /// Takes the pairs `other` compared that compare the same here: `other` is the
    /// table of the same row and comparator with the other extra-keys rule, and a
    /// pair without extra keys compares alike under both.
    pub fn adopt(&mut self, other: &Table<'a>) {
        for c in 0..self.scores.len() {
            if let Some(found) = &other.comparisons[c] {
                if found.either_way && self.comparisons[c].is_none() {
                    self.comparisons[c] = Some(found.clone());
                }
            }
            if let Some(cell) = other.scores[c] {
                if cell.3 && self.scores[c].is_none() {
                    self.scores[c] = Some(cell);
                }
            }
        }
    }

    fn scored(&mut self, i: usize, j: usize) -> Result<Option<Cell>, ()> {
        let c = self.cell(i, j);
        if let Some(found) = self.scores[c] {
            return Ok(Some(found));
        }
        let (exp, act) = (&self.expected[i], &self.actual[j]);
        if exp.name != act.name {
            return Ok(None);
        }
        let out = self.cmp.compare(
            exp,
            act,
            self.keys.of(&exp.name),
            self.mismatch_extra,
            (i, j),
            false,
        )?;
        self.scores[c] = Some((out.score, out.matches, out.below_one, out.either_way));
        Ok(self.scores[c])
    }

    /// Some argument check of this pair scores other than 1.0 (without recording the checks).
    pub fn below_one(&mut self, i: usize, j: usize) -> Result<bool, ()> {
        if let Some(c) = &self.comparisons[self.cell(i, j)] {
            return Ok(c.below_one);
        }
        Ok(self.scored(i, j)?.is_some_and(|(_, _, below, _)| below))
    }

    pub fn comparison(&mut self, i: usize, j: usize) -> Result<Option<&Comparison<'a>>, ()> {
        let c = self.cell(i, j);
        if self.comparisons[c].is_none() {
            let (exp, act) = (&self.expected[i], &self.actual[j]);
            if exp.name != act.name {
                return Ok(None);
            }
            let out = self.cmp.compare(
                exp,
                act,
                self.keys.of(&exp.name),
                self.mismatch_extra,
                (i, j),
                true,
            )?;
            if self.scores[c].is_none() {
                self.scores[c] = Some((out.score, out.matches, out.below_one, out.either_way));
            }
            self.comparisons[c] = Some(out);
        }
        Ok(self.comparisons[c].as_ref())
    }

    pub fn known_comparison(&self, i: usize, j: usize) -> Option<&Comparison<'a>> {
        self.comparisons[self.cell(i, j)].as_ref()
    }

    pub fn identity(&mut self) -> Result<bool, ()> {
        if let Some(found) = self.identity {
            return Ok(found);
        }
        let mut ok = self.expected.len() == self.actual.len();
        if ok {
            for k in 0..self.expected.len() {
                match self.comparison(k, k)? {
                    Some(c) if c.score == 1.0 && c.matches => {}
                    _ => {
                        ok = false;
                        break;
                    }
                }
            }
        }
        self.identity = Some(ok);
        Ok(ok)
    }

    fn weights(
        &mut self,
        require_match: bool,
        rows: Option<&[usize]>,
        cols: Option<&[usize]>,
        plain: bool,
    ) -> Result<Weights, ()> {
        let (n, m) = (self.expected.len(), self.actual.len());
        let mut row_in = vec![rows.is_none(); n];
        if let Some(rows) = rows {
            for &i in rows {
                row_in[i] = true;
            }
        }
        let mut col_in = vec![cols.is_none(); m];
        if let Some(cols) = cols {
            for &j in cols {
                col_in[j] = true;
            }
        }
        let mut table = Vec::with_capacity(n);
        for i in 0..n {
            let mut line: Vec<Option<i128>> = vec![None; m];
            if row_in[i] {
                for j in 0..m {
                    if !col_in[j] || self.actual[j].name != self.expected[i].name {
                        continue;
                    }
                    let Some((score, matches)) = self.score(i, j)? else {
                        continue;
                    };
                    if require_match && !matches {
                        continue;
                    }
                    let accuracy = (score * ACCURACY_STEPS).round_ties_even() as i128;
                    let (ii, jj) = (i as i128, j as i128);
                    line[j] = Some(if plain {
                        self.tier1_plain + accuracy
                    } else {
                        self.tier1 + accuracy * self.tier2 + self.spread - (ii - jj) * (ii - jj)
                    });
                }
            }
            table.push(line);
        }
        Ok(table)
    }

    fn listed(&self) -> Pairs {
        (0..self.expected.len()).map(|k| (k, k)).collect()
    }

    pub fn match_unordered(&mut self, require_match: bool) -> Result<Pairs, ()> {
        if self.identity()? {
            return Ok(self.listed());
        }
        Ok(max_weight_matching(&self.weights(
            require_match,
            None,
            None,
            false,
        )?))
    }

    pub fn match_in_order(&mut self, require_match: bool) -> Result<Pairs, ()> {
        if self.identity()? {
            return Ok(self.listed());
        }
        Ok(max_weight_subsequence(&self.weights(
            require_match,
            None,
            None,
            false,
        )?))
    }

    pub fn match_partial_order(&mut self, before: &[(usize, usize)]) -> Result<Pairs, ()> {
        if before.is_empty() {
            return self.match_unordered(true);
        }
        let n = self.expected.len();
        if is_listed_chain(before, n) {
            return self.match_in_order(true);
        }
        if before.iter().all(|&(a, b)| a < b && b < n) && self.identity()? {
            return Ok(self.listed());
        }
        max_weight_partial_order(&self.weights(true, None, None, true)?, before).ok_or(())
    }

    pub fn match_leftovers(&mut self, rows: &[usize], cols: &[usize]) -> Result<Pairs, ()> {
        if rows.is_empty() || cols.is_empty() {
            return Ok(Vec::new());
        }
        Ok(max_weight_matching(&self.weights(
            false,
            Some(rows),
            Some(cols),
            false,
        )?))
    }
}

fn is_listed_chain(pairs: &[(usize, usize)], n: usize) -> bool {
    let chain = n > 0 && pairs.len() >= n - 1 && {
        let mut set: Vec<(usize, usize)> = pairs.to_vec();
        set.sort_unstable();
        set.dedup();
        set.len() == n - 1
            && set
                .iter()
                .enumerate()
                .all(|(k, &(a, b))| a == k && b == k + 1)
    };
    if chain || (n <= 1 && pairs.is_empty()) {
        return true;
    }
    let closure = transitive_closure(n, pairs);
    (0..n).all(|i| (0..n).all(|j| closure[i * n + j] == (i < j)))
}

/// Readable strings for each ordering constraint the pairing breaks (tightest only).
pub fn order_violations(
    expected: &[Call<'_>],
    pairs: &[(usize, usize)],
    before: &[(usize, usize)],
) -> Vec<String> {
    let n = expected.len();
    let mut position: Vec<Option<usize>> = vec![None; n];
    for &(i, j) in pairs {
        position[i] = Some(j);
    }
    let closure = transitive_closure(n, before);
    let mut out = Vec::new();
    for a in 0..n {
        for b in 0..n {
            if !closure[a * n + b] || a == b {
                continue;
            }
            let (Some(pa), Some(pb)) = (position[a], position[b]) else {
                continue;
            };
            if pa < pb {
                continue;
            }
            let between = (0..n).any(|k| {
                closure[a * n + k]
                    && closure[k * n + b]
                    && position[k].is_some()
                    && k != a
                    && k != b
            });
            if between {
                continue;
            }
            out.push(format!(
                "{} (expected #{}) came before {} (expected #{})",
                expected[b].name,
                b + 1,
                expected[a].name,
                a + 1
            ));
        }
    }
    out
}

pub struct Analysis {
    pub counted: Pairs,
    pub free: Pairs,
    pub near: Pairs,
    pub violations: Vec<String>,
}

impl Analysis {
    pub fn missing_rows(&self, n: usize) -> Vec<usize> {
        if self.free.len() == n {
            return Vec::new();
        }
        let mut used = vec![false; n];
        for &(i, _) in self.free.iter().chain(&self.near).chain(&self.counted) {
            used[i] = true;
        }
        (0..n).filter(|&i| !used[i]).collect()
    }

    pub fn extra_cols(&self, m: usize) -> Vec<usize> {
        if self.free.len() == m {
            return Vec::new();
        }
        let mut used = vec![false; m];
        for &(_, j) in self.free.iter().chain(&self.near).chain(&self.counted) {
            used[j] = true;
        }
        (0..m).filter(|&j| !used[j]).collect()
    }

    /// The pairs whose checks a diagnosis shows by default, sorted.
    pub fn shown_pairs(&self) -> Pairs {
        let rows: Vec<usize> = self.counted.iter().map(|p| p.0).collect();
        let cols: Vec<usize> = self.counted.iter().map(|p| p.1).collect();
        let mut pairs: Pairs = self.counted.clone();
        pairs.extend(
            self.free
                .iter()
                .filter(|(i, j)| !rows.contains(i) && !cols.contains(j)),
        );
        pairs.extend(self.near.iter().copied());
        pairs.sort_unstable();
        pairs
    }
}

pub fn analyse(table: &mut Table, before: Option<&[(usize, usize)]>) -> Result<Analysis, ()> {
    let n = table.expected.len();
    if table.identity()? {
        let forward = before.is_none_or(|b| b.iter().all(|&(a, c)| a < c && c < n));
        if forward {
            let listed: Pairs = (0..n).map(|k| (k, k)).collect();
            return Ok(Analysis {
                counted: listed.clone(),
                free: listed,
                near: Vec::new(),
                violations: Vec::new(),
            });
        }
    }
    let free = table.match_unordered(true)?;
    let mut counted = free.clone();
    let mut violations = Vec::new();
    if let Some(before) = before {
        counted = table.match_partial_order(before)?;
        if counted.len() < free.len() {
            violations = order_violations(table.expected, &free, before);
        }
    }
    let m = table.actual.len();
    let mut row_paired = vec![false; n];
    let mut col_paired = vec![false; m];
    for &(i, j) in &free {
        row_paired[i] = true;
        col_paired[j] = true;
    }
    let rows: Vec<usize> = (0..n).filter(|&i| !row_paired[i]).collect();
    let cols: Vec<usize> = (0..m).filter(|&j| !col_paired[j]).collect();
    let near = table.match_leftovers(&rows, &cols)?;
    Ok(Analysis {
        counted,
        free,
        near,
        violations,
    })
}
