// What other parts of the platform may use of the secrets store (DESIGN §5 Tools).
export { SecretCipher, SecretUnreadableError } from './crypto.ts';
export { SecretStore } from './store.ts';
export { SecretService } from './service.ts';
export { secretRoutes } from './routes.ts';
export { SecretJson } from './schema.ts';
