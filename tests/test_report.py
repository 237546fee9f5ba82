"""``sudoku-lab report``: statistics checked by hand on a small fixed table and against scipy called directly."""

from __future__ import annotations

import csv
import doctest
import io
import json
import math
import re
from fractions import Fraction

import numpy as np
import pyarrow as pa
import pytest
import scipy.stats as st

from sudoku_lab import cli
from sudoku_lab.analysis import report
from sudoku_lab.engine.results import SCHEMA, Results, load_results
from sudoku_lab.errors import DataFileError, ParameterError

#: (config, puzzle set, puzzle, solved, iterations, seconds); evaluations are 10 x iterations.
RUNS = [
    ("A", "easy", "e1", True, 10, 1.0),
    ("A", "easy", "e1", True, 30, 3.0),
    ("A", "easy", "e2", False, 100, 5.0),
    ("A", "easy", "e2", True, 20, 2.0),
    ("B", "easy", "e1", False, 50, 5.0),
    ("B", "easy", "e1", False, 50, 5.0),
    ("B", "easy", "e2", False, 50, 5.0),
    ("B", "easy", "e2", False, 50, 5.0),
    ("A", "hard", "h1", True, 40, 4.0),
    ("A", "hard", "h1", False, 100, 5.0),
    ("B", "hard", "h1", True, 5, 0.5),
    ("B", "hard", "h1", True, 15, 1.5),
    ("B", "hard", "h1", True, 15, 1.5),
]


def results_of(runs, provenance=None, until="solved,5s") -> Results:
    rows = [
        {
            **dict.fromkeys(SCHEMA.names),
            "task": f"{c}|{s}|{p}|{i}",
            "config": c,
            "solver": c.split(":")[0],
            "puzzle_set": s,
            "puzzle": p,
            "run": i,
            "until": until if isinstance(until, str) else until[c],
            "solved": ok,
            "iterations": it,
            "evaluations": 10 * it,
            "seconds": t,
        }
        for i, (c, s, p, ok, it, t) in enumerate(runs)
    ]
    return Results(pa.Table.from_pylist(rows, schema=SCHEMA), provenance or {}, None, [])


@pytest.fixture(scope="module")
def fixed():
    return results_of(RUNS)


def _rows(rows):
    return {(r.group, r.config): r for r in rows}


# ------------------------------------------------------------------ summary
def test_summary_matches_hand_computed_values(fixed):
    rows = report.summarize(fixed)
    assert [(r.group, r.config, r.pooled) for r in rows] == [
        ("easy", "A", False),
        ("easy", "B", False),
        ("hard", "A", False),
        ("hard", "B", False),
        ("all", "A", True),
        ("all", "B", True),
    ]
    by = _rows(rows)
    a = by["easy", "A"]
    assert (a.successes, a.runs, a.solver, a.puzzle_set) == (3, 4, "A", "easy")
    assert (a.mean_iterations, a.median_iterations, a.mean_evaluations, a.median_evaluations) == (20, 20, 200, 200)
    assert (a.mean_seconds, a.median_seconds) == (2.0, 2.0)  # solved runs only: 1, 3, 2
    assert a.seconds_per_run == pytest.approx(11 / 4)  # the failed run's 5 s counts here
    assert a.ets == pytest.approx((11 / 4) / (3 / 4))  # = 11/3
    # Clopper-Pearson for 3/4: the upper bound solves 1 - p^4 = 0.025, the lower 4p^3(1-p) + p^4 = 0.025.
    lo, hi = a.interval
    assert hi == pytest.approx(0.975**0.25, abs=1e-9)
    assert 4 * lo**3 - 3 * lo**4 == pytest.approx(0.025, abs=1e-9) and round(lo, 4) == 0.1941
    b = by["easy", "B"]
    assert (b.successes, b.runs, b.ets) == (0, 4, math.inf) and b.seconds_per_run == 5.0
    assert math.isnan(b.mean_iterations) and math.isnan(b.median_seconds)
    assert b.interval[0] == 0.0 and b.interval[1] == pytest.approx(1 - 0.025**0.25, abs=1e-9)
    h = by["hard", "A"]  # 1/2: bounds 1 - sqrt(0.975) and sqrt(0.975)
    assert h.interval == pytest.approx((1 - 0.975**0.5, 0.975**0.5), abs=1e-9)
    assert h.ets == pytest.approx(4.5 / 0.5)
    hb = by["hard", "B"]  # 3/3 with a tie: mean 35/3, median 15
    assert hb.mean_iterations == pytest.approx(35 / 3) and hb.median_iterations == 15
    assert hb.median_seconds == 1.5 and hb.ets == pytest.approx(3.5 / 3)
    assert hb.interval == pytest.approx((0.025 ** (1 / 3), 1.0), abs=1e-9)
    pa_, pb = by["all", "A"], by["all", "B"]
    assert (pa_.successes, pa_.runs, pb.successes, pb.runs) == (4, 6, 3, 7)
    assert pa_.median_iterations == 25 and pa_.ets == pytest.approx((20 / 6) / (4 / 6))
    assert pb.ets == pytest.approx((23.5 / 7) / (3 / 7)) and pa_.puzzle_set is None


def test_grouping_by_puzzle_and_by_all(fixed):
    rows = report.summarize(fixed, by="puzzle")
    assert [(r.group, r.puzzle_set, r.config, r.successes, r.runs) for r in rows] == [
        ("e1", "easy", "A", 2, 2),
        ("e1", "easy", "B", 0, 2),
        ("e2", "easy", "A", 1, 2),
        ("e2", "easy", "B", 0, 2),
        ("h1", "hard", "A", 1, 2),
        ("h1", "hard", "B", 3, 3),
        ("all", None, "A", 4, 6),
        ("all", None, "B", 3, 7),
    ]
    once = report.summarize(fixed, by="all")
    assert [(r.group, r.pooled, r.successes, r.runs) for r in once] == [("all", True, 4, 6), ("all", True, 3, 7)]
    # The same puzzle name in two sets is two puzzles, named with their sets.
    twin = results_of([("A", "x", "p", True, 1, 1.0), ("A", "y", "p", False, 1, 1.0)])
    assert [r.group for r in report.summarize(twin, by="puzzle")] == ["x: p", "y: p", "all"]
    with pytest.raises(ParameterError, match="group runs by one of puzzle_set, puzzle, all, not 'level'"):
        report.summarize(fixed, by="level")


def test_configurations_follow_the_experiment_then_the_filter(fixed):
    prov = {
        "spec": {"configs": [{"label": "B"}, {"label": "A"}], "puzzle_sets": [{"label": "hard"}, {"label": "easy"}]}
    }
    ordered = Results(fixed.table, prov, None, [])
    assert [(r.group, r.config) for r in report.summarize(ordered)][:2] == [("hard", "B"), ("hard", "A")]
    assert [r.config for r in report.summarize(fixed, configs=["B", "A"], by="all")] == ["B", "A"]
    wide = results_of(RUNS + [("A:alpha=0.5", "easy", "e1", True, 3, 0.3)])
    assert [r.config for r in report.summarize(wide, by="all", configs=["A:*"])] == ["A:alpha=0.5"]
    with pytest.raises(ParameterError, match=r"no configuration 'a' in these results \(they hold A, B, A:alpha=0.5\)"):
        report.summarize(wide, configs=["a"])
    with pytest.raises(ParameterError, match="did you mean A:alpha=0.5"):
        report.summarize(wide, configs=["A:alpha=0.6"])


# ------------------------------------------------------------------ ECDF
def test_ecdf_points_by_hand(fixed):
    e = {(x.group, x.config): x for x in report.ecdf(fixed, "seconds")}
    assert e["easy", "A"].x.tolist() == [1.0, 2.0, 3.0] and e["easy", "A"].y.tolist() == [0.25, 0.5, 0.75]
    assert e["easy", "A"].horizon == 5.0 and e["easy", "A"].runs == 4  # the unsolved run never reaches 1
    assert e["easy", "B"].x.size == 0 and e["easy", "B"].y.size == 0
    assert e["hard", "B"].x.tolist() == [0.5, 1.5] and e["hard", "B"].y.tolist() == pytest.approx([1 / 3, 1.0])
    assert e["all", "A"].y.tolist() == pytest.approx([1 / 6, 2 / 6, 3 / 6, 4 / 6]) and e["all", "A"].pooled
    it = {(x.group, x.config): x for x in report.ecdf(fixed, "iterations")}
    assert it["hard", "B"].x.tolist() == [5, 15] and it["hard", "B"].values.tolist() == [5, 15, 15]
    ev = {(x.group, x.config): x for x in report.ecdf(fixed, "evaluations")}
    assert ev["easy", "A"].x.tolist() == [100, 200, 300]
    with pytest.raises(ParameterError, match="the metric is one of seconds, iterations, evaluations"):
        report.ecdf(fixed, "restarts")


def test_ecdf_agrees_with_scipy_kaplan_meier_without_censoring_before_the_last_solution():
    # With every unsolved run stopping after the last solution, 1 - Kaplan-Meier is the fraction solved.
    rng = np.random.default_rng(3)
    t = np.round(rng.lognormal(0, 1, 40), 2)
    ok = rng.random(40) < 0.7
    t[~ok] = t.max() + 1
    res = results_of([("A", "s", "p", bool(o), 1, float(x)) for o, x in zip(ok, t)])
    [e, _] = [x for x in report.ecdf(res) if not x.pooled] + [None]
    km = st.ecdf(st.CensoredData(uncensored=t[ok], right=t[~ok]))
    assert np.allclose(e.y, 1 - km.sf.evaluate(e.x))


# ------------------------------------------------------------------ tests
def _logrank_by_hand(a, b):
    """(z, p) of the log-rank test from its definition: a, b are lists of (time, solved)."""
    times = sorted({t for t, ok in a + b if ok})
    o = e = v = Fraction(0)
    for t in times:
        na = sum(1 for x, _ in a if x >= t)
        nb = sum(1 for x, _ in b if x >= t)
        d = sum(1 for x, ok in a + b if ok and x == t)
        n = na + nb
        o += sum(1 for x, ok in a if ok and x == t)
        e += Fraction(na * d, n)
        if n > 1:
            v += Fraction(na * nb * d * (n - d), n * n * (n - 1))
    z = float(o - e) / math.sqrt(v)
    return z, math.erfc(abs(z) / math.sqrt(2))


def test_p_values_by_hand_and_by_scipy(fixed):
    comps = {c.group: c for c in report.compare_pairs(fixed)}
    easy, hard, pooled = comps["easy"], comps["hard"], comps["all"]
    assert (easy.a, easy.b, easy.a_successes, easy.a_runs, easy.b_successes, easy.b_runs) == ("A", "B", 3, 4, 0, 4)
    # Fisher by hand: margins 4, 4 and 3 solved; P(3 of A) = P(0 of A) = C(4,3)/C(8,3) = 4/56.
    assert easy.fisher_p == pytest.approx(8 / 56)
    assert hard.fisher_p == pytest.approx(0.4)  # 1/2 vs 3/3: P(1 of A) = 2/5, the only table as extreme
    assert pooled.fisher_p == pytest.approx(st.fisher_exact([[4, 2], [3, 4]]).pvalue)
    # Log-rank by hand, from the definition with exact fractions; and scipy on the same censored samples.
    z, p = _logrank_by_hand([(1, 1), (3, 1), (5, 0), (2, 1)], [(5, 0)] * 4)
    assert easy.logrank_statistic == pytest.approx(z) and easy.logrank_p == pytest.approx(p)
    assert round(z, 4) == 2.0525  # (3 - 1.2619) / sqrt(0.7171): A solves sooner, the statistic is positive
    z, p = _logrank_by_hand([(4, 1), (5, 0)], [(0.5, 1), (1.5, 1), (1.5, 1)])
    assert hard.logrank_statistic == pytest.approx(z) and hard.logrank_p == pytest.approx(p) and z < 0
    direct = st.logrank(
        st.CensoredData(uncensored=[1, 2, 3, 4], right=[5, 5]),
        st.CensoredData(uncensored=[0.5, 1.5, 1.5], right=[5, 5, 5, 5]),
    )
    assert pooled.logrank_statistic == pytest.approx(direct.statistic)
    assert pooled.logrank_p == pytest.approx(direct.pvalue)
    # In iterations the same test runs on the iteration counts.
    by_it = {c.group: c for c in report.compare_pairs(fixed, metric="iterations")}["hard"]
    z, p = _logrank_by_hand([(40, 1), (100, 0)], [(5, 1), (15, 1), (15, 1)])
    assert by_it.logrank_p == pytest.approx(p) and by_it.metric == "iterations"


def test_adjusted_p_values_by_hand_and_by_scipy(fixed):
    comps = report.compare_pairs(fixed)
    raw = [c.fisher_p for c in comps]
    # Benjamini-Hochberg by hand: sorted p_(i) * m / i, then the running minimum from the largest down.
    m = len(raw)
    order = np.argsort(raw)
    adj = np.empty(m)
    running = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, raw[i] * m / rank)
        adj[i] = running
    assert [c.fisher_adjusted for c in comps] == pytest.approx(adj.tolist())
    assert [c.logrank_adjusted for c in comps] == pytest.approx(
        st.false_discovery_control([c.logrank_p for c in comps], method="bh").tolist()
    )
    by = report.compare_pairs(fixed, correction="by")
    assert [c.fisher_adjusted for c in by] == pytest.approx(st.false_discovery_control(raw, method="by").tolist())
    assert by[0].correction == "by" and by[0].fisher_adjusted > comps[0].fisher_adjusted
    with pytest.raises(ParameterError, match="the correction is one of bh, by, not 'holm'"):
        report.compare_pairs(fixed, correction="holm")


def test_verdicts_in_words():
    runs = [("ga", "s", "p", i < 3, 10, 1.0 + i) for i in range(20)] + [
        ("reseda", "s", "p", i < 18, 10, 0.1 * (i + 1)) for i in range(20)
    ]
    [c] = report.compare_pairs(results_of(runs))
    assert (c.a, c.b) == ("ga", "reseda")  # first appearance; the better one is named first anyway
    p = st.fisher_exact([[3, 17], [18, 2]]).pvalue
    assert c.fisher_p == pytest.approx(p) and c.fisher_adjusted == pytest.approx(p)  # one test: nothing to adjust
    assert c.more_successes == "reseda" and c.sooner == "reseda"
    assert c.success_verdict() == (
        "reseda solves more often than ga (18/20 vs 3/20; Fisher p = 3.4e-06, adjusted 3.4e-06)"
    )
    assert c.time_verdict().startswith("reseda reaches a solution sooner than ga (log-rank on seconds, p = ")
    assert c.short_verdict == "reseda solves more often than ga; reseda reaches a solution sooner than ga"
    same = [("x", "s", "p", True, 10, 1.0 + i % 5) for i in range(10)] + [
        ("y", "s", "p", True, 10, 1.0 + (i + 2) % 5) for i in range(10)
    ]
    [c] = report.compare_pairs(results_of(same), metric="iterations")
    assert c.success_verdict() == "no significant difference in successes (10/10 vs 10/10; Fisher p = 1, adjusted 1)"
    assert c.time_verdict() == (
        "iterations to success not compared (nothing to compare: at every solution one had "
        "no runs left, or all runs left solved at once)"
    )
    [c] = report.compare_pairs(results_of(same))
    assert c.time_verdict().startswith("no significant difference in time to success (log-rank on seconds, p = ")
    assert c.short_verdict == "no significant difference" and c.sooner is None and c.more_successes is None
    # Significance is judged on the adjusted p: 10/10 vs 5/10 alone would pass (p = 0.033), but not among 3 tests.
    three = (
        [("a", "one", "p", True, 1, 1.0)] * 10
        + [("b", "one", "p", i < 5, 1, 1.0) for i in range(10)]
        + [(c, "two", "q", i < 5, 1, 1.0) for c in "ab" for i in range(10)]
    )
    c = report.compare_pairs(results_of(three))[0]
    assert c.fisher_p < 0.05 and c.more_successes is None
    assert c.success_verdict() == (
        "no significant difference in successes (10/10 vs 5/10; Fisher p = 0.033, adjusted 0.098)"
    )


def test_degenerate_inputs_give_answers_not_warnings():
    # pytest turns every warning into an error, so each of these would fail on a scipy RuntimeWarning.
    none = [(c, "s", "p", False, 100, 5.0) for c in "ab" for _ in range(3)]
    [c] = report.compare_pairs(results_of(none))
    assert c.fisher_p == 1.0 and math.isnan(c.logrank_p) and c.untested == "neither solved a run"
    assert math.isnan(c.logrank_adjusted) and c.sooner is None
    assert "time to success not compared (neither solved a run)" in c.verdict
    both = [(c, "s", "p", True, 10, 1.0) for c in "ab" for _ in range(3)]  # all solved at the same moment
    [c] = report.compare_pairs(results_of(both))
    assert c.fisher_p == 1.0 and c.untested.startswith("nothing to compare")
    one = [("a", "s", "p", True, 10, 2.0), ("b", "s", "p", False, 10, 1.0)]  # b stopped before a's solution
    assert report.logrank([2.0], [True], [1.0], [False])[2].startswith("nothing to compare")
    [c] = report.compare_pairs(results_of(one))
    assert math.isnan(c.logrank_p)
    single = results_of([("a", "s", "p", True, 10, 1.0)])
    assert report.compare_pairs(single) == []
    text = report.build_report(single).format("text")
    assert "Pairwise comparisons: none (fewer than two configurations)" in text
    assert report.format_comparisons([], "csv").count("\n") == 1
    # A configuration missing from a group is compared where it ran only.
    partial = RUNS + [("C", "easy", "e1", True, 7, 0.7)]
    comps = report.compare_pairs(results_of(partial))
    assert [(c.group, c.a, c.b) for c in comps] == [
        ("easy", "A", "B"),
        ("easy", "A", "C"),
        ("easy", "B", "C"),
        ("hard", "A", "B"),
        ("all", "A", "B"),
        ("all", "A", "C"),
        ("all", "B", "C"),
    ]
    # Every output format of every table on the degenerate data.
    for res in (results_of(none), results_of(both), results_of(one), single):
        rep = report.build_report(res)
        for fmt in report.FORMATS:
            for table in (None, *report.TABLES):
                assert rep.format(fmt, table)


def test_the_logrank_guard_is_exactly_where_scipy_has_no_variance():
    """logrank() refuses exactly the samples on which scipy's variance is 0 (seeded random small samples)."""
    rng = np.random.default_rng(11)
    refused = tested = 0
    for _ in range(400):
        na, nb = rng.integers(1, 5, size=2)
        ta, tb = rng.integers(1, 4, size=na).astype(float), rng.integers(1, 4, size=nb).astype(float)
        sa, sb = rng.random(na) < 0.6, rng.random(nb) < 0.6
        stat, p, why = report.logrank(ta, sa, tb, sb)
        if not (sa.any() or sb.any()):
            assert why == "neither solved a run"
            continue
        with np.errstate(divide="ignore", invalid="ignore"):  # only here, to see what scipy does unguarded
            direct = st.logrank(
                st.CensoredData(uncensored=ta[sa], right=ta[~sa]), st.CensoredData(uncensored=tb[sb], right=tb[~sb])
            )
        if why:
            refused += 1
            assert math.isnan(direct.statistic), (ta, sa, tb, sb)
        else:
            tested += 1
            assert stat == pytest.approx(direct.statistic) and p == pytest.approx(direct.pvalue)
    assert refused > 20 and tested > 100


# ------------------------------------------------------------------ output
def _notes_report(fixed):
    prov = {
        "spec": {
            "name": "levels",
            "runs": 3,
            "configs": [{"label": "A"}, {"label": "B"}],
            "puzzle_sets": [{"label": "easy", "puzzles": 2}, {"label": "hard", "puzzles": 1}],
        },
        "machine": {"hostname": "box", "cpu": "CPU", "cpus": 4},
        "sessions": [{"writer": {"sudoku_lab": "0.1.0"}, "started": "2026-01-01T00:00:00Z", "ended": None}],
    }
    return report.build_report(Results(fixed.table, prov, "/data/levels-results", ["a note from the reader"]))


def test_every_format_parses(fixed):
    rep = _notes_report(fixed)
    rows = list(csv.DictReader(io.StringIO(rep.format("csv"))))
    assert len(rows) == 6 and rows[0]["group"] == "easy" and rows[0]["config"] == "A"
    assert float(rows[0]["ci_low"]) == pytest.approx(rep.summary[0].interval[0])
    assert float(rows[0]["ets_seconds"]) == pytest.approx(11 / 3)
    assert rows[1]["ets_seconds"] == "inf" and rows[1]["mean_iterations_solved"] == ""  # no value: empty
    assert [r["pooled"] for r in rows] == ["0", "0", "0", "0", "1", "1"]
    comps = list(csv.DictReader(io.StringIO(rep.format("csv", "comparisons"))))
    assert len(comps) == 3 and float(comps[0]["fisher_p"]) == pytest.approx(8 / 56)
    assert comps[2]["correction"] == "bh" and comps[1]["sooner"] in ("", "A", "B")
    points = list(csv.DictReader(io.StringIO(rep.format("csv", "ecdf"))))
    assert [(p["x"], p["fraction_solved"]) for p in points if p["group"] == "easy" and p["config"] == "A"] == [
        ("1.0", "0.25"),
        ("2.0", "0.5"),
        ("3.0", "0.75"),
    ]

    md = rep.format("markdown")
    tables = [block for block in md.split("\n\n") if block.startswith("|")]
    assert len(tables) == 2
    summary = tables[0].splitlines()
    assert len(summary) == 2 + 6 and summary[1].startswith("|---|---|---:")
    assert {line.count("|") for line in summary} == {10}
    assert len(tables[1].splitlines()) == 2 + 3
    assert "- note: a note from the reader" in md and "Benjamini-Hochberg" in md

    tex = rep.format("latex")
    assert tex.count(r"\begin{tabular}") == 2 and tex.count(r"\end{tabular}") == 2
    for block in re.findall(r"\\begin\{tabular\}\{(\w+(?:\{6cm\})?)\}(.*?)\\end\{tabular\}", tex, re.S):
        spec, body = block
        cols = len(re.sub(r"\{6cm\}", "", spec))
        for line in body.strip().splitlines():
            if line != r"\hline":
                assert len(re.findall(r"(?<!\\)&", line)) == cols - 1, line
    assert (
        r"95 \% interval" in tex
        and r"$\infty$" in tex
        and all(line.startswith("%") for line in tex.split(r"\begin{tabular}")[0].strip().splitlines())
    )
    underscored = report.build_report(results_of([(c, "s_1", "p", True, 1, 1.0) for c in ("hill_climb", "ga")]))
    assert r"hill\_climb" in underscored.format("latex") and r"s\_1" in underscored.format("latex")
    assert "hill_climb" not in underscored.format("latex").replace("%", "\n%").split("\n%")[0]

    text = rep.format("text")
    lines = text.splitlines()
    assert lines[0] == "results: /data/levels-results"
    assert lines[1] == (
        "experiment: levels, 13 runs of 2 configurations on 3 puzzles in 2 puzzle sets, 2 to 3 runs "
        "of each configuration on each puzzle; budget solved,5s"
    )
    assert "written by sudoku-lab 0.1.0 on box (CPU, 4 CPUs)" in lines[2]
    assert (
        "note: incomplete: 13 of the experiment's 18 runs are done (a batch is still writing it, or was killed; "
        "the same `sudoku-lab batch` command resumes it)"
    ) in lines
    row = next(line for line in lines if line.startswith("easy") and " A " in line)
    assert row.split() == [
        "easy",
        "A",
        "3/4",
        "[19.4,",
        "99.4]",
        "%",
        "20",
        "/",
        "20",
        "200",
        "/",
        "200",
        "2",
        "/",
        "2",
        "2.75",
        "3.67",
    ]
    assert "  A vs B: no significant difference in successes (3/4 vs 0/4; Fisher p = 0.14, adjusted" in text
    with pytest.raises(ParameterError, match="the format is one of text, markdown, latex, csv, not 'html'"):
        rep.format("html")


def test_notes_say_what_is_not_comparable(fixed):
    rep = report.build_report(
        results_of(RUNS, until={"A": "solved,5s", "B": "solved,1s"}), metric="iterations", configs=["A", "B"]
    )
    assert "budgets differ (A: solved,5s; B: solved,1s): rates and times are not on equal terms" in rep.notes
    assert "2 of the 2 configurations (--config): A, B" in rep.notes
    assert any("iterations are each solver's own unit" in n for n in rep.notes)  # solvers A and B
    one_solver = [(f"reseda:alpha={a}", "s", "p", True, 3, 0.1) for a in (0.5, 0.7)]
    rep = report.build_report(results_of(one_solver), metric="iterations")
    assert not any("own unit" in n for n in rep.notes) and not any(
        "own unit" in n for n in report.build_report(results_of(RUNS)).notes
    )
    assert "budget solved,5s" in report.build_report(fixed).header()[1]
    with pytest.raises(DataFileError, match="the results hold no runs"):
        report.build_report(results_of([]))


def test_the_module_example_runs():
    assert doctest.testmod(report).failed == 0


# ------------------------------------------------------------------ the command
@pytest.fixture(scope="module")
def batch_dir(tmp_path_factory, warm_kernels):
    """A results directory written by the real `sudoku-lab batch` (two solvers, two sets, mixed outcomes)."""
    out = tmp_path_factory.mktemp("report") / "res"
    assert (
        cli.main(
            [
                "batch",
                "--algo",
                "reseda",
                "--algo",
                "hill_climb",
                "--puzzles",
                "reseda_fig3_1_easy",
                "--puzzles",
                "kennett/hard",
                "--first",
                "1",
                "--runs",
                "3",
                "--until",
                "solved,200it",
                "--jobs",
                "1",
                "--quiet",
                "--name",
                "tiny",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    return out


def test_the_command_summarises_a_batch_directory(batch_dir, capsys):
    capsys.readouterr()
    assert cli.main(["report", str(batch_dir)]) == 0
    text = capsys.readouterr().out
    table = load_results(batch_dir).table
    assert text.startswith(
        f"results: {batch_dir}\nexperiment: tiny, 12 runs of 2 configurations on 2 puzzles in 2 "
        "puzzle sets, 3 runs of each configuration on each puzzle; budget solved,200it\n"
    )
    for cfg in ("reseda", "hill_climb"):
        for pset in ("reseda_fig3_1_easy", "kennett/hard"):
            mask = [
                c == cfg and s == pset
                for c, s in zip(table.column("config").to_pylist(), table.column("puzzle_set").to_pylist())
            ]
            k = sum(ok for ok, m in zip(table.column("solved").to_pylist(), mask) if m)
            assert re.search(rf"^{re.escape(pset)}\s+{cfg}\s+{k}/3\s", text, re.M), (cfg, pset, k)
    assert "Pairwise comparisons (two-sided; p adjusted by Benjamini-Hochberg over the report's 3 Fisher tests" in text
    assert "  reseda vs hill_climb: " in text
    assert (
        cli.main(["report", str(batch_dir / "runs.parquet"), "--format", "csv", "--by", "puzzle", "--config", "hill_*"])
        == 0
    )
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert {r["config"] for r in rows} == {"hill_climb"} and len(rows) == 3
    assert sum(int(r["runs"]) for r in rows if r["pooled"] == "0") == 6


def test_the_command_writes_the_report_and_figures(batch_dir, tmp_path, capsys):
    out = tmp_path / "sub" / "report.md"
    assert (
        cli.main(
            [
                "report",
                str(batch_dir),
                "--format",
                "markdown",
                "--out",
                str(out),
                "--figures",
                str(tmp_path / "figs"),
                "--figure-format",
                "svg",
                "--figure",
                "box=" + str(tmp_path / "b.png"),
                "--metric",
                "evaluations",
                "--dpi",
                "40",
            ]
        )
        == 0
    )
    cap = capsys.readouterr()
    assert cap.out == "" and out.read_text().startswith("## Sudoku Lab report\n")
    names = sorted(p.name for p in (tmp_path / "figs").iterdir())
    assert names == sorted(
        [f"{k}-{m}.svg" for k in ("ecdf", "box") for m in report.METRICS] + ["success.svg", "heatmap.svg"]
    )
    assert all(b"<svg" in (tmp_path / "figs" / n).read_bytes()[:500] for n in names)
    assert (tmp_path / "b.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert cap.err.startswith(f"sudoku-lab: wrote {out}, ")
    assert b"evaluations" in (tmp_path / "figs" / "ecdf-evaluations.svg").read_bytes()


def test_command_errors_are_one_line(batch_dir, tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    cases = [
        ([str(tmp_path / "nope")], f"results {tmp_path / 'nope'} do not exist"),
        (
            [str(tmp_path / "empty")],
            f"{tmp_path / 'empty'} is not a results directory (no runs.parquet or provenance.json)",
        ),
        ([str(batch_dir), "--config", "ga"], "no configuration 'ga' in these results (they hold reseda, hill_climb)"),
        (
            [str(batch_dir), "--figure", f"ecdf={tmp_path / 'x.jpg'}"],
            "figures are written as .png, .svg or .pdf, not 'x.jpg'",
        ),
        (
            [str(batch_dir), "--figure", "pie=x.png"],
            "--figure 'pie=x.png': give KIND=PATH with KIND one of ecdf, box, success, heatmap",
        ),
        (
            [str(batch_dir), "--figures", str(batch_dir / "runs.parquet")],
            f"--figures {batch_dir / 'runs.parquet'} is a file; give a directory",
        ),
    ]
    for args, message in cases:
        capsys.readouterr()
        assert cli.main(["report", *args]) == 2, args
        assert capsys.readouterr().err.splitlines() == [f"sudoku-lab: error: {message}"]
    assert not (tmp_path / "x.jpg").exists()
    json.loads((batch_dir / "provenance.json").read_text())  # reading never rewrites the directory
