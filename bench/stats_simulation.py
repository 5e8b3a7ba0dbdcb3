"""Is tooleval's noise-aware verdict calibrated? A simulation of a flaky agent (not a timed test).

Each trial draws a fresh dataset of rows of varied difficulty (row i passes an
attempt with probability p_i, p_i uniform on [0.2, 0.98]) and runs the agent
K times per row, then asks ``tooleval.stats`` what a user would ask:

1. A/A: the same agent twice. The comparison's verdict should be "regression"
   or "improvement" in about α = 5% of trials (the false-alarm rate).
2. A/B: B is worse on every row by δ = the MDE that the A/A comparisons
   reported (their mean). The verdict should be "regression" in about 80%.
3. The threshold gate on one run whose true rate equals the floor: pass and
   fail claims together about α, with the row-level interval; the same
   interval computed from attempts pooled as if independent claims far more.
4. Two agents equally good on average that disagree row by row (ω² > 0, K = 5):
   pairing attempt j of A with attempt j of B and pooling the attempts as
   independent pairs raises false alarms; the row-level paired comparison does not.

Run: ``.venv/bin/python bench/stats_simulation.py [--trials 2000] [--rows 200]``
(prints a Markdown table; docs/statistics.md quotes it).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from tooleval.stats import compare_paired, compare_verdict, summarize, threshold_verdict
from tooleval.stats.intervals import t_interval, wilson_interval


def _attempts(rng: np.random.Generator, p: np.ndarray, k: int) -> list[list[float]]:
    return (rng.random((len(p), k)) < p[:, None]).astype(float).tolist()


def _alarm(a: list[list[float]], b: list[list[float]], seed: int) -> tuple[str, float]:
    c = compare_paired(a, b, resamples=0, seed=seed)
    return compare_verdict(c.interval, mde=c.mde).kind, c.mde


def _pooled_pairs_alarm(a: list[list[float]], b: list[list[float]]) -> bool:
    # The mistake: attempt j of A paired with attempt j of B, every pair independent.
    d = [y - x for ra, rb in zip(a, b, strict=True) for x, y in zip(ra, rb, strict=True)]
    n = len(d)
    mean = sum(d) / n
    se = (sum((v - mean) ** 2 for v in d) / (n - 1) / n) ** 0.5
    i = t_interval(mean, se, n - 1, bounds=(-1.0, 1.0))
    return i.high < 0 or i.low > 0


def run(trials: int, rows: int, seed: int) -> list[tuple[str, str, str]]:
    rng = np.random.default_rng(seed)
    out: list[tuple[str, str, str]] = []
    for k in (1, 3):
        alarms, mdes = 0, []
        for t in range(trials):
            p = rng.uniform(0.2, 0.98, rows)
            kind, m = _alarm(_attempts(rng, p, k), _attempts(rng, p, k), t)
            alarms += kind != "inconclusive"
            mdes.append(m)
        delta = float(np.mean(mdes))
        out.append((f"A/A, K={k}", "false alarms (target 5.0% ± 1.5)", f"{alarms / trials:.1%}"))
        hits = 0
        for t in range(trials):
            p = rng.uniform(0.2, 0.98, rows)
            kind, _ = _alarm(_attempts(rng, p, k), _attempts(rng, p - delta, k), t)
            hits += kind == "regression"
        out.append(
            (
                f"A/B, K={k}, true drop = MDE {100 * delta:.2f} pts",
                "detected (target 80% ± 4)",
                f"{hits / trials:.1%}",
            )
        )
    truth = 0.59  # the mean of uniform(0.2, 0.98)
    for k in (1, 3):
        ours = pooled = 0
        for _ in range(trials):
            rows_k = _attempts(rng, rng.uniform(0.2, 0.98, rows), k)
            s = summarize(rows_k)
            ours += threshold_verdict(s.interval, truth).outcome != "uncertain"
            passed = int(sum(map(sum, rows_k)))
            flat = wilson_interval(passed, rows * k)
            pooled += threshold_verdict(flat, truth).outcome != "uncertain"
        label = f"gate at the true rate, K={k}"
        out.append((label, "wrong pass/fail claims, rows (target 5%)", f"{ours / trials:.1%}"))
        if k > 1:  # with one attempt a row, pooling changes nothing
            out.append((label, "same, attempts pooled (the mistake)", f"{pooled / trials:.1%}"))
    ours = pooled = 0
    for t in range(trials):
        # B is 0.3 better or 0.3 worse on each row, at random: equal over the population of
        # rows a dataset is drawn from (any one dataset leans one way by chance).
        p = rng.uniform(0.35, 0.65, rows)
        shift = rng.choice([-0.3, 0.3], rows)
        a, b = _attempts(rng, p, 5), _attempts(rng, p + shift, 5)
        ours += _alarm(a, b, t)[0] != "inconclusive"
        pooled += _pooled_pairs_alarm(a, b)
    label = "equal on average, disagree by row (ω² = 0.09), K=5"
    out.append((label, "false alarms, rows paired (target 5%)", f"{ours / trials:.1%}"))
    out.append((label, "same, attempts paired and pooled (the mistake)", f"{pooled / trials:.1%}"))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=2000)
    parser.add_argument("--rows", type=int, default=200)
    parser.add_argument("--seed", type=int, default=20241101)
    args = parser.parse_args()
    started = time.perf_counter()
    table = run(args.trials, args.rows, args.seed)
    print(f"{args.trials} trials per line, {args.rows} rows, seed {args.seed}, alpha 0.05")
    print("| scenario | figure | result |\n|---|---|---|")
    for row in table:
        print("| " + " | ".join(row) + " |")
    load = os.getloadavg()[0]
    print(f"\n{time.perf_counter() - started:.0f} s, load average {load:.2f}")


if __name__ == "__main__":
    main()
