/** The one error body Quire sends: `{"error":{"code":<http status>,"message":"..."}}`. */
export interface ErrorEnvelope {
  error: { code: number; message: string };
}

export function errorEnvelope(code: number, message: string): ErrorEnvelope {
  return { error: { code, message } };
}
