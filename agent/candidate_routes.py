"""The routes a candidate plan may take to a target, each composed into a candidate (agent/compose.py).

For every start and target: the cheapest route (agent/appgraph.py); the routes through
a tap whose control the task names before it names the target, where the cheapest
plan leaves that control's words unsaid (rule `named_way`: a dialog two controls open
looks the same to the memory, so the cheapest way may take the other control); each of
those over the row of an item the task names; and the way through the item's row
when the target lies beyond the item's screen; when the cheapest route ticks a toggle or
takes a risky tap on its way, also the cheapest route that does not (AppGraph.quiet). No
route passes a screen twice. Of a target's candidates, those whose route changes least on
its way (compose.unasked) are kept: a route through a state change is a last resort, taken
where memory shows the quieter routes far less likely to land (`quietest`).
"""
from __future__ import annotations

from appmem.agent.appgraph import AppGraph
from appmem.agent.compose import Anchor, RouteCandidate, compose, lands, spoken, unasked
from appmem.agent.screenwork import label
from appmem.agent.taskparse import ParsedTask, alike, content_stems, coverage, position
from appmem.graph.model import Element
from appmem.graph.routes import Edge
from appmem.planconfig import PlannerConfig


def named_taps(graph: AppGraph, parsed: ParsedTask, config: PlannerConfig) -> list[Edge]:
    """Taps of the app whose control the task names (`option_min` of its label's words) and that lead to
    another screen; none when rule `named_way` is off."""
    if not config.named_way:
        return []
    return graph.named_taps(lambda name: coverage(name, parsed.words) >= config.option_min)


def candidates(graph: AppGraph, parsed: ParsedTask, origin: str, target: Element, retrieval: float,
               anchors: list[Anchor], named: list[Edge], config: PlannerConfig) -> list[RouteCandidate]:
    out = []
    route = graph.route(origin, target.screen_id)
    if route is not None:
        out.append(compose(graph, parsed, target, retrieval, [route], config=config))
        routes = [route] + named_routes(graph, parsed, origin, target, route, spoken(out[0].steps), named)
        if any(graph.changes_state(e.element_id) for e in route) and (
                calm := graph.quiet.route(origin, target.screen_id)) is not None:
            routes.append(calm)  # the cheapest route that changes nothing on its way
        out += [compose(graph, parsed, target, retrieval, [way], config=config) for way in routes[1:]]
        # a route over a row of the anchor's list takes the named row instead
        out += [compose(graph, parsed, target, retrieval, [way], anchor, config)
                for way in routes for anchor in anchors]
    for anchor in anchors:
        to_row = graph.route(origin, anchor.row.screen_id)
        from_row = graph.route(anchor.opens, target.screen_id)
        if to_row is not None and from_row is not None:
            out.append(compose(graph, parsed, target, retrieval, [to_row, from_row], anchor, config))
    return quietest(out, config)


def quietest(out: list[RouteCandidate], config: PlannerConfig) -> list[RouteCandidate]:
    """The candidates whose routes change least on their way (`unasked`): a route through a toggle or a risky tap
    is a last resort. A quiet route that memory shows far less likely to land (`lands`) than one through a change
    is no way round: its hops mostly land elsewhere (screens memory cannot tell apart by the state the change
    sets, such as an app's language). A route with more changes is kept when it is likelier to land than every
    quieter one by `change_odds` (PlannerConfig; ln odds) per extra change; then the quietest of those."""
    rated = [(c, unasked(c), lands(c)) for c in out]  # each candidate's changes and landing, read once
    while rated:
        fewest = min(changes for _, changes, _ in rated)
        surest = max(land for _, changes, land in rated if changes == fewest)
        likelier = [r for r in rated if r[2] - config.change_odds * (r[1] - fewest) > surest]
        if not likelier:
            return [c for c, changes, _ in rated if changes == fewest]
        rated = likelier
    return []


def named_routes(graph: AppGraph, parsed: ParsedTask, origin: str, target: Element, route: list[Edge], told: set[str],
         named: list[Edge]) -> list[list[Edge]]:
    """Routes to `target` through a control the task names before it names the target, where the cheapest
    `route` (whose plan says `told`) leaves the control's words unsaid; none passes a screen twice."""
    goal = position(label(target), parsed.words)
    passed = {(e.source, e.element_id, e.target) for e in route}  # an edge of the route has these of its fields
    out = []
    for hop in named:
        way = graph.elements[hop.element_id]
        if hop.element_id == target.id or ((hop.source, hop.element_id, hop.target) in passed and hop in route) \
                or position(label(way), parsed.words) >= goal \
                or all(any(alike(s, t) for t in told) for s in content_stems(label(way))):
            continue
        to_hop, from_hop = graph.route(origin, hop.source), graph.route(hop.target, target.screen_id)
        if to_hop is not None and from_hop is not None:
            hops = to_hop + [hop] + from_hop
            if len({origin, *(e.target for e in hops)}) == len(hops) + 1:
                out.append(hops)
    return out
