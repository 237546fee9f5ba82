"""Run animations (issue 19, item 5): ``sudoku-lab animate`` and :mod:`sudoku_lab.analysis.animation`.

The GIF and the MP4 open and hold the frames --every and the run's length say (Pillow's ``n_frames``,
imageio-ffmpeg's count); captions follow the run; every bad option is refused in one line before any
solver runs and leaves no file; a cancelled or failed export leaves no file, and an old one as it was.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess

import imageio_ffmpeg
import numpy as np
import pytest
from PIL import Image

from sudoku_lab.analysis import animation
from sudoku_lab.errors import DataFileError, ParameterError
from sudoku_lab.model import library
from sudoku_lab.solvers import create
from sudoku_lab.stepping import loop

HARD = "reseda_fig4_1_hard"


def _gif_frames(path) -> int:
    with Image.open(path) as im:
        return im.n_frames


def _mp4_frames(path) -> int:
    return imageio_ffmpeg.count_frames_and_secs(str(path))[0]


@pytest.fixture
def no_run(monkeypatch):
    """Counts solver runs (the stepping loop) and kernel warm-ups: an option refused before any work leaves both 0."""
    from sudoku_lab.stepping import warmup

    count = {"runs": 0, "warm": 0}
    real_iterate, real_warm = loop.iterate, warmup.warm_once

    def iterate(*a, **k):
        count["runs"] += 1
        return real_iterate(*a, **k)

    def warm(*a, **k):
        count["warm"] += 1
        return real_warm(*a, **k)

    monkeypatch.setattr(loop, "iterate", iterate)
    monkeypatch.setattr(warmup, "warm_once", warm)
    return count


# ---------------------------------------------------------------- files that open
@pytest.mark.parametrize("suffix", [".gif", ".mp4"])
def test_animate_writes_a_file_with_a_frame_every_n_iterations_plus_the_last(tmp_path, cli, suffix):
    out = tmp_path / f"run{suffix}"
    # The GA does not solve the hard puzzle in 60 generations: frames at 0, 25, 50 and the last, 60.
    run = cli("animate", HARD, "--algo", "ga", "--seed", "3", "--until", "60", "--every", "25", "--out", out)
    assert run.returncode == 0, run.stderr
    assert re.match(rf"wrote {re.escape(str(out))}: 4 frames of 1024 x 512, a frame every 25 generations; ", run.stdout)
    assert "max_iterations after 60 generations" in run.stdout
    frames = _gif_frames(out) if suffix == ".gif" else _mp4_frames(out)
    assert frames == 4
    assert [p.name for p in tmp_path.iterdir()] == [out.name]  # no temporary file left beside it


def test_the_probability_view_and_the_default_frame_count(tmp_path, cli):
    out = tmp_path / "p.gif"
    run = cli(
        "animate", HARD, "--algo", "reseda", "--restart", "none", "--seed", "1", "--view", "probability", "--out", out
    )
    assert run.returncode == 0, run.stderr
    # RESEDA without restarts stops (failed) after 16 EDA steps; with no --every, every step is a frame (at most 100).
    assert "a frame every 1 EDA step;" in run.stdout and "failed after 16 EDA steps" in run.stdout
    assert _gif_frames(out) == 17


def test_captions_iterations_progress_and_timing(tmp_path):
    calls = []
    res = animation.animate(
        library.puzzle(HARD),
        "hill_climb",
        tmp_path / "h.gif",
        seed=1,
        every=5,
        fps=20,
        progress=lambda done, total: calls.append((done, total)),
    )
    # Hill climbing solves it after 16 moves (seed 1): frames at 0, 5, 10, 15 and 16.
    assert res.iterations == (0, 5, 10, 15, 16) and res.frames == 5 and res.reason == "solved"
    solver = create("hill_climb")  # the same run stepped by hand: each caption is its snapshot's
    solver.reset(library.puzzle(HARD), seed=1)
    for text, it in zip(res.captions, res.iterations):
        solver.step(it - solver.iteration)
        s = solver.snapshot()
        assert text.startswith(f"Hill climbing (steepest ascent), move {it}, cost {s.cost} (best {s.best_cost})")
    for text, it in zip(res.captions, res.iterations):
        m = re.fullmatch(r"Hill climbing \(steepest ascent\), move (\d+), cost (\d+) \(best (\d+)\)(: solved)?", text)
        assert m and int(m.group(1)) == it and int(m.group(3)) <= int(m.group(2))
    assert res.captions[-1].endswith("cost 0 (best 0): solved")
    # The run first (total 0, iterations so far), then the frames one by one.
    assert calls[0] == (0, 0) and all(t == 0 for _, t in calls[: calls.index((0, 5))])
    assert calls[calls.index((0, 5)) :] == [(k, 5) for k in range(6)]
    with Image.open(res.path) as im:
        assert im.size == res.size == (1024, 512)
        durations = []
        first = np.asarray(im.convert("RGB"))
        for k in range(im.n_frames):
            im.seek(k)
            durations.append(im.info["duration"])
        last = np.asarray(im.convert("RGB"))
    assert durations == [50, 50, 50, 50, 1500]  # 20 fps; the last frame held 1.5 s
    assert (first != last).any(axis=2).mean() > 0.01  # the board and the curves moved


def test_a_time_budget_is_replayed_to_the_same_iteration(tmp_path):
    res = animation.animate(library.puzzle(HARD), "ga", tmp_path / "g.mp4", seed=2, until="0.3s", every=1000)
    assert res.reason == "max_seconds" and res.last is not None
    assert res.iterations[-1] == res.last.iteration and _mp4_frames(res.path) == len(res.iterations)


def test_frame_iterations_and_views():
    assert animation.frame_iterations(60, 25) == (0, 25, 50, 60)
    assert animation.frame_iterations(50, 25) == (0, 25, 50)
    assert animation.frame_iterations(0, 7) == (0,)
    assert animation.views("hill_climb") == ("convergence",)
    assert animation.views("nbcoin") == ("convergence", "probability")
    with pytest.raises(ParameterError):
        animation.frame_iterations(10, 0)


# ---------------------------------------------------------------- refused before any work
BAD = [
    (["--view", "probability"], "hill_climb has no view 'probability': its views are convergence"),
    (["--view", "heatmap", "--algo", "reseda"], "its views are convergence, probability"),
    (["--every", "0"], "argument --every: must be an integer >= 1 or 'phase', got 0"),
    (["--every", "-3"], "argument --every: must be an integer >= 1 or 'phase', got -3"),
    (["--every", "phases"], "argument --every: must be an integer >= 1 or 'phase', got 'phases'"),
    (
        ["--every", "phase", "--algo", "exact"],
        "exact declares no phases, so it has no frame per phase: take a frame every N",
    ),
    (["--out", "{tmp}/run.avi"], "animations are written as .gif or .mp4 (the suffix chooses), not 'run.avi'"),
    (["--out", "{tmp}/run"], "not 'run'"),
    (["--out", "{tmp}/file.txt/run.gif"], "cannot write animation {tmp}/file.txt/run.gif: not a directory"),
    (["--out", "{tmp}/folder.gif"], "animation {tmp}/folder.gif is a directory; give a file name"),
    (["--until", "3 parsecs"], "cannot read stopping rule '3 parsecs'"),
    (["--fps", "0"], "argument --fps: must be an integer from 1 to 50, got 0"),
    (["--fps", "51"], "argument --fps: must be an integer from 1 to 50, got 51"),
    (["--dpi", "5"], "argument --dpi: must be an integer from 40 to 300, got 5"),
    (["--size", "100x100"], "a frame's width must be from 320 to 3840 pixels, got 100 x 100"),
    (["--size", "500x1000"], "a frame 500 x 1000 is taller than wide"),
    (["--size", "1920"], "argument --size: must be WIDTHxHEIGHT in pixels, like 1920x1080, got '1920'"),
    (["--size", "1001x500", "--out", "{tmp}/run.mp4"], "an MP4 (H.264) frame needs an even width and height"),
    (["--size", "1920x1080", "--dpi", "150"], "give the frame's size or its dpi, not both"),
    (["--caption-size", "2"], "argument --caption-size: must be a size in points from 6 to 48, got '2'"),
    (["--from", "18", "--to", "14"], "--to 14 is before --from 18: nothing to draw"),
    (["--from", "-1"], "argument --from: must be an integer"),
    (["--algo", "simplex"], "simplex"),
    (["--alpha", "0.5"], "--alpha is not a parameter of hill_climb"),
    (["--neighbours", "x"], "unrecognized arguments"),
    (["--puzzle-is-not-an-option"], "unrecognized arguments"),
]


@pytest.mark.parametrize("extra, message", BAD, ids=[" ".join(e) for e, _ in BAD])
def test_a_bad_option_is_one_line_before_any_run_and_leaves_no_file(tmp_path, cli, no_run, extra, message):
    (tmp_path / "file.txt").write_text("not a folder\n")
    (tmp_path / "folder.gif").mkdir()
    args = {"--algo": "hill_climb", "--out": str(tmp_path / "run.gif")}
    rest = []
    it = iter(extra)
    for word in it:
        if word in args:
            args[word] = next(it).format(tmp=tmp_path)
        else:
            rest.append(word)
    argv = ["animate", HARD, *[x for kv in args.items() for x in kv], *rest]
    run = cli(*argv)
    assert run.returncode == 2, run
    assert message.format(tmp=tmp_path) in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert no_run == {"runs": 0, "warm": 0}
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["file.txt", "folder.gif"]


def test_a_bad_puzzle_is_refused_before_any_run(tmp_path, cli, no_run):
    run = cli("animate", "no_such_puzzle_anywhere", "--algo", "ga", "--out", tmp_path / "x.gif")
    assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1
    assert no_run == {"runs": 0, "warm": 0} and list(tmp_path.iterdir()) == []


def test_the_api_refuses_bad_options_before_any_run(tmp_path, no_run):
    p = library.puzzle(HARD)
    for kw, words in (
        ({"view": "probability"}, "its views are convergence"),
        ({"every": 0}, "every must be at least 1"),
        ({"fps": 0}, "fps must be from 1 to 50"),
        ({"dpi": 1000}, "dpi must be from 40 to 300"),
        ({"size": (1920, 1080), "dpi": 100}, "give the frame's size or its dpi, not both"),
        ({"size": (4000, 2000)}, "a frame's width must be from 320 to 3840 pixels"),
        ({"caption_size": 60.0}, "the caption size must be from 6 to 48 points, got 60"),
        ({"iterations": (5, 2)}, "the iterations drawn end at or after their start, got 5 to 2"),
        ({"iterations": (-1, None)}, "the iterations drawn start at 0 or later, got -1"),
        ({"params": {"alpha": 2.0}}, "alpha"),
        ({"until": "soon"}, "stopping rule"),
    ):
        with pytest.raises(ParameterError, match=re.escape(words)):
            animation.animate(p, "hill_climb", tmp_path / "a.gif", **kw)
    assert no_run == {"runs": 0, "warm": 0} and list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- cancelled or failed: no file
@pytest.mark.parametrize("suffix", [".gif", ".mp4"])
@pytest.mark.parametrize("when", ["running", "drawing"])
def test_cancelling_leaves_no_file_and_an_old_one_as_it_was(tmp_path, suffix, when):
    out = tmp_path / f"run{suffix}"
    out.write_bytes(b"the old animation")
    state = {"stop": False}

    def progress(done, total):
        if (when == "running" and total == 0 and done > 0) or (when == "drawing" and done == 2):
            state["stop"] = True

    res = animation.animate(
        library.puzzle(HARD),
        "ga",
        out,
        seed=1,
        until="400",
        every=50,
        progress=progress,
        should_stop=lambda: state["stop"],
    )
    assert res.cancelled and res.path is None and res.frames == 0
    assert out.read_bytes() == b"the old animation"
    assert [p.name for p in tmp_path.iterdir()] == [out.name]


@pytest.mark.parametrize("suffix", [".gif", ".mp4"])
def test_a_full_disk_while_drawing_is_one_error_and_leaves_no_file(tmp_path, monkeypatch, suffix):
    real = animation._Renderer.frame
    count = [0]

    def frame(self, snap, text):
        count[0] += 1
        if count[0] == 3:
            raise OSError(28, "No space left on device")
        return real(self, snap, text)

    monkeypatch.setattr(animation._Renderer, "frame", frame)
    with pytest.raises(DataFileError, match=r"^cannot write animation .*: no space left on device$"):
        animation.animate(library.puzzle(HARD), "ga", tmp_path / f"x{suffix}", seed=1, until="100", every=25)
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_stops_the_command_which_says_so_and_writes_nothing(tmp_path, cli, monkeypatch):
    real = animation.animate

    def interrupted(*a, progress=None, **k):
        def hit(done, total):
            if done == 2 and total:
                os.kill(os.getpid(), signal.SIGINT)  # the command's handler turns it into a stop request
            progress(done, total)

        return real(*a, progress=hit, **k)

    monkeypatch.setattr(animation, "animate", interrupted)
    out = tmp_path / "run.gif"
    run = cli("animate", HARD, "--algo", "ga", "--until", "200", "--every", "20", "--out", out)
    assert run.returncode == 130
    assert "interrupted; no animation written" in run.stderr
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- a frame every phase, parameter changes
@pytest.mark.parametrize("suffix", [".gif", ".mp4"])
def test_a_frame_every_phase_has_one_frame_per_phase_plus_the_first(tmp_path, cli, suffix):
    out = tmp_path / f"phases{suffix}"
    run = cli("animate", HARD, "--algo", "reseda", "--seed", "1", "--until", "3", "--every", "phase", "--out", out)
    assert run.returncode == 0, run.stderr
    # RESEDA declares 4 phases (sample, select, update, restart check) and does not solve the hard puzzle in
    # 3 EDA steps: the start, then 3 x 4 phases = 13 frames.
    assert len(create("reseda").phases) == 4
    assert re.match(rf"wrote {re.escape(str(out))}: 13 frames of 1024 x 512, a frame every phase; ", run.stdout)
    assert (_gif_frames(out) if suffix == ".gif" else _mp4_frames(out)) == 13


def test_phase_frames_caption_the_phase_and_outline_the_cells_it_changed(tmp_path):
    res = animation.animate(library.puzzle(HARD), "reseda", tmp_path / "r.gif", seed=1, until="2", every="phase")
    assert res.frames == 9 and res.every == "phase"
    assert res.iterations == (0, 1, 1, 1, 1, 2, 2, 2, 2)
    names = [p.name for p in create("reseda").phases]
    assert res.phases == ("", *names, *names)
    # The captions are the phase steps of the same run stepped by hand, with its snapshots' costs.
    solver = create("reseda")
    solver.reset(library.puzzle(HARD), seed=1)
    assert res.captions[0] == animation.caption(solver.snapshot())
    changed_frames = []
    for k, text in enumerate(res.captions[1:], start=1):
        step = solver.step_phase()
        snap = solver.snapshot()
        assert text == (
            f"RESEDA (restarted EDA), EDA step {step.iteration}, phase {step.index + 1}/4 {step.name}: "
            f"{step.caption} (cost {snap.cost}, best {snap.best_cost})"
        )
        if "cells" in step.changed and step.changed["cells"].any():
            changed_frames.append(k)
    assert changed_frames  # the sample phase changes the board
    # Those frames show the orange outline of changed cells; the first frame has none.
    with Image.open(res.path) as im:

        def orange(k):
            im.seek(k)
            rgb = np.asarray(im.convert("RGB")).astype(int)
            return int((np.abs(rgb - (0xE6, 0x9F, 0x00)).sum(axis=2) < 40)[:, :420].sum())

        assert orange(changed_frames[0]) > 500 and orange(0) == 0


def test_the_api_refuses_a_frame_per_phase_for_a_solver_without_phases(tmp_path, no_run):
    with pytest.raises(ParameterError, match="exact declares no phases") as e:
        animation.animate(library.puzzle(HARD), "exact", tmp_path / "a.gif", every="phase")
    assert "\n" not in str(e.value)
    with pytest.raises(ParameterError, match="every must be a number of iterations or 'phase', got 'phases'"):
        animation.animate(library.puzzle(HARD), "reseda", tmp_path / "a.gif", every="phases")
    assert no_run == {"runs": 0, "warm": 0} and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("every", [1, "phase"])
def test_parameter_changes_are_made_at_their_iterations_in_both_runs(tmp_path, every):
    changes = [(1, {"alpha": 0.5}), (3, {"alpha": 0.9, "beta": 0.7})]
    res = animation.animate(
        library.puzzle(HARD), "reseda", tmp_path / "c.gif", seed=1, until="4", every=every, changes=changes
    )
    solver = create("reseda")  # the same run by hand: set_params after 1 and 3 iterations
    solver.reset(library.puzzle(HARD), seed=1)
    costs = [solver.snapshot().cost]
    for it in range(1, 5):
        if it - 1 in (1, 3):
            solver.set_params(**dict(changes)[it - 1])
        solver.step(1)
        costs.append(solver.snapshot().cost)
    assert res.last is not None and res.last.events == tuple(solver.events)
    assert [e.iteration for e in res.last.events if e.kind == "param"] == [1, 3, 3]
    ends = [text for text, ph in zip(res.captions, res.phases or ("",) * res.frames) if ph in ("", "restart check")]
    assert [int(re.search(r"cost (\d+)", t).group(1)) for t in ends] == costs
    if every == "phase":
        update = [t for t in res.captions if "phase 3/4 update" in t]
        assert [re.search(r"p <- ([\d.]+) p", t).group(1) for t in update] == ["0.7", "0.5", "0.5", "0.9"]


def test_bad_changes_are_refused_before_any_run(tmp_path, no_run):
    p = library.puzzle(HARD)
    for changes, words in (
        ([(5, {"alpha": 0.5}), (2, {"alpha": 0.6})], "change 1 (at iteration 2): changes must be in iteration order"),
        ([(-1, {"alpha": 0.5})], "change 0 (at iteration -1): changes must be in iteration order, from 0"),
        ([(3, {"gamma": 1})], "change 0 (at iteration 3): reseda has no parameter 'gamma'"),
        ([(3, {"alpha": 7})], "change 0 (at iteration 3): alpha must be"),
        ([(3, {"Q1": 500})], "change 0 (at iteration 3): "),
        ([(0, {"alpha": 0.5}), (3, {"coupling": True})], "change 1 (at iteration 3): reseda's coupling cannot change"),
    ):
        with pytest.raises(ParameterError, match=re.escape(words)):
            animation.animate(p, "reseda", tmp_path / "a.gif", changes=changes)
    assert no_run == {"runs": 0, "warm": 0} and list(tmp_path.iterdir()) == []


def test_changes_from_an_event_log():
    from sudoku_lab.solvers import Event

    events = [
        Event(0, "info", "prefilter", None, "ac3"),
        Event(4, "param", "alpha", 0.7, 0.5),
        Event(4, "param", "beta", 0.6, 0.7),
        Event(9, "restart", "full"),
        Event(12, "param", "alpha", 0.5, 0.8),
    ]
    assert animation.changes_from_events(events) == [(4, {"alpha": 0.5, "beta": 0.7}), (12, {"alpha": 0.8})]


def test_phase_frames_of_a_repeating_phase_are_one_per_placement(tmp_path):
    """ACS's "place" repeats: the frames are the start, then one per phase step, as stepped by hand."""
    solver = create("acs", ants=2)
    solver.reset(library.puzzle("ai_escargot"), seed=1)
    names = [""]
    while solver.iteration < 1:
        names.append(solver.step_phase().name)
    assert names.count("place") > 1
    res = animation.animate(
        library.puzzle("ai_escargot"), "acs", tmp_path / "a.gif", params={"ants": 2}, seed=1, until="1", every="phase"
    )
    assert res.phases == tuple(names) and res.frames == len(names)
    assert "phase 2/3 place: ant " in res.captions[2]


def test_phase_frames_beyond_the_limit_stop_the_export(tmp_path, monkeypatch):
    """With a repeating phase the frame count is known only while drawing: past MAX_FRAMES the export stops."""
    monkeypatch.setattr(animation, "MAX_FRAMES", 5)
    with pytest.raises(ParameterError, match=r"more than 5 frames \(its phase 'place' repeats\)"):
        animation.animate(library.puzzle("ai_escargot"), "acs", tmp_path / "a.gif", seed=1, until="1", every="phase")
    assert not (tmp_path / "a.gif").exists()


# ---------------------------------------------------------------- for a slide: a stretch, a size, a caption to read
def _caption_lines(frame: np.ndarray) -> list[int]:
    """The pixel heights of the runs of rows holding ink from the top of a frame down to the first panel (the
    caption's lines, then the panels' titles)."""
    dark = (frame.max(axis=2) < 110).any(axis=1)
    rows = np.flatnonzero(dark[: frame.shape[0] // 5])
    runs = np.split(rows, np.flatnonzero(np.diff(rows) > 1) + 1)
    return [int(r[-1] - r[0] + 1) for r in runs if len(r)]


def _frames(path) -> list[np.ndarray]:
    if str(path).endswith(".gif"):
        with Image.open(path) as im:
            out = []
            for k in range(im.n_frames):
                im.seek(k)
                out.append(np.asarray(im.convert("RGB")))
            return out
    # One ffmpeg process decoding to raw RGB, waited for: imageio_ffmpeg.read_frames leaves its pipes to the
    # garbage collector, whose ResourceWarning then fails whichever test runs at that moment.
    run = subprocess.run(
        [imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-i", str(path), "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
        capture_output=True,
        check=True,
    )
    w, h = map(int, re.search(rb"Video: .*?, (\d{2,})x(\d{2,})\b", run.stderr).groups())
    return list(np.frombuffer(run.stdout, np.uint8).reshape(-1, h, w, 3))


@pytest.mark.parametrize("size, suffix", [((1024, 512), ".gif"), ((1920, 1080), ".mp4")])
def test_steps_14_to_18_at_a_slides_size_with_a_caption_to_read(tmp_path, cli, size, suffix):
    """Issue 27, item 16: a slide wants RESEDA's EDA steps 14 to 18, at its size, with a caption it can show."""
    out = tmp_path / f"slide{suffix}"
    w, h = size
    run = cli(
        "animate", HARD, "--algo", "reseda", "--seed", "1", "--from", "14", "--to", "18", "--size", f"{w}x{h}",
        "--out", out,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith(f"wrote {out}: 5 frames of {w} x {h}, a frame every 1 EDA step from 14 to 18; ")
    frames = _frames(out)
    assert len(frames) == 5 and {f.shape for f in frames} == {(h, w, 3)}
    for frame in frames:  # a line of caption is at least 3 % of the frame's height (the default size, 14 pt)
        assert _caption_lines(frame)[0] >= 0.03 * h
    # The frames are the run's states after steps 14 to 18: their captions, as the same run stepped by hand.
    res = animation.animate(library.puzzle(HARD), "reseda", tmp_path / "again.gif", seed=1, iterations=(14, 18))
    assert res.iterations == (14, 15, 16, 17, 18) and res.size == (1024, 512)
    solver = create("reseda")
    solver.reset(library.puzzle(HARD), seed=1)
    solver.step(14)
    for text in res.captions:
        assert text == animation.caption(solver.snapshot())
        solver.step(1)


def test_phase_frames_of_a_stretch_keep_a_two_line_caption_readable_and_the_panels_still(tmp_path):
    res = animation.animate(
        library.puzzle(HARD), "reseda", tmp_path / "p.gif", seed=1, every="phase", iterations=(13, 14)
    )
    # The state after step 13, then the 4 phases of step 14.
    assert (
        res.iterations == (13, 14, 14, 14, 14)
        and res.phases[0] == ""
        and res.captions[0].startswith("RESEDA (restarted EDA), EDA step 13, cost")
    )
    assert res.captions[3].startswith("RESEDA (restarted EDA), EDA step 14, phase 3/4 update: p <- 0.7 p")
    frames = _frames(res.path)
    update = _caption_lines(frames[3])
    assert len(res.captions[3]) > 120 and min(update[:2]) >= 0.03 * 512  # two lines, each as big as one

    # The caption's band holds two lines in every frame: the board's rules are on the same rows throughout.
    def rules(frame):
        return np.flatnonzero((frame[:, 10:390].max(axis=2) < 90).mean(axis=1) > 0.9).tolist()

    assert rules(frames[0]) == rules(frames[3]) and len(rules(frames[0])) >= 4


@pytest.mark.parametrize("missing", ["named", "none found"])
def test_an_mp4_without_ffmpeg_is_one_line_before_any_work(tmp_path, cli, no_run, monkeypatch, missing):
    """Issue 27, item 16: it said "no such file or directory" about the output, after the first run."""
    if missing == "named":
        monkeypatch.setenv("IMAGEIO_FFMPEG_EXE", str(tmp_path / "no" / "ffmpeg"))
        words = f"MP4 needs ffmpeg, and the one IMAGEIO_FFMPEG_EXE names, {tmp_path / 'no' / 'ffmpeg'}, does not run"
    else:
        monkeypatch.delenv("IMAGEIO_FFMPEG_EXE", raising=False)

        def none():
            raise RuntimeError("No ffmpeg exe could be found.")

        monkeypatch.setattr(imageio_ffmpeg, "get_ffmpeg_exe", none)
        words = "MP4 needs ffmpeg, and imageio-ffmpeg found none"
    out = tmp_path / "x.mp4"
    out.write_bytes(b"an old video")
    run = cli("animate", HARD, "--algo", "reseda", "--until", "5", "--out", out)
    assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert words in run.stderr and run.stderr.rstrip().endswith("or write a .gif")
    assert str(out) not in run.stderr  # the output is not what is missing
    assert no_run == {"runs": 0, "warm": 0} and out.read_bytes() == b"an old video"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.mp4"]
    # A GIF needs no ffmpeg.
    assert cli("animate", HARD, "--algo", "reseda", "--until", "2", "--out", tmp_path / "x.gif").returncode == 0


def test_an_ffmpeg_gone_after_the_check_is_the_same_line_and_no_file(tmp_path, monkeypatch):
    monkeypatch.setattr(animation, "ffmpeg_problem", lambda: None)  # it ran when the options were checked

    def write_frames(*a, **k):
        raise FileNotFoundError(2, "No such file or directory", "ffmpeg")
        yield  # a generator, as imageio-ffmpeg's is

    monkeypatch.setattr(imageio_ffmpeg, "write_frames", write_frames)
    with pytest.raises(ParameterError, match=r"^MP4 needs ffmpeg, which did not start$"):
        animation.animate(library.puzzle(HARD), "ga", tmp_path / "x.mp4", seed=1, until="20", every=10)
    assert list(tmp_path.iterdir()) == []
