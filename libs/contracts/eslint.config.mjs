import baseConfig from '../../eslint.config.mjs';

// Generated code is checked by the generator, not by us: linting it would only produce noise we may not fix.
export default [...baseConfig, { ignores: ['src/generated/**'] }];
