// purge_devices: the device pseudonyms and apps of one contributor's traces (a purge takes the
// pseudonyms off the edges and tells servers these apps changed).
MATCH (tr:Trace {contributor: $contributor})
RETURN collect(DISTINCT tr.device) AS devices, collect(DISTINCT tr.package) AS packages
