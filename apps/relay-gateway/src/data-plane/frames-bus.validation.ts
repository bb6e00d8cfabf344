/**
 * What a replica accepts from the bus (`frames-bus.records.ts`): a record's frame is checked again, with the
 * rules of the socket it came from (§13 order: size, text JSON, the schema of its Wire version, the direction
 * allowlist, the bound workspace), before this replica forwards it to a peer. The writer checked it too, but
 * a hostile or buggy replica, or a poisoned topic, must not be a way around the rules: a record is input.
 *
 * Pure: no I/O.
 */
import { decodeFrame, isWireVersion, REMOTE_WIRE_VERSIONS, type AnyWireFrame, type WireVersion } from '@trustmesh/relay-protocol';

export type BusFrameVerdict = { ok: true; frame: AnyWireFrame; wire: WireVersion } | { ok: false; code: string };

export interface BusFrameExpectation {
  /** The socket the frame came in on, at the writing replica. */
  direction: 'companion-to-relay' | 'browser-to-relay';
  /** The record's key: the frame must name this workspace. */
  workspaceId: string;
  /** The frame's Wire version as the record states it (checked: 1.1 or 1.2 only). */
  wire: unknown;
  maxFrameBytes: number;
  /**
   * Whether `runtime.encrypted` may cross (default true: sequenced and response envelopes are routed on their
   * visible metadata, and the hub sends them only to encrypted sessions). A request for a Companion takes the
   * Companion's profile.
   */
  encryption?: boolean;
}

/** Checks the frame text a bus record carries; `code` is a stable frame issue code, or `BUS_RECORD_INVALID`. */
export function readBusFrame(text: unknown, expected: BusFrameExpectation): BusFrameVerdict {
  const { wire } = expected;
  if (typeof text !== 'string' || !isWireVersion(wire) || !REMOTE_WIRE_VERSIONS.includes(wire)) return { ok: false, code: 'BUS_RECORD_INVALID' };
  const verdict = decodeFrame(text, { wire, direction: expected.direction, encryption: expected.encryption ?? true, maxFrameBytes: expected.maxFrameBytes });
  if (!verdict.ok) return { ok: false, code: verdict.issues[0]?.code ?? 'BUS_RECORD_INVALID' };
  const frame = verdict.value as AnyWireFrame;
  if (!('workspaceId' in frame) || frame.workspaceId !== expected.workspaceId) return { ok: false, code: 'WORKSPACE_MISMATCH' };
  return { ok: true, frame, wire };
}
