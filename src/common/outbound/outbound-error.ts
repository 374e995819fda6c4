/** Why an outbound request failed; callers turn these into messages for the person who asked. */
export type OutboundFailure = 'bad-url' | 'blocked' | 'timeout' | 'too-large' | 'too-many-redirects' | 'network' | 'aborted';

export class OutboundError extends Error {
  constructor(
    readonly reason: OutboundFailure,
    message: string,
    readonly url: string,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}
