// Keyword-assignment scanning for secrets.native: finds values assigned to key-like names
// (`api_key = "…"`, `secret: …`, `"token": "…"`, `--password …`, `Authorization: Bearer …`,
// `curl -u user:pass`) in code, config, env files and JSON, and keeps the ones that look like key
// material. Hot path: no I/O here. One linear keyword regex finds anchors; everything after that is
// a bounded walk (identifier ≤ 80 chars, value ≤ 300 chars) from each anchor.
import type { SecretEntity } from './patterns.js';
import { formatsForWords, PUBLIC_EXAMPLE_VALUES, VENDOR_FORMAT_KEYWORDS, type CompiledVendorFormat } from './gitleaks-data.js';
import {
  basicAuthVerdict,
  characterClasses,
  entropyVerdict,
  placeholderReason,
  shannonEntropy,
  type Verdict,
} from './validators.js';

export interface GenericFinding {
  entity: SecretEntity;
  score: number;
  start: number;
  end: number;
  pattern: string;
  validator: string;
  explanation: string;
}

// Anchors: substrings every key-like name contains. Case-insensitive, literal alternatives only.
// Vendor names (VENDOR_WORDS below) are added to it once that list exists.
const SECRET_STEMS = ['key', 'token', 'secret', 'passw', 'pwd', 'passphrase', 'credential', 'auth', 'bearer', 'login', 'creds'];

/** Words (after splitting an identifier) that name a secret. */
const SECRET_WORDS = new Set([
  'key',
  'apikey',
  'token',
  'secret',
  'password',
  'passwd',
  'pwd',
  'pass',
  'passphrase',
  'credential',
  'credentials',
  'creds',
  'auth',
  'authorization',
  'bearer',
  'login',
  'pat',
  'accesskey',
  'secretkey',
  'privatekey',
  'masterkey',
  'signingkey',
  'encryptionkey',
  'licensekey',
  'appkey',
  'authkey',
  'clientkey',
  'servicekey',
  'subscriptionkey',
  'apisecret',
  'clientsecret',
  'appsecret',
]);

/** Compound words ending in these name secrets too (`accesstoken`, `dbpassword`). */
const SECRET_SUFFIXES = ['token', 'secret', 'password', 'passwd', 'apikey'];

/** Words allowed after the secret word: `api_key_value`, `token2`, `secret_b64`. */
const ALLOWED_TRAILING = new Set([
  'value',
  'str',
  'string',
  'b64',
  'base64',
  'hex',
  'raw',
  'enc',
  'encrypted',
  'plain',
  'plaintext',
  'data',
  'prod',
  'production',
  'dev',
  'development',
  'test',
  'staging',
  'live',
  'sandbox',
  'default',
  'secret',
  'token',
  'key',
  'override',
  'base',
]);

/** Names that contain a secret word but hold public or non-credential values. */
const NON_SECRET_QUALIFIERS = new Set([
  'public',
  'pub',
  'publishable',
  'csrf',
  'xsrf',
  'authenticity',
  'cache',
  'sort',
  'hash',
  'range',
  'partition',
  'row',
  'primary',
  'foreign',
  'unique',
  'bucket',
  'schema',
  'sequence',
  'lookup',
  'map',
  'idempotency',
  'dedup',
  'dedupe',
  'object',
  'registry',
  'translation',
  'i18n',
  'label',
  'next',
  'page',
  'pagination',
  'continuation',
  'cursor',
  'sync',
  'hot',
  'short',
  'keyboard',
  'websocket',
  'socket',
  'site',
  'recaptcha',
  'column',
  'field',
  'attribute',
  'property',
  'option',
  'dsn',
  'fingerprint',
  'no',
  'non',
  'matching',
  'nonmatching',
  'invalid',
  'wrong',
  'fake',
  'dummy',
  'example',
  'sample',
  'mock',
]);

/**
 * Vendor words in the name decide the entity when no provider pattern matched the value
 * (`algolia_api_key`, `DISCORD_TOKEN`, `stripe_secret`).
 */
const VENDOR_ENTITIES: ReadonlyArray<readonly [string, SecretEntity]> = [
  ['openai', 'SECRET.MODEL_API_KEY'],
  ['anthropic', 'SECRET.MODEL_API_KEY'],
  ['claude', 'SECRET.MODEL_API_KEY'],
  ['cohere', 'SECRET.MODEL_API_KEY'],
  ['mistral', 'SECRET.MODEL_API_KEY'],
  ['gemini', 'SECRET.MODEL_API_KEY'],
  ['groq', 'SECRET.MODEL_API_KEY'],
  ['perplexity', 'SECRET.MODEL_API_KEY'],
  ['pplx', 'SECRET.MODEL_API_KEY'],
  ['deepseek', 'SECRET.MODEL_API_KEY'],
  ['together', 'SECRET.MODEL_API_KEY'],
  ['replicate', 'SECRET.MODEL_API_KEY'],
  ['huggingface', 'SECRET.MODEL_API_KEY'],
  ['hugging_face', 'SECRET.MODEL_API_KEY'],
  ['hf_', 'SECRET.MODEL_API_KEY'],
  ['llm', 'SECRET.MODEL_API_KEY'],
  ['gpt', 'SECRET.MODEL_API_KEY'],
  ['voyage', 'SECRET.MODEL_API_KEY'],
  ['fireworks', 'SECRET.MODEL_API_KEY'],
  ['azure_openai', 'SECRET.MODEL_API_KEY'],
  ['elevenlabs', 'SECRET.MODEL_API_KEY'],
  ['deepgram', 'SECRET.MODEL_API_KEY'],
  ['assemblyai', 'SECRET.MODEL_API_KEY'],
  ['stability', 'SECRET.MODEL_API_KEY'],
  ['wandb', 'SECRET.MODEL_API_KEY'],
  ['aws', 'SECRET.CLOUD_ACCESS_KEY'],
  ['gcp', 'SECRET.CLOUD_ACCESS_KEY'],
  ['google', 'SECRET.CLOUD_ACCESS_KEY'],
  ['azure', 'SECRET.CLOUD_ACCESS_KEY'],
  ['alibaba', 'SECRET.CLOUD_ACCESS_KEY'],
  ['aliyun', 'SECRET.CLOUD_ACCESS_KEY'],
  ['tencent', 'SECRET.CLOUD_ACCESS_KEY'],
  ['yandex', 'SECRET.CLOUD_ACCESS_KEY'],
  ['digitalocean', 'SECRET.CLOUD_ACCESS_KEY'],
  ['linode', 'SECRET.CLOUD_ACCESS_KEY'],
  ['heroku', 'SECRET.CLOUD_ACCESS_KEY'],
  ['cloudflare', 'SECRET.CLOUD_ACCESS_KEY'],
  ['github', 'SECRET.CODE_HOST_TOKEN'],
  ['gitlab', 'SECRET.CODE_HOST_TOKEN'],
  ['bitbucket', 'SECRET.CODE_HOST_TOKEN'],
  ['gitea', 'SECRET.CODE_HOST_TOKEN'],
  ['slack', 'SECRET.CHAT_TOOL_TOKEN'],
  ['discord', 'SECRET.CHAT_TOOL_TOKEN'],
  ['telegram', 'SECRET.CHAT_TOOL_TOKEN'],
  ['mattermost', 'SECRET.CHAT_TOOL_TOKEN'],
  ['teams', 'SECRET.CHAT_TOOL_TOKEN'],
  ['gitter', 'SECRET.CHAT_TOOL_TOKEN'],
  ['twitch', 'SECRET.CHAT_TOOL_TOKEN'],
  ['algolia', 'SECRET.SEARCH_KEY'],
  ['meilisearch', 'SECRET.SEARCH_KEY'],
  ['typesense', 'SECRET.SEARCH_KEY'],
  ['elastic', 'SECRET.SEARCH_KEY'],
  ['serpapi', 'SECRET.SEARCH_KEY'],
  ['tavily', 'SECRET.SEARCH_KEY'],
  ['bing', 'SECRET.SEARCH_KEY'],
  ['brave', 'SECRET.SEARCH_KEY'],
  ['swiftype', 'SECRET.SEARCH_KEY'],
  ['stripe', 'SECRET.PAYMENT_KEY'],
  ['paypal', 'SECRET.PAYMENT_KEY'],
  ['braintree', 'SECRET.PAYMENT_KEY'],
  ['square', 'SECRET.PAYMENT_KEY'],
  ['adyen', 'SECRET.PAYMENT_KEY'],
  ['razorpay', 'SECRET.PAYMENT_KEY'],
  ['plaid', 'SECRET.PAYMENT_KEY'],
  ['coinbase', 'SECRET.PAYMENT_KEY'],
  ['kraken', 'SECRET.PAYMENT_KEY'],
  ['kucoin', 'SECRET.PAYMENT_KEY'],
  ['bittrex', 'SECRET.PAYMENT_KEY'],
  ['gocardless', 'SECRET.PAYMENT_KEY'],
  ['flutterwave', 'SECRET.PAYMENT_KEY'],
  ['mollie', 'SECRET.PAYMENT_KEY'],
  ['paystack', 'SECRET.PAYMENT_KEY'],
];

/**
 * Service names that, in a name with no secret word (`sourcegraph: …`, `datadog = …`), still mark
 * the value as probably a credential. Values then face a stricter bar (long, high entropy).
 */
// Vendor names that are also ordinary words stay out of the bare-name rule.
const COMMON_WORDS = new Set(['together', 'teams', 'brave', 'square', 'elastic', 'bing', 'gpt', 'llm', 'google', 'hf', 'claude', 'voyage']);
const VENDOR_WORDS = new Set([
  ...VENDOR_ENTITIES.map(([vendor]) => vendor.replace(/_$/, '')).filter((vendor) => !COMMON_WORDS.has(vendor)),
  'sendgrid',
  'twilio',
  'mailgun',
  'mailchimp',
  'mailjet',
  'postmark',
  'sparkpost',
  'shopify',
  'doppler',
  'datadog',
  'newrelic',
  'sentry',
  'notion',
  'postman',
  'atlassian',
  'jira',
  'netlify',
  'vercel',
  'sourcegraph',
  'meraki',
  'sumologic',
  'okta',
  'auth0',
  'snyk',
  'sonar',
  'sonarqube',
  'contentful',
  'airtable',
  'asana',
  'hubspot',
  'zendesk',
  'intercom',
  'mixpanel',
  'launchdarkly',
  'pagerduty',
  'opsgenie',
  'circleci',
  'travis',
  'dropbox',
  'mapbox',
  'shippo',
  'easypost',
  'finnhub',
  'rapidapi',
  'pusher',
  'firebase',
  'supabase',
  'planetscale',
  'snowflake',
  'databricks',
  'fastly',
  'cloudinary',
  'dynatrace',
  'grafana',
  'typeform',
  'docusign',
  'binance',
  'bitfinex',
  'pulumi',
  'terraform',
  'vault',
  'artifactory',
  'jfrog',
  'npm',
  'pypi',
  'rubygems',
  'nuget',
  'dockerhub',
  'webhook',
]);

const ANCHOR = new RegExp(
  [...new Set([...SECRET_STEMS, ...[...VENDOR_WORDS].filter((w) => w.length >= 4), ...VENDOR_FORMAT_KEYWORDS.filter((w) => w.length >= 4)])]
    .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('|'),
  'gi',
);

// Vendor formats per name; names repeat, so remember them like NAME_CACHE below.
const FORMAT_CACHE = new Map<string, CompiledVendorFormat[]>();

function vendorFormats(identifier: string): CompiledVendorFormat[] {
  let formats = FORMAT_CACHE.get(identifier);
  if (formats === undefined) {
    formats = formatsForWords(splitIdentifier(identifier));
    if (FORMAT_CACHE.size >= 2048) FORMAT_CACHE.clear();
    FORMAT_CACHE.set(identifier, formats);
  }
  return formats;
}

const MAX_IDENTIFIER = 80;
const MAX_VALUE = 600;

function isIdentifierChar(code: number): boolean {
  return (
    (code >= 97 && code <= 122) ||
    (code >= 65 && code <= 90) ||
    (code >= 48 && code <= 57) ||
    code === 95 || // _
    code === 45 || // -
    code === 46 // .
  );
}

/** `AWS_SECRET_ACCESS_KEY`, `apiKey`, `x-api-token`, `sonar.login` → lower-case words. */
export function splitIdentifier(identifier: string): string[] {
  return identifier
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_.-]+/)
    .map((word) => word.toLowerCase().replace(/\d+$/, ''))
    .filter((word) => word !== '');
}

function isSecretWord(word: string): boolean {
  if (SECRET_WORDS.has(word)) return true;
  return SECRET_SUFFIXES.some((suffix) => word.length > suffix.length && word.endsWith(suffix));
}

interface NameVerdict {
  ok: boolean;
  secretWord: string;
  /** Only a service name marks the value; it must look strongly like key material. */
  vendorOnly: boolean;
}

// Names repeat within a text (and across texts); judging one is a few regex passes, so remember.
// Kept over lru-cache, which hits at 0.3–0.9x the speed of a Map in this inner loop (bench/caches.ts).
const NAME_CACHE = new Map<string, NameVerdict>();
const NAME_CACHE_LIMIT = 2048;

/** Whether a name holds a credential: its last secret word is not qualified away. */
export function judgeName(identifier: string): NameVerdict {
  const cached = NAME_CACHE.get(identifier);
  if (cached !== undefined) return cached;
  const verdict = judgeNameUncached(identifier);
  if (NAME_CACHE.size >= NAME_CACHE_LIMIT) NAME_CACHE.clear();
  NAME_CACHE.set(identifier, verdict);
  return verdict;
}

function judgeNameUncached(identifier: string): NameVerdict {
  const words = splitIdentifier(identifier);
  let index = -1;
  for (let i = words.length - 1; i >= 0; i -= 1) {
    if (isSecretWord(words[i] ?? '')) {
      index = i;
      break;
    }
  }
  if (index === -1) {
    // `SOURCEGRAPH=…`: a bare service name, last or followed by allowed words only.
    const last = words.findLastIndex((word) => VENDOR_WORDS.has(word));
    const vendorOnly = last !== -1 && words.slice(last + 1).every((word) => ALLOWED_TRAILING.has(word));
    return { ok: vendorOnly, secretWord: '', vendorOnly };
  }
  const secretWord = words[index] ?? '';
  for (let i = index + 1; i < words.length; i += 1) {
    if (!ALLOWED_TRAILING.has(words[i] ?? '')) return { ok: false, secretWord, vendorOnly: false };
  }
  for (const word of words) if (NON_SECRET_QUALIFIERS.has(word)) return { ok: false, secretWord, vendorOnly: false };
  return { ok: true, secretWord, vendorOnly: false };
}

function vendorEntity(identifier: string): SecretEntity {
  const lower = identifier.toLowerCase();
  for (const [vendor, entity] of VENDOR_ENTITIES) if (lower.includes(vendor)) return entity;
  return 'SECRET.GENERIC';
}

const DATABASE_WORDS = new Set(['db', 'database', 'datasource', 'jdbc', 'sql', 'mysql', 'mariadb', 'postgres', 'postgresql', 'pg', 'mssql', 'oracle', 'mongo', 'mongodb', 'redis', 'rds', 'dsn']);
// A YAML/TOML block that opens with a database name; the window is at most 300 characters.
const DATABASE_BLOCK = /(?:^|\n)[ \t]{0,8}\[?(?:db|database|datasource|postgres(?:ql)?|mysql|mariadb|mongo(?:db)?|redis|sql)\]?[ \t]{0,4}(?::[ \t]*(?:\r?\n)|\]?\r?\n)/i;

const HEX_ID_OR_DIGEST = /^(?:[0-9a-fA-F]{24}|[0-9a-fA-F]{32}|[0-9a-fA-F]{40}|[0-9a-fA-F]{64}|[0-9a-fA-F]{96}|[0-9a-fA-F]{128})$/;
// Words that make `…key` a credential name (`api_key`, `secretKey`, `clientKey`).
const CREDENTIAL_KEY_QUALIFIERS = new Set(['api', 'access', 'secret', 'private', 'auth', 'client', 'app', 'master', 'signing', 'sign', 'encryption', 'encrypt', 'license', 'licence', 'service', 'subscription', 'account', 'admin', 'server', 'write', 'read', 'root', 'hmac', 'aes', 'crypto', 'cipher', 'jwt', 'session', 'cookie', 'webhook', 'consumer', 'developer', 'dev', 'prod', 'live', 'test']);

/** `key`, `sourceKey`, `item_key`: a key word with no credential qualifier and no vendor. */
function isPlainKeyName(identifier: string): boolean {
  const words = splitIdentifier(identifier);
  return !words.some((w) => CREDENTIAL_KEY_QUALIFIERS.has(w) || VENDOR_WORDS.has(w) || w.endsWith('apikey') || w === 'apikey');
}

const UUID_VALUE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

const PASSWORD_WORDS = new Set(['password', 'passwd', 'pwd', 'pass', 'passphrase']);

// Values that are code, names or versions rather than key material.
const CONSTANT_NAME = /^_{0,2}[A-Z][A-Z0-9]*(?:_{1,2}[A-Z0-9]+)+_{0,2}$/;
const WORDS_WITH_SEPARATORS = /^[a-z]+(?:[_-][a-z]+)+$/;
const CAMEL_IDENTIFIER = /^[_$]?[a-z]+(?:[A-Z][a-z]+)+(?:\$?\d{0,3})$/;
const PASCAL_IDENTIFIER = /^[_$]?(?:[A-Z][a-z]+){2,}(?:\$?\d{0,3})$/;
// A camelCase or PascalCase segment (`UnaryNodeCursorWithSkipOptions`); random key material
// breaks this shape almost at once.
const WORD_LIKE_SEGMENT = /^[A-Za-z_$][a-z_$]*(?:[A-Z]{1,3}[a-z_$]+)*[A-Z]{0,3}\d{0,3}$/;
// `this.x`, `props.token`, `req.headers…`: expressions, not literals.
const CODE_EXPRESSION = /^(?:!{1,2}|-|~)?(?:this|self|props|state|ctx|context|req|res|request|response|args|options|opts|params|data|config|env|window|document|global|globalThis|module|exports|os|process|settings)[.[#]/;
// `const key = …`: a declaration whose value is unquoted is an expression.
const DECLARATION = /(?:^|[\s;{(])(?:const|let|var|val|auto|final|def|my|local|static|readonly|private|public|protected|string|String|int|char)\s{1,4}$/;
const DOTTED_REFERENCE = /^[A-Za-z_$][\w$]{0,60}(?:\.[A-Za-z_$][\w$]{0,60}){1,6}(?:\(\))?$/;
const VERSION = /^v?\d{1,4}(?:\.\d{1,6}){1,3}(?:[-+][\w.-]{0,40})?$/;
const VERSIONED_NAME = /^[A-Za-z][\w.-]{0,80}[-_@:]v?\d{1,4}\.\d{1,6}(?:\.\d{1,6})?(?:[-.][A-Za-z0-9]{1,20})?$/;
const FILE_PATH = /^(?:[~.]{0,2}\/|[A-Za-z]:\\)|\.(?:pem|p12|pfx|key|crt|cer|jks|keystore|json|ya?ml|txt|env|ini|conf|cfg|xml|js|ts|py|rb|go|java|keytab|pub|der|asc|gpg)$/i;

/** `secret-2-levels`, `my_db-password`: words joined by separators, with no long random part. */
function isWordSequence(value: string): boolean {
  const parts = value.split(/[-_.#/:]+/).filter((part) => part !== '');
  if (parts.length < 2) return false;
  const isWord = (part: string): boolean => /^[A-Z]?[a-z]{2,}$/.test(part);
  const words = parts.filter(isWord).length;
  return words >= 2 && parts.every((part) => isWord(part) || part.length <= 4);
}

// Verdicts repeat for repeated values (templates, logs, adversarial padding); remember a few.
// A Map cleared at the limit, as NAME_CACHE above.
const VALUE_CACHE = new Map<string, Verdict>();
const VALUE_CACHE_LIMIT = 4096;

/** Value checks shared by the keyword and curl scanners. */
export function judgeValue(value: string, passwordLike: boolean): Verdict {
  const key = `${passwordLike ? 'p' : 'k'}${value}`;
  const cached = VALUE_CACHE.get(key);
  if (cached !== undefined) return cached;
  const verdict = judgeValueUncached(value, passwordLike);
  if (VALUE_CACHE.size >= VALUE_CACHE_LIMIT) VALUE_CACHE.clear();
  VALUE_CACHE.set(key, verdict);
  return verdict;
}

function judgeValueUncached(value: string, passwordLike: boolean): Verdict {
  if (value.length < (passwordLike ? 6 : 10)) return { ok: false, note: 'too short' };
  if (value.includes(' ') || value.includes('[')) return { ok: false, note: 'code or prose' };
  // `getToken()`, `os.getenv("X")`: a call. Random key material may hold a lone `(` mid-string.
  if (/^[\w$.]{1,60}\(/.test(value) || (value.includes('(') && !/[)]/.test(value) && /\($/.test(value))) {
    return { ok: false, note: 'code or prose' };
  }
  if (CODE_EXPRESSION.test(value)) return { ok: false, note: 'code expression' };
  if (value.includes('://')) return { ok: false, note: 'a URL' };
  // `secret1`, `password123!`: a placeholder word with a counter.
  const stem = value.replace(/[\d!@#$%^&*._-]+$/, '');
  const reason = placeholderReason(value) ?? (stem !== '' && stem !== value ? placeholderReason(stem.toLowerCase()) : undefined);
  if (reason !== undefined) return { ok: false, note: reason };
  if (isWordSequence(value)) return { ok: false, note: 'words, not key material' };
  if (FILE_PATH.test(value)) return { ok: false, note: 'file path' };
  if (VERSION.test(value) || VERSIONED_NAME.test(value)) return { ok: false, note: 'version string' };
  if (CONSTANT_NAME.test(value) || WORDS_WITH_SEPARATORS.test(value)) return { ok: false, note: 'identifier, not key material' };
  if (CAMEL_IDENTIFIER.test(value) || PASCAL_IDENTIFIER.test(value)) return { ok: false, note: 'identifier, not key material' };
  if (DOTTED_REFERENCE.test(value) && (shannonEntropy(value) < 4.2 || value.split('.').every((part) => WORD_LIKE_SEGMENT.test(part)))) {
    return { ok: false, note: 'code reference' };
  }
  if (/^urn:/i.test(value)) return { ok: false, note: 'a URN' };
  if (/passw(?:or)?d/i.test(value) && value.length < 16 && characterClasses(value) <= 2) return { ok: false, note: 'names a password' };
  const classes = characterClasses(value);
  if (/^\d+$/.test(value)) {
    // Numeric ids (client ids, account numbers) are weak; only long ones count.
    if (value.length < 16 || passwordLike) return { ok: false, note: 'a number' };
    return entropyVerdict(value, 0.4);
  }
  if (classes === 1 && !passwordLike && (value.length < 24 || shannonEntropy(value) < 3.8)) {
    return { ok: false, note: 'single character class' };
  }
  if (!passwordLike && /^[A-Za-z]+$/.test(value) && (value.length < 20 || shannonEntropy(value) < 3.8)) {
    return { ok: false, note: 'letters only: a word or name' };
  }
  return entropyVerdict(value, passwordLike ? 0.6 : 0);
}

/**
 * Key material that a reader would call a credential at a glance: long, several character classes
 * (or long hex) and high entropy. Words, ids and short strings stay below it.
 */
export function isStrongKeyMaterial(value: string): boolean {
  if (value.length < 16) return false;
  const bits = shannonEntropy(value);
  if (/^[0-9a-fA-F-]+$/.test(value)) return value.length >= 32 && bits >= 3.5 && /[0-9]/.test(value) && /[a-fA-F]/.test(value);
  const classes = characterClasses(value);
  if (classes >= 3) return bits >= 3.7;
  // Lower case and digits (`bwmbzq6kfofb7jknatzt2zkkq3705l`) or letters only at great length.
  if (classes === 2 && /[0-9]/.test(value) && /[A-Za-z]/.test(value)) return value.length >= 20 && bits >= 3.8;
  return classes === 2 && value.length >= 24 && bits >= 4.2;
}

/** A password with length and mixed classes, not a dictionary word with a counter. */
function isStrongPassword(value: string): boolean {
  return value.length >= 10 && characterClasses(value) >= 3 && shannonEntropy(value) >= 3.0;
}

interface ScoreFacts {
  passwordLike: boolean;
  /** The value matched the named vendor's format (gitleaks' rule data). */
  format: boolean;
  entity: SecretEntity;
  secretWord: string;
  scheme: string;
}

/**
 * Scores a keyword finding. The baseline pack blocks secrets at 0.9, so values with strong evidence
 * (a vendor's own format, strong key material under a credential name or auth scheme, a strong
 * password in a connection string) score at or above it; weaker ones are reported below it.
 */
function keywordScore(raw: string, facts: ScoreFacts): number {
  if (/^\d+$/.test(raw)) return 0.5;
  if (facts.format) return 0.93;
  if (facts.passwordLike) {
    if (!isStrongPassword(raw)) return 0.7;
    return facts.entity === 'SECRET.CONNECTION_STRING' ? 0.92 : 0.9;
  }
  if (facts.scheme === 'basic') return 0.9;
  const strong = isStrongKeyMaterial(raw);
  if (!strong) return shannonEntropy(raw) >= 4 ? 0.8 : 0.7;
  // A bare `key` names many non-secrets (object, cache, map keys): hex digests there stay below.
  if (facts.secretWord === 'key' && facts.entity === 'SECRET.GENERIC' && /^[0-9a-fA-F-]+$/.test(raw)) return 0.8;
  return facts.entity === 'SECRET.GENERIC' ? 0.9 : 0.92;
}

/** Prose and bare service names need stronger evidence: letters and digits, long, high entropy. */
function judgeStrictly(value: string, verdict: Verdict, vendorOnly: boolean): Verdict {
  if (!/[0-9]/.test(value) || !/[A-Za-z]/.test(value)) return { ok: false, note: 'needs letters and digits' };
  if (vendorOnly && (value.length < 20 || shannonEntropy(value) < 3.5)) return { ok: false, note: 'too weak for a bare service name' };
  if (!vendorOnly && value.length < 8) return { ok: false, note: 'too short' };
  return verdict;
}

const SCHEMES = /^(?:Bearer|Basic|Token|Api-Token|JWT|token|bearer|basic|OAuth|Digest|SSWS|Splunk|GenieKey|DeepL-Auth-Key)\s{1,4}/;
const CONNECTION_CONTEXT = /jdbc:|Server\s{0,2}=|Data Source\s{0,2}=|Host\s{0,2}=|Driver\s{0,2}=|User ID\s{0,2}=|Uid\s{0,2}=/i;

// `my password is …`, `the API key was …`: prose assignments, judged more strictly.
const PROSE_OPERATOR = /^ {1,3}(?:is|was|=|:)(?: set to)? {1,3}(?:now )?/;

/**
 * A sentence context: start of line or sentence, or a word before the name (`my password is`,
 * `the staging API key was`). Code such as `(token: T): token is U` has punctuation there instead.
 */
function opensProse(text: string, identStart: number): boolean {
  let pos = identStart - 1;
  while (pos >= 0 && (text[pos] === ' ' || text[pos] === '\t')) pos -= 1;
  if (pos < 0) return true;
  return /[A-Za-z\n.!?,"'*#>(-]/.test(text[pos] ?? '');
}

interface Start {
  pos: number;
  prose: boolean;
}

/** Finds the operator after a name; returns where the value starts, or undefined. */
function valueStart(text: string, identStart: number, identEnd: number, isFlag: boolean): Start | undefined {
  const strict = strictValueStart(text, identStart, identEnd, isFlag);
  if (strict !== -1) return { pos: strict, prose: false };
  const prose = PROSE_OPERATOR.exec(text.slice(identEnd, identEnd + 24));
  if (prose === null || !opensProse(text, identStart)) return undefined;
  return { pos: identEnd + prose[0].length, prose: true };
}

function strictValueStart(text: string, identStart: number, identEnd: number, isFlag: boolean): number {
  let pos = identEnd;
  const before = text.charCodeAt(identStart - 1);
  // `"api_key": "…"`: skip the key's closing quote (maybe escaped) when it opened with one.
  if (text[pos] === '\\' && (text[pos + 1] === '"' || text[pos + 1] === "'")) pos += 2;
  else if ((text[pos] === '"' || text[pos] === "'") && (before === 34 || before === 39 || before === 92)) pos += 1;
  else if (text[pos] === ']' && text[pos + 1] === ':') pos += 1;
  let spaces = 0;
  while ((text[pos] === ' ' || text[pos] === '\t') && spaces < 8) {
    pos += 1;
    spaces += 1;
  }
  const c = text[pos];
  // Most anchors in prose and code are not followed by an operator: leave before slicing.
  if (c !== ':' && c !== '=' && c !== '?' && c !== '+' && c !== '>' && !(isFlag && spaces > 0)) return -1;
  const op = text.slice(pos, pos + 4);
  let opLength = 0;
  if (op.startsWith(':::=')) opLength = 4;
  else if (op.startsWith('::=')) opLength = 3;
  else if (op.startsWith(':=') || op.startsWith('?=') || op.startsWith('=>') || op.startsWith('+=')) opLength = 2;
  else if (op.startsWith('==') || op.startsWith('=~')) return -1;
  else if (op.startsWith('=') || op.startsWith(':')) opLength = 1;
  // `<password>value</password>`: an element, not `Partial<Token>>(…)`.
  else if (op.startsWith('>') && before === 60 && /^[^<>\n]{1,600}<\//.test(text.slice(pos + 1, pos + 604))) opLength = 1;
  else if (isFlag && spaces > 0) opLength = 0;
  else return -1;
  if (op.startsWith(':') && opLength === 1 && text[pos + 1] === ':') return -1; // C++ / Rust paths
  pos += opLength;
  spaces = 0;
  while ((text[pos] === ' ' || text[pos] === '\t') && spaces < 8) {
    pos += 1;
    spaces += 1;
  }
  return pos;
}

interface Value {
  start: number;
  end: number;
  scheme: string;
  /** The quote character around the value, or '' when unquoted. */
  quote: string;
}

function readValue(text: string, from: number, inQuery: boolean): Value | undefined {
  let pos = from;
  let scheme = '';
  const first = text[pos] ?? '';
  // A JSON object or array is a structure, not a scalar secret.
  if (first === '{' || first === '[') return { start: pos, end: pos, scheme: '', quote: '' };
  const quoteFirst = first === '"' || first === "'" || first === '`';
  // Only slice and run the scheme regex when the value can start with a scheme word.
  const schemeInitial = text[quoteFirst ? pos + 1 : pos] ?? '';
  const schemeMatch = 'BbTtAJODSGs'.includes(schemeInitial) && schemeInitial !== '' ? SCHEMES.exec(text.slice(quoteFirst ? pos + 1 : pos, pos + 21)) : null;
  if (schemeMatch !== null) {
    scheme = schemeMatch[0].trim().toLowerCase();
    if (quoteFirst) pos += 1;
    pos += schemeMatch[0].length;
  }
  let quote = '';
  if (text[pos] === '\\' && (text[pos + 1] === '"' || text[pos + 1] === "'")) {
    quote = text[pos + 1] ?? '';
    pos += 2;
  } else if (text[pos] === '"' || text[pos] === "'" || text[pos] === '`') {
    quote = text[pos] ?? '';
    pos += 1;
  } else if (quoteFirst && scheme !== '') {
    quote = first;
  }
  const start = pos;
  const limit = Math.min(text.length, start + MAX_VALUE + 1);
  while (pos < limit) {
    const ch = text[pos] ?? '';
    if (ch === '\n' || ch === '\r') break;
    // A literal `\n` / `\r` / `\t` escape inside a string ends the value too.
    if (ch === '\\' && (text[pos + 1] === 'n' || text[pos + 1] === 'r' || text[pos + 1] === 't')) break;
    if (quote !== '') {
      if (ch === quote || (ch === '\\' && text[pos + 1] === quote)) break;
    } else if ((ch === '&' && inQuery) || ch === ' ' || ch === '\t' || ch === ',' || ch === ';' || ch === '"' || ch === "'" || ch === '<' || ch === '`' || ch === ')' || ch === '}' || ch === ']') {
      break;
    }
    pos += 1;
  }
  // Too long for a secret: undefined tells the caller to skip past this run.
  if (pos - start > MAX_VALUE) return undefined;
  let end = pos;
  // `ops_eyJzaWdu...`: a value cut short for display is not the secret itself (empty value).
  if (text.startsWith('...', end - 3) || text[end - 1] === '…' || text.startsWith('...', end)) end = start;
  // A sentence may end right after an unquoted value.
  while (quote === '' && end > start && (text[end - 1] === '.' || text[end - 1] === ':')) end -= 1;
  return { start, end, scheme, quote };
}

/**
 * Upper bound on keyword findings per text. A text with this many key-like assignments is flagged
 * many times over already; stopping keeps a hostile 1 MB of `token=…` lines from costing seconds.
 */
export const MAX_KEYWORD_FINDINGS = 5_000;

/** Scans `name <op> value` assignments whose name is key-like. Appends to `out`. */
export function scanKeywordAssignments(text: string, out: GenericFinding[]): void {
  ANCHOR.lastIndex = 0;
  let match: RegExpExecArray | null;
  const limit = out.length + MAX_KEYWORD_FINDINGS;
  while (out.length < limit && (match = ANCHOR.exec(text)) !== null) {
    const hit = match.index;
    let identStart = hit;
    while (identStart > 0 && hit - identStart < MAX_IDENTIFIER && isIdentifierChar(text.charCodeAt(identStart - 1))) identStart -= 1;
    let identEnd = hit + match[0].length;
    while (identEnd < text.length && identEnd - hit < MAX_IDENTIFIER && isIdentifierChar(text.charCodeAt(identEnd))) identEnd += 1;
    // Skip the rest of this identifier: one name is judged once.
    ANCHOR.lastIndex = Math.max(identEnd, hit + 1);
    if (identEnd - identStart >= MAX_IDENTIFIER) continue;
    const isFlag = text.startsWith('--', identStart);
    // Cheap checks first: most keyword hits in prose have no operator after them.
    const opened = valueStart(text, identStart, identEnd, isFlag);
    if (opened === undefined) continue;
    const from = opened.pos;
    const rawIdentifier = text.slice(identStart, identEnd);
    const identifier = isFlag || rawIdentifier.startsWith('-') ? rawIdentifier.replace(/^-+/, '') : rawIdentifier;
    const name = judgeName(identifier);
    // A vendor keyword with known formats (gitleaks' rule data) may name a secret without a secret
    // word (`sumologic.accessId`); the value must then match that vendor's format.
    const formats = vendorFormats(identifier);
    if (!name.ok && (formats.length === 0 || name.secretWord !== '')) continue;
    // `?token=…&x=1`: inside a query string `&` ends the value; elsewhere it may be part of it.
    const inQuery = text[identStart - 1] === '?' || text[identStart - 1] === '&';
    const value = readValue(text, from, inQuery);
    // Resume after the value: each character is read as a value at most once (linear time).
    ANCHOR.lastIndex = Math.max(ANCHOR.lastIndex, value === undefined ? Math.min(text.length, from + MAX_VALUE) : value.end);
    // An empty value (a structure, a truncated display) is skipped without skipping past it.
    if (value === undefined || value.end <= value.start) continue;
    const raw = text.slice(value.start, value.end);
    const passwordLike = PASSWORD_WORDS.has(name.secretWord) || name.secretWord.endsWith('password');
    if (value.quote === '' && DECLARATION.test(text.slice(Math.max(0, identStart - 16), identStart))) continue;
    // Unquoted values with a parenthesis are expressions (`key => !FIELDS.has(key)`).
    if (value.quote === '' && raw.includes('(')) continue;
    // `"prefix_" + id`: one piece of a concatenation, not a whole literal.
    if (value.quote !== '' && /^\s{0,2}\+/.test(text.slice(value.end + 1, value.end + 4))) continue;
    // `badge.svg?token=…`: public badge tokens in image URLs.
    if (inQuery && /\.(?:svg|png|gif|jpe?g)\?$/i.test(text.slice(Math.max(0, identStart - 6), identStart))) continue;
    if (PUBLIC_EXAMPLE_VALUES.has(raw)) continue;
    // Under a plain `key` name (`key`, `sourceKey`), a UUID, an object id or a hex digest is an
    // identifier or checksum (record, cache and object keys), not a credential.
    if (name.secretWord === 'key' && formats.length === 0 && isPlainKeyName(identifier) && (UUID_VALUE.test(raw) || HEX_ID_OR_DIGEST.test(raw))) continue;
    // `arn:aws:secretsmanager:…:secret:prod/db-x1`: a resource name, not a value.
    if (text[identStart - 1] === ':' && /arn:aws[\w-]{0,20}:/.test(text.slice(Math.max(0, identStart - 120), identStart))) continue;
    const format = formats.find((f) => raw.length <= MAX_VALUE && f.compiled.matches(raw));
    // Outside the vendor's format: a bare vendor name holds something else (an id, a URL part).
    if (format === undefined && (!name.ok || name.vendorOnly) && formats.length > 0) continue;
    let verdict = value.scheme === 'basic' ? basicAuthVerdict(raw) : judgeValue(raw, passwordLike && !name.vendorOnly);
    if (verdict.ok && format === undefined && (opened.prose || name.vendorOnly)) verdict = judgeStrictly(raw, verdict, name.vendorOnly);
    if (!verdict.ok) continue;
    if (format !== undefined) verdict = { ok: true, note: `${verdict.note}; matches the ${format.rule} format` };
    let entity = format !== undefined && !name.ok ? format.entity : vendorEntity(identifier);
    if (format !== undefined && entity === 'SECRET.GENERIC') entity = format.entity;
    // AWS secret access keys are exactly 40 characters; anything else under that name is some
    // other secret (an encrypted blob, a session token) and stays generic.
    if (entity === 'SECRET.CLOUD_ACCESS_KEY' && /aws/i.test(identifier) && /secret/i.test(identifier) && raw.length !== 40) entity = 'SECRET.GENERIC';
    // `private_key = 0x4c08…`, `PRIVATE_KEY=…`: a raw private key (wallets, signing keys).
    if (entity === 'SECRET.GENERIC' && /private_?key/i.test(identifier) && /^(?:0x)?[0-9a-fA-F]{64}$|^[A-Za-z0-9+/]{40,}={0,2}$/.test(raw)) {
      entity = 'SECRET.PRIVATE_KEY';
    }
    if (passwordLike) {
      // Same line, at most 300 characters back: bounded so that many findings stay linear.
      const window = text.slice(Math.max(0, identStart - 300), identStart);
      if (CONNECTION_CONTEXT.test(window.slice(window.lastIndexOf('\n') + 1))) entity = 'SECRET.CONNECTION_STRING';
      // `DB_PASSWORD`, `spring.datasource.password`, or a `database:` block a few lines up.
      else if (entity === 'SECRET.GENERIC' && (splitIdentifier(identifier).some((w) => DATABASE_WORDS.has(w)) || DATABASE_BLOCK.test(window))) {
        entity = 'SECRET.CONNECTION_STRING';
      }
    }
    const base = keywordScore(raw, { passwordLike, format: format !== undefined, entity, secretWord: name.secretWord, scheme: value.scheme });
    // Prose, bare service names and URL query values (one-time links, reset tokens) report below
    // the blocking bar unless the vendor's own format matched.
    const weak = opened.prose || name.vendorOnly;
    const inUrl = inQuery || text[identStart - 1] === '/';
    const score = weak ? Math.round((base - 0.1) * 100) / 100 : inUrl && format === undefined ? Math.min(base, 0.85) : base;
    out.push({
      entity,
      score,
      start: value.start,
      end: value.end,
      pattern: 'keyword-assignment',
      validator: verdict.note,
      explanation: `Value assigned to the key-like name "${identifier}"${value.scheme ? ` (${value.scheme} scheme)` : ''} passed the generic secret checks (${verdict.note}).`,
    });
  }
}

// `curl -u user:password` / `--user user:password`.
const CURL_USER = /(?:^|\s)(?:-u|--user)(?:\s{1,4}|=)/g;

/** Scans curl basic-auth flags when the text mentions curl. Appends to `out`. */
export function scanCurlCredentials(text: string, out: GenericFinding[]): void {
  if (!/curl/i.test(text)) return;
  CURL_USER.lastIndex = 0;
  let match: RegExpExecArray | null;
  while ((match = CURL_USER.exec(text)) !== null) {
    const start = match.index + match[0].length;
    let end = start;
    while (end < text.length && end - start <= MAX_VALUE && !/\s/.test(text[end] ?? ' ')) end += 1;
    if (end - start > MAX_VALUE) continue;
    const credential = text.slice(start, end).replace(/["'{}]/g, '');
    const colon = credential.indexOf(':');
    if (colon === -1) continue;
    const user = credential.slice(0, colon);
    const password = credential.slice(colon + 1);
    const secret = password !== '' ? password : user;
    if (placeholderReason(user) !== undefined && user !== '' && password === '') continue;
    const verdict = judgeValue(secret, true);
    if (!verdict.ok) continue;
    out.push({
      entity: 'SECRET.GENERIC',
      score: isStrongPassword(secret) || isStrongKeyMaterial(secret) ? 0.9 : 0.75,
      start,
      end,
      pattern: 'curl-basic-auth',
      validator: verdict.note,
      explanation: `curl basic-auth credentials passed to -u/--user; the password passed the generic secret checks (${verdict.note}).`,
    });
  }
}
