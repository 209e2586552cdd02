import { ASSETS } from './assets.ts';
import { type Html, html } from './html.ts';

export interface SignedIn {
  email: string;
  /** The CSRF token every form of the page carries. */
  csrf: string;
}

const IST = new Intl.DateTimeFormat('en-IN', {
  timeZone: 'Asia/Kolkata',
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

/** A moment as a subscriber in India reads it. */
export function formatIst(ms: number): string {
  return `${IST.format(new Date(ms))} IST`;
}

export function csrfField(csrf: string): Html {
  return html`<input type="hidden" name="_csrf" value="${csrf}">`;
}

export interface FieldOptions {
  name: string;
  label: string;
  type: 'email' | 'password' | 'text' | 'date';
  value?: string;
  autocomplete?: string;
  hint?: string;
  /** Said in words under the field, which is marked invalid. */
  error?: string;
  required?: boolean;
  maxLength?: number;
  minLength?: number;
}

/** A labelled input whose hint and error are tied to it for screen readers. */
export function field(o: FieldOptions): Html {
  const id = `f-${o.name}`;
  const described = [o.hint ? `${id}-hint` : '', o.error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html`<label for="${id}">${o.label}</label>
${o.hint ? html`<p class="hint" id="${id}-hint">${o.hint}</p>` : ''}
<input id="${id}" name="${o.name}" type="${o.type}"${o.value !== undefined && o.type !== 'password' ? html` value="${o.value}"` : ''}${
    o.autocomplete ? html` autocomplete="${o.autocomplete}"` : ''
  }${o.required ? html` required` : ''}${o.maxLength ? html` maxlength="${o.maxLength}"` : ''}${
    o.minLength ? html` minlength="${o.minLength}"` : ''
  }${o.error ? html` aria-invalid="true"` : ''}${described ? html` aria-describedby="${described}"` : ''}>
${o.error ? html`<p class="field-error" id="${id}-error">${o.error}</p>` : ''}`;
}

export function notice(text: string | undefined, kind: 'info' | 'good' | 'bad' = 'info'): Html {
  if (!text) return html``;
  return html`<p class="notice ${kind === 'info' ? '' : kind}" role="${kind === 'bad' ? 'alert' : 'status'}">${text}</p>`;
}

/** The page around every view: navigation for a signed-in subscriber, sign-out forms with CSRF. */
export function page(title: string, body: Html, signedIn?: SignedIn, scripts: string[] = []): string {
  const nav = signedIn
    ? html`<nav aria-label="Account">
    <a href="/account/usage">Usage</a>
    <a href="/account/tokens">Tokens</a>
    <a href="/docs">API reference</a>
    <span class="visually-hidden">Signed in as </span><span>${signedIn.email}</span>
    <form method="post" action="/account/sign-out">${csrfField(signedIn.csrf)}<button type="submit" class="secondary">Sign out</button></form>
    <form method="post" action="/account/sign-out">${csrfField(signedIn.csrf)}<input type="hidden" name="everywhere" value="1"><button type="submit" class="secondary">Sign out everywhere</button></form>
  </nav>`
    : html`<nav aria-label="Account"><a href="/docs">API reference</a><a href="/account/sign-in">Sign in</a><a href="/account/sign-up">Create an account</a></nav>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Market data API</title>
<link rel="icon" href="${ASSETS.favicon.path}" type="image/svg+xml">
<link rel="stylesheet" href="${ASSETS.css.path}">
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="site"><a class="brand" href="/account">Market data API</a>${nav}</header>
<main id="main">
<h1>${title}</h1>
${body}
</main>
${scripts.map((src) => html`<script src="${src}" defer></script>`)}
</body>
</html>`.value;
}
