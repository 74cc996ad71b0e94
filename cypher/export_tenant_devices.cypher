// export_tenant_devices: the device pseudonyms of the traces tenants' keys contributed (a tenant key's id is
// "TENANT/key": appmem/keys.py). An export of what every reader reads leaves them off the edges' device lists
// (analyst/subgraph.py), as it leaves the tenants' keys' counts off the edges' counts.
MATCH (t:Trace)
WHERE coalesce(t.contributor, '') CONTAINS '/'
RETURN collect(DISTINCT t.device) AS devices
