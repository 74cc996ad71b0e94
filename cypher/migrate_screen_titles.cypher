// migrate_screen_titles: screens whose own title a tenant's key reported, written before a tenant key's title was
// kept in the screen's layer (merge_screens.cypher), or before titles had an owner (`title_owner`: a
// contribution-only screen's title is then its first reporter's, the first of its backers, as crowd_keys grows in
// report order; any other's is a crawl's or an import's, ''). A tenant key's title moves to the screen's layer as
// its first report, where that key still backs the screen (else it goes: nothing else of a purged key's is kept);
// the screen keeps no title of its own. Without this, reads would take such a title for the public's
// (cypher/__init__.py title(s)).
MATCH (s:Screen)
WHERE s.title IS NOT NULL AND s.title_owner IS NULL
WITH s, CASE WHEN coalesce(s.crowd_only, false) AND size(coalesce(s.crowd_keys, [])) > 0 THEN s.crowd_keys[0]
            ELSE '' END AS owner
WITH s, owner, owner CONTAINS '/' AS tenant, s.title AS title,
     owner CONTAINS '/' AND owner IN coalesce(s.crowd_keys, []) AND NOT owner IN coalesce(s.layer_title_keys, [])
       AS moved
SET s.layer_title_keys = CASE WHEN moved THEN [owner] + coalesce(s.layer_title_keys, []) ELSE s.layer_title_keys END,
    s.layer_titles = CASE WHEN moved THEN [title] + coalesce(s.layer_titles, []) ELSE s.layer_titles END,
    s.title_owner = CASE WHEN tenant THEN null ELSE owner END,
    s.title = CASE WHEN tenant THEN null ELSE title END
RETURN count(CASE WHEN tenant THEN 1 END) AS moved
