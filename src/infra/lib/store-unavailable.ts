// Errors that mean "the database cannot be reached right now" (restarting, failing over, refusing
// connections), as opposed to a defect: the caller gets a 503 with Retry-After and tries again,
// rather than a 500. PostgreSQL SQLSTATE classes 08 (connection exception) and 57P (operator
// intervention), 53300 (too many connections), the socket errors of a server that is away, and the
// pg client's own messages for a connection lost under it.
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
const MESSAGES = ['Connection terminated', 'not queryable', 'timeout exceeded when trying to connect', 'Connection closed', 'not currently accepting connections'];

export function isStoreUnavailable(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || SQLSTATES.has(code) || code.startsWith('08'))) return true;
  if (typeof message === 'string' && MESSAGES.some((text) => message.includes(text))) return true;
  // AggregateError from a connection attempt to several addresses (IPv4 and IPv6 of localhost).
  const errors = (error as { errors?: unknown }).errors;
  return Array.isArray(errors) && errors.length > 0 && errors.every(isStoreUnavailable);
}
