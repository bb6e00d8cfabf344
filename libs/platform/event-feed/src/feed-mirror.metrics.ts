/**
 * What an app's operator port shows of its feed mirrors (the mirror never makes the app unready: its consumers
 * work on what was copied, and the serving app may come later). Labels are topics only.
 */
import { collectedCounter, collectedGauge, type Registry } from '@trustmesh/platform-metrics';

import type { TopicFeedMirror } from './feed-mirror';

export function registerFeedMirrorMetrics(registry: Registry, mirrors: readonly Pick<TopicFeedMirror, 'state'>[]): void {
  const states = () => mirrors.map((mirror) => mirror.state());
  collectedGauge(registry, {
    name: 'event_feed_mirror_following',
    help: 'Whether the mirror of a topic followed from another process read its last page (1) or is retrying (0).',
    labelNames: ['topic'],
    collect: () => states().map((state) => ({ labels: { topic: state.topic }, value: state.status === 'following' ? 1 : 0 })),
  });
  collectedGauge(registry, {
    name: 'event_feed_mirror_lag_records',
    help: 'Records of the followed topic not copied yet, as of the last page read.',
    labelNames: ['topic'],
    collect: () => states().flatMap((state) => (state.lagRecords === null ? [] : [{ labels: { topic: state.topic }, value: state.lagRecords }])),
  });
  collectedGauge(registry, {
    name: 'event_feed_mirror_failures',
    help: 'Failed reads of the followed topic in a row (0 while following).',
    labelNames: ['topic'],
    collect: () => states().map((state) => ({ labels: { topic: state.topic }, value: state.failures })),
  });
  collectedCounter(registry, {
    name: 'event_feed_mirror_copied_records_total',
    help: 'Records copied from the followed topic by this process.',
    labelNames: ['topic'],
    collect: () => states().map((state) => ({ labels: { topic: state.topic }, value: state.copiedRecords })),
  });
}
