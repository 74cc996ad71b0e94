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


def _own_entry(keys: str, differs: str = "") -> str:
    """The index of the first entry of layer list `keys` (its entries' key ids) that a key of the reading tenant
    made (and where `differs`, over entry `i`, holds), else null. The list is bound once (`lks`) and the public
    reader answered before any: ArcadeDB reads a property and a parameter anew on each step of a comprehension,
    which cost a tenant's element read 3x the public's."""
    where = "lks[i] STARTS WITH $viewer" + (f" AND ({differs})" if differs else "")
    return (f"CASE WHEN $viewer = '' OR {keys} IS NULL THEN null ELSE head([lks IN [{keys}] | "
            f"head([i IN range(0, size(lks) - 1) WHERE {where}])]) END")


def _shared_entry(keys: str) -> str:
    """The index of the first entry of layer list `keys` of node {x} that a key of a tenant that shared {x} made
    (its voice "tenant:NAME" among {x}'s backers), else null."""
    return (f"head([lks IN [coalesce({keys}, [])] | head([i IN range(0, size(lks) - 1) WHERE any(voice IN "
            "coalesce({x}.crowd_keys, []) WHERE voice STARTS WITH 'tenant:' AND lks[i] STARTS WITH "
            "substring(voice, 7) + '/')])])")


# An element's texts (text, content_desc, label, the locators naming them) and what else one report of it says
# (bounds, flags: its role). An element is keyed by its place in the view tree, so keys of two tenants, or a tenant
# and the public, can report one element showing other texts. Its own properties hold the public's report (a crawl's,
# an import's or a public key's: everyone's); a tenant key's report is a node of its own (merge_elements:
# `(:Report {id: KEY|ELEMENT, slot: TENANT/ELEMENT})-[:OF]->(e)`, with the report's text, content_desc, label,
# bounds, flags and locators and its place among the element's reports, `seq`), found by the index on `slot`: a
# reader fetches its own tenant's reports of an element alone, and the element stays as small as a public one. No
# statement reads a report but through these. A reader reads the first report of its own tenant's keys that shows
# other texts than the public's (where the public has one), else the public's, else (no public report yet) the first
# report of a tenant that shared it (its voice "tenant:NAME" among the backers), else none: the element itself is
# read by the trust predicate, and a reader who may read it but none of its reports reads it without texts.
# `text_owner` names whose the public report is ('' a crawl's or an import's); a graph written before layers, not
# yet migrated, may hold a tenant key's there, read as none. A tenant's key backs each element it reported
# (crowd_keys), so only an element its tenant backs is looked up for its own report, and only one a tenant shared
# for a shared one; the public reader looks up none of its own. Each lookup is one `=` on the slot: ArcadeDB
# scans every report for an `IN` over a list. An element counts the reports written of it (`reports`, absent once
# none is left: purge_element_layers), so an element no tenant reported otherwise than the public (most of those a
# tenant's keys back, where its screens are the public's) is looked up for none.
_MAIN = "NOT coalesce({x}.text_owner, '') CONTAINS '/'"
_UNOWNED = "({x}.text IS NULL OR NOT (" + _MAIN + "))"
_REPORTED = "coalesce({x}.reports, 0) > 0"
_OWN_REPORT = ("CASE WHEN $viewer <> '' AND " + _REPORTED + " AND any(k IN coalesce({x}.crowd_keys, []) "
               "WHERE k STARTS WITH $viewer) "
               "THEN head(COLLECT {{ MATCH (rep:Report) WHERE rep.slot = $viewer + {x}.id AND (" + _UNOWNED
               + " OR rep.text <> {x}.text OR rep.content_desc <> coalesce({x}.content_desc, '')) "
               "RETURN rep ORDER BY rep.seq }}) END")
_SHARED_REPORT = ("CASE WHEN " + _UNOWNED + " AND " + _REPORTED
                  + " AND any(v IN coalesce({x}.crowd_keys, []) WHERE v STARTS WITH 'tenant:') "
                  "THEN head(COLLECT {{ UNWIND [v IN {x}.crowd_keys WHERE v STARTS WITH 'tenant:' | "
                  "substring(v, 7) + '/' + {x}.id] AS shared MATCH (rep:Report) WHERE rep.slot = shared "
                  "RETURN rep ORDER BY rep.seq }}) END")
_REPORT = "coalesce(" + _OWN_REPORT + ", " + _SHARED_REPORT + ")"
_NAMING = "(l CONTAINS '@text' OR l CONTAINS '@content-desc')"
# Each field of element {x} read from its report {r} (a Report node, or null: the public's).
FIELDS = {
    "text": "CASE WHEN {r} IS NOT NULL THEN {r}.text WHEN {main} THEN coalesce({x}.text, '') ELSE '' END",
    "content_desc": ("CASE WHEN {r} IS NOT NULL THEN {r}.content_desc WHEN {main} "
                     "THEN coalesce({x}.content_desc, '') ELSE '' END"),
    "label": "CASE WHEN {r} IS NOT NULL THEN {r}.label WHEN {main} THEN coalesce({x}.label, '') ELSE '' END",
    "locators": ("CASE WHEN {r} IS NOT NULL THEN {r}.locators "
                 "WHEN {main} THEN coalesce({x}.locators, []) "
                 "ELSE [l IN coalesce({x}.locators, []) WHERE NOT " + _NAMING + "] END"),
    "bounds": "CASE WHEN {r} IS NOT NULL THEN {r}.bounds ELSE {x}.bounds END",
    "flags": "CASE WHEN {r} IS NOT NULL THEN {r}.flags ELSE coalesce({x}.flags, []) END",
}
# What a typing edge x typed (its `input_template`), as its reader reads it: the first of its own tenant's keys'
# (merge_transitions: `layer_input_keys`, `layer_inputs`) that typed other words than the public's, else the
# public's, else (none yet) that of a tenant that shared the edge, else none.
_OWN_INPUT = _own_entry("{x}.layer_input_keys", "{x}.layer_inputs[i] <> coalesce({x}.input_template, '')")
INPUT_TEMPLATE = ("coalesce({x}.layer_inputs[" + _OWN_INPUT + "], CASE WHEN coalesce({x}.input_template, '') <> '' "
                  "THEN {x}.input_template END, {x}.layer_inputs[" + _shared_entry("{x}.layer_input_keys") + "], '')")
# A screen x's title as its reader reads it: the first of its own tenant's keys' (merge_screens: `layer_title_keys`,
# `layer_titles`, kept where the public's showed another or none), else the public's (its own `title`), else (none
# yet) that of a tenant that shared the screen, else null. `own_title(x)`: whether that is its own tenant's, other
# than the public's.
_OWN_TITLE = _own_entry("{x}.layer_title_keys")
# A graph written before titles had layers, not yet migrated (migrate_screen_titles), may hold a tenant key's title as
# a screen's own: one no owner is named for whose first backer is a tenant's key, read as none.
_PUBLIC_TITLE = ("CASE WHEN {x}.title_owner IS NULL AND coalesce({x}.crowd_only, false) AND "
                 "coalesce(head(coalesce({x}.crowd_keys, [])), '') CONTAINS '/' THEN null ELSE {x}.title END")
TITLE = ("CASE WHEN {x}.layer_title_keys IS NULL THEN " + _PUBLIC_TITLE + " ELSE coalesce({x}.layer_titles["
         + _OWN_TITLE + "], " + _PUBLIC_TITLE + ", {x}.layer_titles[" + _shared_entry("{x}.layer_title_keys") + "]) END")
OWN_TITLE = "(coalesce({x}.layer_titles[" + _OWN_TITLE + "] <> coalesce({x}.title, ''), false))"
# Whether the reader reads element x otherwise than the public: by a report of its own tenant's keys.
OWN_REPORT = "(" + _OWN_REPORT + " IS NOT NULL)"
COUNTS = ("{{successes: coalesce({x}.successes, 0), failures: coalesce({x}.failures, 0), "
          "contributed_successes: coalesce({x}.contributed_successes, 0), "
          "contributed_failures: coalesce({x}.contributed_failures, 0), "
          "crowd_successes: coalesce({x}.crowd_successes, 0.0), crowd_failures: coalesce({x}.crowd_failures, 0.0), "
          "crowd_trusted: coalesce({x}.crowd_trusted, false), "
          "own_counts: [c IN coalesce({x}.tenant_counts, []) WHERE $viewer <> '' AND c STARTS WITH $viewer + ' ']}}")
# The macros of one node x that write out as one expression of it (`expand`).
_NODE_MACROS = {"own_report": OWN_REPORT, "input_template": "(" + INPUT_TEMPLATE + ")", "title": "(" + TITLE + ")",
                "own_title": "(" + OWN_TITLE + ")"}
_TRUSTED_CALL = re.compile(r"(?<![\w.$])(trusted|public|own_report|input_template|title|own_title)\((\w+)\)")
_FIELD_CALL = re.compile(r"(?<![\w.$])(" + "|".join(FIELDS) + r")\((\w+)(?:,\s*(\w+))?\)")
_REPORT_CALL = re.compile(r"(?<![\w.$])report\((\w+)\)")
_COUNTS_CALL = re.compile(r"(?<![\w.$])counts\((\w+)\)")


def expand(text: str) -> str:
    """A statement's text with each `trusted(x)` written out as what its reader may read: TRUSTED, or the
    reading tenant's own (OWN); `public(x)` is TRUSTED alone (whether x is the shared memory's); `text(e)`,
    `content_desc(e)`, `label(e)`, `locators(e)`, `bounds(e)`, `flags(e)` are element e's as its reader reads them
    (FIELDS), `own_report(e)` whether that is its own tenant's report; `report(e)` is the Report node of e its
    reader reads (null: the public's), and `text(e, r)` (and the other fields) read it from a variable `r` bound to
    `report(e)`: a statement reading several fields of many elements binds it once per row (each field would
    look it up again); `input_template(t)` is what typing edge t
    typed as its reader reads it; `title(s)` is screen s's title as its reader reads it, `own_title(s)`
    whether that is its own tenant's, other than the public's; `counts(t)` is the map of an edge's counts that
    graph/votes.py `shown_counts` reads."""
    def one(m: re.Match) -> str:
        if m.group(1) in _NODE_MACROS:
            return _NODE_MACROS[m.group(1)].format(x=m.group(2))
        public = TRUSTED.format(x=m.group(2))
        return public if m.group(1) == "public" else f"({public} OR {OWN.format(x=m.group(2))})"

    def field(m: re.Match) -> str:
        x, bound = m.group(2), m.group(3)
        main = _MAIN.format(x=x)
        if bound:
            return "(" + FIELDS[m.group(1)].format(x=x, r=bound, main=main) + ")"
        # the report bound once for the field, in a list of one
        return ("head([rep_ IN [" + _REPORT.format(x=x) + "] | "
                + FIELDS[m.group(1)].format(x=x, r="rep_", main=main) + "])")
    text = _COUNTS_CALL.sub(lambda m: COUNTS.format(x=m.group(1)), text)
    text = _REPORT_CALL.sub(lambda m: "(" + _REPORT.format(x=m.group(1)) + ")", text)
    return _FIELD_CALL.sub(field, _TRUSTED_CALL.sub(one, text))


_INCLUDE = re.compile(r"^include\((\w+)\)$", re.MULTILINE)


@cache
def load(name: str) -> str:
    """Statement `name` as it runs: its file's text `expanded`."""
    return expanded(_text(name))


def expanded(text: str) -> str:
    """A statement file's text as it runs: each line `include(other)` replaced by statement `other` (its file's
    text without comment lines), so that one read may join statements that are also read alone (`UNION ALL`)
    without a copy of either; then its macros written out (`expand`)."""
    return expand(_included(text))


def _included(text: str) -> str:
    return _INCLUDE.sub(lambda m: "\n".join(line for line in _included(_text(m.group(1))).splitlines()
                                            if not line.lstrip().startswith("//")).strip(), text)


def _text(name: str) -> str:
    try:
        return resources.files(__package__).joinpath(f"{name}.cypher").read_text(encoding="utf-8")
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
