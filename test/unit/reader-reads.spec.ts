import { bareLinkEmbed, linkEmbedFromHtml, linkEmbedOfFile } from '../../src/modules/content/embeds/embed-html';
import { expiryFor, READER_FILE_URL_DAYS } from '../../src/modules/content/reader-files/file-url-signer';

describe('embed of a fetched page', () => {
  const url = 'https://www.example.com/blog/post?x=1';

  it('takes Open Graph title and site name first, then <title> and the host', () => {
    expect(
      linkEmbedFromHtml(url, '<head><title>T</title><meta property="og:title" content=" OG "><meta property="og:site_name" content="Example"></head>'),
    ).toEqual({ type: 'link', title: 'OG', site: 'Example' });
    expect(linkEmbedFromHtml(url, '<head><meta name="twitter:title" content="Tw"><title>T</title></head>')).toEqual({
      type: 'link',
      title: 'Tw',
      site: 'example.com',
    });
    expect(linkEmbedFromHtml(url, '<head><title>  Plain </title></head>')).toEqual({ type: 'link', title: 'Plain', site: 'example.com' });
    expect(linkEmbedFromHtml(url, '<p>no head</p>')).toEqual({ type: 'link', title: url, site: 'example.com' });
  });

  it('resolves the icon against the page and keeps only http(s) icons', () => {
    expect(linkEmbedFromHtml(url, '<link rel="icon" href="../favicon.ico">').icon).toBe('https://www.example.com/favicon.ico');
    expect(linkEmbedFromHtml(url, '<link rel="shortcut icon" href="//cdn.example.org/i.png">').icon).toBe('https://cdn.example.org/i.png');
    expect(linkEmbedFromHtml(url, '<link rel="icon" href="javascript:alert(1)">')).not.toHaveProperty('icon');
    expect(linkEmbedFromHtml(url, '<link rel="icon" href="data:image/png;base64,AAAA">')).not.toHaveProperty('icon');
  });

  it('cuts long titles, names files by their last segment, and falls back to the URL itself', () => {
    expect(linkEmbedFromHtml(url, `<title>${'x'.repeat(1000)}</title>`).title).toHaveLength(300);
    expect(linkEmbedOfFile('https://example.com/files/Report%202024.pdf')).toEqual({ type: 'link', title: 'Report 2024.pdf', site: 'example.com' });
    expect(linkEmbedOfFile('https://example.com/')).toEqual({ type: 'link', title: 'https://example.com/', site: 'example.com' });
    expect(bareLinkEmbed(url)).toEqual({ type: 'link', title: url, site: 'example.com' });
  });
});

describe('reader file URL expiry', () => {
  const day = Date.UTC(2026, 10, 27) / 1000;

  it('is the end of a UTC day, the same all day, between READER_FILE_URL_DAYS and one more day ahead', () => {
    const start = expiryFor(day * 1000);
    expect(expiryFor((day + 86_399) * 1000 + 999)).toBe(start);
    expect(expiryFor((day + 86_400) * 1000)).toBe(start + 86_400);
    expect(start % 86_400).toBe(0);
    expect(start - day).toBe((READER_FILE_URL_DAYS + 1) * 86_400);
  });
});
