/**
 * `protocolSpecific` of an AI Card v1 service (CARDS.md §1.2): its content belongs to the protocol's own
 * specification, so it is checked against the A2A and MCP shapes this library knows, and every finding is
 * a warning (code PROTOCOL_SPECIFIC_SHAPE) that names the rule it broke. Other service types are opaque.
 */
import { childPointer, IssueList } from './document.issue';
import { FieldReader, type JsonObject } from './document-fields.reader';

export function checkProtocolSpecific(type: string, content: JsonObject, path: string, issues: IssueList): void {
  const found = new IssueList();
  const fields = new FieldReader(found);
  if (type === 'a2a') checkA2aContent(content, path, fields);
  else if (type === 'mcp') checkMcpContent(content, path, fields);
  for (const issue of [...found.errors, ...found.warnings]) {
    issues.warn(issue.path, 'PROTOCOL_SPECIFIC_SHAPE', `${issue.message} (${type} shape; ${issue.code})`);
  }
}

function checkA2aContent(content: JsonObject, path: string, fields: FieldReader): void {
  fields.string(content, 'protocolVersion', path, false);
  fields.uri(content, 'url', path, false);
  fields.member(content, 'capabilities', path, false);
  fields.member(content, 'securitySchemes', path, false);
  for (const key of ['supportedInterfaces', 'additionalInterfaces']) {
    fields.array(content, key, path, false)?.forEach((item, index) => {
      const at = childPointer(childPointer(path, key), index);
      const entry = fields.object(item, at, 'An interface');
      if (entry) fields.uri(entry, 'url', at, true);
    });
  }
  fields.array(content, 'skills', path, false)?.forEach((item, index) => {
    const at = childPointer(childPointer(path, 'skills'), index);
    const skill = fields.object(item, at, 'A skill');
    if (!skill) return;
    fields.string(skill, 'id', at, true);
    fields.string(skill, 'name', at, true);
    fields.string(skill, 'description', at, true);
    fields.stringArray(skill, 'tags', at, false);
  });
}

function checkMcpContent(content: JsonObject, path: string, fields: FieldReader): void {
  fields.string(content, 'protocolVersion', path, false);
  const transport = fields.member(content, 'transport', path, false);
  if (transport) {
    const at = childPointer(path, 'transport');
    fields.oneOf(transport, 'type', at, false, ['stdio', 'streamable-http', 'sse']);
    fields.uri(transport, 'endpoint', at, false);
    fields.uri(transport, 'url', at, false);
  }
  // MCP lists tools at run time; a card may carry a list of {name, description?} or a marker such as "dynamic".
  const tools = content['tools'];
  if (Array.isArray(tools)) {
    tools.forEach((item, index) => {
      const at = childPointer(childPointer(path, 'tools'), index);
      const tool = fields.object(item, at, 'A tool');
      if (tool) fields.string(tool, 'name', at, true, true);
    });
  } else if (tools !== undefined && typeof tools !== 'string') {
    fields.issues.error(childPointer(path, 'tools'), 'FIELD_TYPE', '"tools" must be an array of tools or a string marker such as "dynamic".');
  }
}
