import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { POLICY_RULE_TYPES } from '@rota/contracts';
import * as ts from 'typescript';
import { enforceable, ENFORCED_RULE_TYPES, evaluate } from './evaluate';

const ROOT = resolve(__dirname, '../../../..');
const CONTRACT = join(ROOT, 'packages/contracts/src/policy.ts');
const ENGINE = join(ROOT, 'apps/session/src/policy/evaluate.ts');

/**
 * Compiles the policy engine against the contract as it is, except for one
 * more rule type in the union, and returns the errors in evaluate.ts.
 */
function compileWithExtraRuleType(type: string): string[] {
  const source = readFileSync(CONTRACT, 'utf8');
  const end = source.indexOf('  ]);\n}');
  if (end < 0)
    throw new Error('packages/contracts/src/policy.ts: the rule union (ruleUnion) changed shape; update this fixture.');
  const patched = `${source.slice(0, end)}    z.object({ type: z.literal('${type}'), tool: ToolName, ...extra }).strict(),\n${source.slice(end)}`;
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'apps/session/tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  )!;
  const options = { ...config.options, noEmit: true };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  host.readFile = (file) => (resolve(file) === CONTRACT ? patched : read(file));
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, lang, onError, fresh) =>
    resolve(file) === CONTRACT
      ? ts.createSourceFile(file, patched, lang, true)
      : getSourceFile(file, lang, onError, fresh);
  const program = ts.createProgram([ENGINE], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file && resolve(d.file.fileName) === ENGINE)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('policy rule types', () => {
  it('every rule type of the contract has an evaluator, and the API would refuse one without', () => {
    const missing = POLICY_RULE_TYPES.filter((t) => !enforceable(t));
    // Names the piece to add: an entry of RULE_EVALUATORS in apps/session/src/policy/evaluate.ts.
    expect({ missingFromRuleEvaluators: missing }).toEqual({ missingFromRuleEvaluators: [] });
    expect([...ENFORCED_RULE_TYPES].sort()).toEqual([...POLICY_RULE_TYPES].sort());
    expect(enforceable('max_refunds')).toBe(false);
  });

  it('a rule type added to the contract without an evaluator does not compile', () => {
    const errors = compileWithExtraRuleType('max_refunds');
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.join('\n')).toContain("'max_refunds'");
  }, 120_000);

  it('evaluates each type in the documented order: a tool denial wins over an amount rule', () => {
    const verdict = evaluate(
      [
        { id: 'r1', type: 'max_amount', tool: 'codespar_charge', currency: 'BRL', max_minor: 1 },
        { id: 'r2', type: 'deny_tools', tools: ['codespar_charge'] },
      ],
      { tool: 'codespar_charge', action: null, args: { amount: 10, currency: 'BRL' }, raw: null, userId: null },
    );
    expect(verdict).toMatchObject({ kind: 'deny', rule: { id: 'r2' } });
  });
});
