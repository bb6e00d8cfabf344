import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { DEMO_SCENARIO_YAML } from './demo.scenario';
import { SCENARIO_JSON_SCHEMA } from './scenario.schema';
import { parseScenario, ScenarioError, validateScenario } from './scenario-loader';
import { scenarioStepCount } from './scenario.types';

function refusal(text: string, source: string, format?: 'json' | 'yaml'): ScenarioError {
  try {
    parseScenario(text, { source, ...(format ? { format } : {}) });
  } catch (error) {
    if (error instanceof ScenarioError) return error;
    throw error;
  }
  throw new Error(`${source} was accepted`);
}

const minimal = (steps: string, threads = '') => `version: 1\nname: t\n${threads}steps:\n${steps}`;

describe('loading scenarios', () => {
  it('loads the demo and counts its steps', () => {
    const scenario = parseScenario(DEMO_SCENARIO_YAML, { source: 'demo.yaml' });
    expect(scenario.name).toBe('demo');
    expect(scenarioStepCount(scenario)).toBe(3 + 6 + 5);
  });

  it('loads the same scenario written as JSON, detected from the text or the file name', () => {
    const asJson = JSON.stringify(parseScenario(DEMO_SCENARIO_YAML));
    expect(parseScenario(asJson)).toEqual(parseScenario(DEMO_SCENARIO_YAML));
    expect(parseScenario(asJson, { source: 'demo.json' }).name).toBe('demo');
    expect(validateScenario(JSON.parse(asJson)).threads).toHaveLength(2);
  });

  it('loads the example of the README', () => {
    const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
    const example = /```yaml\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    expect(parseScenario(example ?? '', { source: 'README.md' }).name).toBeTruthy();
  });

  it('is documented in the README: every step kind and every field of a tool step', () => {
    const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
    type Union = { oneOf: Array<{ properties: Record<string, { const?: string }> }> };
    const defs = (SCENARIO_JSON_SCHEMA as unknown as { $defs: Record<string, Union> }).$defs;
    const kinds = (union: Union | undefined) => (union?.oneOf ?? []).map((branch) => branch.properties['kind']?.const ?? '');
    const all = [...kinds(defs['scenarioStep']), ...kinds(defs['turnStep'])];
    expect(all).toHaveLength(16);
    for (const kind of all) expect(readme).toMatch(new RegExp(`\\| \`${kind}\`( / \`\\w+\`)? \\|`));
    const tool = defs['turnStep']?.oneOf.find((branch) => branch.properties['kind']?.const === 'tool');
    for (const field of Object.keys(tool?.properties ?? {}).filter((field) => field !== 'kind')) expect(readme).toContain(`\`${field}`);
  });

  it('keeps the schema closed and self-describing', () => {
    expect(SCENARIO_JSON_SCHEMA.additionalProperties).toBe(false);
    expect(SCENARIO_JSON_SCHEMA.required).toEqual(['version', 'name', 'steps']);
  });
});

describe('a bad scenario file', () => {
  it('that is not YAML names the file, line and column', () => {
    const error = refusal('version: 1\nname: [unclosed\nsteps: []\n', 'broken.yaml');
    expect(error.code).toBe('SCENARIO_SYNTAX');
    expect(error.message).toMatch(/^Scenario broken\.yaml is not readable:/);
    expect(error.issues[0]?.line).toBeGreaterThanOrEqual(2);
  });

  it('with a duplicate YAML key is refused', () => {
    const error = refusal('version: 1\nname: a\nname: b\nsteps: [{kind: delay, ms: 1}]\n', 'dup.yaml');
    expect(error.code).toBe('SCENARIO_SYNTAX');
    expect(error.issues[0]?.message).toContain('DUPLICATE_KEY');
    expect(error.issues[0]?.line).toBe(3);
  });

  it('with a duplicate JSON key is refused like a duplicate YAML key, escaped spellings included', () => {
    const error = refusal('{"version": 1, "name": "a", "n\\u0061me": "b", "steps": [{"kind": "delay", "ms": 1}]}', 'dup.json');
    expect(error.code).toBe('SCENARIO_SYNTAX');
    expect(error.issues[0]?.message).toMatch(/"name" appears more than once/);
  });

  it.each([
    ['JSON nested 100,000 deep', `{"version": 1, "name": "deep", "steps": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`, 'deep.json'],
    ['JSON objects nested 9,000 deep', `{"version": 1, "name": "deep", "steps": [${'{"a":'.repeat(9_000)}1${'}'.repeat(9_000)}]}`, 'deep.json'],
    ['YAML flow collections nested 2,000 deep', `version: 1\nname: deep\nsteps: ${'['.repeat(2_000)}${']'.repeat(2_000)}\n`, 'deep.yaml'],
    ['YAML block sequences nested 1,000 deep', `version: 1\nname: deep\nsteps:\n${'- '.repeat(1_000)}x\n`, 'deep.yaml'],
  ])('%s is refused with a precise issue, never a crash', (_name, text, source) => {
    const error = refusal(text, source);
    expect(['SCENARIO_SYNTAX', 'SCENARIO_INVALID']).toContain(error.code);
    expect(error.issues[0]?.message).toMatch(/nest|deep|RESOURCE_EXHAUSTION/i);
  });

  it('built in memory and nested 100,000 deep is refused by validateScenario without overflowing the stack', () => {
    let steps: unknown = [];
    for (let level = 0; level < 100_000; level += 1) steps = [steps];
    expect(() => validateScenario({ version: 1, name: 'deep', steps })).toThrow(expect.objectContaining({ code: 'SCENARIO_INVALID', issues: [{ pointer: '', message: expect.stringMatching(/more than 64 deep/) }] }));
  });

  it('that is not JSON says where', () => {
    const error = refusal('{\n  "version": 1,\n  "name": "x",\n}\n', 'broken.json');
    expect(error.code).toBe('SCENARIO_SYNTAX');
    expect(error.message).toContain('broken.json');
    expect(error.issues[0]?.message).toMatch(/^is not valid JSON/);
  });

  it('that is empty or too large is refused before parsing', () => {
    expect(refusal('  \n', 'empty.yaml').issues[0]?.message).toBe('is empty');
    const huge = refusal(`# ${'x'.repeat(1_048_576)}\n`, 'huge.yaml');
    expect(huge.code).toBe('SCENARIO_TOO_LARGE');
    expect(huge.issues[0]?.message).toMatch(/at most 1048576 bytes/);
  });

  it('gets one precise issue per problem, with pointer, position and what is wrong', () => {
    const error = refusal(
      [
        'version: 2', // 1
        'name: bad', // 2
        'steps:', // 3
        '  - kind: dance', // 4
        '  - kind: delay', // 5
        '    ms: -5', // 6
        '  - kind: turn', // 7
        '    thread: t', // 8
        '    steps:', // 9
        '      - kind: tool', // 10
        '        agent: assistant', // 11
        '        input: {}', // 12
        '        outcome: exploded', // 13
        '        colour: red', // 14
        '',
      ].join('\n'),
      'scenarios/bad.yaml',
    );
    expect(error.code).toBe('SCENARIO_INVALID');
    expect(error.message.split('\n')[0]).toBe('Scenario scenarios/bad.yaml is invalid:');
    const byPointer = Object.fromEntries(error.issues.map((issue) => [issue.pointer, issue]));
    expect(byPointer['/version']).toMatchObject({ message: 'must be 1', line: 1 });
    expect(byPointer['/steps/0/kind']).toMatchObject({ line: 4 });
    expect(byPointer['/steps/0/kind']?.message).toMatch(/"dance" is not a known kind; use one of: "turn", "awaitTurn", "delay", "disconnect", "restart"/);
    expect(byPointer['/steps/1/ms']).toMatchObject({ message: 'must be >= 0', line: 6 });
    expect(byPointer['/steps/2/input']).toMatchObject({ message: 'is required', line: 7 });
    expect(byPointer['/steps/2/steps/0/tool']).toMatchObject({ message: 'is required', line: 10 }); // a missing field points at its object
    expect(byPointer['/steps/2/steps/0/outcome']?.message).toMatch(/^must be one of: "success", "user_rejected"/);
    expect(byPointer['/steps/2/steps/0/colour']?.message).toMatch(/^is not a field here \(known fields: kind, agent, tool, input/);
    expect(error.message).toContain('/steps/2/steps/0/outcome (line 13, column 18): must be one of');
  });

  it('with a missing name, no steps or a wrong type in JSON points at them', () => {
    const error = refusal(JSON.stringify({ version: 1, steps: [], runtime: { seed: 'x' } }, null, 2), 'bad.json');
    const pointers = error.issues.map((issue) => issue.pointer);
    expect(pointers).toEqual(expect.arrayContaining(['/name', '/steps', '/runtime/seed']));
    expect(error.issues.find((issue) => issue.pointer === '/runtime/seed')).toMatchObject({ message: 'must be integer', line: 5 });
  });

  it('that refers to unknown or duplicate threads is refused after the schema passes', () => {
    const error = refusal(
      minimal(
        '  - kind: turn\n    thread: ghost\n    input: hi\n    steps: [{ kind: message, text: hi }]\n  - kind: awaitTurn\n    thread: a\n    match: "(unclosed"\n    steps: []\n',
        'threads:\n  - key: a\n    id: 00000000-0000-4000-8000-000000000001\n  - key: a\n    id: 00000000-0000-4000-8000-000000000001\n',
      ),
      'threads.yaml',
    );
    expect(error.issues.map((issue) => [issue.pointer, issue.message])).toEqual([
      ['/threads/1/key', 'thread key "a" is already used by /threads/0'],
      ['/threads/1/id', 'thread id 00000000-0000-4000-8000-000000000001 is already used by /threads/0'],
      ['/steps/0/thread', 'no thread has key "ghost" (known keys: a)'],
      ['/steps/1/match', 'is not a valid regular expression'],
    ]);
    expect(error.issues[2]?.line).toBe(10);
  });

  it('with a form that breaks the user-input rules, or an answer that does not fit it, is refused', () => {
    const form = (controls: string, auto = '') =>
      minimal(`  - kind: turn\n    thread: a\n    input: hi\n    steps:\n      - kind: userInput\n        form:\n          controls:\n${controls}${auto}`, 'threads:\n  - key: a\n');
    const duplicate = refusal(
      form('            - { type: text, id: x, label: X, required: true }\n            - { type: boolean, id: x, label: Y, required: false }\n'),
      'form.yaml',
    );
    expect(duplicate.issues).toEqual([expect.objectContaining({ pointer: '/steps/0/steps/0/form/controls/1/id', message: 'control id `x` is used twice.' })]);

    const tooMany = refusal(
      form('            - { type: choice, id: c, label: C, required: true, multiple: true, maxSelections: 3, options: [{ id: a, label: A }] }\n'),
      'choice.yaml',
    );
    expect(tooMany.issues[0]).toMatchObject({ pointer: '/steps/0/steps/0/form/controls/0' });
    expect(tooMany.issues[0]?.message).toMatch(/at most 3 selections, but only 1 options/);

    const missingLabel = refusal(form('            - { type: text, id: t, label: "", required: true }\n'), 'label.yaml');
    expect(missingLabel.issues[0]?.pointer).toBe('/steps/0/steps/0/form/controls/0/label');

    const wrongAnswer = refusal(
      form(
        '            - { type: choice, id: region, label: Region, required: true, multiple: false, options: [{ id: eu, label: EU }] }\n',
        '        autoRespond: { afterMs: 10, values: [{ id: region, value: north }] }\n',
      ),
      'answer.yaml',
    );
    expect(wrongAnswer.issues[0]?.pointer).toBe('/steps/0/steps/0/autoRespond/values/0/value');
  });

  it('with an unknown app output status or approval field is refused', () => {
    const error = refusal(
      minimal(
        '  - kind: turn\n    thread: a\n    input: hi\n    steps:\n      - kind: tool\n        agent: a\n        tool: t\n        input: 1\n        appOutput: { status: leaked }\n        approval: { explanation: x, decision: approve }\n',
        'threads:\n  - key: a\n',
      ),
      'tool.yaml',
    );
    const messages = error.issues.map((issue) => `${issue.pointer}: ${issue.message}`);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\/steps\/0\/steps\/0\/appOutput\/status: "leaked" is not a known status; use one of: "available", "rejected", "not_provided"/),
        expect.stringMatching(/^\/steps\/0\/steps\/0\/approval\/decision: is not a field here \(known fields: explanation, preview, reason, expiresInMs, autoRespond, expect\)/),
      ]),
    );
  });
});
