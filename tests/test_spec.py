"""Experiment specifications: what they expand to, the seeds they give, and errors that name the line and key."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from sudoku_lab.engine.spec import MAX_TASKS, SpecError, load_spec, parse_spec, spec_from_options
from sudoku_lab.model import library

SPEC = """\
name = "demo"
runs = 3
seed = 7
until = "solved,1000it"

[[puzzles]]
set = "kennett/easy"
sample = 4
label = "easy"

[[puzzles]]
set = "ai_escargot"

[[solvers]]
name = "reseda"
params = { restart = "none", alpha = [0.5, 0.9], beta = [0.6, 0.8] }

[[solvers]]
name = "hill_climb"
label = "hc"
until = "solved,5s"
"""


def test_lists_expand_as_a_product_and_labels_name_the_settings():
    spec = parse_spec(SPEC, "demo.toml")
    assert [c.label for c in spec.configs] == [
        "reseda:restart=none,alpha=0.5,beta=0.6",
        "reseda:restart=none,alpha=0.5,beta=0.8",
        "reseda:restart=none,alpha=0.9,beta=0.6",
        "reseda:restart=none,alpha=0.9,beta=0.8",
        "hc",
    ]
    assert spec.configs[1].params == {"restart": "none", "alpha": 0.5, "beta": 0.8}
    assert spec.configs[-1].until == "solved,5s" and spec.configs[0].until is None
    assert [(s.label, len(s.puzzles)) for s in spec.puzzle_sets] == [("easy", 4), ("ai_escargot", 1)]
    assert spec.total == 5 * 5 * 3 == len(list(spec.tasks()))
    tasks = list(spec.tasks())
    assert len({t.key for t in tasks}) == spec.total
    assert tasks[-1].until == "solved,5s" and tasks[0].until == "solved,1000it"
    assert spec.solvers() == ("reseda", "hill_climb")


def test_variants_are_crossed_with_the_product():
    text = SPEC.replace(
        'params = { restart = "none", alpha = [0.5, 0.9], beta = [0.6, 0.8] }',
        'params = { restart = "none", alpha = [0.5, 0.9] }\nvariants = [{ Q = 50, Q1 = 5 }, { Q = 200, Q1 = 20 }]',
    )
    spec = parse_spec(text)
    got = [(c.params["alpha"], c.params.get("Q")) for c in spec.configs if c.solver == "reseda"]
    assert got == [(0.5, 50), (0.9, 50), (0.5, 200), (0.9, 200)]


def test_spawned_seeds_are_shared_by_configurations_and_stable_when_the_experiment_grows():
    spec = parse_spec(SPEC)
    tasks = list(spec.tasks())
    by_run = {}
    for t in tasks:
        by_run.setdefault((t.puzzle.to_line(), t.run), set()).add(t.seed)
    assert all(len(seeds) == 1 for seeds in by_run.values())  # every configuration, the same seed
    assert len({next(iter(s)) for s in by_run.values()}) == len(by_run)  # and a different one per run and puzzle
    pz = spec.puzzle_sets[1].puzzles[0]
    line = pz.to_line()
    direct = np.random.SeedSequence(7, spawn_key=(zlib.crc32(line.encode()), 2)).generate_state(1, np.uint64)[0]
    assert spec.seed_of(pz, 2) == int(direct) >> 1
    # More runs, a larger sample and another puzzle set leave the runs already there unchanged: the same key
    # names the same puzzle with the same seed (issue 17: a larger sample renumbered the puzzles).
    bigger = parse_spec(
        SPEC.replace("runs = 3", "runs = 5").replace("sample = 4", "sample = 7")
        + '\n[[puzzles]]\nset = "kennett/hard"\nfirst = 2\n'
    )
    old = {t.key: (t.seed, t.puzzle.to_line()) for t in tasks}
    new = {t.key: (t.seed, t.puzzle.to_line()) for t in bigger.tasks()}
    assert len(new) == bigger.total > len(old) and all(new[k] == v for k, v in old.items())
    assert list(bigger.task_keys()) == [t.key for t in bigger.tasks()]


def test_sequential_seeds_are_seed_plus_run():
    spec = parse_spec(SPEC.replace("seed = 7", 'seed = 7\nseeding = "sequential"'))
    assert {(t.run, t.seed) for t in spec.tasks()} == {(0, 7), (1, 8), (2, 9)}


def test_a_sample_is_seeded_and_first_takes_the_head():
    a = parse_spec(SPEC).puzzle_sets[0].puzzles
    b = parse_spec(SPEC).puzzle_sets[0].puzzles
    c = parse_spec(SPEC.replace("seed = 7", "seed = 8")).puzzle_sets[0].puzzles
    level = library.collection("kennett/easy")
    assert [p.name for p in a] == [p.name for p in b] != [p.name for p in c]
    order = [p.name for p in level]
    first = parse_spec(SPEC.replace("sample = 4", "first = 3")).puzzle_sets[0].puzzles
    assert [p.name for p in first] == order[:3]


def test_a_larger_sample_holds_the_smaller_one_at_its_head():
    # Issue 17: 0.1.0 drew each sample afresh (and sorted it), so raising `sample` changed the puzzles already run.
    def names(k):
        return [p.name for p in parse_spec(SPEC.replace("sample = 4", f"sample = {k}")).puzzle_sets[0].puzzles]

    samples = [names(k) for k in (1, 2, 3, 4, 5, 8, 13, 40)]
    for small, large in zip(samples, samples[1:]):
        assert large[: len(small)] == small
    level = [p.name for p in library.collection("kennett/easy")]
    everything = names(len(level) + 10)  # more than the set holds: all of it, each once
    assert sorted(everything) == sorted(level) and everything[:40] == samples[-1]


def test_budget_table_and_files_relative_to_the_specification(tmp_path):
    (tmp_path / "mine.txt").write_text(library.puzzle("reseda_fig3_1_easy").to_line() + "\n")
    (tmp_path / "exp.toml").write_text(
        'runs = 1\n[budget]\niterations = 500\nseconds = 2.5\n[[puzzles]]\nset = "mine.txt"\n'
        '[[solvers]]\nname = "ga"\nbudget = { evaluations = 1e6 }\n'
    )
    spec = load_spec(tmp_path / "exp.toml")
    assert spec.until == "solved,500it,2.5s" and spec.configs[0].until == "solved,1000000evals"
    assert spec.puzzle_sets[0].puzzles[0].to_line() == library.puzzle("reseda_fig3_1_easy").to_line()


def test_flags_describe_the_same_experiment_as_the_file():
    text = (
        'runs = 2\nseed = 3\nuntil = "solved,200it"\n[[puzzles]]\nset = "kennett/hard"\nsample = 3\n'
        '[[solvers]]\nname = "reseda"\nparams = { alpha = [0.5, 0.7] }\n[[solvers]]\nname = "ga"\n'
    )
    a = parse_spec(text)
    b = spec_from_options(
        ["reseda:alpha=[0.5,0.7]", "ga"], ["kennett/hard"], runs=2, seed=3, until="solved,200it", sample=3
    )
    assert a.canonical() == b.canonical()
    assert [t.key for t in a.tasks()] == [t.key for t in b.tasks()]


@pytest.mark.parametrize(
    "change, message",
    [
        (("runs = 3", "runs = 0"), "demo.toml line 2: runs: must be an integer from 1 to 1,000,000, got 0"),
        (("runs = 3", "run = 3"), "demo.toml line 2: run: unknown key 'run' (did you mean 'runs'?)"),
        (
            ("seed = 7", "seed = -1"),
            "demo.toml line 3: seed: must be an integer from 0 to 9,223,372,036,854,775,807, got -1",
        ),
        (("solved,1000it", "solved,1000parsecs"), "demo.toml line 4: until: cannot read stopping rule '1000parsecs'"),
        (
            ("sample = 4", "sampel = 4"),
            "demo.toml line 8: puzzles[1].sampel: unknown key 'sampel' (did you mean 'sample'?)",
        ),
        (('set = "ai_escargot"', 'set = "no/such/file.txt"'), "demo.toml line 12: puzzles[2].set: no such file"),
        (('set = "ai_escargot"', 'set = "ai_escargo"'), "demo.toml line 12: puzzles[2].set: no bundled puzzle named"),
        (("alpha = [0.5, 0.9]", "alpha = [0.5, 1.9]"), "demo.toml line 16: solvers[1].params.alpha: alpha must be"),
        (
            ("alpha = [0.5, 0.9]", "alfa = [0.5, 0.9]"),
            "demo.toml line 16: solvers[1].params.alfa: 'alfa' is not a parameter of reseda (did you mean 'alpha'?)",
        ),
        (
            ('name = "hill_climb"', 'name = "hillclimb"'),
            "demo.toml line 19: solvers[2].name: unknown algorithm 'hillclimb'",
        ),
        (
            ('until = "solved,5s"', 'until = "solved,5s"\nbudget = { seconds = 5 }'),
            "demo.toml line 22: solvers[2].budget: give until or budget, not both",
        ),
        (
            ('label = "hc"', 'label = "reseda:restart=none,alpha=0.5,beta=0.6"'),
            "demo.toml line 20: solvers[2].label: the configuration 'reseda:restart=none,alpha=0.5,beta=0.6' "
            "is already in solvers[1]",
        ),
        (
            ("alpha = [0.5, 0.9]", "alpha = [[0.5], 0.9]"),
            "demo.toml line 16: solvers[1].params.alpha: must be a single value here",
        ),
        (("beta = [0.6, 0.8] }", "beta = [0.6, 0.8] "), "demo.toml line 16, column 68: not valid TOML"),
    ],
)
def test_every_mistake_names_the_line_and_the_key(change, message):
    with pytest.raises(SpecError) as e:
        parse_spec(SPEC.replace(*change), "demo.toml")
    assert str(e.value).startswith(message), str(e.value)


BUDGET = 'runs = 2\n[budget]\n{}\n[[puzzles]]\nset = "ai_escargot"\n[[solvers]]\nname = "reseda"\n{}\n'


# Issue 17 item 3: inf in a budget table was an internal error (OverflowError), 1e300 seconds was accepted.
@pytest.mark.parametrize(
    "table, solver, message",
    [
        ("seconds = inf", "", "line 3: budget.seconds: must be a number of seconds above 0 and at most 1e+09"),
        ("seconds = nan", "", "line 3: budget.seconds: must be a number of seconds above 0"),
        ("seconds = -2.5", "", "line 3: budget.seconds: must be a number of seconds above 0"),
        ("seconds = 1e300", "", "line 3: budget.seconds: must be a number of seconds above 0 and at most 1e+09"),
        ("iterations = inf", "", "line 3: budget.iterations: must be a whole number from 1 to 1e+18, got inf"),
        ("iterations = -inf", "", "line 3: budget.iterations: must be a whole number from 1 to 1e+18, got -inf"),
        ("iterations = 1e300", "", "line 3: budget.iterations: must be a whole number from 1 to 1e+18, got 1e+300"),
        ("evaluations = nan", "", "line 3: budget.evaluations: must be a whole number from 1 to 1e+18, got nan"),
        ("evaluations = 0", "", "line 3: budget.evaluations: must be a whole number from 1 to 1e+18, got 0"),
        ("seconds = 1", "budget = { seconds = inf }", "line 8: solvers[1].budget.seconds: must be a number of seconds"),
        (
            "seconds = 1",
            "budget = { iterations = inf }",
            "line 8: solvers[1].budget.iterations: must be a whole number",
        ),
        (
            "seconds = 1",
            'until = "solved,1e300s"',
            "line 8: solvers[1].until: stopping rule '1e300s': at most 1e+09 seconds",
        ),
    ],
)
def test_every_number_of_a_budget_refuses_inf_nan_negative_and_absurd_values(table, solver, message):
    with pytest.raises(SpecError) as e:
        parse_spec(BUDGET.format(table, solver), "b.toml")
    assert str(e.value).startswith("b.toml " + message), str(e.value)


@pytest.mark.parametrize(
    "change, message",
    [
        (("runs = 3", "runs = inf"), "line 2: runs: must be an integer from 1 to 1,000,000, got inf"),
        (("runs = 3", "runs = nan"), "line 2: runs: must be an integer from 1 to 1,000,000, got nan"),
        (("seed = 7", "seed = -inf"), "line 3: seed: must be an integer from 0 to 9,223,372,036,854,775,807, got -inf"),
        (("sample = 4", "sample = inf"), "line 8: puzzles[1].sample: must be an integer >= 1, got inf"),
        (("sample = 4", "sample = -4"), "line 8: puzzles[1].sample: must be an integer >= 1, got -4"),
        (("sample = 4", "first = nan"), "line 8: puzzles[1].first: must be an integer >= 1, got nan"),
        (
            ("alpha = [0.5, 0.9]", "alpha = [0.5, nan]"),
            "line 16: solvers[1].params.alpha: alpha must be [0, 1], got nan",
        ),
        (("beta = [0.6, 0.8]", "Q = 1e300"), "line 16: solvers[1].params.Q: Q must be an integer in [1, 1000000]"),
    ],
)
def test_the_other_numbers_of_a_specification_refuse_inf_nan_and_negatives_too(change, message):
    # Refused before issue 17 already: kept here so that every numeric field of a specification is covered.
    with pytest.raises(SpecError) as e:
        parse_spec(SPEC.replace(*change), "demo.toml")
    assert str(e.value).startswith("demo.toml " + message), str(e.value)


def test_a_budget_in_seconds_reads_back_as_the_same_number():
    # 1e-05 was written as "1e-05s", which the stopping rule did not read.
    assert parse_spec(BUDGET.format("seconds = 1e-5", ""), "b.toml").until == "solved,0.00001s"
    assert parse_spec(BUDGET.format("seconds = 2.5\niterations = 1e5", ""), "b.toml").until == "solved,2.5s,100000it"


def test_a_seed_beyond_the_results_int64_column_is_refused():
    top = 'seed = {}\nseeding = "sequential"\nruns = 3\n[[puzzles]]\nset = "ai_escargot"\n[[solvers]]\nname = "exact"\n'
    with pytest.raises(
        SpecError,
        match=r"^s.toml line 1: seed: with sequential seeding run r has the seed "
        r"9,223,372,036,854,775,806 \+ r, and the last, run 2, would pass "
        r"9,223,372,036,854,775,807 .*: give a seed at most 9,223,372,036,854,775,805$",
    ):
        parse_spec(top.format(2**63 - 2), "s.toml")
    assert parse_spec(top.format(2**63 - 3), "s.toml").seed == 2**63 - 3
    with pytest.raises(SpecError, match=r"^--seed: must be an integer from 0 to 9,223,372,036,854,775,807, got 10+$"):
        spec_from_options(["exact"], ["ai_escargot"], seed=10**30)


def test_rules_between_parameters_name_the_configuration():
    with pytest.raises(
        SpecError,
        match=r"line 16: solvers\[1\].params: Q1 must be at most Q .* \(in the configuration "
        r"reseda:restart=none,alpha=0.5,beta=0.6,Q1=500\)",
    ):
        parse_spec(SPEC.replace("beta = [0.6, 0.8] }", "beta = [0.6, 0.8], Q1 = 500 }"), "demo.toml")


def test_flag_mistakes_name_the_flag():
    with pytest.raises(SpecError, match=r"--algo 'reseda:alfa=1': 'alfa' is not a parameter of reseda"):
        spec_from_options(["reseda:alfa=1"], ["ai_escargot"])
    with pytest.raises(SpecError, match=r"'\[' without its '\]'"):
        spec_from_options(["reseda:alpha=[0.5,0.7"], ["ai_escargot"])
    with pytest.raises(SpecError, match="puzzles: no bundled puzzle named 'ai_escargo'"):
        spec_from_options(["reseda"], ["ai_escargo"])
    with pytest.raises(SpecError, match="'reseda' is named twice"):
        spec_from_options(["reseda", "reseda"], ["ai_escargot"])


def test_an_experiment_too_large_for_one_directory_is_refused():
    with pytest.raises(SpecError, match=f"at most {MAX_TASKS:,} fit"):
        parse_spec(SPEC.replace("runs = 3", "runs = 1000000"), "demo.toml")


def test_the_example_specifications_are_valid_and_the_comparison_has_every_solver(repo_root):
    from sudoku_lab.solvers import registry

    files = sorted((repo_root / "examples" / "specs").glob("*.toml"))
    assert files
    for f in files:
        assert load_spec(f).total > 0
    # The README's comparison of every registered solver must not silently leave a new one out.
    assert set(load_spec(repo_root / "examples" / "specs" / "kennett_levels.toml").solvers()) == set(registry())
