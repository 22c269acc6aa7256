// Sealing of secret values at rest: AES-256-GCM with a key derived from the instance's key
// material (SECRETS_KEY or the generated DATA_DIR/secrets-key), bound to the row it is stored in.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Versioned so that a later key schedule can sit beside this one. */
const HKDF_INFO = 'api-platform secrets store v1 aes-256-gcm';

/** A stored value that does not open with this instance's key (another key, or a damaged row). */
export class SecretUnreadableError extends Error {
  override name = 'SecretUnreadableError';
}

export class SecretCipher {
  readonly #key: Buffer;

  /** `keyMaterial`: SECRETS_KEY or the generated key file's content (32+ characters). */
  constructor(keyMaterial: string) {
    // HKDF rather than the raw text: any string of enough entropy gives a uniform 256-bit key.
    this.#key = Buffer.from(hkdfSync('sha256', Buffer.from(keyMaterial, 'utf8'), Buffer.alloc(0), HKDF_INFO, 32));
  }

  /**
   * base64 of iv ‖ ciphertext ‖ tag. `binding` (the row's workspace and id) is authenticated
   * with it, so a value copied into another row or workspace does not open there.
   */
  seal(plaintext: string, binding: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(binding, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64');
  }

  /** The plaintext; throws SecretUnreadableError when the tag does not verify (never garbage). */
  open(sealed: string, binding: string, what: string): string {
    const bytes = Buffer.from(sealed, 'base64');
    if (bytes.length < IV_BYTES + TAG_BYTES) throw new SecretUnreadableError(`${what} is damaged (too short to hold a sealed value)`);
    const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(binding, 'utf8'));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretUnreadableError(`${what} cannot be decrypted with this instance's key (was SECRETS_KEY or DATA_DIR/secrets-key changed?)`);
    }
  }
}
