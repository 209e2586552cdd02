import { describe, expect, it } from 'vitest';
import { escapeHtml, html } from './html.ts';

describe('html', () => {
  it('escapes interpolated text, including attribute quotes', () => {
    const name = `"><script>alert('x')</script>&`;
    expect(html`<input value="${name}">`.value).toBe(
      '<input value="&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;">',
    );
  });

  it('keeps nested markup, joins arrays and drops null, undefined and false', () => {
    const items = ['a<b', 'c'].map((t) => html`<li>${t}</li>`);
    expect(html`<ul>${items}${null}${undefined}${false}${0}</ul>`.value).toBe(
      '<ul><li>a&lt;b</li><li>c</li>0</ul>',
    );
  });

  it('escapes every special character once', () => {
    expect(escapeHtml(`&<>"'`)).toBe('&amp;&lt;&gt;&quot;&#39;');
  });
});
