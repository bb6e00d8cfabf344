/**
 * Deprecation passed downstream (CARDS.md §1.2 "`maturity: deprecated` → status deprecated", §2.4 "card `maturity` →
 * a namespaced extension", §5 "deprecation passed downstream"). Lifecycle extensions are still proposals (§2.3 "Still
 * open") with no settled key, so `extensions`, `metadata` and MCP `_meta` are read, themselves and one level down, for
 * a deprecated `maturity`/`status`/`lifecycle` or `deprecated: true`. Nothing else changes a record's status.
 */
export function isDeprecatedBy(document: unknown): boolean {
  if (!isRecord(document)) return false;
  if (document['maturity'] === 'deprecated') return true;
  return [document['extensions'], document['metadata'], document['_meta']].some(
    (holder) => isRecord(holder) && (saysDeprecated(holder) || Object.values(holder).some(saysDeprecated)),
  );
}

function saysDeprecated(value: unknown): boolean {
  if (!isRecord(value)) return false;
  return value['maturity'] === 'deprecated' || value['status'] === 'deprecated' || value['lifecycle'] === 'deprecated' || value['deprecated'] === true;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
