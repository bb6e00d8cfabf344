/**
 * `trustmesh relay publish-card --workspace ID --owner USER_ID --name NAME --description TEXT [--tags a,b]
 * [--relay-control-address HOST:PORT] [--relay-control-ca FILE]`: publishes the workspace's Companion agent
 * as an AI Card through RelayControl PublishWorkspaceCard and prints the answer as one JSON line
 * `{"identifier","revision","delivery","status"[,"registryRefusalCode"]}`.
 *
 * The gateway, not this command, holds the registry publisher credential; this command needs only the
 * relay's service credential, from `RELAY_CONTROL_CREDENTIAL` or `RELAY_CONTROL_CREDENTIAL_FILE` (a flag would
 * land in shell history); the target follows the platform's gRPC client rule (relay-control.target.ts).
 * Exit status: 0 published or pending (the gateway keeps delivering), 1 refused by the gateway or the
 * registry or unreachable, 2 usage.
 */
import { EXIT, UsageError, type CommandIo } from './command-io';
import { RelayControl, RelayControlError } from './relay-control.client';
import { readRelayControlTarget } from './relay-control.target';
import { DEFAULT_RELAY_CONTROL_ADDRESS, parseCommandFlags } from './relay-session.command';

type Env = Readonly<Record<string, string | undefined>>;
const COMMAND = 'relay publish-card';
const FLAGS = ['--workspace', '--owner', '--name', '--description', '--tags', '--relay-control-address', '--relay-control-ca'];

export interface RelayPublishCardOptions {
  workspaceId: string;
  ownerUserId: string;
  name: string;
  description: string;
  tags: string[];
  address: string;
  caFile: string | null;
}

export function parseRelayPublishCardArgs(args: readonly string[], env: Env): RelayPublishCardOptions {
  const flags = parseCommandFlags(COMMAND, FLAGS, args);
  const required = (flag: string, what: string) => {
    const value = flags[flag]?.trim();
    if (!value) throw new UsageError(`${COMMAND}: ${flag} is required (${what})`);
    return value;
  };
  return {
    workspaceId: required('--workspace', 'the workspace id'),
    ownerUserId: required('--owner', 'the workspace owner\'s user id, as given to CreateWorkspace'),
    name: required('--name', 'the agent\'s name on its card'),
    description: required('--description', 'what the agent does, on its card'),
    tags: (flags['--tags'] ?? '')
      .split(',')
      .map((tag) => tag.trim())
      .filter(Boolean),
    address: flags['--relay-control-address'] ?? env['RELAY_CONTROL_ADDRESS'] ?? DEFAULT_RELAY_CONTROL_ADDRESS,
    caFile: flags['--relay-control-ca'] ?? null,
  };
}

export async function runRelayPublishCard(args: readonly string[], io: CommandIo, env: Env = process.env): Promise<number> {
  const options = parseRelayPublishCardArgs(args, env);
  const control = new RelayControl(readRelayControlTarget(COMMAND, options, env));
  try {
    const card = await control.publishWorkspaceCard({
      workspaceId: options.workspaceId,
      requestedByUserId: options.ownerUserId,
      name: options.name,
      description: options.description,
      tags: options.tags,
    });
    io.stdout(`${JSON.stringify(card)}\n`);
    if (card.delivery === 'refused') {
      io.stderr(`trustmesh: ${COMMAND}: the card registry refused the card (${card.registryRefusalCode ?? 'no code'}); ask its operator, then publish again\n`);
      return EXIT.failed;
    }
    if (card.delivery === 'pending') io.stderr(`trustmesh: ${COMMAND}: the card registry has not answered yet; the relay keeps delivering the card\n`);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof RelayControlError) {
      io.stderr(`trustmesh: ${error.message}\n`);
      return EXIT.failed;
    }
    throw error;
  } finally {
    control.close();
  }
}
