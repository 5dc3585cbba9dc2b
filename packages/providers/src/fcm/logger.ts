/** The slice of a pino logger the FCM client uses. Nothing logged carries a private key or an access token. */
export interface FcmLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export const silentLogger: FcmLogger = { debug() {}, info() {}, warn() {} };
