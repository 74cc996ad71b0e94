// purge_devices: the device pseudonyms of one contributor's traces (a purge takes them off the edges).
MATCH (tr:Trace {contributor: $contributor})
RETURN collect(DISTINCT tr.device) AS devices
