// purge_journal_close: one contributor's purge is over, its vectors deleted: its journal goes.
MATCH (j:PurgeJournal {contributor: $contributor})
DELETE j
RETURN count(*) AS closed
