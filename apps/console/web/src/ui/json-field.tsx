/**
 * A JSON editor for the lists a form cannot reasonably lay out field by field (case facts, evidence,
 * policies): it parses as the person types and says where the JSON is broken.
 */
import { JsonInput } from '@mantine/core';

export function parseJsonList(text: string): { ok: true; value: unknown[] } | { ok: false; message: string } {
  if (!text.trim()) return { ok: true, value: [] };
  try {
    const value: unknown = JSON.parse(text);
    if (!Array.isArray(value)) return { ok: false, message: 'Write a JSON list: [ {...}, {...} ].' };
    return { ok: true, value };
  } catch (error) {
    return { ok: false, message: `Not valid JSON: ${error instanceof Error ? error.message : 'check the brackets and quotes'}.` };
  }
}

export function JsonListField({
  label,
  description,
  value,
  onChange,
  error,
}: {
  label: string;
  description: string;
  value: string;
  onChange: (value: string) => void;
  error?: string | undefined;
}) {
  const parsed = parseJsonList(value);
  return (
    <JsonInput
      label={label}
      description={description}
      value={value}
      onChange={onChange}
      autosize
      minRows={2}
      maxRows={12}
      maxLength={60_000}
      formatOnBlur
      error={!parsed.ok ? parsed.message : error}
    />
  );
}
