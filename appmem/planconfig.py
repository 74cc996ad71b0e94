"""The planner's typed options: how elements are ranked for a task and which planning rules apply.

One frozen object, held by the settings (`Settings.planner`) and passed down to
where each option is read (semantic/ranking.py, agent/planner.py, agent/compose.py,
agent/screenwork.py, agent/taskparse.py). Variants are made with
`dataclasses.replace`; nothing changes a module's globals. The constants and
rules here are chosen leave-one-app-out on exact plans by bench/plan.py.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields


@dataclass(frozen=True)
class RankingConfig:
    """How semantic/ranking.py scores elements for a task (its docstring explains the stages)."""

    lexical_weight: float = 0.1  # weight of the IDF-weighted word overlap beside cosine
    rerank: int = 30  # candidates the learned ranker re-orders
    follow: bool = True  # stage 3: a confirm precedes its screen's opener
    commit: bool = True  # stage 4: a confirm precedes its own screen's best entry
    entries: tuple[str, ...] = ("input", "toggle")  # what a confirm commits (stage 4)
    named: bool = True  # a choice the task names in full precedes its opener
    dialogs: bool = True  # stage 4 also commits the entries of the dialogs a confirm's screen opens
    twins: bool = True  # an element never seen to open anything opens what its twins (same label, id, role) opened
    evidence: bool = True  # stage 4 only where the memory shows a confirm needed; elsewhere the best choice leads
    named_share: float = 1.0  # share of a choice's label stems the task must say for `named`
    goal_weight: float = 0.2  # weight of the task words its last clause says (a task of several steps ends there)
    twin_next: bool = True  # a control ranks right after the best of its twins on look-alike screens (same title)


@dataclass(frozen=True)
class PlannerConfig:
    """What agent/ plans with. Each rule is a switch so that bench/plan.py can measure it with and without."""

    ranking: RankingConfig = field(default_factory=RankingConfig)
    pool: int = 2000  # ranked candidates a plan weighs
    option_min: float = 0.6  # share of an option's label words the task must say to select it
    cover_w: float = 0.6  # a candidate's score: weight of the share of task words its steps say
    value_w: float = 0.0  # weight of the share of task values it types or selects
    step_cost: float = 0.03  # cost per step
    rel_w: float = 0.05  # weight of ln(product of the hops' reliabilities)
    # ln odds by which a route must be likelier to land, per state change on its way, to be kept over a quieter
    # one (agent/candidate_routes.py `quietest`): e, as the route cost weighs a hop (graph/routes.py HOP)
    change_odds: float = 1.0
    # rules (agent/compose.py)
    confirm_evidence: bool = True  # a changed dialog or form is confirmed only where memory shows it is needed
    quoted_label: bool = True  # "tap 'X'": the element labelled exactly X is a target
    twin_effect: bool = True  # a target never seen to open anything opens what its twin was seen to open
    twin_rank: bool = True  # twins among the targets (one control on several screens) rank as the best of them
    buttons_not_rows: bool = True  # a dialog's OK or Cancel is no row of the list beside it
    item_then_target: bool = True  # the item the task names, on the target's screen, is selected first
    sibling_effect: bool = True  # a row never seen tapped leads where the rows beside it led
    choice_closes: bool = True  # a choice on a screen without a confirm closes it, to where back led
    commit_landing: bool = True  # a choice that closed its dialog onto a form is confirmed there
    crowd_twins: bool = True  # a look-alike screen of another app lends its confirm and its twins' effects
    named_way: bool = True  # the route takes the controls the task names
    shown_kept: bool = True  # a time or a named choice that a screen the plan confirms shows already is kept as is
    # rules (agent/screenwork.py)
    whole_row: bool = True  # a named item's row keeps all it shows ("Movies\n0 items"), not just the name
    file_name: bool = True  # a file name goes to the name field, without the extension the form adds
    leave_checked: bool = True  # a toggle the task names without saying on or off is wanted on: one on is left alone
    keypad: bool = True  # a number goes in key by key on a screen with a key for each digit (agent/plansteps.py)
    # rules (agent/taskparse.py)
    from_to: bool = True  # "from X to Y": X is the current value, Y the wanted one

    @classmethod
    def rules(cls) -> tuple[str, ...]:
        """The names of the rule switches (the boolean fields)."""
        return tuple(f.name for f in fields(cls) if f.type in ("bool", bool))


DEFAULT = PlannerConfig()
