"""Versions a contributor's device reported: claims, named by a quorum.

An import of unknown version (an alias: `sha256:…`, `unknown`) and a run an
agent contributed from a device that reported `1.0` may show the same screens.
A contribution must not re-version what the import recorded (one key would
steer it), so the run is written under the import's version and its reported
version is kept as a claim "key version" on that App; a version only
contributions named that an import later matches joins the import the same way
(`absorb`). Once `quorum` distinct contributors (APPMEM_TRUST_QUORUM) claim one
version, the App takes that name and keeps the import's as an alias and as its
`trusted_name`, so a purge that leaves fewer claimants takes the name back
(`judge`). A tenant's keys (contributor TENANT/key) claim nothing publicly. A crawl, an import or one's own run reporting the version settles it
(graph/versions.py). Either way `stats` shows one row per real version.
"""
from __future__ import annotations

from collections import Counter

from appmem.graph.rows import app_id
from appmem.graph.store import GraphStore

ALIAS_PREFIXES = ("sha256:",)
UNKNOWN = ("", "unknown")


def is_alias(version: str) -> bool:
    return version in UNKNOWN or version.startswith(ALIAS_PREFIXES)


def claims_name(row: dict) -> bool:
    """Whether contributors' claims may name this version (a `version_candidates` row): an import's
    alias, or a version a quorum already named (it keeps the import's name as `trusted_name`)."""
    return is_alias(row["version"]) or bool(row["trusted_name"])


def absorb(store: GraphStore, package: str, crowd: str, version: str, version_id: str) -> None:
    """Move the contribution-only version `crowd` into `version` (created if new), its names as claims."""
    store.write("version_absorb", package=package, crowd=crowd, version=version, id=version_id)


def claim(store: GraphStore, package: str, version: str, contributor: str, reported: str, quorum: int) -> str:
    """Keep `contributor`'s claim that `version` is `reported`; the version's name after judging."""
    store.write("version_claim", package=package, version=version, claim=f"{contributor} {reported}")
    return judge(store, package, version, quorum)


def judge(store: GraphStore, package: str, version: str, quorum: int) -> str:
    """Name `version` by its claims: the version most distinct contributors claim, once `quorum` do,
    else the name its import gave it. Renames the App when the name changes; returns the name."""
    rows = {r["version"]: r for r in store.read("version_candidates", package=package, screen_ids=[])}
    row = rows.get(version)
    if row is None or not row["trusted"] or not claims_name(row):
        return version  # a version a trusted device reported is its own name
    base = row["trusted_name"] or version
    counts = Counter(c.split(" ", 1)[1] for c in set(row["claims"]) if " " in c and "/" not in c.split(" ", 1)[0])
    top = max(counts.items(), key=lambda kv: (kv[1], kv[0]), default=(base, 0))
    name = top[0] if top[1] >= quorum else base
    if name == version:
        return version
    other = rows.get(name)
    if other is not None and other["trusted"]:
        return version  # a trusted version of that name is another row: its screens did not match
    if other is not None:  # contributions under that name that matched nothing at the time
        absorb(store, package, name, version, app_id(package, version))
    store.write("version_rename", package=package, version=version, new_name=name, id=app_id(package, name),
                trusted_name=None if name == base else base)
    return name


def rejudge_after_purge(store: GraphStore, contributor: str, quorum: int) -> list[dict]:
    """Take a purged contributor's claims back and judge the versions they named again."""
    changed = store.write("purge_version_claims", prefix=contributor + " ")
    return [{"package": r["package"], "version": r["version"],
             "name": judge(store, r["package"], r["version"], quorum)} for r in changed]
