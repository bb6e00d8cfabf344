import { FieldIssues } from './field-issues';

const issue = (path: string, message = `bad ${path}`) => ({ code: 'FIELD_VALUE', path, message });

describe('FieldIssues', () => {
  it('puts an issue at the field that owns its pointer, and issues below a field at that field', () => {
    const issues = new FieldIssues([issue('/name'), issue('/services/a2a/type', 'The key must equal the type.'), issue('/publisher/id')]);
    expect(issues.at('/name')).toBe('bad /name');
    expect(issues.at('/services')).toBe('/a2a/type: The key must equal the type.');
    expect(issues.at('/publisher/id')).toBe('bad /publisher/id');
    expect(issues.unclaimed()).toEqual([]);
  });

  it('lists every issue no field owns, so none is dropped', () => {
    const issues = new FieldIssues([issue('/name'), issue('/foo'), issue('')]);
    expect(issues.at('/name')).toBeDefined();
    expect(issues.at('/namespace')).toBeUndefined();
    expect(issues.unclaimed().map((item) => item.path)).toEqual(['/foo', '']);
  });

  it('does not take a sibling that only shares a prefix', () => {
    const issues = new FieldIssues([issue('/tagsExtra')]);
    expect(issues.at('/tags')).toBeUndefined();
    expect(issues.unclaimed()).toHaveLength(1);
  });

  it('joins several issues of one field', () => {
    const issues = new FieldIssues([issue('/goal', 'Too long.'), issue('/goal', 'Blank.')]);
    expect(issues.at('/goal')).toBe('Too long. · Blank.');
  });

  it('reads pointers relative to a base', () => {
    const issues = new FieldIssues([issue('/card/name')], '/card');
    expect(issues.at('/name')).toBe('bad /card/name');
  });
});
