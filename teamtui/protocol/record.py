"""Small value classes without `dataclasses`: importing it (and the `inspect` it pulls in) cost
every CLI call about 10 ms. A subclass names its fields in `__slots__` and writes its own
`__init__`; Record gives it a dataclass's `==` and repr, FrozenRecord also its hash and immutability.
"""

from __future__ import annotations


class Record:
    # Mutable, so unhashable as a dataclass with eq: defining __eq__ without __hash__ sets __hash__ to None.
    __slots__: tuple[str, ...] = ()

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{self.__class__.__qualname__}({fields})"


class FrozenRecord(Record):
    """Set its fields in `__init__` with `init_field(self, name, value)`; afterwards they cannot change."""

    __slots__: tuple[str, ...] = ()

    # Hashable again, as a frozen dataclass is where a plain one is not.
    def __hash__(self) -> int:
        return hash(self._values())

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r} of a frozen {self.__class__.__name__}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of a frozen {self.__class__.__name__}")

    # pickle and copy restore slots with setattr, which a frozen record refuses.
    def __getstate__(self) -> tuple[object, ...]:
        return self._values()

    def __setstate__(self, state: tuple[object, ...]) -> None:
        for name, value in zip(self.__slots__, state, strict=False):  # a state of another length: the fields both have
            init_field(self, name, value)


# How a frozen record sets its fields, in __init__ only.
init_field = object.__setattr__
