"""Slow, obvious twin of the AC3-tabu search kernels (``sudoku_lab/_kernels/ac3_tabu.py``).

Domains are Python sets, AC3 is ``naive_ac3`` of ``tests/naive.py``, the tabu
list is a list of ``[cell, digit, entered, reason]``; the random draws are the
kernel's ``rng.random()`` calls in the same order, so from the same seed the
twin visits the same states, builds the same candidates and keeps the same
tabu list. Nothing in the package imports this file.
"""

from __future__ import annotations

from naive import _peers, naive_ac3  # tests/naive.py

STATUS = ("taken", "aspiration", "tabu", "wiped out", "not best", "worse")


class NaiveTabu:
    """The search from the puzzle ``grid`` (0 for a blank) with box size ``n``.

    Attributes mirror the solver: ``S`` (list of sets), ``prefilled``, ``cost``,
    ``best_cost``, ``tabu`` (oldest first), ``dead``, ``iteration``,
    ``evaluations``, ``aspirations``, ``moves``, ``wipeouts``, ``records`` (the
    latest iteration's candidates as dicts), ``pre`` (domains of the latest
    accepted candidate before its propagation), ``trace`` (rows like the
    kernel's), ``events`` ((iteration, cell, digit) per aspiration move).

    ``accept`` is not a parameter of the solver: "no worse" (the paper's test,
    with a dead end's restart taken whatever its cost under
    ``dead_end="restart"``) is the kernel's rule; "always" (take the best
    admissible candidate even uphill, the lab's former ``accept="always"``) is
    kept here only to check that, with ``dead_end="restart"`` and ``drop=1``,
    it gives the kernel's runs.
    """

    def __init__(
        self,
        grid: list[int],
        n: int,
        rng,
        candidates=10,
        tenure=10,
        p_drop=0.1,
        drop=1,
        iterations=100000,
        hidden_singles=False,
        dead_end="restart",
        accept="no worse",
    ):
        self.n, self.N = n, n * n
        self.C = self.N * self.N
        self.rng = rng
        self.params = dict(
            candidates=candidates,
            tenure=tenure,
            p_drop=p_drop,
            drop=drop,
            iterations=iterations,
            hidden_singles=hidden_singles,
            accept=accept,
            dead_end=dead_end,
        )
        self.peers = [_peers(n, c) for c in range(self.C)]
        start = [{g} if g else set(range(1, self.N + 1)) for g in grid]
        res = naive_ac3(start, n, hidden_singles)
        self.pre = start
        self.S = res.domains
        self.prefilled = [len(d) == 1 for d in self.S]
        self.cost = self.best_cost = sum(len(d) != 1 for d in self.S)
        self.best_grid = self.grid()
        self.tabu: list[list[int]] = []
        self.dead = False
        self.iteration = self.evaluations = self.aspirations = self.moves = self.wipeouts = 0
        self.records: list[dict] = []
        self.trace: list[tuple] = []
        self.events: list[tuple[int, int, int]] = []
        self.moved = False

    def grid(self) -> list[int]:
        return [next(iter(d)) if len(d) == 1 else 0 for d in self.S]

    def is_tabu(self, cell: int, digit: int) -> bool:
        return any(t[0] == cell and t[1] == digit for t in self.tabu)

    # ------------------------------------------------------------ tabu list
    def push(self, cell: int, digit: int, reason: int) -> None:
        """Newest at the end; a feature already listed moves there; then expire down to the tenure."""
        self.tabu = [t for t in self.tabu if not (t[0] == cell and t[1] == digit)]
        self.tabu.append([cell, digit, self.iteration + 1, reason])
        self.trim()

    def trim(self) -> None:
        while len(self.tabu) > self.params["tenure"]:
            self.tabu.pop(0)

    # ------------------------------------------------------------ candidates
    def open_peers(self, cand, c) -> int:
        return sum(len(cand[p]) != 1 for p in self.peers[c])

    def candidate(self):
        """One candidate: (cell, digit, dropped pairs, domains after AC3 or None, domains before, tabu choice)."""
        cand = [set(d) for d in self.S]
        do_drop = self.dead or self.rng.random() < self.params["p_drop"]
        dropped = []
        if do_drop and self.dead and self.params["dead_end"] == "restart":
            for c in range(self.C):  # every search-assigned cell, in cell order, without a draw
                if not self.prefilled[c] and len(cand[c]) == 1:
                    dropped.append((c, next(iter(cand[c]))))
                    cand[c] = set(range(1, self.N + 1))
        elif do_drop:
            for _ in range(self.params["drop"]):
                eligible = [c for c in range(self.C) if not self.prefilled[c] and len(cand[c]) == 1]
                if not eligible:
                    break
                weights = [self.open_peers(cand, c) for c in eligible]
                u = self.rng.random()
                if sum(weights) == 0:
                    pick = eligible[int(u * len(eligible))]
                else:
                    target = u * sum(weights)
                    run, pick = 0, None
                    for c, w in zip(eligible, weights):
                        if w == 0:
                            continue
                        run += w
                        last = c
                        if run > target:
                            pick = c
                            break
                    if pick is None:
                        pick = last
                dropped.append((pick, next(iter(cand[pick]))))
                cand[pick] = set(range(1, self.N + 1))
        if dropped:
            single = [len(d) == 1 for d in cand]
            for c in range(self.C):
                if not single[c]:
                    used = {next(iter(cand[p])) for p in self.peers[c] if single[p]}
                    cand[c] = set(range(1, self.N + 1)) - used
            cand = naive_ac3(cand, self.n, self.params["hidden_singles"]).domains
        total, cum = 0.0, []
        for c in range(self.C):
            if len(cand[c]) > 1:
                total += 1.0 / len(cand[c])
                cum.append((c, total))
        target = self.rng.random() * total
        cell = cum[-1][0]
        for c, s in cum:
            if s > target:
                cell = c
                break
        digits = sorted(cand[cell])
        allowed = [d for d in digits if not self.is_tabu(cell, d)]
        tabu_choice = not allowed
        if tabu_choice:
            allowed = digits
        digit = allowed[int(self.rng.random() * len(allowed))]
        cand[cell] = {digit}
        pre = [set(d) for d in cand]
        res = naive_ac3(cand, self.n, self.params["hidden_singles"])
        wiped = res.wipeout_cell is not None or res.wipeout_unit is not None
        return cell, digit, dropped, None if wiped else res.domains, pre, tabu_choice

    # ------------------------------------------------------------ iteration
    def done(self) -> bool:
        budget = self.params["iterations"]
        return self.cost == 0 or (budget > 0 and self.iteration >= budget)

    def step(self) -> None:
        """One iteration (nothing when solved or out of budget)."""
        if self.done():
            return
        it = self.iteration + 1
        self.trim()
        recs = []
        best = None
        for k in range(self.params["candidates"]):
            cell, digit, dropped, after, pre, tabu_choice = self.candidate()
            rec = {"k": k + 1, "cell": cell, "digit": digit, "dropped": tuple(dropped), "cost": None, "tabu": False}
            recs.append(rec)
            self.evaluations += 1
            if after is None:
                rec["status"] = "wiped out"
                self.wipeouts += 1
                self.push(cell, digit, 1)
                continue
            rec["cost"] = sum(len(d) != 1 for d in after)
            rec["tabu"] = tabu_choice or any(
                len(after[c]) == 1 and after[c] != self.S[c] and self.is_tabu(c, next(iter(after[c])))
                for c in range(self.C)
            )
            admissible = not rec["tabu"] or rec["cost"] < self.best_cost
            rec["status"] = "not best" if admissible else "tabu"
            if admissible and (best is None or rec["cost"] < best[0]["cost"]):
                best = (rec, after, pre)
        n_wiped = sum(r["cost"] is None for r in recs)
        self.dead_before = self.dead  # this iteration's candidates were built at a dead end
        self.dead = n_wiped == len(recs)
        self.moved = False
        moved_drop = 0
        if best is not None:
            rec, after, pre = best
            restart = self.dead_before and self.params["dead_end"] == "restart"
            if rec["cost"] <= self.cost or restart or self.params["accept"] == "always":
                rec["status"] = "aspiration" if rec["tabu"] else "taken"
                for c in range(self.C):
                    if len(self.S[c]) == 1 and after[c] != self.S[c]:
                        self.push(c, next(iter(self.S[c])), 0)
                self.S, self.pre = after, pre
                self.cost = rec["cost"]
                self.moves += 1
                self.moved = True
                moved_drop = len(rec["dropped"])
                if rec["tabu"]:
                    self.aspirations += 1
                    self.events.append((it, rec["cell"], rec["digit"]))
                if self.cost < self.best_cost:
                    self.best_cost = self.cost
                    self.best_grid = self.grid()
            else:
                rec["status"] = "worse"
        self.iteration = it
        self.records = recs
        self.trace.append((it, self.cost, self.best_cost, n_wiped, len(self.tabu), moved_drop))
