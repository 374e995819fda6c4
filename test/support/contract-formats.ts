import { fullFormats } from 'ajv-formats/dist/formats';

/**
 * The formats the contract checks know: ajv-formats' full set, plus the public description's own. An emoji is a
 * codepoint in hex ("1f389") or the character itself (empty when a space has none), an icon is a name ("gear").
 * One module, so that validators compiled to code (test/support/contract.ts's cache) require the same definitions.
 */
export const contractFormats = {
  ...fullFormats,
  emoji: /^(?:|[0-9a-f]{4,6}(?:-[0-9a-f]{4,6})*|\P{ASCII}[^\s]*)$/iu,
  icon: /^[a-z0-9][a-z0-9-]*$/,
};
