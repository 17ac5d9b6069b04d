/**
 * The one wording table of keydeck's failures: for every error code a call can
 * end with, by context (which operation, whether it changes state, whether the service named the
 * code, what it sent), the sentence a user reads and the next step it names. The client builds
 * every KeydeckApiError's message from it (./failures.ts), so the commands (stderr) and the TUI
 * (status line, banner) say the same thing; the TUI's short forms for the header and the banner's
 * first words (`headline`, `state`) are rows of the same table. test/commands/wording.test.ts
 * checks every row once.
 *
 * Rules every row keeps: a refusal in the service's own words never gets network or address
 * advice; a state-changing call whose outcome is unknown says what to check before trying again;
 * durations read as people say them (./failures.ts `formatWait`); no next step names an action
 * that cannot work. Texts from the service (field names, the Location header, problems) arrive
 * here already cleaned of control characters and secrets.
 */
import { isLoopbackHost } from './baseUrl.js';
import type { ApiErrorCode } from './errors.js';

/** Which call failed, in words for messages. */
export interface OperationInfo {
  /** The client method: `verifyTopUp`. */
  name: string;
  /** Infinitive phrase: `create the credit key`. */
  what: string;
  /** What to look at before trying a state-changing call again: `list the keys`. */
  check?: string;
  /** True for POST/PUT/DELETE: such calls are never retried and may end with an unknown outcome. */
  changesState: boolean;
  /** True when the call names one item by id (a 404 then means "no such item"). */
  byId?: boolean;
}

/** What a row may mention about the failure; everything but `op` is optional. */
export interface FailureSituation {
  /** The operation that failed (`what` is an infinitive phrase: "create the credit key"). */
  readonly op: OperationInfo;
  /** The service's base address. */
  readonly baseUrl: string;
  /** The whole call's deadline, already in words (`10 s`, `250 ms`). */
  readonly wait?: string;
  /** Names the credential in use (never the secret) and its own next step after a 401. */
  readonly credential?: { readonly label: string; readonly whenRejected?: string };
  /** The HTTP status, when a response arrived. */
  readonly status?: number;
  /** `Retry-After` in words, when the service sent one. */
  readonly retryAfter?: string;
  /** The request or response field at fault (cleaned). */
  readonly field?: string;
  /** True when the error body carried one of the service's codes (a refusal in its own words). */
  readonly namedByService?: boolean;
  /** Network and timeout failures: the request may have reached the service. */
  readonly possiblySent?: boolean;
  /** Node's code of a failed connection (`ECONNREFUSED`). */
  readonly transportCode?: string;
  /** `invalid_response`: the answer was a redirect, to this place (cleaned; empty when unknown). */
  readonly redirectTo?: string;
  /** `invalid_response`: what is wrong with the answer (cleaned). */
  readonly problem?: string;
  /** `read_only`: why the client changes nothing (`the profile "prod" is read-only (readOnly in …)`). */
  readonly readOnly?: string;
}

/** One row's words. */
export interface FailureWords {
  /** What went wrong. */
  readonly sentence: string;
  /** What to do next (may be empty when the sentence says it all). */
  readonly next: string;
  /** How the two join (`: ` or `; `). */
  readonly join?: string;
  /** True when a state-changing call may or may not have taken effect. */
  readonly outcomeUnknown?: boolean;
  /** Connection problems only: the banner's first words ("Offline") and the header's state ("offline"). */
  readonly headline?: string;
  readonly state?: string;
}

/** The next step of a state-changing call whose outcome is unknown. */
function checkFirst(s: FailureSituation): string {
  return `${s.op.check ?? 'refresh'} before trying again`;
}

/**
 * What a TLS verification failure says about the service's certificate, by Node's (OpenSSL's)
 * error code; undefined for any other transport code. The handshake fails before the request is
 * sent, so these always come with "nothing was sent" when the call would change state.
 */
/**
 * For an `https://` address whose TLS handshake failed as it does against a plain http server
 * (`EPROTO`, OpenSSL's "wrong version number"): what to try. On this machine (the sandbox speaks
 * plain http): the same address with `http://`; elsewhere only a check of the address, since no
 * key goes over plain http to another machine without the opt-in.
 */
function plainHttpAnswer(baseUrl: string, code: string | undefined): string | undefined {
  if (code !== 'EPROTO' && code !== 'ERR_SSL_WRONG_VERSION_NUMBER') return undefined;
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    // not a URL: no advice about its certificate
    return undefined;
  }
  if (url.protocol !== 'https:') return undefined;
  return isLoopbackHost(url.host) ? `if it is a plain http service on this machine, as the sandbox is, use http://${url.host}` : 'check the address and its port: it may be a plain http service';
}

function certificateProblem(code: string | undefined): string | undefined {
  switch (code) {
    case 'CERT_HAS_EXPIRED':
    case 'CERT_NOT_YET_VALID':
      return 'has expired or is not valid yet (check this machine’s clock too)';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
    case 'HOSTNAME_MISMATCH':
      return 'is for another host name';
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
    case 'CERT_UNTRUSTED':
    case 'CERT_REJECTED':
    case 'CERT_REVOKED':
    case 'CERT_SIGNATURE_FAILURE':
      return 'is not signed by an authority this machine trusts';
    default:
      return undefined;
  }
}

/** The table: one function per error code, the context deciding the words. */
export const FAILURE_WORDING: { readonly [code in ApiErrorCode]: (s: FailureSituation) => FailureWords } = {
  unauthorized: (s) => ({
    sentence: s.credential
      ? `The service did not accept the credential in use, ${s.credential.label}, to ${s.op.what}: it may be mistyped, expired or deleted`
      : `The service did not accept the credential (session token or management key) to ${s.op.what}: it may be mistyped, expired or deleted`,
    join: '; ',
    next: s.credential?.whenRejected ?? 'sign in again with a valid one',
  }),
  forbidden: (s) => ({
    sentence: `${s.credential ? `The credential in use, ${s.credential.label},` : 'This credential'} may not ${s.op.what}`,
    next: 'use a session token or a management key (a consumption key cannot manage the account)',
  }),
  not_found: (s) => {
    // A refusal in the service's own words is never answered with network or address advice:
    // only a bare 404 (no error body of ours) suggests a wrong base URL.
    if (s.op.byId) return { sentence: `Could not ${s.op.what}: the service has no item with that id (it may have been deleted already)`, join: '; ', next: 'list them again' };
    if (s.op.name === 'verifyTopUp') {
      return {
        sentence: `Could not ${s.op.what}: the service does not know this transaction yet (it may still be confirming on the chain)`,
        next: 'wait a minute, then verify again with the same hash',
      };
    }
    if (s.namedByService) return { sentence: `Could not ${s.op.what}: the service answered that it was not found`, next: '' };
    return { sentence: `Could not ${s.op.what}: the service answered "not found" without saying why`, join: '; ', next: `check that the base URL ${s.baseUrl} points at the service` };
  },
  invalid_request: (s) => ({ sentence: `The service refused the request to ${s.op.what} as invalid${s.field ? ` (field ${s.field})` : ''}`, next: 'correct it and try again' }),
  insufficient_balance: (s) => ({ sentence: `Could not ${s.op.what}: the credit balance is 0`, join: '; ', next: 'top up first' }),
  budget_exceeded: (s) => ({ sentence: `Could not ${s.op.what}: the credit budget is spent`, join: '; ', next: 'top up to continue' }),
  amount_mismatch: (s) => ({ sentence: `Could not ${s.op.what}: the amount does not match the amount of the transfer`, join: '; ', next: 'verify with the exact amount sent' }),
  tx_already_used: (s) =>
    s.op.name === 'verifyTopUp'
      ? { sentence: `Could not ${s.op.what}: this transaction has already been used for a top-up (each transfer is credited once)`, join: '; ', next: 'check the balance' }
      : { sentence: `Could not ${s.op.what}: the service reported a conflict (HTTP ${s.status ?? 409})`, join: '; ', next: 'refresh and try again' },
  card_declined: (s) => ({ sentence: `Could not ${s.op.what}: the card was declined`, join: '; ', next: 'nothing was charged; use another card or method, or ask the card issuer why' }),
  rate_limited: (s) => ({ sentence: `The service refused to ${s.op.what} because of too many requests`, next: `wait ${s.retryAfter ?? 'a moment'} before trying again` }),
  server_error: (s) => {
    const headline = `The service is failing${s.status !== undefined ? ` (HTTP ${s.status})` : ''}`;
    if (s.op.changesState && (s.status ?? 500) >= 500) {
      return {
        sentence: `The service failed (HTTP ${s.status ?? 500}) while trying to ${s.op.what}, so whether it took effect is unknown`,
        next: checkFirst(s),
        outcomeUnknown: true,
        headline,
        state: 'service failing',
      };
    }
    const how = s.status !== undefined && s.status >= 400 ? `HTTP ${s.status}` : 'it reported a failure';
    return { sentence: `The service failed to ${s.op.what} (${how})`, next: 'try again in a moment', headline, state: 'service failing' };
  },
  timeout: (s) =>
    s.op.changesState && s.possiblySent
      ? {
          sentence: `The service did not answer within ${s.wait ?? 'the time allowed'} after the request to ${s.op.what} was sent, so whether it took effect is unknown`,
          next: checkFirst(s),
          outcomeUnknown: true,
          headline: 'Offline (no answer in time)',
          state: 'offline',
        }
      : {
          sentence: `The service did not answer within ${s.wait ?? 'the time allowed'} (trying to ${s.op.what})`,
          next: 'check the network and try again later',
          headline: 'Offline (no answer in time)',
          state: 'offline',
        },
  network_error: (s) => {
    if (s.op.changesState && s.possiblySent) {
      return {
        sentence: `The connection to the service failed (${s.transportCode ?? 'network error'}) after the request to ${s.op.what} was sent, so whether it took effect is unknown`,
        next: checkFirst(s),
        outcomeUnknown: true,
        headline: 'Offline',
        state: 'offline',
      };
    }
    const nothingSent = s.op.changesState ? ' (nothing was sent)' : '';
    const certificate = certificateProblem(s.transportCode);
    if (certificate !== undefined) {
      return {
        sentence: `Could not ${s.op.what}: the TLS certificate of the service at ${s.baseUrl} ${certificate} (${s.transportCode}), so keydeck did not connect`,
        next: `check the address, or, behind a proxy that inspects TLS, give Node its certificate authority with NODE_EXTRA_CA_CERTS=FILE${nothingSent}`,
        headline: 'Certificate not trusted',
        state: 'offline',
      };
    }
    const plain = plainHttpAnswer(s.baseUrl, s.transportCode);
    if (plain !== undefined) {
      return {
        sentence: `Could not ${s.op.what}: the service at ${s.baseUrl} does not answer in TLS (${s.transportCode})`,
        next: `${plain}${nothingSent}`,
        headline: 'Not a TLS service',
        state: 'offline',
      };
    }
    return {
      sentence: `Could not reach the service at ${s.baseUrl} to ${s.op.what} (${s.transportCode ?? 'network error'})`,
      next: `check the address and the network connection${nothingSent}`,
      headline: 'Offline',
      state: 'offline',
    };
  },
  // A client built read-only (src/config/profileMarks.ts): refused before anything is sent.
  read_only: (s) => ({ sentence: `Did not ${s.op.what}: ${s.readOnly ?? 'this client is read-only'}`, join: '; ', next: 'nothing was sent' }),
  invalid_response: (s) => {
    const words = { headline: 'The service’s answers are unreadable', state: 'bad answers' };
    if (s.redirectTo !== undefined) {
      return {
        ...words,
        sentence: `The service answered the request to ${s.op.what} with a redirect (HTTP ${s.status ?? 302})${s.redirectTo === '' ? '' : ` to ${s.redirectTo}`}; keydeck does not follow redirects`,
        next: "set the base URL to the service's final address",
      };
    }
    const where = s.field !== undefined ? ` (field ${s.field}: ${s.problem ?? 'unexpected'})` : ` (${s.problem ?? 'unexpected'})`;
    return s.op.changesState
      ? { ...words, sentence: `The service's answer to the request to ${s.op.what} is not what keydeck expects${where}`, join: '; ', next: `it probably took effect: ${checkFirst(s)}` }
      : {
          ...words,
          sentence: `The service's answer to the request to ${s.op.what} is not what keydeck expects${where}`,
          join: '; ',
          next: 'the service may have changed its format: report this if it persists',
        };
  },
};

/** The words of `code` in `situation` (see {@link FAILURE_WORDING}). */
export function failureWords(code: ApiErrorCode, situation: FailureSituation): FailureWords {
  return FAILURE_WORDING[code](situation);
}

/** The sentence and its next step joined, without the final period. */
export function failureSentence(words: FailureWords): string {
  return words.next === '' ? words.sentence : `${words.sentence}${words.join ?? ': '}${words.next}`;
}

/**
 * The sentence with the service's own words (`said`, already cleaned and bounded) beside
 * keydeck's. A refusal whose sentence names no reason (`inline`: a 4xx whose
 * sentence has no colon) takes them as its reason, before the next step: "The service refused
 * the request to create the credit key as invalid: “Credit balance must be greater than 0 to
 * create a credit key”; correct it and try again". Any other keeps its sentence and next step
 * together and adds them at the end: "…; sign in again with a valid one (the service said
 * “Invalid token”)".
 */
export function failureSentenceQuoting(words: FailureWords, said: string, inline: boolean): string {
  if (inline && !words.sentence.includes(':')) return words.next === '' ? `${words.sentence}: “${said}”` : `${words.sentence}: “${said}”; ${words.next}`;
  return `${failureSentence(words)} (the service said “${said}”)`;
}
