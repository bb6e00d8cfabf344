/** How times and enum values read on the page. */
export function formatTime(iso: string | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** `proceed_with_caution` → `proceed with caution`. */
export const words = (value: string): string => value.replaceAll('_', ' ');

export function percent(value: number): string {
  return `${Math.round(value * 100)}%`;
}
