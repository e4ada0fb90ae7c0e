/**
 * The API document's Markdown (GFM tables) read into what the importer needs: the numbered
 * headings, the tables, the numbered list items and the paragraphs, each with its line in the file
 * so that every error and every fact can point back at the document.
 *
 * Inline code keeps its backticks in cell and item text (`YYYYMMDD`, `SADADENQ`): the importer
 * recognises values, formats and tag names by them.
 */
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmTableFromMarkdown } from 'mdast-util-gfm-table';
import { gfmTable } from 'micromark-extension-gfm-table';
import type { Nodes, Root, RootContent } from 'mdast';

export interface MdHeading {
  /** The heading's number (`2.1`, `4`), or null for an unnumbered heading (the title). */
  id: string | null;
  depth: number;
  /** The heading's text without its number. */
  title: string;
  line: number;
}

export interface MdRow {
  cells: string[];
  line: number;
}

export interface MdTable {
  /** The numbered section the table sits in (the nearest numbered heading above it), or null. */
  section: string | null;
  header: string[];
  line: number;
  rows: MdRow[];
}

/** An item of a numbered list: rule `4.2` is item 2 of section 4. */
export interface MdItem {
  section: string | null;
  number: number;
  text: string;
  line: number;
}

export interface MdParagraph {
  section: string | null;
  text: string;
  line: number;
}

export interface MdDocument {
  /** The first level-1 heading's text. */
  title: string | null;
  headings: MdHeading[];
  tables: MdTable[];
  items: MdItem[];
  paragraphs: MdParagraph[];
  /** The last line of the file, where an error about something missing points. */
  lastLine: number;
}

/** `2.1 Bill enquiry request`, `4. Endpoints`: the number, then the title. */
const NUMBERED_HEADING = /^(\d+(?:\.\d+)*)\.?\s+(.*)$/;

/** A node's text, with inline code in backticks and line breaks as spaces. */
export function inlineText(node: Nodes): string {
  switch (node.type) {
    case 'inlineCode': return `\`${node.value}\``;
    case 'text': return node.value;
    case 'break': return ' ';
    case 'html': return node.value;
    default: return 'children' in node ? node.children.map((c) => inlineText(c as Nodes)).join('') : '';
  }
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
const lineOf = (node: Nodes) => node.position?.start.line ?? 0;

export function parseMarkdown(text: string): MdDocument {
  const tree: Root = fromMarkdown(text, { extensions: [gfmTable()], mdastExtensions: [gfmTableFromMarkdown()] });
  const doc: MdDocument = { title: null, headings: [], tables: [], items: [], paragraphs: [], lastLine: text.split('\n').length };
  let section: string | null = null;

  // What each kind of block contributes; anything else (code blocks, rules, bullet lists) says no fact.
  const readers: Partial<Record<RootContent['type'], (node: never) => void>> = {
    heading: (node: Extract<RootContent, { type: 'heading' }>) => {
      const full = squash(inlineText(node));
      const m = NUMBERED_HEADING.exec(full);
      doc.headings.push({ id: m ? m[1]! : null, depth: node.depth, title: m ? m[2]! : full, line: lineOf(node) });
      if (m) section = m[1]!;
      if (node.depth === 1 && doc.title === null) doc.title = full;
    },
    table: (node: Extract<RootContent, { type: 'table' }>) => {
      const [head, ...body] = node.children;
      const cells = (row: typeof head) => (row?.children ?? []).map((c) => squash(inlineText(c)));
      doc.tables.push({
        section, header: cells(head), line: lineOf(node),
        rows: body.map((row) => ({ cells: cells(row), line: lineOf(row) })),
      });
    },
    list: (node: Extract<RootContent, { type: 'list' }>) => {
      if (!node.ordered) return;
      const start = node.start ?? 1;
      node.children.forEach((item, i) => {
        const text = squash(item.children.map((c) => inlineText(c)).join(' '));
        doc.items.push({ section, number: start + i, text, line: lineOf(item) });
      });
    },
    paragraph: (node: Extract<RootContent, { type: 'paragraph' }>) => {
      doc.paragraphs.push({ section, text: squash(inlineText(node)), line: lineOf(node) });
    },
  };
  for (const node of tree.children) (readers[node.type] as ((n: RootContent) => void) | undefined)?.(node);
  return doc;
}
