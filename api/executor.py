"""A graphql-core executor that completes plain fields inline (role: execution speed-up).

graphql-core resolves every field the same way: a ``GraphQLResolveInfo``, the resolver, then
``complete_value`` with its type dispatch, per field and per list item. For a field that only
reads an attribute (strawberry's "basic" fields: no resolver, no arguments, no extensions) and
returns a scalar, a list of scalars or an object made of such fields, that machinery is nearly
all of the cost: a network of 200 nodes and 1,000 edges is about 4,000 of them.

:class:`PlainFieldExecutor` plans each selection set once per request: which fields are plain
(and how to coerce them) and which need graphql-core. Plain fields are then completed with an
attribute read and the scalar's own output coercion (skipped when the value already is what
the coercion would return: a ``str`` for ``String``/``ID``, an ``int`` in 32-bit range for
``Int``, a finite ``float`` for ``Float``, a ``bool`` for ``Boolean``); the other fields go
through graphql-core as before.

Nothing observable changes. Whenever a plain field meets anything unusual (``None`` for a
non-null field, a value the scalar rejects, a list that is not a list, a missing attribute) the
whole object is completed by graphql-core instead, which then produces exactly the data and
errors it always did. Fields with arguments, with a directive other than ``@include``/``@skip``
(already applied when fields are collected), under ``@defer``, of abstract types or of types
with an ``is_type_of`` check, and every field when a schema extension wraps resolvers, are
never planned as plain.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from itertools import repeat
from operator import attrgetter
from typing import Any, NamedTuple

from graphql import (
    GraphQLBoolean,
    GraphQLFloat,
    GraphQLID,
    GraphQLInt,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLResolveInfo,
    GraphQLString,
    is_leaf_type,
)
from graphql.execution.collect_fields import FieldDetailsList, GroupedFieldSet
from graphql.pyutils import Path, Undefined
from graphql.type.scalars import GRAPHQL_MAX_INT, GRAPHQL_MIN_INT
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext

__all__ = ["PlainFieldExecutor"]

_MISSING = object()
_ALLOWED_DIRECTIVES = frozenset({"include", "skip"})  # applied while fields are collected
# Python type a built-in scalar's output coercion returns unchanged (within range for Int,
# finite for Float): values of exactly that type need no call.
_NATIVE: dict[str, type] = {
    GraphQLString.name: str,
    GraphQLID.name: str,
    GraphQLInt.name: int,
    GraphQLFloat.name: float,
    GraphQLBoolean.name: bool,
}
_BUILT_IN = {t.name: t for t in (GraphQLString, GraphQLID, GraphQLInt, GraphQLFloat, GraphQLBoolean)}


class _Fail(Exception):
    """A plain field met something unusual: graphql-core must complete the object."""


class Step(NamedTuple):
    """How to complete one plain field of a selection set."""

    key: str  # response key
    attr: str  # Python attribute ("" for __typename)
    nullable: bool
    is_list: bool
    items_nullable: bool
    coerce: Callable[[Any], Any] | None  # leaf output coercion; None for objects
    native: type | None  # leaf values of exactly this type are returned as they are
    sub: Compiled | None  # an object field's selection (every field plain)


class Compiled(NamedTuple):
    """A selection set whose fields are all plain, with a fast path for the common case.

    ``getter`` reads every field at once when all are non-list leaves of built-in scalars; if
    the values have exactly the ``types`` (and ``ints``/``floats`` are in range), they are the
    response as they are.
    """

    steps: tuple[Step, ...]
    keys: tuple[str, ...]
    getter: Callable[[Any], Any] | None
    types: tuple[type, ...]
    ints: tuple[int, ...]
    floats: tuple[int, ...]


# Per field of a selection set: its step, or None when graphql-core must resolve it.
Plan = tuple[Step | None, ...]


def _has_foreign_directives(field_details_list: FieldDetailsList) -> bool:
    return any(
        d.name.value not in _ALLOWED_DIRECTIVES
        for details in field_details_list
        for d in details.node.directives or ()
    )


def _compile(steps: tuple[Step, ...]) -> Compiled:
    # None in a nullable field fails the type test below and takes the general path.
    fast = all(s.attr and not s.is_list and s.sub is None and s.native is not None for s in steps)
    getter = attrgetter(*(s.attr for s in steps)) if fast and steps else None
    types = tuple(s.native for s in steps if s.native is not None)
    return Compiled(
        steps=steps,
        keys=tuple(s.key for s in steps),
        getter=getter,
        types=types,
        ints=tuple(i for i, t in enumerate(types) if t is int),
        floats=tuple(i for i, t in enumerate(types) if t is float),
    )


class PlainFieldExecutor(StrawberryGraphQLCoreExecutionContext):
    """Strawberry's graphql-core executor, with plain fields completed inline."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Keyed by id(); the key object is kept in the value so that its id stays unique.
        self._plans: dict[int, tuple[GroupedFieldSet, Plan, Compiled | None]] = {}
        self._list_steps: dict[int, tuple[FieldDetailsList, Step | None]] = {}

    # -- graphql-core hooks -------------------------------------------------------------------
    def execute_fields(
        self,
        parent_type: GraphQLObjectType,
        source_value: Any,
        path: Path | None,
        grouped_field_set: GroupedFieldSet,
        position_context: Any,
    ) -> Any:
        plan, compiled = self._plan_for(parent_type, grouped_field_set)
        execute = super().execute_fields
        if not any(plan):
            return execute(parent_type, source_value, path, grouped_field_set, position_context)
        try:
            if compiled is not None:
                return _complete_compiled(compiled, source_value)
            plain = _complete_steps(plan, source_value)
        except _Fail:
            return execute(parent_type, source_value, path, grouped_field_set, position_context)
        rest = {
            key: fields
            for (key, fields), step in zip(grouped_field_set.items(), plan, strict=True)
            if step is None
        }
        resolved: Any = execute(parent_type, source_value, path, rest, position_context)
        keys = list(grouped_field_set)
        if self.is_awaitable(resolved):

            async def merged() -> dict[str, Any]:
                return _merge(keys, plain, await resolved)

            return merged()
        return _merge(keys, plain, resolved)

    def complete_list_value(
        self,
        return_type: GraphQLList[GraphQLOutputType],
        field_details_list: FieldDetailsList,
        info: GraphQLResolveInfo[Any],
        path: Path,
        result: Any,
        position_context: Any,
    ) -> Any:
        step = self._list_step(return_type, field_details_list)
        if step is not None:
            try:
                return _complete_list(step, result)
            except _Fail:
                pass
        return super().complete_list_value(
            return_type, field_details_list, info, path, result, position_context
        )

    # -- planning -----------------------------------------------------------------------------
    def _plan_for(
        self, parent_type: GraphQLObjectType, grouped_field_set: GroupedFieldSet
    ) -> tuple[Plan, Compiled | None]:
        entry = self._plans.get(id(grouped_field_set))
        if entry is None or entry[0] is not grouped_field_set:
            plan = self._plan(parent_type, grouped_field_set)
            steps = tuple(s for s in plan if s is not None)
            entry = (grouped_field_set, plan, _compile(steps) if len(steps) == len(plan) else None)
            self._plans[id(grouped_field_set)] = entry
        return entry[1], entry[2]

    def _plan(self, parent_type: GraphQLObjectType, grouped_field_set: GroupedFieldSet) -> Plan:
        if getattr(self.middleware_manager, "middlewares", None):
            return tuple(None for _ in grouped_field_set)  # an extension wraps every resolver
        return tuple(self._field_step(parent_type, key, fields) for key, fields in grouped_field_set.items())

    def _field_step(
        self, parent_type: GraphQLObjectType, key: str, field_details_list: FieldDetailsList
    ) -> Step | None:
        node = field_details_list[0].node
        if node.arguments or _has_foreign_directives(field_details_list):
            return None
        name = node.name.value
        if name == "__typename":
            typename = parent_type.name
            return Step(key, "", False, False, False, lambda _source: typename, None, None)
        field_def = parent_type.fields.get(name)
        if field_def is None or field_def.args:
            return None
        definition = field_def.extensions.get("strawberry-definition")
        if (
            definition is None
            or not definition.is_basic_field
            or getattr(field_def.resolve, "__name__", "") != "_get_basic_result"
        ):
            return None
        return self._value_step(key, definition.python_name, field_def.type, field_details_list)

    def _value_step(
        self, key: str, attr: str, type_: GraphQLOutputType, field_details_list: FieldDetailsList
    ) -> Step | None:
        nullable = not isinstance(type_, GraphQLNonNull)
        inner = type_.of_type if isinstance(type_, GraphQLNonNull) else type_
        is_list = isinstance(inner, GraphQLList)
        items_nullable = False
        if isinstance(inner, GraphQLList):
            item = inner.of_type
            items_nullable = not isinstance(item, GraphQLNonNull)
            inner = item.of_type if isinstance(item, GraphQLNonNull) else item
        if is_leaf_type(inner):
            native = _NATIVE.get(inner.name) if _BUILT_IN.get(inner.name) is inner else None
            coerce = inner.coerce_output_value
            return Step(key, attr, nullable, is_list, items_nullable, coerce, native, None)
        if not isinstance(inner, GraphQLObjectType) or inner.is_type_of is not None:
            return None  # abstract types, or objects that check what they are given
        grouped_field_set, new_defer_usages, _ = self.collect_subfields(inner, field_details_list)
        if new_defer_usages:
            return None
        _plan, compiled = self._plan_for(inner, grouped_field_set)
        if compiled is None:
            return None
        return Step(key, attr, nullable, is_list, items_nullable, None, None, compiled)

    def _list_step(
        self, return_type: GraphQLList[GraphQLOutputType], field_details_list: FieldDetailsList
    ) -> Step | None:
        """The step for a list value whose items are plain (also lists made by resolvers)."""
        entry = self._list_steps.get(id(field_details_list))
        if entry is None or entry[0] is not field_details_list:
            step = (
                None  # e.g. @stream
                if _has_foreign_directives(field_details_list)
                else self._value_step("", "", GraphQLNonNull(return_type), field_details_list)
            )
            entry = (field_details_list, step)
            self._list_steps[id(field_details_list)] = entry
        return entry[1]


# -- completion -------------------------------------------------------------------------------


def _merge(keys: list[str], plain: dict[str, Any], resolved: dict[str, Any]) -> dict[str, Any]:
    """Both halves of an object in selection order (fields graphql-core skipped stay out)."""
    out: dict[str, Any] = {}
    for key in keys:
        if key in plain:
            out[key] = plain[key]
        elif key in resolved:
            out[key] = resolved[key]
    return out


def _complete_compiled(compiled: Compiled, source: Any) -> dict[str, Any]:
    getter = compiled.getter
    if getter is not None:
        try:
            values = getter(source)
        except AttributeError as e:
            raise _Fail from e
        if len(compiled.keys) == 1:
            values = (values,)
        if tuple(map(type, values)) == compiled.types and _in_range(compiled, [values]):
            return dict(zip(compiled.keys, values, strict=True))
    return _complete_steps(compiled.steps, source)


def _complete_many(compiled: Compiled, items: list[Any] | tuple[Any, ...]) -> list[dict[str, Any]]:
    """A list of objects: with a getter, read all rows, check all types at once, build the dicts
    (the loops run in C: a network's 1,000 edges are one call each); else object by object."""
    getter = compiled.getter
    if getter is None or not items:
        return [_complete_compiled(compiled, item) for item in items]
    try:
        rows = list(map(getter, items))
    except Exception as e:  # e.g. None in a non-null list: graphql-core reports it
        raise _Fail from e
    if len(compiled.keys) == 1:
        rows = [(row,) for row in rows]
    if all(map(compiled.types.__eq__, map(tuple, map(map, repeat(type), rows)))) and _in_range(
        compiled, rows
    ):
        return list(map(dict, map(zip, repeat(compiled.keys), rows)))
    return [_complete_compiled(compiled, item) for item in items]


def _in_range(compiled: Compiled, rows: list[Any]) -> bool:
    """Int columns within 32 bits, Float columns finite (types already checked)."""
    for i in compiled.ints:
        column = [row[i] for row in rows]
        if min(column) < GRAPHQL_MIN_INT or max(column) > GRAPHQL_MAX_INT:
            return False
    return all(all(map(math.isfinite, [row[i] for row in rows])) for i in compiled.floats)


def _complete_steps(steps: Plan, source: Any) -> dict[str, Any]:
    """The plain fields of ``steps`` (``None`` entries are left to graphql-core)."""
    out: dict[str, Any] = {}
    for step in steps:
        if step is None:
            continue
        value = getattr(source, step.attr, _MISSING) if step.attr else source
        if value is None:
            if not step.nullable:
                raise _Fail
            out[step.key] = None
        elif step.is_list:
            out[step.key] = _complete_list(step, value)
        else:
            out[step.key] = _complete_item(step, value)
    return out


def _complete_list(step: Step, value: Any) -> list[Any]:
    if type(value) is not list and type(value) is not tuple:
        raise _Fail  # None, generators, async iterables...: graphql-core handles them
    if step.sub is not None:
        sub = step.sub
        if not step.items_nullable:
            return _complete_many(sub, value)
        return [None if item is None else _complete_compiled(sub, item) for item in value]
    out: list[Any] = []
    for item in value:
        if item is None:
            if not step.items_nullable:
                raise _Fail
            out.append(None)
        else:
            out.append(_complete_item(step, item))
    return out


def _complete_item(step: Step, value: Any) -> Any:
    if value is _MISSING or value is None or isinstance(value, Exception):
        raise _Fail
    if step.sub is not None:
        return _complete_compiled(step.sub, value)
    native = step.native
    kind = type(value)  # (compared via a variable: mypy would narrow ``value`` to ``object``)
    if native is not None and kind is native:
        if native is int:
            if GRAPHQL_MIN_INT <= value <= GRAPHQL_MAX_INT:
                return value
        elif native is not float or math.isfinite(value):
            return value
    try:
        coerced = step.coerce(value)  # type: ignore[misc]
    except Exception as e:  # graphql-core reports it, located, as a field error
        raise _Fail from e
    if coerced is None or coerced is Undefined:
        raise _Fail
    return coerced
