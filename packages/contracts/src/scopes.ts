/** API key scopes. A route names the one it needs; keys carry a list. */
export const SCOPES = ['servers:read', 'sessions:create', 'tools:execute', 'connections:write', 'catalog:write'] as const;
export type Scope = (typeof SCOPES)[number];
/** Plain-text API keys look like `csk_live_<secret>` or `csk_test_<secret>`. */
export const API_KEY_PATTERN = /^csk_(live|test)_[A-Za-z0-9]{24,64}$/;
