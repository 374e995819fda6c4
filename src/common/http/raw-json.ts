/**
 * A JSON answer already serialized (a stored document read from PostgreSQL as text): a handler
 * returns it so the text is sent as it is, not parsed and serialized again (`JsonReplyAdapter`).
 * A stored page document is ~15 times its Markdown; parsing and writing it back cost more than the rest
 * of the read.
 */
export class RawJson {
  constructor(readonly json: string) {}
}
