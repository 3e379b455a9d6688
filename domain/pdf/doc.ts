// A small page-flowing writer over pdf-lib: A4 pages, Helvetica, a cursor that moves down, columns that
// clip their text to fit, and a footer on every page once the document is done.
import { PDFDocument, type PDFFont, type PDFPage, rgb, StandardFonts } from "pdf-lib";
import { printable } from "./text.ts";

export const A4 = { width: 595.28, height: 841.89 };
export const MARGIN = 48;
export const INK = rgb(0.1, 0.12, 0.16);
export const MUTED = rgb(0.42, 0.45, 0.5);
export const RULE = rgb(0.82, 0.84, 0.87);
export const ACCENT = rgb(0.05, 0.36, 0.55);

export type Column = { width: number; align?: "left" | "right" };

export class PdfWriter {
  readonly doc: PDFDocument;
  readonly font: PDFFont;
  readonly bold: PDFFont;
  readonly mono: PDFFont;
  page!: PDFPage;
  y = 0;
  /** Drawn at the top of every page after the first (a table's header row). */
  onNewPage?: () => void;

  private constructor(doc: PDFDocument, font: PDFFont, bold: PDFFont, mono: PDFFont) {
    this.doc = doc;
    this.font = font;
    this.bold = bold;
    this.mono = mono;
    this.addPage();
  }

  static async create(meta: { title: string; subject: string; date: Date }): Promise<PdfWriter> {
    const doc = await PDFDocument.create();
    // Dates from the data, not the wall clock: the same data renders to the same bytes.
    doc.setCreationDate(meta.date);
    doc.setModificationDate(meta.date);
    doc.setTitle(printable(meta.title));
    doc.setSubject(printable(meta.subject));
    doc.setProducer("gateway (pdf-lib)");
    doc.setCreator("gateway");
    const [font, bold, mono] = await Promise.all([
      doc.embedFont(StandardFonts.Helvetica),
      doc.embedFont(StandardFonts.HelveticaBold),
      doc.embedFont(StandardFonts.Courier),
    ]);
    return new PdfWriter(doc, font, bold, mono);
  }

  addPage(): void {
    this.page = this.doc.addPage([A4.width, A4.height]);
    this.y = A4.height - MARGIN;
  }

  /** Starts a new page when fewer than `height` points are left above the footer. */
  ensure(height: number): void {
    if (this.y - height < MARGIN + 24) {
      this.addPage();
      this.onNewPage?.();
    }
  }

  text(
    value: string,
    x: number,
    opts: {
      size?: number;
      font?: PDFFont;
      color?: ReturnType<typeof rgb>;
      width?: number;
      align?: "left" | "right";
    } = {},
  ): void {
    const size = opts.size ?? 9;
    const font = opts.font ?? this.font;
    const shown = opts.width
      ? this.fit(printable(value, 400), font, size, opts.width)
      : printable(value, 400);
    const w = font.widthOfTextAtSize(shown, size);
    const left = opts.align === "right" && opts.width ? x + opts.width - w : x;
    this.page.drawText(shown, { x: left, y: this.y, size, font, color: opts.color ?? INK });
  }

  /** Cuts text to `width` points, ending in an ellipsis when it had to. */
  fit(value: string, font: PDFFont, size: number, width: number): string {
    if (font.widthOfTextAtSize(value, size) <= width) return value;
    let lo = 0;
    let hi = value.length;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (font.widthOfTextAtSize(value.slice(0, mid) + "…", size) <= width) lo = mid;
      else hi = mid - 1;
    }
    return value.slice(0, lo) + "…";
  }

  /** Cuts text into pieces that each fit `width` points (character by character: for ids and URLs). */
  wrap(value: string, font: PDFFont, size: number, width: number): string[] {
    const parts: string[] = [];
    let current = "";
    for (const ch of printable(value, 2000)) {
      if (current && font.widthOfTextAtSize(current + ch, size) > width) {
        parts.push(current);
        current = "";
      }
      current += ch;
    }
    if (current) parts.push(current);
    return parts;
  }

  /** One row of cells from the left margin, then the cursor moves down by `height`. */
  row(
    cells: string[],
    columns: Column[],
    opts: { size?: number; font?: PDFFont; color?: ReturnType<typeof rgb>; height?: number } = {},
  ) {
    const height = opts.height ?? 13;
    this.ensure(height);
    let x = MARGIN;
    cells.forEach((cell, i) => {
      const col = columns[i];
      this.text(cell, x, { ...opts, width: col.width - 4, align: col.align });
      x += col.width;
    });
    this.y -= height;
  }

  rule(color = RULE, thickness = 0.6): void {
    this.page.drawLine({
      start: { x: MARGIN, y: this.y + 9 },
      end: { x: A4.width - MARGIN, y: this.y + 9 },
      thickness,
      color,
    });
  }

  down(points: number): void {
    this.y -= points;
  }

  /** Writes `Page n of m` and a line of text at the foot of every page, then the bytes. */
  async finish(footer: string, pageWord: string, ofWord: string): Promise<Uint8Array> {
    const pages = this.doc.getPages();
    pages.forEach((page, i) => {
      page.drawText(printable(footer, 150), {
        x: MARGIN,
        y: MARGIN - 20,
        size: 7,
        font: this.font,
        color: MUTED,
      });
      const label = `${pageWord} ${i + 1} ${ofWord} ${pages.length}`;
      const w = this.font.widthOfTextAtSize(label, 7);
      page.drawText(label, {
        x: A4.width - MARGIN - w,
        y: MARGIN - 20,
        size: 7,
        font: this.font,
        color: MUTED,
      });
    });
    return await this.doc.save({ useObjectStreams: false });
  }
}

export const CONTENT_WIDTH = A4.width - 2 * MARGIN;
