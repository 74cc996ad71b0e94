// merge_screens: abstract screens keyed by their signature id (graph/screens.py; no version
// in it), attached to every App (package, version) they were seen in; `versions` lists those. Times: ISO strings in, datetime stored
// (graph/times.py says why the wrapping is done here). A screen's own `title` is the public's report:
// a crawl's or an import's (which always wins), else the first public key's (r.trusted false, no tenant),
// which never overwrites one; `title_owner` says whose ('' a crawl's or an import's). A screen is keyed by
// its structure and naming texts, not its title (the first short text it shows, which may be content such as
// a contact's name), so a tenant key's title is never written there: it is kept in the screen's layer
// (`layer_title_keys`, `layer_titles`: the key's first report, where the public has none or another),
// read through title(s) (cypher/__init__.py). A screen a contribution creates stays `crowd_only`
// until a crawl or an import sees it. `crowd_keys`: the contributors that reported
// a crowd-only screen (a purge deletes one that has none left). A HAS_SCREEN link keeps the same
// provenance: one only contributions made (a foreign app's screen their dumps showed, under an App
// node they created) goes with its last contributor (purge_crowd_app_screens).
// A contribution never changes `versions`, `first_seen` or `last_seen`: the version it reports is its
// claim "KEY version" in `crowd_versions`, counted once a quorum agrees (crowd_trust_screens'
// `agreed_versions`); its times are its sender's word.
UNWIND $rows AS r
MATCH (a:App {id: r.app_id})
WITH a, r, NOT r.trusted AND r.contributor CONTAINS '/' AS tenant
MERGE (s:Screen {id: r.id})
ON CREATE SET s.package = r.package, s.app_version = r.app_version, s.activity = r.activity,
              s.signature = r.signature, s.versions = [], s.crowd_only = NOT r.trusted
WITH a, s, r, r.contributor + ' ' + r.version AS claim, NOT tenant AND (r.trusted OR s.title IS NULL) AS overwrite,
     tenant AND NOT r.contributor IN coalesce(s.layer_title_keys, []) AND coalesce(s.title, '') <> r.title AS layered
SET s.title = CASE WHEN overwrite THEN r.title ELSE s.title END,
    s.title_owner = CASE WHEN overwrite THEN r.contributor ELSE s.title_owner END,
    s.layer_title_keys = CASE WHEN layered THEN coalesce(s.layer_title_keys, []) + r.contributor
                         ELSE s.layer_title_keys END,
    s.layer_titles = CASE WHEN layered THEN coalesce(s.layer_titles, []) + r.title ELSE s.layer_titles END,
    s.crowd_only = coalesce(s.crowd_only, false) AND NOT r.trusted,
    s.crowd_keys = CASE WHEN r.trusted OR r.contributor IN coalesce(s.crowd_keys, []) THEN coalesce(s.crowd_keys, [])
                     ELSE coalesce(s.crowd_keys, []) + r.contributor END,
    s.versions = CASE WHEN NOT r.trusted OR r.version = '' OR r.version IN s.versions THEN s.versions
                      ELSE s.versions + r.version END,
    s.crowd_versions = CASE WHEN r.trusted OR r.version = '' OR claim IN coalesce(s.crowd_versions, [])
                            THEN s.crowd_versions ELSE coalesce(s.crowd_versions, []) + claim END,
    s.first_seen = CASE WHEN r.trusted AND (s.first_seen IS NULL OR datetime(r.seen) < s.first_seen)
                        THEN datetime(r.seen) ELSE s.first_seen END,
    s.last_seen = CASE WHEN r.trusted AND (s.last_seen IS NULL OR datetime(r.seen) > s.last_seen)
                       THEN datetime(r.seen) ELSE s.last_seen END
MERGE (a)-[h:HAS_SCREEN]->(s)
ON CREATE SET h.crowd_only = NOT r.trusted
SET h.crowd_only = coalesce(h.crowd_only, false) AND NOT r.trusted,
    h.crowd_keys = CASE WHEN r.trusted OR r.contributor IN coalesce(h.crowd_keys, []) THEN coalesce(h.crowd_keys, [])
                     ELSE coalesce(h.crowd_keys, []) + r.contributor END
