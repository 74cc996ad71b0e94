// purge_journal: the journal of one contributor's purge (ingest/purge.py), with these entries added:
// its devices' pseudonyms and its apps (read before its traces go), and the ids of the tasks, elements
// and screens the purge deleted (their vectors are deleted from these, not from what is left). Written
// in the transaction of the step that found them; returns every entry it holds.
MERGE (j:PurgeJournal {contributor: $contributor})
ON CREATE SET j.devices = [], j.packages = [], j.tasks = [], j.elements = [], j.screens = []
SET j.devices = j.devices + [x IN $devices WHERE NOT x IN j.devices],
    j.packages = j.packages + [x IN $packages WHERE NOT x IN j.packages],
    j.tasks = j.tasks + [x IN $tasks WHERE NOT x IN j.tasks],
    j.elements = j.elements + [x IN $elements WHERE NOT x IN j.elements],
    j.screens = j.screens + [x IN $screens WHERE NOT x IN j.screens]
RETURN j.devices AS devices, j.packages AS packages, j.tasks AS tasks, j.elements AS elements,
       j.screens AS screens
