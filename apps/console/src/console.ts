/**
 * `node console.js account <create|set-password|delete|list> …` in the console bundle (`nx build console`):
 * the operator's `trustmesh console account …` commands (README.md, "Accounts") where the workspace's CLI is
 * not installed, in the image beside the running console, whose DATABASE_URL it uses:
 * `kubectl exec -i deploy/console -- node console.js account create --username alice < password-file`.
 * A separate entry like migrate.js, so that managing accounts never starts the app.
 */
import './accounts/console-accounts.main';
