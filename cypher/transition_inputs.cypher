// transition_inputs: the typed-input templates on an app's transitions (privacy checks).
MATCH (s:Screen {package: $package})-[t:TRANSITION]->()
WHERE t.input_template <> ''
RETURN t.key AS key, t.input_template AS input_template
