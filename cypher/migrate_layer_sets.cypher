// migrate_layer_sets: elements whose tenants' reports keep their flags and locators flat (written before each
// report's were one entry: `layer_flags` with each value's key id in `layer_flag_keys`, `layer_locators` with
// `layer_locator_keys`): each report's values become its entry of `layer_flag_sets` and `layer_locator_sets`, in the
// order of `layer_keys`, every value after a U+001F, and the flat lists go: the shape migrate_layer_reports, run
// after, makes Report nodes of. Without this, those nodes would be made without the reports' flags and locators.
MATCH (e:Element)
WHERE e.layer_keys IS NOT NULL AND (e.layer_flag_keys IS NOT NULL OR e.layer_locator_keys IS NOT NULL)
WITH e, coalesce(e.layer_flag_keys, []) AS flag_keys, coalesce(e.layer_flags, []) AS flags,
     coalesce(e.layer_locator_keys, []) AS locator_keys, coalesce(e.layer_locators, []) AS locators
SET e.layer_flag_sets = [k IN e.layer_keys | reduce(v = '', j IN range(0, size(flag_keys) - 1) |
                           CASE WHEN flag_keys[j] = k THEN v + '\u001F' + flags[j] ELSE v END)],
    e.layer_locator_sets = [k IN e.layer_keys | reduce(v = '', j IN range(0, size(locator_keys) - 1) |
                              CASE WHEN locator_keys[j] = k THEN v + '\u001F' + locators[j] ELSE v END)]
REMOVE e.layer_flags, e.layer_flag_keys, e.layer_locators, e.layer_locator_keys
RETURN count(e) AS moved
