// A small streaming XML tokenizer for the parts of an XLSX workbook: text is pushed in chunks and each
// element's opening, closing and text are handed to a handler as they complete. It keeps at most one
// unfinished token (MAX_TOKEN_CHARS), refuses nesting deeper than MAX_DEPTH, DOCTYPEs (no entity is ever
// expanded beyond the five predefined ones and character references) and mismatched tags. Names lose
// their namespace prefix ("x:row" is "row", "r:id" is "id").

export const MAX_DEPTH = 32;
export const MAX_TOKEN_CHARS = 256 * 1024;

/** The XML is refused; the message says why, for the uploader. */
export class XmlRefused extends Error {}

export interface XmlHandler {
  open(name: string, attributes: Record<string, string>, selfClosing: boolean): void;
  close(name: string): void;
  text(value: string): void;
}

const ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };
const REFERENCE = /&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]+);/g;
const STRAY_AMPERSAND = /&(?!(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]+);)/;
const ATTRIBUTE = /([^\s=/]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

function decode(raw: string): string {
  if (!raw.includes("&")) return raw;
  if (STRAY_AMPERSAND.test(raw)) throw new XmlRefused("a stray & in the XML");
  return raw.replace(REFERENCE, (_, ref: string) => {
    if (ref[0] !== "#") {
      const named = ENTITIES[ref];
      if (named === undefined) throw new XmlRefused(`an unknown XML entity &${ref.slice(0, 20)};`);
      return named;
    }
    const code = ref[1] === "x" ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
      throw new XmlRefused(`a character reference XML forbids (&${ref};)`);
    }
    return String.fromCodePoint(code);
  });
}

const localName = (name: string) => name.slice(name.indexOf(":") + 1);

/** Where the tag opened at `from` ends (its ">"), skipping quoted attribute values; -1 if not yet. */
function tagEnd(buffer: string, from: number): number {
  let quote = "";
  for (let i = from + 1; i < buffer.length; i++) {
    const ch = buffer[i];
    if (quote) {
      if (ch === quote) quote = "";
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === ">") return i;
  }
  return -1;
}

export class XmlScanner {
  #buffer = "";
  #stack: string[] = [];
  #halted = false;

  constructor(private readonly handler: XmlHandler) {}

  /** Stops the scan: the rest of this chunk and later ones are ignored. */
  halt(): void {
    this.#halted = true;
  }

  get halted(): boolean {
    return this.#halted;
  }

  push(chunk: string): void {
    const buffer = this.#buffer + chunk;
    let at = 0;
    while (!this.#halted) {
      const lt = buffer.indexOf("<", at);
      if (lt === -1) break;
      if (lt > at) this.#text(buffer.slice(at, lt));
      at = lt;
      if (this.#halted) break;
      if (buffer.startsWith("<!--", lt)) {
        const end = buffer.indexOf("-->", lt + 4);
        if (end === -1) break;
        at = end + 3;
      } else if (buffer.startsWith("<![CDATA[", lt)) {
        const end = buffer.indexOf("]]>", lt + 9);
        if (end === -1) break;
        if (this.#stack.length > 0) this.handler.text(buffer.slice(lt + 9, end));
        at = end + 3;
      } else if (buffer.startsWith("<!", lt)) {
        if (buffer.length - lt < 9) break;
        throw new XmlRefused("a DOCTYPE or declaration inside the XML");
      } else if (buffer.startsWith("<?", lt)) {
        const end = buffer.indexOf("?>", lt + 2);
        if (end === -1) break;
        at = end + 2;
      } else {
        const end = tagEnd(buffer, lt);
        if (end === -1) break;
        this.#tag(buffer.slice(lt + 1, end));
        at = end + 1;
      }
    }
    this.#buffer = this.#halted ? "" : buffer.slice(at);
    if (this.#buffer.length > MAX_TOKEN_CHARS) {
      throw new XmlRefused(`an XML tag or text longer than ${MAX_TOKEN_CHARS / 1024} KB`);
    }
  }

  /** The end of the text: everything opened must be closed. */
  end(): void {
    if (this.#halted) return;
    if (this.#buffer.trim() !== "" || this.#stack.length > 0) throw new XmlRefused("the XML ends early");
  }

  #text(raw: string): void {
    if (this.#stack.length === 0) {
      if (raw.trim() !== "") throw new XmlRefused("text outside the XML's root element");
      return;
    }
    this.handler.text(decode(raw));
  }

  #tag(inner: string): void {
    if (inner[0] === "/") {
      const name = localName(inner.slice(1).trim());
      const open = this.#stack.pop();
      if (open !== name) {
        throw new XmlRefused(`mismatched XML tags <${open?.slice(0, 40)}> and </${name.slice(0, 40)}>`);
      }
      this.handler.close(name);
      return;
    }
    const selfClosing = inner.endsWith("/");
    const body = selfClosing ? inner.slice(0, -1) : inner;
    const nameEnd = body.search(/\s|$/);
    const name = localName(body.slice(0, nameEnd));
    if (name === "") throw new XmlRefused("an XML tag without a name");
    const attributes: Record<string, string> = Object.create(null);
    for (const match of body.slice(nameEnd).matchAll(ATTRIBUTE)) {
      attributes[localName(match[1])] = decode(match[2] ?? match[3]);
    }
    if (!selfClosing) {
      if (this.#stack.length >= MAX_DEPTH) throw new XmlRefused(`XML nested deeper than ${MAX_DEPTH} levels`);
      this.#stack.push(name);
    }
    this.handler.open(name, attributes, selfClosing);
    if (selfClosing) this.handler.close(name);
  }
}
