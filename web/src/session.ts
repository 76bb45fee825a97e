/**
 * The dashboard session: the short-lived JWT lives only in memory; the refresh token is an HttpOnly
 * cookie the browser sends to /api/v1/auth (scripts never see it). On load, and whenever the JWT is
 * about to expire or a call answers 401, one refresh runs (concurrent callers share it).
 */
import { MailroomClient, type ResponseOf } from '../../src/client/index.js';

type SessionResponse = ResponseOf<'POST /api/v1/auth/signin'>;
export type SessionUser = SessionResponse['user'];

/** Refresh this long before the JWT expires, so a request never carries an expired one. */
const EARLY_REFRESH_MS = 60_000;

/** The auth routes authenticate with the cookie, not a key: a plain SDK client without the session fetch. */
const accounts = new MailroomClient({ baseUrl: location.origin, apiKey: '' }).account;

let token: string | undefined;
let expiresAt = 0;
let user: SessionUser | null = null;
let refreshing: Promise<boolean> | undefined;
const listeners = new Set<() => void>();

export const currentUser = (): SessionUser | null => user;

export function onSessionChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function setSession(next: SessionResponse | undefined, announce = true): void {
  token = next?.accessToken;
  expiresAt = next === undefined ? 0 : Date.now() + next.expiresIn * 1000;
  user = next?.user ?? null;
  if (announce) for (const listener of listeners) listener();
}

export const signIn = async (email: string, password: string) => setSession(await accounts.signIn({ email, password }));

/** Runs `firstSteps` with a new account's session before the app shows it (the first inbox exists on the first page). */
async function startNewAccount(session: SessionResponse, firstSteps: () => Promise<unknown>): Promise<void> {
  setSession(session, false);
  await firstSteps().catch(() => undefined);
  setSession(session);
}

/**
 * Signs up: 'signed-in' when the account is usable at once; 'check-email' when the server verifies
 * addresses (the emailed link finishes sign-up, see verifyEmail).
 */
export async function signUp(email: string, password: string, firstSteps: () => Promise<unknown>): Promise<'signed-in' | 'check-email'> {
  const answer = await accounts.signUp({ email, password });
  if (!('accessToken' in answer)) return 'check-email';
  await startNewAccount(answer, firstSteps);
  return 'signed-in';
}

/** A refresh still in flight (the app's first, without a cookie) must not sign out the session a link starts. */
const afterRefresh = async () => void (await refreshing);

export async function verifyEmail(token: string, firstSteps: () => Promise<unknown>): Promise<void> {
  await afterRefresh();
  await startNewAccount(await accounts.verifyEmail({ token }), firstSteps);
}
export const requestPasswordReset = async (email: string) => void (await accounts.requestPasswordReset({ email }));
export async function resetPassword(token: string, password: string): Promise<void> {
  await afterRefresh();
  setSession(await accounts.resetPassword({ token, password }));
}
export const authConfig = () => accounts.config();

export async function signOut(): Promise<void> {
  await accounts.signOut().catch(() => undefined);
  setSession(undefined);
}

/** Trades the refresh cookie for a new JWT; false (and signed out) when there is no valid session. */
export function refresh(): Promise<boolean> {
  refreshing ??= accounts
    .refresh()
    .then(
      (session) => {
        setSession(session);
        return true;
      },
      () => {
        setSession(undefined);
        return false;
      },
    )
    .finally(() => {
      refreshing = undefined;
    });
  return refreshing;
}

async function validToken(): Promise<string | undefined> {
  if (token !== undefined && Date.now() < expiresAt - EARLY_REFRESH_MS) return token;
  return (await refresh()) ? token : undefined;
}

/** fetch for the SDK: swaps the SDK's API-key header for the session JWT and retries once after a refresh on 401. */
export const sessionFetch: typeof fetch = async (input, init) => {
  const send = async (bearer: string | undefined) => {
    const headers = new Headers(init?.headers);
    headers.delete('x-api-key');
    if (bearer !== undefined) headers.set('authorization', `Bearer ${bearer}`);
    return fetch(input, { ...init, headers });
  };
  const response = await send(await validToken());
  if (response.status !== 401 || !(await refresh())) return response;
  return send(token);
};
