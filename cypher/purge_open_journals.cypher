// purge_open_journals: the contributors whose purge journal is still open (ingest/purge.py: its vectors
// not deleted yet), to finish those whose key is gone.
MATCH (j:PurgeJournal)
RETURN j.contributor AS contributor
ORDER BY contributor
