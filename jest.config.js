// Runs every project's tests from the root (`npx jest`); `nx run-many -t test` is the usual way.
const { getJestProjectsAsync } = require('@nx/jest');

module.exports = async () => ({ projects: await getJestProjectsAsync() });
