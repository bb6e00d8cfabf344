/**
 * `trustmesh`: the project's command line.
 *
 *   trustmesh relay validate --wire <1.0|1.1|1.2|control|browser-session> [--direction D] [--strict] [--json] FILE...
 *   trustmesh relay conformance [--json] DIR...
 *   trustmesh db migrate <deploy|status>
 *   trustmesh dev [--origin ORIGIN]                         (what `npm start` runs)
 *   trustmesh relay session --workspace ID [--origin ORIGIN] ...
 *   trustmesh relay publish-card --workspace ID --owner USER_ID --name NAME --description TEXT ...
 *   trustmesh relay serve                                   (one gateway replica, configured by the environment)
 *   trustmesh relay watch --workspace ID [--origin ORIGIN] [--ca FILE] [--say TEXT] ...
 *   trustmesh shield analyze [--json] FILE...|-             (one consultation per file, no service needed)
 *   trustmesh shield <open|consult|guide|close|get|list|token issue> ...   (against a running shield)
 *   trustmesh cards validate [--kind K] [--json] FILE...|-  (AI Cards, AI Catalogs, A2A cards, MCP server.json)
 *   trustmesh cards verify [--resolve MAP] [--json] FILE...|-     (AI Card, AI Catalog, A2A card signatures)
 *   trustmesh cards <publish|get|status|search|crawl> ...          (against a running card registry)
 *   trustmesh console account <create|list|set-password|delete> ... (the console's accounts, in its database)
 *
 * Exit status: 0 success, 1 a frame or document is invalid (or unverified) or a conformance case
 * mismatched, 2 a usage error or (relay validate) an unreadable file.
 */
import { EXIT, UsageError, type CommandIo } from './command-io';

/**
 * Each command's module is loaded when it runs, so `relay validate` does not load gRPC, Prisma or the
 * database drivers (a second per call). `module.require`, not `import()`: tsx runs this as CommonJS, where a
 * dynamic import would go to Node's ESM loader, which cannot resolve extensionless TypeScript paths.
 */
function load<T>(path: string): T {
  return module.require(path) as T;
}

const USAGE = `Usage:
  trustmesh relay validate --wire <1.0|1.1|1.2|control|browser-session>
                           [--direction <browser-to-relay|relay-to-browser|companion-to-relay|relay-to-companion>]
                           [--strict] [--max-bytes N] [--json] FILE...
      Validate JSON frames (one per FILE; "-" reads one from stdin).
      --strict also checks method params, the deferred rules and user-input form rules.
  trustmesh relay conformance [--json] DIR...
      Check the library against fixture folders in the manifest format (a folder with a
      manifest.json, or a folder of such folders).
  trustmesh db migrate <deploy|status>
      Apply (deploy) or list (status) the platform's database migrations: the explicit step of
      distributed mode. The database is DATABASE_URL, else embedded PGlite under TRUSTMESH_DATA_DIR.
  trustmesh dev [--origin ORIGIN]
      Run the relay gateway, a paired companion simulator and the shield analyzer on embedded
      defaults (what \`npm start\` runs) and print how to connect: relay URL, certificate, gRPC address
      and service credential, workspace, a browser session descriptor for ORIGIN (default
      http://localhost:5173), and the shield's REST URL, gRPC address, operator port and development
      operator credential. Ctrl-C stops them all.
  trustmesh relay session --workspace ID [--origin ORIGIN] [--wire 1.2,1.1]
                          [--relay-control-address HOST:PORT] [--relay-control-ca FILE]
      Mint a browser session descriptor through RelayControl CreateBrowserSession and print it as
      {"connectUrl","expiresAt"}. The service credential comes from RELAY_CONTROL_CREDENTIAL.
  trustmesh relay publish-card --workspace ID --owner USER_ID --name NAME --description TEXT [--tags a,b]
                               [--relay-control-address HOST:PORT] [--relay-control-ca FILE]
      Publish the workspace's Companion agent as an AI Card in the card registry through RelayControl
      PublishWorkspaceCard (the gateway holds the registry credential) and print where it stands:
      {"identifier","revision","delivery","status"}. The service credential comes from RELAY_CONTROL_CREDENTIAL.
  trustmesh relay serve
      Run one relay gateway replica in the foreground, configured by the environment
      (apps/relay-gateway/README.md); start one per terminal for several replicas from one checkout.
  trustmesh relay watch --workspace ID [--origin ORIGIN] [--wire 1.2,1.1] [--ca FILE] [--say TEXT]
                        [--relay-control-address HOST:PORT] [--relay-control-ca FILE]
      Connect as a browser (a fresh descriptor from CreateBrowserSession for every connection) and
      print the live stream: status, threads, turns, messages, tools, interactions; until Ctrl-C.
      --ca trusts the gateway's certificate (default: RELAY_GATEWAY_CA_FILE, else the development
      certificate under TRUSTMESH_DATA_DIR); --say starts one turn with TEXT once the workspace is online.
  trustmesh shield analyze [--json] FILE...
      One Shield consultation per FILE ("-" reads one from stdin) holding
      {"case": <case input>, "consult": <consult input>}, on a private shield analyzer with a temporary
      embedded database (deterministic analysis unless SHIELD_MODEL_* configure a model). Prints a summary
      per file, or with --json one array of {"file","ok":true,"consultation"} or
      {"file","ok":false,"errors":[{"code","path","message"}]}. Exit 0 all ok, 1 any not ok.
  trustmesh shield open FILE | consult CASE_ID FILE | guide CASE_ID FILE | close CASE_ID FILE
  trustmesh shield get CASE_ID | list | token issue AGENT_ID [--name NAME] [--days 1-30]
      Call a running shield analyzer's REST API (--url URL, else SHIELD_URL, else http://127.0.0.1:8480)
      with the credential in SHIELD_CREDENTIAL (operator credential or agent token); FILE is the JSON
      input ("-" for stdin). Prints the record as JSON; a refusal prints each code, path and message.
  trustmesh cards validate [--kind auto|ai-card|ai-catalog|a2a|mcp-server] [--compatibility]
                           [--max-bytes N] [--json] FILE...
      Validate AI Cards v1, AI Catalogs (seed and final), A2A AgentCards and MCP server.json files (one
      per FILE; "-" reads one from stdin); the kind is detected unless --kind names it. --compatibility
      accepts the draft seed-catalog forms. Prints a line per file and per issue, or with --json one array
      of {"file","kind","valid","errors","warnings"}. Exit 0 all valid, 1 any invalid or unreadable.
  trustmesh cards verify [--resolve MAP] [--json] FILE...
      Verify the signature of each FILE ("-" reads one from stdin): a v1 AI Card, an AI Catalog's root
      signature, or an A2A AgentCard's signatures. Keys come from MAP, a JSON object of URL -> document
      (DID documents, JWK Sets), else from the network (https only, public addresses only). With --json
      prints one array of {"file","verified","code"?,"signer"?,"kid"?,"alg"?}. Exit 0 all verified, 1 any not.
  trustmesh cards publish FILE [--kind ai-card|a2a|mcp-server] [--identifier ID] [--dry-run]
  trustmesh cards get IDENTIFIER [--revision R]
  trustmesh cards status IDENTIFIER <active|deprecated|yanked|deleted> [--revision R] [--message M]
  trustmesh cards search [QUERY] [--kind K]... [--tag T]... [--protocol P]... [--publisher-domain D]...
                         [--status S]... [--verified true|false] [--limit N] [--cursor C]
  trustmesh cards crawl SOURCE_ID
      Call a running card registry's REST API (--registry URL, else TRUSTMESH_REGISTRY_URL, else
      http://127.0.0.1:8490). publish and status need a publisher credential, crawl an operator one:
      from TRUSTMESH_REGISTRY_TOKEN or --token-file FILE (never an argument). FILE "-" reads stdin.
      --json prints the registry's answer (a refusal's problem document too); get --revision prints the
      revision's exact bytes. Exit 0 done, 1 refused/not found/unreachable, 2 a usage error or unreadable input.
  trustmesh console account create --username NAME | set-password --username NAME | delete --username NAME
  trustmesh console account list [--json]
      Manage the console's accounts in its database (DATABASE_URL, else embedded PGlite under
      TRUSTMESH_DATA_DIR/console: stop an embedded console first). The password is read from stdin when
      piped (one line), else prompted for twice without echo; never from an argument. A password change
      or a deletion ends the account's sessions. Exit 0 done, 1 refused, 2 a usage error.
`;

export async function main(argv: readonly string[], io: CommandIo): Promise<number> {
  const [group, command, ...rest] = argv;
  try {
    if (group === undefined || group === '--help' || group === '-h' || group === 'help') {
      io.stdout(USAGE);
      return EXIT.ok;
    }
    if (group === 'relay' && command === 'validate') return await load<typeof import('./relay-validate.command')>('./relay-validate.command').runRelayValidate(rest, io);
    if (group === 'relay' && command === 'conformance') return await load<typeof import('./relay-conformance.command')>('./relay-conformance.command').runRelayConformance(rest, io);
    if (group === 'db' && command === 'migrate') return await load<typeof import('./db-migrate.command')>('./db-migrate.command').runDbMigrate(rest, io);
    if (group === 'dev') return await load<typeof import('./dev.command')>('./dev.command').runDev(argv.slice(1), io);
    if (group === 'relay' && command === 'session') return await load<typeof import('./relay-session.command')>('./relay-session.command').runRelaySession(rest, io);
    if (group === 'relay' && command === 'publish-card') return await load<typeof import('./relay-publish-card.command')>('./relay-publish-card.command').runRelayPublishCard(rest, io);
    if (group === 'relay' && command === 'serve') return await load<typeof import('./relay-serve.command')>('./relay-serve.command').runRelayServe(rest, io);
    if (group === 'shield' && command === 'analyze') return await load<typeof import('./shield-analyze.command')>('./shield-analyze.command').runShieldAnalyze(rest, io);
    if (group === 'shield') {
      const cases = load<typeof import('./shield-cases.command')>('./shield-cases.command');
      if (cases.isShieldCasesCommand(command)) return await cases.runShieldCases(command, rest, io);
    }
    if (group === 'cards' && command === 'validate') return await load<typeof import('./cards-validate.command')>('./cards-validate.command').runCardsValidate(rest, io);
    if (group === 'cards' && command === 'verify') return await load<typeof import('./cards-verify.command')>('./cards-verify.command').runCardsVerify(rest, io);
    if (group === 'cards') {
      const registry = load<typeof import('./cards-registry.command')>('./cards-registry.command');
      if (registry.isRegistryCommand(command)) return await registry.runCardsRegistry(command, rest, io);
    }
    if (group === 'console' && command === 'account') return await load<typeof import('./console-account.command')>('./console-account.command').runConsoleAccount(argv.slice(1), io);
    if (group === 'relay' && command === 'watch') return await load<typeof import('./relay-watch.command')>('./relay-watch.command').runRelayWatch(rest, io);
    throw new UsageError(`unknown command: ${[group, command].filter(Boolean).join(' ')}`);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`trustmesh: ${error.message}\n\n${USAGE}`);
      return EXIT.usage;
    }
    throw error;
  }
}

/** Runs the command line against this process's arguments and stdio, setting the exit code. */
export function runFromProcess(): Promise<void> {
  return main(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stdin: process.stdin,
  }).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      // Report without a stack: an internal failure is a bug to file, not something to debug from here.
      process.stderr.write(`trustmesh: internal error: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 70;
    },
  );
}

if (require.main === module) void runFromProcess();
