/**
 * Emits TypeScript types from a relay schema document, so the library's types and its validators come
 * from the same JSON Schema. Handles exactly the subset the relay documents use (closed objects,
 * `anyOf`, `const`/`enum`, scalars, arrays, records and `$ref`s into `$defs`) and fails loudly on
 * anything else rather than emitting a looser type.
 */
import type { JsonSchema } from '../definitions/json-schema';

export interface TypeModule {
  /** Names for `$defs` entries; the JSON-value alias gets a readable name. */
  defNames: Record<string, string>;
  /** Top-level union members to name, by frame/message `type`. */
  namedMembers: Array<{ name: string; pointer: string; schema: JsonSchema }>;
  /** Name of the union of all named members. */
  unionName?: string;
  /** Extra declarations appended verbatim (aliases that index into the named types). */
  extra?: string[];
}

const pascal = (text: string): string =>
  text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');

export const frameTypeName = (type: string, suffix: string): string => `${pascal(type)}${suffix}`;
export const defTypeName = (def: string): string => pascal(def);

export function emitTypes(schema: JsonSchema, module: TypeModule, header: string): string {
  const out: string[] = [header, ''];
  const refName = (ref: string): string => {
    const def = ref.replace(/^#\/\$defs\//, '');
    const name = module.defNames[def];
    if (!name) throw new Error(`unnamed $ref ${ref}`);
    return name;
  };
  const render = (node: JsonSchema, indent: string): string => typeOf(node, indent, refName);

  for (const { name, schema: member } of module.namedMembers) {
    out.push(`export type ${name} = ${render(member, '')};`, '');
  }
  if (module.unionName) {
    out.push(`export type ${module.unionName} =`, ...module.namedMembers.map((m) => `  | ${m.name}`), '  ;', '');
  }
  const emitted = new Set<string>();
  for (const [def, node] of Object.entries(schema.$defs ?? {})) {
    const name = module.defNames[def];
    // Several `$defs` may share one name (the documents repeat the JSON-value schema).
    if (!name || emitted.has(name)) continue;
    emitted.add(name);
    out.push(`export type ${name} = ${render(node, '')};`, '');
  }
  out.push(...(module.extra ?? []));
  return `${out.join('\n').trimEnd()}\n`;
}

function typeOf(node: JsonSchema, indent: string, refName: (ref: string) => string): string {
  if (node.$ref) return refName(node.$ref);
  if (node.anyOf) {
    const members = node.anyOf.map((member) => typeOf(member, indent, refName));
    return members.length === 1 ? members[0]! : members.map((member) => `(${member})`).join(' | ');
  }
  if (node.const !== undefined) return JSON.stringify(node.const);
  if (node.enum) return node.enum.map((value) => JSON.stringify(value)).join(' | ');
  switch (node.type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return node.items ? `Array<${typeOf(node.items, indent, refName)}>` : 'unknown[]';
    case 'object':
      return objectType(node, indent, refName);
    case undefined:
      if (Object.keys(node).every((key) => ['readOnly', 'default', 'description'].includes(key))) return 'unknown';
  }
  throw new Error(`unsupported schema node ${JSON.stringify(node).slice(0, 120)}`);
}

function objectType(node: JsonSchema, indent: string, refName: (ref: string) => string): string {
  const inner = `${indent}  `;
  const required = new Set(node.required ?? []);
  const lines = Object.entries(node.properties ?? {}).map(([key, child]) => {
    const optional = required.has(key) ? '' : '?';
    const name = /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
    return `${inner}${name}${optional}: ${typeOf(child, inner, refName)};`;
  });
  if (typeof node.additionalProperties === 'object') {
    lines.push(`${inner}[key: string]: ${typeOf(node.additionalProperties, inner, refName)};`);
  } else if (node.additionalProperties !== false) {
    lines.push(`${inner}[key: string]: unknown;`);
  }
  return lines.length === 0 ? 'Record<string, never>' : `{\n${lines.join('\n')}\n${indent}}`;
}
