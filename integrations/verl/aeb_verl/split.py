"""Train / validation split by scenario, so that validation measures what the policy learned about
users it never trained on, not how well it remembers the training users.

Three ways to hold scenarios out, combinable:

- ``val_types``: every scenario of these trajectory types goes to validation (held out by type:
  does the policy handle a kind of adversarial user it never met?);
- ``val_scenarios``: these scenario ids go to validation;
- ``val_fraction`` (when no ids are given): about this fraction of the remaining scenarios, spread
  over the trajectory types in turn so that each type loses a share (types with a single scenario
  keep it for training).

Which scenarios a fraction picks depends only on the seed and the scenario ids (SHA-256 ranks),
not on the order the server lists them or the Python version.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Optional, Sequence


@dataclass(frozen=True)
class ScenarioSplit:
    train: list[dict[str, Any]]
    validation: list[dict[str, Any]]
    #: Why each validation scenario is held out: ``type`` or ``scenario``.
    held_out_by: dict[str, str]


def _rank(seed: int, key: str) -> str:
    return hashlib.sha256(f"{seed}\x00{key}".encode("utf-8")).hexdigest()


def split_scenarios(
    scenarios: Sequence[dict[str, Any]],
    *,
    seed: int,
    val_fraction: float = 0.2,
    val_scenarios: Optional[Sequence[str]] = None,
    val_types: Optional[Sequence[str]] = None,
) -> ScenarioSplit:
    """Splits scenarios (as ``GET /v1/scenarios`` lists them) into disjoint train and validation sets."""
    if not 0 <= val_fraction < 1:
        raise ValueError(f"the validation fraction must be in [0, 1), got {val_fraction}")
    by_id = {scenario["id"]: scenario for scenario in scenarios}
    if len(by_id) != len(scenarios):
        raise ValueError("the server lists a scenario id twice")
    types_present = {scenario["type"] for scenario in scenarios}
    held_out_by: dict[str, str] = {}
    for kind in val_types or ():
        if kind not in types_present:
            raise ValueError(f"held-out type {kind!r} has no scenario among those selected (types: {', '.join(sorted(types_present))})")
        for scenario in scenarios:
            if scenario["type"] == kind:
                held_out_by[scenario["id"]] = "type"
    if val_scenarios:
        for scenario_id in val_scenarios:
            if scenario_id not in by_id:
                raise ValueError(f"held-out scenario {scenario_id!r} is not among those selected")
            held_out_by.setdefault(scenario_id, "scenario")
    elif val_fraction > 0:
        remaining = [scenario for scenario in scenarios if scenario["id"] not in held_out_by]
        count = max(1, round(val_fraction * len(remaining))) if remaining else 0
        for scenario_id in _spread_over_types(remaining, seed)[:count]:
            held_out_by[scenario_id] = "scenario"
    train = sorted((scenario for scenario in scenarios if scenario["id"] not in held_out_by), key=lambda scenario: scenario["id"])
    validation = sorted((scenario for scenario in scenarios if scenario["id"] in held_out_by), key=lambda scenario: scenario["id"])
    if not train:
        raise ValueError("no scenario is left for training: hold out fewer")
    if not validation:
        raise ValueError("no scenario is held out for validation: give --val-fraction > 0, --val-scenarios or --val-types")
    return ScenarioSplit(train, validation, held_out_by)


def _spread_over_types(scenarios: Sequence[dict[str, Any]], seed: int) -> list[str]:
    """Scenario ids in the order a fraction takes them: the first (by rank) of each type, types in
    rank order, then the second of each, and so on; never a type's last scenario."""
    by_type: dict[str, list[str]] = {}
    for scenario in scenarios:
        by_type.setdefault(scenario["type"], []).append(scenario["id"])
    for ids in by_type.values():
        ids.sort(key=lambda scenario_id: _rank(seed, scenario_id))
    types = sorted(by_type, key=lambda kind: _rank(seed, f"type:{kind}"))
    order: list[str] = []
    for position in range(max((len(ids) for ids in by_type.values()), default=0)):
        for kind in types:
            ids = by_type[kind]
            if position < len(ids) - 1:
                order.append(ids[position])
    return order
