/**
 * The desired AI Card of every published workspace, projected from `relay.control.v1` (the process
 * manager's half that decides; `WorkspaceCardDelivery` is the half that acts). Each event is applied once
 * with its checkpoint in the runner's transaction, so the decision survives restarts and replays:
 *
 * | event | effect on the desired card |
 * |---|---|
 * | WorkspaceCardPublished | content and endpoint set; `revision` = the event's time; new desired version |
 * | WorkspaceCardEndpointMoved | endpoint set; `revision` = the event's time; new desired version |
 * | DeviceEnrolled, DeviceRevoked | device counted; status recomputed: `deprecated` when the workspace had devices and all are revoked, else `active`; a change is a new desired version |
 *
 * Every change bumps `desired_version` and clears the delivery's backoff and refusal, so the delivery
 * loop picks it up at once. Devices are counted in this projection's own table, never the read model's.
 */
import type { ProjectionDefinition } from '@trustmesh/platform-projections';

import { controlEventProjection, type ControlEventHandlers, type RelayPrismaTx } from '../persistence/control-read-model.projection';

export const WORKSPACE_CARDS_PROJECTION = 'relay-workspace-cards';


/** The status the card should have, from the workspace's devices as this projection counted them. */
const recomputeStatus = (tx: RelayPrismaTx, workspaceId: string) => tx.$executeRaw`
  UPDATE relay_workspace_cards AS card
     SET status = counted.status, desired_version = card.desired_version + 1, attempts = 0, next_attempt_at = NULL, refusal_code = NULL
    FROM (SELECT CASE WHEN count(*) > 0 AND count(*) FILTER (WHERE NOT revoked) = 0 THEN 'deprecated' ELSE 'active' END AS status
            FROM relay_card_devices WHERE workspace_id = ${workspaceId}::uuid) AS counted
   WHERE card.workspace_id = ${workspaceId}::uuid AND card.status <> counted.status`;

const HANDLERS: ControlEventHandlers = {
  WorkspaceCardPublished: (tx, data) => tx.$executeRaw`
    INSERT INTO relay_workspace_cards (workspace_id, identifier, name, description, tags, endpoint, end_to_end_encrypted, created_at, revision, status, desired_version)
    VALUES (${data.workspaceId}::uuid, ${data.identifier}, ${data.name}, ${data.description}, ${JSON.stringify(data.tags)}, ${data.endpoint}, ${data.endToEndEncrypted},
            ${data.publishedAt}, ${data.publishedAt},
            (SELECT CASE WHEN count(*) > 0 AND count(*) FILTER (WHERE NOT revoked) = 0 THEN 'deprecated' ELSE 'active' END
               FROM relay_card_devices WHERE workspace_id = ${data.workspaceId}::uuid),
            1)
    ON CONFLICT (workspace_id) DO UPDATE
       SET identifier = EXCLUDED.identifier, name = EXCLUDED.name, description = EXCLUDED.description, tags = EXCLUDED.tags,
           endpoint = EXCLUDED.endpoint, end_to_end_encrypted = EXCLUDED.end_to_end_encrypted, revision = EXCLUDED.revision,
           desired_version = relay_workspace_cards.desired_version + 1, attempts = 0, next_attempt_at = NULL, refusal_code = NULL`,
  WorkspaceCardEndpointMoved: (tx, data) => tx.$executeRaw`
    UPDATE relay_workspace_cards
       SET endpoint = ${data.endpoint}, revision = ${data.movedAt}, desired_version = desired_version + 1, attempts = 0, next_attempt_at = NULL, refusal_code = NULL
     WHERE workspace_id = ${data.workspaceId}::uuid AND endpoint <> ${data.endpoint}`,
  DeviceEnrolled: async (tx, data) => {
    await tx.$executeRaw`
      INSERT INTO relay_card_devices (device_id, workspace_id) VALUES (${data.deviceId}::uuid, ${data.workspaceId}::uuid)
      ON CONFLICT (device_id) DO NOTHING`;
    await recomputeStatus(tx, data.workspaceId);
  },
  DeviceRevoked: async (tx, data) => {
    await tx.$executeRaw`
      INSERT INTO relay_card_devices (device_id, workspace_id, revoked) VALUES (${data.deviceId}::uuid, ${data.workspaceId}::uuid, true)
      ON CONFLICT (device_id) DO UPDATE SET revoked = true`;
    await recomputeStatus(tx, data.workspaceId);
  },
};

/** Every other control event leaves the cards as they are. */
export function workspaceCardsProjection(): ProjectionDefinition<RelayPrismaTx> {
  return controlEventProjection(WORKSPACE_CARDS_PROJECTION, HANDLERS);
}
