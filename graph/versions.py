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
"""
from __future__ import annotations

from dataclasses import replace

from graph.model import Trace
from graph.screens import screen_of
from graph.store import GraphStore

ALIAS_PREFIXES = ("sha256:",)
UNKNOWN = ("", "unknown")
ATTACH_SHARE = 0.5


def is_alias(version: str) -> bool:
    return version in UNKNOWN or version.startswith(ALIAS_PREFIXES)


def fold_aliases(store: GraphStore, trace: Trace) -> list[str]:
    """Fold alias-only versions of the app whose screens the trace (of a device-reported version, already
    written) matches into that version; returns the aliases folded. A contribution folds nothing: one key
    must not re-version what imports recorded."""
    if is_alias(trace.app_version) or trace.contributor:
        return []
    own = sorted({screen_of(s, trace.package, "").id for s in trace.states.values() if s.package == trace.package})
    rows = store.read("version_candidates", package=trace.package, screen_ids=own)
    folded = [r["version"] for r in rows if is_alias(r["version"]) and own and r["matched"] >= ATTACH_SHARE * len(own)]
    for alias in folded:
        store.write("version_fold", package=trace.package, alias=alias, version=trace.app_version, screen_ids=own)
    return folded


def resolve_version(store: GraphStore, trace: Trace) -> Trace:
    """The trace under the version it belongs to (itself when its version is known or new)."""
    if not is_alias(trace.app_version):
        return trace
    own = sorted({screen_of(s, trace.package, "").id for s in trace.states.values() if s.package == trace.package})
    rows = store.read("version_candidates", package=trace.package, screen_ids=own)
    for row in rows:
        if trace.app_version in row["aliases"]:
            return replace(trace, app_version=row["version"], version_code=row["version_code"])
    known = [r for r in rows if not is_alias(r["version"])]
    best = max(known, key=lambda r: (r["matched"], r["version_code"] or -1), default=None)
    if best is None or not own or best["matched"] < ATTACH_SHARE * len(own):
        return trace
    store.write("version_add_alias", package=trace.package, version=best["version"], alias=trace.app_version)
    return replace(trace, app_version=best["version"], version_code=best["version_code"])
