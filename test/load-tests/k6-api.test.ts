import { readdirSync, readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The k6 scripts are written to k6 v2's API (k6 cannot be installed here, so nothing runs them): this
 * reads each one and refuses what v2 removed or never had, and a script that cannot fail when no request
 * was a 200.
 */
const DIR = 'load-tests';
const SCRIPTS = readdirSync(DIR).filter((f) => f.endsWith('.js'));
const LIBS = readdirSync(`${DIR}/lib`).filter((f) => f.endsWith('.js'));

/** Modules of k6 v2's core a script may import (k6/experimental/redis is gone in v2). */
const K6_MODULES = new Set(['k6', 'k6/http', 'k6/metrics', 'k6/execution', 'k6/encoding', 'k6/crypto']);
/** v2's executors (`externally-controlled` was removed in v2.0.0). */
const EXECUTORS = new Set([
  'shared-iterations',
  'per-vu-iterations',
  'constant-vus',
  'ramping-vus',
  'constant-arrival-rate',
  'ramping-arrival-rate',
]);

function parse(path: string): ts.SourceFile {
  return ts.createSourceFile(
    path,
    readFileSync(path, 'utf8'),
    ts.ScriptTarget.ES2022,
    true,
    ts.ScriptKind.JS,
  );
}

function walk(node: ts.Node, visit: (n: ts.Node) => void): void {
  visit(node);
  node.forEachChild((child) => walk(child, visit));
}

/** What a script uses that k6 v2 decides on: imports, executors, `http.*` calls, option keys. */
function uses(file: ts.SourceFile) {
  const imports: string[] = [];
  const executors: string[] = [];
  const httpCalls: { method: string; args: number }[] = [];
  const propertyNames: string[] = [];
  walk(file, (n) => {
    if (ts.isImportDeclaration(n) && ts.isStringLiteral(n.moduleSpecifier))
      imports.push(n.moduleSpecifier.text);
    if (ts.isPropertyAssignment(n)) {
      const name = n.name.getText(file).replace(/['"]/g, '');
      propertyNames.push(name);
      if (name === 'executor' && ts.isStringLiteral(n.initializer)) executors.push(n.initializer.text);
    }
    if (
      ts.isCallExpression(n) &&
      ts.isPropertyAccessExpression(n.expression) &&
      n.expression.expression.getText(file) === 'http'
    )
      httpCalls.push({ method: n.expression.name.text, args: n.arguments.length });
  });
  return { imports, executors, httpCalls, propertyNames, text: file.getFullText() };
}

describe('the k6 scripts keep to k6 v2 (load-tests/)', () => {
  it('finds the scripts', () => {
    expect(SCRIPTS).toEqual(expect.arrayContaining(['auth-flood.js', 'burst-cap.js', 'outage.js']));
  });

  for (const name of [...SCRIPTS, ...LIBS.map((l) => `lib/${l}`)]) {
    it(`${name}: v2 modules, executors and http calls only`, () => {
      const u = uses(parse(`${DIR}/${name}`));
      for (const m of u.imports) {
        if (m.startsWith('./') || m.startsWith('../')) continue;
        expect(K6_MODULES, `${name} imports ${m}`).toContain(m);
      }
      for (const e of u.executors) expect(EXECUTORS, `${name} uses the ${e} executor`).toContain(e);
      // v2 warns that http.get and http.head ignore a second body-like argument: (url, params) only.
      for (const c of u.httpCalls.filter((c) => c.method === 'get' || c.method === 'head'))
        expect(c.args, `${name}: http.${c.method} with ${c.args} arguments`).toBeLessThanOrEqual(2);
      // options.ext.loadimpact is gone (options.cloud replaces it); so are these CLI flags in examples.
      expect(u.propertyNames, `${name}: options.ext.loadimpact`).not.toContain('loadimpact');
      expect(u.text).not.toMatch(
        /--no-summary|--summary-mode[= ]legacy|k6 (?:login|pause|resume|scale|status)\b/,
      );
    });
  }

  for (const name of SCRIPTS) {
    it(`${name}: says it is for v2, and has a threshold that fails a run with no 200`, () => {
      const u = uses(parse(`${DIR}/${name}`));
      expect(u.text.split('\n')[0]).toMatch(/^\/\/ k6 v2/);
      // A counter of 200s that must be above 0, or the rate of 200s of a phase that must be high.
      expect(u.text).toMatch(
        /(?:charged|paying_ok): \['count>0'\]|'served\{phase:before\}': \['rate>0\.99'\]/,
      );
    });
  }
});
