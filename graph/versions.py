"""One version identity per app.

A version is what a device reports: `versionName` (the App's `version`) with its
`versionCode` (`version_code`, which orders versions). Imports often do not know
it: DroidBot names the APK by its sha256 (`sha256:…`), AutoDroid by nothing
(`unknown`). Those names are *aliases*: an import under an alias attaches to the
known version whose screens it matches best (at least `ATTACH_SHARE` of its own
screens seen there), and the alias is recorded on that App so the next import
under it attaches at once. An import that matches no known version keeps its
alias as its version, and its edges are never judged stale (refresh_stale).
The other order folds the same way (`fold_aliases`): when a device-reported
version is written and at least ATTACH_SHARE of its screens were seen under an
alias-only version, that version becomes the device's (its screens, edges and
traces move, the alias is recorded): `stats` shows one row per real version.

A contribution's device reports a version too, but one key must not re-version
what imports recorded: its claim is kept, and a quorum of contributors names the
version (graph/version_claims.py). An alias a contribution used is never recorded
on a version (its next contribution under it is matched by its screens again), and
the version it saw a screen or an edge in is a claim beside the `versions` crawls
and imports saw (cypher/merge_screens.cypher, merge_transitions.cypher).
"""
from __future__ import annotations

from dataclasses import replace

from appmem.graph.model import Trace
from appmem.graph.rows import app_id
from appmem.graph.screens import screen_of
from appmem.graph.store import GraphStore
from appmem.graph.version_claims import absorb, claim, claims_name, is_alias, judge

ATTACH_SHARE = 0.5


def own_screens(trace: Trace) -> list[str]:
    return sorted({screen_of(s, trace.package, "").id for s in trace.states.values() if s.package == trace.package})


def best_match(rows: list[dict], own: list[str]) -> dict | None:
    """The candidate that saw the most of `own` (the newest code breaks ties), if it saw ATTACH_SHARE of them."""
    best = max(rows, key=lambda r: (r["matched"], r["version_code"] or -1), default=None)
    return best if best is not None and own and best["matched"] >= ATTACH_SHARE * len(own) else None


def resolve_version(store: GraphStore, trace: Trace, quorum: int) -> Trace:
    """The trace under the version it belongs to (itself when its version is known or new)."""
    own = own_screens(trace)
    rows = store.read("version_candidates", package=trace.package, screen_ids=own)
    if not is_alias(trace.app_version):
        mine = next((r for r in rows if r["version"] == trace.app_version), None)
        if not trace.contributor or (mine is not None and mine["trusted"]):
            return trace
        # a contribution's version for screens an import holds: written there, its version a claim
        named = best_match([r for r in rows if r["trusted"] and claims_name(r)], own)
        if named is None:
            return trace
        if mine is not None:  # earlier contributions under that name join the import too
            absorb(store, trace.package, trace.app_version, named["version"], app_id(trace.package, named["version"]))
        return replace(trace, app_version=named["version"])
    for row in rows:
        if trace.app_version in row["aliases"]:
            return replace(trace, app_version=row["version"], version_code=row["version_code"])
    known = [r for r in rows if not is_alias(r["version"]) and (r["trusted"] or trace.contributor)]
    best = best_match(known, own)
    if best is not None:
        if not trace.contributor:  # a contribution's alias is its word: matched by its screens each time
            store.write("version_add_alias", package=trace.package, version=best["version"], alias=trace.app_version)
        return replace(trace, app_version=best["version"], version_code=best["version_code"])
    crowd = best_match([r for r in rows if not r["trusted"] and not is_alias(r["version"])], own)
    if crowd is None or trace.contributor:
        return trace
    # the import keeps its name; what only contributions named joins it, their names as claims
    absorb(store, trace.package, crowd["version"], trace.app_version, app_id(trace.package, trace.app_version))
    return replace(trace, app_version=judge(store, trace.package, trace.app_version, quorum))


def settle_version(store: GraphStore, written: Trace, reported: str, quorum: int) -> list[str]:
    """After `written` (the trace as resolve_version placed it; `reported`: the version its device
    reported) is in the graph: a trusted device version folds alias-only versions into itself
    (fold_aliases; returns the names folded); a contribution's reported version is a claim."""
    if is_alias(reported):
        return []
    if not written.contributor:
        return fold_aliases(store, written)
    if written.app_version != reported or _claimable(store, written):
        claim(store, written.package, written.app_version, written.contributor, reported, quorum)
    return []


def fold_aliases(store: GraphStore, trace: Trace) -> list[str]:
    """A crawl, an import or one's own run of a device-reported version (already written): the versions
    known only by an alias, or named only by contributors, whose screens it matches fold into it."""
    if is_alias(trace.app_version) or trace.contributor:
        return []
    store.write("version_confirm", package=trace.package, version=trace.app_version)
    own = own_screens(trace)
    rows = store.read("version_candidates", package=trace.package, screen_ids=own)
    folded = [r for r in rows if r["version"] != trace.app_version and claims_name(r)
              and own and r["matched"] >= ATTACH_SHARE * len(own)]
    for row in folded:
        store.write("version_fold", package=trace.package, alias=row["version"], version=trace.app_version,
                    recorded=row["trusted_name"] or row["version"], screen_ids=own)
    return [r["version"] for r in folded]


def _claimable(store: GraphStore, written: Trace) -> bool:
    """Whether the version the contribution was written under is one a quorum of contributors named."""
    return any(r["version"] == written.app_version and r["trusted_name"]
               for r in store.read("version_candidates", package=written.package, screen_ids=[]))


def join_crowd_versions(store: GraphStore, quorum: int) -> int:
    """A graph written before contributions' versions were claims (`appmem migrate`): each version only
    contributions named joins the import whose screens hold ATTACH_SHARE of its own; how many joined."""
    joined = 0
    for crowd in store.read("version_crowd_only"):
        package, own = crowd["package"], sorted(crowd["screen_ids"])
        if is_alias(crowd["version"]):
            continue
        rows = store.read("version_candidates", package=package, screen_ids=own)
        named = best_match([r for r in rows if r["trusted"] and claims_name(r)], own)
        if named is not None:
            absorb(store, package, crowd["version"], named["version"], app_id(package, named["version"]))
            judge(store, package, named["version"], quorum)
            joined += 1
    return joined
