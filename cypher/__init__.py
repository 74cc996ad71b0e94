"""Every Cypher statement appmem runs, one named and commented file each.

`load(name)` returns the text of `cypher/<name>.cypher`; statements run through
the official neo4j driver against Neo4j 5 or the embedded ArcadeDB server alike.
A file may hold several statements separated by lines of `;` (see `statements`).
"""
from functools import cache
from importlib import resources


@cache
def load(name: str) -> str:
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
