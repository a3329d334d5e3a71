"""A small declarative base for the wire models: typed fields, lax coercion, unknown keys kept.

The models are read on the CLI's hot path, so this module is plain Python and imports nothing
heavy. A model declares its fields with `field(check, default)`; `model_validate(dict)` coerces
each one the way pydantic's lax mode did (ids written as ints, `null` for "", "1.5" for 1.5),
keeps every unknown key in `model_extra` and refuses a wrong type with a `ValidationError`
naming the key and the problem (`errors()[0]` has `loc` and `msg`).
"""

from __future__ import annotations

import math
from enum import Enum

TYPE_CHECKING = False  # not typing's: importing typing costs every CLI call ~2 ms
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    Check = Callable[[Any], Any]

_MISSING: Any = object()
# The whitespace pydantic (Rust's str::trim) strips around a number written as a string.
_SPACE = " \t\n\x0b\x0c\r\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
_TRUE = frozenset({"1", "on", "t", "true", "y", "yes"})
_FALSE = frozenset({"0", "off", "f", "false", "n", "no"})
_INT_LIMIT = 2**63  # a float beyond this is too large to read as an integer


class Invalid(Exception):
    """Raised by a check: one or more (loc, msg, type) problems, loc relative to the value."""

    def __init__(self, msg: str, kind: str, loc: tuple[Any, ...] = ()):
        super().__init__(msg)
        self.problems: list[tuple[tuple[Any, ...], str, str]] = [(loc, msg, kind)]


class ValidationError(ValueError):
    """A wire dict that does not fit its model; `errors()` lists the problems in field order."""

    def __init__(self, title: str, problems: list[tuple[tuple[Any, ...], str, str]]):
        self.title = title
        self._problems = problems
        first = problems[0]
        super().__init__(f"{title}: {'.'.join(map(str, first[0]))}: {first[1]}")

    def errors(self) -> list[dict[str, Any]]:
        return [{"loc": loc, "msg": msg, "type": kind} for loc, msg, kind in self._problems]


# ------------------------------------------------------------------ checks (one value each)


def to_str(v: Any) -> str:
    if type(v) is str:
        return v
    if isinstance(v, str):  # a str enum member: its value
        return str.__str__(v)
    raise Invalid("Input should be a valid string", "string_type")


def wire_str(v: Any) -> str:
    """A string a peer may also write as null (read as "")."""
    return "" if v is None else to_str(v)


def to_id(v: Any) -> str:
    """Peers write ids as ints or strings; teamtui compares them as strings."""
    if type(v) is int:
        return str(v)
    return to_str(v)


def to_float(v: Any) -> float:
    if type(v) is float:
        return v
    if isinstance(v, (int, float)):  # bool too, as 0.0 / 1.0
        try:
            return float(v)
        except OverflowError:
            raise Invalid("Input should be a valid number", "float_type") from None
    if isinstance(v, str):
        s = v.strip(_SPACE)
        if s.isascii():
            try:
                return float(s)
            except ValueError:
                pass
        raise Invalid("Input should be a valid number, unable to parse string as a number", "float_parsing")
    raise Invalid("Input should be a valid number", "float_type")


def to_int(v: Any) -> int:
    if type(v) is int:
        return v
    if isinstance(v, int):  # bool
        return int(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise Invalid("Input should be a finite number", "finite_number")
        if v != int(v):
            raise Invalid("Input should be a valid integer, got a number with a fractional part", "int_from_float")
        if abs(v) >= _INT_LIMIT:
            raise Invalid("Unable to parse input string as an integer, exceeded maximum size", "int_parsing_size")
        return int(v)
    if isinstance(v, str):
        s = v.strip(_SPACE)
        whole, dot, frac = s.partition(".")
        if s.isascii() and (not dot or (frac and frac.strip("0") == "" and whole[-1:].isdigit())):
            try:
                return int(whole)
            except ValueError:
                pass
        raise Invalid("Input should be a valid integer, unable to parse string as an integer", "int_parsing")
    raise Invalid("Input should be a valid integer", "int_type")


def to_bool(v: Any) -> bool:
    if v is True or v is False:
        return v
    if isinstance(v, (int, float)):
        if v == 0 or v == 1:
            return bool(v)
        if -_INT_LIMIT <= v < _INT_LIMIT and v == int(v):  # a whole number, but not 0 or 1
            raise Invalid("Input should be a valid boolean, unable to interpret input", "bool_parsing")
    elif isinstance(v, str):
        s = v.lower()
        if s in _TRUE:
            return True
        if s in _FALSE:
            return False
        raise Invalid("Input should be a valid boolean, unable to interpret input", "bool_parsing")
    raise Invalid("Input should be a valid boolean", "bool_type")


def anything(v: Any) -> Any:
    return v


def to_dict(v: Any) -> dict[str, Any]:
    if isinstance(v, dict):
        return dict(v)
    raise Invalid("Input should be a valid dictionary", "dict_type")


def optional(check: Check) -> Check:
    """`null` or what `check` accepts."""

    def check_optional(v: Any) -> Any:
        return None if v is None else check(v)

    return check_optional


def list_of(item: Check) -> Check:
    def check_list(v: Any) -> list[Any]:
        if not isinstance(v, (list, tuple)):
            raise Invalid("Input should be a valid list", "list_type")
        out, problems = [], []
        for i, x in enumerate(v):
            try:
                out.append(item(x))
            except Invalid as exc:
                problems += [((i, *loc), msg, kind) for loc, msg, kind in exc.problems]
        if problems:
            err = Invalid("", "")
            err.problems = problems
            raise err
        return out

    return check_list


def one_of(enum: type[Enum]) -> Check:
    """A member of `enum`, given as itself or as its value."""
    by_value = {m.value: m for m in enum}
    msg = "Input should be " + _spell_choices([repr(m.value) for m in enum])

    def check_enum(v: Any) -> Enum:
        if isinstance(v, enum):
            return v
        if type(v) is str and v in by_value:
            return by_value[v]
        raise Invalid(msg, "enum")

    return check_enum


def exactly(value: str) -> Check:
    """A payload's `type`: this one string."""
    msg = f"Input should be {value!r}"

    def check_literal(v: Any) -> str:
        if v == value and isinstance(v, str):
            return value
        raise Invalid(msg, "literal_error")

    return check_literal


def _spell_choices(choices: list[str]) -> str:
    return choices[0] if len(choices) == 1 else ", ".join(choices[:-1]) + " or " + choices[-1]


# ------------------------------------------------------------------ fields and models


class Field:
    """One declared field: how its value is checked, its default, and the key peers also spell it by."""

    __slots__ = ("name", "check", "default", "factory", "alias")

    def __init__(self, check: Check, default: Any, factory: Callable[[], Any] | None, alias: str | None):
        self.name = ""
        self.check = check
        self.default = default
        self.factory = factory
        self.alias = alias


def field(
    check: Check, default: Any = _MISSING, *, factory: Callable[[], Any] | None = None, alias: str | None = None
) -> Any:
    """Declare a field; no default and no factory makes it required. `alias` is read first."""
    return Field(check, default, factory, alias)


class WireBase:
    """A model read from a wire dict. Fields are attributes; unknown keys are kept in `model_extra`."""

    model_fields: dict[str, Field] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        fields = dict(cls.model_fields)
        for name, value in list(vars(cls).items()):
            if isinstance(value, Field):
                value.name = name
                fields[name] = value  # a redeclared field keeps its parent's place, as in pydantic
                delattr(cls, name)
        cls.model_fields = fields

    def __init__(self, **data: Any) -> None:
        self._fill(data)

    @classmethod
    def model_validate(cls, data: Any) -> Any:
        if isinstance(data, cls):
            return data
        if not isinstance(data, dict):
            raise ValidationError(cls.__name__, [((), "Input should be a valid dictionary", "model_type")])
        self = cls.__new__(cls)
        self._fill(data)
        return self

    def _fill(self, data: dict[str, Any]) -> None:
        values: dict[str, Any] = {}
        used: set[str] = set()
        problems: list[tuple[tuple[Any, ...], str, str]] = []
        for name, f in self.model_fields.items():
            key = f.alias if f.alias is not None and f.alias in data else name
            value = data.get(key, _MISSING)
            if value is _MISSING:
                if f.factory is not None:
                    values[name] = f.factory()
                elif f.default is not _MISSING:
                    values[name] = f.default
                else:
                    problems.append(((f.alias or name,), "Field required", "missing"))
                continue
            used.add(key)
            try:
                values[name] = f.check(value)
            except Invalid as exc:
                problems += [((key, *loc), msg, kind) for loc, msg, kind in exc.problems]
        if problems:
            raise ValidationError(type(self).__name__, problems)
        values["model_extra"] = {k: v for k, v in data.items() if k not in used} if len(used) < len(data) else {}
        self.__dict__.update(values)

    def __getattr__(self, name: str) -> Any:
        # Unknown keys read as attributes too, as they did on the pydantic models (never a dunder:
        # copy and pickle look those up).
        extra = self.__dict__.get("model_extra")
        if extra is not None and name in extra and not name.startswith("__"):
            return extra[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def model_copy(self, *, update: dict[str, Any] | None = None) -> Any:
        """A shallow copy; `update` sets fields as given, without checking them."""
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.__dict__["model_extra"] = dict(self.model_extra)
        for k, v in (update or {}).items():
            if k in self.model_fields:
                new.__dict__[k] = v
            else:
                new.model_extra[k] = v
        return new

    def model_dump(self, *, mode: str = "python", by_alias: bool = False) -> dict[str, Any]:
        """Fields (by name, or by the wire key with `by_alias`), then the unknown keys.
        mode="json": enum members as their values, nested models as dicts, tuples as lists."""
        json = mode == "json"
        out: dict[str, Any] = {}
        for name, f in self.model_fields.items():
            value = self.__dict__[name]
            if isinstance(value, WireBase):
                value = value.model_dump(mode=mode, by_alias=by_alias)
            elif json:  # an untyped field is written as untyped values are (inf and nan as null)
                value = _json_any(value) if f.check is anything else _json_field(value)
            elif isinstance(value, list):
                value = [x.model_dump(by_alias=by_alias) if isinstance(x, WireBase) else x for x in value]
            out[f.alias if by_alias and f.alias else name] = value
        for k, v in self.model_extra.items():
            out[k] = _json_any(v) if json else v
        return out

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.__dict__ == other.__dict__

    # Unhashable, as pydantic's models are: __eq__ without __hash__ sets __hash__ to None.

    def __repr__(self) -> str:
        parts = [f"{name}={self.__dict__[name]!r}" for name in self.model_fields]
        parts += [f"{k}={v!r}" for k, v in self.model_extra.items()]
        return f"{type(self).__name__}({', '.join(parts)})"


def model_of(cls: type[WireBase]) -> Check:
    """A nested model: an instance as it is, or a dict read into one."""
    msg = f"Input should be a valid dictionary or instance of {cls.__name__}"

    def check_model(v: Any) -> Any:
        if isinstance(v, cls):
            return v
        if not isinstance(v, dict):
            raise Invalid(msg, "model_type")
        try:
            return cls.model_validate(v)
        except ValidationError as exc:
            err = Invalid("", "")
            err.problems = exc._problems
            raise err from None

    return check_model


def _json_field(v: Any) -> Any:
    if isinstance(v, Enum):
        return v.value
    if isinstance(v, list):
        return [x.model_dump(mode="json") if isinstance(x, WireBase) else _json_any(x) for x in v]
    if isinstance(v, (dict, tuple)):
        return _json_any(v)
    return v  # a float field keeps inf and nan, as pydantic's serializer did


def _json_any(v: Any) -> Any:
    # An untyped value (metadata, unknown keys): non-finite floats become null, as pydantic wrote them.
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, Enum):
        return v.value
    if isinstance(v, dict):
        return {k: _json_any(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_json_any(x) for x in v]
    if isinstance(v, WireBase):
        return v.model_dump(mode="json")
    return v
