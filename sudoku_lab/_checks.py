"""Argument checks for the public API, read from each function's annotations.

``@checked`` on a function, or on a class (its constructor and public methods),
makes a wrong kind of argument a :class:`~sudoku_lab.errors.ParameterTypeError`
(or a :class:`~sudoku_lab.errors.PuzzleTypeError` where a Puzzle is expected)
with one line naming the function, the parameter, what it expects and what it
got, before the body runs::

    Solver.step: n must be an int, got float 1.7

Only kinds are checked here; ranges and the meaning of values stay with each
function. The rules are the ones the API documents rather than ``isinstance``'s:

- ``int``: Python and numpy integers, not ``bool`` (a bool is an int to Python,
  but ``step(True)`` is a mistake); ``float``: any real number but a bool;
  ``bool``: Python and numpy bools only.
- ``str | os.PathLike`` is how a path is annotated; a ``str`` is never taken as
  a ``Sequence[str]`` or ``Iterable[str]`` (``warm_up("reseda")`` is not seven
  one-letter names).
- Sequences, lists, tuples and mappings have their items checked (they are
  small in this API); an ``Iterable`` or ``Iterator`` is not consumed.
- A ``Protocol`` is checked by its members; ``Any`` and ``object`` take anything.

beartype and typeguard were measured for this: both accept ``True`` for ``int``
and refuse ``numpy.int64`` for it, so the annotations would have to become
custom types; typeguard costs about 20 us a call. The wrapper here is generated
per function (as :mod:`dataclasses` generates ``__init__``) and costs a few
hundred nanoseconds a call (``Solver.step`` runs once per chunk of ~20 ms).

Annotations are resolved once, on the first call (``from __future__ import
annotations`` leaves them as text, and a method may name a class defined further
down its module); :func:`compile_checks` does it eagerly, for the tests.
"""

from __future__ import annotations

import collections.abc as cabc
import functools
import importlib
import importlib.util
import inspect
import numbers
import os
import re
import sys
import types
import typing

from .errors import ParameterError, ParameterTypeError, PuzzleTypeError

__all__ = ["checked", "checked_puzzle_text", "compile_checks", "is_checked"]


def checked(obj=None, *, puzzles: tuple[str, ...] = (), advice: dict[str, str] | None = None):
    """Check the arguments of a function, or of a class's constructor and public methods, on every call.

    Parameters
    ----------
    obj : function or class
        A class gets its ``__init__`` (a NamedTuple its ``__new__``), its
        ``__call__`` and every method, classmethod and staticmethod defined in
        its body whose name does not start with ``_`` checked (properties,
        inherited methods and methods already checked are left as they are).
    puzzles : tuple of str
        Parameters that hold a puzzle in another form (its text, a grid): the
        wrong kind there is a PuzzleTypeError, as for a ``Puzzle`` parameter.
    advice : dict of str to str
        Per parameter, what to write instead, appended to the message after
        ``"; "`` and formatted with ``value`` (``"write MaxIterations({value!r})"``).

    Returns
    -------
    function or class
        The checking wrapper (same name, signature and docstring), or the class.
    """
    if obj is None:
        return functools.partial(checked, puzzles=puzzles, advice=advice)
    if puzzles or advice:
        return _wrap(obj, None, skip=_skip(obj), puzzles=puzzles, advice=advice or {})
    if isinstance(obj, type):
        constructor = "__new__" if issubclass(obj, tuple) else "__init__"  # a NamedTuple is built by __new__
        for name, attr in list(vars(obj).items()):
            if name.startswith("_") and name not in (constructor, "__call__"):
                continue
            if name == "__new__":
                setattr(obj, name, staticmethod(_wrap(attr.__func__, obj, skip=1)))
                continue
            if isinstance(attr, staticmethod):
                setattr(obj, name, staticmethod(_wrap(attr.__func__, obj, skip=0)))
            elif isinstance(attr, classmethod):
                setattr(obj, name, classmethod(_wrap(attr.__func__, obj, skip=1)))
            elif inspect.isfunction(attr):
                setattr(obj, name, _wrap(attr, obj, skip=1))
        return obj
    return _wrap(obj, None, skip=_skip(obj))


def _skip(func) -> int:
    """1 for a method (defined in a class, its first parameter ``self`` or ``cls``), else 0."""
    in_class = "." in func.__qualname__.replace("<locals>.", "")
    return 1 if in_class and next(iter(inspect.signature(func).parameters), None) in ("self", "cls") else 0


#: For the readers of puzzle text (``Puzzle.parse``, ``formats.read``, ``parse_collection``): anything but text
#: is a PuzzleTypeError that says how a puzzle is built from digits instead.
checked_puzzle_text = checked(
    puzzles=("text",),
    advice={"text": "a puzzle is read from text; build one from an array of digits with Puzzle(grid)"},
)


def is_checked(func) -> bool:
    """Whether ``func`` (a function or method) goes through :func:`checked`."""
    return getattr(func, "__sudoku_lab_checks__", None) is not None


def compile_checks(func) -> dict[str, typing.Any]:
    """Resolve ``func``'s annotations now (normally done on its first call); return them by parameter.

    Raises
    ------
    NameError
        An annotation names something its module cannot resolve.
    """
    state = func.__sudoku_lab_checks__
    state.compile()
    return dict(zip(state.names, state.hints))


# ------------------------------------------------------------------ wrapping
class _State:
    """What a wrapper needs: the checked parameters, their annotations, and the predicates once compiled."""

    def __init__(self, func, owner, names, kinds, puzzles=(), advice=None):
        self.func = func
        self.puzzles = puzzles
        self.advice = advice or {}
        self.owner = owner
        self.names = names  # the checked parameters, in order
        self.kinds = kinds
        self.hints: list = []
        self._where: str | None = None
        # The generated wrapper's globals: per parameter i, the predicate _sl_c{i} and the one type _sl_t{i}
        # that passes without calling it (the common case inline: an int for an int, a Puzzle for a Puzzle).
        # Until the first call they are a predicate that compiles the checks, and a type no value has.
        self.namespace: dict = {"_sl_fail": self.fail}
        for i in range(len(names)):
            self.namespace[f"_sl_c{i}"] = functools.partial(self._first, i)
            self.namespace[f"_sl_t{i}"] = _Unmatched

    @property
    def where(self) -> str:
        """How the message names the function: ``Solver.step``, ``library.puzzle``, ``solvers.create``."""
        if self._where is None:
            self._where = _where(self.func, self.owner)
        return self._where

    def _first(self, i, value):
        self.compile()
        return self.namespace[f"_sl_c{i}"](value)

    def compile(self):
        if self.hints:
            return
        hints = _hints(self.func, self.owner)
        missing = [n for n in self.names if n not in hints]
        if missing:
            raise TypeError(f"{self.where}: parameter {', '.join(missing)} has no annotation to check it against")
        hints = [hints[n] for n in self.names]
        # The predicates before the hints: another thread's first call may be here too, and must not
        # see hints while the predicates are still the ones that compile.
        for i, hint in enumerate(hints):
            self.namespace[f"_sl_c{i}"] = _predicate(hint)
            self.namespace[f"_sl_t{i}"] = _fast_type(hint)
        self.hints = hints

    def fail(self, i, value):
        hint = self.hints[i]
        name = self.names[i]
        if self.kinds[i] in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            name = f"each of {name}"
        message = f"{self.where}: {name} must be {_describe(hint)}, got {_got(hint, value)}"
        if self.names[i] in self.advice:
            message += "; " + self.advice[self.names[i]].format(value=value)
        if _wants_puzzle(hint) or self.names[i] in self.puzzles:
            raise PuzzleTypeError(message) from None
        if type(value) in _literal_types(hint):  # the right kind, just not one of the values allowed
            raise ParameterError(message, name=self.names[i]) from None
        raise ParameterTypeError(message, name=self.names[i]) from None


def _where(func, owner) -> str:
    if owner is None and "." in func.__qualname__ and "<locals>" not in func.__qualname__:  # a method checked alone
        owner_name, _, name = func.__qualname__.rpartition(".")
        return owner_name if name == "__init__" else func.__qualname__
    if owner is not None:
        return owner.__name__ if func.__name__ in ("__init__", "__new__") else f"{owner.__name__}.{func.__name__}"
    # A function is named after the public module users import it from (solvers.create, not base.create):
    # the shortest one that exports it, once every module that may is imported (on the first failure).
    exporters = [
        name
        for name, module in list(sys.modules.items())
        if name.startswith("sudoku_lab")
        and not any(p.startswith("_") for p in name.split("."))
        and func.__name__ in getattr(module, "__all__", ())
        and getattr(getattr(module, func.__name__, None), "__wrapped__", None) is func
    ]
    module = min(exporters, key=len) if exporters else func.__module__
    return f"{module.rsplit('.', 1)[-1]}.{func.__qualname__}"


def _wrap(func, owner, skip: int, puzzles=(), advice=None):
    if is_checked(func):
        return func
    sig = inspect.signature(func)
    params = list(sig.parameters.values())
    checked_params = [p for p in params[skip:] if p.annotation is not inspect.Parameter.empty]
    state = _State(func, owner, [p.name for p in checked_params], [p.kind for p in checked_params], puzzles, advice)
    # Names no parameter uses, so the generated code cannot shadow an argument.
    namespace = state.namespace
    namespace["_sl_f"] = func
    namespace["_sl_type"] = type
    head, call, body = [], [], []
    star_done = False
    for p in params:
        default = ""
        if p.default is not inspect.Parameter.empty:
            namespace[f"_sl_d_{p.name}"] = p.default
            default = f"=_sl_d_{p.name}"
        if p.kind == p.VAR_POSITIONAL:
            head.append(f"*{p.name}")
            call.append(f"*{p.name}")
            star_done = True
        elif p.kind == p.VAR_KEYWORD:
            head.append(f"**{p.name}")
            call.append(f"**{p.name}")
        elif p.kind == p.KEYWORD_ONLY:
            if not star_done:
                head.append("*")
                star_done = True
            head.append(p.name + default)
            call.append(f"{p.name}={p.name}")
        else:
            head.append(p.name + default)
            call.append(p.name)
        if p.kind == p.POSITIONAL_ONLY and (p is params[-1] or params[params.index(p) + 1].kind != p.POSITIONAL_ONLY):
            head.append("/")
    for i, p in enumerate(checked_params):

        def test(v, i=i):
            return f"_sl_type({v}) is not _sl_t{i} and not _sl_c{i}({v})"

        if p.kind == p.VAR_POSITIONAL:
            body.append(f"    for _sl_v in {p.name}:\n        if {test('_sl_v')}: _sl_fail({i}, _sl_v)")
        elif p.kind == p.VAR_KEYWORD:
            body.append(f"    for _sl_v in {p.name}.values():\n        if {test('_sl_v')}: _sl_fail({i}, _sl_v)")
        elif p.default is not inspect.Parameter.empty:
            # A default is the function's own choice: only what a caller passes is checked.
            body.append(f"    if {p.name} is not _sl_d_{p.name} and {test(p.name)}: _sl_fail({i}, {p.name})")
        else:
            body.append(f"    if {test(p.name)}: _sl_fail({i}, {p.name})")
    source = f"def {func.__name__}({', '.join(head)}):\n" + "\n".join(body) + f"\n    return _sl_f({', '.join(call)})\n"
    exec(compile(source, f"<checked {func.__qualname__}>", "exec"), namespace)
    wrapper = namespace[func.__name__]
    functools.update_wrapper(wrapper, func)
    wrapper.__sudoku_lab_checks__ = state
    return wrapper


# --------------------------------------------------------------- annotations
class _Names(dict):
    """A module's globals, and the names an annotation may use without the module importing them at run time.

    Those are the names imported under ``if TYPE_CHECKING:`` (how a module names
    a class whose module imports it back) and top-level modules named in an
    annotation (``pyarrow.Table``, imported when first needed).
    """

    def __init__(self, module):
        super().__init__(vars(module) if module else {})
        self.module = module
        self.typing_names = None

    def __missing__(self, key):
        import builtins

        if hasattr(builtins, key):
            raise KeyError(key)  # eval then finds the builtin (str, int, ...): nothing to import
        if self.typing_names is None:
            self.typing_names = _type_checking_names(self.module)
        if key in self.typing_names:
            module, attr = self.typing_names[key]
            value = importlib.import_module(module)
            return value if attr is None else getattr(value, attr)
        try:
            return importlib.import_module(key)
        except ImportError:
            raise KeyError(key) from None


def _type_checking_names(module) -> dict[str, tuple[str, str | None]]:
    """The names ``module`` imports under ``if TYPE_CHECKING:``: name -> (module to import, attribute or None).

    Read from the source, not executed: each is imported only when an
    annotation needs it, at the first call, so two modules that name each
    other's classes this way do not import each other while loading.
    """
    import ast

    try:
        tree = ast.parse(inspect.getsource(module))
    except (OSError, TypeError):
        return {}
    names: dict[str, tuple[str, str | None]] = {}
    for node in tree.body:
        if not (isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)):
            continue
        for imp in node.body:
            if isinstance(imp, ast.ImportFrom):
                base = (
                    importlib.util.resolve_name("." * imp.level + (imp.module or ""), module.__package__)
                    if imp.level
                    else (imp.module or "")  # an absolute import always names its module
                )
                for alias in imp.names:
                    names[alias.asname or alias.name] = (base, alias.name)
            elif isinstance(imp, ast.Import):
                for alias in imp.names:
                    names[alias.asname or alias.name.split(".")[0]] = (
                        alias.name if alias.asname else alias.name.split(".")[0],
                        None,
                    )
    return names


def _hints(func, owner) -> dict:
    module = sys.modules.get(getattr(owner, "__module__", None) or func.__module__)
    names = _Names(module)
    if owner is not None:
        names.setdefault(owner.__name__, owner)
    hints = {}
    for name, text in getattr(func, "__annotations__", {}).items():
        if name == "return":
            continue
        if isinstance(text, str):
            _import_named_modules(text)
            try:
                text = eval(text, {"__builtins__": __builtins__}, names)  # noqa: S307 - the module's own annotations
            except KeyError as e:  # a name the module does not define
                raise NameError(
                    f"{_where(func, owner)}: annotation {text!r} of {name} names {e.args[0]!r}, "
                    "which its module does not define"
                ) from None
        hints[name] = _resolve_strings(text, names)
    return hints


def _import_named_modules(text: str) -> None:
    """Import the modules of fully qualified names in an annotation (``sudoku_lab.analysis.report.ECDF``).

    A module that cannot import the class it names, because that class's module
    imports it (figures and report), names it this way.
    """
    for dotted in re.findall(r"\bsudoku_lab(?:\.\w+)+", text):
        parts = dotted.split(".")
        for k in range(2, len(parts)):
            try:
                importlib.import_module(".".join(parts[:k]))
            except ImportError:
                break


def _resolve_strings(hint, names):
    """``hint`` with the quoted forward references inside it (``list["Task"]``) evaluated."""
    if isinstance(hint, str):
        return eval(hint, {"__builtins__": __builtins__}, names)  # noqa: S307
    if isinstance(hint, typing.ForwardRef):
        return eval(hint.__forward_arg__, {"__builtins__": __builtins__}, names)  # noqa: S307
    origin = typing.get_origin(hint)
    if origin in (typing.Literal, typing.Annotated, cabc.Callable):  # their arguments are not checked types
        return hint
    args = typing.get_args(hint)
    new = tuple(a if isinstance(a, (list, type(...))) else _resolve_strings(a, names) for a in args)
    if new == args:
        return hint
    if origin in (typing.Union, types.UnionType):
        return typing.Union[new]  # noqa: UP007 - builds a union from a tuple at run time
    return hint.copy_with(new) if hasattr(hint, "copy_with") else origin[new]


def _members(hint):
    """The alternatives of a union, or ``[hint]``."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return list(typing.get_args(hint))
    return [hint]


def _is_array_like(hint) -> bool:
    """Whether ``hint`` is or includes numpy.typing.ArrayLike.

    Before numpy 2.5 it is a union of numbers, str, bytes and two protocols, whose members a union with it
    takes in; from 2.5 on, a ``type`` alias (``typing.TypeAliasType``) that stays one member.
    """
    npt = sys.modules.get("numpy.typing")  # a hint from numpy.typing means it is imported: never import it here
    alias = getattr(npt, "ArrayLike", None)
    return any(
        (alias is not None and m is alias) or getattr(m, "__name__", "") == "_SupportsArray" for m in _members(hint)
    )


def _split_array_like(hint) -> tuple[list, bool]:
    """The alternatives of ``hint`` besides those of numpy.typing.ArrayLike, and whether it takes None."""
    import numpy.typing as npt

    array_like = set(typing.get_args(npt.ArrayLike))
    members = _members(hint)
    others = [m for m in members if m is not npt.ArrayLike and m not in array_like and m is not type(None)]
    return others, type(None) in members


def _is_array_like_value(value) -> bool:
    import numpy as np

    return isinstance(value, (np.ndarray, np.generic, list, tuple, numbers.Number, str, bytes)) or hasattr(
        value, "__array__"
    )


def _literal_types(hint) -> set:
    return {type(v) for m in _members(hint) if typing.get_origin(m) is typing.Literal for v in typing.get_args(m)}


def _wants_puzzle(hint) -> bool:
    return any((getattr(m, "__module__", ""), getattr(m, "__name__", None)) in _PUZZLE_TYPES for m in _members(hint))


_PUZZLE_TYPES = {("sudoku_lab.model.puzzle", "Puzzle"), ("sudoku_lab.model.geometry", "PuzzleLike")}


# ---------------------------------------------------------------- predicates
class _Unmatched:
    """The fast-path type of a parameter that has none: no value is of this type."""


def _fast_type(hint) -> type:
    """The one type whose values pass ``hint``'s check with no further look (items of a container need one)."""
    if _is_array_like(hint):
        import numpy as np

        return np.ndarray
    for m in _members(hint):
        if m is typing.Any or m is object:
            return _Unmatched  # the predicate takes anything at once
        if m in (int, float, bool, str, bytes):
            return m
        if (
            isinstance(m, type)
            and typing.get_origin(m) is None
            and not getattr(m, "_is_protocol", False)
            and m.__module__ != "typing"
            and m not in _CONTAINERS
        ):
            return m
    return _Unmatched


def _always(value) -> bool:
    return True


def _per_type(test: cabc.Callable[[type], bool], known: dict[type, bool]) -> cabc.Callable[[object], bool]:
    """``test(type(value))``, remembered per type: an ABC's isinstance (numpy's integers are registered with
    numbers.Integral) costs several times a dict lookup, and these run on every call of Solver.step."""
    verdicts = dict(known)

    def check(value) -> bool:
        t = type(value)
        ok = verdicts.get(t)
        if ok is None:
            ok = verdicts[t] = test(t)
        return ok

    return check


def _bool_type(t: type) -> bool:  # numpy's bool is no subclass of bool, nor registered as a number
    return issubclass(t, bool) or (t.__name__ in ("bool", "bool_") and t.__module__ == "numpy")


_is_bool = _per_type(_bool_type, {bool: True})
_is_int = _per_type(lambda t: issubclass(t, numbers.Integral) and not _bool_type(t), {int: True, bool: False})
_is_float = _per_type(
    lambda t: issubclass(t, numbers.Real) and not _bool_type(t), {float: True, int: True, bool: False}
)


def _is_str(value) -> bool:
    return type(value) is str or isinstance(value, str)


def _is_callable(value) -> bool:
    return callable(value)


_CONTAINERS = {
    # origin: (the class a value must be an instance of, how its items are checked)
    list: (list, "items"),
    set: (set, "items"),
    frozenset: (frozenset, "items"),
    cabc.Sequence: (cabc.Sequence, "items"),
    cabc.MutableSequence: (cabc.MutableSequence, "items"),
    cabc.Collection: (cabc.Collection, "items"),
    cabc.Set: (cabc.Set, "items"),
    cabc.Iterable: (cabc.Iterable, None),
    cabc.Iterator: (cabc.Iterator, None),
    dict: (dict, "mapping"),
    cabc.Mapping: (cabc.Mapping, "mapping"),
    cabc.MutableMapping: (cabc.MutableMapping, "mapping"),
}


def _predicate(hint):
    """A function value -> bool for ``hint``."""
    if hint is typing.Any or hint is object:
        return _always
    if _is_array_like(hint):
        others, takes_none = _split_array_like(hint)
        preds = [_predicate(m) for m in others]
        if not preds and not takes_none:
            return _is_array_like_value
        return lambda v: (takes_none and v is None) or any(p(v) for p in preds) or _is_array_like_value(v)
    origin = typing.get_origin(hint)
    if origin is typing.Annotated:
        return _predicate(typing.get_args(hint)[0])
    if origin in (typing.Union, types.UnionType):
        members = typing.get_args(hint)
        preds = [_predicate(m) for m in members if m is not type(None)]
        takes_none = type(None) in members
        if any(p is _always for p in preds):
            return _always
        if len(preds) == 1:
            p = preds[0]
            return (lambda v: v is None or p(v)) if takes_none else p
        return lambda v: (takes_none and v is None) or any(p(v) for p in preds)
    if origin is typing.Literal:
        values = typing.get_args(hint)
        return lambda v: any(v == x and type(v) is type(x) for x in values)
    if isinstance(hint, typing.TypeVar):
        return _predicate(hint.__bound__) if hint.__bound__ is not None else _always
    if hint is None or hint is type(None):
        return lambda v: v is None
    if hint is int:
        return _is_int
    if hint is float:
        return _is_float
    if hint is bool:
        return _is_bool
    if hint is str:
        return _is_str
    if hint is os.PathLike or origin is os.PathLike:
        return lambda v: isinstance(v, os.PathLike)
    if origin is type:
        (base,) = typing.get_args(hint) or (object,)
        base = base if isinstance(base, type) else object
        return lambda v: isinstance(v, type) and issubclass(v, base)
    if hint is type:
        return lambda v: isinstance(v, type)
    if origin is cabc.Callable or hint is cabc.Callable or hint is typing.Callable:
        return _is_callable
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is ...:
            item = _predicate(args[0])
            return lambda v: isinstance(v, tuple) and (item is _always or all(item(x) for x in v))
        preds = [_predicate(a) for a in args]
        return lambda v: isinstance(v, tuple) and len(v) == len(preds) and all(p(x) for p, x in zip(preds, v))
    container = _CONTAINERS.get(origin) or _CONTAINERS.get(hint)
    if container is not None:
        kind, items = container
        args = typing.get_args(hint)
        if items == "mapping":
            key, val = (_predicate(args[0]), _predicate(args[1])) if len(args) == 2 else (_always, _always)
            if key is _always and val is _always:
                return lambda v: isinstance(v, kind)
            return lambda v: isinstance(v, kind) and all(key(k) and val(x) for k, x in v.items())
        item = _predicate(args[0]) if args else _always
        if items is None or item is _always:
            return lambda v: isinstance(v, kind) and not isinstance(v, (str, bytes))
        return lambda v: isinstance(v, kind) and not isinstance(v, (str, bytes)) and all(item(x) for x in v)
    if hint in (typing.IO, typing.BinaryIO, typing.TextIO) or origin is typing.IO:
        return lambda v: hasattr(v, "read")  # io's classes are not subclasses of typing's
    if isinstance(hint, type):
        if getattr(hint, "_is_protocol", False):
            members = sorted(typing._get_protocol_attrs(hint))  # what a runtime_checkable check reads too
            return lambda v: all(hasattr(v, m) for m in members)
        if origin is None and hint.__module__ == "typing":
            raise TypeError(f"no check for annotation {hint!r}")
        return lambda v: isinstance(v, hint)
    if origin is not None and isinstance(origin, type):  # a generic class such as np.ndarray[...] or deque[int]
        return lambda v: isinstance(v, origin)
    raise TypeError(f"no check for annotation {hint!r}")


# ------------------------------------------------------------------ messages
def _article(text: str) -> str:
    return ("an " if text[:1].lower() in "aeiou" else "a ") + text


def _type_name(t) -> str:
    """A class's name as a user writes it: bare for builtins and Sudoku Lab's own, else with its public module."""
    name = getattr(t, "__qualname__", None) or getattr(t, "__name__", None) or str(t)
    module = getattr(t, "__module__", "") or ""
    if module in ("builtins", "typing") or module.startswith("sudoku_lab"):
        return name
    public = [part for part in module.split(".") if not part.startswith("_") and part != "lib"]
    return ".".join(public + [name])


def _describe(hint) -> str:
    if hint is typing.Any or hint is object:
        return "anything"
    if _is_array_like(hint):
        others, takes_none = _split_array_like(hint)
        words = [_describe(m) for m in others] + ["an array-like (a numpy array or nested lists)"]
        words += ["None"] if takes_none else []
        return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]
    origin = typing.get_origin(hint)
    if origin is typing.Annotated:
        return _describe(typing.get_args(hint)[0])
    if origin in (typing.Union, types.UnionType):
        members = list(typing.get_args(hint))
        words = []
        if str in members and (os.PathLike in members or any(typing.get_origin(m) is os.PathLike for m in members)):
            members = [
                m for m in members if m is not str and m is not os.PathLike and typing.get_origin(m) is not os.PathLike
            ]
            words.append("a path (str or os.PathLike)")
        words += [_describe(m) for m in members if m is not type(None)]
        if type(None) in members:
            words.append("None")
        return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]
    if origin is typing.Literal:
        return "one of " + ", ".join(repr(v) for v in typing.get_args(hint))
    if hint is None or hint is type(None):
        return "None"
    if hint is int:
        return "an int"
    if hint is float:
        return "a number"
    if hint is bool:
        return "a bool"
    if hint is str:
        return "a str"
    if hint is bytes:
        return "bytes"
    if isinstance(hint, typing.TypeVar):
        return _describe(hint.__bound__) if hint.__bound__ is not None else "anything"
    if origin is type:
        (base,) = typing.get_args(hint) or (object,)
        return f"a subclass of {_type_name(base)}"
    if origin is cabc.Callable or hint is cabc.Callable or hint is typing.Callable:
        return "a callable"
    args = typing.get_args(hint)
    names = {
        list: "list",
        tuple: "tuple",
        set: "set",
        frozenset: "frozenset",
        dict: "dict",
        cabc.Sequence: "sequence",
        cabc.MutableSequence: "list",
        cabc.Collection: "collection",
        cabc.Set: "set",
        cabc.Iterable: "iterable",
        cabc.Iterator: "iterator",
        cabc.Mapping: "mapping",
        cabc.MutableMapping: "mapping",
    }
    kind = names.get(origin) or names.get(hint)
    if kind:
        if kind in ("dict", "mapping") and len(args) == 2:
            return _article(f"{kind} of {_plain(args[0])} to {_plain(args[1])}")
        if args and args[0] is not typing.Any and not (kind == "tuple" and len(args) != 2):
            return _article(f"{kind} of {_plain(args[0])}")
        return _article(kind)
    if hint in (typing.IO, typing.BinaryIO, typing.TextIO) or origin is typing.IO:
        return "a binary file object" if hint is typing.BinaryIO else "a file object"
    if isinstance(hint, type):
        if hint.__module__ == "numpy" and hint.__name__ == "ndarray":
            return "a numpy array"
        return _article(_type_name(hint))
    if origin is not None:
        return _describe(origin)
    return str(hint)


def _plain(hint) -> str:
    """``hint`` described without its article (``list of Puzzle``)."""
    text = _describe(hint)
    for a in ("a ", "an "):
        if text.startswith(a) and " or " not in text:
            return text[len(a) :]
    return text


def _short(value) -> str:
    """A one-line, bounded repr of ``value``; just the type for objects with an address in their repr."""
    shape = getattr(value, "shape", None)
    if isinstance(shape, tuple) and type(value).__module__.startswith("numpy"):
        return f"of shape {shape}" if shape else repr(value.item()) if hasattr(value, "item") else ""
    try:
        text = repr(value)
    except Exception:  # a repr that fails still leaves the type to name
        return ""
    if " at 0x" in text or (text.startswith("<") and text.endswith(">")):
        return ""
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."


def _got(hint, value) -> str:
    """What a failed check got, naming the first bad item of a container."""
    if value is None:
        return "None"
    text = f"{type(value).__name__} {_short(value)}".rstrip()
    members = [m for m in _members(hint) if m is not type(None)]
    if len(members) == 1 and not isinstance(value, (str, bytes)):
        args = typing.get_args(members[0])
        origin = typing.get_origin(members[0])
        try:
            if (
                origin in (dict, cabc.Mapping, cabc.MutableMapping)
                and len(args) == 2
                and isinstance(value, cabc.Mapping)
            ):
                key, val = _predicate(args[0]), _predicate(args[1])
                for k, x in value.items():
                    if not key(k):
                        return f"{text}; its key {type(k).__name__} {_short(k)}".rstrip()
                    if not val(x):
                        return f"{text}; its {k!r} is {type(x).__name__} {_short(x)}".rstrip()
            elif (
                origin in (list, tuple, set, frozenset, cabc.Sequence, cabc.MutableSequence, cabc.Collection, cabc.Set)
                and args
                and isinstance(value, cabc.Iterable)
            ):
                item = _predicate(args[0])
                for i, x in enumerate(value):
                    if not item(x):
                        return f"{type(value).__name__} with {type(x).__name__} {_short(x)} at [{i}]".rstrip()
        except TypeError:
            pass
    return text


@checked
def int_range(low: int, high: int | None = None) -> typing.Callable[[str], int]:
    """A parser of integer text in ``[low, high]``; a bad value is a ``ValueError`` whose message says what is wanted.

    What option declarations outside the command line use as their ``type``
    (:class:`sudoku_lab.benchmarks.Option`); the command line turns the message
    into its usage error.

    >>> int_range(1, 10)("3")
    3
    """
    words = f"an integer >= {low}" if high is None else f"an integer from {low} to {high:,}"

    def parse(text: str) -> int:
        try:
            value = int(str(text).strip())
        except ValueError:
            raise ValueError(f"must be {words}, got {text!r}") from None
        if value < low or (high is not None and value > high):
            raise ValueError(f"must be {words}, got {value}")
        return value

    parse.__name__ = "integer"
    return parse
