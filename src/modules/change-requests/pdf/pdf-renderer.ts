import { FILE_REF, parseMarkdown, type Token } from '../../content/markdown/markdown';

/** A page to print, in tree order, with its depth (for the size of its title). */
export interface PdfPage {
  title: string;
  depth: number;
  markdown: string;
}

/** The bytes of a file of the revision, when the page shows it as an image (PNG and JPEG are printed). */
export type ImageSource = (fileId: string) => { data: Buffer; contentType: string } | undefined;

const HEADING_SIZES = [20, 16, 14, 12, 11, 11];
const BODY = 11;
const MARGIN = 56;

/**
 * Renders pages to a PDF with pdfkit (no browser): each page's title, then its markdown's
 * headings, paragraphs (bold, italic, inline code, links), lists, block quotes, code blocks and
 * images of the revision's files. Standard PDF fonts only (WinAnsi): characters outside it print as
 * pdfkit maps them.
 */
export function renderPdf(title: string, pages: PdfPage[], image: ImageSource): Promise<Buffer> {
  const PDFDocument = loadPdfKit();
  const doc = new PDFDocument({ size: 'A4', margin: MARGIN, info: { Title: title, Producer: 'Quire' }, bufferPages: false });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  pages.forEach((page, index) => {
    if (index > 0) doc.addPage();
    doc
      .font('Helvetica-Bold')
      .fontSize(Math.max(24 - page.depth * 2, 16))
      .fillColor('black')
      .text(page.title || 'Untitled');
    doc.moveDown(0.5);
    renderMarkdown(doc, page.markdown, image);
  });
  if (pages.length === 0) doc.font('Helvetica').fontSize(BODY).text('This change request has no pages.');
  doc.end();
  return done;
}

/**
 * pdfkit (with fontkit and its font tables) is loaded on the first PDF, not with the module: it costs a few hundred
 * milliseconds of CPU that every server start and test file would pay though few ever print a change request.
 */
let pdfkitModule: typeof import('pdfkit') | undefined;
function loadPdfKit(): typeof import('pdfkit') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (pdfkitModule ??= require('pdfkit') as typeof import('pdfkit'));
}

function renderMarkdown(doc: PDFKit.PDFDocument, markdown: string, image: ImageSource): void {
  const tokens = parseMarkdown(markdown);
  const lists: { ordered: boolean; n: number }[] = [];
  let quote = 0;
  let pendingBullet: string | null = null;
  const indent = () => MARGIN + lists.length * 14 + quote * 14;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    switch (token.type) {
      case 'heading_open': {
        const level = Number(token.tag.slice(1));
        doc.moveDown(0.4);
        doc.font('Helvetica-Bold').fontSize(HEADING_SIZES[level - 1] ?? BODY);
        inline(doc, tokens[i + 1], image, indent(), 'Helvetica-Bold');
        i += 2;
        doc.moveDown(0.3);
        break;
      }
      case 'bullet_list_open':
      case 'ordered_list_open':
        lists.push({ ordered: token.type === 'ordered_list_open', n: Number(token.attrGet('start') ?? 1) });
        break;
      case 'bullet_list_close':
      case 'ordered_list_close':
        lists.pop();
        if (lists.length === 0) doc.moveDown(0.4);
        break;
      case 'list_item_open': {
        const list = lists[lists.length - 1];
        pendingBullet = list?.ordered ? `${list.n++}. ` : '• ';
        break;
      }
      case 'blockquote_open':
        quote++;
        break;
      case 'blockquote_close':
        quote--;
        break;
      case 'inline': {
        doc.font(quote ? 'Helvetica-Oblique' : 'Helvetica').fontSize(BODY);
        inline(doc, token, image, indent(), quote ? 'Helvetica-Oblique' : 'Helvetica', pendingBullet);
        pendingBullet = null;
        break;
      }
      case 'paragraph_close':
        if (lists.length === 0) doc.moveDown(0.5);
        break;
      case 'fence':
      case 'code_block':
        doc.moveDown(0.2);
        doc
          .font('Courier')
          .fontSize(9)
          .fillColor('#333333')
          .text(token.content.replace(/\n$/, ''), indent() + 8, undefined, { lineGap: 1 });
        doc.fillColor('black').moveDown(0.5);
        break;
      case 'hr':
        doc
          .moveTo(MARGIN, doc.y)
          .lineTo(doc.page.width - MARGIN, doc.y)
          .strokeColor('#999999')
          .stroke();
        doc.moveDown(0.5);
        break;
      default:
        break;
    }
  }
}

/** One block's inline tokens as one flowing text with styled runs; images of the revision's files on their own line. */
function inline(doc: PDFKit.PDFDocument, token: Token | undefined, image: ImageSource, x: number, baseFont: string, prefix: string | null = null): void {
  const runs: { text: string; font: string; link?: string }[] = [];
  const images: { data: Buffer }[] = [];
  let bold = 0;
  let italic = 0;
  let link: string | undefined;
  const font = (code = false) => {
    if (code) return 'Courier';
    if (bold && italic) return 'Helvetica-BoldOblique';
    if (bold) return 'Helvetica-Bold';
    if (italic) return 'Helvetica-Oblique';
    return baseFont;
  };
  if (prefix) runs.push({ text: prefix, font: baseFont });
  for (const child of token?.children ?? []) {
    switch (child.type) {
      case 'text':
        runs.push({ text: child.content, font: font(), link });
        break;
      case 'code_inline':
        runs.push({ text: child.content, font: font(true), link });
        break;
      case 'softbreak':
        runs.push({ text: ' ', font: font() });
        break;
      case 'hardbreak':
        runs.push({ text: '\n', font: font() });
        break;
      case 'strong_open':
        bold++;
        break;
      case 'strong_close':
        bold--;
        break;
      case 'em_open':
        italic++;
        break;
      case 'em_close':
        italic--;
        break;
      case 'link_open': {
        const href = child.attrGet('href') ?? '';
        link = /^https?:\/\//i.test(href) ? href : undefined;
        break;
      }
      case 'link_close':
        link = undefined;
        break;
      case 'image': {
        const file = FILE_REF.exec(child.attrGet('src') ?? '');
        const found = file ? image(file[1]) : undefined;
        if (found && /^image\/(?:png|jpeg)$/.test(found.contentType)) images.push({ data: found.data });
        else runs.push({ text: `[${child.content || 'image'}]`, font: font() });
        break;
      }
      default:
        break;
    }
  }
  const visible = runs.filter((run) => run.text !== '');
  visible.forEach((run, index) => {
    doc.font(run.font).fillColor(run.link ? '#1a4fbf' : 'black');
    const options = { continued: index < visible.length - 1, link: run.link ?? null, underline: !!run.link };
    if (index === 0) doc.text(run.text, x, undefined, options);
    else doc.text(run.text, options);
  });
  doc.fillColor('black');
  for (const picture of images) {
    try {
      doc.image(picture.data, x, undefined, { fit: [doc.page.width - x - MARGIN, 300] });
      doc.moveDown(0.5);
    } catch {
      doc.font(baseFont).text('[image]', x);
    }
  }
}
