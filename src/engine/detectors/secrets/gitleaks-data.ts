// Rule data taken from gitleaks (https://github.com/gitleaks/gitleaks, MIT licence, file
// config/gitleaks.toml at commit 009e025ad4106ab333aa0b9dc4f2a884390d134c): the value formats of its
// "vendor keyword = value" rules and the public example values its allowlists name. See NOTICE.md
// beside this file. Data only: generic.ts checks an assigned value against these formats (whole
// value, at most 600 characters, compiled with re2js so every check is linear-time).
import { RE2JS } from 're2js';
import type { SecretEntity } from './patterns.js';

export interface VendorFormat {
  /** gitleaks rule id the format comes from. */
  rule: string;
  /** Lower-case words; any of them in an assigned name selects this rule. */
  keywords: readonly string[];
  /** The whole value (gitleaks' secret group). */
  value: string;
  entity: SecretEntity;
  /** gitleaks rules are case-insensitive unless they say otherwise. */
  caseSensitive?: boolean;
}

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

// [rule id, keywords, value format, entity, case-sensitive]
const ROWS: ReadonlyArray<readonly [string, readonly string[], string, SecretEntity, boolean?]> = [
  ['adafruit-api-key', ['adafruit'], '[a-z0-9_-]{32}', 'SECRET.GENERIC'],
  ['airtable-api-key', ['airtable'], '[a-z0-9]{17}', 'SECRET.GENERIC'],
  ['algolia-api-key', ['algolia'], '[a-z0-9]{32}', 'SECRET.SEARCH_KEY'],
  ['alibaba-secret-key', ['alibaba'], '[a-z0-9]{30}', 'SECRET.CLOUD_ACCESS_KEY'],
  ['asana-client-secret', ['asana'], '[a-z0-9]{32}', 'SECRET.GENERIC'],
  ['atlassian-api-token', ['atlassian', 'confluence', 'jira'], '[a-z0-9]{20}[a-f0-9]{4}', 'SECRET.GENERIC'],
  ['beamer-api-token', ['beamer'], 'b_[a-z0-9=_-]{44}', 'SECRET.GENERIC'],
  ['bitbucket-client-secret', ['bitbucket'], '[a-z0-9]{32}|[a-z0-9=_-]{64}', 'SECRET.CODE_HOST_TOKEN'],
  ['bittrex-secret-key', ['bittrex'], '[a-z0-9]{32}', 'SECRET.PAYMENT_KEY'],
  ['cisco-meraki-api-key', ['meraki'], '[0-9a-f]{40}', 'SECRET.GENERIC', true],
  ['cloudflare-api-key', ['cloudflare'], '[a-z0-9_-]{40}|[a-f0-9]{37}', 'SECRET.CLOUD_ACCESS_KEY'],
  ['codecov-access-token', ['codecov'], '[a-z0-9]{32}', 'SECRET.GENERIC'],
  ['cohere-api-token', ['cohere', 'co_api_key'], '[a-zA-Z0-9]{40}', 'SECRET.MODEL_API_KEY', true],
  ['coinbase-access-token', ['coinbase'], '[a-z0-9_-]{64}', 'SECRET.PAYMENT_KEY'],
  ['confluent-secret-key', ['confluent'], '[a-z0-9]{16}|[a-z0-9]{64}', 'SECRET.GENERIC'],
  ['contentful-delivery-api-token', ['contentful'], '[a-z0-9=_-]{43}', 'SECRET.GENERIC'],
  ['datadog-access-token', ['datadog'], '[a-z0-9]{40}', 'SECRET.GENERIC'],
  ['discord-client-secret', ['discord'], '[a-f0-9]{64}|[a-z0-9=_-]{32}', 'SECRET.CHAT_TOOL_TOKEN'],
  ['droneci-access-token', ['droneci'], '[a-z0-9]{32}', 'SECRET.GENERIC'],
  ['dropbox-api-token', ['dropbox'], '[a-z0-9]{15}|[a-z0-9]{11}AAAAAAAAAA[a-z0-9_=-]{43}|sl\\.[a-z0-9=_-]{135}', 'SECRET.GENERIC'],
  ['etsy-access-token', ['etsy'], '[a-z0-9]{24}', 'SECRET.GENERIC'],
  ['facebook-secret', ['facebook'], '[a-f0-9]{32}', 'SECRET.GENERIC'],
  ['fastly-api-token', ['fastly'], '[a-z0-9=_-]{32}', 'SECRET.GENERIC'],
  ['finicity-client-secret', ['finicity'], '[a-f0-9]{32}|[a-z0-9]{20}', 'SECRET.PAYMENT_KEY'],
  ['finnhub-access-token', ['finnhub'], '[a-z0-9]{20}', 'SECRET.GENERIC'],
  ['flickr-access-token', ['flickr'], '[a-z0-9]{32}', 'SECRET.GENERIC'],
  ['freshbooks-access-token', ['freshbooks'], '[a-z0-9]{64}', 'SECRET.GENERIC'],
  ['gitter-access-token', ['gitter'], '[a-z0-9_-]{40}', 'SECRET.CHAT_TOOL_TOKEN'],
  ['heroku-api-key', ['heroku'], UUID, 'SECRET.CLOUD_ACCESS_KEY'],
  ['sumologic-access-id', ['sumo'], 'su[a-zA-Z0-9]{12}', 'SECRET.GENERIC', true],
  ['sumologic-access-token', ['sumo'], '[a-z0-9]{64}', 'SECRET.GENERIC'],
  ['twitch-api-token', ['twitch'], '[a-z0-9]{30}', 'SECRET.CHAT_TOOL_TOKEN'],
  ['sonar-api-token', ['sonar'], '(?:squ_|sqp_|sqa_)?[a-z0-9=_-]{40}', 'SECRET.GENERIC'],
];

export interface CompiledVendorFormat extends VendorFormat {
  compiled: RE2JS;
}

export const VENDOR_FORMATS: readonly CompiledVendorFormat[] = ROWS.map(([rule, keywords, value, entity, caseSensitive]) => ({
  rule,
  keywords,
  value,
  entity,
  ...(caseSensitive === true ? { caseSensitive } : {}),
  compiled: RE2JS.compile(`(?:${value})`, caseSensitive === true ? 0 : RE2JS.CASE_INSENSITIVE),
}));

/** Every keyword that selects a format (for the keyword scanner's anchor). */
export const VENDOR_FORMAT_KEYWORDS: readonly string[] = [...new Set(VENDOR_FORMATS.flatMap((f) => f.keywords))];

/**
 * Values gitleaks' allowlists and stopwords name as public: Google API keys published in SDK
 * samples and documentation pages, and sample values from its test data.
 */
export const PUBLIC_EXAMPLE_VALUES: ReadonlySet<string> = new Set([
  'AIzaSyabcdefghijklmnopqrstuvwxyz1234567',
  'AIzaSyAnLA7NfeLquW1tJFpx_eQCxoX-oo6YyIs',
  'AIzaSyCkEhVjf3pduRDt6d1yKOMitrUEke8agEM',
  'AIzaSyDMAScliyLx7F0NPDEJi1QmyCgHIAODrlU',
  'AIzaSyD3asb-2pEZVqMkmL6M9N6nHZRR_znhrh0',
  'AIzayDNSXIbFmlXbIE6mCzDLQAqITYefhixbX4A',
  'AIzaSyAdOS2zB6NCsk1pCdZ4-P6GBdi_UUPwX7c',
  'AIzaSyASWm6HmTMdYWpgMnjRBjxcQ9CKctWmLd4',
  'AIzaSyANUvH9H9BsUccjsu2pCmEkOPjjaXeDQgY',
  'AIzaSyA5_iVawFQ8ABuTZNUdcwERLJv_a_p4wtM',
  'AIzaSyA4UrcGxgwQFTfaI3no3t7Lt1sjmdnP5sQ',
  'AIzaSyDSb51JiIcB6OJpwwMicseKRhhrOq1cS7g',
  'AIzaSyBF2RrAIm4a0mO64EShQfqfd2AFnzAvvuU',
  'AIzaSyBcE-OOIbhjyR83gm4r2MFCu4MJmprNXsw',
  'AIzaSyB8qGxt4ec15vitgn44duC5ucxaOi4FmqE',
  'AIzaSyA8vmApnrHNFE0bApF4hoZ11srVL_n0nvY',
  '6fe4476ee5a1832882e326b506d14126',
  '014df517-39d1-4453-b7b3-9930c563627c',
]);

/**
 * The formats whose keywords open one of a name's words (`SUMO_ACCESS_ID`, `sumologicKey`), given
 * the name split into lower-case words; `sumOfExposures` and `CameraKit` name no vendor.
 */
export function formatsForWords(words: readonly string[]): CompiledVendorFormat[] {
  const joined = words.join('_');
  return VENDOR_FORMATS.filter((f) =>
    f.keywords.some((k) => (k.includes('_') ? joined.includes(k) : words.some((word) => word.startsWith(k)))),
  );
}
