// app_choice_screens: which of $ids (the ids an agent's screen would have in each app in memory:
// graph/screens.screen_of) memory holds, and in which app: an AutoDroid HTML screen names no app,
// so it is looked up in every app at once. A screen only contributions reported counts once a
// quorum of contributors backs it (crowd_trust_screens), as everywhere else.
MATCH (s:Screen)
WHERE s.id IN $ids AND trusted(s)
RETURN s.id AS id, s.package AS package
ORDER BY id
