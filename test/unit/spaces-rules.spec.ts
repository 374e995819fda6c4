import { visibilityIn } from '../../src/modules/space-model/space.rules';
import { copyTitle } from '../../src/modules/spaces/copy-title';

describe('space rules', () => {
  describe('copyTitle', () => {
    it('marks the title as a copy', () => {
      expect(copyTitle('Handbook')).toBe('Handbook (copy)');
    });

    it('shortens a long title so the copy stays within 50 characters, counting an emoji once', () => {
      const copied = copyTitle('a'.repeat(50));
      expect(copied).toBe(`${'a'.repeat(43)} (copy)`);
      expect([...copyTitle('🎉'.repeat(50))]).toHaveLength(50);
    });

    it('does not leave white space before the mark, and names an untitled copy', () => {
      expect(copyTitle(`${'a'.repeat(42)} b`)).toBe(`${'a'.repeat(42)} (copy)`);
      expect(copyTitle('')).toBe('(copy)');
    });
  });

  describe('visibilityIn', () => {
    it('turns in-collection into private at the top level, and keeps everything else', () => {
      expect(visibilityIn('in-collection', null)).toBe('private');
      expect(visibilityIn('in-collection', 'c1')).toBe('in-collection');
      expect(visibilityIn('public', null)).toBe('public');
    });
  });
});
