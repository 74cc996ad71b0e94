"""Every Cypher statement appmem runs, one named and commented file each.

`load(name)` returns the text of `cypher/<name>.cypher`; statements run through
the official neo4j driver against Neo4j 5 or the embedded ArcadeDB server alike.
A file may hold several statements separated by lines of `;` (see `statements`).

Every read that hands the memory to an agent (plans, locate, hints, the app
document, screens, the map, search's graph check, recall) keeps only what the
one trust predicate admits, written `trusted(x)` in a statement for a node or
relationship `x` and expanded here (`expand`) to TRUSTED: what a crawl or an
import reported, or what a quorum of distinct contributors backs. A contribution
marks what only it reported `crowd_only` (screens, elements, HAS_SCREEN links,
transitions) or names its `contributor` (traces, tasks); `crowd_trusted` is set
once the quorum is reached (crowd_trust_*.cypher, edge_crowd.cypher,
task_crowd.cypher, judged again after every contribution and purge).
"""
import re
from functools import cache
from importlib import resources

TRUSTED = ("(coalesce({x}.crowd_trusted, false) OR "
           "NOT (coalesce({x}.crowd_only, false) OR coalesce({x}.contributor, '') <> ''))")
_TRUSTED_CALL = re.compile(r"(?<![\w.$])trusted\((\w+)\)")


def expand(text: str) -> str:
    """A statement's text with each `trusted(x)` written out as the trust predicate TRUSTED."""
    return _TRUSTED_CALL.sub(lambda m: TRUSTED.format(x=m.group(1)), text)


@cache
def load(name: str) -> str:
    try:
        return expand(resources.files(__package__).joinpath(f"{name}.cypher").read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise KeyError(f"no Cypher statement named {name!r} in cypher/") from None


def statements(name: str) -> list[str]:
    """The statements of a multi-statement file, comments stripped."""
    out = []
    for chunk in load(name).split(";\n"):
        body = "\n".join(line for line in chunk.splitlines() if not line.lstrip().startswith("//")).strip()
        if body:
            out.append(body.rstrip(";"))
    return out
