import { XMLParser } from 'fast-xml-parser';

/**
 * The facts of an NSE results filing (in-bse-fin taxonomy) by context and concept, as text. NSE's
 * filing utility names contexts by convention: `OneD` the quarter reported, `FourD` the fiscal year
 * to date, `OneI` the instant at the period's end; dimensional contexts (segments, expense details)
 * carry longer names and are ignored. Some filings reference contexts they never define, so the
 * names are trusted rather than the context definitions.
 */
export interface XbrlFacts {
  /** The schema the filing declares (Ind-AS, banking, NBFC or the pre-Ind AS one). */
  schema: string;
  contexts: Map<string, Map<string, string>>;
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  isArray: (_name, jpath) => String(jpath).split('.').length === 2,
});

type Node = { '#text'?: string; '@_contextRef'?: string; '@_href'?: string };

export class XbrlError extends Error {}

export function readXbrl(xml: string): XbrlFacts {
  let doc: Record<string, Record<string, Node[]>>;
  try {
    doc = parser.parse(xml, true);
  } catch (err) {
    throw new XbrlError(`not well-formed XML: ${(err as Error).message}`);
  }
  const root = doc.xbrl;
  if (!root) throw new XbrlError('not an XBRL instance (no xbrl root element)');
  const contexts = new Map<string, Map<string, string>>();
  for (const [concept, nodes] of Object.entries(root)) {
    if (!Array.isArray(nodes)) continue;
    for (const node of nodes) {
      const ref = typeof node === 'object' ? node['@_contextRef'] : undefined;
      if (!ref) continue;
      const facts = contexts.get(ref) ?? new Map<string, string>();
      contexts.set(ref, facts);
      // A concept repeated in one context (the cash-flow opening and closing cash) keeps the first.
      if (!facts.has(concept)) facts.set(concept, String(node['#text'] ?? '').trim());
    }
  }
  const schema = (root.schemaRef?.[0] as Node | undefined)?.['@_href'] ?? '';
  return { schema, contexts };
}
