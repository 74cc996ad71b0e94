// Parse Cypher files with Neo4j's own grammar (@neo4j-cypher/language-support, the parser and
// semantic analysis of Neo4j's editors) and report what it finds, as JSON on stdout.
// stdin: {"files": [{"path": str, "text": str}], "exclude_prefixes": [str]}
// stdout: {"results": [{"path", "diagnostics": [{"line", "column", "severity", "message"}]}]}
// Procedures and functions are checked against the catalogue the package ships as test data (a
// Neo4j 5 server's SHOW PROCEDURES/FUNCTIONS with APOC, GDS and Enterprise-only entries),
// less the prefixes the caller excludes (what Neo4j 5 Community + APOC lacks).
'use strict';
const ls = require('@neo4j-cypher/language-support');

function catalogue(excluded) {
  const keep = (entries) => Object.fromEntries(
    Object.entries(entries).filter(([name]) => !excluded.some((p) => name === p || name.startsWith(p))));
  const mock = ls.testData.mockSchema;
  const schema = { functions: {}, procedures: {} };
  for (const version of Object.keys(mock.functions)) {
    schema.functions[version] = keep(mock.functions[version]);
    schema.procedures[version] = keep(mock.procedures[version]);
  }
  return schema;
}

let input = '';
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', () => {
  const request = JSON.parse(input);
  const schema = catalogue(request.exclude_prefixes || []);
  const results = request.files.map(({ path, text }) => {
    // Statements take their values as $parameters at run time: "not defined" is no error here.
    const diagnostics = ls.lintCypherQuery(text, schema).diagnostics.filter(ls.isNotParamError);
    return {
      path,
      diagnostics: diagnostics.map((d) => ({
        line: d.range.start.line + 1, column: d.range.start.character + 1,
        severity: d.severity === 1 ? 'error' : 'warning', message: d.message,
      })),
    };
  });
  process.stdout.write(JSON.stringify({ results }));
});
