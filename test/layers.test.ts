// The layer rules (docs/layout.md) hold on the real tree and refuse a planted violation of each.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '..');
const depcruise = path.join(root, 'node_modules', '.bin', 'depcruise');
const config = path.join(root, '.dependency-cruiser.cjs');

async function cruise(cwd: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await run(depcruise, ['src', '--config', config, '--output-type', 'err'], { cwd });
    return { code: 0, output: stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, output: failed.stdout };
  }
}

describe('layer rules', () => {
  it('the real src/ has no violation', async () => {
    const { code, output } = await cruise(root);
    expect(output).toContain('no dependency violations');
    expect(code).toBe(0);
  });

  it('a planted layout fails on each rule: engine → area, infra → engine, a folder cycle', async () => {
    const { code, output } = await cruise(path.join(root, 'test', 'fixtures', 'layers'));
    expect(code).not.toBe(0);
    expect(output).toContain('engine-above-itself: src/engine/pipeline/decide.ts → src/areas/agents/service.ts');
    expect(output).toContain('infra-above-itself: src/infra/store/db.ts → src/engine/pipeline/decide.ts');
    expect(output).toMatch(/no-folder-cycles: src\/areas\/agents →\s+src\/areas\/approvals →\s+src\/areas\/agents/);
  });

  it('SQL outside a store file is a lint error; inside one it is not', async () => {
    const eslint = new ESLint({ cwd: root });
    const query = "export const count = (db: any) => db.selectFrom('agents').select('id').execute();\n";
    const [service] = await eslint.lintText(query, { filePath: path.join(root, 'src/areas/agents/planted-service.ts') });
    expect(service?.messages.map((message) => message.message).join('\n')).toContain('SQL belongs in store.ts');
    const [store] = await eslint.lintText(query, { filePath: path.join(root, 'src/areas/agents/store.ts') });
    expect(store?.messages.filter((message) => message.ruleId === 'no-restricted-syntax')).toEqual([]);
  });
});
