import { platform } from './client.ts';

/**
 * A browser without a browser, for the account site's security tests: keeps cookies per path-less jar,
 * follows nothing (each redirect is checked by the test), and reads the CSRF token of the last page.
 */
export class SiteSession {
  readonly cookies = new Map<string, string>();
  lastHtml = '';

  /** `forwardedFor` is sent as X-Forwarded-For (the test platform's gateway trusts one proxy hop). */
  constructor(private readonly forwardedFor?: string) {}

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    return {
      ...(cookie ? { cookie } : {}),
      ...(this.forwardedFor ? { 'x-forwarded-for': this.forwardedFor } : {}),
      ...extra,
    };
  }

  private keep(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attrs.some((a) => /^\s*max-age=0$/i.test(a) || /expires=thu, 01 jan 1970/i.test(a));
      if (!value || expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async get(path: string): Promise<Response & { html: string }> {
    const res = await fetch(`${platform.baseUrl}${path}`, { headers: this.headers(), redirect: 'manual' });
    this.keep(res);
    const html = await res.text();
    if (res.headers.get('content-type')?.startsWith('text/html')) this.lastHtml = html;
    return Object.assign(res, { html });
  }

  /** Posts a form; the CSRF token of the last page is added unless `_csrf` is given (null: none). */
  async post(path: string, form: Record<string, string | null>): Promise<Response & { html: string }> {
    const fields: Record<string, string> = {};
    const csrf = form._csrf === undefined ? this.csrf() : form._csrf;
    if (csrf !== null && csrf !== undefined) fields._csrf = csrf;
    for (const [k, v] of Object.entries(form)) if (k !== '_csrf' && v !== null) fields[k] = v;
    const res = await fetch(`${platform.baseUrl}${path}`, {
      method: 'POST',
      headers: this.headers({ 'content-type': 'application/x-www-form-urlencoded' }),
      body: new URLSearchParams(fields).toString(),
      redirect: 'manual',
    });
    this.keep(res);
    const html = await res.text();
    if (res.headers.get('content-type')?.startsWith('text/html')) this.lastHtml = html;
    return Object.assign(res, { html });
  }

  csrf(): string | undefined {
    return /name="_csrf" value="([^"]+)"/.exec(this.lastHtml)?.[1];
  }

  /**
   * Signs up (a fresh e-mail address), then signs in as the answer asks (sign-up never starts a session),
   * and returns the address; the session is this one's.
   */
  async signUp(password: string, email = uniqueEmail()): Promise<string> {
    await this.get('/account/sign-up');
    const res = await this.post('/account/sign-up', { email, password });
    if (res.status !== 200 || !res.html.includes('action="/account/sign-in"'))
      throw new Error(`sign-up answered ${res.status}: ${res.html.slice(0, 300)}`);
    // The answer is the sign-in form, the address filled in.
    const signedIn = await this.post('/account/sign-in', { email, password });
    if (signedIn.status !== 303) throw new Error(`sign-in after sign-up answered ${signedIn.status}`);
    return email;
  }

  async signIn(email: string, password: string): Promise<Response & { html: string }> {
    await this.get('/account/sign-in');
    return this.post('/account/sign-in', { email, password });
  }

  /** Creates a token on the tokens page; returns it and its id (from the revoke form's action). */
  async createToken(name: string): Promise<{ token: string; id: string; page: string }> {
    await this.get('/account/tokens');
    const res = await this.post('/account/tokens', { name, expires: '' });
    const token = /value="(mdp_[0-9A-Za-z]+)"/.exec(res.html)?.[1];
    if (res.status !== 200 || !token) throw new Error(`token creation answered ${res.status}`);
    const list = await this.get('/account/tokens');
    const ids = [...list.html.matchAll(/action="\/account\/tokens\/([0-9a-f-]{36})\/revoke"/g)].map(
      (m) => m[1]!,
    );
    return { token, id: ids[0]!, page: res.html };
  }
}

let seq = 0;
export function uniqueEmail(): string {
  return `subscriber-${Date.now().toString(36)}-${process.pid}-${++seq}@example.com`;
}
