//! Optimal pairings over integer weight tables (`tooleval.matching.assignment`):
//! the Hungarian method, the weighted LCS and the partial-order branch and bound,
//! with the same tie-breaking as the Python reference.

pub type Weights = Vec<Vec<Option<i128>>>;

pub fn max_weight_matching(weights: &Weights) -> Vec<(usize, usize)> {
    let rows = weights.len();
    let cols = if rows > 0 { weights[0].len() } else { 0 };
    if rows == 0 || cols == 0 {
        return Vec::new();
    }
    if let Some(pairs) = disjoint_positive(weights) {
        return pairs;
    }
    let transpose = rows > cols;
    let (n, m) = if transpose {
        (cols, rows)
    } else {
        (rows, cols)
    };
    let at = |i: usize, j: usize| {
        if transpose {
            weights[j][i]
        } else {
            weights[i][j]
        }
    };
    let cost: Vec<Vec<i128>> = (0..n)
        .map(|i| (0..m).map(|j| at(i, j).map(|w| -w).unwrap_or(0)).collect())
        .collect();
    let assigned = hungarian(&cost, n, m);
    let mut pairs: Vec<(usize, usize)> = assigned
        .into_iter()
        .filter(|&(i, j)| at(i, j).is_some())
        .map(|(i, j)| if transpose { (j, i) } else { (i, j) })
        .collect();
    pairs.sort_unstable();
    pairs
}

fn disjoint_positive(weights: &Weights) -> Option<Vec<(usize, usize)>> {
    let mut pairs = Vec::new();
    let mut used = vec![false; weights[0].len()];
    for (i, row) in weights.iter().enumerate() {
        let mut found: Option<usize> = None;
        for (j, w) in row.iter().enumerate() {
            let Some(w) = w else { continue };
            if found.is_some() || used[j] || *w <= 0 {
                return None;
            }
            found = Some(j);
        }
        if let Some(j) = found {
            used[j] = true;
            pairs.push((i, j));
        }
    }
    Some(pairs)
}

fn hungarian(cost: &[Vec<i128>], n: usize, m: usize) -> Vec<(usize, usize)> {
    const INF: i128 = i128::MAX;
    let mut u = vec![0i128; n + 1];
    let mut v = vec![0i128; m + 1];
    let mut p = vec![0usize; m + 1];
    let mut way = vec![0usize; m + 1];
    for i in 1..=n {
        p[0] = i;
        let mut j0 = 0usize;
        let mut minv = vec![INF; m + 1];
        let mut used = vec![false; m + 1];
        loop {
            used[j0] = true;
            let i0 = p[j0];
            let mut delta = INF;
            let mut j1 = 0usize;
            for j in 1..=m {
                if !used[j] {
                    let cur = cost[i0 - 1][j - 1] - u[i0] - v[j];
                    if cur < minv[j] {
                        minv[j] = cur;
                        way[j] = j0;
                    }
                    if minv[j] < delta {
                        delta = minv[j];
                        j1 = j;
                    }
                }
            }
            for j in 0..=m {
                if used[j] {
                    u[p[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
            if p[j0] == 0 {
                break;
            }
        }
        loop {
            let j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
            if j0 == 0 {
                break;
            }
        }
    }
    (1..=m)
        .filter(|&j| p[j] != 0)
        .map(|j| (p[j] - 1, j - 1))
        .collect()
}

pub fn max_weight_subsequence(weights: &Weights) -> Vec<(usize, usize)> {
    let rows = weights.len();
    let cols = if rows > 0 { weights[0].len() } else { 0 };
    let mut best = vec![vec![0i128; cols + 1]; rows + 1];
    for i in 1..=rows {
        for j in 1..=cols {
            let mut value = best[i - 1][j].max(best[i][j - 1]);
            if let Some(w) = weights[i - 1][j - 1] {
                if best[i - 1][j - 1] + w > value {
                    value = best[i - 1][j - 1] + w;
                }
            }
            best[i][j] = value;
        }
    }
    let mut pairs = Vec::new();
    let (mut i, mut j) = (rows, cols);
    while i > 0 && j > 0 {
        let w = weights[i - 1][j - 1];
        if w.is_some_and(|w| best[i][j] == best[i - 1][j - 1] + w && w > 0) {
            pairs.push((i - 1, j - 1));
            i -= 1;
            j -= 1;
        } else if best[i][j] == best[i - 1][j] {
            i -= 1;
        } else {
            j -= 1;
        }
    }
    pairs.sort_unstable();
    pairs
}

/// `closure[a * n + b]`: a before b, directly or through others.
pub fn transitive_closure(n: usize, before: &[(usize, usize)]) -> Vec<bool> {
    let mut after: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(a, b) in before {
        if !after[a].contains(&b) {
            after[a].push(b);
        }
    }
    let mut closure = vec![false; n * n];
    for start in 0..n {
        let mut stack: Vec<usize> = after[start].clone();
        let mut seen = vec![false; n];
        while let Some(node) = stack.pop() {
            if seen[node] {
                continue;
            }
            seen[node] = true;
            closure[start * n + node] = true;
            stack.extend_from_slice(&after[node]);
        }
    }
    closure
}

fn topological_order(n: usize, closure: &[bool]) -> Vec<usize> {
    let mut placed = Vec::with_capacity(n);
    let mut remaining: Vec<bool> = vec![true; n];
    for _ in 0..n {
        let ready =
            (0..n).find(|&i| remaining[i] && !(0..n).any(|k| remaining[k] && closure[k * n + i]));
        let next = ready.unwrap_or_else(|| (0..n).find(|&i| remaining[i]).unwrap());
        placed.push(next);
        remaining[next] = false;
    }
    placed
}

struct Search<'a> {
    weights: &'a Weights,
    closure: Vec<bool>,
    rows: usize,
    cols: usize,
    order: Vec<usize>,
    candidates: Vec<Vec<usize>>,
    assigned: Vec<(usize, usize)>,
    used: Vec<bool>,
    best_pairs: Vec<(usize, usize)>,
    best_total: i128,
    steps: usize,
}

/// Search steps the kernel spends on one row before handing it to Python, whose
/// own budget (`tooleval.matching.partial_order.SEARCH_BUDGET`) is larger and
/// decides whether the row is scored.
const STEP_LIMIT: usize = 10_000;

impl<'a> Search<'a> {
    fn bound(&self, position: usize) -> i128 {
        let rest = &self.order[position..];
        let free: Vec<usize> = (0..self.cols).filter(|&j| !self.used[j]).collect();
        if rest.is_empty() || free.is_empty() {
            return 0;
        }
        let sub: Weights = rest
            .iter()
            .map(|&i| free.iter().map(|&j| self.weights[i][j]).collect())
            .collect();
        max_weight_matching(&sub)
            .iter()
            .map(|&(a, b)| sub[a][b].unwrap())
            .sum()
    }

    fn consistent(&self, i: usize, j: usize) -> bool {
        let n = self.rows;
        for &(k, col) in &self.assigned {
            if self.closure[k * n + i] && col >= j {
                return false;
            }
            if self.closure[i * n + k] && j >= col {
                return false;
            }
        }
        !self.closure[i * n + i]
    }

    fn run(&mut self, position: usize, total: i128) {
        self.steps += 1;
        if self.steps > STEP_LIMIT {
            return;
        }
        if total > self.best_total {
            self.best_total = total;
            let mut pairs = self.assigned.clone();
            pairs.sort_unstable();
            self.best_pairs = pairs;
        }
        if position == self.order.len() || total + self.bound(position) <= self.best_total {
            return;
        }
        let i = self.order[position];
        for c in 0..self.candidates[i].len() {
            let j = self.candidates[i][c];
            if self.used[j] || !self.consistent(i, j) {
                continue;
            }
            self.assigned.push((i, j));
            self.used[j] = true;
            self.run(position + 1, total + self.weights[i][j].unwrap());
            self.assigned.pop();
            self.used[j] = false;
        }
        self.run(position + 1, total);
    }
}

/// `None` when the search needs more than `STEP_LIMIT` steps.
pub fn max_weight_partial_order(
    weights: &Weights,
    before: &[(usize, usize)],
) -> Option<Vec<(usize, usize)>> {
    let rows = weights.len();
    let cols = if rows > 0 { weights[0].len() } else { 0 };
    if rows == 0 || cols == 0 {
        return Some(Vec::new());
    }
    let closure = transitive_closure(rows, before);
    if !closure.iter().any(|&c| c) {
        return Some(max_weight_matching(weights));
    }
    let order = topological_order(rows, &closure);
    let candidates = (0..rows)
        .map(|i| {
            let mut js: Vec<usize> = (0..cols)
                .filter(|&j| weights[i][j].is_some_and(|w| w > 0))
                .collect();
            js.sort_by_key(|&j| (-weights[i][j].unwrap(), j));
            js
        })
        .collect();
    let mut search = Search {
        weights,
        closure,
        rows,
        cols,
        order,
        candidates,
        assigned: Vec::new(),
        used: vec![false; cols],
        best_pairs: Vec::new(),
        best_total: 0,
        steps: 0,
    };
    search.run(0, 0);
    (search.steps <= STEP_LIMIT).then_some(search.best_pairs)
}
