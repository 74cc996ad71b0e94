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

The same predicate says what a tenant's keys read (appmem/keys.py): besides
TRUSTED, what the tenant's own keys reported (OWN), once the tenant's quorum of
them backs it; a tenant's keys are never public voices, so TRUSTED admits
nothing of a tenant's layer to anyone else. The reader comes with the store
(graph/store.py Viewer: `$viewer`, `$viewer_quorum`).

A trusted edge may carry counts one key added (its raw counts are in the edge's, its Vote
says how many): a read that shows an edge's counts returns `counts(t)`, the map
graph/votes.py `shown_counts` turns into what every reader may see (each contributor
once, and only once a quorum backs the edge; a tenant's view adds its own keys').
"""
import re
from functools import cache
from importlib import resources

TRUSTED = ("(coalesce({x}.crowd_trusted, false) OR "
           "NOT (coalesce({x}.crowd_only, false) OR coalesce({x}.contributor, '') <> ''))")
# What a tenant's keys read besides (graph/store.py Viewer: $viewer is "TENANT/", "" for the public): what its
# own keys reported once $viewer_quorum of them back it (their contributor ids in crowd_keys), and its keys'
# traces and tasks (contributor). No other reader's statement admits it.
OWN = ("($viewer <> '' AND (size([k IN coalesce({x}.crowd_keys, []) WHERE k STARTS WITH $viewer]) >= $viewer_quorum"
       " OR coalesce({x}.contributor, '') STARTS WITH $viewer))")
# Whether the reader may read an element's texts (text, content_desc, label, locators naming them): an element
# keeps one set, its first reporter's (merge_elements: `text_owner`), and one tenant's key may report it first
# while another tenant, or the public, reads it too. A tenant key's texts are its tenant's and, once it shared
# them (its voice "tenant:NAME" among the backers), everyone's; a crawl's, an import's or a public key's are
# everyone's. The element itself is read by the trust predicate: a reader who may read it but not its texts
# reads it without them.
SHOWN = ("(NOT coalesce({x}.text_owner, '') CONTAINS '/' OR ($viewer <> '' AND {x}.text_owner STARTS WITH $viewer)"
         " OR any(voice IN coalesce({x}.crowd_keys, []) WHERE voice STARTS WITH 'tenant:'"
         " AND {x}.text_owner STARTS WITH substring(voice, 7) + '/'))")
COUNTS = ("{{successes: coalesce({x}.successes, 0), failures: coalesce({x}.failures, 0), "
          "contributed_successes: coalesce({x}.contributed_successes, 0), "
          "contributed_failures: coalesce({x}.contributed_failures, 0), "
          "crowd_successes: coalesce({x}.crowd_successes, 0.0), crowd_failures: coalesce({x}.crowd_failures, 0.0), "
          "crowd_trusted: coalesce({x}.crowd_trusted, false), "
          "own_counts: [c IN coalesce({x}.tenant_counts, []) WHERE $viewer <> '' AND c STARTS WITH $viewer + ' ']}}")
_TRUSTED_CALL = re.compile(r"(?<![\w.$])(trusted|public|shown)\((\w+)\)")
_COUNTS_CALL = re.compile(r"(?<![\w.$])counts\((\w+)\)")


def expand(text: str) -> str:
    """A statement's text with each `trusted(x)` written out as what its reader may read: TRUSTED, or the
    reading tenant's own (OWN); `public(x)` is TRUSTED alone (whether x is the shared memory's); `shown(x)`
    is SHOWN (whether the reader may read element x's texts); `counts(t)` is the map of an edge's counts that
    graph/votes.py `shown_counts` reads."""
    def one(m: re.Match) -> str:
        if m.group(1) == "shown":
            return SHOWN.format(x=m.group(2))
        public = TRUSTED.format(x=m.group(2))
        return public if m.group(1) == "public" else f"({public} OR {OWN.format(x=m.group(2))})"
    text = _COUNTS_CALL.sub(lambda m: COUNTS.format(x=m.group(1)), text)
    return _TRUSTED_CALL.sub(one, text)


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
